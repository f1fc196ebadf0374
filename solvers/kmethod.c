/* kmethod.c - the K-method: a step's contact forces of an implicit island.
 *
 * The modes give each contact a predicted compression xt and the step a
 * constant compliance matrix K (K_cd = sum_j S_cj S_dj cc_j), so that the
 * new compressions solve x1 = xt - K fbar(x1) (Borin, De Poli & Rocchesso;
 * Avanzini).  Only the contacts that may act this step are solved (the
 * active set A, vb_kmethod_may_act on xt): the others keep fbar = 0 and
 * x1 = xt - K_cA fbar_A, and join A (and the solve is resumed) when that
 * x1 makes them act.  Simultaneous impacts are thus one coupled problem
 * whose cost follows the active contacts, not all of them.
 *
 * An island of one contact: the scheme's closed form (quadratic) or scalar
 * Newton (newton.c).  Else Newton on r(x) = x + K_AA fbar(x) - xt_A = 0
 * with the LU (dgetf2's and dgetrs's operations: vb_dense_lu up to 32
 * contacts, LAPACK's above) of the Jacobian I + K_AA diag(fbar')
 * (of its block of the contacts whose force moves with x1: the others'
 * columns are unit vectors, vb_kmethod_update in dense.c),
 * globalised by a backtracking (Armijo) line search on |r| (Dennis &
 * Schnabel, Numerical Methods for Unconstrained Optimization, alg. 6.3.1),
 * non-monotone (Grippo, Lampariello & Lucidi 1986): the Newton step d
 * solves J d = -r, so the slope of |r| along it is -|r| < 0 and a
 * short enough step always decreases it; a trial that is not finite is
 * shortened like any other, so the iterate is never NaN.  With K positive
 * semi-definite and fbar' >= 0 (a monotone law) the Jacobian is
 * non-singular and the solution unique.  Where the Jacobian is singular
 * (dgetf2's info > 0), or the iteration cap is reached, the solve reports
 * VB_ENOCONV and keeps its finite iterate.  The iteration starts from the
 * last step's forces (warm_start) and follows each contact's force curve
 * along the Newton direction (lifted): the same equations and tolerance,
 * fewer iterates.  Converged when every
 * contact's Newton update is below its tolerance relative to max(|x1|,
 * its scale), as the scalar Newton, and its residual below its tolerance
 * relative to the residual's round-off scale (residual_converged), or,
 * after two full steps whose contraction predicts the next update below
 * the compressions' round-off (quadratic_done), on that residual test
 * alone, without the confirming iteration.  The
 * cap is the contacts' max_iterations (50): Newton converges
 * quadratically once the full step is taken, and on the tanpura bridge
 * (tests/bench/bench_kmethod, 0.25 s) it takes 5.6 to 7.3 iterations per
 * solved step on average for 4 to 128 points (6.4 to 8.5 from the free
 * prediction in straight steps) and at most 12.
 *
 * Islands with a closed-form contact (quadratic), whose root rule must pick
 * each contact's root, are swept by block Gauss-Seidel and polished by the
 * active-set Newton when the sweeps stall.
 *
 * The non-monotone line search lets full steps raise |r| for a while, and
 * at a law's kink (a linear penalty k [x] at contact) Newton's direction
 * need not descend on |r|: the iterates can cycle (an ideal string on the
 * fretless neck's 862 points, two-point, k = 1e10, alpha 1, at t =
 * 0.026814059: 20 active contacts, a cycle of 6 iterates from the 13th
 * iteration to the cap).  Where the Newton reports VB_ENOCONV and the
 * island gave a work space (p->gws), the globalised fall-back (kglobal.c,
 * globalise below) solves the step again, from Newton's iterate, as the
 * minimum of a strictly convex function: it cannot cycle.  Only after a
 * failure, so every step the Newton solves keeps its bits.
 *
 * An island of many contacts has no dense K (p->K NULL, issue 33 item 2:
 * lib/island/model.c, solvers/lowrank.c).  Then K_AA is formed from the
 * modes (the dense K's bits) for active sets of up to p->kcap (the modes)
 * contacts, and every product K_cA f_A over the others, the residual, its
 * round-off scale and the Newton system of a larger set go through the
 * modes, u = diag(cc) S_A^T f_A and S_c . u: O(nc nm) a round instead of
 * O(nc na) from K's rows, with no O(nc^2) storage or set-up. */
#include <float.h>
#include <math.h>
#include <string.h>
#include "base/base.h"
#include "scheme.h"

/* Halvings of the line search before the step is given up (lambda down to
 * 2^-40, about 1e-12: below that a step moves no iterate at the
 * tolerances the loader allows, >= 1e-16 relative). */
