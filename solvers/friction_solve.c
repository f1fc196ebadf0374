/* friction_solve.c - one step's friction forces of an island: each
 * contact's local problem (its law's row, lib/friction.c), and several
 * coupled contacts by nonsmooth Gauss-Seidel.
 *
 * The problem (scheme.h, vb_fproblem) is linear in the forces apart from
 * the laws: dy = dyfree + Kt ft, slip s = dy / dt.  For contact i alone,
 * with the others' forces fixed, it is the scalar set-valued problem
 *   ft_i in -N_i Mu(s_i),  s_i = s_free_i + c_i ft_i,
 *   s_free_i = (dyfree_i + sum_(k != i) Kt_ik ft_k) / dt,  c_i = Kt_ii / dt,
 * which the law solves in closed form (Coulomb: the projection of the
 * sticking force -s_free_i / c_i on the static cone, else the kinetic
 * force; friction.c).  Several contacts: Gauss-Seidel sweeps of these
 * local solves, the nonsmooth contact dynamics method of Jean & Moreau
 * (M. Jean, J.J. Moreau, "Unilaterality and dry friction in the dynamics
 * of rigid body collections", Contact Mechanics Int. Symp., 1992; M.
 * Jean, Comput. Methods Appl. Mech. Engrg. 177, 1999, section 6): each
 * sweep leaves every force in its law's set, and the iteration stops when
 * a sweep changes none by more than the tolerance.  Where the sweeps hit
 * their cap (Kt near singular: many touching points on few modes) and
 * every law is Coulomb's, the block solve below solves the step's box-
 * constrained quadratic exactly (doc/friction.md, "Many points on few
 * modes"); where the laws are curves with a stick set (Stribeck, bow), a
 * fixed point on that quadratic's bounds (curve_solve); where the block
 * holds a smooth law (exponential, elasto-plastic), a semismooth Newton
 * on the block's equations (newton_solve). */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "base/base.h"
#include "scheme.h"

/* Contact i's local problem given the others' current forces. */
static double
local_solve(const vb_fproblem *p, int i)
{
  int n = p->nfc;
  const double *row = p->Kt + (size_t)i * n;
  double dy = p->dyfree[i];
  for (int k = 0; k < n; k++)
    if (k != i)
      dy += row[k] * p->ft[k];
  double *st = p->st + p->st_first[i];
  const double *st0 = p->st_old + p->st_first[i];
  int ns = p->st_first[i + 1] - p->st_first[i];
  /* each local solve starts from the state at n, however many sweeps */
  if (ns > 0)
    memcpy(st, st0, (size_t)ns * sizeof *st);
  return p->info[i]->local(p->law[i], p->normal[i], dy / p->dt, row[i] / p->dt, p->dt,
                          &p->broke[i], st);
}

/* One Gauss-Seidel sweep over the contacts in order: the largest change
 * of a force into *change, the largest force into *scale. */
static void
sweep(const vb_fproblem *p, double *change, double *scale)
{
  int n = p->nfc;
  double ch = 0.0, sc = 0.0;
  for (int i = 0; i < n; i++) {
    double f = local_solve(p, i);
    ch = fmax(ch, fabs(f - p->ft[i]));
    sc = fmax(sc, fabs(f));
    p->ft[i] = f;
  }
  *change = ch;
  *scale = sc;
}

/* Cholesky with diagonal pivoting of A [m][m], symmetric positive semi-
 * definite (overwritten by its factor: rows in the pivots' order, L below
 * and on the diagonal): the largest remaining pivot first, stopped at the
 * first below tiny.  perm[k] is the row of A taken k-th; returns the rank
 * r taken. */
static int
psd_factor(int m, double *A, int *perm, double tiny)
{
  int r = 0;
  for (int i = 0; i < m; i++)
    perm[i] = i;
  for (; r < m; r++) {
    int q = r;
    for (int j = r + 1; j < m; j++)
      if (A[(size_t)j * m + j] > A[(size_t)q * m + q])
        q = j;
    if (!(A[(size_t)q * m + q] > tiny))
      break;
    if (q != r) {
      for (int k = 0; k < m; k++) {
        double t = A[(size_t)r * m + k];
        A[(size_t)r * m + k] = A[(size_t)q * m + k];
        A[(size_t)q * m + k] = t;
      }
      for (int k = 0; k < m; k++) {
        double t = A[(size_t)k * m + r];
        A[(size_t)k * m + r] = A[(size_t)k * m + q];
        A[(size_t)k * m + q] = t;
      }
      int t = perm[r];
      perm[r] = perm[q];
      perm[q] = t;
    }
    double d = sqrt(A[(size_t)r * m + r]);
    A[(size_t)r * m + r] = d;
    for (int j = r + 1; j < m; j++)
      A[(size_t)j * m + r] /= d;
    for (int j = r + 1; j < m; j++)
      for (int k = r + 1; k < m; k++)
        A[(size_t)j * m + k] -= A[(size_t)j * m + r] * A[(size_t)k * m + r];
  }
  return r;
}

/* With psd_factor's L (rank r): y [r] = L_PP^-T L_PP^-1 y (forward, then
 * back substitution; y in the pivots' order). */
