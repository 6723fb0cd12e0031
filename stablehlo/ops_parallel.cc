// interpreter.run_parallel, the op StableHLO's interpreter tests run
// collectives with: a grid of num_replicas x num_partitions processes
// (`programs = [[@f, ...], ...]`, one row per replica), each calling its
// program on its part of the flattened operands; the results flattened the
// same way. It becomes a module that runs on that grid of devices (its
// header's replica_count and num_partitions): every device picks its own
// operands by its index (replica-id * partitions + partition-id) and calls
// the program; result j of process d is a copy marked as device d's, which
// the check ops check on device d only (ops_check.cc). Only grids running
// one program everywhere, without infeed queues, are read.
#include "ir/status_macros.h"
#include "ir/strings.h"
#include "stablehlo/chlo_builder.h"
#include "stablehlo/op_util.h"

namespace hlo::stablehlo {
namespace {

// The program every process of the grid runs; the grid's shape.
absl::StatusOr<const Func*> GridProgram(Translator& t, const Op& op, int64_t* replicas,
                                        int64_t* partitions) {
  const Attr* programs = nullptr;
  HLO_RETURN_IF_ERROR(Require(t, op, {"programs"}, &programs));
  if (op.FindAttr("infeed") != nullptr) {
    return t.Error(op.name_pos, "interpreter.run_parallel with infeed queues is not supported");
  }
  std::string name;
  *replicas = static_cast<int64_t>(programs->list.size());
  *partitions = *replicas > 0 ? static_cast<int64_t>(programs->list[0].list.size()) : 0;
  for (const Attr& row : programs->list) {
    if (static_cast<int64_t>(row.list.size()) != *partitions || row.list.empty()) {
      return t.Error(programs->pos, "programs must be a grid: rows of one length");
    }
    for (const Attr& sym : row.list) {
      if (sym.kind != Attr::Kind::kSymbol) return t.Error(sym.pos, "expected a @function");
      if (name.empty()) name = sym.s;
      if (sym.s != name) {
        return t.Error(sym.pos, StrCat("processes running different programs (@", name, ", @",
                                       sym.s, ") are not supported"));
      }
    }
  }
  if (*replicas * *partitions > 1024) return t.Error(programs->pos, "more than 1024 processes");
  for (const Func& f : t.module().funcs) {
    if (f.name == name) return &f;
  }
  return t.Error(programs->pos, StrCat("programs names no function: @", name));
}

absl::Status RunParallel(Translator& t, const Op& op, Scope& s) {
  int64_t replicas = 0, partitions = 0;
  HLO_ASSIGN_OR_RETURN(const Func* f, GridProgram(t, op, &replicas, &partitions));
  const int64_t n = replicas * partitions;
  const auto k = static_cast<int64_t>(f->args.size());
  const auto m = static_cast<int64_t>(f->results.size());
  if (static_cast<int64_t>(op.operands.size()) != n * k ||
      static_cast<int64_t>(op.results.size()) != n * m) {
    return t.Error(op.name_pos,
                   StrCat(n, " processes of @", f->name, " take ", n * k, " operands and give ",
                          n * m, " results, not ", op.operands.size(), " and ", op.results.size()));
  }
  HLO_ASSIGN_OR_RETURN(std::vector<Value> in, t.Operands(s, op));
  HLO_RETURN_IF_ERROR(t.SetProcessGrid(op.name_pos, replicas, partitions));
  Type u32;
  u32.element = "u32";
  Builder b{t, s, op, u32};
  const std::string device =
      b.Bin("add",
            b.Bin("multiply", t.Emit(s, op, "replica-id", u32, "replica-id()"),
                  b.Const(StrCat(partitions), u32), u32),
            t.Emit(s, op, "partition-id", u32, "partition-id()"), u32);
  // Argument i: process d's operand d * k + i, chosen by the device index.
  std::vector<std::string> args;
  for (int64_t i = 0; i < k; ++i) {
    const Value& first = in[i];
    std::string v = first.name;
    for (int64_t d = 1; d < n && first.type.kind == Type::Kind::kTensor; ++d) {
      const Value& mine = in[d * k + i];
      if (!(mine.type == first.type)) {
        return t.Error(op.operands[d * k + i].pos, "processes' operands of different types");
      }
      if (mine.name == v) continue;
      std::string pred = b.Cmp("EQ", device, b.Const(StrCat(d), u32));
      Type preds = first.type;
      preds.element = "pred";
      if (!first.type.dims.empty()) {
        pred = t.Emit(s, op, "broadcast", preds, StrCat("broadcast(", pred, "), dimensions={}"));
      }
      v = b.Sel(pred, mine.name, v, first.type);
    }
    args.push_back(v);
  }
  Type result;
  result.kind = Type::Kind::kTuple;
  result.elements = f->results;
  if (m == 1) result = f->results[0];
  std::string call =
      t.Emit(s, op, "call", result, StrCat("call(", StrJoin(args, ", "), "), to_apply=", f->name));
  for (int64_t r = 0; r < m; ++r) {
    const Type& type = f->results[r];
    std::string v = m == 1 ? call
                           : t.Emit(s, op, "get-tuple-element", type,
                                    StrCat("get-tuple-element(", call, "), index=", r));
    for (int64_t d = 0; d < n; ++d) {
      std::string mine = v;
      if (type.kind == Type::Kind::kTensor) {
        mine = t.Emit(s, op, "copy", type, StrCat("copy(", v, ")"));
        t.device_values()[mine] = Translator::DeviceValue{device, d};
      }
      s.values[op.results[d * m + r]] = Value{mine, type};
    }
  }
  return absl::OkStatus();
}

}  // namespace

std::vector<OpEntry> ParallelOps() { return {{"interpreter.run_parallel", &RunParallel}}; }

}  // namespace hlo::stablehlo
