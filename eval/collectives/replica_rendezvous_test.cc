// The rendezvous of multi-device runs (eval/collectives/replica_rendezvous.cc) and the
// replica runner: exchanges in group order, repeated instances, mailboxes,
// and that nothing hangs (a failing device, a device that finishes early, a
// deadlock, a timeout), with the devices on threads and as fibers on one
// thread (eval/runtime/fibers.h). Expected values are worked by hand.
#include "eval/collectives/replica_rendezvous.h"

#include <catch2/catch.hpp>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "eval/replica_runner.h"
#include "eval/runtime/fibers.h"
#include "ir/strings.h"
#include "parser/parser.h"

namespace hlo {
namespace {

Value Scalar(int32_t v) {
  auto lit = Literal::Create(Shape::Array(PrimitiveType::kS32, {}));
  lit->typed<int32_t>()[0] = v;
  return Value::Array(std::make_shared<Literal>(*std::move(lit)));
}

// Runs fn(device) on one thread per device, or (`fibers`) on fibers of
// this thread with `rv` told so, and returns what each returned.
template <typename F>
std::vector<absl::StatusOr<Value>> OnDevices(Rendezvous& rv, bool fibers, int n, F fn) {
  std::vector<absl::StatusOr<Value>> out(n, absl::UnknownError("not run"));
  if (fibers) {
    rv.SetCooperative();
    auto f = Fibers::Create(n);
    REQUIRE(f.ok());
    (*f)->Run([&](int64_t d) { out[d] = fn(static_cast<int>(d)); });
    return out;
  }
  std::vector<std::thread> threads;
  for (int d = 0; d < n; ++d) threads.emplace_back([&, d] { out[d] = fn(d); });
  for (auto& t : threads) t.join();
  return out;
}

// combine: the contributions as a number in base 10, in group order.
absl::StatusOr<Value> Digits(absl::Span<const Value> all) {
  int32_t v = 0;
  for (const Value& x : all) v = v * 10 + static_cast<int32_t>(x.array().GetInt(0));
  return Scalar(v);
}

TEST_CASE("rendezvous: contributions arrive in group order", "[rendezvous]") {
  Rendezvous rv(4, 1);
  const bool fibers = GENERATE(false, true);
  // Groups {2,0} and {1,3}; device d contributes d + 1.
  auto out = OnDevices(rv, fibers, 4, [&](int d) {
    std::vector<int64_t> group =
        d % 2 == 0 ? std::vector<int64_t>{2, 0} : std::vector<int64_t>{1, 3};
    auto r = rv.Collective(StrCat("g", group[0]), group, d, Scalar(d + 1), Digits, "%x");
    rv.Finish(d, r.status());
    return r;
  });
  REQUIRE(out[0].ok());
  CHECK(out[0]->array().GetInt(0) == 31);  // device 2 then device 0
  CHECK(out[2]->array().GetInt(0) == 31);
  CHECK(out[1]->array().GetInt(0) == 24);  // device 1 then device 3
  CHECK(out[3]->array().GetInt(0) == 24);
}

TEST_CASE("rendezvous: repeated instances with distinct keys", "[rendezvous]") {
  Rendezvous rv(3, 1);
  const bool fibers = GENERATE(false, true);
  std::vector<int64_t> all = {0, 1, 2};
  auto out = OnDevices(rv, fibers, 3, [&](int d) -> absl::StatusOr<Value> {
    int32_t acc = 0;
    for (int i = 0; i < 50; ++i) {
      auto r = rv.Collective(StrCat("loop#", i), all, d, Scalar(d + i % 3), Digits, "%x");
      if (!r.ok()) return r.status();
      acc += static_cast<int32_t>(r->array().GetInt(0));
    }
    rv.Finish(d, absl::OkStatus());
    return Scalar(acc);
  });
  // Instance i combines (i%3, 1+i%3, 2+i%3) into 100a+10(a+1)+(a+2) = 111a+12;
  // over 50 instances a = 0,1,2 repeats: 17*0 + 17*1 + 16*2 = 49.
  for (int d = 0; d < 3; ++d) {
    REQUIRE(out[d].ok());
    CHECK(out[d]->array().GetInt(0) == 111 * 49 + 12 * 50);
  }
}

TEST_CASE("rendezvous: a failing device releases the waiting ones", "[rendezvous]") {
  Rendezvous rv(3, 1, std::chrono::seconds(30));
  const bool fibers = GENERATE(false, true);
  std::vector<int64_t> all = {0, 1, 2};
  auto t0 = std::chrono::steady_clock::now();
  auto out = OnDevices(rv, fibers, 3, [&](int d) -> absl::StatusOr<Value> {
    if (d == 1) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      absl::Status st = absl::InvalidArgumentError("device 1 broke");
      rv.Finish(d, st);
      return st;
    }
    auto r = rv.Collective("k", all, d, Scalar(d), Digits, "%x");
    rv.Finish(d, r.status());
    return r;
  });
  CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(10));
  CHECK(out[1].status().code() == absl::StatusCode::kInvalidArgument);
  CHECK(out[0].status().code() == absl::StatusCode::kAborted);
  CHECK(out[2].status().code() == absl::StatusCode::kAborted);
  CHECK(std::string(out[0].status().message()) == "stopped because replica 1 failed");
}

