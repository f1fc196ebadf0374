/* clearance.c - a point in a circular clearance (issue 30, item 4;
 * clearance.h, doc/geometry.md): the island's model, scratch and step.
 *
 * The geometry.  Contact i joins the centre of body a (a hole: a wall's u
 * position and drive with its w drive, or a mass's u and w) and that of
 * body b (a pin); d = (u_b - u_a, w_b - w_a), r = |d|, and its penetration
 * is x = r - c (c the clearance), so that any normal law of the table
 * gives the potential V(x) and the radial force.  The force on b is
 * -f d/r (towards the hole's centre when x > 0), on a +f d/r.
 *
 * The discretisation.  Every coordinate of the island (the masses' u, the
 * island's modes; their w and spins, the tangential coordinates of
 * friction.h) is stepped by the two-level family's trapezoidal rule with
 * the force held over the step (model.c's header): q^(n+1) - q^n =
 * (ca - 1) q + cb v + cc (gen + contact force), v^(n+1) = 2 (q^(n+1) -
 * q^n)/dt - v^n.  The contact force over the step is the discrete gradient
 * of the central potential V(|d| - c) (A. D. LaBudde & D. Greenspan, J.
 * Comput. Phys. 15, 1974; O. Gonzalez, J. Nonlinear Sci. 6, 1996), the
 * two-point scheme's radial force (its step_force, Chatziioannou eq 8b, at
 * x0 = r0 - c, x1 = r1 - c) along the mean of the two positions:
 *   F = -fbar (d1 + d0) / (r1 + r0),  fbar = (V(x1) - V(x0)) / (x1 - x0)
 *                                            (+ the law's damping),
 * so that F . (d1 - d0) = -fbar (r1^2 - r0^2) / (r1 + r0) = -fbar (x1 -
 * x0): the step changes the energy sum m v^2/2 + V by exactly the damping's
 * work, as the 1-D scheme does, and, the force being along d1 + d0, the
 * angular momentum m d x v of a pin about a fixed hole is kept exactly
 * (the trapezoidal rule conserves it under a force along the midpoint).
 * With d1 = d~ + W F(d1) (d~ the free motion, W the step's compliance of
 * the contacts' relative positions) the unknowns are the 2-D d1 of every
 * contact, found by Newton with a backtracking line search on |R| (R =
 * d1 - d~ - W F(d1)): a trial that is not finite or does not lower |R| is
 * halved, so no iterate is ever NaN.
 *
 * Friction (one circular contact in the island).  Along the tangent t =
 * (n_w, -n_u) of the step's mean position n = (d0 + d1)/|d0 + d1|, the slip
 * t . d' + r_b Omega_b - r_a Omega_a (the pin's point and the hole's rim
 * both at +n from their centres), the force ft on b along +t and on a along
 * -t, the torques r_b ft and -r_a ft; the law's set-valued local problem
 * (friction.h) under the Newton's radial force, block Gauss-Seidel with the
 * Newton (friction_solve), and a sticking step's node slip caught as in
 * friction.c (doc/geometry.md, "Friction in the clearance"). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "island.h"
#include "clearance.h"

/* More circular contacts in one island than this are refused (the dense
 * Newton is (2 nc)^3 a step). */
#define CLEARANCE_MAX_CONTACTS 8

/* --------------------------------------------------------------- model */

/* Island mode of scene body b's first mode, or -1. */
static int
mode_of(const vb_island_model *m, int b)
{
  for (int i = 0; i < m->nb; i++)
    if (m->bodies[i] == b)
      return m->offsets[i];
  return -1;
}

/* Tangential coordinate of scene body b's w (a mass's), or -1. */
static int
wcoord_of(const vb_friction_model *fm, int b)
{
  for (int j = 0; fm && j < fm->nw; j++)
    if (fm->tbody[j] == b)
      return j;
  return -1;
}

