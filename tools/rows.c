/* rows.c - a table (/study/table, /study/events) read block by block,
 * every number as a double and every fixed-length string as text, so that
 * a table of any length is read in bounded memory (h5read.h): a compound
 * dataset (vibro-1, vibro-2) or a group of columns (vibro-3). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "h5read.h"

/* A member's name and index, sorted by name. */
typedef struct named {
  const char *name;
  size_t i;
} named;

static int
by_name(const void *a, const void *b)
{
  return strcmp(((const named *)a)->name, ((const named *)b)->name);
}

/* The members in name order, for rows_column (a table of 10,000 contacts
 * has 70,000 of them); 0 or -1. */
static int
sort_names(rows_reader *r)
{
  named *t = malloc((r->names.n + 1) * sizeof *t);

  r->order = malloc((r->names.n + 1) * sizeof *r->order);
  if (!t || !r->order) {
    free(t);
    return -1;
  }
  for (size_t i = 0; i < r->names.n; i++)
    t[i] = (named){.name = r->names.v[i], .i = i};
  qsort(t, r->names.n, sizeof *t, by_name);
  for (size_t i = 0; i < r->names.n; i++)
    r->order[i] = t[i].i;
  free(t);
  return 0;
}

/* Add a member of a vibro-3 column; 0 or -1. */
static int
member_add(rows_reader *r, const char *name, int text)
{
  size_t m = r->names.n;
  size_t *off = realloc(r->offset, (m + 1) * sizeof *off);
  int *tx = off ? realloc(r->text, (m + 1) * sizeof *tx) : NULL;

  if (off)
    r->offset = off;
  if (tx)
    r->text = tx;
  if (!off || !tx || names_push(&r->names, name) < 0)
    return -1;
  r->offset[m] = r->row;
  r->text[m] = text;
  r->row += text ? ROW_TEXT : sizeof(double);
  return 0;
}

/* Open a vibro-3 table: every numeric or fixed-string column of the group
 * in creation order but the coordinates `contact` and `event`. */
static int
columns_open(hid_t loc, const char *path, rows_reader *r)
{
  namelist kids = {0}, contacts = {0};
  hid_t g = H5Gopen2(loc, path, H5P_DEFAULT);
  char name[NAME_LEN + 2 * NAME_LEN];
  int rc = g >= 0 ? 0 : -1;

  if (rc == 0 && has_object(g, "contact"))
    column_texts(g, "contact", &contacts); /* absent, or not text: an event's contact column */
  if (rc == 0)
    rc = children_ordered(g, &kids);
  r->col = calloc(kids.n + 1, sizeof *r->col);
  r->first = calloc(kids.n + 1, sizeof *r->first);
  r->width = calloc(kids.n + 1, sizeof *r->width);
  if (!r->col || !r->first || !r->width)
    rc = -1;
  for (size_t k = 0; k < kids.n && rc == 0; k++) {
    hid_t ds, type, space;
    H5T_class_t cls;
    hsize_t d[2] = {0, 1};
    int rank;
    if ((strcmp(kids.v[k], "contact") == 0 && contacts.n > 0) || strcmp(kids.v[k], "event") == 0 ||
        is_group(g, kids.v[k]))
      continue;
    ds = H5Dopen2(g, kids.v[k], H5P_DEFAULT);
    type = ds >= 0 ? H5Dget_type(ds) : H5I_INVALID_HID;
    space = ds >= 0 ? H5Dget_space(ds) : H5I_INVALID_HID;
    cls = type >= 0 ? H5Tget_class(type) : H5T_NO_CLASS;
    rank = space >= 0 ? H5Sget_simple_extent_ndims(space) : -1;
    if (rank >= 1 && rank <= 2)
      H5Sget_simple_extent_dims(space, d, NULL);
    if ((cls != H5T_FLOAT && cls != H5T_INTEGER && cls != H5T_STRING) ||
        (cls == H5T_STRING && H5Tis_variable_str(type) > 0) || rank < 1 || rank > 2 ||
        d[0] != (hsize_t)r->rows || (rank == 2 && (cls == H5T_STRING || d[1] != contacts.n)) ||
        (rank == 2 && d[1] == 0)) { /* [scene][contact] of no contact: no member to read into */
      close_id(type);
      close_id(space);
      close_id(ds);
      continue;
    }
    r->col[r->ncols] = ds;
    r->first[r->ncols] = (int)r->names.n;
    r->width[r->ncols] = rank == 2 ? (int)d[1] : 1;
    r->ncols++;
    for (size_t c = 0; c < (rank == 2 ? contacts.n : 1) && rc == 0; c++) {
      if (rank == 2)
        text_format(name, sizeof name, "%s:%s", kids.v[k], contacts.v[c]);
      else
        text_format(name, sizeof name, "%s", kids.v[k]);
      rc = member_add(r, name, cls == H5T_STRING);
    }
    close_id(type);
    close_id(space);
  }
  close_id(g);
  names_free(&kids);
  names_free(&contacts);
  if (rc == 0)
    rc = sort_names(r);
  if (rc < 0)
    rows_close(r);
  return rc;
}

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
  if (is_group(loc, path))
    return columns_open(loc, path, r);
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
  if (r->mtype < 0 || sort_names(r) < 0)
    goto bad2;
  return 0;
