/* dense.c - the K-method's small dense LU (vb_dense_lu, vb_dense_lu_solve)
 * and its Newton update (vb_kmethod_update), which factors with it.
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
#include <string.h>
#include "scheme.h"

/* LAPACK's pivots are kept in vb_kproblem's int scratch: lib/base/lapack.c
 * calls an LP64 LAPACK (32-bit integers, as Debian's liblapack.so.3). */

/* Compiled also for x86-64-v3 (AVX2), chosen at load time, as
 * lib/island/kernels.c's kernels: the rank-1 updates four rows a pass, each
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

/* ------------------------------------------ the K-method's Newton update
 * (kmethod.c's active-set Newton; here beside its LU) */

/* The largest active set whose LU is done here (vb_dense_lu) rather than
 * by LAPACK: below it the calls through LAPACKE into dgetf2's idamax,
 * dswap, dscal and dger (one call a column) and dgetrs's dlaswp and two
 * dtrsm cost more than the arithmetic (tanpura bridge, 64 points: 8 in
 * the LU on average, 95M of its 843M instructions in those calls). */
#define DENSE_SMALL 32

/* The N block's Newton system (I + K_NN D_N) d = b solved through the
 * modes, K = S diag(cc) S^T of rank nm < n / 4 (Woodbury; Hager, SIAM
 * Review 31:221, 1989): with u = C S_N^T D_N d, d = b - S_N u and
 * (I + C S_N^T D_N S_N) u = C S_N^T D_N b, an nm x nm system (LU with
 * partial pivoting, vb_dense_lu), so O(n nm^2 + nm^3) instead of the n^3
 * of J's LU: 3000 contacts between one mass and a wall (nm = 1) cost a
 * 1 x 1 system instead of a 3000 x 3000 LU (`vibro check` took more than
 * 30 s on it, issue 33 item 3).  The N block is contact piv[ix[k]] (or
 * piv[k] where ix is NULL), fbar' in df; b[n] is replaced by d.  Scratch:
 * p->gws (nm^2 + nm doubles) and p->iterations (nm pivots).  0, or -1
 * where the system is singular. */
DENSE_CLONES static int
lowrank_solve(const vb_kproblem *p, int n, const int *ix, const double *df, double *b)
{
  int nm = p->nm, nmp = p->nmp;
  double *M = p->gws, *t = M + (size_t)nm * nm;
  int *ipiv = p->iterations;
  memset(M, 0, (size_t)nm * nm * sizeof *M);
  memset(t, 0, (size_t)nm * sizeof *t);
  /* S_N^T D_N S_N (its lower triangle) and S_N^T D_N b */
  for (int k = 0; k < n; k++) {
    int jk = ix ? ix[k] : k;
    double dfk = df[jk];
    if (dfk == 0.0)
      continue;
    const double *row = p->S + (size_t)p->piv[jk] * nmp;
    double bk = dfk * b[k];
    for (int l = 0; l < nm; l++) {
      double sl = dfk * row[l];
      double *restrict ml = M + (size_t)l * nm; /* apart from S */
      t[l] += row[l] * bk;
#ifndef __clang__
#pragma omp simd
#endif
      for (int j = l; j < nm; j++)
        ml[j] += sl * row[j];
    }
  }
  /* I + C (S^T D S), column-major; C S^T D b */
  for (int l = 0; l < nm; l++)
    for (int j = l + 1; j < nm; j++)
      M[(size_t)j * nm + l] = M[(size_t)l * nm + j];
  for (int l = 0; l < nm; l++)
    for (int j = 0; j < nm; j++)
      M[(size_t)l * nm + j] = (j == l) + p->cc[j] * M[(size_t)l * nm + j];
  for (int j = 0; j < nm; j++)
    t[j] *= p->cc[j];
  if (vb_dense_lu(nm, M, ipiv) != 0)
    return -1;
  vb_dense_lu_solve(nm, M, ipiv, t);
  /* d = b - S_N u */
  for (int k = 0; k < n; k++) {
    const double *row = p->S + (size_t)p->piv[ix ? ix[k] : k] * nmp;
    double s = b[k];
    for (int j = 0; j < nm; j++)
      s -= row[j] * t[j];
    b[k] = s;
  }
  return 0;
}

/* The Newton update d = -J^-1 r into p->rhs (holding r) from fbar' at
 * vb_kmethod_derivatives(p, na), J = I + K_AA diag(fbar'), by the unblocked LU of J
 * (vb_dense_lu up to DENSE_SMALL rows, else LAPACK's dgetf2: the active
 * sets are small, tens, where dgetrf's recursion into dtrsm and dgemm
 * costs more than the arithmetic: the tanpura's 64 points, 14.2 -> 12.1
 * us per step; same pivoting, the same bits); 0, or -1 when J is
 * singular or d not finite.  A contact whose force does not move with x1
 * at the iterate (fbar'_z = 0: out of contact at both ends of the step)
 * has the unit column e_z in J, so J is block triangular: with N the
 * others, (I + K_NN D_N) d_N = -r_N and d_z = -r_z - K_zN D_N d_N.  The
 * LU is then of the N block only (on the tanpura bridge 5 of 13 active
 * contacts on average: a third of the size, a twelfth of the work); the
 * whole J where every fbar' is non-zero, or where N's index list and
 * pivots do not fit the nc ints of p->iterations together (or its block
 * the doubles of p->jac before the trial slots). */
