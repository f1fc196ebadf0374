/* check_output.c - the HDF5 writer: layout "vibro-1", read back with the
 * HDF5 C API, and atomic replacement on success and failure. */

#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <hdf5.h>

#include "vibro.h"

#ifndef TEST_BUILDDIR
#define TEST_BUILDDIR "."
#endif

#define NEVENT_FIELDS 18
#define DIR_LEN 1024 /* test directories; paths in them fit PATH_MAX */

/* A mass hitting a rigid wall once. */
static const char hammer_text[] =
  "# a hammer hitting a wall\n"
  "scene = { name = \"t\"; fs = 44100.0; duration = 0.003; gravity = 0.0; };\n"
  "bodies = ( { name = \"hammer\"; type = \"mass\"; mass = 0.0137; u0 = -1.1e-5; v0 = 0.83; },\n"
  "           { name = \"wall\"; type = \"wall\"; position = 0.0; } );\n"
  "contacts = ( { name = \"hit\"; between = [\"hammer\", \"wall\"]; law = \"hunt-crossley\";\n"
  "               k = 2.2e8; alpha = 1.37; mu = 0.41; scheme = \"am1\"; } );\n"
  "record = { every = 1; };\n";

/* The same mass moving away from the wall: no impact. */
static const char away_text[] =
  "scene = { name = \"away\"; fs = 44100.0; duration = 0.003; gravity = 0.0; };\n"
  "bodies = ( { name = \"hammer\"; type = \"mass\"; mass = 0.0137; u0 = -1.1e-5; v0 = -0.83; },\n"
  "           { name = \"wall\"; type = \"wall\"; position = 0.0; } );\n"
  "contacts = ( { name = \"hit\"; between = [\"hammer\", \"wall\"]; law = \"hunt-crossley\";\n"
  "               k = 2.2e8; alpha = 1.37; mu = 0.41; scheme = \"am1\"; } );\n"
  "record = { every = 1; };\n";

/* The hammer over 3 s recorded every other step: 66151 samples, more
 * than one chunk (65536) and one block of times. */
static const char long_text[] =
  "scene = { name = \"long\"; fs = 44100.0; duration = 3.0; gravity = 0.0; };\n"
  "bodies = ( { name = \"hammer\"; type = \"mass\"; mass = 0.0137; u0 = -1.1e-5; v0 = 0.83; },\n"
  "           { name = \"wall\"; type = \"wall\"; position = 0.0; } );\n"
  "contacts = ( { name = \"hit\"; between = [\"hammer\", \"wall\"]; law = \"hunt-crossley\";\n"
  "               k = 2.2e8; alpha = 1.37; mu = 0.41; scheme = \"am1\"; } );\n"
  "record = { every = 2; };\n";

static const char event_units[] =
  "t_on:s t_off:s duration:s v_in:m/s v_out:m/s x_max:m peak_force:N x_max_pred:m "
  "v_out_pred:m/s v_out_exact:m/s duration_pred:s energy_before:J energy_after:J "
  "energy_correction:J newton_iterations_max:1 fallbacks:1 samples:1 corrections:1";

/* The fields of /events, as this test expects them. */
static const struct {
  const char *name;
  size_t offset;
  int is_int;
} fields[NEVENT_FIELDS] = {
  { "t_on", HOFFSET(vb_event, t_on), 0 },
  { "t_off", HOFFSET(vb_event, t_off), 0 },
  { "duration", HOFFSET(vb_event, duration), 0 },
  { "v_in", HOFFSET(vb_event, v_in), 0 },
  { "v_out", HOFFSET(vb_event, v_out), 0 },
  { "x_max", HOFFSET(vb_event, x_max), 0 },
  { "peak_force", HOFFSET(vb_event, peak_force), 0 },
  { "x_max_pred", HOFFSET(vb_event, x_max_pred), 0 },
  { "v_out_pred", HOFFSET(vb_event, v_out_pred), 0 },
  { "v_out_exact", HOFFSET(vb_event, v_out_exact), 0 },
  { "duration_pred", HOFFSET(vb_event, duration_pred), 0 },
  { "energy_before", HOFFSET(vb_event, energy_before), 0 },
  { "energy_after", HOFFSET(vb_event, energy_after), 0 },
  { "energy_correction", HOFFSET(vb_event, energy_correction), 0 },
  { "newton_iterations_max", HOFFSET(vb_event, newton_iterations_max), 1 },
  { "fallbacks", HOFFSET(vb_event, fallbacks), 1 },
  { "samples", HOFFSET(vb_event, samples), 1 },
  { "corrections", HOFFSET(vb_event, corrections), 1 },
};

/* ------------------------------------------------------------ helpers */

/* Load a scene from text, run it and require status "done". */
static void run_scene(const char *text, const char *name, vb_scene **scene, vb_run **run)
{
  char err[512] = "";
  int rc;

  rc = vb_scene_load_string(text, name, scene, err, sizeof err);
  ck_assert_msg(rc == VB_OK, "scene: %s", err);
  rc = vb_run_alloc(*scene, run, err, sizeof err);
  ck_assert_msg(rc == VB_OK, "alloc: %s", err);
  rc = vb_run_exec(*run);
  ck_assert_msg(rc == VB_OK, "run: %s", vb_run_status(*run));
}

