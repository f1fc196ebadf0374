/* bench_island.h - shared by bench_strings.c and bench_kmethod.c: a scene's
 * island with the most contacts stepped alone for the Newton figures, and
 * the CPU time of a whole run, with contacts skipped (lib/sparse.c) or
 * every contact stepped (VIBRO_NO_SKIP=1: the "before"). */
#ifndef VIBRO_BENCH_ISLAND_H
#define VIBRO_BENCH_ISLAND_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include "island.h"

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

/* Step the scene's island with the most contacts alone (lib/island.h) for
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

/* CPU time per step of the whole run (vb_run_exec; with `write`, also
 * writing its file), s, and its status into status[len]; NAN on an error
 * (printed). */
static inline double
bench_run_cost(const vb_scene *sc, int write, char *status, size_t len)
{
  char err[1024], out[64];
  vb_run *run;
  if (vb_run_alloc(sc, &run, err, sizeof err) != VB_OK) {
    fprintf(stderr, "%s\n", err);
    return NAN;
  }
  snprintf(out, sizeof out, "bench-island-%ld.h5", (long)getpid());
  double t0 = bench_now();
  vb_run_exec(run);
  const vb_run *runs[1] = {run};
  int wrc = write ? vb_output_write(out, runs, 1, err, sizeof err) : VB_OK;
  double cost = (bench_now() - t0) / vb_scene_steps(sc);
  remove(out);
  if (wrc != VB_OK)
    fprintf(stderr, "%s\n", err);
  snprintf(status, len, "%s", vb_run_status(run));
  vb_run_free(run);
  return cost;
}

#endif
