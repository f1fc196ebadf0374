/* lowrank.c - the step compliance of an island of many contacts, through
 * its modes (issue 33 item 2).
 *
 * The compliance K = S diag(cc) S^T (S nc x nm, the compressions per unit
 * modal displacement; cc the modes' step compliances) has rank at most the
 * number of modes nm.  An island of more contacts than
 * VB_LOWRANK_MIN_CONTACTS (lib/island/model.c) keeps no nc x nc K
 * (vb_kproblem.K is NULL): an entry is formed from two rows of S when it
 * is read, O(nm), by the same products summed in the same order as
 * model.c's island_compliance (the same bits), and a product K_cA f_A by
 * the modes, u = diag(cc) S_A^T f_A (O(|A| nm)) then S_c . u (O(nm) a
 * row), so that the step's set-up and memory are O(nc nm) and a product
 * over every contact O(nc nm), not O(nc^2 nm) and O(nc^2). */
#include <math.h>
#include <string.h>
#include "scheme.h"

/* Compiled also for x86-64-v3 (AVX2), chosen at load time, as dense.c's
 * loops: each entry the same products and sums (no contraction:
 * -ffp-contract=off), so the same bits. */
#if defined(__GNUC__) && defined(__x86_64__) && !defined(__clang__)
#define DENSE_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define DENSE_CLONES
#endif

/* K_cd, the same bits as model.c's island_compliance: sum_j (S_cj S_dj)
 * cc_j in mode order (S_cj S_dj = S_dj S_cj in IEEE arithmetic, so either
 * order of c and d). */
double
vb_k_entry(const vb_kproblem *p, int c, int d)
{
  const double *rc = p->S + (size_t)c * p->nmp, *rd = p->S + (size_t)d * p->nmp, *cc = p->cc;
  double k = 0.0;
  for (int j = 0; j < p->nm; j++)
    k += rc[j] * rd[j] * cc[j];
  return k;
}

/* K_AA packed, kaa[j na + i] = K[a_i][a_j] (column-major), a_i =
 * act[ix[i]] (act[i] where ix is NULL): each
 * entry vb_k_entry's products summed in its order (the bits of the dense
 * K), formed a column at a time over the rows of S_A^T packed into
 * ws[nm na] (the sums of a column side by side: vector loops instead of
 * one chain of dependent additions an entry), the upper triangle
 * mirrored. */
DENSE_CLONES void
vb_k_gather(const vb_kproblem *p, int na, const int *act, const int *ix, double *kaa, double *ws)
{
  size_t n = (size_t)na;
  int nm = p->nm;
  for (int j = 0; j < na; j++) {
    const double *row = p->S + (size_t)act[ix ? ix[j] : j] * p->nmp;
    for (int m = 0; m < nm; m++)
      ws[(size_t)m * n + j] = row[m];
  }
  for (int i = 0; i < na; i++) {
    const double *rc = p->S + (size_t)act[ix ? ix[i] : i] * p->nmp;
    double *restrict col = kaa + (size_t)i * n; /* entries (j, i), j >= i */
    for (int j = i; j < na; j++)
      col[j] = 0.0;
    for (int m = 0; m < nm; m++) {
      const double *restrict t = ws + (size_t)m * n;
      double r = rc[m], cm = p->cc[m];
#ifndef __clang__
#pragma omp simd
#endif
      for (int j = i; j < na; j++)
        col[j] = col[j] + r * t[j] * cm;
    }
    for (int j = i + 1; j < na; j++)
      kaa[(size_t)j * n + i] = col[j];
  }
}

/* u = 0 (nm doubles). */
void
vb_k_modal_zero(const vb_kproblem *p, double *u)
{
  memset(u, 0, (size_t)p->nmp * sizeof *u);
}

/* u = u + f S_c (a contact's force f into the modes, before the
 * compliances). */
void
vb_k_modal_add(const vb_kproblem *p, int c, double f, double *u)
{
  if (f == 0.0)
    return;
  const double *restrict row = p->S + (size_t)c * p->nmp;
  double *restrict uu = u;
  for (int j = 0; j < p->nm; j++)
    uu[j] += row[j] * f;
}

/* u = u + |f| |S_c| (the round-off scale of vb_k_modal_add's sums). */
void
vb_k_modal_add_abs(const vb_kproblem *p, int c, double f, double *u)
{
  if (f == 0.0)
    return;
  const double *restrict row = p->S + (size_t)c * p->nmp;
  double *restrict uu = u;
  double a = fabs(f);
  for (int j = 0; j < p->nm; j++)
    uu[j] += fabs(row[j]) * a;
}

/* u = diag(cc) u (|cc| where `absolute`). */
void
vb_k_modal_scale(const vb_kproblem *p, double *u, int absolute)
{
  for (int j = 0; j < p->nm; j++)
    u[j] *= absolute ? fabs(p->cc[j]) : p->cc[j];
}

/* S_c . u (|S_c| . u where `absolute`): with u = diag(cc) S_A^T f_A, the
 * product (K_cA f_A), m. */
double
vb_k_row_dot(const vb_kproblem *p, int c, const double *u, int absolute)
{
  const double *row = p->S + (size_t)c * p->nmp;
  double s = 0.0;
  if (absolute)
    for (int j = 0; j < p->nm; j++)
      s += fabs(row[j]) * u[j];
  else
    for (int j = 0; j < p->nm; j++)
      s += row[j] * u[j];
  return s;
}

/* Cholesky H = L L^T of the n x n SPD h (column-major, lower triangle
 * in place; the upper is not read); 0, or -1 where a pivot is not
 * positive. */
