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
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <hdf5.h>

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

/* ------------------------------------------------------------ errors */

/* A scene that reads every kind of data file: a wall's drive profile, a
 * string's measured frequencies and initial displacement, a modes file
 * (MODES_FILE: modes.csv or modes.h5), a distributed contact's points
 * (POINTS: a file, a list or a grid) and its profile file (issue 32). */
static const char *const ALL_FILES =
    "scene = { name = \"s\"; fs = 44100.0; duration = 0.001; gravity = 0.0; };\n"
    "bodies = (\n"
    "  { name = \"bridge\"; type = \"wall\";\n"
    "    drive = { type = \"profile\"; file = \"drive.txt\"; speed = 1.0; spacing = 1e-3; }; },\n"
    "  { name = \"string\"; type = \"modal\";\n"
    "    preset = { kind = \"string\"; nmodes = 8; length = 1.0; tension = 40.0;\n"
    "               linear_density = 0.001; frequencies = \"freq.csv\";\n"
    "               initial = { file = \"init.csv\"; column = \"q0\"; }; }; },\n"
    "  { name = \"plate\"; type = \"modal\"; modes_file = \"MODES_FILE\"; }\n"
    ");\n"
    "contacts = (\n"
    "  { name = \"jv\"; between = [\"bridge\", \"string\"]; law = \"power\"; k = 1e9; alpha = 1.5;\n"
    "    scheme = \"two-point\"; points = { POINTS };\n"
    "    profile = { file = \"prof.csv\"; }; }\n"
    ");\n";

/* The data files of ALL_FILES, valid. */
static const char *const ALL_DATA[][2] = {
    {"drive.txt", "0\n1.3e-6\n2.2e-6\n0.7e-6\n"},
    {"freq.csv", "freq_hz\n100\n200\n300\n400\n500\n600\n700\n800\n"},
    {"init.csv", "q0\n1.5e-4\n0\n0\n0\n0\n0\n0\n0\n"},
    {"modes.csv", "freq,mass,centre\n0,0.1,1\n250,0.05,0.8\n"},
    {"points.csv", "x_m\n0.005\n0.0125\n0.0215\n"},
    {"prof.csv", "x_m,height_m\n0.0,-1e-5\n0.03,-2e-5\n"},
};
#define NDATA ((int)(sizeof ALL_DATA / sizeof ALL_DATA[0]))
#define POINTS_FILE "file = \"points.csv\";"

/* Replace the first `key` in text by `value` into out[size]. */
static void
replace(char *out, size_t size, const char *text, const char *key, const char *value)
{
  const char *at = strstr(text, key);

  ck_assert_ptr_nonnull(at);
  snprintf(out, size, "%.*s%s%s", (int)(at - text), text, value, at + strlen(key));
}

/* Write ALL_FILES with its modes file and points into dir/all.cfg, and
 * every data file; the path of the scene into path[1200]. */
static void
put_all(const char *dir, const char *modes, const char *points, char *path)
{
  char a[4096], b[4096];

  replace(a, sizeof a, ALL_FILES, "MODES_FILE", modes);
  replace(b, sizeof b, a, "POINTS", points);
  put(dir, "all.cfg", b);
  for (int k = 0; k < NDATA; k++)
    put(dir, ALL_DATA[k][0], ALL_DATA[k][1]);
  snprintf(path, 1200, "%s/all.cfg", dir);
}

/* Load the scene at path: VB_EINVAL, a message that begins with the
 * scene's file and line and holds `want`. */
static void
refused(const char *path, const char *want)
{
  char err[2048] = "";
  vb_scene *sc = NULL;
  int rc = vb_scene_load(path, &sc, err, sizeof err);

  ck_assert_msg(rc == VB_EINVAL, "loaded (%d) where '%s' was wanted: %s", rc, want, err);
  ck_assert_ptr_eq(sc, NULL);
  ck_assert_msg(strncmp(err, path, strlen(path)) == 0 && err[strlen(path)] == ':', "%s", err);
  ck_assert_msg(strstr(err, want) != NULL, "'%s' not in: %s", want, err);
}

/* Load the scene at path; fails the test unless it loads. */
static void
loads(const char *path)
{
  char err[2048] = "";
  vb_scene *sc = NULL;

  ck_assert_msg(vb_scene_load(path, &sc, err, sizeof err) == VB_OK, "%s", err);
  vb_scene_free(sc);
}

static void
remove_dir(const char *dir)
{
  char cmd[1300];

  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  ck_assert_int_eq(system(cmd), 0);
}

/* Each data file a FIFO that nothing writes: refused at once as not a
 * regular file, as @include refuses one, never a load blocked for ever
 * (the tcase's timeout fails it); the last, a FIFO named as an HDF5 modes
 * file. */
