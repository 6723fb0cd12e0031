// The Transport seam (eval/collectives/transport.h) without MPI: two
// Rendezvous stand for two processes of two devices each, joined by a fake
// transport that carries messages through the wire format
// (eval/collectives/wire_format.h) on a thread of its own, as the MPI
// progress thread does. Combines must see every device's contribution in
// group order, whichever process it came from; mail crosses too.
#include "eval/collectives/transport.h"

#include <catch2/catch.hpp>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <thread>

#include "eval/collectives/replica_rendezvous.h"
#include "eval/collectives/wire_format.h"
#include "ir/strings.h"

namespace hlo {
namespace {

Value Scalar(int32_t v) {
  auto lit = Literal::Create(Shape::Array(PrimitiveType::kS32, {}));
  lit->typed<int32_t>()[0] = v;
  return Value::Array(std::make_shared<Literal>(*std::move(lit)));
}

// Delivers posted messages in order on one thread (never under a sender's
// lock, as the MPI transport's progress thread).
class Wire {
 public:
  Wire() : thread_([this] { Loop(); }) {}
  ~Wire() { Stop(); }
  // Delivers what is posted, then stops the thread.
  void Stop() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    if (thread_.joinable()) thread_.join();
  }
  void Post(std::function<void()> f) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      queue_.push_back(std::move(f));
    }
    cv_.notify_all();
  }

 private:
  void Loop() {
    for (;;) {
      std::function<void()> f;
      {
        std::unique_lock<std::mutex> lock(mu_);
        cv_.wait(lock, [&] { return stop_ || !queue_.empty(); });
        if (queue_.empty()) return;
        f = std::move(queue_.front());
        queue_.pop_front();
      }
      f();
    }
  }
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> queue_;
  bool stop_ = false;
  std::thread thread_;
};

// The two processes' gathers (Transport::StartGather) matched in the order
// each process starts them, per group, as MPI matches messages: the second
// block of a pair completes both sides, each reading the other's block.
class GatherHub {
 public:
  struct Side {
    std::string block;
    GatherBlocks blocks;
    std::vector<int64_t> theirs;  // the other process's members (group indices)
    std::shared_ptr<Transport::Gathered> result;
    Rendezvous* self = nullptr;
  };
  void Arrive(int rank, const std::vector<int64_t>& group, Side side) {
    std::lock_guard<std::mutex> lock(mu_);
    std::deque<Side>& other = waiting_[{1 - rank, group}];
    if (other.empty()) {
      waiting_[{rank, group}].push_back(std::move(side));
      return;
    }
    Side first = std::move(other.front());
    other.pop_front();
    Complete(first, side.block);
    Complete(side, first.block);
  }

 private:
  // A block of another collective leaves its waiter waiting.
  static void Complete(Side& s, const std::string& their_block) {
    auto values = s.blocks.Read(their_block, s.theirs.size());
    if (!values.ok()) return;
    for (size_t k = 0; k < s.theirs.size(); ++k) {
      s.result->parts.emplace_back(s.theirs[k], std::move((*values)[k]));
    }
    s.result->done.store(true);
    s.self->Wake();
  }
  std::mutex mu_;
  std::map<std::pair<int, std::vector<int64_t>>, std::deque<Side>> waiting_;
};

class FakeTransport : public Transport {
 public:
  FakeTransport(int rank, Wire& wire) : rank_(rank), wire_(wire) {}
  Rendezvous* peer = nullptr;
  // With a hub: small collectives go as gathers (into `self`).
  GatherHub* hub = nullptr;
  Rendezvous* self = nullptr;

  std::shared_ptr<Gathered> StartGather(
      const std::string& key, absl::Span<const int64_t> span,
      absl::Span<const std::pair<int64_t, const Value*>> mine) override {
    const std::vector<int64_t> group(span.begin(), span.end());
    if (hub == nullptr) return nullptr;
    GatherHub::Side side;
    side.blocks = *GatherBlocks::For(key, *mine.front().second);
    std::vector<const Value*> values;
    for (const auto& m : mine) values.push_back(m.second);
    if (!side.blocks.Write(values, &side.block)) return nullptr;
    for (size_t m = 0; m < group.size(); ++m) {
      if (RankOf(group[m]) != rank_) side.theirs.push_back(static_cast<int64_t>(m));
    }
    side.result = std::make_shared<Gathered>();
    side.self = self;
    std::shared_ptr<Gathered> result = side.result;
    ++gathers;
    wire_.Post([this, group, side = std::move(side)]() mutable {
      hub->Arrive(rank_, group, std::move(side));
    });
    return result;
  }
  std::atomic<int> gathers{0};