#define LINE_SEARCH_MAX 40
/* Armijo's sufficient decrease: |r(x + lambda d)| <= (1 - sigma lambda)
 * |r(x)| (Dennis & Schnabel eq 6.3.3 with the slope -|r| of |r| along the
 * Newton step). */
#define ARMIJO_SIGMA 1e-4
/* The non-monotone variant (Grippo, Lampariello & Lucidi, SIAM J. Numer.
 * Anal. 23:707, 1986): sufficient decrease below the largest |r| of the
 * last NONMONOTONE_MEMORY iterates instead of the last one, so that full
 * Newton steps may cross a local rise of |r| (a damped law's force that
 * falls with x1 makes such rises). */
#define NONMONOTONE_MEMORY 20

/* The contacts the step solves (p->set, or all of them): how many, and
 * the k-th, ascending. */
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

/* The operations of the scheme stepping contact c this step (its
 * fall-back's where that took over). */
static inline const vb_scheme_ops *
ops_of(const vb_kproblem *p, int c)
{
  const vb_scheme *sch = p->cts[c].scheme;
  return (p->fallback[c] ? sch->fallback : sch)->ops;
}

/* The force function of contact c as it is being solved this step. */
static double
force_of(const vb_kproblem *p, int c, double x1, double *df)
{
  return ops_of(p, c)->step_force(&p->cts[c], &p->hist[c], p->dt, x1, df);
}

/* The part of contact c's step force that is the same for every trial
 * (its scheme's step_base: two-point V(x^n)), or 0 where it has none. */
static double
base_of(const vb_kproblem *p, int c)
{
  const vb_scheme_ops *o = ops_of(p, c);
  return o->step_base ? o->step_base(&p->cts[c], &p->hist[c]) : 0.0;
}

/* force_of with base_of's value b: the same bits, the base not formed
 * again (a power a trial for each contact in contact at n). */
static double
force_at(const vb_kproblem *p, int c, double x1, double b, double *df)
{
  const vb_scheme_ops *o = ops_of(p, c);
  return o->step_force_at ? o->step_force_at(&p->cts[c], &p->hist[c], p->dt, x1, b, df)
                          : o->step_force(&p->cts[c], &p->hist[c], p->dt, x1, df);
}

/* The scale of contact c's compression, m: what its tolerance is relative
 * to when x1 is near 0. */
static double
scale_of(const vb_kproblem *p, int c)
{
  const vb_chist *h = &p->hist[c];
  return fabs(h->x) + fabs(p->xt[c] - h->x) + 1e-300;
}

/* ------------------------------------------------ Newton on the active set
 *
 * The active set is p->piv[0..na), ascending.  Scratch, all within the
 * step's vb_kproblem (no allocation): the Jacobian's LU at the start of
 * p->jac (na x na, column-major); the residual, then the update d, in
 * p->rhs (packed, entry i for contact piv[i]); fbar' at the iterate in the
 * last na doubles of p->jac (derivatives) and the line search's trial
 * forces in the na before them; LAPACK's pivots in p->iterations until the
 * counts are written.  When na = nc these share the Jacobian's last two
 * columns: column j of I + K_AA diag(fbar') needs only fbar'_j, read before
 * the column is written, and the trial forces come after the solve. */

/* Where fbar' of the active contacts is kept, packed: the last na doubles
 * of p->jac (nc x nc), past the Jacobian when na < nc. */
static double *
derivatives(const vb_kproblem *p, int na)
{
  return vb_kmethod_derivatives(p, na);
}

/* Add r to dnrm2's running scale and sum of squares (|r| = scale
 * sqrt(ssq)); -1 where r is not finite, else 0. */
static inline int
nrm2_add(double r, double *scale, double *ssq)
{
  double a = fabs(r);
  if (!(a <= *scale)) {
    if (!isfinite(a))
      return -1;
    *ssq = 1.0 + *ssq * (*scale / a) * (*scale / a);
    *scale = a;
  } else if (a > 0.0) {
    *ssq += (a / *scale) * (a / *scale);
  }
  return 0;
}

/* |r| of r[n], scaled as LAPACK's dnrm2, so that it overflows only where
 * r does; INFINITY where an entry is not finite. */
static double
norm_of(const double *r, int n)
{
  double scale = 0.0, ssq = 1.0; /* |r| = scale sqrt(ssq), as LAPACK's dnrm2 */
  for (int i = 0; i < n; i++)
    if (nrm2_add(r[i], &scale, &ssq) != 0)
      return INFINITY;
  return scale * sqrt(ssq);
}

/* |r| at x1_A + lambda d (at xs[na] where xs is not NULL) with forces f
 * (packed when `packed`, else indexed by contact), r into out[na] when out
 * is not NULL (norm_of). */
