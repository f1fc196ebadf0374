/* check_inputs.c - a study's data files are read again by every scene it
 * builds (lib/study/study.c, lib/scene/inputs.c): a profile, a frequencies file or a
 * modes file edited while the study runs must stop the scenes built after
 * the edit with a message naming the file, not give an output whose first
 * scenes used the old bytes and the rest the new ones under an `inputs`
 * attribute that names only the old. */

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"
#include "vibro.h"

/* A string on a 6-point bridge whose heights come from prof.csv, its
 * frequencies from freq.csv; a second string-free bar from modes.csv; k
 * swept over 3 values, so scenes 1 and 2 are built after the load. */
static const char *const STUDY =
    "scene = { name = \"s\"; fs = 44100.0; duration = 0.001; gravity = 0.0; };\n"
    "bodies = (\n"
    "  { name = \"bridge\"; type = \"wall\"; },\n"
    "  { name = \"string\"; type = \"modal\";\n"
    "    preset = { kind = \"string\"; nmodes = 8; length = 1.0; tension = 40.0;\n"
    "               linear_density = 0.001; pluck = [0.3, 1e-3]; frequencies = \"freq.csv\"; }; },\n"
    "  { name = \"plate\"; type = \"modal\"; modes_file = \"modes.csv\"; }\n"
    ");\n"
    "contacts = (\n"
    "  { name = \"jv\"; between = [\"bridge\", \"string\"]; law = \"power\"; k = 1e9; alpha = 1.5;\n"
    "    scheme = \"two-point\"; points = { from = 0.005; to = 0.025; n = 6; };\n"
    "    profile = { file = \"prof.csv\"; }; }\n"
    ");\n"
    "sweep = { params = ( { path = \"contacts.jv.k\"; values = [1e8, 1e9, 1e10]; } ); };\n";

/* Write text into dir/name; fails the test on error. */
static void
put(const char *dir, const char *name, const char *text)
{
  char path[1200];
  FILE *f;

  snprintf(path, sizeof path, "%s/%s", dir, name);
  f = fopen(path, "w");
  ck_assert_msg(f != NULL, "cannot write %s", path);
  fputs(text, f);
  ck_assert_int_eq(fclose(f), 0);
}

/* The original data files, and per file an edit of it (same size or not). */
static const char *const FILES[][3] = {
    {"prof.csv", "x_m,height_m\n0.0,-1e-5\n0.03,-2e-5\n", "x_m,height_m\n0.0,-1e-5\n0.03,-3e-5\n"},
    {"freq.csv", "freq_hz\n100\n200\n300\n400\n500\n600\n700\n800\n",
     "freq_hz\n100\n200\n300\n400\n500\n600\n700\n801\n"},
    {"modes.csv", "freq,mass,centre\n0,0.1,1\n250,0.05,0.8\n",
     "freq,mass,centre\n0,0.1,1\n251,0.05,0.8\n"},
};

/* Every data file, edited after the study loaded: the scene built next is
 * refused naming it; restored, the scene builds again. */
START_TEST(test_data_file_edited_during_run)
{
  char dir[] = "/tmp/vibro-inputs-XXXXXX", path[1200], err[2048], want[1400];
  int f = _i;
  vb_study *st = NULL;
  vb_scene *sc = NULL;

  ck_assert(mkdtemp(dir) != NULL);
  for (int k = 0; k < 3; k++)
    put(dir, FILES[k][0], FILES[k][1]);
  put(dir, "study.cfg", STUDY);
  snprintf(path, sizeof path, "%s/study.cfg", dir);
  ck_assert_msg(vb_study_load(path, &st, err, sizeof err) == VB_OK, "%s", err);
  ck_assert_msg(strstr(vb_study_inputs(st), FILES[f][0]) != NULL, "%s", vb_study_inputs(st));
  ck_assert_int_eq(vb_study_scene(st, 1, &sc, err, sizeof err), VB_OK);
  vb_scene_free(sc);

  put(dir, FILES[f][0], FILES[f][2]);
  ck_assert_int_eq(vb_study_scene(st, 2, &sc, err, sizeof err), VB_EINVAL);
  ck_assert_ptr_eq(sc, NULL);
  snprintf(want, sizeof want, "%s: '%s/%s' changed while the study ran (CRC-32 ", path, dir,
           FILES[f][0]);
  ck_assert_msg(strncmp(err, want, strlen(want)) == 0, "%s", err);
  ck_assert_msg(strstr(err, "restore it and run again with --resume, or run again with "
                            "--restart (scene 2: contacts.jv.k = 10000000000)") != NULL,
                "%s", err);

  /* restored, scene 2 builds again */
  put(dir, FILES[f][0], FILES[f][1]);
  ck_assert_msg(vb_study_scene(st, 2, &sc, err, sizeof err) == VB_OK, "%s", err);
  vb_scene_free(sc);
  vb_study_free(st);
  for (int k = 0; k < 3; k++) {
    snprintf(path, sizeof path, "%s/%s", dir, FILES[k][0]);
    unlink(path);
  }
  snprintf(path, sizeof path, "%s/study.cfg", dir);
  unlink(path);
  rmdir(dir);
}
END_TEST

/* The runner stops at the first scene built after the edit: exit status
 * VB_EINVAL with the same message, not a finished file. */
START_TEST(test_run_stops_on_edit)
{
  char dir[] = "/tmp/vibro-inputs-XXXXXX", path[1200], out[1200], err[2048];
  vb_study *st = NULL;
  vb_study_options opt = {.threads = 1, .nranks = 1};

  ck_assert(mkdtemp(dir) != NULL);
  for (int k = 0; k < 3; k++)
    put(dir, FILES[k][0], FILES[k][1]);
  put(dir, "study.cfg", STUDY);
  snprintf(path, sizeof path, "%s/study.cfg", dir);
  snprintf(out, sizeof out, "%s/out.h5", dir);
  ck_assert_msg(vb_study_load(path, &st, err, sizeof err) == VB_OK, "%s", err);
  put(dir, "prof.csv", FILES[0][2]);
  ck_assert_int_eq(vb_study_run(st, out, &opt, NULL, err, sizeof err), VB_EINVAL);
  ck_assert_msg(strstr(err, "prof.csv' changed while the study ran") != NULL, "%s", err);
  ck_assert_int_ne(access(out, F_OK), 0);
  vb_study_free(st);
  {
    char cmd[1300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    ck_assert_int_eq(system(cmd), 0);
  }
}
END_TEST

static Suite *
suite(void)
{
  Suite *s = suite_create("inputs");
  TCase *core = tcase_create("core");

  tcase_set_timeout(core, 60);
  tcase_add_loop_test(core, test_data_file_edited_during_run, 0, 3);
  tcase_add_test(core, test_run_stops_on_edit);
  suite_add_tcase(s, core);
  return s;
}

int
main(void)
{
  return tu_main(suite());
}
