/* moving.c - a contact point that moves along its modal body (issue 30,
 * item 5; moving.h, doc/geometry.md).
 *
 * The contact joins a mass and a point p(t) of a modal body that moves
 * along a track of the body's points: its compression is x = S(p) q +
 * (walls and gap), S(p) the body's shapes at p (linear between the track's
 * two points around p; sign as a line contact's: +shape as the contact's
 * a, -shape as its b) and the mass's +-1.  A step holds the row at the
 * point's position at the step's middle, S_(n+1/2) = S(p(t_n + dt/2)), and
 * is then the two-point scheme exactly (Chatziioannou eq 8 with the
 * K-method, K = sum S_j^2 cc_j): the trapezoidal modes, the contact force
 * over the step the discrete gradient (V(x1) - V(x0)) / (x1 - x0) of x0 =
 * S_(n+1/2) q^n, x1 = S_(n+1/2) q^(n+1), so the step changes the energy by
 * exactly the work of the external forces less the dampers' and the law's
 * damping.  Between two steps the row moves on to S_(n+3/2): the
 * contact's potential at n changes from V(S_(n+1/2) q^n) to V(S_(n+3/2)
 * q^n) with nothing else moving, the work the prescribed motion of the
 * point does on the contact, which is booked as external work.  So the
 * balance E + dissipated - external closes to round-off, and the scheme
 * conserves the energy of each step's frozen configuration; what it does
 * not conserve is what the drive puts in (a moving load on a deflected
 * string does work through the slope).  A point that follows its mass's
 * own w instead (follow = "w") is a coordinate, stepped by follow_step
 * below with a discrete gradient in (q, w) that conserves the whole
 * energy, nothing booked for the point's motion. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "island.h"
#include "friction.h"
#include "moving.h"

int
vb_moving_compile(const vb_island_model *m, vb_moving_model **out, char *err, size_t errlen)
{
  const vb_scene *sc = m->scene;
  int c = -1;
  *out = NULL;
  for (int k = 0; k < m->nc; k++)
    if (m->cts[k].ntrack > 0)
      c = k;
  if (c < 0)
    return VB_OK;
  const vb_contact *ct = &m->cts[c];
  if (m->nc > 1)
    return vb_errf(err, errlen, VB_EINVAL,
                   "%s:%d: contact '%s': a moving contact point in an island with other "
                   "contacts is not done yet (valid: the only contact of its island)",
                   sc->path, ct->line, ct->name);
  /* a driven point: no w in the island; a following one: the mass's w,
   * and with friction at the point its spin if it has one (load_geometry.c
   * refuses a spin without friction and modes along w) */
  const vb_friction_model *fm = m->fric;
  int follow_ok = fm && fm->nw == 1 && fm->nmw == fm->nt &&
                  ((fm->nt == 1 && fm->nfc == 0) ||
                   (fm->nt <= 2 && fm->nfc == 1 && fm->local[0] == c));
  if (ct->track_follow ? !follow_ok : fm != NULL)
    return vb_errf(err, errlen, VB_EINVAL,
                   ct->track_follow
                       ? "%s:%d: contact '%s': a point following a mass's w beside other "
                         "coordinates along w is not done yet (valid: the mass's w alone, "
                         "with its spin only under friction at the point)"
                       : "%s:%d: contact '%s': a moving contact point on bodies with a w "
                         "direction is not done yet (valid: a mass without w0, vw0, kw or cw, "
                         "or follow = \"w\")",
                   sc->path, ct->line, ct->name);
  vb_moving_model *mm = calloc(1, sizeof *mm);
  const double **shape = calloc((size_t)ct->ntrack, sizeof *shape);
  if (!mm || !shape) {
    free(mm);
    free(shape);
    return vb_errf(err, errlen, VB_ENOMEM, "scene '%s': out of memory", sc->name);
  }
  int modal_a = sc->bodies[ct->a].kind == VB_BODY_MODAL;
  int bm = modal_a ? ct->a : ct->b, bo = modal_a ? ct->b : ct->a;
  mm->block = shape;
  mm->sign = modal_a ? 1.0 : -1.0;
  mm->mass_sign = -mm->sign;
  mm->first = mm->mass_mode = -1;
  for (int i = 0; i < m->nb; i++) {
    if (m->bodies[i] == bm)
      mm->first = m->offsets[i];
    if (m->bodies[i] == bo)
      mm->mass_mode = m->offsets[i];
  }
  mm->nmodes = sc->bodies[bm].nmodes;
  mm->ntrack = ct->ntrack;
  for (int k = 0; k < ct->ntrack; k++)
    shape[k] = sc->bodies[bm].points[ct->track_point[k]].shape;
  mm->shape = shape;
  mm->at = ct->track_at;
  mm->drive = &ct->track_drive;
  mm->follow = ct->track_follow;
  mm->start = ct->track_start;
  mm->wj = 0; /* fm->nw == 1 */
  mm->fi = ct->track_follow && fm->nfc == 1 ? 0 : -1;
  *out = mm;
  return VB_OK;
}

void
vb_moving_model_free(vb_moving_model *mm)
{
  if (!mm)
    return;
  free(mm->block);
  free(mm);
}

void
vb_moving_row(const vb_island_model *m, double p, double *row)
{
  const vb_moving_model *mm = m->mov;
  int n = mm->ntrack, k = 0;
  memset(row, 0, (size_t)m->nmp * sizeof *row);
  if (!(p > mm->at[0]))
    p = mm->at[0];
  if (!(p < mm->at[n - 1]))
    p = mm->at[n - 1];
  while (k < n - 2 && p > mm->at[k + 1])
    k++;
  double lam = (p - mm->at[k]) / (mm->at[k + 1] - mm->at[k]);
  const double *s0 = mm->shape[k], *s1 = mm->shape[k + 1];
  for (int j = 0; j < mm->nmodes; j++)
    row[mm->first + j] = mm->sign * ((1.0 - lam) * s0[j] + lam * s1[j]);
  row[mm->mass_mode] = mm->mass_sign;
}

/* S . a over the island's modes. */
static double
dot(const vb_island_model *m, const double *row, const double *a)
{
  double s = 0.0;
  for (int j = 0; j < m->nm; j++)
    s += row[j] * a[j];
  return s;
}

/* The point's position at t, m. */
static double
position(const vb_moving_model *mm, double t)
{
  double r;
  return vb_drive_eval(mm->drive, t, &r);
}

