// The worker pool: every part runs once per call whatever the workers are
// doing (spinning, asleep, parked, busy with another caller's job), parts
// see the caller's MXCSR, and a call from inside a part runs on its thread.
#include "eval/runtime/parallel.h"

#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <cstdint>
#include <thread>
#include <vector>

#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#endif

namespace hlo {
namespace {

struct Counts {
  std::atomic<int64_t>* per_part;
  int64_t stamp;  // an argument copied through the hand-off
  std::atomic<int64_t>* stamps_seen;
};

void CountPart(const Counts& c, int64_t p) {
  c.per_part[p].fetch_add(1);
  c.stamps_seen->fetch_add(c.stamp);
}

// `calls` calls of `parts` parts: each part ran once per call, with its
// call's arguments.
void CheckCalls(int64_t parts, int64_t calls, std::chrono::microseconds pause) {
  std::vector<std::atomic<int64_t>> per_part(parts);
  std::atomic<int64_t> stamps{0};
  int64_t want_stamps = 0;
  for (int64_t call = 0; call < calls; ++call) {
    ParallelParts<CountPart>(parts, Counts{per_part.data(), call, &stamps});
    want_stamps += call * parts;
    if (pause.count() > 0) std::this_thread::sleep_for(pause);
  }
  for (int64_t p = 0; p < parts; ++p) REQUIRE(per_part[p].load() == calls);
  REQUIRE(stamps.load() == want_stamps);
}

TEST_CASE("Every part runs once per call, back to back and after idle spells", "[parallel]") {
  for (int64_t parts : {int64_t{1}, int64_t{2}, int64_t{3}, CoreCount(), CoreCount() + 3}) {
    CheckCalls(parts, 20000, std::chrono::microseconds(0));  // workers spinning
    CheckCalls(parts, 20, std::chrono::microseconds(500));   // workers asleep between calls
    ParkWorkers();
    CheckCalls(parts, 5, std::chrono::microseconds(0));
  }
}

TEST_CASE("ParallelRows covers its range once, from several threads at once", "[parallel]") {
  constexpr int kThreads = 4;
  constexpr int64_t kRows = 1000;
  std::vector<std::vector<std::atomic<int>>> hits(kThreads);
  for (auto& h : hits) h = std::vector<std::atomic<int>>(kRows);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int call = 0; call < 2000; ++call) {
        ParallelRows(kRows, 10, [&](int64_t b, int64_t e) {
          for (int64_t r = b; r < e; ++r) hits[t][r].fetch_add(1);
        });
      }
    });
  }
  for (std::thread& th : threads) th.join();
  for (int t = 0; t < kThreads; ++t) {
    for (int64_t r = 0; r < kRows; ++r) REQUIRE(hits[t][r].load() == 2000);
  }
}

// ParallelItems: every item once, whatever the parts' pace (a part held
// back for a while has its items taken by the others), from several
// threads at once; no part runs on two threads at once; a part runs its
// own items from the front.
TEST_CASE("ParallelItems runs every item once, each part on one thread at a time", "[parallel]") {
  constexpr int kThreads = 3;
  for (const int64_t items : {int64_t{1}, int64_t{5}, int64_t{24}, int64_t{1001}}) {
    for (const int64_t parts : {int64_t{1}, int64_t{2}, CoreCount(), CoreCount() + 3}) {
      std::vector<std::thread> threads;
      std::atomic<int64_t> wrong{0};
      for (int t = 0; t < kThreads; ++t) {
        threads.emplace_back([&] {
          for (int call = 0; call < 200; ++call) {
            std::vector<std::atomic<int>> hits(items);
            std::vector<std::atomic<int>> busy(parts);
            ParallelItems(parts, items, [&](int64_t part, int64_t item) {
              if (part < 0 || part >= parts || busy[part].fetch_add(1) != 0) ++wrong;
              // Part 0 dawdles now and then: the others take its items.
              if (part == 0 && item % 7 == 0) std::this_thread::yield();
              hits[item].fetch_add(1);
              busy[part].fetch_sub(1);
            });
            for (int64_t i = 0; i < items; ++i) {
              if (hits[i].load() != 1) ++wrong;
            }
          }
        });
      }
      for (std::thread& th : threads) th.join();
      INFO(items << " items in " << parts << " parts");
      REQUIRE(wrong.load() == 0);
    }
  }
  // One thread (a part alone runs everything): items in order, each part's
  // run from its front.
  std::vector<int64_t> order;
  ParallelItems(1, 6, [&](int64_t part, int64_t item) {
    REQUIRE(part == 0);
    order.push_back(item);
  });
  REQUIRE(order == std::vector<int64_t>{0, 1, 2, 3, 4, 5});
}

TEST_CASE("A ParallelRows inside a part runs on the part's thread", "[parallel]") {
  std::atomic<int64_t> inner_rows{0}, inner_calls{0}, elsewhere{0};
  ParallelRows(2 * CoreCount(), 1, [&](int64_t b, int64_t e) {
    for (int64_t r = b; r < e; ++r) {
      const std::thread::id me = std::this_thread::get_id();
      ParallelRows(100, 1, [&](int64_t ib, int64_t ie) {
        if (std::this_thread::get_id() != me) ++elsewhere;
        inner_rows += ie - ib;
        ++inner_calls;
      });
    }
  });
  REQUIRE(elsewhere.load() == 0);
  REQUIRE(inner_rows.load() == 100 * 2 * CoreCount());
  REQUIRE(inner_calls.load() == 2 * CoreCount());  // one whole-range call each
}

#if defined(__x86_64__) || defined(__i386__)
TEST_CASE("Parts run with the caller's MXCSR", "[parallel]") {
  const unsigned saved = _mm_getcsr();
  for (unsigned mode : {saved | 0x8040u, saved & ~0x8040u}) {  // FTZ|DAZ on, then off
    _mm_setcsr(mode);
    std::atomic<int> wrong{0};
    for (int call = 0; call < 1000; ++call) {
      ParallelRows(CoreCount(), 1, [&](int64_t, int64_t) {
        if ((_mm_getcsr() & 0xffff) != (mode & 0xffff)) ++wrong;
      });
    }
    REQUIRE(wrong.load() == 0);
  }
  _mm_setcsr(saved);
}
#endif

}  // namespace
}  // namespace hlo
