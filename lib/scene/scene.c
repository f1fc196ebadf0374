/* scene.c - loading and validation of scene files.
 *
 * A scene file is a libconfig document with the top-level keys scene,
 * bodies, contacts, forces and record (doc/scene-file.md).  Everything is
 * checked once, here and in load_body.c and load_contact.c: an unknown
 * key, a wrong type or a value out of range is an error with the file and
 * line, never a silent fallback to a default. */
#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scene.h"
#include "island/island.h"
#include "run/run.h"

/* Largest number of steps a scene may ask for (keeps lround defined). */
#define MAX_STEPS 1e15

/* Load the scene group: name, fs, duration, gravity. */
static int
load_scene_group(vb_loader *ld, const config_setting_t *g)
{
  static const char *const keys[] = {"name", "fs", "duration", "gravity", NULL};
  const char *obj = "scene", *name = NULL;
  vb_scene *sc = ld->scene;
  double steps;
  char num[32];
  int rc;

  if ((rc = vb_src_check_keys(ld, g, obj, keys, NULL)) != VB_OK ||
      (rc = vb_src_string(ld, g, obj, "name", 1, &name)) != VB_OK)
    return rc;
  if (name[0] == '\0')
    return vb_src_fail(ld, vb_src_at(g, "name"), obj, "'name' must not be empty");
  if (strlen(name) >= VB_NAME_MAX)
    return vb_src_fail(ld, vb_src_at(g, "name"), obj,
                       "'name' is too long (valid: at most %d characters)", VB_NAME_MAX - 1);
  strcpy(sc->name, name);
  if ((rc = vb_src_number(ld, g, obj, "fs", 1, &sc->fs)) != VB_OK)
    return rc;
  if (!(sc->fs > 0))
    return vb_src_refuse(ld, g, obj, "fs", "> 0", sc->fs);
  if ((rc = vb_src_number(ld, g, obj, "duration", 1, &sc->duration)) != VB_OK)
    return rc;
  if (!(sc->duration > 0))
    return vb_src_refuse(ld, g, obj, "duration", "> 0", sc->duration);
  steps = sc->duration * sc->fs;
  if (!(steps >= 0.5))
    return vb_src_fail(ld, vb_src_at(g, "duration"), obj,
                       "'duration' * 'fs' must give at least one step (got %s)",
                       vb_number_text(steps, num, sizeof num));
  if (!(steps <= MAX_STEPS))
    return vb_src_fail(ld, vb_src_at(g, "duration"), obj,
                       "'duration' * 'fs' must give at most %g steps (got %s)", MAX_STEPS,
                       vb_number_text(steps, num, sizeof num));
  sc->gravity = 0.0;
  return vb_src_number(ld, g, obj, "gravity", 0, &sc->gravity);
}

/* Load record.signals: a list of glob strings (the paths they match are
 * checked once the bodies and contacts are known, check_signals). */
static int
load_signals(vb_loader *ld, const config_setting_t *m)
{
  const char *obj = "record";
  vb_scene *sc = ld->scene;
  int n;

  if (config_setting_type(m) != CONFIG_TYPE_LIST && config_setting_type(m) != CONFIG_TYPE_ARRAY)
    return vb_src_fail(ld, m, obj,
                       "'signals' must be a list of glob strings, such as "
                       "[\"contacts/*/force\", \"energy/total\"] ([] for events only)");
  n = config_setting_length(m);
  sc->record_select = 1;
  sc->record_globs = calloc((size_t)n + 1, sizeof *sc->record_globs);
  if (sc->record_globs == NULL)
    return vb_errf(ld->err, ld->errlen, VB_ENOMEM, "out of memory loading record.signals");
  for (int i = 0; i < n; i++) {
    const config_setting_t *e = config_setting_get_elem(m, (unsigned)i);
    const char *glob = config_setting_get_string(e);
    if (glob == NULL || glob[0] == '\0')
      return vb_src_fail(ld, e, obj,
                         "'signals' element %d must be a non-empty string "
                         "(valid: a glob such as \"contacts/*/force\")",
                         i + 1);
    if ((sc->record_globs[i] = strdup(glob)) == NULL)
      return vb_errf(ld->err, ld->errlen, VB_ENOMEM, "out of memory loading record.signals");
    sc->nrecord_globs = i + 1;
  }
  return VB_OK;
}

