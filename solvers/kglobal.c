/* kglobal.c - the K-method's globalised fall-back: a step's contacts by a
 * Newton method that cannot cycle.
 *
 * The active-set Newton (kmethod.c) solves r(x) = x - xt + K F(x) = 0 with
 * a line search on |r|.  |r| is no merit function of a nonsmooth F (a
 * linear penalty's force k [x] has a kink at contact, and with alpha = 1
 * the step is a linear complementarity problem): Newton's direction need
 * not descend on it at a kink, and the iterates can cycle between active
 * sets (issue 33 item 3: an ideal string on the fretless neck's 862 points,
 * two-point, k = 1e10, alpha = 1, at t = 0.026814059).  Where that Newton
 * reports VB_ENOCONV, this solve takes over.
 *
 * The step is the minimum of a strictly convex function.  K is the
 * compliance of the modes, symmetric positive semi-definite of rank at
 * most the number of modes: factor it K = B B^T (B n x r, pivoted
 * Cholesky, Higham, Accuracy and Stability of Numerical Algorithms, 2nd ed.,
 * sec. 10.3, alg. 10.2 with complete pivoting, stopped when the largest
 * remaining diagonal is round-off), write the compressions as x(y) = xt -
 * B y with y in R^r (the modes' displacement by the contact forces, scaled)
 * and minimise
 *
 *   E(y) = |y|^2 / 2 + sum_c Psi_c(x_c(y)),   Psi_c' = F_c,
 *
 * whose gradient is g = y - B^T F(x(y)) (zero exactly where x(y) solves
 * the step: y = B^T f, x = xt - K f) and whose (generalised) Hessian is
 * H = I + B^T diag(F') B >= I for a monotone law (F' >= 0: every law's
 * step force of the energy-conserving schemes, the discrete gradient of a
 * convex potential, Chatziioannou eq 8).  E is strongly convex, so the
 * step has one solution, and semismooth Newton (Qi & Sun, Math. Prog.
 * 58:353, 1993) d = -H^-1 g with an exact line search along d converges
 * to it from any start: the line search decreases E at least as much as
 * an Armijo step (Nocedal & Wright, Numerical Optimization, 2nd ed.,
 * theorem 3.2, Zoutendijk, with the Newton direction's angle bounded since
 * I <= H <= (1 + |B|^2 max F') I on a level set), and near the solution the
 * full step is the exact one to first order (superlinear, quadratic for
 * a piecewise-smooth F).  Psi itself is never formed: along d, phi(l) =
 * E(y + l d) is convex and its slope
 *
 *   phi'(l) = d . (y + l d) - (B d) . F(x(y) - l B d)
 *
 * is continuous and nondecreasing, from phi'(0) = -g^T H^-1 g < 0 to
 * +infinity; the line search brackets its zero (doubling from l = 1) and
 * closes on it by regula falsi (Illinois), accepting l where |phi'(l)| <=
 * LINE_ETA |phi'(0)|: l = 1 at once near the solution.  A force that is
 * not finite at a trial counts as +infinity (the law's force grows with
 * x), so no iterate is ever NaN.  Converged, as kmethod.c's Newton, when
 * the step into the iterate moved every compression by less than its
 * tolerance relative to max(|x_c|, its scale) and the step's own residual,
 * with K itself (not B B^T), passes kmethod.c's test: |r_c| <= tol_c (|x_c|
 * + |xt_c| + sum_d |K_cd| (|F_d| + |F_d' x_d|)).  (The residual test alone
 * accepted roots 5.7e-10 of their scale from scipy's on tests/kmethod.sh's
 * problems, against 1.9e-11 for the Newton's; with the update test too,
 * 1.6e-13, at about one more iteration.)
 *
 * Cost, n contacts, rank r: the factor O(n r^2), each iteration O(n r) for
 * x, g and B d, O(m r^2) for the Hessian over the m contacts whose force
 * moves, O(r^3) for its Cholesky, O(n) per line-search trial, and O(n^2)
 * for the final test.  No allocation: the caller's work space
 * (vb_kmethod_global_size doubles: B and vectors, O(n r)) and p->jac (the
 * Hessian). */
