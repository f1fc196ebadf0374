/* bench_strings.c - distributed contact on strings (make bench; issue 18).
 *
 * Three cases, each beside the same string with one point contact:
 *   - the electric bass on its 20 frets, all 862 modes, 4.01 MHz,
 *     recording one pickup (target <= 1.0 us per step, issue 33; issue 18 asked <= 2.5);
 *   - the fretless bass, 862 modes on 862 neck points, 4.01 MHz
 *     (target <= 2.5 us per step, issue 33; issue 18 asked <= 50);
 *   - the tanpura-like string (200 modes, a 64-point bridge, 44.1 kHz,
 *     tests/bridge_scene.h), recording its pickup and writing its file,
 *     over 0.25 s, over the scene's own 0.5 s (scenes/tanpura-bridge.cfg)
 *     and over a 2 s note (target >= 5x real time, read on the 0.5 s
 *     line: the file a user runs; the write's cost is nearly fixed per
 *     file, so the shorter line shows it larger and the longer smaller).
 * The bass cases are the distributed branch's scenes (scenes/bass-
 * fretted.cfg, scenes/bass-fretless.cfg: Issanchou et al. 2018's
 * measured modes and neck, a power law k = 1e10 N/m^1.5, alpha 1.5, three-
 * point), run at 4.01 MHz and recording the pickup only; their one-point
 * companions keep one point of the same contact (the first fret; the
 * fretless neck under the pickup).  The pickup is at x = 0.501 m (grid
 * point 500).  For each case (bench_island.h): the Newton figures of the
 * island stepped alone (iterations per step with a solve, mean and max,
 * the share of steps with a solve, the contacts live per step), then the
 * CPU time per step of the whole run (vb_run_exec, recording the pickup;
 * for the tanpura also writing its file, vb_output_write) and its real-
 * time factor, stepping every contact (before) and skipping those that
 * cannot act (after).  The bass runs 20 ms fretted, 8 ms fretless (the
 * published pluck moves away from the neck first: the first contacts come
 * after about 5 ms).  Options: --duration S scales every case's simulated
 * time (default 1); --only TEXT runs only the cases whose name has TEXT;
 * --once V runs each case once, untimed, skipping (V = 1) or not (0), for
 * a load-independent instruction count of the run and of the write:
 *   valgrind --tool=callgrind --toggle-collect=vb_run_exec \
 *     tests/bench/bench_strings . --only "64 points, 0.5" --once 1
 * (vb_output_write for the write's; the 64-point tanpura's own 0.5 s,
 * skipping: 1,330M instructions in vb_run_exec and 89M in the write at
 * 5b3e72f, 939M and 52M at session 10's end). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../bridge_scene.h"
#include "bench_island.h"

/* Text of the file srcdir/rel (malloc'd), or NULL. */
static char *
read_text(const char *srcdir, const char *rel)
{
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", srcdir, rel);
  FILE *f = fopen(path, "rb");
  if (!f)
    return NULL;
  char *text = NULL;
  size_t len = 0, cap = 0, k;
  char buf[4096];
  while ((k = fread(buf, 1, sizeof buf, f)) > 0) {
    if (len + k + 1 > cap) {
      char *t = realloc(text, cap = 2 * (len + k + 1));
      if (!t) {
        free(text);
        fclose(f);
        return NULL;
      }
      text = t;
    }
    memcpy(text + len, buf, k);
    text[len += k] = '\0';
  }
  fclose(f);
  return text;
}

/* Replace the text from the first `from` up to (not including) the next
 * `until` in *text by `to`; 0, or 1 when absent. */
static int
replace(char **text, const char *from, const char *until, const char *to)
{
  char *at = strstr(*text, from), *stop = at ? strstr(at + strlen(from), until) : NULL;
  if (!stop)
    return 1;
  size_t head = (size_t)(at - *text), nt = strlen(to);
  char *out = malloc(head + nt + strlen(stop) + 1);
  if (!out)
    return 1;
  memcpy(out, *text, head);
  memcpy(out + head, to, nt);
  strcpy(out + head + nt, stop);
  free(*text);
  *text = out;
  return 0;
}

/* Blank out the comment lines of a scene's text (from a '#' at the start
 * of a line to its end), so that the replacements below edit its settings
 * and not its header's prose ("for results run at fs = 1003520 ..."). */
