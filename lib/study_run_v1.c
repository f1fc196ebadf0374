/* study_run_v1.c - the vibro-1 runner (transitional, vb_study_options.format = 1):
 * run a study's scenes in parallel into one vibro-1 file.
 *
 * An OpenMP loop over scenes (dynamic schedule); each thread owns its
 * scene and run, compresses the run's datasets itself (vb_v1_chunks_alloc),
 * and one writer at a time (an OpenMP critical section) stores the
 * finished chunks and marks the scene complete.  Memory is bounded by the
 * scenes in flight. */
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
#include "output_v1.h"

#define PART_SUFFIX ".part"
#define ERR_MAX 1024
#define PROGRESS_PERIOD 0.25 /* s between progress lines */

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

/* Whether a file exists. */
static int exists(const char *path)
{
  return access(path, F_OK) == 0;
}

/* Run a study's scenes into one output file. */
int vb_v1_study_run(const vb_study *study, const char *out, const vb_study_options *opt,
                    vb_study_report *report, char *err, size_t errlen)
{
  vb_study_options defaults = { 0, 0, 0, 0, 1, NULL, NULL, 0, NULL, 1 };
  vb_study_report rep;
  vb_v1_output *o = NULL;
  char *part = NULL, *first_err = NULL;
  long *pending = NULL, npending = 0, i, total, finished;
  double t0 = now(), last = 0.0;
  int rc, stop = 0, stop_rc = VB_OK, renamed = 0, resume;

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
  rc = vb_v1_open(out, study, resume, &o, err, errlen);
  if (rc != VB_OK) {
    if (renamed)
      rename(part, out);
    goto done;
  }

  /* the scenes of this rank, and what the file holds already */
  pending = malloc((size_t)(vb_study_scenes(study) / opt->nranks + 1) * sizeof *pending);
  if (!pending) {
    message(err, errlen, "%s: out of memory%s", out, "");
    rc = VB_ENOMEM;
    vb_v1_free(o);
    goto done;
  }
  for (i = opt->rank; i < vb_study_scenes(study); i += opt->nranks) {
    rep.scenes++;
    if (!vb_v1_complete(o, i)) {
      pending[npending++] = i;
    } else {
      rep.kept++;
      rep.failed += vb_v1_status_code(o, i) != VB_OK;
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
    vb_v1_chunks *chunks = NULL;
    char e[ERR_MAX];
    int lrc, code = VB_OK, halt;
    long index = pending[i];

#ifdef _OPENMP
#pragma omp atomic read
#endif
    halt = stop;
    if (halt || (opt->stop && *opt->stop))
      continue;
    lrc = vb_study_scene(study, index, &sc, e, sizeof e);
    if (lrc == VB_OK)
      lrc = vb_run_alloc(sc, &run, e, sizeof e);
    if (lrc == VB_OK)
      code = vb_run_exec(run);
    /* the expensive part of writing, outside the writer */
    if (lrc == VB_OK)
      lrc = vb_v1_chunks_alloc(run, &chunks, e, sizeof e);
#ifdef _OPENMP
#pragma omp critical(vb_study_writer)
#endif
    {
      if (!stop && lrc == VB_OK) {
        double tw = now();

        lrc = vb_v1_scene_chunks(o, index, run, chunks, e, sizeof e);
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
      if (opt->on_progress && !stop &&
          (now() - last >= (opt->progress_period > 0 ? opt->progress_period : 10.0) ||
           finished == total)) {
        vb_study_progress p;
        double el = now() - t0;

        last = now();
        p.done = finished;
        p.total = total;
        p.rate = rep.ran > 0 && el > 0 ? (double)rep.ran / el : 0.0;
        p.left = p.rate > 0 ? (double)(total - finished) / p.rate : NAN;
        opt->on_progress(&p, opt->progress_ctx);
      }
    }
    vb_v1_chunks_free(chunks);
    vb_run_free(run);
    vb_scene_free(sc);
  }
  if (!stop && opt->stop && *opt->stop) {
    vb_v1_free(o);
    snprintf(err, errlen, "%s: interrupted after %ld of %ld scenes; run again with --resume",
             out, finished, total);
    rc = VB_EINTR;
    goto done;
  }
  if (stop) {
    vb_v1_free(o);
    if (err && errlen > 0)
      snprintf(err, errlen, "%s (the finished scenes are kept in %s: run again with "
               "--resume to continue)", first_err, part);
    rc = stop_rc;
    goto done;
  }
  rc = vb_v1_finish(o, err, errlen);
done:
  rep.seconds = now() - t0;
  if (report)
    *report = rep;
  free(pending);
  free(part);
  free(first_err);
  return rc;
}