/* Load the record group: every, modes, signals. */
static int
load_record(vb_loader *ld, const config_setting_t *g)
{
  static const char *const keys[] = {"every", "modes", "signals", NULL};
  const char *obj = "record";
  const config_setting_t *m;
  int rc;

  if ((rc = vb_src_check_keys(ld, g, obj, keys, NULL)) != VB_OK ||
      (rc = vb_src_integer(ld, g, obj, "every", 0, &ld->scene->record_every)) != VB_OK)
    return rc;
  if (ld->scene->record_every < 1)
    return vb_src_refuse(ld, g, obj, "every", ">= 1", (double)ld->scene->record_every);
  m = vb_src_member(g, "modes");
  if (m != NULL) {
    if (config_setting_type(m) != CONFIG_TYPE_BOOL)
      return vb_src_fail(ld, m, obj, "'modes' must be true or false");
    ld->scene->record_modes = config_setting_get_bool(m);
  }
  m = vb_src_member(g, "signals");
  return m != NULL ? load_signals(ld, m) : VB_OK;
}

/* Whether a glob of record.signals selects a path (as vb_scene_records:
 * by fnmatch(3), or as the path itself). */
static int
glob_hits(const char *glob, const char *path)
{
  return strcmp(glob, path) == 0 || fnmatch(glob, path, 0) == 0;
}

/* Add a signal path to the list of valid ones; the points of a
 * distributed contact ("NAME[k]", on its body and as contacts) once, as
 * "NAME[K]" (862 of them would fill the list). */
static void
list_path(char *valid, size_t size, const char *path)
{
  const char *open = strchr(path, '[');
  char item[4 * VB_NAME_MAX + 32];

  if (!open) {
    vb_list_add(valid, size, path);
    return;
  }
  if (strncmp(open, "[0]", 3) == 0) {
    snprintf(item, sizeof item, "%.*s[K]%s", (int)(open - path), path, open + 3);
    vb_list_add(valid, size, item);
  }
}

/* Every glob of record.signals must match some signal of the scene; the
 * message lists the valid paths (as many as fit). */
static int
check_signals(vb_loader *ld, const config_setting_t *root)
{
  const vb_scene *sc = ld->scene;
  const config_setting_t *rec = vb_src_member(root, "record");
  const config_setting_t *list = rec ? vb_src_member(rec, "signals") : NULL;
  char path[4 * VB_NAME_MAX + 32], valid[LIST_MAX];
  int nt;
  const vb_signal *t = vb_signal_table(&nt);

  if (!sc->record_select || list == NULL)
    return VB_OK;
  for (int g = 0; g < sc->nrecord_globs; g++) {
    int hit = 0;
    valid[0] = '\0';
    for (int r = 0; r < nt && !hit; r++)
      for (int i = 0, n = vb_signal_count(&t[r], sc); i < n && !hit; i++) {
        if (!vb_signal_applies(&t[r], sc, i))
          continue; /* a tangential row where the scene has none (issue 30) */
        /* a distributed contact: its whole path too */
        if (vb_signal_block_path(&t[r], sc, i, path, sizeof path) >= 0) {
          hit = glob_hits(sc->record_globs[g], path);
          if (sc->contacts[i].group_point == 0)
            vb_list_add(valid, sizeof valid, path);
        }
        vb_signal_path(&t[r], sc, i, path, sizeof path);
        hit = hit || glob_hits(sc->record_globs[g], path);
        list_path(valid, sizeof valid, path);
      }
    if (!hit)
      return vb_src_fail(ld, config_setting_get_elem(list, (unsigned)g), "record",
                         "'signals' glob \"%s\" matches no signal of the scene (valid: %s)",
                         sc->record_globs[g], valid);
  }
  return VB_OK;
}

/* The element of list `top` of the document that loaded scene object i,
 * or the root when there is none. */
static const config_setting_t *
element(const config_setting_t *root, const char *top, int i)
{
  const config_setting_t *list = vb_src_member(root, top);
  const config_setting_t *e = list ? config_setting_get_elem(list, (unsigned)i) : NULL;

  return e != NULL ? e : root;
}

/* The largest displacement body b can reach by free motion over the
 * scene: its start, initial speed and gravity (and a drive's amplitude),
 * m; the scale of every compression that involves it. */
static double
reach(const vb_scene *sc, const vb_body *b)
{
  double T = sc->duration, r = 0.0;

  if (b->kind == VB_BODY_WALL) /* a drive's scale, a profile's samples aside */
    return fabs(b->u0) + fabs(b->drive.amplitude);
  for (int j = 0; j < b->nmodes; j++)
    r += fabs(b->q0[j]) + fabs(b->dq0[j]) * T + 0.5 * fabs(sc->gravity * b->gravity[j]) * T * T;
  return r;
}

