/* bench_sav.c - the accuracy of the energy-quadratised scheme (sav)
 * against two-point on the scenes of scenes/, at each scene's own rate.
 *
 * Each single-scene file of scenes/ is run twice, its contacts' scheme set
 * to two-point and then to sav.  sav steps only undamped laws, so both runs
 * take the scene with its damping removed (mu = 0; Papetti's corrections
 * off): the comparison is of the schemes, on the same physics.  For every
 * impact with analytic predictions (Papetti eq 4, 6, 9 for the contact's
 * effective mass) it prints the mean and worst relative errors of the
 * contact time, the exit rate (eq 6's root; v_in for mu = 0) and x_max,
 * the mean samples per contact, and sav's largest psi drift.  The table in
 * doc/sav.md is this program's output.
 *
 *   tests/bench/bench_sav [SRCDIR]      (make bench runs it) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "vibro.h"

/* The scenes compared: single scenes (no sweep) with one-sided laws. */
static const char *const scenes[] = {
    "papetti-case-a.cfg", "papetti-case-b.cfg", "chatziioannou-hard.cfg", "ducceschi-fig4.cfg",
    "bouncing-ball.cfg",  "bouncing-on-plate.cfg", "avanzini-hammer-bar.cfg", "rolling-ball.cfg",
    "snare-membrane.cfg",
};

/* Whole file; NULL when it cannot be read. */
static char *
slurp(const char *path)
{
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
  if (t)
    t[n] = '\0';
  fclose(f);
  return t;
}

/* Replace the value after every `key = ` up to the next ';' by `value`
 * (a whole statement: "" removes it).  Comment lines are left alone. */
static char *
set_key(char *text, const char *key, const char *value)
{
  size_t nk = strlen(key), cap = strlen(text) * 2 + 4096, o = 0;
  char *out = malloc(cap);
  const char *p = text;
  int comment = 0;
  while (*p) {
    if (*p == '#')
      comment = 1;
    else if (*p == '\n')
      comment = 0;
    int start = p == text || p[-1] == ' ' || p[-1] == '\t' || p[-1] == '\n' || p[-1] == '{';
    if (!comment && start && strncmp(p, key, nk) == 0 && strncmp(p + nk, " = ", 3) == 0) {
      const char *end = strchr(p, ';');
      if (!end)
        break;
      o += (size_t)snprintf(out + o, cap - o, "%s", value);
      p = end + 1;
      continue;
    }
    out[o++] = *p++;
  }
  out[o] = '\0';
  free(text);
  return out;
}

typedef struct {
  double dur, vout, xmax;       /* sums of |relative errors| */
  double wdur, wvout, wxmax;    /* worst */
  double samples;               /* sum of samples per contact */
  long n;                       /* impacts with predictions */
  double psi;                   /* sav: state drift */
  double fs;                    /* the scene's rate, Hz */
} tally;

/* Run one scene text with every contact's scheme set to `scheme`. */
static int
run(const char *text, const char *path, tally *t)
{
  char err[1024];
  vb_scene *sc = NULL;
  vb_run *r = NULL;
  memset(t, 0, sizeof *t);
  if (vb_scene_load_string(text, path, &sc, err, sizeof err) != VB_OK ||
      vb_run_alloc(sc, &r, err, sizeof err) != VB_OK) {
    fprintf(stderr, "%s\n", err);
    vb_scene_free(sc);
    return 1;
  }
  vb_run_exec(r);
  t->fs = sc->fs;
  for (int c = 0; c < sc->ncontacts; c++) {
    const vb_contact_result *res = vb_run_contact(r, c);
    for (long e = 0; e < res->nevents; e++) {
      const vb_event *ev = &res->events[e];
      double d = fabs(ev->duration - ev->duration_pred) / ev->duration_pred;
      double v = fabs(fabs(ev->v_out) - fabs(ev->v_out_exact)) / fabs(ev->v_out_exact);
      double x = fabs(ev->x_max - ev->x_max_pred) / ev->x_max_pred;
      if (!isfinite(d) || !isfinite(v) || !isfinite(x))
        continue;
      t->dur += d;
      t->vout += v;
      t->xmax += x;
      t->wdur = fmax(t->wdur, d);
      t->wvout = fmax(t->wvout, v);
      t->wxmax = fmax(t->wxmax, x);
      t->samples += ev->samples;
      t->n++;
    }
  }
  t->psi = vb_run_state_drift(r);
  vb_run_free(r);
  vb_scene_free(sc);
  return 0;
}