int
vb_clearance_compile(const vb_island_model *m, vb_clearance_model **out, char *err, size_t errlen)
{
  const vb_scene *sc = m->scene;
  const vb_friction_model *fm = m->fric;
  int nc = m->nc, first = -1;
  *out = NULL;
  for (int c = 0; c < nc; c++)
    if (m->cts[c].geometry == VB_GEOMETRY_CIRCULAR) {
      first = c;
      break;
    }
  if (first < 0)
    return VB_OK;
  const vb_contact *cf = &m->cts[first];
  for (int c = 0; c < nc; c++)
    if (m->cts[c].geometry != VB_GEOMETRY_CIRCULAR)
      return vb_errf(err, errlen, VB_EINVAL,
                     "%s:%d: contact '%s': a line contact in the island of circular clearance "
                     "'%s' is not done yet (valid: every contact of the island circular, or "
                     "the two in different islands)",
                     sc->path, m->cts[c].line, m->cts[c].name, cf->name);
  if (nc > CLEARANCE_MAX_CONTACTS)
    return vb_errf(err, errlen, VB_EINVAL,
                   "%s:%d: contact '%s': %d circular clearances in one island (valid: at most "
                   "%d)",
                   sc->path, cf->line, cf->name, nc, CLEARANCE_MAX_CONTACTS);
  for (int i = 0; i < m->nb; i++) {
    const vb_body *b = &sc->bodies[m->bodies[i]];
    if (b->kind != VB_BODY_MASS || !b->has_w || b->nmodes != 1)
      return vb_errf(err, errlen, VB_EINVAL,
                     "%s:%d: body '%s': a circular clearance joins masses with w and walls "
                     "(valid: a mass with w0, vw0, kw or cw, or a wall)",
                     sc->path, b->line, b->name);
  }
  size_t n2 = 2 * (size_t)nc;
  vb_clearance_model *cm = calloc(1, sizeof *cm);
  size_t bytes = (n2 * n2 + (size_t)nc) * sizeof(double) + 2 * (size_t)nc * sizeof(void *) +
                 4 * (size_t)nc * sizeof(int);
  char *block = calloc(1, bytes);
  if (!cm || !block) {
    free(cm);
    free(block);
    return vb_errf(err, errlen, VB_ENOMEM, "scene '%s': out of memory building a clearance",
                   sc->name);
  }
  double *W = (double *)block, *clear = W + n2 * n2;
  const vb_body **walla = (const vb_body **)(clear + nc), **wallb = walla + nc;
  int *ua = (int *)(wallb + nc), *ub = ua + nc, *wa = ub + nc, *wb = wa + nc;
  cm->block = block;
  cm->nc = nc;
  cm->max_iterations = 0;
  cm->tolerance = 1.0;
  for (int c = 0; c < nc; c++) {
    const vb_contact *ct = &m->cts[c];
    const vb_body *a = &sc->bodies[ct->a], *b = &sc->bodies[ct->b];
    walla[c] = a->kind == VB_BODY_WALL ? a : NULL;
    wallb[c] = b->kind == VB_BODY_WALL ? b : NULL;
    ua[c] = walla[c] ? -1 : mode_of(m, ct->a);
    ub[c] = wallb[c] ? -1 : mode_of(m, ct->b);
    wa[c] = walla[c] ? -1 : wcoord_of(fm, ct->a);
    wb[c] = wallb[c] ? -1 : wcoord_of(fm, ct->b);
    clear[c] = ct->clearance;
    cm->max_iterations = ct->max_iterations > cm->max_iterations ? ct->max_iterations
                                                                 : cm->max_iterations;
    cm->tolerance = fmin(cm->tolerance, ct->tolerance);
    if ((!walla[c] && (ua[c] < 0 || wa[c] < 0)) || (!wallb[c] && (ub[c] < 0 || wb[c] < 0))) {
      vb_clearance_model_free(cm);
      return vb_errf(err, errlen, VB_EINVAL,
                     "%s:%d: contact '%s': a circular clearance needs u and w on both bodies "
                     "(valid: masses with w0, vw0, kw or cw, and walls)",
                     sc->path, ct->line, ct->name);
    }
  }
  /* W: d_i = (u_b - u_a, w_b - w_a) moves by sum_j T_ij cc_j T_kj F_k along
   * each direction, T = +1 at b's coordinate and -1 at a's */
  for (int i = 0; i < nc; i++)
    for (int k = 0; k < nc; k++) {
      double su = 0.0, sw = 0.0;
      int ri[2] = {ub[i], ua[i]}, rk[2] = {ub[k], ua[k]};
      int qi[2] = {wb[i], wa[i]}, qk[2] = {wb[k], wa[k]};
      for (int x = 0; x < 2; x++)
        for (int y = 0; y < 2; y++) {
          double sign = (x == y ? 1.0 : -1.0);
          if (ri[x] >= 0 && ri[x] == rk[y])
            su += sign * m->cc[ri[x]];
          if (qi[x] >= 0 && qi[x] == qk[y])
            sw += sign * fm->cc[qi[x]];
        }
      W[(2 * i) * n2 + 2 * k] = su;
      W[(2 * i + 1) * n2 + 2 * k + 1] = sw;
    }
  /* friction in the clearance: one contact per island, its row of the
   * tangential model (friction.c compiles it as any friction contact; this
   * island's step is ours) */
  cm->fi = cm->sa = cm->sb = -1;
  cm->ra = cm->rb = 0.0;
  for (int c = 0; c < nc; c++) {
    if (m->cts[c].friction.kind == VB_FRICTION_NONE)
      continue;
    if (nc > 1) {
      vb_clearance_model_free(cm);
      return vb_errf(err, errlen, VB_EINVAL,
                     "%s:%d: contact '%s': friction in a circular clearance that shares its "
                     "island with another contact is not done yet (valid: one circular "
                     "contact in the island, or no friction)",
                     sc->path, m->cts[c].line, m->cts[c].name);
    }
    for (int i = 0; fm && i < fm->nfc; i++)
      if (fm->local[i] == c) {
        cm->fi = i;
        cm->sa = fm->sa[i];
        cm->sb = fm->sb[i];
        cm->ra = fm->ra[i];
        cm->rb = fm->rb[i];
      }
  }
  cm->W = W;
  cm->clear = clear;
  cm->walla = walla;
  cm->wallb = wallb;
  cm->ua = ua;
  cm->ub = ub;
  cm->wa = wa;
  cm->wb = wb;
  *out = cm;
  return VB_OK;
}

