/* check_sweep.c - the sweep's parameter paths as the loader's tables see
 * them (lib/study/sweep.c): the SI units of every kind of swept key, and keys a
 * sweep may create where the file leaves them out (a law's optional keys
 * come from the law table). */
#include <check.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "testutil.h"
#include "vibro.h"

/* Every kind of object with a numeric key: masses, a driven wall, a
 * modal body from a preset, an oscillator, a force, and contacts with four
 * laws. */
#define BASE                                                                             \
  "scene = { name = \"s\"; fs = 44100.0; duration = 0.001; gravity = -9.81; };\n"      \
  "bodies = (\n"                                                                         \
  "  { name = \"hammer\"; type = \"mass\"; mass = 0.0137; v0 = 0.83; },\n"              \
  "  { name = \"bead\"; type = \"mass\"; mass = 0.0021; u0 = 0.004; },\n"               \
  "  { name = \"box\"; type = \"mass\"; mass = 0.0318; u0 = -0.003; },\n"               \
  "  { name = \"table\"; type = \"wall\"; position = -0.01;\n"                          \
  "    drive = { type = \"sine\"; amplitude = 1.0e-4; freq = 13.7; }; },\n"             \
  "  { name = \"wall\"; type = \"wall\"; },\n"                                           \
  "  { name = \"shaker\"; type = \"wall\";\n"                                             \
  "    drive = { type = \"noise\"; rms = 2.0e-5; bandwidth = 300.0; seed = 7; }; },\n"    \
  "  { name = \"str\"; type = \"modal\"; preset = { kind = \"string\"; nmodes = 3;\n"    \
  "      length = 0.65; tension = 71.3; linear_density = 6.1e-4; };\n"                 \
  "    t60 = 1.7; points = ( { name = \"p\"; x = 0.13; } ); },\n"                       \
  "  { name = \"osc\"; type = \"oscillator\"; mass = 0.37; freq = 12.5; }\n"             \
  ");\n"                                                                                 \
  "contacts = (\n"                                                                       \
  "  { name = \"hit\"; between = [\"hammer\", \"wall\"]; law = \"hunt-crossley\";\n"     \
  "    k = 2.2e8; alpha = 1.37; mu = 0.41; scheme = \"am1\"; },\n"                      \
  "  { name = \"fl\"; between = [\"bead\", \"table\"]; law = \"flores\";\n"              \
  "    k = 3.3e7; alpha = 1.5; e = 0.62; scheme = \"two-point\"; },\n"                  \
  "  { name = \"sp\"; between = [\"box\", \"wall\"]; law = \"spring\"; k = 4.1e3;\n"     \
  "    scheme = \"two-point\"; },\n"                                                     \
  "  { name = \"q\"; between = [\"str.p\", \"wall\"]; law = \"power\"; gap = 0.02;\n"     \
  "    k = 1.0e6; alpha = 1.0; scheme = \"quadratic\"; }\n"                             \
  ");\n"                                                                                 \
  "forces = ( { name = \"push\"; at = \"box\"; type = \"constant\"; value = 0.2; } );\n"

/* Each swept path, a valid value for it, and the units the study must
 * give it. */
static const struct {
  const char *path, *value, *units;
} cases[] = {
  {"scene.fs", "48000.0", "Hz"},
  {"scene.duration", "0.0005", "s"},
  {"scene.gravity", "-3.7", "m/s^2"},
  {"record.every", "2", "1"},
  {"bodies.hammer.mass", "0.021", "kg"},
  {"bodies.hammer.v0", "0.37", "m/s"},
  {"bodies.bead.u0", "0.005", "m"},
  {"bodies.box.k", "13.0", "N/m"},
  {"bodies.box.c", "0.02", "N s/m"},
  {"bodies.table.position", "-0.02", "m"},
  {"bodies.table.drive.freq", "11.0", "Hz"},
  {"bodies.table.drive.phase", "0.3", "rad"},
  {"bodies.table.drive.amplitude", "2.0e-4", "m"},
  {"bodies.shaker.drive.rms", "1.0e-5", "m"},
  {"bodies.shaker.drive.bandwidth", "250.0", "Hz"},
  {"bodies.shaker.drive.seed", "11", "1"},
  {"bodies.str.preset.tension", "60.0", "N"},
  {"bodies.str.preset.length", "0.6", "m"},
  {"bodies.str.preset.linear_density", "7.0e-4", "kg/m"},
  {"bodies.str.t60", "1.1", "s"},
  {"bodies.osc.freq", "9.7", "Hz"},
  {"bodies.osc.zeta", "0.02", "1"},    /* optional key of the oscillator: created */
  {"bodies.osc.t60", "0.8", "s"},      /* created */
  {"bodies.osc.v0", "0.1", "m/s"},     /* created */
  {"contacts.hit.k", "3.1e8", "N/m^alpha"},
  {"contacts.hit.alpha", "1.5", "1"},
  {"contacts.hit.mu", "0.3", "s/m"},
  {"contacts.hit.gap", "0.001", "m"},
  {"contacts.hit.tolerance", "1.0e-11", "1"},
  {"contacts.fl.e", "0.8", "1"},
  {"contacts.fl.k", "4.4e7", "N/m^alpha"},
  {"contacts.sp.c", "0.37", "N s/m"},  /* optional key of the spring: created */
  {"contacts.q.s", "0.7", "1"},
  {"forces.push.value", "0.1", "N"},
};
#define NCASES (int)(sizeof cases / sizeof cases[0])

