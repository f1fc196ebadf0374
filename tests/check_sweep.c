/* check_sweep.c - the sweep's parameter paths as the loader's tables see
 * them (lib/sweep.c): the SI units of every kind of swept key, and keys a
 * sweep may create where the file leaves them out (a law's optional keys
 * come from the law table). */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "testutil.h"
#include "vibro.h"

/* Every kind of object with a numeric key: masses, a driven wall, a
 * modal body from a preset, a force, and contacts with four laws. */
#define BASE                                                                             \
  "scene = { name = \"s\"; fs = 44100.0; duration = 0.001; gravity = -9.81; };\n"      \
  "bodies = (\n"                                                                         \
  "  { name = \"hammer\"; type = \"mass\"; mass = 0.0137; v0 = 0.83; },\n"              \
  "  { name = \"bead\"; type = \"mass\"; mass = 0.0021; u0 = 0.004; },\n"               \
  "  { name = \"box\"; type = \"mass\"; mass = 0.0318; u0 = -0.003; },\n"               \
  "  { name = \"table\"; type = \"wall\"; position = -0.01;\n"                          \
  "    drive = { type = \"sine\"; amplitude = 1.0e-4; freq = 13.7; }; },\n"             \
  "  { name = \"wall\"; type = \"wall\"; },\n"                                           \
  "  { name = \"str\"; type = \"modal\"; preset = { kind = \"string\"; nmodes = 3;\n"    \
  "      length = 0.65; tension = 71.3; linear_density = 6.1e-4; };\n"                 \
  "    t60 = 1.7; points = ( { name = \"p\"; x = 0.13; } ); }\n"                        \
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
  {"bodies.str.preset.tension", "60.0", "N"},
  {"bodies.str.preset.length", "0.6", "m"},
  {"bodies.str.preset.linear_density", "7.0e-4", "kg/m"},
  {"bodies.str.t60", "1.1", "s"},
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

static Suite *
sweep_suite(void)
{
  Suite *s = suite_create("sweep");
  TCase *core = tcase_create("core");
  tcase_add_loop_test(core, test_param_units, 0, NCASES);
  tcase_add_test(core, test_units_no_sweep);
  suite_add_tcase(s, core);
  return s;
}

int
main(void)
{
  return tu_main(sweep_suite());
}
