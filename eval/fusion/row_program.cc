#include "eval/fusion/row_program.h"

#include <algorithm>
#include <cstring>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "eval/denormals.h"
#include "eval/interp/elementwise_ops.h"
#include "eval/interp/reduce_fold.h"
#include "eval/interp/reduce_ops.h"
#include "eval/kernels/scalar_apply.h"
#include "eval/runtime/new_array.h"
#include "eval/runtime/parallel.h"
#include "eval/vector_clones.h"
#include "ir/computation.h"

namespace hlo {
namespace {

using Node = RowProgram::Node;
using Kind = RowProgram::Node::Kind;

// Narrower rows are left to the loop groups and the reduce kernels.
constexpr int64_t kMinCols = 8;
// Wider ones too: a block of even one row would leave L2.
constexpr int64_t kMaxCols = int64_t{1} << 16;
// Rows per core's part: a block costs a kernel call per node.
constexpr int64_t kMinPartElements = 16 * 1024;

bool IsArithmetic(Opcode op) {
  return op == Opcode::kAdd || op == Opcode::kSubtract || op == Opcode::kMultiply ||
         op == Opcode::kDivide;
}
bool IsBinaryOp(Opcode op) {
  return IsArithmetic(op) || op == Opcode::kMaximum || op == Opcode::kMinimum;
}

// What an instruction would be in the program of `shape`'s rows.
enum class Role : uint8_t {
  kNone,
  kAlias,
  kSplat,
  kColumn,
  kRowBroadcast,
  kReduce,
  kBinary,
  kUnary
};

class Matcher {
 public:
  Matcher(const Shape& shape, bool flush) : shape_(shape), flush_(flush) {
    type_ = shape.element_type();
    cols_ = shape.dims().back();
    rows_ = shape.ElementCount() / cols_;
  }

  bool IsRows(const Shape& s) const {
    return s.IsArray() && s.element_type() == type_ && s.dims() == shape_.dims();
  }
  bool IsPerRow(const Shape& s) const {
    return s.IsArray() && s.element_type() == type_ && s.ElementCount() == rows_ &&
           s.dims() != shape_.dims();
  }

  Role RoleOf(const Instruction& inst) const {
    const Shape& s = inst.shape();
    if (!IsRows(s) && !IsPerRow(s)) return Role::kNone;
    const Opcode op = inst.opcode();
    if (op == Opcode::kReshape) {
      return inst.operand_count() == 1 && IsPerRow(s) && IsPerRow(inst.operand(0)->shape())
                 ? Role::kAlias
                 : Role::kNone;
    }
    if (op == Opcode::kBroadcast) return BroadcastRole(inst);
    if (op == Opcode::kReduce) return IsMinorReduce(inst) ? Role::kReduce : Role::kNone;
    if (IsBinaryOp(op) && inst.operand_count() == 2) return Role::kBinary;
    if (inst.operand_count() == 1 && IsElementwise(op) &&
        inst.operand(0)->shape().element_type() == type_ && SupportsUnary(op)) {
      return Role::kUnary;
    }
    return Role::kNone;
  }

  // Whether `inst` reads its operands as program values (a column's or
  // a splat's operand is an input, never a member).
  static bool ReadsNodes(Role role) { return role != Role::kSplat && role != Role::kColumn; }

