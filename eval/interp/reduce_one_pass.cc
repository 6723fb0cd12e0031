#include "eval/interp/reduce_one_pass.h"

#include <algorithm>
#include <memory>
#include <optional>
#include <type_traits>

#include "absl/container/inlined_vector.h"
#include "eval/interp/reduce_fold.h"
#include "eval/runtime/parallel.h"
#include "eval/runtime/scratch_buffer.h"
#include "eval/type_dispatch.h"
#include "eval/vector_clones.h"

namespace hlo {
namespace {

using reduction::Apply;

// Rows of a leaf of the column tree (PairwiseReduce's kLeafRows): a
// column accumulates at most this many rows in turn, then leaves combine
// as a balanced tree.
constexpr int64_t kLeafRows = 32;
// Below this many elements the operand is one part.
constexpr int64_t kMinParallelElements = int64_t{1} << 18;
// Below this many elements a lone reduce of everything keeps the plain
// loop (LoneReduceGains): the pass's tree over the parts is not the loop's
// order, so the switch stays where the bits already change.
constexpr int64_t kMinLoneAllElements = int64_t{1} << 22;
// The piece of a row every reduction takes in turn: 4 KiB, so that it is
// read from memory once and from L1 by the others, and the fetch of the
// next overlaps their work.
constexpr int64_t kPieceBytes = 4 * 1024;

// dst[k] = dst[k] op src[k]: the column accumulation, bound by its
// stores, so on the widest registers the machine has.
template <Opcode op, typename T>
HLO_VECTOR_CLONES void Accumulate(T* __restrict dst, const T* __restrict src, int64_t n) {
  for (int64_t k = 0; k < n; ++k) dst[k] = Apply<op>(dst[k], src[k]);
}

// dst[k] = src[k] op src[ld + k] op ... op src[(rows - 1) ld + k] for k < n,
// rows >= 1, row by row as a copy and Accumulates would, but with a block of
// columns held in registers across the rows instead of stored per row (a
// batch norm's channel sums: rows of 64 columns, a call per row, ran at
// half the speed of rows of 256). `final`: dst[k] = init op that instead,
// the reduce's output (the fold Final would make of a lone leaf's partials).
template <Opcode op, typename T, bool final = false>
HLO_VECTOR_CLONES void AccumulateRows(T* __restrict dst, const T* __restrict src, int64_t rows,
                                      int64_t ld, int64_t n, T init = T{}) {
  constexpr int64_t kCols = 128 / sizeof(T);  // 4 AVX2 or 2 AVX-512 registers
  int64_t c = 0;
  for (; c + kCols <= n; c += kCols) {
    T acc[kCols];
    for (int64_t k = 0; k < kCols; ++k) acc[k] = src[c + k];
    for (int64_t r = 1; r < rows; ++r) {
      const T* row = src + r * ld + c;
      for (int64_t k = 0; k < kCols; ++k) acc[k] = Apply<op>(acc[k], row[k]);
    }
    for (int64_t k = 0; k < kCols; ++k) dst[c + k] = final ? Apply<op>(init, acc[k]) : acc[k];
  }
  if (c == n) return;
  for (int64_t k = c; k < n; ++k) dst[k] = src[k];
  for (int64_t r = 1; r < rows; ++r) {
    const T* row = src + r * ld;
    for (int64_t k = c; k < n; ++k) dst[k] = Apply<op>(dst[k], row[k]);
  }
  if constexpr (final) {
    for (int64_t k = c; k < n; ++k) dst[k] = Apply<op>(init, dst[k]);
  }
}

// AccumulateRows of the squares (x - v)^2 (or (v - x)^2) of rows of x,
// v holding the columns' values: each difference and square rounded, as
// the subtract and multiply that make them (no FMA: -ffp-contract=off), for f32 and f64 column
// sums (a batch norm's variance).
template <typename T, bool v_first>
HLO_VECTOR_CLONES void AccumulateSquaredDifferences(T* __restrict dst, const T* __restrict x,
                                                    const T* __restrict v, int64_t rows, int64_t ld,
                                                    int64_t n) {
  auto square = [](T a, T b) {
    const T d = v_first ? b - a : a - b;
    return d * d;
  };
  constexpr int64_t kCols = 128 / sizeof(T);
  int64_t c = 0;
  for (; c + kCols <= n; c += kCols) {
    T acc[kCols];
    for (int64_t k = 0; k < kCols; ++k) acc[k] = square(x[c + k], v[c + k]);
    for (int64_t r = 1; r < rows; ++r) {
      const T* row = x + r * ld + c;
      for (int64_t k = 0; k < kCols; ++k) acc[k] = acc[k] + square(row[k], v[c + k]);
    }
    for (int64_t k = 0; k < kCols; ++k) dst[c + k] = acc[k];
  }
  if (c == n) return;
  for (int64_t k = c; k < n; ++k) dst[k] = square(x[k], v[k]);
  for (int64_t r = 1; r < rows; ++r) {
    const T* row = x + r * ld;
    for (int64_t k = c; k < n; ++k) dst[k] = dst[k] + square(row[k], v[k]);
  }
}

// out[k] = (x[k] - v)^2 (or (v - x[k])^2) for k < n: a row's squares, each
// difference and square rounded as the subtract and multiply round them.
template <typename T, bool v_first>
HLO_VECTOR_CLONES void SquaresOfRow(const T* __restrict x, T v, T* __restrict out, int64_t n) {
  for (int64_t k = 0; k < n; ++k) {
    const T d = v_first ? v - x[k] : x[k] - v;
    out[k] = d * d;
  }
}

// Which part of the operand one core's part covers.
struct Part {
  int64_t row_lo = 0, row_hi = 0;  // a node of the column tree
  int64_t col_lo = 0, col_hi = 0;
};

// One reduce's accumulators over one part.
template <typename T>
class PartReduce {
 public:
  virtual ~PartReduce() = default;
  // Row r's columns [c, c + n) at src; `first`: the first row of its leaf,
  // whose column partials go to tree level `level`.
  virtual void Piece(const T* src, int64_t r, int64_t c, int64_t n, bool first, int level) = 0;
  virtual void EndRow(int64_t r) = 0;
  // A column reduction's whole leaf: `rows` rows at src, ld apart, columns
  // [c, c + n), as Piece row by row would take them.
  virtual void Leaf(const T* src, int64_t rows, int64_t ld, int64_t c, int64_t n, int level) = 0;
  // Leaf of a column sum over the squares of SquaredDifferences: x at the
  // leaf's first row and column c, v at column c.
  virtual void LeafOfSquares(const SquaredDifferences& sq, const T* x, const T* v, int64_t rows,
                             int64_t ld, int64_t c, int64_t n, int level) = 0;
  virtual ReduceAxes axes() const = 0;
  // Column partials: level += level + 1 (the right half's).
  virtual void Merge(int level) = 0;
  virtual void EndPart() = 0;
  // This part's partials op= those of `right`, the part after it (the
  // same columns when parts split rows, the same rows when they split
  // columns).
  virtual void Absorb(const PartReduce& right) = 0;
  // Writes the outputs this part holds once everything is absorbed.
  virtual void Final() = 0;
  // Whether its accumulators could be allocated (else the reason).
  virtual absl::Status Allocated() const = 0;
};

// The tree levels a column reduction of n rows keeps live (Range below).
int Levels(int64_t n) {
  if (n <= kLeafRows) return 1;
  const int64_t left = (n + 1) / 2;
  return std::max(Levels(left), 1 + Levels(n - left));
}

template <Opcode op, typename T>
class TypedPartReduce final : public PartReduce<T> {
 public:
  // `alone`: no other part's partials combine with this part's (it is the
  // only part, or the parts split the columns).
  TypedPartReduce(ReduceAxes axes, T init, T* out, const T* x, const Part& part, bool split_columns,
                  bool alone)
      : axes_(axes),
        init_(init),
        out_(out),
        col_lo_(part.col_lo),
        width_(part.col_hi - part.col_lo),
        split_columns_(split_columns),
        lone_leaf_(axes == ReduceAxes::kColumns && alone &&
                   part.row_hi - part.row_lo <= kLeafRows) {
    if (axes_ == ReduceAxes::kColumns) {
      // (An address only: with a source, x is a piece's buffer.)
      allocated_ = PlaceLevels(Levels(part.row_hi - part.row_lo),
                               reinterpret_cast<uintptr_t>(x) + part.col_lo * sizeof(T));
    }
    stream_.Reset();
  }