bad:
  close_id(ftype);
bad2:
  rows_close(r);
  return -1;
}

/* Read rows of one vibro-3 column into buf's rows. */
static int
column_read(const rows_reader *r, int k, hsize_t start, hsize_t count, unsigned char *buf)
{
  hsize_t off[2] = {start, 0}, cnt[2] = {count, (hsize_t)r->width[k]};
  hid_t fspace = H5Dget_space(r->col[k]), mspace, mtype;
  int text = r->text[r->first[k]], rc = -1;
  size_t esize = text ? ROW_TEXT : sizeof(double), n = (size_t)count * (size_t)r->width[k];
  unsigned char *tmp = malloc(n ? n * esize : 1);
  int rank = fspace >= 0 ? H5Sget_simple_extent_ndims(fspace) : -1;

  mspace = H5Screate_simple(rank > 0 ? rank : 1, cnt, NULL);
  if (text) {
    mtype = H5Tcopy(H5T_C_S1);
    H5Tset_size(mtype, ROW_TEXT);
    H5Tset_strpad(mtype, H5T_STR_NULLTERM);
  } else {
    mtype = H5Tcopy(H5T_NATIVE_DOUBLE);
  }
  if (tmp && rank >= 1 && mspace >= 0 && mtype >= 0 &&
      (n == 0 || (H5Sselect_hyperslab(fspace, H5S_SELECT_SET, off, NULL, cnt, NULL) >= 0 &&
                  H5Dread(r->col[k], mtype, mspace, fspace, H5P_DEFAULT, tmp) >= 0))) {
    for (size_t i = 0; i < (size_t)count; i++)
      for (int c = 0; c < r->width[k]; c++)
        memcpy(buf + i * r->row + r->offset[r->first[k] + c],
               tmp + (i * (size_t)r->width[k] + (size_t)c) * esize, esize);
    rc = 0;
  }
  free(tmp);
  close_id(mtype);
  close_id(mspace);
  close_id(fspace);
  return rc;
}

int
rows_read(const rows_reader *r, hsize_t start, hsize_t count, unsigned char *buf)
{
  hid_t fspace, mspace;
  int rc = -1;

  if (r->col) {
    for (int k = 0; k < r->ncols; k++)
      if (column_read(r, k, start, count, buf) < 0)
        return -1;
    return 0;
  }
  fspace = H5Dget_space(r->ds);
  mspace = H5Screate_simple(1, &count, NULL);
  if (fspace >= 0 && mspace >= 0 &&
      H5Sselect_hyperslab(fspace, H5S_SELECT_SET, &start, NULL, &count, NULL) >= 0 &&
      H5Dread(r->ds, r->mtype, mspace, fspace, H5P_DEFAULT, buf) >= 0)
    rc = 0;
  close_id(mspace);
  close_id(fspace);
  return rc;
}

