/* moreau_jean.c - Moreau-Jean time stepping of rigid contacts (Moreau 1988;
 * Jean 1999; Acary & Brogliato 2008, "Numerical Methods for Nonsmooth
 * Dynamical Systems", section 10.1; doc/rigid.md).
 *
 * The nonsmooth family steps the modes by the two-level family's
 * trapezoidal rule (Moreau-Jean's theta-method at theta = 1/2, with the
 * pre-warped omega and sigma of island/modes.c) and the contacts by an
 * impulse P = dt fbar over the step, at velocity level.  With the
 * K-method's relation x1 = xt - K fbar and the trapezoidal rate at n+1,
 * rate1 = 2 (x1 - x) / dt + roff, the compression rates at n+1 are linear
 * in the impulses.  For the contacts of the index set I (those predicted
 * to close at the step's middle, x + dt rate / 2 >= 0: Acary & Brogliato's
 * prediction q_k + gamma h v_k with gamma = 1/2, as Siconos's default; an
 * elastic contact then turns at most dt v / 2 before the barrier, a
 * plastic one stops at most dt v / 2 past it)
 * Newton's impact law holds as a complementarity at velocity level
 * (their eq 10.9), with U = -rate the gap's rate:
 *   0 <= U^(n+1) + e U^n _|_ P >= 0
 * (U^n as it is, also where the contact opens at n: then a contact that
 * the free motion closes within the step leaves it approaching at e |U^n|,
 * as in the book and Siconos; doc/rigid.md says what that costs).  In
 * the compressions this is, for c in I,
 *   w_c = (K fbar)_c - b_c >= 0,  fbar_c >= 0,  fbar_c w_c = 0,
 *   b_c = xt_c - x_c + dt/2 (roff_c + e_c rate_c),
 * an LCP with the symmetric positive semi-definite K.  One contact is
 * solved in closed form; several by projected Gauss-Seidel (Jean & Moreau
 * 1992), whose active set is then solved exactly (LU) and kept if it
 * satisfies the LCP.  A contact outside I that the others' impulses close
 * (its free prediction xt open, its x1 >= 0) joins I and the step is
 * solved again; one that its own free motion closes by the step's end
 * waits for the next step's middle, as the index set says.
 *
 * Energy: the contact holds no potential, the bodies' trapezoidal energy
 * changes by -fbar (x1 - x) + fbar (xd1 - xd) (the walls' part, external
 * work), so a step dissipates exactly fbar (x1 - x) = fbar dt (1 - e) rate / 2
 * (x1 - x = dt (rate + rate1) / 2 on a fixed wall): for one contact on a
 * fixed wall (1 - e^2) m rate^2 / 2, Newton's loss; nothing at e = 1. */
#include <math.h>
#include <stdio.h>
#include "base/base.h"
#include "scheme.h"

/* Sweeps of the Gauss-Seidel at most, beyond the contact's max_iterations
 * (a Newton cap of 50 is too few sweeps for a chain of contacts). */
#define SWEEPS_MIN 1000

/* The contacts to solve: the set's, or all. */
static int
member(const vb_kproblem *p, int k)
{
  return p->set ? p->set[k] : k;
}

/* b_c of contact c (above), m. */
static double
demand(const vb_kproblem *p, int c)
{
  const vb_chist *h = &p->hist[c];
  return p->xt[c] - h->x + 0.5 * p->dt * (h->roff + p->cts[c].law.e * h->rate);
}

/* (K f)_c over the contacts of the index set (fallback[d] = 1), m. */
static double
kdot(const vb_kproblem *p, int c)
{
  int nc = p->nc, n = p->set ? p->nset : nc;
  double s = 0.0;
  for (int k = 0; k < n; k++) {
    int d = member(p, k);
    if (p->fallback[d] && p->fbar[d] != 0.0)
      s += p->K[(size_t)c * nc + d] * p->fbar[d];
  }
  return s;
}

/* Projected Gauss-Seidel over the index set, fbar from its start; the
 * sweeps taken, or -1 when the cap was hit. */
static int
gauss_seidel(const vb_kproblem *p, const double *b, double tol, int cap)
{
  int nc = p->nc, n = p->set ? p->nset : nc;
  for (int sweep = 1; sweep <= cap; sweep++) {
    double change = 0.0, scale = 0.0;
    for (int k = 0; k < n; k++) {
      int c = member(p, k);
      if (!p->fallback[c])
        continue;
      double kcc = p->K[(size_t)c * nc + c];
      double r = b[c] - kdot(p, c); /* > 0: c needs more impulse */
      double f = kcc > 0.0 ? fmax(0.0, p->fbar[c] + r / kcc) : 0.0;
      change = fmax(change, fabs(f - p->fbar[c]));
      p->fbar[c] = f;
      scale = fmax(scale, f);
    }
    if (!(change > tol * scale))
      return sweep;
  }
  return -1;
}

/* The exact solution on Gauss-Seidel's active set A = {fbar > 0}: K_AA
 * f_A = b_A by LU, kept when f_A >= 0 and every other member of the set
 * has w >= 0 (to tol of the demands' scale).  1 if kept. */