static double
residual(const vb_kproblem *p, int na, const double *xs, double lambda, const double *d,
         const double *f, int packed, double *out)
{
  const int *act = p->piv;
  int nc = p->nc;
  double scale = 0.0, ssq = 1.0; /* |r| = scale sqrt(ssq), as LAPACK's dnrm2 */
  double *u = p->kws; /* K NULL: u = diag(cc) S_A^T f, K_cA f = S_c . u */
  if (!p->K) {
    vb_k_modal_zero(p, u);
    for (int j = 0; j < na; j++)
      vb_k_modal_add(p, act[j], packed ? f[j] : f[act[j]], u);
    vb_k_modal_scale(p, u, 0);
  }
  for (int i = 0; i < na; i++) {
    int c = act[i];
    const double *row = p->K ? p->K + (size_t)c * nc : NULL;
    double s = xs ? xs[i] - p->xt[c] : p->x1[c] - p->xt[c];
    if (d)
      s += lambda * d[i];
    if (!row)
      s += vb_k_row_dot(p, c, u, 0);
    else if (packed)
      for (int j = 0; j < na; j++)
        s += row[act[j]] * f[j];
    else
      for (int j = 0; j < na; j++)
        s += row[act[j]] * f[act[j]];
    if (out)
      out[i] = s;
    if (nrm2_add(s, &scale, &ssq) != 0)
      return INFINITY;
  }
  return scale * sqrt(ssq);
}

/* residual() from the packed K_AA (kaa, column-major: kaa[j na + i] =
 * K[piv[i]][piv[j]]) with packed forces f, r into out[na]: each r_i the
 * same products summed in the same order (the start, then K_i0 f_0,
 * K_i1 f_1, ...), formed a column at a time (vb_dense_gemv_acc): the
 * same bits. */
static double
residual_packed(const vb_kproblem *p, int na, const double *kaa, const double *xs, double lambda,
                const double *d, const double *f, double *out)
{
  const int *act = p->piv;
  for (int i = 0; i < na; i++) {
    int c = act[i];
    double s = xs ? xs[i] - p->xt[c] : p->x1[c] - p->xt[c];
    if (d)
      s += lambda * d[i];
    out[i] = s;
  }
  vb_dense_gemv_acc(na, na, kaa, f, out);
  return norm_of(out, na);
}

/* Whether every update d_i is below contact piv[i]'s tolerance, relative
 * to max(|x1_i + d_i|, scale_i) (the scalar Newton's test); the largest
 * such relative update into *rel (NaN if one is not finite). */
static int
update_converged(const vb_kproblem *p, int na, double *rel)
{
  int small = 1;
  *rel = 0.0;
  for (int i = 0; i < na; i++) {
    int c = p->piv[i];
    double x = fabs(p->x1[c] + p->rhs[i]), sc = scale_of(p, c);
    double s = x > sc || sc != sc ? x : sc; /* fmax(|x|, sc), inline */
    if (!(fabs(p->rhs[i]) <= p->cts[c].tolerance * s))
      small = 0;
    double r = fabs(p->rhs[i]) / s;
    *rel = r <= *rel ? *rel : r; /* NaN stays */
  }
  return small;
}

/* Whether the residual of the iterate x1_A is within every contact's
 * tolerance of its round-off scale, |r_c| <= tol_c (|x1_c| + |xt_c| +
 * sum_d |K_cd| (|fbar_d| + |fbar'_d x1_d|)): a stiff law's force k x1
 * rounds to eps k |x1|, so r cannot be smaller than these terms' rounding.
 * With a small update, the convergence test; alone where the iteration
 * stops (a singular Jacobian, the cap).  `fresh`: right after a step was
 * taken, fbar' at x1_A is in derivatives(p, na) and r in p->rhs (the same
 * values and bits as forming them again); else both are formed here. */
