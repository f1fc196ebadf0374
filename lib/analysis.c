/* analysis.c - the nonsmooth-dynamics layer of a scene (issue 20): the
 * `analysis` block (README, "Analysis"), the stroboscopic section sampled
 * during the run, and at its end the impact map and the orbit's class.
 *
 * The section is sampled at the exact times t_k = (k + phase/(2 pi)) T,
 * not at the nearest step: between the steps t_{n-1} < t_k <= t_n the
 * point's (u, v) is the cubic Hermite interpolant of (u, v) at both
 * steps, whose error is O(dt^4) in u and O(dt^3) in v, far below any
 * classification tolerance.  The points are computed only at the two
 * steps around each t_k, so a run pays two dot products per point per
 * drive period, and nothing at all without a block. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "run_state.h"
#include "source.h"

/* Most section values (samples times points) one scene may hold. */
#define SECTION_VALUES_MAX 1e8

/* Defaults of the block's keys (analysis-spec.md). */
#define PMAX_DEFAULT         32
#define PMAX_MAX             1024
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
#define PERTURBATION_DEFAULT 0.0 /* 0: from the contacts (vb_lyapunov_perturbation) */

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

/* The element of `list` (a list of named groups) called name, or -1. */
static int
named(const char *base, size_t stride, int n, const char *name)
{
  for (int i = 0; i < n; i++)
    if (strcmp(base + (size_t)i * stride, name) == 0)
      return i;
  return -1;
}

/* The period and phase of the drive a section follows: "forces.F" (a
 * harmonic force), "bodies.W.drive" (a wall's sine drive) or
 * "contacts.C.gap_drive" (a contact's sine gap drive). */
static int
load_drive(vb_loader *ld, const config_setting_t *g, const char *obj, const char *path,
           vb_analysis *a)
{
  const vb_scene *sc = ld->scene;
  const config_setting_t *at = vb_src_at(g, "drive");
  char name[3 * VB_NAME_MAX + 32], valid[LIST_MAX] = "", item[3 * VB_NAME_MAX + 32];
  const char *dot = strchr(path, '.'), *rest = dot ? strchr(dot + 1, '.') : NULL;
  double freq = -1.0, phase = 0.0;
  int i;

  /* every drive a section could follow, for the message */
  for (i = 0; i < sc->nforces; i++)
    if (sc->forces[i].kind == VB_FORCE_HARMONIC) {
      snprintf(item, sizeof item, "forces.%s", sc->forces[i].name);
      vb_list_add(valid, sizeof valid, item);
    }
  for (i = 0; i < sc->nbodies; i++)
    if (sc->bodies[i].kind == VB_BODY_WALL && sc->bodies[i].drive.kind == VB_DRIVE_SINE) {
      snprintf(item, sizeof item, "bodies.%s.drive", sc->bodies[i].name);
      vb_list_add(valid, sizeof valid, item);
    }
  for (i = 0; i < sc->ncontacts; i++)
    if (sc->contacts[i].gap_drive.kind == VB_DRIVE_SINE) {
      snprintf(item, sizeof item, "contacts.%s.gap_drive", sc->contacts[i].name);
      vb_list_add(valid, sizeof valid, item);
    }
  snprintf(a->drive, sizeof a->drive, "%s", path);
  if (dot && (size_t)(dot - path) == 6 && strncmp(path, "forces", 6) == 0 && !rest) {
    i = named(sc->forces[0].name, sizeof sc->forces[0], sc->nforces, dot + 1);
    if (i >= 0 && sc->forces[i].kind == VB_FORCE_HARMONIC)
      freq = sc->forces[i].freq, phase = sc->forces[i].phase;
  } else if (dot && rest && strncmp(path, "bodies.", 7) == 0 && strcmp(rest, ".drive") == 0 &&
             (size_t)(rest - dot - 1) < sizeof name) {
    snprintf(name, (size_t)(rest - dot), "%s", dot + 1);
    i = sc->nbodies > 0 ? named(sc->bodies[0].name, sizeof sc->bodies[0], sc->nbodies, name) : -1;
    if (i >= 0 && sc->bodies[i].kind == VB_BODY_WALL && sc->bodies[i].drive.kind == VB_DRIVE_SINE)
      freq = sc->bodies[i].drive.freq, phase = sc->bodies[i].drive.phase;
  } else if (dot && rest && strncmp(path, "contacts.", 9) == 0 && strcmp(rest, ".gap_drive") == 0 &&
             (size_t)(rest - dot - 1) < sizeof name) {
    snprintf(name, (size_t)(rest - dot), "%s", dot + 1);
    i = sc->ncontacts > 0 ? named(sc->contacts[0].name, sizeof sc->contacts[0], sc->ncontacts, name)
                          : -1;
    if (i >= 0 && sc->contacts[i].gap_drive.kind == VB_DRIVE_SINE)
      freq = sc->contacts[i].gap_drive.freq, phase = sc->contacts[i].gap_drive.phase;
  }
  if (freq < 0.0)
    return vb_src_fail(ld, at, obj,
                       "'drive' = \"%s\" names no harmonic force or sine drive (valid: %s)", path,
                       valid[0] ? valid : "none in this scene: give 'period' instead");
  if (!(freq > 0.0))
    return vb_src_fail(ld, at, obj,
                       "'drive' = \"%s\" has freq 0: no period (valid: a drive of freq > 0, "
                       "or 'period')",
                       path);
  a->period = 1.0 / freq;
  a->drive_phase = phase;
  return VB_OK;
}

