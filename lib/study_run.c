/* study_run.c - run a study's scenes in parallel into one output.
 *
 * An OpenMP loop over scenes (dynamic schedule).  Each thread owns its
 * scene and run and packs the finished run itself (vb_output_pack); one
 * writer at a time (an OpenMP critical section) hands it to the output,
 * which writes shards (output.c).  Memory is bounded by the scenes in
 * flight and one batch.  A stop request (opt->stop, set by a signal
 * handler) lets the scenes in flight finish and be written. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include <hdf5.h>

#include "h5util.h"
#include "vibro.h"
#include "output_v1.h"

#define PART_SUFFIX ".part"
#define ERR_MAX 1024
#define PROGRESS_PERIOD 10.0 /* s between progress reports by default */

/* Seconds on a monotonic clock. */
static double now(void)
{
  struct timespec ts;

  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Units of a swept path, from its last key (until the loader's table
 * gives them). */
static const char *param_units(const vb_study *study, int p)
{
  static const struct { const char *key, *units; } known[] = {
    { "k", "N/m^alpha" }, { "alpha", "1" }, { "mu", "s/m" }, { "h", "1" }, { "gap", "m" },
    { "u0", "m" }, { "v0", "m/s" }, { "mass", "kg" }, { "c", "N s/m" }, { "fs", "Hz" },
    { "duration", "s" }, { "gravity", "m/s^2" }, { "every", "1" }, { "position", "m" },
    { "freq", "Hz" }, { "amplitude", "m" }, { "phase", "rad" }, { "value", "N" },
    { "e", "1" }, { "length", "m" }, { "s", "1" }, { "tolerance", "1" },
  };
  const char *path = vb_study_param(study, p), *dot = strrchr(path, '.');
  const char *key = dot ? dot + 1 : path;
  size_t i;

  for (i = 0; i < sizeof known / sizeof known[0]; i++)
    if (strcmp(known[i].key, key) == 0)
      return known[i].units;
  return "?";
}

/* The output layout of a study. */
void vb_study_layout(const vb_study *study, vb_output_layout *lay, const char **names,
                     const char **units)
{
  int p;

  memset(lay, 0, sizeof *lay);
  lay->input = vb_study_input(study);
  lay->source = vb_study_path(study);
  lay->mode = vb_study_mode(study);
  lay->sweep = vb_study_sweep(study);
  lay->nscenes = vb_study_scenes(study);
  lay->nparams = vb_study_nparams(study);
  for (p = 0; p < lay->nparams; p++) {
    names[p] = vb_study_param(study, p);
    units[p] = param_units(study, p);
  }
  lay->param_names = names;
  lay->param_units = units;
  lay->first = vb_study_first(study);
}

/* Refuse an output that is a directory or the study file itself. */
static int output_check(const vb_study *study, const char *out, char *err, size_t errlen)
{
  struct stat so, si;

  if (stat(out, &so) == 0) {
    if (S_ISDIR(so.st_mode)) {
      snprintf(err, errlen, "%s: is a directory; -o names the output file", out);
      return VB_EINVAL;
    }
    if (vb_study_path(study) && stat(vb_study_path(study), &si) == 0 &&
        si.st_dev == so.st_dev && si.st_ino == so.st_ino) {
      snprintf(err, errlen, "%s: is the study file %s itself; choose another output", out,
               vb_study_path(study));
      return VB_EINVAL;
    }
  }
  return VB_OK;
}

/* A finished OUT for this input: every scene kept. */
static int finished_file(const vb_study *study, const char *out)
{
  vb_h5quiet q;
  hid_t f;
  char *format = NULL, *input = NULL;
  long scenes = -1;
  int same;

  vb_h5_quiet_begin(&q);
  f = H5Fopen(out, H5F_ACC_RDONLY, H5P_DEFAULT);
  if (f >= 0) {
    hid_t st = H5Gopen2(f, "study", H5P_DEFAULT);
    format = vb_h5_attr_read_string(f, "format");
    input = vb_h5_attr_read_string(f, "input");
    if (st >= 0)
      vb_h5_attr_read_int64(st, "scenes", &scenes);
    vb_h5_close(st);
  }
  vb_h5_close(f);
  vb_h5_quiet_end(&q);
  same = format && input && strcmp(format, "vibro-2") == 0 &&
         strcmp(input, vb_study_input(study)) == 0 && scenes == vb_study_scenes(study);
  free(format);
  free(input);
  return same;
}

/* Report progress through the callback. */
static void progress(const vb_study_options *opt, long done, long total, long ran, double t0)
{
  vb_study_progress p;
  double el = now() - t0;

  if (!opt->on_progress)
    return;
  p.done = done;
  p.total = total;
  p.rate = ran > 0 && el > 0 ? (double)ran / el : 0.0;
  p.left = p.rate > 0 ? (double)(total - done) / p.rate : NAN;
  opt->on_progress(&p, opt->progress_ctx);
}

/* Merge the shards of every rank into out. */
int vb_study_merge(const vb_study *study, const char *out, const volatile int *stop,
                   char *err, size_t errlen)
{
  vb_output_layout lay;
  const char **names = calloc((size_t)vb_study_nparams(study) + 1, sizeof *names);
  const char **units = calloc((size_t)vb_study_nparams(study) + 1, sizeof *units);
  int rc;

  if (!names || !units) {
    free(names);
    free(units);
    snprintf(err, errlen, "%s: out of memory", out);
    return VB_ENOMEM;
  }
  vb_study_layout(study, &lay, names, units);
  rc = vb_output_merge(out, &lay, stop, err, errlen);
  free(names);
  free(units);
  return rc;
}

/* Run a study's scenes into one output file. */
int vb_study_run(const vb_study *study, const char *out, const vb_study_options *opt,
                 vb_study_report *report, char *err, size_t errlen)
{
  vb_study_options defaults;
  vb_study_report rep;
  vb_output_layout lay;
  vb_output *o = NULL;
  const char **names = NULL, **units = NULL;
  char *part = NULL, *first_err = NULL;
  long *pending = NULL, npending = 0, i, nscenes = vb_study_scenes(study);
  double t0 = now(), last, period;
  int rc, stop = 0, stop_rc = VB_OK, interrupted = 0, np = vb_study_nparams(study);
  char dummy[1];

  if (!err || errlen == 0) {
    err = dummy;
    errlen = sizeof dummy;
  }
  err[0] = '\0';
  memset(&defaults, 0, sizeof defaults);
  defaults.nranks = 1;
  if (!opt)
    opt = &defaults;
  if (opt->format == 1)
    return vb_v1_study_run(study, out, opt, report, err, errlen);
  period = opt->progress_period > 0 ? opt->progress_period : PROGRESS_PERIOD;
  last = t0;
  memset(&rep, 0, sizeof rep);
  rep.first_failed = -1;
  if (report)
    memset(report, 0, sizeof *report);
  if (opt->nranks < 1 || opt->rank < 0 || opt->rank >= opt->nranks) {
    snprintf(err, errlen, "%s: bad rank %d of %d", out, opt->rank, opt->nranks);
    return VB_EINVAL;
  }
  rc = output_check(study, out, err, errlen);
  if (rc != VB_OK)
    return rc;
  names = calloc((size_t)np + 1, sizeof *names);
  units = calloc((size_t)np + 1, sizeof *units);
  part = malloc(strlen(out) + sizeof PART_SUFFIX);
  first_err = malloc(ERR_MAX);
  pending = malloc((size_t)(nscenes / opt->nranks + 1) * sizeof *pending);
  if (!names || !units || !part || !first_err || !pending) {
    snprintf(err, errlen, "%s: out of memory", out);
    rc = VB_ENOMEM;
    goto done;
  }
  strcpy(part, out);
  strcat(part, PART_SUFFIX);
  first_err[0] = '\0';
  vb_study_layout(study, &lay, names, units);

  /* --resume after the end: the finished file is checked, nothing runs */
  if (opt->resume && access(part, F_OK) != 0 && access(out, F_OK) == 0 &&
      finished_file(study, out)) {
    for (i = opt->rank; i < nscenes; i += opt->nranks)
      rep.scenes++;
    rep.kept = rep.scenes;
    rc = VB_OK;
    goto done;
  }
  rc = vb_output_open(out, &lay, opt->resume, opt->rank, &o, err, errlen);
  if (rc != VB_OK)
    goto done;
  for (i = opt->rank; i < nscenes; i += opt->nranks) {
    rep.scenes++;
    if (!vb_output_complete(o, i)) {
      pending[npending++] = i;
    } else {
      rep.kept++;
      rep.failed += vb_output_status_code(o, i) != VB_OK;
    }
  }

#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic, 1) num_threads(opt->threads > 0 ? opt->threads : omp_get_max_threads())
#endif
  for (i = 0; i < npending; i++) {
    vb_scene *sc = NULL;
    vb_run *run = NULL;
    vb_packed_scene *packed = NULL;
    char e[ERR_MAX];
    double params[64], *pv = np <= 64 ? params : malloc((size_t)np * sizeof *pv);
    int lrc = pv ? VB_OK : VB_ENOMEM, code = VB_OK, halt, p;
    long index = pending[i];

#ifdef _OPENMP
#pragma omp atomic read
#endif
    halt = stop;
    if (halt || (opt->stop && *opt->stop)) {
      if (pv != params)
        free(pv);
      continue;
    }
    e[0] = '\0';
    if (!pv)
      snprintf(e, sizeof e, "%s: out of memory", out);
    for (p = 0; pv && p < np; p++)
      pv[p] = vb_study_value(study, index, p);
    if (lrc == VB_OK)
      lrc = vb_study_scene(study, index, &sc, e, sizeof e);
    if (lrc == VB_OK)
      lrc = vb_run_alloc(sc, &run, e, sizeof e);
    if (lrc == VB_OK)
      code = vb_run_exec(run);
    /* packing (copying) runs in this thread, outside the writer */
    if (lrc == VB_OK)
      lrc = vb_output_pack(o, index, pv, run, &packed, e, sizeof e);
#ifdef _OPENMP
#pragma omp critical(vb_study_writer)
#endif
    {
      if (!stop && lrc == VB_OK) {
        double tw = now();

        lrc = vb_output_add(o, packed, e, sizeof e);
        packed = NULL;
        rep.write_seconds += now() - tw;
        if (lrc == VB_OK) {
          rep.ran++;
          rep.failed += code != VB_OK;
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
      if (!stop && now() - last >= period) {
        last = now();
        progress(opt, rep.kept + rep.ran, rep.scenes, rep.ran, t0);
      }
    }
    vb_packed_scene_free(packed);
    vb_run_free(run);
    vb_scene_free(sc);
    if (pv != params)
      free(pv);
  }
  interrupted = !stop && opt->stop && *opt->stop;
  /* what was finished is written, whatever stopped the loop */
  {
    char e[ERR_MAX];
    int frc = vb_output_flush(o, e, sizeof e);
    if (frc != VB_OK && !stop) {
      snprintf(first_err, ERR_MAX, "%s", e);
      stop_rc = frc;
      stop = 1;
    }
  }
  if (stop) {
    long kept = vb_output_scenes_done(o);
    int wrote = strstr(first_err, "--resume") != NULL || strstr(first_err, "no scene was") != NULL;

    if (wrote)
      snprintf(err, errlen, "%s", first_err);
    else if (kept > 0)
      snprintf(err, errlen, "%s (the %ld finished scenes are kept in %s: run again with "
               "--resume to continue)", first_err, kept, part);
    else
      snprintf(err, errlen, "%s (no scene was finished)", first_err);
    rc = stop_rc;
    goto done;
  }
  if (interrupted) {
    snprintf(err, errlen, "%s: interrupted after %ld of %ld scenes; run again with --resume",
             out, vb_output_scenes_done(o), nscenes);
    rc = VB_EINTR;
    goto done;
  }
  progress(opt, rep.kept + rep.ran, rep.scenes, rep.ran, t0);
  vb_output_free(o);
  o = NULL;
  rc = opt->nranks == 1 ? vb_study_merge(study, out, opt->stop, err, errlen) : VB_OK;
done:
  vb_output_free(o);
  rep.seconds = now() - t0;
  if (report)
    *report = rep;
  free(names);
  free(units);
  free(pending);
  free(part);
  free(first_err);
  return rc;
}