static int
residual_converged(const vb_kproblem *p, int na, const double *kaa, int fresh)
{
  const int *act = p->piv;
  int nc = p->nc;
  double *fs = p->jac; /* |fbar_d| + |fbar'_d x1_d|, packed */
  const double *dfs = derivatives(p, na);
  for (int j = 0; j < na; j++) {
    int d = act[j];
    double df, f = fresh ? p->fbar[d] : force_of(p, d, p->x1[d], &df);
    fs[j] = fabs(f) + fabs((fresh ? dfs[j] : df) * p->x1[d]);
  }
  /* K NULL and no K_AA: r and the scale through the modes, u = diag(cc)
   * S_A^T fbar_A and w = |diag(cc)| |S_A|^T fs, the scale |S_c| . w
   * bounding sum_d |K_cd| fs_d from above (the round-off scale of the
   * products through the modes, as sum_d |K_cd| fs_d is of the dense
   * ones) */
  double *u = p->kws, *w = p->kws + p->nmp;
  if (!p->K && !kaa) {
    vb_k_modal_zero(p, u);
    vb_k_modal_zero(p, w);
    for (int j = 0; j < na; j++) {
      if (!fresh)
        vb_k_modal_add(p, act[j], p->fbar[act[j]], u);
      vb_k_modal_add_abs(p, act[j], fs[j], w);
    }
    vb_k_modal_scale(p, u, 0);
    vb_k_modal_scale(p, w, 1);
  }
  for (int i = 0; i < na; i++) {
    int c = act[i];
    const double *row = p->K ? p->K + (size_t)c * nc : NULL;
    double r = p->x1[c] - p->xt[c], scale = fabs(p->x1[c]) + fabs(p->xt[c]);
    if (!row && !kaa) {
      r = fresh ? p->rhs[i] : r + vb_k_row_dot(p, c, u, 0);
      scale += vb_k_row_dot(p, c, w, 1);
    } else if (!row && !fresh) {
      /* the entries of K_AA, in the order of the rows below */
      for (int j = 0; j < na; j++) {
        double k = kaa[(size_t)j * na + i];
        r += k * p->fbar[act[j]];
        scale += fabs(k) * fs[j];
      }
    } else if (fresh && kaa) {
      r = p->rhs[i];
      for (int j = 0; j < na; j++)
        scale += fabs(kaa[(size_t)j * na + i]) * fs[j];
    } else if (fresh) {
      r = p->rhs[i];
      for (int j = 0; j < na; j++)
        scale += fabs(row[act[j]]) * fs[j];
    } else {
      for (int j = 0; j < na; j++) {
        r += row[act[j]] * p->fbar[act[j]];
        scale += fabs(row[act[j]]) * fs[j];
      }
    }
    if (!(fabs(r) <= p->cts[c].tolerance * scale))
      return 0;
  }
  return 1;
}

/* The doubles the update's LU takes at the start of p->jac: na^2, or na
 * where K is NULL and the active set is solved through the modes (more
 * than p->kcap contacts: dense.c's lowrank_solve, whose matrix is in
 * p->gws). */
static inline size_t
lu_room(const vb_kproblem *p, int na)
{
  return p->K || na <= p->kcap ? (size_t)na * na : (size_t)na;
}

/* Where a step's lift exponents (below), trial compressions and trial
 * residual are kept: the 3 na doubles before the trial forces, clear of
 * the LU of the update (na x na at the start of p->jac) and of its
 * right-hand side (the trial forces' slots), or NULL (straight steps, the
 * residual formed again when a trial is taken) where p->jac has no room
 * for them (islands whose contacts are almost all active: a few
 * contacts). */
static double *
lift_slots(const vb_kproblem *p, int na)
{
  return lu_room(p, na) + 5 * (size_t)na <= vb_kmethod_jac_size(p) ? derivatives(p, na) - 4 * na
                                                                    : NULL;
}

/* Where the active contacts' step bases (base_of, formed once a Newton
 * solve) are kept: the na doubles before lift_slots, or NULL (each trial
 * forms them again) where p->jac has no room. */
static double *
base_slots(const vb_kproblem *p, int na)
{
  return lu_room(p, na) + 6 * (size_t)na <= vb_kmethod_jac_size(p) ? derivatives(p, na) - 5 * na
                                                                    : NULL;
}

/* Where K_AA is kept packed (kaa, column-major: kaa[j na + i] =
 * K[piv[i]][piv[j]], the entries the residual, the Jacobian and the
 * convergence test read, gathered once a Newton solve instead of through
 * the index list at each use): the na^2 doubles before base_slots, or
 * NULL where p->jac has no room (2 na^2 + 6 na > nc^2: the reads go
 * through p->K as before).  The same entries, so the same bits. */
static double *
kaa_slots(const vb_kproblem *p, int na)
{
  size_t n = (size_t)na;
  if (!p->K && na > p->kcap)
    return NULL;
  return 2 * n * n + 6 * n <= vb_kmethod_jac_size(p) ? derivatives(p, na) - 5 * n - n * n : NULL;
}

/* Force and derivative of the j-th active contact at x1, with its base
 * from base_slots' b where there is one. */
static inline double
active_force(const vb_kproblem *p, const double *b, int j, double x1, double *df)
{
  int c = p->piv[j];
  return b ? force_at(p, c, x1, b[j], df) : force_of(p, c, x1, df);
}

/* The exponent of contact j's force as a local power of its compression,
 * e = x fbar'/fbar at the iterate, where x, fbar and fbar' are positive and
 * e > 1 (a force that grows faster than the compression); else 0 (no
 * lift).  A power law's e is alpha where the contact was in contact at n,
 * alpha + 1 where it was not (the discrete gradient V(x1)/(x1 - x0)). */
