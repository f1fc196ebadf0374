/* bench_island.h - shared by bench_strings.c and bench_kmethod.c: a scene's
 * island with the most contacts stepped alone for the Newton figures, and
 * the CPU time of a whole run, with contacts skipped (lib/island/sparse.c) or
 * every contact stepped (VIBRO_NO_SKIP=1: the "before"). */
#ifndef VIBRO_BENCH_ISLAND_H
#define VIBRO_BENCH_ISLAND_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include "island/island.h"

/* CPU time of the process, s. */
static inline double
bench_now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

/* The Newton figures of an island's stepping. */
typedef struct {
  long steps;      /* steps taken (fewer when it diverged) */
  long solved;     /* steps with a contact solve (an active contact) */
  long failed;     /* steps that did not converge */
  double it_mean;  /* Newton iterations per solved step */
  int it_max;      /* their largest */
  double active;   /* contacts iterated per solved step */
  double drift;    /* largest relative departure of the energy from its start */
  int diverged;    /* the step diverged */
  int sparse;      /* the island skipped contacts: then */
  double live;     /* contacts stepped per step */
  long refreshes;  /* references moved */
  long rejoins;    /* contacts that rejoined */
  int nc;          /* contacts of the island */
} bench_figures;

/* Skip contacts (1) or step every one (0) in what is compiled next. */
static inline void
bench_skip(int skip)
{
  if (skip)
    unsetenv("VIBRO_NO_SKIP");
  else
    setenv("VIBRO_NO_SKIP", "1", 1);
}

/* Step the scene's island with the most contacts alone (lib/island/island.h) for
 * its Newton figures; 0, or 1 on an error (printed). */
static inline int
bench_figures_of(const vb_scene *sc, bench_figures *f)
{
  char err[1024];
  vb_model *model;
  if (vb_model_compile(sc, &model, err, sizeof err) != VB_OK) {
    fprintf(stderr, "%s\n", err);
    return 1;
  }
  const vb_island_model *m = &model->islands[0];
  for (int i = 1; i < model->nislands; i++)
    if (model->islands[i].nc > m->nc)
      m = &model->islands[i];
  vb_island_state *s;
  if (vb_island_state_alloc(m, &s) != VB_OK) {
    vb_model_free(model);
    return 1;
  }
  vb_island_start(m, s);
  double e0 = s->kinetic + s->potential;
  long steps = vb_scene_steps(sc), itsum = 0, actsum = 0, n;
  *f = (bench_figures){.nc = m->nc};
  for (n = 0; n < steps; n++) {
    int rc = vb_island_step(m, s, n), its = 0, act = 0;
    for (int c = 0; c < m->nc; c++) {
      its = s->iterations[c] > its ? s->iterations[c] : its;
      act += s->iterations[c] > 0;
    }
    f->solved += its > 0;
    itsum += its;
    actsum += act;
    f->it_max = its > f->it_max ? its : f->it_max;
    f->failed += rc == VB_ENOCONV;
    if (rc == VB_EDIVERGED || !vb_island_finite(m, s)) {
      f->diverged = 1;
      break;
    }
    f->drift = fmax(f->drift, fabs(s->kinetic + s->potential - e0) / e0);
  }
  f->steps = n;
  f->it_mean = f->solved ? (double)itsum / f->solved : 0.0;
  f->active = f->solved ? (double)actsum / f->solved : 0.0;
  long live;
  f->sparse = vb_island_sparse_stats(s, &f->refreshes, &f->rejoins, &live);
  f->live = f->sparse ? (double)live / (n ? n : 1) : m->nc;
  vb_island_state_free(s);
  vb_model_free(model);
  return 0;
}

/* One run of the scene: the CPU time per step of vb_run_exec (*exec) and,
 * with `write`, of writing its file (vb_output_write: *write, else 0),
 * s, and its status into status[len]; 0, or 1 on an error (printed). */