/* The units of one swept path, through a study of one scene. */
START_TEST(test_param_units)
{
  char text[8192], err[1024];
  vb_study *st = NULL;
  snprintf(text, sizeof text,
           "%ssweep = { params = ( { path = \"%s\"; values = [%s]; } ); };\n", BASE,
           cases[_i].path, cases[_i].value);
  int rc = vb_study_load_string(text, "study.cfg", &st, err, sizeof err);
  ck_assert_msg(rc == VB_OK, "%s: %s", cases[_i].path, err);
  ck_assert_int_eq(vb_study_nparams(st), 1);
  ck_assert_msg(strcmp(vb_study_param_units(st, 0), cases[_i].units) == 0,
                "%s: units '%s', expected '%s'", cases[_i].path,
                vb_study_param_units(st, 0), cases[_i].units);
  ck_assert_ptr_null(vb_study_param_units(st, 1));
  ck_assert_ptr_null(vb_study_param_units(st, -1));
  vb_study_free(st);
}
END_TEST

/* A study without a sweep has no parameters, so no units. */
START_TEST(test_units_no_sweep)
{
  char err[1024];
  vb_study *st = NULL;
  int rc = vb_study_load_string(BASE, "study.cfg", &st, err, sizeof err);
  ck_assert_msg(rc == VB_OK, "%s", err);
  ck_assert_ptr_null(vb_study_param_units(st, 0));
  vb_study_free(st);
}
END_TEST

/* A hammer against a wall, for the large sweeps. */
#define HAMMER(scheme)                                                                   \
  "scene = { name = \"big\"; fs = 44100.0; duration = 0.01; };\n"                     \
  "bodies = ( { name = \"hammer\"; type = \"mass\"; mass = 0.0137; v0 = 0.83; },\n"  \
  "           { name = \"wall\"; type = \"wall\"; } );\n"                             \
  "contacts = ( { name = \"hit\"; between = [\"hammer\", \"wall\"];\n"              \
  "  law = \"hunt-crossley\"; k = 2.2e8; alpha = 1.37; mu = 0.41; scheme = \"" scheme "\"; } );\n"