START_TEST(test_fifo_data_file)
{
  char dir[] = "/tmp/vibro-inputs-XXXXXX", path[1200], fifo[1200], want[256];
  const char *name = _i < NDATA ? ALL_DATA[_i][0] : "modes.h5";

  ck_assert(mkdtemp(dir) != NULL);
  put_all(dir, "modes.csv", POINTS_FILE, path);
  loads(path);
  if (_i == NDATA)
    put_all(dir, "modes.h5", POINTS_FILE, path);
  snprintf(fifo, sizeof fifo, "%s/%s", dir, name);
  unlink(fifo);
  ck_assert_int_eq(mkfifo(fifo, 0600), 0);
  snprintf(want, sizeof want, "%s' is not a regular file", name);
  refused(path, want);
  remove_dir(dir);
}
END_TEST

/* A Unix socket as the points file, which cannot even be opened (ENXIO):
 * refused as not a regular file too, not "No such device or address". */
START_TEST(test_socket_data_file)
{
  char dir[] = "/tmp/vibro-inputs-XXXXXX", path[1200];
  struct sockaddr_un at = {.sun_family = AF_UNIX};
  int sock;

  ck_assert(mkdtemp(dir) != NULL);
  put_all(dir, "modes.csv", POINTS_FILE, path);
  snprintf(at.sun_path, sizeof at.sun_path, "%s/points.csv", dir);
  unlink(at.sun_path);
  sock = socket(AF_UNIX, SOCK_STREAM, 0);
  ck_assert_int_ge(sock, 0);
  ck_assert_int_eq(bind(sock, (const struct sockaddr *)&at, sizeof at), 0);
  refused(path, "points.csv' is not a regular file (valid: a CSV file)");
  close(sock);
  remove_dir(dir);
}
END_TEST

/* Write a 2-value dataset `name` of loc from values (dcpl: its creation
 * properties). */
static void
put_vector(hid_t loc, const char *name, const double *values, hid_t dcpl)
{
  hsize_t n = 2;
  hid_t space = H5Screate_simple(1, &n, NULL);
  hid_t set = H5Dcreate2(loc, name, H5T_IEEE_F64LE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);

  ck_assert(set >= 0);
  ck_assert(H5Dwrite(set, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values) >= 0);
  H5Dclose(set);
  H5Sclose(space);
}

/* An HDF5 modes file (/freq, /mass, /shapes/centre) written in one of the
 * ways that keep its data elsewhere; variant 0 keeps all in itself. */
