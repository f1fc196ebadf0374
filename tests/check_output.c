/* check_output.c - the vibro-3 writer (doc/format.md): the layout read
 * back with the HDF5 C API, values equal to the run's, units, dimension
 * scales, the events table, padding, and the shard directory's safety:
 * verification on resume, torn manifest lines, locks, symlinks. */

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <hdf5.h>
#include <hdf5_hl.h>

#include <zlib.h>

#include "vibro.h"
#include "output/output.h"
#include "run/run.h"
#include "h5table.h"
#include "testutil.h"

#ifndef TEST_BUILDDIR
#define TEST_BUILDDIR "."
#endif

/* A mass hitting a rigid wall once. */
static const char hammer_text[] =
  "scene = { name = \"t\"; fs = 44100.0; duration = 0.003; gravity = 0.0; };\n"
  "bodies = ( { name = \"hammer\"; type = \"mass\"; mass = 0.0137; u0 = -1.1e-5; v0 = 0.83; },\n"
  "           { name = \"wall\"; type = \"wall\"; position = 0.0; } );\n"
  "contacts = ( { name = \"hit\"; between = [\"hammer\", \"wall\"]; law = \"hunt-crossley\";\n"
  "               k = 2.2e8; alpha = 1.37; mu = 0.41; scheme = \"am1\"; } );\n"
  "record = { every = 1; signals = [\"*\"]; };\n";

/* The same, longer and recorded every other step: more samples. */
static const char longer_text[] =
  "scene = { name = \"t\"; fs = 44100.0; duration = 0.0071; gravity = 0.0; };\n"
  "bodies = ( { name = \"hammer\"; type = \"mass\"; mass = 0.0137; u0 = -1.1e-5; v0 = 0.83; },\n"
  "           { name = \"wall\"; type = \"wall\"; position = 0.0; } );\n"
  "contacts = ( { name = \"hit\"; between = [\"hammer\", \"wall\"]; law = \"hunt-crossley\";\n"
  "               k = 2.2e8; alpha = 1.37; mu = 0.41; scheme = \"am1\"; } );\n"
  "record = { every = 1; signals = [\"*\"]; };\n";

static void out_path(char *buf, size_t size, const char *name)
{
  snprintf(buf, size, "%s/tests/output-%ld-%s.h5", TEST_BUILDDIR, (long)getpid(), name);
}

/* Read a whole float64 dataset; returns its element count. */
static long read_doubles(hid_t f, const char *name, double *buf, long cap)
{
  hid_t d = H5Dopen2(f, name, H5P_DEFAULT), s = H5Dget_space(d);
  long n = (long)H5Sget_simple_extent_npoints(s);

  ck_assert_msg(d >= 0, "no dataset %s", name);
  ck_assert(n <= cap);
  ck_assert(H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) >= 0);
  H5Sclose(s);
  H5Dclose(d);
  return n;
}

/* A string attribute's value, copied into buf: fixed-length, as vibro
 * writes every string attribute (no global heap, issue 19 item 6). */
static void read_string_attr(hid_t obj, const char *name, char *buf, size_t size)
{
  hid_t a = H5Aopen(obj, name, H5P_DEFAULT), ft = a >= 0 ? H5Aget_type(a) : -1;
  hid_t t = H5Tcopy(H5T_C_S1);
  char *v;

  ck_assert_msg(ft >= 0, "no attribute %s", name);
  ck_assert_msg(H5Tget_class(ft) == H5T_STRING && H5Tis_variable_str(ft) == 0,
                "attribute %s is not a fixed-length string", name);
  v = calloc(H5Tget_size(ft) + 1, 1);
  H5Tset_size(t, H5Tget_size(ft) + 1);
  H5Tset_cset(t, H5Tget_cset(ft));
  ck_assert_msg(v && H5Aread(a, t, v) >= 0, "cannot read attribute %s", name);
  snprintf(buf, size, "%s", v);
  free(v);
  H5Tclose(t);
  H5Tclose(ft);
  H5Aclose(a);
}

/* Whether dimension dim of dataset `name` has the one scale `scale` (a
 * path), as HDF5's own dimension scale API reads the file (H5DS: the
 * dataset's DIMENSION_LIST and the scale's REFERENCE_LIST, which the
 * writer makes itself, lib/output/h5util.c vb_h5_dims_attach). */
static int has_scale(hid_t f, const char *name, const char *scale, unsigned dim)
{
  hid_t d = H5Dopen2(f, name, H5P_DEFAULT), s = H5Dopen2(f, scale, H5P_DEFAULT);
  int found = d >= 0 && s >= 0 && H5DSis_scale(s) > 0 && H5DSget_num_scales(d, dim) == 1 &&
              H5DSis_attached(d, s, dim) > 0;

  H5Dclose(s);
  H5Dclose(d);
  return found;
}

