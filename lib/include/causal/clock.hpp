// A clock: a set of claims, plus the optional origin of the record it stamps.
//
//   offset claim   (ch, n)     "the record at offset n of ch, and by FIFO everything
//                               below it, precedes me"
//   sequence claim (ch, S, q)  "the record sender S sent to ch as its send number q
//                               precedes me" (S does not know that offset yet)
//   origin         (S, q)      the stamped record's own identity
//
// Invariants (kept by every member function): `offsets` is sorted by channel id with
// one entry per channel; `seqs` is sorted by (channel, sender) with one entry per pair,
// holding the highest claimed send number. Join is the pointwise max; A dominates B
// when every claim of B is covered by A (the origin takes no part in either).
// Thread-safety: value type, no shared state.
#pragma once

#include <optional>
#include <span>

#include "causal/inline_vec.hpp"
#include "causal/names.hpp"

namespace causal {

struct OffsetClaim {
  ChannelId channel;
  Offset offset;  // >= 0
  friend bool operator==(const OffsetClaim&, const OffsetClaim&) = default;
};

struct SeqClaim {
  ChannelId channel;
  SenderId sender;
  SeqNo seq;  // >= 1
  friend bool operator==(const SeqClaim&, const SeqClaim&) = default;
};

struct Origin {
  SenderId sender;
  SeqNo seq;
  friend bool operator==(const Origin&, const Origin&) = default;
};

class Clock {
 public:
  // Claims held inside the Clock before it allocates (InlineVec): a clock of up to 8 offset
  // claims and 2 sequence claims is one object with no heap block.
  static constexpr std::size_t kInlineOffsets = 8;
  static constexpr std::size_t kInlineSeqs = 2;
  using Offsets = InlineVec<OffsetClaim, kInlineOffsets>;
  using Seqs = InlineVec<SeqClaim, kInlineSeqs>;

  std::optional<Origin> origin;

  const Offsets& offsets() const { return offsets_; }
  const Seqs& seqs() const { return seqs_; }
  bool empty() const { return offsets_.empty() && seqs_.empty(); }

  // Adds a claim, keeping the max where one on the same coordinate exists.
  void claim(ChannelId ch, Offset n);
  void claim_seq(ChannelId ch, SenderId s, SeqNo q);
  // Pointwise max with `other`'s claims (other's origin is not taken).
  void join(const Clock& other);
  // True when every claim of `other` is covered by this clock's claims.
  bool dominates(const Clock& other) const;
  // The offset claimed on ch, or kNoOffset.
  Offset offset_of(ChannelId ch) const;
  // Drops every sequence claim for which `resolved(claim)` is true.
  template <class Pred>
  void drop_seqs_if(Pred resolved) {
    seqs_.erase_if(resolved);
  }
  void clear() {
    origin.reset();
    offsets_.clear();
    seqs_.clear();
  }

  // Bulk building for decoders: append in any order, then call normalize() once.
  // Duplicate coordinates are merged by max.
  void append_unsorted(OffsetClaim c) { offsets_.push_back(c); }
  void reserve_offsets(std::size_t n) { offsets_.reserve(n); }
  void append_unsorted(SeqClaim c) { seqs_.push_back(c); }
  // Appends n offset claims left for the caller to write, every one, before any other
  // use of the clock; returns the first.
  OffsetClaim* append_offsets_for_overwrite(std::size_t n) { return offsets_.append_for_overwrite(n); }
  void normalize();

  friend bool operator==(const Clock&, const Clock&) = default;

 private:
  Offsets offsets_;
  Seqs seqs_;
};

}  // namespace causal