  std::unique_ptr<RowProgram> Build(const Instruction& root,
                                    const absl::flat_hash_set<const Instruction*>& region,
                                    absl::Span<const Instruction* const> outputs,
                                    std::vector<const Instruction*>* inputs) {
    region_ = &region;
    inputs_ = inputs;
    program_ = std::make_unique<RowProgram>();
    program_->type = type_;
    program_->rows = rows_;
    program_->cols = cols_;
    const int32_t top = NodeOf(root);
    if (top < 0 || top + 1 != static_cast<int32_t>(program_->nodes.size())) return nullptr;
    const Node& last = program_->nodes.back();
    if (last.per_row || (last.kind != Kind::kBinary && last.kind != Kind::kUnary)) return nullptr;
    const bool reduces = std::any_of(program_->nodes.begin(), program_->nodes.end(),
                                     [](const Node& n) { return n.kind == Kind::kReduce; });
    for (size_t k = 0; k < outputs.size(); ++k) {
      auto it = node_of_.find(outputs[k]);
      if (it == node_of_.end()) return nullptr;
      Node& node = program_->nodes[it->second];
      if (node.per_row || node.output >= 0 || it->second == top ||
          (node.kind != Kind::kBinary && node.kind != Kind::kUnary)) {
        return nullptr;
      }
      node.output = static_cast<int32_t>(k);
    }
    return reduces ? std::move(program_) : nullptr;
  }

 private:
  Role BroadcastRole(const Instruction& b) const {
    if (b.operand_count() != 1) return Role::kNone;
    const Shape& in = b.operand(0)->shape();
    const Shape& s = b.shape();
    if (!in.IsArray() || in.element_type() != type_) return Role::kNone;
    if (in.rank() == 0) return Role::kSplat;
    absl::Span<const int64_t> map = b.GetInts(AttrKind::kDimensions);
    if (static_cast<int64_t>(map.size()) != in.rank()) return Role::kNone;
    if (IsPerRow(s)) return in.dims() == s.dims() ? Role::kAlias : Role::kNone;
    const int64_t rank = shape_.rank();
    if (in.rank() == 1 && map[0] == rank - 1 && in.dims()[0] == cols_) return Role::kColumn;
    if (in.rank() != rank - 1) return Role::kNone;
    for (int64_t d = 0; d < rank - 1; ++d) {
      if (map[d] != d || in.dims()[d] != shape_.dims()[d]) return Role::kNone;
    }
    return Role::kRowBroadcast;
  }

  bool IsMinorReduce(const Instruction& r) const {
    if (r.operand_count() != 2 || !IsPerRow(r.shape()) || !IsRows(r.operand(0)->shape())) {
      return false;
    }
    absl::Span<const int64_t> dims = r.GetInts(AttrKind::kDimensions);
    const Shape& init = r.operand(1)->shape();
    const Computation* reducer = r.to_apply();
    if (dims.size() != 1 || dims[0] != shape_.rank() - 1 || !init.IsArray() || init.rank() != 0 ||
        init.element_type() != type_ || reducer == nullptr) {
      return false;
    }
    const std::optional<Opcode> op = SimpleBinaryReducer(*reducer);
    return op && (*op == Opcode::kAdd || *op == Opcode::kMultiply || *op == Opcode::kMaximum ||
                  *op == Opcode::kMinimum);
  }

  bool SupportsUnary(Opcode op) const {
    if (type_ == PrimitiveType::kF32) {
      return elementwise::UnaryFloatKernel<float>(op, nullptr, nullptr, 0);
    }
    return elementwise::UnaryFloatKernel<double>(op, nullptr, nullptr, 0);
  }

  int32_t InputOf(const Instruction* inst) {
    auto it = std::find(inputs_->begin(), inputs_->end(), inst);
    if (it != inputs_->end()) return static_cast<int32_t>(it - inputs_->begin());
    inputs_->push_back(inst);
    return static_cast<int32_t>(inputs_->size() - 1);
  }

  int32_t Add(Node node, const Instruction* inst) {
    program_->nodes.push_back(node);
    const int32_t index = static_cast<int32_t>(program_->nodes.size() - 1);
    if (inst != nullptr) node_of_[inst] = index;
    return index;
  }

