/* study.c - studies: a scene file with an optional sweep, expanded into
 * scenes, validated, and run in parallel over scenes into one output.
 *
 * Every scene is built from a fresh parse of the study text with the
 * sweep's values set in the parsed document, then loaded by the normal
 * scene loader: a swept scene gets exactly the checks and messages of a
 * plain scene.  The runner is in study_run.c. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "study.h"
#include "vibro.h"

struct vb_study {
  vb_source src;
  char *inputs;       /* "PATH CRC32\n" of every file the load read (vb_inputs_text) */
  config_t doc;       /* the text parsed once (read only; scenes copy it) */
  int parsed;         /* doc holds a parse */
  vb_sweep *sweep;    /* NULL without a sweep */
  const char **units; /* [nparams] SI units of each parameter (static text) */
  long *checked;      /* [nchecked] scenes validated one by one, sorted; NULL: all */
  long nchecked;
  long nscenes;
  vb_scene *first;     /* scene 0 */
  double record_max;   /* largest recording of a scene, bytes */
  double record_total; /* all recordings, bytes */
};

/* Free a study; NULL is a no-op. */
void
vb_study_free(vb_study *study)
{
  if (!study)
    return;
  vb_source_clear(&study->src);
  free(study->inputs);
  if (study->parsed)
    config_destroy(&study->doc);
  vb_sweep_free(study->sweep);
  free(study->units);
  free(study->checked);
  vb_scene_free(study->first);
  free(study);
}

/* Append " (scene I: path = value, ...)" to a message about scene I. */
static void
name_values(const vb_study *st, long index, char *err, size_t errlen)
{
  size_t len;
  char num[32];
  int p;

  if (!st->sweep || !err || errlen == 0)
    return;
  len = strlen(err);
  snprintf(err + len, errlen - len, " (scene %ld:", index);
  for (p = 0; p < vb_sweep_nparams(st->sweep); p++) {
    len = strlen(err);
    snprintf(err + len, errlen - len, "%s %s = %s", p ? "," : "", vb_sweep_path(st->sweep, p),
             vb_number_text(vb_sweep_value(st->sweep, index, p), num, sizeof num));
  }
  len = strlen(err);
  snprintf(err + len, errlen - len, ")");
}

/* A study's document, for building its scenes one after another (one per
 * thread): a copy of the study's parse without the sweep block, into
 * whose settings each scene sets its values before it loads.  Parsing the
 * whole text for every scene made N scenes of a `values` list of N values
 * cost N^2. */
struct vb_study_doc {
  const vb_study *st;
  config_t cfg;
  config_setting_t **target; /* [nparams] the setting each parameter sets */
  unsigned int *line;        /* [nparams] where the parameter is written */
  const char **file;         /* [nparams] (libconfig's name, NULL: the top file) */
  vb_predict_memo memo;      /* the contacts whose predictions its scenes checked */
};

/* Free a document; NULL is a no-op. */
void
vb_study_doc_free(vb_study_doc *d)
{
  if (!d)
    return;
  config_destroy(&d->cfg);
  free(d->target);
  free(d);
}

/* Copy setting `from` and what it holds into `to` (a group, list or array;
 * the root when from is the root); -1 when out of memory.  Names, types,
 * values, formats, lines and file names (libconfig's, owned by the
 * study's parse) are kept: the loader sees what a parse would give. */
static int
copy_setting(config_setting_t *to, const config_setting_t *from, int root)
{
  int type = config_setting_type(from);
  config_setting_t *s = root ? to : config_setting_add(to, config_setting_name(from), type);

  if (s == NULL)
    return -1;
  s->format = from->format;
  s->line = from->line;
  s->file = from->file;
  switch (type) {
  case CONFIG_TYPE_INT: return config_setting_set_int(s, config_setting_get_int(from)) ? 0 : -1;
  case CONFIG_TYPE_INT64:
    return config_setting_set_int64(s, config_setting_get_int64(from)) ? 0 : -1;
  case CONFIG_TYPE_FLOAT:
    return config_setting_set_float(s, config_setting_get_float(from)) ? 0 : -1;
  case CONFIG_TYPE_BOOL: return config_setting_set_bool(s, config_setting_get_bool(from)) ? 0 : -1;
  case CONFIG_TYPE_STRING:
    return config_setting_set_string(s, config_setting_get_string(from)) ? 0 : -1;
  default: break;
  }
  for (int i = 0; i < config_setting_length(from); i++) {
    const config_setting_t *e = config_setting_get_elem(from, (unsigned)i);
    /* the sweep block is the study's, not a scene's */
    if (root && strcmp(config_setting_name(e), "sweep") == 0)
      continue;
    if (copy_setting(s, e, 0) < 0)
      return -1;
  }
  return 0;
}