/* Make a fresh, unique directory in the build tree. */
static void make_dir(char *dir, size_t n)
{
  snprintf(dir, n, "%s/tests/check_output.XXXXXX", TEST_BUILDDIR);
  ck_assert_msg(mkdtemp(dir) != NULL, "mkdtemp %s: %s", dir, strerror(errno));
}

/* Number of entries of a directory, "." and ".." aside. */
static int dir_entries(const char *dir)
{
  DIR *d = opendir(dir);
  struct dirent *e;
  int n = 0;

  ck_assert_ptr_nonnull(d);
  while ((e = readdir(d)) != NULL)
    if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
      n++;
  closedir(d);
  return n;
}

/* Remove a directory made by make_dir and the files and empty
 * directories in it. */
static void remove_dir(const char *dir)
{
  DIR *d = opendir(dir);
  struct dirent *e;
  char p[PATH_MAX];

  if (!d)
    return;
  while ((e = readdir(d)) != NULL) {
    if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
      continue;
    snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
    if (remove(p) != 0)
      rmdir(p);
  }
  closedir(d);
  rmdir(dir);
}

/* 1 if path exists. */
static int exists(const char *path)
{
  struct stat st;
  return stat(path, &st) == 0;
}

/* A variable-length UTF-8 string attribute of an object, malloc'd. */
static char *attr_str(hid_t obj, const char *name)
{
  hid_t attr, type, space;
  char *value = NULL, *copy;

  attr = H5Aopen(obj, name, H5P_DEFAULT);
  ck_assert_msg(attr >= 0, "no attribute %s", name);
  type = H5Aget_type(attr);
  ck_assert_int_ge(type, 0);
  ck_assert_int_eq(H5Tget_class(type), H5T_STRING);
  ck_assert_msg(H5Tis_variable_str(type) > 0, "attribute %s is not variable-length", name);
  ck_assert_int_eq(H5Tget_cset(type), H5T_CSET_UTF8);
  ck_assert_int_ge(H5Aread(attr, type, &value), 0);
  ck_assert_ptr_nonnull(value);
  copy = strdup(value);
  ck_assert_ptr_nonnull(copy);
  space = H5Aget_space(attr);
  H5Dvlen_reclaim(type, space, H5P_DEFAULT, &value);
  H5Sclose(space);
  H5Tclose(type);
  H5Aclose(attr);
  return copy;
}

/* Require a string attribute to equal `expected`. */
static void check_str(hid_t obj, const char *name, const char *expected)
{
  char *s = attr_str(obj, name);
  ck_assert_msg(strcmp(s, expected) == 0, "attribute %s = \"%s\", expected \"%s\"", name,
                s, expected);
  free(s);
}

/* A float64 attribute. */
static double attr_dbl(hid_t obj, const char *name)
{
  hid_t attr, type;
  double v = NAN;

  attr = H5Aopen(obj, name, H5P_DEFAULT);
  ck_assert_msg(attr >= 0, "no attribute %s", name);
  type = H5Aget_type(attr);
  ck_assert_int_eq(H5Tget_class(type), H5T_FLOAT);
  ck_assert_uint_eq(H5Tget_size(type), 8);
  ck_assert_int_ge(H5Aread(attr, H5T_NATIVE_DOUBLE, &v), 0);
  H5Tclose(type);
  H5Aclose(attr);
  return v;
}

/* An int64 attribute. */
static long long attr_i64(hid_t obj, const char *name)
{
  hid_t attr, type;
  long long v = -1;

  attr = H5Aopen(obj, name, H5P_DEFAULT);
  ck_assert_msg(attr >= 0, "no attribute %s", name);
  type = H5Aget_type(attr);
  ck_assert_int_eq(H5Tget_class(type), H5T_INTEGER);
  ck_assert_uint_eq(H5Tget_size(type), 8);
  ck_assert_int_ge(H5Aread(attr, H5T_NATIVE_LLONG, &v), 0);
  H5Tclose(type);
  H5Aclose(attr);
  return v;
}

/* Open a 1-d dataset, require n elements, the units and, when n > 0,
 * chunking with shuffle and deflate.  The caller closes it. */