static int
polish(const vb_kproblem *p, const double *b, double tol)
{
  int nc = p->nc, n = p->set ? p->nset : nc, na = 0;
  int *act = p->iterations; /* scratch until the end of the solve */
  double bscale = 0.0;
  for (int k = 0; k < n; k++) {
    int c = member(p, k);
    if (p->fallback[c]) {
      bscale = fmax(bscale, fabs(b[c]));
      if (p->fbar[c] > 0.0)
        act[na++] = c;
    }
  }
  if (na == 0)
    return 1;
  double *a = p->jac, *f = p->rhs;
  for (int j = 0; j < na; j++) {
    for (int i = 0; i < na; i++)
      a[(size_t)j * na + i] = p->K[(size_t)act[i] * nc + act[j]];
    f[j] = b[act[j]];
  }
  if (vb_dense_lu(na, a, p->piv) != 0)
    return 0;
  vb_dense_lu_solve(na, a, p->piv, f);
  for (int j = 0; j < na; j++)
    if (!(f[j] >= 0.0))
      return 0;
  /* the others of the set must not be pushed into contact */
  for (int k = 0; k < n; k++) {
    int c = member(p, k);
    if (!p->fallback[c] || p->fbar[c] > 0.0)
      continue;
    double w = -b[c];
    for (int j = 0; j < na; j++)
      w += p->K[(size_t)c * nc + act[j]] * f[j];
    if (w < -tol * bscale)
      return 0;
  }
  for (int j = 0; j < na; j++)
    p->fbar[act[j]] = f[j];
  return 1;
}

/* Solve a step's impulses (the nonsmooth family's solve, above).  Scratch:
 * fallback marks the index set and x1 holds the demands b until the end;
 * iterations, jac, rhs and piv are the polish's. */
static int
solve_impulse(const vb_kproblem *p)
{
  int nc = p->nc, n = p->set ? p->nset : nc, sweeps = 0, rc = VB_OK;
  double *b = p->x1, tol = 1e-12;
  int cap = SWEEPS_MIN;
  for (int k = 0; k < n; k++) {
    int c = member(p, k);
    p->fbar[c] = 0.0;
    /* the index set: closed at the step's middle */
    p->fallback[c] = p->hist[c].x + 0.5 * p->dt * p->hist[c].rate >= 0.0;
    b[c] = demand(p, c);
    tol = fmin(tol, p->cts[c].tolerance);
    cap = cap > p->cts[c].max_iterations ? cap : p->cts[c].max_iterations;
  }
  for (int round = 0; round <= n; round++) {
    int in = 0, c0 = -1;
    for (int k = 0; k < n; k++)
      if (p->fallback[member(p, k)]) {
        in++;
        c0 = member(p, k);
      }
    if (in == 1) {
      /* one contact: the closed form */
      double kcc = p->K[(size_t)c0 * nc + c0];
      p->fbar[c0] = kcc > 0.0 && b[c0] > 0.0 ? b[c0] / kcc : 0.0;
      sweeps = 1;
    } else if (in > 1) {
      int s = gauss_seidel(p, b, tol, cap);
      sweeps = s < 0 ? cap : s;
      if (!polish(p, b, 1e-9) && s < 0)
        rc = VB_ENOCONV;
    }
    /* a contact outside the set that the impulses close joins it */
    int joined = 0;
    for (int k = 0; k < n; k++) {
      int c = member(p, k);
      if (!p->fallback[c] && p->xt[c] < 0.0 && p->xt[c] - kdot(p, c) >= 0.0) {
        p->fallback[c] = 1;
        joined = 1;
      }
    }
    if (!joined)
      break;
  }
  int bad = 0;
  for (int k = 0; k < n; k++) {
    int c = member(p, k);
    int in = p->fallback[c];
    p->x1[c] = p->xt[c] - kdot(p, c);
    p->iterations[c] = in ? sweeps : 0;
    bad |= !isfinite(p->fbar[c]) || !isfinite(p->x1[c]);
  }
  for (int k = 0; k < n; k++)
    p->fallback[member(p, k)] = 0;
  return bad ? VB_EDIVERGED : rc;
}

/* The recording shows the step's mean force, the impulse over dt, N. */
static double
held_force(const vb_contact *ct, const vb_chist *h, double dt, double x1, double fbar)
{
  (void)ct, (void)h, (void)dt, (void)x1;
  return fbar;
}

/* What the impulse took from the bodies, fbar (x1 - x), J: Newton's loss
 * (above). */
static double
dissipation(const vb_contact *ct, const vb_chist *h, double dt, double x1, double fbar)
{
  (void)ct, (void)dt;
  return fbar * (x1 - h->x);
}

/* A rigid contact holds no potential. */
static double
potential(const vb_contact *ct, const vb_chist *h)
{
  (void)ct, (void)h;
  return 0.0;
}

/* Rigid laws only (the family's contacts are impulses). */
static int
accepts(const vb_contact *ct, char *why, size_t len)
{
  const vb_law_info *info = vb_law_info_of(ct->law.kind);
  if (!info->rigid)
    snprintf(why, len, "a rigid law, not law '%s' (valid: law 'rigid', or another scheme)",
             info->name);
  return info->rigid;
}

static const vb_scheme_ops ops = {
    .held_force = held_force,
    .dissipation = dissipation,
    .potential = potential,
    .solve_impulse = solve_impulse,
    .accepts = accepts,
};

const vb_scheme vb_scheme_moreau_jean = {
    .name = "moreau-jean",
    .doc = "Moreau-Jean time stepping of rigid contacts: trapezoidal modes (theta = 1/2), "
           "Newton's impact law as an LCP in the impulses (Acary & Brogliato 2008 eq 10.9)",
    .family = VB_FAMILY_NONSMOOTH,
    /* first order at impacts (an impact is placed at a step's end) */
    .order = 1,
    .min_contact_steps = 0,
    .energy_conserving = 1, /* at e = 1: every impulse is lossless (above) */
    /* friction (lib/island/friction.c) bounded by fbar = P / dt: the
     * tangential impulse of a step within mu P, Moreau's impulse cone, the
     * law at the slip at n+1 (Acary & Brogliato section 10.1), its work
     * the impulse times the step's mean slip (bounded below:
     * doc/rigid.md, "The friction work of a step") */
    .friction = 1,
    .ops = &ops,
};
