/* check_study.c - studies: sweep expansion (grid, zip, random; linspace
 * and logspace values exact), sweep errors with their exact messages,
 * errors inside a swept scene, and the study runner's output: the table
 * against direct single-scene runs, a plain scene's one-row table, and a
 * resume refused for another input. */

#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <hdf5.h>

#include "h5table.h"
#include "output/output.h"
#include "testutil.h"
#include "vibro.h"

/* splitmix64's reference stream (seed 0), from the sweep internals. */
uint64_t vb_splitmix64(uint64_t seed, uint64_t k);

/* A hammer against a wall, with an irregular mass; the sweep is appended. */
#define BASE \
  "scene = { name = \"s\"; fs = 44100.0; duration = 0.002; };\n"                        \
  "bodies = ( { name = \"hammer\"; type = \"mass\"; mass = 0.0137; v0 = 0.83; },\n"     \
  "           { name = \"wall\"; type = \"wall\"; } );\n"                               \
  "contacts = ( { name = \"hit\"; between = [\"hammer\", \"wall\"]; law = \"hunt-crossley\";\n" \
  "               k = 2.2e8; alpha = 1.37; mu = 0.41; scheme = \"am1\"; } );\n"

/* Load a study from text; fails the test on error. */
static vb_study *load(const char *text)
{
  char err[1024];
  vb_study *st = NULL;
  int rc = vb_study_load_string(text, "study.cfg", &st, err, sizeof err);

  ck_assert_msg(rc == VB_OK, "study did not load: %s", err);
  return st;
}

/* Load a study that must fail with exactly `expected`. */
static void refused(const char *text, const char *expected)
{
  char err[1024];
  vb_study *st = NULL;
  int rc = vb_study_load_string(text, "study.cfg", &st, err, sizeof err);

  ck_assert_int_eq(rc, VB_EINVAL);
  ck_assert_ptr_eq(st, NULL);
  ck_assert_str_eq(err, expected);
}

START_TEST(test_grid_order_and_values)
{
  vb_study *st = load(BASE "sweep = { mode = \"grid\"; params = (\n"
                           "  { path = \"contacts.hit.k\"; values = [1.5e8, 2.5e8, 3.5e8]; },\n"
                           "  { path = \"bodies.hammer.v0\"; linspace = [0.25, 1.0]; n = 4; }\n"
                           "); };\n");
  vb_scene *sc;
  char err[512];

  ck_assert_int_eq(vb_study_scenes(st), 12);
  ck_assert_int_eq(vb_study_nparams(st), 2);
  ck_assert_str_eq(vb_study_param(st, 0), "contacts.hit.k");
  ck_assert_str_eq(vb_study_mode(st), "grid");
  /* first parameter slowest */
  ck_assert(vb_study_value(st, 0, 0) == 1.5e8 && vb_study_value(st, 3, 0) == 1.5e8);
  ck_assert(vb_study_value(st, 4, 0) == 2.5e8 && vb_study_value(st, 11, 0) == 3.5e8);
  ck_assert(vb_study_value(st, 5, 1) == 0.5 && vb_study_value(st, 7, 1) == 1.0);
  /* the values reach the loaded scene */
  ck_assert_int_eq(vb_study_scene(st, 6, &sc, err, sizeof err), VB_OK);
  ck_assert(sc->contacts[0].law.k == 2.5e8);
  ck_assert(sc->bodies[0].v0 == 0.75);
  ck_assert(sc->bodies[0].mass == 0.0137);
  vb_scene_free(sc);
  ck_assert_int_eq(vb_study_scene(st, 12, &sc, err, sizeof err), VB_EINVAL);
  vb_study_free(st);
}
END_TEST

START_TEST(test_spaced_values_exact)
{
  static const double decades[] = { 1e6, 1e7, 1e8, 1e9, 1e10 };
  vb_study *st = load(BASE "sweep = { mode = \"zip\"; params = (\n"
                           "  { path = \"contacts.hit.k\"; logspace = [1.0e6, 1.0e10]; n = 5; },\n"
                           "  { path = \"scene.fs\"; linspace = [22050.0, 176400.0]; n = 5; }\n"
                           "); };\n");
  int i;

  ck_assert_int_eq(vb_study_scenes(st), 5);
  for (i = 0; i < 5; i++) {
    ck_assert_msg(vb_study_value(st, i, 0) == decades[i], "logspace %d: %.17g", i,
                  vb_study_value(st, i, 0));
    ck_assert(vb_study_value(st, i, 1) == (22050.0 * (4 - i) + 176400.0 * i) / 4.0);
  }
  ck_assert(vb_study_value(st, 1, 1) == 60637.5);
  vb_study_free(st);
}
END_TEST

