/* cmd_run.c - vibro run: simulate a scene or a study and write its
 * output file. */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>
#include "config.h"
#ifdef _OPENMP
#include <omp.h>
#endif
#ifdef HAVE_MPI
#include <mpi.h>
#endif
#include "vibro.h"
#include "cli.h"
#include "h5read.h"
#include "outfile.h"

#define RANKS_MAX  1000 /* MPI ranks: OUT.part/ names them with 3 digits (rRRR) */

static const char description[] =
    "Simulate SCENE.cfg (a scene, or a study: a scene with a sweep block)\n"
    "and write OUT.h5 (layout vibro-3, see doc/format.md).  Scenes run in\n"
    "parallel; the results do not depend on the number of threads or ranks.\n"
    "Finished scenes are written as checksummed shards in OUT.h5.part/,\n"
    "merged into OUT.h5 once complete (--resume keeps the intact shards).\n"
    "OUT.h5 may not be the scene file or a file it reads (by inode), a\n"
    "directory or a symbolic link: such an output is refused at once.\n"
    "--resume refuses a .part written from a different input (the scene or\n"
    "any file it reads: @include, modes file, profile), naming the file.\n"
    "Without --resume, a .part holding finished scenes of the same input is\n"
    "refused (its finished work is never deleted unasked): --restart\n"
    "discards them and starts over.\n"
    "Before it runs it prints vibro check's warnings on stderr (the same\n"
    "lines) and counts them in its summary; --quiet leaves them out (a\n"
    "script's run prints only what stopped it).\n"
    "Under mpirun (built with --with-mpi) scenes are spread over the ranks;\n"
    "a study laid out in one file is written there by every rank, with no\n"
    "merge (doc/mpi.md).\n"
    "Exit status: 0 every scene done; 1 bad input or I/O error; 2 some scene\n"
    "did not finish cleanly (the table's status says why).\n";

/* What vibro run was asked for. */
typedef struct run_request {
  const char *scene; /* the scene file */
  const char *out;   /* the output file */
  int threads;       /* scenes at a time, 0 for the default */
  int resume;        /* 1: continue OUT.h5.part; VB_RESTART: discard it */
  int quiet;         /* no summary, no progress */
} run_request;

/* Refuse a recording that cannot fit on the output's file system. */
static int
check_disk(const char *out, double need, char *err, size_t errlen)
{
  char *copy = strdup(out);
  if (!copy)
    return 0;
  struct statvfs fs;
  int ok = statvfs(dirname(copy), &fs) == 0;
  free(copy);
  if (!ok)
    return 1; /* the writer reports a missing directory */
  double avail = (double)fs.f_bavail * (double)fs.f_frsize;
  if (need > avail) {
    snprintf(err, errlen,
             "%s: the recording needs up to %.3g bytes, only %.3g "
             "free on its file system; raise record.every or shorten the duration",
             out, need, avail);
    return 0;
  }
  return 1;
}

/* Set by SIGTERM, SIGINT or SIGHUP: the run stops taking scenes
 * (vb_study_options.stop); a second signal abandons the scenes in flight
 * (VB_STOP_ABANDON); the signal number gives the exit status. */
static volatile sig_atomic_t stop_signal;
static volatile int stop_flag;

static void
on_stop(int sig)
{
  static const char abandon[] =
      "vibro: abandoning the scenes in flight; writing the finished ones\n";

  stop_signal = sig;
  if (stop_flag == 1) {
    ssize_t said = write(2, abandon, sizeof abandon - 1); /* async-signal-safe */
    (void)said;
  }
  stop_flag = stop_flag ? VB_STOP_ABANDON : 1;
}

/* At the first signal (vb_study_options.on_stop, from the run's watcher
 * thread): what happens now, and how to stop sooner. */
static void
say_stopping(long running, double seconds, void *ctx)
{
  (void)ctx;
  if (running == 0) {
    fprintf(stderr, "vibro: stopping; no scene is in flight\n");
    return;
  }
  char when[48] = "time unknown";
  if (isfinite(seconds))
    snprintf(when, sizeof when, "about %.0f s", ceil(seconds));
  fprintf(stderr,
          "vibro: stopping after the %ld scene%s in flight (%s); press Ctrl-C again to "
          "abandon %s\n",
          running, running == 1 ? "" : "s", when, running == 1 ? "it" : "them");
  fflush(stderr);
}

