/* check_distributed.c - tests of distributed contact blocks
 * (lib/scene/load_distributed.c): the expansion into point contacts from a grid,
 * a list and a file, against a constant, a list, a file and a parabola
 * (positions, heights and shapes exact, computed here independently);
 * one sweep path for every point; events that name the point; the
 * messages for bad blocks; energy of a lossless string on many points;
 * the load and check of 1,000 points; and modes at or above fs/2
 * (lib/scene/nyquist.c, model.c). */
#include <math.h>
#include <time.h>
#include <unistd.h>

#include "testutil.h"
#include "base/base.h"
#include "bridge_scene.h"

/* A uniform number in [0, 1) from a 64-bit LCG state. */
static double
uniform01(unsigned long *x)
{
  *x = *x * 6364136223846793005UL + 1442695040888963407UL;
  return (double)(*x >> 11) / 9007199254740992.0;
}

#ifndef TEST_SRCDIR
#define TEST_SRCDIR "."
#endif

/* A string of length 1 m (100 Hz, 60 modes) over a wall, then the block
 * "b" whose points and profile are the two %s. */
#define STRING_SCENE(fs, scheme, between, points, profile, extra)                                  \
  "scene = { name = \"t\"; fs = " fs "; duration = 0.004; gravity = 0.0; };\n"                     \
  "bodies = (\n"                                                                                   \
  "  { name = \"wall\"; type = \"wall\"; },\n"                                                     \
  "  { name = \"string\"; type = \"modal\";\n"                                                     \
  "    preset = { kind = \"string\"; nmodes = 60; length = 1.0; tension = 40.0;\n"                 \
  "               linear_density = 0.001; pluck = [0.31, 0.002]; };\n"                             \
  "    points = ( { name = \"pickup\"; x = 0.7; } ); }\n"                                          \
  ");\n"                                                                                           \
  "contacts = (\n"                                                                                 \
  "  { name = \"b\"; between = " between "; law = \"power\"; k = 1e8; alpha = 1.5;\n"              \
  "    scheme = \"" scheme "\"; points = " points "; profile = " profile "; " extra "}\n"          \
  ");\n"

/* Load a scene from text; fails the test with the message on an error. */
static vb_scene *
load(const char *text)
{
  vb_scene *sc = NULL;
  char err[2048];
  int rc = vb_scene_load_string(text, "test.cfg", &sc, err, sizeof err);
  ck_assert_msg(rc == VB_OK, "scene did not load: %s", err);
  return sc;
}

/* Check the expansion of block "b" of n points at x[] with heights h[],
 * the barrier below the string (between = ["wall", "string"]) or above. */
static void
check_expansion(const vb_scene *sc, int n, const double *x, const double *h, int below)
{
  const vb_body *s = &sc->bodies[1];
  ck_assert_int_eq(sc->ncontacts, n);
  ck_assert_int_eq(s->npoints, 1 + n);
  for (int k = 0; k < n; k++) {
    const vb_contact *c = &sc->contacts[k];
    char name[64];
    snprintf(name, sizeof name, "b[%d]", k);
    ck_assert_str_eq(c->name, name);
    ck_assert_str_eq(c->group, "b");
    ck_assert_int_eq(c->group_point, k);
    ck_assert_int_eq(c->element, 0);
    int p = below ? c->pb : c->pa;
    ck_assert_int_eq(below ? c->a : c->b, 0);
    ck_assert_int_eq(below ? c->b : c->a, 1);
    ck_assert_int_eq(p, 1 + k);
    ck_assert_str_eq(s->points[p].name, name);
    ck_assert_msg(s->points[p].x == x[k], "point %d at %.17g, expected %.17g", k, s->points[p].x,
                  x[k]);
    /* below: x = u_wall - u(x_k) - gap = h_k - u(x_k), so gap = -h_k */
    ck_assert_msg(c->gap == (below ? -h[k] : h[k]), "point %d gap %.17g, height %.17g", k, c->gap,
                  h[k]);
    for (int j = 0; j < s->nmodes; j++) /* the string's sin(n pi x/L), L = 1 */
      ck_assert_msg(s->points[p].shape[j] == sin((j + 1) * M_PI * x[k]),
                    "point %d mode %d shape %.17g", k, j, s->points[p].shape[j]);
  }
}

/* A grid against a parabola, below and above, at sizes up to 4,000. */
START_TEST(test_grid_parabola)
{
  static const int sizes[] = {1, 2, 3, 17, 250, 1000};
  int n = sizes[_i];
  double from = 0.013, to = n == 1 ? 0.013 : 0.29, x0 = 0.021, h0 = -1.3e-4, a = -0.71;
  for (int below = 0; below < 2; below++) {
    char text[4096], pts[256], prof[256];
    snprintf(pts, sizeof pts, "{ from = %.17g; to = %.17g; n = %d; }", from, to, n);
    snprintf(prof, sizeof prof, "{ parabola = [%.17g, %.17g, %.17g]; }", x0, h0, a);
    snprintf(text, sizeof text, STRING_SCENE("44100.0", "two-point", "%s", "%s", "%s", ""),
             below ? "[\"wall\", \"string\"]" : "[\"string\", \"wall\"]", pts, prof);
    vb_scene *sc = load(text);
    double *x = malloc((size_t)n * sizeof *x), *h = malloc((size_t)n * sizeof *h);
    ck_assert(x != NULL && h != NULL);
    for (int k = 0; k < n; k++) {
      x[k] = k == n - 1 ? to : from + (to - from) * (double)k / (double)(n > 1 ? n - 1 : 1);
      h[k] = h0 + a * (x[k] - x0) * (x[k] - x0);
    }
    check_expansion(sc, n, x, h, below);
    free(x);
    free(h);
    vb_scene_free(sc);
  }
}
END_TEST

/* A list of positions against a list of heights and a constant height,
 * random values. */
