/* vibro.c - the vibro command: run and check scene files and studies. */
#include <errno.h>
#include <libgen.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>
#include "config.h"
#ifdef HAVE_MPI
#include <mpi.h>
#endif
#include "vibro.h"
#include <hdf5.h>
#include "output_v1.h"
#include "inspect.h"

#define ERRLEN 1024

static const char usage_main[] =
  "usage: vibro COMMAND [OPTIONS]\n"
  "\n"
  "Multi-body vibro-impact simulation.\n"
  "\n"
  "commands:\n"
  "  run SCENE.cfg -o OUT.h5   simulate a scene and write the HDF5 output\n"
  "  check SCENE.cfg           validate a scene and print what to expect\n"
  "  info OUT.h5               an output file at a glance: scenes, status, impacts\n"
  "  events OUT.h5             the impact tables, as text or CSV\n"
  "  export OUT.h5 ...         a recorded signal as CSV or WAV\n"
  "\n"
  "Plots: vibro-plot --help.  Manual: man vibro.\n"
  "\n"
  "options:\n"
  "  -h, --help                this help (or `vibro COMMAND --help`)\n"
  "  -V, --version             print the version\n"
  "\n"
  "exit status: 0 success, 1 bad input or I/O error, 2 a scene did not finish\n"
  "(diverged, or Newton failed: the output file records why).\n";

static const char usage_run[] =
  "usage: vibro run SCENE.cfg -o OUT.h5 [-j N] [--resume] [--quiet]\n"
  "\n"
  "Simulate SCENE.cfg (a scene, or a study: a scene with a sweep block)\n"
  "and write OUT.h5 (layout vibro-1, see README.md).  Scenes run in\n"
  "parallel; the results do not depend on the number of threads or ranks.\n"
  "The file is written as OUT.h5.part and appears only once complete.\n"
  "\n"
  "  -j N        run N scenes at a time (default: OMP_NUM_THREADS or all cores)\n"
  "  --resume    continue an interrupted run from OUT.h5.part, keeping its\n"
  "              complete scenes (refused if the input has changed)\n"
  "  -q, --quiet no summary, no progress line (shown only on a terminal)\n"
  "\n"
  "Under mpirun (built with --with-mpi) scenes are spread over the ranks.\n"
  "Exit status: 0 every scene done; 1 bad input or I/O error; 2 some scene\n"
  "did not finish cleanly (the table's status says why).\n";

static const char usage_check[] =
  "usage: vibro check SCENE.cfg\n"
  "\n"
  "Validate SCENE.cfg (every scene of a study) and print, for a study, the\n"
  "number of scenes and the head of the parameter table; then, for the\n"
  "(first) scene and per contact, its scheme, the analytic\n"
  "x_max, v_out and contact time for the initial approach velocity, the\n"
  "contact time in samples, and a warning where the sample rate is too low\n"
  "for the scheme (Papetti 3.3.2, Chatziioannou 2.1).\n";

/* True if s is -h or --help. */
static int
is_help(const char *s)
{
  return strcmp(s, "-h") == 0 || strcmp(s, "--help") == 0;
}

/* Number of contacts of a scene shorter than their scheme resolves, for
 * the approach the initial state gives. */
static int
short_contacts(const vb_scene *sc)
{
  int n = 0;
  for (int c = 0; c < sc->ncontacts; c++) {
    const vb_contact *ct = &sc->contacts[c];
    if (ct->law.kind == VB_LAW_POLYNOMIAL || ct->law.kind == VB_LAW_SPRING)
      continue;
    double m;
    double v_in = vb_scene_approach_rate(sc, c, &m);
    if (!(v_in > 0.0))
      continue;
    vb_prediction pr;
    vb_law_predict(&ct->law, m, v_in, &pr);
    n += pr.duration * sc->fs < ct->scheme->min_contact_steps;
  }
  return n;
}

