// Fibers (eval/runtime/fibers.h): they take turns in order at every yield,
// a finished one drops out of the turns, each keeps its own stack and
// local counters, a fiber may run fibers of its own, and one Fibers runs
// again after a run.
#include "eval/runtime/fibers.h"

#include <catch2/catch.hpp>
#include <cstdint>
#include <string>
#include <vector>

namespace hlo {
namespace {

TEST_CASE("fibers: turns in order, finished ones drop out", "[fibers]") {
  auto fibers = Fibers::Create(3);
  REQUIRE(fibers.ok());
  std::string log;
  // Fiber i runs i + 1 steps, yielding after each.
  const auto body = [&](int64_t i) {
    CHECK(Fibers::InFiber());
    for (int64_t step = 0; step <= i; ++step) {
      log += static_cast<char>('a' + i);
      Fibers::Yield();
    }
  };
  (*fibers)->Run(body);
  CHECK(log == "abcbcc");
  CHECK_FALSE(Fibers::InFiber());
  log.clear();
  (*fibers)->Run(body);  // the same stacks, a second time
  CHECK(log == "abcbcc");
}

TEST_CASE("fibers: yield outside a fiber, or alone, returns at once", "[fibers]") {
  Fibers::Yield();
  auto fibers = Fibers::Create(1);
  REQUIRE(fibers.ok());
  int64_t steps = 0;
  (*fibers)->Run([&](int64_t) {
    for (int i = 0; i < 3; ++i, ++steps) Fibers::Yield();
  });
  CHECK(steps == 3);
}

TEST_CASE("fibers: each has its own local counter and stack", "[fibers]") {
  int64_t& outside = Fibers::LocalCounter(Fibers::Local::kProfilerChildNs);
  outside = -7;
  auto fibers = Fibers::Create(4);
  REQUIRE(fibers.ok());
  std::vector<int64_t> seen(4, 0), sums(4, 0);
  (*fibers)->Run([&](int64_t i) {
    int64_t& mine = Fibers::LocalCounter(Fibers::Local::kProfilerChildNs);
    CHECK(mine == 0);
    mine = 100 + i;
    // A megabyte of this stack in use across the yields: every fiber's
    // array keeps its own values.
    volatile int64_t big[1 << 17];
    for (int64_t k = 0; k < (1 << 17); ++k) big[k] = i * k;
    Fibers::Yield();
    Fibers::Yield();
    int64_t sum = 0;
    for (int64_t k = 0; k < (1 << 17); ++k) sum += big[k];
    sums[i] = sum;
    seen[i] = Fibers::LocalCounter(Fibers::Local::kProfilerChildNs);
  });
  const int64_t n = 1 << 17;
  for (int64_t i = 0; i < 4; ++i) {
    CHECK(seen[i] == 100 + i);
    CHECK(sums[i] == i * (n * (n - 1) / 2));
  }
  CHECK(Fibers::LocalCounter(Fibers::Local::kProfilerChildNs) == -7);
  outside = 0;
}

TEST_CASE("fibers: a fiber runs fibers of its own", "[fibers]") {
  auto outer = Fibers::Create(2);
  REQUIRE(outer.ok());
  std::string log;
  (*outer)->Run([&](int64_t i) {
    if (i == 0) {
      auto inner = Fibers::Create(2);
      REQUIRE(inner.ok());
      // The inner fibers take turns among themselves; the outer fiber 1
      // runs only after they have all returned.
      (*inner)->Run([&](int64_t j) {
        log += static_cast<char>('x' + j);
        Fibers::Yield();
        log += static_cast<char>('x' + j);
      });
      log += '|';
      Fibers::Yield();
      log += 'A';
    } else {
      log += 'B';
      Fibers::Yield();
      log += 'B';
    }
  });
  CHECK(log == "xyxy|BAB");
}

}  // namespace
}  // namespace hlo