  void Piece(const T* src, int64_t, int64_t c, int64_t n, bool first, int level) override {
    if (axes_ != ReduceAxes::kColumns) {
      stream_.Add(src, n);
      return;
    }
    T* dst = level_[level] + (c - col_lo_);
    if (first) {
      std::copy(src, src + n, dst);
    } else {
      Accumulate<op>(dst, src, n);
    }
  }

  void Leaf(const T* src, int64_t rows, int64_t ld, int64_t c, int64_t n, int level) override {
    if (lone_leaf_) {
      AccumulateRows<op, T, true>(out_ + c, src, rows, ld, n, init_);
      leaf_wrote_out_ = true;
      return;
    }
    AccumulateRows<op>(level_[level] + (c - col_lo_), src, rows, ld, n);
  }

  void LeafOfSquares(const SquaredDifferences& sq, const T* x, const T* v, int64_t rows, int64_t ld,
                     int64_t c, int64_t n, int level) override {
    if constexpr (op == Opcode::kAdd && std::is_floating_point_v<T>) {
      T* dst = level_[level] + (c - col_lo_);
      if (sq.v_first) {
        AccumulateSquaredDifferences<T, true>(dst, x, v, rows, ld, n);
      } else {
        AccumulateSquaredDifferences<T, false>(dst, x, v, rows, ld, n);
      }
    }
  }

