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