static hid_t open_dataset(hid_t file, const char *path, long n, const char *units)
{
  hid_t ds, space, dcpl;
  hsize_t dims[1], chunk[1];
  unsigned flags;
  size_t nelmts = 0;
  unsigned cd[8];
  unsigned filter_config;

  ds = H5Dopen2(file, path, H5P_DEFAULT);
  ck_assert_msg(ds >= 0, "no dataset %s", path);
  space = H5Dget_space(ds);
  ck_assert_int_eq(H5Sget_simple_extent_ndims(space), 1);
  H5Sget_simple_extent_dims(space, dims, NULL);
  ck_assert_msg(dims[0] == (hsize_t)n, "%s has %llu elements, expected %ld", path,
                (unsigned long long)dims[0], n);
  H5Sclose(space);
  check_str(ds, "units", units);
  if (n > 0) {
    dcpl = H5Dget_create_plist(ds);
    ck_assert_int_eq(H5Pget_layout(dcpl), H5D_CHUNKED);
    ck_assert_int_eq(H5Pget_chunk(dcpl, 1, chunk), 1);
    ck_assert_uint_ge(chunk[0], 1);
    ck_assert_uint_le(chunk[0], (hsize_t)n);
    ck_assert_uint_le(chunk[0], 65536);
    nelmts = 8;
    ck_assert_int_ge(H5Pget_filter_by_id2(dcpl, H5Z_FILTER_SHUFFLE, &flags, &nelmts, cd,
                                          0, NULL, &filter_config), 0);
    nelmts = 8;
    ck_assert_int_ge(H5Pget_filter_by_id2(dcpl, H5Z_FILTER_DEFLATE, &flags, &nelmts, cd,
                                          0, NULL, &filter_config), 0);
    H5Pclose(dcpl);
  }
  return ds;
}

/* Require a float64 dataset to hold exactly (bit for bit) `expected`. */
static void check_doubles(hid_t file, const char *path, const double *expected, long n,
                          const char *units)
{
  hid_t ds = open_dataset(file, path, n, units), type;
  double *buf;
  long i;

  type = H5Dget_type(ds);
  ck_assert_int_eq(H5Tget_class(type), H5T_FLOAT);
  ck_assert_uint_eq(H5Tget_size(type), 8);
  H5Tclose(type);
  buf = calloc((size_t)(n > 0 ? n : 1), sizeof *buf);
  ck_assert_ptr_nonnull(buf);
  if (n > 0) {
    ck_assert_ptr_nonnull(expected);
    ck_assert_int_ge(H5Dread(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf), 0);
    for (i = 0; i < n; i++)
      ck_assert_msg(memcmp(&buf[i], &expected[i], sizeof(double)) == 0,
                    "%s[%ld] = %.17g, expected %.17g", path, i, buf[i], expected[i]);
  }
  free(buf);
  H5Dclose(ds);
}

/* The memory type of vb_event, built here from the field table. */
static hid_t event_mtype(void)
{
  hid_t t = H5Tcreate(H5T_COMPOUND, sizeof(vb_event));
  int i;

  ck_assert_int_ge(t, 0);
  for (i = 0; i < NEVENT_FIELDS; i++)
    ck_assert_int_ge(H5Tinsert(t, fields[i].name, fields[i].offset,
                               fields[i].is_int ? H5T_NATIVE_INT : H5T_NATIVE_DOUBLE), 0);
  return t;
}

/* Require /events of a contact to hold exactly the result's events. */
static void check_events(hid_t file, const char *path, const vb_contact_result *res)
{
  hid_t ds = open_dataset(file, path, res->nevents, event_units), ftype, mtype, member;
  vb_event *buf;
  long i;
  int f, idx;

  ftype = H5Dget_type(ds);
  ck_assert_int_eq(H5Tget_class(ftype), H5T_COMPOUND);
  ck_assert_int_eq(H5Tget_nmembers(ftype), NEVENT_FIELDS);
  ck_assert_uint_eq(H5Tget_size(ftype), 14 * 8 + 4 * 4); /* packed */
  for (f = 0; f < NEVENT_FIELDS; f++) {
    idx = H5Tget_member_index(ftype, fields[f].name);
    ck_assert_msg(idx >= 0, "%s has no field %s", path, fields[f].name);
    member = H5Tget_member_type(ftype, (unsigned)idx);
    ck_assert_int_eq(H5Tget_class(member), fields[f].is_int ? H5T_INTEGER : H5T_FLOAT);
    ck_assert_uint_eq(H5Tget_size(member), fields[f].is_int ? 4 : 8);
    H5Tclose(member);
  }
  H5Tclose(ftype);

  mtype = event_mtype();
  buf = calloc((size_t)(res->nevents > 0 ? res->nevents : 1), sizeof *buf);
  ck_assert_ptr_nonnull(buf);
  if (res->nevents > 0)
    ck_assert_int_ge(H5Dread(ds, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf), 0);
  for (i = 0; i < res->nevents; i++)
    for (f = 0; f < NEVENT_FIELDS; f++)
      ck_assert_msg(memcmp((const char *)&buf[i] + fields[f].offset,
                           (const char *)&res->events[i] + fields[f].offset,
                           fields[f].is_int ? sizeof(int) : sizeof(double)) == 0,
                    "%s[%ld].%s differs", path, i, fields[f].name);
  free(buf);
  H5Tclose(mtype);
  H5Dclose(ds);
}