START_TEST(test_list)
{
  srand(1234u + (unsigned)_i);
  int n = 1 + rand() % 40;
  char xs[4096] = "", hs[4096] = "", text[16384], pts[4200], prof[4200];
  double x[64] = {0}, h[64] = {0};
  for (int k = 0; k < n; k++) {
    x[k] = 0.001 + 0.998 * rand() / (double)RAND_MAX;
    h[k] = -1e-3 * rand() / (double)RAND_MAX;
    snprintf(xs + strlen(xs), sizeof xs - strlen(xs), "%s%.17g", k ? ", " : "", x[k]);
    snprintf(hs + strlen(hs), sizeof hs - strlen(hs), "%s%.17g", k ? ", " : "", h[k]);
  }
  snprintf(pts, sizeof pts, "{ x = [%s]; }", xs);
  snprintf(prof, sizeof prof, "{ heights = [%s]; }", hs);
  snprintf(text, sizeof text,
           STRING_SCENE("44100.0", "two-point", "[\"wall\", \"string\"]", "%s", "%s", ""), pts,
           prof);
  vb_scene *sc = load(text);
  check_expansion(sc, n, x, h, 1);
  vb_scene_free(sc);
  snprintf(text, sizeof text,
           STRING_SCENE("44100.0", "two-point", "[\"wall\", \"string\"]", "%s",
                        "{ height = -2.5e-4; }", ""),
           pts);
  sc = load(text);
  for (int k = 0; k < n; k++)
    h[k] = -2.5e-4;
  check_expansion(sc, n, x, h, 1);
  vb_scene_free(sc);
}
END_TEST

/* Points from a CSV file's x column, heights from another file linear
 * between its rows (exact at them). */
START_TEST(test_files)
{
  char dir[] = "/tmp/check_distributed.XXXXXX", path[256], text[8192];
  ck_assert(mkdtemp(dir) != NULL);
  double px[] = {0.05, 0.1, 0.4, 0.9}, ph[] = {-1e-3, -2e-3, -5e-4, -1.5e-3};
  double x[] = {0.05, 0.07, 0.1, 0.33, 0.4, 0.6125, 0.9}, h[7];
  FILE *f;
  snprintf(path, sizeof path, "%s/profile.csv", dir);
  ck_assert((f = fopen(path, "w")) != NULL);
  fprintf(f, "# a neck\npoint,x_m,height_m\n");
  for (int r = 0; r < 4; r++)
    fprintf(f, "%d, %.17g, %.17g\n", r, px[r], ph[r]);
  fclose(f);
  snprintf(path, sizeof path, "%s/points.csv", dir);
  ck_assert((f = fopen(path, "w")) != NULL);
  fprintf(f, "x\n");
  for (int k = 0; k < 7; k++)
    fprintf(f, "%.17g\n", x[k]);
  fclose(f);
  for (int k = 0; k < 7; k++) {
    int r = 0;
    while (r < 2 && x[k] > px[r + 1])
      r++;
    h[k] = x[k] == px[r]       ? ph[r]
           : x[k] == px[r + 1] ? ph[r + 1]
                               : ph[r] + (ph[r + 1] - ph[r]) * (x[k] - px[r]) / (px[r + 1] - px[r]);
  }
  snprintf(text, sizeof text,
           STRING_SCENE("44100.0", "two-point", "[\"wall\", \"string\"]",
                        "{ file = \"%s/points.csv\"; }", "{ file = \"%s/profile.csv\"; }", ""),
           dir, dir);
  vb_scene *sc = load(text);
  check_expansion(sc, 7, x, h, 1);
  vb_scene_free(sc);
  snprintf(path, sizeof path, "rm -rf '%s'", dir);
  ck_assert_int_eq(system(path), 0);
}
END_TEST

/* One sweep path, contacts.b.k, sets k of every point. */
START_TEST(test_sweep_all_points)
{
  char text[8192], err[2048];
  vb_study *st = NULL;
  vb_scene *sc = NULL;
  snprintf(text, sizeof text,
           "%ssweep = { params = ( { path = \"contacts.b.k\"; values = [3e7, 9e8]; } ); };\n",
           STRING_SCENE("44100.0", "two-point", "[\"wall\", \"string\"]",
                        "{ from = 0.01; to = 0.05; n = 33; }", "{ height = -1e-4; }", ""));
  ck_assert_msg(vb_study_load_string(text, "study.cfg", &st, err, sizeof err) == VB_OK, "%s", err);
  ck_assert_int_eq(vb_study_scenes(st), 2);
  ck_assert_msg(vb_study_scene(st, 1, &sc, err, sizeof err) == VB_OK, "%s", err);
  ck_assert_int_eq(sc->ncontacts, 33);
  for (int k = 0; k < 33; k++)
    ck_assert(sc->contacts[k].law.k == 9e8);
  vb_scene_free(sc);
  vb_study_free(st);
}
END_TEST

/* A plucked string against a bridge near its end: impacts happen, each at
 * a point contact named "b[k]", and the run's events are per point. */
START_TEST(test_events_name_point)
{
  tu_sim s = tu_run_text(STRING_SCENE("44100.0", "two-point", "[\"wall\", \"string\"]",
                                      "{ from = 0.005; to = 0.025; n = 8; }",
                                      "{ parabola = [0.0, 0.0, -0.2]; }", ""));
  ck_assert_int_eq(s.rc, VB_OK);
  long total = 0;
  for (int k = 0; k < 8; k++) {
    const vb_contact_result *r = vb_run_contact(s.run, k);
    total += r->nevents;
    for (long e = 0; e < r->nevents; e++)
      ck_assert(r->events[e].x_max > 0.0);
  }
  ck_assert_msg(total > 0, "no impacts on the bridge");
  ck_assert_int_gt(vb_run_contact(s.run, 0)->nevents, 0);
  ck_assert_str_eq(vb_run_scene(s.run)->contacts[0].name, "b[0]");
  tu_free(&s);
}
END_TEST