void
vb_clearance_model_free(vb_clearance_model *cm)
{
  if (!cm)
    return;
  free(cm->block);
  free(cm);
}

/* --------------------------------------------------------------- state */

int
vb_clearance_state_alloc(const vb_clearance_model *cm, vb_clearance_state **out)
{
  *out = NULL;
  if (!cm)
    return VB_OK;
  size_t nc = (size_t)cm->nc, n2 = 2 * nc;
  vb_clearance_state *cs = calloc(1, sizeof *cs);
  double *d = calloc(1, (8 * n2 + 7 * nc + n2 * n2) * sizeof(double) + n2 * sizeof(int));
  if (!cs || !d) {
    free(cs);
    free(d);
    return VB_ENOMEM;
  }
  cs->block = d;
  cs->d0 = d;
  cs->dfree = d + n2;
  cs->d1 = d + 2 * n2;
  cs->dtry = d + 3 * n2;
  cs->F = d + 4 * n2;
  cs->R = d + 5 * n2;
  cs->Rtry = d + 6 * n2;
  cs->dx = d + 7 * n2;
  cs->G = d + 8 * n2;
  cs->fb = cs->G + 4 * nc;
  cs->x1 = cs->fb + nc;
  cs->ftan = cs->x1 + nc;
  cs->J = cs->ftan + nc;
  cs->piv = (int *)(cs->J + n2 * n2);
  *out = cs;
  return VB_OK;
}

void
vb_clearance_state_free(vb_clearance_state *cs)
{
  if (!cs)
    return;
  free(cs->block);
  free(cs);
}

/* ------------------------------------------------------------ geometry */

/* A wall's (u, w) at t and their rates. */
static void
wall_at(const vb_body *b, double t, double p[2], double r[2])
{
  p[0] = vb_wall_u(b, t, &r[0]);
  r[1] = 0.0;
  p[1] = b->w_drive.kind != VB_DRIVE_NONE ? vb_drive_eval(&b->w_drive, t, &r[1]) : 0.0;
}

/* Contact c's relative position d (m) and its rate dr (m/s, may be NULL)
 * from the coordinates q, v (u) and w, vw (w) and the walls at t. */
static void
relative(const vb_clearance_model *cm, int c, const double *q, const double *v, const double *w,
         const double *vw, double t, double d[2], double dr[2])
{
  double pa[2], pb[2], ra[2], rb[2];
  if (cm->walla[c])
    wall_at(cm->walla[c], t, pa, ra);
  else {
    pa[0] = q[cm->ua[c]];
    pa[1] = w[cm->wa[c]];
    ra[0] = v ? v[cm->ua[c]] : 0.0;
    ra[1] = vw ? vw[cm->wa[c]] : 0.0;
  }
  if (cm->wallb[c])
    wall_at(cm->wallb[c], t, pb, rb);
  else {
    pb[0] = q[cm->ub[c]];
    pb[1] = w[cm->wb[c]];
    rb[0] = v ? v[cm->ub[c]] : 0.0;
    rb[1] = vw ? vw[cm->wb[c]] : 0.0;
  }
  d[0] = pb[0] - pa[0];
  d[1] = pb[1] - pa[1];
  if (dr) {
    dr[0] = rb[0] - ra[0];
    dr[1] = rb[1] - ra[1];
  }
}

/* The penetration rate of a relative position d moving at dr: d . dr / |d|. */
static double
radial_rate(const double d[2], const double dr[2])
{
  double r = sqrt(d[0] * d[0] + d[1] * d[1]);
  return r > 0.0 ? (d[0] * dr[0] + d[1] * dr[1]) / r : 0.0;
}

/* The tangent of a step at the mean of its two positions d0 and d1 (or
 * of one position, d1 = d0): t = (n_w, -n_u), n = (d0 + d1) / |d0 + d1|, the
 * direction in which a spin about e_w x e_u moves a point at +n (vibro.h's
 * vb_body); 0 at the centre. */
static void
tangent(const double *d0, const double *d1, double t[2])
{
  double su = d0[0] + d1[0], sw = d0[1] + d1[1], n = sqrt(su * su + sw * sw);
  t[0] = n > 0.0 ? sw / n : 0.0;
  t[1] = n > 0.0 ? -su / n : 0.0;
}