DENSE_CLONES static int
cholesky(int n, double *h)
{
  for (int k = 0; k < n; k++) {
    double *ck = h + (size_t)k * n;
    if (!(ck[k] > 0.0))
      return -1;
    double lkk = sqrt(ck[k]);
    ck[k] = lkk;
    for (int i = k + 1; i < n; i++)
      ck[i] /= lkk;
    for (int j = k + 1; j < n; j++) {
      double *restrict cj = h + (size_t)j * n; /* columns j > k: apart from ck */
      const double *restrict lk = ck;
      double t = lk[j];
      if (t == 0.0)
        continue;
#ifndef __clang__
#pragma omp simd
#endif
      for (int i = j; i < n; i++)
        cj[i] -= lk[i] * t;
    }
  }
  return 0;
}

/* Solve L L^T x = b in place (cholesky's factor). */
static void
cholesky_solve(int n, const double *l, double *b)
{
  for (int k = 0; k < n; k++) {
    const double *ck = l + (size_t)k * n;
    b[k] /= ck[k];
    for (int i = k + 1; i < n; i++)
      b[i] -= ck[i] * b[k];
  }
  for (int k = n - 1; k >= 0; k--) {
    const double *ck = l + (size_t)k * n;
    double s = b[k];
    for (int i = k + 1; i < n; i++)
      s -= ck[i] * b[i];
    b[k] = s / ck[k];
  }
}

/* G += sum over the block's contacts of df_k S_k S_k^T, the lower
 * triangle (column-major, nm x nm), four contacts a pass: G's columns
 * read and written once per four contacts instead of once per contact
 * (it is nm^2 / 2 doubles, beyond the first-level cache from 64 modes:
 * the update is bound by its traffic). */
DENSE_CLONES static void
gram_update(int nm, double *g, const double *const *row, const double *df, int m)
{
  for (int l = 0; l < nm; l++) {
    double *restrict gl = g + (size_t)l * nm; /* apart from S */
    if (m == 4) {
      const double *restrict r0 = row[0], *restrict r1 = row[1], *restrict r2 = row[2],
                             *restrict r3 = row[3];
      double a0 = df[0] * r0[l], a1 = df[1] * r1[l], a2 = df[2] * r2[l], a3 = df[3] * r3[l];
#ifndef __clang__
#pragma omp simd
#endif
      for (int j = l; j < nm; j++)
        gl[j] += a0 * r0[j] + a1 * r1[j] + a2 * r2[j] + a3 * r3[j];
    } else {
      for (int k = 0; k < m; k++) {
        const double *restrict rk = row[k];
        double a = df[k] * rk[l];
#ifndef __clang__
#pragma omp simd
#endif
        for (int j = l; j < nm; j++)
          gl[j] += a * rk[j];
      }
    }
  }
}

/* The Newton system (I + K_NN D_N) d = b of a lowrank island through the
 * modes in its symmetric positive definite form: with B = S_N diag(sqrt
 * cc) (K_NN = B B^T) and D_N = diag(fbar') >= 0, Woodbury (Hager, SIAM
 * Review 31:221, 1989) gives d = b - B H^-1 B^T D_N b with H = I + B^T D_N
 * B, nm x nm, symmetric and >= I: Cholesky (nm^3 / 3) instead of the LU
 * of dense.c's lowrank_solve (2 nm^3 / 3), and G = S_N^T D_N S_N formed
 * four contacts a pass.  The block is contact act[ix[k]] (act[k] where ix
 * is NULL), fbar' in df[ix[k]]; b[n] is replaced by d.  Scratch:
 * p->gws (nm^2 + nm doubles).  0, or -1 where some cc or fbar' is
 * negative or H is not positive definite (the caller solves by LU). */
int
vb_k_modal_solve(const vb_kproblem *p, int n, const int *act, const int *ix, const double *df,
                 double *b)
{
  int nm = p->nm;
  double *G = p->gws, *t = G + (size_t)nm * nm;
  for (int j = 0; j < nm; j++)
    if (!(p->cc[j] >= 0.0))
      return -1;
  memset(G, 0, (size_t)nm * nm * sizeof *G);
  memset(t, 0, (size_t)nm * sizeof *t);
  const double *row[4];
  double dfs[4];
  int m = 0;
  /* G = S_N^T D S_N (lower triangle), t = S_N^T D b */
  for (int k = 0; k < n; k++) {
    int jk = ix ? ix[k] : k;
    double dfk = df[jk];
    if (dfk == 0.0)
      continue;
    if (!(dfk > 0.0))
      return -1;
    const double *r = p->S + (size_t)act[jk] * p->nmp;
    double bk = dfk * b[k];
    for (int j = 0; j < nm; j++)
      t[j] += r[j] * bk;
    row[m] = r;
    dfs[m++] = dfk;
    if (m == 4) {
      gram_update(nm, G, row, dfs, m);
      m = 0;
    }
  }
  if (m > 0)
    gram_update(nm, G, row, dfs, m);
  /* H = I + diag(sqrt cc) G diag(sqrt cc); y = H^-1 diag(sqrt cc) t */
  double *sq = p->kws; /* sqrt(cc) */
  for (int j = 0; j < nm; j++)
    sq[j] = sqrt(p->cc[j]);
  for (int l = 0; l < nm; l++) {
    double *gl = G + (size_t)l * nm;
    for (int j = l; j < nm; j++)
      gl[j] = (j == l) + sq[j] * gl[j] * sq[l];
  }
  if (cholesky(nm, G) != 0)
    return -1;
  for (int j = 0; j < nm; j++)
    t[j] *= sq[j];
  cholesky_solve(nm, G, t);
  for (int j = 0; j < nm; j++)
    t[j] *= sq[j];
  /* d = b - S_N u, u = diag(sqrt cc) y */
  for (int k = 0; k < n; k++)
    b[k] -= vb_k_row_dot(p, act[ix ? ix[k] : k], t, 0);
  return 0;
}