/* Bad blocks: each message, in full. */
static const struct {
  const char *between, *points, *profile, *extra, *message;
} bad[] = {
    {"[\"wall\", \"string\"]", "{ from = 0.1; to = 0.2; }", "{ height = 0.0; }", "",
     "test.cfg:11: contact 'b' points: missing required key 'n'"},
    {"[\"wall\", \"string\"]", "{ from = 0.1; to = 0.2; n = 0; }", "{ height = 0.0; }", "",
     "test.cfg:11: contact 'b' points: 'n' must be between 1 and 100000 (got 0)"},
    {"[\"wall\", \"string\"]", "{ from = 0.1; to = 0.2; n = 3; x = [0.1]; }", "{ height = 0.0; }",
     "",
     "test.cfg:11: contact 'b' points: give the points by exactly one form (valid: { from = ...; "
     "to = ...; n = ...; }, { x = [...]; } or { file = \"points.csv\"; }, each with an optional "
     "y)"},
    {"[\"wall\", \"string\"]", "{ from = 0.1; to = 1.2; n = 3; }", "{ height = 0.0; }", "",
     "test.cfg:11: contact 'b': preset 'string': point at x = 1.2 is outside the string "
     "(valid: 0 <= x <= 1)"},
    {"[\"wall\", \"string\"]", "{ x = [0.1, 0.2]; }", "{ heights = [0.0]; }", "",
     "test.cfg:11: contact 'b' profile: 'heights' has 1 values (valid: one per point, 2)"},
    {"[\"wall\", \"string\"]", "{ x = [0.1, 0.2]; }", "{ height = 0.0; parabola = [0, 0, 1]; }", "",
     "test.cfg:11: contact 'b' profile: give the heights by exactly one form (valid: { height = "
     "...; }, { heights = [...]; }, { file = \"profile.csv\"; } or { parabola = [x0, h0, a]; })"},
    {"[\"wall\", \"string\"]", "{ x = [0.1, 0.2]; }", "{ slope = 1.0; }", "",
     "test.cfg:11: contact 'b' profile: unknown key 'slope' (valid: height, heights, file, "
     "parabola)"},
    {"[\"wall\", \"string\"]", "{ x = [0.1, 0.2]; }", "{ height = 0.0; }", "gap = 0.1; ",
     "test.cfg:11: contact 'b': 'gap' does not apply to a distributed contact (valid: its "
     "'profile' gives each point's height; drive the wall 'wall' to move it)"},
    {"[\"wall\", \"wall\"]", "{ x = [0.1, 0.2]; }", "{ height = 0.0; }", "",
     "test.cfg:10: contact 'b': 'between' joins 'wall' (wall) and 'wall' (wall) (valid: two body "
     "names, a modal body with a preset and a wall or a mass)"},
    {"[\"wall\", \"strung\"]", "{ x = [0.1, 0.2]; }", "{ height = 0.0; }", "",
     "test.cfg:10: contact 'b': 'between' names unknown body 'strung' (valid: two body names, a "
     "modal body with a preset and a wall or a mass)"},
    {"[\"wall\", \"string\"]", "{ x = [0.1, 0.2]; }", "{ file = \"/nonexistent/neck.csv\"; }", "",
     "test.cfg:11: contact 'b' profile: /nonexistent/neck.csv: cannot read: No such file or "
     "directory"},
};

START_TEST(test_bad_blocks)
{
  char text[8192], err[2048];
  vb_scene *sc = NULL;
  snprintf(text, sizeof text, STRING_SCENE("44100.0", "two-point", "%s", "%s", "%s", "%s"),
           bad[_i].between, bad[_i].points, bad[_i].profile, bad[_i].extra);
  int rc = vb_scene_load_string(text, "test.cfg", &sc, err, sizeof err);
  ck_assert_int_eq(rc, VB_EINVAL);
  ck_assert_ptr_null(sc);
  ck_assert_msg(strcmp(err, bad[_i].message) == 0, "case %d:\n  got      %s\n  expected %s", _i,
                err, bad[_i].message);
}
END_TEST

/* A body without a preset has no shapes between its points. */
START_TEST(test_bad_no_preset)
{
  const char *text =
      "scene = { name = \"t\"; fs = 44100.0; duration = 0.01; };\n"
      "bodies = ( { name = \"wall\"; type = \"wall\"; },\n"
      "  { name = \"bar\"; type = \"modal\"; freq = [100.0]; mass = [0.1];\n"
      "    points = ( { name = \"p\"; shape = [1.0]; } ); } );\n"
      "contacts = ( { name = \"b\"; between = [\"bar\", \"wall\"]; law = \"power\"; k = 1e6; alpha "
      "= 1.5;\n"
      "  scheme = \"two-point\"; points = { x = [0.1]; }; profile = { height = 0.1; }; } );\n";
  char err[2048];
  vb_scene *sc = NULL;
  ck_assert_int_eq(vb_scene_load_string(text, "test.cfg", &sc, err, sizeof err), VB_EINVAL);
  ck_assert_str_eq(err, "test.cfg:5: contact 'b': body 'bar' has no preset: its mode shapes "
                        "between its named points are unknown (valid: a modal body with a "
                        "'preset' of kind bar, string, plate, membrane)");
}
END_TEST

/* The string preset's keys in a scene: each message, in full. */
static const struct {
  const char *preset, *extra, *message;
} bad_string[] = {
    {"frequencies = \"/nonexistent/modes.csv\"; nmodes = 2;", "",
     "test.cfg:3: body 's' preset: /nonexistent/modes.csv: cannot read: No such file or directory"},
    {"frequencies = \"bass-fretted-modes.csv\"; nmodes = 900;", "",
     "test.cfg:3: body 's' preset: 'bass-fretted-modes.csv' has 862 modes, fewer than nmodes = 900 "
     "(valid: nmodes <= 862)"},
    {"inharmonicity = -1.0; nmodes = 2;", "",
     "test.cfg:3: body 's': preset 'string': 'inharmonicity' must be >= 0 (got -1)"},
    {"pluck = [0.3]; nmodes = 2;", "",
     "test.cfg:3: body 's' preset: 'pluck' has 1 values (valid: [x0, height], m)"},
    {"pluck = [0.3, 0.0]; nmodes = 2;", "",
     "test.cfg:3: body 's' preset: 'pluck' = [x0, height] needs a height other than 0"},
    {"pluck = [0.3, 0.001]; nmodes = 2;", "q0 = [0.0, 0.0]; ",
     "test.cfg:2: body 's': 'q0' and the preset's 'pluck' both give the initial displacement "
     "(valid: one of them)"},
    {"initial = { file = \"bass-fretted-pluck.csv\"; }; nmodes = 2;", "q0 = [0.0, 0.0]; ",
     "test.cfg:2: body 's': 'q0' and the preset's 'initial' both give the initial displacement "
     "(valid: one of them)"},
    {"initial = { file = \"bass-fretted-pluck.csv\"; }; pluck = [0.3, 0.001]; nmodes = 2;", "",
     "test.cfg:3: body 's' preset: 'initial' and 'pluck' both give the initial displacement "
     "(valid: one of them)"},
    {"initial = { file = \"bass-fretted-pluck.csv\"; column = \"q1\"; }; nmodes = 2;", "",
     "test.cfg:3: body 's' preset initial: /SRC/scenes/bass-fretted-pluck.csv:1: no column 'q1' in "
     "the header (valid: a header naming the columns, e.g. q1)"},
    {"initial = { file = \"bass-frets.csv\"; column = \"x_m\"; }; nmodes = 30;", "",
     "test.cfg:3: body 's' preset initial: 'bass-frets.csv' has 20 rows, fewer than the 30 modes "
     "(valid: one row per mode)"},
    {"initial = { file = \"bass-frets.csv\"; colour = \"x_m\"; }; nmodes = 30;", "",
     "test.cfg:3: body 's' preset initial: unknown key 'colour' (valid: file, column, scale)"},
};

