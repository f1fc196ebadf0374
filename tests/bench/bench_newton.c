/* bench_newton.c - the K-method's globalised fall-back (make bench; issue
 * 33 item 3).
 *
 * The ideal string of the issue: 100 modes (harmonic, lossless), 88.2 kHz,
 * two-point, a linear penalty k = 1e10 N/m (alpha 1) at the fretless
 * neck's 862 measured heights (scenes/bass-fretless-neck.csv), plucked
 * 3.6 mm at x = 0.64 m; 0.1 s (its active-set Newton first fails at
 * t = 0.026814059 s).  Before: the Newton alone (the no_global test hook:
 * no fall-back, no solve through the modes), which ends "newton failed";
 * after: as the library runs it.  For each: the run's status, its CPU
 * time per step (median of 5 runs), the Newton iterations per step and
 * per contact-step, the steps the fall-back solved and its iterations,
 * and the energy's largest relative drift.  Then 3000 contacts between a
 * mass and a wall (one mode): CPU per step of the first 1.02 ms of a drop
 * (45 steps, the last in contact: before, that step takes tens of seconds), before
 * and after (the Newton system through the modes, solvers/dense.c). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "base/base.h"
#include "bench_util.h"
#include "vibro.h"

static double
cpu_now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static int
cmp(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Run the scene text (its data files beside path) `reps` times with the
 * no_global hook set to `before`; print one line. */
static void
bench(const char *label, const char *text, const char *path, int before, int reps)
{
  char err[2048];
  double t[9];
  vb_test_control(VB_TEST_NO_GLOBAL, before);
  for (int r = 0; r < reps; r++) {
    vb_scene *sc;
    vb_run *run;
    if (vb_scene_load_string(text, path, &sc, err, sizeof err) != VB_OK ||
        vb_run_alloc(sc, &run, err, sizeof err) != VB_OK) {
      printf("%s: %s\n", label, err);
      return;
    }
    double t0 = cpu_now();
    vb_run_exec(run);
    t[r] = cpu_now() - t0;
    if (r + 1 == reps) {
      long its = 0, cits = 0, gs = 0, gits = 0, fails = 0;
      for (int c = 0; c < sc->ncontacts; c++) {
        const vb_contact_result *res = vb_run_contact(run, c);
        cits += res->iterations;
        its = res->iterations > its ? res->iterations : its;
        gs = res->global_solves > gs ? res->global_solves : gs;
        gits = res->global_iterations > gits ? res->global_iterations : gits;
        fails += res->newton_failures;
      }
      /* the steps done: to the last sample with a finite energy (the
       * samples not reached are NaN) */
      long n = vb_run_samples(run), done = 0;
      const double *e = vb_run_energy(run, VB_ENERGY_TOTAL);
      double drift = e ? 0.0 : NAN;
      for (long i = 0; i < n; i++)
        if (e && isfinite(e[i])) {
          drift = fmax(drift, fabs(e[i] - e[0]) / e[0]);
          done = i;
        }
      long steps = e ? done : vb_scene_steps(sc);
      qsort(t, reps, sizeof t[0], cmp);
      printf("%s, %s: %ld steps, %.3g us a step (median of %d); Newton iterations %.3g per "
             "contact-step, %ld at the busiest contact; the fall-back: %ld steps, %ld "
             "iterations at its busiest contact; %ld contact-steps failed; energy drift %.2e; "
             "status: %s\n",
             label, before ? "before" : "after", steps, 1e6 * t[reps / 2] / steps, reps,
             (double)cits / steps / sc->ncontacts, its, gs, gits, fails, drift,
             vb_run_status(run));
    }
    vb_run_free(run);
    vb_scene_free(sc);
  }
  vb_test_control(VB_TEST_NO_GLOBAL, 0);
}

int
main(int argc, char **argv)
{
  const char *srcdir = argc > 1 ? argv[1] : ".";
  setvbuf(stdout, NULL, _IOLBF, 0);
  char path[4096];
  static const char ideal[] =
      "scene = { name = \"ideal\"; fs = 88200.0; duration = 0.1; gravity = 0.0; };\n"
      "bodies = ( { name = \"neck\"; type = \"wall\"; },\n"
      "  { name = \"string\"; type = \"modal\";\n"
      "    preset = { kind = \"string\"; nmodes = 100; length = 0.863; tension = 191.6;\n"
      "      linear_density = 0.0067; pluck = [0.64, 3.6e-3]; };\n"
      "    points = ( { name = \"pickup\"; x = 0.501; } ); } );\n"
      "contacts = ( { name = \"neck\"; between = [\"neck\", \"string\"]; law = \"power\";\n"
      "  k = 1e10; alpha = 1.0; scheme = \"two-point\";\n"
      "  points = { file = \"bass-fretless-neck.csv\"; };\n"
      "  profile = { file = \"bass-fretless-neck.csv\"; }; } );\n"
      "record = { signals = [\"bodies/string/pickup/u\", \"energy/*\"]; };\n";
  snprintf(path, sizeof path, "%s/scenes/ideal-neck.cfg", srcdir);
  double w0 = cpu_wait();
  int only_many = argc > 2 && strcmp(argv[2], "--many") == 0;
  if (!only_many)
    bench("ideal string, 862 points, 100 modes, 0.1 s", ideal, path, 1, 5);
  if (!only_many)
    bench("ideal string, 862 points, 100 modes, 0.1 s", ideal, path, 0, 5);
  /* 3000 contacts between a mass and a wall */
  size_t cap = 3000 * 160 + 1024, len = 0;
  char *many = malloc(cap);
  if (!many)
    return 1;
  len += snprintf(many + len, cap - len,
                  "scene = { name = \"many\"; fs = 44100.0; duration = 0.00102; gravity = 0.0; };\n"
                  "bodies = ( { name = \"wall\"; type = \"wall\"; },\n"
                  "  { name = \"ball\"; type = \"mass\"; mass = 0.01; u0 = 0.001; v0 = -1.0; } );\n"
                  "contacts = (\n");
  for (int i = 0; i < 3000; i++)
    len += snprintf(many + len, cap - len,
                    "  { name = \"c%d\"; between = [\"wall\", \"ball\"]; law = \"power\"; k = %.1f; "
                    "alpha = 1.5; scheme = \"two-point\"; }%s\n",
                    i, 1e6 * (1 + i % 7), i + 1 < 3000 ? "," : "");
  snprintf(many + len, cap - len, ");\nrecord = { signals = [\"bodies/ball/u\", \"energy/*\"]; };\n");
  bench("3000 contacts on a mass, 1.02 ms (its last step in contact)", many, path, 1, 1);
  bench("3000 contacts on a mass, 1.02 ms (its last step in contact)", many, path, 0, 3);
  free(many);
  printf("(waited %.2f s for a CPU)\n", cpu_wait() - w0);
  return 0;
}
