/* kmethod.c - the K-method: a step's contact forces of an implicit island.
 *
 * The modes give each contact a predicted compression xt and the step a
 * constant compliance matrix K (K_cd = sum_j S_cj S_dj cc_j), so that the
 * new compressions solve x1 = xt - K fbar(x1) (Borin, De Poli & Rocchesso;
 * Avanzini).  One contact: the scheme's closed form (quadratic) or scalar
 * Newton.  Up to 16 contacts: Newton with a dense LU of I + K diag(fbar').
 * More: block Gauss-Seidel over the contacts.  Simultaneous impacts are
 * thus solved as one coupled problem. */
#include <math.h>
#include "internal.h"
#include "scheme.h"

#define DENSE_MAX 16

/* Whether a contact could exert a force this step. */
int
vb_kmethod_may_act(const vb_contact *ct, const vb_chist *h, double xt, int three)
{
  const vb_law *law = &ct->law;
  return vb_law_engaged(law, xt) || vb_law_engaged(law, h->x) ||
         (three && vb_law_engaged(law, h->xm));
}

typedef struct {
  const vb_contact *ct;
  const vb_scheme *scheme;
  const vb_chist *h;
  double dt, e, w;
} scalar_problem;

/* y - e + w F(y). */
static double
scalar_residual(double y, void *data, double *dr)
{
  const scalar_problem *p = data;
  double df;
  double f = p->scheme->ops->step_force(p->ct, p->h, p->dt, y, &df);
  *dr = 1.0 + p->w * df;
  return y - p->e + p->w * f;
}

/* Solve one contact: x1 = e - w F(x1).  A scheme's closed form first
 * (quadratic); where it has no real root the scheme's fallback steps the
 * contact (three-point). */
static int
solve_one(const vb_kproblem *p, int c, double e, double w, double *x1)
{
  const vb_contact *ct = &p->cts[c];
  const vb_scheme *sch = ct->scheme;
  const vb_chist *h = &p->hist[c];
  p->fallback[c] = 0;
  p->iterations[c] = 0;
  if (sch->ops->solve_single) {
    int rc = sch->ops->solve_single(ct, h, p->dt, e, w, x1);
    if (rc != VB_EDISCRIM)
      return rc;
    p->fallback[c] = 1;
    sch = sch->fallback;
  }
  scalar_problem sp = {ct, sch, h, p->dt, e, w};
  double scale = fabs(h->x) + fabs(e - h->x) + 1e-300;
  return vb_newton_solve(scalar_residual, &sp, e, scale, ct->tolerance, ct->max_iterations, x1,
                         &p->iterations[c]);
}

/* The force function of contact c as it is being solved this step. */
static double
force_of(const vb_kproblem *p, int c, double x1, double *df)
{
  const vb_contact *ct = &p->cts[c];
  const vb_scheme *sch = p->fallback[c] ? ct->scheme->fallback : ct->scheme;
  return sch->ops->step_force(ct, &p->hist[c], p->dt, x1, df);
}

/* LU with partial pivoting of the n x n matrix a; 0 if singular. */
static int
lu_factor(double *a, int *piv, int n)
{
  for (int k = 0; k < n; k++) {
    int p = k;
    for (int i = k + 1; i < n; i++)
      if (fabs(a[i * n + k]) > fabs(a[p * n + k]))
        p = i;
    piv[k] = p;
    if (a[p * n + k] == 0.0)
      return 0;
    if (p != k)
      for (int j = 0; j < n; j++) {
        double t = a[k * n + j];
        a[k * n + j] = a[p * n + j];
        a[p * n + j] = t;
      }
    for (int i = k + 1; i < n; i++) {
      double l = a[i * n + k] /= a[k * n + k];
      for (int j = k + 1; j < n; j++)
        a[i * n + j] -= l * a[k * n + j];
    }
  }
  return 1;
}

static void
lu_solve(const double *a, const int *piv, int n, double *b)
{
  for (int k = 0; k < n; k++) {
    double t = b[piv[k]];
    b[piv[k]] = b[k];
    b[k] = t;
    for (int i = k + 1; i < n; i++)
      b[i] -= a[i * n + k] * b[k];
  }
  for (int k = n - 1; k >= 0; k--) {
    for (int j = k + 1; j < n; j++)
      b[k] -= a[k * n + j] * b[j];
    b[k] /= a[k * n + k];
  }
}

/* Newton on x1 = xt - K F(x1) for all contacts together (dense LU), from
 * xt, or from the current x1 (keeping each contact's fall-back choice)
 * when `resume` is set. */
