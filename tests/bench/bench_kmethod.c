/* bench_kmethod.c - the K-method on a tanpura-like bridge (make bench).
 *
 * The scene of scenes/make-tanpura-bridge.py (tests/bridge_scene.h): a
 * plucked lossless string of 200 modes on a 2 cm bridge of N = 4, 16, 64,
 * 128 points (two-point, power law 1.5, 44.1 kHz), beside one point
 * contact on the same string.  For each: the island stepped alone (the
 * internal API, lib/island/island.h) for the Newton figures: iterations per step
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
#include "../bridge_scene.h"
#include "bench_island.h"

/* Print one scene's figures on one line (bench_island.h): Newton figures
 * of its island stepped alone, then the whole run's CPU time per step and
 * real-time factor; 0, or 1 on an error. */
static int
bench_line(const vb_scene *sc, int points)
{
  bench_figures f;
  if (bench_figures_of(sc, &f) != 0)
    return 1;
  printf("%6d %7.1f%% %8.2f %6d %8.1f %8ld %10.2e", points,
         100.0 * f.solved / (f.steps ? f.steps : 1), f.it_mean, f.it_max, f.active, f.failed,
         f.drift);
  char status[320];
  double cost = bench_run_cost(sc, 0, status, sizeof status);
  printf(" %10.2f %8.2f  %s%s\n", 1e6 * cost, 1.0 / (cost * sc->fs), status,
         f.diverged ? " (island diverged)" : "");
  fflush(stdout);
  return 0;
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
    int rc = bench_line(sc, points[k]);
    vb_scene_free(sc);
    if (rc)
      return 1;
  }
  return 0;
}