/* Require /scenes/NNNNNN to describe `run` completely. */
static void check_scene(hid_t file, int index, const vb_run *run)
{
  const vb_scene *sc = vb_run_scene(run);
  long n = vb_run_samples(run), k;
  char base[64], p[256];
  hid_t g, ds;
  double *t;
  int i;
  static const char *const energy[6] = { "total", "kinetic", "potential", "dissipated",
                                         "external", "correction" };

  snprintf(base, sizeof base, "/scenes/%06d", index);
  g = H5Gopen2(file, base, H5P_DEFAULT);
  ck_assert_msg(g >= 0, "no group %s", base);
  check_str(g, "name", sc->name);
  ck_assert(attr_dbl(g, "fs") == sc->fs);
  ck_assert(attr_dbl(g, "duration") == sc->duration);
  ck_assert(attr_dbl(g, "gravity") == sc->gravity);
  ck_assert_int_eq(attr_i64(g, "record_every"), sc->record_every);
  ck_assert_int_eq(attr_i64(g, "steps"), vb_scene_steps(sc));
  check_str(g, "status", vb_run_status(run));
  ck_assert(attr_dbl(g, "energy_balance_error") == vb_run_balance_error(run));
  H5Gclose(g);

  /* time */
  snprintf(p, sizeof p, "%s/time", base);
  ds = open_dataset(file, p, n, "s");
  t = calloc((size_t)n + 1, sizeof *t);
  ck_assert_ptr_nonnull(t);
  if (n > 0)
    ck_assert_int_ge(H5Dread(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, t), 0);
  for (k = 0; k < n; k++) {
    double want = (double)k * (double)sc->record_every / sc->fs;
    ck_assert_msg(fabs(t[k] - want) <= 1e-12 * fabs(want), "time[%ld] = %.17g, expected %.17g",
                  k, t[k], want);
  }
  free(t);
  H5Dclose(ds);

  /* bodies */
  for (i = 0; i < sc->nbodies; i++) {
    const vb_body *b = &sc->bodies[i];
    snprintf(p, sizeof p, "%s/bodies/%s", base, b->name);
    g = H5Gopen2(file, p, H5P_DEFAULT);
    ck_assert_msg(g >= 0, "no group %s", p);
    check_str(g, "type", b->kind == VB_BODY_WALL ? "wall" : "mass");
    if (b->kind == VB_BODY_MASS)
      ck_assert(attr_dbl(g, "mass") == b->mass);
    H5Gclose(g);
    snprintf(p, sizeof p, "%s/bodies/%s/u", base, b->name);
    check_doubles(file, p, vb_run_body_u(run, i), n, "m");
    snprintf(p, sizeof p, "%s/bodies/%s/v", base, b->name);
    check_doubles(file, p, vb_run_body_v(run, i), n, "m/s");
  }

  /* contacts */
  for (i = 0; i < sc->ncontacts; i++) {
    const vb_contact *c = &sc->contacts[i];
    const vb_contact_result *res = vb_run_contact(run, i);
    ck_assert_ptr_nonnull(res);
    snprintf(p, sizeof p, "%s/contacts/%s", base, c->name);
    g = H5Gopen2(file, p, H5P_DEFAULT);
    ck_assert_msg(g >= 0, "no group %s", p);
    check_str(g, "law", vb_law_name(c->law.kind));
    check_str(g, "scheme", c->scheme->name);
    ck_assert(attr_dbl(g, "k") == c->law.k);
    ck_assert(attr_dbl(g, "alpha") == c->law.alpha);
    ck_assert(attr_dbl(g, "mu") == c->law.mu);
    ck_assert(attr_dbl(g, "h") == c->law.h);
    ck_assert(attr_dbl(g, "gap") == c->gap);
    ck_assert_int_eq(attr_i64(g, "newton_failures"), res->newton_failures);
    ck_assert_int_eq(attr_i64(g, "fallbacks"), res->fallbacks);
    ck_assert_int_eq(attr_i64(g, "newton_iterations"), res->iterations);
    H5Gclose(g);
    snprintf(p, sizeof p, "%s/contacts/%s/compression", base, c->name);
    check_doubles(file, p, res->compression, n, "m");
    snprintf(p, sizeof p, "%s/contacts/%s/force", base, c->name);
    check_doubles(file, p, res->force, n, "N");
    snprintf(p, sizeof p, "%s/contacts/%s/events", base, c->name);
    check_events(file, p, res);
  }

  /* energy */
  for (i = 0; i < 6; i++) {
    snprintf(p, sizeof p, "%s/energy/%s", base, energy[i]);
    check_doubles(file, p, vb_run_energy(run, i), n, "J");
  }
}

/* Open a written file and check the root attributes. */
static hid_t open_output(const char *path, const vb_scene *first)
{
  hid_t file;
  char *input;

  ck_assert_int_gt(H5Fis_hdf5(path), 0);
  file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  ck_assert_msg(file >= 0, "cannot open %s", path);
  check_str(file, "format", "vibro-1");
  check_str(file, "vibro_version", vb_version());
  check_str(file, "source", first->path);
  input = attr_str(file, "input");
  ck_assert_uint_eq(strlen(input), strlen(first->input));
  ck_assert(memcmp(input, first->input, strlen(first->input)) == 0);
  free(input);
  return file;
}