static double
lift_exponent(double x, double f, double df)
{
  double e = x * df / f;
  return x > 0.0 && f > 0.0 && df > 0.0 && e > 1.0 && e <= 64.0 ? e : 0.0;
}

/* A contact's compression lambda along its Newton update d from x, lifted
 * by its force's local exponent e: the update is taken in the force as a
 * power C x^e of the compression, fbar + lambda fbar' d (Newton's own
 * linear prediction of the force), and mapped back, x (1 + lambda e d /
 * x)^(1/e); where that force would be negative (the contact leaves) the
 * path goes on straight from x = 0, x (1 + lambda e d / x) / e.  Newton in
 * x shortens a stiff contact's compression by only 1 - 1/e a step where
 * the prediction is many times the root (a free prediction into a stiff
 * barrier), while in the force, which the modes' response makes nearly
 * linear there, Newton's steps are nearly exact.  With warm_start, on the
 * tanpura bridge's 64 points: 7.97 -> 6.92 iterations per solved step (its
 * impacts mostly leave within a step, where the compressions cross out of
 * contact and the steps are straight: the rest of the iterations).  The
 * path leaves x along d (its tangent at lambda = 0 is d), so
 * the line search's slope and its Armijo test hold as for the straight
 * step x + lambda d; the root and its tolerance are those of Newton in x:
 * only the iterates change.  The straight step for e = 0 or where the
 * lifted one is not finite. */
static double
lifted(double x, double d, double lambda, double e)
{
  double xs = x + lambda * d;
  if (e == 0.0)
    return xs;
  double y = 1.0 + lambda * e * d / x;
  double xn = y > 0.0 ? x * pow(y, 1.0 / e) : x * y / e;
  return isfinite(xn) ? xn : xs;
}

/* |r| at the trial point lambda along d (lifted where lift_slots has room),
 * with the compressions there in its trial slots, and the forces and
 * their derivatives in the trial slots (derivatives(p, na) - na and
 * derivatives(p, na)). */
static double
trial(const vb_kproblem *p, int na, double lambda)
{
  const int *act = p->piv;
  double *d = p->rhs, *df = derivatives(p, na), *ft = df - na, *e = lift_slots(p, na);
  const double *b = base_slots(p, na);
  if (!e) {
    for (int j = 0; j < na; j++)
      ft[j] = force_of(p, act[j], p->x1[act[j]] + lambda * d[j], &df[j]);
    return residual(p, na, NULL, lambda, d, ft, 1, NULL);
  }
  const double *kaa = kaa_slots(p, na);
  double *xs = e + na;
  for (int j = 0; j < na; j++) {
    xs[j] = lifted(p->x1[act[j]], d[j], lambda, e[j]);
    ft[j] = active_force(p, b, j, xs[j], &df[j]);
  }
  if (kaa)
    return residual_packed(p, na, kaa, xs, 0.0, NULL, ft, xs + na);
  return residual(p, na, xs, 0.0, NULL, ft, 1, xs + na);
}

/* Move x1_A and fbar_A to the trial point at lambda, whose |r| the last
 * trial() returned (phit); the new |r| into *phi and the new r into
 * p->rhs: the trial's (the same sums in the same order: the same bits),
 * or formed again on a straight step. */
static void
take(const vb_kproblem *p, int na, double lambda, double phit, double *phi)
{
  const int *act = p->piv;
  double *d = p->rhs, *ft = derivatives(p, na) - na, *e = lift_slots(p, na);
  for (int j = 0; j < na; j++) {
    p->x1[act[j]] = e ? e[na + j] : p->x1[act[j]] + lambda * d[j];
    p->fbar[act[j]] = ft[j];
  }
  if (e) {
    memcpy(d, e + 2 * na, (size_t)na * sizeof(double));
    *phi = phit;
  } else {
    *phi = residual(p, na, NULL, 0.0, NULL, p->fbar, 0, d);
  }
}

/* Backtrack along d from x1_A until |r| decreases enough below ref
 * (Armijo, non-monotone), then take the step.  Where no step of at least
 * 2^-LINE_SEARCH_MAX does, x1_A is at a stationary point of |r| that is
 * no root (a damped law whose force falls with x1 makes them) or at the
 * round-off floor: the full Newton step is taken if it is finite, as plain
 * Newton would, to leave it (1).  0 after a full Armijo step, 2 after a
 * shortened one; -1 when even the full step is not finite (nothing
 * moved). */
static int
line_search(const vb_kproblem *p, int na, double *phi, double ref)
{
  double lambda = 1.0;
  for (int k = 0; k <= LINE_SEARCH_MAX; k++, lambda *= 0.5) {
    double t = trial(p, na, lambda);
    if (t <= ref - ARMIJO_SIGMA * lambda * *phi) {
      take(p, na, lambda, t, phi);
      return k == 0 ? 0 : 2;
    }
  }
  double t = trial(p, na, 1.0);
  if (!isfinite(t))
    return -1;
  take(p, na, 1.0, t, phi);
  return 1;
}

