// LAPACK's (and BLAS ?trsm's) Fortran entry points, as OpenBLAS exports
// them, with one typed C++ function per routine for the four element types.
//
// Arguments go by pointer, column-major matrices; the trailing size_t
// arguments are gfortran's hidden lengths of the character arguments. Each
// wrapper returns LAPACK's `info`. Workspace sizes are the callers'
// business (see WorkspaceQuery). The routines are called through
// HLO_BLAS_FUNCTION: OpenBLAS is opened at the first call (eval/blas_api.h).
#ifndef HLO_EVAL_LINALG_LAPACK_FORTRAN_H_
#define HLO_EVAL_LINALG_LAPACK_FORTRAN_H_

#include <complex>
#include <cstddef>
#include <type_traits>

#include "eval/blas_api.h"

namespace hlo::lapack {

using C64 = std::complex<float>;
using C128 = std::complex<double>;

template <typename T>
struct RealOf {
  using type = T;
};
template <typename R>
struct RealOf<std::complex<R>> {
  using type = R;
};
template <typename T>
using Real = typename RealOf<T>::type;

template <typename T>
inline constexpr bool kIsComplex = !std::is_same_v<T, Real<T>>;

}  // namespace hlo::lapack

// gees's `select` argument (a function, unused with sort 'N') is declared
// as a plain pointer.
extern "C" {

#define HLO_LAPACK_DECLARE(p, T)                                                                 \
  void p##trsm_(const char*, const char*, const char*, const char*, const int*, const int*,      \
                const T*, const T*, const int*, T*, const int*, size_t, size_t, size_t, size_t); \
  void p##getrf_(const int*, const int*, T*, const int*, int*, int*);                            \
  void p##geqrf_(const int*, const int*, T*, const int*, T*, T*, const int*, int*);              \
  void p##potrf_(const char*, const int*, T*, const int*, int*, size_t);                         \
  void p##gehrd_(const int*, const int*, const int*, T*, const int*, T*, T*, const int*, int*);  \
  void p##gtsv_(const int*, const int*, T*, T*, T*, T*, const int*, int*);
HLO_LAPACK_DECLARE(s, float)
HLO_LAPACK_DECLARE(d, double)
HLO_LAPACK_DECLARE(c, std::complex<float>)
HLO_LAPACK_DECLARE(z, std::complex<double>)
#undef HLO_LAPACK_DECLARE

// Routines whose real and complex forms differ in name or arguments.
#define HLO_LAPACK_DECLARE_REAL(p, T)                                                             \
  void p##geqp3_(const int*, const int*, T*, const int*, int*, T*, T*, const int*, int*);         \
  void p##orgqr_(const int*, const int*, const int*, T*, const int*, const T*, T*, const int*,    \
                 int*);                                                                           \
  void p##ormqr_(const char*, const char*, const int*, const int*, const int*, const T*,          \
                 const int*, const T*, T*, const int*, T*, const int*, int*, size_t, size_t);     \
  void p##gesdd_(const char*, const int*, const int*, T*, const int*, T*, T*, const int*, T*,     \
                 const int*, T*, const int*, int*, int*, size_t);                                 \
  void p##gesvd_(const char*, const char*, const int*, const int*, T*, const int*, T*, T*,        \
                 const int*, T*, const int*, T*, const int*, int*, size_t, size_t);               \
  void p##syevd_(const char*, const char*, const int*, T*, const int*, T*, T*, const int*, int*,  \
                 const int*, int*, size_t, size_t);                                               \
  void p##geev_(const char*, const char*, const int*, T*, const int*, T*, T*, T*, const int*, T*, \
                const int*, T*, const int*, int*, size_t, size_t);                                \
  void p##gees_(const char*, const char*, const void*, const int*, T*, const int*, int*, T*, T*,  \
                T*, const int*, T*, const int*, int*, int*, size_t, size_t);                      \
  void p##sytrd_(const char*, const int*, T*, const int*, T*, T*, T*, T*, const int*, int*, size_t);