static void
psd_solve(int m, int r, const double *L, double *y, int forward)
{
  for (int i = 0; forward && i < r; i++) {
    double s = y[i];
    for (int k = 0; k < i; k++)
      s -= L[(size_t)i * m + k] * y[k];
    y[i] = s / L[(size_t)i * m + i];
  }
  for (int i = r - 1; i >= 0; i--) {
    double s = y[i];
    for (int k = i + 1; k < r; k++)
      s -= L[(size_t)k * m + i] * y[k];
    y[i] = s / L[(size_t)i * m + i];
  }
}

/* Where the sweeps did not converge (many touching points on few modes:
 * Kt near singular, doc/friction.md, "Friction on a distributed
 * contact"), and every contact's law is Coulomb's: the step's problem,
 * with the contacts that broke free in the sweeps on their kinetic cone
 * (as the sweeps iterate it), is the box-constrained convex quadratic
 *   min q(f) = f^T Kt f / 2 + dyfree^T f,  |f_i| <= b_i = mu_i N_i
 * (its gradient g = Kt f + dyfree the increments dy: a free f_i has dy_i
 * = 0, stick; one on its bound, dy_i against it, slip), solved exactly by
 * a primal active-set method (J. Nocedal, S.J. Wright, "Numerical
 * Optimization", 2nd ed., Springer 2006, section 16.5): from the sweeps'
 * forces (in the boxes), the Newton step of the free forces on the face,
 * Kt_FF d = -g_F, cut at the first bound it meets, which joins the
 * bounds; on the face's minimum, the bound force whose dy pushes it
 * inward most is freed; none: the minimum.  Kt is positive semi-definite
 * (Kt = T diag(cc) T^T, rank at most the modes along w), so Kt_FF is
 * factored with pivoting (psd_factor) and where it is singular the step
 * is the basic solution if g_F is in its range (the forces are then not
 * unique: one minimum is taken), else a null direction of Kt_FF that
 * descends (q linear along it) to the first bound.  A contact not broken
 * whose minimum leaves it on its static bound slipping breaks (its bound
 * mu_k N, as the law's local solve does) and the minimum is sought again.
 * A sweep then checks it (every force back from its law, so in its set,
 * changing none by more than the tolerance, as the sweeps' own test).
 * VB_OK, VB_ENOCONV (the laws not all Coulomb's, too many contacts, or
 * the check failed: the last sweep's forces kept), VB_ENOMEM. */