/* Refuse the inputs whose overflow can be seen before running (issue 10):
 * a body's initial energy, the energy gravity gives it over the duration
 * (m (g T)^2 / 2), and a contact's force and potential at the largest
 * compression its bodies can reach (k L^alpha, k L^(alpha+1)) must be
 * finite.  What only the dynamics can show (an under-resolved stiff
 * contact) is reported by the run as diverged or not converged. */
static int
check_overflow(vb_loader *ld, const config_setting_t *root)
{
  const vb_scene *sc = ld->scene;
  double T = sc->duration;
  char num[32];

  for (int i = 0; i < sc->nbodies; i++) {
    const vb_body *b = &sc->bodies[i];
    const config_setting_t *g = element(root, "bodies", i);
    char obj[OBJECT_MAX];
    snprintf(obj, sizeof obj, "body '%s'", b->name);
    for (int j = 0; j < b->nmodes; j++) {
      double M = b->modal_mass[j], w = 2.0 * M_PI * b->freq[j];
      double fall = sc->gravity * b->gravity[j] * T;
      if (!isfinite(0.5 * M * b->dq0[j] * b->dq0[j]) ||
          !isfinite(0.5 * M * w * w * b->q0[j] * b->q0[j]))
        return vb_src_fail(ld, g, obj,
                           "its initial energy (mode %d) is not finite (valid: "
                           "smaller start values)",
                           j);
      if (!isfinite(0.5 * M * fall * fall))
        return vb_src_fail(ld, vb_src_at(vb_src_member(root, "scene"), "gravity"), "scene",
                           "'gravity' = %s overflows: the energy it gives body '%s' over "
                           "the duration, m (g T)^2/2, is not finite (valid: a smaller "
                           "|gravity| or duration)",
                           vb_number_text(sc->gravity, num, sizeof num), b->name);
    }
  }
  for (int c = 0; c < sc->ncontacts; c++) {
    const vb_contact *ct = &sc->contacts[c];
    const config_setting_t *g = element(root, "contacts", ct->element);
    double L = reach(sc, &sc->bodies[ct->a]) + reach(sc, &sc->bodies[ct->b]) + fabs(ct->gap) +
               fabs(ct->gap_drive.amplitude);
    const vb_law *law = &ct->law;
    char obj[OBJECT_MAX + 64], who[VB_LABEL_MAX];
    snprintf(obj, sizeof obj, "contact %s", vb_contact_label(sc, ct, who, sizeof who));
    if (L > 0.0 && (!isfinite(law->k * pow(L, law->alpha)) ||
                    !isfinite(law->k / (law->alpha + 1.0) * pow(L, law->alpha + 1.0))))
      return vb_src_fail(ld, vb_src_at(g, "k"), obj,
                         "'k' = %s overflows: the force or "
                         "potential at a compression of %.3g m, which the bodies can reach, "
                         "is not finite (valid: a smaller k or alpha)",
                         vb_number_text(law->k, num, sizeof num), L);
  }
  return VB_OK;
}