TEST_CASE("rendezvous: waiting for a finished device is a deadlock error", "[rendezvous]") {
  Rendezvous rv(2, 1, std::chrono::seconds(30));
  const bool fibers = GENERATE(false, true);
  auto out = OnDevices(rv, fibers, 2, [&](int d) -> absl::StatusOr<Value> {
    if (d == 1) {
      rv.Finish(d, absl::OkStatus());
      return Scalar(0);
    }
    std::vector<int64_t> all = {0, 1};
    auto r = rv.Collective("k", all, d, Scalar(d), Digits, "%ar (all-reduce)");
    rv.Finish(d, r.status());
    return r;
  });
  REQUIRE(!out[0].ok());
  CHECK(std::string(out[0].status().message()) ==
        "deadlock: replica 0 waits at %ar (all-reduce); finished: replica 1");
}

TEST_CASE("rendezvous: devices waiting at different collectives deadlock", "[rendezvous]") {
  Rendezvous rv(2, 2, std::chrono::seconds(30));
  const bool fibers = GENERATE(false, true);
  auto out = OnDevices(rv, fibers, 4, [&](int d) -> absl::StatusOr<Value> {
    // Devices 0,1 meet at "a" with all four; 2,3 at "b" with all four.
    std::vector<int64_t> all = {0, 1, 2, 3};
    auto r = rv.Collective(d < 2 ? "a" : "b", all, d, Scalar(d), Digits, d < 2 ? "%a" : "%b");
    rv.Finish(d, r.status());
    return r;
  });
  for (int d = 0; d < 4; ++d) {
    REQUIRE(!out[d].ok());
    CHECK(out[d].status().code() == absl::StatusCode::kFailedPrecondition);
  }
  CHECK(std::string(out[0].status().message()).find("replica 1 partition 1 waits at %b") !=
        std::string::npos);
}

TEST_CASE("rendezvous: a wait times out", "[rendezvous]") {
  Rendezvous rv(2, 1, std::chrono::milliseconds(50));
  std::vector<int64_t> all = {0, 1};
  // Device 1 never arrives nor finishes (it is still "running").
  auto r = rv.Collective("k", all, 0, Scalar(0), Digits, "%x");
  REQUIRE(!r.ok());
  CHECK(r.status().code() == absl::StatusCode::kDeadlineExceeded);
}

TEST_CASE("rendezvous: a cooperative wait times out while the others run", "[rendezvous]") {
  // Device 1 keeps running (yielding) and never arrives: device 0's wait
  // ends at the timeout, not at a deadlock (device 1 is not waiting).
  Rendezvous rv(2, 1, std::chrono::milliseconds(50));
  bool stop = false;
  int64_t turns = 0;
  auto out = OnDevices(rv, true, 2, [&](int d) -> absl::StatusOr<Value> {
    if (d == 1) {
      while (!stop) {
        ++turns;
        Fibers::Yield();
      }
      rv.Finish(d, absl::OkStatus());
      return Scalar(0);
    }
    std::vector<int64_t> all = {0, 1};
    auto r = rv.Collective("k", all, 0, Scalar(0), Digits, "%x");
    stop = true;
    rv.Finish(d, r.status());
    return r;
  });
  REQUIRE(!out[0].ok());
  CHECK(out[0].status().code() == absl::StatusCode::kDeadlineExceeded);
  CHECK(turns > 1);
  CHECK(out[1].ok());
}