/* Whether two full Newton steps in a row, of largest relative updates u0
 * then u1 (update_converged), show the next update below the round-off
 * of the compressions: in Newton's quadratic convergence |d_(k+1)| <=
 * C |d_k|^2, C the Jacobian's Lipschitz constant times |J^-1| / 2
 * (Dennis & Schnabel, theorem 5.2.1); C estimated from the last two
 * steps as u1 / u0^2 (the contraction they show, u1 < u0) predicts the
 * next update u2 = u1^3 / u0^2.  Where u2 <= DBL_EPSILON / 2, the update
 * the next iteration would find (and confirm with its own test) would
 * move no compression by more than half an ulp of its scale: the iterate
 * is accepted without that iteration, its residual still tested
 * (residual_converged), so the discrete equations hold to their
 * tolerance as before.  The estimate of C is the one assumption (a
 * prediction, not a bound; the contraction u1 < u0 and the two full
 * steps screen iterations not yet quadratic): on random problems one
 * more Newton step moves the accepted compressions by at most 1.06e-14
 * of their residual's scale (check_kmethod test_accepted_root; 4.6e-16
 * when every solve took it), a hundredth of the tolerance.  On the
 * tanpura bridge (64 points, 0.25 s) 6.92 -> 6.35 iterations per solved
 * step; accepting where u2 <= 1 tolerance would save more (5.94) but
 * moves the roots by up to 7.3e-13 of their scale, and the cradle's
 * momentum (check_network, 1e-13) no longer holds. */
static int
quadratic_done(double u0, double u1)
{
  return u1 < u0 && u0 < INFINITY && u1 * u1 * u1 <= 0.5 * DBL_EPSILON * u0 * u0;
}

/* Newton with line search on the active contacts from x1_A; adds its
 * iterations to *its.  VB_OK, VB_ENOCONV, or VB_EDIVERGED when the
 * residual is not finite at the start (a force overflows there). */
static int
newton_active(const vb_kproblem *p, int na, int *its)
{
  const int *act = p->piv;
  double *df = derivatives(p, na), *ft = df - na, *b = base_slots(p, na), *kaa = kaa_slots(p, na);
  int maxit = 0;
  for (int i = 0; i < na; i++) {
    int c = act[i];
    if (b)
      b[i] = base_of(p, c);
    p->fbar[c] = active_force(p, b, i, p->x1[c], &df[i]);
    if (p->cts[c].max_iterations > maxit)
      maxit = p->cts[c].max_iterations;
  }
  if (kaa && !p->K)
    vb_k_gather(p, na, act, NULL, kaa, p->gws); /* gws: free until the update */
  for (int j = 0; kaa && j < na; j++) {
    if (p->K) {
      const double *kcol = p->K + act[j];
      for (int i = 0; i < na; i++)
        kaa[(size_t)j * na + i] = kcol[(size_t)act[i] * p->nc];
    }
    ft[j] = p->fbar[act[j]]; /* the forces packed, in the trial slots */
  }
  double phi = kaa ? residual_packed(p, na, kaa, NULL, 0.0, NULL, ft, p->rhs)
                   : residual(p, na, NULL, 0.0, NULL, p->fbar, 0, p->rhs);
  if (!isfinite(phi))
    return VB_EDIVERGED; /* the forces overflow where the solve starts */
  double past[NONMONOTONE_MEMORY];
  double uprev = NAN; /* the last full step's largest relative update, NaN after any other */
  for (int it = 1; it <= maxit; it++) {
    past[(it - 1) % NONMONOTONE_MEMORY] = phi;
    double ref = phi;
    for (int k = 0; k < it && k < NONMONOTONE_MEMORY; k++)
      ref = fmax(ref, past[k]);
    *its += 1;
    if (phi == 0.0)
      return VB_OK;
    double *e = lift_slots(p, na);
    for (int j = 0; e && j < na; j++)
      e[j] = lift_exponent(p->x1[act[j]], p->fbar[act[j]], df[j]);
    if (vb_kmethod_update(p, na, kaa) != 0)
      break;
    double u;
    int small = update_converged(p, na, &u);
    int ls = line_search(p, na, &phi, ref);
    if (ls < 0)
      break;
    if ((small || (ls == 0 && quadratic_done(uprev, u))) && residual_converged(p, na, kaa, 1))
      return VB_OK;
    uprev = ls == 0 ? u : NAN;
  }
  return residual_converged(p, na, kaa, 0) ? VB_OK : VB_ENOCONV;
}


/* The compressions of the contacts outside the active set under the
 * active forces, x1_c = xt_c - K_cA fbar_A; when `join` is set those that
 * may then act join the set (kept ascending).  Returns how many joined. */