static inline int
bench_run_once(const vb_scene *sc, int write, double *exec, double *wr, char *status, size_t len)
{
  char err[1024], out[64];
  vb_run *run;
  if (vb_run_alloc(sc, &run, err, sizeof err) != VB_OK) {
    fprintf(stderr, "%s\n", err);
    return 1;
  }
  snprintf(out, sizeof out, "bench-island-%ld.h5", (long)getpid());
  long steps = vb_scene_steps(sc);
  double t0 = bench_now();
  vb_run_exec(run);
  double t1 = bench_now();
  const vb_run *runs[1] = {run};
  int wrc = write ? vb_output_write(out, runs, 1, err, sizeof err) : VB_OK;
  *exec = (t1 - t0) / steps;
  *wr = write ? (bench_now() - t1) / steps : 0.0;
  remove(out);
  if (wrc != VB_OK)
    fprintf(stderr, "%s\n", err);
  snprintf(status, len, "%s", vb_run_status(run));
  vb_run_free(run);
  return wrc != VB_OK;
}

/* CPU time per step of the whole run (vb_run_exec; with `write`, also
 * writing its file), s, and its status into status[len]; NAN on an error
 * (printed). */
static inline double
bench_run_cost(const vb_scene *sc, int write, char *status, size_t len)
{
  double exec, wr;
  return bench_run_once(sc, write, &exec, &wr, status, len) ? NAN : exec + wr;
}

/* Rounds of bench_compare: each times every variant once, in turn. */
#define BENCH_ROUNDS 7

/* A variant's timings over the rounds, s per step: the whole run's
 * (exec + write) best and median, the best of exec alone and of the
 * write alone, and the spread of the whole (worst / best - 1). */
typedef struct {
  double best, median, exec, write, spread;
} bench_timing;

/* Sort doubles ascending (qsort). */
static inline int
bench_cmp(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* The CPU time per step of the scene's whole run under nv variants, set
 * up by variant(i) (e.g. bench_skip) before each run: one untimed warm-up
 * run of each, then BENCH_ROUNDS rounds that run every variant once in
 * turn, so that a change of load or clock hits them alike; the best is
 * what the code costs, the median and spread what this machine gave.
 * Measured once each, one after the other (as before), the same code
 * came out 20-50 % apart: on the 1-point tanpura (0.25 s) the write
 * (vb_output_write: 72M instructions of HDF5 metadata, dimension scales
 * and syscalls, whatever the file's length) took 14-29 ms CPU, 1.3-2.6
 * us per step, against 0.45-1.2 us for vb_run_exec itself, both varying
 * run to run by 2x on this shared machine (load 5-8).  0, or 1 on an
 * error. */
static inline int
bench_compare(const vb_scene *sc, int write, int nv, void (*variant)(int), bench_timing *t,
              char *status, size_t len)
{
  double tot[8][BENCH_ROUNDS], ex[8][BENCH_ROUNDS], wr[8][BENCH_ROUNDS];
  if (nv > 8)
    return 1;
  for (int r = -1; r < BENCH_ROUNDS; r++)
    for (int v = 0; v < nv; v++) {
      double e, w;
      variant(v);
      if (bench_run_once(sc, write, &e, &w, status, len))
        return 1;
      if (r >= 0) {
        tot[v][r] = e + w;
        ex[v][r] = e;
        wr[v][r] = w;
      }
    }
  for (int v = 0; v < nv; v++) {
    qsort(tot[v], BENCH_ROUNDS, sizeof(double), bench_cmp);
    qsort(ex[v], BENCH_ROUNDS, sizeof(double), bench_cmp);
    qsort(wr[v], BENCH_ROUNDS, sizeof(double), bench_cmp);
    t[v] = (bench_timing){.best = tot[v][0], .median = tot[v][BENCH_ROUNDS / 2], .exec = ex[v][0],
                          .write = wr[v][0], .spread = tot[v][BENCH_ROUNDS - 1] / tot[v][0] - 1.0};
  }
  return 0;
}

/* The system's load average over the last minute (the machine is shared:
 * every timing is printed with it), or -1. */
static inline double
bench_load(void)
{
  double l[1];
  return getloadavg(l, 1) == 1 ? l[0] : -1.0;
}

#endif