HLO_LAPACK_DECLARE_REAL(s, float)
HLO_LAPACK_DECLARE_REAL(d, double)
#undef HLO_LAPACK_DECLARE_REAL

#define HLO_LAPACK_DECLARE_COMPLEX(p, T, R)                                                      \
  void p##geqp3_(const int*, const int*, T*, const int*, int*, T*, T*, const int*, R*, int*);    \
  void p##ungqr_(const int*, const int*, const int*, T*, const int*, const T*, T*, const int*,   \
                 int*);                                                                          \
  void p##unmqr_(const char*, const char*, const int*, const int*, const int*, const T*,         \
                 const int*, const T*, T*, const int*, T*, const int*, int*, size_t, size_t);    \
  void p##gesdd_(const char*, const int*, const int*, T*, const int*, R*, T*, const int*, T*,    \
                 const int*, T*, const int*, R*, int*, int*, size_t);                            \
  void p##gesvd_(const char*, const char*, const int*, const int*, T*, const int*, R*, T*,       \
                 const int*, T*, const int*, T*, const int*, R*, int*, size_t, size_t);          \
  void p##heevd_(const char*, const char*, const int*, T*, const int*, R*, T*, const int*, R*,   \
                 const int*, int*, const int*, int*, size_t, size_t);                            \
  void p##geev_(const char*, const char*, const int*, T*, const int*, T*, T*, const int*, T*,    \
                const int*, T*, const int*, R*, int*, size_t, size_t);                           \
  void p##gees_(const char*, const char*, const void*, const int*, T*, const int*, int*, T*, T*, \
                const int*, T*, const int*, R*, int*, int*, size_t, size_t);                     \
  void p##hetrd_(const char*, const int*, T*, const int*, R*, R*, T*, T*, const int*, int*, size_t);
HLO_LAPACK_DECLARE_COMPLEX(c, std::complex<float>, float)
HLO_LAPACK_DECLARE_COMPLEX(z, std::complex<double>, double)
#undef HLO_LAPACK_DECLARE_COMPLEX
}