void
vb_clearance_start(const vb_island_model *m, vb_island_state *s)
{
  const vb_clearance_model *cm = m->clr;
  if (!cm || !s->fric)
    return;
  for (int c = 0; c < cm->nc; c++) {
    double d[2], dr[2];
    relative(cm, c, s->q, s->v, s->fric->w, s->fric->vw, 0.0, d, dr);
    vb_chist *hc = &s->hist[c];
    const vb_law *law = &m->cts[c].law;
    hc->x = sqrt(d[0] * d[0] + d[1] * d[1]) - cm->clear[c];
    hc->xm = hc->x;
    hc->rate = radial_rate(d, dr);
    vb_law_at_onset(law, vb_law_side(law, hc->x) * hc->rate, &s->act[c].law);
    hc->f = vb_law_force(&s->act[c].law, hc->x, hc->rate);
    s->fbar[c] = hc->f;
    s->xb[c] = hc->x;
    s->rb[c] = hc->rate;
    s->clr->ftan[c] = 0.0;
    if (cm->fi >= 0) {
      /* the slip at t = 0: t . d' plus the spins' surface speeds (the pin's
       * point at +r_b n from its centre, the hole's at +r_a n from its) */
      const vb_friction_model *fm = m->fric;
      vb_friction_state *fs = s->fric;
      int i = cm->fi;
      double t[2], s0;
      tangent(d, d, t);
      s0 = t[0] * dr[0] + t[1] * dr[1] + (cm->sb >= 0 ? cm->rb * fs->vw[cm->sb] : 0.0) -
           (cm->sa >= 0 ? cm->ra * fs->vw[cm->sa] : 0.0);
      fm->info[i]->start(fm->law[i], s0, fs->st + fm->st_first[i]);
      fs->slip[i] = s0;
    }
  }
}

/* ---------------------------------------------------------------- step */

/* Contact c's force over the step at the trial d1 (d0 its position at n):
 * the force on b, F[2] (N), its derivative G[4] = dF/dd1 (row-major, N/m),
 * the radial step force *fb (N) and the penetration at n+1 *x1 (m). */
static void
contact_eval(const vb_contact *ct, const vb_chist *hc, double h, double clear, const double *d0,
             const double *d1, double *F, double *G, double *fb, double *x1)
{
  double r0 = sqrt(d0[0] * d0[0] + d0[1] * d0[1]);
  double r1 = sqrt(d1[0] * d1[0] + d1[1] * d1[1]);
  double dfdx = 0.0, f;
  *x1 = r1 - clear;
  f = ct->scheme->ops->step_force(ct, hc, h, *x1, &dfdx);
  double s = r0 + r1, u[2] = {0.0, 0.0}, e[2] = {0.0, 0.0};
  if (s > 0.0) {
    u[0] = (d0[0] + d1[0]) / s;
    u[1] = (d0[1] + d1[1]) / s;
  }
  if (r1 > 0.0) {
    e[0] = d1[0] / r1;
    e[1] = d1[1] / r1;
  }
  *fb = f;
  F[0] = -f * u[0];
  F[1] = -f * u[1];
  /* dF/dd1 = -(fbar' u e^T + fbar (I - u e^T) / s) */
  for (int i = 0; i < 2; i++)
    for (int j = 0; j < 2; j++) {
      double ue = u[i] * e[j];
      G[2 * i + j] = -(dfdx * ue + (s > 0.0 ? f * ((i == j ? 1.0 : 0.0) - ue) / s : 0.0));
    }
}

/* Every contact's force at the trial positions d1 and the residual
 * R = d1 - dfree - W F; returns |R|^2 (inf when not finite). */
static double
residual(const vb_island_model *m, const vb_island_state *s, const double *d1, double *R)
{
  const vb_clearance_model *cm = m->clr;
  vb_clearance_state *cs = s->clr;
  int nc = cm->nc, n2 = 2 * nc;
  for (int c = 0; c < nc; c++) {
    contact_eval(&s->act[c], &s->hist[c], m->dt, cm->clear[c], cs->d0 + 2 * c, d1 + 2 * c,
                 cs->F + 2 * c, cs->G + 4 * c, &cs->fb[c], &cs->x1[c]);
    if (cs->ftan[c] != 0.0) {
      /* friction, ft along the step's tangent (its turn with d1 left out of
       * the Jacobian: of order W ft / r, 1e-5 in the scenes) */
      double t[2];
      tangent(cs->d0 + 2 * c, d1 + 2 * c, t);
      cs->F[2 * c] += cs->ftan[c] * t[0];
      cs->F[2 * c + 1] += cs->ftan[c] * t[1];
    }
  }
  double n = 0.0;
  for (int r = 0; r < n2; r++) {
    double wf = 0.0;
    for (int k = 0; k < n2; k++)
      wf += cm->W[(size_t)r * n2 + k] * cs->F[k];
    R[r] = d1[r] - cs->dfree[r] - wf;
    n += R[r] * R[r];
  }
  return isfinite(n) ? n : INFINITY;
}

/* Solve A x = b in place (b becomes x) by Gaussian elimination with
 * partial pivoting, A n x n row-major (destroyed); -1 when singular. */
