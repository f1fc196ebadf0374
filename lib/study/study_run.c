/* study_run.c - run a study's scenes in parallel into one output.
 *
 * An OpenMP loop over scenes (dynamic schedule; guided with a laid-out
 * shard, see scenes_run).  Each thread owns its
 * scene and run and packs the finished run itself (vb_output_pack); one
 * writer at a time (an OpenMP critical section) hands it to the output,
 * which writes shards (output.c).  Memory is bounded by the scenes in
 * flight and one batch.  A stop request (opt->stop, set by a signal
 * handler) lets the scenes in flight finish and be written; a watcher
 * thread tells opt->on_stop at once how many there are and how long they
 * need.  A second request (VB_STOP_ABANDON) stops them at their next step
 * and writes only the finished scenes. */
#include <errno.h>
#include <math.h>
#include <pthread.h>
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

#include "output/output.h"
#include "run/run.h"
#include "vibro.h"

#define PART_SUFFIX     ".part"
#define ERR_MAX         1024
#define PROGRESS_PERIOD 10.0 /* s between progress reports by default */
#define WATCH_PERIOD    0.02 /* s between the watcher's looks at opt->stop */

/* Seconds on a monotonic clock. */
static double
now(void)
{
  struct timespec ts;

  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The output layout of a study. */
void
vb_study_layout(const vb_study *study, vb_output_layout *lay, const char **names,
                const char **units)
{
  int p;

  memset(lay, 0, sizeof *lay);
  lay->input = vb_study_input(study);
  lay->source = vb_study_path(study);
  lay->inputs = vb_study_inputs(study);
  lay->mode = vb_study_mode(study);
  lay->sweep = vb_study_sweep(study);
  lay->nscenes = vb_study_scenes(study);
  lay->nparams = vb_study_nparams(study);
  for (p = 0; p < lay->nparams; p++) {
    names[p] = vb_study_param(study, p);
    units[p] = vb_study_param_units(study, p);
  }
  lay->param_names = names;
  lay->param_units = units;
  lay->first = vb_study_first(study);
}

/* Whether an existing file may be replaced by a run's output: empty, or
 * an HDF5 file whose root attribute `format` names a vibro layout.  The
 * signature is read first, so a text or image file is never handed to
 * libhdf5.  *why receives what it is otherwise. */
static int
replaceable(const char *out, const struct stat *so, const char **why)
{
  static const unsigned char sig[8] = {0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n'};
  unsigned char head[8];
  FILE *f;
  size_t got = 0;
  vb_h5quiet q;
  hid_t h;
  char *format = NULL;
  int ok;

  if (so->st_size == 0)
    return 1;
  *why = "not an HDF5 file";
  if ((f = fopen(out, "rb")) != NULL) {
    got = fread(head, 1, sizeof head, f);
    fclose(f);
  }
  if (got != sizeof head || memcmp(head, sig, sizeof sig) != 0)
    return 0;
  vb_h5_quiet_begin(&q);
  h = H5Fopen(out, H5F_ACC_RDONLY, H5P_DEFAULT);
  if (h >= 0)
    format = vb_h5_attr_read_string(h, "format");
  vb_h5_close(h);
  vb_h5_quiet_end(&q);
  ok = format != NULL && strncmp(format, "vibro-", 6) == 0;
  *why = h < 0 ? "an HDF5 file libhdf5 cannot open" : "an HDF5 file without vibro's 'format'";
  free(format);
  return ok;
}

/* Refuse an output that is a directory, the study file or a file its load
 * read (by inode: an output over a frequencies or profile file destroyed
 * it), or an existing file that is not a vibro output: a run replaces its
 * output, and the user's own file must not go that way unasked. */
static int
destination_refused(const vb_study *study, const char *out, char *err, size_t errlen)
{
  struct stat so, si;
  const char *list = vb_study_inputs(study), *p, *eol, *why = "";
  char path[4200];

  if (stat(out, &so) != 0)
    return VB_OK;
  if (S_ISDIR(so.st_mode)) {
    snprintf(err, errlen, "%s: is a directory; -o names the output file", out);
    return VB_EINVAL;
  }
  if (vb_study_path(study) && stat(vb_study_path(study), &si) == 0 && si.st_dev == so.st_dev &&
      si.st_ino == so.st_ino) {
    snprintf(err, errlen, "%s: is the study file %s itself; choose another output", out,
             vb_study_path(study));
    return VB_EINVAL;
  }
  /* "PATH CRC32\n" per file read: the path is what comes before the last space */
  for (p = list ? list : ""; (eol = strchr(p, '\n')) != NULL; p = eol + 1) {
    const char *sp = eol;
    while (sp > p && *sp != ' ')
      sp--;
    if (sp == p || (size_t)(sp - p) >= sizeof path)
      continue;
    memcpy(path, p, (size_t)(sp - p));
    path[sp - p] = '\0';
    if (stat(path, &si) == 0 && si.st_dev == so.st_dev && si.st_ino == so.st_ino) {
      snprintf(err, errlen, "%s: is %s, a file the study reads; choose another output", out, path);
      return VB_EINVAL;
    }
  }
  if (S_ISREG(so.st_mode) && !replaceable(out, &so, &why)) {
    snprintf(err, errlen,
             "%s: exists and is not a vibro output (%s); refusing to replace it (valid: a new "
             "name, a vibro output, or remove the file first)",
             out, why);
    return VB_EINVAL;
  }
  return VB_OK;
}

/* A finished OUT for this input (its text and every file it read, the
 * identity of vb_input_crc): every scene kept. */
static int
finished_file(const vb_study *study, const vb_output_layout *lay, const char *out)
{
  vb_h5quiet q;
  hid_t f;
  vb_output_layout then = {0};
  char *format = NULL, *input = NULL, *inputs = NULL;
  long scenes = -1;
  int same;

  vb_h5_quiet_begin(&q);
  f = H5Fopen(out, H5F_ACC_RDONLY, H5P_DEFAULT);
  if (f >= 0) {
    hid_t st = H5Gopen2(f, "study", H5P_DEFAULT);
    format = vb_h5_attr_read_string(f, "format");
    input = vb_h5_attr_read_string(f, "input");
    inputs = vb_h5_attr_read_string(f, "inputs");
    if (st >= 0)
      vb_h5_attr_read_int64(st, "scenes", &scenes);
    vb_h5_close(st);
  }
  vb_h5_close(f);
  vb_h5_quiet_end(&q);
  same = format && input && strcmp(format, VB_FORMAT_NAME) == 0 &&
         strcmp(input, vb_study_input(study)) == 0 && scenes == vb_study_scenes(study);
  then.input = input;
  then.inputs = inputs;
  same = same && vb_input_crc(&then) == vb_input_crc(lay);
  free(format);
  free(input);
  free(inputs);
  return same;
}

/* Report progress through the callback. */
static void
progress(const vb_study_options *opt, long done, long total, long ran, double t0)
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
int
vb_study_merge(const vb_study *study, const char *out, const volatile int *stop, char *err,
               size_t errlen)
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

/* A scene in flight, seen by the watcher: one slot a thread. */
typedef struct flight {
  const vb_run *run; /* executing, or NULL */
  double t0;         /* when it started (now()), s */
} flight;

/* The watcher of a stop request and the scenes in flight it reports. */
typedef struct watch {
  pthread_mutex_t lock; /* guards slot[] (a run is freed only after its slot is cleared) */
  flight *slot;         /* [nslots] */
  int nslots;
  pthread_mutex_t nap;  /* guards done, for wake */
  pthread_cond_t wake;  /* signalled when done is set: the watcher returns at once */
  int done;             /* the scenes are over, the watcher returns */
  pthread_t thread;
} watch;

/* The state of one vb_study_run shared by its threads. */
typedef struct runner {
  const vb_study *study;
  const vb_study_options *opt;
  const char *out;
  vb_output *o;
  vb_study_report rep;
  long *pending, npending;
  watch *w;       /* NULL without opt->stop and opt->on_stop */
  long abandoned; /* scenes in flight abandoned (VB_STOP_ABANDON) */
  double t0, last, period;
  int stop;                /* an error stopped the run */
  int stop_rc;             /* its code */
  char first_err[ERR_MAX]; /* its message */
  int shared;              /* MPI: the ranks write one laid-out file (lay_shared) */
} runner;

/* This thread's scene in flight is run (NULL: none), for the watcher. */
static void
in_flight(const runner *r, const vb_run *run)
{
  int t = 0;

  if (!r->w)
    return;
#ifdef _OPENMP
  t = omp_get_thread_num();
#endif
  if (t >= r->w->nslots)
    return;
  pthread_mutex_lock(&r->w->lock);
  r->w->slot[t].run = run;
  r->w->slot[t].t0 = now();
  pthread_mutex_unlock(&r->w->lock);
}

/* The scenes in flight and the seconds until the last of them finishes:
 * each needs its elapsed time times (1 - f) / f more, f the fraction of
 * its steps done; NaN when one has done none yet. */
static long
flight_left(watch *w, double *seconds)
{
  long n = 0;

  *seconds = 0.0;
  pthread_mutex_lock(&w->lock);
  for (int k = 0; k < w->nslots; k++) {
    if (!w->slot[k].run)
      continue;
    double f = vb_run_fraction(w->slot[k].run), el = now() - w->slot[k].t0;
    double left = f > 0 ? el * (1 - f) / f : NAN;
    n++;
    if (!(left <= *seconds))
      *seconds = left; /* a NaN stays */
  }
  pthread_mutex_unlock(&w->lock);
  return n;
}

/* The watcher thread: at the first stop request, tell opt->on_stop once.
 * It looks at opt->stop every WATCH_PERIOD (a signal handler sets it, and
 * cannot signal a condition), and sleeps on w->wake, so that watch_end
 * does not wait out its nap: sleeping in nanosleep, it added up to 20 ms
 * (10 on average) to every `vibro run`, a third of a tiny scene's process. */
static void *
watch_main(void *arg)
{
  runner *r = arg;
  watch *w = r->w;

  pthread_mutex_lock(&w->nap);
  while (!w->done) {
    if (*r->opt->stop) {
      double seconds;
      pthread_mutex_unlock(&w->nap);
      long n = flight_left(w, &seconds);
      r->opt->on_stop(n, seconds, r->opt->stop_ctx);
      return NULL;
    }
    struct timespec until;
    clock_gettime(CLOCK_MONOTONIC, &until);
    until.tv_nsec += (long)(WATCH_PERIOD * 1e9);
    until.tv_sec += until.tv_nsec / 1000000000L;
    until.tv_nsec %= 1000000000L;
    pthread_cond_timedwait(&w->wake, &w->nap, &until);
  }
  pthread_mutex_unlock(&w->nap);
  return NULL;
}

/* The watcher's wake-up, on the monotonic clock (0, or an error). */
static int
wake_init(watch *w)
{
  pthread_condattr_t attr;
  int rc = pthread_condattr_init(&attr);

  if (rc == 0 && (rc = pthread_condattr_setclock(&attr, CLOCK_MONOTONIC)) == 0)
    rc = pthread_cond_init(&w->wake, &attr);
  pthread_condattr_destroy(&attr);
  if (rc == 0 && (rc = pthread_mutex_init(&w->nap, NULL)) != 0)
    pthread_cond_destroy(&w->wake);
  return rc;
}

/* Start the watcher (when the caller asked for the notice); on failure
 * there is no notice, and the run goes on. */
static void
watch_start(runner *r)
{
  watch *w;
  int n = 1;

  if (!r->opt->stop || !r->opt->on_stop || !(w = calloc(1, sizeof *w)))
    return;
#ifdef _OPENMP
  n = r->opt->threads > 0 ? r->opt->threads : omp_get_max_threads();
#endif
  w->nslots = n;
  w->slot = calloc((size_t)n, sizeof *w->slot);
  if (!w->slot || pthread_mutex_init(&w->lock, NULL) != 0) {
    free(w->slot);
    free(w);
    return;
  }
  if (wake_init(w) != 0) {
    pthread_mutex_destroy(&w->lock);
    free(w->slot);
    free(w);
    return;
  }
  r->w = w;
  if (pthread_create(&w->thread, NULL, watch_main, r) != 0) {
    r->w = NULL;
    pthread_cond_destroy(&w->wake);
    pthread_mutex_destroy(&w->nap);
    pthread_mutex_destroy(&w->lock);
    free(w->slot);
    free(w);
  }
}

/* Stop the watcher and free it. */
static void
watch_end(runner *r)
{
  watch *w = r->w;

  if (!w)
    return;
  pthread_mutex_lock(&w->nap);
  w->done = 1;
  pthread_cond_signal(&w->wake);
  pthread_mutex_unlock(&w->nap);
  pthread_join(w->thread, NULL);
  pthread_cond_destroy(&w->wake);
  pthread_mutex_destroy(&w->nap);
  pthread_mutex_destroy(&w->lock);
  free(w->slot);
  free(w);
  r->w = NULL;
}

/* Run scene `index` and pack it (in the calling thread); *code is the
 * run's status (VB_EINTR: abandoned, nothing packed).  VB_OK or an error
 * with the message in e. */
static int
scene_run(const runner *r, vb_study_doc *doc, long index, vb_laid_block *b, vb_scene **sc,
          vb_run **run, vb_laid_map **map, vb_packed_scene **packed, int *code, int *taken,
          char *e, size_t elen)
{
  int np = vb_study_nparams(r->study), p, rc = VB_OK;
  double params[64], *pv = np <= 64 ? params : malloc((size_t)np * sizeof *pv);

  if (!pv) {
    snprintf(e, elen, "%s: out of memory", r->out);
    return VB_ENOMEM;
  }
  for (p = 0; p < np; p++)
    pv[p] = vb_study_value(r->study, index, p);
  rc = doc ? vb_study_doc_scene(doc, index, sc, e, elen)
           : vb_study_scene(r->study, index, sc, e, elen);
  /* a large scene records straight into its row of the laid-out shard */
  if (rc == VB_OK)
    *map = vb_laid_map_scene(r->o, index, *sc);
  if (rc == VB_OK)
    rc = vb_run_alloc_into(*sc, vb_laid_map_into(*map), run, e, elen);
  if (rc == VB_OK) {
    vb_run_keep_subnormals(*run, r->opt->keep_subnormals);
    in_flight(r, *run);
    *code = r->opt->stop ? vb_run_exec_until(*run, r->opt->stop, VB_STOP_ABANDON)
                         : vb_run_exec(*run);
    in_flight(r, NULL);
  }
  /* a scene abandoned (code VB_EINTR) is not packed: a resume runs it */
  if (rc == VB_OK && *code == VB_EINTR)
    ;
  else if (rc == VB_OK && *map)
    rc = vb_laid_map_pack(r->o, *map, pv, *run, packed, e, elen);
  /* packing (copying) runs in this thread, outside the writer; a scene
   * that ran to its end goes into the thread's block, if any */
  else if (rc == VB_OK && b && *code == VB_OK)
    rc = vb_laid_block_pack(r->o, b, index, pv, *run, taken, e, elen);
  if (rc == VB_OK && !*taken && !*map && *code != VB_EINTR)
    rc = vb_output_pack(r->o, index, pv, *run, packed, e, elen);
  if (pv != params)
    free(pv);
  return rc;
}

/* The writer's part (one thread at a time): hand the packed scene to the
 * output, count it, report progress; the first error stops the run. */
static void
scene_write(runner *r, long index, const vb_run *run, vb_packed_scene **packed, int code, int lrc,
            char *e, size_t elen)
{
  if (!r->stop && lrc == VB_OK) {
    double tw = now();

    lrc = vb_output_add(r->o, *packed, e, elen);
    *packed = NULL;
    r->rep.write_seconds += now() - tw;
    if (lrc == VB_OK) {
      r->rep.ran++;
      r->rep.failed += code != VB_OK;
      if (code != VB_OK && (r->rep.first_failed < 0 || index < r->rep.first_failed)) {
        r->rep.first_failed = index;
        snprintf(r->rep.first_status, sizeof r->rep.first_status, "%s", vb_run_status(run));
      }
    }
  }
  if (!r->stop && lrc != VB_OK) {
    snprintf(r->first_err, ERR_MAX, "%s", e);
    r->stop_rc = lrc;
#ifdef _OPENMP
#pragma omp atomic write
#endif
    r->stop = 1;
  }
  if (!r->stop && now() - r->last >= r->period) {
    r->last = now();
    progress(r->opt, r->rep.kept + r->rep.ran, r->rep.scenes, r->rep.ran, r->t0);
  }
}

/* Write a thread's block of the laid-out shard (force 0: unless another
 * thread is writing) and add its scenes. */
static void
block_write(runner *r, vb_laid_block *b, int force)
{
  vb_packed_scene *sc[128]; /* vb_laid_block_rows() */
  char e[ERR_MAX];
  long n = 0, k;
  int lrc = vb_laid_block_write(r->o, b, force, sc, &n, e, sizeof e);

  if (lrc == VB_OK && n == 0)
    return; /* another thread was writing: the block is kept */
#ifdef _OPENMP
#pragma omp critical(vb_study_writer)
#endif
  {
    for (k = 0; k < n; k++)
      scene_write(r, sc[k]->index, NULL, &sc[k], VB_OK, lrc, e, sizeof e);
    if (lrc != VB_OK)
      scene_write(r, -1, NULL, NULL, VB_OK, lrc, e, sizeof e);
  }
  for (k = 0; k < n; k++)
    vb_packed_scene_free(sc[k]);
}

/* Run the pending scenes over the threads: one at a time (dynamic), or
 * with a laid-out shard in long runs of consecutive scenes (guided), which
 * each thread gathers in a block and writes in place (vb_laid_block_*). */
static void
scenes_run(runner *r)
{
  long i;
  int laid;
#ifdef _OPENMP
  omp_sched_t kind;
  int modifier;
#endif

  /* scenes one at a time, unless the threads gather blocks of consecutive
   * rows: a guided schedule's chunks of 8 left one thread up to 8 scenes
   * to run alone at the end of a study of large scenes, which take no
   * block (the ball on a plate: 96 scenes of 2.7 MB) */
  laid = vb_laid_block_rows(r->o) > 0;
  /* a threaded BLAS on one thread while the study's threads call it
   * (lib/base/lapack.c), its count given back below */
  int blas_threads = vb_blas_pin();
#ifdef _OPENMP
  /* the caller's schedule is given back below */
  omp_get_schedule(&kind, &modifier);
  omp_set_schedule(laid ? omp_sched_guided : omp_sched_dynamic, laid ? 8 : 1);
#pragma omp parallel num_threads(r->opt->threads > 0 ? r->opt->threads : omp_get_max_threads())
#endif
  {
    vb_laid_block *b = laid ? vb_laid_block_new(r->o) : NULL;
    /* the study's text parsed once per thread (NULL: once per scene) */
    vb_study_doc *doc = NULL;
    char de[8];
    vb_study_doc_open(r->study, &doc, de, sizeof de);

    /* one thread creates the laid-out shard while the others start */
#ifdef _OPENMP
    if (omp_get_thread_num() == 0) {
#pragma omp critical(vb_study_writer)
#endif
      vb_output_lay_create(r->o);
#ifdef _OPENMP
    }
#endif

#ifdef _OPENMP
#pragma omp for schedule(runtime) nowait
#endif
    for (i = 0; i < r->npending; i++) {
      vb_scene *sc = NULL;
      vb_run *run = NULL;
      vb_packed_scene *packed = NULL;
      vb_laid_map *map = NULL;
      char e[ERR_MAX];
      int lrc, code = VB_OK, halt, taken = 0, gone;

#ifdef _OPENMP
#pragma omp atomic read
#endif
      halt = r->stop;
      if (halt || (r->opt->stop && *r->opt->stop))
        continue;
      e[0] = '\0';
      if (b && !vb_laid_block_accepts(r->o, b, r->pending[i]))
        block_write(r, b, 1);
      lrc = scene_run(r, doc, r->pending[i], b, &sc, &run, &map, &packed, &code, &taken, e,
                      sizeof e);
      gone = lrc == VB_OK && code == VB_EINTR;
      if (gone) {
#ifdef _OPENMP
#pragma omp atomic update
#endif
        r->abandoned++;
      }
      if (taken && vb_laid_block_due(b))
        block_write(r, b, 0);
      else if (b && !taken)
        block_write(r, b, 1); /* the shard was dropped (or the scene did not fit):
                                 what the block holds goes to the batch now */
      if (!taken && !gone) {
#ifdef _OPENMP
#pragma omp critical(vb_study_writer)
#endif
        scene_write(r, r->pending[i], run, &packed, code, lrc, e, sizeof e);
      }
      vb_packed_scene_free(packed);
      vb_run_free(run);
      vb_laid_map_free(map);
      vb_scene_free(sc);
    }
    if (b)
      block_write(r, b, 1);
    vb_laid_block_free(b);
    vb_study_doc_free(doc);
  }
#ifdef _OPENMP
  omp_set_schedule(kind, modifier);
#endif
  vb_blas_unpin(blas_threads);
}

static int finish_shared(runner *r, int interrupted, int *finished, char *e, size_t elen);

/* After the loop: write what was finished, and say why the run stopped
 * (an error, a signal) or merge the shards.  The return code. */
static int
scenes_finish(runner *r, const vb_output_layout *lay, const char *part, char *err, size_t errlen)
{
  char e[ERR_MAX];
  int finished = 0, interrupted = !r->stop && r->opt->stop && *r->opt->stop, frc;
  long kept;

  /* a whole study run to its end by one writer is written as OUT at once;
   * by ranks writing one laid-out file, by rank 0 once it has every
   * rank's tables */
  frc = VB_OK;
  if (r->shared)
    frc = finish_shared(r, interrupted, &finished, e, sizeof e);
  if (frc != VB_OK || finished)
    ;
  else if (r->opt->nranks == 1 && !r->stop && !interrupted)
    frc = vb_output_finish(r->o, &finished, e, sizeof e);
  else
    frc = vb_output_flush(r->o, e, sizeof e);

  if (frc != VB_OK && !r->stop) {
    snprintf(r->first_err, ERR_MAX, "%s", e);
    r->stop_rc = frc;
    r->stop = 1;
  }
  kept = vb_output_scenes_done(r->o);
  if (r->stop) {
    /* out of memory or a full disk: say what is kept, if anything */
    if (strstr(r->first_err, "--resume") || strstr(r->first_err, "no scene was"))
      snprintf(err, errlen, "%s", r->first_err);
    else if (kept > 0)
      snprintf(err, errlen,
               "%s (the %ld finished scenes are kept in %s: run again with "
               "--resume to continue)",
               r->first_err, kept, part);
    else
      snprintf(err, errlen, "%s (no scene was finished)", r->first_err);
    return r->stop_rc;
  }
  if (interrupted && r->abandoned > 0) {
    snprintf(err, errlen,
             "%s: interrupted after %ld of %ld scenes, the %ld in flight abandoned; run again "
             "with --resume",
             r->out, kept, vb_study_scenes(r->study), r->abandoned);
    return VB_EINTR;
  }
  if (interrupted) {
    snprintf(err, errlen, "%s: interrupted after %ld of %ld scenes; run again with --resume",
             r->out, kept, vb_study_scenes(r->study));
    return VB_EINTR;
  }
  progress(r->opt, r->rep.kept + r->rep.ran, r->rep.scenes, r->rep.ran, r->t0);
  if (finished)
    return VB_OK;
  /* the output (and its lock) is kept through the merge, so that a second
   * writer is refused until OUT is in place (vb_study_run frees it); this
   * process wrote every shard, or summed its CRC-32 when it resumed */
  return r->opt->nranks == 1 ? vb_output_merge_shards(r->out, lay, 0, r->opt->stop, err, errlen)
                             : VB_OK;
}

/* Values in a dataset, or -1. */
static long
rows(hid_t ds)
{
  hid_t space = H5Dget_space(ds);
  long n = space >= 0 ? (long)H5Sget_simple_extent_npoints(space) : -1;
  vb_h5_close(space);
  return n;
}

/* A kept scene (index) that failed: counted, and the first one named
 * with its status (the report's first_failed is the lowest index). */
static void
kept_failed(runner *r, long index, const char *status)
{
  r->rep.failed++;
  if (r->rep.first_failed < 0 || index < r->rep.first_failed) {
    r->rep.first_failed = index;
    snprintf(r->rep.first_status, sizeof r->rep.first_status, "%s", status);
  }
}

/* The failed scenes of this rank in the finished file out (its table's
 * status_code and status), into the report.  VB_OK, or VB_EIO with err
 * when the column cannot be read (the file was checked just before). */
static int
finished_failures(runner *r, const char *out, char *err, size_t errlen)
{
  long n = vb_study_scenes(r->study), i;
  int *code = malloc((size_t)(n > 0 ? n : 1) * sizeof *code);
  int rc = VB_EIO;
  vb_h5quiet q;
  hid_t f, ds = -1, text = -1;

  if (!code) {
    snprintf(err, errlen, "%s: out of memory reading the table's status_code", out);
    return VB_ENOMEM;
  }
  vb_h5_quiet_begin(&q);
  f = H5Fopen(out, H5F_ACC_RDONLY, H5P_DEFAULT);
  if (f >= 0)
    ds = H5Dopen2(f, "study/table/status_code", H5P_DEFAULT);
  if (ds >= 0 && rows(ds) == n &&
      H5Dread(ds, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, code) >= 0) {
    rc = VB_OK;
    text = H5Dopen2(f, "study/table/status", H5P_DEFAULT);
    for (i = r->opt->rank; i < n; i += r->opt->nranks) {
      char status[VB_STATUS_LEN + 1] = "";
      hsize_t at = (hsize_t)i, one = 1;
      hid_t fs, ms, st;
      if (code[i] == VB_OK)
        continue;
      if (r->rep.first_failed < 0 && text >= 0) { /* the first: read its status text */
        fs = H5Dget_space(text);
        ms = H5Screate_simple(1, &one, NULL);
        st = H5Dget_type(text);
        if (fs >= 0 && ms >= 0 && st >= 0 && H5Tis_variable_str(st) == 0 &&
            H5Tget_size(st) <= VB_STATUS_LEN &&
            H5Sselect_hyperslab(fs, H5S_SELECT_SET, &at, NULL, &one, NULL) >= 0 &&
            H5Dread(text, st, ms, fs, H5P_DEFAULT, status) < 0)
          status[0] = '\0';
        vb_h5_close(st);
        vb_h5_close(ms);
        vb_h5_close(fs);
      }
      kept_failed(r, i, status[0] ? status : "kept from the earlier run (see /study/table)");
    }
  }
  vb_h5_close(text);
  vb_h5_close(ds);
  vb_h5_close(f);
  vb_h5_quiet_end(&q);
  free(code);
  if (rc != VB_OK)
    snprintf(err, errlen, "%s: cannot read /study/table/status_code of the finished file", out);
  return rc;
}

/* Open the output and list the scenes of this rank still to run. */
static int
scenes_plan(runner *r, const vb_output_layout *lay, char *err, size_t errlen)
{
  long i, nscenes = vb_study_scenes(r->study);
  int rc = vb_output_open(r->out, lay, r->opt->resume, r->opt->rank, &r->o, err, errlen);

  if (rc == VB_OK)
    vb_output_threads(r->o, r->opt->threads);

  for (i = r->opt->rank; rc == VB_OK && i < nscenes; i += r->opt->nranks) {
    r->rep.scenes++;
    if (!vb_output_complete(r->o, i)) {
      r->pending[r->npending++] = i;
    } else {
      r->rep.kept++;
      if (vb_output_status_code(r->o, i) != VB_OK)
        kept_failed(r, i, "kept from the earlier run (see status in /study/table)");
    }
  }
  return rc;
}

/* The samples and interval of scene i from its swept values (scene.fs,
 * scene.duration, record.every; the others as scene 0's), as the loader
 * and vb_scene_samples make them; 0 when a value is not one a scene may
 * have (the scene then fails, and the ranks do not share a file). */
static long
scene_shape(const vb_study *study, long i, double *interval)
{
  const vb_scene *s0 = vb_study_first(study);
  double fs = s0->fs, duration = s0->duration, every = (double)s0->record_every;

  for (int p = 0; p < vb_study_nparams(study); p++) {
    const char *path = vb_study_param(study, p);
    if (strcmp(path, "scene.fs") == 0)
      fs = vb_study_value(study, i, p);
    else if (strcmp(path, "scene.duration") == 0)
      duration = vb_study_value(study, i, p);
    else if (strcmp(path, "record.every") == 0)
      every = vb_study_value(study, i, p);
  }
  if (!(fs > 0.0) || !(duration >= 0.0) || !(every >= 1.0) || every != (double)(int)every ||
      duration * fs > 1e15)
    return 0;
  *interval = (double)(int)every / fs; /* as vb_format_pack */
  return lround(duration * fs) / (int)every + 1;
}

/* Whether a swept path changes a scene's samples or interval. */
static int
swept_length(const vb_study *study)
{
  for (int p = 0; p < vb_study_nparams(study); p++) {
    const char *path = vb_study_param(study, p);
    if (strcmp(path, "scene.fs") == 0 || strcmp(path, "scene.duration") == 0 ||
        strcmp(path, "record.every") == 0)
      return 1;
  }
  return 0;
}

/* The rows of one laid-out file for scenes of different lengths (a swept
 * duration, fs or record.every): every rank takes the samples of its
 * scenes in turn (i = rank, rank + nranks, ...) from their swept values,
 * and one collective gives every rank the longest (*T) and whether every
 * interval is scene 0's (*interval, else 0: time is then [scene][sample]).
 * The layout is known before any scene runs, so each rank writes its rows
 * at their final place; rank 0 checks at the end that the scenes had these
 * lengths (vb_laid_batch_fits).  -1 when the collective fails or a scene's
 * values are not valid.  Collective. */
static int
ragged_rows(runner *r, long *T, double *interval)
{
  const vb_study_ranks *k = r->opt->ranks;
  const vb_scene *s0 = vb_study_first(r->study);
  double i0 = (double)s0->record_every / s0->fs, di;
  long n = vb_study_scenes(r->study), v[3] = {0, 1, 1};

  for (long i = r->opt->rank; i < n; i += r->opt->nranks) {
    long t = scene_shape(r->study, i, &di);
    if (t <= 0)
      v[2] = 0;
    else {
      v[0] = -t > v[0] ? v[0] : -t; /* the longest, as a min */
      v[1] = v[1] && di == i0;
    }
  }
  if (k->min(v, 3, k->ctx) < 0 || !v[2] || v[0] >= 0)
    return -1;
  *T = -v[0];
  *interval = v[1] ? i0 : 0.0;
  return 0;
}

/* Lay out the scenes' signals before they run.  With the ranks'
 * collectives (vb_study_options.ranks, doc/mpi.md), when every rank is to
 * run all its scenes (nothing kept) and the whole study is laid out in one
 * file: rank 0 lays it out over every scene and creates it, and the other
 * ranks join it, so that each rank writes its scenes' rows into the file
 * that becomes OUT (r->shared).  Collective: every rank calls it, whatever
 * rc (a rank whose output failed to open says so with its vote).  Else each
 * rank lays out its own shard (vb_output_lay) as one process does. */
static void
lay_shared(runner *r, int rc)
{
  const vb_study_ranks *k = r->opt->ranks;
  long n = vb_study_scenes(r->study), vote, i, *all = NULL;
  unsigned char *share = NULL;
  int rank0 = r->opt->rank == 0;

  if (k && r->opt->nranks > 1) {
    vote = rc == VB_OK && r->rep.kept == 0 && r->npending == r->rep.scenes && n > 0 &&
           (all = malloc((size_t)n * sizeof *all)) != NULL &&
           (share = calloc(1, (size_t)vb_laid_share_size(r->o))) != NULL;
    for (i = 0; vote && i < n; i++)
      all[i] = i;
    /* scenes of different lengths: rows of the longest, known at load */
    long T = 0;
    double interval = 0.0;
    int ragged = swept_length(r->study);
    if (ragged && ragged_rows(r, &T, &interval) < 0)
      vote = 0;
    vote = vote && (ragged ? vb_output_lay_rows(r->o, all, n, T, interval) : vb_output_lay(r->o, all, n));
    if (k->min(&vote, 1, k->ctx) < 0)
      vote = 0;
    if (vote) {
      /* rank 0 makes the file; the others open it and take its offsets */
      if (rank0) {
        vb_laid_mark_shared(r->o);
        vb_output_lay_create(r->o);
        vb_laid_share_out(r->o, share);
      }
      vote = k->bcast(share, vb_laid_share_size(r->o), k->ctx) == 0 &&
             (rank0 ? vb_laid_whole(r->o, 1) : vb_laid_share_in(r->o, share) == 0);
      if (k->min(&vote, 1, k->ctx) < 0)
        vote = 0;
      r->shared = (int)vote;
    }
    if (r->shared) {
      /* the ranks take chunks of a block's rows in turn (chunk c to rank
       * c % nranks), so that a rank's blocks are consecutive rows written
       * with one pwrite per signal (rows in turn: one per scene and
       * signal, 18,000 for the 2000-scene study) and the ranks' loads
       * still balance over a sweep; nothing is kept, so any split will do */
      long c = vb_laid_block_cap(r->o), *p;
      c = c > 0 ? c : 1;
      /* a rank takes ceil(ceil(n / c) / nranks) chunks: at most n / nranks + c rows */
      long cap = n / r->opt->nranks + c + 1;
      p = realloc(r->pending, (size_t)cap * sizeof *p);
      if (p) {
        r->pending = p;
        r->npending = 0;
        for (long c0 = (long)r->opt->rank * c; c0 < n; c0 += (long)r->opt->nranks * c)
          for (i = c0; i < c0 + c && i < n && r->npending < cap; i++)
            r->pending[r->npending++] = i;
        r->rep.scenes = r->npending;
      }
    }
    if (!r->shared && rc == VB_OK)
      vb_output_unlay(r->o); /* rank 0 deletes the file it made, if any */
    free(all);
    free(share);
  }
  if (rc == VB_OK && !r->shared && r->opt->nranks == 1 && swept_length(r->study)) {
    /* one process, scenes of different lengths: rows of the longest too */
    const vb_scene *s0 = vb_study_first(r->study);
    double i0 = (double)s0->record_every / s0->fs, di, interval = i0;
    long T = 0, t;
    for (i = 0; i < r->npending && T >= 0; i++) {
      t = scene_shape(r->study, r->pending[i], &di);
      T = t <= 0 ? -1 : t > T ? t : T;
      interval = di == i0 ? interval : 0.0;
    }
    if (T > 0)
      vb_output_lay_rows(r->o, r->pending, r->npending, T, interval);
  } else if (rc == VB_OK && !r->shared)
    vb_output_lay(r->o, r->pending, r->npending);
}

/* The end of a run of ranks writing one laid-out file (r->shared), on
 * every rank: when every rank's batch is all its scenes, placed, the other
 * ranks hand their scenes (table rows, events; their signals are in
 * place) to rank 0, which writes the tables and renames the file onto
 * OUT (vb_output_finish): *finished 1 on every rank, and rank 0's
 * vb_output_finish's code.  Else (a rank stopped, spilled or failed)
 * nothing is handed: *finished 0, and each rank writes its shards, which
 * rank 0 merges.  Collective. */
static int
finish_shared(runner *r, int interrupted, int *finished, char *e, size_t elen)
{
  const vb_study_ranks *k = r->opt->ranks;
  int rank0 = r->opt->rank == 0, rc = VB_OK;
  long vote, *lens = NULL, mine = 0, nown;
  unsigned char *buf = NULL, *all = NULL;

  /* the scenes of this rank's checkpoints (listed, held) count too */
  vb_output_batch_unhold(r->o);
  vote = !r->stop && !interrupted && vb_laid_whole(r->o, rank0) &&
         vb_output_batch_placed(r->o, r->pending, r->npending);
  *finished = 0;
  if (!(lens = calloc((size_t)r->opt->nranks, sizeof *lens)))
    vote = 0;
  if (k->min(&vote, 1, k->ctx) < 0 || !vote) {
    free(lens);
    vb_output_batch_unlisted(r->o); /* they are in listed shards */
    return VB_OK;
  }
  /* rank 0 keeps its own scenes in its batch */
  if (!rank0 && vb_output_batch_pack(r->o, &buf, &mine) != VB_OK)
    mine = -1; /* rank 0 then lacks its scenes and says no */
  vote = k->gather(buf, mine > 0 ? mine : 0, &all, lens, k->ctx) == 0 && mine >= 0;
  nown = r->npending;
  if (rank0 && vote) {
    long at = 0;
    for (int q = 0; q < r->opt->nranks && rc == VB_OK; q++) {
      if (q > 0)
        rc = vb_output_batch_unpack(r->o, all + at, lens[q], e, elen);
      at += lens[q];
    }
    vote = rc == VB_OK;
    if (vote) {
      long *every = malloc((size_t)vb_study_scenes(r->study) * sizeof *every);
      for (long i = 0; every && i < vb_study_scenes(r->study); i++)
        every[i] = i;
      vote = every && vb_output_batch_placed(r->o, every, vb_study_scenes(r->study));
      free(every);
    }
    /* scenes of different lengths: as long as laid out (else the shards) */
    vote = vote && vb_laid_batch_fits(r->o);
    rc = VB_OK;
  }
  free(buf);
  free(all);
  free(lens);
  if (k->min(&vote, 1, k->ctx) < 0)
    vote = 0;
  if (!vote) {
    /* each rank writes its own scenes: rank 0 lets the others' go */
    if (rank0)
      vb_output_batch_keep(r->o, r->pending, nown);
    vb_output_batch_unlisted(r->o);
    return VB_OK;
  }
  *finished = 1;
  if (!rank0) {
    vb_output_batch_handed(r->o);
    return VB_OK;
  }
  return vb_output_finish(r->o, finished, e, elen);
}

/* Run a study's scenes into one output file. */
int
vb_study_run(const vb_study *study, const char *out, const vb_study_options *opt,
             vb_study_report *report, char *err, size_t errlen)
{
  vb_study_options defaults;
  vb_output_layout lay;
  runner *r = NULL;
  const char **names = NULL, **units = NULL;
  char *part = NULL, dummy[1];
  long i, nscenes = vb_study_scenes(study);
  int rc, np = vb_study_nparams(study);

  if (!err || errlen == 0) {
    err = dummy;
    errlen = sizeof dummy;
  }
  err[0] = '\0';
  memset(&defaults, 0, sizeof defaults);
  defaults.nranks = 1;
  if (!opt)
    opt = &defaults;
  if (report)
    memset(report, 0, sizeof *report);
  if (opt->nranks < 1 || opt->rank < 0 || opt->rank >= opt->nranks) {
    snprintf(err, errlen, "%s: bad rank %d of %d", out, opt->rank, opt->nranks);
    return VB_EINVAL;
  }
  rc = destination_refused(study, out, err, errlen);
  if (rc != VB_OK)
    return rc;
  r = calloc(1, sizeof *r);
  names = calloc((size_t)np + 1, sizeof *names);
  units = calloc((size_t)np + 1, sizeof *units);
  part = malloc(strlen(out) + sizeof PART_SUFFIX);
  if (r)
    r->pending = malloc((size_t)(nscenes / opt->nranks + 1) * sizeof *r->pending);
  if (!r || !names || !units || !part || !r->pending) {
    snprintf(err, errlen, "%s: out of memory", out);
    rc = VB_ENOMEM;
    goto done;
  }
  r->study = study;
  r->opt = opt;
  r->out = out;
  r->t0 = r->last = now();
  r->period = opt->progress_period > 0 ? opt->progress_period : PROGRESS_PERIOD;
  r->rep.first_failed = -1;
  strcpy(part, out);
  strcat(part, PART_SUFFIX);
  vb_study_layout(study, &lay, names, units);
  /* --resume after the end: the finished file is checked, nothing runs;
   * the scenes it holds that failed still fail the run */
  if (opt->resume == 1 && access(part, F_OK) != 0 && access(out, F_OK) == 0 &&
      finished_file(study, &lay, out)) {
    for (i = opt->rank; i < nscenes; i += opt->nranks)
      r->rep.scenes++;
    r->rep.kept = r->rep.scenes;
    rc = finished_failures(r, out, err, errlen);
    goto done;
  }
  rc = scenes_plan(r, &lay, err, errlen);
  lay_shared(r, rc);
  if (rc == VB_OK) {
    /* a first report at once: a study of long scenes shows itself started */
    progress(opt, r->rep.kept, r->rep.scenes, 0, r->t0);
    watch_start(r);
    scenes_run(r);
    watch_end(r);
    rc = scenes_finish(r, &lay, part, err, errlen);
  }
done:
  if (opt->lock)
    *opt->lock = r ? vb_output_take_lock(r->o) : -1;
  if (r) {
    /* an error (not an interruption) before any scene was finished
     * leaves no OUT.part/ that this run made */
    if (rc != VB_OK && rc != VB_EINTR && opt->nranks == 1)
      vb_output_discard(r->o);
    vb_output_free(r->o);
    r->rep.seconds = now() - r->t0;
    if (report)
      *report = r->rep;
    free(r->pending);
  }
  free(r);
  free(names);
  free(units);
  free(part);
  return rc;
}

/* A run stepped by its caller (vibro.h's stepping API), ended, written as
 * the output file of its one-scene study, as vb_study_run writes it (the
 * same crash-safe path: OUT.part/, one batch renamed onto OUT). */
int
vb_study_write_run(const vb_study *study, const vb_run *run, const char *out, char *err,
                   size_t errlen)
{
  vb_output_layout lay;
  vb_output *o = NULL;
  int np = vb_study_nparams(study), finished = 0, rc;
  const char **names = calloc((size_t)np + 1, sizeof *names);
  const char **units = calloc((size_t)np + 1, sizeof *units);
  double *pv = calloc((size_t)np + 1, sizeof *pv);

  if (vb_study_scenes(study) != 1) {
    rc = vb_errf(err, errlen, VB_EINVAL,
                 "%s: the study has %ld scenes; a run stepped by hand is written as the file "
                 "of a study of one scene (valid: a scene without a sweep; a whole study: "
                 "vb_study_run)",
                 out, vb_study_scenes(study));
    goto done;
  }
  if (!names || !units || !pv) {
    rc = vb_errf(err, errlen, VB_ENOMEM, "%s: out of memory", out);
    goto done;
  }
  rc = destination_refused(study, out, err, errlen);
  if (rc != VB_OK)
    goto done;
  vb_study_layout(study, &lay, names, units);
  for (int p = 0; p < np; p++)
    pv[p] = vb_study_value(study, 0, p);
  rc = vb_output_open(out, &lay, 0, 0, &o, err, errlen);
  if (rc == VB_OK)
    rc = vb_output_scene(o, 0, pv, run, err, errlen);
  if (rc == VB_OK)
    rc = vb_output_finish(o, &finished, err, errlen);
  if (rc == VB_OK && !finished)
    rc = vb_output_merge_shards(out, &lay, 0, NULL, err, errlen);
  if (rc != VB_OK && o)
    vb_output_discard(o);
  vb_output_free(o);
done:
  free(names);
  free(units);
  free(pv);
  return rc;
}