START_TEST(test_bad_string_keys)
{
  char text[4096], path[4096], err[2048];
  vb_scene *sc = NULL;
  snprintf(text, sizeof text,
           "scene = { name = \"t\"; fs = 44100.0; duration = 0.01; };\n"
           "bodies = ( { name = \"s\"; type = \"modal\"; %s\n"
           "  preset = { kind = \"string\"; length = 0.863; tension = 191.6; linear_density = "
           "0.0067; %s };\n"
           "  points = ( { name = \"p\"; x = 0.5; } ); } );\n",
           bad_string[_i].extra, bad_string[_i].preset);
  snprintf(path, sizeof path, "%s/scenes/test.cfg", TEST_SRCDIR);
  ck_assert_int_eq(vb_scene_load_string(text, path, &sc, err, sizeof err), VB_EINVAL);
  char want[2048];
  const char *src = strstr(bad_string[_i].message, "/SRC/"), *msg = strstr(err, "test.cfg:");
  if (src != NULL) /* the source tree's path in the message */
    snprintf(want, sizeof want, "%.*s%s/%s", (int)(src - bad_string[_i].message),
             bad_string[_i].message, TEST_SRCDIR, src + 5);
  else
    snprintf(want, sizeof want, "%s", bad_string[_i].message);
  ck_assert_msg(msg && strcmp(msg, want) == 0, "case %d:\n  got      %s\n  expected %s", _i, err,
                want);
}
END_TEST

/* A lossless plucked string on a bridge of 2 to 862 points: the two-point
 * and three-point schemes keep their discrete energy to round-off. */
START_TEST(test_energy_many_points)
{
  static const int sizes[] = {2, 8, 32, 862};
  static const char *const schemes[] = {"two-point", "three-point"};
  int n_points = sizes[_i % 4];
  char text[8192], pts[128];
  snprintf(pts, sizeof pts, "{ from = 0.004; to = 0.03; n = %d; }", n_points);
  snprintf(text, sizeof text,
           STRING_SCENE("44100.0", "%s", "[\"wall\", \"string\"]", "%s",
                        "{ parabola = [0.0, 0.0, -0.2]; }", "max_iterations = 1000; "),
           schemes[_i / 4], pts);
  tu_sim s = tu_run_text(text);
  ck_assert_msg(s.rc == VB_OK, "%d points: %s", n_points, vb_run_status(s.run));
  long n = vb_run_samples(s.run), impacts = 0;
  const double *e = vb_run_energy(s.run, VB_ENERGY_TOTAL);
  double worst = 0.0;
  for (long i = 0; i < n; i++)
    worst = fmax(worst, fabs(e[i] - e[0]) / e[0]);
  for (int k = 0; k < n_points; k++)
    impacts += vb_run_contact(s.run, k)->nevents;
  ck_assert_msg(impacts > 0, "%d points: no impacts", n_points);
  ck_assert_msg(worst < 1e-12, "%s, %d points: energy drift %g", schemes[_i / 4], n_points, worst);
  tu_free(&s);
}
END_TEST

/* 1,000 points on a 200-mode string load, and their states for vibro
 * check come from one build, well under a second. */
START_TEST(test_thousand_points_fast)
{
  char text[8192];
  snprintf(text, sizeof text, "%s",
           STRING_SCENE("44100.0", "two-point", "[\"wall\", \"string\"]",
                        "{ from = 0.001; to = 0.999; n = 1000; }", "{ height = -1e-3; }", ""));
  char *t = strdup(text);
  tu_replace(&t, "nmodes = 60", "nmodes = 200");
  struct timespec a, b;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &a);
  vb_scene *sc = load(t);
  vb_contact_start *st = malloc(1000 * sizeof *st);
  vb_scene_contact_states(sc, st);
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &b);
  double sec = (double)(b.tv_sec - a.tv_sec) + 1e-9 * (double)(b.tv_nsec - a.tv_nsec);
  ck_assert_int_eq(sc->ncontacts, 1000);
  for (int c = 0; c < 1000; c++)
    ck_assert(isfinite(st[c].meff) && st[c].meff > 0.0);
  ck_assert_msg(sec < 1.0, "1000 points: load and check took %g s of CPU", sec);
  free(st);
  free(t);
  vb_scene_free(sc);
}
END_TEST

/* A mode at 1.3 fs/2: the three-level family steps it as its sampled
 * free response e^(-sigma t) cos(omega_d t), aliased, to round-off; a
 * two-level scheme drops it, saying how many and which. */