/* section.points: a list of "body" (a mass) or "body.point" (a modal
 * body's point), each once. */
static int
load_points(vb_loader *ld, const config_setting_t *g, const char *obj, vb_analysis *a)
{
  const config_setting_t *m = vb_src_member(g, "points");
  const vb_scene *sc = ld->scene;
  int n, rc;

  if (!m)
    return vb_src_fail(ld, g, obj,
                       "missing required key 'points' (valid: a list of bodies or "
                       "body.point names, such as [\"oscillator\"])");
  n = config_setting_length(m);
  if ((config_setting_type(m) != CONFIG_TYPE_ARRAY && config_setting_type(m) != CONFIG_TYPE_LIST) ||
      n < 1)
    return vb_src_fail(ld, m, obj,
                       "'points' must be a non-empty list of names (valid: bodies "
                       "or body.point names, such as [\"oscillator\"])");
  a->points = calloc((size_t)n, sizeof *a->points);
  if (!a->points)
    return vb_errf(ld->err, ld->errlen, VB_ENOMEM, "%s: out of memory loading the scene", ld->path);
  for (int i = 0; i < n; i++) {
    const config_setting_t *e = config_setting_get_elem(m, (unsigned)i);
    const char *text = config_setting_get_string(e);
    vb_section_point *p = &a->points[i];
    if (!text || !text[0])
      return vb_src_fail(ld, e, obj,
                         "'points' element %d must be a name (valid: bodies or "
                         "body.point names)",
                         i + 1);
    if ((rc = vb_src_point(ld, e, obj, "points", text, &p->body, &p->point)) != VB_OK)
      return rc;
    if (sc->bodies[p->body].kind == VB_BODY_WALL)
      return vb_src_fail(ld, e, obj,
                         "'points' names wall '%s', whose motion is prescribed "
                         "(valid: a mass or a point of a modal body)",
                         text);
    snprintf(p->name, sizeof p->name, "%s", text);
    for (int j = 0; j < i; j++)
      if (a->points[j].body == p->body && a->points[j].point == p->point)
        return vb_src_fail(ld, e, obj, "'points' names '%s' twice (valid: each point once)", text);
    a->npoints = i + 1;
  }
  return VB_OK;
}

/* analysis.section: drive or period, phase, transient or transient_time,
 * points. */
