/* bench_schemes.c - single-contact throughput of every scheme (make bench).
 *
 * A 10 g mass bouncing under gravity on a Hunt-Crossley floor for 10 s at
 * 44.1 kHz, recording every 64th sample: prints samples/s per scheme and the
 * mean Newton iterations per step, all measured in this one run. */
#include <stdio.h>
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

int
main(void)
{
  size_t n;
  const vb_scheme *const *all = vb_scheme_list(&n);
  printf("%-12s %12s %10s %8s %14s\n", "scheme", "samples/s", "impacts", "iter/step",
         "balance err J");
  for (size_t i = 0; i < n; i++) {
    char text[1024], err[1024];
    /* a scheme that refuses damping (sav) runs the same floor at mu = 0 */
    const char *mu = "0.05";
  again:
    snprintf(text, sizeof text,
             "scene = { name = \"bench\"; fs = 44100.0; duration = 10.0; gravity = 9.81; };\n"
             "bodies = ( { name = \"floor\"; type = \"wall\"; },\n"
             "           { name = \"ball\"; type = \"mass\"; mass = 0.01; u0 = 0.05; } );\n"
             "contacts = ( { name = \"bounce\"; between = [\"floor\", \"ball\"];\n"
             "  %s%s; scheme = \"%s\"; } );\n"
             "record = { every = 64; };\n",
             /* a scheme that steps rigid contacts alone (moreau-jean): e = 0.8 */
             strcmp(all[i]->name, "moreau-jean") == 0 ? "law = \"rigid\"; e = 0.8" :
             "law = \"hunt-crossley\"; k = 1.0e7; alpha = 1.5; mu = ",
             strcmp(all[i]->name, "moreau-jean") == 0 ? "" : mu, all[i]->name);
    vb_scene *sc = NULL;
    vb_run *run;
    if (vb_scene_load_string(text, "bench.cfg", &sc, err, sizeof err) != VB_OK &&
        strcmp(mu, "0.0") != 0 && strstr(err, "needs an undamped law")) {
      mu = "0.0";
      goto again;
    }
    if (!sc || vb_run_alloc(sc, &run, err, sizeof err) != VB_OK) {
      fprintf(stderr, "%s\n", err);
      return 1;
    }
    double t0 = now();
    vb_run_exec(run);
    double t = now() - t0;
    const vb_contact_result *r = vb_run_contact(run, 0);
    long steps = vb_scene_steps(sc);
    printf("%-12s %12.3g %10ld %8.2f %14.3g  %s%s\n", all[i]->name, steps / t, r->nevents,
           (double)r->iterations / steps, vb_run_balance_error(run), vb_run_status(run),
           strcmp(mu, "0.0") == 0 ? " (mu = 0)" : "");
    vb_run_free(run);
    vb_scene_free(sc);
  }
  return 0;
}
