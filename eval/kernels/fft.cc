// fft: FFT, IFFT, RFFT and IRFFT over the innermost 1 to 3 dimensions
// (fft_length), any lengths (eval/kernels/fft_plan.h).
//
// The transforms run in double for c64/f32 and in long double for
// c128/f64, and the result is rounded to the element type once. IFFT and
// IRFFT scale by 1/N, N the product of fft_length (as XLA and numpy do).
// RFFT keeps the n/2+1 non-negative frequencies of the last dimension;
// IRFFT extends its n/2+1 inputs by Hermitian symmetry
// (X[n-k] = conj(X[k])) and returns the real part, so the imaginary parts of
// X[0] and X[n/2] do not matter.
#include <complex>
#include <cstdint>
#include <string_view>
#include <vector>

#include "eval/kernels/fft_plan.h"
#include "eval/kernels/kernels.h"
#include "ir/strings.h"

namespace hlo {
namespace {

enum class FftKind { kFft, kIfft, kRfft, kIrfft };

int64_t Product(absl::Span<const int64_t> dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

std::string DimsText(absl::Span<const int64_t> dims) {
  return StrCat("{", StrJoin(dims, ","), "}");
}

// Transforms every line along `axis` of the row-major array `data` of dims.
template <typename R>
void TransformAxis(Cx<R>* data, const std::vector<int64_t>& dims, size_t axis, int sign) {
  const int64_t n = dims[axis];
  if (n <= 1) return;
  const int64_t outer = Product(absl::MakeConstSpan(dims).subspan(0, axis));
  const int64_t inner = Product(absl::MakeConstSpan(dims).subspan(axis + 1));
  FftPlan<R> plan(n, sign);
  std::vector<Cx<R>> line(inner == 1 ? 0 : n);
  for (int64_t o = 0; o < outer; ++o) {
    Cx<R>* base = data + o * n * inner;
    if (inner == 1) {
      plan.Run(base);
      continue;
    }
    for (int64_t i = 0; i < inner; ++i) {
      for (int64_t j = 0; j < n; ++j) line[j] = base[i + j * inner];
      plan.Run(line.data());
      for (int64_t j = 0; j < n; ++j) base[i + j * inner] = line[j];
    }
  }
}

// The operand's elements as Cx<R> (real operands with zero imaginary part).
template <typename R>
std::vector<Cx<R>> Load(const Literal& in) {
  const int64_t count = in.element_count();
  std::vector<Cx<R>> out(count);
  switch (in.element_type()) {
    case PrimitiveType::kC64: {
      const auto* x = in.typed<std::complex<float>>();
      for (int64_t i = 0; i < count; ++i) out[i] = {x[i].real(), x[i].imag()};
      break;
    }
    case PrimitiveType::kC128: {
      const auto* x = in.typed<std::complex<double>>();
      for (int64_t i = 0; i < count; ++i) out[i] = {x[i].real(), x[i].imag()};
      break;
    }
    case PrimitiveType::kF32: {
      const float* x = in.typed<float>();
      for (int64_t i = 0; i < count; ++i) out[i] = {x[i], 0};
      break;
    }
    default: {
      const double* x = in.typed<double>();
      for (int64_t i = 0; i < count; ++i) out[i] = {x[i], 0};
      break;
    }
  }
  return out;
}

// Writes work (scaled) into the result literal: complex, or the real parts.
template <typename R>
void Store(const std::vector<Cx<R>>& work, R scale, Literal& out) {
  const int64_t count = out.element_count();
  switch (out.element_type()) {
    case PrimitiveType::kC64: {
      auto* y = out.typed<std::complex<float>>();
      for (int64_t i = 0; i < count; ++i) {
        y[i] = {static_cast<float>(work[i].re * scale), static_cast<float>(work[i].im * scale)};
      }
      break;
    }
    case PrimitiveType::kC128: {
      auto* y = out.typed<std::complex<double>>();
      for (int64_t i = 0; i < count; ++i) {
        y[i] = {static_cast<double>(work[i].re * scale), static_cast<double>(work[i].im * scale)};
      }
      break;
    }
    case PrimitiveType::kF32: {
      float* y = out.typed<float>();
      for (int64_t i = 0; i < count; ++i) y[i] = static_cast<float>(work[i].re * scale);
      break;
    }
    default: {
      double* y = out.typed<double>();
      for (int64_t i = 0; i < count; ++i) y[i] = static_cast<double>(work[i].re * scale);
      break;
    }
  }
}

// Keeps the first `keep` elements of every row of the last dimension.
template <typename R>
std::vector<Cx<R>> TruncateRows(const std::vector<Cx<R>>& work, int64_t rows, int64_t n,
                                int64_t keep) {
  std::vector<Cx<R>> out(rows * keep);
  for (int64_t r = 0; r < rows; ++r) {
    std::copy(work.begin() + r * n, work.begin() + r * n + keep, out.begin() + r * keep);
  }
  return out;
}

// The inverse of the last dimension of IRFFT: rows of n/2+1 spectra become
// rows of n (unscaled, real parts in .re).
template <typename R>
std::vector<Cx<R>> HermitianInverseRows(const std::vector<Cx<R>>& half, int64_t rows, int64_t h,
                                        int64_t n) {
  std::vector<Cx<R>> out(rows * n);
  FftPlan<R> plan(n, 1);
  for (int64_t r = 0; r < rows; ++r) {
    const Cx<R>* x = half.data() + r * h;
    Cx<R>* y = out.data() + r * n;
    for (int64_t k = 0; k < n; ++k) {
      y[k] = k < h ? x[k] : Cx<R>{x[n - k].re, -x[n - k].im};
    }
    plan.Run(y);
  }
  return out;
}

template <typename R>
void Compute(FftKind kind, const Literal& in, absl::Span<const int64_t> len, Literal& out) {
  std::vector<int64_t> dims(in.shape().dims().begin(), in.shape().dims().end());
  const size_t rank = dims.size(), k = len.size(), first = rank - k;
  std::vector<Cx<R>> work = Load<R>(in);
  const R scale = (kind == FftKind::kIfft || kind == FftKind::kIrfft)
                      ? R(1) / static_cast<R>(Product(len))
                      : R(1);
  switch (kind) {
    case FftKind::kFft:
    case FftKind::kIfft: {
      const int sign = kind == FftKind::kFft ? -1 : 1;
      for (size_t a = first; a < rank; ++a) TransformAxis(work.data(), dims, a, sign);
      break;
    }
    case FftKind::kRfft: {
      const int64_t n = dims.back(), rows = Product(dims) / n;
      TransformAxis(work.data(), dims, rank - 1, -1);
      work = TruncateRows(work, rows, n, n / 2 + 1);
      dims.back() = n / 2 + 1;
      for (size_t a = first; a + 1 < rank; ++a) TransformAxis(work.data(), dims, a, -1);
      break;
    }
    case FftKind::kIrfft: {
      for (size_t a = first; a + 1 < rank; ++a) TransformAxis(work.data(), dims, a, 1);
      const int64_t h = dims.back(), rows = Product(dims) / h;
      work = HermitianInverseRows(work, rows, h, len.back());
      break;
    }
  }
  Store(work, scale, out);
}

absl::StatusOr<FftKind> ParseKind(std::string_view text) {
  if (text == "FFT") return FftKind::kFft;
  if (text == "IFFT") return FftKind::kIfft;
  if (text == "RFFT") return FftKind::kRfft;
  if (text == "IRFFT") return FftKind::kIrfft;
  return absl::InvalidArgumentError(
      StrCat("unknown fft_type '", text, "'; expected FFT, IFFT, RFFT or IRFFT"));
}

// The result type and dims for the operand, or an error naming the problem.
absl::StatusOr<Shape> ExpectedShape(FftKind kind, const Shape& in, absl::Span<const int64_t> len) {
  const PrimitiveType t = in.element_type();
  const bool complex_in = t == PrimitiveType::kC64 || t == PrimitiveType::kC128;
  const bool real_in = t == PrimitiveType::kF32 || t == PrimitiveType::kF64;
  if (kind == FftKind::kRfft ? !real_in : !complex_in) {
    return absl::InvalidArgumentError(
        StrCat("fft needs ", kind == FftKind::kRfft ? "an f32 or f64" : "a c64 or c128",
               " operand for this fft_type, but has ", in.ToString(false)));
  }
  if (len.empty() || len.size() > 3 || in.rank() < static_cast<int64_t>(len.size())) {
    return absl::InvalidArgumentError(StrCat("fft_length ", DimsText(len),
                                             " must have 1 to 3 entries and at most the rank of ",
                                             in.ToString(false)));
  }
  const int64_t first = in.rank() - static_cast<int64_t>(len.size());
  std::vector<int64_t> dims(in.dims().begin(), in.dims().end());
  for (size_t i = 0; i < len.size(); ++i) {
    const int64_t d = first + static_cast<int64_t>(i);
    const bool last = i + 1 == len.size();
    int64_t want = len[i];
    if (len[i] < 0) {
      return absl::InvalidArgumentError(StrCat("fft_length ", DimsText(len), " is negative"));
    }
    if (last && kind == FftKind::kIrfft) want = len[i] == 0 && dims[d] == 0 ? 0 : len[i] / 2 + 1;
    if (dims[d] != want) {
      return absl::InvalidArgumentError(StrCat("dimension ", d, " of the operand ",
                                               in.ToString(false), " must be ", want,
                                               " for fft_length ", DimsText(len)));
    }
  }
  PrimitiveType out_type = t;
  if (kind == FftKind::kRfft) {
    out_type = t == PrimitiveType::kF32 ? PrimitiveType::kC64 : PrimitiveType::kC128;
    if (len.back() > 0) dims.back() = len.back() / 2 + 1;
  } else if (kind == FftKind::kIrfft) {
    out_type = ComplexComponentType(t);
    dims.back() = len.back();
  }
  return Shape::Array(out_type, dims);
}

}  // namespace

absl::StatusOr<Value> EvalFft(const Instruction& inst, Operands ops, KernelContext&) {
  if (ops.size() != 1 || !ops[0]->is_array()) {
    return absl::InvalidArgumentError("fft takes one array operand");
  }
  absl::StatusOr<FftKind> kind = ParseKind(inst.GetString(AttrKind::kFftType));
  if (!kind.ok()) return kind.status();
  const Literal& in = ops[0]->array();
  absl::Span<const int64_t> len = inst.GetInts(AttrKind::kFftLength);
  absl::StatusOr<Shape> want = ExpectedShape(*kind, in.shape(), len);
  if (!want.ok()) return want.status();
  const Shape& shape = inst.shape();
  if (!shape.IsArray() || shape.element_type() != want->element_type() ||
      !std::equal(shape.dims().begin(), shape.dims().end(), want->dims().begin(),
                  want->dims().end())) {
    return absl::InvalidArgumentError(
        StrCat("the result shape ", shape.ToString(false), " should be ", want->ToString(false)));
  }
  absl::StatusOr<Value> result = NewArray(shape);
  if (!result.ok() || in.element_count() == 0 || result->array().element_count() == 0) {
    return result;
  }
  // The working buffers hold a few complex copies of the larger side; the
  // evaluator has only reserved the result.
  const int64_t elements = std::max(in.element_count(), result->array().element_count());
  const PrimitiveType t = in.element_type();
  const bool single = t == PrimitiveType::kF32 || t == PrimitiveType::kC64;
  const int64_t width = single ? sizeof(Cx<double>) : sizeof(Cx<long double>);
  if (elements > kMaxLiteralBytes / (3 * width)) {
    return absl::ResourceExhaustedError(StrCat("fft of ", elements, " elements is too large"));
  }
  if (single) {
    Compute<double>(*kind, in, len, result->mutable_array());
  } else {
    Compute<long double>(*kind, in, len, result->mutable_array());
  }
  return result;
}

}  // namespace hlo
