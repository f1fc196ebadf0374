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

#include "sweep.h"
#include "vibro.h"

struct vb_study {
  vb_source src;
  char *inputs;       /* "PATH CRC32\n" of every file the load read (vb_inputs_text) */
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

/* Build scene `index`: parse, set the swept values, load. */
int
vb_study_scene(const vb_study *st, long index, vb_scene **out, char *err, size_t errlen)
{
  config_t cfg;
  config_setting_t *params, *target;
  int rc, p;

  *out = NULL;
  if (index < 0 || index >= st->nscenes)
    return vb_errf(err, errlen, VB_EINVAL, "%s: no scene %ld (the study has %ld)", st->src.path,
                   index, st->nscenes);
  rc = vb_source_parse(&st->src, &cfg, err, errlen);
  if (rc == VB_OK && st->sweep) {
    params = config_lookup(&cfg, "sweep.params");
    for (p = 0; p < vb_sweep_nparams(st->sweep) && rc == VB_OK; p++) {
      const config_setting_t *origin =
          config_setting_get_member(config_setting_get_elem(params, (unsigned)p), "path");

      rc = vb_sweep_target(&st->src, &cfg, vb_sweep_path(st->sweep, p), origin, &target, err,
                           errlen);
      if (rc == VB_OK)
        vb_sweep_assign(target, vb_sweep_value(st->sweep, index, p), origin);
    }
  }
  if (rc == VB_OK)
    rc = vb_scene_load_config(&st->src, &cfg, out, err, errlen);
  config_destroy(&cfg);
  if (rc == VB_EINVAL)
    name_values(st, index, err, errlen);
  return rc;
}

/* Studies of up to this many scenes are validated scene by scene; larger
 * ones through the scenes that stand for them (vb_sweep_sample), with
 * this many values of a long parameter. */
#define CHECK_ALL_MAX 20000L
#define SAMPLE_VALUES 1024L

/* Validate scenes idx[0..n) (idx NULL: 0..n-1) in parallel: the smallest
 * failing index into *bad (else left), the largest recording into *rmax
 * and the sum of the recordings into *rsum. */
static void
check_indices(const vb_study *st, const long *idx, long n, long *bad, double *rmax, double *rsum)
{
  long i, b = *bad;
  double mx = *rmax, sum = 0.0;

#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic, 16) reduction(min : b) reduction(max : mx) \
    reduction(+ : sum) if (n > 1)
#endif
  for (i = 0; i < n; i++) {
    long index = idx ? idx[i] : i;
    vb_scene *sc;
    char e[8];
    double bytes;

    if (vb_study_scene(st, index, &sc, e, sizeof e) != VB_OK) {
      b = index < b ? index : b;
      continue;
    }
    bytes = vb_scene_record_bytes(sc);
    mx = bytes > mx ? bytes : mx;
    sum += bytes;
    vb_scene_free(sc);
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
    check_indices(st, NULL, st->nscenes, &bad, &rmax, &rsum);
    st->record_total = rsum;
    st->nchecked = st->nscenes;
  } else {
    n = vb_sweep_sample(st->sweep, SAMPLE_VALUES, &idx);
    if (n < 0)
      return vb_errf(err, errlen, VB_ENOMEM, "%s: out of memory checking the study", st->src.path);
    check_indices(st, idx, n, &bad, &rmax, &rsum);
    st->record_total = rsum / (double)n * (double)st->nscenes;
    st->checked = idx;
    st->nchecked = n;
  }
  st->record_max = rmax;
  if (bad < st->nscenes) {
    vb_scene *sc;

    rc = vb_study_scene(st, bad, &sc, err, errlen);
    vb_scene_free(sc);
    return rc != VB_OK ? rc : VB_EINVAL;
  }
  return VB_OK;
}

/* Keep the list of the files scene 0's load read as text and stop
 * recording: every scene reads the same files (a sweep sets numbers, not
 * file names), and the scenes built in parallel must not write the list. */
static int
stop_recording(vb_study *st, char *err, size_t errlen)
{
  int failed = st->src.files == NULL || st->src.files->failed;

  if (!failed)
    st->inputs = vb_inputs_text(st->src.files);
  vb_inputs_clear(st->src.files);
  free(st->src.files);
  st->src.files = NULL;
  if (failed || st->inputs == NULL)
    return vb_errf(err, errlen, VB_ENOMEM, "%s: out of memory loading the study", st->src.path);
  return VB_OK;
}

/* Parse the sweep, check its paths, and validate the scenes. */
static int
study_init(vb_study *st, char *err, size_t errlen)
{
  config_t cfg;
  const config_setting_t *sweep;
  config_setting_t *target;
  int rc, p;

  rc = vb_source_parse(&st->src, &cfg, err, errlen);
  sweep = rc == VB_OK ? config_setting_get_member(config_root_setting(&cfg), "sweep") : NULL;
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

    rc = vb_sweep_target(&st->src, &cfg, vb_sweep_path(st->sweep, p),
                         config_setting_get_member(g, "path"), &target, err, errlen);
    if (rc == VB_OK)
      st->units[p] = vb_sweep_units(&cfg, vb_sweep_path(st->sweep, p));
  }
  config_destroy(&cfg);
  if (rc != VB_OK)
    return rc;
  st->nscenes = st->sweep ? vb_sweep_scenes(st->sweep) : 1;

  /* scene 0 keeps its messages; the others report the first bad scene */
  rc = vb_study_scene(st, 0, &st->first, err, errlen);
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