/* Every (dataset, dimension) pair attached to scales under a group: the
 * scales' and the datasets' attributes agree, seen by H5DS. */
typedef struct scales_seen {
  hid_t g;
  long pairs;     /* (dataset, dimension) pairs with a scale */
  long refs;      /* entries of the scales' REFERENCE_LISTs */
  int bad;        /* a pair H5DS does not see attached both ways */
} scales_seen;

static herr_t count_scale(hid_t did, unsigned dim, hid_t sid, void *data)
{
  scales_seen *c = data;

  c->pairs++;
  if (H5DSis_attached(did, sid, dim) <= 0)
    c->bad++;
  return 0;
}

static herr_t check_object(hid_t g, const char *name, const H5L_info_t *info, void *data)
{
  scales_seen *c = data;
  hid_t d = H5Dopen2(g, name, H5P_DEFAULT), space = d >= 0 ? H5Dget_space(d) : -1;
  int rank = space >= 0 ? H5Sget_simple_extent_ndims(space) : 0;

  (void)info;
  if (d >= 0 && H5DSis_scale(d) > 0) {
    if (H5Aexists(d, "REFERENCE_LIST") > 0) {
      hid_t a = H5Aopen(d, "REFERENCE_LIST", H5P_DEFAULT), as = H5Aget_space(a);
      c->refs += (long)H5Sget_simple_extent_npoints(as);
      H5Sclose(as);
      H5Aclose(a);
    }
  } else if (d >= 0) {
    for (int k = 0; k < rank; k++) {
      /* every dimension of a vibro dataset has one scale */
      if (H5DSget_num_scales(d, (unsigned)k) != 1)
        c->bad++;
      H5DSiterate_scales(d, (unsigned)k, NULL, count_scale, c);
    }
  }
  if (space >= 0)
    H5Sclose(space);
  if (d >= 0)
    H5Dclose(d);
  return 0;
}

/* Check every dataset of group `group` against its scales. */
static void check_scales(hid_t f, const char *group)
{
  scales_seen c = {.g = H5Gopen2(f, group, H5P_DEFAULT)};

  ck_assert_msg(c.g >= 0, "no group %s", group);
  H5Literate(c.g, H5_INDEX_NAME, H5_ITER_NATIVE, NULL, check_object, &c);
  H5Gclose(c.g);
  ck_assert_msg(c.bad == 0 && c.pairs > 0 && c.pairs == c.refs,
                "%s: %d dimensions without their scale; %ld attached, %ld listed by the scales",
                group, c.bad, c.pairs, c.refs);
}