  ReduceAxes axes() const override { return axes_; }

  void EndRow(int64_t r) override {
    if (axes_ != ReduceAxes::kRows) return;
    // (Rows are never split: RunOnePass keeps a row reduction's parts whole.)
    out_[r] = Apply<op>(init_, stream_.Result());
    stream_.Reset();
  }

  void Merge(int level) override {
    if (axes_ != ReduceAxes::kColumns) return;
    Combine(level_[level], level_[level + 1], width_);
  }

  void EndPart() override {
    if (axes_ == ReduceAxes::kAll) {
      whole_ = stream_.Result();
    } else if (axes_ == ReduceAxes::kColumns && split_columns_ && !leaf_wrote_out_) {
      for (int64_t k = 0; k < width_; ++k) out_[col_lo_ + k] = Apply<op>(init_, level_[0][k]);
    }
  }

  void Absorb(const PartReduce<T>& other) override {
    const auto& right = static_cast<const TypedPartReduce&>(other);
    if (axes_ == ReduceAxes::kAll) {
      whole_ = Apply<op>(whole_, right.whole_);
    } else if (axes_ == ReduceAxes::kColumns && !split_columns_) {
      Combine(level_[0], right.level_[0], width_);
    }
  }

  absl::Status Allocated() const override { return allocated_; }

  void Final() override {
    if (axes_ == ReduceAxes::kAll) {
      out_[0] = Apply<op>(init_, whole_);
    } else if (axes_ == ReduceAxes::kColumns && !split_columns_ && !leaf_wrote_out_) {
      for (int64_t k = 0; k < width_; ++k) out_[k] = Apply<op>(init_, level_[0][k]);
    }
  }