START_TEST(test_above_nyquist)
{
  double fs = 48000.0, f = 1.3 * fs / 2.0, t60 = 0.05, sigma = log(1000.0) / t60;
  double w = 2.0 * M_PI * f, wd = sqrt(w * w - sigma * sigma), q0 = 1e-3;
  char text[4096];
  /* two-point and verlet drop it; the three-level family's schemes (and
   * sav, whose modes step alike) keep it */
  static const char *const schemes[] = {"two-point", "verlet", "three-point", "quadratic", "sav"};
  for (int i = 0; i < 5; i++) {
    int three = i >= 2;
    snprintf(text, sizeof text,
             "scene = { name = \"t\"; fs = %.17e; duration = 0.01; gravity = 0.0; };\n"
             "bodies = ( { name = \"wall\"; type = \"wall\"; position = -1.0; },\n"
             "  { name = \"bar\"; type = \"modal\"; freq = [100.0, %.17e]; mass = [0.1, 0.1];\n"
             "    t60 = [1.0, %.17e]; q0 = [0.0, %.17e]; dq0 = [0.0, %.17e];\n"
             "    points = ( { name = \"p\"; shape = [0.0, 1.0]; } ); } );\n"
             "contacts = ( { name = \"c\"; between = [\"wall\", \"bar.p\"]; law = \"power\"; k = "
             "1e6; alpha = 1.5;\n"
             "  scheme = \"%s\"; } );\n",
             fs, f, t60, q0, -sigma * q0, schemes[i]);
    vb_scene *sc = load(text);
    const vb_body *b = &sc->bodies[1];
    if (!three) {
      ck_assert_int_eq(b->nmodes, 1);
      ck_assert_int_eq(b->ndropped, 1);
      ck_assert_int_eq(b->dropped[0], 1);
      ck_assert(b->freq[0] == 100.0);
      vb_scene_free(sc);
      continue;
    }
    ck_assert_int_eq(b->nmodes, 2);
    ck_assert_int_eq(b->ndropped, 0);
    vb_run *run = NULL;
    char err[1024];
    ck_assert_msg(vb_run_alloc(sc, &run, err, sizeof err) == VB_OK, "%s", err);
    ck_assert_int_eq(vb_run_exec(run), VB_OK);
    const double *u = vb_run_point_u(run, 1, 0);
    double worst = 0.0;
    for (long i = 0; i < vb_run_samples(run); i++) {
      double t = (double)i / fs, exact = q0 * exp(-sigma * t) * cos(wd * t);
      worst = fmax(worst, fabs(u[i] - exact));
    }
    ck_assert_msg(worst < 1e-12 * q0, "%s at 1.3 fs/2: worst error %g of %g", schemes[i], worst,
                  q0);
    vb_run_free(run);
    vb_scene_free(sc);
  }
}
END_TEST

/* The same bridge written as 8 point contacts by hand: the runs agree
 * bit for bit (the block is exactly its expansion). */
START_TEST(test_same_as_points)
{
  char text[16384], pts[1024] = "", cts[8192] = "";
  for (int k = 0; k < 8; k++) {
    double x = 0.004 + (0.03 - 0.004) * k / 7.0, h = -0.2 * x * x;
    if (k == 7)
      x = 0.03, h = -0.2 * x * x;
    snprintf(pts + strlen(pts), sizeof pts - strlen(pts), ", { name = \"p%d\"; x = %.17e; }", k, x);
    snprintf(cts + strlen(cts), sizeof cts - strlen(cts),
             "%s{ name = \"b_%d\"; between = [\"wall\", \"string.p%d\"]; law = \"power\"; "
             "k = 1e8; alpha = 1.5; scheme = \"two-point\"; gap = %.17e; }\n",
             k ? ", " : "", k, k, -h);
  }
  tu_sim a = tu_run_text(STRING_SCENE("44100.0", "two-point", "[\"wall\", \"string\"]",
                                      "{ from = 0.004; to = 0.03; n = 8; }",
                                      "{ parabola = [0.0, 0.0, -0.2]; }", ""));
  snprintf(text, sizeof text,
           "scene = { name = \"t\"; fs = 44100.0; duration = 0.004; gravity = 0.0; };\n"
           "bodies = ( { name = \"wall\"; type = \"wall\"; },\n"
           "  { name = \"string\"; type = \"modal\";\n"
           "    preset = { kind = \"string\"; nmodes = 60; length = 1.0; tension = 40.0;\n"
           "               linear_density = 0.001; pluck = [0.31, 0.002]; };\n"
           "    points = ( { name = \"pickup\"; x = 0.7; }%s ); } );\n"
           "contacts = ( %s );\n",
           pts, cts);
  tu_sim b = tu_run_text(text);
  ck_assert_int_eq(a.rc, VB_OK);
  ck_assert_int_eq(b.rc, VB_OK);
  long n = vb_run_samples(a.run);
  ck_assert_int_eq(n, vb_run_samples(b.run));
  const double *ua = vb_run_point_u(a.run, 1, 0), *ub = vb_run_point_u(b.run, 1, 0);
  const double *ea = vb_run_energy(a.run, VB_ENERGY_TOTAL),
               *eb = vb_run_energy(b.run, VB_ENERGY_TOTAL);
  ck_assert(memcmp(ua, ub, (size_t)n * sizeof *ua) == 0);
  ck_assert(memcmp(ea, eb, (size_t)n * sizeof *ea) == 0);
  long impacts = 0;
  for (int k = 0; k < 8; k++) {
    ck_assert_int_eq(vb_run_contact(a.run, k)->nevents, vb_run_contact(b.run, k)->nevents);
    impacts += vb_run_contact(a.run, k)->nevents;
  }
  ck_assert_int_gt(impacts, 0);
  tu_free(&a);
  tu_free(&b);
}
END_TEST

/* A scene of the source tree (scenes/) with its duration
 * replaced, loaded from there (its data files beside it) and run. */
static tu_sim
run_scene(const char *name, const char *from, const char *to)
{
  char rel[256], path[4096], err[2048];
  snprintf(rel, sizeof rel, "%s", name);
  snprintf(path, sizeof path, "%s/%s", TEST_SRCDIR, name);
  char *text = tu_read(rel);
  tu_replace(&text, from, to);
  tu_sim s = {NULL, NULL, 0};
  ck_assert_msg(vb_scene_load_string(text, path, &s.scene, err, sizeof err) == VB_OK, "%s", err);
  ck_assert_msg(vb_run_alloc(s.scene, &s.run, err, sizeof err) == VB_OK, "%s", err);
  s.rc = vb_run_exec(s.run);
  free(text);
  return s;
}