#include <float.h>
#include <math.h>
#include <string.h>
#include "base/base.h"
#include "scheme.h"

/* The line search's acceptance: |phi'(l)| <= LINE_ETA |phi'(0)|. */
#define LINE_ETA 0.1
/* Trials of the line search at most (doublings and regula falsi). */
#define LINE_MAX 200
/* Newton iterations at most: the method converges from any start, this
 * cap only bounds the cost of an ill-posed step (a law whose force falls
 * with the compression, K not positive semi-definite). */
#define GLOBAL_MAX_ITERATIONS 500

size_t
vb_kmethod_global_size(int n, int r)
{
  size_t nn = (size_t)(n > 0 ? n : 0), rr = (size_t)(r > 0 ? r : 0);
  if (rr > nn)
    rr = nn;
  return nn * rr + 4 * rr + 7 * nn + 8;
}

/* The contacts the step solves (p->set, or all of them). */
static inline int
set_size(const vb_kproblem *p)
{
  return p->set ? p->nset : p->nc;
}
static inline int
member(const vb_kproblem *p, int k)
{
  return p->set ? p->set[k] : k;
}

/* Contact c's step force at x1 and its derivative, by the scheme stepping
 * it this step (its fall-back's where that took over). */
static inline double
force(const vb_kproblem *p, int c, double x1, double *df)
{
  const vb_scheme *sch = p->cts[c].scheme;
  const vb_scheme_ops *o = (p->fallback[c] ? sch->fallback : sch)->ops;
  return o->step_force(&p->cts[c], &p->hist[c], p->dt, x1, df);
}

/* K = B B^T by pivoted Cholesky on the n set members (B column-major, n x
 * rmax, b[j n + i]); its rank r (columns formed).  diag[n] and perm[n] are
 * scratch. */
static int
factor(const vb_kproblem *p, int n, int rmax, double *b, double *diag, int *perm)
{
  const double *K = p->K;
  if (!K) {
    /* no dense K (lowrank.c): B = S_set diag(sqrt(cc)) is an exact
     * factor, K = S diag(cc) S^T = B B^T, of the modes of positive
     * compliance (the others add nothing to K); no pivoting */
    int r = 0;
    for (int j = 0; j < p->nm && r < rmax; j++) {
      if (!(p->cc[j] > 0.0))
        continue;
      double sj = sqrt(p->cc[j]), *col = b + (size_t)r++ * n;
      for (int i = 0; i < n; i++)
        col[i] = p->S[(size_t)member(p, i) * p->nmp + j] * sj;
    }
    return r;
  }
  size_t nc = (size_t)p->nc;
  double dmax = 0.0;
  for (int i = 0; i < n; i++) {
    int c = member(p, i);
    diag[i] = K[c * nc + c];
    perm[i] = i;
    if (diag[i] > dmax)
      dmax = diag[i];
  }
  /* the round-off floor of the remaining diagonal: a rank-r K's Schur
   * complement after r columns is its rounding, about n eps |K| */
  double floor = 4.0 * (n + 1) * DBL_EPSILON * dmax;
  int r = 0;
  for (; r < rmax; r++) {
    int at = r;
    for (int i = r + 1; i < n; i++)
      if (diag[perm[i]] > diag[perm[at]])
        at = i;
    int t = perm[r];
    perm[r] = perm[at];
    perm[at] = t;
    int k = perm[r];
    double pivot = diag[k];
    if (!(pivot > floor))
      break;
    double lkk = sqrt(pivot), *col = b + (size_t)r * n;
    int ck = member(p, k);
    /* column r: (K_ik - sum_j<r B_ij B_kj) / lkk for the rows not yet
     * pivoted, lkk at row k, 0 at the rows pivoted before */
    for (int i = 0; i < n; i++)
      col[i] = K[(size_t)member(p, i) * nc + ck];
    for (int j = 0; j < r; j++) {
      const double *bj = b + (size_t)j * n;
      double bk = bj[k];
      if (bk != 0.0)
        for (int i = 0; i < n; i++)
          col[i] -= bj[i] * bk;
    }
    for (int q = 0; q <= r; q++)
      col[perm[q]] = 0.0;
    for (int q = r + 1; q < n; q++) {
      int i = perm[q];
      col[i] /= lkk;
      diag[i] -= col[i] * col[i];
    }
    col[k] = lkk;
  }
  return r;
}