START_TEST(test_layout_and_values)
{
  tu_sim a = tu_run_text(hammer_text), b = tu_run_text(longer_text);
  const vb_run *runs[2] = { a.run, b.run };
  char path[1024], err[1024], text[256];
  double buf[1024];
  long n0 = vb_run_samples(a.run), n1 = vb_run_samples(b.run), k, n;
  hid_t f;

  ck_assert(n1 > n0);
  out_path(path, sizeof path, "layout");
  ck_assert_msg(vb_output_write(path, runs, 2, err, sizeof err) == VB_OK, "%s", err);
  f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  ck_assert(f >= 0);
  read_string_attr(f, "format", text, sizeof text);
  ck_assert_str_eq(text, "vibro-3");
  /* stacked [scene][time], the shorter scene padded with NaN */
  n = read_doubles(f, "signals/contacts.hit.force", buf, 1024);
  ck_assert_int_eq(n, 2 * n1);
  for (k = 0; k < n0; k++)
    ck_assert(buf[k] == vb_run_contact(a.run, 0)->force[k]);
  for (k = n0; k < n1; k++)
    ck_assert(isnan(buf[k]));
  for (k = 0; k < n1; k++)
    ck_assert(buf[n1 + k] == vb_run_contact(b.run, 0)->force[k]);
  n = read_doubles(f, "signals/bodies.hammer.u", buf, 1024);
  ck_assert(buf[n1 + 7] == vb_run_body_u(b.run, 0)[7]);
  n = read_doubles(f, "signals/energy.dissipated", buf, 1024);
  ck_assert(buf[n0 - 1] == vb_run_energy(a.run, 3)[n0 - 1]);
  /* time in s, a dimension scale */
  n = read_doubles(f, "signals/time", buf, 1024);
  ck_assert_int_eq(n, n1);
  ck_assert(fabs(buf[3] - 3.0 / 44100.0) < 1e-18);
  ck_assert(has_scale(f, "signals/contacts.hit.force", "signals/scene", 0));
  ck_assert(has_scale(f, "signals/contacts.hit.force", "signals/time", 1));
  ck_assert(!has_scale(f, "signals/contacts.hit.force", "signals/time", 0));
  check_scales(f, "signals");
  check_scales(f, "study/table");
  check_scales(f, "study/events");
  /* walls record nothing */
  ck_assert(H5Lexists(f, "signals/bodies.wall.u", H5P_DEFAULT) == 0);
  {
    hid_t d = H5Dopen2(f, "signals/contacts.hit.force", H5P_DEFAULT);
    read_string_attr(d, "units", text, sizeof text);
    ck_assert_str_eq(text, "N");
    H5Dclose(d);
  }
  /* the contact's potential, a derived signal recorded on request ("*"),
   * written like the others */
  n = read_doubles(f, "signals/contacts.hit.potential", buf, 1024);
  ck_assert_int_eq(n, 2 * n1);
  for (k = 0; k < n0; k++)
    ck_assert(buf[k] == vb_law_potential(&vb_run_scene(a.run)->contacts[0].law,
                                         vb_run_contact(a.run, 0)->compression[k]));
  {
    hid_t d = H5Dopen2(f, "signals/contacts.hit.potential", H5P_DEFAULT);
    read_string_attr(d, "units", text, sizeof text);
    ck_assert_str_eq(text, "J");
    H5Dclose(d);
  }
  /* the events table: one row per impact with its scene */
  {
    hid_t m = H5Tcreate(H5T_COMPOUND, 3 * sizeof(double));
    double rows[3 * 8];
    long nev = vb_run_contact(a.run, 0)->nevents + vb_run_contact(b.run, 0)->nevents;

    ck_assert(nev >= 2 && nev <= 8);
    H5Tinsert(m, "scene", 0, H5T_NATIVE_DOUBLE);
    H5Tinsert(m, "v_in", 8, H5T_NATIVE_DOUBLE);
    H5Tinsert(m, "x_max", 16, H5T_NATIVE_DOUBLE);
    ck_assert_int_eq(tu_table_read(f, "study/events", m, rows), nev);
    ck_assert(rows[0] == 0.0);
    ck_assert(rows[1] == vb_run_contact(a.run, 0)->events[0].v_in);
    ck_assert(rows[3 * (nev - 1)] == 1.0);
    ck_assert(rows[3 * (nev - 1) + 2] ==
              vb_run_contact(b.run, 0)->events[vb_run_contact(b.run, 0)->nevents - 1].x_max);
    /* units: each column's own */
    tu_column_units(f, "study/events", "v_in", text, sizeof text);
    ck_assert_str_eq(text, "m/s");
    tu_column_units(f, "study/events", "peak_force", text, sizeof text);
    ck_assert_str_eq(text, "N");
    tu_column_units(f, "study/table", "max_compression:hit", text, sizeof text);
    ck_assert_str_eq(text, "m");
    /* dimension scales: scene and contact on a per-contact column, event on
     * an event column */
    ck_assert(has_scale(f, "study/table/impacts", "study/table/scene", 0));
    ck_assert(has_scale(f, "study/table/impacts", "study/table/contact", 1));
    ck_assert(has_scale(f, "study/events/t_on", "study/events/event", 0));
    H5Tclose(m);
  }
  /* the table: samples and events of each scene */
  {
    hid_t m = H5Tcreate(H5T_COMPOUND, 3 * sizeof(long long));
    long long rows[6];
    H5Tinsert(m, "samples", 0, H5T_NATIVE_LLONG);
    H5Tinsert(m, "events_start", 8, H5T_NATIVE_LLONG);
    H5Tinsert(m, "events_count", 16, H5T_NATIVE_LLONG);
    ck_assert_int_eq(tu_table_read(f, "study/table", m, rows), 2);
    ck_assert_int_eq(rows[0], n0);
    ck_assert_int_eq(rows[3], n1);
    ck_assert_int_eq(rows[1], 0);
    ck_assert_int_eq(rows[4], rows[2]);
    ck_assert_int_eq(rows[2], vb_run_contact(a.run, 0)->nevents);
    H5Tclose(m);
  }
  H5Fclose(f);
  {
    char part[1100];
    snprintf(part, sizeof part, "%s.part", path);
    ck_assert_int_ne(access(part, F_OK), 0);
  }
  remove(path);
  tu_free(&a);
  tu_free(&b);
}
END_TEST

/* A layout of nscenes copies of a run's scene. */
static void layout_of(vb_output_layout *lay, const vb_scene *sc, long nscenes)
{
  memset(lay, 0, sizeof *lay);
  lay->input = sc->input;
  lay->source = sc->path;
  lay->mode = "none";
  lay->sweep = "";
  lay->nscenes = nscenes;
  lay->first = sc;
}