double
vb_moving_position(const vb_island_model *m, const vb_island_state *s, double t)
{
  const vb_moving_model *mm = m->mov;
  return mm->follow ? mm->start + s->fric->w[mm->wj] : position(mm, t);
}

/* ------------------------------------------------ a point following w
 *
 * With follow = "w" the point is at p = start + w, w the mass's own
 * coordinate along w, so the compression x(q, w) = S(p(w)) q + xd(t)
 * depends on both and the body's slope pushes the mass along w with
 * -dV/dw = -V'(x) S'(p) q.  The step keeps the energy
 *   E = sum M (v^2 + w2 q^2) / 2 + m (w'^2 + w2_w w^2) / 2 + V(x(q, w))
 * (the two-level family's modes and the mass's w, friction.c's rule)
 * exactly: the trapezoidal rule for every coordinate with the forces over
 * the step given by a discrete gradient of V in (q, w) together, the
 * symmetrised coordinate-increment discrete gradient (Itoh & Abe 1988,
 * J. Comput. Phys. 76, 85; its symmetrisation: McLachlan, Quispel &
 * Robidoux 1999, Phil. Trans. R. Soc. A 357, 1021): V's change
 * from (q0, w0) to (q1, w1) taken along the two corner paths, q first
 * then w, and w first then q, averaged.  With the four corners
 *   x00 = S0 q0 + xd0, x10 = S0 q1 + xd1, x01 = S1 q0 + xd0, x11 = S1 q1 + xd1
 * (S0 = S(p(w0)), S1 = S(p(w1))), the force on the modes over the step is
 *   -(fa S0 + fb S1) / 2,  fa = G(x00, x10),  fb = G(x01, x11),
 * G(x, y) = (V(y) - V(x)) / (y - x) (vb_law_gradient, Chatziioannou eq 8's
 * discrete gradient) plus the law's damping at the leg's rate as the
 * two-point scheme puts it (two_point.c), and on w
 *   Fw = -(G(x10, x11) D q1 + G(x00, x01) D q0) / 2,
 * D = (S1 - S0) / (w1 - w0) the mean slope over the step (a convex sum of
 * the track's segments' slopes: no quotient of small differences), so
 * that Fw (w1 - w0) = -(V(x11) - V(x10) + V(x01) - V(x00)) / 2 and the
 * modes' and w's work adds up to -(V(x11) - V(x00)) exactly (plus the
 * drive's work (fa + fb) (xd1 - xd0) / 2, booked external).  Each corner
 * path is an Itoh-Abe discrete gradient and their mean is symmetric in the
 * step's ends, hence second order (McLachlan et al.).  The law's damping
 * acts along the legs that move q (the compression's rate through the
 * modes and the walls), not through the point's motion along w; a step
 * dissipates ((fa - G)(x10 - x00) + (fb - G)(x11 - x01)) / 2 >= 0.
 *
 * Unknowns fa, fb and dw = w1 - w0 (q1 follows: q1 = q0 + du~ - cc (fa S0
 * + fb S1) / 2); Newton on the three residuals fa - F(x00, x10), fb -
 * F(x01, x11), dw - dw~ - cc_w Fw with their exact Jacobian, the step
 * halved until the scaled residual falls (never a non-finite trial); where
 * it stalls, follow_bisect (w's residual along dw, the legs solved at each
 * dw); a step neither solves is taken as it stands, VB_ENOCONV. */

/* Track segment holding p (clamped to the ends). */
static int
segment(const vb_moving_model *mm, double p)
{
  int k = 0;
  while (k < mm->ntrack - 2 && p > mm->at[k + 1])
    k++;
  return k;
}

/* The modal part of dS/dp at p into d (0 off the track; a track point
 * takes the segment below it, as vb_moving_row does). */
static void
slope_at(const vb_moving_model *mm, double p, double *d)
{
  double *o = d + mm->first;
  if (!(p >= mm->at[0] && p <= mm->at[mm->ntrack - 1])) {
    memset(o, 0, (size_t)mm->nmodes * sizeof *o);
    return;
  }
  int k = segment(mm, p);
  const double *s0 = mm->shape[k], *s1 = mm->shape[k + 1];
  double inv = mm->sign / (mm->at[k + 1] - mm->at[k]);
  for (int j = 0; j < mm->nmodes; j++)
    o[j] = inv * (s1[j] - s0[j]);
}

/* The mean slope D = (S(p1) - S(p0)) / (p1 - p0) into d, as the sum of
 * the segments' slopes weighted by their share of [p0, p1] (the slope at
 * p0 when p1 = p0); whether p0 and p1 share a segment (D then is its
 * slope, bit for bit). */
static int
mean_slope(const vb_moving_model *mm, double p0, double p1, double *d)
{
  int n = mm->ntrack;
  double lo = fmin(p0, p1), hi = fmax(p0, p1), a = fmax(lo, mm->at[0]);
  double b = fmin(hi, mm->at[n - 1]), *o = d + mm->first;
  int ka = segment(mm, a), kb = segment(mm, b);
  if (p1 == p0 || (ka == kb && lo == a && hi == b)) {
    slope_at(mm, p0 == p1 ? p0 : 0.5 * (a + b), d);
    return 1;
  }
  memset(o, 0, (size_t)mm->nmodes * sizeof *o);
  if (!(b > a))
    return 0; /* off the track: S constant */
  for (int k = ka; k <= kb; k++) {
    double len = fmin(b, mm->at[k + 1]) - fmax(a, mm->at[k]);
    if (!(len > 0.0))
      continue;
    const double *s0 = mm->shape[k], *s1 = mm->shape[k + 1];
    double wt = mm->sign * len / ((hi - lo) * (mm->at[k + 1] - mm->at[k]));
    for (int j = 0; j < mm->nmodes; j++)
      o[j] += wt * (s1[j] - s0[j]);
  }
  return 0;
}

/* The two-point scheme's leg force from x0 to x1 (two_point.c's
 * step_force_at: the discrete gradient plus the damping at the leg's
 * rate), its elastic part *ge, and its derivatives in x1 and x0. */
