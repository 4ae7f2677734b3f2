// The cursor the JSON line writers (the record line, the clock object) write through.
// Private to apps/causal. Thread-safety: none; one cursor per buffer at a time.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <string_view>

#include <fmt/format.h>

namespace causal::cli {

// Writes through a raw pointer into room reserved in a memory_buffer, so that a line of many
// short fields costs one capacity check per field and no per-append call. Bytes between the
// buffer's size and the cursor are written but not yet counted until done(); nothing else
// may append to the buffer while a Cursor is writing into it.
class Cursor {
 public:
  explicit Cursor(fmt::memory_buffer& b) : b_(b), p_(b.data() + b.size()) {}
  Cursor(const Cursor&) = delete;
  Cursor& operator=(const Cursor&) = delete;

  // Room for n more bytes at the cursor; returns where they go.
  [[gnu::always_inline]] char* room(std::size_t n) {
    if (static_cast<std::size_t>(b_.data() + b_.capacity() - p_) < n) grow(n);
    return p_;
  }
  void advance_to(char* end) { p_ = end; }
  [[gnu::always_inline]] void lit(std::string_view s) {
    room(s.size());
    std::memcpy(p_, s.data(), s.size());
    p_ += s.size();
  }
  [[gnu::always_inline]] void put(char c) {
    room(1);
    *p_++ = c;
  }
  template <class Int>
  void num(Int v) {
    fmt::format_int f(v);
    lit(std::string_view(f.data(), f.size()));
  }
  void done() { b_.resize(used()); }

 private:
  std::size_t used() const { return static_cast<std::size_t>(p_ - b_.data()); }
  void grow(std::size_t n) {
    std::size_t u = used();
    b_.resize(u);  // within capacity: keeps the bytes, counts them so that reserve copies them
    b_.reserve(std::max(u + n, 2 * b_.capacity()));
    p_ = b_.data() + u;
  }
  fmt::memory_buffer& b_;
  char* p_;
};

}  // namespace causal::cli
