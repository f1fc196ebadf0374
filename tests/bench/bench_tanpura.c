/* bench_tanpura.c - the tanpura as the user runs it (issue 33 item 4).
 *
 * Two scenes of a plucked string on a 64-point bridge, 200 modes, 44.1 kHz,
 * two-point, a power law of alpha 1.5, 0.5 s of sound:
 *   - scenes/tanpura-bridge.cfg itself;
 *   - a bridge of the same size written here with other parameters (a
 *     string of 0.65 m, 55 N, 0.6 g/m, plucked 0.8 mm at 0.17 m; a 3 cm
 *     bridge from 3 to 33 mm whose apex is 6 um below the string, k = 4e8
 *     N/m^1.5; a pickup at 0.5 m).
 * For each: the whole process `vibro run SCENE -o OUT.h5` (start-up,
 * loading, vibro check's warnings, the stepping, the write), its CPU (user
 * + system, from wait4's rusage) over RUNS runs after a warm-up, median
 * (min, max) and the real-time factor duration / CPU (target >= 5x); then
 * the stepping alone, in this process (vb_run_exec of the scene as loaded,
 * CPU time, the same runs; target >= 8x).  With VIBRO_BEFORE set to another
 * vibro, the whole process of that binary too, its runs alternating with
 * these (A B A B) so that a machine's drift hits both.  Not a test: run it
 * with `make bench`.
 * Usage: bench_tanpura VIBRO SRCDIR [TMPDIR]. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <math.h>
#include "vibro.h"
#include "bench_proc.h"

#define RUNS 9

/* CPU time of the process, s. */
static double
now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Sorted t[n]: its median. */
static double
median_of(double *t, int n)
{
  qsort(t, (size_t)n, sizeof *t, by_value);
  return n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
}

/* The other bridge (above), 0.5 s, into path; 0 or -1. */
static int
write_other(const char *path)
{
  const double L = 0.65, T = 55.0, MU = 0.6e-3, A = 0.8e-3, XP = 0.17;
  const double X0 = 0.003, X1 = 0.033, XC = 0.018, DEPTH = 6.0e-6, CURVE = 0.4;
  const int modes = 200, points = 64;
  FILE *f = fopen(path, "w");
  if (!f)
    return -1;
  fprintf(f,
          "scene = { name = \"other-bridge\"; fs = 44100.0; duration = 0.5; gravity = 0.0; };\n"
          "bodies = (\n  { name = \"bridge\"; type = \"wall\"; },\n"
          "  { name = \"string\"; type = \"modal\";\n"
          "    preset = { kind = \"string\"; nmodes = %d; length = %g; tension = %g; "
          "linear_density = %g; };\n    q0 = [",
          modes, L, T, MU);
  /* the triangle of a pluck of A at XP, mode by mode */
  for (int n = 1; n <= modes; n++)
    fprintf(f, "%s%.17g", n > 1 ? ", " : "",
            2 * A * L * L * sin(n * M_PI * XP / L) / (n * n * M_PI * M_PI * XP * (L - XP)));
  fprintf(f, "];\n    points = (\n");
  for (int i = 0; i < points; i++)
    fprintf(f, "      { name = \"p%d\"; x = %.17g; },\n", i, X0 + (X1 - X0) * i / (points - 1));
  fprintf(f, "      { name = \"pickup\"; x = 0.5; } ); } );\ncontacts = (\n");
  for (int i = 0; i < points; i++) {
    double x = X0 + (X1 - X0) * i / (points - 1);
    fprintf(f,
            "  { name = \"b%d\"; between = [\"bridge\", \"string.p%d\"]; law = \"power\"; "
            "k = 4.0e8; alpha = 1.5; gap = %.17g; scheme = \"two-point\"; }%s\n",
            i, i, DEPTH + CURVE * (x - XC) * (x - XC), i + 1 < points ? "," : "");
  }
  fprintf(f, ");\nrecord = { signals = [\"bodies/string/pickup/*\", \"energy/*\"]; };\n");
  return fclose(f) == 0 ? 0 : -1;
}

/* The stepping alone of the scene at path: CPU seconds of vb_run_exec,
 * RUNS runs after a warm-up, into t[RUNS]; 0, or -1 (printed). */
