/* analysis.c - the nonsmooth-dynamics layer of a scene: the stroboscopic
 * section of the `analysis` block (doc/scene-file.md, "Analysis"; its loader is
 * scene/load_analysis.c) sampled during the run, and at its end the impact
 * map and the orbit's class.
 *
 * The section is sampled at the exact times t_k = (k + phase/(2 pi)) T,
 * not at the nearest step: between the steps t_{n-1} < t_k <= t_n the
 * point's (u, v) is the cubic Hermite interpolant of (u, v) at both
 * steps, whose error is O(dt^4) in u and O(dt^3) in v, far below any
 * classification tolerance.  The points are computed only at the two
 * steps around each t_k, so a run pays two dot products per point per
 * drive period, and nothing at all without a block. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "run.h"

/* Default tolerances (doc/analysis.md). */
#define TOLERANCE_DEFAULT    1e-6
#define ATTRACTOR_DEFAULT    1e-3
/* The period tolerance without `period.tolerance`: SCATTER_STEPS / N^2 for
 * impacts resolved in a median N steps (doc/analysis.md, "Default
 * tolerances": the scatter of period-1 sections measured below 7 / N^2,
 * 5.6 / N^2 next to a doubling; 20 / N^2 merged the impact oscillator's
 * period 4 into 2), between TOLERANCE_DEFAULT (no impact) and
 * TOLERANCE_MOST. */
#define SCATTER_STEPS  12.0
#define TOLERANCE_MOST 0.1

/* ------------------------------------------------------------ the block */

/* Free an analysis block. */
void
vb_analysis_free(vb_analysis *a)
{
  if (!a)
    return;
  free(a->points);
  free(a);
}

/* -------------------------------------------------------------- the run */

/* Free a run's analysis. */
void
vb_analysis_run_free(vb_analysis_run *a)
{
  if (!a)
    return;
  free(a->t);
  free(a->u);
  free(a->prev);
  free(a->island);
  free(a->map);
  free(a);
}

/* Section samples t_k = (k + phase / (2 pi)) T in [transient, t_end]. */
long
vb_analysis_samples(const vb_analysis *an, double t_end, long *k0)
{
  double off = an->phase / (2.0 * M_PI);
  long k, last;

  if (k0)
    *k0 = 0;
  if (!an->section || !(an->period > 0.0))
    return 0;
  k = (long)ceil(an->transient_time / an->period - off);
  k = k < 0 ? 0 : k;
  while ((k + off) * an->period < an->transient_time)
    k++; /* round-off of the division */
  if (k0)
    *k0 = k;
  last = (long)floor(t_end / an->period - off);
  return last >= k ? last - k + 1 : 0;
}

/* Size a run's analysis. */
int
vb_analysis_run_alloc(vb_run *run)
{
  const vb_analysis *an = run->scene->analysis;
  const vb_model *md = run->model;
  vb_analysis_run *a;
  double t_end = (double)run->nsteps * run->dt;
  int np, most = 1;

  run->analysis = NULL;
  if (!an)
    return VB_OK;
  a = run->analysis = calloc(1, sizeof *a);
  if (!a)
    return VB_ENOMEM;
  a->an = an;
  a->impacts_per_period = -1;
  a->orbit.cls = VB_ORBIT_NONE;
  a->orbit.tolerance = an->tolerance > 0.0 ? an->tolerance : NAN; /* classify sets it */
  a->orbit.spread = NAN;
  np = an->npoints;
  if (an->section) {
    long count = vb_analysis_samples(an, t_end, &a->k0);
    a->tk = (a->k0 + an->phase / (2.0 * M_PI)) * an->period;
    a->cap = a->tk <= t_end ? count + 1 : 0;
  } else {
    a->tk = INFINITY;
  }
  for (int i = 0; i < md->nislands; i++)
    most = md->islands[i].npts > most ? md->islands[i].npts : most;
  a->t = malloc(((size_t)a->cap + 1) * sizeof *a->t);
  a->u = malloc((2 * (size_t)a->cap * (size_t)np + 1) * sizeof *a->u);
  a->prev = malloc((4 * (size_t)np + 2 * (size_t)most + 1) * sizeof *a->prev);
  a->island = malloc((2 * (size_t)np + 1) * sizeof *a->island);
  if (!a->t || !a->u || !a->prev || !a->island)
    return VB_ENOMEM;
  a->v = a->u + (size_t)a->cap * (size_t)np;
  a->now = a->prev + 2 * np;
  a->scratch = a->now + 2 * np;
  a->row = a->island + np;
  for (int p = 0; p < np; p++) {
    int b = an->points[p].body;
    a->island[p] = md->body_island[b];
    a->row[p] = vb_island_point_row(&md->islands[a->island[p]], b, an->points[p].point);
  }
  return VB_OK;
}

