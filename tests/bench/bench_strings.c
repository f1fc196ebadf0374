/* bench_strings.c - distributed contact on strings (make bench; issue 18).
 *
 * Three cases, each beside the same string with one point contact:
 *   - the electric bass on its 20 frets, all 862 modes, 4.01 MHz,
 *     recording one pickup (target <= 2.5 us per step);
 *   - the fretless bass, 862 modes on 862 neck points, 4.01 MHz
 *     (target <= 50 us per step);
 *   - the tanpura-like string (200 modes, a 64-point bridge, 44.1 kHz,
 *     tests/bridge_scene.h), recording its pickup (target >= 5x real time).
 * The bass cases are built here from the data of Issanchou et al. 2018
 * (../shared/data/bass/README.md), read at bench time from
 * $VIBRO_BASS_DATA or ../shared/data/bass beside the source tree (skipped
 * with a message when absent): the `string` preset (shapes sin(n pi x/L),
 * modal mass mu L/2) with its frequencies and damping replaced by the
 * measured ones, the published plucks (a triangle of 3.57 mm at 0.637 m,
 * fretted; 3.6 mm at 0.64 m, fretless) released from rest, and the neck
 * as a power-law contact (k = 1e13 N/m^1.5, alpha 1.5, two-point) at each
 * fret or grid point with the neck's height as its gap.  The pickup is at
 * x = 0.501 m (grid point 500).  For each case: the Newton figures of the
 * island stepped alone (lib/island.h: iterations per step with a solve,
 * mean and max, the share of steps with a solve), then the CPU time per
 * step of the whole run (vb_run_exec, recording the pickup; for the
 * tanpura also writing its file, vb_output_write) and its real-time factor.  The bass runs 20 ms fretted, 8 ms fretless (the
 * published pluck moves away from the neck first: the first contacts come
 * after about 5 ms).  Options: --duration S scales every case's simulated
 * time (default 1); --only TEXT runs only the cases whose name has TEXT. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "../bridge_scene.h"
#include "island.h"

#define BASS_MODES 862
#define BASS_L 0.863

/* CPU time of the process, s. */
static double
now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

/* Column `col` (0-based) of the data rows of a CSV file dir/name into
 * out[n]; the number of rows read, or -1 when the file cannot be read. */
static int
read_column(const char *dir, const char *name, int col, double *out, int n)
{
  char path[1024], line[512];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "r");
  if (!f)
    return -1;
  int k = 0;
  if (!fgets(line, sizeof line, f)) /* the header */
    k = -1;
  while (k >= 0 && k < n && fgets(line, sizeof line, f)) {
    char *p = line;
    for (int c = 0; c < col && p; c++)
      p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL;
    if (!p)
      break;
    out[k++] = strtod(p, NULL);
  }
  fclose(f);
  return k;
}

/* The bass data directory, or NULL. */
static const char *
bass_dir(const char *srcdir)
{
  static char dir[1024];
  const char *env = getenv("VIBRO_BASS_DATA");
  if (env && *env)
    snprintf(dir, sizeof dir, "%s", env);
  else
    snprintf(dir, sizeof dir, "%s/../shared/data/bass", srcdir);
  char probe[1100];
  snprintf(probe, sizeof probe, "%s/frets.csv", dir);
  FILE *f = fopen(probe, "r");
  if (!f)
    return NULL;
  fclose(f);
  return dir;
}

/* The bass string at fs with contacts at the n positions x[n] (m) with
 * gaps gap[n] (m, the neck's depth below the string), its pluck a triangle
 * of amplitude a (m) at xp (m), measured modes from dir/modes (freq,
 * sigma); NULL on an error (printed). */
