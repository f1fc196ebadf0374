/* friction_run.c - a run's tangential signals (issue 30, steps 1 and 2):
 * each contact's friction force, slip, work and phase, each mass's w and
 * its rate and its spin, from its island's tangential state (friction.h); record.c's
 * signal rows read them. */
#include <math.h>

#include "run.h"

/* Coordinate of scene body b in a model's list, or -1. */
static int
coordinate_of(const vb_friction_model *fm, int b)
{
  for (int j = 0; j < fm->nw; j++)
    if (fm->tbody[j] == b)
      return j;
  return -1;
}

/* Contact c's friction model index within its island, or -1; its island's
 * model and state into *fm, *fs. */
static int
friction_index(const vb_run *run, int c, const vb_friction_model **fm, const vb_friction_state **fs)
{
  if (c < 0 || c >= run->scene->ncontacts || run->scene->contacts[c].friction.kind == VB_FRICTION_NONE)
    return -1;
  int k = run->contact_island[c];
  *fm = run->model->islands[k].fric;
  *fs = run->states[k]->fric;
  for (int i = 0; *fm && i < (*fm)->nfc; i++)
    if ((*fm)->scene_c[i] == c)
      return i;
  return -1;
}

double
vb_run_friction_force(const vb_run *run, int c)
{
  const vb_friction_model *fm;
  const vb_friction_state *fs;
  int i = friction_index(run, c, &fm, &fs);
  return i < 0 ? NAN : fs->ft[i];
}

double
vb_run_friction_slip(const vb_run *run, int c)
{
  const vb_friction_model *fm;
  const vb_friction_state *fs;
  int i = friction_index(run, c, &fm, &fs);
  return i < 0 ? NAN : fs->slip[i];
}

double
vb_run_friction_work(const vb_run *run, int c)
{
  const vb_friction_model *fm;
  const vb_friction_state *fs;
  int i = friction_index(run, c, &fm, &fs);
  return i < 0 ? NAN : fs->work[i];
}

double
vb_run_friction_normal(const vb_run *run, int c)
{
  const vb_friction_model *fm;
  const vb_friction_state *fs;
  int i = friction_index(run, c, &fm, &fs);
  return i < 0 ? NAN : fs->normal[i];
}

double
vb_run_friction_sticks(const vb_run *run, int c)
{
  const vb_friction_model *fm;
  const vb_friction_state *fs;
  int i = friction_index(run, c, &fm, &fs);
  return i < 0 ? NAN : fm->info[i]->sticks(fs->st + fm->st_first[i]) ? 1.0 : 0.0;
}

/* Body b's coordinate and its island's tangential state, or -1. */
static int
coordinate_index(const vb_run *run, int b, const vb_friction_state **fs)
{
  if (b < 0 || b >= run->scene->nbodies || !run->scene->bodies[b].has_w || run->body_island[b] < 0)
    return -1;
  const vb_friction_model *fm = run->model->islands[run->body_island[b]].fric;
  *fs = run->states[run->body_island[b]]->fric;
  return fm ? coordinate_of(fm, b) : -1;
}

/* A wall's w drive now (the time of the islands' states). */
static double
wall_w(const vb_run *run, int b, double *rate)
{
  const vb_body *body = &run->scene->bodies[b];
  double t = run->nislands > 0 ? run->states[0]->time : 0.0;
  *rate = 0.0;
  return body->w_drive.kind != VB_DRIVE_NONE ? vb_drive_eval(&body->w_drive, t, rate) : 0.0;
}

double
vb_run_body_w(const vb_run *run, int b)
{
  const vb_friction_state *fs;
  double r;
  if (b >= 0 && b < run->scene->nbodies && run->scene->bodies[b].kind == VB_BODY_WALL)
    return wall_w(run, b, &r);
  int j = coordinate_index(run, b, &fs);
  return j < 0 ? NAN : fs->w[j];
}

double
vb_run_body_vw(const vb_run *run, int b)
{
  const vb_friction_state *fs;
  double r;
  if (b >= 0 && b < run->scene->nbodies && run->scene->bodies[b].kind == VB_BODY_WALL) {
    wall_w(run, b, &r);
    return r;
  }
  int j = coordinate_index(run, b, &fs);
  return j < 0 ? NAN : fs->vw[j];
}

double
vb_run_body_spin(const vb_run *run, int b)
{
  const vb_friction_state *fs;
  if (coordinate_index(run, b, &fs) < 0 || !run->scene->bodies[b].has_spin)
    return NAN;
  const vb_friction_model *fm = run->model->islands[run->body_island[b]].fric;
  for (int j = fm->nw; j < fm->nmw; j++)
    if (fm->tbody[j] == b)
      return fs->vw[j];
  return NAN;
}

double
vb_run_friction_bristle(const vb_run *run, int c)
{
  const vb_friction_model *fm;
  const vb_friction_state *fs;
  int i = friction_index(run, c, &fm, &fs);
  return i < 0 || !fm->info[i]->deflection ? NAN
                                           : fm->info[i]->deflection(fs->st + fm->st_first[i]);
}