  // The node of `inst`'s value (its operands' nodes first), or -1.
  int32_t NodeOf(const Instruction& inst) {
    auto it = node_of_.find(&inst);
    if (it != node_of_.end()) return it->second;
    Node node;
    node.per_row = IsPerRow(inst.shape());
    if (!region_->contains(&inst)) {
      if (!IsRows(inst.shape()) && !IsPerRow(inst.shape())) return -1;
      node.kind = node.per_row ? Kind::kRowValues : Kind::kRowsInput;
      node.input = InputOf(&inst);
      return Add(node, &inst);
    }
    const Role role = RoleOf(inst);
    node.op = inst.opcode();
    switch (role) {
      case Role::kAlias: {
        const int32_t a = NodeOf(*inst.operand(0));
        if (a >= 0) node_of_[&inst] = a;
        return a;
      }
      case Role::kSplat:
      case Role::kColumn:
        node.kind = role == Role::kSplat ? Kind::kSplat : Kind::kColumn;
        node.input = InputOf(inst.operand(0));
        return Add(node, &inst);
      case Role::kRowBroadcast:
        node.kind = Kind::kRowBroadcast;
        node.a = NodeOf(*inst.operand(0));
        if (node.a < 0 || !program_->nodes[node.a].per_row) return -1;
        return Add(node, &inst);
      case Role::kReduce:
        node.kind = Kind::kReduce;
        node.op = *SimpleBinaryReducer(*inst.to_apply());
        node.a = NodeOf(*inst.operand(0));
        if (node.a < 0 || program_->nodes[node.a].per_row) return -1;
        node.input = InputOf(inst.operand(1));
        node.flush = flush_;
        return Add(node, &inst);
      case Role::kBinary:
      case Role::kUnary: {
        node.kind = role == Role::kBinary ? Kind::kBinary : Kind::kUnary;
        node.a = NodeOf(*inst.operand(0));
        if (role == Role::kBinary) node.b = NodeOf(*inst.operand(1));
        if (node.a < 0 || (role == Role::kBinary && node.b < 0)) return -1;
        // (add, subtract, multiply and divide: MXCSR's flush is the kernels'.)
        node.flush = flush_ && ElementwiseFlushesDenormals(inst) && !IsArithmetic(node.op);
        return Add(node, &inst);
      }
      case Role::kNone:
        return -1;
    }
    return -1;
  }