static int
solve_dense(int n, double *A, double *b, int *piv)
{
  for (int k = 0; k < n; k++) {
    int p = k;
    for (int i = k + 1; i < n; i++)
      if (fabs(A[i * n + k]) > fabs(A[p * n + k]))
        p = i;
    piv[k] = p;
    if (A[p * n + k] == 0.0 || !isfinite(A[p * n + k]))
      return -1;
    if (p != k) {
      for (int j = 0; j < n; j++) {
        double t = A[k * n + j];
        A[k * n + j] = A[p * n + j];
        A[p * n + j] = t;
      }
      double t = b[k];
      b[k] = b[p];
      b[p] = t;
    }
    for (int i = k + 1; i < n; i++) {
      double l = A[i * n + k] / A[k * n + k];
      if (l == 0.0)
        continue;
      for (int j = k; j < n; j++)
        A[i * n + j] -= l * A[k * n + j];
      b[i] -= l * b[k];
    }
  }
  for (int i = n - 1; i >= 0; i--) {
    double t = b[i];
    for (int j = i + 1; j < n; j++)
      t -= A[i * n + j] * b[j];
    b[i] = t / A[i * n + i];
  }
  return 0;
}

/* Newton on the contacts' d1 from the free motion: VB_OK or VB_ENOCONV;
 * the forces, step forces and penetrations of the last iterate in cs. */
static int
newton(const vb_island_model *m, vb_island_state *s)
{
  const vb_clearance_model *cm = m->clr;
  vb_clearance_state *cs = s->clr;
  int nc = cm->nc, n2 = 2 * nc, it = 0, rc = VB_ENOCONV;
  double scale = 0.0;
  for (int c = 0; c < nc; c++) {
    double *df = cs->dfree + 2 * c;
    scale = fmax(scale, cm->clear[c] + sqrt(df[0] * df[0] + df[1] * df[1]));
  }
  double tol = cm->tolerance * scale;
  memcpy(cs->d1, cs->dfree, (size_t)n2 * sizeof *cs->d1);
  double rn = residual(m, s, cs->d1, cs->R);
  while (it < cm->max_iterations) {
    if (rn == 0.0) {
      rc = VB_OK;
      break;
    }
    it++;
    /* J = I - W G, G block-diagonal (2 x 2 per contact) */
    for (int r = 0; r < n2; r++)
      for (int k = 0; k < n2; k++) {
        int c = k / 2, j = k % 2;
        double wg = 0.0;
        for (int l = 0; l < 2; l++)
          wg += cm->W[(size_t)r * n2 + 2 * c + l] * cs->G[4 * c + 2 * l + j];
        cs->J[(size_t)r * n2 + k] = (r == k ? 1.0 : 0.0) - wg;
      }
    for (int r = 0; r < n2; r++)
      cs->dx[r] = -cs->R[r];
    if (solve_dense(n2, cs->J, cs->dx, cs->piv) != 0)
      break;
    /* backtracking: a trial that is not finite or does not lower |R| is
     * halved */
    double lambda = 1.0, rt = INFINITY, step = 0.0;
    for (int half = 0; half < 60; half++, lambda *= 0.5) {
      for (int r = 0; r < n2; r++)
        cs->dtry[r] = cs->d1[r] + lambda * cs->dx[r];
      rt = residual(m, s, cs->dtry, cs->Rtry);
      if (rt < rn)
        break;
    }
    if (!(rt < rn)) {
      /* nothing lowers the residual: round-off, or stuck */
      rn = residual(m, s, cs->d1, cs->R);
      rc = sqrt(rn) <= tol ? VB_OK : VB_ENOCONV;
      break;
    }
    for (int r = 0; r < n2; r++) {
      step = fmax(step, fabs(cs->dtry[r] - cs->d1[r]));
      cs->d1[r] = cs->dtry[r];
      cs->R[r] = cs->Rtry[r];
    }
    rn = rt;
    if (step <= tol) {
      rc = VB_OK;
      break;
    }
  }
  for (int c = 0; c < nc; c++)
    s->iterations[c] = it;
  return rc;
}

/* The step of a circular contact with friction (one per island): block
 * Gauss-Seidel between the radial Newton under the tangential force ft
 * and the friction law's local problem at that Newton's normal force and
 * tangent, s = s_free + c ft (friction.h's set-valued solve, the law's row
 * of friction_law.c), until ft is still to the contact's tolerance (its
 * Newton's: below it, N itself moves by the Newton's round-off); the last Newton is
 * under the last ft, so that the forces applied are the ones whose work is
 * counted.  `may`: the contact can act this step (else N = 0, ft = 0). */
