/* bench_modal.c - a hammer on a modal object (make bench).
 *
 * 100 and 1000 modes, one Hunt-Crossley contact, am1 and two-point, 10 s at
 * 44.1 kHz, recording the hammer and one pickup point at every sample:
 * prints samples/s, mode-steps/s (modes x steps per second) and the mean
 * Newton iterations per step, all measured in this one run.  The hammer
 * strikes once and flies off: most steps have no contact that can close,
 * and must not pay for a solve. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "vibro.h"

static double
now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

/* Append to a growing string. */
static void
cat(char **s, size_t *n, size_t *cap, const char *piece)
{
  size_t k = strlen(piece);
  if (*n + k + 1 > *cap) {
    *cap = 2 * (*cap + k + 1);
    *s = realloc(*s, *cap);
  }
  memcpy(*s + *n, piece, k + 1);
  *n += k;
}

/* Scene text: a bar-like object with nm modes (free-free bar spacing). */
static char *
scene(int nm, const char *scheme, double duration, int every)
{
  char *s = NULL, buf[256];
  size_t n = 0, cap = 0;
  snprintf(buf, sizeof buf, "scene = { name = \"bench\"; fs = 44100.0; duration = %g; "
           "gravity = 0.0; };\nbodies = (\n  { name = \"bar\"; type = \"modal\"; freq = [", duration);
  cat(&s, &n, &cap, buf);
  for (int j = 0; j < nm; j++) {
    /* modes spread over 60 Hz .. 21 kHz */
    double f = 60.0 + (21000.0 - 60.0) * pow((double)j / nm, 1.5);
    snprintf(buf, sizeof buf, "%s%.6f", j ? ", " : "", f);
    cat(&s, &n, &cap, buf);
  }
  cat(&s, &n, &cap, "];\n    mass = 0.05; t60 = 1.5;\n    points = ( { name = \"strike\"; shape = [");
  for (int j = 0; j < nm; j++) {
    snprintf(buf, sizeof buf, "%s%.6f", j ? ", " : "", cos(0.37 * j + 0.1));
    cat(&s, &n, &cap, buf);
  }
  cat(&s, &n, &cap, "]; },\n      { name = \"pickup\"; shape = [");
  for (int j = 0; j < nm; j++) {
    snprintf(buf, sizeof buf, "%s%.6f", j ? ", " : "", sin(0.91 * j + 0.4));
    cat(&s, &n, &cap, buf);
  }
  snprintf(buf, sizeof buf, "]; } ); },\n  { name = \"hammer\"; type = \"mass\"; mass = 0.01; "
           "u0 = 0.002; v0 = -1.0; }\n);\n");
  cat(&s, &n, &cap, buf);
  snprintf(buf, sizeof buf, "contacts = ( { name = \"hit\"; between = [\"bar.strike\", \"hammer\"]; "
           "law = \"hunt-crossley\"; k = 1.0e9; alpha = 1.5; mu = 0.5; scheme = \"%s\"; } );\n"
           "record = { every = %d; };\n", scheme, every);
  cat(&s, &n, &cap, buf);
  return s;
}

int
main(int argc, char **argv)
{
  double duration = argc > 1 ? atof(argv[1]) : 10.0;
  const int sizes[] = { 100, 1000 };
  const char *schemes[] = { "am1", "two-point" };
  printf("hammer on a modal object, %g s at 44.1 kHz, one thread; recording the hammer,\n"
         "two points, the contact and the energies every sample (every 1) or every 64th\n",
         duration);
  printf("%6s %-10s %6s %12s %14s %10s %8s\n", "modes", "scheme", "every", "samples/s",
         "mode-steps/s", "iter/step", "impacts");
  for (int i = 0; i < 2; i++)
    for (int k = 0; k < 2; k++)
      for (int e = 0; e < 2; e++) {
      char err[1024];
      int every = e ? 64 : 1;
      char *text = scene(sizes[i], schemes[k], duration, every);
      vb_scene *sc;
      vb_run *run;
      if (vb_scene_load_string(text, "bench.cfg", &sc, err, sizeof err) != VB_OK
          || vb_run_alloc(sc, &run, err, sizeof err) != VB_OK) {
        fprintf(stderr, "%s\n", err);
        return 1;
      }
      double t0 = now();
      int rc = vb_run_exec(run);
      double t = now() - t0;
      long steps = vb_scene_steps(sc);
      const vb_contact_result *r = vb_run_contact(run, 0);
      printf("%6d %-10s %6d %12.3g %14.3g %10.3f %8ld%s%s\n", sizes[i], schemes[k], every, steps / t,
             (double)steps * sizes[i] / t, (double)r->iterations / steps, r->nevents,
             rc ? "  " : "", rc ? vb_run_status(run) : "");
      vb_run_free(run);
      vb_scene_free(sc);
      free(text);
    }
  return 0;
}
