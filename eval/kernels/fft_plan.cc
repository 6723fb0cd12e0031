#include "eval/kernels/fft_plan.h"

#include <algorithm>
#include <cmath>

namespace hlo {
namespace {

constexpr long double kHalfPi = 1.570796326794896619231321691639751442L;

// Smallest power of two >= n.
int64_t NextPowerOfTwo(int64_t n) {
  int64_t m = 1;
  while (m < n) m *= 2;
  return m;
}

}  // namespace

template <typename R>
Cx<R> Twiddle(int64_t j, int64_t n, int sign) {
  // The angle is (quadrant + rem/n) quarter turns; the part within the
  // quadrant is folded to at most an eighth turn, so that sin and cos are
  // taken of small, exactly reduced arguments.
  const int64_t quadrant = static_cast<int64_t>((static_cast<unsigned __int128>(j) * 4) / n);
  const int64_t rem = static_cast<int64_t>((static_cast<unsigned __int128>(j) * 4) % n);
  long double c, s;
  if (2 * rem <= n) {
    const long double a = kHalfPi * static_cast<long double>(rem) / static_cast<long double>(n);
    c = std::cos(a);
    s = std::sin(a);
  } else {
    const long double a = kHalfPi * static_cast<long double>(n - rem) / static_cast<long double>(n);
    c = std::sin(a);
    s = std::cos(a);
  }
  long double re, im;
  switch (quadrant & 3) {
    case 0:
      re = c;
      im = s;
      break;
    case 1:
      re = -s;
      im = c;
      break;
    case 2:
      re = -c;
      im = -s;
      break;
    default:
      re = s;
      im = -c;
      break;
  }
  if (sign < 0) im = -im;
  return {static_cast<R>(re), static_cast<R>(im)};
}

template <typename R>
FftPlan<R>::FftPlan(int64_t n, int sign) : n_(n), sign_(sign) {
  if (n_ <= 1) return;
  int64_t rest = n_;
  while (rest % 4 == 0) {
    factors_.push_back(4);
    rest /= 4;
  }
  if (rest % 2 == 0) {
    factors_.push_back(2);
    rest /= 2;
  }
  int64_t largest = 1;
  for (int64_t p = 3; p * p <= rest; p += 2) {
    while (rest % p == 0) {
      factors_.push_back(p);
      largest = p;
      rest /= p;
    }
  }
  if (rest > 1) {
    factors_.push_back(rest);
    largest = std::max(largest, rest);
  }
  if (largest <= kMaxDirectPrime) {
    twiddles_.resize(n_);
    for (int64_t j = 0; j < n_; ++j) twiddles_[j] = Twiddle<R>(j, n_, sign_);
    scratch_.resize(n_);
    butterfly_.resize(largest);
    return;
  }
  // Bluestein: X[k] = c[k] sum_j (x[j] c[j]) conj(c[k-j]) with the chirp
  // c[j] = exp(sign pi i j^2 / n), a circular convolution of length
  // M >= 2n-1 done with power-of-two transforms.
  factors_.clear();
  const int64_t m = NextPowerOfTwo(2 * n_ - 1);
  chirp_.resize(n_);
  for (int64_t j = 0; j < n_; ++j) {
    const auto sq = static_cast<unsigned __int128>(j) * static_cast<unsigned __int128>(j);
    chirp_[j] = Twiddle<R>(static_cast<int64_t>(sq % static_cast<unsigned __int128>(2 * n_)),
                           2 * n_, sign_);
  }
  filter_.assign(m, Cx<R>{});
  filter_[0] = {chirp_[0].re, -chirp_[0].im};
  for (int64_t l = 1; l < n_; ++l) {
    filter_[l] = filter_[m - l] = {chirp_[l].re, -chirp_[l].im};
  }
  forward_ = std::make_unique<FftPlan<R>>(m, -1);
  inverse_ = std::make_unique<FftPlan<R>>(m, 1);
  forward_->Run(filter_.data());
  scratch_.resize(m);
}

template <typename R>
FftPlan<R>::~FftPlan() = default;

template <typename R>
void FftPlan<R>::Run(Cx<R>* data) {
  if (n_ <= 1) return;
  if (!chirp_.empty()) {
    RunBluestein(data);
    return;
  }
  std::copy(data, data + n_, scratch_.begin());
  Recurse(scratch_.data(), 1, data, n_, 0);
}

template <typename R>
void FftPlan<R>::RunBluestein(Cx<R>* data) {
  const int64_t m = static_cast<int64_t>(filter_.size());
  Cx<R>* a = scratch_.data();
  for (int64_t j = 0; j < n_; ++j) a[j] = data[j] * chirp_[j];
  std::fill(a + n_, a + m, Cx<R>{});
  forward_->Run(a);
  for (int64_t k = 0; k < m; ++k) a[k] = a[k] * filter_[k];
  inverse_->Run(a);
  const R scale = R(1) / static_cast<R>(m);  // m is a power of two: exact
  for (int64_t k = 0; k < n_; ++k) {
    Cx<R> v = chirp_[k] * a[k];
    data[k] = {v.re * scale, v.im * scale};
  }
}

// Decimation in time: the p sub-sequences in[r], in[r+p], ... are
// transformed into out[r*m .. r*m+m), then combined by Butterfly.
template <typename R>
void FftPlan<R>::Recurse(const Cx<R>* in, int64_t stride, Cx<R>* out, int64_t n, size_t level) {
  const int64_t p = factors_[level];
  const int64_t m = n / p;
  if (m == 1) {
    for (int64_t r = 0; r < p; ++r) out[r] = in[r * stride];
  } else {
    for (int64_t r = 0; r < p; ++r) {
      Recurse(in + r * stride, stride * p, out + r * m, m, level + 1);
    }
  }
  Butterfly(out, m, p, n_ / n);
}

// out[q*m + k] = sum_r W_n^(r k) W_p^(r q) out[r*m + k], with W_n = W_N^step.
template <typename R>
void FftPlan<R>::Butterfly(Cx<R>* out, int64_t m, int64_t p, int64_t step) {
  const Cx<R>* w = twiddles_.data();
  if (p == 2) {
    for (int64_t k = 0; k < m; ++k) {
      Cx<R> a = out[k], b = out[m + k] * w[k * step];
      out[k] = a + b;
      out[m + k] = a - b;
    }
    return;
  }
  if (p == 4) {
    const R s = static_cast<R>(sign_);
    for (int64_t k = 0; k < m; ++k) {
      Cx<R> t0 = out[k];
      Cx<R> t1 = out[m + k] * w[k * step];
      Cx<R> t2 = out[2 * m + k] * w[2 * k * step];
      Cx<R> t3 = out[3 * m + k] * w[3 * k * step];
      Cx<R> a = t0 + t2, b = t0 - t2, c = t1 + t3, d = t1 - t3;
      Cx<R> wd = {-s * d.im, s * d.re};  // W_4 = sign * i
      out[k] = a + c;
      out[m + k] = b + wd;
      out[2 * m + k] = a - c;
      out[3 * m + k] = b - wd;
    }
    return;
  }
  const int64_t wp = n_ / p;  // W_p^x = W_N^(x * wp)
  Cx<R>* t = butterfly_.data();
  for (int64_t k = 0; k < m; ++k) {
    t[0] = out[k];
    for (int64_t r = 1; r < p; ++r) t[r] = out[r * m + k] * w[r * k * step];
    for (int64_t q = 0; q < p; ++q) {
      Cx<R> acc = t[0];
      int64_t e = 0;
      for (int64_t r = 1; r < p; ++r) {
        e += q;
        if (e >= p) e -= p;
        acc = acc + t[r] * w[e * wp];
      }
      out[q * m + k] = acc;
    }
  }
}

template Cx<double> Twiddle<double>(int64_t, int64_t, int);
template Cx<long double> Twiddle<long double>(int64_t, int64_t, int);
template class FftPlan<double>;
template class FftPlan<long double>;

}  // namespace hlo