static int
solve_dense(const vb_kproblem *p, int resume)
{
  int nc = p->nc, maxit = 0;
  double *x1 = p->x1, *J = p->jac, *r = p->rhs;
  for (int c = 0; c < nc; c++) {
    const vb_contact *ct = &p->cts[c];
    if (!resume) {
      x1[c] = p->xt[c];
      p->fallback[c] = 0;
      p->iterations[c] = 0;
    }
    if (ct->max_iterations > maxit)
      maxit = ct->max_iterations;
  }
  for (int it = 1; it <= maxit; it++) {
    for (int c = 0; c < nc; c++) {
      double df;
      p->fbar[c] = force_of(p, c, x1[c], &df);
      p->rhs[c] = df; /* stash F' */
    }
    for (int c = 0; c < nc; c++)
      for (int d = 0; d < nc; d++)
        J[c * nc + d] = (c == d) + p->K[c * nc + d] * p->rhs[d];
    int converged = 1;
    for (int c = 0; c < nc; c++) {
      double s = 0.0;
      for (int d = 0; d < nc; d++)
        s += p->K[c * nc + d] * p->fbar[d];
      r[c] = -(x1[c] - p->xt[c] + s);
    }
    if (!lu_factor(J, p->piv, nc))
      return VB_ENOCONV;
    lu_solve(J, p->piv, nc, r);
    for (int c = 0; c < nc; c++) {
      const vb_contact *ct = &p->cts[c];
      const vb_chist *h = &p->hist[c];
      double scale = fabs(h->x) + fabs(p->xt[c] - h->x) + 1e-300;
      x1[c] += r[c];
      p->iterations[c] += 1;
      if (!isfinite(x1[c]))
        return VB_EDIVERGED;
      if (fabs(r[c]) > ct->tolerance * fmax(fabs(x1[c]), scale))
        converged = 0;
    }
    if (converged)
      return VB_OK;
  }
  return VB_ENOCONV;
}

/* Block Gauss-Seidel over many contacts: each solved in turn with the
 * others' forces fixed (warm-started from the previous step's forces),
 * sweeps until no compression moves. */
static int
solve_gauss_seidel(const vb_kproblem *p)
{
  int nc = p->nc, maxit = 0, rc = VB_OK;
  for (int c = 0; c < nc; c++) {
    p->x1[c] = p->xt[c];
    p->fallback[c] = 0;
    p->iterations[c] = 0;
    int m = p->cts[c].max_iterations;
    if (m > maxit)
      maxit = m;
  }
  for (int sweep = 1; sweep <= maxit; sweep++) {
    int converged = 1;
    for (int c = 0; c < nc; c++) {
      const vb_contact *ct = &p->cts[c];
      double e = p->xt[c], w = p->K[c * nc + c], y, df;
      for (int d = 0; d < nc; d++)
        if (d != c)
          e -= p->K[c * nc + d] * p->fbar[d];
      if (!vb_kmethod_may_act(ct, &p->hist[c], e, p->three)) {
        y = e;
        p->fbar[c] = 0.0;
      } else {
        int its = p->iterations[c];
        rc = solve_one(p, c, e, w, &y);
        if (rc == VB_EDIVERGED)
          return rc;
        p->iterations[c] += its;
        p->fbar[c] = force_of(p, c, y, &df);
      }
      double scale = fabs(p->hist[c].x) + fabs(e - p->hist[c].x) + 1e-300;
      if (fabs(y - p->x1[c]) > ct->tolerance * fmax(fabs(y), scale))
        converged = 0;
      p->x1[c] = y;
    }
    if (converged)
      return rc;
  }
  return VB_ENOCONV;
}

/* Solve a step's contacts. */
int
vb_kmethod_solve(const vb_kproblem *p)
{
  int nc = p->nc, rc;
  if (nc == 1) {
    double w = p->K[0];
    rc = solve_one(p, 0, p->xt[0], w, &p->x1[0]);
    /* the force consistent with the modes' linear response */
    p->fbar[0] = (p->xt[0] - p->x1[0]) / w;
    return rc;
  }
  /* dense Newton for a few contacts; block Gauss-Seidel for many, and for
   * any island with a closed-form contact (the quadratic scheme), whose
   * root rule must pick each contact's root */
  int closed = 0;
  for (int c = 0; c < nc; c++)
    closed |= p->cts[c].scheme->ops->solve_single != NULL;
  if (nc <= DENSE_MAX && !closed) {
    rc = solve_dense(p, 0);
  } else {
    rc = solve_gauss_seidel(p);
    /* strongly coupled contacts: polish the Gauss-Seidel iterate by Newton */
    if (rc == VB_ENOCONV && nc <= DENSE_MAX)
      rc = solve_dense(p, 1);
  }
  if (rc == VB_EDIVERGED)
    return rc;
  for (int c = 0; c < nc; c++) {
    double df;
    p->fbar[c] = force_of(p, c, p->x1[c], &df);
  }
  return rc;
}
