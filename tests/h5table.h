/* h5table.h - the tests' own reader of a vibro-3 table (doc/format.md):
 * the columns of /study/table or /study/events gathered into rows of a
 * compound memory type, so that a test names the values it checks as
 * vibro-2's members did ("index" is the `scene` coordinate, "X:C" contact
 * C's value of the [scene][contact] column X).  Written apart from
 * lib/output/table.c, with plain HDF5 calls. */
#ifndef VIBRO_H5TABLE_H
#define VIBRO_H5TABLE_H

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include <hdf5.h>

/* The index of contact `name` in the table's `contact` coordinate, or -1. */
static inline int
tu_contact_index(hid_t g, const char *name)
{
  hid_t d = H5Dopen2(g, "contact", H5P_DEFAULT), t = H5Dget_type(d), s = H5Dget_space(d);
  size_t len = H5Tget_size(t);
  hssize_t n = H5Sget_simple_extent_npoints(s);
  char *buf = calloc((size_t)n + 1, len + 1);
  int found = -1;

  ck_assert(d >= 0 && buf != NULL && H5Dread(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) >= 0);
  for (hssize_t i = 0; i < n && found < 0; i++)
    if (strlen(name) <= len && strncmp(buf + (size_t)i * len, name, len) == 0 &&
        (strlen(name) == len || buf[(size_t)i * len + strlen(name)] == '\0'))
      found = (int)i;
  free(buf);
  H5Sclose(s);
  H5Tclose(t);
  H5Dclose(d);
  return found;
}

/* Read every row of table (e.g. "study/table") of file f into rows, one
 * row of memory type mtype each; the number of rows. */
static inline long
tu_table_read(hid_t f, const char *table, hid_t mtype, void *rows)
{
  hid_t g = H5Gopen2(f, table, H5P_DEFAULT);
  size_t rowsize = H5Tget_size(mtype);
  int nm = H5Tget_nmembers(mtype);
  long n = -1;

  ck_assert_msg(g >= 0, "no group %s", table);
  for (int m = 0; m < nm; m++) {
    char *member = H5Tget_member_name(mtype, (unsigned)m), name[256], *colon;
    hid_t mt = H5Tget_member_type(mtype, (unsigned)m), d, s;
    size_t off = H5Tget_member_offset(mtype, (unsigned)m), esize = H5Tget_size(mt);
    hsize_t dims[2] = {0, 1};
    int contact = -1, rank;
    unsigned char *col;

    snprintf(name, sizeof name, "%s", strcmp(member, "index") == 0 ? "scene" : member);
    colon = strchr(name, ':');
    if (colon) {
      *colon = '\0';
      contact = tu_contact_index(g, colon + 1);
      ck_assert_msg(contact >= 0, "%s: no contact %s", table, colon + 1);
    }
    d = H5Dopen2(g, name, H5P_DEFAULT);
    ck_assert_msg(d >= 0, "%s: no column %s", table, name);
    s = H5Dget_space(d);
    rank = H5Sget_simple_extent_ndims(s);
    H5Sget_simple_extent_dims(s, dims, NULL);
    ck_assert_int_eq(rank, colon ? 2 : 1);
    ck_assert(n < 0 || n == (long)dims[0]);
    n = (long)dims[0];
    col = malloc((size_t)(dims[0] * dims[1]) * esize + 1);
    ck_assert(col != NULL);
    ck_assert(dims[0] * dims[1] == 0 || H5Dread(d, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, col) >= 0);
    for (hsize_t r = 0; r < dims[0]; r++)
      memcpy((unsigned char *)rows + r * rowsize + off,
             col + (r * dims[1] + (hsize_t)(contact > 0 ? contact : 0)) * esize, esize);
    free(col);
    H5Sclose(s);
    H5Dclose(d);
    H5Tclose(mt);
    H5free_memory(member);
  }
  H5Gclose(g);
  return n;
}

/* The units attribute of column `name` of table ("" if none; "X:C" is X's). */
static inline void
tu_column_units(hid_t f, const char *table, const char *name, char *unit, size_t size)
{
  char path[512], *colon;
  hid_t d, a, t;

  snprintf(path, sizeof path, "%s/%s", table, name);
  colon = strchr(path + strlen(table), ':');
  if (colon)
    *colon = '\0';
  unit[0] = '\0';
  d = H5Dopen2(f, path, H5P_DEFAULT);
  ck_assert_msg(d >= 0, "no column %s", path);
  if (H5Aexists(d, "units") > 0) {
    char v[512] = "";
    hid_t m = H5Tcopy(H5T_C_S1);
    a = H5Aopen(d, "units", H5P_DEFAULT);
    t = H5Aget_type(a);
    /* fixed-length, as every string attribute vibro writes (no global heap) */
    ck_assert(H5Tis_variable_str(t) == 0 && H5Tget_size(t) < sizeof v);
    H5Tset_size(m, sizeof v);
    H5Tset_cset(m, H5Tget_cset(t));
    ck_assert(H5Aread(a, m, v) >= 0);
    snprintf(unit, size, "%s", v);
    H5Tclose(m);
    H5Tclose(t);
    H5Aclose(a);
  }
  H5Dclose(d);
}

#endif