/* x = xt - B y over the set (x[n]). */
static void
positions(const vb_kproblem *p, int n, int r, const double *b, const double *y, double *x)
{
  for (int i = 0; i < n; i++)
    x[i] = p->xt[member(p, i)];
  for (int j = 0; j < r; j++) {
    const double *bj = b + (size_t)j * n;
    double yj = y[j];
    if (yj != 0.0)
      for (int i = 0; i < n; i++)
        x[i] -= bj[i] * yj;
  }
}

/* The slope phi'(l) = d.y + l d.d - w . F(x - l w) (dy = d.y, dd = d.d);
 * +INFINITY where a force is not finite (the law's force grows with its
 * compression). */
static double
slope(const vb_kproblem *p, int n, const double *x, const double *w, double dy, double dd,
      double l)
{
  double s = dy + l * dd;
  for (int i = 0; i < n; i++) {
    if (w[i] == 0.0)
      continue;
    double df, f = force(p, member(p, i), x[i] - l * w[i], &df);
    if (!isfinite(f))
      return INFINITY;
    s -= w[i] * f;
  }
  return isnan(s) ? INFINITY : s;
}

/* The step length along d: a zero of the nondecreasing phi' (slope) to
 * within LINE_ETA |s0|, s0 = phi'(0) < 0; never 0. */
static double
line_search(const vb_kproblem *p, int n, const double *x, const double *w, double dy, double dd,
            double s0)
{
  double band = LINE_ETA * -s0;
  double a = 0.0, fa = s0, bl = 1.0, fb = slope(p, n, x, w, dy, dd, 1.0);
  int k = 0;
  if (fabs(fb) <= band)
    return 1.0;
  /* bracket: double while the slope is still steeply negative */
  while (fb < 0.0 && k++ < LINE_MAX) {
    if (fb >= -band)
      return bl;
    a = bl;
    fa = fb;
    bl *= 2.0;
    fb = slope(p, n, x, w, dy, dd, bl);
    if (fabs(fb) <= band)
      return bl;
  }
  if (fb < 0.0)
    return bl; /* no bracket within 2^LINE_MAX: the longest step taken */
  /* Illinois regula falsi on [a, bl], fa < 0 < fb */
  int side = 0;
  while (k++ < LINE_MAX) {
    double l = (a * fb - bl * fa) / (fb - fa);
    if (!(l > a && l < bl) || !isfinite(fb))
      l = 0.5 * (a + bl);
    double fl = slope(p, n, x, w, dy, dd, l);
    if (fabs(fl) <= band)
      return l;
    if (fl < 0.0) {
      a = l;
      fa = fl;
      if (side == -1)
        fb *= 0.5;
      side = -1;
    } else {
      bl = l;
      fb = fl;
      if (side == 1)
        fa *= 0.5;
      side = 1;
    }
    if (bl - a <= 4.0 * DBL_EPSILON * bl)
      break;
  }
  return a > 0.0 ? a : 0.5 * bl; /* the descending side of the bracket */
}

/* Cholesky of the r x r column-major h in place (lower); 0, or -1 where a
 * pivot is not positive and finite. */
static int
cholesky(int r, double *h)
{
  for (int j = 0; j < r; j++) {
    double *cj = h + (size_t)j * r;
    double s = cj[j];
    for (int k = 0; k < j; k++)
      s -= h[(size_t)k * r + j] * h[(size_t)k * r + j];
    if (!(s > 0.0) || !isfinite(s))
      return -1;
    double ljj = sqrt(s);
    cj[j] = ljj;
    for (int i = j + 1; i < r; i++) {
      double t = cj[i];
      for (int k = 0; k < j; k++)
        t -= h[(size_t)k * r + i] * h[(size_t)k * r + j];
      cj[i] = t / ljj;
    }
  }
  return 0;
}