static int
friction_solve(const vb_island_model *m, vb_island_state *s, int may)
{
  const vb_clearance_model *cm = m->clr;
  vb_clearance_state *cs = s->clr;
  const vb_friction_model *fm = m->fric;
  vb_friction_state *fs = s->fric;
  int i = cm->fi, broke = 0, rc = VB_OK, ns = fm->st_first[i + 1] - fm->st_first[i];
  const vb_friction_info *info = fm->info[i];
  double h = m->dt, *st = fs->st + fm->st_first[i], *st0 = fs->st_old + fm->st_first[i];
  double *dw = fs->dfree, W00 = cm->W[0], W11 = cm->W[3];
  /* the spins' free increments (dfree holds the free motion here) */
  double dta = cm->sa >= 0 ? dw[cm->sa] : 0.0, dtb = cm->sb >= 0 ? dw[cm->sb] : 0.0;
  double ca = cm->sa >= 0 ? fm->cc[cm->sa] : 0.0, cb = cm->sb >= 0 ? fm->cc[cm->sb] : 0.0;
  int two_sided = fm->two_sided[i];
  if (ns > 0)
    memcpy(st0, st, (size_t)ns * sizeof *st);
  cs->ftan[0] = 0.0;
  double prev = INFINITY;
  for (int outer = 0; outer < 100; outer++) {
    if (may) {
      rc = newton(m, s);
    } else {
      memcpy(cs->d1, cs->dfree, 2 * sizeof *cs->d1);
      cs->F[0] = cs->F[1] = cs->fb[0] = 0.0;
      cs->x1[0] = sqrt(cs->d1[0] * cs->d1[0] + cs->d1[1] * cs->d1[1]) - cm->clear[0];
      s->iterations[0] = 0;
    }
    double t[2], fb = cs->fb[0];
    tangent(cs->d0, cs->d1, t);
    double N = two_sided ? fabs(fb) : (fb > 0.0 ? fb : 0.0);
    /* the normal force's part of the motion, the friction's compliance */
    double Fn0 = cs->F[0] - cs->ftan[0] * t[0], Fn1 = cs->F[1] - cs->ftan[0] * t[1];
    double dyn = t[0] * (cs->dfree[0] + W00 * Fn0 - cs->d0[0]) +
                 t[1] * (cs->dfree[1] + W11 * Fn1 - cs->d0[1]) + cm->rb * dtb - cm->ra * dta;
    double c = (t[0] * t[0] * W00 + t[1] * t[1] * W11 + cm->rb * cm->rb * cb +
                cm->ra * cm->ra * ca) / h;
    if (ns > 0)
      memcpy(st, st0, (size_t)ns * sizeof *st);
    double ft = c > 0.0 ? info->local(fm->law[i], N, dyn / h, c, h, &broke, st) : 0.0;
    fs->normal[i] = N;
    if (ft == cs->ftan[0])
      break;
    /* still to the tolerance of the law's scale (its hold, or |ft|), or
     * at the round-off floor that the Newton's d1 leaves in a stick's
     * -s_free / c (the iterates no longer contract) */
    double change = fabs(ft - cs->ftan[0]);
    double scale = fmax(fabs(ft), info->hold(fm->law[i], N));
    int floor_hit = outer >= 4 && change >= prev && change <= 1e-8 * scale;
    prev = change;
    cs->ftan[0] = ft;
    if (change <= cm->tolerance * scale || floor_hit || !may) {
      /* still: the last Newton under this ft */
      if (may)
        rc = newton(m, s);
      break;
    }
    if (outer == 99)
      rc = VB_ENOCONV;
  }
  return rc;
}

