/* bench_short.c - what a short process costs (issue 33 item 5), as the user
 * runs it: the whole `vibro` process, its CPU (user + system, from wait4's
 * rusage, microseconds) over several runs, min / median / max, for
 *   - `vibro --version` (target: median at most 2 ms);
 *   - a study of 10,000 short drops (a 10 g mass dropped from 0.1 to 1 mm
 *     on a Hunt-Crossley floor, 0.01 s each at 44.1 kHz, events only; 43 %
 *     of them hit), -j 1 and -j 2 (target: at most 100 us of CPU a scene);
 *   - the 3-mode hammer of scenes/avanzini-hammer-bar.cfg run for 10 s
 *     (441,000 samples), every signal recorded and the struck point's u
 *     alone, as a sound program writes its output (target: SDT's 6.5e6
 *     samples/s).
 * Each figure is printed beside its target and the figures measured before
 * (the reference binary of 2026-12-02, main at 59dc9f8, reference LAPACK:
 * doc/developers.md, "Performance of short processes"); with VIBRO_BEFORE
 * set to another vibro, that binary is measured too, its runs alternating
 * with these (A B A B), so a machine's drift hits both.  Not a test: run it
 * with `make bench`.
 * Usage: bench_short VIBRO SRCDIR [TMPDIR]. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>
#include "bench_proc.h"

#define RUNS_MAX 64

/* min, median, max of n runs into f[3]; 0, or -1 when a run failed. */
typedef struct figure {
  double min, median, max;
} figure;

static int
summarise(double *t, int n, figure *f)
{
  for (int i = 0; i < n; i++)
    if (t[i] < 0.0)
      return -1;
  qsort(t, (size_t)n, sizeof *t, by_value);
  f->min = t[0];
  f->median = n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
  f->max = t[n - 1];
  return 0;
}

/* n runs of the command with vibro as argv[0] (and of before's, alternating,
 * when before is set) after one warm-up each. */
static int
measure(const char *vibro, const char *before, char **args, int n, figure *after,
        figure *then)
{
  double ta[RUNS_MAX], tb[RUNS_MAX];
  char *argv[16];
  int k = 0;
  for (; args[k] && k < 14; k++)
    argv[k + 1] = args[k];
  argv[k + 1] = NULL;
  for (int i = -1; i < n; i++) {
    argv[0] = (char *)vibro;
    double a = cpu_of(argv);
    double b = 0.0;
    if (before) {
      argv[0] = (char *)before;
      b = cpu_of(argv);
    }
    if (i >= 0) {
      ta[i] = a;
      tb[i] = b;
    }
  }
  if (summarise(ta, n, after) != 0)
    return -1;
  return before ? summarise(tb, n, then) : 0;
}

/* One row: the figure as `scale` x CPU seconds (or, rate, as count / CPU
 * seconds) in unit, its target and the stored figure of before. */
static void
row(const char *what, const figure *f, const figure *then, double scale, int rate,
    const char *unit, const char *target, const char *stored)
{
  double lo = rate ? scale / f->max : scale * f->min, mid = rate ? scale / f->median
                                                               : scale * f->median,
         hi = rate ? scale / f->min : scale * f->max;
  printf("  %-34s median %9.4g %s (min %.4g, max %.4g)  target %s\n", what, mid, unit, lo, hi,
         target);
  if (then)
    printf("  %-34s median %9.4g %s (VIBRO_BEFORE, runs paired)\n", "  before",
           rate ? scale / then->median : scale * then->median, unit);
  printf("  %-34s %s\n", "  before (2026-12-02)", stored);
}

static const char drops_cfg[] =
    "scene = { name = \"drops\"; fs = 44100.0; duration = 0.01; gravity = 9.81; };\n"
    "bodies = (\n"
    "  { name = \"ball\";  type = \"mass\"; mass = 0.01; u0 = 0.001; v0 = 0.0; },\n"
    "  { name = \"floor\"; type = \"wall\"; position = 0.0; }\n"
    ");\n"
    "contacts = (\n"
    "  { name = \"hit\"; between = [\"floor\", \"ball\"];\n"
    "    law = \"hunt-crossley\"; k = 1.0e9; alpha = 1.5; mu = 0.5; scheme = \"am1\"; }\n"
    ");\n"
    "record = { signals = []; };\n"
    "sweep = { params = ( { path = \"bodies.ball.u0\"; linspace = [0.0001, 0.001]; n = 10000; "
    "} ); };\n";

/* The hammer of scenes/avanzini-hammer-bar.cfg for 10 s, recording every
 * signal (signals NULL) or those given, into path; 0 or -1. */