static void
drop_comments(char *text)
{
  char *c = text;
  while (c && *c) {
    char *end = strchr(c, '\n');
    if (*c == '#')
      memset(c, ' ', end ? (size_t)(end - c) : strlen(c));
    c = end ? end + 1 : NULL;
  }
}

/* The bass scene srcdir/rel (the distributed branch's: scenes/bass-
 * fretted.cfg, scenes/bass-fretless.cfg) at 4.01 MHz for `duration`
 * s, recording the pickup only; with `one` (e.g. "x = [0.048];"), its
 * distributed contact's points are that one point instead (one point of
 * the same contact on the same string).  NULL on an error (printed). */
static vb_scene *
bass_scene(const char *srcdir, const char *rel, double duration, const char *one)
{
  char *text = read_text(srcdir, rel), dur[64], err[1024], path[1024];
  drop_comments(text);
  snprintf(dur, sizeof dur, "duration = %.17g", duration);
  int bad = !text || replace(&text, "fs = ", ";", "fs = 4010000.0") ||
            replace(&text, "duration = ", ";", dur) ||
            replace(&text, "record = {", "\n", "record = { signals = [\"bodies/string/pickup/u\"]; };") ||
            (one && replace(&text, "points = { file", "}", one));
  if (bad) {
    fprintf(stderr, "bench_strings: %s/%s is not the scene this bench knows\n", srcdir, rel);
    free(text);
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

/* Only the cases whose name contains this (--only TEXT), or all. */
static const char *only = NULL;
/* --once V: each case run once, untimed, skipping (1) or not (0); -1:
 * the timed bench. */
static int once = -1;

/* Variant v of bench_compare: every contact stepped (0, before:
 * VIBRO_NO_SKIP) or skipping those that cannot act (1, after). */
static void
variant_skip(int v)
{
  bench_skip(v);
}

/* Print one case's line: the Newton figures of its island stepped alone
 * (the same with and without skipping, or a second line says how not),
 * the live contacts per step, then the CPU time per step of the whole run
 * stepping every contact (before: VIBRO_NO_SKIP) and skipping (after),
 * each the best of BENCH_ROUNDS interleaved runs (bench_compare) with its
 * real-time factor, then the after's median, the spread of its runs, its
 * vb_run_exec alone and the write's share (best), its status and the
 * target; 0 or 1. */
static int
bench_case(const char *what, vb_scene *sc, const char *target, int write)
{
  if (!sc)
    return 1;
  if (only && !strstr(what, only)) {
    vb_scene_free(sc);
    return 0;
  }
  if (once >= 0) {
    double e, w;
    char status[320];
    bench_skip(once);
    int rc = bench_run_once(sc, write, &e, &w, status, sizeof status);
    printf("%-28s run once (%s): %s\n", what, once ? "skipping" : "every contact", status);
    bench_skip(1);
    vb_scene_free(sc);
    return rc;
  }
  bench_figures fb, fa;
  bench_skip(0);
  int rc = bench_figures_of(sc, &fb);
  bench_skip(1);
  rc = rc || bench_figures_of(sc, &fa);
  char status[320];
  bench_timing t[2];
  rc = rc || bench_compare(sc, write, 2, variant_skip, t, status, sizeof status);
  bench_skip(1);
  if (rc) {
    vb_scene_free(sc);
    return 1;
  }
  printf("%-28s %5.1f%% %5.2f %3d %3d %5.1f/%-4d %7.3f %6.2f %7.3f %6.2f %7.3f %4.0f%% %7.3f %7.3f  "
         "%-9s %s%s\n",
         what, 100.0 * fa.solved / (fa.steps ? fa.steps : 1), fa.it_mean, fa.it_max, (int)fa.failed,
         fa.live, fa.nc, 1e6 * t[0].best, 1.0 / (t[0].best * sc->fs), 1e6 * t[1].best,
         1.0 / (t[1].best * sc->fs), 1e6 * t[1].median, 100.0 * t[1].spread, 1e6 * t[1].exec,
         1e6 * t[1].write, target, status, fa.diverged ? " (island diverged)" : "");
  if (fb.solved != fa.solved || fb.it_mean != fa.it_mean || fb.it_max != fa.it_max ||
      fb.failed != fa.failed)
    printf("%-28s %5.1f%% %5.2f %3d %3ld   (every contact stepped: differs)\n", "",
           100.0 * fb.solved / (fb.steps ? fb.steps : 1), fb.it_mean, fb.it_max, fb.failed);
  fflush(stdout);
  vb_scene_free(sc);
  return 0;
}

/* The two bass cases, each beside one point of the same contact (the
 * first fret; the fretless neck at the pickup, x = 0.501 m). */
static int
bench_bass(const char *srcdir, double scale)
{
  const char *fretted = "scenes/bass-fretted.cfg", *fretless = "scenes/bass-fretless.cfg";
  int rc = 0;
  rc |= bench_case("bass, 1 fret", bass_scene(srcdir, fretted, 0.02 * scale, "points = { x = [0.048]; "),
                   "", 0);
  rc |= bench_case("bass, 20 frets, pickup", bass_scene(srcdir, fretted, 0.02 * scale, NULL),
                   "<= 1.0 us", 0);
  rc |= bench_case("fretless, 1 point",
                   bass_scene(srcdir, fretless, 0.008 * scale, "points = { x = [0.501]; "), "", 0);
  rc |= bench_case("fretless, 862 points", bass_scene(srcdir, fretless, 0.008 * scale, NULL),
                   "<= 2.5 us", 0);
  return rc;
}

/* The tanpura-like string with `points` bridge points. */
static vb_scene *
tanpura(int points, double duration)
{
  char err[1024];
  char *text = bridge_scene(200, points, duration, "two-point", "");
  vb_scene *sc = NULL;
  if (!text || vb_scene_load_string(text, "bridge.cfg", &sc, err, sizeof err) != VB_OK)
    fprintf(stderr, "%s\n", text ? err : "out of memory");
  free(text);
  return sc;
}

int
main(int argc, char **argv)
{
  double scale = 1.0;
  const char *srcdir = ".";
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--duration") == 0 && i + 1 < argc)
      scale = atof(argv[++i]);
    else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc)
      only = argv[++i];
    else if (strcmp(argv[i], "--once") == 0 && i + 1 < argc)
      once = atoi(argv[++i]) != 0;
    else
      srcdir = argv[i];
  }
  printf("distributed contact on strings: CPU per simulated step of the whole run, recording "
         "one pickup (the tanpura's also writing its file), stepping every contact (before) and "
         "skipping those that cannot act (after, lib/island/sparse.c); best of %d runs interleaved "
         "before/after after a warm-up of each; for after also the median, the spread "
         "(worst/best - 1), vb_run_exec alone and the write alone (best, us per step of "
         "this duration: a file costs the same whatever its length); solved: share of steps "
         "with an active contact, Newton iterations per such step (mean, max), steps not converged (ncv); load average "
         "%.2f at the start\n",
         BENCH_ROUNDS, bench_load());
  printf("%-28s %6s %5s %3s %3s %10s %7s %6s %7s %6s %7s %5s %7s %7s  %-9s %s\n", "case", "solved",
         "it/sv", "max", "ncv", "live/pts", "us/step", "x rt", "us/step", "x rt", "median", "sprd",
         "exec", "write", "target", "status");
  printf("%-28s %6s %5s %3s %3s %10s %14s %14s %29s\n", "", "", "", "", "", "", "before (best)",
         "after (best)", "after");
  int rc = 0;
  rc |= bench_bass(srcdir, scale);
  /* the 64-point tanpura over 0.25 s, over the scene's own 0.5 s
   * (scenes/tanpura-bridge.cfg) and over a 2 s note: the write costs
   * about the same per file whatever the length, so its share per step
   * falls with the length while exec's stays; the target is read on the
   * scene's own duration, the run a user makes of that file */
  rc |= bench_case("tanpura, 1 point, 0.25 s", tanpura(1, 0.25 * scale), "", 1);
  rc |= bench_case("tanpura, 64 points, 0.25 s", tanpura(64, 0.25 * scale), "", 1);
  rc |= bench_case("tanpura, 64 points, 0.5 s", tanpura(64, 0.5 * scale), ">= 5x rt", 1);
  rc |= bench_case("tanpura, 64 points, 2 s", tanpura(64, 2.0 * scale), "", 1);
  printf("load average %.2f at the end\n", bench_load());
  return rc;
}
