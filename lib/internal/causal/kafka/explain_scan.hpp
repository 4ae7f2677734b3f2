// Log reads for `causal explain`, beside the gate (never inside it: explain's gate performs
// no lookups, so that it reproduces what a node without them holds):
//
//   locate_send       scans a channel for the record whose origin is (sender, seq): the
//                     protocol's lookup (protocol.md, "Resolution by lookup"), done by the
//                     tool so that the diagnosis can say where a frozen claim's send sits.
//   first_timestamp   the timestamp of the first record at or after an offset, read
//                     read_uncommitted: at the LSO it dates the open transaction pinning it.
//
// Each call opens its own consumer handle (a private, never-joined group id; nothing is
// committed) and closes it before returning.
// Thread-safety: none needed; no shared state.
#pragma once

#include <cstdint>
#include <expected>
#include <functional>
#include <optional>
#include <string>

#include "causal/diagnosis.hpp"
#include "causal/error.hpp"
#include "causal/kafka/config.hpp"
#include "causal/kafka/offsets.hpp"

namespace causal::kafka {

// Scans [from, to) of `channel` read_committed for the record stamped with origin
// (sender, seq). `to` is exclusive; a scan stops early at the log's end (PARTITION_EOF).
// Records whose causal.clock header does not decode are skipped (they cannot be the send).
// The scan stops short (scanned_to < to) when `timeout_ms` passes. `progress`, when set, is
// called with the next offset to scan now and then (for a progress line on a terminal).
std::expected<LocatedSend, Error> locate_send(const ConnectionOptions& conn, const ChannelRef& channel,
                                              const std::string& sender, SeqNo seq, Offset from, Offset to,
                                              int timeout_ms,
                                              const std::function<void(Offset)>& progress = {});

// The timestamp (ms since the epoch) of the first record at or after `at` (read_uncommitted),
// or nullopt when none arrives within the timeout.
std::expected<std::optional<std::int64_t>, Error> first_timestamp(const ConnectionOptions& conn,
                                                                  const ChannelRef& channel, Offset at,
                                                                  int timeout_ms);

// The earliest offset whose timestamp is >= ts_ms (ListOffsets by time), or nullopt when
// no record is that recent.
std::expected<std::optional<Offset>, Error> offset_for_time(const ConnectionOptions& conn, const ChannelRef& channel,
                                                            std::int64_t ts_ms, int timeout_ms);

}  // namespace causal::kafka