static int
write_hammer(const char *srcdir, const char *signals, const char *path)
{
  char in[4096], line[4096];
  snprintf(in, sizeof in, "%s/scenes/avanzini-hammer-bar.cfg", srcdir);
  FILE *f = fopen(in, "r"), *o = fopen(path, "w");
  if (!f || !o) {
    if (f)
      fclose(f);
    if (o)
      fclose(o);
    return -1;
  }
  while (fgets(line, sizeof line, f)) {
    char *d = strstr(line, "duration = 0.5;");
    if (line[0] == '#')
      continue;
    if (d)
      memcpy(d, "duration = 10;  ", 16);
    if (strncmp(line, "record", 6) == 0 && signals)
      fprintf(o, "record = { every = 1; signals = [%s]; };\n", signals);
    else
      fputs(line, o);
  }
  fclose(f);
  return fclose(o) == 0 ? 0 : -1;
}

int
main(int argc, char **argv)
{
  if (argc < 3) {
    fprintf(stderr, "usage: bench_short VIBRO SRCDIR [TMPDIR]\n");
    return 2;
  }
  const char *vibro = argv[1], *srcdir = argv[2], *tmp = argc > 3 ? argv[3] : "/tmp";
  const char *before = getenv("VIBRO_BEFORE");
  char drops[4096], out[4096], ham[4096], hamu[4096];
  figure a, b;
  FILE *f;

  if (before && !before[0])
    before = NULL;
  snprintf(drops, sizeof drops, "%s/bench-short-drops-%ld.cfg", tmp, (long)getpid());
  snprintf(out, sizeof out, "%s/bench-short-%ld.h5", tmp, (long)getpid());
  snprintf(ham, sizeof ham, "%s/bench-short-hammer-%ld.cfg", tmp, (long)getpid());
  snprintf(hamu, sizeof hamu, "%s/bench-short-hammer-u-%ld.cfg", tmp, (long)getpid());
  if (!(f = fopen(drops, "w")) || fputs(drops_cfg, f) < 0 || fclose(f) != 0 ||
      write_hammer(srcdir, NULL, ham) != 0 ||
      write_hammer(srcdir, "\"bodies/bar/strike/u\"", hamu) != 0) {
    fprintf(stderr, "bench_short: cannot write the scenes in %s\n", tmp);
    return 1;
  }
  printf("bench_short: whole-process CPU (user + system) of %s%s%s\n", vibro,
         before ? " against " : "", before ? before : "");

  char *version[] = {"--version", NULL};
  if (measure(vibro, before, version, 41, &a, &b) != 0)
    goto failed;
  row("vibro --version (41 runs)", &a, before ? &b : NULL, 1e3, 0, "ms", "<= 2 ms",
      "median 3.4-4.1 ms (reference LAPACK), 8.0 ms (OpenBLAS as liblapack.so.3)");

  for (int j = 1; j <= 2; j++) {
    char *study[] = {"run", drops, "-o", out, "-q", "-j", j == 1 ? "1" : "2", NULL};
    if (measure(vibro, before, study, 5, &a, &b) != 0)
      goto failed;
    row(j == 1 ? "10,000 drops, -j 1 (5 runs)" : "10,000 drops, -j 2 (5 runs)", &a,
        before ? &b : NULL, 1e6 / 10000.0, 0, "us/scene", "<= 100 us a scene",
        j == 1 ? "median 285-311 us a scene" : "median 336 us a scene (CPU of both threads)");
  }

  char *h_all[] = {"run", ham, "-o", out, "-q", NULL};
  if (measure(vibro, before, h_all, 7, &a, &b) != 0)
    goto failed;
  row("3-mode hammer 10 s, all signals", &a, before ? &b : NULL, 441000.0, 1, "samples/s",
      ">= 6.5e6 (SDT)", "median 4.1e6 samples/s (108 ms; OpenBLAS: 2.4e6)");
  char *h_u[] = {"run", hamu, "-o", out, "-q", NULL};
  if (measure(vibro, before, h_u, 7, &a, &b) != 0)
    goto failed;
  row("3-mode hammer 10 s, strike/u only", &a, before ? &b : NULL, 441000.0, 1, "samples/s",
      ">= 6.5e6 (SDT)", "median 6.4e6 samples/s (69 ms)");
  remove(drops), remove(ham), remove(hamu), remove(out);
  return 0;
failed:
  fprintf(stderr, "bench_short: a run of %s failed\n", vibro);
  remove(drops), remove(ham), remove(hamu), remove(out);
  return 1;
}