#define BLOCK_CONTACTS 256
static int
block_solve(const vb_fproblem *p, const double *bounds)
{
  int n = p->nfc;
  if (n > BLOCK_CONTACTS)
    return VB_ENOCONV;
  for (int i = 0; i < n && !bounds; i++)
    if (p->info[i]->kind != VB_FRICTION_COULOMB)
      return VB_ENOCONV;
  int *iw = malloc(3 * (size_t)n * sizeof *iw);
  double *w = malloc(((size_t)n * n + 5 * (size_t)n) * sizeof *w);
  if (!iw || !w) {
    free(iw);
    free(w);
    return VB_ENOMEM;
  }
  int *F = iw, *perm = iw + n, *at = iw + 2 * n; /* at: -1, 0, +1 (lower, free, upper) */
  double *A = w, *b = A + (size_t)n * n, *g = b + n, *d = g + n, *y = d + n, *v = y + n;
  double fmaxabs = 0.0, dmax = 0.0;
  for (int i = 0; i < n; i++) {
    const vb_friction *law = p->law[i];
    b[i] = bounds ? bounds[i] : (p->broke[i] ? law->mu_k : law->mu_s) * p->normal[i];
    double f = fmin(fmax(p->ft[i], -b[i]), b[i]);
    at[i] = f == b[i] && b[i] > 0.0 ? 1 : f == -b[i] && b[i] > 0.0 ? -1 : 0;
    if (b[i] == 0.0)
      at[i] = 1; /* no force: held at 0 */
    p->ft[i] = f;
    dmax = fmax(dmax, p->Kt[(size_t)i * n + i]);
    fmaxabs = fmax(fmaxabs, b[i]);
  }
  int rc = VB_ENOCONV, its = 0;
  for (; its < 20 * n + 20; its++) {
    /* g and the size of its terms: what round-off leaves of a zero dy */
    double gtol = 0.0;
    for (int i = 0; i < n; i++) {
      const double *row = p->Kt + (size_t)i * n;
      double s = p->dyfree[i], a = fabs(s);
      for (int k = 0; k < n; k++) {
        s += row[k] * p->ft[k];
        a += fabs(row[k] * p->ft[k]);
      }
      g[i] = s;
      gtol = fmax(gtol, a);
    }
    gtol *= 16.0 * n * DBL_EPSILON;
    int m = 0;
    for (int i = 0; i < n; i++)
      if (at[i] == 0)
        F[m++] = i;
    int r = 0, moved = 0;
    double gfree = 0.0;
    for (int a = 0; a < m; a++)
      gfree = fmax(gfree, fabs(g[F[a]]));
    if (m > 0 && gfree > gtol) {
      for (int a = 0; a < m; a++)
        for (int c = 0; c < m; c++)
          A[(size_t)a * m + c] = p->Kt[(size_t)F[a] * n + F[c]];
      r = psd_factor(m, A, perm, 16.0 * m * DBL_EPSILON * dmax);
      for (int a = 0; a < r; a++)
        y[a] = -g[F[perm[a]]];
      psd_solve(m, r, A, y, 1);
      for (int i = 0; i < n; i++)
        d[i] = 0.0;
      for (int a = 0; a < r; a++)
        d[F[perm[a]]] = y[a];
      /* the rows left out: their dy after the step (0 if g_F is in the
       * range) */
      int worst = -1;
      double wres = 0.0, gs = 0.0;
      for (int a = 0; a < m; a++)
        gs = fmax(gs, fabs(g[F[a]]));
      for (int a = r; a < m; a++) {
        int i = F[perm[a]];
        const double *row = p->Kt + (size_t)i * n;
        double s = g[i];
        for (int c = 0; c < r; c++)
          s += row[F[perm[c]]] * y[c];
        if (fabs(s) > wres)
          wres = fabs(s), worst = a;
      }
      if (worst >= 0 && wres > 64.0 * m * DBL_EPSILON * (gs + dmax * fmaxabs)) {
        /* a null direction of Kt_FF: v_j = 1, v_P = -Kt_PP^-1 Kt_Pj */
        int j = F[perm[worst]];
        for (int c = 0; c < r; c++)
          v[c] = -A[(size_t)worst * m + c];
        psd_solve(m, r, A, v, 0);
        for (int i = 0; i < n; i++)
          d[i] = 0.0;
        d[j] = 1.0;
        for (int c = 0; c < r; c++)
          d[F[perm[c]]] = v[c];
        double slope = 0.0;
        for (int i = 0; i < n; i++)
          slope += g[i] * d[i];
        if (slope > 0.0)
          for (int i = 0; i < n; i++)
            d[i] = -d[i];
        /* unbounded along it: to the first bound (the box is bounded) */
        for (int i = 0; i < n; i++)
          d[i] *= 4.0 * fmaxabs + 1.0;
      }
      /* the step, cut at the first bound */
      double alpha = 1.0;
      int block = -1;
      for (int i = 0; i < n; i++) {
        if (at[i] != 0 || d[i] == 0.0)
          continue;
        double lim = d[i] > 0.0 ? (b[i] - p->ft[i]) / d[i] : (-b[i] - p->ft[i]) / d[i];
        if (lim < alpha)
          alpha = fmax(lim, 0.0), block = i;
      }
      double big = 0.0;
      for (int i = 0; i < n; i++)
        big = fmax(big, fabs(alpha * d[i]));
      if (big > 0.0 || block >= 0) {
        moved = 1;
        for (int i = 0; i < n; i++)
          if (at[i] == 0)
            p->ft[i] += alpha * d[i];
        if (block >= 0) {
          at[block] = d[block] > 0.0 ? 1 : -1;
          p->ft[block] = at[block] * b[block];
        }
      }
    }
    if (moved)
      continue;
    /* the face's minimum: free the bound force pushed inward most (dy
     * with the force: g_i > 0 on the upper bound, < 0 on the lower) */
    int rel = -1;
    double push = 0.0;
    for (int i = 0; i < n; i++) {
      if (at[i] == 0 || b[i] == 0.0)
        continue;
      double u = at[i] * g[i];
      if (u > push)
        push = u, rel = i;
    }
    if (rel >= 0 && push > gtol) {
      at[rel] = 0;
      continue;
    }
    /* the minimum of the given bounds (curve_solve checks it itself) */
    if (bounds) {
      rc = VB_OK;
      break;
    }
    /* the minimum: a contact slipping on its static bound breaks */
    int broke = 0;
    for (int i = 0; i < n; i++) {
      if (at[i] == 0 || p->broke[i] || b[i] == 0.0)
        continue;
      p->broke[i] = 1;
      b[i] = p->law[i]->mu_k * p->normal[i];
      p->ft[i] = at[i] * b[i];
      broke = 1;
    }
    if (broke)
      continue;
    /* the check: a sweep, each change within the tolerance of the
     * largest force or the round-off of its local problem (its free slip
     * a sum of terms up to a_i, over c_i = Kt_ii / dt: ill-conditioned
     * where many points share few modes) */
    double scale = 0.0;
    for (int i = 0; i < n; i++) {
      const double *row = p->Kt + (size_t)i * n;
      double a = fabs(p->dyfree[i]);
      for (int k = 0; k < n; k++)
        a += fabs(row[k] * p->ft[k]);
      double f = local_solve(p, i);
      y[i] = fabs(f - p->ft[i]);
      v[i] = row[i] > 0.0 ? 16.0 * n * DBL_EPSILON * a / row[i] : 0.0;
      scale = fmax(scale, fabs(f));
      p->ft[i] = f;
    }
    rc = VB_OK;
    for (int i = 0; i < n; i++)
      if (!(y[i] <= p->tolerance * scale + v[i]))
        rc = VB_ENOCONV;
    break;
  }
  if (rc != VB_OK && its >= 20 * n + 20 && !bounds) {
    /* the cap: a sweep, so that the forces kept are their laws' answers
     * (each in its set) and the states theirs */
    double change, scale;
    sweep(p, &change, &scale);
  }
  *p->sweeps += its + 1;
  free(iw);
  free(w);
  return rc;
}