  const Shape& shape_;
  bool flush_;
  PrimitiveType type_;
  int64_t rows_ = 0, cols_ = 0;
  const absl::flat_hash_set<const Instruction*>* region_ = nullptr;
  std::vector<const Instruction*>* inputs_ = nullptr;
  std::unique_ptr<RowProgram> program_;
  absl::flat_hash_map<const Instruction*, int32_t> node_of_;
};

// ---- running ------------------------------------------------------------------

// out[k] = op(a[k], s) (scalar_left: op(s, a[k])) for the four
// arithmetic ops: one IEEE operation per element, as the kernels' (a row
// value's broadcast is read as the scalar it is, never spread over a row).
// out may be a.
template <typename T>
HLO_VECTOR_CLONES void ArithmeticWithScalar(Opcode op, bool scalar_left, const T* a, T s, T* out,
                                            int64_t n) {
  switch (op) {
    case Opcode::kAdd:
      for (int64_t k = 0; k < n; ++k) out[k] = scalar_left ? s + a[k] : a[k] + s;
      return;
    case Opcode::kSubtract:
      if (scalar_left) {
        for (int64_t k = 0; k < n; ++k) out[k] = s - a[k];
      } else {
        for (int64_t k = 0; k < n; ++k) out[k] = a[k] - s;
      }
      return;
    case Opcode::kMultiply:
      for (int64_t k = 0; k < n; ++k) out[k] = scalar_left ? s * a[k] : a[k] * s;
      return;
    default:  // divide
      if (scalar_left) {
        for (int64_t k = 0; k < n; ++k) out[k] = s / a[k];
      } else {
        for (int64_t k = 0; k < n; ++k) out[k] = a[k] / s;
      }
      return;
  }
}

// One core's run, a block of rows at a time: each node's values for the
// block (cols per row, or one for a per-row node) in a buffer of its own,
// all of them in L1 (kBlockBytes; blocks of five rows of GPT-2's 768 put
// 150 KB in flight, and the kernels' stores waited on L2); inputs read
// where they lie, the root's written into the result. A block is one row
// unless rows are short: then each node's kernel call covers several rows,
// where a row at a time cost more in calls than in arithmetic (gpt_fwd's
// [256,128] layer norms: 30 nodes a row).
template <typename T>
class RowRunner {
 public:
  RowRunner(const RowProgram& p, absl::Span<const T* const> in, T* out, absl::Span<T* const> others)
      : p_(p), in_(in), out_(out), others_(others), cols_(p.cols) {
    const size_t n = p.nodes.size();
    ptr_.resize(n);
    spread_.assign(n, true);
    offset_.assign(n, -1);
    // Which operands to flush first (bit 0: a, bit 1: b), once, not per row.
    flush_operand_.assign(n, 0);
    for (size_t i = 0; i < n; ++i) {
      const Node& node = p.nodes[i];
      if (!node.flush || (node.kind != Kind::kBinary && node.kind != Kind::kUnary)) continue;
      flush_operand_[i] =
          (Clean(node.a) ? 0 : 1) | (node.kind == Kind::kBinary && !Clean(node.b) ? 2 : 0);
    }
    // A row's share of the buffers: the nodes' own, two operands' room,
    // and the columns (spread over the block's rows where it has several).
    int64_t per_row = 2 * cols_, columns = 0;
    for (size_t i = 0; i + 1 < n; ++i) {
      const Node& node = p.nodes[i];
      if (node.kind == Kind::kColumn) ++columns;
      if (Buffered(node)) per_row += node.per_row ? 1 : cols_;
    }
    block_ = std::clamp<int64_t>(
        kBlockBytes / static_cast<int64_t>(sizeof(T)) / (per_row + columns * cols_), 1, p.rows);
    int64_t size = 0;
    for (size_t i = 0; i < n; ++i) {
      const Node& node = p.nodes[i];
      const bool column = node.kind == Kind::kColumn && block_ > 1;
      if (i + 1 == n || (!Buffered(node) && !column)) continue;
      offset_[i] = size;
      size += (node.per_row ? 1 : cols_) * block_;
    }
    // + room for two operands spread or flushed. Kept per thread from run
    // to run (no fresh pages).
    static thread_local std::vector<T> scratch;
    const size_t need = static_cast<size_t>(size + 2 * cols_ * block_);
    if (scratch.size() < need) scratch.resize(need);
    scratch_ = scratch.data();
    room_[0] = scratch_ + size;
    room_[1] = room_[0] + cols_ * block_;
    for (size_t i = 0; i < n; ++i) {
      const Node& node = p.nodes[i];
      if (node.kind == Kind::kSplat) {
        T* buf = scratch_ + offset_[i];
        std::fill(buf, buf + (node.per_row ? 1 : cols_) * block_, in_[node.input][0]);
        ptr_[i] = buf;
      } else if (node.kind == Kind::kColumn) {
        if (block_ == 1) {
          ptr_[i] = in_[node.input];
          continue;
        }
        T* buf = scratch_ + offset_[i];
        for (int64_t r = 0; r < block_; ++r) {
          std::memcpy(buf + r * cols_, in_[node.input], cols_ * sizeof(T));
        }
        ptr_[i] = buf;
      }
    }
  }

  void Run(int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; r += block_) Block(r, std::min(block_, r1 - r));
  }

 private:
  // What the scratch buffers of a block of this many bytes hold at most.
  static constexpr int64_t kBlockBytes = 32 * 1024;

  // Whether a node (not the root) needs a buffer of its own for its values.
  static bool Buffered(const Node& node) {
    const bool in_place = node.kind == Kind::kRowsInput || node.kind == Kind::kRowValues ||
                          node.kind == Kind::kColumn || node.kind == Kind::kRowBroadcast;
    return !in_place && node.output < 0;
  }

