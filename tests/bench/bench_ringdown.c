/* bench_ringdown.c - a hammer on a modal object ringing down (make bench;
 * issue 33 item 1).
 *
 * 100 modes (and 1000), t60 from 3 s down to 0.075 s, 44.1 kHz, am1, one
 * point recorded at every sample (tests/ringdown_scene.h).  Once the fast
 * modes have decayed their values, and before them their energy products,
 * are subnormal: without flush-to-zero each step would cost more the
 * longer the sound.  Prints the CPU per step of 5 s and of 60 s of sound
 * with subnormals flushed (the default) and kept (vb_run_keep_subnormals),
 * the median of 3 runs each with the best beside it, and the target: the
 * 60 s step within 1.2x of the 5 s one. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "vibro.h"
#include "bench_util.h"
#include "../ringdown_scene.h"

#define REPEATS 3

static double
cpu_now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

/* CPU seconds per step of one run; NaN on failure. */
static double
per_step(int nm, double duration, int keep)
{
  char err[1024];
  char *text = ringdown_scene(nm, duration, "every = 1; signals = [\"bodies/bar/pickup/u\"];");
  vb_scene *sc;
  vb_run *run;
  if (vb_scene_load_string(text, "ringdown.cfg", &sc, err, sizeof err) != VB_OK ||
      vb_run_alloc(sc, &run, err, sizeof err) != VB_OK) {
    fprintf(stderr, "%s\n", err);
    free(text);
    return NAN;
  }
  vb_run_keep_subnormals(run, keep);
  double t0 = cpu_now();
  int rc = vb_run_exec(run);
  double t = cpu_now() - t0;
  long steps = vb_scene_steps(sc);
  vb_run_free(run);
  vb_scene_free(sc);
  free(text);
  return rc == VB_OK ? t / (double)steps : NAN;
}

static int
by_value(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Median and best of REPEATS runs, us per step. */
static void
measure(int nm, double duration, int keep, double *median, double *best)
{
  double t[REPEATS];
  for (int i = 0; i < REPEATS; i++)
    t[i] = 1e6 * per_step(nm, duration, keep);
  qsort(t, REPEATS, sizeof t[0], by_value);
  *median = t[REPEATS / 2];
  *best = t[0];
}

int
main(void)
{
  static const struct {
    int modes;
    double short_s, long_s;
  } cases[] = {{100, 5.0, 60.0}, {1000, 1.0, 10.0}};
  double wait0 = cpu_wait();
  printf("hammer on a ringing modal object (t60 3 s to 0.075 s, 44.1 kHz, am1, one point\n"
         "recorded every sample), CPU us per step, median of %d runs (best):\n", REPEATS);
  printf("%6s %-10s %18s %18s %12s\n", "modes", "subnormal", "short", "long", "long/short");
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
    for (int keep = 0; keep < 2; keep++) {
      double ms, bs, ml, bl;
      measure(cases[c].modes, cases[c].short_s, keep, &ms, &bs);
      measure(cases[c].modes, cases[c].long_s, keep, &ml, &bl);
      char a[32], b[32];
      snprintf(a, sizeof a, "%g s %.3f (%.3f)", cases[c].short_s, ms, bs);
      snprintf(b, sizeof b, "%g s %.3f (%.3f)", cases[c].long_s, ml, bl);
      printf("%6d %-10s %18s %18s %11.2fx%s\n", cases[c].modes, keep ? "kept" : "flushed", a, b,
             ml / ms, c == 0 && !keep ? "  (target: at most 1.2x)" : "");
    }
  printf("(threads waited %.2f s for a CPU)\n", cpu_wait() - wait0);
  return 0;
}