static double
leg_force(const vb_law *law, double h, double x0, double x1, double *ge, double *d1, double *d0)
{
  double dg1, dg0, rate = (x1 - x0) / h;
  double g = vb_law_gradient_pair(law, x1, x0, &dg1);
  vb_law_gradient_pair(law, x0, x1, &dg0); /* G is symmetric: dG/dx0 */
  double d = law_damping(law, g), sl = law_damping_slope(law, g);
  *ge = g;
  *d1 = dg1 * (1.0 + sl * rate) + d / h;
  *d0 = dg0 * (1.0 + sl * rate) - d / h;
  return g + d * rate;
}

/* A step's constants and work arrays. */
typedef struct follow_ctx {
  const vb_island_model *m;
  const vb_moving_model *mm;
  const vb_law *law;
  double h, p0, w0, xd0, xd1, x00, dfree, cw;
  double ftw; /* friction's force on w held over the step, N (0 without) */
  const double *q0, *g, *cc, *r0; /* q^n, the free increments, compliances, S0 */
  double *r1, *r1p, *D, *dq, *q1; /* at the trial: S1, S'(p1), D, q1 - q0, q1 */
  /* at the trial */
  double x10, x01, x11, fa_e, fb_e, Fw;
} follow_ctx;

/* The force on w over the step, the slope's Fw and friction's ftw (Fw
 * itself, to the bit, without friction: today's steps unchanged). */
static double
held_w(const follow_ctx *c, double Fw)
{
  return c->ftw != 0.0 ? Fw + c->ftw : Fw;
}

/* w's increment with no contact force, friction's held (the Newton's
 * start and the bisection's). */
static double
free_dw(const follow_ctx *c)
{
  return c->ftw != 0.0 ? c->dfree + c->cw * c->ftw : c->dfree;
}

/* Residuals R[3] of the trial (fa, fb, dw) and, with J, their Jacobian
 * J[3][3] (rows R, columns fa, fb, dw). */
static void
follow_eval(follow_ctx *c, double fa, double fb, double dw, double *R, double (*J)[3])
{
  const vb_island_model *m = c->m;
  const vb_moving_model *mm = c->mm;
  int nm = m->nm;
  double p1 = mm->start + (c->w0 + dw), A = 0.5 * fa, B = 0.5 * fb;
  vb_moving_row(m, p1, c->r1);
  int same = mean_slope(mm, c->p0, p1, c->D);
  /* the increment apart: the velocity at n+1 is formed from it, not from
   * q1 - q0, which would carry q1's rounding (eps |q| 2 / dt in v) */
  for (int j = 0; j < nm; j++) {
    c->dq[j] = c->g[j] - c->cc[j] * (A * c->r0[j] + B * c->r1[j]);
    c->q1[j] = c->q0[j] + c->dq[j];
  }
  double x10 = dot(m, c->r0, c->q1) + c->xd1, x01 = dot(m, c->r1, c->q0) + c->xd0;
  double x11 = dot(m, c->r1, c->q1) + c->xd1;
  double Fa1, Fa0, Fb1, Fb0, ga, gb;
  double Fa = leg_force(c->law, c->h, c->x00, x10, &ga, &Fa1, &Fa0);
  double Fb = leg_force(c->law, c->h, x01, x11, &gb, &Fb1, &Fb0);
  double g11, g10, g01;
  double G1 = vb_law_gradient_pair(c->law, x11, x10, &g11);
  vb_law_gradient_pair(c->law, x10, x11, &g10);
  double G0 = vb_law_gradient_pair(c->law, x01, c->x00, &g01);
  double P1 = dot(m, c->D, c->q1), P0 = dot(m, c->D, c->q0);
  double Fw = -0.5 * (G1 * P1 + G0 * P0);
  R[0] = fa - Fa;
  R[1] = fb - Fb;
  R[2] = dw - c->dfree - c->cw * held_w(c, Fw);
  c->x10 = x10;
  c->x01 = x01;
  c->x11 = x11;
  c->fa_e = ga;
  c->fb_e = gb;
  c->Fw = Fw;
  if (!J)
    return;
  slope_at(mm, p1, c->r1p);
  double K00 = 0, K01 = 0, K11 = 0, K0p = 0, K1p = 0, KD0 = 0, KD1 = 0, KDp = 0;
  double s0 = 0, s1 = 0, Pp0 = 0, Pp1 = 0;
  for (int j = 0; j < nm; j++) {
    double cj = c->cc[j];
    int modal = j >= mm->first && j < mm->first + mm->nmodes;
    double r1p = modal ? c->r1p[j] : 0.0, Dj = modal ? c->D[j] : 0.0;
    double Dpj = modal && !same && dw != 0.0 ? (r1p - Dj) / dw : 0.0;
    K00 += cj * c->r0[j] * c->r0[j];
    K01 += cj * c->r0[j] * c->r1[j];
    K11 += cj * c->r1[j] * c->r1[j];
    K0p += cj * c->r0[j] * r1p;
    K1p += cj * c->r1[j] * r1p;
    KD0 += cj * Dj * c->r0[j];
    KD1 += cj * Dj * c->r1[j];
    KDp += cj * Dj * r1p;
    s0 += r1p * c->q0[j];
    s1 += r1p * c->q1[j];
    Pp0 += Dpj * c->q0[j];
    Pp1 += Dpj * c->q1[j];
  }
  /* derivatives of the corners and of D q1, D q0 in (fa, fb, dw) */
  double x10d[3] = {-0.5 * K00, -0.5 * K01, -B * K0p};
  double x01d[3] = {0.0, 0.0, s0};
  double x11d[3] = {-0.5 * K01, -0.5 * K11, s1 - B * K1p};
  double P1d[3] = {-0.5 * KD0, -0.5 * KD1, Pp1 - B * KDp};
  double P0d[3] = {0.0, 0.0, Pp0};
  for (int k = 0; k < 3; k++) {
    double dFw = -0.5 * ((g10 * x10d[k] + g11 * x11d[k]) * P1 + G1 * P1d[k] +
                         g01 * x01d[k] * P0 + G0 * P0d[k]);
    J[0][k] = (k == 0) - Fa1 * x10d[k];
    J[1][k] = (k == 1) - (Fb0 * x01d[k] + Fb1 * x11d[k]);
    J[2][k] = (k == 2) - c->cw * dFw;
  }
}

