#include "bounded_input.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace causal::cli {

namespace {

constexpr std::size_t kChunk = 64 * 1024;

// One read(2) into out[at, at + n): bytes read, 0 at end of input, -1 on error.
ssize_t read_some(int fd, char* at, std::size_t n) {
  for (;;) {
    ssize_t got = ::read(fd, at, n);
    if (got >= 0 || errno != EINTR) return got;
  }
}

}  // namespace

bool LineReader::fill() {
  if (eof_ || errno_ != 0) return false;
  // Keep the unread bytes at the front, then make room for one more chunk.
  if (begin_ > 0) {
    std::memmove(buf_.data(), buf_.data() + begin_, end_ - begin_);
    end_ -= begin_;
    begin_ = 0;
  }
  if (buf_.size() < end_ + kChunk) buf_.resize(std::max(end_ + kChunk, std::min(2 * buf_.size(), max_line_ + kChunk)));
  ssize_t got = read_some(fd_, buf_.data() + end_, buf_.size() - end_);
  if (got < 0) {
    errno_ = errno;
    return false;
  }
  if (got == 0) {
    eof_ = true;
    return false;
  }
  end_ += static_cast<std::size_t>(got);
  return true;
}

bool LineReader::has_line() const {
  return stopped_ != Status::line || eof_ || std::memchr(buf_.data() + begin_, '\n', end_ - begin_) != nullptr;
}

LineReader::Status LineReader::next(std::string_view& line) {
  if (stopped_ != Status::line) return stopped_;
  std::size_t scanned = 0;  // bytes after begin_ known to hold no '\n'
  for (;;) {
    const char* from = buf_.data() + begin_ + scanned;
    if (const void* nl = std::memchr(from, '\n', end_ - begin_ - scanned)) {
      const std::size_t len = static_cast<std::size_t>(static_cast<const char*>(nl) - (buf_.data() + begin_));
      ++number_;
      if (len > max_line_) return stopped_ = Status::too_long;
      line = std::string_view(buf_.data() + begin_, len);
      begin_ += len + 1;
      return Status::line;
    }
    scanned = end_ - begin_;
    if (scanned > max_line_) {
      ++number_;
      return stopped_ = Status::too_long;
    }
    if (!fill()) {
      if (errno_ != 0) return stopped_ = Status::error;
      if (begin_ == end_) return stopped_ = Status::end;
      ++number_;  // the last line has no '\n'
      line = std::string_view(buf_.data() + begin_, end_ - begin_);
      begin_ = end_;
      return Status::line;
    }
  }
}

ReadStatus read_bounded(int fd, std::size_t max, std::string& out, int& err) {
  out.clear();
  for (;;) {
    const std::size_t at = out.size();
    out.resize(std::min(at + kChunk, max + 1));
    ssize_t got = read_some(fd, out.data() + at, out.size() - at);
    if (got < 0) {
      err = errno;
      out.resize(at);
      return ReadStatus::error;
    }
    out.resize(at + static_cast<std::size_t>(got));
    if (out.size() > max) return ReadStatus::too_long;
    if (got == 0) return ReadStatus::ok;
  }
}

}  // namespace causal::cli