  // Rows [r, r + rows).
  void Block(int64_t r, int64_t rows) {
    const size_t n = p_.nodes.size();
    for (size_t i = 0; i < n; ++i) {
      const Node& node = p_.nodes[i];
      T* buf = i + 1 == n         ? out_ + r * cols_
               : node.output >= 0 ? others_[node.output] + r * cols_
               : offset_[i] >= 0  ? scratch_ + offset_[i]
                                  : nullptr;
      const int64_t count = node.per_row ? rows : rows * cols_;
      switch (node.kind) {
        case Kind::kRowsInput:
          ptr_[i] = in_[node.input] + r * cols_;
          continue;
        case Kind::kRowValues:
          ptr_[i] = in_[node.input] + r;
          continue;
        case Kind::kSplat:
        case Kind::kColumn:
          continue;
        case Kind::kRowBroadcast:  // the rows' values, spread only where an op needs them
          ptr_[i] = ptr_[node.a];
          spread_[i] = false;
          continue;
        case Kind::kReduce: {
          // (A row value's broadcast is spread first: its reduction
          // folds the spread row, as the unfused reduce does.)
          const T* rows_in = spread_[node.a] ? ptr_[node.a] : Spread(node.a, rows, room_[0]);
          for (int64_t k = 0; k < rows; ++k) Reduce(node, rows_in + k * cols_, buf + k);
          break;
        }
        case Kind::kBinary:
          Binary(node, buf, rows, count);
          break;
        case Kind::kUnary:
          elementwise::UnaryFloatKernel<T>(node.op, Operand(node, 0, rows, count), buf, count);
          break;
      }
      if (node.flush && node.kind != Kind::kReduce) FlushDenormalsInPlace(p_.type, buf, count);
      ptr_[i] = buf;
    }
  }

  void Binary(const Node& node, T* buf, int64_t rows, int64_t count) {
    const bool spread_a = spread_[node.a], spread_b = spread_[node.b];
    if (!node.flush && spread_a != spread_b && IsArithmetic(node.op)) {
      const T* row = spread_a ? ptr_[node.a] : ptr_[node.b];
      const T* s = spread_a ? ptr_[node.b] : ptr_[node.a];
      for (int64_t k = 0; k < rows; ++k) {
        ArithmeticWithScalar<T>(node.op, !spread_a, row + k * cols_, s[k], buf + k * cols_, cols_);
      }
      return;
    }
    elementwise::BinaryFloatKernel<T>(node.op, Operand(node, 0, rows, count),
                                      Operand(node, 1, rows, count), buf, count);
  }

  // Whether node a's values hold no subnormals under --denormals=flush:
  // flushed results, and arithmetic's (MXCSR's FTZ). Inputs and the ops
  // that keep subnormals (negate, abs) may hold them.
  bool Clean(int32_t a) const {
    const Node& n = p_.nodes[a];
    if (n.kind == Kind::kRowBroadcast) return Clean(n.a);
    return n.flush || (n.kind == Kind::kBinary && IsArithmetic(n.op));
  }

  // Node a's values (a row value's broadcast) spread over their rows in `to`.
  T* Spread(int32_t a, int64_t rows, T* to) const {
    for (int64_t k = 0; k < rows; ++k) std::fill(to + k * cols_, to + (k + 1) * cols_, ptr_[a][k]);
    return to;
  }