/* Where the sweeps hit their cap and the laws are not all Coulomb's but
 * each has a stick set (Coulomb, Stribeck, bow: their force while
 * slipping at s is -n curve(|s|) sgn s, while sticking within hold(n)):
 * the step's problem is the box-constrained quadratic of block_solve with
 * bounds that depend on the solution's own slips, b_i = n_i curve_i(|s_i|)
 * for a contact that slips, hold_i(n_i) for one that sticks.  A fixed
 * point on the bounds (the successive approximation of Coulomb friction by
 * Tresca problems of given bounds, P. Panagiotopoulos, "A nonlinear
 * programming approach to the unilateral contact- and friction-boundary
 * value problem in the theory of elasticity", Ing.-Arch. 44, 1975; here
 * the bound's dependence is on the slip rate): each pass solves the box
 * problem exactly (block_solve), then the bounds from its slips, halved
 * towards the last ones from the tenth pass on; it stops when no bound
 * moves by more than the tolerance of the largest.  Its forces are then
 * checked against each law at the contact's own slip (below), and the
 * laws' states set from those slips (vb_friction_info.start).  The fixed point is not proven to exist or to be
 * reached (a falling curve may have several answers): VB_ENOCONV says it
 * was not, the sweep's forces kept.  The elasto-plastic bristle and the
 * exponential curve (no stick set) are newton_solve's (below). */
#define CURVE_PASSES 60

/* Contact i's increment dy = dyfree_i + (Kt ft)_i, m, and into *terms the
 * sum of its terms' sizes (what its round-off is relative to). */
static double
increment(const vb_fproblem *p, int i, double *terms)
{
  const double *row = p->Kt + (size_t)i * p->nfc;
  double dy = p->dyfree[i], a = fabs(dy);
  for (int k = 0; k < p->nfc; k++) {
    dy += row[k] * p->ft[k];
    a += fabs(row[k] * p->ft[k]);
  }
  *terms = a;
  return dy;
}

static int
curve_solve(const vb_fproblem *p)
{
  int n = p->nfc;
  if (n > BLOCK_CONTACTS)
    return VB_ENOCONV;
  for (int i = 0; i < n; i++) {
    vb_friction_kind k = p->info[i]->kind;
    if (k != VB_FRICTION_COULOMB && k != VB_FRICTION_STRIBECK && k != VB_FRICTION_BOW)
      return VB_ENOCONV;
  }
  double *w = malloc(3 * (size_t)n * sizeof *w);
  if (!w)
    return VB_ENOMEM;
  double *b = w, *bnew = w + n, *y = w + 2 * n;
  int rc = VB_ENOCONV, settled = 0;
  for (int pass = 0; pass < CURVE_PASSES && !settled; pass++) {
    double bmax = 0.0, moved = 0.0;
    for (int i = 0; i < n; i++) {
      double a, dy = increment(p, i, &a);
      const vb_friction_info *in = p->info[i];
      int slips = fabs(dy) > 16.0 * n * DBL_EPSILON * a;
      bnew[i] = p->normal[i] <= 0.0 ? 0.0
                : slips ? p->normal[i] * in->curve(p->law[i], dy / p->dt)
                        : in->hold(p->law[i], p->normal[i]);
      /* (the move measured before the halving: the check below asks the
       * forces on their bounds to be the curve's at their slips) */
      if (pass > 0)
        moved = fmax(moved, fabs(bnew[i] - b[i]));
      if (pass >= 10)
        bnew[i] = 0.5 * (bnew[i] + b[i]);
      bmax = fmax(bmax, bnew[i]);
    }
    if (pass > 0 && moved <= p->tolerance * bmax) {
      settled = 1;
      break;
    }
    memcpy(b, bnew, (size_t)n * sizeof *b);
    int r = block_solve(p, b);
    if (r == VB_ENOMEM) {
      free(w);
      return r;
    }
  }
  if (settled) {
    /* the check, of each contact's law at its own slip (the laws' local
     * solves would each look for a slip of its own given the others, on
     * a falling curve not always this one): with dy summed and the
     * round-off of its terms, a contact that sticks (|dy| within that
     * round-off) holds |ft| <= hold(n); one that slips has ft against
     * its slip and |ft| = n curve(|s|) within the bounds' tolerance */
    double scale = 0.0;
    for (int i = 0; i < n; i++)
      scale = fmax(scale, b[i]);
    rc = VB_OK;
    for (int i = 0; i < n && rc == VB_OK; i++) {
      double a, dy = increment(p, i, &a);
      const vb_friction_info *in = p->info[i];
      double f = p->ft[i], s_i = dy / p->dt, nn = p->normal[i];
      int slips = fabs(dy) > 16.0 * n * DBL_EPSILON * a;
      if (nn <= 0.0)
        rc = f == 0.0 ? VB_OK : VB_ENOCONV;
      else if (!slips)
        rc = fabs(f) <= in->hold(p->law[i], nn) * (1.0 + 16.0 * DBL_EPSILON) ? VB_OK : VB_ENOCONV;
      else {
        double want = -(s_i > 0.0 ? 1.0 : -1.0) * nn * in->curve(p->law[i], s_i);
        rc = f * s_i <= 0.0 && fabs(f - want) <= p->tolerance * scale + 16.0 * DBL_EPSILON * fabs(want)
                 ? VB_OK
                 : VB_ENOCONV;
      }
      y[i] = slips ? s_i : 0.0;
    }
    /* the states at n+1: each law's from its step's slip */
    for (int i = 0; i < n && rc == VB_OK; i++)
      p->info[i]->start(p->law[i], y[i], p->st + p->st_first[i]);
  }
  if (rc != VB_OK) {
    /* the forces kept are their laws' answers (each in its set) */
    double change, scale;
    for (int i = 0; i < n; i++)
      p->broke[i] = 0;
    sweep(p, &change, &scale);
  }
  free(w);
  return rc;
}