static void
put_modes_h5(const char *dir, int variant)
{
  static const double freq[2] = {0.0, 250.0}, mass[2] = {0.1, 0.05}, centre[2] = {1.0, 0.8};
  char path[1200], other[1200];
  hsize_t n = 2;
  hid_t f, o, g, dcpl = H5Pcreate(H5P_DATASET_CREATE), space = H5Screate_simple(1, &n, NULL);

  snprintf(path, sizeof path, "%s/modes.h5", dir);
  snprintf(other, sizeof other, "%s/other.h5", dir);
  /* other.h5: what the links and the virtual dataset name */
  o = H5Fcreate(other, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  put_vector(o, "/mass", mass, H5P_DEFAULT);
  g = H5Gcreate2(o, "/shapes", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  put_vector(g, "centre", centre, H5P_DEFAULT);
  H5Gclose(g);
  ck_assert(H5Fclose(o) >= 0);

  f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  ck_assert(f >= 0);
  if (variant == 1) { /* /freq's raw data in raw.bin, by its absolute path */
    char raw[1200];
    FILE *r;
    snprintf(raw, sizeof raw, "%s/raw.bin", dir);
    r = fopen(raw, "wb");
    ck_assert(r != NULL && fwrite(freq, sizeof freq, 1, r) == 1 && fclose(r) == 0);
    ck_assert(H5Pset_external(dcpl, raw, 0, sizeof freq) >= 0);
  }
  put_vector(f, "/freq", freq, variant == 1 ? dcpl : H5P_DEFAULT);
  if (variant == 4) { /* /mass a virtual dataset mapped from other.h5 */
    hid_t v = H5Pcreate(H5P_DATASET_CREATE);
    hid_t set;
    ck_assert(H5Pset_virtual(v, space, other, "/mass", space) >= 0);
    set = H5Dcreate2(f, "/mass", H5T_IEEE_F64LE, space, H5P_DEFAULT, v, H5P_DEFAULT);
    ck_assert(set >= 0);
    H5Dclose(set);
    H5Pclose(v);
  } else {
    put_vector(f, "/mass", mass, H5P_DEFAULT);
  }
  if (variant == 2) { /* /shapes an external link into other.h5 */
    ck_assert(H5Lcreate_external(other, "/shapes", f, "/shapes", H5P_DEFAULT, H5P_DEFAULT) >= 0);
  } else if (variant == 3) { /* the point a soft link to a dataset outside /shapes */
    put_vector(f, "/centre_data", centre, H5P_DEFAULT);
    g = H5Gcreate2(f, "/shapes", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    ck_assert(H5Lcreate_soft("/centre_data", g, "centre", H5P_DEFAULT, H5P_DEFAULT) >= 0);
    H5Gclose(g);
  } else {
    g = H5Gcreate2(f, "/shapes", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    put_vector(g, "centre", centre, H5P_DEFAULT);
    H5Gclose(g);
  }
  H5Pclose(dcpl);
  H5Sclose(space);
  ck_assert(H5Fclose(f) >= 0);
}

/* What the load of each put_modes_h5 variant says (NULL: it loads). */
static const char *const H5_REFUSED[] = {
    NULL,
    "modes.h5: object '/freq': raw data stored in the external file '",
    "modes.h5: object '/shapes': an external link to '/shapes' in '",
    "modes.h5: object '/shapes/centre': a soft link to '/centre_data'",
    "modes.h5: object '/mass': a virtual dataset",
};

/* An HDF5 modes file whose data lies in another file (external raw
 * storage, an external link, a virtual dataset) or behind a soft link is
 * refused naming the object: what it names would be modal data outside
 * the input identity, and a resume after an edit of it would mix two
 * inputs in one output. */
START_TEST(test_modes_h5_elsewhere)
{
  char dir[] = "/tmp/vibro-inputs-XXXXXX", path[1200];

  ck_assert(mkdtemp(dir) != NULL);
  put_all(dir, "modes.h5", POINTS_FILE, path);
  put_modes_h5(dir, _i);
  if (H5_REFUSED[_i] == NULL)
    loads(path);
  else
    refused(path, H5_REFUSED[_i]);
  remove_dir(dir);
}
END_TEST

/* A hexadecimal number in a data file (strtod reads 0x10 as 16): refused
 * naming the file and the line, in each kind of file. */
static const char *const HEX[][3] = {
    {"points.csv", "x_m\n0.005\n0x10\n", "points.csv:3: column 'x_m|x': '0x10' is not"},
    {"modes.csv", "freq,mass,centre\n0,0.1,1\n0x10,0.05,0.8\n", "modes.csv:3: '0x10' is not a"},
    {"freq.csv", "freq_hz\n100\n200\n300\n-0X1p8\n500\n600\n700\n800\n",
     "freq.csv:5: column 'freq_hz|freq': '-0X1p8' is not"},
    {"drive.txt", "0\n1.3e-6\n+0x1\n0.7e-6\n", "drive.txt' line 3: '+0x1' is not a number"},
};

START_TEST(test_hex_number_refused)
{
  char dir[] = "/tmp/vibro-inputs-XXXXXX", path[1200];

  ck_assert(mkdtemp(dir) != NULL);
  put_all(dir, "modes.csv", POINTS_FILE, path);
  loads(path);
  put(dir, HEX[_i][0], HEX[_i][1]);
  refused(path, HEX[_i][2]);
  remove_dir(dir);
}
END_TEST

/* Two points of a distributed contact at one place (a list, a grid with
 * from = to, a points file): refused naming both, not one contact counted
 * twice. */
static const char *const DUPLICATE[][2] = {
    {"x = [0.01, 0.01];", "contact 'jv' points: points 1 and 2 are both at x = 0.01 "},
    {"x = [0.0215, 0.005, 0.0125, 0.005];", "points 2 and 4 are both at x = 0.005 "},
    {"from = 0.0125; to = 0.0125; n = 3;",
     "points 1 and 2 are both at x = 0.0125 (valid: distinct points: from != to, or n = 1)"},
    {"file = \"dup.csv\";", "points 1 and 3 are both at x = 0.0125 "},
};

START_TEST(test_duplicate_points_refused)
{
  char dir[] = "/tmp/vibro-inputs-XXXXXX", path[1200];

  ck_assert(mkdtemp(dir) != NULL);
  put_all(dir, "modes.csv", "x = [0.0125, 0.005];", path);
  loads(path);
  put_all(dir, "modes.csv", "from = 0.0125; to = 0.0125; n = 1;", path);
  loads(path);
  put_all(dir, "modes.csv", DUPLICATE[_i][0], path);
  put(dir, "dup.csv", "x_m\n0.0125\n0.005\n0.0125\n");
  refused(path, DUPLICATE[_i][1]);
  remove_dir(dir);
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

  TCase *errors = tcase_create("errors");
  tcase_set_timeout(errors, 20);
  tcase_add_loop_test(errors, test_fifo_data_file, 0, NDATA + 1);
  tcase_add_test(errors, test_socket_data_file);
  tcase_add_loop_test(errors, test_modes_h5_elsewhere, 0,
                      (int)(sizeof H5_REFUSED / sizeof H5_REFUSED[0]));
  tcase_add_loop_test(errors, test_hex_number_refused, 0, (int)(sizeof HEX / sizeof HEX[0]));
  tcase_add_loop_test(errors, test_duplicate_points_refused, 0,
                      (int)(sizeof DUPLICATE / sizeof DUPLICATE[0]));
  suite_add_tcase(s, errors);
  return s;
}

int
main(void)
{
  return tu_main(suite());
}