/* Load a whole parsed document into ld->scene. */
static int
load_root(vb_loader *ld, const config_setting_t *root)
{
  static const char *const keys[] = {"scene",  "bodies", "contacts", "forces",
                                     "record", "analysis", NULL};
  const config_setting_t *m;
  char valid[LIST_MAX];
  int i, n = config_setting_length(root), rc;

  vb_key_list(keys, valid, sizeof valid);
  for (i = 0; i < n; i++) {
    const char *key;

    m = config_setting_get_elem(root, (unsigned)i);
    key = config_setting_name(m);
    if (strcmp(key, "sweep") == 0)
      return vb_src_fail(ld, m, "sweep",
                         "a sweep makes this file a study of several scenes (valid: "
                         "load it with vb_study_load)");
    if (!vb_has_key(keys, key))
      return vb_src_fail(ld, m, "top level", "unknown key '%s' (valid: %s)", key, valid);
  }
  m = vb_src_member(root, "scene");
  if (m == NULL)
    return vb_src_fail(ld, root, "top level", "missing required key 'scene'");
  if (config_setting_type(m) != CONFIG_TYPE_GROUP)
    return vb_src_fail(ld, m, "top level", "'scene' must be a group { ... }");
  if ((rc = load_scene_group(ld, m)) != VB_OK)
    return rc;
  ld->scene->record_every = 1;
  m = vb_src_member(root, "record");
  if (m != NULL) {
    if (config_setting_type(m) != CONFIG_TYPE_GROUP)
      return vb_src_fail(ld, m, "top level", "'record' must be a group { ... }");
    if ((rc = load_record(ld, m)) != VB_OK)
      return rc;
  }
  m = vb_src_member(root, "bodies");
  if (m == NULL)
    return vb_src_fail(ld, root, "top level", "missing required key 'bodies'");
  if ((rc = vb_load_bodies(ld, m)) != VB_OK)
    return rc;
  m = vb_src_member(root, "contacts");
  if (m != NULL && (rc = vb_load_contacts(ld, m)) != VB_OK)
    return rc;
  m = vb_src_member(root, "forces");
  if (m != NULL && (rc = vb_load_forces(ld, m)) != VB_OK)
    return rc;
  /* the tangential direction and friction (issue 30) */
  if ((rc = vb_load_friction(ld, root)) != VB_OK)
    return rc;
  m = vb_src_member(root, "analysis");
  if (m != NULL && (rc = vb_load_analysis(ld, m)) != VB_OK)
    return rc;
  int bad = -1;
  if ((rc = vb_drop_aliased_modes(ld->scene, &bad)) == VB_EINVAL) {
    const vb_body *b = &ld->scene->bodies[bad];
    double low = b->wfreq[0];
    for (int j = 1; j < b->nwmodes; j++)
      low = b->wfreq[j] < low ? b->wfreq[j] : low;
    return vb_errf(ld->err, ld->errlen, VB_EINVAL,
                   "%s:%d: body '%s': every one of its %d modes along w is at or above fs/2 = "
                   "%g Hz, where their step cannot resolve them (valid: fs above %g Hz, twice "
                   "its lowest, %g Hz)",
                   ld->path, b->line, b->name, b->nwmodes, 0.5 * ld->scene->fs, 2.0 * low, low);
  }
  if (rc != VB_OK)
    return vb_errf(ld->err, ld->errlen, VB_ENOMEM, "%s: out of memory loading the scene", ld->path);
  if ((rc = check_signals(ld, root)) != VB_OK)
    return rc;
  return check_overflow(ld, root);
}

/* Impact rate at which a contact's analytic predictions must be finite
 * (m/s): a denormal k (4.9e-324) or an overflowing alpha (1e308) makes
 * them inf or NaN at any rate. */
#define PREDICT_CHECK_RATE 1.0

/* Refuse a contact whose law parameters make its analytic predictions
 * (x_max, v_out, contact time: the events' *_pred columns) non-finite,
 * rather than run it to "done" with inf predictions. */
static int
check_predictions(const vb_scene *sc, const vb_model *md, char *err, size_t errlen)
{
  for (int c = 0; c < sc->ncontacts; c++) {
    const vb_contact *ct = &sc->contacts[c];
    const vb_law_info *info = vb_law_info_of(ct->law.kind);
    double m = md->islands[md->contact_island[c]].meff[md->contact_local[c]];
    vb_prediction pr;
    char what[256] = "", num[32], who[VB_LABEL_MAX];
    size_t used = 0;

    if (!info || !info->papetti || !isfinite(m))
      continue;
    vb_law_predict(&ct->law, m, PREDICT_CHECK_RATE, &pr);
    /* (v_out_exact alone may be NaN: beyond the double range for a large
     * mu v_in, analytic.c; it is no sign of a broken parameter) */
    if (isfinite(pr.x_max) && isfinite(pr.duration) && !isinf(pr.v_out_exact))
      continue;
    for (const vb_law_param *p = info->params; p && p->key && used < sizeof what; p++)
      used += (size_t)snprintf(what + used, sizeof what - used, "%s%s = %s", used ? ", " : "",
                               p->key, vb_number_text(vb_law_param_value(&ct->law, p), num, sizeof num));
    return vb_errf(err, errlen, VB_EINVAL,
                   "%s:%d: contact %s: %s give non-finite analytic predictions (x_max %g m, "
                   "v_out %g m/s, contact time %g s at an impact of %g m/s, effective mass %g kg) "
                   "(valid: law parameters of normal size, whose predictions are finite)",
                   sc->path, ct->line, vb_contact_label(sc, ct, who, sizeof who), what, pr.x_max,
                   pr.v_out_exact, pr.duration,
                   PREDICT_CHECK_RATE, m);
  }
  return VB_OK;
}

/* Validate a parsed document into a new scene; the common part of all
 * loaders. */