START_TEST(test_random_splitmix)
{
  vb_study *st = load(BASE "sweep = { mode = \"random\"; n = 50; seed = 7; params = (\n"
                           "  { path = \"contacts.hit.k\"; loguniform = [1.0e6, 1.0e10]; },\n"
                           "  { path = \"bodies.hammer.v0\"; uniform = [0.5, 2.5]; },\n"
                           "  { path = \"contacts.hit.mu\"; values = [0.1, 0.2, 0.3]; }\n"
                           "); };\n");
  vb_study *again = load(BASE "sweep = { mode = \"random\"; n = 50; seed = 7; params = (\n"
                              "  { path = \"contacts.hit.k\"; loguniform = [1.0e6, 1.0e10]; },\n"
                              "  { path = \"bodies.hammer.v0\"; uniform = [0.5, 2.5]; },\n"
                              "  { path = \"contacts.hit.mu\"; values = [0.1, 0.2, 0.3]; }\n"
                              "); };\n");
  int i, seen[3] = { 0, 0, 0 };
  double u;

  /* the published first output of splitmix64 seeded with 0 */
  ck_assert(vb_splitmix64(0, 0) == UINT64_C(0xE220A8397B1DCDAF));
  ck_assert_int_eq(vb_study_scenes(st), 50);
  for (i = 0; i < 50; i++) {
    double k = vb_study_value(st, i, 0), v = vb_study_value(st, i, 1),
           mu = vb_study_value(st, i, 2);

    ck_assert(k >= 1e6 && k <= 1e10);
    ck_assert(v >= 0.5 && v < 2.5);
    ck_assert(mu == 0.1 || mu == 0.2 || mu == 0.3);
    seen[mu == 0.1 ? 0 : mu == 0.2 ? 1 : 2]++;
    ck_assert(k == vb_study_value(again, i, 0) && v == vb_study_value(again, i, 1));
  }
  ck_assert(seen[0] > 0 && seen[1] > 0 && seen[2] > 0);
  /* scene 3, parameter 1 is draw 3 * 3 + 1 of the stream seeded with 7 */
  u = (double)(vb_splitmix64(7, 10) >> 11) * 0x1.0p-53;
  ck_assert(vb_study_value(st, 3, 1) == 0.5 + 2.0 * u);
  vb_study_free(again);
  vb_study_free(st);
}
END_TEST

START_TEST(test_absent_keys_created)
{
  vb_study *st = load(BASE "sweep = { params = (\n"
                           "  { path = \"contacts.hit.gap\"; values = [-2.5e-5, 0.0]; },\n"
                           "  { path = \"record.every\"; values = [1, 3]; },\n"
                           "  { path = \"scene.gravity\"; values = [9.81]; }\n"
                           "); };\n");
  vb_scene *sc;
  char err[512];

  ck_assert_int_eq(vb_study_scenes(st), 4);
  ck_assert_int_eq(vb_study_scene(st, 1, &sc, err, sizeof err), VB_OK);
  ck_assert(sc->contacts[0].gap == -2.5e-5);
  ck_assert_int_eq(sc->record_every, 3);
  ck_assert(sc->gravity == 9.81);
  vb_scene_free(sc);
  vb_study_free(st);
}
END_TEST

START_TEST(test_plain_scene_is_one)
{
  vb_study *st = load(BASE);

  ck_assert_int_eq(vb_study_scenes(st), 1);
  ck_assert_int_eq(vb_study_nparams(st), 0);
  ck_assert_str_eq(vb_study_mode(st), "none");
  ck_assert_str_eq(vb_study_sweep(st), "");
  ck_assert(vb_study_first(st)->contacts[0].law.k == 2.2e8);
  vb_study_free(st);
}
END_TEST

