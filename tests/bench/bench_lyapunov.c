/* bench_lyapunov.c - what the Lyapunov twin (lib/run/lyapunov.c) costs: each
 * scene run without and with the twin, best of three, and the ratio of
 * the times (the twin steps every island again, so about 2 is expected;
 * the run's recording and events are not repeated).  A scene without the
 * request pays one pointer test per step.
 *
 *   tests/bench/bench_lyapunov [SRCDIR]      (make bench runs it) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "bench_util.h"
#include "run/lyapunov.h"

/* A scene of scenes/ (its sweep dropped), its twin's period and start
 * (0: the twin runs the whole scene, so the ratio is of whole runs). */
static const struct {
  const char *file;
  double period, start; /* s; 0: no drive */
} cases[] = {
    {"impact-oscillator.cfg", 1.0 / 25.0, 0.0}, /* 1 mode, 1 contact, 160k steps */
    {"snare-membrane.cfg", 0.0, 0.0},           /* 30 modes */
    {"tanpura.cfg", 0.0, 0.0},                  /* 200 modes, a distributed bridge */
};

static double
now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

/* Whole file with its sweep cut off; NULL when it cannot be read. */
static char *
scene_text(const char *dir, const char *file)
{
  char path[4096];
  snprintf(path, sizeof path, "%s/scenes/%s", dir, file);
  FILE *f = fopen(path, "rb");
  if (!f)
    return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *t = malloc((size_t)n + 1);
  if (t && fread(t, 1, (size_t)n, f) != (size_t)n) {
    free(t);
    t = NULL;
  }
  fclose(f);
  if (!t)
    return NULL;
  t[n] = '\0';
  char *sw = strstr(t, "\nsweep = {");
  if (sw)
    sw[1] = '\0';
  return t;
}

/* Seconds of one run of the scene (with a twin when o is not NULL), and
 * its exponent in *lambda. */
static double
time_run(const vb_scene *sc, const vb_lyapunov_opts *o, double *lambda)
{
  char err[512];
  vb_run *run;
  if (vb_run_alloc(sc, &run, err, sizeof err) != VB_OK ||
      (o && vb_lyapunov_attach(run, o, err, sizeof err) != VB_OK)) {
    fprintf(stderr, "bench_lyapunov: %s\n", err);
    exit(1);
  }
  double t0 = now();
  vb_run_exec(run);
  double t = now() - t0;
  *lambda = vb_run_lyapunov(run, NULL);
  vb_run_free(run);
  return t;
}

int
main(int argc, char **argv)
{
  const char *dir = argc > 1 ? argv[1] : ".";
  printf("%-24s %10s %10s %7s %12s\n", "scene", "run (s)", "twin (s)", "ratio", "lambda (1/s)");
  double wait0 = cpu_wait();
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    char *text = scene_text(dir, cases[k].file), err[512];
    vb_scene *sc;
    if (!text || vb_scene_load_string(text, cases[k].file, &sc, err, sizeof err) != VB_OK) {
      fprintf(stderr, "bench_lyapunov: %s: %s\n", cases[k].file, text ? err : "cannot read");
      return 1;
    }
    vb_lyapunov_opts o = {.perturbation = 1e-8, .renormalise = 1.0, .period = cases[k].period,
                          .start = cases[k].start};
    double best[2] = {1e300, 1e300}, lambda = 0.0, none;
    for (int rep = 0; rep < 3; rep++) {
      double t = time_run(sc, NULL, &none);
      best[0] = t < best[0] ? t : best[0];
      t = time_run(sc, &o, &lambda);
      best[1] = t < best[1] ? t : best[1];
    }
    printf("%-24s %10.4f %10.4f %7.2f %12.5g\n", cases[k].file, best[0], best[1],
           best[1] / best[0], lambda);
    vb_scene_free(sc);
    free(text);
  }
  printf("(waited for a CPU: %.2f s)\n", cpu_wait() - wait0);
  return 0;
}