/* Copy the study's parse without its sweep block and find the setting of
 * every parameter (what vb_scene_load_config would see). */
int
vb_study_doc_open(const vb_study *st, vb_study_doc **out, char *err, size_t errlen)
{
  int np = st->sweep ? vb_sweep_nparams(st->sweep) : 0, rc, p;
  vb_study_doc *d = calloc(1, sizeof *d);
  size_t each = sizeof *d->target + sizeof *d->line + sizeof *d->file;

  *out = NULL;
  if (!d || !(d->target = malloc(((size_t)np + 1) * each))) {
    free(d);
    return vb_errf(err, errlen, VB_ENOMEM, "%s: out of memory building a scene", st->src.path);
  }
  d->st = st;
  d->file = (const char **)(d->target + np + 1);
  d->line = (unsigned int *)(d->file + np + 1);
  config_init(&d->cfg);
  config_set_options(&d->cfg, config_get_options(&st->doc));
  rc = copy_setting(config_root_setting(&d->cfg), config_root_setting(&st->doc), 1) < 0
           ? vb_errf(err, errlen, VB_ENOMEM, "%s: out of memory building a scene", st->src.path)
           : VB_OK;
  /* (reads only: other threads copy the same tree) */
  const config_setting_t *sweep = config_setting_get_member(config_root_setting(&st->doc), "sweep");
  const config_setting_t *params = sweep ? config_setting_get_member(sweep, "params") : NULL;
  for (p = 0; p < np && rc == VB_OK; p++) {
    const config_setting_t *origin =
        config_setting_get_member(config_setting_get_elem(params, (unsigned)p), "path");

    rc = vb_sweep_target(&st->src, &d->cfg, vb_sweep_path(st->sweep, p), origin, &d->target[p],
                         err, errlen);
    d->line[p] = origin->line;
    d->file[p] = origin->file;
  }
  if (rc != VB_OK) {
    vb_study_doc_free(d);
    return rc;
  }
  *out = d;
  return VB_OK;
}

/* Build scene `index` from a parsed document: set the swept values, load. */
int
vb_study_doc_scene(vb_study_doc *d, long index, vb_scene **out, char *err, size_t errlen)
{
  const vb_study *st = d->st;
  int rc, p;

  *out = NULL;
  if (index < 0 || index >= st->nscenes)
    return vb_errf(err, errlen, VB_EINVAL, "%s: no scene %ld (the study has %ld)", st->src.path,
                   index, st->nscenes);
  for (p = 0; st->sweep && p < vb_sweep_nparams(st->sweep); p++)
    vb_sweep_assign_at(d->target[p], vb_sweep_value(st->sweep, index, p), d->line[p], d->file[p]);
  rc = vb_scene_load_config(&st->src, &d->cfg, &d->memo, out, err, errlen);
  if (rc == VB_EINVAL)
    name_values(st, index, err, errlen);
  return rc;
}

/* Build scene `index`: parse, set the swept values, load. */
int
vb_study_scene(const vb_study *st, long index, vb_scene **out, char *err, size_t errlen)
{
  vb_study_doc *d;
  int rc;

  *out = NULL;
  if (index < 0 || index >= st->nscenes)
    return vb_errf(err, errlen, VB_EINVAL, "%s: no scene %ld (the study has %ld)", st->src.path,
                   index, st->nscenes);
  rc = vb_study_doc_open(st, &d, err, errlen);
  if (rc == VB_EINVAL)
    name_values(st, index, err, errlen);
  if (rc != VB_OK)
    return rc;
  rc = vb_study_doc_scene(d, index, out, err, errlen);
  vb_study_doc_free(d);
  return rc;
}