/* Bad sweeps: the message, exactly. */
static const struct {
  const char *sweep, *message;
} bad_sweeps[] = {
  {"sweep = { params = ( { path = \"contacts.hit.kk\"; values = [1.0]; } ); };\n",
   "study.cfg:6: sweep: unknown parameter path 'contacts.hit.kk' (valid: contacts.hit.k, "
   "contacts.hit.alpha, contacts.hit.mu, contacts.hit.gap, contacts.hit.tolerance, "
   "contacts.hit.max_iterations)"},
  {"sweep = { params = ( { path = \"contacts.hot.k\"; values = [1.0]; } ); };\n",
   "study.cfg:6: sweep: unknown parameter path 'contacts.hot.k' (valid: contacts.hit.k)"},
  {"sweep = { params = ( { path = \"bodies.wall.v0\"; values = [1.0]; } ); };\n",
   "study.cfg:6: sweep: unknown parameter path 'bodies.wall.v0' (valid: bodies.wall.position)"},
  {"sweep = { params = ( { path = \"scene.name\"; values = [1.0]; } ); };\n",
   "study.cfg:6: sweep: unknown parameter path 'scene.name' (valid: scene.fs, "
   "scene.duration, scene.gravity)"},
  {"sweep = { params = ( { path = \"contacts.hit.k[0]\"; values = [1.0]; } ); };\n",
   "study.cfg:6: sweep: unknown parameter path 'contacts.hit.k[0]' (valid: contacts.hit.k, "
   "contacts.hit.alpha, contacts.hit.mu, contacts.hit.gap, contacts.hit.tolerance, "
   "contacts.hit.max_iterations)"},
  {"sweep = { mode = \"spiral\"; params = ( { path = \"scene.fs\"; values = [1.0]; } ); };\n",
   "study.cfg:6: sweep: unknown mode 'spiral' (valid: grid, zip, random)"},
  {"sweep = { mode = \"zip\"; params = ( { path = \"scene.fs\"; values = [1.0, 2.0]; },\n"
   "  { path = \"contacts.hit.k\"; values = [1.0, 2.0, 3.0]; } ); };\n",
   "study.cfg:7: sweep: mode 'zip' needs parameters of equal length ('scene.fs' has 2 "
   "values, 'contacts.hit.k' has 3)"},
  {"sweep = { params = ( { path = \"scene.fs\"; linspace = [1.0, 2.0]; } ); };\n",
   "study.cfg:6: sweep: missing required key 'n' for 'linspace'"},
  {"sweep = { params = ( { path = \"scene.fs\"; logspace = [0.0, 2.0]; n = 3; } ); };\n",
   "study.cfg:6: sweep: 'logspace' must be two numbers > 0 (valid: use linspace for signed "
   "ranges)"},
  {"sweep = { params = ( { path = \"scene.fs\"; uniform = [1.0, 2.0]; } ); };\n",
   "study.cfg:6: sweep: 'uniform' applies only to mode 'random' (valid: path, values, "
   "linspace, logspace, n)"},
  {"sweep = { mode = \"random\"; params = ( { path = \"scene.fs\"; uniform = [1.0, 2.0]; } ); };\n",
   "study.cfg:6: sweep: missing required key 'n' for mode 'random'"},
  {"sweep = { params = ( { path = \"scene.fs\"; values = [1.0]; },\n"
   "  { path = \"scene.fs\"; values = [2.0]; } ); };\n",
   "study.cfg:7: sweep: parameter 'scene.fs' is swept twice (valid: each path once)"},
  {"sweep = { params = ( { path = \"scene.fs\"; } ); };\n",
   "study.cfg:6: sweep: parameter 'scene.fs' has no values (valid: values, linspace, "
   "logspace)"},
  {"sweep = { params = ( { path = \"scene.fs\"; values = [1.0]; n = 2; } ); };\n",
   "study.cfg:6: sweep: 'n' applies only to linspace and logspace (valid: path, values)"},
  {"sweep = { params = ( ); };\n",
   "study.cfg:6: sweep: 'params' must be a non-empty list of groups ( { path = ...; ... }, "
   "... )"},
  /* an error inside swept scene 2 names its values; the line is the sweep's */
  {"sweep = { params = (\n"
   "  { path = \"contacts.hit.k\"; values = [2.0e8, -1.0]; },\n"
   "  { path = \"bodies.hammer.v0\"; values = [1.0, 2.0]; } ); };\n",
   "study.cfg:7: contact 'hit': 'k' must be > 0 (got -1) (scene 2: contacts.hit.k = -1, "
   "bodies.hammer.v0 = 1)"},
  {"sweep = { params = ( { path = \"record.every\"; values = [1.0, 2.5]; } ); };\n",
   "study.cfg:6: record: 'every' must be an integer (scene 1: record.every = 2.5)"},
};

START_TEST(test_bad_sweep)
{
  char text[2048];

  snprintf(text, sizeof text, "%s%s", BASE, bad_sweeps[_i].sweep);
  refused(text, bad_sweeps[_i].message);
}
END_TEST

START_TEST(test_scene_loader_refuses_study)
{
  char err[512];
  vb_scene *sc;

  ck_assert_int_eq(vb_scene_load_string(BASE "sweep = { params = ( { path = \"scene.fs\"; "
                                        "values = [1.0]; } ); };\n", "study.cfg", &sc,
                                        err, sizeof err), VB_EINVAL);
  ck_assert_str_eq(err, "study.cfg:6: sweep: a sweep makes this file a study of several "
                        "scenes (valid: load it with vb_study_load)");
}
END_TEST

/* ----------------------------------------------------------- the runner */

/* A fresh output path in the build directory. */
static void out_path(char *buf, size_t size, const char *name)
{
  snprintf(buf, size, "%s/tests/study-%ld-%s.h5", TEST_BUILDDIR, (long)getpid(), name);
  remove(buf);
}

/* Read /study/table's rows (vibro-3 columns, tests/h5table.h) into a
 * buffer with memory type `mtype`. */