/* Corrupt one byte in the middle of a file. */
static void corrupt(const char *path)
{
  int fd = open(path, O_RDWR);
  struct stat st;
  unsigned char c;

  ck_assert(fd >= 0 && fstat(fd, &st) == 0);
  ck_assert(pread(fd, &c, 1, st.st_size / 2) == 1);
  c ^= 0x5a;
  ck_assert(pwrite(fd, &c, 1, st.st_size / 2) == 1);
  close(fd);
}

/* The table stores each run's own status code, whatever its text says: an
 * out-of-memory scene is VB_ENOMEM (-2), where parsing "out of memory at
 * t=..." back gave -1; a code the text does not name is kept too. */
START_TEST(test_status_codes_stored)
{
  static const struct {
    int code;
    const char *status;
  } cases[] = {
      {VB_ENOMEM, "out of memory at t=0.000113379"},
      {VB_ENOMEM, "out of memory recording events"},
      {VB_ENOCONV, "newton failed at t=0.0001 (3 steps did not converge)"},
      {VB_EDIVERGED, "diverged at t=0.0002 s: contact 'hit': compression is nan"},
      {VB_EDISCRIM, "done"},
      {VB_OK, "done"},
  };
  enum { N = sizeof cases / sizeof cases[0] };
  tu_sim s[N];
  const vb_run *runs[N];
  char path[1024], err[1024];
  hid_t f, m;
  struct {
    int code;
    char status[128];
  } rows[N];
  int i;

  for (i = 0; i < N; i++) {
    s[i] = tu_run_text(hammer_text);
    s[i].run->code = cases[i].code;
    snprintf(s[i].run->status, sizeof s[i].run->status, "%s", cases[i].status);
    runs[i] = s[i].run;
  }
  out_path(path, sizeof path, "codes");
  ck_assert_msg(vb_output_write(path, runs, N, err, sizeof err) == VB_OK, "%s", err);
  f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  m = H5Tcreate(H5T_COMPOUND, sizeof rows[0]);
  {
    hid_t str = H5Tcopy(H5T_C_S1);
    H5Tset_size(str, 128);
    H5Tinsert(m, "status_code", HOFFSET(__typeof__(rows[0]), code), H5T_NATIVE_INT);
    H5Tinsert(m, "status", HOFFSET(__typeof__(rows[0]), status), str);
    H5Tclose(str);
  }
  ck_assert_int_eq(tu_table_read(f, "study/table", m, rows), N);
  for (i = 0; i < N; i++) {
    ck_assert_int_eq(rows[i].code, cases[i].code);
    ck_assert_str_eq(rows[i].status, cases[i].status);
    tu_free(&s[i]);
  }
  H5Tclose(m);
  H5Fclose(f);
  remove(path);
}
END_TEST

/* Scene text of n masses, mass k at v0_k (random), each against its own wall. */
static char *wide_text(int n, const double *v0)
{
  size_t cap = 256 + (size_t)n * 400, len = 0;
  char *t = malloc(cap);
  int k;

  ck_assert(t != NULL);
  len += (size_t)snprintf(t + len, cap - len,
                          "scene = { name = \"w\"; fs = 44100.0; duration = 0.0006; };\n"
                          "record = { signals = []; };\nbodies = (\n");
  for (k = 0; k < n; k++)
    len += (size_t)snprintf(t + len, cap - len,
                            "{ name = \"m%d\"; type = \"mass\"; mass = 0.0137; v0 = %.17g; },\n"
                            "{ name = \"w%d\"; type = \"wall\"; }%s\n",
                            k, v0[k], k, k < n - 1 ? "," : "");
  len += (size_t)snprintf(t + len, cap - len, ");\ncontacts = (\n");
  for (k = 0; k < n; k++)
    len += (size_t)snprintf(t + len, cap - len,
                            "{ name = \"c%d\"; between = [\"m%d\", \"w%d\"]; law = \"hunt-crossley\"; "
                            "k = 2.2e8; alpha = 1.37; mu = 0.41; scheme = \"am1\"; }%s\n",
                            k, k, k, k < n - 1 ? "," : "");
  snprintf(t + len, cap - len, ");\n");
  return t;
}

/* Random widths far past vibro-2's limit (about 130 contacts): scenes of n
 * contacts written as shards out of order (3 then 1 then 0, 2), merged,
 * and read back with the tests' own column reader: each scene's row holds
 * its own run's figures for every contact, at the right place. */