static vb_scene *
bass_scene(const char *dir, const char *modes, double fs, double duration, int n,
           const double *x, const double *gap, double a, double xp)
{
  static double freq[BASS_MODES], sigma[BASS_MODES];
  if (read_column(dir, modes, 1, freq, BASS_MODES) != BASS_MODES ||
      read_column(dir, modes, 2, sigma, BASS_MODES) != BASS_MODES) {
    fprintf(stderr, "bench_strings: cannot read %s/%s\n", dir, modes);
    return NULL;
  }
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  if (!f)
    return NULL;
  fprintf(f,
          "scene = { name = \"bass\"; fs = %.17g; duration = %.17g; gravity = 0.0; };\n"
          "bodies = (\n  { name = \"neck\"; type = \"wall\"; },\n"
          "  { name = \"string\"; type = \"modal\";\n"
          "    preset = { kind = \"string\"; nmodes = %d; length = %g; tension = 191.6; "
          "linear_density = 0.0067; };\n    points = (\n",
          fs, duration, BASS_MODES, BASS_L);
  for (int i = 0; i < n; i++)
    fprintf(f, "      { name = \"p%d\"; x = %.17g; },\n", i, x[i]);
  fprintf(f, "      { name = \"pickup\"; x = 0.501; } ); } );\ncontacts = (\n");
  for (int i = 0; i < n; i++)
    fprintf(f,
            "  { name = \"n%d\"; between = [\"neck\", \"string.p%d\"]; law = \"power\"; "
            "k = 1.0e13; alpha = 1.5; gap = %.17g; scheme = \"two-point\"; }%s\n",
            i, i, gap[i], i + 1 < n ? "," : "");
  fprintf(f, ");\nrecord = { signals = [\"bodies/string/pickup/u\"]; };\n");
  if (fclose(f) != 0)
    return NULL;
  char err[1024];
  vb_scene *sc;
  int rc = vb_scene_load_string(text, "bass.cfg", &sc, err, sizeof err);
  free(text);
  if (rc != VB_OK) {
    fprintf(stderr, "%s\n", err);
    return NULL;
  }
  /* the measured modes and the pluck, released from rest */
  vb_body *b = &sc->bodies[1];
  for (int j = 0; j < BASS_MODES; j++) {
    int m = j + 1;
    b->freq[j] = freq[j];
    b->sigma[j] = sigma[j];
    b->q0[j] = 2.0 * a * BASS_L * BASS_L * sin(m * M_PI * xp / BASS_L) /
               (m * m * M_PI * M_PI * xp * (BASS_L - xp));
    b->dq0[j] = 0.0;
  }
  return sc;
}

/* Newton figures of the scene's island with the most contacts: solved
 * steps (share), iterations per solved step (mean, max); 0 or 1. */
static int
newton_figures(const vb_scene *sc)
{
  char err[1024];
  vb_model *model;
  if (vb_model_compile(sc, &model, err, sizeof err) != VB_OK) {
    fprintf(stderr, "%s\n", err);
    return 1;
  }
  const vb_island_model *m = &model->islands[0];
  for (int i = 1; i < model->nislands; i++)
    if (model->islands[i].nc > m->nc)
      m = &model->islands[i];
  vb_island_state *s;
  if (vb_island_state_alloc(m, &s) != VB_OK) {
    vb_model_free(model);
    return 1;
  }
  vb_island_start(m, s);
  long steps = vb_scene_steps(sc), solved = 0, itsum = 0, failed = 0, n;
  int itmax = 0;
  for (n = 0; n < steps; n++) {
    int rc = vb_island_step(m, s, n), its = 0;
    for (int c = 0; c < m->nc; c++)
      its = s->iterations[c] > its ? s->iterations[c] : its;
    solved += its > 0;
    itsum += its;
    itmax = its > itmax ? its : itmax;
    failed += rc == VB_ENOCONV;
    if (rc == VB_EDIVERGED || !vb_island_finite(m, s))
      break;
  }
  printf(" %7.1f%% %7.2f %5d %6ld", 100.0 * solved / (n ? n : 1),
         solved ? (double)itsum / solved : 0.0, itmax, failed);
  if (n < steps)
    printf(" (diverged at step %ld)", n);
  vb_island_state_free(s);
  vb_model_free(model);
  return 0;
}

/* Only the cases whose name contains this (--only TEXT), or all. */
static const char *only = NULL;

/* Print one case's line: Newton figures, us/step and real-time factor of
 * the whole run (with `write`, and of writing its file), its status and
 * the target; 0 or 1. */