/* Solve J d = -R (3 x 3, partial pivoting); 0 when singular. */
static int
solve3(double (*J)[3], const double *R, double *d)
{
  double a[3][4];
  for (int i = 0; i < 3; i++) {
    for (int k = 0; k < 3; k++)
      a[i][k] = J[i][k];
    a[i][3] = -R[i];
  }
  for (int c = 0; c < 3; c++) {
    int p = c;
    for (int i = c + 1; i < 3; i++)
      if (fabs(a[i][c]) > fabs(a[p][c]))
        p = i;
    if (!(fabs(a[p][c]) > 0.0))
      return 0;
    for (int k = 0; k < 4; k++) {
      double t = a[c][k];
      a[c][k] = a[p][k];
      a[p][k] = t;
    }
    for (int i = c + 1; i < 3; i++) {
      double f = a[i][c] / a[c][c];
      for (int k = c; k < 4; k++)
        a[i][k] -= f * a[c][k];
    }
  }
  for (int i = 2; i >= 0; i--) {
    double t = a[i][3];
    for (int k = i + 1; k < 3; k++)
      t -= a[i][k] * d[k];
    d[i] = t / a[i][i];
  }
  return isfinite(d[0]) && isfinite(d[1]) && isfinite(d[2]);
}

/* The residuals in metres: the forces' through half the compliance the
 * mass alone gives each leg (>= 0.5 cc of the mass: never 0), w's as it
 * is; their 2-norm (smooth where two of them are equal, unlike the largest,
 * on which a line search can stall). */
static double
follow_norm(const follow_ctx *c, const double *R)
{
  double k = 0.5 * c->cc[c->mm->mass_mode];
  double r = hypot(hypot(k * R[0], k * R[1]), R[2]);
  return isfinite(r) ? r : INFINITY;
}

/* The predictor: the fixed-point two-point step with the row held at S0
 * and w free (Chatziioannou eq 8 by the K-method, x1 = xt - K f(x1),
 * Newton halving a step that does not lower |x1 - xt + K f|), its force
 * the start of both legs'.  Robust where the three-unknown Newton from
 * the free motion is not (a hard impact in one step: k = 1e12 in
 * moving_ref.py), and close to the answer, w's coupling being weak. */
static double
follow_predict(const follow_ctx *c, const vb_contact *ct)
{
  const vb_island_model *m = c->m;
  double K = 0.0, xt = c->x00 + dot(m, c->r0, c->g) + (c->xd1 - c->xd0);
  for (int j = 0; j < m->nm; j++)
    K += c->cc[j] * c->r0[j] * c->r0[j];
  double x1 = xt, ge, d1, d0, f = leg_force(c->law, c->h, c->x00, x1, &ge, &d1, &d0);
  double g = x1 - xt + K * f, tol = ct->tolerance * fmax(fabs(xt), fabs(c->x00)) + 1e-300;
  for (int it = 0; it < ct->max_iterations && g != 0.0; it++) {
    double dx = -g / (1.0 + K * d1), lam = 1.0, ft = f, d1t = d1, gt = g;
    for (int k = 0; k < 60; k++, lam *= 0.5) {
      ft = leg_force(c->law, c->h, c->x00, x1 + lam * dx, &ge, &d1t, &d0);
      gt = x1 + lam * dx - xt + K * ft;
      if (isfinite(gt) && fabs(gt) < fabs(g))
        break;
    }
    if (!(isfinite(gt) && fabs(gt) < fabs(g)))
      break;
    x1 += lam * dx;
    f = ft;
    d1 = d1t;
    g = gt;
    if (fabs(lam * dx) <= tol)
      break;
  }
  return isfinite(f) ? f : 0.0;
}

/* The legs' forces (fa, fb) at a given dw: Newton on their two residuals
 * (the 2 x 2 block of the Jacobian), halving on their 2-norm, from z;
 * w's residual R[2] at the answer.  0 when it does not converge. */
static int
follow_legs(follow_ctx *c, const vb_contact *ct, double *z, double tolx, double *R)
{
  double J[3][3], k = 0.5 * c->cc[c->mm->mass_mode];
  follow_eval(c, z[0], z[1], z[2], R, J);
  double r = hypot(k * R[0], k * R[1]);
  for (int it = 0; it < ct->max_iterations; it++) {
    if (r == 0.0)
      return 1;
    double det = J[0][0] * J[1][1] - J[0][1] * J[1][0];
    if (!(fabs(det) > 0.0) || !isfinite(det))
      return r <= 100.0 * tolx;
    double d0 = (-R[0] * J[1][1] + R[1] * J[0][1]) / det;
    double d1 = (-R[1] * J[0][0] + R[0] * J[1][0]) / det;
    double lam = 1.0, Rt[3], rt = INFINITY;
    for (int i = 0; i < 60; i++, lam *= 0.5) {
      follow_eval(c, z[0] + lam * d0, z[1] + lam * d1, z[2], Rt, NULL);
      rt = hypot(k * Rt[0], k * Rt[1]);
      if (rt < r)
        break;
    }
    if (!(rt < r)) {
      follow_eval(c, z[0], z[1], z[2], R, NULL);
      return r <= 100.0 * tolx;
    }
    z[0] += lam * d0;
    z[1] += lam * d1;
    int small = fabs(k * lam * d0) <= tolx && fabs(k * lam * d1) <= tolx;
    follow_eval(c, z[0], z[1], z[2], R, J);
    r = hypot(k * R[0], k * R[1]);
    if (small)
      return 1;
  }
  return r <= 100.0 * tolx;
}

/* The fall-back when the three-unknown Newton stalls (a hard impact met
 * along w: moving_ref.py's k = 1e12): w's residual as a function of dw
 * alone, the legs solved at each dw (follow_legs), bracketed by steps
 * doubling away from the free dw~ and bisected; z the answer.  1 when w's
 * residual falls within tolw (or the bracket shrinks to round-off with
 * the legs solved). */