static void read_table(const char *path, hid_t mtype, void *rows, long expect)
{
  hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);

  ck_assert(f >= 0);
  ck_assert_int_eq(tu_table_read(f, "study/table", mtype, rows), expect);
  H5Fclose(f);
}

typedef struct row {
  int64_t index;
  double k, v0;
  int status_code;
  char status[128];
  double final_energy, balance;
  int64_t impacts;
  double first_impact, mean_duration, max_compression;
} row;

/* The unit the file's /study/table gives column `name` ("" if absent). */
static void table_unit(const char *path, const char *name, char *unit, size_t size)
{
  hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);

  ck_assert(f >= 0);
  tu_column_units(f, "study/table", name, unit, size);
  H5Fclose(f);
}

/* Swept columns carry the units of the setting they sweep, from the tables
 * (a mass's spring k is N/m, a contact's k N/m^alpha): the layout and the
 * file's /study/table units. */
START_TEST(test_swept_units)
{
  static const char sweep[] =
      "sweep = { params = (\n"
      "  { path = \"contacts.hit.k\"; values = [1.0e8, 2.0e8]; },\n"
      "  { path = \"bodies.hammer.k\"; values = [10.0, 20.0]; },\n"
      "  { path = \"bodies.hammer.v0\"; values = [0.83, 1.9]; } );\n"
      "  mode = \"zip\"; };\n";
  static const char *const expect[][2] = {
    { "contacts.hit.k", "N/m^alpha" }, { "bodies.hammer.k", "N/m" },
    { "bodies.hammer.v0", "m/s" } };
  char text[2048], out[1024], err[1024], unit[64];
  const char *names[3], *units[3];
  vb_output_layout lay;
  vb_study *st;
  int p;

  snprintf(text, sizeof text, "%s%s", BASE, sweep);
  st = load(text);
  vb_study_layout(st, &lay, names, units);
  ck_assert_int_eq(lay.nparams, 3);
  for (p = 0; p < 3; p++) {
    ck_assert_str_eq(names[p], expect[p][0]);
    ck_assert_str_eq(units[p], expect[p][1]);
  }
  out_path(out, sizeof out, "units");
  ck_assert_msg(vb_study_run(st, out, NULL, NULL, err, sizeof err) == VB_OK, "%s", err);
  for (p = 0; p < 3; p++) {
    table_unit(out, expect[p][0], unit, sizeof unit);
    ck_assert_str_eq(unit, expect[p][1]);
  }
  remove(out);
  vb_study_free(st);
}
END_TEST