/* Require that no HDF5 file or object in one is open (all the files
 * the test has open are closed when it checks). */
static void check_no_open_ids(void)
{
  ck_assert_int_eq(H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_ALL), 0);
}

/* Write runs into a fresh directory as out.h5; return the file's path. */
static void write_ok(char *dir, size_t dirlen, char *path, size_t pathlen,
                     const vb_run *const *runs, int nruns)
{
  char err[512] = "", part[PATH_MAX + 16];
  int rc;

  make_dir(dir, dirlen);
  snprintf(path, pathlen, "%s/out.h5", dir);
  rc = vb_output_write(path, runs, nruns, err, sizeof err);
  ck_assert_msg(rc == VB_OK, "vb_output_write: %d %s", rc, err);
  check_no_open_ids(); /* every file and object it opened is closed */
  ck_assert(exists(path));
  snprintf(part, sizeof part, "%s.part", path);
  ck_assert(!exists(part));
  ck_assert_int_eq(dir_entries(dir), 1);
}

/* --------------------------------------------------------------- core */

/* One impact: every dataset, attribute and event row reads back. */
START_TEST(test_layout)
{
  vb_scene *scene;
  vb_run *run;
  char dir[DIR_LEN], path[PATH_MAX];
  hid_t file;

  run_scene(hammer_text, "hammer.cfg", &scene, &run);
  ck_assert_int_gt(vb_run_samples(run), 1);
  ck_assert_int_ge(vb_run_contact(run, 0)->nevents, 1);
  ck_assert_str_eq(vb_run_status(run), "done");

  write_ok(dir, sizeof dir, path, sizeof path, (const vb_run *const *)&run, 1);
  file = open_output(path, scene);
  ck_assert_str_eq(scene->input, hammer_text);
  check_scene(file, 0, run);
  /* the status of the one run, as text */
  {
    hid_t g = H5Gopen2(file, "/scenes/000000", H5P_DEFAULT);
    check_str(g, "status", "done");
    H5Gclose(g);
  }
  ck_assert_int_le(H5Lexists(file, "/scenes/000001", H5P_DEFAULT), 0);
  ck_assert_int_eq(H5Fget_obj_count(file, H5F_OBJ_ALL), 1); /* the test closed all */
  H5Fclose(file);

  remove_dir(dir);
  vb_run_free(run);
  vb_scene_free(scene);
}
END_TEST

/* No impact: /events exists with 0 rows and the full compound type. */
START_TEST(test_no_events)
{
  vb_scene *scene;
  vb_run *run;
  char dir[DIR_LEN], path[PATH_MAX];
  hid_t file;

  run_scene(away_text, "away.cfg", &scene, &run);
  ck_assert_int_eq(vb_run_contact(run, 0)->nevents, 0);
  write_ok(dir, sizeof dir, path, sizeof path, (const vb_run *const *)&run, 1);
  file = open_output(path, scene);
  check_scene(file, 0, run);
  H5Fclose(file);

  remove_dir(dir);
  vb_run_free(run);
  vb_scene_free(scene);
}
END_TEST

/* Two runs: two scene groups; the root input is the first run's. */
START_TEST(test_two_runs)
{
  vb_scene *s1, *s2;
  vb_run *runs[2];
  char dir[DIR_LEN], path[PATH_MAX];
  hid_t file;

  run_scene(hammer_text, "hammer.cfg", &s1, &runs[0]);
  run_scene(away_text, "away.cfg", &s2, &runs[1]);
  write_ok(dir, sizeof dir, path, sizeof path, (const vb_run *const *)runs, 2);
  file = open_output(path, s1);
  check_scene(file, 0, runs[0]);
  check_scene(file, 1, runs[1]);
  ck_assert_int_le(H5Lexists(file, "/scenes/000002", H5P_DEFAULT), 0);
  H5Fclose(file);

  remove_dir(dir);
  vb_run_free(runs[1]);
  vb_run_free(runs[0]);
  vb_scene_free(s2);
  vb_scene_free(s1);
}
END_TEST

/* An existing file is replaced; nothing else is left in the directory. */
START_TEST(test_overwrite)
{
  vb_scene *scene;
  vb_run *run;
  char dir[DIR_LEN], path[PATH_MAX], err[512] = "";
  hid_t file;
  FILE *fp;

  run_scene(hammer_text, "hammer.cfg", &scene, &run);
  write_ok(dir, sizeof dir, path, sizeof path, (const vb_run *const *)&run, 1);
  remove(path);
  fp = fopen(path, "w");
  ck_assert_ptr_nonnull(fp);
  fputs("not an HDF5 file\n", fp);
  fclose(fp);
  ck_assert_int_le(H5Fis_hdf5(path), 0);

  ck_assert_int_eq(vb_output_write(path, (const vb_run *const *)&run, 1, err, sizeof err),
                   VB_OK);
  ck_assert_int_eq(dir_entries(dir), 1);
  file = open_output(path, scene);
  check_scene(file, 0, run);
  H5Fclose(file);

  remove_dir(dir);
  vb_run_free(run);
  vb_scene_free(scene);
}
END_TEST