static int
follow_bisect(follow_ctx *c, const vb_contact *ct, double *z, double tolx, double tolw)
{
  double R[3], za[3] = {z[0], z[1], free_dw(c)}, zb[3];
  if (!follow_legs(c, ct, za, tolx, R))
    return 0;
  double ra = R[2], step = fmax(fabs(ra), tolw);
  if (fabs(ra) <= tolw) {
    memcpy(z, za, sizeof za);
    return 1;
  }
  /* R2 = dw - dw~ - cc_w Fw: its sign says which way dw must go */
  int found = 0;
  for (int i = 0; i < 80 && !found; i++, step *= 2.0) {
    memcpy(zb, za, sizeof za);
    zb[2] = za[2] - (ra > 0.0 ? step : -step);
    if (!follow_legs(c, ct, zb, tolx, R))
      return 0;
    found = (R[2] > 0.0) != (ra > 0.0);
  }
  if (!found)
    return 0;
  double rb = R[2];
  for (int i = 0; i < 200; i++) {
    double zm[3] = {0.5 * (za[0] + zb[0]), 0.5 * (za[1] + zb[1]), 0.5 * (za[2] + zb[2])};
    if (!(zm[2] != za[2] && zm[2] != zb[2]))
      break; /* the bracket is two neighbouring doubles */
    if (!follow_legs(c, ct, zm, tolx, R))
      return 0;
    if (fabs(R[2]) <= tolw) {
      memcpy(z, zm, sizeof zm);
      return 1;
    }
    if ((R[2] > 0.0) == (ra > 0.0)) {
      memcpy(za, zm, sizeof zm);
      ra = R[2];
    } else {
      memcpy(zb, zm, sizeof zm);
      rb = R[2];
    }
  }
  /* round-off: the end with the smaller residual, its legs solved */
  memcpy(z, fabs(ra) <= fabs(rb) ? za : zb, sizeof za);
  follow_legs(c, ct, z, tolx, R);
  return fabs(R[2]) <= 100.0 * tolw;
}

/* The end of a step of either kind, its history's x and rate at n+1 set:
 * the force held, the engaged list, the energies' terms, and whether the
 * step stayed finite (VB_EDIVERGED where a mode did not). */
static int
step_close(vb_island_state *s, const vb_contact *ct, vb_chist *hc, double f, double diss,
           double ext, int nm)
{
  hc->f = f;
  s->fbar[0] = f;
  s->neng = 0;
  if (law_engaged(&ct->law, hc->x))
    s->eng[s->neng++] = 0;
  s->contacts_finite = isfinite(hc->x) && isfinite(hc->rate) && isfinite(f);
  s->dissipated += diss;
  s->external += ext;
  s->ahead = 0;
  for (int j = 0; j < nm; j++)
    if (!isfinite(s->q[j]) || !isfinite(s->v[j]))
      return VB_EDIVERGED;
  return VB_OK;
}

/* The step's Newton under friction's force on w held (c->ftw): the legs'
 * forces and w's increment into z, from the free motion (a trial whose
 * residuals vanish there, out of contact at all four corners, is the
 * step); its iterations into *iters, s->fallback[0] set where the
 * bisection was needed; VB_OK or VB_ENOCONV.  c is left at the trial
 * taken. */
static int
follow_solve(follow_ctx *c, const vb_contact *ct, vb_island_state *s, double *z, int *iters)
{
  const vb_island_model *m = c->m;
  const vb_moving_model *mm = c->mm;
  double R[3], J[3][3], d[3];
  int it = 0, rc = VB_OK;
  z[0] = z[1] = 0.0;
  z[2] = free_dw(c);
  follow_eval(c, z[0], z[1], z[2], R, NULL);
  double r = follow_norm(c, R);
  if (r > 0.0) {
    double tolx = ct->tolerance * fmax(fmax(fabs(c->x00), fabs(c->x11)), fabs(c->x10)) + 1e-300;
    /* w's increment to the same relative tolerance, and never finer than
     * the compressions' (m both: a ball at rest has dw = 0) */
    double tolw = ct->tolerance * fmax(fabs(z[2]), fabs(c->dfree)) + tolx;
    z[0] = z[1] = follow_predict(c, ct);
    follow_eval(c, z[0], z[1], z[2], R, NULL);
    r = follow_norm(c, R);
    rc = VB_ENOCONV;
    while (it < ct->max_iterations) {
      it++;
      follow_eval(c, z[0], z[1], z[2], R, J);
      if (!solve3(J, R, d)) {
        rc = r <= 100.0 * tolx ? VB_OK : VB_ENOCONV;
        break;
      }
      double lam = 1.0, Rt[3], rt = INFINITY, zt[3];
      for (int k = 0; k < 60; k++, lam *= 0.5) {
        for (int i = 0; i < 3; i++)
          zt[i] = z[i] + lam * d[i];
        follow_eval(c, zt[0], zt[1], zt[2], Rt, NULL);
        rt = follow_norm(c, Rt);
        if (rt < r)
          break;
      }
      if (!(rt < r)) {
        /* nothing lowers the residual: round-off, or a tolerance met */
        follow_eval(c, z[0], z[1], z[2], R, NULL);
        rc = r <= 100.0 * tolx ? VB_OK : VB_ENOCONV;
        break;
      }
      double k = 0.5 * m->cc[mm->mass_mode];
      int small = fabs(k * lam * d[0]) <= tolx && fabs(k * lam * d[1]) <= tolx &&
                  fabs(lam * d[2]) <= tolw;
      for (int i = 0; i < 3; i++)
        z[i] = zt[i];
      r = rt;
      if (small || r == 0.0) {
        rc = VB_OK;
        break;
      }
    }
    if (rc != VB_OK) {
      double zf[3] = {z[0], z[1], z[2]};
      s->fallback[0] = 1; /* the events' `fallbacks` count it */
      if (follow_bisect(c, ct, zf, tolx, tolw)) {
        memcpy(z, zf, sizeof zf);
        rc = VB_OK;
      }
    }
    /* the state of the trial taken (follow_eval left c at the last one) */
    follow_eval(c, z[0], z[1], z[2], R, NULL);
    s->solved = 1;
  } else {
    s->solved = 0;
  }
  *iters = it;
  return rc;
}