START_TEST(test_wide_tables_random)
{
  unsigned seed = 0x5eed1u + (unsigned)_i;
  int n = 1 + (int)(rand_r(&seed) % 300u), k, i;
  double *v0 = malloc((size_t)n * sizeof *v0);
  tu_sim s[4];
  vb_output_layout lay;
  vb_output *o;
  char path[1024], err[1024], *text;
  static const long order[4] = {3, 1, 0, 2};
  hid_t f, m;
  struct {
    long long scene, impacts, iterations;
    double maxc, first;
  } rows[4];

  ck_assert(v0 != NULL);
  for (i = 0; i < 4; i++) {
    for (k = 0; k < n; k++)
      v0[k] = 0.2 + 1.7 * (double)rand_r(&seed) / RAND_MAX;
    text = wide_text(n, v0);
    s[i] = tu_run_text(text);
    free(text);
    ck_assert_int_eq(s[i].rc, VB_OK);
  }
  out_path(path, sizeof path, "wide");
  layout_of(&lay, s[0].scene, 4);
  ck_assert_int_eq(vb_output_open(path, &lay, 0, 0, &o, err, sizeof err), VB_OK);
  for (i = 0; i < 4; i++) {
    ck_assert_msg(vb_output_scene(o, order[i], NULL, s[order[i]].run, err, sizeof err) == VB_OK,
                  "%s", err);
    if (i != 2)
      ck_assert_msg(vb_output_flush(o, err, sizeof err) == VB_OK, "%s", err);
  }
  vb_output_free(o);
  ck_assert_msg(vb_output_merge(path, &lay, NULL, err, sizeof err) == VB_OK, "%s", err);
  f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  ck_assert(f >= 0);
  /* n contacts' columns, each dimension with its scale (no signal is recorded) */
  check_scales(f, "study/table");
  check_scales(f, "study/events");
  for (int probe = 0; probe < 8; probe++) {
    int c = probe == 0 ? 0 : probe == 1 ? n - 1 : (int)(rand_r(&seed) % (unsigned)n);
    char name[5][64];
    m = H5Tcreate(H5T_COMPOUND, sizeof rows[0]);
    snprintf(name[0], sizeof name[0], "index");
    snprintf(name[1], sizeof name[1], "impacts:c%d", c);
    snprintf(name[2], sizeof name[2], "newton_iterations:c%d", c);
    snprintf(name[3], sizeof name[3], "max_compression:c%d", c);
    snprintf(name[4], sizeof name[4], "first_impact:c%d", c);
    H5Tinsert(m, name[0], HOFFSET(__typeof__(rows[0]), scene), H5T_NATIVE_LLONG);
    H5Tinsert(m, name[1], HOFFSET(__typeof__(rows[0]), impacts), H5T_NATIVE_LLONG);
    H5Tinsert(m, name[2], HOFFSET(__typeof__(rows[0]), iterations), H5T_NATIVE_LLONG);
    H5Tinsert(m, name[3], HOFFSET(__typeof__(rows[0]), maxc), H5T_NATIVE_DOUBLE);
    H5Tinsert(m, name[4], HOFFSET(__typeof__(rows[0]), first), H5T_NATIVE_DOUBLE);
    ck_assert_int_eq(tu_table_read(f, "study/table", m, rows), 4);
    for (i = 0; i < 4; i++) {
      const vb_contact_result *r = vb_run_contact(s[i].run, c);
      ck_assert_int_eq(rows[i].scene, i);
      ck_assert_int_eq(rows[i].impacts, r->nevents);
      ck_assert_int_eq(rows[i].iterations, r->iterations);
      ck_assert(rows[i].maxc == r->max_compression);
      ck_assert(r->nevents > 0 && rows[i].first == r->events[0].t_on);
    }
    H5Tclose(m);
  }
  H5Fclose(f);
  remove(path);
  for (i = 0; i < 4; i++)
    tu_free(&s[i]);
  free(v0);
}
END_TEST