/* A recording longer than one chunk: values, times, chunk size. */
START_TEST(test_long)
{
  vb_scene *scene;
  vb_run *run;
  char dir[DIR_LEN], path[PATH_MAX];
  hid_t file, ds, dcpl;
  hsize_t chunk[1];

  run_scene(long_text, "long.cfg", &scene, &run);
  ck_assert_int_eq(scene->record_every, 2);
  ck_assert_int_gt(vb_run_samples(run), 65536);
  write_ok(dir, sizeof dir, path, sizeof path, (const vb_run *const *)&run, 1);
  file = open_output(path, scene);
  check_scene(file, 0, run);
  ds = H5Dopen2(file, "/scenes/000000/bodies/hammer/u", H5P_DEFAULT);
  ck_assert_int_ge(ds, 0);
  dcpl = H5Dget_create_plist(ds);
  ck_assert_int_eq(H5Pget_chunk(dcpl, 1, chunk), 1);
  ck_assert_uint_eq(chunk[0], 65536);
  H5Pclose(dcpl);
  H5Dclose(ds);
  H5Fclose(file);

  remove_dir(dir);
  vb_run_free(run);
  vb_scene_free(scene);
}
END_TEST

/* The chunks made ahead of writing are the ones HDF5's own filter
 * pipeline makes from the same values (shuffle, then deflate level 4),
 * the zero-padded partial last chunk included, stored with filter mask 0. */