/* Studies of up to this many scenes are validated scene by scene; larger
 * ones through the scenes that stand for them (vb_sweep_sample), with
 * this many values of a long parameter. */
#define CHECK_ALL_MAX 20000L
#define SAMPLE_VALUES 1024L

/* How scene sc differs from scene 0 s0 in what a sweep may not change
 * (the file's shape: its bodies' kinds, modes and points, its contacts),
 * one phrase into buf; 0 when it does not. */
static int
shape_differs(const vb_scene *s0, const vb_scene *sc, char *buf, size_t len)
{
  if (sc->nbodies != s0->nbodies || sc->ncontacts != s0->ncontacts) {
    snprintf(buf, len, "it has %d bodies and %d contacts, scene 0 %d and %d", sc->nbodies,
             sc->ncontacts, s0->nbodies, s0->ncontacts);
    return 1;
  }
  for (int b = 0; b < sc->nbodies; b++) {
    const vb_body *x = &sc->bodies[b], *y = &s0->bodies[b];
    if (x->kind != y->kind ||
        (x->kind == VB_BODY_MODAL && (x->nmodes != y->nmodes || x->npoints != y->npoints))) {
      snprintf(buf, len, "body '%s' has %d modes and %d points, in scene 0 %d and %d%s", x->name,
               x->nmodes, x->npoints, y->nmodes, y->npoints,
               x->ndropped != y->ndropped ? " (its scheme drops the modes at or above fs/2: "
                                            "give it only modes below the sweep's lowest fs/2, "
                                            "or use a three-level scheme, which keeps them all)"
                                          : "");
      return 1;
    }
  }
  for (int c = 0; c < sc->ncontacts; c++)
    if (strcmp(sc->contacts[c].name, s0->contacts[c].name) != 0) {
      snprintf(buf, len, "its contact %d is '%s', scene 0's '%s'", c, sc->contacts[c].name,
               s0->contacts[c].name);
      return 1;
    }
  return 0;
}

/* Validate scenes idx[0..n) (idx NULL: from..from+n-1) in parallel: the smallest
 * failing index into *bad (else left), the largest recording into *rmax
 * and the sum of the recordings into *rsum. */
static void
check_indices(const vb_study *st, const long *idx, long from, long n, long *bad, double *rmax,
              double *rsum)
{
  long i, b = *bad;
  double mx = *rmax, sum = 0.0;

#ifdef _OPENMP
#pragma omp parallel reduction(min : b) reduction(max : mx) reduction(+ : sum) if (n > 1)
#endif
  {
    /* one parse per thread (its scenes reuse it); none when there is no
     * scene to check (a study of one scene: the copy of 10^5 bodies' tree
     * was a tenth of their check) */
    vb_study_doc *d = NULL;
    char e[8];
    int open = n > 0 && vb_study_doc_open(st, &d, e, sizeof e) == VB_OK;

#ifdef _OPENMP
#pragma omp for schedule(dynamic, 16)
#endif
    for (i = 0; i < n; i++) {
      long index = idx ? idx[i] : from + i;
      vb_scene *sc;
      double bytes;

      if (!open || vb_study_doc_scene(d, index, &sc, e, sizeof e) != VB_OK) {
        b = index < b ? index : b;
        continue;
      }
      if (shape_differs(st->first, sc, e, sizeof e)) /* (e: too small to keep the text) */
        b = index < b ? index : b;
      bytes = vb_scene_record_bytes(sc);
      mx = bytes > mx ? bytes : mx;
      sum += bytes;
      vb_scene_free(sc);
    }
    vb_study_doc_free(d);
  }
  *bad = b;
  *rmax = mx;
  *rsum = sum;
}

/* Validate every scene of the study but scene 0 (loaded already), or for
 * a sweep of more than CHECK_ALL_MAX scenes those that stand for it
 * (vb_sweep_sample says why they suffice; every scene is validated again
 * as it is built at run time).  Sets record_max and record_total (the
 * latter, for a sampled sweep, the sample's mean times the scene count). */