static int
expand_active(const vb_kproblem *p, int *na, int join)
{
  int *act = p->piv, nc = p->nc, n = *na, added = 0;
  /* K NULL: K_cA fbar_A = S_c . u, u = diag(cc) S_A^T fbar_A (the joined
   * contacts have no force) */
  double *u = p->kws;
  if (!p->K) {
    vb_k_modal_zero(p, u);
    for (int j = 0; j < n; j++)
      vb_k_modal_add(p, act[j], p->fbar[act[j]], u);
    vb_k_modal_scale(p, u, 0);
  }
  for (int k = set_size(p) - 1, i = n - 1; k >= 0; k--) {
    int c = member(p, k);
    if (i >= 0 && act[i] == c) {
      i--;
      continue;
    }
    /* every member of the set solved this round acts on c: after a join
     * above c they sit at act[0 .. n + added), the joined ones with
     * fbar 0 (x - 0 leaves x as it was) */
    double x = p->xt[c];
    if (p->K) {
      const double *row = p->K + (size_t)c * nc;
      for (int j = 0; j < n + added; j++)
        x -= row[act[j]] * p->fbar[act[j]];
    } else {
      x -= vb_k_row_dot(p, c, u, 0);
    }
    p->x1[c] = x;
    p->fbar[c] = 0.0;
    if (join && vb_kmethod_may_act(&p->cts[c], &p->hist[c], x, p->three)) {
      /* insert c at its place: after every member below it; it starts
       * from x, or from xt (out of contact: no force) if its force
       * overflows at x */
      double df, f = force_of(p, c, x, &df);
      if (!isfinite(f) || !isfinite(df))
        p->x1[c] = p->xt[c];
      int at = i + 1;
      for (int k = n + added; k > at; k--)
        act[k] = act[k - 1];
      act[at] = c;
      added++;
    }
  }
  *na = n + added;
  if (p->rounds)
    ++*p->rounds;
  return added;
}

/* The start of the active set's Newton: x1_A = xt_A - K_AA fbar_A with
 * the previous step's forces fbar_A (still in p->fbar), the compressions
 * the modes would reach if the active contacts pushed as they did last
 * step; 1 where it applies (some fbar_A != 0 and every x1_A finite), else
 * 0 and x1_A = xt_A.  The discrete equations and their tolerance are those
 * of the cold start x1 = xt: only the iteration path changes.  Where the
 * force changes little from step to step the iterate starts near the
 * root instead of at the free prediction (a penetration many times the
 * root's for a stiff law); on the tanpura bridge, whose impacts mostly
 * last a step or two, the solves that start warm take 6.6 iterations on
 * average against 7.5 cold (64 points).  Where the forces are not finite
 * at the warm start (an overflowing law) the caller starts again cold. */
static int
warm_start(const vb_kproblem *p, int na)
{
  const int *act = p->piv;
  int nc = p->nc, warm = 0;
  for (int j = 0; j < na; j++)
    warm |= p->fbar[act[j]] != 0.0;
  /* K NULL: through the modes, O(na nm) (the start only: the equations
   * and their tolerance are the same) */
  double *u = p->kws;
  int modal = !p->K;
  if (modal && warm) {
    vb_k_modal_zero(p, u);
    for (int j = 0; j < na; j++)
      vb_k_modal_add(p, act[j], p->fbar[act[j]], u);
    vb_k_modal_scale(p, u, 0);
  }
  for (int i = 0; i < na && warm; i++) {
    int c = act[i];
    double x = p->xt[c];
    if (modal) {
      x -= vb_k_row_dot(p, c, u, 0);
    } else {
      const double *row = p->K + (size_t)c * nc;
      for (int j = 0; j < na; j++)
        x -= row[act[j]] * p->fbar[act[j]];
    }
    warm = isfinite(x);
    p->x1[c] = x;
  }
  for (int i = 0; i < na && !warm; i++)
    p->x1[act[i]] = p->xt[act[i]];
  return warm;
}

/* Solve the step on its active set, from xt, or from the current x1
 * (keeping each contact's fall-back choice) when `resume` is set.
 * VB_OK, VB_ENOCONV (the finite iterate is kept) or VB_EDIVERGED (scalar
 * Newton met a non-finite force). */
