#include "eval/kernels/reduce_window_select.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <memory>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "eval/interp/batch_program.h"
#include "eval/kernels/reduce_window_arg_fold.h"
#include "eval/kernels/strided_axes.h"
#include "eval/runtime/parallel.h"
#include "eval/vector_clones.h"
#include "ir/clone.h"
#include "ir/status_macros.h"

namespace hlo {
namespace reduction {
namespace {

// What the fold needs of a select reducer, worked out once per evaluator.
struct SelectReducer : KernelContext::DerivedData {
  int64_t m = 0;
  // The operands the predicate reads (the fold carries their values).
  std::vector<int64_t> carried;
  // select(p, acc_j, x_j): the accumulator stays where p holds.
  bool keep_when_true = true;
  // The predicate alone: the reducer's 2m parameters, root p.
  Computation predicate{"select_reducer_predicate"};
  // Its program, and copies for other cores (programs[k] for part k).
  std::vector<std::unique_ptr<BatchProgram>> programs;
  // p in XLA's SelectAndScatterExpander form: folded in registers.
  std::optional<ArgFoldPredicate> arg_fold;
};

// The selects' shared predicate and which way round they pick, or null.
//   reducer ::= acc_0..acc_{m-1} x_0..x_{m-1} parameters, p = f(parameters),
//               ROOT tuple(select(p, acc_j, x_j) for each j)
//             | the same with every select(p, x_j, acc_j)
const Instruction* SharedPredicate(const Computation& reducer, int64_t m, bool& keep_when_true) {
  const Instruction* root = reducer.root();
  if (root == nullptr || root->opcode() != Opcode::kTuple || root->operand_count() != m) {
    return nullptr;
  }
  const Instruction* p = nullptr;
  for (int64_t j = 0; j < m; ++j) {
    const Instruction* s = root->operand(j);
    if (s->opcode() != Opcode::kSelect || s->operand_count() != 3) return nullptr;
    if (j > 0 && s->operand(0) != p) return nullptr;
    p = s->operand(0);
    const Instruction* acc = reducer.parameter(j);
    const Instruction* x = reducer.parameter(m + j);
    bool keeps;
    if (s->operand(1) == acc && s->operand(2) == x) {
      keeps = true;
    } else if (s->operand(1) == x && s->operand(2) == acc) {
      keeps = false;
    } else {
      return nullptr;
    }
    if (j > 0 && keeps != keep_when_true) return nullptr;
    keep_when_true = keeps;
  }
  const Shape& ps = p->shape();
  if (!ps.IsArray() || ps.rank() != 0 || ps.element_type() != PrimitiveType::kPred) return nullptr;
  return p;
}

// The reducer as a SelectReducer whose predicate compiles and reads fewer
// than all operands; null otherwise.
std::unique_ptr<KernelContext::DerivedData> MatchSelectReducer(const Computation& reducer,
                                                               bool flush_denormals) {
  const int64_t params = reducer.parameter_count();
  if (params < 4 || params % 2 != 0) return nullptr;
  for (const Instruction* param : reducer.parameters()) {
    if (param == nullptr) return nullptr;
  }
  auto sel = std::make_unique<SelectReducer>();
  sel->m = params / 2;
  const Instruction* p = SharedPredicate(reducer, sel->m, sel->keep_when_true);
  if (p == nullptr) return nullptr;
  absl::flat_hash_set<const Instruction*> reached{p};
  std::vector<const Instruction*> pending{p};
  std::vector<bool> read(sel->m, false);
  while (!pending.empty()) {
    const Instruction* inst = pending.back();
    pending.pop_back();
    if (inst->opcode() == Opcode::kParameter) read[inst->parameter_number() % sel->m] = true;
    for (const Instruction* o : inst->operands()) {
      if (reached.insert(o).second) pending.push_back(o);
    }
  }
  for (int64_t j = 0; j < sel->m; ++j) {
    if (read[j]) sel->carried.push_back(j);
  }
  if (static_cast<int64_t>(sel->carried.size()) == sel->m) return nullptr;
  // Copies of the parameters (all of them: the numbering stays) and of
  // what p is made of, in post order.
  absl::flat_hash_map<const Instruction*, Instruction*> copies;
  for (const Instruction* inst : reducer.PostOrder()) {
    if (inst->opcode() != Opcode::kParameter && !reached.contains(inst)) continue;
    std::unique_ptr<Instruction> copy = CloneInstruction(*inst, inst->name());
    for (const Instruction* o : inst->operands()) copy->AppendOperand(copies.at(o));
    copies[inst] = sel->predicate.AddInstruction(std::move(copy));
  }
  sel->predicate.set_root(copies.at(p));
  absl::StatusOr<std::unique_ptr<BatchProgram>> program =
      BatchProgram::Compile(sel->predicate, flush_denormals);
  if (!program.ok() || (*program)->parameter_count() != params || (*program)->result_count() != 1) {
    return nullptr;
  }
  sel->programs.push_back(*std::move(program));
  // The accumulator stays where p holds, or where p = not(p') fails.
  if (sel->keep_when_true) {
    sel->arg_fold = MatchArgFold(*p, sel->m);
  } else if (p->opcode() == Opcode::kNot && p->operand_count() == 1) {
    sel->arg_fold = MatchArgFold(*p->operand(0), sel->m);
  }
  return sel;
}

// fn(U{}) for U the unsigned type `width` bytes wide; false for other
// widths (complex c128's 16).
template <typename Fn>
bool WithElementBits(int width, Fn&& fn) {
  switch (width) {
    case 1:
      fn(uint8_t{});
      return true;
    case 2:
      fn(uint16_t{});
      return true;
    case 4:
      fn(uint32_t{});
      return true;
    case 8:
      fn(uint64_t{});
      return true;
    default:
      return false;
  }
}

// acc[i] = keep[i] == keep_when_true ? acc[i] : x[i] (a select: bits
// copied, never converted).
template <typename U>
HLO_VECTOR_CLONES void KeepOrTakeAs(U* __restrict acc, const U* __restrict x,
                                    const uint8_t* __restrict keep, uint8_t keep_when_true,
                                    int64_t n) {
  for (int64_t i = 0; i < n; ++i) acc[i] = (keep[i] == keep_when_true) ? acc[i] : x[i];
}

void KeepOrTake(uint8_t* acc, const uint8_t* x, const uint8_t* keep, bool keep_when_true, int64_t n,
                int width) {
  const uint8_t want = keep_when_true ? 1 : 0;
  if (WithElementBits(width, [&](auto tag) {
        using U = decltype(tag);
        KeepOrTakeAs(reinterpret_cast<U*>(acc), reinterpret_cast<const U*>(x), keep, want, n);
      })) {
    return;
  }
  for (int64_t i = 0; i < n; ++i) {
    if (keep[i] != want) std::memcpy(acc + i * width, x + i * width, width);
  }
}

// winner[i] = keep[i] == keep_when_true ? winner[i] : k.
HLO_VECTOR_CLONES void KeepOrTakePosition(int32_t* __restrict winner,
                                          const uint8_t* __restrict keep, uint8_t keep_when_true,
                                          int32_t k, int64_t n) {
  for (int64_t i = 0; i < n; ++i) winner[i] = (keep[i] == keep_when_true) ? winner[i] : k;
}

// n elements of `width` bytes from src to dst, a typed loop for the common
// widths (a memcpy call costs more than a pooling window's row).
void CopyRun(uint8_t* dst, const uint8_t* src, int64_t n, int width) {
  if (!WithElementBits(width, [&](auto tag) {
        using U = decltype(tag);
        U* d = reinterpret_cast<U*>(dst);
        const U* x = reinterpret_cast<const U*>(src);
        for (int64_t i = 0; i < n; ++i) d[i] = x[i];
      })) {
    std::memcpy(dst, src, n * width);
  }
}

using Buffers = WindowBuffers;

// out[lane] = the element of `in` at the lane's winning window position
// (winner[lane], an index into its row's `positions` offsets), or the init
// value: rows of `inner` lanes.
void GatherWinners(uint8_t* out, const uint8_t* in, const uint8_t* init, int width,
                   const int32_t* winner, const int64_t* row_offsets, int64_t nrows,
                   int64_t positions, int64_t inner) {
  if (WithElementBits(width, [&](auto tag) {
        using U = decltype(tag);
        U* o = reinterpret_cast<U*>(out);
        const U* x = reinterpret_cast<const U*>(in);
        U fill;
        std::memcpy(&fill, init, sizeof(U));
        for (int64_t q = 0; q < nrows; ++q) {
          const int64_t* row = row_offsets + q * positions;
          for (int64_t i = 0; i < inner; ++i) {
            const int32_t k = winner[q * inner + i];
            const int64_t at = k < 0 ? -1 : row[k];
            o[q * inner + i] = at < 0 ? fill : x[at + i];
          }
        }
      })) {
    return;
  }
  for (int64_t lane = 0; lane < nrows * inner; ++lane) {
    const int32_t k = winner[lane];
    const int64_t at = k < 0 ? -1 : row_offsets[(lane / inner) * positions + k];
    std::memcpy(out + lane * width, at < 0 ? init : in + (at + lane % inner) * width, width);
  }
}

// One part's scratch and the fold of its blocks of rows.
class RowsFold {
 public:
  RowsFold(const SelectReducer& sel, const Buffers& b, const std::vector<int64_t>& offsets,
           int64_t positions, int64_t inner, int64_t rows_per_block)
      : sel_(sel), b_(b), offsets_(offsets), positions_(positions), inner_(inner) {
    const int64_t lanes = rows_per_block * inner;
    for (int64_t j : sel.carried) xs_.emplace_back(lanes * b.width[j]);
    keep_.resize(lanes);
    unread_.assign(lanes * 16, 0);
    winner_.resize(lanes);
    in_.assign(2 * b.m, unread_.data());
  }