/* ------------------------------------- friction at the following point
 *
 * With friction at the point (the contact's `friction`, a law of
 * friction_law.c's table) the mass's w and, if it has one, its spin theta
 * (radius r, inertia I) are joined by the contact's row of the tangential
 * model (friction.c compiles it as any friction contact's, vibro.h's
 * vb_body its signs): the slip is y' = T (w', theta')^T, T = (tw, r) with
 * tw = +1 as the contact's b and -1 as its a; the modal body has no modes
 * along w, so its surface under the point is fixed along w (a wall's
 * without a w_drive).  The friction force ft of a step (on b along +w) is
 * Moreau's time-stepping as friction.c's fixed points have it (Moreau
 * 1988; Acary & Brogliato 2008, section 10.1): the law's local problem at
 * the step's mean slip s = dy / dt = s_free + c ft, c = T diag(cc) T^T /
 * dt, under the step's normal force N = (fa + fb) / 2 (its two legs' mean:
 * the force the modes carry over the step).  Held over the step, ft adds
 * tw ft to the force on w beside the slope's Fw (follow_eval's R[2]: dw -
 * dw~ - cc_w (Fw + tw ft)) and r ft to the spin's torque (dtheta =
 * dtheta~ + cc_theta r ft), both stepped by the same trapezoidal rule as
 * before, so that a step changes their energy by exactly ft (tw dw + r
 * dtheta) = ft dy beyond what the discrete gradient in (q, w) already
 * accounts.  That is what friction adds: -ft dy, the friction work of the
 * step, is booked as dissipated (0 in stick, mu_k N |dy| in Coulomb's
 * slip: never negative once the solve has converged), and the balance E +
 * dissipated - external (E with the spin's I theta'^2 / 2 in its kinetic
 * energy) closes to round-off, as without friction.  The normal force
 * depends on dw (through the shapes at the point) and dw on ft, so the
 * two are solved by block Gauss-Seidel as a circular clearance's are
 * (clearance.c, friction_solve): the Newton above under ft held, the law's
 * local problem at its N and slip, until ft is still to the contact's
 * tolerance; the last Newton is under the last ft, so that the force
 * applied is the one whose work is counted.  A sticking step's node slip
 * is caught as friction.c's (the impulse P = -s1 / kv within the law's
 * hold, friction taking -P (s1 + s2) / 2 >= 0): a ball that comes to roll
 * rolls with y' = 0 at the nodes, not with the rule's alternating +-s^n.
 * Without friction (mu = 0, or none) ft is 0 and the step is today's, to
 * the bit (held_w, free_dw). */

/* The step's Gauss-Seidel (above): the Newton's z, friction's force *ft
 * and the normal force that bounded it *N; the law's state at n+1 in the
 * friction state; VB_OK, or VB_ENOCONV (a Newton's, or 100 sweeps without
 * ft still: the last ft kept, in the law's set at the last N). */
static int
follow_friction(follow_ctx *c, const vb_contact *ct, vb_island_state *s, double *z, double *ft,
                double *N, int *iters)
{
  const vb_island_model *m = c->m;
  const vb_moving_model *mm = c->mm;
  const vb_friction_model *fm = m->fric;
  vb_friction_state *fs = s->fric;
  const vb_friction_info *info = fm->info[mm->fi];
  int i = mm->fi, broke = 0, rc = VB_OK, it, ns = fm->st_first[i + 1] - fm->st_first[i];
  double h = m->dt, *st = fs->st + fm->st_first[i], *st0 = fs->st_old + fm->st_first[i];
  double tw = 0.0, dyo = 0.0, K = 0.0, prev = INFINITY;
  /* w's weight in the row, the spin's free part of the slip, T cc T */
  for (int e = fm->row_first[i]; e < fm->row_first[i + 1]; e++) {
    int j = fm->row_j[e];
    double t = fm->row_t[e];
    K += t * t * fm->cc[j];
    if (j == mm->wj)
      tw = t;
    else
      dyo += t * fs->dfree[j];
  }
  if (ns > 0)
    memcpy(st0, st, (size_t)ns * sizeof *st);
  *ft = 0.0;
  *N = 0.0;
  c->ftw = 0.0;
  *iters = 0;
  int done = 0;
  for (int outer = 0; outer < 100 && !done; outer++) {
    rc = follow_solve(c, ct, s, z, &it);
    *iters += it;
    double f = s->solved ? 0.5 * (z[0] + z[1]) : 0.0;
    *N = fm->two_sided[i] ? fabs(f) : (f > 0.0 ? f : 0.0);
    /* the slip without friction's part: w's increment less cc_w tw ft */
    double dyn = tw * (z[2] - c->cw * c->ftw) + dyo;
    if (ns > 0)
      memcpy(st, st0, (size_t)ns * sizeof *st);
    double ftn = info->local(fm->law[i], *N, dyn / h, K / h, h, &broke, st);
    if (ftn == *ft)
      return rc; /* the last Newton was under it */
    /* still to the tolerance of the law's scale (its hold, or |ft|), or
     * at the floor the Newton leaves in a stick's -s_free / c, where the
     * iterates no longer contract (clearance.c's test): 1e-8 of the
     * scale, or what w's tolerance (follow_solve's tolw, 100 times) is in
     * ft, 1 / K per metre of slip (a grazing contact, N 1.7e-6 N in
     * scenes/ball-spins-across-plate.cfg, cycled between two forces 9.4e-15
     * N apart, 1.8e-8 of its hold, the Newton's dw within 5e-17 m) */
    double change = fabs(ftn - *ft), scale = fmax(fabs(ftn), info->hold(fm->law[i], *N));
    double noise = 100.0 * (ct->tolerance * fmax(fabs(z[2]), fabs(c->dfree))) / K;
    int floor_hit = outer >= 4 && change >= prev && (change <= 1e-8 * scale || change <= noise);
    prev = change;
    *ft = ftn;
    c->ftw = tw * ftn;
    done = change <= ct->tolerance * scale || floor_hit;
  }
  /* the last Newton under the last ft */
  int rl = follow_solve(c, ct, s, z, &it);
  *iters += it;
  return done ? rl : VB_ENOCONV;
}

/* The spin's move under ft, friction's work -ft dy of the step, the
 * catch of a sticking step's node slip (friction.c's, above), and the
 * friction state's signals; the dissipation they add (w already moved by
 * dw). */