namespace hlo::lapack {

// Calls the s/d/c/z form of a routine for element type T, the complex
// forms under another name where it differs (orgqr / ungqr).
#define HLO_LAPACK_DISPATCH2(real, complex, ...)     \
  do {                                               \
    if constexpr (std::is_same_v<T, float>)          \
      HLO_BLAS_FUNCTION(s##real##_)(__VA_ARGS__);    \
    else if constexpr (std::is_same_v<T, double>)    \
      HLO_BLAS_FUNCTION(d##real##_)(__VA_ARGS__);    \
    else if constexpr (std::is_same_v<T, C64>)       \
      HLO_BLAS_FUNCTION(c##complex##_)(__VA_ARGS__); \
    else                                             \
      HLO_BLAS_FUNCTION(z##complex##_)(__VA_ARGS__); \
  } while (0)
#define HLO_LAPACK_DISPATCH(routine, ...) HLO_LAPACK_DISPATCH2(routine, routine, __VA_ARGS__)

// B := alpha op(A)^-1 B (side 'L') or alpha B op(A)^-1 (side 'R').
template <typename T>
void Trsm(char side, char uplo, char trans, char diag, int m, int n, T alpha, const T* a, int lda,
          T* b, int ldb) {
  blas::PrepareWorkers(m, n);
  HLO_LAPACK_DISPATCH(trsm, &side, &uplo, &trans, &diag, &m, &n, &alpha, a, &lda, b, &ldb, 1, 1, 1,
                      1);
}

template <typename T>
int Getrf(int m, int n, T* a, int lda, int* ipiv) {
  blas::PrepareWorkers(m, n);
  int info = 0;
  HLO_LAPACK_DISPATCH(getrf, &m, &n, a, &lda, ipiv, &info);
  return info;
}

template <typename T>
int Geqrf(int m, int n, T* a, int lda, T* tau, T* work, int lwork) {
  blas::PrepareWorkers(m, n);
  int info = 0;
  HLO_LAPACK_DISPATCH(geqrf, &m, &n, a, &lda, tau, work, &lwork, &info);
  return info;
}

// rwork: 2n reals for the complex forms (unused for real ones).
template <typename T>
int Geqp3(int m, int n, T* a, int lda, int* jpvt, T* tau, T* work, int lwork, Real<T>* rwork) {
  blas::PrepareWorkers(m, n);
  int info = 0;
  if constexpr (kIsComplex<T>) {
    HLO_LAPACK_DISPATCH(geqp3, &m, &n, a, &lda, jpvt, tau, work, &lwork, rwork, &info);
  } else {
    HLO_LAPACK_DISPATCH(geqp3, &m, &n, a, &lda, jpvt, tau, work, &lwork, &info);
  }
  return info;
}

template <typename T>
int Orgqr(int m, int n, int k, T* a, int lda, const T* tau, T* work, int lwork) {
  blas::PrepareWorkers(m, n);
  int info = 0;
  HLO_LAPACK_DISPATCH2(orgqr, ungqr, &m, &n, &k, a, &lda, tau, work, &lwork, &info);
  return info;
}

template <typename T>
int Ormqr(char side, char trans, int m, int n, int k, const T* a, int lda, const T* tau, T* c,
          int ldc, T* work, int lwork) {
  blas::PrepareWorkers(m, n);
  int info = 0;
  HLO_LAPACK_DISPATCH2(ormqr, unmqr, &side, &trans, &m, &n, &k, a, &lda, tau, c, &ldc, work, &lwork,
                       &info, 1, 1);
  return info;
}

template <typename T>
int Potrf(char uplo, int n, T* a, int lda) {
  blas::PrepareWorkers(n, n);
  int info = 0;
  HLO_LAPACK_DISPATCH(potrf, &uplo, &n, a, &lda, &info, 1);
  return info;
}

// rwork is used by the complex forms only.
template <typename T>
int Gesdd(char jobz, int m, int n, T* a, int lda, Real<T>* s, T* u, int ldu, T* vt, int ldvt,
          T* work, int lwork, Real<T>* rwork, int* iwork) {
  blas::PrepareWorkers(m, n);
  int info = 0;
  if constexpr (kIsComplex<T>) {
    HLO_LAPACK_DISPATCH(gesdd, &jobz, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt, work, &lwork, rwork,
                        iwork, &info, 1);
  } else {
    (void)rwork;
    HLO_LAPACK_DISPATCH(gesdd, &jobz, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt, work, &lwork, iwork,
                        &info, 1);
  }
  return info;
}

template <typename T>
int Gesvd(char jobu, char jobvt, int m, int n, T* a, int lda, Real<T>* s, T* u, int ldu, T* vt,
          int ldvt, T* work, int lwork, Real<T>* rwork) {
  blas::PrepareWorkers(m, n);
  int info = 0;
  if constexpr (kIsComplex<T>) {
    HLO_LAPACK_DISPATCH(gesvd, &jobu, &jobvt, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt, work, &lwork,
                        rwork, &info, 1, 1);
  } else {
    (void)rwork;
    HLO_LAPACK_DISPATCH(gesvd, &jobu, &jobvt, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt, work, &lwork,
                        &info, 1, 1);
  }
  return info;
}

// ?syevd for real T, ?heevd for complex T (rwork/lrwork unused for real).
template <typename T>
int Syevd(char jobz, char uplo, int n, T* a, int lda, Real<T>* w, T* work, int lwork,
          Real<T>* rwork, int lrwork, int* iwork, int liwork) {
  blas::PrepareWorkers(n, n);
  int info = 0;
  if constexpr (std::is_same_v<T, float>) {
    HLO_BLAS_FUNCTION(ssyevd_)
    (&jobz, &uplo, &n, a, &lda, w, work, &lwork, iwork, &liwork, &info, 1, 1);
  } else if constexpr (std::is_same_v<T, double>) {
    HLO_BLAS_FUNCTION(dsyevd_)
    (&jobz, &uplo, &n, a, &lda, w, work, &lwork, iwork, &liwork, &info, 1, 1);
  } else if constexpr (std::is_same_v<T, C64>) {
    HLO_BLAS_FUNCTION(cheevd_)
    (&jobz, &uplo, &n, a, &lda, w, work, &lwork, rwork, &lrwork, iwork, &liwork, &info, 1, 1);
  } else {
    HLO_BLAS_FUNCTION(zheevd_)
    (&jobz, &uplo, &n, a, &lda, w, work, &lwork, rwork, &lrwork, iwork, &liwork, &info, 1, 1);
  }
  if constexpr (!kIsComplex<T>) (void)rwork, (void)lrwork;
  return info;
}

// Real ?geev: eigenvalues wr + i wi, eigenvectors packed (LAPACK's real
// storage of conjugate pairs).
template <typename T>
int GeevReal(char jobvl, char jobvr, int n, T* a, int lda, T* wr, T* wi, T* vl, int ldvl, T* vr,
             int ldvr, T* work, int lwork) {
  blas::PrepareWorkers(n, n);
  int info = 0;
  HLO_LAPACK_DISPATCH(geev, &jobvl, &jobvr, &n, a, &lda, wr, wi, vl, &ldvl, vr, &ldvr, work, &lwork,
                      &info, 1, 1);
  return info;
}

template <typename T>
int GeevComplex(char jobvl, char jobvr, int n, T* a, int lda, T* w, T* vl, int ldvl, T* vr,
                int ldvr, T* work, int lwork, Real<T>* rwork) {
  blas::PrepareWorkers(n, n);
  int info = 0;
  HLO_LAPACK_DISPATCH(geev, &jobvl, &jobvr, &n, a, &lda, w, vl, &ldvl, vr, &ldvr, work, &lwork,
                      rwork, &info, 1, 1);
  return info;
}

// Unsorted Schur factorisation (sort 'N': no select function, no bwork).
template <typename T>
int GeesReal(char jobvs, int n, T* a, int lda, int* sdim, T* wr, T* wi, T* vs, int ldvs, T* work,
             int lwork) {
  blas::PrepareWorkers(n, n);
  int info = 0;
  const char sort = 'N';
  HLO_LAPACK_DISPATCH(gees, &jobvs, &sort, nullptr, &n, a, &lda, sdim, wr, wi, vs, &ldvs, work,
                      &lwork, nullptr, &info, 1, 1);
  return info;
}

template <typename T>
int GeesComplex(char jobvs, int n, T* a, int lda, int* sdim, T* w, T* vs, int ldvs, T* work,
                int lwork, Real<T>* rwork) {
  blas::PrepareWorkers(n, n);
  int info = 0;
  const char sort = 'N';
  HLO_LAPACK_DISPATCH(gees, &jobvs, &sort, nullptr, &n, a, &lda, sdim, w, vs, &ldvs, work, &lwork,
                      rwork, nullptr, &info, 1, 1);
  return info;
}

template <typename T>
int Gehrd(int n, int ilo, int ihi, T* a, int lda, T* tau, T* work, int lwork) {
  blas::PrepareWorkers(n, n);
  int info = 0;
  HLO_LAPACK_DISPATCH(gehrd, &n, &ilo, &ihi, a, &lda, tau, work, &lwork, &info);
  return info;
}

// ?sytrd for real T, ?hetrd for complex T.
template <typename T>
int Sytrd(char uplo, int n, T* a, int lda, Real<T>* d, Real<T>* e, T* tau, T* work, int lwork) {
  blas::PrepareWorkers(n, n);
  int info = 0;
  HLO_LAPACK_DISPATCH2(sytrd, hetrd, &uplo, &n, a, &lda, d, e, tau, work, &lwork, &info, 1);
  return info;
}

template <typename T>
int Gtsv(int n, int nrhs, T* dl, T* d, T* du, T* b, int ldb) {
  int info = 0;
  HLO_LAPACK_DISPATCH(gtsv, &n, &nrhs, dl, d, du, b, &ldb, &info);
  return info;
}

#undef HLO_LAPACK_DISPATCH
#undef HLO_LAPACK_DISPATCH2

}  // namespace hlo::lapack

#endif  // HLO_EVAL_LINALG_LAPACK_FORTRAN_H_