  absl::Status Run(BatchProgram& program, int64_t first_row, int64_t nrows) {
    const int64_t nb = nrows * inner_;
    const int64_t* row_offsets = offsets_.data() + first_row * positions_;
    const size_t c_count = sel_.carried.size();
    // The carried operands fold in their outputs; winner_ holds the window
    // position of the element each lane holds (-1: the init values).
    for (size_t c = 0; c < c_count; ++c) {
      const int64_t j = sel_.carried[c];
      uint8_t* acc = Out(j, first_row);
      data_internal::FillElements(b_.width[j], acc, nb, b_.init[j]);
      in_[j] = acc;
      in_[b_.m + j] = xs_[c].data();
    }
    std::fill_n(winner_.begin(), nb, -1);
    void* keep = keep_.data();
    const uint8_t want = sel_.keep_when_true ? 1 : 0;
    for (int64_t k = 0; k < positions_; ++k) {
      for (size_t c = 0; c < c_count; ++c) {
        const int64_t j = sel_.carried[c];
        const int w = b_.width[j];
        for (int64_t q = 0; q < nrows; ++q) {
          const int64_t at = row_offsets[q * positions_ + k];
          uint8_t* dst = xs_[c].data() + q * inner_ * w;
          if (at < 0) {
            data_internal::FillElements(w, dst, inner_, b_.init[j]);
          } else {
            CopyRun(dst, b_.in[j] + at * w, inner_, w);
          }
        }
      }
      HLO_RETURN_IF_ERROR(program.Run(in_, absl::MakeSpan(&keep, 1), nb));
      for (size_t c = 0; c < c_count; ++c) {
        const int64_t j = sel_.carried[c];
        KeepOrTake(Out(j, first_row), xs_[c].data(), keep_.data(), sel_.keep_when_true, nb,
                   b_.width[j]);
      }
      KeepOrTakePosition(winner_.data(), keep_.data(), want, static_cast<int32_t>(k), nb);
    }
    // The other operands: their element where each lane's fold ended.
    for (int64_t j = 0, c = 0; j < static_cast<int64_t>(b_.m); ++j) {
      if (c < static_cast<int64_t>(c_count) && sel_.carried[c] == j) {
        ++c;
        continue;
      }
      GatherWinners(Out(j, first_row), b_.in[j], b_.init[j], b_.width[j], winner_.data(),
                    row_offsets, nrows, positions_, inner_);
    }
    return absl::OkStatus();
  }