/* Modal body b's first coordinate along w in its island's tangential
 * model (its modes are consecutive coordinates, its mode 0 first), its
 * state into *fs; -1 without them or when p is not one of its points. */
static int
modal_first(const vb_run *run, int b, int p, const vb_friction_state **fs)
{
  const vb_scene *sc = run->scene;
  if (b < 0 || b >= sc->nbodies || sc->bodies[b].kind != VB_BODY_MODAL ||
      sc->bodies[b].nwmodes == 0 || p < 0 || p >= sc->bodies[b].npoints ||
      run->body_island[b] < 0)
    return -1;
  const vb_friction_model *fm = run->model->islands[run->body_island[b]].fric;
  *fs = run->states[run->body_island[b]]->fric;
  if (!fm)
    return -1;
  int j0 = fm->nmw;
  while (j0 < fm->nt && fm->tbody[j0] != b)
    j0++;
  return j0 + sc->bodies[b].nwmodes > fm->nt ? -1 : j0;
}

/* Point p of a modal body b along w from its modes' values x (w or vw):
 * sum of wshape x over the body's coordinates; NaN without them. */
static double
modal_point(const vb_run *run, int b, int p, int rate)
{
  const vb_friction_state *fs;
  int j0 = modal_first(run, b, p, &fs);
  if (j0 < 0)
    return NAN;
  const double *shape = run->scene->bodies[b].points[p].wshape, *x = (rate ? fs->vw : fs->w) + j0;
  int n = run->scene->bodies[b].nwmodes;
  double y = 0.0;
  /* vectorised partial sums: the same order at every sample */
#pragma omp simd reduction(+ : y)
  for (int k = 0; k < n; k++)
    y += shape[k] * x[k];
  return y;
}

/* Points p0 and p1 (p1 < 0: p0 alone) of modal body b along w from its
 * first coordinate j0 in fs: their w and vw into y[0 .. 3], modal_point's
 * sums side by side in one pass, each in its order (friction.h's
 * vb_lanes). */
static void
modal_points2(const vb_run *run, const vb_friction_state *fs, int b, int j0, int p0, int p1,
              double y[4])
{
  const vb_body *body = &run->scene->bodies[b];
  const double *w = fs->w + j0, *vw = fs->vw + j0, *s0 = body->points[p0].wshape;
  const double *s1 = body->points[p1 >= 0 ? p1 : p0].wshape;
  vb_lanes w0 = {0.0, 0.0}, v0 = w0, w1 = w0, v1 = w0;
  int k = 0, n = body->nwmodes;
  if (p1 >= 0)
    for (; k + 1 < n; k += 2) {
      vb_lanes x = vb_lanes_at(w + k), v = vb_lanes_at(vw + k), a = vb_lanes_at(s0 + k),
               c = vb_lanes_at(s1 + k);
      w0 += a * x;
      v0 += a * v;
      w1 += c * x;
      v1 += c * v;
    }
  else
    for (; k + 1 < n; k += 2) {
      vb_lanes x = vb_lanes_at(w + k), v = vb_lanes_at(vw + k), a = vb_lanes_at(s0 + k);
      w0 += a * x;
      v0 += a * v;
    }
  if (k < n) {
    w0[0] += s0[k] * w[k];
    v0[0] += s0[k] * vw[k];
    w1[0] += s1[k] * w[k];
    v1[0] += s1[k] * vw[k];
  }
  y[0] = vb_lanes_sum(w0);
  y[1] = vb_lanes_sum(v0);
  y[2] = vb_lanes_sum(w1);
  y[3] = vb_lanes_sum(v1);
}

void
vb_run_wpoints(const vb_run *run, const vb_wpoint_rec *r, int np, long kk)
{
  for (int q = 0; q < np;) {
    const vb_friction_state *fs, *fs1;
    int j0 = modal_first(run, r[q].b, r[q].p, &fs);
    int two = q + 1 < np && r[q + 1].b == r[q].b &&
              modal_first(run, r[q + 1].b, r[q + 1].p, &fs1) == j0;
    double y[4] = {NAN, NAN, NAN, NAN};
    if (j0 >= 0)
      modal_points2(run, fs, r[q].b, j0, r[q].p, two ? r[q + 1].p : -1, y);
    for (int e = 0; e <= two; e++, q++) {
      if (r[q].w)
        r[q].w[kk] = y[2 * e];
      if (r[q].vw)
        r[q].vw[kk] = y[2 * e + 1];
    }
  }
}

double
vb_run_point_w(const vb_run *run, int b, int p)
{
  if (b >= 0 && b < run->scene->nbodies && run->scene->bodies[b].kind == VB_BODY_MODAL)
    return modal_point(run, b, p, 0);
  return vb_run_body_w(run, b);
}

double
vb_run_point_vw(const vb_run *run, int b, int p)
{
  if (b >= 0 && b < run->scene->nbodies && run->scene->bodies[b].kind == VB_BODY_MODAL)
    return modal_point(run, b, p, 1);
  return vb_run_body_vw(run, b);
}