/* The section's points now: u, v of point p into now[2p], now[2p + 1]. */
static void
points_now(const vb_run *run, vb_analysis_run *a)
{
  const vb_analysis *an = a->an;
  double *u = a->scratch;

  for (int p = 0; p < an->npoints; p++) {
    int i = a->island[p], r = a->row[p];
    const vb_island_model *m = &run->model->islands[i];
    double *v = a->scratch + m->npts;
    vb_island_points(m, run->states[i], &r, 1, u, v);
    a->now[2 * p] = u[r];
    a->now[2 * p + 1] = v[r];
  }
}

/* Sample the section around step n. */
void
vb_analysis_step(vb_run *run, long n)
{
  vb_analysis_run *a = run->analysis;
  const vb_analysis *an = a->an;
  double h = run->dt, t0 = (double)(n - 1) * h;
  int np = an->npoints;

  if (n == 0) { /* the start: the first sample again */
    a->ns = 0;
    a->tk = an->section ? ((double)a->k0 + an->phase / (2.0 * M_PI)) * an->period : INFINITY;
  }
  /* nothing before the next step's end: no point is needed */
  if (a->ns >= a->cap || a->tk > (double)(n + 1) * h)
    return;
  points_now(run, a);
  while (a->ns < a->cap && a->tk <= (double)n * h) {
    double *u = a->u + a->ns * np, *v = a->v + a->ns * np;
    if (n == 0) {
      for (int p = 0; p < np; p++)
        u[p] = a->now[2 * p], v[p] = a->now[2 * p + 1];
    } else {
      /* cubic Hermite on [t_{n-1}, t_n] in s = (t_k - t_{n-1}) / h */
      double s = (a->tk - t0) / h, s2 = s * s, s3 = s2 * s;
      double h00 = 2 * s3 - 3 * s2 + 1, h10 = s3 - 2 * s2 + s, h01 = -2 * s3 + 3 * s2,
             h11 = s3 - s2;
      double d00 = 6 * s2 - 6 * s, d10 = 3 * s2 - 4 * s + 1, d01 = -d00, d11 = 3 * s2 - 2 * s;
      for (int p = 0; p < np; p++) {
        double u0 = a->prev[2 * p], v0 = a->prev[2 * p + 1];
        double u1 = a->now[2 * p], v1 = a->now[2 * p + 1];
        u[p] = h00 * u0 + h10 * h * v0 + h01 * u1 + h11 * h * v1;
        v[p] = (d00 * u0 + d01 * u1) / h + d10 * v0 + d11 * v1;
      }
    }
    a->t[a->ns++] = a->tk;
    a->tk = ((double)(a->k0 + a->ns) + an->phase / (2.0 * M_PI)) * an->period;
  }
  /* now is the next step's previous */
  memcpy(a->prev, a->now, 2 * (size_t)np * sizeof *a->prev);
}

/* The scales of a section. */
void
vb_section_scale(const double *x, long n, int d, double omega, double *scale)
{
  for (int p = 0; 2 * p + 1 < d; p++) {
    double s = 0.0;
    for (long i = 0; i < n; i++) {
      double u = fabs(x[i * d + 2 * p]), w = fabs(x[i * d + 2 * p + 1]) / omega;
      if (isfinite(u) && u > s)
        s = u;
      if (isfinite(w) && w > s)
        s = w;
    }
    s = s > 0.0 ? s : 1.0;
    scale[2 * p] = s;
    scale[2 * p + 1] = omega * s;
  }
}

/* The impact map: the map contact's impacts with a measured onset at or
 * after the transient, their phase of the drive and the time since the
 * contact's previous impact (of the whole run: NaN for its first). */
