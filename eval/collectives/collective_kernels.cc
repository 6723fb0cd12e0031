// EvalCollective: replica-id, partition-id, the group collectives (in
// eval/collectives/collective_ops.cc) and their -start/-done forms, the async wrappers,
// send/recv and infeed/outfeed.
//
// -start ops do the work; -done ops unwrap what the verifier's shapes say:
// all-gather-start and collective-permute-start give (operand(s), result,
// context...), all-reduce-start gives the result itself, async-start gives
// ((operands...), result, context...) and the context elements are zeros.
#include "eval/collectives/collective_groups.h"
#include "eval/collectives/collective_ops.h"
#include "eval/io/feed_io.h"
#include "eval/kernels/kernels.h"
#include "ir/computation.h"
#include "ir/strings.h"

namespace hlo {
namespace {

absl::Status Invalid(std::string msg) { return absl::InvalidArgumentError(std::move(msg)); }

absl::StatusOr<Value> U32Scalar(int64_t v) {
  auto out = NewArray(Shape::Array(PrimitiveType::kU32, {}));
  if (!out.ok()) return out.status();
  out->mutable_array().typed<uint32_t>()[0] = static_cast<uint32_t>(v);
  return out;
}

// (first, second, zeros for the declared elements from 2 on).
absl::StatusOr<Value> StartTuple(Value first, Value second, const Shape& declared) {
  std::vector<Value> v = {std::move(first), std::move(second)};
  if (declared.IsTuple()) {
    for (int64_t i = 2; i < declared.tuple_size(); ++i) {
      auto z = ZeroValue(declared.tuple_shape(i));
      if (!z.ok()) return z.status();
      v.push_back(*std::move(z));
    }
  }
  return Value::Tuple(std::move(v));
}

const Shape& ElementOr(const Shape& s, int64_t i) {
  return s.IsTuple() && s.tuple_size() > i ? s.tuple_shape(i) : s;
}

absl::StatusOr<Value> Element(const Value& v, int64_t i, std::string_view what) {
  if (!v.is_tuple() || static_cast<int64_t>(v.elements().size()) <= i) {
    return Invalid(StrCat(what, " operand is not a tuple of at least ", i + 1, " elements"));
  }
  return v.element(i);
}

Value OperandTuple(Operands ops) {
  std::vector<Value> v;
  for (const Value* o : ops) v.push_back(*o);
  return Value::Tuple(std::move(v));
}

// ---- -start forms ---------------------------------------------------------------

absl::StatusOr<Value> AllGatherStart(const Instruction& inst, Operands ops, KernelContext& ev) {
  auto r = EvalGroupCollective(inst, Opcode::kAllGather, ops, ElementOr(inst.shape(), 1), ev);
  if (!r.ok()) return r.status();
  Value in = ops.size() == 1 ? *ops[0] : OperandTuple(ops);
  return StartTuple(std::move(in), *std::move(r), inst.shape());
}

absl::StatusOr<Value> CollectivePermuteStart(const Instruction& inst, Operands ops,
                                             KernelContext& ev) {
  auto r =
      EvalGroupCollective(inst, Opcode::kCollectivePermute, ops, ElementOr(inst.shape(), 1), ev);
  if (!r.ok()) return r.status();
  Value in = ops.size() == 1 ? *ops[0] : OperandTuple(ops);
  return StartTuple(std::move(in), *std::move(r), inst.shape());
}

// ---- async-start / -update / -done ------------------------------------------------

absl::StatusOr<Value> AsyncStart(const Instruction& inst, Operands ops, KernelContext& ev) {
  const Shape& result_shape = ElementOr(inst.shape(), 1);
  absl::StatusOr<Value> r;
  if (inst.has_wrapped_opcode()) {
    if (IsGroupCollective(inst.wrapped_opcode())) {
      r = EvalGroupCollective(inst, inst.wrapped_opcode(), ops, result_shape, ev);
    } else {
      // A sugared op such as custom-call-start: evaluate the wrapped op with
      // the start's attributes and its result shape (tuple element 1).
      Instruction wrapped(inst.wrapped_opcode(), std::string(inst.name()), &result_shape);
      for (const Attribute& a : inst.attributes()) wrapped.SetAttr(a.kind, a.value);
      r = ev.EvaluateInstruction(wrapped, ops);
    }
  } else {
    const Computation* comp = inst.to_apply();
    if (comp == nullptr) return Invalid("async-start needs calls=<computation>");
    r = ev.Call(*comp, ops);
  }
  if (!r.ok()) return r.status();
  return StartTuple(OperandTuple(ops), *std::move(r), inst.shape());
}

// ---- infeed / outfeed -------------------------------------------------------------

absl::StatusOr<Value> Infeed(const Instruction& inst, KernelContext& ev) {
  DeviceContext* dev = ev.options().device;
  if (dev == nullptr || !dev->has_infeed) {
    return Invalid("infeed needs values: give hlo-run --infeed FILE");
  }
  if (dev->infeed_next >= dev->infeed.size()) {
    return Invalid(StrCat("the infeed is empty: all ", dev->infeed.size(),
                          " values of --infeed have been read"));
  }
  size_t index = dev->infeed_next++;
  const Shape& want = ElementOr(inst.shape(), 0);
  auto lit = FeedLiteral(dev->infeed[index], want);
  if (!lit.ok()) return lit.status();
  Value data = Value::FromLiteral(*std::move(lit));
  if (absl::Status st = CheckValueShape(data, want, StrCat("infeed value ", index)); !st.ok()) {
    return st;
  }
  return Value::Tuple({std::move(data), Value::Token()});
}

absl::StatusOr<Value> Outfeed(Operands ops, KernelContext& ev) {
  if (ops.empty()) return Invalid("outfeed needs an operand");
  if (DeviceContext* dev = ev.options().device) dev->outfeed.push_back(ops[0]->ToLiteral());
  return Value::Token();
}

// ---- send / recv ------------------------------------------------------------------

// _xla_send_recv_source_target_pairs="{{0,1},{1,2}}", or empty.
absl::StatusOr<std::vector<std::pair<int64_t, int64_t>>> SendRecvPairs(const Instruction& inst) {
  std::vector<std::pair<int64_t, int64_t>> pairs;
  const Attribute* a = inst.FindAttr(AttrKind::kFrontendAttributes);
  const auto* holder = a ? std::get_if<std::shared_ptr<const KeyValues>>(&a->value) : nullptr;
  const KeyValues* kv = holder ? holder->get() : nullptr;
  if (kv == nullptr) return pairs;
  for (const KeyValue& e : *kv) {
    if (e.key != "_xla_send_recv_source_target_pairs") continue;
    std::vector<int64_t> nums;
    int64_t cur = 0;
    bool in_num = false;
    for (char ch : e.value) {
      if (ch >= '0' && ch <= '9') {
        cur = cur * 10 + (ch - '0');
        in_num = true;
        if (cur > (int64_t{1} << 40)) return Invalid("send/recv pair id too large");
      } else {
        if (in_num) nums.push_back(cur);
        cur = 0;
        in_num = false;
        if (ch != '{' && ch != '}' && ch != ',' && ch != ' ') {
          return Invalid(
              StrCat("cannot read _xla_send_recv_source_target_pairs=\"", e.value, "\""));
        }
      }
    }
    if (in_num) nums.push_back(cur);
    if (nums.size() % 2 != 0) {
      return Invalid(StrCat("_xla_send_recv_source_target_pairs=\"", e.value, "\" is not pairs"));
    }
    for (size_t i = 0; i < nums.size(); i += 2) pairs.push_back({nums[i], nums[i + 1]});
  }
  return pairs;
}

// Pair ids name partitions when there are several, else replicas.
CollectiveMode PairMode(const DeviceContext& dev) {
  return dev.partition_count > 1 ? CollectiveMode::kCrossPartition : CollectiveMode::kCrossReplica;
}

std::string MailKey(int64_t channel, int64_t from, int64_t to, int64_t seq) {
  return StrCat("ch", channel, ":", from, ">", to, "#", seq);
}

// What send and recv share: the channel's pairs (checked against the ids of
// this run; a single device pairs with itself), this use's sequence number,
// and this device's id in the pairing mode.
struct PairPlan {
  std::vector<std::pair<int64_t, int64_t>> pairs;
  int64_t channel;
  int64_t seq;
  CollectiveMode mode;
  int64_t me;
};

absl::StatusOr<PairPlan> PlanPairs(const Instruction& inst, DeviceContext& dev, bool send) {
  auto pairs = SendRecvPairs(inst);
  if (!pairs.ok()) return pairs.status();
  PairPlan plan{*std::move(pairs), inst.GetInt(AttrKind::kChannelId), 0, PairMode(dev), 0};
  plan.seq = dev.NextChannelUse(plan.channel, send);
  plan.me = PairId(plan.mode, dev);
  const int64_t ids = PairIdCount(plan.mode, dev);
  if (plan.pairs.empty() && dev.devices() > 1) {
    return Invalid(StrCat(send ? "send" : "recv",
                          " between several devices needs frontend_attributes "
                          "{_xla_send_recv_source_target_pairs=...}"));
  }
  if (plan.pairs.empty()) plan.pairs.push_back({0, 0});
  for (auto [s, t] : plan.pairs) {
    if (s >= ids || t >= ids) {
      return Invalid(
          StrCat("send/recv pair {", s, ",", t, "} names an id outside the ", ids, " of this run"));
    }
  }
  return plan;
}

absl::StatusOr<Value> Send(const Instruction& inst, Operands ops, KernelContext& ev) {
  if (ops.size() != 2) return Invalid("send takes (data, token)");
  if (ev.options().device == nullptr) return Invalid("send needs the evaluator's DeviceContext");
  DeviceContext& dev = *ev.options().device;
  if (inst.GetBool(AttrKind::kIsHostTransfer)) {
    dev.outfeed.push_back(ops[0]->ToLiteral());
  } else {
    auto plan = PlanPairs(inst, dev, /*send=*/true);
    if (!plan.ok()) return plan.status();
    const auto& [pairs, channel, seq, mode, me] = *plan;
    for (auto [s, t] : pairs) {
      if (s != me) continue;
      const int64_t target = PairDevice(mode, dev, t);
      std::string key = MailKey(channel, dev.device(), target, seq);
      if (dev.rendezvous != nullptr) {
        if (absl::Status st = dev.rendezvous->Send(key, target, *ops[0]); !st.ok()) return st;
      } else {
        dev.local_mail[key] = Value::FromLiteral(ops[0]->ToLiteral());
      }
    }
  }
  auto ctx = U32Scalar(0);
  if (!ctx.ok()) return ctx.status();
  return Value::Tuple({*ops[0], *std::move(ctx), Value::Token()});
}

// recv only takes a ticket; recv-done waits for the data, so that devices
// that each post a recv before their send do not block each other.
absl::StatusOr<Value> Recv(const Instruction& inst, KernelContext& ev) {
  if (ev.options().device == nullptr) return Invalid("recv needs the evaluator's DeviceContext");
  DeviceContext& dev = *ev.options().device;
  const Shape& data_shape = ElementOr(inst.shape(), 0);
  DeviceContext::PendingRecv pending;
  pending.shape = &data_shape;
  pending.where = StrCat("%", inst.name(), " (recv)");
  if (inst.GetBool(AttrKind::kIsHostTransfer)) {
    pending.host = true;
  } else {
    auto plan = PlanPairs(inst, dev, /*send=*/false);
    if (!plan.ok()) return plan.status();
    const auto& [pairs, channel, seq, mode, me] = *plan;
    for (auto [s, t] : pairs) {
      if (t == me) {
        pending.source = PairDevice(mode, dev, s);
        pending.key = MailKey(channel, pending.source, dev.device(), seq);
      }
    }
  }
  int64_t ticket = dev.AddPendingRecv(std::move(pending));
  auto data = ZeroValue(data_shape);
  if (!data.ok()) return data.status();
  auto ctx = U32Scalar(ticket);
  if (!ctx.ok()) return ctx.status();
  return Value::Tuple({*std::move(data), *std::move(ctx), Value::Token()});
}

absl::StatusOr<Value> RecvDone(Operands ops, KernelContext& ev) {
  if (ev.options().device == nullptr)
    return Invalid("recv-done needs the evaluator's DeviceContext");
  DeviceContext& dev = *ev.options().device;
  auto ctx = Element(*ops[0], 1, "recv-done");
  if (!ctx.ok()) return ctx.status();
  auto pending = dev.TakePendingRecv(ctx->array().GetInt(0));
  if (!pending) return Invalid("recv-done without its recv");
  absl::StatusOr<Value> data;
  if (pending->host) {
    if (!dev.has_infeed || dev.infeed_next >= dev.infeed.size()) {
      return Invalid("a host-transfer recv reads the infeed: give hlo-run --infeed FILE");
    }
    auto lit = FeedLiteral(dev.infeed[dev.infeed_next++], *pending->shape);
    if (!lit.ok()) return lit.status();
    data = Value::FromLiteral(*std::move(lit));
  } else if (pending->key.empty()) {
    data = ZeroValue(*pending->shape);  // no pair targets this device
  } else if (dev.rendezvous != nullptr) {
    data = dev.rendezvous->Receive(pending->key, dev.device(), pending->source, pending->where);
  } else {
    auto it = dev.local_mail.find(pending->key);
    if (it == dev.local_mail.end()) return Invalid("recv-done before its matching send");
    data = std::move(it->second);
    dev.local_mail.erase(it);
  }
  if (!data.ok()) return data.status();
  if (absl::Status st = CheckValueShape(*data, *pending->shape, "received data"); !st.ok()) {
    return st;
  }
  return Value::Tuple({*std::move(data), Value::Token()});
}

}  // namespace

absl::StatusOr<Value> EvalCollective(const Instruction& inst, Operands ops, KernelContext& ev) {
  DeviceContext* dev = ev.options().device;
  switch (inst.opcode()) {
    case Opcode::kReplicaId:
      return U32Scalar(dev ? dev->replica_id : 0);
    case Opcode::kPartitionId:
      return U32Scalar(dev ? dev->partition_id : 0);
    case Opcode::kAllReduceStart:
      return EvalGroupCollective(inst, Opcode::kAllReduce, ops, inst.shape(), ev);
    case Opcode::kAllGatherStart:
      return AllGatherStart(inst, ops, ev);
    case Opcode::kCollectivePermuteStart:
      return CollectivePermuteStart(inst, ops, ev);
    case Opcode::kAllReduceDone:
      return *ops[0];
    case Opcode::kAllGatherDone:
    case Opcode::kCollectivePermuteDone:
    case Opcode::kAsyncDone:
      return Element(*ops[0], 1, inst.OpcodeText());
    case Opcode::kAsyncStart:
      return AsyncStart(inst, ops, ev);
    case Opcode::kAsyncUpdate:
      return *ops[0];
    case Opcode::kInfeed:
      return Infeed(inst, ev);
    case Opcode::kOutfeed:
      return Outfeed(ops, ev);
    case Opcode::kSend:
      return Send(inst, ops, ev);
    case Opcode::kSendDone:
      return Value::Token();
    case Opcode::kRecv:
      return Recv(inst, ev);
    case Opcode::kRecvDone:
      return RecvDone(ops, ev);
    default:
      return EvalGroupCollective(inst, inst.opcode(), ops, inst.shape(), ev);
  }
}

}  // namespace hlo
