/* study.c - studies: a scene file with an optional sweep, expanded into
 * scenes, validated, and run in parallel over scenes into one output.
 *
 * Every scene is built from a fresh parse of the study text with the
 * sweep's values set in the parsed document, then loaded by the normal
 * scene loader: a swept scene gets exactly the checks and messages of a
 * plain scene.  The runner is an OpenMP loop over scenes (dynamic
 * schedule); each thread owns its scene and run, compresses the run's
 * datasets itself (vb_chunks_alloc), and one writer at a time (an OpenMP
 * critical section) stores the finished chunks and marks the scene
 * complete.  Memory is bounded by the scenes in flight. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "sweep.h"
#include "vibro.h"

#define PART_SUFFIX ".part"
#define ERR_MAX 1024
#define PROGRESS_PERIOD 0.25 /* s between progress lines */

struct vb_study {
  vb_source src;
  vb_sweep *sweep;     /* NULL without a sweep */
  const char **units;  /* [nparams] SI units of each parameter (static text) */
  long nscenes;
  vb_scene *first;     /* scene 0 */
  double record_max;   /* largest recording of a scene, bytes */
  double record_total; /* all recordings, bytes */
};

/* Seconds on a monotonic clock. */
static double now(void)
{
  struct timespec ts;

  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Write a message into err. */
static void message(char *err, size_t errlen, const char *fmt, const char *a,
                    const char *b)
{
  if (err && errlen > 0)
    snprintf(err, errlen, fmt, a, b);
}

/* Free a study; NULL is a no-op. */
void vb_study_free(vb_study *study)
{
  if (!study)
    return;
  vb_source_clear(&study->src);
  vb_sweep_free(study->sweep);
  free(study->units);
  vb_scene_free(study->first);
  free(study);
}

/* Append " (scene I: path = value, ...)" to a message about scene I. */
static void name_values(const vb_study *st, long index, char *err, size_t errlen)
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
    snprintf(err + len, errlen - len, "%s %s = %s", p ? "," : "",
             vb_sweep_path(st->sweep, p),
             vb_number_text(vb_sweep_value(st->sweep, index, p), num, sizeof num));
  }
  len = strlen(err);
  snprintf(err + len, errlen - len, ")");
}