START_TEST(test_chunks_as_hdf5)
{
  static const char *const names[] = { "time", "bodies/hammer/u", "bodies/wall/v",
                                        "contacts/hit/force", "energy/dissipated" };
  vb_scene *scene;
  vb_run *run;
  char dir[DIR_LEN], path[PATH_MAX], ref_path[PATH_MAX], name[128];
  hid_t file, ref, ds, rds, space, dcpl;
  hsize_t chunk[1], off[1], size, rsize;
  hssize_t n;
  unsigned flags, cd[4];
  size_t ncd;
  uint32_t mask, rmask;
  unsigned char *buf, *rbuf;
  double *data;
  long k, nchunks;
  size_t i;

  run_scene(long_text, "long.cfg", &scene, &run);
  write_ok(dir, sizeof dir, path, sizeof path, (const vb_run *const *)&run, 1);
  snprintf(ref_path, sizeof ref_path, "%s/ref.h5", dir);
  file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  ref = H5Fcreate(ref_path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  ck_assert_int_ge(file, 0);
  ck_assert_int_ge(ref, 0);
  for (i = 0; i < sizeof names / sizeof names[0]; i++) {
    snprintf(name, sizeof name, "/scenes/000000/%s", names[i]);
    ds = H5Dopen2(file, name, H5P_DEFAULT);
    ck_assert_msg(ds >= 0, "no %s", name);
    space = H5Dget_space(ds);
    n = H5Sget_simple_extent_npoints(space);
    ck_assert_int_eq(n, vb_run_samples(run));
    dcpl = H5Dget_create_plist(ds);
    ck_assert_int_eq(H5Pget_chunk(dcpl, 1, chunk), 1);
    ck_assert_uint_eq(chunk[0], 65536);
    ck_assert_int_eq(H5Pget_nfilters(dcpl), 2);
    ncd = 4;
    ck_assert_int_eq(H5Pget_filter2(dcpl, 0, &flags, &ncd, cd, 0, NULL, NULL),
                     H5Z_FILTER_SHUFFLE);
    ncd = 4;
    ck_assert_int_eq(H5Pget_filter2(dcpl, 1, &flags, &ncd, cd, 0, NULL, NULL),
                     H5Z_FILTER_DEFLATE);
    ck_assert_uint_eq(ncd, 1);
    ck_assert_uint_eq(cd[0], 4);
    /* the same values through H5Dwrite and the filters, in another file */
    data = malloc((size_t)n * sizeof *data);
    ck_assert_ptr_nonnull(data);
    ck_assert_int_ge(H5Dread(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, data), 0);
    rds = H5Dcreate2(ref, "x", H5T_IEEE_F64LE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    ck_assert_int_ge(rds, 0);
    ck_assert_int_ge(H5Dwrite(rds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, data), 0);
    ck_assert_int_ge(H5Dclose(rds), 0);
    rds = H5Dopen2(ref, "x", H5P_DEFAULT);
    nchunks = (long)((n + 65535) / 65536);
    ck_assert_int_eq(nchunks, 2);
    for (k = 0; k < nchunks; k++) {
      off[0] = (hsize_t)k * 65536;
      ck_assert_int_ge(H5Dget_chunk_storage_size(ds, off, &size), 0);
      ck_assert_int_ge(H5Dget_chunk_storage_size(rds, off, &rsize), 0);
      ck_assert_msg(size == rsize, "%s chunk %ld: %llu bytes, HDF5 makes %llu", name, k,
                    (unsigned long long)size, (unsigned long long)rsize);
      ck_assert_uint_lt(size, 65536 * 8); /* compressed */
      buf = malloc(size);
      rbuf = malloc(rsize);
      ck_assert_ptr_nonnull(buf);
      ck_assert_ptr_nonnull(rbuf);
      mask = rmask = 99;
      ck_assert_int_ge(H5Dread_chunk(ds, H5P_DEFAULT, off, &mask, buf), 0);
      ck_assert_int_ge(H5Dread_chunk(rds, H5P_DEFAULT, off, &rmask, rbuf), 0);
      ck_assert_uint_eq(mask, 0);
      ck_assert_uint_eq(rmask, 0);
      ck_assert_msg(memcmp(buf, rbuf, size) == 0, "%s chunk %ld differs from HDF5's", name, k);
      free(buf);
      free(rbuf);
    }
    ck_assert_int_ge(H5Dclose(rds), 0);
    ck_assert_int_ge(H5Ldelete(ref, "x", H5P_DEFAULT), 0);
    free(data);
    H5Pclose(dcpl);
    H5Sclose(space);
    H5Dclose(ds);
  }
  H5Fclose(ref);
  H5Fclose(file);

  remove_dir(dir);
  vb_run_free(run);
  vb_scene_free(scene);
}
END_TEST

/* A scene text over 64 KiB still fits the input attribute. */
START_TEST(test_large_input)
{
  vb_scene *scene;
  vb_run *run;
  char dir[DIR_LEN], path[PATH_MAX];
  size_t pad = 100000, len = strlen(hammer_text);
  char *text = malloc(len + pad + 8);
  hid_t file;

  ck_assert_ptr_nonnull(text);
  memcpy(text, hammer_text, len);
  text[len] = '#';
  memset(text + len + 1, 'x', pad);
  strcpy(text + len + 1 + pad, "\n");
  run_scene(text, "long.cfg", &scene, &run);
  ck_assert_uint_gt(strlen(scene->input), 65536);
  write_ok(dir, sizeof dir, path, sizeof path, (const vb_run *const *)&run, 1);
  file = open_output(path, scene);
  H5Fclose(file);

  remove_dir(dir);
  vb_run_free(run);
  vb_scene_free(scene);
  free(text);
}
END_TEST

/* ------------------------------------------------------------- errors */

/* A missing directory: VB_EIO naming the path, nothing left behind. */
START_TEST(test_missing_dir)
{
  vb_scene *scene;
  vb_run *run;
  char dir[DIR_LEN], path[PATH_MAX], part[PATH_MAX + 16], err[512] = "";
  H5E_auto2_t before_func, after_func;
  void *before_data, *after_data;

  run_scene(hammer_text, "hammer.cfg", &scene, &run);
  make_dir(dir, sizeof dir);
  snprintf(path, sizeof path, "%s/no/such/dir/out.h5", dir);
  snprintf(part, sizeof part, "%s.part", path);
  H5Eget_auto2(H5E_DEFAULT, &before_func, &before_data);
  ck_assert_int_eq(vb_output_write(path, (const vb_run *const *)&run, 1, err, sizeof err),
                   VB_EIO);
  H5Eget_auto2(H5E_DEFAULT, &after_func, &after_data);
  check_no_open_ids();
  ck_assert_msg(strstr(err, path) != NULL, "message \"%s\" does not name %s", err, path);
  ck_assert(!exists(path));
  ck_assert(!exists(part));
  ck_assert_int_eq(dir_entries(dir), 0);
  /* HDF5's automatic error printing is as it was */
  ck_assert(before_func == after_func && before_data == after_data);

  remove_dir(dir);
  vb_run_free(run);
  vb_scene_free(scene);
}
END_TEST

/* The destination is a directory: the rename fails after a complete
 * write; VB_EIO, and the .part file is removed. */
START_TEST(test_rename_fails)
{
  vb_scene *scene;
  vb_run *run;
  char dir[DIR_LEN], path[PATH_MAX], part[PATH_MAX + 16], err[512] = "";
  struct stat st;

  run_scene(hammer_text, "hammer.cfg", &scene, &run);
  make_dir(dir, sizeof dir);
  snprintf(path, sizeof path, "%s/taken", dir);
  snprintf(part, sizeof part, "%s.part", path);
  ck_assert_int_eq(mkdir(path, 0700), 0);
  snprintf(path + strlen(path), sizeof path - strlen(path), "%s", "/inner");
  ck_assert_int_eq(mkdir(path, 0700), 0); /* non-empty: rename cannot replace it */
  path[strlen(path) - strlen("/inner")] = '\0';
  ck_assert_int_eq(vb_output_write(path, (const vb_run *const *)&run, 1, err, sizeof err),
                   VB_EIO);
  check_no_open_ids();
  ck_assert_msg(strstr(err, path) != NULL, "message \"%s\" does not name %s", err, path);
  ck_assert(stat(path, &st) == 0 && S_ISDIR(st.st_mode));
  ck_assert(!exists(part));
  ck_assert_int_eq(dir_entries(dir), 1);

  snprintf(part, sizeof part, "%s/inner", path);
  rmdir(part);
  remove_dir(dir);
  vb_run_free(run);
  vb_scene_free(scene);
}
END_TEST

/* A failure in the middle of the file (two bodies of one name, forced
 * into the loaded scene): VB_EIO, everything closed, no .part left. */
START_TEST(test_mid_write_fails)
{
  vb_scene *scene;
  vb_run *run;
  char dir[DIR_LEN], path[PATH_MAX], err[512] = "", saved[VB_NAME_MAX];

  run_scene(hammer_text, "hammer.cfg", &scene, &run);
  ck_assert_int_eq(scene->nbodies, 2);
  make_dir(dir, sizeof dir);
  snprintf(path, sizeof path, "%s/out.h5", dir);
  memcpy(saved, scene->bodies[1].name, sizeof saved);
  memcpy(scene->bodies[1].name, scene->bodies[0].name, sizeof saved);
  ck_assert_int_eq(vb_output_write(path, (const vb_run *const *)&run, 1, err, sizeof err),
                   VB_EIO);
  check_no_open_ids();
  ck_assert_msg(strstr(err, path) != NULL, "message \"%s\" does not name %s", err, path);
  ck_assert_msg(strstr(err, "hammer") != NULL, "message \"%s\" does not name the body", err);
  ck_assert_int_eq(dir_entries(dir), 0);
  memcpy(scene->bodies[1].name, saved, sizeof saved);

  remove_dir(dir);
  vb_run_free(run);
  vb_scene_free(scene);
}
END_TEST

/* Invalid arguments: VB_EINVAL and no file. */
START_TEST(test_bad_args)
{
  vb_scene *scene;
  vb_run *run;
  const vb_run *runs[2];
  char dir[DIR_LEN], path[PATH_MAX], err[512];

  run_scene(hammer_text, "hammer.cfg", &scene, &run);
  make_dir(dir, sizeof dir);
  snprintf(path, sizeof path, "%s/out.h5", dir);
  runs[0] = run;
  runs[1] = NULL;
  ck_assert_int_eq(vb_output_write(path, runs, 0, err, sizeof err), VB_EINVAL);
  ck_assert_int_eq(vb_output_write(path, NULL, 1, err, sizeof err), VB_EINVAL);
  ck_assert_int_eq(vb_output_write(NULL, runs, 1, err, sizeof err), VB_EINVAL);
  ck_assert_int_eq(vb_output_write("", runs, 1, err, sizeof err), VB_EINVAL);
  ck_assert_int_eq(vb_output_write(path, runs, 2, err, sizeof err), VB_EINVAL);
  ck_assert_uint_gt(strlen(err), 0);
  ck_assert_int_eq(dir_entries(dir), 0);

  remove_dir(dir);
  vb_run_free(run);
  vb_scene_free(scene);
}
END_TEST

/* A short or absent message buffer is respected. */
START_TEST(test_short_err)
{
  vb_scene *scene;
  vb_run *run;
  char dir[DIR_LEN], path[PATH_MAX], err[16];

  run_scene(hammer_text, "hammer.cfg", &scene, &run);
  make_dir(dir, sizeof dir);
  snprintf(path, sizeof path, "%s/missing/out.h5", dir);
  memset(err, 'z', sizeof err);
  ck_assert_int_eq(vb_output_write(path, (const vb_run *const *)&run, 1, err, 8), VB_EIO);
  ck_assert_uint_eq(strlen(err), 7);
  ck_assert_int_eq(err[8], 'z');
  ck_assert_int_eq(vb_output_write(path, (const vb_run *const *)&run, 1, NULL, 0), VB_EIO);
  ck_assert_int_eq(dir_entries(dir), 0);

  remove_dir(dir);
  vb_run_free(run);
  vb_scene_free(scene);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("output");
  TCase *core = tcase_create("core");
  TCase *errors = tcase_create("errors");
  tcase_set_timeout(core, 60);
  tcase_set_timeout(errors, 60);
  SRunner *sr;
  int failed;

  tcase_add_test(core, test_layout);
  tcase_add_test(core, test_no_events);
  tcase_add_test(core, test_two_runs);
  tcase_add_test(core, test_overwrite);
  tcase_add_test(core, test_long);
  tcase_add_test(core, test_chunks_as_hdf5);
  tcase_add_test(core, test_large_input);
  suite_add_tcase(s, core);

  tcase_add_test(errors, test_missing_dir);
  tcase_add_test(errors, test_rename_fails);
  tcase_add_test(errors, test_mid_write_fails);
  tcase_add_test(errors, test_bad_args);
  tcase_add_test(errors, test_short_err);
  suite_add_tcase(s, errors);

  sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