START_TEST(test_resume_verifies_shards)
{
  tu_sim a = tu_run_text(hammer_text);
  vb_output_layout lay;
  vb_output *o;
  char path[1024], part[1100], shard[1200], err[1024];
  long i;

  out_path(path, sizeof path, "verify");
  snprintf(part, sizeof part, "%s.part", path);
  layout_of(&lay, a.scene, 4);
  /* two shards: scenes 0-1 and 2 */
  ck_assert_int_eq(vb_output_open(path, &lay, 0, 0, &o, err, sizeof err), VB_OK);
  for (i = 0; i < 2; i++)
    ck_assert_int_eq(vb_output_scene(o, i, NULL, a.run, err, sizeof err), VB_OK);
  ck_assert_int_eq(vb_output_flush(o, err, sizeof err), VB_OK);
  ck_assert_int_eq(vb_output_scene(o, 2, NULL, a.run, err, sizeof err), VB_OK);
  ck_assert_int_eq(vb_output_flush(o, err, sizeof err), VB_OK);
  ck_assert_int_eq(vb_output_scenes_done(o), 3);
  /* a reader of the running study sees both shards */
  {
    char **paths;
    long np;
    ck_assert_int_eq(vb_output_running(path, &paths, &np, err, sizeof err), VB_OK);
    ck_assert_int_eq(np, 2);
    ck_assert(strstr(paths[1], ".part/r000-000001.h5") != NULL);
    {
      hid_t f = H5Fopen(paths[0], H5F_ACC_RDONLY, H5P_DEFAULT);
      hid_t d = H5Dopen2(f, "study/table/scene", H5P_DEFAULT), sp = H5Dget_space(d);
      ck_assert(f >= 0 && d >= 0);
      ck_assert_int_eq(H5Sget_simple_extent_npoints(sp), 2);
      H5Sclose(sp);
      H5Dclose(d);
      H5Fclose(f);
    }
    vb_output_running_free(paths, np);
    ck_assert_int_eq(vb_output_running("/nonexistent/x.h5", &paths, &np, err, sizeof err),
                     VB_EINVAL);
  }
  /* a second writer is refused, naming the process */
  {
    vb_output *second;
    char expect[64];
    ck_assert_int_eq(vb_output_open(path, &lay, 1, 0, &second, err, sizeof err), VB_EINVAL);
    snprintf(expect, sizeof expect, "being written by process %ld", (long)getpid());
    ck_assert_msg(strstr(err, expect) != NULL, "%s", err);
  }
  vb_output_free(o);
  /* the first shard damaged: resume keeps only scene 2 */
  snprintf(shard, sizeof shard, "%s/r000-000000.h5", part);
  corrupt(shard);
  ck_assert_int_eq(vb_output_open(path, &lay, 1, 0, &o, err, sizeof err), VB_OK);
  ck_assert_int_eq(vb_output_scenes_done(o), 1);
  ck_assert(!vb_output_complete(o, 0) && !vb_output_complete(o, 1));
  ck_assert(vb_output_complete(o, 2));
  ck_assert_int_ne(access(shard, F_OK), 0); /* deleted */
  /* merging with scenes missing is refused, the shards kept */
  ck_assert_int_eq(vb_output_merge(path, &lay, NULL, err, sizeof err), VB_EIO);
  ck_assert_msg(strstr(err, "scene 0 is in no verified shard") != NULL, "%s", err);
  for (i = 0; i < 4; i++)
    if (!vb_output_complete(o, i))
      ck_assert_int_eq(vb_output_scene(o, i, NULL, a.run, err, sizeof err), VB_OK);
  ck_assert_int_eq(vb_output_flush(o, err, sizeof err), VB_OK);
  vb_output_free(o);
  ck_assert_msg(vb_output_merge(path, &lay, NULL, err, sizeof err) == VB_OK, "%s", err);
  ck_assert_int_ne(access(part, F_OK), 0);
  {
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    double buf[4 * 200];
    long n = read_doubles(f, "signals/contacts.hit.force", buf, 800), s = n / 4, k;
    for (i = 0; i < 4; i++)
      for (k = 0; k < s; k++)
        ck_assert(buf[i * s + k] == vb_run_contact(a.run, 0)->force[k]);
    H5Fclose(f);
  }
  remove(path);
  tu_free(&a);
}
END_TEST

START_TEST(test_torn_manifest_line)
{
  tu_sim a = tu_run_text(hammer_text);
  vb_output_layout lay;
  vb_output *o;
  char path[1024], manifest[1200], err[1024];
  FILE *f;

  out_path(path, sizeof path, "torn");
  snprintf(manifest, sizeof manifest, "%s.part/manifest.r000", path);
  layout_of(&lay, a.scene, 2);
  ck_assert_int_eq(vb_output_open(path, &lay, 0, 0, &o, err, sizeof err), VB_OK);
  ck_assert_int_eq(vb_output_scene(o, 1, NULL, a.run, err, sizeof err), VB_OK);
  ck_assert_int_eq(vb_output_flush(o, err, sizeof err), VB_OK);
  vb_output_free(o);
  /* a line cut short, and one whose text was changed after its CRC */
  f = fopen(manifest, "a");
  fputs("r000-000005.h5 1000 0badcafe 1 0 0 000", f);
  fclose(f);
  ck_assert_int_eq(vb_output_open(path, &lay, 1, 0, &o, err, sizeof err), VB_OK);
  ck_assert(vb_output_complete(o, 1) && !vb_output_complete(o, 0));
  vb_output_free(o);
  {
    /* change the line's input CRC: the line's own CRC no longer matches,
     * so it is ignored (rather than refused as another input) */
    char text[512], *field;
    size_t n;
    int k;
    f = fopen(manifest, "r+");
    n = fread(text, 1, sizeof text - 1, f);
    text[n] = '\0';
    ck_assert(n > 20);
    for (field = text, k = 0; k < 6; k++)
      field = strchr(field, ' ') + 1;
    field[0] = field[0] == 'a' ? 'b' : 'a';
    rewind(f);
    fwrite(text, 1, n, f);
    fclose(f);
  }
  ck_assert_int_eq(vb_output_open(path, &lay, 1, 0, &o, err, sizeof err), VB_OK);
  ck_assert(!vb_output_complete(o, 1));
  vb_output_free(o);
  {
    char part[1100];
    snprintf(part, sizeof part, "%s.part", path);
    ck_assert_int_eq(vb_output_open(path, &lay, 0, 0, &o, err, sizeof err), VB_OK);
    vb_output_free(o);
    snprintf(manifest, sizeof manifest, "%s/manifest.r000", part);
    remove(manifest);
    snprintf(manifest, sizeof manifest, "%s/lock.r000", part);
    remove(manifest);
    rmdir(part);
  }
  tu_free(&a);
}
END_TEST

