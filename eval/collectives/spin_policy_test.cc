#include "eval/collectives/spin_policy.h"

#include <catch2/catch.hpp>

namespace hlo {
namespace {

TEST_CASE("spinning stops for a while after a round that lost its core", "[rendezvous]") {
  using Clock = SpinPolicy::Clock;
  // An hour ago: what this sets is over long before the other tests run.
  const Clock::time_point t0 = Clock::now() - std::chrono::hours(1);
  // A round as long as kSlowRound is not slow; one past it is.
  CHECK(SpinPolicy::Round(t0, t0 + SpinPolicy::kSlowRound));
  const Clock::time_point late = t0 + SpinPolicy::kSlowRound + std::chrono::microseconds(1);
  CHECK_FALSE(SpinPolicy::Round(t0, late));
  // Off for kQuiet from the end of that round, then on again.
  CHECK_FALSE(SpinPolicy::Allowed(late));
  CHECK_FALSE(SpinPolicy::Allowed(late + SpinPolicy::kQuiet - std::chrono::microseconds(1)));
  CHECK(SpinPolicy::Allowed(late + SpinPolicy::kQuiet));
  // A caller's own threshold (the MPI driver's batches of rounds).
  CHECK(SpinPolicy::Round(t0, t0 + std::chrono::milliseconds(3), std::chrono::milliseconds(4)));
  CHECK_FALSE(
      SpinPolicy::Round(t0, t0 + std::chrono::milliseconds(5), std::chrono::milliseconds(4)));
}

TEST_CASE("spinning stops while most spins run out, probing now and then", "[rendezvous]") {
  SpinOutcomes outcomes;
  CHECK(outcomes.ShouldSpin());
  // Spins that end their waits keep it on; one that runs out now and then
  // (1 in 10) does not turn it off.
  for (int i = 0; i < 100; ++i) outcomes.Record(i % 10 != 0);
  CHECK(outcomes.fail_share() < outcomes.max_fail_share());
  CHECK(outcomes.ShouldSpin());
  // Three in a row that run out (a peer off its core for a time slice): off.
  for (int i = 0; i < 3; ++i) outcomes.Record(false);
  CHECK(outcomes.fail_share() >= outcomes.max_fail_share());
  // Then one wait in kProbeEvery spins, to notice when the peers are back.
  int spins = 0;
  for (uint32_t i = 0; i < 4 * SpinOutcomes::kProbeEvery; ++i) spins += outcomes.ShouldSpin();
  CHECK(spins == 4);
  // Probes that end their waits turn it on again.
  int probes = 0;
  while (outcomes.fail_share() >= outcomes.max_fail_share() && probes < 100) {
    outcomes.Record(true);
    ++probes;
  }
  CHECK(probes <= 16);
  CHECK(outcomes.ShouldSpin());
  // Every spin running out keeps the share below 1024, and probing goes on.
  for (int i = 0; i < 1000; ++i) outcomes.Record(false);
  CHECK(outcomes.fail_share() <= 1024);
  spins = 0;
  for (uint32_t i = 0; i < SpinOutcomes::kProbeEvery; ++i) spins += outcomes.ShouldSpin();
  CHECK(spins == 1);
}

TEST_CASE("a spin lasts about one measured wake-up, and pays while it ends most waits",
          "[rendezvous]") {
  using std::chrono::microseconds;
  SpinOutcomes outcomes;
  // Unmeasured: 15 us wake-ups, so spins of the shortest length (50 us)
  // pay while fewer than 15 in 65 run out.
  CHECK(outcomes.wake() == SpinOutcomes::kDefaultWake);
  CHECK(outcomes.spin_for() == SpinOutcomes::kMinSpin);
  CHECK(outcomes.max_fail_share() == 1024 * 15 / 65);
  // Wake-ups of 100 us (the moving average gets there): spins of 100 us,
  // paying while fewer than half run out.
  for (int i = 0; i < 200; ++i) outcomes.RecordWake(microseconds(100));
  CHECK(outcomes.wake() > microseconds(99));
  CHECK(outcomes.wake() <= microseconds(100));
  CHECK(outcomes.spin_for() == microseconds(outcomes.wake().count() / 1000));
  // (About 512: spin_for is in whole microseconds.)
  CHECK(outcomes.max_fail_share() >= 508);
  CHECK(outcomes.max_fail_share() <= 516);
  // Wake-ups of 2 ms: spins stop at kMaxSpin, which pays while fewer than
  // 2000 in 2250 run out.
  for (int i = 0; i < 200; ++i) outcomes.RecordWake(std::chrono::milliseconds(2));
  CHECK(outcomes.spin_for() == SpinOutcomes::kMaxSpin);
  CHECK(outcomes.max_fail_share() >= 1024 * 1990 / 2240);
}

}  // namespace
}  // namespace hlo