static int
check_scenes(vb_study *st, char *err, size_t errlen)
{
  double bytes0 = vb_scene_record_bytes(st->first), rmax = bytes0, rsum = 0.0;
  long bad = st->nscenes, *idx = NULL, n;
  int rc = VB_OK;

  if (st->nscenes <= CHECK_ALL_MAX) {
    /* scene 0 is st->first: building it again compiled its model again
     * (seconds for an island of thousands of contacts) */
    check_indices(st, NULL, 1, st->nscenes - 1, &bad, &rmax, &rsum);
    st->record_total = rsum + bytes0;
    st->nchecked = st->nscenes;
  } else {
    n = vb_sweep_sample(st->sweep, SAMPLE_VALUES, &idx);
    if (n < 0)
      return vb_errf(err, errlen, VB_ENOMEM, "%s: out of memory checking the study", st->src.path);
    check_indices(st, idx, 0, n, &bad, &rmax, &rsum);
    st->record_total = rsum / (double)n * (double)st->nscenes;
    st->checked = idx;
    st->nchecked = n;
  }
  st->record_max = rmax;
  if (bad < st->nscenes) {
    vb_scene *sc;

    char what[512];
    rc = vb_study_scene(st, bad, &sc, err, errlen);
    if (rc == VB_OK && shape_differs(st->first, sc, what, sizeof what)) {
      /* the file written holds every scene along the same bodies and
       * contacts: the run would stop at this scene, after the earlier ones */
      const config_setting_t *sw = config_lookup(&st->doc, "sweep");
      rc = vb_errf(err, errlen, VB_EINVAL,
                   "%s:%d: sweep: scene %ld differs from scene 0 in what a sweep may not "
                   "change: %s (valid: values that keep the bodies' kinds, modes and points "
                   "and the contacts of scene 0)",
                   st->src.path, sw ? config_setting_source_line(sw) : 0, bad, what);
      name_values(st, bad, err, errlen);
    }
    vb_scene_free(sc);
    return rc != VB_OK ? rc : VB_EINVAL;
  }
  return VB_OK;
}

/* Keep the list of the files scene 0's load read as text and stop
 * recording: every scene reads the same files (a sweep sets numbers, not
 * file names), and the scenes built in parallel must not write the list;
 * they check against it that each data file they read again is unchanged
 * (a file edited during a run would otherwise mix old and new scenes). */
static int
stop_recording(vb_study *st, char *err, size_t errlen)
{
  int failed = st->src.files == NULL || st->src.files->failed;

  if (!failed)
    st->inputs = vb_inputs_text(st->src.files);
  /* the later scenes check that the files they read again still match */
  st->src.expect = failed ? NULL : st->src.files;
  if (failed) {
    vb_inputs_clear(st->src.files);
    free(st->src.files);
  }
  st->src.files = NULL;
  if (failed || st->inputs == NULL)
    return vb_errf(err, errlen, VB_ENOMEM, "%s: out of memory loading the study", st->src.path);
  return VB_OK;
}

/* Parse the sweep, check its paths, and validate the scenes. */
static int
study_init(vb_study *st, char *err, size_t errlen)
{
  config_t *cfg = &st->doc;
  const config_setting_t *sweep;
  config_setting_t *target;
  int rc, p;

  rc = vb_source_parse(&st->src, &st->doc, err, errlen);
  st->parsed = 1;
  sweep = rc == VB_OK ? config_setting_get_member(config_root_setting(cfg), "sweep") : NULL;
  if (sweep)
    rc = vb_sweep_parse(&st->src, sweep, &st->sweep, err, errlen);
  if (rc == VB_OK && st->sweep) {
    st->units = calloc((size_t)vb_sweep_nparams(st->sweep), sizeof *st->units);
    if (st->units == NULL)
      rc = vb_errf(err, errlen, VB_ENOMEM, "%s: out of memory loading the study", st->src.path);
  }
  for (p = 0; rc == VB_OK && st->sweep && p < vb_sweep_nparams(st->sweep); p++) {
    const config_setting_t *g =
        config_setting_get_elem(config_setting_get_member(sweep, "params"), (unsigned)p);

    rc = vb_sweep_target(&st->src, cfg, vb_sweep_path(st->sweep, p),
                         config_setting_get_member(g, "path"), &target, err, errlen);
    if (rc == VB_OK)
      st->units[p] = vb_sweep_units(cfg, vb_sweep_path(st->sweep, p));
  }
  if (rc != VB_OK)
    return rc;
  st->nscenes = st->sweep ? vb_sweep_scenes(st->sweep) : 1;

  /* scene 0 keeps its messages; the others report the first bad scene.
   * Without a sweep scene 0 loads from the study's parse itself (the
   * loader only reads it): its copy was a fifth of the check of 10^5
   * bodies and a second tree in memory. */
  if (st->sweep == NULL) {
    vb_predict_memo memo = {0};
    rc = vb_scene_load_config(&st->src, &st->doc, &memo, &st->first, err, errlen);
  } else {
    rc = vb_study_scene(st, 0, &st->first, err, errlen);
  }
  if (rc != VB_OK)
    return rc;
  rc = stop_recording(st, err, errlen);
  if (rc != VB_OK)
    return rc;
  return check_scenes(st, err, errlen);
}