/* The size of a study and the head of its parameter table. */
static void
print_study(const vb_study *st)
{
  long n = vb_study_scenes(st), head = n < 8 ? n : 8;
  int np = vb_study_nparams(st);
  printf("study: %ld scenes, mode %s, %d parameter%s\n", n, vb_study_mode(st), np,
         np == 1 ? "" : "s");
  printf("  %8s", "scene");
  for (int p = 0; p < np; p++)
    printf("  %16s", vb_study_param(st, p));
  printf("\n");
  for (long i = 0; i < head; i++) {
    printf("  %8ld", i);
    for (int p = 0; p < np; p++)
      printf("  %16.10g", vb_study_value(st, i, p));
    printf("\n");
  }
  if (head < n)
    printf("  ... %ld more\n", n - head);
  printf("scene 0 of the study:\n");
}

/* Warn once for the scenes of a study (beyond scene 0) that have a contact
 * shorter than their scheme resolves; returns 1 if there are any. */
static int
study_warnings(const vb_study *st)
{
  long n = vb_study_scenes(st), count = 0, first = -1;
  char err[ERRLEN];
  for (long i = 1; i < n; i++) {
    vb_scene *sc;
    if (vb_study_scene(st, i, &sc, err, sizeof err) != VB_OK)
      continue;
    if (short_contacts(sc)) {
      count++;
      if (first < 0)
        first = i;
    }
    vb_scene_free(sc);
  }
  if (!count)
    return 0;
  printf("warning: %ld of the other %ld scenes have a contact shorter than its scheme "
         "resolves (first: scene %ld)\n", count, n - 1, first);
  return 1;
}