static int
load_parsed(const vb_source *src, const config_t *cfg, int shared, vb_scene **out, char *err,
            size_t errlen)
{
  vb_loader ld;
  vb_scene *sc;
  int rc;

  *out = NULL;
  sc = calloc(1, sizeof *sc);
  /* a study's scenes share its text: a copy each made N scenes of a
   * `values` list of N values cost N^2 */
  if (sc != NULL && shared) {
    sc->input = src->text;
    sc->input_shared = 1;
  }
  if (sc == NULL || (sc->path = strdup(src->path)) == NULL ||
      (!shared && (sc->input = strdup(src->text)) == NULL)) {
    vb_scene_free(sc);
    return vb_errf(err, errlen, VB_ENOMEM, "%s: out of memory loading the scene", src->path);
  }
  vb_loader_init(&ld, src, err, errlen, sc);
  rc = load_root(&ld, config_root_setting(cfg));
  /* a data file edited since scene 0 read it: this scene would run from
   * other bytes than the finished ones and than the output's `inputs` say */
  if (ld.changed != NULL)
    rc = vb_errf(err, errlen, VB_EINVAL,
                 "%s: '%s' changed while the study ran (CRC-32 %08lx when the study was "
                 "loaded, %08lx now): its scenes would mix the two; restore it and run "
                 "again with --resume, or run again with --restart",
                 src->path, ld.changed, ld.changed_then, ld.changed_now);
  vb_loader_clear(&ld);
  if (rc == VB_OK && vb_record_index(sc) != VB_OK)
    rc = vb_errf(err, errlen, VB_ENOMEM, "%s: out of memory loading the scene", src->path);
  if (rc == VB_OK) {
    /* islands: one family each, every mode steppable at this rate */
    vb_model *model;
    rc = vb_model_compile_queries(sc, &model, err, errlen);
    if (rc == VB_OK)
      rc = check_predictions(sc, model, err, errlen);
    vb_model_free(model);
  }
  if (rc != VB_OK) {
    vb_scene_free(sc);
    return rc;
  }
  *out = sc;
  return VB_OK;
}

/* Parse and validate a source. */
static int
load_source(const vb_source *src, vb_scene **out, char *err, size_t errlen)
{
  config_t cfg;
  int rc;

  *out = NULL;
  rc = vb_source_parse(src, &cfg, err, errlen);
  if (rc == VB_OK)
    rc = load_parsed(src, &cfg, 0, out, err, errlen);
  config_destroy(&cfg);
  return rc;
}

/* Load one scene of a study from its parsed document, overrides applied:
 * the sweep block is dropped and the rest validated as a plain scene. */
int
vb_scene_load_config(const vb_source *src, config_t *cfg, vb_scene **out, char *err, size_t errlen)
{
  config_setting_t *root = config_root_setting(cfg);

  if (config_setting_get_member(root, "sweep") != NULL)
    config_setting_remove(root, "sweep");
  return load_parsed(src, cfg, 1, out, err, errlen);
}

/* Load and validate a scene file. */
int
vb_scene_load(const char *path, vb_scene **out, char *err, size_t errlen)
{
  vb_source src;
  int rc;

  *out = NULL;
  rc = vb_source_read(path, &src, err, errlen);
  if (rc != VB_OK)
    return rc;
  rc = load_source(&src, out, err, errlen);
  vb_source_clear(&src);
  return rc;
}

/* Load and validate a scene from text, named `path` in messages. */
int
vb_scene_load_string(const char *text, const char *path, vb_scene **out, char *err, size_t errlen)
{
  vb_source src;
  int rc;

  *out = NULL;
  rc = vb_source_copy(text, path, &src, err, errlen);
  if (rc != VB_OK)
    return rc;
  rc = load_source(&src, out, err, errlen);
  vb_source_clear(&src);
  return rc;
}

/* Free a scene; NULL is a no-op. */
void
vb_scene_free(vb_scene *scene)
{
  if (scene == NULL)
    return;
  free(scene->path);
  if (!scene->input_shared)
    free(scene->input);
  for (int i = 0; scene->bodies && i < scene->nbodies; i++)
    vb_body_clear(&scene->bodies[i]);
  for (int i = 0; scene->contacts && i < scene->ncontacts; i++)
    vb_drive_clear(&scene->contacts[i].gap_drive);
  free(scene->bodies);
  free(scene->forces);
  free(scene->contacts);
  for (int i = 0; scene->record_globs && i < scene->nrecord_globs; i++)
    free(scene->record_globs[i]);
  free(scene->record_globs);
  free(scene->point_first);
  free(scene->modes_first);
  vb_analysis_free(scene->analysis);
  free(scene);
}