/* Catch the signals a batch system or a user sends to stop a run; a file
 * size limit gives EFBIG (one message) instead of killing the process. */
static void
catch_signals(void)
{
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_stop;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGTERM, &sa, NULL);
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGHUP, &sa, NULL);
  signal(SIGXFSZ, SIG_IGN);
}

/* Where progress goes: a terminal or a log; this rank of how many. */
typedef struct progress_target {
  int tty;
  int rank, nranks;
} progress_target;

/* Progress: on a terminal one line rewritten in place; otherwise (a batch
 * log) one line per report, about every 10 s.  Under MPI, rank 0 reports
 * its own share of the scenes, and says so. */
static void
show_progress(const vb_study_progress *p, void *ctx)
{
  const progress_target *to = ctx;
  int tty = to->tty;
  char share[48] = "";
  char left[32];
  long t = isfinite(p->left) && p->left >= 0 ? (long)(p->left + 0.5) : -1;
  if (t < 0)
    snprintf(left, sizeof left, "?");
  else if (t >= 3600)
    snprintf(left, sizeof left, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
  else
    snprintf(left, sizeof left, "%ld:%02ld", t / 60, t % 60);
  if (to->nranks > 1)
    snprintf(share, sizeof share, " of rank %d (of %d)", to->rank, to->nranks);
  fprintf(stderr, "%s%ld/%ld scenes%s, %.3g/s, %s left%s", tty ? "\r" : "", p->done, p->total,
          share, p->rate, left, tty ? "   " : "\n");
  if (tty && p->done == p->total)
    fputc('\n', stderr);
  fflush(stderr);
}

#ifdef HAVE_MPI
/* Complete a nonblocking collective without spinning: a rank that is done
 * sleeps while the others run their scenes or rank 0 merges (a blocking
 * MPI call would busy-wait on a core the other ranks' threads need). */
static void
mpi_sleep_wait(MPI_Request *req)
{
  const struct timespec nap = {0, 2000000}; /* 2 ms */
  int done = 0;

  for (;;) {
    MPI_Test(req, &done, MPI_STATUS_IGNORE);
    if (done)
      break;
    nanosleep(&nap, NULL);
  }
}

/* vb_study_ranks over MPI_COMM_WORLD: nonblocking collectives, each
 * completed by mpi_sleep_wait (a rank waiting for the others sleeps). */
static int
ranks_min(long *v, int n, void *ctx)
{
  MPI_Request req;
  (void)ctx;
  if (MPI_Iallreduce(MPI_IN_PLACE, v, n, MPI_LONG, MPI_MIN, MPI_COMM_WORLD, &req) != MPI_SUCCESS)
    return -1;
  mpi_sleep_wait(&req);
  return 0;
}

static int
ranks_bcast(void *buf, long len, void *ctx)
{
  MPI_Request req;
  (void)ctx;
  if (len < 0 || len > INT_MAX ||
      MPI_Ibcast(buf, (int)len, MPI_BYTE, 0, MPI_COMM_WORLD, &req) != MPI_SUCCESS)
    return -1;
  mpi_sleep_wait(&req);
  return 0;
}

/* Every rank's length first (every rank then knows whether the bytes fit
 * an MPI count), then the bytes to rank 0. */
static int
ranks_gather(const void *buf, long len, unsigned char **all, long *lens, void *ctx)
{
  MPI_Request req;
  int rank, nranks, rc = 0;
  int *counts = NULL, *displs = NULL;
  long total = 0;
  (void)ctx;

  *all = NULL;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  if (MPI_Iallgather(&len, 1, MPI_LONG, lens, 1, MPI_LONG, MPI_COMM_WORLD, &req) != MPI_SUCCESS)
    return -1;
  mpi_sleep_wait(&req);
  for (int q = 0; q < nranks; q++)
    total += lens[q];
  if (total > INT_MAX)
    return -1; /* on every rank alike */
  if (rank == 0) {
    counts = malloc((size_t)nranks * sizeof *counts);
    displs = malloc((size_t)nranks * sizeof *displs);
    *all = malloc(total > 0 ? (size_t)total : 1);
    if (!counts || !displs || !*all)
      rc = -1;
    for (int q = 0, at = 0; rc == 0 && q < nranks; at += (int)lens[q], q++) {
      counts[q] = (int)lens[q];
      displs[q] = at;
    }
  }
  /* rank 0 says whether it can take them: every rank then gathers, or none */
  if (ranks_bcast(&rc, sizeof rc, NULL) < 0)
    rc = -1;
  if (rc == 0) {
    if (MPI_Igatherv(buf, (int)len, MPI_BYTE, *all, counts, displs, MPI_BYTE, 0, MPI_COMM_WORLD,
                     &req) != MPI_SUCCESS)
      rc = -1;
    else
      mpi_sleep_wait(&req);
  }
  free(counts);
  free(displs);
  if (rc != 0) {
    free(*all);
    *all = NULL;
  }
  return rc;
}

static const vb_study_ranks mpi_ranks = {
    .min = ranks_min, .bcast = ranks_bcast, .gather = ranks_gather, .ctx = NULL};

/* Whether an MPI launcher (mpirun, mpiexec, srun with PMI or PMIx)
 * started this process: only then is MPI initialised.  Started by hand,
 * Open MPI's MPI_Init would start a daemon and shared-memory files (half
 * a second, and they fail under a file size limit) for a run of one rank.
 * Ranks started by a launcher none of these names would each run the
 * whole study as rank 0 of 1: all but one are refused as second writers. */
static int
launched_by_mpi(void)
{
  static const char *const vars[] = {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE",
                                     "MPI_LOCALNRANKS"};

  for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++)
    if (getenv(vars[i]))
      return 1;
  return 0;
}

