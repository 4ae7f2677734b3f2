// InlineVec<T, N>: a vector of trivially copyable claims that keeps up to N elements inside
// the object and moves to the heap only beyond that.
//
// Why: every received record carries a Clock, and the gate holds it until delivery. With
// std::vector each record cost one allocation at decode and one free at delivery, about a
// fifth of the gate's per-delivery cost (bench/gate_bench). Typical clocks (up to N claims)
// now cost neither; larger ones (custody clocks, wide fan-in) behave as a vector does.
//
// Contract: the subset of std::vector's interface that Clock needs, with the same meaning.
// Iterators and pointers are invalidated by any mutation, as with std::vector, and also by
// moving the InlineVec (inline elements move with the object).
// Thread-safety: value type, no shared state.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <new>
#include <span>
#include <type_traits>

namespace causal {

template <class T, std::size_t N>
class InlineVec {
  static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>);
  static_assert(N >= 1);

 public:
  using value_type = T;
  using iterator = T*;
  using const_iterator = const T*;

  InlineVec() = default;
  InlineVec(const InlineVec& o) { assign(o.data(), o.size_); }
  InlineVec(InlineVec&& o) noexcept { take(o); }
  InlineVec& operator=(const InlineVec& o) {
    if (this != &o) {
      size_ = 0;
      assign(o.data(), o.size_);
    }
    return *this;
  }
  InlineVec& operator=(InlineVec&& o) noexcept {
    if (this != &o) {
      release();
      take(o);
    }
    return *this;
  }
  ~InlineVec() { release(); }

  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  std::size_t capacity() const { return heap_ ? cap_ : N; }

  T* data() { return heap_ ? heap_ : inline_data(); }
  const T* data() const { return heap_ ? heap_ : inline_data(); }
  T* begin() { return data(); }
  T* end() { return data() + size_; }
  const T* begin() const { return data(); }
  const T* end() const { return data() + size_; }
  T& operator[](std::size_t i) { return data()[i]; }
  const T& operator[](std::size_t i) const { return data()[i]; }
  T& front() { return data()[0]; }
  const T& front() const { return data()[0]; }
  T& back() { return data()[size_ - 1]; }
  const T& back() const { return data()[size_ - 1]; }

  void clear() { size_ = 0; }  // keeps the capacity, as std::vector does
  void reserve(std::size_t n) {
    if (n > capacity()) grow(n);
  }
  // REQUIRES: n <= size().
  void truncate(std::size_t n) { size_ = static_cast<std::uint32_t>(n); }

  void push_back(const T& v) {
    if (size_ == capacity()) [[unlikely]]
      grow(next_capacity(size_ + 1));
    data()[size_++] = v;
  }
  // Appends n elements with unspecified values (T is trivial), for the caller to write;
  // returns the first. As std::make_unique_for_overwrite: no zeroing that would be overwritten.
  T* append_for_overwrite(std::size_t n) {
    if (n > capacity() - size_) [[unlikely]]
      grow(next_capacity(size_ + n));
    T* first = data() + size_;
    size_ += static_cast<std::uint32_t>(n);
    return first;
  }
  // Inserts v before pos; returns an iterator to it.
  T* insert(const T* pos, const T& v) {
    auto i = static_cast<std::size_t>(pos - data());
    if (size_ == capacity()) [[unlikely]]
      grow(next_capacity(size_ + 1));
    T* d = data();
    std::memmove(static_cast<void*>(d + i + 1), d + i, (size_ - i) * sizeof(T));
    d[i] = v;
    ++size_;
    return d + i;
  }
  // Removes every element for which pred is true, keeping the order of the rest.
  template <class Pred>
  void erase_if(Pred pred) {
    T* d = data();
    std::size_t out = 0;
    for (std::size_t i = 0; i < size_; ++i) {
      if (!pred(d[i])) d[out++] = d[i];
    }
    size_ = static_cast<std::uint32_t>(out);
  }

  friend bool operator==(const InlineVec& a, const InlineVec& b) { return std::ranges::equal(a, b); }
  friend bool operator==(const InlineVec& a, std::span<const T> b) { return std::ranges::equal(a, b); }

 private:
  T* inline_data() { return std::launder(reinterpret_cast<T*>(buf_)); }
  const T* inline_data() const { return std::launder(reinterpret_cast<const T*>(buf_)); }

  static std::size_t next_capacity(std::size_t need) { return std::max<std::size_t>(need, 2 * N) * 3 / 2; }

  void grow(std::size_t cap) {
    T* fresh = static_cast<T*>(::operator new(cap * sizeof(T)));
    if (size_ != 0) std::memcpy(static_cast<void*>(fresh), data(), size_ * sizeof(T));
    release();
    heap_ = fresh;
    cap_ = static_cast<std::uint32_t>(cap);
  }
  void assign(const T* src, std::size_t n) {
    reserve(n);
    if (n != 0) std::memcpy(static_cast<void*>(data()), src, n * sizeof(T));
    size_ = static_cast<std::uint32_t>(n);
  }
  // REQUIRES: this owns no heap block.
  void take(InlineVec& o) {
    size_ = o.size_;
    if (o.heap_) {
      heap_ = o.heap_;
      cap_ = o.cap_;
      o.heap_ = nullptr;
      o.cap_ = 0;
    } else {
      // The whole inline buffer: a fixed-size copy compiles to a few vector moves, where a
      // size-dependent one is a library call. Bytes past size_ are copied unread.
      std::memcpy(buf_, o.buf_, sizeof buf_);
    }
    o.size_ = 0;
  }
  void release() {
    if (heap_) ::operator delete(heap_);
    heap_ = nullptr;
    cap_ = 0;
  }

  T* heap_ = nullptr;  // nullptr: the elements live in buf_
  std::uint32_t size_ = 0;
  std::uint32_t cap_ = 0;  // heap capacity; unused while inline
  alignas(T) std::byte buf_[N * sizeof(T)];
};

}  // namespace causal
