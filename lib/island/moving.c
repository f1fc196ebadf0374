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
 * string does work through the slope). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "island.h"
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
  if (m->fric)
    return vb_errf(err, errlen, VB_EINVAL,
                   "%s:%d: contact '%s': a moving contact point on bodies with a w direction "
                   "is not done yet (valid: a mass without w0, vw0, kw or cw)",
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

void
vb_moving_start(const vb_island_model *m, vb_island_state *s)
{
  if (!m->mov)
    return;
  double *row = s->scratch, xr;
  vb_moving_row(m, position(m->mov, 0.0), row);
  vb_chist *hc = &s->hist[0];
  const vb_law *law = &m->cts[0].law;
  double xd = vb_contact_drive(m->scene, &m->cts[0], 0.0, &xr);
  hc->x = hc->xm = dot(m, row, s->q) + xd;
  hc->rate = dot(m, row, s->v) + xr;
  vb_law_at_onset(law, vb_law_side(law, hc->x) * hc->rate, &s->act[0].law);
  hc->f = s->fbar[0] = vb_law_force(&s->act[0].law, hc->x, hc->rate);
  s->xb[0] = hc->x;
  s->rb[0] = hc->rate;
}

int
vb_moving_step(const vb_island_model *m, vb_island_state *s, long n)
{
  const vb_moving_model *mm = m->mov;
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
  return rc;
}