/* Build scene `index`: parse, set the swept values, load. */
int vb_study_scene(const vb_study *st, long index, vb_scene **out, char *err,
                   size_t errlen)
{
  config_t cfg;
  config_setting_t *params, *target;
  int rc, p;

  *out = NULL;
  if (index < 0 || index >= st->nscenes)
    return vb_errf(err, errlen, VB_EINVAL, "%s: no scene %ld (the study has %ld)",
                   st->src.path, index, st->nscenes);
  rc = vb_source_parse(&st->src, &cfg, err, errlen);
  if (rc == VB_OK && st->sweep) {
    params = config_lookup(&cfg, "sweep.params");
    for (p = 0; p < vb_sweep_nparams(st->sweep) && rc == VB_OK; p++) {
      const config_setting_t *origin =
          config_setting_get_member(config_setting_get_elem(params, (unsigned)p), "path");

      rc = vb_sweep_target(&st->src, &cfg, vb_sweep_path(st->sweep, p), origin, &target,
                           err, errlen);
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

/* Parse the sweep, check its paths, and validate every scene. */
static int study_init(vb_study *st, char *err, size_t errlen)
{
  config_t cfg;
  const config_setting_t *sweep;
  config_setting_t *target;
  long i, bad;
  double rmax, rtotal;
  int rc, p;

  rc = vb_source_parse(&st->src, &cfg, err, errlen);
  sweep = rc == VB_OK ? config_setting_get_member(config_root_setting(&cfg), "sweep")
                      : NULL;
  if (sweep)
    rc = vb_sweep_parse(&st->src, sweep, &st->sweep, err, errlen);
  if (rc == VB_OK && st->sweep) {
    st->units = calloc((size_t)vb_sweep_nparams(st->sweep), sizeof *st->units);
    if (st->units == NULL)
      rc = vb_errf(err, errlen, VB_ENOMEM, "%s: out of memory loading the study",
                   st->src.path);
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
  rmax = rtotal = vb_scene_record_bytes(st->first);
  bad = st->nscenes;
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic, 16) reduction(min : bad) \
    reduction(max : rmax) reduction(+ : rtotal)
#endif
  for (i = 1; i < st->nscenes; i++) {
    vb_scene *sc;
    char e[8];
    double bytes;

    if (vb_study_scene(st, i, &sc, e, sizeof e) != VB_OK) {
      bad = i < bad ? i : bad;
      continue;
    }
    bytes = vb_scene_record_bytes(sc);
    rmax = bytes > rmax ? bytes : rmax;
    rtotal += bytes;
    vb_scene_free(sc);
  }
  st->record_max = rmax;
  st->record_total = rtotal;
  if (bad < st->nscenes) {
    vb_scene *sc;

    rc = vb_study_scene(st, bad, &sc, err, errlen);
    vb_scene_free(sc);
    return rc != VB_OK ? rc : VB_EINVAL;
  }
  return VB_OK;
}

/* Finish loading a study whose source is read. */
static int study_load(vb_study *st, vb_study **out, char *err, size_t errlen)
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
int vb_study_load(const char *path, vb_study **out, char *err, size_t errlen)
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
int vb_study_load_string(const char *text, const char *path, vb_study **out, char *err,
                         size_t errlen)
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
long vb_study_scenes(const vb_study *study) { return study->nscenes; }
int vb_study_nparams(const vb_study *study)
{
  return study->sweep ? vb_sweep_nparams(study->sweep) : 0;
}
const char *vb_study_param(const vb_study *study, int p)
{
  return vb_sweep_path(study->sweep, p);
}
const char *vb_study_param_units(const vb_study *study, int p)
{
  if (study->sweep == NULL || p < 0 || p >= vb_sweep_nparams(study->sweep))
    return NULL;
  return study->units[p] != NULL ? study->units[p] : "";
}
double vb_study_value(const vb_study *study, long index, int p)
{
  return vb_sweep_value(study->sweep, index, p);
}
const char *vb_study_mode(const vb_study *study)
{
  return study->sweep ? vb_sweep_mode(study->sweep) : "none";
}
const char *vb_study_sweep(const vb_study *study)
{
  return study->sweep ? vb_sweep_text(study->sweep) : "";
}
const char *vb_study_input(const vb_study *study) { return study->src.text; }
const char *vb_study_path(const vb_study *study) { return study->src.path; }
const vb_scene *vb_study_first(const vb_study *study) { return study->first; }
double vb_study_record_max(const vb_study *study) { return study->record_max; }
double vb_study_record_total(const vb_study *study) { return study->record_total; }

/* "1:02:03" or "2:03" for a number of seconds. */
static const char *clock_text(double s, char *buf, size_t size)
{
  long t = isfinite(s) && s >= 0 ? (long)(s + 0.5) : 0;

  if (t >= 3600)
    snprintf(buf, size, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
  else
    snprintf(buf, size, "%ld:%02ld", t / 60, t % 60);
  return buf;
}

/* Whether a file exists. */
static int exists(const char *path)
{
  return access(path, F_OK) == 0;
}

/* Run a study's scenes into one output file. */
int vb_study_run(const vb_study *study, const char *out, const vb_study_options *opt,
                 vb_study_report *report, char *err, size_t errlen)
{
  vb_study_options defaults = { 0, 0, 0, 0, 1 };
  vb_study_report rep;
  vb_output *o = NULL;
  char *part = NULL, *first_err = NULL, left[32];
  long *pending = NULL, npending = 0, i, total, finished;
  double t0 = now(), last = 0.0;
  int rc, stop = 0, stop_rc = VB_OK, renamed = 0, resume, printed = 0;

  if (!opt)
    opt = &defaults;
  memset(&rep, 0, sizeof rep);
  rep.first_failed = -1;
  if (report)
    memset(report, 0, sizeof *report);
  if (opt->nranks < 1 || opt->rank < 0 || opt->rank >= opt->nranks) {
    message(err, errlen, "%s: bad rank %s", out, "");
    return VB_EINVAL;
  }
  part = malloc(strlen(out) + sizeof PART_SUFFIX);
  first_err = malloc(ERR_MAX);
  if (!part || !first_err) {
    free(part);
    free(first_err);
    message(err, errlen, "%s: out of memory%s", out, "");
    return VB_ENOMEM;
  }
  strcpy(part, out);
  strcat(part, PART_SUFFIX);
  first_err[0] = '\0';

  /* --resume with nothing to resume starts afresh; with a finished file,
   * reopens it to check it and finds nothing to do */
  resume = opt->resume;
  if (resume && !exists(part)) {
    if (exists(out) && rename(out, part) == 0)
      renamed = 1;
    else
      resume = 0;
  }
  rc = vb_output_open(out, study, resume, &o, err, errlen);
  if (rc != VB_OK) {
    if (renamed)
      rename(part, out);
    goto done;
  }

  /* the scenes of this rank, and what the file holds already */
  pending = malloc((size_t)(study->nscenes / opt->nranks + 1) * sizeof *pending);
  if (!pending) {
    message(err, errlen, "%s: out of memory%s", out, "");
    rc = VB_ENOMEM;
    vb_output_free(o);
    goto done;
  }
  for (i = opt->rank; i < study->nscenes; i += opt->nranks) {
    rep.scenes++;
    if (!vb_output_complete(o, i)) {
      pending[npending++] = i;
    } else {
      rep.kept++;
      rep.failed += vb_output_status_code(o, i) != VB_OK;
    }
  }
  total = rep.scenes;
  finished = rep.kept;

#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic, 1) num_threads(opt->threads > 0 ? opt->threads : omp_get_max_threads())
#endif
  for (i = 0; i < npending; i++) {
    vb_scene *sc = NULL;
    vb_run *run = NULL;
    vb_chunks *chunks = NULL;
    char e[ERR_MAX];
    int lrc, code = VB_OK, halt;
    long index = pending[i];

#ifdef _OPENMP
#pragma omp atomic read
#endif
    halt = stop;
    if (halt)
      continue;
    lrc = vb_study_scene(study, index, &sc, e, sizeof e);
    if (lrc == VB_OK)
      lrc = vb_run_alloc(sc, &run, e, sizeof e);
    if (lrc == VB_OK)
      code = vb_run_exec(run);
    /* the expensive part of writing, outside the writer */
    if (lrc == VB_OK)
      lrc = vb_chunks_alloc(run, &chunks, e, sizeof e);
#ifdef _OPENMP
#pragma omp critical(vb_study_writer)
#endif
    {
      if (!stop && lrc == VB_OK) {
        double tw = now();

        lrc = vb_output_scene_chunks(o, index, run, chunks, e, sizeof e);
        rep.write_seconds += now() - tw;
        if (lrc == VB_OK) {
          rep.ran++;
          rep.failed += code != VB_OK;
          finished++;
          if (code != VB_OK && (rep.first_failed < 0 || index < rep.first_failed)) {
            rep.first_failed = index;
            snprintf(rep.first_status, sizeof rep.first_status, "%s", vb_run_status(run));
          }
        }
      }
      if (!stop && lrc != VB_OK) {
        snprintf(first_err, ERR_MAX, "%s", e);
        stop_rc = lrc;
#ifdef _OPENMP
#pragma omp atomic write
#endif
        stop = 1;
      }
      if (opt->progress && !stop && (now() - last >= PROGRESS_PERIOD || finished == total)) {
        double el = now() - t0, rate = rep.ran > 0 ? (double)rep.ran / el : 0.0;

        last = now();
        fprintf(stderr, "\r%ld/%ld scenes, %.3g scenes/s, %s left   ", finished, total,
                rate, rate > 0 ? clock_text((double)(total - finished) / rate, left,
                                            sizeof left)
                               : "?");
        fflush(stderr);
        printed = 1;
      }
    }
    vb_chunks_free(chunks);
    vb_run_free(run);
    vb_scene_free(sc);
  }
  if (printed)
    fputc('\n', stderr);
  if (stop) {
    vb_output_free(o);
    if (err && errlen > 0)
      snprintf(err, errlen, "%s (the finished scenes are kept in %s: run again with "
               "--resume to continue)", first_err, part);
    rc = stop_rc;
    goto done;
  }
  rc = vb_output_finish(o, err, errlen);
done:
  rep.seconds = now() - t0;
  if (report)
    *report = rep;
  free(pending);
  free(part);
  free(first_err);
  return rc;
}