/* Seconds on a monotonic clock. */
static double seconds(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* linspace and logspace against an independent long-double formula
 * (README's value i = (a (n-1-i) + b i) / (n-1), in log10 for
 * logspace, with 64-bit mantissas): the count, the
 * ends exact, strictly monotone (no duplicates), each value within 4 ulps
 * of the reference; long spaces (10^6 and 10^6 + 3 values, either
 * direction) and ends near DBL_MAX, whose weighted sum overflowed: a
 * linspace of [1e300, 1.7e308] made scene 2's value inf.  Tolerances: 4
 * ulps of the weighted ends' magnitude (linspace), of the value times
 * 1 + ln 10 |exponent| (logspace). */
static const struct {
  const char *spec;
  long double a, b;
  long n;
  int log;
} spaces[] = {
  {"linspace = [0.1, 2.0]; n = 1000000;", 0.1L, 2.0L, 1000000, 0},
  {"linspace = [3.0e9, 1.0e3]; n = 1000003;", 3.0e9L, 1.0e3L, 1000003, 0},
  {"logspace = [1.0e6, 1.0e9]; n = 1000000;", 6.0L, 9.0L, 1000000, 1},
  {"logspace = [1.0e9, 3.0e-3]; n = 1000003;", 9.0L, -2.522878745280337562704972L, 1000003, 1},
  {"linspace = [1.0e300, 1.7e308]; n = 7;", 1.0e300L, 1.7e308L, 7, 0},
  {"linspace = [1.7e308, 1.6e308]; n = 11;", 1.7e308L, 1.6e308L, 11, 0},
  {"logspace = [1.0e-300, 1.0e300]; n = 7;", -300.0L, 300.0L, 7, 1},
};

START_TEST(test_spaces)
{
  char text[4096], err[1024];
  vb_study *st = NULL;
  snprintf(text, sizeof text,
           HAMMER("two-point") "sweep = { params = ( { path = \"contacts.hit.k\"; %s } ); };\n",
           spaces[_i].spec);
  int rc = vb_study_load_string(text, "spaces.cfg", &st, err, sizeof err);
  ck_assert_msg(rc == VB_OK, "%s: %s", spaces[_i].spec, err);
  long n = spaces[_i].n;
  ck_assert_int_eq(vb_study_scenes(st), n);
  long double a = spaces[_i].a, b = spaces[_i].b;
  double prev = 0.0;
  for (long i = 0; i < n; i++) {
    double v = vb_study_value(st, i, 0);
    long double t = (a * (long double)(n - 1 - i) + b * (long double)i) / (long double)(n - 1);
    long double ref = spaces[_i].log ? powl(10.0L, t) : t;
    ck_assert_msg(isfinite(v), "%s: value %ld is %g", spaces[_i].spec, i, v);
    /* the rounding of the weighted ends (linspace), of the exponent
     * amplified by ln 10 (logspace) */
    long double w = (long double)i / (long double)(n - 1);
    long double tol = spaces[_i].log
                          ? fabsl(ref) * (1.0L + 2.3026L * fmaxl(fabsl(a), fabsl(b)))
                          : fabsl(a) * (1.0L - w) + fabsl(b) * w;
    ck_assert_msg(fabsl(v - ref) <= 4.0L * DBL_EPSILON * tol, "%s: value %ld %.17g, reference %.17Lg",
                  spaces[_i].spec, i, v, ref);
    if (i == 0 || i == n - 1)
      ck_assert_msg(v == (double)ref, "%s: end %ld is %.17g, not %.17g", spaces[_i].spec, i, v,
                    (double)ref);
    if (i > 0)
      ck_assert_msg(b > a ? v > prev : v < prev, "%s: value %ld %.17g after %.17g", spaces[_i].spec,
                    i, v, prev);
    prev = v;
  }
  vb_study_free(st);
}
END_TEST

/* Issue 10: a 1e8-scene grid is validated through the scenes that stand
 * for it (each parameter's values and the corners: 2 * (1024 + 6) + 4 at
 * most here), not one by one (about 2 hours before).  The count of scenes
 * checked is the guard; the time is printed, not asserted (a timed unit
 * test fails under load and sanitizers: `vibro check` on this grid is
 * measured at 0.6-0.7 s). */
START_TEST(test_huge_grid)
{
  char err[1024];
  vb_study *st = NULL;
  const long *idx;
  double t0 = seconds();
  int rc = vb_study_load_string(HAMMER("am1")
                                "sweep = { params = (\n"
                                "  { path = \"contacts.hit.k\"; logspace = [1.0e6, 1.0e9]; "
                                "n = 10000; },\n"
                                "  { path = \"bodies.hammer.v0\"; linspace = [0.1, 2.0]; "
                                "n = 10000; } ); };\n",
                                "huge.cfg", &st, err, sizeof err);
  double t = seconds() - t0;
  ck_assert_msg(rc == VB_OK, "%s", err);
  ck_assert_int_eq(vb_study_scenes(st), 100000000L);
  long n = vb_study_checked(st, &idx);
  ck_assert_ptr_nonnull(idx);
  ck_assert_msg(n >= 4 && n <= 2 * (1024 + 6) + 4, "%ld scenes checked", n);
  ck_assert_int_eq(idx[0], 0);
  ck_assert_int_eq(idx[n - 1], 100000000L - 1); /* the largest corner */
  for (long i = 1; i < n; i++)
    ck_assert(idx[i] > idx[i - 1]);
  printf("1e8-scene grid: %ld scenes checked in %.3f s\n", n, t);
  vb_study_free(st);
  /* a small study is still checked scene by scene */
  rc = vb_study_load_string(HAMMER("am1")
                            "sweep = { params = ( { path = \"bodies.hammer.v0\"; "
                            "linspace = [0.1, 2.0]; n = 7; } ); };\n",
                            "small.cfg", &st, err, sizeof err);
  ck_assert_msg(rc == VB_OK, "%s", err);
  ck_assert_int_eq(vb_study_checked(st, &idx), 7);
  ck_assert_ptr_null(idx);
  vb_study_free(st);
}
END_TEST

/* Large zip and random sweeps: real scenes only (a zip's corners are not
 * scenes), evenly spread, with where each zip parameter is extreme. */
START_TEST(test_huge_zip_random)
{
  char err[1024];
  vb_study *st = NULL;
  const long *idx;
  int rc = vb_study_load_string(HAMMER("am1")
                                "sweep = { mode = \"zip\"; params = (\n"
                                "  { path = \"contacts.hit.k\"; logspace = [1.0e9, 1.0e6]; "
                                "n = 3000000; },\n"
                                "  { path = \"bodies.hammer.v0\"; linspace = [0.1, 2.0]; "
                                "n = 3000000; } ); };\n",
                                "zip.cfg", &st, err, sizeof err);
  ck_assert_msg(rc == VB_OK, "%s", err);
  long n = vb_study_checked(st, &idx);
  ck_assert_ptr_nonnull(idx);
  ck_assert(n >= 1024 && n <= 1024 + 4 + 1);
  ck_assert_int_eq(idx[0], 0);
  ck_assert_int_eq(idx[n - 1], 3000000L - 1);
  /* long spaces are described by their ends and count */
  ck_assert_msg(strstr(vb_study_sweep(st), "\ncontacts.hit.k: logspace [1000000000, 1000000]; "
                       "n = 3000000\nbodies.hammer.v0: linspace [0.1, 2]; n = 3000000") != NULL,
                "%s", vb_study_sweep(st));
  vb_study_free(st);
  rc = vb_study_load_string(HAMMER("am1")
                            "sweep = { mode = \"random\"; n = 5000000; seed = 3; params = (\n"
                            "  { path = \"contacts.hit.k\"; loguniform = [1.0e6, 1.0e9]; } "
                            "); };\n",
                            "random.cfg", &st, err, sizeof err);
  ck_assert_msg(rc == VB_OK, "%s", err);
  n = vb_study_checked(st, &idx);
  ck_assert_int_eq(n, 1024);
  ck_assert_int_eq(idx[n - 1], 1023);
  vb_study_free(st);
}
END_TEST

/* A bad listed value in the middle of a large grid is found (each listed
 * value is checked), and named with the first scene that has it. */
START_TEST(test_huge_grid_bad_value)
{
  char text[8192], err[1024], list[4096] = "";
  vb_study *st = NULL;
  for (int i = 0; i < 200; i++)
    snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "",
             i == 150 ? "-1.0" : "2.5e8");
  snprintf(text, sizeof text,
           HAMMER("am1") "sweep = { params = (\n"
           "  { path = \"contacts.hit.k\"; values = [%s]; },\n"
           "  { path = \"bodies.hammer.v0\"; linspace = [0.1, 2.0]; n = 1000; } ); };\n",
           list);
  int rc = vb_study_load_string(text, "bad.cfg", &st, err, sizeof err);
  ck_assert_int_eq(rc, VB_EINVAL);
  ck_assert_ptr_null(st);
  ck_assert_str_eq(err, "bad.cfg:7: contact 'hit': 'k' must be > 0 (got -1) (scene 150000: "
                        "contacts.hit.k = -1, bodies.hammer.v0 = 0.1)");
}
END_TEST

