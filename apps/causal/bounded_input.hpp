// Reading standard input (or any file descriptor) with a bound, so that input larger than
// anything valid is refused after reading just past the bound, never read whole into
// memory first.
//
// LineReader hands out lines one at a time; a line longer than `max_line` bytes (its '\n'
// not counted) is reported as too_long as soon as that many bytes have arrived without a
// newline, and the reader stops there. Memory: one buffer of at most max_line + 64 KiB.
// read_bounded() reads a whole input of at most `max` bytes.
// Reads retry on EINTR; any other read error is reported with its errno.
// Thread-safety: none.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace causal::cli {

class LineReader {
 public:
  enum class Status { line, too_long, end, error };

  LineReader(int fd, std::size_t max_line) : fd_(fd), max_line_(max_line) {}

  // The next line, without its '\n' (a last line without one counts too). `line` stays
  // valid until the next call. After too_long, end or error, every call returns the same.
  Status next(std::string_view& line);

  // Whether a whole line is already buffered, so that next() returns it without reading
  // (a caller flushes its output before a next() that may wait for input).
  bool has_line() const;

  // The number of the line last returned, or of the one found too long (from 1).
  std::size_t number() const { return number_; }
  // errno of a read that failed (Status::error).
  int error() const { return errno_; }

 private:
  bool fill();  // reads more after the unread bytes; false at end of input or on error

  int fd_;
  std::size_t max_line_;
  std::string buf_;
  std::size_t begin_ = 0;  // unread bytes are buf_[begin_, end_)
  std::size_t end_ = 0;
  std::size_t number_ = 0;
  bool eof_ = false;
  int errno_ = 0;
  Status stopped_ = Status::line;  // not `line` once a final status was returned
};

enum class ReadStatus { ok, too_long, error };

// Reads all of `fd` into `out`, up to `max` bytes. too_long as soon as byte max + 1
// arrives (then `out` holds max + 1 bytes); error with errno in `err`.
ReadStatus read_bounded(int fd, std::size_t max, std::string& out, int& err);

}  // namespace causal::cli