/* Solve (L L^T) z = v in place in v[r] with cholesky()'s factor. */
static void
cholesky_solve(int r, const double *h, double *v)
{
  for (int i = 0; i < r; i++) {
    double s = v[i];
    for (int k = 0; k < i; k++)
      s -= h[(size_t)k * r + i] * v[k];
    v[i] = s / h[(size_t)i * r + i];
  }
  for (int i = r - 1; i >= 0; i--) {
    double s = v[i];
    for (int k = i + 1; k < r; k++)
      s -= h[(size_t)i * r + k] * v[k];
    v[i] = s / h[(size_t)i * r + i];
  }
}

/* Whether x, f (forces), df over the set solve the step to every contact's
 * tolerance, with K itself (kmethod.c's residual_converged); O(n^2). */
static int
converged(const vb_kproblem *p, int n, const double *x, const double *f, const double *df,
          double *fs)
{
  size_t nc = (size_t)p->nc;
  for (int j = 0; j < n; j++)
    fs[j] = fabs(f[j]) + fabs(df[j] * x[j]);
  if (!p->K) {
    /* through the modes (kmethod.c's residual_converged where K is NULL):
     * K f = S . u, u = diag(cc) S^T f; the scale |S| . |diag(cc)| |S|^T fs */
    double *u = p->kws, *w = p->kws + p->nmp;
    vb_k_modal_zero(p, u);
    vb_k_modal_zero(p, w);
    for (int j = 0; j < n; j++) {
      vb_k_modal_add(p, member(p, j), f[j], u);
      vb_k_modal_add_abs(p, member(p, j), fs[j], w);
    }
    vb_k_modal_scale(p, u, 0);
    vb_k_modal_scale(p, w, 1);
    for (int i = 0; i < n; i++) {
      int c = member(p, i);
      double r = x[i] - p->xt[c] + vb_k_row_dot(p, c, u, 0);
      double scale = fabs(x[i]) + fabs(p->xt[c]) + vb_k_row_dot(p, c, w, 1);
      if (!(fabs(r) <= p->cts[c].tolerance * scale))
        return 0;
    }
    return 1;
  }
  for (int i = 0; i < n; i++) {
    int c = member(p, i);
    const double *row = p->K + (size_t)c * nc;
    double r = x[i] - p->xt[c], scale = fabs(x[i]) + fabs(p->xt[c]);
    for (int j = 0; j < n; j++) {
      double k = row[member(p, j)];
      r += k * f[j];
      scale += fabs(k) * fs[j];
    }
    if (!(fabs(r) <= p->cts[c].tolerance * scale))
      return 0;
  }
  return 1;
}

/* The solution x, f (over the set) into p->x1 and p->fbar; VB_OK. */
static int
accept(const vb_kproblem *p, int n, const double *x, const double *f)
{
  for (int i = 0; i < n; i++) {
    int c = member(p, i);
    p->x1[c] = x[i];
    p->fbar[c] = f[i];
  }
  return VB_OK;
}