  // Operand `which` of `node` as `count` values over the block's rows: a
  // row value's broadcast spread over its rows; flushed first where the
  // unfused kernel would flush it and it may hold subnormals. Only unary
  // math, maximum and minimum flush here: MXCSR reads arithmetic's
  // operands alike.
  const T* Operand(const Node& node, int which, int64_t rows, int64_t count) {
    const int32_t a = which == 0 ? node.a : node.b;
    const bool flush = flush_operand_[&node - p_.nodes.data()] & (1 << which);
    if (spread_[a] && !flush) return ptr_[a];
    T* copy = room_[which];
    if (spread_[a]) {
      std::memcpy(copy, ptr_[a], count * sizeof(T));
    } else {
      Spread(a, rows, copy);
    }
    if (flush) FlushDenormalsInPlace(p_.type, copy, count);
    return copy;
  }

  void Reduce(const Node& node, const T* row, T* out) {
    const T init = in_[node.input][0];
    switch (node.op) {
      case Opcode::kAdd:
        *out = reduction::Apply<Opcode::kAdd>(init, reduction::FoldRow<Opcode::kAdd>(row, cols_));
        break;
      case Opcode::kMultiply:
        *out = reduction::Apply<Opcode::kMultiply>(
            init, reduction::FoldRow<Opcode::kMultiply>(row, cols_));
        break;
      case Opcode::kMaximum:
        *out = reduction::Apply<Opcode::kMaximum>(init,
                                                  reduction::FoldRow<Opcode::kMaximum>(row, cols_));
        break;
      default:
        *out = reduction::Apply<Opcode::kMinimum>(init,
                                                  reduction::FoldRow<Opcode::kMinimum>(row, cols_));
        break;
    }
    if (node.flush) FlushDenormalsInPlace(p_.type, out, 1);
  }

  const RowProgram& p_;
  absl::Span<const T* const> in_;
  T* out_;
  absl::Span<T* const> others_;  // the other outputs
  int64_t cols_;
  int64_t block_ = 1;  // rows per block
  std::vector<const T*> ptr_;
  std::vector<bool> spread_;  // false: ptr_ holds one value per row
  std::vector<uint8_t> flush_operand_;
  std::vector<int64_t> offset_;
  T* scratch_ = nullptr;
  T* room_[2] = {};
};

template <typename T>
void RunTyped(const RowProgram& p, absl::Span<const Value* const> inputs, T* out,
              absl::InlinedVector<Value, 4>& others) {
  std::vector<const T*> in(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) in[i] = inputs[i]->array().typed<T>();
  absl::InlinedVector<T*, 4> other;
  for (Value& v : others) other.push_back(v.mutable_array().typed<T>());
  const int64_t min_rows = std::max<int64_t>(1, kMinPartElements / p.cols);
  ParallelRows(p.rows, min_rows, [&](int64_t r0, int64_t r1) {
    RowRunner<T> runner(p, in, out, other);
    runner.Run(r0, r1);
  });
}

}  // namespace