/* A combination that only a corner of a large grid has: the hammer's mode
 * on its spring (k) is within the explicit scheme's stability limit at
 * every k with the first fs and at every fs with the first k, but not at
 * the largest k with the smallest fs. */
START_TEST(test_huge_grid_corner)
{
  char err[1024];
  vb_study *st = NULL;
  int rc = vb_study_load_string(HAMMER("verlet")
                                "sweep = { params = (\n"
                                "  { path = \"bodies.hammer.k\"; linspace = [1.0, 1.0e10]; "
                                "n = 300; },\n"
                                "  { path = \"scene.fs\"; linspace = [4.0e6, 1.0e4]; "
                                "n = 100; } ); };\n",
                                "corner.cfg", &st, err, sizeof err);
  ck_assert_int_eq(rc, VB_EINVAL);
  ck_assert_ptr_null(st);
  ck_assert_msg(strstr(err, "(scene 29999: bodies.hammer.k = 10000000000, scene.fs = 10000)")
                != NULL, "%s", err);
}
END_TEST

static Suite *
sweep_suite(void)
{
  Suite *s = suite_create("sweep");
  TCase *core = tcase_create("core");
  tcase_add_loop_test(core, test_param_units, 0, NCASES);
  tcase_add_test(core, test_units_no_sweep);
  suite_add_tcase(s, core);
  TCase *limits = tcase_create("limits");
  tcase_set_timeout(limits, 60);
  tcase_add_test(limits, test_huge_grid);
  tcase_add_test(limits, test_huge_grid_bad_value);
  tcase_add_test(limits, test_huge_zip_random);
  tcase_add_test(limits, test_huge_grid_corner);
  tcase_add_loop_test(limits, test_spaces, 0, (int)(sizeof spaces / sizeof spaces[0]));
  suite_add_tcase(s, limits);
  return s;
}

int
main(void)
{
  return tu_main(sweep_suite());
}