 private:
  // Level k starts 2048 +- 192 ceil(k / 2) bytes past the part's first
  // column modulo 4 KiB: a load and a store in flight whose addresses
  // share their low 12 bits stall on a false dependence (4K aliasing), and
  // rows of 4 KiB multiples would otherwise line up with every level.
  //
  // Scratch, not zeroed: each level's first leaf writes its columns before
  // anything reads them. (Zeroed by make_unique, and past malloc's mmap
  // threshold a fresh mapping each reduce: a split-K dot's partial sums,
  // f32[4,256,128] over dim 0, spent half its 26 us in that memset's page
  // faults.)
  absl::Status PlaceLevels(int levels, uintptr_t first_column) {
    constexpr int64_t kPage = 4096 / sizeof(T) > 0 ? 4096 / sizeof(T) : 1;
    const int64_t chunk = width_ + kPage;
    if (absl::Status st = levels_.Reset(levels * chunk); !st.ok()) return st;
    level_.resize(levels);
    for (int k = 0; k < levels; ++k) {
      T* start = levels_.data() + k * chunk;
      const int64_t delta = (k % 2 ? 192 : -192) * ((k + 1) / 2);
      const uintptr_t want = first_column + 2048 + delta;
      level_[k] = start + (want - reinterpret_cast<uintptr_t>(start)) % 4096 / sizeof(T);
    }
    return absl::OkStatus();
  }

  static void Combine(T* dst, const T* part, int64_t n) { Accumulate<op>(dst, part, n); }

  const ReduceAxes axes_;
  const T init_;
  T* const out_;
  const int64_t col_lo_, width_;
  const bool split_columns_;
  // A column reduction whose one leaf holds every row of the outputs it
  // makes: Leaf writes them, init folded in, not a level that Final (or
  // EndPart) then folds into them, a pass less (XLA:GPU's split-K dots sum
  // 4-8 partial products so; README's figures).
  const bool lone_leaf_;
  bool leaf_wrote_out_ = false;
  reduction::RowStream<op, T> stream_;  // kRows: the row's; kAll: the part's
  // (arrays, not vectors: std::vector<bool> has no data())
  ScratchBuffer<T> levels_;  // kColumns: width_ per tree level, in
  std::vector<T*> level_;    // ... at these places
  T whole_{};                // kAll: the part's fold
  absl::Status allocated_;
};

template <typename T>
std::unique_ptr<PartReduce<T>> MakePartReduce(const OnePassReduce& r, const T* x, const Part& part,
                                              bool split_columns, bool alone) {
  std::unique_ptr<PartReduce<T>> made;
  reduction::DispatchReducer(r.op, [&](auto o) {
    if constexpr (reduction::kOpOnType<o.value, T>) {
      made = std::make_unique<TypedPartReduce<o.value, T>>(
          r.axes, r.init->typed<T>()[0], r.out->typed<T>(), x, part, split_columns, alone);
    }
  });
  return made;
}

// Rows [lo, hi) of a part as PairwiseReduce's Range: leaves of at most
// kLeafRows rows in order, halves combined level by level.
//
// With a source the operand is made as it is read: a leaf at a time into
// `made` where the leaf spans whole rows of at most kMadeElements, else a
// piece at a time.
template <typename T>
class PartRunner {
 public:
  PartRunner(const T* x, int64_t cols, const Part& part,
             std::vector<std::unique_ptr<PartReduce<T>>>& reduces)
      : x_(x), cols_(cols), part_(part), reduces_(reduces) {}
  PartRunner(OnePassSource* source, int64_t part_index, T* made, int64_t cols, const Part& part,
             std::vector<std::unique_ptr<PartReduce<T>>>& reduces)
      : x_(nullptr),
        source_(source),
        part_index_(part_index),
        made_(made),
        cols_(cols),
        part_(part),
        reduces_(reduces) {}

  absl::Status Run() {
    // (The source offers them for one column or row sum by add only.)
    if (source_ != nullptr && reduces_.size() == 1) {
      squares_ = source_->squared_differences();
      const ReduceAxes want =
          squares_ && squares_->per_row ? ReduceAxes::kRows : ReduceAxes::kColumns;
      if (reduces_[0]->axes() != want) squares_.reset();
    }
    Range(part_.row_lo, part_.row_hi, 0);
    for (auto& r : reduces_) r->EndPart();
    return status_;
  }

