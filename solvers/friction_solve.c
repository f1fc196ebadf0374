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
 * fixed point on that quadratic's bounds (curve_solve). */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
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
 * exponential curve (no stick set) are not covered. */
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
  return rc == VB_OK ? VB_OK : VB_ENOCONV;
}