START_TEST(test_part_refused)
{
  tu_sim a = tu_run_text(hammer_text);
  vb_output_layout lay;
  vb_output *o;
  char path[1024], part[1100], other[1200], err[1024];
  FILE *f;

  out_path(path, sizeof path, "refused");
  snprintf(part, sizeof part, "%s.part", path);
  snprintf(other, sizeof other, "%s.target", path);
  layout_of(&lay, a.scene, 1);
  /* a planted symlink is not followed */
  mkdir(other, 0777);
  ck_assert_int_eq(symlink(other, part), 0);
  ck_assert_int_eq(vb_output_open(path, &lay, 0, 0, &o, err, sizeof err), VB_EINVAL);
  ck_assert_msg(strstr(err, "symbolic link") != NULL, "%s", err);
  remove(part);
  rmdir(other);
  /* a file there (an old vibro-1 part, say) is kept */
  f = fopen(part, "w");
  fputs("precious", f);
  fclose(f);
  ck_assert_int_eq(vb_output_open(path, &lay, 0, 0, &o, err, sizeof err), VB_EINVAL);
  ck_assert_msg(strstr(err, "not a directory") != NULL, "%s", err);
  {
    struct stat st;
    ck_assert(stat(part, &st) == 0 && st.st_size == 8);
  }
  remove(part);
  /* a directory holding files vibro did not write is kept */
  mkdir(part, 0777);
  snprintf(other, sizeof other, "%s/notes.txt", part);
  f = fopen(other, "w");
  fclose(f);
  ck_assert_int_eq(vb_output_open(path, &lay, 0, 0, &o, err, sizeof err), VB_EINVAL);
  ck_assert_msg(strstr(err, "'notes.txt', which vibro did not write") != NULL, "%s", err);
  ck_assert_int_eq(access(other, F_OK), 0);
  remove(other);
  rmdir(part);
  tu_free(&a);
}
END_TEST

START_TEST(test_missing_dir)
{
  tu_sim a = tu_run_text(hammer_text);
  const vb_run *runs[1] = { a.run };
  char err[1024];

  ck_assert_int_eq(vb_output_write("/nonexistent-dir/x.h5", runs, 1, err, sizeof err), VB_EIO);
  ck_assert_msg(strstr(err, "/nonexistent-dir/x.h5: cannot create /nonexistent-dir/x.h5.part")
                != NULL, "%s", err);
  tu_free(&a);
}
END_TEST

/* The shards' CRC-32 (ISA-L's when configure found it) is zlib's crc32:
 * whole, chained at odd offsets, and of a file summed in 4 MiB pieces by
 * two threads, so that Python's zlib.crc32 verifies what vibro lists. */
START_TEST(test_crc_is_zlib)
{
  const size_t n = (9u << 20) + 4093;
  unsigned char *b = malloc(n);
  char path[] = "/tmp/vibro-crc-XXXXXX";
  size_t i, cut[] = {0, 1, 7, 4093, 65537, n - 3, n};
  unsigned long z;
  long size = 0;
  int k, fd;

  ck_assert_ptr_nonnull(b);
  for (i = 0; i < n; i++)
    b[i] = (unsigned char)((i * 2654435761u) >> 13);
  z = crc32(0L, b, (uInt)n);
  ck_assert_uint_eq(vb_crc32(0L, b, n), z);
  for (k = 0; k < 7; k++)
    ck_assert_uint_eq(vb_crc32(vb_crc32(0L, b, cut[k]), b + cut[k], n - cut[k]), z);
  ck_assert_uint_eq(vb_crc32(0L, b, 0), crc32(0L, Z_NULL, 0));
  fd = mkstemp(path);
  ck_assert_int_ge(fd, 0);
  ck_assert_int_eq(write(fd, b, n), (ssize_t)n);
  close(fd);
  for (k = 1; k <= 2; k++) {
    ck_assert_int_eq(vb_file_crc(AT_FDCWD, path, k, &size), (long)z);
    ck_assert_int_eq(size, (long)n);
  }
  unlink(path);
  free(b);
}
END_TEST