START_TEST(test_table_matches_single_runs)
{
  static const char sweep[] =
      "sweep = { params = (\n"
      "  { path = \"contacts.hit.k\"; logspace = [1.0e8, 1.0e9]; n = 3; },\n"
      "  { path = \"bodies.hammer.v0\"; values = [0.83, 1.9]; } ); };\n";
  char text[2048], out[1024], err[1024];
  vb_study_options opt = { .threads = 2, .nranks = 1 };
  vb_study_report rep;
  vb_study *st;
  row rows[6];
  hid_t str, m;
  long i;

  snprintf(text, sizeof text, "%s%s", BASE, sweep);
  st = load(text);
  out_path(out, sizeof out, "table");
  ck_assert_msg(vb_study_run(st, out, &opt, &rep, err, sizeof err) == VB_OK, "%s", err);
  ck_assert_int_eq(rep.ran, 6);
  ck_assert_int_eq(rep.failed, 0);
  str = H5Tcopy(H5T_C_S1);
  H5Tset_size(str, 128);
  m = H5Tcreate(H5T_COMPOUND, sizeof(row));
  H5Tinsert(m, "index", HOFFSET(row, index), H5T_NATIVE_INT64);
  H5Tinsert(m, "contacts.hit.k", HOFFSET(row, k), H5T_NATIVE_DOUBLE);
  H5Tinsert(m, "bodies.hammer.v0", HOFFSET(row, v0), H5T_NATIVE_DOUBLE);
  H5Tinsert(m, "status_code", HOFFSET(row, status_code), H5T_NATIVE_INT);
  H5Tinsert(m, "status", HOFFSET(row, status), str);
  H5Tinsert(m, "final_energy", HOFFSET(row, final_energy), H5T_NATIVE_DOUBLE);
  H5Tinsert(m, "energy_balance_error", HOFFSET(row, balance), H5T_NATIVE_DOUBLE);
  H5Tinsert(m, "impacts:hit", HOFFSET(row, impacts), H5T_NATIVE_INT64);
  H5Tinsert(m, "first_impact:hit", HOFFSET(row, first_impact), H5T_NATIVE_DOUBLE);
  H5Tinsert(m, "mean_contact_duration:hit", HOFFSET(row, mean_duration), H5T_NATIVE_DOUBLE);
  H5Tinsert(m, "max_compression:hit", HOFFSET(row, max_compression), H5T_NATIVE_DOUBLE);
  read_table(out, m, rows, 6);
  for (i = 0; i < 6; i++) {
    char from_k[64], to_k[64], from_v[64], to_v[64];
    const char *repl[4];
    tu_sim s;
    const vb_contact_result *r;
    long n, j;
    double maxc = -INFINITY;

    ck_assert_int_eq(rows[i].index, i);
    ck_assert(rows[i].k == vb_study_value(st, i, 0));
    ck_assert(rows[i].v0 == vb_study_value(st, i, 1));
    ck_assert_int_eq(rows[i].status_code, 0);
    ck_assert_str_eq(rows[i].status, "done");
    /* the same scene run directly, from text with the values written in */
    snprintf(from_k, sizeof from_k, "k = 2.2e8;");
    snprintf(to_k, sizeof to_k, "k = %.17g;", rows[i].k);
    snprintf(from_v, sizeof from_v, "v0 = 0.83;");
    snprintf(to_v, sizeof to_v, "v0 = %.17g;", rows[i].v0);
    repl[0] = from_k;
    repl[1] = to_k;
    repl[2] = from_v;
    repl[3] = to_v;
    {
      char *t = strdup(BASE);
      tu_replace(&t, repl[0], repl[1]);
      tu_replace(&t, repl[2], repl[3]);
      s = tu_run_text(t);
      free(t);
    }
    r = vb_run_contact(s.run, 0);
    n = vb_run_samples(s.run);
    for (j = 0; j < n; j++)
      maxc = r->compression[j] > maxc ? r->compression[j] : maxc;
    ck_assert_int_eq(rows[i].impacts, r->nevents);
    ck_assert_int_ge(r->nevents, 1);
    ck_assert(rows[i].first_impact == r->events[0].t_on);
    ck_assert(rows[i].max_compression == maxc);
    ck_assert(rows[i].final_energy == vb_run_energy(s.run, 0)[n - 1]);
    ck_assert(rows[i].balance == vb_run_balance_error(s.run));
    ck_assert(isnan(rows[i].mean_duration) || rows[i].mean_duration == r->events[0].duration);
    tu_free(&s);
  }
  H5Tclose(m);
  H5Tclose(str);
  remove(out);
  vb_study_free(st);
}
END_TEST

/* Append the name of a link to a comma-separated list. */
static herr_t name_add(hid_t g, const char *name, const H5L_info_t *info, void *list)
{
  (void)g;
  (void)info;
  if (((char *)list)[0])
    strcat(list, ",");
  strcat(list, name);
  return 0;
}

/* Names in /signals of a file, in name order. */
static void signal_names(const char *path, char *list)
{
  hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  hsize_t at = 0;

  ck_assert(f >= 0);
  list[0] = '\0';
  ck_assert(H5Literate_by_name(f, "signals", H5_INDEX_NAME, H5_ITER_INC, &at, name_add, list,
                               H5P_DEFAULT) >= 0);
  H5Fclose(f);
}

/* The bytes of a dataset of a file, as stored; the caller frees them. */
static unsigned char *dataset_bytes(const char *path, const char *name, size_t *size)
{
  hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  hid_t d = H5Dopen2(f, name, H5P_DEFAULT);
  hid_t t = H5Dget_type(d), s = H5Dget_space(d);
  unsigned char *buf;

  ck_assert(f >= 0 && d >= 0 && t >= 0 && s >= 0);
  *size = H5Tget_size(t) * (size_t)H5Sget_simple_extent_npoints(s);
  buf = malloc(*size + 1);
  ck_assert(buf != NULL);
  ck_assert(H5Dread(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) >= 0);
  H5Sclose(s);
  H5Tclose(t);
  H5Dclose(d);
  H5Fclose(f);
  return buf;
}

/* record.signals: the file holds only the selected signals, and a study
 * that records events only has the same table and events, byte for byte,
 * as one that records everything, and an empty time axis. */