/* Finish loading a study whose source is read. */
static int
study_load(vb_study *st, vb_study **out, char *err, size_t errlen)
{
  int rc = study_init(st, err, errlen);

  if (rc != VB_OK) {
    vb_study_free(st);
    return rc;
  }
  *out = st;
  return VB_OK;
}

/* Load a study file. */
int
vb_study_load(const char *path, vb_study **out, char *err, size_t errlen)
{
  vb_study *st = calloc(1, sizeof *st);
  int rc;

  *out = NULL;
  if (!st)
    return vb_errf(err, errlen, VB_ENOMEM, "%s: out of memory loading the study", path);
  rc = vb_source_read(path, &st->src, err, errlen);
  if (rc != VB_OK) {
    free(st);
    return rc;
  }
  return study_load(st, out, err, errlen);
}

/* Load a study from text. */
int
vb_study_load_string(const char *text, const char *path, vb_study **out, char *err, size_t errlen)
{
  vb_study *st = calloc(1, sizeof *st);
  int rc;

  *out = NULL;
  if (!st)
    return vb_errf(err, errlen, VB_ENOMEM, "%s: out of memory loading the study", path);
  rc = vb_source_copy(text, path, &st->src, err, errlen);
  if (rc != VB_OK) {
    free(st);
    return rc;
  }
  return study_load(st, out, err, errlen);
}

/* Accessors. */
long
vb_study_scenes(const vb_study *study)
{
  return study->nscenes;
}
int
vb_study_nparams(const vb_study *study)
{
  return study->sweep ? vb_sweep_nparams(study->sweep) : 0;
}
const char *
vb_study_param(const vb_study *study, int p)
{
  return vb_sweep_path(study->sweep, p);
}
long
vb_study_checked(const vb_study *study, const long **indices)
{
  *indices = study->checked;
  return study->nchecked;
}
const char *
vb_study_param_units(const vb_study *study, int p)
{
  if (study->sweep == NULL || p < 0 || p >= vb_sweep_nparams(study->sweep))
    return NULL;
  return study->units[p] != NULL ? study->units[p] : "";
}
double
vb_study_value(const vb_study *study, long index, int p)
{
  return vb_sweep_value(study->sweep, index, p);
}
const char *
vb_study_mode(const vb_study *study)
{
  return study->sweep ? vb_sweep_mode(study->sweep) : "none";
}
const char *
vb_study_sweep(const vb_study *study)
{
  return study->sweep ? vb_sweep_text(study->sweep) : "";
}
const char *
vb_study_input(const vb_study *study)
{
  return study->src.text;
}
const char *
vb_study_inputs(const vb_study *study)
{
  return study->inputs;
}
const char *
vb_study_path(const vb_study *study)
{
  return study->src.path;
}
const vb_scene *
vb_study_first(const vb_study *study)
{
  return study->first;
}
double
vb_study_record_max(const vb_study *study)
{
  return study->record_max;
}
double
vb_study_record_total(const vb_study *study)
{
  return study->record_total;
}