static double
follow_friction_close(const vb_island_model *m, vb_island_state *s, double ft, double N,
                      double dw)
{
  const vb_moving_model *mm = m->mov;
  const vb_friction_model *fm = m->fric;
  vb_friction_state *fs = s->fric;
  const vb_friction_info *info = fm->info[mm->fi];
  int i = mm->fi, e0 = fm->row_first[i], e1 = fm->row_first[i + 1];
  double h = m->dt, diss = 0.0, dy = 0.0;
  for (int e = e0; e < e1; e++) {
    int j = fm->row_j[e];
    double t = fm->row_t[e], d = dw;
    if (j != mm->wj) {
      /* the spin: dtheta = dtheta~ + cc_theta r ft (a free rotor) */
      d = ft != 0.0 ? fs->dfree[j] + fm->cc[j] * (t * ft) : fs->dfree[j];
      diss += 2.0 * fm->mass[j] * fm->sig[j] * d * d / h;
      fs->w[j] += d;
      fs->vw[j] = 2.0 * d / h - fs->vw[j];
    }
    dy += t * d;
  }
  double work = -ft * dy;
  fs->ft[i] = ft;
  fs->slip[i] = dy / h;
  fs->normal[i] = N;
  if (work != 0.0) {
    fs->work[i] += work;
    fs->work_min = fmin(fs->work_min, work);
    fs->dissipated += work;
    diss += work;
  }
  if (!(info->sticks(fs->st + fm->st_first[i]) && N > 0.0))
    return diss;
  double s1 = 0.0;
  for (int e = e0; e < e1; e++)
    s1 += fm->row_t[e] * fs->vw[fm->row_j[e]];
  double hold = info->hold(fm->law[i], N) * h, J = ft * h, kv = fm->kv[i];
  double P = kv > 0.0 && s1 != 0.0 ? fmin(fmax(-s1 / kv, -hold - J), hold - J) : 0.0;
  if (P == 0.0)
    return diss;
  for (int e = e0; e < e1; e++)
    fs->vw[fm->row_j[e]] += fm->row_t[e] * P / fm->mass[fm->row_j[e]];
  double s2 = s1 + kv * P, cone = info->hold(fm->law[i], N);
  work = -P * 0.5 * (s1 + s2);
  fs->ft[i] = fmin(fmax(ft + P / h, -cone), cone); /* the step's whole force */
  fs->work[i] += work;
  fs->work_min = fmin(fs->work_min, work);
  fs->dissipated += work;
  return diss + work;
}

static int
follow_step(const vb_island_model *m, vb_island_state *s, long n)
{
  const vb_moving_model *mm = m->mov;
  const vb_friction_model *fm = m->fric;
  vb_friction_state *fs = s->fric;
  const vb_contact *ct = &s->act[0];
  vb_chist *hc = &s->hist[0];
  int nm = m->nm, nmp = m->nmp, wj = mm->wj, rc = VB_OK, it = 0;
  double h = m->dt, t0 = n * h, t1 = (n + 1) * h, diss = 0.0, ext = 0.0, xr0, xr1;
  double *ws = s->mws, *du = s->qt, *gen = s->gen;
  follow_ctx c = {.m = m, .mm = mm, .law = &ct->law, .h = h, .q0 = s->q, .g = du,
                  .cc = m->cc, .r0 = ws, .r1 = ws + nmp, .r1p = ws + 2 * nmp,
                  .D = ws + 3 * nmp, .dq = ws + 4 * nmp, .q1 = ws + 5 * nmp};
  memset(ws, 0, (size_t)VB_MOVING_WS * (size_t)nmp * sizeof *ws);
  c.w0 = fs->w[wj];
  c.p0 = mm->start + c.w0;
  c.dfree = fm->cq[wj] * c.w0 + fm->cb[wj] * fs->vw[wj];
  c.cw = fm->cc[wj];
  /* every tangential coordinate's free increment (the spin's, with one) */
  for (int j = 0; j < fm->nt; j++)
    fs->dfree[j] = j == wj ? c.dfree : fm->cq[j] * fs->w[j] + fm->cb[j] * fs->vw[j];
  c.xd0 = vb_contact_drive(m->scene, &m->cts[0], t0, &xr0);
  c.xd1 = vb_contact_drive(m->scene, &m->cts[0], t1, &xr1);
  vb_moving_row(m, c.p0, ws);
  c.x00 = dot(m, ws, s->q) + c.xd0; /* hc->x, bit for bit after a step */
  for (int j = 0; j < nm; j++)
    du[j] = -0.5 * h * m->w2[j] * m->cb[j] * s->q[j] + m->cb[j] * s->v[j] + m->cc[j] * gen[j];
  if (s->onset && !law_engaged(&m->cts[0].law, hc->x))
    vb_law_at_onset(&m->cts[0].law, vb_law_side(&m->cts[0].law, hc->x) * hc->rate, &s->act[0].law);
  double z[3], ft = 0.0, N = 0.0;
  s->fallback[0] = 0;
  rc = mm->fi >= 0 ? follow_friction(&c, ct, s, z, &ft, &N, &it) : follow_solve(&c, ct, s, z, &it);
  double fa = z[0], fb = z[1], dw = z[2], f = 0.5 * (fa + fb);
  s->iterations[0] = it;
  /* the legs' damping and the walls' work through the force */
  diss += 0.5 * ((fa - c.fa_e) * (c.x10 - c.x00) + (fb - c.fb_e) * (c.x11 - c.x01));
  ext += f * (c.xd1 - c.xd0);
  for (int j = 0; j < nm; j++) {
    double dq = c.dq[j], vm;
    du[j] = dq;
    vm = dq / h;
    diss += m->dcoef[j] * vm * vm;
    ext += gen[j] * dq;
    s->q[j] = c.q1[j];
    s->v[j] = 2.0 * dq / h - s->v[j];
  }
  /* the mass's w: the two-level rule with Fw (and friction's tw ft) held
   * (friction.c's); the force the increment carries, (dw - dw~) / cc_w,
   * differs from the discrete gradient's Fw by Newton's residual, whose
   * work is booked with the dissipation as the legs' is (two_point.c's
   * dissipation: the step force less the gradient, times the step).
   * Without it a step's w residual within tolerance (1e-12 of dw) would
   * leave dw / cc_w times it unbooked: dw / cc_w = 2 m dw / dt^2 is 440 N
   * for moving_ref.py's 50 g ball at 0.1 m/s and 44.1 kHz. */
  diss += 2.0 * fm->mass[wj] * fm->sig[wj] * dw * dw / h;
  diss -= ((dw - c.dfree) / c.cw - held_w(&c, c.Fw)) * dw;
  fs->w[wj] = c.w0 + dw;
  fs->vw[wj] = 2.0 * dw / h - fs->vw[wj];
  /* the spin, friction's work and the catch (before the history: the
   * catch moves w's rate) */
  if (mm->fi >= 0)
    diss += follow_friction_close(m, s, ft, N, dw);
  /* the history at n+1, at the point's new place */
  double p1 = mm->start + fs->w[wj];
  vb_moving_row(m, p1, c.r1);
  slope_at(mm, p1, c.r1p);
  s->xb[0] = hc->x;
  s->rb[0] = hc->rate;
  hc->xm = hc->x;
  hc->x = dot(m, c.r1, s->q) + c.xd1;
  hc->rate = dot(m, c.r1, s->v) + xr1 + dot(m, c.r1p, s->q) * fs->vw[wj];
  if (step_close(s, ct, hc, f, diss, ext, nm) != VB_OK || !isfinite(fs->w[wj]) ||
      !isfinite(fs->vw[wj]))
    return VB_EDIVERGED;
  return rc;
}