START_TEST(test_record_signals_file)
{
  static const char sweep[] =
      "sweep = { params = ( { path = \"contacts.hit.k\"; values = [1.0e8, 3.0e8]; } ); };\n";
  static const char *const records[3] = {
    "", "record = { signals = [\"contacts/*/force\", \"energy/total\"]; };\n",
    "record = { signals = []; };\n" };
  static const char *const want[3] = {
    "bodies.hammer.u,bodies.hammer.v,contacts.hit.compression,contacts.hit.force,"
    "contacts.hit.k,contacts.hit.rate,energy.dissipated,energy.kinetic,energy.potential,"
    "energy.total,scene,time",
    "contacts.hit.force,contacts.hit.k,energy.total,scene,time",
    "contacts.hit.k,scene,time" };
  char text[2048], out[3][1024], err[1024], names[1024];
  vb_study_options opt = { .threads = 1, .nranks = 1 };
  int k;

  for (k = 0; k < 3; k++) {
    char tag[32];
    vb_study *st;

    snprintf(text, sizeof text, "%s%s%s", BASE, records[k], sweep);
    st = load(text);
    snprintf(tag, sizeof tag, "record%d", k);
    out_path(out[k], sizeof out[k], tag);
    ck_assert_msg(vb_study_run(st, out[k], &opt, NULL, err, sizeof err) == VB_OK, "%s", err);
    signal_names(out[k], names);
    ck_assert_str_eq(names, want[k]);
    vb_study_free(st);
  }
  for (k = 1; k < 3; k++) {
    static const char *const same[] = {
        "signals/time", "study/table/final_energy", "study/table/energy_balance_error",
        "study/table/max_compression", "study/table/impacts", "study/events/v_in",
        "study/events/x_max"};
    for (int d = k == 1 ? 0 : 1; d < (int)(sizeof same / sizeof *same); d++) {
      size_t na, nb;
      unsigned char *a = dataset_bytes(out[0], same[d], &na);
      unsigned char *b = dataset_bytes(out[k], same[d], &nb);
      ck_assert_msg(na == nb && na > 0 && memcmp(a, b, na) == 0, "%s differs", same[d]);
      free(a);
      free(b);
    }
  }
  {
    /* no signal along time: an empty time axis */
    size_t nt;
    unsigned char *t = dataset_bytes(out[2], "signals/time", &nt);
    ck_assert_uint_eq(nt, 0);
    free(t);
  }
  for (k = 0; k < 3; k++)
    remove(out[k]);
}
END_TEST

START_TEST(test_plain_scene_table)
{
  char out[1024], err[1024], status[128];
  vb_study *st = load(BASE);
  hid_t m, str;
  int64_t index = -1;
  int code = -9;

  out_path(out, sizeof out, "plain");
  ck_assert_msg(vb_study_run(st, out, NULL, NULL, err, sizeof err) == VB_OK, "%s", err);
  str = H5Tcopy(H5T_C_S1);
  H5Tset_size(str, 128);
  m = H5Tcreate(H5T_COMPOUND, 256);
  H5Tinsert(m, "index", 0, H5T_NATIVE_INT64);
  H5Tinsert(m, "status_code", 8, H5T_NATIVE_INT);
  H5Tinsert(m, "status", 16, str);
  {
    unsigned char buf[256];

    read_table(out, m, buf, 1);
    memcpy(&index, buf, 8);
    memcpy(&code, buf + 8, sizeof code);
    memcpy(status, buf + 16, 128);
  }
  ck_assert_int_eq(index, 0);
  ck_assert_int_eq(code, 0);
  ck_assert_str_eq(status, "done");
  H5Tclose(m);
  H5Tclose(str);
  remove(out);
  vb_study_free(st);
}
END_TEST