/* A fresh start over an MPI run: rank 0 alone clears OUT.part/ of an
 * earlier run (its files and those of ranks whose lock is free) before any
 * other rank takes its lock, so that the ranks then continue an empty
 * OUT.part/.  Started together, rank 0 could delete the new manifest of a
 * rank that just started, or its probe of that rank's lock refuse the
 * rank as a second writer.  VB_OK on every rank, or rank 0's error. */
static int
fresh_start(const vb_study *study, const char *out, int rank, int restart, char *err,
            size_t errlen)
{
  int rc = VB_OK, np = vb_study_nparams(study);

  if (rank == 0) {
    const char **names = calloc((size_t)np + 1, sizeof *names);
    const char **units = calloc((size_t)np + 1, sizeof *units);
    vb_output_layout lay;
    vb_output *o = NULL;
    if (names && units) {
      vb_study_layout(study, &lay, names, units);
      rc = vb_output_open(out, &lay, restart, 0, &o, err, errlen);
      vb_output_free(o);
    } else {
      snprintf(err, errlen, "%s: out of memory", out);
      rc = VB_ENOMEM;
    }
    free(names);
    free(units);
  }
  MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (rc != VB_OK && rank != 0)
    err[0] = '\0';
  return rc;
}

static int ranks_end(const vb_study *study, const char *out, const vb_study_options *opt,
                     vb_study_report *rep, int rc, char *err, size_t errlen);

/* Run a study over MPI ranks, scenes round-robin: every rank writes its
 * shards into OUT.part/ (resumable rank by rank), then rank 0 merges them
 * into OUT; or, for a study laid out in one file, the ranks write their
 * rows into the file that becomes OUT (vb_study_options.ranks,
 * doc/mpi.md).  The reports are summed; an interruption is reported once,
 * by rank 0, with the scenes of every rank, and every rank exits with the
 * signal's status; an error once, by the lowest rank it stopped. */