/* The published bass on its 20 frets and on its fretless neck (862
 * modes, three-point, every mode above fs/2 kept): impacts on the neck,
 * and the energy balance closes to round-off. */
START_TEST(test_bass)
{
  static const char *const scenes[] = {"scenes/bass-fretted.cfg", "scenes/bass-fretless.cfg"};
  static const char *const durations[][2] = {{"duration = 0.1;", "duration = 0.006;"},
                                             {"duration = 0.02;", "duration = 0.007;"}};
  tu_sim s = run_scene(scenes[_i], durations[_i][0], durations[_i][1]);
  const vb_scene *sc = s.scene;
  ck_assert_int_eq(s.rc, VB_OK);
  ck_assert_int_eq(sc->bodies[1].nmodes, 862);
  ck_assert_int_eq(sc->bodies[1].ndropped, 0);
  ck_assert_int_eq(sc->ncontacts, _i ? 862 : 20);
  long impacts = 0;
  for (int c = 0; c < sc->ncontacts; c++)
    impacts += vb_run_contact(s.run, c)->nevents;
  double e0 = vb_run_energy(s.run, VB_ENERGY_TOTAL)[0], err = vb_run_balance_error(s.run);
  ck_assert_msg(impacts > 0, "%s: no impacts", scenes[_i]);
  ck_assert_msg(fabs(err) < 1e-12 * e0, "%s: balance error %g of %g J", scenes[_i], err, e0);
  tu_free(&s);
}
END_TEST

/* The bass's initial displacements are bass-fretted-pluck.csv's q0 column
 * (read here with fscanf) times sqrt(2/L), bit for bit. */
START_TEST(test_bass_initial)
{
  char path[4096], err[2048];
  snprintf(path, sizeof path, "%s/scenes/bass-fretted.cfg", TEST_SRCDIR);
  vb_scene *sc = NULL;
  ck_assert_msg(vb_scene_load(path, &sc, err, sizeof err) == VB_OK, "%s", err);
  snprintf(path, sizeof path, "%s/scenes/bass-fretted-pluck.csv", TEST_SRCDIR);
  FILE *in = fopen(path, "r");
  ck_assert(in != NULL);
  ck_assert(fscanf(in, "%*[^\n]\n") == 0);
  for (int j = 0; j < 862; j++) {
    int mode;
    double q, q1;
    ck_assert(fscanf(in, "%d,%lf,%lf\n", &mode, &q, &q1) == 3);
    ck_assert_msg(sc->bodies[1].q0[j] == q * sqrt(2.0 / 0.863), "mode %d: %.17g", j,
                  sc->bodies[1].q0[j]);
  }
  fclose(in);
  vb_scene_free(sc);
}
END_TEST

/* The bass with a two-point scheme drops exactly the file's modes at or
 * above fs/2 (read here with fscanf) and keeps the rest in order. */
START_TEST(test_bass_two_point_drops)
{
  char path[4096];
  double f[862];
  snprintf(path, sizeof path, "%s/scenes/bass-fretted-modes.csv", TEST_SRCDIR);
  FILE *in = fopen(path, "r");
  ck_assert(in != NULL);
  ck_assert(fscanf(in, "%*[^\n]\n") == 0);
  for (int j = 0; j < 862; j++) {
    int mode;
    double sg;
    ck_assert(fscanf(in, "%d,%lf,%lf\n", &mode, &f[j], &sg) == 3);
  }
  fclose(in);
  tu_sim s =
      run_scene("scenes/bass-fretted.cfg", "scheme = \"three-point\";", "scheme = \"two-point\";");
  const vb_body *b = &s.scene->bodies[1];
  int kept = 0, dropped = 0;
  for (int j = 0; j < 862; j++) {
    if (f[j] < 0.5 * s.scene->fs) {
      ck_assert(b->freq[kept++] == f[j]);
    } else {
      ck_assert_int_eq(b->dropped[dropped++], j);
    }
  }
  ck_assert_int_eq(b->nmodes, kept);
  ck_assert_int_eq(b->ndropped, dropped);
  ck_assert_int_gt(dropped, 600); /* 669 at 62.72 kHz */
  tu_free(&s);
}
END_TEST

/* vibro check's first impact of a body that rings: a bar of three damped
 * modes released from a displacement (dq0 = 0: the case that had "no
 * impact follows", a constant acceleration of 0 bringing none) or thrown
 * (dq0 != 0: a constant velocity put it at the wrong time), onto a wall
 * below its point p1 or p2.  The time and rate are compared with the
 * crossing of the sum of the modes' closed forms e^(-sigma t) (A cos wd t
 * + B sin wd t), found here by a scan at 1 us and bisection. */
