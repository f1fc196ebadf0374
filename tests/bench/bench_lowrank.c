/* bench_lowrank.c - a string against N points, with and without the
 * dense compliance (issue 33 item 2; make bench).
 *
 * The tanpura-like scene of tests/bridge_scene.h (a plucked lossless
 * string of 200 modes on a 2 cm bridge, two-point, power law 1.5, 44.1
 * kHz) with N = 16, 64, ..., 16384 bridge points.  For each N, its island
 * is compiled and stepped alone (lib/island/island.h) twice: with the
 * dense nc x nc compliance K (the test hook lowrank = 0, as before issue 33
 * item 2; up to --dense-max points, 4096 by default: 8192 takes a GiB
 * and minutes) and through the modes (lowrank = 1, solvers/lowrank.c).
 * Printed per way: the set-up (CPU of vb_model_compile and
 * vb_island_state_alloc, s), the bytes they hold (mallinfo2), the CPU per
 * step (us), the mean active set of a solved step, the steps that did not
 * converge and the largest relative energy drift; and the ratio of the
 * cost per step to that of N / 4 (the target: at most 6 from 1024
 * to 16384).  Options: --duration S (0.05), --modes M (200), --dense-max N,
 * --max N (16384), --only N (that N alone). */
#include <malloc.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../bridge_scene.h"
#include "bench_island.h"

typedef struct {
  double setup, bytes, per_step, active, drift;
  long failed;
} way;

/* Bytes the allocator holds (in use and mapped). */
static double
held_bytes(void)
{
  struct mallinfo2 mi = mallinfo2();
  return (double)mi.uordblks + (double)mi.hblkhd;
}

/* Compile and step the scene's island with the most contacts the way the
 * lowrank hook says; 0, or 1 on an error (printed). */
static int
run_way(const vb_scene *sc, int lowrank, way *w)
{
  char err[1024];
  vb_model *model;
  vb_island_state *s;
  vb_test_control(VB_TEST_LOWRANK, lowrank);
  double b0 = held_bytes(), t0 = bench_now();
  if (vb_model_compile(sc, &model, err, sizeof err) != VB_OK) {
    fprintf(stderr, "%s\n", err);
    return 1;
  }
  const vb_island_model *m = &model->islands[0];
  for (int i = 1; i < model->nislands; i++)
    if (model->islands[i].nc > m->nc)
      m = &model->islands[i];
  if (vb_island_state_alloc(m, &s) != VB_OK) {
    vb_model_free(model);
    return 1;
  }
  vb_island_start(m, s);
  w->setup = bench_now() - t0;
  w->bytes = held_bytes() - b0;
  double e0 = s->kinetic + s->potential;
  long steps = vb_scene_steps(sc), solved = 0, actsum = 0;
  w->failed = 0;
  w->drift = 0.0;
  double t1 = bench_now();
  for (long n = 0; n < steps; n++) {
    int rc = vb_island_step(m, s, n), act = 0;
    for (int c = 0; c < m->nc; c++)
      act += s->iterations[c] > 0;
    solved += act > 0;
    actsum += act;
    w->failed += rc == VB_ENOCONV;
    w->drift = fmax(w->drift, fabs(s->kinetic + s->potential - e0) / e0);
  }
  w->per_step = (bench_now() - t1) / (double)steps;
  w->active = solved ? (double)actsum / solved : 0.0;
  vb_island_state_free(s);
  vb_model_free(model);
  vb_test_control(VB_TEST_LOWRANK, -1);
  return 0;
}

static void
print_way(const char *name, const way *w, double prev)
{
  printf("  %-6s %9.3f %10.1f %11.2f %8.1f %7ld %10.2e", name, w->setup, w->bytes / 1048576.0,
         1e6 * w->per_step, w->active, w->failed, w->drift);
  if (prev > 0.0)
    printf(" %8.2f", w->per_step / prev);
  printf("\n");
}

int
main(int argc, char **argv)
{
  double duration = 0.05;
  int modes = 200, dense_max = 4096, max = 16384, only = 0;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (strcmp(argv[i], "--duration") == 0)
      duration = atof(argv[i + 1]);
    else if (strcmp(argv[i], "--modes") == 0)
      modes = atoi(argv[i + 1]);
    else if (strcmp(argv[i], "--dense-max") == 0)
      dense_max = atoi(argv[i + 1]);
    else if (strcmp(argv[i], "--max") == 0)
      max = atoi(argv[i + 1]);
    else if (strcmp(argv[i], "--only") == 0)
      only = atoi(argv[i + 1]);
  }
  printf("string against N points: %d modes, %g s at 44.1 kHz, two-point, power 1.5; the\n"
         "dense K (before issue 33 item 2) and through the modes (solvers/lowrank.c); x4N:\n"
         "cost per step over that at N / 4 (target from 1024 up: at most 6); set-up target\n"
         "at 16384 points: at most 1 s\n",
         modes, duration);
  printf("%6s %-6s %9s %10s %11s %8s %7s %10s %8s\n", "points", "", "setup s", "MiB",
         "us/step", "active", "no conv", "drift", "x4N");
  double prev[2] = {0.0, 0.0};
  for (int n = only ? only : 16; n <= (only ? only : max); n *= 4) {
    char err[1024];
    char *text = bridge_scene(modes, n, duration, "two-point", "");
    vb_scene *sc;
    if (!text || vb_scene_load_string(text, "bridge.cfg", &sc, err, sizeof err) != VB_OK) {
      fprintf(stderr, "%s\n", text ? err : "out of memory");
      return 1;
    }
    free(text);
    printf("%6d\n", n);
    for (int lr = 0; lr <= 1; lr++) {
      way w;
      if (!lr && n > dense_max) {
        printf("  %-6s (skipped: above --dense-max %d)\n", "dense", dense_max);
        prev[0] = 0.0;
        continue;
      }
      if (run_way(sc, lr, &w) != 0)
        return 1;
      print_way(lr ? "modes" : "dense", &w, prev[lr]);
      prev[lr] = w.per_step;
      fflush(stdout);
    }
    vb_scene_free(sc);
  }
  return 0;
}