/* Where the sweeps hit their cap on a block that holds a smooth law (the
 * exponential curve, the elasto-plastic bristle: no stick set, so no box
 * for block_solve or curve_solve), alone or beside laws with a stick set:
 * a semismooth Newton on the block's equations, globalised by Levenberg-
 * Marquardt with a line search on the merit |r|^2 / 2.  With s_i = dy_i /
 * dt, dy = dyfree + Kt ft, the residual of contact i (N) is
 *   smooth law:      r_i = ft_i - F_i(s_i)             (its force at its slip,
 *                                                       vb_friction_info.force)
 *   a stick set:     r_i = ft_i - P_[-b_i, b_i](ft_i - rho_i s_i)
 * (the projection form of ft_i in -b_i Sgn(s_i), rho_i = dt / Kt_ii; A.
 * Curnier, P. Alart, "A generalized Newton method for contact problems
 * with friction", J. Mec. Theor. Appl. 7 (1988) suppl. 1, 67-82; P.
 * Alart, A. Curnier, Comput. Methods Appl. Mech. Engrg. 92 (1991) 353-
 * 375), with the bound of the slip, b_i = N_i curve_i(|s_i|) for the
 * Stribeck and bow curves (continuous at 0: curve(0+) = mu_s), mu_s N_i
 * for Coulomb until the contact breaks (below), mu_k N_i after; 0 at N_i
 * = 0 (ft_i = 0).  r is semismooth (the projection piecewise linear, the
 * laws piecewise smooth), its generalised Jacobian J row by row e_i - F_i'
 * Kt_i / dt, rho_i Kt_i / dt (inside the box), e_i -+ b_i' Kt_i / dt (on
 * a bound).  The step d solves (J^T J + lambda I) d = -J^T r, lambda = mu
 * |r| / fscale (the Levenberg-Marquardt parameter of N. Yamashita, M.
 * Fukushima, "On the rate of convergence of the Levenberg-Marquardt
 * method", Computing Suppl. 15 (2001) 239-249: quadratic where |r|
 * bounds the distance to the solutions, singular J included, as Kt of
 * rank below n makes the sticking rows; J. Fan, Y. Yuan, Computing 74
 * (2005) 23-39), always a descent direction of the merit; Armijo's
 * backtracking on it (Nocedal & Wright 2006, 3.1 and 10.3), mu raised
 * where it fails, lowered after a full step.  Every trial is finite or
 * refused (a non-finite merit is a failed trial), so no NaN enters ft.
 * Where the merit stalls (down by less than a tenth over 10 iterations: a
 * local minimum of it that is no solution, J singular there, as where a
 * force rises along its slip faster than the compliance holds) it starts
 * again from no forces, then from each contact's own local answer with
 * the others' forces 0; 200 iterations in all.
 * Converged when each |r_i| is within the tolerance of the largest bound
 * or its round-off; then a few more steps polish it to round-off, each
 * smooth force is set to its law's at its slip, and a Coulomb contact
 * found slipping on its static bound breaks and the block is solved again
 * (as the laws' local solves break).  The check is curve_solve's, each
 * law at its own slip, and the states are set from the slips (the bristle
 * stepped by the law's own rule).  Not proven to converge (a falling curve
 * may give several answers or none near the start): VB_ENOCONV then, the
 * sweep's forces kept, each in its law's set. */
#define NEWTON_ITS 200

typedef struct newton_ws {
  double *J, *A, *r, *d, *g, *ft0, *rho, *slope, *trial, *stw;
  int *mode; /* -1, 0, +1: on the lower bound, inside, on the upper (a stick set); 2 smooth */
} newton_ws;

/* Contact i's bound at slip s (N) and its slope along s into *db. */
static double
bound_of(const vb_fproblem *p, int i, double s, double *db)
{
  const vb_friction *law = p->law[i];
  double n = p->normal[i];
  *db = 0.0;
  if (!(n > 0.0))
    return 0.0;
  if (p->info[i]->kind == VB_FRICTION_COULOMB)
    return (p->broke[i] ? law->mu_k : law->mu_s) * n;
  double x = fabs(s), h = 1e-7 * (x + 1e-3);
  double b = n * p->info[i]->curve(law, x);
  double slope = x > h ? (p->info[i]->curve(law, x + h) - p->info[i]->curve(law, x - h)) / (2.0 * h)
                       : (p->info[i]->curve(law, x + h) - p->info[i]->curve(law, x)) / h;
  *db = n * slope * (s < 0.0 ? -1.0 : 1.0);
  return b;
}

/* The residual r at ft (and, with jac, J and each row's mode and slope);
 * the merit |r|^2 / 2, or INFINITY when anything is not finite. */