// program ::= the region grown from root through operands all of whose
//             users are in it: rows ops, per-row ops, minor reductions,
//             broadcasts of per-row values, columns and scalars, and the
//             reshapes between per-row shapes
std::unique_ptr<RowProgram> MatchRowProgram(
    const Instruction& root, bool flush_denormals,
    const std::function<bool(const Instruction&)>& joinable,
    const std::function<int64_t(const Instruction&)>& position,
    std::vector<const Instruction*>* members, std::vector<const Instruction*>* inputs,
    std::vector<const Instruction*>* outputs) {
  const Shape& shape = root.shape();
  if (!shape.IsArray() || shape.rank() < 1 ||
      (shape.element_type() != PrimitiveType::kF32 &&
       shape.element_type() != PrimitiveType::kF64) ||
      !root.control_predecessors().empty()) {
    return nullptr;
  }
  const int64_t cols = shape.dims().back();
  if (cols < kMinCols || cols > kMaxCols || shape.ElementCount() < 2 * cols) return nullptr;
  Matcher matcher(shape, flush_denormals);
  const Role root_role = matcher.RoleOf(root);
  if (root_role != Role::kBinary && root_role != Role::kUnary) return nullptr;
  const int64_t root_at = position(root);
  absl::flat_hash_set<const Instruction*> region = {&root};
  std::vector<const Instruction*> order = {&root};
  outputs->clear();
  for (bool grew = true; grew;) {
    grew = false;
    for (size_t i = 0; i < order.size(); ++i) {
      const Instruction* m = order[i];
      if (!Matcher::ReadsNodes(matcher.RoleOf(*m))) continue;
      for (const Instruction* p : m->operands()) {
        if (region.contains(p) || p->is_root() || !p->control_predecessors().empty() ||
            !joinable(*p)) {
          continue;
        }
        const Role role = matcher.RoleOf(*p);
        if (role == Role::kNone) continue;
        bool users_in = true, read_after = true;
        for (const Instruction* u : p->users()) {
          if (region.contains(u)) continue;
          users_in = false;
          read_after = read_after && position(*u) > root_at;
        }
        // An output: a rows op the program computes anyway, read later.
        const bool output =
            !users_in && read_after && (role == Role::kBinary || role == Role::kUnary) &&
            matcher.IsRows(p->shape()) && static_cast<int>(outputs->size()) < kMaxRowOutputs;
        if (!users_in && role != Role::kSplat && !output) continue;
        if (output) outputs->push_back(p);
        region.insert(p);
        order.push_back(p);
        grew = true;
      }
    }
  }
  std::sort(outputs->begin(), outputs->end(), [&](const Instruction* a, const Instruction* b) {
    return position(*a) < position(*b);
  });
  inputs->clear();
  std::unique_ptr<RowProgram> program = matcher.Build(root, region, *outputs, inputs);
  if (program == nullptr) return nullptr;
  // A splat read outside too is still computed there (each group its own).
  *members = std::move(order);
  return program;
}

absl::StatusOr<Value> RunRowProgram(const RowProgram& program, const Shape& shape,
                                    absl::Span<const Value* const> inputs,
                                    const std::vector<bool>& reusable,
                                    absl::Span<const Shape* const> output_shapes,
                                    absl::InlinedVector<Value, 4>* outputs) {
  int64_t reuse = -1;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Value* v = inputs[i];
    if (v == nullptr || !v->is_array() || v->array().element_type() != program.type) {
      return absl::InvalidArgumentError("a fused input has the wrong type");
    }
  }
  for (const Node& node : program.nodes) {
    const int64_t want = node.kind == Kind::kRowsInput   ? program.rows * program.cols
                         : node.kind == Kind::kRowValues ? program.rows
                         : node.kind == Kind::kColumn    ? program.cols
                         : node.kind == Kind::kSplat || node.kind == Kind::kReduce ? 1
                                                                                   : -1;
    if (want >= 0 && inputs[node.input]->array().element_count() != want) {
      return absl::InvalidArgumentError("a fused input has the wrong shape");
    }
    if (node.kind == Kind::kRowsInput && reuse < 0 && reusable[node.input] &&
        inputs[node.input]->unique()) {
      reuse = node.input;
    }
  }
  absl::StatusOr<Value> result =
      reuse >= 0 ? TakeOrNewArray(*inputs[reuse], true, shape) : NewArrayUninitialized(shape);
  if (!result.ok()) return result.status();
  outputs->clear();
  for (const Shape* s : output_shapes) {
    if (!s->IsArray() || s->element_type() != program.type || s->dims() != shape.dims()) {
      return absl::InternalError("a row program's output has the wrong shape");
    }
    absl::StatusOr<Value> fresh = NewArrayUninitialized(*s);
    if (!fresh.ok()) return fresh.status();
    outputs->push_back(*std::move(fresh));
  }
  if (program.type == PrimitiveType::kF32) {
    RunTyped<float>(program, inputs, result->mutable_array().typed<float>(), *outputs);
  } else {
    RunTyped<double>(program, inputs, result->mutable_array().typed<double>(), *outputs);
  }
  return result;
}

}  // namespace hlo