static int
run_ranks(const vb_study *study, const char *out, const vb_study_options *opt, vb_study_report *rep,
          char *err, size_t errlen)
{
  vb_study_options each = *opt;
  int rank = opt->rank, rc = VB_OK;

  each.ranks = &mpi_ranks;

  memset(rep, 0, sizeof *rep);
  rep->first_failed = -1;
  if (opt->resume != 1) {
    rc = fresh_start(study, out, rank, opt->resume, err, errlen);
    each.resume = 1; /* of the OUT.part/ rank 0 has emptied */
  }
  if (rc != VB_OK)
    return rc;
  /* this rank keeps its lock (doc/format.md) through rank 0's merge: while
   * it waits for the others, a second writer is refused instead of
   * deleting its shards */
  int lockfd = -1;
  each.lock = &lockfd;
  rc = vb_study_run(study, out, &each, rep, err, errlen);
  rc = ranks_end(study, out, opt, rep, rc, err, errlen);
  if (lockfd >= 0)
    close(lockfd);
  return rc;
}

/* The end of an MPI run, after this rank's vb_study_run returned rc: wait
 * for every rank, sum the reports, say once why the run stopped, or let
 * rank 0 merge. */
static int
ranks_end(const vb_study *study, const char *out, const vb_study_options *opt, vb_study_report *rep,
          int rc, char *err, size_t errlen)
{
  MPI_Request req;
  int rank = opt->rank;

  MPI_Ibarrier(MPI_COMM_WORLD, &req);
  mpi_sleep_wait(&req);
  int bad[2] = {rc != VB_OK ? (rc == VB_EINTR ? 1 : 2) : 0, stop_signal}, any[2];
  MPI_Allreduce(bad, any, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  long in[4] = {rep->scenes, rep->kept, rep->ran, rep->failed}, sum[4];
  MPI_Allreduce(in, sum, 4, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  if (any[0] == 1) {
    /* interrupted (and no error): one message, every rank's scenes */
    if (rank == 0)
      snprintf(err, errlen, "%s: interrupted after %ld of %ld scenes; run again with --resume", out,
               sum[1] + sum[2], vb_study_scenes(study));
    else
      err[0] = '\0';
    if (!stop_signal)
      stop_signal = any[1];
    return VB_EINTR;
  }
  if (any[0] == 2) {
    /* the lowest failing rank says why (the ranks often fail alike: a
     * different input, a second writer), the others are silent */
    int me = bad[0] == 2 ? rank : opt->nranks, lowest;
    MPI_Allreduce(&me, &lowest, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (rank != lowest)
      err[0] = '\0';
    return bad[0] == 2 ? rc : VB_EIO;
  }
  double t[2] = {rep->seconds, rep->write_seconds}, tmax[2];
  MPI_Allreduce(t, tmax, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  struct {
    long index;
    int rank;
  } first = {rep->first_failed >= 0 ? rep->first_failed : vb_study_scenes(study), rank}, lowest;
  MPI_Allreduce(&first, &lowest, 1, MPI_LONG_INT, MPI_MINLOC, MPI_COMM_WORLD);
  MPI_Bcast(rep->first_status, sizeof rep->first_status, MPI_CHAR, lowest.rank, MPI_COMM_WORLD);
  rep->scenes = sum[0];
  rep->kept = sum[1];
  rep->ran = sum[2];
  rep->failed = sum[3];
  rep->seconds = tmax[0];
  rep->write_seconds = tmax[1];
  rep->first_failed = lowest.index < vb_study_scenes(study) ? lowest.index : -1;
  /* rank 0 merges; the others sleep until it is done */
  int merged[2] = {VB_OK, 0};
  if (rank == 0) {
    char part[4200];
    snprintf(part, sizeof part, "%s.part", out);
    if (access(part, F_OK) == 0)
      merged[0] = vb_study_merge(study, out, opt->stop, err, errlen);
    merged[1] = stop_signal;
  }
  MPI_Ibcast(merged, 2, MPI_INT, 0, MPI_COMM_WORLD, &req);
  mpi_sleep_wait(&req);
  if (merged[0] != VB_OK && rank != 0)
    err[0] = '\0';
  if (merged[0] == VB_EINTR && !stop_signal)
    stop_signal = merged[1];
  return merged[0];
}
#endif

/* Refuse an output that is the scene file or a file it reads (by inode),
 * a directory or a symbolic link, before anything runs; 0 or -1.  The
 * files are those the load read (vb_study_inputs: the scene, each
 * @include and every data file, whatever key names it), not a scan of the
 * text, which missed a preset's `frequencies` and `initial` files. */
static int
check_output(const char *out, const vb_study *study)
{
  const char *list = vb_study_inputs(study), *p, *eol;
  const char **inputs;
  char *copy;
  int n = 1, rc;

  if (strcmp(out, "-") == 0)
    return cli_complain(out, "vibro run writes an HDF5 file, not standard output; name a file");
  for (p = list ? list : ""; *p; p++)
    n += *p == '\n';
  copy = strdup(list ? list : "");
  inputs = malloc((size_t)n * sizeof *inputs);
  if (!copy || !inputs) {
    free(copy);
    free(inputs);
    return cli_complain(out, "out of memory");
  }
  inputs[0] = vb_study_path(study);
  n = 1;
  /* "PATH CRC32\n" per file: the path is what comes before the last space */
  for (char *q = copy; (eol = strchr(q, '\n')) != NULL; q = (char *)eol + 1) {
    char *sp = (char *)eol;
    while (sp > q && *sp != ' ')
      sp--;
    if (sp > q) {
      *sp = '\0';
      inputs[n++] = q;
    }
  }
  rc = outfile_check(out, inputs, n);
  free(inputs);
  free(copy);
  return rc;
}

/* Print vibro check's warnings of the study (vb_study_warnings: the same
 * lines, from the same code) on stderr, "warning: " before each, before
 * anything runs; their number (lines beyond the buffer are counted, not
 * shown), -1 when out of memory. */
static int
check_warnings(const vb_study *study)
{
  enum { WARNINGS_MAX = 65536 };
  char *buf = malloc(WARNINGS_MAX);
  int n, shown = 0;

  if (!buf)
    return -1;
  buf[0] = '\0';
  n = vb_study_warnings(study, buf, WARNINGS_MAX);
  for (char *p = buf, *end; *p; p = end + 1, shown++) {
    end = strchr(p, '\n');
    if (!end)
      break;
    fprintf(stderr, "warning: %.*s\n", (int)(end - p), p);
  }
  if (shown < n)
    fprintf(stderr, "warning: ... %d more warnings\n", n - shown);
  fflush(stderr);
  free(buf);
  return n;
}

/* Scenes that ended inside an impact (the table's engaged_at_end, read
 * from OUT, so that kept scenes count too), as ", N ended inside an
 * impact (engaged_at_end)" for the summary line; "" when none. */
static void
engaged_text(const char *out, char *buf, size_t len)
{
  char format[TEXT_MAX];
  long first = -1, n = -1;
  hid_t f = output_open(out, format, sizeof format);

  buf[0] = '\0';
  if (f >= 0)
    n = rows_nonzero(f, "study/table/engaged_at_end", &first);
  close_id(f);
  if (n > 0)
    snprintf(buf, len, ", %ld ended inside an impact (engaged_at_end; first: scene %ld)", n,
             first);
}

/* Scenes done with an energy gain (their status begins "done, energy
 * gain": lib/run/run.c's done_status), read from OUT's table so that kept
 * scenes count too, as ", N done with an energy gain (first: scene I:
 * STATUS)" for the summary line; "" when none. */
static void
gain_text(const char *out, char *buf, size_t len)
{
  static const char prefix[] = "done, energy gain";
  char format[TEXT_MAX];
  namelist st = {0};
  long n = 0, first = -1;
  hid_t f = output_open(out, format, sizeof format);

  buf[0] = '\0';
  if (f >= 0 && column_texts(f, "study/table/status", &st) == 0)
    for (size_t i = 0; i < st.n; i++)
      if (strncmp(st.v[i], prefix, sizeof prefix - 1) == 0 && n++ == 0)
        first = (long)i;
  close_id(f);
  if (n > 0)
    snprintf(buf, len, ", %ld done with an energy gain (a numerical failure; first: scene %ld: %s)",
             n, first, st.v[first]);
  names_free(&st);
}

/* The summary line and, when scenes failed, why; the exit status. */
static int
report(const run_request *rq, const vb_study *study, const vb_study_report *rep, int warnings,
       int rank)
{
  if (rank != 0)
    return rep->failed > 0 ? 2 : 0;
  if (!rq->quiet) {
    char engaged[96], gain[320], warned[64] = "";
    engaged_text(rq->out, engaged, sizeof engaged);
    gain_text(rq->out, gain, sizeof gain);
    if (warnings > 0)
      snprintf(warned, sizeof warned, ", %d warning%s (vibro check's, above)", warnings,
               warnings == 1 ? "" : "s");
    char writing[48];
    /* what writing the output took, in words that read (not "4.25e-07 s") */
    if (rep->write_seconds < 1e-3)
      snprintf(writing, sizeof writing, "under 1 ms");
    else
      snprintf(writing, sizeof writing, "%.3g s", rep->write_seconds);
    printf("%s: %ld scene%s (%ld run, %ld kept), %ld did not finish%s%s%s, %.3g s, %s "
           "writing -> %s\n",
           rq->scene, vb_study_scenes(study), vb_study_scenes(study) == 1 ? "" : "s", rep->ran,
           rep->kept, rep->failed, engaged, gain, warned, rep->seconds, writing, rq->out);
  }
  if (rep->failed <= 0)
    return 0;
  if (vb_study_scenes(study) == 1)
    fprintf(stderr, "%s: scene '%s' did not finish: %s\n", rq->scene, vb_study_first(study)->name,
            rep->first_status);
  else
    fprintf(stderr,
            "%s: %ld of %ld scenes did not finish%s%s (status_code in "
            "/study/table)\n",
            rq->scene, rep->failed, vb_study_scenes(study),
            rep->first_failed >= 0 ? "; first: " : "",
            rep->first_failed >= 0 ? rep->first_status : "");
  return 2;
}

/* Load, check and run the study; the exit status. */
static int
run_study(const run_request *rq, int rank, int nranks)
{
  char err[CLI_ERRLEN];
  vb_study *study = NULL;
  vb_study_report rep;
  int status = 0, rc;

#ifdef _OPENMP
  /* -j N is every thread of this process: the load's validation, the
   * scenes and the writer's staging and sums (an MPI job with a rank per
   * core asks -j 1 and gets one) */
  if (rq->threads > 0)
    omp_set_num_threads(rq->threads);
#endif
  if (vb_study_load(rq->scene, &study, err, sizeof err) != VB_OK) {
    if (rank == 0)
      fprintf(stderr, "%s\n", err);
    status = 1;
  }
  if (status == 0 && rank == 0 && nranks > RANKS_MAX) {
    fprintf(stderr,
            "%s: %d MPI ranks, at most %d can write OUT.part/; run one rank per node (or "
            "per socket) with -j threads\n",
            rq->out, nranks, RANKS_MAX);
    status = 1;
  }
  if (status == 0 && rank == 0 && check_output(rq->out, study) < 0)
    status = 1;
  if (status == 0 && rank == 0 &&
      !check_disk(rq->out, vb_study_record_total(study), err, sizeof err)) {
    fprintf(stderr, "%s\n", err);
    status = 1;
  }
  int warnings = 0;
  if (status == 0 && rank == 0 && !rq->quiet && (warnings = check_warnings(study)) < 0) {
    fprintf(stderr, "%s: out of memory checking the scenes\n", rq->scene);
    status = 1;
  }
#ifdef HAVE_MPI
  if (nranks > 1)
    MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
#endif
  if (status) {
    vb_study_free(study);
    return status;
  }
  /* No more threads than scenes: a team that has nothing to do still
   * costs its start-up */
  int threads = rq->threads;
  if ((threads == 0 || threads > vb_study_scenes(study)) && vb_study_scenes(study) < 2)
    threads = 1;
  else if (threads > vb_study_scenes(study))
    threads = (int)vb_study_scenes(study);
  progress_target to = {.tty = isatty(2), .rank = rank, .nranks = nranks};
  vb_study_options opt = {.threads = threads,
                          .resume = rq->resume,
                          .rank = rank,
                          .nranks = nranks,
                          .progress_ctx = &to,
                          .progress_period = to.tty ? 0.25 : 10.0,
                          .stop = &stop_flag,
                          .keep_subnormals = cli_keep_subnormals()};
  if (rank == 0)
    opt.on_stop = say_stopping;
  if (!rq->quiet && rank == 0)
    opt.on_progress = show_progress;
  catch_signals();
#ifdef HAVE_MPI
  if (nranks > 1)
    rc = run_ranks(study, rq->out, &opt, &rep, err, sizeof err);
  else
#endif
    rc = vb_study_run(study, rq->out, &opt, &rep, err, sizeof err);
  if (rc != VB_OK) {
    if (err[0])
      fprintf(stderr, "%s\n", err);
    status = rc == VB_EINTR && stop_signal ? 128 + stop_signal : 1;
  } else {
    status = report(rq, study, &rep, warnings, rank);
  }
  vb_study_free(study);
  return status;
}

enum { OPT_RESUME = 256, OPT_RESTART };

static const cli_option options[] = {
    {'o', "output", "OUT.h5", "the output file (required)"},
    {'j', "jobs", "N",
     "run N scenes at a time, N threads in all (default: OMP_NUM_THREADS or all cores)"},
    {OPT_RESUME, "resume", NULL, "continue from OUT.h5.part, keeping its complete scenes"},
    {OPT_RESTART, "restart", NULL, "start over, discarding the finished scenes in OUT.h5.part"},
    {'q', "quiet", NULL, "no warnings, no summary, no progress line (shown only on a terminal)"},
    {0, NULL, NULL, NULL},
};

/* Read the command line into rq; 0, 'h' after help, or 1 after a message. */
static int
parse(const cli_command *cmd, int argc, char **argv, run_request *rq)
{
  static const char *const operands[] = {"SCENE.cfg"};
  cli_args a;
  long jobs;
  int key, rc = 0;

  cli_begin(&a, cmd, argc, argv);
  while (rc == 0 && (key = cli_next(&a)) > 0 && key != 'h') {
    if (key == 'o') {
      rq->out = a.value;
    } else if (key == 'j') {
      if (cli_long(a.value, 1, 4096, &jobs) < 0)
        rc = cli_fail(cmd, "-j %s: not a number of threads (valid: 1 to 4096)", a.value);
      rq->threads = (int)jobs;
    } else if (key == OPT_RESUME || key == OPT_RESTART) {
      if (rq->resume && rq->resume != (key == OPT_RESUME ? 1 : VB_RESTART))
        rc = cli_fail(cmd, "--resume and --restart: choose one (valid: --resume keeps the "
                           "finished scenes, --restart discards them)");
      rq->resume = key == OPT_RESUME ? 1 : VB_RESTART;
    } else if (key == 'q') {
      rq->quiet = 1;
    }
  }
  if (rc == 0 && key != 0)
    rc = key == 'h' ? 'h' : 1;
  if (rc == 0 && cli_operands(&a, 1, operands) < 0)
    rc = 1;
  if (rc == 0 && !rq->out)
    rc = cli_fail(cmd, "missing -o OUT.h5 (see vibro help run)");
  if (rc == 0)
    rq->scene = a.operands[0];
  cli_end(&a);
  return rc;
}

/* vibro run */
static int
run_main(const cli_command *cmd, int argc, char **argv)
{
  run_request rq = {0};
  int rank = 0, nranks = 1, status;

  status = parse(cmd, argc, argv, &rq);
  if (status)
    return status == 'h' ? 0 : status;
#ifdef HAVE_MPI
  int provided, mpi = launched_by_mpi();
  if (mpi) {
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  }
#endif
  status = run_study(&rq, rank, nranks);
#ifdef HAVE_MPI
  if (mpi)
    MPI_Finalize();
#endif
  return status;
}

const cli_command cli_run = {
    .name = "run",
    .synopsis = "SCENE.cfg -o OUT.h5 [-j N] [--resume | --restart] [-q]",
    .summary = "simulate a scene or a study and write the HDF5 output",
    .description = description,
    .options = options,
    .main = run_main,
};