static int
stepping(const char *path, double *t)
{
  char err[1024];
  vb_scene *sc;
  if (vb_scene_load(path, &sc, err, sizeof err) != VB_OK) {
    fprintf(stderr, "%s\n", err);
    return -1;
  }
  for (int i = -1; i < RUNS; i++) {
    vb_run *run;
    if (vb_run_alloc(sc, &run, err, sizeof err) != VB_OK) {
      fprintf(stderr, "%s\n", err);
      vb_scene_free(sc);
      return -1;
    }
    double t0 = now();
    int rc = vb_run_exec(run);
    double t1 = now();
    vb_run_free(run);
    if (rc != VB_OK) {
      fprintf(stderr, "%s: the run did not finish\n", path);
      vb_scene_free(sc);
      return -1;
    }
    if (i >= 0)
      t[i] = t1 - t0;
  }
  vb_scene_free(sc);
  return 0;
}

/* Both measures of one scene of `duration` s at path, printed. */
static int
bench_scene(const char *name, const char *path, double duration, const char *vibro,
            const char *before, const char *out)
{
  double ta[RUNS], tb[RUNS], ts[RUNS];
  char *argv[] = {(char *)vibro, "run", (char *)path, "-o", (char *)out, NULL};
  for (int i = -1; i < RUNS; i++) {
    argv[0] = (char *)vibro;
    double a = cpu_of(argv), b = 0.0;
    if (before) {
      argv[0] = (char *)before;
      b = cpu_of(argv);
    }
    if (a < 0.0 || b < 0.0) {
      fprintf(stderr, "%s: vibro run failed\n", path);
      return -1;
    }
    if (i >= 0)
      ta[i] = a, tb[i] = b;
  }
  remove(out);
  if (stepping(path, ts) != 0)
    return -1;
  double ma = median_of(ta, RUNS), ms = median_of(ts, RUNS);
  printf("%s\n", name);
  printf("  whole process  median %.4f s CPU = %5.2fx real time (min %.4f s = %.2fx)  target >= 5x\n",
         ma, duration / ma, ta[0], duration / ta[0]);
  if (before) {
    double mb = median_of(tb, RUNS);
    printf("    before       median %.4f s CPU = %5.2fx real time (min %.4f s = %.2fx) "
           "(VIBRO_BEFORE, runs paired)\n",
           mb, duration / mb, tb[0], duration / tb[0]);
  }
  printf("  stepping       median %.4f s CPU = %5.2fx real time (min %.4f s = %.2fx)  target >= 8x\n",
         ms, duration / ms, ts[0], duration / ts[0]);
  return 0;
}

int
main(int argc, char **argv)
{
  if (argc < 3) {
    fprintf(stderr, "usage: bench_tanpura VIBRO SRCDIR [TMPDIR]\n");
    return 2;
  }
  const char *vibro = argv[1], *srcdir = argv[2], *tmp = argc > 3 ? argv[3] : "/tmp";
  const char *before = getenv("VIBRO_BEFORE");
  char scene[4096], other[4096], out[4096];
  double l[1];
  if (before && !before[0])
    before = NULL;
  snprintf(scene, sizeof scene, "%s/scenes/tanpura-bridge.cfg", srcdir);
  snprintf(other, sizeof other, "%s/bench-tanpura-other-%ld.cfg", tmp, (long)getpid());
  snprintf(out, sizeof out, "%s/bench-tanpura-%ld.h5", tmp, (long)getpid());
  if (write_other(other) != 0) {
    fprintf(stderr, "bench_tanpura: cannot write %s\n", other);
    return 1;
  }
  printf("bench_tanpura: CPU (user + system) of %s%s%s, %d runs after a warm-up; "
         "load average %.2f at the start\n",
         vibro, before ? " against " : "", before ? before : "", RUNS,
         getloadavg(l, 1) == 1 ? l[0] : -1.0);
  int rc = bench_scene("scenes/tanpura-bridge.cfg (200 modes, 64 points, 0.5 s)", scene, 0.5,
                       vibro, before, out);
  rc |= bench_scene("another 64-point bridge (200 modes, 0.65 m at 55 N, k 4e8, 0.5 s)", other,
                    0.5, vibro, before, out);
  remove(other);
  printf("load average %.2f at the end\n", getloadavg(l, 1) == 1 ? l[0] : -1.0);
  return rc != 0;
}
