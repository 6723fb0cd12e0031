#include "ir/opcode.h"

#include <array>

#include "absl/container/flat_hash_map.h"
#include "absl/hash/hash.h"

namespace hlo {
namespace {

// absl's string hash: Debian's Abseil would hash std::string_view with
// std::hash, which is slower on these short names.
struct NameHash {
  size_t operator()(std::string_view s) const {
    return absl::Hash<absl::string_view>{}(absl::string_view(s.data(), s.size()));
  }
};

struct OpcodeInfo {
  std::string_view name;
  int arity;
};

// XLA's 133 (testdata/xla-opcodes.txt) and two of ours: adding or removing an
// opcode is a decision to check against XLA (scripts/xla_opcodes.py,
// ir/opcode_test.cc).
static_assert(kNumOpcodes == 135, "opcode added or removed: run scripts/xla_opcodes.py");

constexpr std::array<OpcodeInfo, kNumOpcodes> kOpcodes = {{
#define HLO_OPCODE_INFO(e, name, arity) {name, arity},
    HLO_OPCODES(HLO_OPCODE_INFO)
#undef HLO_OPCODE_INFO
}};

}  // namespace

std::string_view OpcodeName(Opcode opcode) { return kOpcodes[static_cast<int>(opcode)].name; }

std::optional<Opcode> ParseOpcode(std::string_view name) {
  static const auto* index = [] {
    auto* m = new absl::flat_hash_map<std::string_view, Opcode, NameHash>();
    for (int i = 0; i < kNumOpcodes; ++i) {
      m->emplace(kOpcodes[i].name, static_cast<Opcode>(i));
    }
    return m;
  }();
  auto it = index->find(name);
  if (it == index->end()) return std::nullopt;
  return it->second;
}

int OpcodeArity(Opcode opcode) { return kOpcodes[static_cast<int>(opcode)].arity; }

bool IsElementwiseUnary(Opcode op) {
  switch (op) {
    case Opcode::kAbs:
    case Opcode::kCbrt:
    case Opcode::kCeil:
    case Opcode::kClz:
    case Opcode::kConvert:
    case Opcode::kCos:
    case Opcode::kErf:
    case Opcode::kExp:
    case Opcode::kExpm1:
    case Opcode::kFloor:
    case Opcode::kImag:
    case Opcode::kIsFinite:
    case Opcode::kLog:
    case Opcode::kLog1p:
    case Opcode::kLogistic:
    case Opcode::kNegate:
    case Opcode::kNot:
    case Opcode::kPopcnt:
    case Opcode::kReal:
    case Opcode::kReducePrecision:
    case Opcode::kRoundNearestAfz:
    case Opcode::kRoundNearestEven:
    case Opcode::kRsqrt:
    case Opcode::kSign:
    case Opcode::kSin:
    case Opcode::kSqrt:
    case Opcode::kTan:
    case Opcode::kTanh:
    case Opcode::kCopy:
    case Opcode::kBitcastConvert:
    case Opcode::kAcos:
    case Opcode::kAcosh:
    case Opcode::kAsin:
    case Opcode::kAsinh:
    case Opcode::kAtan:
    case Opcode::kAtanh:
    case Opcode::kCosh:
    case Opcode::kSinh:
      return true;
    default:
      return false;
  }
}

bool IsElementwiseBinary(Opcode op) {
  switch (op) {
    case Opcode::kAdd:
    case Opcode::kAnd:
    case Opcode::kAtan2:
    case Opcode::kCompare:
    case Opcode::kComplex:
    case Opcode::kDivide:
    case Opcode::kMaximum:
    case Opcode::kMinimum:
    case Opcode::kMulhi:
    case Opcode::kMultiply:
    case Opcode::kOr:
    case Opcode::kPower:
    case Opcode::kRemainder:
    case Opcode::kShiftLeft:
    case Opcode::kShiftRightArithmetic:
    case Opcode::kShiftRightLogical:
    case Opcode::kSubtract:
    case Opcode::kXor:
    case Opcode::kStochasticConvert:
      return true;
    default:
      return false;
  }
}

bool IsBinaryCommutative(Opcode op) {
  switch (op) {
    case Opcode::kAdd:
    case Opcode::kAnd:
    case Opcode::kMaximum:
    case Opcode::kMinimum:
    case Opcode::kMulhi:
    case Opcode::kMultiply:
    case Opcode::kOr:
    case Opcode::kXor:
      return true;
    default:
      return false;
  }
}

bool IsElementwise(Opcode op) {
  return IsElementwiseUnary(op) || IsElementwiseBinary(op) || op == Opcode::kSelect ||
         op == Opcode::kClamp;
}

bool HasSideEffect(Opcode op) {
  switch (op) {
    case Opcode::kAfterAll:
    case Opcode::kInfeed:
    case Opcode::kOutfeed:
    case Opcode::kSend:
    case Opcode::kSendDone:
    case Opcode::kRecv:
    case Opcode::kRecvDone:
    case Opcode::kRng:
    case Opcode::kRngGetAndUpdateState:
    case Opcode::kAllReduce:
    case Opcode::kAllReduceStart:
    case Opcode::kAllReduceDone:
    case Opcode::kAllGather:
    case Opcode::kAllGatherStart:
    case Opcode::kAllGatherDone:
    case Opcode::kAllToAll:
    case Opcode::kRaggedAllToAll:
    case Opcode::kCollectivePermute:
    case Opcode::kCollectivePermuteStart:
    case Opcode::kCollectivePermuteDone:
    case Opcode::kCollectiveBroadcast:
    case Opcode::kReduceScatter:
    case Opcode::kCollectiveReduce:
    case Opcode::kAsyncStart:
    case Opcode::kAsyncUpdate:
    case Opcode::kAsyncDone:
    case Opcode::kCustomCall:
    case Opcode::kAddDependency:
    case Opcode::kDomain:
    case Opcode::kOptimizationBarrier:
      return true;
    default:
      return false;
  }
}

bool IsAsyncStart(Opcode op) {
  return op == Opcode::kAsyncStart || op == Opcode::kAllGatherStart ||
         op == Opcode::kAllReduceStart || op == Opcode::kCollectivePermuteStart ||
         op == Opcode::kCopyStart || op == Opcode::kSend || op == Opcode::kRecv;
}

bool IsAsyncDone(Opcode op) {
  return op == Opcode::kAsyncDone || op == Opcode::kAllGatherDone || op == Opcode::kAllReduceDone ||
         op == Opcode::kCollectivePermuteDone || op == Opcode::kCopyDone ||
         op == Opcode::kSendDone || op == Opcode::kRecvDone;
}

bool IsGroupCollective(Opcode op) {
  switch (op) {
    case Opcode::kAllReduce:
    case Opcode::kCollectiveReduce:
    case Opcode::kAllGather:
    case Opcode::kReduceScatter:
    case Opcode::kAllToAll:
    case Opcode::kRaggedAllToAll:
    case Opcode::kCollectivePermute:
    case Opcode::kCollectiveBroadcast:
      return true;
    default:
      return false;
  }
}

}  // namespace hlo
