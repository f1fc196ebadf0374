/* rows.c - a compound table (/study/table, /study/events) read block by
 * block, every number as a double and every fixed-length string as text,
 * so that a table of any length is read in bounded memory (h5read.h). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "h5read.h"

int
rows_open(hid_t loc, const char *path, rows_reader *r)
{
  hid_t ftype;
  int n;

  memset(r, 0, sizeof *r);
  r->ds = r->mtype = H5I_INVALID_HID;
  r->rows = dataset_rows(loc, path);
  if (r->rows < 0)
    return -1;
  r->ds = H5Dopen2(loc, path, H5P_DEFAULT);
  ftype = r->ds < 0 ? H5I_INVALID_HID : H5Dget_type(r->ds);
  if (ftype < 0 || H5Tget_class(ftype) != H5T_COMPOUND) {
    close_id(ftype);
    rows_close(r);
    return -1;
  }
  n = H5Tget_nmembers(ftype);
  r->offset = calloc((size_t)n + 1, sizeof *r->offset);
  r->text = calloc((size_t)n + 1, sizeof *r->text);
  if (!r->offset || !r->text)
    goto bad;
  for (int m = 0; m < n; m++) {
    char *name = H5Tget_member_name(ftype, (unsigned)m);
    H5T_class_t cls = H5Tget_member_class(ftype, (unsigned)m);
    hid_t mt = H5Tget_member_type(ftype, (unsigned)m);
    int vlen = cls == H5T_STRING && H5Tis_variable_str(mt) > 0;
    close_id(mt);
    r->offset[m] = SIZE_MAX;
    if (!name || names_push(&r->names, name) < 0) {
      H5free_memory(name);
      goto bad;
    }
    H5free_memory(name);
    if ((cls != H5T_FLOAT && cls != H5T_INTEGER && cls != H5T_STRING) || vlen)
      continue;
    r->text[m] = cls == H5T_STRING;
    r->offset[m] = r->row;
    r->row += r->text[m] ? ROW_TEXT : sizeof(double);
  }
  r->mtype = H5Tcreate(H5T_COMPOUND, r->row ? r->row : 8);
  for (int m = 0; m < n && r->mtype >= 0; m++) {
    hid_t t = H5I_INVALID_HID;
    if (r->offset[m] == SIZE_MAX)
      continue;
    if (r->text[m]) {
      t = H5Tcopy(H5T_C_S1);
      H5Tset_size(t, ROW_TEXT);
      H5Tset_strpad(t, H5T_STR_NULLTERM);
    }
    if (H5Tinsert(r->mtype, r->names.v[m], r->offset[m], t >= 0 ? t : H5T_NATIVE_DOUBLE) < 0) {
      close_id(r->mtype);
      r->mtype = H5I_INVALID_HID;
    }
    close_id(t);
  }
  close_id(ftype);
  if (r->mtype < 0)
    goto bad2;
  return 0;
bad:
  close_id(ftype);
bad2:
  rows_close(r);
  return -1;
}

int
rows_read(const rows_reader *r, hsize_t start, hsize_t count, unsigned char *buf)
{
  hid_t fspace = H5Dget_space(r->ds), mspace = H5Screate_simple(1, &count, NULL);
  int rc = -1;

  if (fspace >= 0 && mspace >= 0 &&
      H5Sselect_hyperslab(fspace, H5S_SELECT_SET, &start, NULL, &count, NULL) >= 0 &&
      H5Dread(r->ds, r->mtype, mspace, fspace, H5P_DEFAULT, buf) >= 0)
    rc = 0;
  close_id(mspace);
  close_id(fspace);
  return rc;
}

int
rows_column(const rows_reader *r, const char *name)
{
  long i = names_find(&r->names, name);
  return i >= 0 && r->offset[i] != SIZE_MAX ? (int)i : -1;
}

double
rows_number(const rows_reader *r, const unsigned char *row, int column)
{
  double v;
  if (column < 0 || r->text[column])
    return NAN;
  memcpy(&v, row + r->offset[column], sizeof v);
  return v;
}

const char *
rows_text(const rows_reader *r, const unsigned char *row, int column)
{
  if (column < 0 || !r->text[column])
    return "";
  return (const char *)(row + r->offset[column]);
}

void
rows_close(rows_reader *r)
{
  close_id(r->mtype);
  close_id(r->ds);
  names_free(&r->names);
  free(r->offset);
  free(r->text);
  memset(r, 0, sizeof *r);
  r->ds = r->mtype = H5I_INVALID_HID;
}