int
vb_kmethod_global(const vb_kproblem *p, int *iterations)
{
  /* K NULL: every mode, the exact factor (p->gws has room for n x grank,
   * lib/island/island.c) */
  int n = set_size(p), rmax = p->grank < n || !p->K ? p->grank : n;
  *iterations = 0;
  if (!p->gws || n == 0)
    return VB_ENOCONV;
  /* the Hessian's r x r in p->jac (nc x nc, free once the Newton is done) */
  double *b = p->gws, *h = p->jac, *y = b + (size_t)n * rmax, *g = y + rmax,
         *d = g + rmax, *x = d + rmax, *f = x + n, *df = f + n, *w = df + n, *diag = w + n;
  int *perm = p->piv; /* scratch of nc ints */
  int r = factor(p, n, rmax, b, diag, perm);
  /* start from the forces the caller left (y = B^T fbar: the modes'
   * response to them), or from rest where they are not finite */
  for (int j = 0; j < r; j++) {
    const double *bj = b + (size_t)j * n;
    double s = 0.0;
    for (int i = 0; i < n; i++)
      s += bj[i] * p->fbar[member(p, i)];
    y[j] = s;
  }
  int restarted = 0, stalled = 0, small = 0;
  for (int it = 1; it <= GLOBAL_MAX_ITERATIONS; it++) {
    positions(p, n, r, b, y, x);
    int finite = 1;
    for (int i = 0; i < n; i++) {
      f[i] = force(p, member(p, i), x[i], &df[i]);
      finite &= isfinite(f[i]) && isfinite(df[i]);
    }
    if (!finite) {
      if (restarted)
        return VB_ENOCONV;
      restarted = 1;
      memset(y, 0, (size_t)r * sizeof *y);
      it--;
      continue;
    }
    if (small && converged(p, n, x, f, df, diag))
      return accept(p, n, x, f);
    ++*iterations;
    /* g = y - B^T f; H = I + B^T diag(F') B over the contacts whose
     * force moves */
    for (int j = 0; j < r; j++) {
      const double *bj = b + (size_t)j * n;
      double s = 0.0;
      for (int i = 0; i < n; i++)
        s += bj[i] * f[i];
      g[j] = y[j] - s;
    }
    for (int j = 0; j < r; j++)
      for (int l = j; l < r; l++)
        h[(size_t)j * r + l] = l == j ? 1.0 : 0.0;
    for (int i = 0; i < n; i++) {
      double di = df[i];
      if (di == 0.0)
        continue;
      if (!(di > 0.0))
        return VB_ENOCONV; /* a force that falls with x: no convex merit */
      for (int j = 0; j < r; j++) {
        double bij = di * b[(size_t)j * n + i];
        if (bij == 0.0)
          continue;
        double *hj = h + (size_t)j * r;
        for (int l = j; l < r; l++)
          hj[l] += bij * b[(size_t)l * n + i];
      }
    }
    if (cholesky(r, h) != 0)
      return VB_ENOCONV;
    double s0 = 0.0, dy = 0.0, dd = 0.0;
    for (int j = 0; j < r; j++)
      d[j] = -g[j];
    cholesky_solve(r, h, d);
    for (int j = 0; j < r; j++) {
      s0 += d[j] * g[j];
      dy += d[j] * y[j];
      dd += d[j] * d[j];
    }
    if (!(s0 < 0.0)) /* no descent left: E's minimum to its rounding */
      return converged(p, n, x, f, df, diag) ? accept(p, n, x, f) : VB_ENOCONV;
    memset(w, 0, (size_t)n * sizeof *w);
    for (int j = 0; j < r; j++) {
      const double *bj = b + (size_t)j * n;
      double dj = d[j];
      for (int i = 0; i < n; i++)
        w[i] += bj[i] * dj;
    }
    double l = line_search(p, n, x, w, dy, dd, s0);
    /* whether this step moves every compression by less than its
     * tolerance relative to max(|x_c|, its scale) (kmethod.c's
     * update_converged): the next iterate is accepted only then, as the
     * Newton's is, not as soon as its residual passes */
    small = 1;
    for (int i = 0; i < n && small; i++) {
      int c = member(p, i);
      const vb_chist *hc = &p->hist[c];
      double sc = fmax(fabs(x[i]), fabs(hc->x) + fabs(p->xt[c] - hc->x) + 1e-300);
      small = fabs(l * w[i]) <= p->cts[c].tolerance * sc;
    }
    /* a step that moves no y by more than its round-off, three times in a
     * row: E's round-off floor; accepted if its residual passes, else
     * short of the tolerance (a K that is not positive semi-definite, a
     * tolerance below the rounding) */
    double moved = 0.0, ymax = 0.0;
    for (int j = 0; j < r; j++) {
      moved = fmax(moved, fabs(l * d[j]));
      ymax = fmax(ymax, fabs(y[j]));
      y[j] += l * d[j];
    }
    stalled = moved <= 4.0 * DBL_EPSILON * ymax ? stalled + 1 : 0;
    if (stalled >= 3) {
      positions(p, n, r, b, y, x);
      for (int i = 0; i < n; i++)
        f[i] = force(p, member(p, i), x[i], &df[i]);
      return converged(p, n, x, f, df, diag) ? accept(p, n, x, f) : VB_ENOCONV;
    }
  }
  return VB_ENOCONV;
}