/* Convergence on one impact: a 10 g mass at 1 m/s on a wall, power law
 * k = 1e7, alpha = 1.1, at 4 rates, two-point and sav. */
static void
convergence(void)
{
  static const char *const schemes[] = {"two-point", "sav"};
  printf("\n| scheme | fs (Hz) | samples | contact time | v_out | x_max |\n");
  printf("| --- | --- | --- | --- | --- | --- |\n");
  for (int k = 0; k < 2; k++)
    for (double fs = 44100.0; fs < 44100.0 * 70; fs *= 4) {
      char text[2048], err[512];
      snprintf(text, sizeof text,
               "scene = { name = \"a\"; fs = %.17g; duration = 0.002; gravity = 0.0; };\n"
               "bodies = ( { name = \"hammer\"; type = \"mass\"; mass = 0.01; u0 = -1.0e-5; "
               "v0 = 1.0; },\n  { name = \"wall\"; type = \"wall\"; } );\n"
               "contacts = ( { name = \"hit\"; between = [\"hammer\", \"wall\"]; law = "
               "\"power\"; k = 1.0e7; alpha = 1.1; scheme = \"%s\"; } );\n",
               fs, schemes[k]);
      vb_scene *sc = NULL;
      vb_run *r = NULL;
      if (vb_scene_load_string(text, "convergence.cfg", &sc, err, sizeof err) != VB_OK ||
          vb_run_alloc(sc, &r, err, sizeof err) != VB_OK) {
        fprintf(stderr, "%s\n", err);
        exit(1);
      }
      vb_run_exec(r);
      const vb_event *ev = &vb_run_contact(r, 0)->events[0];
      printf("| %s | %.0f | %d | %.2e | %.2e | %.2e |\n", schemes[k], fs, ev->samples,
             fabs(ev->duration - ev->duration_pred) / ev->duration_pred,
             fabs(fabs(ev->v_out) - fabs(ev->v_out_exact)) / fabs(ev->v_out_exact),
             fabs(ev->x_max - ev->x_max_pred) / ev->x_max_pred);
      vb_run_free(r);
      vb_scene_free(sc);
    }
}

/* Seconds of the monotonic clock. */
static double
now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

/* Cost on islands of several contacts: a chain wall - m1 - ... - wall of
 * nc power-law contacts (k 1e8 .. 1e9, alpha 1.2 .. 1.8), masses 1 mm
 * apart at alternating 1 m/s, 1e5 steps at 44.1 kHz; sav (one linear
 * solve) against three-point (the K-method's Newton). */
