/* dalembert.h - an ideal string plucked and released onto a flat rigid
 * barrier at its rest line, and its exact solution (doc/dalembert.md):
 * u(x, t) = |u_free(x, t)|, u_free = (F(x - ct) + F(x + ct))/2, F the odd
 * 2L-periodic extension of the triangular pluck.  Shared by
 * tests/check_dalembert.c (make check: a short run) and
 * tests/bench/bench_dalembert.c (make bench: the long one). */
#ifndef VIBRO_DALEMBERT_H
#define VIBRO_DALEMBERT_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "vibro.h"

/* The string and its pluck: length (m), tension (N), linear density
 * (kg/m), pluck position (m) and height (m, above the barrier). */
typedef struct dal_string {
  double length, tension, density, x0, height;
} dal_string;

/* The case of doc/dalembert.md: f0 = c/(2L) = 110.2 Hz. */
static const dal_string dal_case = {
    .length = 0.65, .tension = 102.7, .density = 0.005, .x0 = 0.173, .height = 2.0e-3};

/* The pluck u0(x) (m) on 0 <= x <= L. */
static inline double
dal_pluck(const dal_string *s, double x)
{
  return x <= s->x0 ? s->height * x / s->x0 : s->height * (s->length - x) / (s->length - s->x0);
}

/* F(x) (m): the odd, 2L-periodic extension of the pluck. */
static inline double
dal_extension(const dal_string *s, double x)
{
  double p = 2.0 * s->length, y = fmod(x, p);
  if (y < 0.0)
    y += p;
  return y <= s->length ? dal_pluck(s, y) : -dal_pluck(s, p - y);
}

/* The free string's displacement (m) at x (m) and t (s): d'Alembert. */
static inline double
dal_free(const dal_string *s, double x, double t)
{
  double c = sqrt(s->tension / s->density);
  return 0.5 * (dal_extension(s, x - c * t) + dal_extension(s, x + c * t));
}

/* The string on the barrier at its rest line (m): |u_free|
 * (doc/dalembert.md derives it). */
static inline double
dal_exact(const dal_string *s, double x, double t)
{
  return fabs(dal_free(s, x, t));
}

/* Scene text (malloc'd; the caller frees it) of the string with nmodes
 * harmonic lossless modes, plucked, over a wall at its rest line through
 * a distributed power-law contact at the npoints grid points
 * x_i = i L/(npoints + 1), stepped at fs for duration, with the named
 * points "p0" .. of probes[nprobes]. */
static inline char *
dal_scene(const dal_string *s, double fs, double duration, int nmodes, int npoints, double k,
          double alpha, const char *scheme, const double *probes, int nprobes)
{
  size_t size = 4096 + 64 * (size_t)nprobes;
  char *t = malloc(size);
  if (t == NULL)
    return NULL;
  int n = snprintf(t, size,
                   "scene = { name = \"dalembert\"; fs = %.17g; duration = %.17g; gravity = 0.0; };\n"
                   "bodies = (\n"
                   "  { name = \"barrier\"; type = \"wall\"; },\n"
                   "  { name = \"string\"; type = \"modal\";\n"
                   "    preset = { kind = \"string\"; nmodes = %d; length = %.17g; tension = %.17g;\n"
                   "               linear_density = %.17g; pluck = [%.17g, %.17g]; };\n"
                   "    points = (",
                   fs, duration, nmodes, s->length, s->tension, s->density, s->x0, s->height);
  for (int i = 0; i < nprobes; i++)
    n += snprintf(t + n, size - (size_t)n, "%s { name = \"p%d\"; x = %.17g; }", i ? "," : "", i,
                  probes[i]);
  snprintf(t + n, size - (size_t)n,
           " ); }\n);\n"
           "contacts = (\n"
           "  { name = \"barrier\"; between = [\"barrier\", \"string\"]; law = \"power\";\n"
           "    k = %.17e; alpha = %.17e; scheme = \"%s\"; max_iterations = 1000;\n"
           "    points = { from = %.17g; to = %.17g; n = %d; }; profile = { height = 0.0; }; }\n"
           ");\n"
           "record = { signals = [\"bodies/string/*/u\"]; };\n",
           k, alpha, scheme, s->length / (npoints + 1), s->length * npoints / (npoints + 1),
           npoints);
  return t;
}

/* Errors of one run against dal_exact. */
typedef struct dal_result {
  int rc;          /* vb_run_exec's code */
  double max, rms; /* largest and root-mean-square |u - exact| over the probes and samples, m */
  double cpu;      /* CPU time of the run, s */
  long impacts;    /* events over all the barrier's points */
  int npoints;     /* the barrier's points */
} dal_result;

/* The probes: where the error is measured (m, on dal_case's string). */
static const double dal_probes[] = {0.0917, 0.2385, 0.4071, 0.5593};
#define DAL_NPROBES ((int)(sizeof dal_probes / sizeof dal_probes[0]))

/* Run the string of dal_case at fs with nmodes modes on npoints barrier
 * points (stiffness k, N/m^alpha) for duration s, and measure it against
 * dal_exact at dal_probes; err gets a load error (rc set, the rest 0). */
static inline dal_result
dal_run(double fs, double duration, int nmodes, int npoints, double k, double alpha,
        const char *scheme, char *err, size_t errlen)
{
  const dal_string *s = &dal_case;
  dal_result r = {.rc = VB_ENOMEM};
  vb_scene *sc = NULL;
  vb_run *run = NULL;
  char *text = dal_scene(s, fs, duration, nmodes, npoints, k, alpha, scheme, dal_probes,
                         DAL_NPROBES);
  if (text == NULL)
    return r;
  if ((r.rc = vb_scene_load_string(text, "dalembert.cfg", &sc, err, errlen)) != VB_OK ||
      (r.rc = vb_run_alloc(sc, &run, err, errlen)) != VB_OK) {
    vb_scene_free(sc);
    free(text);
    return r;
  }
  clock_t start = clock();
  r.rc = vb_run_exec(run);
  r.cpu = (double)(clock() - start) / CLOCKS_PER_SEC;
  long n = vb_run_samples(run);
  double sum = 0.0;
  for (int p = 0; p < DAL_NPROBES; p++) {
    const double *u = vb_run_point_u(run, 1, p);
    for (long i = 0; i < n; i++) {
      double e = fabs(u[i] - dal_exact(s, dal_probes[p], (double)i / fs));
      r.max = fmax(r.max, e);
      sum += e * e;
    }
  }
  r.rms = sqrt(sum / (double)(n * DAL_NPROBES));
  r.npoints = npoints;
  for (int c = 0; c < sc->ncontacts; c++)
    r.impacts += vb_run_contact(run, c)->nevents;
  vb_run_free(run);
  vb_scene_free(sc);
  free(text);
  return r;
}

#endif