static int
load_section(vb_loader *ld, const config_setting_t *g, vb_analysis *a)
{
  static const char *const keys[] = {"drive",          "period", "phase", "transient",
                                     "transient_time", "points", NULL};
  const char *obj = "analysis 'section'", *drive = NULL;
  const vb_scene *sc = ld->scene;
  double transient_time = 0.0, t_end = (double)vb_scene_steps(sc) / sc->fs;
  long transient = 0;
  int rc;

  if (config_setting_type(g) != CONFIG_TYPE_GROUP)
    return vb_src_fail(ld, g, obj, "'section' must be a group { ... }");
  if ((rc = vb_src_check_keys(ld, g, obj, keys, NULL)) != VB_OK ||
      (rc = vb_src_string(ld, g, obj, "drive", 0, &drive)) != VB_OK)
    return rc;
  a->section = 1;
  if ((drive != NULL) == (vb_src_member(g, "period") != NULL))
    return vb_src_fail(ld, g, obj,
                       "give one of 'drive' and 'period' (valid: drive = "
                       "\"forces.NAME\", \"bodies.NAME.drive\", "
                       "\"contacts.NAME.gap_drive\"; or period = T in s)");
  if (drive && (rc = load_drive(ld, g, obj, drive, a)) != VB_OK)
    return rc;
  if (!drive) {
    if ((rc = vb_src_number(ld, g, obj, "period", 1, &a->period)) != VB_OK)
      return rc;
    if (!(a->period > 0.0))
      return vb_src_refuse(ld, g, obj, "period", "> 0", a->period);
  }
  if ((rc = vb_src_number(ld, g, obj, "phase", 0, &a->phase)) != VB_OK)
    return rc;
  if (!(a->phase >= 0.0 && a->phase < 2.0 * M_PI))
    return vb_src_refuse(ld, g, obj, "phase", ">= 0 and < 2 pi", a->phase);
  if (vb_src_member(g, "transient") && vb_src_member(g, "transient_time"))
    return vb_src_fail(ld, vb_src_at(g, "transient_time"), obj,
                       "give one of 'transient' (drive periods) and 'transient_time' (s)");
  if ((rc = vb_src_integer(ld, g, obj, "transient", 0, &transient)) != VB_OK ||
      (rc = vb_src_number(ld, g, obj, "transient_time", 0, &transient_time)) != VB_OK)
    return rc;
  if (transient < 0)
    return vb_src_refuse(ld, g, obj, "transient", ">= 0", (double)transient);
  if (!(transient_time >= 0.0))
    return vb_src_refuse(ld, g, obj, "transient_time", ">= 0", transient_time);
  a->transient_time =
      vb_src_member(g, "transient") ? (double)transient * a->period : transient_time;
  if (!(a->transient_time < t_end))
    return vb_src_fail(
        ld, vb_src_at(g, vb_src_member(g, "transient") ? "transient" : "transient_time"), obj,
        "the transient (%g s) leaves nothing of the run (valid: less than "
        "the duration, %g s)",
        a->transient_time, t_end);
  if ((rc = load_points(ld, g, obj, a)) != VB_OK)
    return rc;
  if ((t_end / a->period + 1.0) * a->npoints > SECTION_VALUES_MAX)
    return vb_src_fail(ld, g, obj,
                       "the section would hold %.3g samples of %d points (valid: at "
                       "most %g values: a longer period or fewer points)",
                       t_end / a->period, a->npoints, SECTION_VALUES_MAX);
  return VB_OK;
}