START_TEST(test_first_impact_modal)
{
  static const double freq[3] = {97.3, 311.7, 523.9}, t60[3] = {1.7, 0.83, 0.41};
  static const double q0[3] = {2.385e-3, -4.1e-4, 1.7e-4}, v0[3] = {0.31, -0.77, 0.52};
  static const double shape[2][3] = {{1.0, 0.6, -0.3}, {0.5, -0.9, 0.8}};
  double wall = -1.3e-3, dq0[3];
  int point = _i % 2, thrown = _i / 2;
  char text[4096];
  for (int j = 0; j < 3; j++)
    dq0[j] = thrown ? v0[j] : 0.0;
  snprintf(text, sizeof text,
           "scene = { name = \"r\"; fs = 44100.0; duration = 0.05; gravity = 0.0; };\n"
           "bodies = ( { name = \"wall\"; type = \"wall\"; position = %.17g; },\n"
           "  { name = \"bar\"; type = \"modal\"; freq = [%.17g, %.17g, %.17g];\n"
           "    mass = [0.0237, 0.0191, 0.0143]; t60 = [%.17g, %.17g, %.17g];\n"
           "    q0 = [%.17g, %.17g, %.17g]; dq0 = [%.17g, %.17g, %.17g];\n"
           "    points = ( { name = \"p1\"; shape = [1.0, 0.6, -0.3]; },\n"
           "               { name = \"p2\"; shape = [0.5, -0.9, 0.8]; } ); } );\n"
           "contacts = ( { name = \"c\"; between = [\"wall\", \"bar.p%d\"]; law = \"power\";\n"
           "  k = 1e8; alpha = 1.5; scheme = \"two-point\"; } );\n",
           wall, freq[0], freq[1], freq[2], t60[0], t60[1], t60[2], q0[0], q0[1], q0[2], dq0[0],
           dq0[1], dq0[2], point + 1);
  vb_scene *sc = load(text);
  vb_contact_start st[2];
  vb_scene_contact_states(sc, st);
  double m, rate1 = vb_scene_approach_rate(sc, 0, &m);

  /* the independent crossing: u(t) = wall, u falling */
  double t0 = 0.0, t1 = -1.0, u = 0.0, du = 0.0;
  for (int pass = 0; pass < 2; pass++) {
    for (long n = 0;; n++) {
      double t = pass == 0 ? n * 1e-6 : 0.5 * (t0 + t1);
      u = du = 0.0;
      for (int j = 0; j < 3; j++) {
        double w = 2.0 * M_PI * freq[j], sg = log(1000.0) / t60[j], wd = sqrt(w * w - sg * sg);
        double A = q0[j], B = (dq0[j] + sg * q0[j]) / wd, e = exp(-sg * t);
        double c = cos(wd * t), sn = sin(wd * t);
        u += shape[point][j] * e * (A * c + B * sn);
        du += shape[point][j] * e * ((B * wd - sg * A) * c - (A * wd + sg * B) * sn);
      }
      if (pass == 0 && u <= wall) {
        t1 = t;
        t0 = t - 1e-6;
        break;
      }
      if (pass == 1) {
        if (u <= wall)
          t1 = t;
        else
          t0 = t;
        if (n == 80)
          break;
      }
      ck_assert(pass == 1 || t < 0.05);
    }
  }
  printf("first impact, %s, p%d: vibro %.15g s at %.15g m/s; closed form %.15g s at %.15g m/s\n",
         thrown ? "thrown" : "released", point + 1, st[0].t_on, st[0].rate, t1, -du);
  ck_assert_msg(st[0].rate > 0.0, "no impact predicted");
  ck_assert_msg(fabs(st[0].t_on - t1) <= 1e-12, "t_on %.17g, closed form %.17g", st[0].t_on, t1);
  ck_assert_msg(fabs(st[0].rate + du) <= 1e-9 * fabs(du), "rate %.17g, closed form %.17g",
                st[0].rate, -du);
  ck_assert(st[0].horizon == 0.05 && rate1 == st[0].rate && m == st[0].meff);
  vb_scene_free(sc);
}
END_TEST

/* The free-flight search of vibro check (scene_query.c) skips the steps a
 * bound keeps a contact away from its barrier, sums the head of the modes
 * first and steps the modes side by side; with the test hook
 * no_search_skip it evaluates every contact at every step, as before.
 * Both give every contact's start to the bit (memcmp) on the tanpura
 * bridge (tests/bridge_scene.h: 200 modes, 64 points, 0.5 s: 31 points
 * reached, 33 never), scenes/tanpura.cfg (a block: the points after its
 * first are not searched on) and random strings: 33 to 180 modes (the
 * head split from 32), 3 to 40 points at random places and gaps, a random
 * pluck and throw, lossless or damped (t60), with a pair of masses on a
 * spring beside some (an island whose search is not bounded). */
START_TEST(test_search_skip_same)
{
  unsigned long x = 2385;
  int reached = 0, missed = 0;
  for (int trial = -2; trial < 12; trial++) {
    vb_scene *sc = NULL;
    char err[512];
    if (trial == -2) {
      char *text = bridge_scene(200, 64, 0.5, "two-point", "");
      ck_assert_ptr_nonnull(text);
      sc = load(text);
      free(text);
    } else if (trial == -1) {
      ck_assert_int_eq(vb_scene_load(TEST_SRCDIR "/scenes/tanpura.cfg", &sc, err, sizeof err), VB_OK);
    } else {
      int modes = 33 + (int)(uniform01(&x) * 148), points = 3 + (int)(uniform01(&x) * 38);
      int damped = trial % 3 == 1, spring = trial % 4 == 3;
      size_t size = 4096 + (size_t)modes * 60 + (size_t)points * 300, used = 0;
      char *t = malloc(size);
      ck_assert_ptr_nonnull(t);
      used += (size_t)snprintf(t, size,
                               "scene = { name = \"r\"; fs = 44100.0; duration = %.6g; gravity = 0.0; };\n"
                               "bodies = ( { name = \"w\"; type = \"wall\"; },\n"
                               "  { name = \"s\"; type = \"modal\"; %s\n"
                               "    preset = { kind = \"string\"; nmodes = %d; length = %.6g; "
                               "tension = %.6g; linear_density = 0.001; };\n    q0 = [",
                               0.05 + 0.15 * uniform01(&x), damped ? "t60 = 0.37;" : "", modes,
                               0.6 + 0.5 * uniform01(&x), 30.0 + 40.0 * uniform01(&x));
      for (int j = 1; j <= modes; j++)
        used += (size_t)snprintf(t + used, size - used, "%s%.17g", j > 1 ? ", " : "",
                                 1e-3 * (uniform01(&x) - 0.5) / ((double)j * j));
      used += (size_t)snprintf(t + used, size - used, "];\n    dq0 = [");
      for (int j = 1; j <= modes; j++)
        used += (size_t)snprintf(t + used, size - used, "%s%.17g", j > 1 ? ", " : "",
                                 (uniform01(&x) - 0.5) / ((double)j * j));
      used += (size_t)snprintf(t + used, size - used, "];\n    points = (");
      for (int i = 0; i < points; i++)
        used += (size_t)snprintf(t + used, size - used, "%s { name = \"p%d\"; x = %.17g; }",
                                 i ? "," : "", i, 0.01 + 0.4 * uniform01(&x));
      used += (size_t)snprintf(t + used, size - used, " ); }%s );\ncontacts = (",
                               spring ? ",\n  { name = \"m1\"; type = \"mass\"; mass = 0.01; u0 = 0.0; "
                                        "v0 = 0.1; },\n  { name = \"m2\"; type = \"mass\"; mass = 0.02; "
                                        "u0 = 0.001; v0 = 0.0; }"
                                      : "");
      for (int i = 0; i < points; i++)
        used += (size_t)snprintf(t + used, size - used,
                                 "%s\n { name = \"c%d\"; between = [\"w\", \"s.p%d\"]; law = \"power\"; "
                                 "k = 1e9; alpha = 1.5; gap = %.17g; scheme = \"two-point\"; }",
                                 i ? "," : "", i, i, 1e-5 + 3e-4 * uniform01(&x));
      if (spring)
        used += (size_t)snprintf(t + used, size - used,
                                 ",\n { name = \"k\"; between = [\"m1\", \"m2\"]; law = \"spring\"; "
                                 "k = 500.0; scheme = \"two-point\"; },\n"
                                 " { name = \"hit\"; between = [\"w\", \"m1\"]; law = \"power\"; "
                                 "k = 1e8; alpha = 1.5; gap = 0.002; scheme = \"two-point\"; }");
      snprintf(t + used, size - used, " );\n");
      sc = load(t);
      free(t);
    }
    int nc = sc->ncontacts;
    vb_contact_start *a = calloc((size_t)nc, sizeof *a), *b = calloc((size_t)nc, sizeof *b);
    ck_assert(a && b);
    vb_scene_contact_states(sc, a);
    vb_test_control(VB_TEST_NO_SEARCH_SKIP, 1);
    vb_scene_contact_states(sc, b);
    vb_test_control(VB_TEST_NO_SEARCH_SKIP, 0);
    for (int c = 0; c < nc; c++) {
      ck_assert_msg(memcmp(&a[c], &b[c], sizeof a[c]) == 0,
                    "trial %d contact %d: t_on %.17g rate %.17g horizon %g, every step %.17g %.17g %g",
                    trial, c, a[c].t_on, a[c].rate, a[c].horizon, b[c].t_on, b[c].rate, b[c].horizon);
      reached += a[c].rate > 0.0;
      missed += a[c].p0 < 0.0 && a[c].rate == 0.0;
    }
    if (trial == -2)
      ck_assert_msg(reached == 31 && missed == 33, "tanpura bridge: %d reached, %d not", reached,
                    missed);
    free(a);
    free(b);
    vb_scene_free(sc);
  }
  printf("free-flight search, skipping and not: the same starts (%d contacts reached, %d not)\n",
         reached, missed);
}
END_TEST

