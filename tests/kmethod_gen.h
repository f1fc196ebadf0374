/* kmethod_gen.h - random K-method problems (vb_kproblem) for the tests of
 * solvers/kmethod.c: check_kmethod.c solves them and checks the residual,
 * kmethod_dump.c writes them with vibro's answer for tests/kmethod.py,
 * which solves them again with scipy.
 *
 * A problem of n contacts couples them through m >= n modes: the step
 * compliance K = S diag(cc) S^T (m/N) with random shapes S and positive
 * modal compliances cc, so K is symmetric positive definite as in the
 * library (lib/island/model.c).  Each contact gets a random law (power,
 * Hunt-Crossley or spring), a random history and a predicted compression
 * near its barrier, so that some contacts act and some do not. */
#ifndef VIBRO_KMETHOD_GEN_H
#define VIBRO_KMETHOD_GEN_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/base.h"
#include "scheme.h"

/* Which laws a problem draws from. */
enum { KG_POWER = 1, KG_HUNT_CROSSLEY = 2, KG_SPRING = 4 };

/* One random problem and the storage it points into. */
typedef struct {
  int n, m;
  double *S, *cc, *K, *xt, *x1, *fbar, *jac, *rhs;
  vb_contact *cts;
  vb_chist *hist;
  int *iterations, *fallback, *piv;
  vb_kproblem p;
} kg_problem;

