// Sweeps over generated worlds (see causal/sim/sweep.hpp).
#include "causal/sim/sweep.hpp"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <thread>

#include <fmt/core.h>

namespace causal::sim {

namespace {
constexpr std::size_t kKeptFailures = 5;
constexpr std::size_t kKeptAttributed = 5;
}  // namespace

namespace {

// The worlds of a sweep, one at a time, in seed order: whatever thread ran a world, its
// result is merged here, so the sweep's result (and every callback) is that of a serial run.
class Merger {
 public:
  Merger(const SweepOptions& opts, SweepResult& r)
      : opts_(opts), r_(r), total_(opts.last >= opts.first ? opts.last - opts.first + 1 : 0) {}

  // Merges world `seed`'s result; false when the sweep ends here (stop at first failure,
  // or interrupted), as the serial loop did after running that world.
  bool merge(std::uint64_t seed, const WorldResult& wr) {
    ++r_.worlds;
    r_.counters += wr.counters;
    r_.violations += wr.violation_count;
    for (const std::string& a : wr.attributed)
      if (r_.attributed.size() < kKeptAttributed) r_.attributed.push_back(fmt::format("seed {}: {}", seed, a));
    const bool failed = !wr.ok();
    if (failed) {
      ++r_.failed_worlds;
      if (r_.failures.size() < kKeptFailures) {
        r_.repro.push_back({seed, opts_.knobs});
        r_.failures.push_back(wr);
      }
    }
    if (opts_.after_world) opts_.after_world(r_.worlds, total_, wr);
    if (failed && opts_.stop_at_first) {
      r_.stopped_early = true;
      return false;
    }
    if (opts_.stop && *opts_.stop && seed < opts_.last) {
      r_.interrupted = true;
      return false;
    }
    return true;
  }