START_TEST(test_resume_other_input_refused)
{
  char out[1024], part[1100], err[1024];
  vb_study *a = load(BASE "sweep = { params = ( { path = \"scene.fs\"; values = [44100.0, 48000.0]; } ); };\n");
  vb_study *b = load(BASE "sweep = { params = ( { path = \"scene.fs\"; values = [44100.0, 96000.0]; } ); };\n");
  vb_study_options resume = { .threads = 1, .resume = 1, .nranks = 1 };
  vb_output_layout lay;
  const char *names[1], *units[1];
  vb_output *o;
  vb_scene *sc;
  vb_run *run;
  double value;

  out_path(out, sizeof out, "resume");
  snprintf(part, sizeof part, "%s.part", out);
  /* an interrupted run of a: scene 0 in a shard */
  vb_study_layout(a, &lay, names, units);
  ck_assert_str_eq(units[0], "Hz");
  ck_assert_int_eq(vb_output_open(out, &lay, 0, 0, &o, err, sizeof err), VB_OK);
  ck_assert_int_eq(vb_study_scene(a, 0, &sc, err, sizeof err), VB_OK);
  ck_assert_int_eq(vb_run_alloc(sc, &run, err, sizeof err), VB_OK);
  vb_run_exec(run);
  value = vb_study_value(a, 0, 0);
  ck_assert_int_eq(vb_output_scene(o, 0, &value, run, err, sizeof err), VB_OK);
  ck_assert_int_eq(vb_output_flush(o, err, sizeof err), VB_OK);
  ck_assert_int_eq(vb_output_scenes_done(o), 1);
  vb_output_free(o);
  vb_run_free(run);
  vb_scene_free(sc);
  ck_assert_int_eq(access(part, F_OK), 0);
  ck_assert_int_eq(vb_study_run(b, out, &resume, NULL, err, sizeof err), VB_EINVAL);
  ck_assert_msg(strstr(err, "was written for a different input than study.cfg") != NULL,
                "%s", err);
  ck_assert_int_eq(access(part, F_OK), 0);
  ck_assert_int_ne(access(out, F_OK), 0);
  /* a shard half written when the run died, never listed */
  {
    char junk[1200];
    FILE *f;

    snprintf(junk, sizeof junk, "%s/r000-000007.h5.tmp", part);
    f = fopen(junk, "w");
    ck_assert(f != NULL);
    fputs("half a shard", f);
    fclose(f);
  }
  /* the same input resumes, keeps scene 0, runs scene 1, and finishes */
  {
    vb_study_report rep;
    ck_assert_msg(vb_study_run(a, out, &resume, &rep, err, sizeof err) == VB_OK, "%s", err);
    ck_assert_int_eq(rep.kept, 1);
    ck_assert_int_eq(rep.ran, 1);
  }
  ck_assert_int_ne(access(part, F_OK), 0);
  ck_assert_int_eq(access(out, F_OK), 0);
  {
    /* two sample rates: time is [scene][sample] */
    hid_t f = H5Fopen(out, H5F_ACC_RDONLY, H5P_DEFAULT);
    hid_t d = H5Dopen2(f, "signals/time", H5P_DEFAULT), sp = H5Dget_space(d);
    hsize_t dims[2];

    ck_assert(f >= 0 && d >= 0);
    ck_assert_int_eq(H5Sget_simple_extent_ndims(sp), 2);
    H5Sget_simple_extent_dims(sp, dims, NULL);
    ck_assert_int_eq(dims[0], 2);
    ck_assert(H5Lexists(f, "signals/sample", H5P_DEFAULT) > 0);
    ck_assert(H5Lexists(f, "study/events", H5P_DEFAULT) > 0);
    H5Sclose(sp);
    H5Dclose(d);
    H5Fclose(f);
  }
  remove(out);
  vb_study_free(a);
  vb_study_free(b);
}
END_TEST

/* ------------------------------------------------- near-linear loading */