START_TEST(test_bad_args)
{
  tu_sim a = tu_run_text(hammer_text);
  const vb_run *runs[1] = { a.run };
  char err[256];

  ck_assert_int_eq(vb_output_write("x.h5", runs, 0, err, sizeof err), VB_EINVAL);
  ck_assert_int_eq(vb_output_write("x.h5", NULL, 1, err, sizeof err), VB_EINVAL);
  ck_assert_int_eq(vb_output_write(NULL, runs, 1, err, sizeof err), VB_EINVAL);
  ck_assert_int_eq(vb_output_write("", runs, 1, err, sizeof err), VB_EINVAL);
  tu_free(&a);
}
END_TEST

/* The time axis, written a block at a time (131072 values): k * interval
 * exactly, for lengths about a block and past two; with two intervals,
 * the sample axis 0 .. T - 1 and each scene's own times. */
START_TEST(test_time_axis_blocks)
{
  static const long lengths[] = {131071, 131072, 131073, 262145};
  long T = lengths[_i] + (_i == 3 ? (long)(getpid() % 1000) : 0), k, n;
  char text[1024], path[1024], err[1024];
  double *buf = malloc(2 * (size_t)T * sizeof *buf);
  tu_sim s[2];
  hid_t f;

  ck_assert(buf != NULL);
  for (int e = 0; e < 2; e++) {
    /* (T - 1) * every steps and a quarter: T samples at every = 1 */
    snprintf(text, sizeof text, "%s", hammer_text);
    char *d = strstr(text, "duration = 0.003;"), *r = strstr(text, "every = 1;");
    char tail[512];
    snprintf(tail, sizeof tail, "%s", d + strlen("duration = 0.003;"));
    snprintf(d, sizeof text - (size_t)(d - text), "duration = %.17g;%s",
             ((double)(T - 1) + 0.25) / 44100.0, tail);
    r = strstr(text, "every = 1;");
    r[8] = e == 0 ? '1' : '2';
    s[e] = tu_run_text(text);
    ck_assert_int_eq(vb_run_samples(s[e].run), e == 0 ? T : (T - 1) / 2 + 1);
  }
  /* one interval: the time axis */
  out_path(path, sizeof path, "axis");
  ck_assert_msg(vb_output_write(path, (const vb_run *[]){s[0].run}, 1, err, sizeof err) == VB_OK,
                "%s", err);
  f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  n = read_doubles(f, "signals/time", buf, T);
  ck_assert_int_eq(n, T);
  for (k = 0; k < T; k++)
    ck_assert_msg(buf[k] == (double)k * (1.0 / 44100.0), "time[%ld] = %.17g", k, buf[k]);
  H5Fclose(f);
  remove(path);
  /* two: the sample axis, and the time of each scene */
  ck_assert_msg(vb_output_write(path, (const vb_run *[]){s[0].run, s[1].run}, 2, err,
                                sizeof err) == VB_OK, "%s", err);
  f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  {
    hid_t d = H5Dopen2(f, "signals/sample", H5P_DEFAULT);
    int64_t *i = malloc((size_t)T * sizeof *i);
    ck_assert(d >= 0 && i != NULL);
    ck_assert(H5Dread(d, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, i) >= 0);
    for (k = 0; k < T; k++)
      ck_assert_int_eq(i[k], k);
    free(i);
    H5Dclose(d);
  }
  n = read_doubles(f, "signals/time", buf, 2 * T);
  ck_assert_int_eq(n, 2 * T);
  ck_assert(buf[T - 1] == (double)(T - 1) * (1.0 / 44100.0));
  ck_assert(buf[T + 1] == 2.0 / 44100.0);
  H5Fclose(f);
  remove(path);
  tu_free(&s[0]);
  tu_free(&s[1]);
  free(buf);
}
END_TEST

static Suite *output_suite(void)
{
  Suite *s = suite_create("output");
  TCase *core = tcase_create("core"), *safety = tcase_create("safety"),
        *errors = tcase_create("errors");

  tcase_set_timeout(core, 60);
  tcase_set_timeout(safety, 60);
  tcase_set_timeout(errors, 60);
  tcase_add_test(core, test_layout_and_values);
  tcase_add_loop_test(core, test_time_axis_blocks, 0, 4);
  tcase_add_test(core, test_crc_is_zlib);
  tcase_add_test(core, test_status_codes_stored);
  tcase_add_loop_test(core, test_wide_tables_random, 0, 3);
  tcase_add_test(safety, test_resume_verifies_shards);
  tcase_add_test(safety, test_torn_manifest_line);
  tcase_add_test(safety, test_part_refused);
  tcase_add_test(errors, test_missing_dir);
  tcase_add_test(errors, test_bad_args);
  suite_add_tcase(s, core);
  suite_add_tcase(s, safety);
  suite_add_tcase(s, errors);
  return s;
}

int main(void)
{
  return tu_main(output_suite());
}