static double
residual(const vb_fproblem *p, const newton_ws *w, const double *ft, int jac)
{
  int n = p->nfc;
  double phi = 0.0;
  for (int i = 0; i < n; i++) {
    const double *row = p->Kt + (size_t)i * n;
    double dy = p->dyfree[i];
    for (int k = 0; k < n; k++)
      dy += row[k] * ft[k];
    double s = dy / p->dt, r, sl = 0.0;
    int mode;
    const vb_friction_info *in = p->info[i];
    if (!(p->normal[i] > 0.0)) {
      r = ft[i];
      mode = 2;
    } else if (in->force) {
      double f = in->force(p->law[i], p->normal[i], s, p->dt, p->st_old + p->st_first[i],
                           w->stw, &sl);
      r = ft[i] - f;
      mode = 2;
    } else {
      double db, b = bound_of(p, i, s, &db), x = ft[i] - w->rho[i] * s;
      if (x >= b) {
        r = ft[i] - b, mode = 1, sl = db;
      } else if (x <= -b) {
        r = ft[i] + b, mode = -1, sl = -db;
      } else {
        r = w->rho[i] * s, mode = 0;
      }
    }
    if (!isfinite(r))
      return INFINITY;
    w->r[i] = r;
    phi += 0.5 * r * r;
    if (!jac)
      continue;
    w->mode[i] = mode;
    w->slope[i] = sl;
    double *Jr = w->J + (size_t)i * n;
    if (mode == 0)
      for (int k = 0; k < n; k++)
        Jr[k] = w->rho[i] * row[k] / p->dt;
    else {
      double c = p->normal[i] > 0.0 ? sl / p->dt : 0.0;
      for (int k = 0; k < n; k++)
        Jr[k] = -c * row[k];
      Jr[i] += 1.0;
    }
  }
  return isfinite(phi) ? phi : INFINITY;
}

/* Cholesky of the symmetric A [n][n] in place (lower); 0 if not positive. */
static int
chol(int n, double *A)
{
  for (int j = 0; j < n; j++) {
    double d = A[(size_t)j * n + j];
    for (int k = 0; k < j; k++)
      d -= A[(size_t)j * n + k] * A[(size_t)j * n + k];
    if (!(d > 0.0) || !isfinite(d))
      return 0;
    d = sqrt(d);
    A[(size_t)j * n + j] = d;
    for (int i = j + 1; i < n; i++) {
      double s = A[(size_t)i * n + j];
      for (int k = 0; k < j; k++)
        s -= A[(size_t)i * n + k] * A[(size_t)j * n + k];
      A[(size_t)i * n + j] = s / d;
    }
  }
  return 1;
}

/* Whether every |r_i| at ft is within the tolerance of fscale or its
 * round-off (its slip a sum of terms a_i, 16 n ulps of them over dt, times
 * the row's slope or rho_i; 16 n ulps of |ft_i|). */
static int
within(const vb_fproblem *p, const newton_ws *w, const double *ft, double fscale)
{
  int n = p->nfc;
  for (int i = 0; i < n; i++) {
    const double *row = p->Kt + (size_t)i * n;
    double a = fabs(p->dyfree[i]);
    for (int k = 0; k < n; k++)
      a += fabs(row[k] * ft[k]);
    double ds = 16.0 * n * DBL_EPSILON * a / p->dt;
    double gain = w->mode[i] == 0 ? w->rho[i] : fabs(w->slope[i]);
    if (!(fabs(w->r[i]) <= p->tolerance * fscale + 16.0 * n * DBL_EPSILON * fabs(ft[i]) + gain * ds))
      return 0;
  }
  return 1;
}

/* The Levenberg-Marquardt iteration from p->ft: 1 converged (then
 * polished), 0 not within its iterations (or *its_left). */
static int
lm_iterate(const vb_fproblem *p, newton_ws *w, double fscale, int *its_left, int *its_done)
{
  int n = p->nfc, converged = 0, polish = 0;
  double mu = 1e-3;
  double phi = residual(p, w, p->ft, 1);
  if (!isfinite(phi))
    return 0;
  double phi_back = INFINITY;
  for (int it = 0; *its_left > 0; it++) {
    if (!converged && within(p, w, p->ft, fscale))
      converged = 1;
    /* stalled: the merit not down by a tenth over 10 iterations (a local
     * minimum of it that is not a solution, where J is singular) */
    if (!converged && it % 10 == 0) {
      if (phi > 0.9 * phi_back)
        return 0;
      phi_back = phi;
    }
    if (converged && (polish >= 3 || phi == 0.0))
      return 1;
    --*its_left;
    ++*its_done;
    /* g = J^T r, A = J^T J + lambda I */
    double dmax = 0.0, rn = sqrt(2.0 * phi);
    for (int k = 0; k < n; k++) {
      double s = 0.0;
      for (int i = 0; i < n; i++)
        s += w->J[(size_t)i * n + k] * w->r[i];
      w->g[k] = s;
    }
    for (int a = 0; a < n; a++)
      for (int b = 0; b <= a; b++) {
        double s = 0.0;
        for (int i = 0; i < n; i++)
          s += w->J[(size_t)i * n + a] * w->J[(size_t)i * n + b];
        w->A[(size_t)a * n + b] = w->A[(size_t)b * n + a] = s;
      }
    for (int a = 0; a < n; a++)
      dmax = fmax(dmax, w->A[(size_t)a * n + a]);
    int stepped = 0;
    for (int tries = 0; tries < 12 && !stepped; tries++) {
      double lambda = mu * rn / fscale + 1e-15 * dmax;
      memcpy(w->trial, w->A, (size_t)n * n * sizeof *w->A);
      for (int a = 0; a < n; a++)
        w->trial[(size_t)a * n + a] += lambda;
      if (!chol(n, w->trial)) {
        mu *= 16.0;
        continue;
      }
      for (int a = 0; a < n; a++) {
        double s = -w->g[a];
        for (int k = 0; k < a; k++)
          s -= w->trial[(size_t)a * n + k] * w->d[k];
        w->d[a] = s / w->trial[(size_t)a * n + a];
      }
      for (int a = n - 1; a >= 0; a--) {
        double s = w->d[a];
        for (int k = a + 1; k < n; k++)
          s -= w->trial[(size_t)k * n + a] * w->d[k];
        w->d[a] = s / w->trial[(size_t)a * n + a];
      }
      double slope = 0.0;
      for (int a = 0; a < n; a++)
        slope += w->g[a] * w->d[a];
      if (!(slope < 0.0)) {
        if (converged)
          return 1; /* at round-off: nothing left to descend */
        mu *= 16.0;
        continue;
      }
      /* Armijo's backtracking on the merit */
      double t = 1.0;
      for (int ls = 0; ls < 30; ls++, t *= 0.5) {
        for (int a = 0; a < n; a++)
          w->ft0[a] = p->ft[a] + t * w->d[a];
        double ph = residual(p, w, w->ft0, 0);
        if (ph <= phi + 1e-4 * t * slope) {
          stepped = 1;
          break;
        }
      }
      if (!stepped) {
        if (converged)
          return 1; /* at round-off: the merit no longer falls */
        mu *= 16.0;
      }
    }
    if (!stepped)
      return converged;
    memcpy(p->ft, w->ft0, (size_t)n * sizeof *p->ft);
    mu = fmax(0.25 * mu, 1e-9);
    phi = residual(p, w, p->ft, 1);
    if (converged)
      polish++;
  }
  return converged;
}