  static constexpr int64_t kMadeElements = int64_t{1} << 14;

 private:
  // Row `row` of the leaf [lo, hi) from column c on, from the source: in
  // the leaf made whole, or made here as one piece of n.
  const T* MadeRowAt(int64_t lo, int64_t row, int64_t c, int64_t n, bool leaf_made) {
    if (leaf_made) return made_ + (row - lo) * cols_ + c;
    if (status_.ok()) status_ = source_->Fill(part_index_, row * cols_ + c, n, made_);
    return made_;
  }

  // A row sum's leaf of SquaredDifferences: each row's squares made a
  // piece at a time into `made`, folded as the made operand's pieces are.
  void RowLeafOfSquares(int64_t lo, int64_t hi, int level) {
    constexpr int64_t kPiece = kPieceBytes / sizeof(T);
    const T* x = static_cast<const T*>(squares_->x);
    const T* v = static_cast<const T*>(squares_->v);
    for (int64_t row = lo; row < hi; ++row) {
      for (int64_t c = part_.col_lo; c < part_.col_hi; c += kPiece) {
        const int64_t n = std::min(kPiece, part_.col_hi - c);
        if (squares_->v_first) {
          SquaresOfRow<T, true>(x + row * cols_ + c, v[row], made_, n);
        } else {
          SquaresOfRow<T, false>(x + row * cols_ + c, v[row], made_, n);
        }
        reduces_[0]->Piece(made_, row, c, n, row == lo, level);
      }
      reduces_[0]->EndRow(row);
    }
  }

  void Range(int64_t lo, int64_t hi, int level) {
    if (hi - lo <= kLeafRows) {
      constexpr int64_t kPiece = kPieceBytes / sizeof(T);
      if (squares_ && squares_->per_row) {
        if constexpr (std::is_floating_point_v<T>) RowLeafOfSquares(lo, hi, level);
        return;
      }
      if (squares_) {
        const T* x = static_cast<const T*>(squares_->x) + lo * cols_;
        const T* v = static_cast<const T*>(squares_->v);
        for (int64_t c = part_.col_lo; c < part_.col_hi; c += kPiece) {
          const int64_t n = std::min(kPiece, part_.col_hi - c);
          reduces_[0]->LeafOfSquares(*squares_, x + c, v + c, hi - lo, cols_, c, n, level);
        }
        return;
      }
      const bool whole_rows = part_.col_lo == 0 && part_.col_hi == cols_;
      const bool leaf_made = source_ != nullptr && whole_rows && (hi - lo) * cols_ <= kMadeElements;
      if (leaf_made && status_.ok()) {
        status_ = source_->Fill(part_index_, lo * cols_, (hi - lo) * cols_, made_);
      }
      // One column reduction over rows in memory: a leaf at a time.
      if (reduces_.size() == 1 && reduces_[0]->axes() == ReduceAxes::kColumns &&
          (source_ == nullptr || leaf_made)) {
        const T* rows = source_ != nullptr ? made_ : x_ + lo * cols_;
        for (int64_t c = part_.col_lo; c < part_.col_hi; c += kPiece) {
          const int64_t n = std::min(kPiece, part_.col_hi - c);
          reduces_[0]->Leaf(rows + c, hi - lo, cols_, c, n, level);
        }
        return;
      }
      for (int64_t row = lo; row < hi; ++row) {
        if (source_ != nullptr) {
          for (int64_t c = part_.col_lo; c < part_.col_hi; c += kPiece) {
            const int64_t n = std::min(kPiece, part_.col_hi - c);
            const T* src = MadeRowAt(lo, row, c, n, leaf_made);
            for (auto& r : reduces_) r->Piece(src, row, c, n, row == lo, level);
          }
          for (auto& r : reduces_) r->EndRow(row);
          continue;
        }
        const T* src = x_ + row * cols_;
        for (int64_t c = part_.col_lo; c < part_.col_hi; c += kPiece) {
          const int64_t n = std::min(kPiece, part_.col_hi - c);
          // The next piece, fetched while the reductions after the first
          // work on this one from L1 (the hardware's prefetch runs only a
          // little ahead of the first's loads).
          const T* next = nullptr;
          int64_t next_n = 0;
          if (c + kPiece < part_.col_hi) {
            next = src + c + kPiece;
            next_n = std::min(kPiece, part_.col_hi - c - kPiece);
          } else if (row + 1 < part_.row_hi) {
            next = x_ + (row + 1) * cols_ + part_.col_lo;
            next_n = std::min(kPiece, part_.col_hi - part_.col_lo);
          }
          const size_t m = reduces_.size();
          const int64_t lines =
              next != nullptr && m > 1 ? (next_n * static_cast<int64_t>(sizeof(T)) + 63) / 64 : 0;
          const int64_t parts = static_cast<int64_t>(m);
          for (int64_t k = 0; k < parts; ++k) {
            reduces_[k]->Piece(src + c, row, c, n, row == lo, level);
            const char* bytes = reinterpret_cast<const char*>(next);
            for (int64_t l = lines * k / parts; l < lines * (k + 1) / parts; ++l) {
              __builtin_prefetch(bytes + 64 * l);
            }
          }
        }
        for (auto& r : reduces_) r->EndRow(row);
      }
      return;
    }
    const int64_t mid = lo + (hi - lo + 1) / 2;
    Range(lo, mid, level);
    Range(mid, hi, level + 1);
    for (auto& r : reduces_) r->Merge(level);
  }

