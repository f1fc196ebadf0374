/* sav.c - energy quadratisation (invariant energy quadratisation, IEQ, or
 * scalar auxiliary variable, SAV): a contact whose potential V >= 0 is
 * carried by an auxiliary variable psi = sqrt(2 V), stepped with one linear
 * solve per step and no Newton (Ducceschi & Bilbao, DAFx 2019; Bilbao,
 * Ducceschi & Zama, J. Comput. Phys. 472 (2023) 111697, the linearly
 * implicit IEQ scheme of their section on quadratised energies; the stored
 * text of these papers gives no equation numbers, so the update is written
 * out in full here).
 *
 * The bodies are the three-level family's (model.c): M (dtt q + 2 sigma*
 * dt. q + Omega^2 q) = F - S^T f^n, the contact force centred at n.  With
 * psi kept at the half steps and, per contact,
 *   g^n = V'(x^n) / sqrt(2 V(x^n) + eps)                           (S1)
 *   psi^(n+1/2) - psi^(n-1/2) = g^n (x^(n+1) - x^(n-1)) / 2         (S2)
 *   f^n = g^n (psi^(n+1/2) + psi^(n-1/2)) / 2                       (S3)
 * the force is linear in the new compression:
 *   f^n = g^n psi^(n-1/2) + (g^n)^2 (x^(n+1) - x^(n-1)) / 4,
 * so with the island's step compliance K (x^(n+1) = xt - K f, the
 * K-method's predicted compressions xt) the step is the linear system
 *   (I + K diag(b)) y = (xt - x^(n-1)) - K a,   y = x^(n+1) - x^(n-1),
 *   a = g psi^(n-1/2),  b = g^2 / 4,                                (S4)
 * solved once (one contact: y = r / (1 + K b)); I + K diag(b) is
 * nonsingular for K symmetric positive semi-definite and b >= 0.  Only the
 * contacts with g != 0 enter it; the others exert no force this step.
 *
 * Energy: multiplying (S3) by (x^(n+1) - x^(n-1)) / 2 and using (S2),
 * f^n (x^(n+1) - x^(n-1)) / 2 = ((psi^(n+1/2))^2 - (psi^(n-1/2))^2) / 2,
 * so the three-level energy of the modes plus sum psi^2/2 (minus eps/2)
 * is conserved exactly for a lossless island, whatever V (the modified
 * energy the island records as potential).  psi itself drifts from its
 * definition: the run reports max |psi^(n+1/2) - (phi(x^(n+1)) +
 * phi(x^n)) / 2|, phi = sqrt(2 V + eps) (J^(1/2); vb_run_state_drift).
 *
 * eps: Ducceschi & Bilbao add eps > 0 to keep psi away from 0.  For the
 * one-sided power law V = k/(a+1) [x]^(a+1), V'/sqrt(2 V) = sqrt(k (a+1)/2)
 * [x]^((a-1)/2) is bounded at x -> 0+, so eps = 0 here and g = 0 where
 * V = 0 (out of contact); the modified energy then has no eps/2 to take
 * away and psi = 0 before the first impact.
 *
 * Laws: any undamped law with impacts (power, hunt-crossley and rattle with
 * mu = 0, lankarani-nikravesh and flores with e = 1); damping is refused,
 * and so are the always-engaged laws (polynomial, spring), whose g jumps
 * where V = 0 at alpha = 1.
 * The force g f^n is explicit in g: a contact acts from the step after the
 * compression first turns positive (g^n = 0 before), so a contact needs
 * at least 2 steps to be seen at all. */
#include <math.h>
#include <stdio.h>
#include "base/base.h"
#include "scheme.h"

/* phi = sqrt(2 V(x)), J^(1/2) (eps = 0). */
static double
phi(const vb_law *law, double x)
{
  return sqrt(2.0 * vb_law_potential(law, x));
}

/* (S1) g = V'(x) / sqrt(2 V(x)), 0 where V = 0, J^(1/2)/m. */
static double
slope(const vb_law *law, double x)
{
  double v = vb_law_potential(law, x);
  return v > 0.0 ? vb_law_elastic(law, x) / sqrt(2.0 * v) : 0.0;
}

/* (S3) with (S2): the force centred at n for a new compression x1, N. */
static double
step_force(const vb_contact *ct, const vb_chist *h, double dt, double x1, double *dfdx)
{
  (void)dt;
  double g = slope(&ct->law, h->x);
  *dfdx = 0.25 * g * g;
  return g * h->st[0] + 0.25 * g * g * (x1 - h->xm);
}

/* psi^(-1/2) = (phi(x^0) + phi(x^(-1))) / 2: on its definition at the
 * start. */
static void
start(const vb_contact *ct, const vb_chist *h, double *st)
{
  st[0] = 0.5 * (phi(&ct->law, h->x) + phi(&ct->law, h->xm));
}

/* (S2). */
static void
advance(const vb_contact *ct, const vb_chist *h, double dt, double x1, double *st)
{
  (void)dt;
  st[0] += 0.5 * slope(&ct->law, h->x) * (x1 - h->xm);
}

/* |psi^(n+1/2) - (phi(x^(n+1)) + phi(x^n)) / 2|, J^(1/2). */
static double
state_drift(const vb_contact *ct, const vb_chist *h)
{
  return fabs(h->st[0] - 0.5 * (phi(&ct->law, h->x) + phi(&ct->law, h->xm)));
}

/* The contact's part of the modified energy: psi^2 / 2, J. */
static double
potential(const vb_contact *ct, const vb_chist *h)
{
  (void)ct;
  return 0.5 * h->st[0] * h->st[0];
}