TEST_CASE("rendezvous: mail is delivered whichever side comes first", "[rendezvous]") {
  Rendezvous rv(2, 1);
  const bool fibers = GENERATE(false, true);
  auto out = OnDevices(rv, fibers, 2, [&](int d) -> absl::StatusOr<Value> {
    // Device 0 receives before device 1 has sent; device 1's mail to it
    // comes later, and device 0's to device 1 is there before it asks.
    std::string in = StrCat("ch1:", 1 - d, ">", d, "#0");
    std::string outkey = StrCat("ch1:", d, ">", 1 - d, "#0");
    absl::StatusOr<Value> r;
    if (d == 0) {
      r = rv.Receive(in, d, 1 - d, "%r");
      (void)rv.Send(outkey, 1 - d, Scalar(40 + d));
    } else {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      (void)rv.Send(outkey, 1 - d, Scalar(40 + d));
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      r = rv.Receive(in, d, 1 - d, "%r");
    }
    rv.Finish(d, r.status());
    return r;
  });
  REQUIRE(out[0].ok());
  REQUIRE(out[1].ok());
  CHECK(out[0]->array().GetInt(0) == 41);
  CHECK(out[1]->array().GetInt(0) == 40);
}

constexpr const char* kAllReduceModule = R"(HloModule m

add {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT s = s32[] add(a, b)
}

ENTRY main {
  id = u32[] replica-id()
  r = s32[] convert(id)
  ROOT ar = s32[] all-reduce(r), to_apply=add
}
)";

TEST_CASE("replica runner: all-reduce of replica ids, run twice", "[rendezvous]") {
  auto m = ParseModule(kAllReduceModule);
  REQUIRE(m.ok());
  EvalOptions options;
  options.device_scheduling =
      GENERATE(EvalOptions::DeviceScheduling::kThreads, EvalOptions::DeviceScheduling::kFibers);
  ReplicaRunner runner(**m, options, 4, 1);
  std::vector<std::vector<Value>> args(4);
  for (int run = 0; run < 2; ++run) {
    auto out = runner.Run(args);
    REQUIRE(out.ok());
    for (const Value& v : *out) CHECK(v.array().GetInt(0) == 0 + 1 + 2 + 3);
  }
}

TEST_CASE("replica runner: the failing device's error is reported", "[rendezvous]") {
  // Replica 2 reads an infeed it was not given while the others wait.
  auto m = ParseModule(R"(HloModule m

add {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT s = s32[] add(a, b)
}

feed {
  x = s32[] parameter(0)
  tok = token[] after-all()
  inf = (s32[], token[]) infeed(tok)
  ROOT y = s32[] get-tuple-element(inf), index=0
}

pass {
  ROOT x = s32[] parameter(0)
}

ENTRY main {
  id = u32[] replica-id()
  two = u32[] constant(2)
  p = pred[] compare(id, two), direction=EQ
  r = s32[] convert(id)
  c = s32[] conditional(p, r, r), true_computation=feed, false_computation=pass
  ROOT ar = s32[] all-reduce(c), to_apply=add
}
)");
  REQUIRE(m.ok());
  EvalOptions options;
  options.device_scheduling =
      GENERATE(EvalOptions::DeviceScheduling::kThreads, EvalOptions::DeviceScheduling::kFibers);
  ReplicaRunner runner(**m, options, 4, 1, std::chrono::seconds(30));
  std::vector<std::vector<Value>> args(4);
  auto t0 = std::chrono::steady_clock::now();
  auto out = runner.Run(args);
  CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(10));
  REQUIRE(!out.ok());
  std::string msg(out.status().message());
  CHECK(msg.find("infeed needs values") != std::string::npos);
  CHECK(msg.find("(replica 2)") != std::string::npos);
}

}  // namespace
}  // namespace hlo