/* splitmix64: the next 64 random bits of *s. */
static inline uint64_t
kg_next(uint64_t *s)
{
  uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/* Uniform in [0, 1). */
static inline double
kg_uniform(uint64_t *s)
{
  return (kg_next(s) >> 11) * 0x1.0p-53;
}

/* Uniform in [a, b). */
static inline double
kg_range(uint64_t *s, double a, double b)
{
  return a + (b - a) * kg_uniform(s);
}

/* Free a problem's storage. */
static inline void
kg_free(kg_problem *g)
{
  free(g->S);
  free(g->cc);
  free(g->K);
  free(g->xt);
  free(g->x1);
  free(g->fbar);
  free(g->jac);
  free(g->rhs);
  free(g->cts);
  free(g->hist);
  free(g->iterations);
  free(g->fallback);
  free(g->piv);
}

/* A random problem of n contacts stepped by `scheme` with laws from the
 * set `laws` (KG_ flags), from seed; 0, or -1 when out of memory.  dt is
 * 1/44100 s; compressions are of the order of X0 = 1e-5 m; the contacts'
 * compliance K_cc is between 1e-9 and 1e-5 m/N and their stiffness
 * between 1e6 and 1e12 N/m^alpha (alpha 1 to 3), so that K F' ranges from
 * far below to far above 1 (weak to strong coupling). */
static inline int
kg_make(kg_problem *g, uint64_t seed, int n, const vb_scheme *scheme, int laws)
{
  uint64_t s = seed * 0x2545F4914F6CDD1Dull + (uint64_t)n;
  const double dt = 1.0 / 44100.0, X0 = 1e-5;
  memset(g, 0, sizeof *g);
  int m = n + (int)(kg_next(&s) % (uint64_t)(n + 1));
  g->n = n;
  g->m = m;
  size_t nn = (size_t)n * n;
  g->S = malloc((size_t)n * m * sizeof(double));
  g->cc = malloc((size_t)m * sizeof(double));
  g->K = calloc(nn, sizeof(double));
  g->xt = calloc(n, sizeof(double));
  g->x1 = calloc(n, sizeof(double));
  g->fbar = calloc(n, sizeof(double));
  g->jac = calloc(nn, sizeof(double));
  g->rhs = calloc(n, sizeof(double));
  g->cts = calloc(n, sizeof(vb_contact));
  g->hist = calloc(n, sizeof(vb_chist));
  g->iterations = calloc(n, sizeof(int));
  g->fallback = calloc(n, sizeof(int));
  g->piv = calloc(n, sizeof(int));
  if (!g->S || !g->cc || !g->K || !g->xt || !g->x1 || !g->fbar || !g->jac || !g->rhs || !g->cts ||
      !g->hist || !g->iterations || !g->fallback || !g->piv) {
    kg_free(g);
    return -1;
  }
  /* K = S diag(cc) S^T, scaled to a random compliance level */
  double level = pow(10.0, kg_range(&s, -9.0, -5.0));
  for (int j = 0; j < m; j++)
    g->cc[j] = level * pow(10.0, kg_range(&s, -1.0, 1.0)) / m;
  for (size_t k = 0; k < (size_t)n * m; k++)
    g->S[k] = kg_range(&s, -1.0, 1.0);
  for (int c = 0; c < n; c++)
    for (int d = 0; d < n; d++) {
      double sum = 0.0;
      for (int j = 0; j < m; j++)
        sum += g->S[c * m + j] * g->S[d * m + j] * g->cc[j];
      g->K[c * n + d] = sum;
    }
  int three = scheme->family == VB_FAMILY_THREE_LEVEL;
  int kinds[3], nk = 0;
  if (laws & KG_POWER)
    kinds[nk++] = VB_LAW_POWER;
  if (laws & KG_HUNT_CROSSLEY)
    kinds[nk++] = VB_LAW_HUNT_CROSSLEY;
  if (laws & KG_SPRING)
    kinds[nk++] = VB_LAW_SPRING;
  for (int c = 0; c < n; c++) {
    vb_contact *ct = &g->cts[c];
    snprintf(ct->name, sizeof ct->name, "c%d", c);
    ct->law.kind = kinds[kg_next(&s) % (uint64_t)nk];
    ct->law.k = pow(10.0, kg_range(&s, 6.0, 12.0));
    ct->law.alpha = ct->law.kind == VB_LAW_SPRING ? 1.0 : kg_range(&s, 1.0, 3.0);
    if (ct->law.kind == VB_LAW_HUNT_CROSSLEY)
      ct->law.mu = kg_range(&s, 0.0, 1.0);
    if (ct->law.kind == VB_LAW_SPRING)
      ct->law.c = kg_range(&s, 0.0, 1.0) * ct->law.k * dt;
    ct->scheme = scheme;
    ct->s = 0.5;
    ct->tolerance = 1e-12;
    ct->max_iterations = 50;
    vb_chist *h = &g->hist[c];
    h->x = kg_range(&s, -1.0, 1.0) * X0;
    h->rate = kg_range(&s, -1.0, 1.0) * X0 / dt;
    h->xm = h->x - h->rate * dt;
    h->roff = -h->rate;
    h->f = vb_law_force(&ct->law, h->x, h->rate);
    g->xt[c] = h->x + kg_range(&s, -2.0, 2.0) * X0;
  }
  g->p = (vb_kproblem){
      .nc = n,
      .three = three,
      .dt = dt,
      .K = g->K,
      .xt = g->xt,
      .cts = g->cts,
      .hist = g->hist,
      .x1 = g->x1,
      .fbar = g->fbar,
      .iterations = g->iterations,
      .fallback = g->fallback,
      .jac = g->jac,
      .rhs = g->rhs,
      .piv = g->piv,
  };
  return 0;
}

/* The largest residual of a solved problem, |x1 + K fbar(x1) - xt| of each
 * contact relative to the scale of its round-off, |x1| + |xt| + sum_d
 * |K_cd| (|fbar_d| + |fbar'_d x1_d|) (a force such as the spring's
 * k (x1 + x0)/2 may cancel to far below its terms), with fbar evaluated
 * afresh by the scheme at x1 (the fallback where the solve took it). */
static inline double
kg_residual(const kg_problem *g)
{
  int n = g->n;
  double worst = 0.0;
  double *f = malloc(2 * (size_t)n * sizeof(double)), *fs = f + n;
  if (!f)
    return INFINITY;
  for (int d = 0; d < n; d++) {
    const vb_contact *ct = &g->cts[d];
    const vb_scheme *sch = g->fallback[d] ? ct->scheme->fallback : ct->scheme;
    double df;
    f[d] = sch->ops->step_force(ct, &g->hist[d], g->p.dt, g->x1[d], &df);
    fs[d] = fabs(f[d]) + fabs(df * g->x1[d]);
  }
  for (int c = 0; c < n; c++) {
    double r = g->x1[c] - g->xt[c], scale = fabs(g->x1[c]) + fabs(g->xt[c]);
    for (int d = 0; d < n; d++) {
      r += g->K[c * n + d] * f[d];
      scale += fabs(g->K[c * n + d]) * fs[d];
    }
    double rel = fabs(r) / scale;
    if (!(rel <= worst))
      worst = rel;
  }
  free(f);
  return worst;
}

#endif