 private:
  const SweepOptions& opts_;
  SweepResult& r_;
  std::uint64_t total_;
};

bool skipped(const SweepOptions& opts, std::uint64_t seed) {
  return std::find(opts.skip.begin(), opts.skip.end(), seed) != opts.skip.end();
}

WorldResult run_world(std::uint64_t seed, const Knobs& knobs) {
  World world(generate_config(seed, knobs));
  return world.run();
}

void run_serial(const SweepOptions& opts, Merger& m) {
  for (std::uint64_t seed = opts.first; seed <= opts.last && seed >= opts.first; ++seed) {
    if (!skipped(opts, seed) && !m.merge(seed, run_world(seed, opts.knobs))) break;
    if (seed == UINT64_MAX) break;
  }
}

// `jobs` worker threads take seeds in order from a window of kWindowPerJob * jobs slots
// ahead of the merge; the calling thread merges the slots in seed order, so a world that
// finishes early waits for the ones before it. When the merge ends the sweep (first
// failure, interruption), worlds already run beyond it are discarded unseen: the result is
// the serial one, only sooner.
void run_parallel(const SweepOptions& opts, Merger& m) {
  constexpr std::uint64_t kWindowPerJob = 64;
  const std::uint64_t span = opts.last - opts.first;  // seeds: first + i for i in [0, span]
  const std::uint64_t window = kWindowPerJob * opts.jobs;
  struct Slot {
    bool done = false;
    bool skip = false;
    WorldResult result;
    std::exception_ptr error;
  };
  std::vector<Slot> slots(window);
  std::mutex mu;
  std::condition_variable slot_done, slot_free;
  std::uint64_t next_claim = 0;  // index of the next seed a worker takes
  std::uint64_t next_merge = 0;  // index of the next seed the merge needs
  bool claims_left = true;       // false once every seed is taken, or the merge ended the sweep

  auto worker = [&] {
    std::unique_lock lock(mu);
    for (;;) {
      slot_free.wait(lock, [&] { return !claims_left || next_claim < next_merge + window; });
      if (!claims_left) return;
      const std::uint64_t i = next_claim;
      if (i == span) claims_left = false;
      else ++next_claim;
      lock.unlock();
      const std::uint64_t seed = opts.first + i;
      Slot out;
      out.skip = skipped(opts, seed);
      if (!out.skip) {
        try {
          out.result = run_world(seed, opts.knobs);
        } catch (...) {
          out.error = std::current_exception();
        }
      }
      out.done = true;
      lock.lock();
      slots[i % window] = std::move(out);
      slot_done.notify_one();
    }
  };
  std::vector<std::jthread> workers;
  for (unsigned j = 0; j < opts.jobs; ++j) workers.emplace_back(worker);

  std::exception_ptr error;
  for (std::uint64_t i = 0;; ++i) {
    Slot slot;
    {
      std::unique_lock lock(mu);
      slot_done.wait(lock, [&] { return slots[i % window].done; });
      slot = std::move(slots[i % window]);
      slots[i % window] = Slot{};
      next_merge = i + 1;
    }
    slot_free.notify_all();
    bool more = i < span;
    if (slot.error) {
      error = slot.error;
      more = false;
    } else if (!slot.skip && !m.merge(opts.first + i, slot.result)) {
      more = false;
    }
    if (!more) break;
  }
  {
    std::lock_guard lock(mu);
    claims_left = false;
  }
  slot_free.notify_all();
  workers.clear();  // joins: each finishes the world it is running
  if (error) std::rethrow_exception(error);
}

}  // namespace

SweepResult run_sweep(const SweepOptions& opts) {
  SweepResult r;
  const auto t0 = std::chrono::steady_clock::now();
  Merger m(opts, r);
  if (opts.jobs > 1 && opts.last >= opts.first) {
    run_parallel(opts, m);
  } else {
    run_serial(opts, m);
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  // Anti-vacuity is a property of a whole sweep; a sweep stopped at its first failure has
  // already failed, and a single world cannot be expected to fire every mechanism.
  // An interrupted sweep is not judged for vacuity either: it is not a pass whatever it shows.
  if (!r.stopped_early && !r.interrupted && r.worlds >= 100) r.vacuous = vacuous(r.counters, opts.knobs);
  r.excused = excused(opts.knobs);
  return r;
}

std::string format_summary(const SweepResult& r, const ReproCommand& repro) {
  std::string s;
  const double rate = r.seconds > 0 ? static_cast<double>(r.worlds) / r.seconds : 0;
  s += fmt::format("worlds {}  steps {}  violations {} in {} worlds  {:.1f}s  {:.0f} worlds/s\n", r.worlds,
                   r.counters.steps, r.violations, r.failed_worlds, r.seconds, rate);
  for (std::size_t i = 0; i < r.failures.size(); ++i) {
    const WorldResult& w = r.failures[i];
    s += fmt::format("FAILED seed {} ({} violations):\n", w.seed, w.violation_count);
    for (const Violation& v : w.violations) s += fmt::format("  {}: {}\n", to_string(v.kind), v.detail);
    s += fmt::format("  reproduce: {}\n", repro(r.repro[i]));
  }
  if (r.failed_worlds > r.failures.size()) {
    s += fmt::format("... and {} more failed world(s), not listed: the first {} in seed order are\n",
                     r.failed_worlds - r.failures.size(), r.failures.size());
  }
  s += "counters:\n";
  for (const auto& e : r.counters.entries()) {
    const bool is_excused = std::find(r.excused.begin(), r.excused.end(), e.name) != r.excused.end();
    s += fmt::format("  {:<20} {:>12}  {}{}\n", e.name, e.value, e.description,
                     (e.must_fire && e.value == 0) ? (is_excused ? "  (not required: switched off)" : "  <-- MUST FIRE")
                                                   : "");
  }
  if (r.counters.frozen_roots > 0) {
    s += fmt::format("presence signature caught {} of {} frozen roots ({:.1f}%)\n", r.counters.signature_caught,
                     r.counters.frozen_roots,
                     100.0 * static_cast<double>(r.counters.signature_caught) / static_cast<double>(r.counters.frozen_roots));
  }
  for (const std::string& a : r.attributed) s += fmt::format("attributed: {}\n", a);
  if (!r.vacuous.empty()) {
    s += "VACUOUS: these mechanisms never fired:";
    for (const std::string& v : r.vacuous) s += " " + v;
    s += "\n";
  }
  if (r.interrupted) s += "INTERRUPTED: the sweep ended before its last seed; the worlds above are all it ran\n";
  s += r.ok() ? "PASS\n" : r.interrupted && r.failed_worlds == 0 ? "INCOMPLETE\n" : "FAIL\n";
  return s;
}

nlohmann::json to_json(const WorldResult& w) {
  nlohmann::json j;
  j["seed"] = w.seed;
  j["drained"] = w.drained;
  j["steps"] = w.steps;
  j["violation_count"] = w.violation_count;
  j["violations"] = nlohmann::json::array();
  for (const Violation& v : w.violations) j["violations"].push_back({{"kind", to_string(v.kind)}, {"detail", v.detail}});
  j["attributed"] = w.attributed;
  nlohmann::json c;
  for (const auto& e : w.counters.entries()) c[e.name] = e.value;
  j["counters"] = c;
  return j;
}

nlohmann::json to_json(const SweepResult& r, const ReproCommand& repro) {
  nlohmann::json j;
  j["ok"] = r.ok();
  j["worlds"] = r.worlds;
  j["failed_worlds"] = r.failed_worlds;
  j["violations"] = r.violations;
  j["seconds"] = r.seconds;
  j["worlds_per_second"] = r.seconds > 0 ? static_cast<double>(r.worlds) / r.seconds : 0.0;
  j["stopped_early"] = r.stopped_early;
  j["interrupted"] = r.interrupted;
  j["excused"] = r.excused;
  nlohmann::json c;
  for (const auto& e : r.counters.entries()) c[e.name] = e.value;
  j["counters"] = c;
  j["vacuous"] = r.vacuous;
  j["attributed_sample"] = r.attributed;
  j["failures"] = nlohmann::json::array();
  for (std::size_t i = 0; i < r.failures.size(); ++i) {
    nlohmann::json f = to_json(r.failures[i]);
    f["reproduce"] = repro(r.repro[i]);
    j["failures"].push_back(f);
  }
  // failures lists the first kKeptFailures failed worlds in seed order; the rest are counted.
  j["failures_not_listed"] = r.failed_worlds - r.failures.size();
  return j;
}

}  // namespace causal::sim