/* vibro check */
static int
cmd_check(int argc, char **argv)
{
  if (argc < 2 || is_help(argv[1])) {
    fputs(usage_check, argc < 2 ? stderr : stdout);
    return argc < 2 ? 1 : 0;
  }
  char err[ERRLEN];
  vb_study *study;
  if (vb_study_load(argv[1], &study, err, sizeof err) != VB_OK) {
    fprintf(stderr, "%s\n", err);
    return 1;
  }
  if (vb_study_scenes(study) > 1)
    print_study(study);
  const vb_scene *sc = vb_study_first(study);
  double dt = 1.0 / sc->fs;
  int warnings = 0;
  printf("scene '%s': fs %g Hz, duration %g s (%ld steps), gravity %g m/s^2\n",
         sc->name, sc->fs, sc->duration, vb_scene_steps(sc), sc->gravity);
  printf("recording: every %ld steps, %ld samples, %.3g bytes\n", sc->record_every,
         vb_scene_samples(sc), vb_scene_record_bytes(sc));
  for (int i = 0; i < sc->nbodies; i++) {
    const vb_body *b = &sc->bodies[i];
    if (b->kind == VB_BODY_MASS)
      printf("body '%s': mass %g kg, u0 %g m, v0 %g m/s%s\n", b->name, b->mass, b->u0, b->v0,
             b->k > 0.0 || b->c > 0.0 ? ", on a spring to ground" : "");
    else if (b->kind == VB_BODY_MODAL)
      printf("body '%s': modal, %d modes (%g .. %g Hz), %d points\n", b->name, b->nmodes,
             b->freq[0], b->freq[b->nmodes - 1], b->npoints);
    else
      printf("body '%s': wall at %g m%s\n", b->name, b->u0,
             b->drive.kind == VB_DRIVE_NONE ? "" : ", driven");
  }
  for (int c = 0; c < sc->ncontacts; c++) {
    const vb_contact *ct = &sc->contacts[c];
    const vb_body *a = &sc->bodies[ct->a], *b = &sc->bodies[ct->b];
    double m;
    double v_in = vb_scene_approach_rate(sc, c, &m);
    printf("contact '%s' between '%s%s%s' and '%s%s%s', law %s, scheme %s (%s)\n", ct->name,
           a->name, a->kind == VB_BODY_MODAL ? "." : "",
           a->kind == VB_BODY_MODAL ? a->points[ct->pa].name : "", b->name,
           b->kind == VB_BODY_MODAL ? "." : "", b->kind == VB_BODY_MODAL ? b->points[ct->pb].name : "",
           vb_law_name(ct->law.kind), ct->scheme->name, ct->scheme->doc);
    printf("  effective mass %g kg, k %g", m, ct->law.k);
    if (ct->law.kind != VB_LAW_SPRING)
      printf(", alpha %g", ct->law.alpha);
    if (ct->law.kind == VB_LAW_HUNT_CROSSLEY)
      printf(", mu %g s/m", ct->law.mu);
    if (ct->law.kind == VB_LAW_RATTLE)
      printf(", h %g m", ct->law.h);
    if (ct->law.kind == VB_LAW_SPRING)
      printf(", c %g N s/m", ct->law.c);
    if (ct->corrections)
      printf(", corrections%s%s (vout %s)", ct->corrections & VB_CORRECT_XMAX ? " xmax" : "",
             ct->corrections & VB_CORRECT_VOUT ? " vout" : "", ct->vout_exact ? "exact" : "approx");
    printf("\n");
    if (ct->exact_duration) {
      double w, limit, used;
      vb_contact_exact_duration(sc, c, &w, &limit, &used);
      printf("  exact_duration: omega_c %.6g rad/s, contact time %.6g s = %.3g samples\n", w,
             M_PI / w, M_PI / w / dt);
      if (used != w) {
        printf("  warning: contact '%s' saturated: the sample rate resolves contacts down to "
               "%.6g s (%.3g samples), not the %.6g s this one lasts; it will last %.6g s\n",
               ct->name, M_PI / limit, M_PI / limit / dt, M_PI / w, M_PI / used);
        warnings++;
      }
    }
    if (ct->law.kind == VB_LAW_POLYNOMIAL || ct->law.kind == VB_LAW_SPRING) {
      printf("  %s: always engaged, no impacts\n", vb_law_name(ct->law.kind));
      continue;
    }
    if (!(v_in > 0.0)) {
      printf("  no impact follows from the initial state\n");
      continue;
    }
    vb_prediction pr;
    vb_law_predict(&ct->law, m, v_in, &pr);
    double samples = pr.duration / dt;
    printf("  at v_in %.6g m/s: x_max %.6g m, v_out %.6g m/s (eq 7-8: %.6g), "
           "contact time %.6g s = %.3g samples\n",
           v_in, pr.x_max, pr.v_out_exact, pr.v_out, pr.duration, samples);
    if (samples < ct->scheme->min_contact_steps) {
      printf("  warning: contact '%s' lasts %.3g samples, shorter than the %d "
             "scheme '%s' resolves; raise fs above %.6g Hz\n",
             ct->name, samples, ct->scheme->min_contact_steps, ct->scheme->name,
             ct->scheme->min_contact_steps / pr.duration);
      warnings++;
    }
  }
  if (vb_study_scenes(study) > 1)
    warnings += study_warnings(study);
  printf("%s: valid, %d warning%s\n", argv[1], warnings, warnings == 1 ? "" : "s");
  vb_study_free(study);
  return 0;
}

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
    snprintf(err, errlen, "%s: the recording needs up to %.3g bytes, only %.3g "
             "free on its file system; raise record.every or shorten the duration",
             out, need, avail);
    return 0;
  }
  return 1;
}

/* Set by SIGTERM, SIGINT or SIGHUP: the run stops taking scenes
 * (vb_study_options.stop); the signal number, for the exit status. */
static volatile sig_atomic_t stop_signal;
static volatile int stop_flag;

static void
on_stop(int sig)
{
  stop_signal = sig;
  stop_flag = 1;
}

/* Catch the signals a batch system or a user sends to stop a run; a
 * file size limit gives EFBIG (a message) instead of killing. */
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

/* Progress: on a terminal a line rewritten in place; otherwise (a batch
 * log) one line per report. */