static int
bench_case(const char *what, vb_scene *sc, const char *target, int write)
{
  if (!sc)
    return 1;
  if (only && !strstr(what, only)) {
    vb_scene_free(sc);
    return 0;
  }
  printf("%-34s", what);
  if (newton_figures(sc) != 0)
    return 1;
  char err[1024];
  vb_run *run;
  if (vb_run_alloc(sc, &run, err, sizeof err) != VB_OK) {
    fprintf(stderr, "%s\n", err);
    return 1;
  }
  /* the run and the writing of its file (the pickup) */
  char out[64];
  snprintf(out, sizeof out, "bench-strings-%ld.h5", (long)getpid());
  double t0 = now();
  vb_run_exec(run);
  const vb_run *runs[1] = {run};
  int wrc = write ? vb_output_write(out, runs, 1, err, sizeof err) : VB_OK;
  double cost = (now() - t0) / vb_scene_steps(sc);
  remove(out);
  if (wrc != VB_OK)
    fprintf(stderr, "%s\n", err);
  printf(" %9.3f %9.3f  %-10s %s\n", 1e6 * cost, 1.0 / (cost * sc->fs), target,
         vb_run_status(run));
  fflush(stdout);
  vb_run_free(run);
  vb_scene_free(sc);
  return 0;
}

/* The two bass cases, each beside one point contact (the first fret). */
static int
bench_bass(const char *dir, double scale)
{
  static double x[BASS_MODES], gap[BASS_MODES], h[BASS_MODES];
  const double fs = 4.01e6;
  int nf = read_column(dir, "frets.csv", 2, x, BASS_MODES);
  if (nf != 20 || read_column(dir, "frets.csv", 3, h, BASS_MODES) != nf) {
    fprintf(stderr, "bench_strings: cannot read %s/frets.csv\n", dir);
    return 1;
  }
  for (int i = 0; i < nf; i++)
    gap[i] = -h[i];
  int rc = 0;
  rc |= bench_case("bass, 1 fret", bass_scene(dir, "fretted-modes.csv", fs, 0.02 * scale, 1, x,
                                               gap, 3.57e-3, 0.637),
                   "", 0);
  rc |= bench_case("bass, 20 frets, pickup", bass_scene(dir, "fretted-modes.csv", fs,
                                                        0.02 * scale, nf, x, gap, 3.57e-3, 0.637),
                   "<= 2.5 us", 0);
  int np = read_column(dir, "fretless-neck.csv", 1, x, BASS_MODES);
  if (np != BASS_MODES || read_column(dir, "fretless-neck.csv", 2, h, BASS_MODES) != np) {
    fprintf(stderr, "bench_strings: cannot read %s/fretless-neck.csv\n", dir);
    return 1;
  }
  for (int i = 0; i < np; i++)
    gap[i] = -h[i];
  rc |= bench_case("fretless, 1 point", bass_scene(dir, "fretless-modes.csv", fs, 0.008 * scale,
                                                   1, x + 500, gap + 500, 3.6e-3, 0.64),
                   "", 0);
  rc |= bench_case("fretless, 862 points", bass_scene(dir, "fretless-modes.csv", fs,
                                                      0.008 * scale, np, x, gap, 3.6e-3, 0.64),
                   "<= 50 us", 0);
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
    else
      srcdir = argv[i];
  }
  printf("distributed contact on strings (CPU per simulated step of the whole run, "
         "recording one pickup; the tanpura's also writing it)\n");
  printf("%-34s %8s %7s %5s %6s %9s %9s  %-10s %s\n", "case", "solved", "it/slv", "itmax",
         "noconv", "us/step", "x rt", "target", "status");
  int rc = 0;
  const char *dir = bass_dir(srcdir);
  if (!dir)
    printf("(bass cases skipped: no frets.csv in $VIBRO_BASS_DATA or %s/../shared/data/bass)\n",
           srcdir);
  else
    rc |= bench_bass(dir, scale);
  rc |= bench_case("tanpura, 1 point, 44.1 kHz", tanpura(1, 0.25 * scale), "", 1);
  rc |= bench_case("tanpura, 64 points, 44.1 kHz", tanpura(64, 0.25 * scale), ">= 5x rt", 1);
  return rc;
}