  int64_t first_device() const override { return rank_ * 2; }
  int64_t local_devices() const override { return 2; }
  int RankOf(int64_t device) const override { return static_cast<int>(device / 2); }
  void BeginRun(Rendezvous*) override {}
  absl::Status EndRun() override { return absl::OkStatus(); }
  void DetachRun() override {}
  absl::Status SendContributions(const std::vector<int>& to, const std::string& key,
                                 const std::vector<int64_t>& group,
                                 const std::vector<std::pair<int64_t, const Value*>>& mine,
                                 bool /*own*/) override {
    if (to != std::vector<int>{1 - rank_}) return absl::InternalError("sent to the wrong process");
    WireWriter w;
    w.Int(static_cast<int64_t>(mine.size()));
    for (const auto& [i, v] : mine) {
      w.Int(i);
      w.Val(*v);
    }
    wire_.Post([this, key, group, bytes = w.Take()] {
      WireReader r(bytes);
      int64_t n = *r.Int();
      std::vector<std::pair<int64_t, Value>> parts;
      for (int64_t k = 0; k < n; ++k) {
        int64_t i = *r.Int();
        parts.emplace_back(i, *r.Val());
      }
      peer->DeliverContributions(key, group, std::move(parts));
    });
    return absl::OkStatus();
  }
  absl::Status SendMail(int, const std::string& key, const Value& data) override {
    WireWriter w;
    w.Val(data);
    wire_.Post([this, key, bytes = w.Take()] {
      WireReader r(bytes);
      peer->DeliverMail(key, *r.Val());
    });
    return absl::OkStatus();
  }
  void StateChanged() override { ++changes; }
  std::atomic<int> changes{0};

 private:
  int rank_;
  Wire& wire_;
};

// combine: the contributions as a number in base 10, in group order.
absl::StatusOr<Value> Digits(absl::Span<const Value> all) {
  int32_t v = 0;
  for (const Value& x : all) v = v * 10 + x.array().typed<int32_t>()[0];
  return Scalar(v);
}

TEST_CASE("collectives across a transport combine in group order", "[transport]") {
  Wire wire;
  Rendezvous a(4, 1), b(4, 1);
  FakeTransport ta(0, wire), tb(1, wire);
  ta.peer = &b;
  tb.peer = &a;
  a.SetTransport(&ta, 0, 2);
  b.SetTransport(&tb, 2, 2);
  Rendezvous* of[4] = {&a, &a, &b, &b};
  std::vector<absl::StatusOr<Value>> out(4, absl::UnknownError("not run"));
  std::vector<int32_t> firsts(4, 0);
  std::vector<std::thread> threads;
  // Three instances: the whole group {3,1,0,2} (an order across the
  // processes), a group within process 1, and one of a device on each.
  for (int d = 0; d < 4; ++d) {
    threads.emplace_back([&, d] {
      std::vector<int64_t> all = {3, 1, 0, 2};
      auto r = of[d]->Collective("k#0", all, d, Scalar(d + 1), Digits, "%x");
      if (!r.ok()) {
        out[d] = r;
        return;
      }
      firsts[d] = r->array().typed<int32_t>()[0];
      std::vector<int64_t> pair = d < 2 ? std::vector<int64_t>{1, 0}   // process 0 alone
                                        : std::vector<int64_t>{2, 3};  // process 1 alone
      std::vector<int64_t> cross =
          d % 2 == 0 ? std::vector<int64_t>{2, 0} : std::vector<int64_t>{1, 3};
      auto p = of[d]->Collective(StrCat("p#0/", pair[0]), pair, d, Scalar(d + 1), Digits, "%p");
      auto c = of[d]->Collective(StrCat("c#0/", cross[0]), cross, d, Scalar(d + 1), Digits, "%c");
      if (!p.ok() || !c.ok()) {
        out[d] = !p.ok() ? p.status() : c.status();
        return;
      }
      out[d] = Scalar(p->array().typed<int32_t>()[0] * 100 + c->array().typed<int32_t>()[0]);
      of[d]->Finish(d, absl::OkStatus());
    });
  }
  for (auto& t : threads) t.join();
  // {1,0}: 21, {2,3}: 34; {2,0}: 31, {1,3}: 24.
  const int32_t want[4] = {2131, 2124, 3431, 3424};
  for (int d = 0; d < 4; ++d) {
    CHECK(firsts[d] == 4213);
    REQUIRE(out[d].ok());
    CHECK(out[d]->array().typed<int32_t>()[0] == want[d]);
  }
  CHECK(a.GetState().finished);
  // To the other process: the whole group's and each cross pair's.
  CHECK(b.GetState().sent == 3);
  CHECK(a.GetState().received == 3);
}

