/* dense.c - the K-method's small dense LU (vb_dense_lu, vb_dense_lu_solve).
 *
 * The active set's Newton matrix I + K_AA diag(fbar') is of a few to a few
 * tens of rows (the tanpura bridge's 64 points: 6.6 on average, up to 28).
 * There LAPACK's dgetf2 and dgetrs spend more on their calls (LAPACKE's
 * wrapper, then one idamax, dswap, dscal and dger a column, dlaswp and two
 * dtrsm a solve) than on the arithmetic: this is the same algorithm with
 * the same operations in the same order as dgetf2 and dgetrs over the
 * reference BLAS (netlib, as tools/setup.sh installs), so its factors,
 * pivots and solutions are LAPACK's to the bit (tests/check_kmethod.c,
 * test_dense_lu), without the calls. */
#include <math.h>
#include <stddef.h>
#include "scheme.h"

/* Compiled also for x86-64-v3 (AVX2), chosen at load time, as
 * lib/kernels.c's kernels: the rank-1 updates four rows a pass, each
 * entry the same product and sum (no contraction: -ffp-contract=off), so
 * the same bits.  The vector loops ask for it (omp simd) with GCC only:
 * clang vectorizes them itself where it can, and asked to, warns where it
 * cannot (-Wpass-failed in the fuzz build, under the sanitizers). */
#if defined(__GNUC__) && defined(__x86_64__) && !defined(__clang__)
#define DENSE_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define DENSE_CLONES
#endif

/* LU with partial pivoting of the n x n matrix a (column-major, in place)
 * by exactly the operations of LAPACK's dgetf2 over the reference BLAS,
 * in their order (the pivot is the first largest |a_ik| (idamax); the
 * column below it scaled by the pivot's reciprocal, or divided by it
 * where the reciprocal would overflow; the rank-1 update a_ij + l_i (-a_kj)
 * skipped where a_kj = 0, as dger): the same factors and pivots (1-based)
 * to the bit.  0, or the first k (1-based) with a zero pivot, as dgetf2's
 * info (the factorisation goes on past it). */
DENSE_CLONES int
vb_dense_lu(int n, double *a, int *ipiv)
{
  const double sfmin = 0x1p-1022; /* dlamch('S') */
  int info = 0;
  for (int k = 0; k < n; k++) {
    double *ck = a + (size_t)k * n;
    int p = k;
    double big = fabs(ck[k]);
    for (int i = k + 1; i < n; i++)
      if (fabs(ck[i]) > big) {
        big = fabs(ck[i]);
        p = i;
      }
    ipiv[k] = p + 1;
    if (ck[p] != 0.0) {
      if (p != k)
        for (int j = 0; j < n; j++) {
          double t = a[(size_t)j * n + k];
          a[(size_t)j * n + k] = a[(size_t)j * n + p];
          a[(size_t)j * n + p] = t;
        }
      if (fabs(ck[k]) >= sfmin) {
        double r = 1.0 / ck[k];
        for (int i = k + 1; i < n; i++)
          ck[i] *= r;
      } else {
        for (int i = k + 1; i < n; i++)
          ck[i] /= ck[k];
      }
    } else if (info == 0) {
      info = k + 1;
    }
    for (int j = k + 1; j < n; j++) {
      double *restrict cj = a + (size_t)j * n; /* columns j > k: apart from ck */
      const double *restrict lk = ck;
      if (cj[k] == 0.0)
        continue;
      double t = -cj[k];
#ifndef __clang__
#pragma omp simd
#endif
      for (int i = k + 1; i < n; i++)
        cj[i] = cj[i] + lk[i] * t;
    }
  }
  return info;
}

/* Solve (LU) x = b in place in b[n] with vb_dense_lu's factors and
 * pivots, by exactly the operations of LAPACK's dgetrs over the reference
 * BLAS (dlaswp, then dtrsm's column sweeps of L (unit) and U, each
 * skipping a zero b_k): the same solution to the bit. */
void
vb_dense_lu_solve(int n, const double *a, const int *ipiv, double *b)
{
  for (int k = 0; k < n; k++) {
    int p = ipiv[k] - 1;
    if (p != k) {
      double t = b[k];
      b[k] = b[p];
      b[p] = t;
    }
  }
  for (int k = 0; k < n; k++) {
    if (b[k] == 0.0)
      continue;
    const double *ck = a + (size_t)k * n;
    for (int i = k + 1; i < n; i++)
      b[i] = b[i] - b[k] * ck[i];
  }
  for (int k = n - 1; k >= 0; k--) {
    if (b[k] == 0.0)
      continue;
    const double *ck = a + (size_t)k * n;
    b[k] = b[k] / ck[k];
    for (int i = 0; i < k; i++)
      b[i] = b[i] - b[k] * ck[i];
  }
}

/* y[i] = y[i] + a[j n + i] x[j] for j = 0 .. m-1 in turn (a column-major
 * n x m): each y_i the sum of a row loop in its order, so the same bits,
 * a column at a time (the K-method's residual, rows contiguous). */
DENSE_CLONES void
vb_dense_gemv_acc(int n, int m, const double *a, const double *x, double *y)
{
  for (int j = 0; j < m; j++) {
    const double *restrict aj = a + (size_t)j * n;
    double *restrict yj = y; /* apart from a */
    double xj = x[j];
#ifndef __clang__
#pragma omp simd
#endif
    for (int i = 0; i < n; i++)
      yj[i] = yj[i] + aj[i] * xj;
  }
}