/* analysis.impact_map: the contact whose impacts it lists. */
static int
load_map(vb_loader *ld, const config_setting_t *g, vb_analysis *a)
{
  static const char *const keys[] = {"contact", NULL};
  const char *obj = "analysis 'impact_map'", *name = NULL;
  const vb_scene *sc = ld->scene;
  char valid[LIST_MAX] = "";
  int rc, c;

  if (config_setting_type(g) != CONFIG_TYPE_GROUP)
    return vb_src_fail(ld, g, obj, "'impact_map' must be a group { contact = \"NAME\"; }");
  if ((rc = vb_src_check_keys(ld, g, obj, keys, NULL)) != VB_OK ||
      (rc = vb_src_string(ld, g, obj, "contact", 1, &name)) != VB_OK)
    return rc;
  for (c = 0; c < sc->ncontacts; c++)
    if (!vb_law_info_of(sc->contacts[c].law.kind)->always_engaged)
      vb_list_add(valid, sizeof valid, sc->contacts[c].name);
  c = sc->ncontacts > 0 ? named(sc->contacts[0].name, sizeof sc->contacts[0], sc->ncontacts, name)
                        : -1;
  if (c < 0)
    return vb_src_fail(ld, vb_src_at(g, "contact"), obj,
                       "'contact' names unknown contact '%s' "
                       "(valid: %s)",
                       name, valid[0] ? valid : "none: the scene has no impacting contact");
  if (vb_law_info_of(sc->contacts[c].law.kind)->always_engaged)
    return vb_src_fail(ld, vb_src_at(g, "contact"), obj,
                       "contact '%s' (law '%s') is always engaged: it has no impacts (valid: %s)",
                       name, vb_law_name(sc->contacts[c].law.kind),
                       valid[0] ? valid : "none: the scene has no impacting contact");
  a->map_contact = c;
  return VB_OK;
}

/* A number key of a small group with a default and a condition. */
typedef struct num_key {
  const char *key;
  double *out;
  double lo, hi; /* valid: lo < x < hi (lo_closed: lo <= x) */
  int lo_closed;
  const char *condition;
} num_key;

/* The small groups: period, attractors, lyapunov. */
static int
load_numbers(vb_loader *ld, const config_setting_t *g, const char *obj, const char *const *keys,
             const num_key *nums)
{
  int rc;

  if (config_setting_type(g) != CONFIG_TYPE_GROUP)
    return vb_src_fail(ld, g, obj, "'%s' must be a group { ... }", config_setting_name(g));
  if ((rc = vb_src_check_keys(ld, g, obj, keys, NULL)) != VB_OK)
    return rc;
  for (const num_key *k = nums; k->key; k++) {
    if ((rc = vb_src_number(ld, g, obj, k->key, 0, k->out)) != VB_OK)
      return rc;
    if (vb_src_member(g, k->key) &&
        !((k->lo_closed ? *k->out >= k->lo : *k->out > k->lo) && *k->out < k->hi))
      return vb_src_refuse(ld, g, obj, k->key, k->condition, *k->out);
  }
  return VB_OK;
}

