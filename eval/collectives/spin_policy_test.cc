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

}  // namespace
}  // namespace hlo