  const T* x_;
  OnePassSource* source_ = nullptr;
  int64_t part_index_ = 0;
  T* made_ = nullptr;                          // kMadeElements, or a piece
  std::optional<SquaredDifferences> squares_;  // the source's, read from x
  const int64_t cols_;
  const Part part_;
  std::vector<std::unique_ptr<PartReduce<T>>>& reduces_;
  absl::Status status_;
};

// The nodes `depth` levels down the column tree over rows [lo, hi) (fewer
// where a node is a leaf), in order; `merges` gets (left, right) part pairs
// in the order the tree combines them.
void SplitRows(int64_t lo, int64_t hi, int depth, std::vector<Part>& parts,
               std::vector<std::pair<size_t, size_t>>& merges, size_t* first) {
  *first = parts.size();
  if (depth == 0 || hi - lo <= kLeafRows) {
    parts.push_back(Part{lo, hi, 0, 0});
    return;
  }
  const int64_t mid = lo + (hi - lo + 1) / 2;
  size_t left = 0, right = 0;
  SplitRows(lo, mid, depth - 1, parts, merges, &left);
  SplitRows(mid, hi, depth - 1, parts, merges, &right);
  merges.emplace_back(left, right);
}

// How the pass cuts the operand into the cores' parts, and in what order
// the parts' partials combine.
struct PartPlan {
  std::vector<Part> parts;
  std::vector<std::pair<size_t, size_t>> merges;
  bool split_columns = false;
};

PartPlan PlanParts(int64_t rows, int64_t cols, absl::Span<const OnePassReduce> reduces) {
  const int64_t n = rows * cols;
  const int64_t cores = CoreCount();
  PartPlan plan;
  if (cores > 1 && n >= kMinParallelElements && rows >= 2 * kLeafRows) {
    int depth = 0;
    while ((int64_t{1} << depth) < cores) ++depth;
    size_t root = 0;
    SplitRows(0, rows, depth, plan.parts, plan.merges, &root);
    for (Part& p : plan.parts) p.col_hi = cols;
  } else if (cores > 1 && n >= kMinParallelElements && cols >= 2 * reduction::kPairwiseBlock &&
             std::none_of(reduces.begin(), reduces.end(),
                          [](const OnePassReduce& r) { return r.axes == ReduceAxes::kRows; })) {
    // Few long rows: each core takes whole pairwise blocks of columns.
    // (Not for a row reduction: a row folded in two halves, then the
    // halves combined, is not FoldRow's order, and a sibling row sum must
    // give the bits of the same reduce run alone.)
    plan.split_columns = true;
    const int64_t blocks = (cols + reduction::kPairwiseBlock - 1) / reduction::kPairwiseBlock;
    const int64_t count = std::min(cores, blocks);
    const int64_t step = (blocks + count - 1) / count * reduction::kPairwiseBlock;
    for (int64_t c = 0; c < cols; c += step) {
      plan.parts.push_back(Part{0, rows, c, std::min(cols, c + step)});
      if (plan.parts.size() > 1) plan.merges.emplace_back(0, plan.parts.size() - 1);
    }
  } else {
    plan.parts.push_back(Part{0, rows, 0, cols});
  }
  return plan;
}

// Runs the parts, on the cores, then combines them. x: the operand in
// memory, or null with a source. (The parts, and so the results, are the
// same on one core. Threaded from kMinParallelElements: a batch norm's
// channel sums of f32[2048,256] took 44 us on one core, 13 split, each
// half in its core's L2; f32[1024,256] 10 against 9.)
template <typename T>
absl::Status RunOnePass(const T* x, OnePassSource* source, int64_t rows, int64_t cols,
                        absl::Span<const OnePassReduce> reduces) {
  const PartPlan plan = PlanParts(rows, cols, reduces);
  const int64_t count = static_cast<int64_t>(plan.parts.size());
  std::vector<std::vector<std::unique_ptr<PartReduce<T>>>> state(plan.parts.size());
  std::vector<absl::Status> failures(plan.parts.size());
  if (source != nullptr) {
    if (absl::Status st = source->Prepare(count); !st.ok()) return st;
  }
  auto run = [&](int64_t b, int64_t e) {
    std::unique_ptr<T[]> made;
    // (Not zeroed: every element is made before it is read.)
    if (source != nullptr) made = std::make_unique_for_overwrite<T[]>(PartRunner<T>::kMadeElements);
    for (int64_t p = b; p < e; ++p) {
      // The levels' placement looks at where the rows are read from.
      const T* read_at = source != nullptr ? made.get() : x;
      for (const OnePassReduce& r : reduces) {
        state[p].push_back(MakePartReduce<T>(r, read_at, plan.parts[p], plan.split_columns,
                                             plan.split_columns || count == 1));
        if (failures[p].ok()) failures[p] = state[p].back()->Allocated();
      }
      if (!failures[p].ok()) continue;
      if (source != nullptr) {
        failures[p] = PartRunner<T>(source, p, made.get(), cols, plan.parts[p], state[p]).Run();
      } else {
        failures[p] = PartRunner<T>(x, cols, plan.parts[p], state[p]).Run();
      }
    }
  };
  ParallelRows(count, 1, run);
  for (const absl::Status& st : failures) {
    if (!st.ok()) return st;
  }
  for (const auto& [left, right] : plan.merges) {
    for (size_t k = 0; k < reduces.size(); ++k) state[left][k]->Absorb(*state[right][k]);
  }
  // Part 0 now holds every partial (over split columns each part has
  // written its own columns already).
  for (size_t k = 0; k < reduces.size(); ++k) state[0][k]->Final();
  return absl::OkStatus();
}

// Whether every reduce fits a pass over rows x cols of type t.
bool ReducesFit(PrimitiveType t, int64_t rows, int64_t cols,
                absl::Span<const OnePassReduce> reduces) {
  if (rows < 1 || cols < 1) return false;
  for (const OnePassReduce& r : reduces) {
    const int64_t want = r.axes == ReduceAxes::kRows      ? rows
                         : r.axes == ReduceAxes::kColumns ? cols
                                                          : 1;
    if (!OnePassSupports(t, r.op) || r.init == nullptr || r.out == nullptr ||
        r.init->element_type() != t || r.init->element_count() != 1 || r.out->element_type() != t ||
        r.out->element_count() != want) {
      return false;
    }
  }
  return true;
}

}  // namespace

std::optional<OnePassForm> OnePassFormOf(absl::Span<const int64_t> in_dims,
                                         absl::Span<const bool> reduced) {
  // The runs of reduced and kept dims (extent-1 dims belong to neither).
  OnePassForm form;
  int runs = 0;
  bool last_reduced = false, first_reduced = false, any_reduced = false;
  int64_t lead = 1, trail = 1;
  for (size_t d = 0; d < in_dims.size(); ++d) {
    if (in_dims[d] == 0) return std::nullopt;
    if (in_dims[d] == 1) continue;
    if (runs == 0 || reduced[d] != last_reduced) {
      ++runs;
      if (runs == 1) first_reduced = reduced[d];
      last_reduced = reduced[d];
    }
    any_reduced |= reduced[d];
    (runs == 1 ? lead : trail) *= in_dims[d];
  }
  if (runs > 2 || (runs > 0 && !any_reduced)) return std::nullopt;
  if (runs <= 1) {
    form.axes = ReduceAxes::kAll;
    form.rows = 1;
    form.cols = lead;
  } else {
    form.axes = first_reduced ? ReduceAxes::kColumns : ReduceAxes::kRows;
    form.rows = lead;
    form.cols = trail;
  }
  return form;
}

std::optional<OnePassForm> OnePassFormOfReduce(const Instruction& reduce,
                                               absl::Span<const int64_t> in_dims) {
  absl::InlinedVector<bool, 8> reduced(in_dims.size(), false);
  for (int64_t d : reduce.GetInts(AttrKind::kDimensions)) {
    if (d < 0 || d >= static_cast<int64_t>(in_dims.size())) return std::nullopt;
    reduced[d] = true;
  }
  return OnePassFormOf(in_dims, reduced);
}

bool LoneReduceGains(const OnePassForm& form) {
  // Small arrays: the plain loop, without the parts' set-up.
  constexpr int64_t kMinColumnElements = int64_t{1} << 15;
  const int64_t n = form.rows * form.cols;
  // Rows: from where the pass splits across the cores (each row whole in
  // a part, folded as the plain loop folds it: the same bits); f32[256,8192]
  // row sums 0.235 -> 0.20 ms, f32[4096,512] 0.39 -> 0.20.
  const int64_t least = form.axes == ReduceAxes::kColumns ? kMinColumnElements
                        : form.axes == ReduceAxes::kRows  ? kMinParallelElements
                                                          : kMinLoneAllElements;
  return form.cols >= kMinOnePassCols && n >= least;
}

bool OnePassSupports(PrimitiveType type, Opcode op) {
  return reduction::DispatchTypedReducer(type, op, [](auto, auto) {});
}

bool ReduceInOnePass(const Literal& x, int64_t rows, int64_t cols,
                     absl::Span<const OnePassReduce> reduces) {
  const PrimitiveType t = x.element_type();
  if (x.element_count() != rows * cols || !ReducesFit(t, rows, cols, reduces)) return false;
  bool ran = false;
  DispatchType(t, [&](auto tag) {
    using T = typename decltype(tag)::T;
    if constexpr (reduction::kNativeFast<T>) {
      // (Reading memory fails nowhere; where the levels cannot be
      // allocated the caller takes another path.)
      ran = RunOnePass<T>(x.typed<T>(), nullptr, rows, cols, reduces).ok();
    }
  });
  return ran;
}

absl::Status ReduceFromSource(OnePassSource& source, PrimitiveType type, int64_t rows, int64_t cols,
                              absl::Span<const OnePassReduce> reduces) {
  if (!ReducesFit(type, rows, cols, reduces)) {
    return absl::InvalidArgumentError("no one-pass loop for this reduce");
  }
  absl::Status status = absl::InvalidArgumentError("no one-pass loop for this type");
  DispatchType(type, [&](auto tag) {
    using T = typename decltype(tag)::T;
    if constexpr (reduction::kNativeFast<T>) {
      status = RunOnePass<T>(nullptr, &source, rows, cols, reduces);
    }
  });
  return status;
}

}  // namespace hlo