int
vb_clearance_step(const vb_island_model *m, vb_island_state *s, long n)
{
  const vb_clearance_model *cm = m->clr;
  vb_clearance_state *cs = s->clr;
  const vb_friction_model *fm = m->fric;
  vb_friction_state *fs = s->fric;
  int nm = m->nm, nt = fm->nt, nc = cm->nc, rc = VB_OK;
  double h = m->dt, t0 = n * h, t1 = (n + 1) * h, diss = 0.0, ext = 0.0;
  double *gen = s->gen, *du = s->qt, *dw = fs->dfree;

  /* free increments: (ca - 1) q + cb v + cc gen, ca - 1 = -dt w2 cb / 2 */
  for (int j = 0; j < nm; j++)
    du[j] = -0.5 * h * m->w2[j] * m->cb[j] * s->q[j] + m->cb[j] * s->v[j] + m->cc[j] * gen[j];
  for (int j = 0; j < nt; j++)
    dw[j] = fm->cq[j] * fs->w[j] + fm->cb[j] * fs->vw[j];
  /* each contact's d at n and free d~ at n+1, the law of an impact that
   * would begin in this step */
  int may = 0;
  for (int c = 0; c < nc; c++) {
    double *d0 = cs->d0 + 2 * c, *df = cs->dfree + 2 * c, pa[2], pb[2], r[2];
    relative(cm, c, s->q, NULL, fs->w, NULL, t0, d0, NULL);
    if (cm->walla[c])
      wall_at(cm->walla[c], t1, pa, r);
    else {
      pa[0] = s->q[cm->ua[c]] + du[cm->ua[c]];
      pa[1] = fs->w[cm->wa[c]] + dw[cm->wa[c]];
    }
    if (cm->wallb[c])
      wall_at(cm->wallb[c], t1, pb, r);
    else {
      pb[0] = s->q[cm->ub[c]] + du[cm->ub[c]];
      pb[1] = fs->w[cm->wb[c]] + dw[cm->wb[c]];
    }
    df[0] = pb[0] - pa[0];
    df[1] = pb[1] - pa[1];
    const vb_chist *hc = &s->hist[c];
    const vb_law *law = &m->cts[c].law;
    if (s->onset && !law_engaged(law, hc->x))
      vb_law_at_onset(law, vb_law_side(law, hc->x) * hc->rate, &s->act[c].law);
    double xt = sqrt(df[0] * df[0] + df[1] * df[1]) - cm->clear[c];
    may |= vb_kmethod_may_act(&s->act[c], hc, xt, 0);
  }
  if (cm->fi >= 0) {
    rc = friction_solve(m, s, may);
    s->solved = may;
  } else if (may) {
    rc = newton(m, s);
    s->solved = 1;
  } else {
    for (int c = 0; c < nc; c++) {
      double *df = cs->dfree + 2 * c;
      cs->F[2 * c] = cs->F[2 * c + 1] = 0.0;
      cs->fb[c] = 0.0;
      cs->x1[c] = sqrt(df[0] * df[0] + df[1] * df[1]) - cm->clear[c];
      s->iterations[c] = 0;
    }
    s->solved = 0;
  }
  /* the forces into the increments; the contacts' dissipation (the
   * scheme's, along the radial penetration) and the walls' work: F . dp_a
   * for a wall a, -F . dp_b for a wall b */
  for (int c = 0; c < nc; c++) {
    const double *F = cs->F + 2 * c;
    if (F[0] != 0.0 || F[1] != 0.0) {
      if (!cm->wallb[c]) {
        du[cm->ub[c]] += m->cc[cm->ub[c]] * F[0];
        dw[cm->wb[c]] += fm->cc[cm->wb[c]] * F[1];
      }
      if (!cm->walla[c]) {
        du[cm->ua[c]] -= m->cc[cm->ua[c]] * F[0];
        dw[cm->wa[c]] -= fm->cc[cm->wa[c]] * F[1];
      }
      /* friction's torques: r_b ft on the pin's spin, -r_a ft on the hole's */
      if (cm->sb >= 0)
        dw[cm->sb] += fm->cc[cm->sb] * (cm->rb * cs->ftan[c]);
      if (cm->sa >= 0)
        dw[cm->sa] -= fm->cc[cm->sa] * (cm->ra * cs->ftan[c]);
      for (int side = 0; side < 2; side++) {
        const vb_body *wall = side ? cm->wallb[c] : cm->walla[c];
        if (!wall)
          continue;
        double p0[2], p1[2], r[2];
        wall_at(wall, t0, p0, r);
        wall_at(wall, t1, p1, r);
        double work = F[0] * (p1[0] - p0[0]) + F[1] * (p1[1] - p0[1]);
        ext += side ? -work : work;
      }
    }
    const vb_contact *ct = &s->act[c];
    if (cs->fb[c] != 0.0 || law_engaged(&ct->law, s->hist[c].x))
      diss += ct->scheme->ops->dissipation(ct, &s->hist[c], h, cs->x1[c], cs->fb[c]);
  }
  /* friction's slip over the step along the tangent its force took, and
   * its work -ft s dt (never negative: the law opposes the slip it leaves) */
  if (cm->fi >= 0) {
    int i = cm->fi;
    double t[2], d1[2], pa[2], pb[2], r[2];
    tangent(cs->d0, cs->d1, t);
    if (cm->walla[0])
      wall_at(cm->walla[0], t1, pa, r);
    else {
      pa[0] = s->q[cm->ua[0]] + du[cm->ua[0]];
      pa[1] = fs->w[cm->wa[0]] + dw[cm->wa[0]];
    }
    if (cm->wallb[0])
      wall_at(cm->wallb[0], t1, pb, r);
    else {
      pb[0] = s->q[cm->ub[0]] + du[cm->ub[0]];
      pb[1] = fs->w[cm->wb[0]] + dw[cm->wb[0]];
    }
    d1[0] = pb[0] - pa[0];
    d1[1] = pb[1] - pa[1];
    double dy = t[0] * (d1[0] - cs->d0[0]) + t[1] * (d1[1] - cs->d0[1]) +
                (cm->sb >= 0 ? cm->rb * dw[cm->sb] : 0.0) -
                (cm->sa >= 0 ? cm->ra * dw[cm->sa] : 0.0);
    double work = -cs->ftan[0] * dy;
    fs->ft[i] = cs->ftan[0];
    fs->slip[i] = dy / h;
    fs->work[i] += work;
    fs->work_min = fmin(fs->work_min, work);
    fs->dissipated += work;
    diss += work;
  }
  /* the dampers' and external forces' work, and the move to n+1 */
  for (int j = 0; j < nm; j++) {
    double vm = du[j] / h;
    diss += m->dcoef[j] * vm * vm;
    ext += gen[j] * du[j];
    s->q[j] += du[j];
    s->v[j] = 2.0 * du[j] / h - s->v[j];
  }
  for (int j = 0; j < nt; j++) {
    diss += 2.0 * fm->mass[j] * fm->sig[j] * dw[j] * dw[j] / h;
    fs->w[j] += dw[j];
    fs->vw[j] = 2.0 * dw[j] / h - fs->vw[j];
  }
  /* The catch of a sticking contact's node slip (doc/friction.md, "the
   * catch"): the stick holds the step's mean slip at zero, and the
   * trapezoidal rule's velocity at n+1 would keep the node slip of the
   * step that came to stick, alternating in sign from step to step (+-0.015
   * m/s of a 1.56 m/s rolling speed in scenes/rotor-rub.cfg, the friction
   * force alternating with it).  An impulse P along the node's tangent t(d1)
   * sets it to zero, clipped so that the step's whole impulse ft dt + P
   * stays within the law's hold; friction takes -P (s1 + s2) / 2 >= 0 and
   * the walls do -P r_w (r_w their part of the slip rate). */
  if (cm->fi >= 0 && fm->info[cm->fi]->sticks(fs->st + fm->st_first[cm->fi]) &&
      fs->normal[cm->fi] > 0.0) {
    int i = cm->fi;
    double d[2], dr[2], t[2], p[2], r[2], rw = 0.0;
    relative(cm, 0, s->q, s->v, fs->w, fs->vw, t1, d, dr);
    tangent(d, d, t);
    if (cm->walla[0]) {
      wall_at(cm->walla[0], t1, p, r);
      rw -= t[0] * r[0] + t[1] * r[1];
    }
    if (cm->wallb[0]) {
      wall_at(cm->wallb[0], t1, p, r);
      rw += t[0] * r[0] + t[1] * r[1];
    }
    double s1 = t[0] * dr[0] + t[1] * dr[1] + (cm->sb >= 0 ? cm->rb * fs->vw[cm->sb] : 0.0) -
                (cm->sa >= 0 ? cm->ra * fs->vw[cm->sa] : 0.0);
    double kv = 0.0;
    if (!cm->wallb[0])
      kv += t[0] * t[0] / m->mass[cm->ub[0]] + t[1] * t[1] / fm->mass[cm->wb[0]];
    if (!cm->walla[0])
      kv += t[0] * t[0] / m->mass[cm->ua[0]] + t[1] * t[1] / fm->mass[cm->wa[0]];
    kv += cm->sb >= 0 ? cm->rb * cm->rb / fm->mass[cm->sb] : 0.0;
    kv += cm->sa >= 0 ? cm->ra * cm->ra / fm->mass[cm->sa] : 0.0;
    double hold = fm->info[i]->hold(fm->law[i], fs->normal[i]) * h, J = fs->ft[i] * h;
    double P = kv > 0.0 && s1 != 0.0 ? fmin(fmax(-s1 / kv, -hold - J), hold - J) : 0.0;
    if (P != 0.0) {
      if (!cm->wallb[0]) {
        s->v[cm->ub[0]] += P * t[0] / m->mass[cm->ub[0]];
        fs->vw[cm->wb[0]] += P * t[1] / fm->mass[cm->wb[0]];
      }
      if (!cm->walla[0]) {
        s->v[cm->ua[0]] -= P * t[0] / m->mass[cm->ua[0]];
        fs->vw[cm->wa[0]] -= P * t[1] / fm->mass[cm->wa[0]];
      }
      if (cm->sb >= 0)
        fs->vw[cm->sb] += cm->rb * P / fm->mass[cm->sb];
      if (cm->sa >= 0)
        fs->vw[cm->sa] -= cm->ra * P / fm->mass[cm->sa];
      double s2 = s1 + kv * P, work = -P * 0.5 * (s1 + s2);
      fs->ft[i] += P / h; /* the step's whole force, within the cone */
      fs->work[i] += work;
      fs->work_min = fmin(fs->work_min, work);
      fs->dissipated += work;
      diss += work;
      ext += -P * rw;
    }
  }
  /* the contacts' histories at n+1, from the moved coordinates */
  int neng = 0;
  double z = 0.0;
  for (int c = 0; c < nc; c++) {
    double d[2], dr[2];
    relative(cm, c, s->q, s->v, fs->w, fs->vw, t1, d, dr);
    vb_chist *hc = &s->hist[c];
    s->xb[c] = hc->x;
    s->rb[c] = hc->rate;
    hc->xm = hc->x;
    hc->x = sqrt(d[0] * d[0] + d[1] * d[1]) - cm->clear[c];
    hc->rate = radial_rate(d, dr);
    hc->f = cs->fb[c];
    s->fbar[c] = cs->fb[c];
    s->fallback[c] = 0;
    if (law_engaged(&s->act[c].law, hc->x))
      s->eng[neng++] = c;
    z += hc->x * 0.0 + hc->rate * 0.0 + hc->f * 0.0;
  }
  s->neng = neng;
  s->contacts_finite = z == 0.0;
  s->dissipated += diss;
  s->external += ext;
  s->ahead = 0;
  for (int j = 0; j < nm; j++)
    if (!isfinite(s->q[j]) || !isfinite(s->v[j]))
      return VB_EDIVERGED;
  return rc;
}
