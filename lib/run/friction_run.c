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

/* Point p of a modal body b along w from its modes' values x (w or vw):
 * sum of wshape x over the body's coordinates; NaN without them. */
static double
modal_point(const vb_run *run, int b, int p, int rate)
{
  const vb_scene *sc = run->scene;
  if (b < 0 || b >= sc->nbodies || sc->bodies[b].kind != VB_BODY_MODAL ||
      sc->bodies[b].nwmodes == 0 || p < 0 || p >= sc->bodies[b].npoints ||
      run->body_island[b] < 0)
    return NAN;
  const vb_friction_model *fm = run->model->islands[run->body_island[b]].fric;
  const vb_friction_state *fs = run->states[run->body_island[b]]->fric;
  const double *shape = sc->bodies[b].points[p].wshape, *x = rate ? fs->vw : fs->w;
  if (!fm)
    return NAN;
  /* the body's modes are consecutive coordinates, its mode 0 first */
  int j0 = fm->nmw;
  while (j0 < fm->nt && fm->tbody[j0] != b)
    j0++;
  int n = sc->bodies[b].nwmodes, k = 0;
  if (j0 + n > fm->nt)
    return NAN;
  x += j0;
  double y = 0.0;
  /* vectorised partial sums: the same order at every sample */
#pragma omp simd reduction(+ : y)
  for (k = 0; k < n; k++)
    y += shape[k] * x[k];
  return y;
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