// A collective-permute's exchange: member t reads only its source's value,
// so only that crosses (one message per process that needs any).
std::vector<absl::StatusOr<Value>> Permute(const std::vector<int64_t>& source_of, int64_t* sent_a,
                                           int64_t* sent_b) {
  Wire wire;
  Rendezvous a(4, 1), b(4, 1);
  FakeTransport ta(0, wire), tb(1, wire);
  ta.peer = &b;
  tb.peer = &a;
  a.SetTransport(&ta, 0, 2);
  b.SetTransport(&tb, 2, 2);
  Rendezvous* of[4] = {&a, &a, &b, &b};
  const Rendezvous::Wants wants = [&](int64_t m, int64_t t) { return source_of[t] == m; };
  std::vector<absl::StatusOr<Value>> out(4, absl::UnknownError("not run"));
  std::vector<std::thread> threads;
  for (int d = 0; d < 4; ++d) {
    threads.emplace_back([&, d] {
      const std::vector<int64_t> all = {0, 1, 2, 3};
      Rendezvous::Combine take = [&, d](absl::Span<const Value> v) -> absl::StatusOr<Value> {
        if (source_of[d] < 0) return Scalar(-1);
        return Scalar(v[source_of[d]].array().typed<int32_t>()[0]);
      };
      out[d] = of[d]->Collective("perm#0", all, d, Scalar(10 * (d + 1)), take, "%p", &wants);
      of[d]->Finish(d, out[d].status());
    });
  }
  for (auto& t : threads) t.join();
  *sent_a = a.GetState().sent;
  *sent_b = b.GetState().sent;
  return out;
}

TEST_CASE("a permute across a transport sends only what is read", "[transport]") {
  int64_t sent_a = 0, sent_b = 0;
  // 0 -> 3, 3 -> 1, 1 -> 2, 2 -> 0: every device reads the other process.
  auto out = Permute({2, 3, 1, 0}, &sent_a, &sent_b);
  const int32_t want[4] = {30, 40, 20, 10};
  for (int d = 0; d < 4; ++d) {
    REQUIRE(out[d].ok());
    CHECK(out[d]->array().typed<int32_t>()[0] == want[d]);
  }
  CHECK(sent_a == 1);
  CHECK(sent_b == 1);
  // 0 -> 1 and 2 -> 3 stay inside the processes: nothing crosses; devices
  // 0 and 2 are no pair's target.
  out = Permute({-1, 0, -1, 2}, &sent_a, &sent_b);
  const int32_t want2[4] = {-1, 10, -1, 30};
  for (int d = 0; d < 4; ++d) {
    REQUIRE(out[d].ok());
    CHECK(out[d]->array().typed<int32_t>()[0] == want2[d]);
  }
  CHECK(sent_a == 0);
  CHECK(sent_b == 0);
}