static void
show_progress(const vb_study_progress *p, void *ctx)
{
  int tty = *(const int *)ctx;
  char left[32];
  long t = isfinite(p->left) && p->left >= 0 ? (long)(p->left + 0.5) : -1;
  if (t < 0)
    snprintf(left, sizeof left, "?");
  else if (t >= 3600)
    snprintf(left, sizeof left, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
  else
    snprintf(left, sizeof left, "%ld:%02ld", t / 60, t % 60);
  fprintf(stderr, "%s%ld/%ld scenes, %.3g/s, %s left%s", tty ? "\r" : "", p->done, p->total,
          p->rate, left, tty ? "   " : "\n");
  if (tty && p->done == p->total)
    fputc('\n', stderr);
  fflush(stderr);
}

#ifdef HAVE_MPI
/* Run a study over MPI ranks, scenes round-robin: every rank writes its
 * shards into OUT.part/ (resumable rank by rank), then rank 0 merges them
 * into OUT.  The reports are summed. */
static int
run_ranks(const vb_study *study, const char *out, const vb_study_options *opt,
          vb_study_report *rep, char *err, size_t errlen)
{
  int rank = opt->rank, rc;
  memset(rep, 0, sizeof *rep);
  rep->first_failed = -1;
  rc = vb_study_run(study, out, opt, rep, err, errlen);
  int bad = rc != VB_OK ? (rc == VB_EINTR ? 1 : 2) : 0, any_bad;
  MPI_Allreduce(&bad, &any_bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (any_bad) {
    if (!bad)
      err[0] = '\0';
    return any_bad == 1 ? VB_EINTR : VB_EIO;
  }
  long in[4] = { rep->scenes, rep->kept, rep->ran, rep->failed }, sum[4];
  MPI_Allreduce(in, sum, 4, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  double t[2] = { rep->seconds, rep->write_seconds }, tmax[2];
  MPI_Allreduce(t, tmax, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  struct { long index; int rank; } first = { rep->first_failed >= 0 ? rep->first_failed
                                                                    : vb_study_scenes(study),
                                             rank }, lowest;
  MPI_Allreduce(&first, &lowest, 1, MPI_LONG_INT, MPI_MINLOC, MPI_COMM_WORLD);
  MPI_Bcast(rep->first_status, sizeof rep->first_status, MPI_CHAR, lowest.rank,
            MPI_COMM_WORLD);
  rep->scenes = sum[0];
  rep->kept = sum[1];
  rep->ran = sum[2];
  rep->failed = sum[3];
  rep->seconds = tmax[0];
  rep->write_seconds = tmax[1];
  rep->first_failed = lowest.index < vb_study_scenes(study) ? lowest.index : -1;
  rc = VB_OK;
  if (rank == 0) {
    char part[4200];
    snprintf(part, sizeof part, "%s.part", out);
    if (access(part, F_OK) == 0)
      rc = vb_study_merge(study, out, opt->stop, err, errlen);
  }
  MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (rc != VB_OK && rank != 0)
    err[0] = '\0';
  return rc;
}
#endif

#ifdef HAVE_MPI
/* vibro-1 (transitional): run a study over MPI ranks, scenes round-robin: rank K writes
 * OUT.rankK (through OUT.rankK.part, resumable), then rank 0 joins the
 * rank files into OUT and removes them.  The reports are summed. */
static int
run_ranks_v1(const vb_study *study, const char *out, const vb_study_options *opt,
          vb_study_report *rep, char *err, size_t errlen)
{
  int rank = opt->rank, nranks = opt->nranks, rc = VB_OK;
  char mine[4096], mine_part[4200];
  snprintf(mine, sizeof mine, "%s.rank%d", out, rank);
  snprintf(mine_part, sizeof mine_part, "%s.part", mine);
  /* resuming after the join: rank 0 only checks the finished file */
  int skip = opt->resume && access(out, F_OK) == 0 && access(mine, F_OK) != 0
             && access(mine_part, F_OK) != 0, all_skip;
  MPI_Allreduce(&skip, &all_skip, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  memset(rep, 0, sizeof *rep);
  rep->first_failed = -1;
  if (all_skip) {
    vb_study_options one = *opt;
    one.rank = 0;
    one.nranks = 1;
    if (rank == 0)
      rc = vb_study_run(study, out, &one, rep, err, errlen);
  } else {
    rc = vb_study_run(study, mine, opt, rep, err, errlen);
  }
  int bad = rc != VB_OK, any_bad;
  MPI_Allreduce(&bad, &any_bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (any_bad) {
    if (!bad)
      err[0] = '\0';
    return VB_EIO;
  }
  long in[4] = { rep->scenes, rep->kept, rep->ran, rep->failed }, sum[4];
  MPI_Allreduce(in, sum, 4, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  double t[2] = { rep->seconds, rep->write_seconds }, tmax[2];
  MPI_Allreduce(t, tmax, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  struct { long index; int rank; } first = { rep->first_failed >= 0 ? rep->first_failed
                                                                    : vb_study_scenes(study),
                                             rank }, lowest;
  MPI_Allreduce(&first, &lowest, 1, MPI_LONG_INT, MPI_MINLOC, MPI_COMM_WORLD);
  MPI_Bcast(rep->first_status, sizeof rep->first_status, MPI_CHAR, lowest.rank,
            MPI_COMM_WORLD);
  rep->scenes = sum[0];
  rep->kept = sum[1];
  rep->ran = sum[2];
  rep->failed = sum[3];
  rep->seconds = tmax[0];
  rep->write_seconds = tmax[1];
  rep->first_failed = lowest.index < vb_study_scenes(study) ? lowest.index : -1;
  if (all_skip)
    return VB_OK;
  if (rank == 0) {
    char **parts = calloc((size_t)nranks, sizeof *parts);
    rc = parts ? VB_OK : VB_ENOMEM;
    for (int r = 0; r < nranks && rc == VB_OK; r++) {
      parts[r] = malloc(strlen(out) + 32);
      if (!parts[r])
        rc = VB_ENOMEM;
      else
        sprintf(parts[r], "%s.rank%d", out, r);
    }
    if (rc == VB_OK)
      rc = vb_v1_merge(out, study, (const char *const *)parts, nranks, err, errlen);
    else
      snprintf(err, errlen, "%s: out of memory", out);
    for (int r = 0; parts && r < nranks; r++) {
      if (rc == VB_OK)
        remove(parts[r]);
      free(parts[r]);
    }
    free(parts);
  }
  MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (rc != VB_OK && rank != 0)
    err[0] = '\0';
  return rc;
}
#endif

/* vibro run */
static int
cmd_run(int argc, char **argv)
{
  const char *scene_path = NULL, *out = NULL;
  int quiet = 0, resume = 0, threads = 0;
  for (int i = 1; i < argc; i++) {
    if (is_help(argv[i])) {
      fputs(usage_run, stdout);
      return 0;
    } else if (strcmp(argv[i], "-o") == 0 && i + 1 < argc) {
      out = argv[++i];
    } else if (strcmp(argv[i], "--quiet") == 0 || strcmp(argv[i], "-q") == 0) {
      quiet = 1;
    } else if (strcmp(argv[i], "--resume") == 0) {
      resume = 1;
    } else if (strcmp(argv[i], "-j") == 0 && i + 1 < argc) {
      char *end;
      long j = strtol(argv[++i], &end, 10);
      if (*end || end == argv[i] || j < 1 || j > 4096) {
        fprintf(stderr, "vibro run: -j %s: not a number of threads (valid: 1 to 4096)\n",
                argv[i]);
        return 1;
      }
      threads = (int)j;
    } else if (argv[i][0] == '-') {
      fprintf(stderr, "vibro run: unknown option '%s' (valid: -o, -j, --resume, --quiet, "
              "--help)\n", argv[i]);
      return 1;
    } else if (!scene_path) {
      scene_path = argv[i];
    } else {
      fprintf(stderr, "vibro run: more than one scene file ('%s')\n", argv[i]);
      return 1;
    }
  }
  if (!scene_path || !out) {
    fputs(usage_run, stderr);
    return 1;
  }
  char err[ERRLEN];
  int rank = 0, nranks = 1;
#ifdef HAVE_MPI
  int provided;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
#endif
  vb_study *study;
  int status = 0;
  if (vb_study_load(scene_path, &study, err, sizeof err) != VB_OK) {
    if (rank == 0)
      fprintf(stderr, "%s\n", err);
    status = 1;
    goto finish;
  }
  if (rank == 0 && !check_disk(out, vb_study_record_total(study), err, sizeof err)) {
    fprintf(stderr, "%s\n", err);
    status = 1;
  }
  /* an exact-duration contact beyond its limit runs saturated: say so */
  if (rank == 0 && status == 0) {
    const vb_scene *first = vb_study_first(study);
    for (int c = 0; c < first->ncontacts; c++) {
      double w, limit, used;
      if (!first->contacts[c].exact_duration)
        continue;
      vb_contact_exact_duration(first, c, &w, &limit, &used);
      if (used != w)
        fprintf(stderr, "warning: contact '%s' saturated: the sample rate resolves contacts "
                "down to %.6g s, not the %.6g s this one lasts; it will last %.6g s\n",
                first->contacts[c].name, M_PI / limit, M_PI / w, M_PI / used);
    }
  }
#ifdef HAVE_MPI
  MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
#endif
  if (status)
    goto finish;
  int tty = isatty(2);
  vb_study_options opt = { threads, resume, 0, rank, nranks, NULL, &tty, tty ? 0.25 : 10.0,
                           &stop_flag, 1 };
  /* vibro-1 until info, events, export and vibro-plot read vibro-2 */
  const char *format = getenv("VIBRO_FORMAT");
  if (format && strcmp(format, "vibro-2") == 0)
    opt.format = 2;
  if (!quiet && rank == 0)
    opt.on_progress = show_progress;
  catch_signals();
  vb_study_report rep;
  int rc;
  if (nranks == 1) {
    rc = vb_study_run(study, out, &opt, &rep, err, sizeof err);
  } else {
#ifdef HAVE_MPI
    rc = opt.format == 1 ? run_ranks_v1(study, out, &opt, &rep, err, sizeof err)
                         : run_ranks(study, out, &opt, &rep, err, sizeof err);
#else
    rc = VB_EINVAL;
#endif
  }
  if (rc != VB_OK) {
    if (err[0])
      fprintf(stderr, "%s\n", err);
    status = rc == VB_EINTR && stop_signal ? 128 + stop_signal : 1;
    goto finish;
  }
  if (rank == 0 && !quiet)
    printf("%s: %ld scene%s (%ld run, %ld kept), %ld did not finish, %.3g s, %.3g s "
           "writing -> %s\n", scene_path, vb_study_scenes(study),
           vb_study_scenes(study) == 1 ? "" : "s", rep.ran, rep.kept, rep.failed,
           rep.seconds, rep.write_seconds, out);
  if (rep.failed > 0) {
    status = 2;
    if (rank == 0 && vb_study_scenes(study) == 1)
      fprintf(stderr, "%s: scene '%s' did not finish: %s\n", scene_path,
              vb_study_first(study)->name, rep.first_status);
    else if (rank == 0)
      fprintf(stderr, "%s: %ld of %ld scenes did not finish%s%s%s (status_code in "
              "/study/table)\n", scene_path, rep.failed, vb_study_scenes(study),
              rep.first_failed >= 0 ? "; first: " : "",
              rep.first_failed >= 0 ? rep.first_status : "",
              rep.first_failed >= 0 ? "" : "");
  }
finish:
  vb_study_free(study);
#ifdef HAVE_MPI
  MPI_Finalize();
#endif
  return status;
}

int
main(int argc, char **argv)
{
  /* HDF5 1.10 crashes in its exit handler after a failed write (a full
   * disk); the library closes what it opened, so the handler is not
   * needed */
  H5dont_atexit();
  if (argc < 2) {
    fputs(usage_main, stderr);
    return 1;
  }
  if (is_help(argv[1])) {
    fputs(usage_main, stdout);
    return 0;
  }
  if (strcmp(argv[1], "-V") == 0 || strcmp(argv[1], "--version") == 0) {
    printf("vibro %s\n", vb_version());
    return 0;
  }
  if (strcmp(argv[1], "run") == 0)
    return cmd_run(argc - 1, argv + 1);
  if (strcmp(argv[1], "check") == 0)
    return cmd_check(argc - 1, argv + 1);
  if (strcmp(argv[1], "info") == 0)
    return cmd_info(argc - 1, argv + 1);
  if (strcmp(argv[1], "events") == 0)
    return cmd_events(argc - 1, argv + 1);
  if (strcmp(argv[1], "export") == 0)
    return cmd_export(argc - 1, argv + 1);
  fprintf(stderr, "vibro: unknown command '%s' (valid: run, check, info, events, export)\n",
          argv[1]);
  return 1;
}
