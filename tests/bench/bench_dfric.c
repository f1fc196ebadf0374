/* bench_dfric.c - friction on a distributed contact (make bench; issue
 * 30, doc/friction.md "Friction on a distributed contact").
 *
 * The published electric bass on its 20 frets at 4.01 MHz, all 862
 * modes, three-point, recording one pickup: scenes/bass-fretted.cfg (one
 * polarisation, no friction) beside scenes/bass-fretted-2pol.cfg (both
 * polarisations, the same 862 modes along w, Coulomb friction at every
 * fret, the pluck 30 degrees off u), in the same run: each the CPU time
 * per step of vb_run_exec, median (and best) of BENCH_ROUNDS interleaved
 * runs (bench_island.h), 20 ms of sound (the first contacts come after
 * about 5 ms).  Target for the two polarisations: <= 3.2 us per step
 * (issue 30: twice the one polarisation's 1.6 us); beside the ratio, the
 * difference of the medians, what the w side costs a step.  Options: --duration S
 * scales the simulated time (default 1). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bench_island.h"

/* Text of srcdir/rel (malloc'd) with fs, duration and the recording set
 * for the bench, or NULL. */
static char *
bench_text(const char *srcdir, const char *rel, double duration)
{
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", srcdir, rel);
  FILE *f = fopen(path, "rb");
  if (!f)
    return NULL;
  static char buf[1 << 16];
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[n] = '\0';
  char *out = malloc(n + 512);
  if (!out)
    return NULL;
  /* the scene's line and its record line replaced, the rest kept */
  char *sc = strstr(buf, "scene = {"), *sce = sc ? strstr(sc, "\n") : NULL;
  char *rec = strstr(buf, "record = {");
  if (!sc || !sce || !rec) {
    free(out);
    return NULL;
  }
  *sc = '\0';
  *rec = '\0';
  snprintf(out, n + 512,
           "%sscene = { name = \"bench\"; fs = 4010000.0; duration = %.17g; gravity = 0.0; };%.*s"
           "record = { signals = [\"bodies/string/pickup/u\"]; };\n",
           buf, duration, (int)(rec - sce), sce);
  return out;
}

static vb_scene *
load(const char *srcdir, const char *rel, double duration)
{
  char *text = bench_text(srcdir, rel, duration), err[1024], path[1024];
  if (!text) {
    fprintf(stderr, "bench_dfric: cannot read %s/%s\n", srcdir, rel);
    return NULL;
  }
  snprintf(path, sizeof path, "%s/%s", srcdir, rel);
  vb_scene *sc = NULL;
  int rc = vb_scene_load_string(text, path, &sc, err, sizeof err);
  free(text);
  if (rc != VB_OK) {
    fprintf(stderr, "%s\n", err);
    return NULL;
  }
  return sc;
}

/* The variant index chooses the scene (bench_compare runs one scene:
 * here each variant is timed by its own call, interleaved by hand). */
static const vb_scene *scenes[2];

int
main(int argc, char **argv)
{
  const char *srcdir = argc > 1 && argv[1][0] != '-' ? argv[1] : ".";
  double scale = 1.0;
  for (int i = 1; i < argc; i++)
    if (strcmp(argv[i], "--duration") == 0 && i + 1 < argc)
      scale = atof(argv[++i]);
  vb_scene *one = load(srcdir, "scenes/bass-fretted.cfg", 0.02 * scale);
  vb_scene *two = load(srcdir, "scenes/bass-fretted-2pol.cfg", 0.02 * scale);
  if (!one || !two)
    return 1;
  scenes[0] = one;
  scenes[1] = two;
  double t[2][BENCH_ROUNDS];
  char status[2][320];
  for (int r = -1; r < BENCH_ROUNDS; r++)
    for (int v = 0; v < 2; v++) {
      double e, w;
      if (bench_run_once(scenes[v], 0, &e, &w, status[v], sizeof status[v]))
        return 1;
      if (r >= 0)
        t[v][r] = e;
    }
  printf("bench_dfric: the bass on its 20 frets at 4.01 MHz, 862 modes, %.0f ms, %d runs each "
         "interleaved (load %.1f)\n",
         20.0 * scale, BENCH_ROUNDS, bench_load());
  printf("%-44s %9s %9s %9s  %s\n", "case", "median", "best", "worst", "us/step, status");
  const char *name[2] = {"1 polarisation (bass-fretted.cfg)",
                         "2 polarisations + friction (-2pol.cfg)"};
  double med[2];
  for (int v = 0; v < 2; v++) {
    qsort(t[v], BENCH_ROUNDS, sizeof(double), bench_cmp);
    med[v] = t[v][BENCH_ROUNDS / 2];
    printf("%-44s %9.3f %9.3f %9.3f  %s\n", name[v], 1e6 * med[v], 1e6 * t[v][0],
           1e6 * t[v][BENCH_ROUNDS - 1], status[v]);
  }
  printf("ratio of medians %.2f; target for 2 polarisations <= 3.2 us/step: %s\n", med[1] / med[0],
         1e6 * med[1] <= 3.2 ? "met" : "missed");
  /* what the second polarisation and friction add (the w side), the
   * figure the w side's changes move (doc/friction.md, "Speed") */
  printf("the second polarisation and friction add %.3f us/step (difference of medians)\n",
         1e6 * (med[1] - med[0]));
  vb_scene_free(one);
  vb_scene_free(two);
  return 0;
}