/* A refusal about one point of a distributed block names the block the
 * user wrote, the point's index and x, not the expanded contact "b[k]"
 * that appears nowhere in the scene file: an exact-duration block beyond
 * its scheme's limit (model.c), and two blocks of different families on
 * one string (one island). */
START_TEST(test_refusal_names_block)
{
  char *t = strdup(STRING_SCENE("44100.0", "two-point", "[\"wall\", \"string\"]",
                                "{ from = 0.2385; to = 0.4385; n = 3; }", "{ height = -1e-3; }",
                                "exact_duration = true;"));
  tu_replace(&t, "alpha = 1.5", "alpha = 1.0");
  vb_scene *sc = NULL;
  char err[2048];
  ck_assert_int_eq(vb_scene_load_string(t, "test.cfg", &sc, err, sizeof err), VB_EINVAL);
  printf("exact duration: %s\n", err);
  ck_assert_msg(strstr(err, "test.cfg:10: contact 'b' (point 0, x 0.2385 m): exact_duration: "),
                "%s", err);
  ck_assert_msg(!strstr(err, "b[0]"), "%s", err);
  free(t);

  /* the block's `extra` closes it and opens block "c" */
  t = strdup(STRING_SCENE("44100.0", "two-point", "[\"wall\", \"string\"]",
                          "{ from = 0.2385; to = 0.4385; n = 3; }", "{ height = -1e-3; }",
                          "},\n  { name = \"c\"; between = [\"wall\", \"string\"]; law = "
                          "\"power\"; k = 1e8; alpha = 1.5; scheme = \"three-point\"; points = "
                          "{ from = 0.6; to = 0.7; n = 2; }; profile = { height = -1e-3; }; "));
  ck_assert_int_eq(vb_scene_load_string(t, "test.cfg", &sc, err, sizeof err), VB_EINVAL);
  printf("families: %s\n", err);
  ck_assert_msg(strstr(err, "contact 'c' (point 0, x 0.6 m): scheme 'three-point' cannot step "
                            "body 'string' together with contact 'b' (point 0, x 0.2385 m)"),
                "%s", err);
  ck_assert_msg(!strstr(err, "[0]'"), "%s", err);
  free(t);
}
END_TEST

static Suite *
distributed_suite(void)
{
  Suite *s = suite_create("distributed");
  TCase *t = tcase_create("expansion");
  tcase_add_loop_test(t, test_grid_parabola, 0, 6);
  tcase_add_loop_test(t, test_list, 0, 8);
  tcase_add_test(t, test_files);
  tcase_add_test(t, test_sweep_all_points);
  tcase_add_loop_test(t, test_bad_blocks, 0, (int)(sizeof bad / sizeof bad[0]));
  tcase_add_test(t, test_bad_no_preset);
  tcase_add_loop_test(t, test_bad_string_keys, 0, (int)(sizeof bad_string / sizeof bad_string[0]));
  tcase_add_test(t, test_thousand_points_fast);
  tcase_add_loop_test(t, test_first_impact_modal, 0, 4);
  tcase_add_test(t, test_search_skip_same);
  tcase_add_test(t, test_refusal_names_block);
  suite_add_tcase(s, t);
  t = tcase_create("runs");
  tcase_set_timeout(t, 120);
  tcase_add_test(t, test_events_name_point);
  tcase_add_loop_test(t, test_energy_many_points, 0, 8);
  tcase_add_test(t, test_above_nyquist);
  tcase_add_test(t, test_same_as_points);
  tcase_add_loop_test(t, test_bass, 0, 2);
  tcase_add_test(t, test_bass_two_point_drops);
  tcase_add_test(t, test_bass_initial);
  suite_add_tcase(s, t);
  return s;
}

int
main(void)
{
  SRunner *r = srunner_create(distributed_suite());
  srunner_run_all(r, CK_NORMAL);
  int failed = srunner_ntests_failed(r);
  srunner_free(r);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