/* The smooth laws' forces at their slips (so that each is its law's at
 * the slip it leaves, to the round-off of that slip), a slipping contact
 * of a stick set on its bound exactly, the states into p->st; then the
 * check of each law at its own slip (curve_solve's).  VB_OK or
 * VB_ENOCONV. */
static int
newton_finish(const vb_fproblem *p, newton_ws *w, double fscale)
{
  int n = p->nfc;
  for (int i = 0; i < n; i++)
    if (!(p->normal[i] > 0.0))
      p->ft[i] = 0.0;
  /* (all from the same slips: substituted one by one, as a sweep, the
   * round-off of each would grow through the others as the sweeps' error
   * does, by up to c_ik |F_k'| a contact) */
  for (int i = 0; i < n; i++) {
    double a;
    w->d[i] = increment(p, i, &a);
    w->g[i] = a;
  }
  for (int i = 0; i < n; i++) {
    double dy = w->d[i], a = w->g[i], s = dy / p->dt, sl, db;
    const vb_friction_info *in = p->info[i];
    int slips = fabs(dy) > 16.0 * n * DBL_EPSILON * a;
    if (!(p->normal[i] > 0.0))
      continue;
    if (in->force)
      p->ft[i] = in->force(p->law[i], p->normal[i], s, p->dt, p->st_old + p->st_first[i],
                           p->st + p->st_first[i], &sl);
    else if (slips) {
      double b = bound_of(p, i, s, &db);
      if (in->kind == VB_FRICTION_COULOMB)
        b = p->law[i]->mu_k * p->normal[i];
      p->ft[i] = -(s > 0.0 ? 1.0 : -1.0) * b;
    } else
      p->ft[i] = fmin(fmax(p->ft[i], -in->hold(p->law[i], p->normal[i])),
                      in->hold(p->law[i], p->normal[i]));
  }
  int rc = VB_OK;
  for (int i = 0; i < n && rc == VB_OK; i++) {
    double a, dy = increment(p, i, &a), s = dy / p->dt, sl, db;
    const vb_friction_info *in = p->info[i];
    double f = p->ft[i], nn = p->normal[i];
    int slips = fabs(dy) > 16.0 * n * DBL_EPSILON * a;
    if (!(nn > 0.0)) {
      rc = f == 0.0 ? VB_OK : VB_ENOCONV;
      if (in->force) /* its state as its local problem leaves it apart */
        in->force(p->law[i], 0.0, s, p->dt, p->st_old + p->st_first[i], p->st + p->st_first[i], &sl);
    } else if (in->force) {
      double want = in->force(p->law[i], nn, s, p->dt, p->st_old + p->st_first[i], w->stw, &sl);
      rc = fabs(f - want) <= p->tolerance * fscale + 16.0 * DBL_EPSILON * fabs(want) ? VB_OK
                                                                                      : VB_ENOCONV;
      if (rc == VB_OK)
        memcpy(p->st + p->st_first[i], w->stw,
               (size_t)(p->st_first[i + 1] - p->st_first[i]) * sizeof *w->stw);
    } else if (!slips)
      rc = fabs(f) <= in->hold(p->law[i], nn) * (1.0 + 16.0 * DBL_EPSILON) ? VB_OK : VB_ENOCONV;
    else {
      double b = bound_of(p, i, s, &db);
      if (in->kind == VB_FRICTION_COULOMB)
        b = p->law[i]->mu_k * nn;
      double want = -(s > 0.0 ? 1.0 : -1.0) * b;
      rc = f * s <= 0.0 && fabs(f - want) <= p->tolerance * fscale + 16.0 * DBL_EPSILON * fabs(want)
               ? VB_OK
               : VB_ENOCONV;
    }
    if (rc == VB_OK && !in->force)
      in->start(p->law[i], slips ? s : 0.0, p->st + p->st_first[i]);
  }
  return rc;
}

