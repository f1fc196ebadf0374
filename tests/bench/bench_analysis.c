/* bench_analysis.c - what the analysis block costs (issue 20: sections,
 * impact map and classification at most 5 % of a sweep's run time): the
 * 51-scene sweep of scenes/impact-oscillator.cfg run with its analysis
 * block and without it (the same text with the block cut out), on one
 * thread, each three times alternating; the best time of each, the ratio,
 * and the time the threads waited for a CPU (a busy machine says little).
 * Not a test: run it with `make bench`.
 * Usage: bench_analysis [SRCDIR]. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vibro.h"
#include "bench_util.h"

/* The text of a file; NULL when it cannot be read. */
static char *
slurp(const char *path)
{
  FILE *f = fopen(path, "rb");
  char *t = NULL;
  long n;

  if (f && fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
      (t = malloc((size_t)n + 1)) && fread(t, 1, (size_t)n, f) == (size_t)n)
    t[n] = '\0';
  else {
    free(t);
    t = NULL;
  }
  if (f)
    fclose(f);
  return t;
}

int
main(int argc, char **argv)
{
  char path[4096], err[1024], out[256];
  const char *srcdir = argc > 1 ? argv[1] : ".";
  char *with, *without, *a, *b;
  vb_study *st[2];
  double best[2] = {1e300, 1e300}, waited = 0.0;
  long steps;

  snprintf(path, sizeof path, "%s/scenes/impact-oscillator.cfg", srcdir);
  with = slurp(path);
  without = with ? strdup(with) : NULL;
  /* cut "analysis = { ... };" out of the copy */
  a = without ? strstr(without, "\nanalysis = {") : NULL;
  b = a ? strstr(a, "\n};\n") : NULL;
  if (!a || !b) {
    fprintf(stderr, "bench_analysis: no analysis block in %s\n", path);
    return 1;
  }
  memmove(a + 1, b + 4, strlen(b + 4) + 1);
  if (vb_study_load_string(with, path, &st[0], err, sizeof err) != VB_OK ||
      vb_study_load_string(without, path, &st[1], err, sizeof err) != VB_OK) {
    fprintf(stderr, "%s\n", err);
    return 1;
  }
  steps = vb_study_scenes(st[0]) * vb_scene_steps(vb_study_first(st[0]));
  snprintf(out, sizeof out, "bench-analysis-%ld.h5", (long)getpid());
  printf("bench_analysis: %s, %ld scenes, %ld steps in all, one thread\n", path,
         vb_study_scenes(st[0]), steps);
  for (int rep = 0; rep < 3; rep++)
    for (int k = 0; k < 2; k++) {
      vb_study_options opt = {.threads = 1, .nranks = 1};
      vb_study_report r;
      double w = cpu_wait();
      if (vb_study_run(st[k], out, &opt, &r, err, sizeof err) != VB_OK) {
        fprintf(stderr, "%s\n", err);
        remove(out);
        return 1;
      }
      waited += cpu_wait() - w;
      best[k] = r.seconds < best[k] ? r.seconds : best[k];
      remove(out);
    }
  printf("  with the analysis block (section, impact map, classes, attractors): %.3f s\n", best[0]);
  printf("  without it:                                                          %.3f s\n",
         best[1]);
  printf("  ratio %.3f (target <= 1.05: the analysis at most 5 %% of the run); "
         "threads waited %.2f s for a CPU\n",
         best[0] / best[1], waited);
  vb_study_free(st[0]);
  vb_study_free(st[1]);
  free(with);
  free(without);
  return 0;
}
