// The librdkafka properties causal sets itself, which no user source may change: the
// configuration file, a --cluster section, -F files, -X (ConnectionOptions). What the gate
// delivers, what a member commits and what a sender claims depend on them; a -X that turned
// one off would break that silently (-X isolation.level=read_uncommitted would have tail
// deliver, and commit past, a record whose transaction Kafka then aborts).
//
// Values are compared as librdkafka reads them (enums in any case, booleans as true/t/1 or
// false/f/0 in any case): a spelling of causal's own value is accepted.
//
//   isolation.level           read_committed only (accepted: it is what causal does; the
//                             handles that read high watermarks set read_uncommitted after
//                             every source, see make_conf)
//   enable.auto.commit        false only: a member commits itself, only what was delivered
//   enable.auto.offset.store  false only, for the same reason
//   enable.idempotence        true only: a sender's claims rely on its acknowledged order
//   group.id                  never: --group (ConsumerOptions::group) names a group
//   transactional.id          never: --transactional-id (ProducerOptions::transactional_id)
//
// A subcommand's or a library caller's own defaults (make_conf's `defaults`,
// `extra_defaults`) are not checked: they are the program's choice, not a user's.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace causal::kafka {

// Why `key=value`, given by a user, is refused; nullopt when it may be set.
std::optional<std::string> refuse_owned_property(std::string_view key, std::string_view value);

// Whether causal sets `key` itself, over every user source (isolation.level: a handle's own
// level is set last).
bool is_owned_property(std::string_view key);

}  // namespace causal::kafka