void
vb_moving_start(const vb_island_model *m, vb_island_state *s)
{
  if (!m->mov)
    return;
  const vb_moving_model *mm = m->mov;
  double *row = s->scratch, xr, p = vb_moving_position(m, s, 0.0);
  vb_moving_row(m, p, row);
  vb_chist *hc = &s->hist[0];
  const vb_law *law = &m->cts[0].law;
  double xd = vb_contact_drive(m->scene, &m->cts[0], 0.0, &xr);
  hc->x = hc->xm = dot(m, row, s->q) + xd;
  hc->rate = dot(m, row, s->v) + xr;
  if (mm->follow) {
    /* and the point's own motion: dS/dp q w' */
    double *d = s->mws;
    memset(d, 0, (size_t)m->nmp * sizeof *d);
    slope_at(mm, p, d);
    hc->rate += dot(m, d, s->q) * s->fric->vw[mm->wj];
  }
  vb_law_at_onset(law, vb_law_side(law, hc->x) * hc->rate, &s->act[0].law);
  hc->f = s->fbar[0] = vb_law_force(&s->act[0].law, hc->x, hc->rate);
  s->xb[0] = hc->x;
  s->rb[0] = hc->rate;
}

int
vb_moving_step(const vb_island_model *m, vb_island_state *s, long n)
{
  const vb_moving_model *mm = m->mov;
  if (mm->follow)
    return follow_step(m, s, n);
  const vb_contact *ct = &s->act[0];
  vb_chist *hc = &s->hist[0];
  int nm = m->nm, rc = VB_OK;
  double h = m->dt, t0 = n * h, t1 = (n + 1) * h, diss = 0.0, ext = 0.0;
  double *row = s->scratch, *du = s->qt, *gen = s->gen, xr0, xr1;
  /* the row of this step, at the point's position at its middle; the
   * potential at n moves with it (the drive's work on the contact) */
  vb_moving_row(m, position(mm, t0 + 0.5 * h), row);
  double xd0 = vb_contact_drive(m->scene, &m->cts[0], t0, &xr0);
  double xd1 = vb_contact_drive(m->scene, &m->cts[0], t1, &xr1);
  double x0 = dot(m, row, s->q) + xd0;
  if (x0 != hc->x) {
    ext += vb_law_potential(&ct->law, x0) - vb_law_potential(&ct->law, hc->x);
    hc->x = x0;
    hc->rate = dot(m, row, s->v) + xr0;
  }
  /* the free increments and prediction */
  for (int j = 0; j < nm; j++)
    du[j] = -0.5 * h * m->w2[j] * m->cb[j] * s->q[j] + m->cb[j] * s->v[j] + m->cc[j] * gen[j];
  double xt = x0 - xd0 + dot(m, row, du) + xd1, K = 0.0;
  for (int j = 0; j < nm; j++)
    K += row[j] * row[j] * m->cc[j];
  if (s->onset && !law_engaged(&m->cts[0].law, hc->x))
    vb_law_at_onset(&m->cts[0].law, vb_law_side(&m->cts[0].law, hc->x) * hc->rate, &s->act[0].law);
  /* Chatziioannou eq 8 by Newton on x1 = xt - K f(x1), halving a step
   * that does not lower the residual */
  double x1 = xt, f = 0.0, dfdx = 0.0;
  int it = 0;
  if (vb_kmethod_may_act(ct, hc, xt, 0)) {
    double tol = ct->tolerance * fmax(fabs(xt), fabs(x0)) + 1e-300;
    f = ct->scheme->ops->step_force(ct, hc, h, x1, &dfdx);
    double g = x1 - xt + K * f;
    rc = VB_ENOCONV;
    while (it < ct->max_iterations) {
      it++;
      double dx = -g / (1.0 + K * dfdx), lam = 1.0, ft = f, dft = dfdx, gt = g;
      for (int k = 0; k < 60; k++, lam *= 0.5) {
        ft = ct->scheme->ops->step_force(ct, hc, h, x1 + lam * dx, &dft);
        gt = x1 + lam * dx - xt + K * ft;
        if (isfinite(gt) && fabs(gt) < fabs(g))
          break;
      }
      if (!(isfinite(gt) && fabs(gt) < fabs(g))) {
        /* nothing lowers the residual: round-off, or the discrete gradient's
         * near branch (law.c, |x1 - x0| within 1e-5 of their scale) meeting
         * the far one, which they do within about 1e-12 of x (measured: a
         * residual of 3.7e-17 m at x = 1.6e-5 m) */
        rc = fabs(g) <= 100.0 * tol ? VB_OK : VB_ENOCONV;
        break;
      }
      x1 += lam * dx;
      f = ft;
      dfdx = dft;
      g = gt;
      if (fabs(lam * dx) <= tol || g == 0.0) {
        rc = VB_OK;
        break;
      }
    }
    s->solved = 1;
  } else {
    s->solved = 0;
  }
  s->iterations[0] = it;
  s->fallback[0] = 0;
  /* the force into the increments: q1 = qt - cc S f */
  if (f != 0.0)
    for (int j = 0; j < nm; j++)
      du[j] -= m->cc[j] * row[j] * f;
  if (f != 0.0 || law_engaged(&ct->law, hc->x)) {
    diss += ct->scheme->ops->dissipation(ct, hc, h, x1, f);
    ext += f * (xd1 - xd0);
  }
  for (int j = 0; j < nm; j++) {
    double vm = du[j] / h;
    diss += m->dcoef[j] * vm * vm;
    ext += gen[j] * du[j];
    s->q[j] += du[j];
    s->v[j] = 2.0 * du[j] / h - s->v[j];
  }
  s->xb[0] = hc->x;
  s->rb[0] = hc->rate;
  hc->xm = hc->x;
  hc->x = dot(m, row, s->q) + xd1;
  hc->rate = dot(m, row, s->v) + xr1;
  if (step_close(s, ct, hc, f, diss, ext, nm) != VB_OK)
    return VB_EDIVERGED;
  return rc;
}
