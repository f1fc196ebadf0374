/* bench_kmethod.c - the K-method on a tanpura-like bridge (make bench).
 *
 * The scene of scenes/make-tanpura-bridge.py (tests/bridge_scene.h): a
 * plucked lossless string of 200 modes on a 2 cm bridge of N = 4, 16, 64,
 * 128 points (two-point, power law 1.5, 44.1 kHz), beside one point
 * contact on the same string.  For each: the island stepped alone (the
 * internal API, lib/island.h) for the Newton figures: iterations per step
 * with a solve (mean, max), the share of steps with a solve, the mean
 * active set, the steps that did not converge, and the relative energy
 * drift; then the whole run (recording the pickup) for the CPU time per
 * step and the real-time factor.  Options: --duration S (default 0.25),
 * --modes M (200), --extra "TEXT" (added to every contact block, e.g.
 * "max_iterations = 1000;" to run main's solver to the end). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "../bridge_scene.h"
#include "island.h"

static double
now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

/* Newton figures of one scene's stepping (its island with the most
 * contacts), printed on one line; 0, or 1 on an error. */
static int
newton_figures(const vb_scene *sc, int points)
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
  double e0 = s->kinetic + s->potential, drift = 0.0;
  long steps = vb_scene_steps(sc), solved = 0, failed = 0, itsum = 0, actsum = 0, n;
  int itmax = 0, diverged = 0;
  for (n = 0; n < steps; n++) {
    int rc = vb_island_step(m, s, n);
    int its = 0, act = 0;
    for (int c = 0; c < m->nc; c++) {
      if (s->iterations[c] > its)
        its = s->iterations[c];
      act += s->iterations[c] > 0;
    }
    solved += its > 0;
    itsum += its;
    actsum += act;
    itmax = its > itmax ? its : itmax;
    failed += rc == VB_ENOCONV;
    if (rc == VB_EDIVERGED || !vb_island_finite(m, s)) {
      diverged = 1;
      break;
    }
    double e = fabs(s->kinetic + s->potential - e0) / e0;
    drift = e > drift ? e : drift;
  }
  printf("%6d %7.1f%% %8.2f %6d %8.1f %8ld %10.2e", points, 100.0 * solved / (n ? n : 1),
         solved ? (double)itsum / solved : 0.0, itmax, solved ? (double)actsum / solved : 0.0,
         failed, drift);
  if (diverged)
    printf("  diverged at step %ld", n);
  vb_island_state_free(s);
  vb_model_free(model);
  return 0;
}

/* CPU time per step of the whole run, s; NAN on an error. */
static double
run_cost(const vb_scene *sc, const char **status)
{
  char err[1024];
  vb_run *run;
  if (vb_run_alloc(sc, &run, err, sizeof err) != VB_OK) {
    fprintf(stderr, "%s\n", err);
    return NAN;
  }
  double t0 = now();
  vb_run_exec(run);
  double t = now() - t0;
  static char text[256];
  snprintf(text, sizeof text, "%s", vb_run_status(run));
  *status = text;
  vb_run_free(run);
  return t / vb_scene_steps(sc);
}

int
main(int argc, char **argv)
{
  double duration = 0.25;
  int modes = 200;
  const char *extra = "";
  for (int i = 1; i + 1 < argc; i += 2) {
    if (strcmp(argv[i], "--duration") == 0)
      duration = atof(argv[i + 1]);
    else if (strcmp(argv[i], "--modes") == 0)
      modes = atoi(argv[i + 1]);
    else if (strcmp(argv[i], "--extra") == 0)
      extra = argv[i + 1];
  }
  const int points[] = {1, 4, 16, 64, 128};
  printf("tanpura bridge: %d modes, %g s at 44.1 kHz, two-point, power 1.5%s%s\n", modes,
         duration, *extra ? ", contacts: " : "", extra);
  printf("%6s %8s %8s %6s %8s %8s %10s %10s %8s  %s\n", "points", "solved", "it/solve",
         "it max", "active", "no conv", "drift", "us/step", "x rt", "status");
  for (size_t k = 0; k < sizeof points / sizeof points[0]; k++) {
    char err[1024];
    char *text = bridge_scene(modes, points[k], duration, "two-point", extra);
    vb_scene *sc;
    if (!text || vb_scene_load_string(text, "bridge.cfg", &sc, err, sizeof err) != VB_OK) {
      fprintf(stderr, "%s\n", text ? err : "out of memory");
      return 1;
    }
    free(text);
    if (newton_figures(sc, points[k]) != 0)
      return 1;
    const char *status = "";
    double cost = run_cost(sc, &status);
    printf(" %10.2f %8.2f  %s\n", 1e6 * cost, 1.0 / (cost * sc->fs), status);
    fflush(stdout);
    vb_scene_free(sc);
  }
  return 0;
}