static int
impact_map(const vb_run *run, vb_analysis_run *a)
{
  const vb_analysis *an = a->an;
  const vb_contact_result *r;
  double prev = NAN, *vin = NULL;
  int *flag = NULL, rc = VB_OK;
  long e;

  if (an->map_contact < 0)
    return VB_OK;
  r = &run->results[an->map_contact];
  a->map = malloc(((size_t)r->nevents + 1) * sizeof *a->map);
  vin = malloc(((size_t)r->nevents + 1) * sizeof *vin);
  flag = calloc((size_t)r->nevents + 1, sizeof *flag);
  if (!a->map || !vin || !flag) {
    free(vin);
    free(flag);
    return VB_ENOMEM;
  }
  for (e = 0; e < r->nevents; e++) {
    const vb_event *ev = &r->events[e];
    vb_map_entry *m = &a->map[a->nmap];
    if (!isfinite(ev->t_on))
      continue; /* engaged at t = 0: no onset */
    if (ev->t_on >= an->transient_time) {
      double ph = an->section
                      ? fmod(2.0 * M_PI * ev->t_on / an->period + an->drive_phase, 2.0 * M_PI)
                      : NAN;
      m->t = ev->t_on;
      m->v_in = ev->v_in;
      m->phase = ph < 0.0 ? ph + 2.0 * M_PI : ph;
      m->since_previous = ev->t_on - prev;
      m->contact = an->map_contact;
      vin[a->nmap++] = ev->v_in;
    }
    prev = ev->t_on;
  }
  /* the grazing flag (orbit.c's rule) */
  if (an->grazing > 0.0 && a->nmap > 0)
    rc = vb_orbit_grazing(vin, a->nmap, an->grazing, flag, NULL);
  for (e = 0; e < a->nmap; e++)
    a->map[e].grazing = flag[e];
  free(vin);
  free(flag);
  return rc;
}

/* The median of the steps every impact of the run after the transient
 * lasted (duration fs, each contact's events with a finite duration), 0
 * when there is none. */
static double
impact_steps(const vb_run *run, double transient)
{
  long n = 0, cap = 0;
  double *steps, median;

  for (int c = 0; c < run->scene->ncontacts; c++)
    cap += run->results[c].nevents;
  if (cap == 0 || !(steps = malloc((size_t)cap * sizeof *steps)))
    return 0.0;
  for (int c = 0; c < run->scene->ncontacts; c++)
    for (long e = 0; e < run->results[c].nevents; e++) {
      const vb_event *ev = &run->results[c].events[e];
      if (isfinite(ev->t_on) && ev->t_on >= transient && isfinite(ev->duration) &&
          ev->duration > 0.0)
        steps[n++] = ev->duration * run->scene->fs;
    }
  median = n == 0 ? 0.0 : vb_orbit_median(steps, n);
  free(steps);
  return median;
}

double
vb_analysis_tolerance(double steps)
{
  double tol = steps > 0.0 ? SCATTER_STEPS / (steps * steps) : TOLERANCE_DEFAULT;
  return tol < TOLERANCE_DEFAULT ? TOLERANCE_DEFAULT : tol > TOLERANCE_MOST ? TOLERANCE_MOST : tol;
}

double
vb_analysis_attractor_tolerance(double most_period_tolerance)
{
  double tol = 2.0 * most_period_tolerance;
  return tol > ATTRACTOR_DEFAULT ? (tol < TOLERANCE_MOST ? tol : TOLERANCE_MOST)
                                 : ATTRACTOR_DEFAULT;
}

/* The section's class and, when periodic with an impact map, its impacts
 * per period; the tolerance the block's, else from the impacts'
 * resolution. */
static int
classify(const vb_run *run, vb_analysis_run *a)
{
  const vb_analysis *an = a->an;
  int d = 2 * an->npoints;
  double *x, *scale, *ton, tol = an->tolerance;

  if (!(tol > 0.0))
    tol = vb_analysis_tolerance(impact_steps(run, an->transient_time));
  a->orbit.tolerance = tol;
  if (!an->section || a->ns == 0)
    return VB_OK;
  x = malloc(((size_t)a->ns * (size_t)d + (size_t)d) * sizeof *x);
  ton = malloc(((size_t)a->nmap + 1) * sizeof *ton);
  if (!x || !ton) {
    free(x);
    free(ton);
    return VB_ENOMEM;
  }
  scale = x + (size_t)a->ns * (size_t)d;
  for (long i = 0; i < a->ns; i++)
    for (int p = 0; p < an->npoints; p++) {
      x[i * d + 2 * p] = a->u[i * an->npoints + p];
      x[i * d + 2 * p + 1] = a->v[i * an->npoints + p];
    }
  vb_section_scale(x, a->ns, d, 2.0 * M_PI / an->period, scale);
  vb_orbit_classify(x, a->ns, d, scale, tol, an->pmax, &a->orbit);
  if (a->orbit.cls == VB_ORBIT_PERIODIC && an->map_contact >= 0) {
    for (long e = 0; e < a->nmap; e++)
      ton[e] = a->map[e].t;
    a->impacts_per_period = vb_orbit_impacts(ton, a->nmap, a->t, a->ns, a->orbit.period);
  }
  free(x);
  free(ton);
  return VB_OK;
}

/* At the run's end: the impact map and the class. */
int
vb_analysis_finish(vb_run *run)
{
  vb_analysis_run *a = run->analysis;
  int rc;

  if (!a)
    return VB_OK;
  free(a->map);
  a->map = NULL;
  a->nmap = 0;
  rc = impact_map(run, a);
  return rc == VB_OK ? classify(run, a) : rc;
}