static int
solve_active_set(const vb_kproblem *p, int resume)
{
  int nc = p->nc, ns = set_size(p), na = 0, its = 0, rc = VB_OK;
  for (int k = 0; k < ns; k++) {
    int c = member(p, k);
    const vb_contact *ct = &p->cts[c];
    if (!resume) {
      p->x1[c] = p->xt[c];
      p->fallback[c] = 0;
    }
    if (vb_kmethod_may_act(ct, &p->hist[c], p->xt[c], p->three) ||
        (resume && vb_kmethod_may_act(ct, &p->hist[c], p->x1[c], p->three)))
      p->piv[na++] = c;
  }
  int warm = !resume && warm_start(p, na);
  for (int k = 0; k < ns; k++)
    p->fbar[member(p, k)] = 0.0;
  /* every contact joins at most once: at most ns rounds */
  for (int round = 0; round <= ns && na > 0; round++) {
    if (na == 1 && p->cts[p->piv[0]].scheme->ops->solve_single) {
      int c = p->piv[0];
      double w = p->K ? p->K[(size_t)c * nc + c] : vb_k_entry(p, c, c);
      rc = solve_one(p, c, p->xt[c], w, &p->x1[c]);
      its += p->iterations[c];
      double df;
      p->fbar[c] = force_of(p, c, p->x1[c], &df);
    } else {
      rc = newton_active(p, na, &its);
      if (rc == VB_EDIVERGED && warm) {
        /* a force overflows at the warm start: start again cold */
        for (int i = 0; i < na; i++)
          p->x1[p->piv[i]] = p->xt[p->piv[i]];
        rc = newton_active(p, na, &its);
      }
    }
    warm = 0;
    /* only a converged set's forces say who else acts */
    if (rc == VB_EDIVERGED || expand_active(p, &na, rc == VB_OK) == 0)
      break;
  }
  /* the counts (LAPACK's pivots used their first na entries) */
  for (int i = 0; i < na; i++)
    p->iterations[i] = 0;
  for (int k = 0; k < ns; k++)
    p->iterations[member(p, k)] = 0;
  for (int i = 0; i < na; i++)
    p->iterations[p->piv[i]] = its;
  return rc;
}

/* Block Gauss-Seidel over many contacts: each solved in turn with the
 * others' forces fixed (warm-started from the previous step's forces),
 * sweeps until no compression moves. */
static int
solve_gauss_seidel(const vb_kproblem *p)
{
  int nc = p->nc, maxit = 0, rc = VB_OK;
  if (!p->K)
    return VB_EINVAL; /* model.c keeps K for islands with a closed-form contact */
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

/* Where the Newton did not converge (rc VB_ENOCONV), the globalised
 * fall-back (kglobal.c) from its iterate: VB_OK with the fall-back's
 * solution, else rc and the Newton's finite iterate.  Its iterations are
 * added to the counts of the contacts Newton counted and of those that may
 * act at the answer.  Only after a failure: every step the Newton solves
 * keeps its bits. */
static int
globalise(const vb_kproblem *p, int rc)
{
  if (rc != VB_ENOCONV || !p->gws)
    return rc;
  int its;
  int rg = vb_kmethod_global(p, &its);
  if (p->global_iterations)
    *p->global_iterations += its;
  for (int k = 0; k < set_size(p); k++) {
    int c = member(p, k);
    if (p->iterations[c] > 0 || vb_kmethod_may_act(&p->cts[c], &p->hist[c], p->x1[c], p->three))
      p->iterations[c] += its;
  }
  if (rg != VB_OK)
    return rc;
  if (p->global_solves)
    ++*p->global_solves;
  return VB_OK;
}

/* Solve a step's contacts. */
int
vb_kmethod_solve(const vb_kproblem *p)
{
  int nc = p->nc, rc;
  if (nc == 1) {
    double w = p->K ? p->K[0] : vb_k_entry(p, 0, 0);
    rc = solve_one(p, 0, p->xt[0], w, &p->x1[0]);
    /* the force consistent with the modes' linear response; none for a
     * contact whose bodies have no modes along u (K = 0: a wall and a body
     * that moves only along w, under a prescribed normal force, whose law
     * is the k = 0 spring: load_friction.c refuses any other) */
    p->fbar[0] = w != 0.0 ? (p->xt[0] - p->x1[0]) / w : 0.0;
    return rc;
  }
  /* the active-set Newton, but Gauss-Seidel for an island with a
   * closed-form contact (the quadratic scheme), whose root rule must pick
   * each contact's root, polished by the Newton when it stalls */
  int closed = 0;
  for (int k = 0; k < set_size(p); k++)
    closed |= p->cts[member(p, k)].scheme->ops->solve_single != NULL;
  if (!closed)
    return globalise(p, solve_active_set(p, 0)); /* fbar_A at x1_A, 0 elsewhere */
  rc = solve_gauss_seidel(p);
  if (rc == VB_ENOCONV)
    return globalise(p, solve_active_set(p, 1));
  if (rc == VB_EDIVERGED)
    return rc;
  for (int c = 0; c < nc; c++) {
    double df;
    p->fbar[c] = force_of(p, c, p->x1[c], &df);
  }
  return rc;
}
