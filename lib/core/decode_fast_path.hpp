// Private to lib/core: the causal.clock decoder's fast path.
//
// Why: decoding runs once per consumed record. The general decoder (codec.cpp) checks
// every field in reading order so that it can say which problem comes first, interns new
// names, and takes any value the format allows. Most headers a consumer sees are none of
// that's business: valid, naming topics, partitions and senders it has seen before, with
// small numbers. This path decodes those in one pass over raw pointers and declines
// everything else.
//
// Contract: returns true only for a valid header, with `out` holding exactly the clock
// the general decoder would give (tests/core/codec_test.cpp and fuzz/fuzz_decode.cpp check
// both). It returns false (declines), leaving `out` unspecified, for every invalid header
// and for valid ones it does not handle: a topic, channel or sender not interned yet (it
// never changes `names`), or a varint longer than 8 bytes (a value of 2^56 or more).
// A decline costs only the bytes read so far; decode() then clears `out` and runs the
// general decoder, which interns and explains.
// REQUIRES: `out` is empty.
#pragma once

#include <cstddef>
#include <span>

#include "causal/clock.hpp"
#include "causal/names.hpp"

namespace causal::wire {

bool decode_fast_path(std::span<const std::byte> bytes, const Names& names, Clock& out);

}  // namespace causal::wire