/* Lossless: nothing is dissipated. */
static double
dissipation(const vb_contact *ct, const vb_chist *h, double dt, double x1, double fbar)
{
  (void)ct, (void)h, (void)dt, (void)x1, (void)fbar;
  return 0.0;
}

/* An undamped law that is not always engaged: no damping coefficient,
 * none set at an onset, and V = 0 over a range (an always-engaged law
 * with alpha = 1 has V'/sqrt(2 V) jump at x = 0, which eps = 0 cannot
 * step). */
static int
accepts(const vb_contact *ct, char *why, size_t len)
{
  const vb_law *law = &ct->law;
  const vb_law_info *info = vb_law_info_of(law->kind);
  int damped = info->onset_damping ? info->onset_damping(law->e) != 0.0
                                   : vb_law_damping(law, 1.0) != 0.0;
  if (info->always_engaged)
    snprintf(why, len,
             "a law with impacts, not law '%s' (valid: power, hunt-crossley or rattle with "
             "mu = 0, or another scheme)",
             info->name);
  else if (damped)
    snprintf(why, len,
             "an undamped law: it conserves energy and has no dissipation (valid: law '%s' "
             "without damping, e.g. mu = 0 or e = 1, or another scheme)",
             info->name);
  return !damped && !info->always_engaged;
}

/* Solve the reduced system (S4) of na active contacts in place: jac
 * [na][na] row-major, rhs [na] receives y; Gaussian elimination with
 * partial pivoting.  VB_OK or VB_EDIVERGED (singular or not finite). */
static int
gauss(int na, double *jac, double *rhs)
{
  for (int k = 0; k < na; k++) {
    int p = k;
    for (int i = k + 1; i < na; i++)
      if (fabs(jac[i * na + k]) > fabs(jac[p * na + k]))
        p = i;
    if (!(fabs(jac[p * na + k]) > 0.0) || !isfinite(jac[p * na + k]))
      return VB_EDIVERGED;
    if (p != k) {
      for (int j = 0; j < na; j++) {
        double t = jac[k * na + j];
        jac[k * na + j] = jac[p * na + j];
        jac[p * na + j] = t;
      }
      double t = rhs[k];
      rhs[k] = rhs[p];
      rhs[p] = t;
    }
    for (int i = k + 1; i < na; i++) {
      double l = jac[i * na + k] / jac[k * na + k];
      for (int j = k + 1; j < na; j++)
        jac[i * na + j] -= l * jac[k * na + j];
      rhs[i] -= l * rhs[k];
    }
  }
  for (int k = na - 1; k >= 0; k--) {
    double r = rhs[k];
    for (int j = k + 1; j < na; j++)
      r -= jac[k * na + j] * rhs[j];
    rhs[k] = r / jac[k * na + k];
  }
  return VB_OK;
}

/* (S4): one linear solve over the contacts with g != 0.  Scratch: fbar
 * holds a, x1 holds b, piv the active contacts, until the end. */
static int
solve_linear(const vb_kproblem *p)
{
  int nc = p->nc, na = 0;
  double *a = p->fbar, *b = p->x1;
  for (int c = 0; c < nc; c++) {
    const vb_chist *h = &p->hist[c];
    double g = slope(&p->cts[c].law, h->x);
    a[c] = g * h->st[0];
    b[c] = 0.25 * g * g;
    p->iterations[c] = 0;
    p->fallback[c] = 0;
    if (g != 0.0)
      p->piv[na++] = c;
  }
  for (int i = 0; i < na; i++) {
    int c = p->piv[i];
    double r = p->xt[c] - p->hist[c].xm;
    for (int j = 0; j < na; j++) {
      int d = p->piv[j];
      r -= p->K[c * nc + d] * a[d];
      p->jac[i * na + j] = (i == j) + p->K[c * nc + d] * b[d];
    }
    p->rhs[i] = r;
  }
  int rc = na == 1 ? (p->rhs[0] /= p->jac[0], isfinite(p->rhs[0]) ? VB_OK : VB_EDIVERGED)
                   : gauss(na, p->jac, p->rhs);
  if (rc != VB_OK) {
    /* nothing solved: the run names the contact whose compression is NaN */
    for (int c = 0; c < nc; c++)
      p->x1[c] = NAN;
    return rc;
  }
  for (int i = 0; i < na; i++) {
    int c = p->piv[i];
    a[c] += b[c] * p->rhs[i]; /* (S3): f = a + b y */
  }
  for (int c = 0; c < nc; c++) {
    double x = p->xt[c];
    for (int i = 0; i < na; i++)
      x -= p->K[c * nc + p->piv[i]] * a[p->piv[i]];
    p->x1[c] = x;
  }
  return VB_OK;
}

static const vb_scheme_ops ops = {
    .nstate = 1,
    .start = start,
    .advance = advance,
    .state_drift = state_drift,
    .step_force = step_force,
    .held_force = vb_three_level_held_force,
    .dissipation = dissipation,
    .potential = potential,
    .solve_linear = solve_linear,
    .accepts = accepts,
};

const vb_scheme vb_scheme_sav = {
    .name = "sav",
    .doc = "energy quadratisation (scalar auxiliary variable psi = sqrt(2V)), one linear solve "
           "per step (Ducceschi & Bilbao 2019; Bilbao, Ducceschi & Zama 2023)",
    .family = VB_FAMILY_SAV,
    /* what it achieves, not the centred update's formal 2: g^n = V'/sqrt(2V)
     * at x^n (eps = 0) is first order across an onset and a release; an
     * oscillator hitting a stop converges at 1.22 against DOP853 with event
     * location, two-point at 2.00 (tests/solvers/sav_order.py) */
    .order = 1,
    .min_contact_steps = 2,
    .energy_conserving = 1,
    .ops = &ops,
};