int
vb_kmethod_update(const vb_kproblem *p, int na, const double *kaa)
{
  const int *act = p->piv;
  int nc = p->nc, nn = 0;
  double *J = p->jac, *d = p->rhs;
  const double *df = vb_kmethod_derivatives(p, na);
  for (int j = 0; j < na; j++)
    nn += df[j] != 0.0;
  /* reduced: N's pivots and index list fit p->iterations, and its block
   * stays clear of the trial slots (vb_kmethod_derivatives(p, na) - na) that hold
   * its right-hand side */
  int reduced =
      nn < na && 2 * nn <= nc && (size_t)nn * nn + 2 * (size_t)na <= vb_kmethod_jac_size(p);
  int n = reduced ? nn : na;
  /* the pivots, then (reduced) N's place in the active set */
  int *ipiv = p->iterations, *ix = reduced ? p->iterations + n : NULL;
  double *b = reduced ? vb_kmethod_derivatives(p, na) - na : d; /* the trial slots are free here */
  for (int j = 0, k = 0; reduced && j < na; j++)
    if (df[j] != 0.0)
      ix[k++] = j;
  /* a block of more contacts than four times the modes: through the
   * modes (lowrank_solve); else J's columns */
  int lowrank = p->S && p->gws && n > DENSE_SMALL && 4 * (size_t)p->nm < (size_t)n;
  /* K NULL (lowrank.c): through the modes above p->kcap contacts; below,
   * J's columns from K_AA (kaa) or, a reduced block of a larger set,
   * from the entries */
  if (!p->K && n > p->kcap)
    lowrank = 1;
  if (!p->K && !kaa && !lowrank)
    vb_k_gather(p, n, act, reduced ? ix : NULL, J, p->gws); /* K_NN into J */
  for (int k = 0; !lowrank && k < n; k++) {
    int jk = reduced ? ix[k] : k;
    double dfk = df[jk], *col = J + (size_t)k * n;
    const double *kcol = p->K ? p->K + act[jk] : NULL, *pcol = kaa ? kaa + (size_t)jk * na : NULL;
    if (!pcol && !kcol)
      for (int i = 0; i < n; i++)
        col[i] = (i == k) + col[i] * dfk; /* K_NN's column, gathered below */
    else if (pcol && reduced)
      for (int i = 0; i < n; i++)
        col[i] = (i == k) + pcol[ix[i]] * dfk;
    else if (pcol)
      for (int i = 0; i < n; i++)
        col[i] = (i == k) + pcol[i] * dfk;
    else if (reduced)
      for (int i = 0; i < n; i++)
        col[i] = (i == k) + kcol[(size_t)act[ix[i]] * nc] * dfk;
    else
      for (int i = 0; i < n; i++)
        col[i] = (i == k) + kcol[(size_t)act[i] * nc] * dfk;
  }
  for (int k = 0; k < n; k++)
    b[k] = -d[reduced ? ix[k] : k];
  if (lowrank && !p->K) {
    /* no dense K: the SPD form (lowrank.c), the LU where it does not
     * apply (b kept: the SPD form fails before it writes b) */
    if (vb_k_modal_solve(p, n, act, ix, df, b) != 0 && lowrank_solve(p, n, ix, df, b) != 0)
      return -1;
  } else if (lowrank) {
    if (lowrank_solve(p, n, ix, df, b) != 0)
      return -1;
  } else if (n > 0 && n <= DENSE_SMALL) {
    if (vb_dense_lu(n, J, ipiv) != 0)
      return -1;
    vb_dense_lu_solve(n, J, ipiv, b);
  } else if (n > 0 && (vb_lapack_dgetf2(n, J, ipiv) != 0 || vb_lapack_dgetrs(n, J, ipiv, b) != 0)) {
    return -1;
  }
  if (reduced) {
    /* d_z = -r_z - K_zN D_N d_N; then d_N */
    for (int k = 0; k < n; k++)
      J[k] = df[ix[k]] * b[k];
    /* K NULL, no K_AA: K_zN (D_N d_N) = S_z . u, u = diag(cc) S_N^T D_N d_N */
    double *u = p->kws;
    if (!p->K && !kaa) {
      vb_k_modal_zero(p, u);
      for (int k = 0; k < n; k++)
        vb_k_modal_add(p, act[ix[k]], J[k], u);
      vb_k_modal_scale(p, u, 0);
    }
    for (int i = 0; i < na; i++) {
      if (df[i] != 0.0)
        continue;
      const double *row = p->K ? p->K + (size_t)act[i] * nc : NULL;
      double s = -d[i];
      if (!row && !kaa)
        s -= vb_k_row_dot(p, act[i], u, 0);
      else if (kaa)
        for (int k = 0; k < n; k++)
          s -= kaa[(size_t)ix[k] * na + i] * J[k];
      else
        for (int k = 0; k < n; k++)
          s -= row[act[ix[k]]] * J[k];
      d[i] = s;
    }
    for (int k = 0; k < n; k++)
      d[ix[k]] = b[k];
  }
  for (int i = 0; i < na; i++)
    if (!isfinite(d[i]))
      return -1;
  return 0;
}