/* The analysis of a run. */
const vb_analysis_run *
vb_run_analysis(const vb_run *run)
{
  return run->analysis;
}

/* ------------------------------------------------------- its tables */

/* Whether scene 0's analysis block asks for a section; an impact map. */
static int
has_section(const vb_scene *first)
{
  return first->analysis && first->analysis->section;
}
static int
has_map(const vb_scene *first)
{
  return first->analysis && first->analysis->map_contact >= 0;
}

/* Section row *item: its period index, time, and point c's u or v. */
static void
get_section_k(const vb_column *col, const vb_run_view *rv, int c, const void *item, void *out)
{
  const vb_analysis_run *a = rv->analysis;

  (void)c;
  vb_column_put_long(col, out, a->k0 + *(const long *)item);
}
static void
get_section_t(const vb_column *col, const vb_run_view *rv, int c, const void *item, void *out)
{
  (void)col, (void)c;
  memcpy(out, &rv->analysis->t[*(const long *)item], 8);
}
static void
get_section_uv(const vb_column *col, const vb_run_view *rv, int c, const void *item, void *out)
{
  const vb_analysis_run *a = rv->analysis;
  const double *x = col->name[0] == 'u' ? a->u : a->v;

  memcpy(out, &x[*(const long *)item * a->an->npoints + c], 8);
}

/* The stroboscopic section: one row per sample of every scene. */
static const vb_column section_columns[] = {
    {.name = "scene", .units = "1", .dim = VB_DIM_EVENT, .type = VB_COL_I64},
    {.name = "k", .units = "1", .dim = VB_DIM_EVENT, .type = VB_COL_I64, .get = get_section_k},
    {.name = "t", .units = "s", .dim = VB_DIM_EVENT, .type = VB_COL_F64, .get = get_section_t},
    {.name = "u",
     .units = "m",
     .dim = VB_DIM_SCENE_CONTACT,
     .type = VB_COL_F64,
     .get = get_section_uv},
    {.name = "v",
     .units = "m/s",
     .dim = VB_DIM_SCENE_CONTACT,
     .type = VB_COL_F64,
     .get = get_section_uv},
    {.name = NULL},
};

#define MAP_F64(n, u)                                                                              \
  {                                                                                                \
    .name = #n, .units = u, .dim = VB_DIM_EVENT, .type = VB_COL_F64, .get = vb_column_member,            \
    .at = offsetof(vb_map_entry, n)                                                                \
  }

/* The impact map: one row per impact of its contact after the transient. */
static const vb_column map_columns[] = {
    {.name = "scene", .units = "1", .dim = VB_DIM_EVENT, .type = VB_COL_I64},
    {.name = "contact",
     .units = "1",
     .dim = VB_DIM_EVENT,
     .type = VB_COL_I32,
     .get = vb_column_member,
     .at = offsetof(vb_map_entry, contact)},
    MAP_F64(t, "s"),
    MAP_F64(v_in, "m/s"),
    MAP_F64(phase, "rad"),
    MAP_F64(since_previous, "s"),
    {.name = "grazing",
     .units = "1",
     .dim = VB_DIM_EVENT,
     .type = VB_COL_I32,
     .get = vb_column_member,
     .at = offsetof(vb_map_entry, grazing)},
    {.name = NULL},
};

static long
section_rows(const vb_run_view *rv)
{
  return rv->analysis ? rv->analysis->ns : 0;
}
static const void *
section_item(const vb_run_view *rv, long r, long *buf)
{
  (void)rv;
  *buf = r;
  return buf;
}
static int
section_names(const vb_scene *first, const char **names)
{
  for (int p = 0; names && p < first->analysis->npoints; p++)
    names[p] = first->analysis->points[p].name;
  return first->analysis->npoints;
}
static long
map_rows(const vb_run_view *rv)
{
  return rv->analysis ? rv->analysis->nmap : 0;
}
static const void *
map_item(const vb_run_view *rv, long r, long *buf)
{
  (void)buf;
  return &rv->analysis->map[r];
}

/* The analysis's tables (its observer row's, observe.c). */
const vb_xtable vb_analysis_tables[] = {
    {.name = "sections",
                        .dim = "section",
                        .cols = section_columns,
                        .present = has_section,
                        .rows = section_rows,
                        .item = section_item,
                        .dim2 = "point",
                        .names = section_names},
    {.name = "impact_map",
                          .dim = "impact",
                          .cols = map_columns,
                          .present = has_map,
                          .rows = map_rows,
                          .item = map_item},
    {.name = NULL},
};