TEST_CASE("send and receive across a transport", "[transport]") {
  Wire wire;
  Rendezvous a(4, 1), b(4, 1);
  FakeTransport ta(0, wire), tb(1, wire);
  ta.peer = &b;
  tb.peer = &a;
  a.SetTransport(&ta, 0, 2);
  b.SetTransport(&tb, 2, 2);
  absl::StatusOr<Value> got = absl::UnknownError("not run");
  std::thread receiver([&] { got = b.Receive("ch:1>3#0", 3, 1, "%r"); });
  for (int i = 0; i < 2000 && b.GetState().waiting.empty(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  CHECK(b.GetState().waiting == std::vector<std::string>{"replica 3 waits at %r"});
  CHECK(b.GetState().stuck == false);  // device 2 has not stopped
  REQUIRE(a.Send("ch:1>3#0", 3, Scalar(77)).ok());
  receiver.join();
  REQUIRE(got.ok());
  CHECK(got->array().typed<int32_t>()[0] == 77);
  CHECK(ta.changes == 0);
  CHECK(tb.changes >= 1);  // device 3 waited
}

// Two processes of two devices whose small collectives go as gathers.
struct GatheringPair {
  Wire wire;
  GatherHub hub;
  Rendezvous a{4, 1}, b{4, 1};
  FakeTransport ta{0, wire}, tb{1, wire};
  Rendezvous* of[4] = {&a, &a, &b, &b};
  GatheringPair() {
    ta.peer = &b;
    tb.peer = &a;
    ta.hub = tb.hub = &hub;
    ta.self = &a;
    tb.self = &b;
    a.SetTransport(&ta, 0, 2);
    b.SetTransport(&tb, 2, 2);
  }
  // Gathers still on the wire (a test that ended in an abort) arrive while
  // the hub and the Rendezvous they wake are alive (they leaked into a
  // destroyed hub under LeakSanitizer).
  ~GatheringPair() { wire.Stop(); }
};

TEST_CASE("small collectives across a transport go as one gather", "[transport]") {
  GatheringPair p;
  std::vector<absl::StatusOr<Value>> out(4, absl::UnknownError("not run"));
  std::vector<int32_t> cuts(4, 0), crosses(4, 0);
  // A cut collective: reader r gets each member's value times 10 plus r.
  const Rendezvous::Cut cut = [](const Value& v, int64_t r) -> absl::StatusOr<Value> {
    return Scalar(v.array().typed<int32_t>()[0] * 10 + static_cast<int32_t>(r));
  };
  // combine of the cut: the members' parts summed.
  const Rendezvous::Combine sum = [](absl::Span<const Value> all) -> absl::StatusOr<Value> {
    int32_t v = 0;
    for (const Value& x : all) v += x.array().typed<int32_t>()[0];
    return Scalar(v);
  };
  std::vector<std::thread> threads;
  for (int d = 0; d < 4; ++d) {
    threads.emplace_back([&, d] {
      const std::vector<int64_t> all = {3, 1, 0, 2};
      out[d] = p.of[d]->Collective("k#0", all, d, Scalar(d + 1), Digits, "%x");
      if (out[d].ok()) {
        auto c = p.of[d]->Collective("cut#0", all, d, Scalar(d + 1), sum, "%c", nullptr, &cut);
        cuts[d] = c.ok() ? c->array().typed<int32_t>()[0] : -1;
      }
      // One member in each process: the gather alone, no slot.
      const std::vector<int64_t> cross =
          d % 2 == 0 ? std::vector<int64_t>{2, 0} : std::vector<int64_t>{1, 3};
      auto x = p.of[d]->Collective(StrCat("x#0/", cross[0]), cross, d, Scalar(d + 1), Digits, "%y");
      auto y = p.of[d]->Collective(StrCat("y#0/", cross[0]), cross, d, Scalar(d + 1), sum, "%z",
                                   nullptr, &cut);
      crosses[d] = x.ok() && y.ok()
                       ? x->array().typed<int32_t>()[0] * 1000 + y->array().typed<int32_t>()[0]
                       : -1;
      p.of[d]->Finish(d, out[d].status());
    });
  }
  for (auto& t : threads) t.join();
  for (int d = 0; d < 4; ++d) {
    REQUIRE(out[d].ok());
    CHECK(out[d]->array().typed<int32_t>()[0] == 4213);
    // Member r of {3,1,0,2} (device d) reads 10 * (1+2+3+4) + 4 * r.
    const int32_t r = d == 3 ? 0 : d == 1 ? 1 : d == 0 ? 2 : 3;
    CHECK(cuts[d] == 100 + 4 * r);
  }
  // {2,0}: digits 31, cut sum 10*(3+1) + 2*r = 40 + 2r; {1,3}: 24, 60 + 2r.
  CHECK(crosses[0] == 31 * 1000 + 42);
  CHECK(crosses[2] == 31 * 1000 + 40);
  CHECK(crosses[1] == 24 * 1000 + 60);
  CHECK(crosses[3] == 24 * 1000 + 62);
  // One gather per process and collective, and one per device for each
  // cross collective; no counted message.
  CHECK(p.ta.gathers == 6);
  CHECK(p.tb.gathers == 6);
  CHECK(p.a.GetState().sent == 0);
  CHECK(p.b.GetState().received == 0);
  CHECK(p.a.GetState().finished);
  CHECK(p.b.GetState().finished);
}

TEST_CASE("a gather answered by another collective never ends", "[transport]") {
  GatheringPair p;
  std::vector<absl::StatusOr<Value>> out(4, absl::UnknownError("not run"));
  std::vector<std::thread> threads;
  for (int d = 0; d < 4; ++d) {
    threads.emplace_back([&, d] {
      // Process 1's devices run another instruction (same size, other key).
      out[d] = p.of[d]->Collective(d < 2 ? "a#0" : "b#0", {0, 1, 2, 3}, d, Scalar(d), Digits,
                                   d < 2 ? "%a" : "%b");
    });
  }
  // Both processes end up stuck: each leader waits for its gather.
  for (int i = 0; i < 5000 && !(p.a.GetState().stuck && p.b.GetState().stuck); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  CHECK(p.a.GetState().stuck);
  CHECK(p.b.GetState().stuck);
  CHECK(p.a.GetState().waiting.size() == 2);
  // What rank 0 then says (a deadlock) releases everyone.
  p.a.AbortFromPeer(absl::FailedPreconditionError("deadlock"));
  p.b.AbortFromPeer(absl::FailedPreconditionError("deadlock"));
  for (auto& t : threads) t.join();
  for (int d = 0; d < 4; ++d) CHECK(out[d].status().message() == "deadlock");
}

TEST_CASE("gather blocks: round trip, another collective, damage", "[transport]") {
  Value pair = Value::Tuple({Scalar(5), Scalar(-6)});
  auto blocks = GatherBlocks::For("all-reduce#3/0,1", pair);
  REQUIRE(blocks.has_value());
  CHECK(blocks->member_bytes() == 8);
  Value other = Value::Tuple({Scalar(7), Scalar(8)});
  std::string block;
  REQUIRE(blocks->Write({&pair, &other}, &block));
  CHECK(block.size() == blocks->BlockBytes(2));
  auto back = blocks->Read(block, 2);
  REQUIRE(back.ok());
  CHECK((*back)[0].ToLiteral() == pair.ToLiteral());
  CHECK((*back)[1].ToLiteral() == other.ToLiteral());
  // Another key, or another size: never read as this collective's.
  auto elsewhere = GatherBlocks::For("all-reduce#4/0,1", pair);
  CHECK(!elsewhere->Read(block, 2).ok());
  CHECK(!blocks->Read(block, 1).ok());
  CHECK(!blocks->Read(block.substr(0, block.size() - 1), 2).ok());
  // A member of another size is not written.
  Value wide = Value::Tuple({Scalar(1), Scalar(2), Scalar(3)});
  std::string bad;
  CHECK_FALSE(blocks->Write({&wide}, &bad));
  CHECK_FALSE(GatherBlocks::For("k", Value::Token()).has_value());
}

TEST_CASE("gather blocks: a read reuses the arrays its taker let go", "[transport]") {
  auto blocks = GatherBlocks::For("all-reduce#1/0,1", Scalar(1));
  REQUIRE(blocks.has_value());
  const Value one = Scalar(11), two = Scalar(22), three = Scalar(33);
  std::string block;
  REQUIRE(blocks->Write({&one, &two}, &block));
  std::vector<std::shared_ptr<Literal>> kept;
  std::vector<Value> got;
  auto take = [&](size_t, Value v) { got.push_back(std::move(v)); };
  REQUIRE(blocks->ReadEach(block, 2, take, &kept).ok());
  REQUIRE(kept.size() == 2);
  const Literal* first = &got[0].array();
  const Literal* second = &got[1].array();
  // The first array is let go, the second still held: only the first is
  // written again, and the held one keeps its value.
  got.erase(got.begin());
  block.clear();
  REQUIRE(blocks->Write({&three, &one}, &block));
  REQUIRE(blocks->ReadEach(block, 2, take, &kept).ok());
  REQUIRE(got.size() == 3);
  CHECK(&got[1].array() == first);
  CHECK(&got[2].array() != second);
  CHECK(got[0].ToLiteral() == two.ToLiteral());
  CHECK(got[1].ToLiteral() == three.ToLiteral());
  CHECK(got[2].ToLiteral() == one.ToLiteral());
}

TEST_CASE("wire format round trip and damage", "[transport]") {
  auto lit = Literal::Create(Shape::Array(PrimitiveType::kF32, {2, 3}));
  for (int i = 0; i < 6; ++i) lit->typed<float>()[i] = 0.5f * i - 1;
  Value arr = Value::Array(std::make_shared<Literal>(*std::move(lit)));
  Value v = Value::Tuple({arr, Scalar(-5), Value::Token(), Value::Tuple({})});
  WireWriter w;
  w.Str("key");
  w.Val(v);
  std::string bytes = w.Take();
  WireReader r(bytes);
  CHECK(*r.Str() == "key");
  auto back = r.Val();
  REQUIRE(back.ok());
  CHECK(r.done());
  CHECK(back->ToLiteral() == v.ToLiteral());
  // Every shorter message is an error, never a read past its end.
  for (size_t n = 0; n < bytes.size(); ++n) {
    WireReader cut(std::string_view(bytes).substr(0, n));
    auto s = cut.Str();
    if (!s.ok()) continue;
    CHECK_FALSE(cut.Val().ok());
  }
}

TEST_CASE("wire format: large arrays travel apart, small ones inline", "[transport]") {
  const int64_t big = WireWriter::kApartBytes / 4;  // f32 elements
  auto lit = Literal::Create(Shape::Array(PrimitiveType::kF32, {big}));
  for (int64_t i = 0; i < big; ++i) lit->typed<float>()[i] = static_cast<float>(i % 97) - 48;
  Value large = Value::Array(std::make_shared<Literal>(*std::move(lit)));
  Value v = Value::Tuple({Scalar(7), large, Value::Tuple({large, Scalar(-1)})});
  WireWriter w;
  std::vector<Value> apart;
  w.Val(v, &apart);
  std::string bytes = w.Take();
  REQUIRE(apart.size() == 2);  // the large array twice, the scalars inline
  CHECK(bytes.size() < static_cast<size_t>(WireWriter::kApartBytes));
  WireReader r(bytes);
  auto back = r.Val();
  REQUIRE(back.ok());
  CHECK(r.done());
  // The reader says where each array's bytes go, in the writer's order.
  REQUIRE(r.apart().size() == 2);
  for (size_t i = 0; i < 2; ++i) {
    REQUIRE(r.apart()[i].bytes == apart[i].array().size_bytes());
    std::memcpy(r.apart()[i].data, apart[i].array().data(), r.apart()[i].bytes);
  }
  CHECK(back->ToLiteral() == v.ToLiteral());
  // Without `apart` the same value is one message of every byte.
  WireWriter inline_writer;
  inline_writer.Val(v);
  const std::string inline_bytes = inline_writer.Take();
  WireReader inline_reader(inline_bytes);
  auto inline_back = inline_reader.Val();
  REQUIRE(inline_back.ok());
  CHECK(inline_reader.apart().empty());
  CHECK(inline_back->ToLiteral() == v.ToLiteral());
}

}  // namespace
}  // namespace hlo
