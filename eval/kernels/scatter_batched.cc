// scatter with any other scalar update computation: the batched
// interpreter (eval/interp/batch_program.h) over many update elements at a time.
//
// Elements are taken in the general evaluator's order (windows in list
// order, each window row-major) into a run of up to BatchProgram::kBlock:
// the current values of the inputs and the update values are copied into
// contiguous blocks, the program runs once over the block, and the results
// are written back. A run ends before an element whose input position is
// already in it, so an element updated twice sees its first update before
// the second one: the bits are those of the element-by-element evaluator.
#include <cstring>

#include "eval/kernels/scatter_internal.h"

namespace hlo {
namespace gather_internal {
namespace {

// Copies one element of `width` bytes.
inline void CopyElement(uint8_t* dst, const uint8_t* src, int64_t width) {
  switch (width) {
    case 1:
      *dst = *src;
      return;
    case 2:
      std::memcpy(dst, src, 2);
      return;
    case 4:
      std::memcpy(dst, src, 4);
      return;
    case 8:
      std::memcpy(dst, src, 8);
      return;
    default:
      std::memcpy(dst, src, width);
      return;
  }
}

// The input positions of the current run: open addressing over a table
// twice the block's size, cleared by generation instead of by a fill.
class PositionSet {
 public:
  PositionSet() : keys_(kSlots), stamp_(kSlots, 0) {}
  // False when `position` is already in the set; else adds it.
  bool Insert(int64_t position) {
    uint64_t h = static_cast<uint64_t>(position) * 0x9E3779B97F4A7C15ull;
    for (size_t i = h >> (64 - kBits);; i = (i + 1) & (kSlots - 1)) {
      if (stamp_[i] != generation_) {
        stamp_[i] = generation_;
        keys_[i] = position;
        return true;
      }
      if (keys_[i] == position) return false;
    }
  }
  void Clear() { ++generation_; }

 private:
  static constexpr int kBits = 11;
  static constexpr size_t kSlots = size_t{1} << kBits;
  static_assert(kSlots >= 2 * BatchProgram::kBlock);
  std::vector<int64_t> keys_;
  std::vector<uint32_t> stamp_;
  uint32_t generation_ = 1;
};

}  // namespace

bool BatchedCombinerFits(const ScatterPlan& p, const BatchProgram& program, Operands ops) {
  const int64_t n = static_cast<int64_t>(p.n);
  if (program.parameter_count() != 2 * n || program.result_count() != n) return false;
  for (int64_t k = 0; k < n; ++k) {
    const PrimitiveType t = ops[k]->array().element_type();
    if (program.parameter_type(k) != t || program.parameter_type(n + k) != t ||
        program.result_type(k) != t) {
      return false;
    }
  }
  return true;
}

absl::Status ApplyBatchedWindows(const ScatterPlan& p, const WindowList& windows,
                                 BatchProgram& program, Operands ops, std::vector<Value>& outs) {
  const size_t n = p.n;
  constexpr int64_t kBlock = BatchProgram::kBlock;
  std::vector<int64_t> width(n);
  std::vector<uint8_t*> out(n);
  std::vector<const uint8_t*> upd(n);
  // Per input k: the block of current values (also the results) and of updates.
  std::vector<std::vector<uint8_t>> cur(n), up(n);
  std::vector<const void*> in_ptrs(2 * n);
  std::vector<void*> out_ptrs(n);
  for (size_t k = 0; k < n; ++k) {
    width[k] = ByteWidth(outs[k].array().element_type());
    out[k] = outs[k].mutable_array().data();
    upd[k] = ops[n + 1 + k]->array().data();
    cur[k].resize(kBlock * width[k]);
    up[k].resize(kBlock * width[k]);
    in_ptrs[k] = cur[k].data();
    in_ptrs[n + k] = up[k].data();
    out_ptrs[k] = cur[k].data();
  }
  std::vector<int64_t> position(kBlock);
  PositionSet seen;
  int64_t m = 0;  // elements in the run
  absl::Status status;
  auto flush = [&] {
    if (m == 0 || !status.ok()) return;
    status = program.Run(in_ptrs, out_ptrs, m);
    if (status.ok()) {
      for (size_t k = 0; k < n; ++k) {
        const int64_t w = width[k];
        for (int64_t i = 0; i < m; ++i) {
          CopyElement(out[k] + position[i] * w, cur[k].data() + i * w, w);
        }
      }
    }
    m = 0;
    seen.Clear();
  };
  auto add = [&](int64_t o, int64_t u) {
    if (m == kBlock || !seen.Insert(o)) {
      flush();
      seen.Insert(o);
    }
    position[m] = o;
    for (size_t k = 0; k < n; ++k) {
      const int64_t w = width[k];
      CopyElement(cur[k].data() + m * w, out[k] + o * w, w);
      CopyElement(up[k].data() + m * w, upd[k] + u * w, w);
    }
    ++m;
  };
  for (size_t w = 0; w < windows.size() && status.ok(); ++w) {
    ForEachRow(p.window_axes, windows.input_base[w], windows.update_base[w],
               [&](int64_t o, int64_t u, int64_t len, int64_t os, int64_t us) {
                 for (int64_t i = 0; i < len; ++i) add(o + i * os, u + i * us);
               });
  }
  flush();
  return status;
}

}  // namespace gather_internal
}  // namespace hlo
