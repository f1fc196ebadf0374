/* bench_load.c - the load and check of large inputs (issue 19, item 3):
 * what `vibro check` does on a scene of 100,000 contacts (load: parse,
 * names, islands; then every contact's approach from one island build),
 * target at most 10 s, and the load of a study whose sweep lists 10^6
 * values (parse, expansion, the sampled scenes' validation), target at
 * most 2 s.  Wall times, and the CPU wait of a loaded machine. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "vibro.h"
#include "bench_util.h"

/* Seconds on a monotonic clock. */
static double
now(void)
{
  struct timespec t;

  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* n masses, each against one wall through its own contact. */
static char *
contacts_text(long n)
{
  size_t size = 256 + (size_t)n * 220, used = 0;
  char *t = malloc(size);

  if (!t)
    return NULL;
  used += (size_t)snprintf(t, size,
                           "scene = { name = \"many\"; fs = 44100.0; duration = 0.001; };\n"
                           "bodies = ( { name = \"wall\"; type = \"wall\"; }");
  for (long i = 0; i < n; i++)
    used += (size_t)snprintf(t + used, size - used,
                             ",\n { name = \"m%ld\"; type = \"mass\"; mass = 0.01; u0 = 0.001; "
                             "v0 = -1.0; }",
                             i);
  used += (size_t)snprintf(t + used, size - used, " );\ncontacts = (");
  for (long i = 0; i < n; i++)
    used += (size_t)snprintf(t + used, size - used,
                             "%s\n { name = \"c%ld\"; between = [\"m%ld\", \"wall\"]; "
                             "law = \"power\"; k = 1e8; alpha = 1.5; scheme = \"two-point\"; }",
                             i ? "," : "", i, i);
  snprintf(t + used, size - used, " );\n");
  return t;
}

/* A hammer on a wall swept over n listed stiffnesses. */
static char *
values_text(long n)
{
  size_t size = 1024 + (size_t)n * 26, used = 0;
  char *t = malloc(size);

  if (!t)
    return NULL;
  used += (size_t)snprintf(
      t, size,
      "scene = { name = \"v\"; fs = 44100.0; duration = 0.001; };\n"
      "bodies = ( { name = \"hammer\"; type = \"mass\"; mass = 0.01; v0 = 1.0; },\n"
      "           { name = \"wall\"; type = \"wall\"; } );\n"
      "contacts = ( { name = \"hit\"; between = [\"hammer\", \"wall\"]; law = \"hunt-crossley\";\n"
      "               k = 1e9; alpha = 1.5; mu = 0.5; scheme = \"am1\"; } );\n"
      "sweep = { params = ( { path = \"contacts.hit.k\"; values = [");
  for (long i = 0; i < n; i++)
    used += (size_t)snprintf(t + used, size - used, "%s%.9e", i ? ", " : "", 1e8 * (1.0 + 1e-6 * (double)i));
  snprintf(t + used, size - used, "]; } ); };\n");
  return t;
}

/* Time one case; 0 when it met its target. */
static int
run(const char *what, char *text, int rates, double target)
{
  char err[1024];
  vb_study *st = NULL;
  double w0 = cpu_wait(), t0 = now(), t;
  int rc = text ? vb_study_load_string(text, "bench.cfg", &st, err, sizeof err) : VB_ENOMEM;

  if (rc == VB_OK && rates) {
    const vb_scene *sc = vb_study_first(st);
    double *r = malloc(2 * ((size_t)sc->ncontacts + 1) * sizeof *r);
    if (r)
      vb_scene_approach_rates(sc, r, r + sc->ncontacts);
    free(r);
  }
  t = now() - t0;
  if (rc != VB_OK)
    printf("%s: failed: %s\n", what, text ? err : "out of memory");
  else
    printf("%-40s %8.3f s (target %4.1f s%s; CPU wait %.3f s)\n", what, t, target,
           t <= target ? ", met" : ", MISSED", cpu_wait() - w0);
  vb_study_free(st);
  free(text);
  return rc != VB_OK || t > target;
}

int
main(void)
{
  int missed = 0;

  missed += run("load + check, 100000 contacts", contacts_text(100000), 1, 10.0);
  missed += run("load, sweep of 10^6 listed values", values_text(1000000), 0, 2.0);
  return missed != 0;
}
