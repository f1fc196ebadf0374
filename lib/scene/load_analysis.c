/* load_analysis.c - the `analysis` block of a scene file (doc/scene-file.md,
 * "Analysis"; the trackers that follow it during a run are run/analysis.c):
 * the drive whose period strobes the section, the section's points and
 * phase, the impact map, the period and attractor tolerances and the
 * Lyapunov settings, each checked with "file:line: analysis ...: what
 * (valid: ...)". */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run/run.h"
#include "scene.h"

/* Most section values (samples times points) one scene may hold. */
#define SECTION_VALUES_MAX 1e8

/* Defaults and limits of the block's keys. */
#define PMAX_DEFAULT         32
#define PMAX_MAX             1024
#define PERTURBATION_DEFAULT 0.0 /* 0: from the contacts (vb_lyapunov_perturbation) */

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
    /* its renormalisation re-derives the contacts' histories along u */
    for (int c = 0; c < ld->scene->ncontacts; c++)
      if (ld->scene->contacts[c].geometry == VB_GEOMETRY_CIRCULAR ||
          ld->scene->contacts[c].ntrack > 0)
        return vb_src_fail(ld, g, "analysis 'lyapunov'",
                           "contact '%s' is a %s, which the twin cannot renormalise yet "
                           "(valid: lyapunov without circular clearances or moving contact "
                           "points)",
                           ld->scene->contacts[c].name,
                           ld->scene->contacts[c].ntrack > 0 ? "moving contact point"
                                                             : "circular clearance");
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