 private:
  uint8_t* Out(int64_t j, int64_t row) const { return b_.out[j] + row * inner_ * b_.width[j]; }

  const SelectReducer& sel_;
  const Buffers& b_;
  const std::vector<int64_t>& offsets_;
  const int64_t positions_, inner_;
  std::vector<std::vector<uint8_t>> xs_;
  std::vector<uint8_t> keep_, unread_;
  std::vector<int32_t> winner_;
  std::vector<const void*> in_;
};

// The fold of an ArgFoldPredicate, rows split among the cores; the other
// operands gathered at each lane's winner.
absl::Status ArgFoldWindow(const SelectReducer& sel, const Buffers& b,
                           const std::vector<int64_t>& offsets, int64_t rows, int64_t positions,
                           int64_t inner, KernelContext& ev) {
  const ArgFoldPredicate& p = *sel.arg_fold;
  std::vector<int32_t> winner(rows * inner);
  ArgFoldRows fold;
  fold.value_in = reinterpret_cast<const float*>(b.in[p.value]);
  fold.index_in = reinterpret_cast<const uint32_t*>(b.in[p.index]);
  std::memcpy(&fold.value_init, b.init[p.value], sizeof(float));
  std::memcpy(&fold.index_init, b.init[p.index], sizeof(uint32_t));
  fold.offsets = offsets.data();
  fold.positions = positions;
  fold.inner = inner;
  fold.value_out = reinterpret_cast<float*>(b.out[p.value]);
  fold.index_out = reinterpret_cast<uint32_t*>(b.out[p.index]);
  fold.winner = winner.data();
  std::vector<ArgFoldRows::Passenger> passengers;
  std::vector<size_t> gathered;  // the other operands: gathered at the winners
  for (size_t j = 0; j < b.m; ++j) {
    if (static_cast<int64_t>(j) == p.value || static_cast<int64_t>(j) == p.index) continue;
    if (b.width[j] != 4) {
      gathered.push_back(j);
      continue;
    }
    ArgFoldRows::Passenger pass;
    pass.in = reinterpret_cast<const uint32_t*>(b.in[j]);
    std::memcpy(&pass.init, b.init[j], sizeof(pass.init));
    pass.out = reinterpret_cast<uint32_t*>(b.out[j]);
    passengers.push_back(pass);
  }
  fold.passengers = passengers.data();
  fold.passenger_count = static_cast<int64_t>(passengers.size());
  const bool flush = ev.options().flush_denormals;
  // The fold is bound by reading its operands (cnn_grad's argmax reads
  // 1.3 MB: 55 us on one core, 20 GB/s): a part per core from 256 KiB.
  int64_t row_bytes = 0;
  for (size_t j = 0; j < b.m; ++j) row_bytes += positions * inner * b.width[j];
  const int64_t min_rows =
      std::max<int64_t>(1, (int64_t{256} << 10) / std::max<int64_t>(1, row_bytes));
  ParallelRows(rows, min_rows, [&](int64_t begin, int64_t end) {
    RunArgFold(p, fold, begin, end - begin, flush);
    for (const size_t j : gathered) {
      GatherWinners(b.out[j] + begin * inner * b.width[j], b.in[j], b.init[j], b.width[j],
                    winner.data() + begin * inner, offsets.data() + begin * positions, end - begin,
                    positions, inner);
    }
  });
  return absl::OkStatus();
}

}  // namespace

std::optional<absl::Status> SelectReduceWindow(const Computation& reducer, Operands ops,
                                               const std::vector<WindowAxis>& axes,
                                               absl::Span<const int64_t> in_strides,
                                               std::vector<Value>& outs, KernelContext& ev) {
  static const char kKind = 0;
  auto* sel = static_cast<SelectReducer*>(ev.DerivedDataFor(
      &kKind, reducer, [&] { return MatchSelectReducer(reducer, ev.options().flush_denormals); }));
  if (sel == nullptr || static_cast<int64_t>(ops.size()) != 2 * sel->m) return std::nullopt;
  Buffers b;
  b.m = static_cast<size_t>(sel->m);
  for (int64_t j = 0; j < sel->m; ++j) {
    const PrimitiveType t = reducer.parameter(j)->shape().element_type();
    if (ops[j]->array().element_type() != t || ops[sel->m + j]->array().element_type() != t ||
        outs[j].array().element_type() != t) {
      return std::nullopt;
    }
    b.in.push_back(ops[j]->array().data());
    b.init.push_back(ops[sel->m + j]->array().data());
    b.out.push_back(outs[j].mutable_array().data());
    b.width.push_back(ByteWidth(t));
  }
  std::optional<RowWindows> rows = TrailingRows(axes, in_strides, 1);
  if (!rows) return std::nullopt;
  const std::vector<int64_t> offsets = AllRowOffsets(*rows);
  if (rows->rows() == 0) return absl::OkStatus();
  const int64_t positions = static_cast<int64_t>(offsets.size()) / rows->rows();
  if (positions > std::numeric_limits<int32_t>::max()) return std::nullopt;
  const int64_t inner = rows->inner();
  if (sel->arg_fold) return ArgFoldWindow(*sel, b, offsets, rows->rows(), positions, inner, ev);
  const int64_t rows_per_block = std::max<int64_t>(1, BatchProgram::kBlock / inner);
  const int64_t blocks = (rows->rows() + rows_per_block - 1) / rows_per_block;
  const int64_t parts = PartsOfBlocks(
      blocks, rows_per_block * inner * positions * (sel->programs[0]->step_count() + 2 * sel->m));
  while (static_cast<int64_t>(sel->programs.size()) < parts) {
    sel->programs.push_back(sel->programs[0]->Clone());
  }
  auto run_blocks = [&](BatchProgram& program, int64_t begin, int64_t end) -> absl::Status {
    RowsFold fold(*sel, b, offsets, positions, inner, rows_per_block);
    for (int64_t blk = begin; blk < end; ++blk) {
      const int64_t first = blk * rows_per_block;
      HLO_RETURN_IF_ERROR(fold.Run(program, first, std::min(rows_per_block, rows->rows() - first)));
    }
    return absl::OkStatus();
  };
  std::vector<BatchProgram*> programs(parts);
  for (int64_t p = 0; p < parts; ++p) programs[p] = sel->programs[p].get();
  return RunBlocksInParts(blocks, programs, run_blocks);
}

}  // namespace reduction
}  // namespace hlo