static int
newton_solve(const vb_fproblem *p)
{
  int n = p->nfc, smooth = 0;
  if (n > BLOCK_CONTACTS)
    return VB_ENOCONV;
  for (int i = 0; i < n; i++)
    smooth |= p->info[i]->force != NULL;
  if (!smooth)
    return VB_ENOCONV;
  newton_ws w;
  double *mem = malloc(((size_t)3 * n * n + 8 * (size_t)n + 64) * sizeof *mem);
  int *mode = malloc((size_t)n * sizeof *mode);
  if (!mem || !mode) {
    free(mem);
    free(mode);
    return VB_ENOMEM;
  }
  w.J = mem;
  w.A = w.J + (size_t)n * n;
  w.trial = w.A + (size_t)n * n;
  w.r = w.trial + (size_t)n * n;
  w.d = w.r + n;
  w.g = w.d + n;
  w.ft0 = w.g + n;
  w.rho = w.ft0 + n;
  w.slope = w.rho + n;
  w.stw = w.slope + n; /* a law's state, 64 doubles at most */
  w.mode = mode;
  double dmax = 0.0, fscale = 0.0;
  for (int i = 0; i < n; i++) {
    dmax = fmax(dmax, p->Kt[(size_t)i * n + i]);
    p->broke[i] = 0;
    double nn = p->normal[i] > 0.0 ? p->normal[i] : 0.0;
    fscale = fmax(fscale, p->info[i]->hold(p->law[i], nn));
  }
  for (int i = 0; i < n; i++) {
    double kii = p->Kt[(size_t)i * n + i];
    w.rho[i] = kii > 0.0 ? p->dt / kii : dmax > 0.0 ? p->dt / dmax : 1.0;
  }
  int cap = vb_test_hooks_now()->friction_newton_cap, its_left = cap > 0 ? cap : NEWTON_ITS;
  int its = 0, rc = VB_ENOCONV;
  /* three starts, each until it converges or stalls: the sweeps' forces,
   * no forces, each contact's own local answer with the others' forces 0 */
  for (int start = 0; fscale > 0.0 && start < 3 && rc != VB_OK && its_left > 0; start++) {
    for (int i = 0; i < n; i++)
      p->broke[i] = 0;
    if (start > 0)
      for (int i = 0; i < n; i++)
        p->ft[i] = 0.0;
    if (start == 2)
      for (int i = 0; i < n; i++) {
        double kii = p->Kt[(size_t)i * n + i];
        if (p->normal[i] > 0.0 && kii > 0.0)
          w.d[i] = p->info[i]->local(p->law[i], p->normal[i], p->dyfree[i] / p->dt, kii / p->dt,
                                     p->dt, &p->broke[i], p->st + p->st_first[i]);
        else
          w.d[i] = 0.0;
        p->broke[i] = 0;
      }
    if (start == 2)
      memcpy(p->ft, w.d, (size_t)n * sizeof *p->ft);
    for (int round = 0; round <= n; round++) {
      if (!lm_iterate(p, &w, fscale, &its_left, &its))
        break;
      /* a Coulomb contact slipping on its static bound breaks */
      int broke = 0;
      residual(p, &w, p->ft, 1);
      for (int i = 0; i < n; i++) {
        double a, dy = increment(p, i, &a);
        if (p->info[i]->kind == VB_FRICTION_COULOMB && !p->broke[i] && w.mode[i] != 0 &&
            w.mode[i] != 2 && fabs(dy) > 16.0 * n * DBL_EPSILON * a &&
            p->law[i]->mu_k < p->law[i]->mu_s)
          p->broke[i] = broke = 1;
      }
      if (!broke) {
        rc = newton_finish(p, &w, fscale);
        break;
      }
    }
  }
  if (!(fscale > 0.0)) { /* no normal force anywhere: no friction */
    for (int i = 0; i < n; i++)
      p->ft[i] = 0.0;
    rc = newton_finish(p, &w, 1.0);
  }
  *p->sweeps += its;
  if (rc != VB_OK) {
    double change, scale;
    for (int i = 0; i < n; i++)
      p->broke[i] = 0;
    sweep(p, &change, &scale);
  }
  free(mem);
  free(mode);
  return rc;
}

int
vb_friction_solve(const vb_fproblem *p)
{
  int n = p->nfc, sweep_n;
  for (int i = 0; i < n; i++)
    p->broke[i] = 0;
  if (n == 1) {
    p->ft[0] = local_solve(p, 0);
    *p->sweeps = 1;
    return VB_OK;
  }
  for (sweep_n = 1; sweep_n <= p->max_sweeps; sweep_n++) {
    double change, scale;
    sweep(p, &change, &scale);
    if (change <= p->tolerance * scale || change == 0.0) {
      *p->sweeps = sweep_n;
      return VB_OK;
    }
  }
  *p->sweeps = p->max_sweeps;
  int rc = block_solve(p, NULL);
  if (rc == VB_ENOCONV)
    rc = curve_solve(p);
  if (rc == VB_ENOCONV)
    rc = newton_solve(p);
  return rc == VB_OK ? VB_OK : VB_ENOCONV;
}
