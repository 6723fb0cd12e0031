// Reducers the typed loops do not know (logaddexp, argmax's variadic
// compare-and-select, fusions and calls) through the batched interpreter
// (eval/interp/batch_program.h), vectorised across output positions: a block of
// outputs holds its accumulators side by side, and each reduction step
// gathers the step's operand element of every output in the block into a
// contiguous buffer and runs the program once over the block. Each output
// still folds its elements in the general evaluator's order (row-major
// over the reduced dimensions, starting from the init values), so results
// are bit-identical to it.
#include <cstring>

#include "eval/kernels/reduce_internal.h"
#include "eval/kernels/strided_axes.h"
#include "ir/strings.h"

namespace hlo {
namespace reduction {
namespace {

// Lanes (output positions) per block: large enough that a step's per-call
// costs vanish, small enough that the block's buffers stay in cache.
constexpr int64_t kLanes = 4 * BatchProgram::kBlock;

template <typename U>
void GatherAs(uint8_t* dst, const uint8_t* src, const int64_t* offsets, int64_t n,
              const uint8_t* fill) {
  U f{};
  if (fill) std::memcpy(&f, fill, sizeof(U));
  U* d = reinterpret_cast<U*>(dst);
  const U* s = reinterpret_cast<const U*>(src);
  for (int64_t i = 0; i < n; ++i) d[i] = offsets[i] < 0 ? f : s[offsets[i]];
}

template <typename U>
void ScatterAs(uint8_t* dst, const uint8_t* src, const int64_t* offsets, int64_t n) {
  U* d = reinterpret_cast<U*>(dst);
  const U* s = reinterpret_cast<const U*>(src);
  for (int64_t i = 0; i < n; ++i) d[offsets[i]] = s[i];
}

struct Bytes16 {
  uint64_t lo, hi;
};

}  // namespace

void GatherElements(uint8_t* dst, const uint8_t* src, const int64_t* offsets, int64_t n, int width,
                    const uint8_t* fill) {
  switch (width) {
    case 1:
      GatherAs<uint8_t>(dst, src, offsets, n, fill);
      return;
    case 2:
      GatherAs<uint16_t>(dst, src, offsets, n, fill);
      return;
    case 4:
      GatherAs<uint32_t>(dst, src, offsets, n, fill);
      return;
    case 8:
      GatherAs<uint64_t>(dst, src, offsets, n, fill);
      return;
    case 16:
      GatherAs<Bytes16>(dst, src, offsets, n, fill);
      return;
    default:
      for (int64_t i = 0; i < n; ++i) {
        std::memcpy(dst + i * width, offsets[i] < 0 ? fill : src + offsets[i] * width, width);
      }
  }
}

void ScatterElements(uint8_t* dst, const uint8_t* src, const int64_t* offsets, int64_t n,
                     int width) {
  switch (width) {
    case 1:
      ScatterAs<uint8_t>(dst, src, offsets, n);
      return;
    case 2:
      ScatterAs<uint16_t>(dst, src, offsets, n);
      return;
    case 4:
      ScatterAs<uint32_t>(dst, src, offsets, n);
      return;
    case 8:
      ScatterAs<uint64_t>(dst, src, offsets, n);
      return;
    case 16:
      ScatterAs<Bytes16>(dst, src, offsets, n);
      return;
    default:
      for (int64_t i = 0; i < n; ++i) std::memcpy(dst + offsets[i] * width, src + i * width, width);
  }
}

BatchProgram* ReducerProgram(const Computation& reducer, absl::Span<const PrimitiveType> types,
                             KernelContext& ev) {
  BatchProgram* p = ev.BatchProgramFor(reducer);
  if (!p) return nullptr;
  const int64_t m = static_cast<int64_t>(types.size());
  if (p->parameter_count() != 2 * m || p->result_count() != m) return nullptr;
  for (int64_t j = 0; j < m; ++j) {
    if (p->parameter_type(j) != types[j] || p->parameter_type(m + j) != types[j] ||
        p->result_type(j) != types[j]) {
      return nullptr;
    }
  }
  return p;
}

absl::StatusOr<bool> InitIsStable(BatchProgram& program, absl::Span<const Literal* const> inits) {
  const size_t m = inits.size();
  std::vector<const void*> in(2 * m);
  std::vector<std::vector<uint8_t>> results(m);
  std::vector<void*> out(m);
  for (size_t j = 0; j < m; ++j) {
    in[j] = in[m + j] = inits[j]->data();
    results[j].resize(ByteWidth(inits[j]->element_type()));
    out[j] = results[j].data();
  }
  absl::Status s = program.Run(in, out, 1);
  if (!s.ok()) return s;
  for (size_t j = 0; j < m; ++j) {
    if (std::memcmp(results[j].data(), inits[j]->data(), results[j].size()) != 0) return false;
  }
  return true;
}

std::optional<absl::Status> BatchedReduce(const Computation& reducer, Operands ops,
                                          absl::Span<const bool> reduced, std::vector<Value>& outs,
                                          KernelContext& ev) {
  const size_t m = ops.size() / 2;
  std::vector<PrimitiveType> types(m);
  for (size_t j = 0; j < m; ++j) {
    types[j] = ops[j]->array().element_type();
    if (ops[m + j]->array().element_type() != types[j] ||
        outs[j].array().element_type() != types[j]) {
      return std::nullopt;
    }
  }
  BatchProgram* program = ReducerProgram(reducer, types, ev);
  if (!program) return std::nullopt;

  absl::Span<const int64_t> in_dims = ops[0]->array().shape().dims();
  const std::vector<int64_t> in_strides = Strides(in_dims);
  std::vector<int64_t> kept_dims, kept_strides, red_dims, red_strides;
  int64_t steps = 1;
  for (size_t d = 0; d < in_dims.size(); ++d) {
    if (reduced[d]) {
      red_dims.push_back(in_dims[d]);
      red_strides.push_back(in_strides[d]);
      steps *= in_dims[d];
    } else {
      kept_dims.push_back(in_dims[d]);
      kept_strides.push_back(in_strides[d]);
    }
  }
  const int64_t out_count = outs[0].array().element_count();
  std::vector<int> width(m);
  std::vector<uint8_t*> acc(m);
  for (size_t j = 0; j < m; ++j) {
    width[j] = ByteWidth(types[j]);
    acc[j] = outs[j].mutable_array().data();
    data_internal::FillElements(width[j], acc[j], out_count, ops[m + j]->array().data());
  }
  if (steps == 0 || out_count == 0) return absl::OkStatus();

  const int64_t lanes = std::min(out_count, kLanes);
  std::vector<int64_t> base(lanes), offsets(lanes);
  std::vector<std::vector<uint8_t>> xs(m);
  for (size_t j = 0; j < m; ++j) xs[j].resize(lanes * width[j]);
  std::vector<const void*> in(2 * m);
  std::vector<void*> out(m);
  std::vector<int64_t> kidx(kept_dims.size(), 0), ridx(red_dims.size(), 0);
  int64_t kept_offset = 0;
  for (int64_t b = 0; b < out_count; b += lanes) {
    const int64_t nb = std::min(lanes, out_count - b);
    for (int64_t i = 0; i < nb; ++i) {
      base[i] = kept_offset;
      for (size_t d = kept_dims.size(); d-- > 0;) {
        kept_offset += kept_strides[d];
        if (++kidx[d] < kept_dims[d]) break;
        kept_offset -= kept_strides[d] * kept_dims[d];
        kidx[d] = 0;
      }
    }
    for (size_t j = 0; j < m; ++j) {
      in[j] = acc[j] + b * width[j];
      out[j] = acc[j] + b * width[j];
      in[m + j] = xs[j].data();
    }
    int64_t red_offset = 0;
    for (int64_t step = 0; step < steps; ++step) {
      for (int64_t i = 0; i < nb; ++i) offsets[i] = base[i] + red_offset;
      for (size_t j = 0; j < m; ++j) {
        GatherElements(xs[j].data(), ops[j]->array().data(), offsets.data(), nb, width[j], nullptr);
      }
      absl::Status s = program->Run(in, out, nb);
      if (!s.ok()) return s;
      for (size_t d = red_dims.size(); d-- > 0;) {
        red_offset += red_strides[d];
        if (++ridx[d] < red_dims[d]) break;
        red_offset -= red_strides[d] * red_dims[d];
        ridx[d] = 0;
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace reduction
}  // namespace hlo
