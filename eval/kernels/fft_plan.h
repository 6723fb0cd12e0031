// A one-dimensional complex DFT of any length, for the fft kernel
// (eval/kernels/fft.cc): mixed-radix Cooley-Tukey (radix 4, 2 and a generic
// small-prime butterfly), and Bluestein's chirp-z convolution for lengths
// with a prime factor too large for the direct butterfly.
//
// R is the arithmetic type: the kernel uses double for c64 and long double
// for c128, so that the result is rounded to the element type once, with
// twiddles accurate to the arithmetic type (no accumulated recurrences).
#ifndef HLO_EVAL_KERNELS_FFT_PLAN_H_
#define HLO_EVAL_KERNELS_FFT_PLAN_H_

#include <cstdint>
#include <memory>
#include <vector>

namespace hlo {

// A complex number with plain multiplication (std::complex's operator*
// handles infinities through a library call per element).
template <typename R>
struct Cx {
  R re = 0, im = 0;
};

template <typename R>
inline Cx<R> operator+(Cx<R> a, Cx<R> b) {
  return {a.re + b.re, a.im + b.im};
}
template <typename R>
inline Cx<R> operator-(Cx<R> a, Cx<R> b) {
  return {a.re - b.re, a.im - b.im};
}
template <typename R>
inline Cx<R> operator*(Cx<R> a, Cx<R> b) {
  return {a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};
}

// exp(sign * 2*pi*i * j / n) for 0 <= j < n, computed in long double with
// the quarter turns exact (so W^(n/2) is exactly -1).
template <typename R>
Cx<R> Twiddle(int64_t j, int64_t n, int sign);

template <typename R>
class FftPlan {
 public:
  // A transform of length n >= 1; sign -1 is the forward DFT
  // X[k] = sum_j x[j] exp(-2 pi i jk/n), +1 the unscaled inverse.
  FftPlan(int64_t n, int sign);
  ~FftPlan();
  FftPlan(const FftPlan&) = delete;
  FftPlan& operator=(const FftPlan&) = delete;

  int64_t size() const { return n_; }
  // Transforms data[0..n) in place.
  void Run(Cx<R>* data);

  // Largest prime factor transformed by the direct O(p^2) butterfly;
  // lengths with a larger one go through Bluestein.
  static constexpr int64_t kMaxDirectPrime = 61;

 private:
  void Recurse(const Cx<R>* in, int64_t stride, Cx<R>* out, int64_t n, size_t level);
  void Butterfly(Cx<R>* out, int64_t m, int64_t p, int64_t step);
  void RunBluestein(Cx<R>* data);

  int64_t n_;
  int sign_;
  std::vector<int64_t> factors_;  // radices, outermost first
  std::vector<Cx<R>> twiddles_;   // exp(sign 2 pi i j / n)
  std::vector<Cx<R>> scratch_;
  std::vector<Cx<R>> butterfly_;  // generic radix temporaries
  // Bluestein: the chirp exp(sign pi i j^2 / n), the transformed filter and
  // a power-of-two plan pair for the convolution.
  std::vector<Cx<R>> chirp_;
  std::vector<Cx<R>> filter_;
  std::unique_ptr<FftPlan<R>> forward_, inverse_;
};

extern template class FftPlan<double>;
extern template class FftPlan<long double>;

}  // namespace hlo

#endif  // HLO_EVAL_KERNELS_FFT_PLAN_H_