/* The member named name, by bisection of the sorted names, or -1. */
static long
member_find(const rows_reader *r, const char *name)
{
  size_t lo = 0, hi = r->order ? r->names.n : 0;

  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    int c = strcmp(r->names.v[r->order[mid]], name);
    if (c == 0)
      return (long)r->order[mid];
    if (c < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  return -1;
}

int
rows_column(const rows_reader *r, const char *name)
{
  long i = member_find(r, name);
  if (i < 0 && r->col && strcmp(name, "index") == 0)
    i = member_find(r, "scene"); /* vibro-3's name of vibro-2's index */
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
  for (int k = 0; r->col && k < r->ncols; k++)
    close_id(r->col[k]);
  free(r->col);
  free(r->first);
  free(r->width);
  free(r->order);
  close_id(r->mtype);
  close_id(r->ds);
  names_free(&r->names);
  free(r->offset);
  free(r->text);
  memset(r, 0, sizeof *r);
  r->ds = r->mtype = H5I_INVALID_HID;
}

/* Add the names of a group's links to out in creation order when the
 * group tracks it (vibro-3's tables), else in name order. */
int
children_ordered(hid_t g, namelist *out)
{
  hid_t gcpl = H5Gget_create_plist(g);
  unsigned flags = 0;
  hsize_t idx = 0;
  int ordered = gcpl >= 0 && H5Pget_link_creation_order(gcpl, &flags) >= 0 &&
                (flags & H5P_CRT_ORDER_INDEXED);

  /* Creation order is the native order of its index: walking the index
   * (H5_ITER_NATIVE) reads each link once, where H5_ITER_INC first builds
   * a table of them, whose release freed a damaged link's bad pointer in
   * libhdf5 1.10.8 (H5G__link_release_table, seen in the reader fuzz) */
  close_id(gcpl);
  return H5Literate(g, ordered ? H5_INDEX_CRT_ORDER : H5_INDEX_NAME,
                    ordered ? H5_ITER_NATIVE : H5_ITER_INC, &idx, names_collect, out) < 0
             ? -1
             : 0;
}

/* Read a 1-d dataset of fixed-length strings (vibro-3's `contact`
 * coordinate) into out; 0, or -1. */
int
column_texts(hid_t loc, const char *path, namelist *out)
{
  hid_t ds = H5Dopen2(loc, path, H5P_DEFAULT), ftype = H5I_INVALID_HID;
  hid_t space = H5I_INVALID_HID, mtype = H5I_INVALID_HID;
  hssize_t n = -1;
  char *v = NULL;
  size_t size = 0;
  int rc = -1;

  if (ds >= 0) {
    ftype = H5Dget_type(ds);
    space = H5Dget_space(ds);
    n = space >= 0 ? H5Sget_simple_extent_npoints(space) : -1;
  }
  if (ftype >= 0 && n >= 0 && H5Tget_class(ftype) == H5T_STRING && H5Tis_variable_str(ftype) <= 0) {
    size = H5Tget_size(ftype) + 1;
    mtype = H5Tcopy(H5T_C_S1);
    v = calloc((size_t)n + 1, size);
  }
  if (v && mtype >= 0 && H5Tset_size(mtype, size) >= 0 &&
      H5Tset_strpad(mtype, H5T_STR_NULLTERM) >= 0 &&
      (n == 0 || H5Dread(ds, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) >= 0)) {
    rc = 0;
    for (hssize_t i = 0; i < n && rc == 0; i++)
      rc = names_push(out, v + (size_t)i * size);
  }
  free(v);
  close_id(mtype);
  close_id(space);
  close_id(ftype);
  close_id(ds);
  return rc;
}