/* analysis.period, analysis.attractors, analysis.lyapunov. */
static int
load_settings(vb_loader *ld, const config_setting_t *root, vb_analysis *a)
{
  static const char *const pkeys[] = {"max", "tolerance", NULL};
  static const char *const akeys[] = {"tolerance", NULL};
  static const char *const lkeys[] = {"perturbation", "renormalise", NULL};
  const config_setting_t *g;
  double pmax = PMAX_DEFAULT, renorm = 1.0;
  int rc;

  if ((g = vb_src_member(root, "period")) != NULL) {
    const num_key nums[] = {{"max", &pmax, 1.0, PMAX_MAX + 0.5, 1, "an integer >= 1 and <= 1024"},
                            {"tolerance", &a->tolerance, 0.0, 1.0, 0, "> 0 and < 1"},
                            {NULL, NULL, 0, 0, 0, NULL}};
    if ((rc = load_numbers(ld, g, "analysis 'period'", pkeys, nums)) != VB_OK)
      return rc;
    if (pmax != floor(pmax))
      return vb_src_refuse(ld, g, "analysis 'period'", "max", "an integer >= 1 and <= 1024", pmax);
  }
  a->pmax = (int)pmax;
  if ((g = vb_src_member(root, "attractors")) != NULL) {
    const num_key nums[] = {{"tolerance", &a->attractor_tolerance, 0.0, 1.0, 0, "> 0 and < 1"},
                            {NULL, NULL, 0, 0, 0, NULL}};
    if ((rc = load_numbers(ld, g, "analysis 'attractors'", akeys, nums)) != VB_OK)
      return rc;
  }
  if ((g = vb_src_member(root, "lyapunov")) != NULL) {
    const num_key nums[] = {{"perturbation", &a->perturbation, 0.0, 1.0, 0, "> 0 and < 1"},
                            {"renormalise", &renorm, 1.0, 1e9, 1, "an integer >= 1"},
                            {NULL, NULL, 0, 0, 0, NULL}};
    if ((rc = load_numbers(ld, g, "analysis 'lyapunov'", lkeys, nums)) != VB_OK)
      return rc;
    if (renorm != floor(renorm))
      return vb_src_refuse(ld, g, "analysis 'lyapunov'", "renormalise", "an integer >= 1", renorm);
    /* the twin keeps no events, so it cannot apply Papetti's corrections */
    for (int c = 0; c < ld->scene->ncontacts; c++)
      if (ld->scene->contacts[c].corrections)
        return vb_src_fail(ld, g, "analysis 'lyapunov'",
                           "contact '%s' has corrections, which the twin cannot apply (valid: "
                           "corrections = [] with lyapunov)",
                           ld->scene->contacts[c].name);
    a->lyapunov = 1;
  }
  a->renormalise = (long)renorm;
  if ((rc = vb_src_number(ld, root, "analysis", "grazing", 0, &a->grazing)) != VB_OK)
    return rc;
  if (!(a->grazing >= 0.0 && a->grazing < 1.0))
    return vb_src_refuse(ld, root, "analysis", "grazing", ">= 0 and < 1", a->grazing);
  return VB_OK;
}

/* Load the analysis block. */
int
vb_load_analysis(vb_loader *ld, const config_setting_t *g)
{
  static const char *const keys[] = {"section",  "impact_map", "period", "attractors",
                                     "lyapunov", "grazing",    NULL};
  const config_setting_t *m;
  vb_analysis *a;
  int rc;

  if (config_setting_type(g) != CONFIG_TYPE_GROUP)
    return vb_src_fail(ld, g, "top level", "'analysis' must be a group { ... }");
  if ((rc = vb_src_check_keys(ld, g, "analysis", keys, NULL)) != VB_OK)
    return rc;
  a = ld->scene->analysis = calloc(1, sizeof *a);
  if (!a)
    return vb_errf(ld->err, ld->errlen, VB_ENOMEM, "%s: out of memory loading the scene", ld->path);
  a->line = config_setting_source_line(g);
  a->map_contact = -1;
  a->tolerance = 0.0;           /* 0: from the run's impacts (vb_analysis_tolerance) */
  a->attractor_tolerance = 0.0; /* 0: from the file's period tolerances */
  a->perturbation = PERTURBATION_DEFAULT;
  if ((m = vb_src_member(g, "section")) != NULL && (rc = load_section(ld, m, a)) != VB_OK)
    return rc;
  if ((m = vb_src_member(g, "impact_map")) != NULL && (rc = load_map(ld, m, a)) != VB_OK)
    return rc;
  if ((rc = load_settings(ld, g, a)) != VB_OK)
    return rc;
  if (!a->section && (vb_src_member(g, "period") || vb_src_member(g, "attractors")))
    return vb_src_fail(ld,
                       vb_src_member(g, "period") ? vb_src_member(g, "period")
                                                  : vb_src_member(g, "attractors"),
                       "analysis",
                       "'period' and 'attractors' classify the section: they need "
                       "'section' (valid: add section = { ... })");
  if (!a->section && a->map_contact < 0 && !a->lyapunov)
    return vb_src_fail(ld, g, "analysis",
                       "the block asks for nothing (valid: section, "
                       "impact_map, lyapunov)");
  return VB_OK;
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
