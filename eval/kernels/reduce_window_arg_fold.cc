#include "eval/kernels/reduce_window_arg_fold.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <string_view>

#include "eval/interp/vector_lanes.h"
#include "ir/compare_order.h"
#include "ir/literal.h"

namespace hlo {
namespace reduction {
namespace {

using Direction = ArgFoldPredicate::Direction;

bool IsScalarOf(const Instruction* inst, PrimitiveType t) {
  const Shape& s = inst->shape();
  return s.IsArray() && s.rank() == 0 && s.element_type() == t;
}

// A 32-bit integer test: ne(parameter, constant) either way round.
struct SentinelTest {
  int64_t parameter;
  uint32_t sentinel;
};

std::optional<SentinelTest> MatchSentinelTest(const Instruction* ne) {
  if (ne->opcode() != Opcode::kCompare || ne->operand_count() != 2 ||
      ne->GetString(AttrKind::kDirection) != "NE") {
    return std::nullopt;
  }
  for (int side = 0; side < 2; ++side) {
    const Instruction* param = ne->operand(side);
    const Instruction* constant = ne->operand(1 - side);
    if (param->opcode() != Opcode::kParameter || !constant->IsKnownConstant()) continue;
    const PrimitiveType t = param->shape().element_type();
    if (!(IsScalarOf(param, PrimitiveType::kS32) || IsScalarOf(param, PrimitiveType::kU32)) ||
        !IsScalarOf(constant, t)) {
      continue;
    }
    SentinelTest test{param->parameter_number(), 0};
    std::memcpy(&test.sentinel, constant->literal()->data(), sizeof(test.sentinel));
    return test;
  }
  return std::nullopt;
}

// select_fn: compare(parameter j, parameter m + j) of f32 in IEEE order,
// either way round; sets value and direction.
bool MatchValueCompare(const Instruction* cmp, int64_t m, ArgFoldPredicate& f) {
  if (cmp->opcode() != Opcode::kCompare || cmp->operand_count() != 2) return false;
  const Instruction* a = cmp->operand(0);
  const Instruction* b = cmp->operand(1);
  if (a->opcode() != Opcode::kParameter || b->opcode() != Opcode::kParameter ||
      !IsScalarOf(a, PrimitiveType::kF32) || !IsScalarOf(b, PrimitiveType::kF32)) {
    return false;
  }
  const std::string_view type = cmp->GetString(AttrKind::kType);
  if (!ComparesFloatsInIeeeOrder(*cmp) || !(type.empty() || type == "FLOAT")) return false;
  std::optional<Direction> d = CompareDirectionOf(*cmp);
  if (!d) return false;
  const int64_t pa = a->parameter_number(), pb = b->parameter_number();
  if (pa < m && pb == pa + m) {
    f.value = pa;
    f.direction = *d;
  } else if (pb < m && pa == pb + m) {
    f.value = pb;
    f.direction = Mirrored(*d);
  } else {
    return false;
  }
  return true;
}

// ---- the fold ------------------------------------------------------------------

using V = Lanes<float>::V;
using M = Lanes<float>::M;
constexpr int64_t kLanes = sizeof(V) / sizeof(float);

// a <dir> b: a lane mask for vectors, a bool for scalars.
template <Direction kDir, typename X, typename R = decltype(X{} < X{})>
HLO_LANES_INLINE R Compare(const X& a, const X& b) {
  if constexpr (kDir == Direction::kEq) {
    return a == b;
  } else if constexpr (kDir == Direction::kNe) {
    return a != b;
  } else if constexpr (kDir == Direction::kGe) {
    return a >= b;
  } else if constexpr (kDir == Direction::kGt) {
    return a > b;
  } else if constexpr (kDir == Direction::kLe) {
    return a <= b;
  } else {
    return a < b;
  }
}

// What select_fn reads: denormals as zero when flushing (any zero: the
// compare cannot tell them apart).
template <bool kFlush>
HLO_LANES_INLINE V Flushed(const V& x) {
  if constexpr (!kFlush) {
    return x;
  } else {
    const V magnitude = (V)((M)x & 0x7fffffff);
    return Select(magnitude < (V{} + std::numeric_limits<float>::min()), V{}, x);
  }
}

template <bool kFlush>
HLO_LANES_INLINE float Flushed(float x) {
  if constexpr (kFlush) {
    if (std::fabs(x) < std::numeric_limits<float>::min()) return 0.0f;
  }
  return x;
}

// All ones where d's lane is not zero: its sign bit or its negation's (an
// integer compare's mask, combined with a float compare's, was lowered lane
// by lane: GCC 12 on 64-byte vectors).
HLO_LANES_INLINE M NonzeroLanes(const M& d) {
  typedef uint32_t U __attribute__((vector_size(sizeof(M))));
  return (M)((U)d | (U{} - (U)d)) >> 31;
}

template <Direction kDir, bool kFlush>
HLO_LANES_INLINE void FoldRows(const ArgFoldRows& r, uint32_t acc_sentinel, uint32_t x_sentinel,
                               int64_t first, int64_t count) {
  const int64_t inner = r.inner, positions = r.positions;
  const int64_t vector_end = inner - inner % kLanes;
  const V init_v = V{} + r.value_init;
  const M init_i = M{} + static_cast<int32_t>(r.index_init);
  const M acc_s = M{} + static_cast<int32_t>(acc_sentinel);
  const M x_s = M{} + static_cast<int32_t>(x_sentinel);
  for (int64_t q = first; q < first + count; ++q) {
    const int64_t* at = r.offsets + q * positions;
    float* value_out = r.value_out + q * inner;
    uint32_t* index_out = r.index_out + q * inner;
    int32_t* winner = r.winner + q * inner;
    for (int64_t i0 = 0; i0 < vector_end; i0 += kLanes) {
      V av = init_v;
      M ai = init_i, w = M{} - 1;
      for (int64_t k = 0; k < positions; ++k) {
        V xv = init_v;
        M xi = init_i;
        if (at[k] >= 0) {
          std::memcpy(&xv, r.value_in + at[k] + i0, sizeof(V));
          std::memcpy(&xi, r.index_in + at[k] + i0, sizeof(M));
        }
        // p: the accumulator stays.
        const M selected = Compare<kDir>(Flushed<kFlush>(av), Flushed<kFlush>(xv));
        const M keep = (selected & NonzeroLanes(ai ^ acc_s)) | ~NonzeroLanes(xi ^ x_s);
        av = Select(keep, av, xv);
        ai = Select(keep, ai, xi);
        w = Select(keep, w, M{} + static_cast<int32_t>(k));
      }
      std::memcpy(value_out + i0, &av, sizeof(V));
      std::memcpy(index_out + i0, &ai, sizeof(M));
      std::memcpy(winner + i0, &w, sizeof(M));
      // Each passenger's element at the winner: a blend per position
      // (gathered lane by lane, three passengers cost three folds).
      for (int64_t j = 0; j < r.passenger_count; ++j) {
        const ArgFoldRows::Passenger& pass = r.passengers[j];
        M acc = M{} + static_cast<int32_t>(pass.init);
        for (int64_t k = 0; k < positions; ++k) {
          if (at[k] < 0) continue;  // the init value, as acc started
          M x;
          std::memcpy(&x, pass.in + at[k] + i0, sizeof(M));
          acc = Select(~NonzeroLanes(w ^ (M{} + static_cast<int32_t>(k))), x, acc);
        }
        std::memcpy(pass.out + q * inner + i0, &acc, sizeof(M));
      }
    }
    for (int64_t i = vector_end; i < inner; ++i) {
      float av = r.value_init;
      uint32_t ai = r.index_init;
      int32_t w = -1;
      for (int64_t k = 0; k < positions; ++k) {
        const float xv = at[k] < 0 ? r.value_init : r.value_in[at[k] + i];
        const uint32_t xi = at[k] < 0 ? r.index_init : r.index_in[at[k] + i];
        if ((Compare<kDir>(Flushed<kFlush>(av), Flushed<kFlush>(xv)) && ai != acc_sentinel) ||
            xi == x_sentinel) {
          continue;
        }
        av = xv;
        ai = xi;
        w = static_cast<int32_t>(k);
      }
      value_out[i] = av;
      index_out[i] = ai;
      winner[i] = w;
      for (int64_t j = 0; j < r.passenger_count; ++j) {
        const ArgFoldRows::Passenger& pass = r.passengers[j];
        pass.out[q * inner + i] = w < 0 || at[w] < 0 ? pass.init : pass.in[at[w] + i];
      }
    }
  }
}

// One function per ISA, the fold inlined into each, its vectors that ISA's
// registers.
#if defined(__x86_64__)
template <Direction kDir, bool kFlush>
__attribute__((target("avx512f"))) void FoldRowsAvx512(const ArgFoldRows& r, uint32_t acc_s,
                                                       uint32_t x_s, int64_t first, int64_t count) {
  FoldRows<kDir, kFlush>(r, acc_s, x_s, first, count);
}
template <Direction kDir, bool kFlush>
__attribute__((target("avx2"))) void FoldRowsAvx2(const ArgFoldRows& r, uint32_t acc_s,
                                                  uint32_t x_s, int64_t first, int64_t count) {
  FoldRows<kDir, kFlush>(r, acc_s, x_s, first, count);
}
#endif

template <Direction kDir, bool kFlush>
void FoldRowsOnThisCpu(const ArgFoldPredicate& p, const ArgFoldRows& r, int64_t first,
                       int64_t count) {
#if defined(__x86_64__)
  static const int isa = __builtin_cpu_supports("avx512f") ? 2
                         : __builtin_cpu_supports("avx2")  ? 1
                                                           : 0;
  if (isa == 2) return FoldRowsAvx512<kDir, kFlush>(r, p.acc_sentinel, p.x_sentinel, first, count);
  if (isa == 1) return FoldRowsAvx2<kDir, kFlush>(r, p.acc_sentinel, p.x_sentinel, first, count);
#endif
  FoldRows<kDir, kFlush>(r, p.acc_sentinel, p.x_sentinel, first, count);
}

template <Direction kDir>
void FoldRowsIn(const ArgFoldPredicate& p, const ArgFoldRows& r, int64_t first, int64_t count,
                bool flush) {
  if (flush) {
    FoldRowsOnThisCpu<kDir, true>(p, r, first, count);
  } else {
    FoldRowsOnThisCpu<kDir, false>(p, r, first, count);
  }
}

}  // namespace

// p ::= or(and(select_fn, ne(acc_i, c)), not(ne(x_i, c')))
//       (each or/and's operands either way round)
std::optional<ArgFoldPredicate> MatchArgFold(const Instruction& p, int64_t m) {
  if (p.opcode() != Opcode::kOr || p.operand_count() != 2) return std::nullopt;
  for (int side = 0; side < 2; ++side) {
    const Instruction* conj = p.operand(side);
    const Instruction* negated = p.operand(1 - side);
    if (conj->opcode() != Opcode::kAnd || conj->operand_count() != 2 ||
        negated->opcode() != Opcode::kNot || negated->operand_count() != 1) {
      continue;
    }
    std::optional<SentinelTest> x_test = MatchSentinelTest(negated->operand(0));
    if (!x_test || x_test->parameter < m) continue;
    const int64_t index = x_test->parameter - m;
    for (int half = 0; half < 2; ++half) {
      std::optional<SentinelTest> acc_test = MatchSentinelTest(conj->operand(half));
      ArgFoldPredicate f;
      if (!acc_test || acc_test->parameter != index ||
          !MatchValueCompare(conj->operand(1 - half), m, f) || f.value == index) {
        continue;
      }
      f.index = index;
      f.acc_sentinel = acc_test->sentinel;
      f.x_sentinel = x_test->sentinel;
      return f;
    }
  }
  return std::nullopt;
}

void RunArgFold(const ArgFoldPredicate& p, const ArgFoldRows& rows, int64_t first, int64_t count,
                bool flush) {
  switch (p.direction) {
    case Direction::kEq:
      return FoldRowsIn<Direction::kEq>(p, rows, first, count, flush);
    case Direction::kNe:
      return FoldRowsIn<Direction::kNe>(p, rows, first, count, flush);
    case Direction::kGe:
      return FoldRowsIn<Direction::kGe>(p, rows, first, count, flush);
    case Direction::kGt:
      return FoldRowsIn<Direction::kGt>(p, rows, first, count, flush);
    case Direction::kLe:
      return FoldRowsIn<Direction::kLe>(p, rows, first, count, flush);
    case Direction::kLt:
      return FoldRowsIn<Direction::kLt>(p, rows, first, count, flush);
  }
}

}  // namespace reduction
}  // namespace hlo