static void
cost(void)
{
  static const char *const schemes[] = {"sav", "three-point"};
  static const int sizes[] = {2, 7, 20};
  printf("\n| contacts | scheme | s per 1e5 steps | Newton iterations | impacts |\n");
  printf("| --- | --- | --- | --- | --- |\n");
  for (int z = 0; z < 3; z++)
    for (int k = 0; k < 2; k++) {
      int nc = sizes[z], nb = nc > 1 ? nc - 1 : 1;
      size_t cap = 4096 + 512 * (size_t)nc, o = 0;
      char *t = malloc(cap), err[1024];
      o += (size_t)snprintf(t + o, cap - o,
                            "scene = { name = \"chain\"; fs = 44100.0; duration = %.17g; };\n"
                            "bodies = ( { name = \"w0\"; type = \"wall\"; },\n"
                            "  { name = \"w1\"; type = \"wall\"; position = %.17g; }",
                            1.0e5 / 44100.0, nc > 1 ? (nb + 1) * 1e-3 : -1.0);
      for (int i = 0; i < nb; i++)
        o += (size_t)snprintf(t + o, cap - o,
                              ",\n  { name = \"b%02d\"; type = \"mass\"; mass = %.17g; u0 = %.17g; "
                              "v0 = %.17g; }",
                              i, 0.01 + 0.003 * (i % 5), nc > 1 ? (i + 1) * 1e-3 : 1e-3,
                              i % 2 ? -1.0 : 1.0);
      o += (size_t)snprintf(t + o, cap - o, "\n);\ncontacts = (\n");
      for (int c = 0; c < nc; c++) {
        char l[16], r[16];
        snprintf(l, sizeof l, c == 0 ? (nc > 1 ? "w0" : "b00") : "b%02d", c - 1);
        snprintf(r, sizeof r, c == nc - 1 ? (nc > 1 ? "w1" : "w0") : "b%02d", c);
        o += (size_t)snprintf(t + o, cap - o,
                              "  { name = \"c%02d\"; between = [\"%s\", \"%s\"]; law = \"power\"; "
                              "k = %.17g; alpha = %.17g; scheme = \"%s\"; }%s\n",
                              c, l, r, 1e8 * (1 + c % 10), 1.2 + 0.1 * (c % 7), schemes[k],
                              c + 1 < nc ? "," : "");
      }
      snprintf(t + o, cap - o, ");\nrecord = { every = 100; };\n");
      vb_scene *sc = NULL;
      vb_run *run = NULL;
      if (vb_scene_load_string(t, "chain.cfg", &sc, err, sizeof err) != VB_OK ||
          vb_run_alloc(sc, &run, err, sizeof err) != VB_OK) {
        fprintf(stderr, "%s\n", err);
        exit(1);
      }
      double t0 = now();
      vb_run_exec(run);
      double dt = now() - t0;
      long it = 0, impacts = 0;
      for (int c = 0; c < nc; c++) {
        it += vb_run_contact(run, c)->iterations;
        impacts += vb_run_contact(run, c)->nevents;
      }
      printf("| %d | %s | %.3f | %ld | %ld |\n", nc, schemes[k], dt, it, impacts);
      vb_run_free(run);
      vb_scene_free(sc);
      free(t);
    }
}

int
main(int argc, char **argv)
{
  const char *src = argc > 1 ? argv[1] : ".";
  static const char *const schemes[] = {"two-point", "sav"};
  printf("| scene | fs (Hz) | impacts | samples/contact | scheme | contact time mean (worst) | "
         "v_out mean (worst) | x_max mean (worst) | psi drift (J^1/2) |\n");
  printf("| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
  for (size_t i = 0; i < sizeof scenes / sizeof scenes[0]; i++) {
    char path[4096];
    snprintf(path, sizeof path, "%s/scenes/%s", src, scenes[i]);
    char *base = slurp(path);
    if (!base) {
      fprintf(stderr, "cannot read %s\n", path);
      return 1;
    }
    base = set_key(base, "mu", "mu = 0.0;");
    base = set_key(base, "corrections", "");
    base = set_key(base, "vout", "");
    base = set_key(base, "s", "");
    for (int k = 0; k < 2; k++) {
      char scheme[64];
      snprintf(scheme, sizeof scheme, "scheme = \"%s\";", schemes[k]);
      char *text = set_key(strdup(base), "scheme", scheme);
      tally t;
      int bad = run(text, path, &t);
      free(text);
      if (bad)
        return 1;
      double n = t.n > 0 ? (double)t.n : NAN;
      char psi[32] = "-";
      if (!isnan(t.psi))
        snprintf(psi, sizeof psi, "%.2e", t.psi);
      printf("| %s | %.0f | %ld | %.1f | %s | %.2e (%.2e) | %.2e (%.2e) | %.2e (%.2e) | %s |\n",
             scenes[i], t.fs, t.n, t.samples / n, schemes[k], t.dur / n, t.wdur, t.vout / n,
             t.wvout, t.xmax / n, t.wxmax, psi);
    }
    free(base);
  }
  convergence();
  cost();
  return 0;
}