/* CPU seconds this process has used (every thread). */
static double cpu_seconds(void)
{
  struct timespec t;

  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* A scene of n masses, each on its own contact with one wall, listed in a
 * shuffled order (so that no lookup is lucky); k is an integer literal,
 * which the loader checks on its source line. */
static char *many_contacts(int n)
{
  size_t size = 256 + (size_t)n * 256, used = 0;
  char *t = malloc(size);
  int *order = malloc((size_t)n * sizeof *order);

  ck_assert(t && order);
  for (int i = 0; i < n; i++)
    order[i] = i;
  for (int i = n - 1; i > 0; i--) { /* Fisher-Yates, a fixed LCG */
    int j = (int)(((unsigned long)i * 2654435761UL + 12345UL) % (unsigned long)(i + 1)), x = order[i];
    order[i] = order[j];
    order[j] = x;
  }
  used += (size_t)snprintf(t + used, size - used,
                           "scene = { name = \"many\"; fs = 44100.0; duration = 0.001; };\n"
                           "bodies = ( { name = \"wall\"; type = \"wall\"; }");
  for (int i = 0; i < n; i++)
    used += (size_t)snprintf(t + used, size - used,
                             ",\n { name = \"m%d\"; type = \"mass\"; mass = 0.01; u0 = 0.001; "
                             "v0 = -1.0; }",
                             order[i]);
  used += (size_t)snprintf(t + used, size - used, " );\ncontacts = (");
  for (int i = 0; i < n; i++)
    used += (size_t)snprintf(t + used, size - used,
                             "%s\n { name = \"c%d\"; between = [\"m%d\", \"wall\"]; law = \"power\"; "
                             "k = 100000000; alpha = 1.5; scheme = \"two-point\"; }",
                             i ? "," : "", i, i);
  snprintf(t + used, size - used, " );\n");
  free(order);
  return t;
}

/* The study BASE swept over n listed values of the stiffness. */
static char *many_values(int n)
{
  size_t size = 1024 + (size_t)n * 32, used = 0;
  char *t = malloc(size);

  ck_assert(t != NULL);
  used += (size_t)snprintf(t, size, BASE "sweep = { params = ( { path = \"contacts.hit.k\"; values = [");
  for (int i = 0; i < n; i++)
    used += (size_t)snprintf(t + used, size - used, "%s%.17e", i ? ", " : "", 1e8 * (1.0 + 1e-4 * i));
  snprintf(t + used, size - used, "]; } ); };\n");
  return t;
}

/* The fewest CPU seconds of two loads of a study text. */
static double load_seconds(const char *text)
{
  double best = INFINITY;

  for (int k = 0; k < 2; k++) {
    double t0 = cpu_seconds();
    vb_study *st = load(text);
    double t = cpu_seconds() - t0;
    vb_study_free(st);
    best = t < best ? t : best;
  }
  return best;
}

/* Loading is near-linear in the number of contacts and of listed sweep
 * values (issue 19, item 3): 4 times the size costs well under 16 times
 * the time (a name looked up by a linear search, an island built by a pass
 * over the whole scene, an integer's source line found by a scan from the
 * top, the study text parsed or copied for every scene each made it
 * quadratic).  CPU time, and the better of two loads, so
 * that a busy machine moves both alike; + 0.05 s for tiny times. */
START_TEST(test_load_near_linear)
{
  char *a = many_contacts(2500), *b = many_contacts(10000);
  double ta = load_seconds(a), tb = load_seconds(b);
  ck_assert_msg(tb < 8.0 * ta + 0.05, "2500 contacts load in %.3f s, 10000 in %.3f s", ta, tb);
  free(a);
  free(b);
  a = many_values(2500);
  b = many_values(10000);
  ta = load_seconds(a);
  tb = load_seconds(b);
  ck_assert_msg(tb < 8.0 * ta + 0.05, "2500 values load in %.3f s, 10000 in %.3f s", ta, tb);
  free(a);
  free(b);
}
END_TEST

/* A scene built through a study's document (parsed once) is the scene a
 * fresh parse gives: the same values, names and messages, scene after
 * scene, whatever the order. */
START_TEST(test_doc_scene_is_parsed_scene)
{
  vb_study *st = load(BASE "sweep = { mode = \"grid\"; params = (\n"
                           "  { path = \"contacts.hit.k\"; values = [1e8, 2.5e8, 7e7]; },\n"
                           "  { path = \"bodies.hammer.v0\"; linspace = [0.2, 1.4]; n = 5; },\n"
                           "  { path = \"contacts.hit.gap\"; values = [0.0, 1e-4]; } ); };\n");
  vb_study_doc *d;
  char err[1024];
  unsigned long x = 7;

  ck_assert_int_eq(vb_study_doc_open(st, &d, err, sizeof err), VB_OK);
  for (int k = 0; k < 60; k++) {
    long i = (long)((x = x * 6364136223846793005UL + 1442695040888963407UL) >> 33) % 30;
    vb_scene *a, *b;
    ck_assert_int_eq(vb_study_doc_scene(d, i, &a, err, sizeof err), VB_OK);
    ck_assert_int_eq(vb_study_scene(st, i, &b, err, sizeof err), VB_OK);
    ck_assert(a->contacts[0].law.k == b->contacts[0].law.k);
    ck_assert(a->contacts[0].law.k == vb_study_value(st, i, 0));
    ck_assert(a->bodies[0].v0 == b->bodies[0].v0 && a->bodies[0].u0 == b->bodies[0].u0);
    ck_assert(a->bodies[0].v0 == vb_study_value(st, i, 1));
    ck_assert(memcmp(&a->contacts[0].law, &b->contacts[0].law, sizeof a->contacts[0].law) == 0);
    ck_assert_str_eq(a->input, b->input);
    vb_scene_free(a);
    vb_scene_free(b);
  }
  ck_assert_int_eq(vb_study_doc_scene(d, 30, &(vb_scene *){NULL}, err, sizeof err), VB_EINVAL);
  ck_assert_str_eq(err, "study.cfg: no scene 30 (the study has 30)");
  vb_study_doc_free(d);
  vb_study_free(st);
}
END_TEST

static Suite *study_suite(void)
{
  Suite *s = suite_create("study");
  TCase *core = tcase_create("core"), *errors = tcase_create("errors"),
        *runner = tcase_create("runner");

  tcase_add_test(core, test_grid_order_and_values);
  tcase_add_test(core, test_swept_units);
  tcase_add_test(core, test_spaced_values_exact);
  tcase_add_test(core, test_random_splitmix);
  tcase_add_test(core, test_absent_keys_created);
  tcase_add_test(core, test_plain_scene_is_one);
  tcase_add_test(core, test_doc_scene_is_parsed_scene);
  tcase_add_test(runner, test_load_near_linear);
  tcase_add_loop_test(errors, test_bad_sweep, 0,
                      (int)(sizeof bad_sweeps / sizeof bad_sweeps[0]));
  tcase_add_test(errors, test_scene_loader_refuses_study);
  tcase_set_timeout(core, 60);
  tcase_set_timeout(errors, 60);
  tcase_set_timeout(runner, 60);
  tcase_add_test(runner, test_table_matches_single_runs);
  tcase_add_test(runner, test_plain_scene_table);
  tcase_add_test(runner, test_record_signals_file);
  tcase_add_test(runner, test_resume_other_input_refused);
  suite_add_tcase(s, core);
  suite_add_tcase(s, errors);
  suite_add_tcase(s, runner);
  return s;
}

int main(void)
{
  return tu_main(study_suite());
}
