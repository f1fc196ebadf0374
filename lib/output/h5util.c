/* h5util.c - small HDF5 helpers: closing, attributes, error silencing. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "h5util.h"

/* Silence HDF5's error printing for the span of a call. */
void
vb_h5_quiet_begin(vb_h5quiet *q)
{
  q->saved = H5Eget_auto2(H5E_DEFAULT, &q->func, &q->data) >= 0;
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
}

/* Restore HDF5's error printing. */
void
vb_h5_quiet_end(vb_h5quiet *q)
{
  if (q->saved)
    H5Eset_auto2(H5E_DEFAULT, q->func, q->data);
}

/* Close an identifier of any kind. */
int
vb_h5_close(hid_t id)
{
  herr_t r;

  if (id < 0)
    return 0;
  switch (H5Iget_type(id)) {
  case H5I_FILE: r = H5Fclose(id); break;
  case H5I_GROUP: r = H5Gclose(id); break;
  case H5I_DATASET: r = H5Dclose(id); break;
  case H5I_DATASPACE: r = H5Sclose(id); break;
  case H5I_DATATYPE: r = H5Tclose(id); break;
  case H5I_ATTR: r = H5Aclose(id); break;
  case H5I_GENPROP_LST: r = H5Pclose(id); break;
  default: r = -1; break;
  }
  return r < 0 ? -1 : 0;
}

/* Write an attribute of type ftype and dataspace space from value. */
static int
attr_write(hid_t obj, const char *name, hid_t ftype, hid_t mtype, hid_t space, const void *value)
{
  hid_t attr = H5I_INVALID_HID;
  int rc = -1;

  if (space >= 0)
    attr = H5Acreate2(obj, name, ftype, space, H5P_DEFAULT, H5P_DEFAULT);
  if (attr >= 0 && H5Awrite(attr, mtype, value) >= 0)
    rc = 0;
  if (vb_h5_close(attr) < 0)
    rc = -1;
  return rc;
}

/* A variable-length UTF-8 string type (the attributes of files written
 * before vibro wrote fixed-length ones, and texts over COMPACT_TEXT), or
 * a negative id. */
static hid_t
vlen_string(void)
{
  hid_t type = H5Tcopy(H5T_C_S1);

  if (type >= 0 && (H5Tset_size(type, H5T_VARIABLE) < 0 || H5Tset_cset(type, H5T_CSET_UTF8) < 0)) {
    vb_h5_close(type);
    return H5I_INVALID_HID;
  }
  return type;
}

/* Bytes of string data an attribute holds in its own object header
 * message at most: a message is at most 64 KiB, and the files vibro
 * writes keep attributes compact (libver 1.8, no dense storage). */
#define COMPACT_TEXT 60000

/* A fixed-length, NUL-terminated string type of size bytes (at least 1),
 * UTF-8 when utf8 is set, else ASCII (which readers of the fixed-length
 * attributes before this version read; HDF5 converts no string between
 * character sets), or a negative id.  vibro writes its strings fixed-length:
 * variable-length ones live in the file's global heap, the path of most
 * of libhdf5's crashes on a damaged file (issue 19, item 6).  Only a
 * string attribute longer than COMPACT_TEXT (a study text of hundreds of
 * contacts) is variable-length, which a compact attribute cannot hold. */
static hid_t
fixed_string(size_t size, int utf8)
{
  hid_t type;

  if (size > COMPACT_TEXT)
    return vlen_string();
  type = H5Tcopy(H5T_C_S1);
  if (type >= 0 && (H5Tset_size(type, size ? size : 1) < 0 ||
                    H5Tset_strpad(type, H5T_STR_NULLTERM) < 0 ||
                    H5Tset_cset(type, utf8 ? H5T_CSET_UTF8 : H5T_CSET_ASCII) < 0)) {
    vb_h5_close(type);
    return H5I_INVALID_HID;
  }
  return type;
}

/* True if text has a byte outside ASCII. */
static int
has_utf8(const char *text)
{
  for (; *text; text++)
    if ((unsigned char)*text >= 0x80)
      return 1;
  return 0;
}

/* Scalar fixed-length string attribute (NULL as ""): its bytes in the
 * attribute's own message, none in the global heap (fixed_string). */
int
vb_h5_attr_string(hid_t obj, const char *name, const char *value)
{
  hid_t type, space = H5Screate(H5S_SCALAR);
  int rc = -1;

  if (!value)
    value = "";
  type = fixed_string(strlen(value) + 1, has_utf8(value));
  if (type >= 0)
    rc = attr_write(obj, name, type, type, space,
                    H5Tis_variable_str(type) > 0 ? (const void *)&value : (const void *)value);
  if (vb_h5_close(type) < 0 || vb_h5_close(space) < 0)
    rc = -1;
  return rc;
}

/* The same as vb_h5_attr_string (kept for the callers that name it). */
int
vb_h5_attr_fixed(hid_t obj, const char *name, const char *value)
{
  return vb_h5_attr_string(obj, name, value);
}

/* The fixed-length string type of size bytes (utf8 or not) in c, made at
 * its first use (or a new one, closed by the caller, when c is full; *own
 * then set). */
static hid_t
attrs_type(vb_h5_attrs *c, size_t size, int utf8, int *own)
{
  hid_t type;

  *own = 0;
  for (int i = 0; i < c->ntypes; i++)
    if (c->size[i] == size && c->utf8[i] == utf8)
      return c->type[i];
  type = fixed_string(size, utf8);
  if (type < 0 || c->ntypes == VB_H5_ATTR_TYPES) {
    *own = 1;
    return type;
  }
  c->size[c->ntypes] = size;
  c->utf8[c->ntypes] = utf8;
  c->type[c->ntypes++] = type;
  return type;
}

/* c's scalar dataspace, made at its first use; negative on failure. */
static hid_t
attrs_scalar(vb_h5_attrs *c)
{
  if (c->scalar <= 0)
    c->scalar = H5Screate(H5S_SCALAR);
  return c->scalar;
}

/* vb_h5_attr_string with c's dataspace and types (a text over
 * COMPACT_TEXT: vb_h5_attr_string itself). */
int
vb_h5_attrs_string(vb_h5_attrs *c, hid_t obj, const char *name, const char *value)
{
  size_t size;
  hid_t type, space = attrs_scalar(c);
  int own, rc;

  if (!value)
    value = "";
  size = strlen(value) + 1;
  if (size > COMPACT_TEXT)
    return vb_h5_attr_string(obj, name, value);
  type = attrs_type(c, size, has_utf8(value), &own);
  rc = type >= 0 && space >= 0 ? attr_write(obj, name, type, type, space, value) : -1;
  if (own && vb_h5_close(type) < 0)
    rc = -1;
  return rc;
}

/* vb_h5_attr_double with c's dataspace. */
int
vb_h5_attrs_double(vb_h5_attrs *c, hid_t obj, const char *name, double value)
{
  hid_t space = attrs_scalar(c);

  return space >= 0 ? attr_write(obj, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, space, &value) : -1;
}

/* Close what c made; 0 or -1. */
int
vb_h5_attrs_done(vb_h5_attrs *c)
{
  int rc = c->scalar > 0 ? vb_h5_close(c->scalar) : 0;

  for (int i = 0; i < 2; i++)
    rc |= c->dcpl[i] > 0 ? vb_h5_close(c->dcpl[i]) : 0;

  for (int i = 0; i < c->ntypes; i++)
    rc |= vb_h5_close(c->type[i]);
  *c = (vb_h5_attrs){0};
  return rc;
}

/* Read a scalar fixed-length string attribute of type ftype; NULL on error. */
static char *
read_fixed(hid_t attr, hid_t ftype)
{
  size_t size = H5Tget_size(ftype);
  hid_t mem = H5Tcopy(H5T_C_S1);
  char *buf = size > 0 && size < ((size_t)1 << 30) ? calloc(size + 1, 1) : NULL;

  /* HDF5 converts no string between character sets: the file's own */
  if (buf == NULL || mem < 0 || H5Tset_size(mem, size + 1) < 0 ||
      H5Tset_cset(mem, H5Tget_cset(ftype)) < 0 ||
      H5Tset_strpad(mem, H5T_STR_NULLTERM) < 0 || H5Aread(attr, mem, buf) < 0) {
    free(buf);
    buf = NULL;
  }
  vb_h5_close(mem);
  return buf;
}

/* Scalar float64 attribute. */
int
vb_h5_attr_double(hid_t obj, const char *name, double value)
{
  hid_t space = H5Screate(H5S_SCALAR);
  int rc = attr_write(obj, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, space, &value);

  return vb_h5_close(space) < 0 ? -1 : rc;
}

/* Scalar int64 attribute. */
int
vb_h5_attr_int64(hid_t obj, const char *name, long value)
{
  int64_t v = (int64_t)value;
  hid_t space = H5Screate(H5S_SCALAR);
  int rc = attr_write(obj, name, H5T_STD_I64LE, H5T_NATIVE_INT64, space, &v);

  return vb_h5_close(space) < 0 ? -1 : rc;
}

/* 1-d attribute of fixed-length strings, each padded with NULs to
 * the longest plus one byte (no global heap, as vb_h5_attr_string). */
int
vb_h5_attr_strings(hid_t obj, const char *name, const char *const *values, size_t n)
{
  hsize_t dims[1] = {(hsize_t)n};
  size_t size = 1, i;
  hid_t type, space;
  char *packed = NULL;
  int rc = -1, utf8 = 0;

  for (i = 0; i < n; i++) {
    if (values[i] && strlen(values[i]) + 1 > size)
      size = strlen(values[i]) + 1;
    utf8 |= values[i] && has_utf8(values[i]);
  }
  type = fixed_string(n * size > COMPACT_TEXT ? (size_t)COMPACT_TEXT + 1 : size, utf8);
  if (type >= 0 && H5Tis_variable_str(type) > 0)
    size = sizeof(char *); /* each value a pointer to its text */
  if (n == 0)
    space = H5Screate(H5S_NULL);
  else
    space = H5Screate_simple(1, dims, NULL);
  packed = calloc(n ? n : 1, size);
  for (i = 0; packed && i < n; i++) {
    const char *v = values[i] ? values[i] : "";
    if (H5Tis_variable_str(type) > 0)
      memcpy(packed + i * size, &v, sizeof v);
    else
      memcpy(packed + i * size, v, strlen(v));
  }
  if (packed && type >= 0 && space >= 0) {
    if (n == 0) {
      hid_t attr = H5Acreate2(obj, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
      rc = attr >= 0 ? 0 : -1;
      if (vb_h5_close(attr) < 0)
        rc = -1;
    } else {
      rc = attr_write(obj, name, type, type, space, packed);
    }
  }
  free(packed);
  if (vb_h5_close(type) < 0 || vb_h5_close(space) < 0)
    rc = -1;
  return rc;
}

/* Read a scalar string attribute, fixed-length (what vibro writes) or
 * variable-length (files of earlier versions); NULL if absent or unreadable. */
char *
vb_h5_attr_read_string(hid_t obj, const char *name)
{
  hid_t attr, type;
  char *value = NULL, *copy = NULL;

  if (H5Aexists(obj, name) <= 0)
    return NULL;
  attr = H5Aopen(obj, name, H5P_DEFAULT);
  type = attr >= 0 ? H5Aget_type(attr) : H5I_INVALID_HID;
  if (type >= 0 && H5Tget_class(type) == H5T_STRING && H5Tis_variable_str(type) == 0) {
    copy = read_fixed(attr, type);
    vb_h5_close(type);
    vb_h5_close(attr);
    return copy;
  }
  vb_h5_close(type);
  type = vlen_string();
  if (attr >= 0 && type >= 0 && H5Aread(attr, type, &value) >= 0 && value) {
    copy = strdup(value);
    H5free_memory(value);
  }
  vb_h5_close(type);
  vb_h5_close(attr);
  return copy;
}

/* Read a scalar int64 attribute. */
int
vb_h5_attr_read_int64(hid_t obj, const char *name, long *value)
{
  hid_t attr;
  int64_t v;
  int rc = -1;

  if (H5Aexists(obj, name) <= 0)
    return -1;
  attr = H5Aopen(obj, name, H5P_DEFAULT);
  if (attr >= 0 && H5Aread(attr, H5T_NATIVE_INT64, &v) >= 0) {
    *value = (long)v;
    rc = 0;
  }
  vb_h5_close(attr);
  return rc;
}

/* ds with its units attribute (none without units), or closed and
 * H5I_INVALID_HID where the attribute cannot be written. */
static hid_t
with_units(hid_t ds, const char *units)
{
  if (ds >= 0 && units && vb_h5_attr_string(ds, "units", units) < 0) {
    vb_h5_close(ds);
    ds = H5I_INVALID_HID;
  }
  return ds;
}

/* Create a 1-d, 2-d or 3-d float64/int64 dataset, contiguous, NaN-filled;
 * with early set, its space is allocated now and never filled (the
 * caller writes every byte of it, vb_stack_signal_offset). */
static hid_t
dataset_create(hid_t loc, const char *name, hid_t type, int rank, const hsize_t *dims,
               const char *units, int early, int scale)
{
  hid_t space = H5Screate_simple(rank, dims, NULL), dcpl = H5Pcreate(H5P_DATASET_CREATE);
  hid_t ds = H5I_INVALID_HID;
  double nan = NAN;

  if (space >= 0 && dcpl >= 0 &&
      (!H5Tequal(type, H5T_IEEE_F64LE) || H5Pset_fill_value(dcpl, H5T_NATIVE_DOUBLE, &nan) >= 0) &&
      (!early || (H5Pset_alloc_time(dcpl, H5D_ALLOC_TIME_EARLY) >= 0 &&
                  H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER) >= 0)) &&
      (!scale || (H5Pset_attr_creation_order(dcpl, H5P_CRT_ORDER_TRACKED) >= 0 &&
                  H5Pset_attr_phase_change(dcpl, 0, 0) >= 0)))
    ds = H5Dcreate2(loc, name, type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
  vb_h5_close(space);
  vb_h5_close(dcpl);
  return with_units(ds, units);
}

/* vb_h5_dataset through c: its creation properties (NaN-filled for
 * float64, default else) made once and its units attribute with c's types
 * (a table's 20 columns each made and closed their own: 30,000
 * instructions a column). */
hid_t
vb_h5_dataset_in(vb_h5_attrs *c, hid_t loc, const char *name, hid_t type, int rank,
                 const hsize_t *dims, const char *units)
{
  int f64 = H5Tequal(type, H5T_IEEE_F64LE) > 0;
  hid_t space, ds = H5I_INVALID_HID;
  double nan = NAN;

  if (c->dcpl[f64] <= 0) {
    c->dcpl[f64] = H5Pcreate(H5P_DATASET_CREATE);
    if (c->dcpl[f64] >= 0 && f64 && H5Pset_fill_value(c->dcpl[f64], H5T_NATIVE_DOUBLE, &nan) < 0) {
      vb_h5_close(c->dcpl[f64]);
      c->dcpl[f64] = H5I_INVALID_HID;
    }
  }
  space = c->dcpl[f64] >= 0 ? H5Screate_simple(rank, dims, NULL) : H5I_INVALID_HID;
  if (space >= 0)
    ds = H5Dcreate2(loc, name, type, space, H5P_DEFAULT, c->dcpl[f64], H5P_DEFAULT);
  vb_h5_close(space);
  if (ds >= 0 && units && vb_h5_attrs_string(c, ds, "units", units) < 0) {
    vb_h5_close(ds);
    ds = H5I_INVALID_HID;
  }
  return ds;
}

/* A dataset, allocated early or when first written. */
hid_t
vb_h5_dataset_early(hid_t loc, const char *name, hid_t type, int rank, const hsize_t *dims,
                    const char *units, int early)
{
  return dataset_create(loc, name, type, rank, dims, units, early, 0);
}

/* A float64 dataset whose values are not in this file: nseg segments
 * (offset and bytes each, in order) of the file `name` (relative to this
 * file's directory when opened with vb_h5_external_dapl), HDF5's external
 * storage (contiguous, readable by HDF5 >= 1.8). */
hid_t
vb_h5_dataset_external(hid_t loc, const char *dsname, int rank, const hsize_t *dims,
                       const char *units, const char *name, const int64_t *seg, int nseg)
{
  hid_t space = H5Screate_simple(rank, dims, NULL), dcpl = H5Pcreate(H5P_DATASET_CREATE);
  hid_t ds = H5I_INVALID_HID;
  int ok = space >= 0 && dcpl >= 0;

  for (int k = 0; ok && k < nseg; k++)
    ok = H5Pset_external(dcpl, name, (off_t)seg[2 * k], (hsize_t)seg[2 * k + 1]) >= 0;
  if (ok)
    ds = H5Dcreate2(loc, dsname, H5T_IEEE_F64LE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
  vb_h5_close(space);
  vb_h5_close(dcpl);
  return with_units(ds, units);
}

/* Access properties under which an external dataset's file names are
 * relative to the directory of the file holding it (or -1). */
hid_t
vb_h5_external_dapl(void)
{
  hid_t dapl = H5Pcreate(H5P_DATASET_ACCESS);

  if (dapl >= 0 && H5Pset_efile_prefix(dapl, "${ORIGIN}") < 0) {
    vb_h5_close(dapl);
    dapl = H5I_INVALID_HID;
  }
  return dapl;
}

/* vb_h5_dataset_early, allocated when first written and NaN-filled. */
hid_t
vb_h5_dataset(hid_t loc, const char *name, hid_t type, int rank, const hsize_t *dims, const char *units)
{
  return dataset_create(loc, name, type, rank, dims, units, 0, 0);
}

/* A dataset to be a dimension scale: its attributes in dense storage. */
hid_t
vb_h5_scale_dataset(hid_t loc, const char *name, hid_t type, int rank, const hsize_t *dims,
                    const char *units)
{
  return dataset_create(loc, name, type, rank, dims, units, 0, 1);
}

/* Values in a row of a dataset of rank 1 to 3 (the product of its
 * dimensions after the first), or -1. */
long
vb_h5_row_values(hid_t ds)
{
  hid_t space = H5Dget_space(ds);
  hsize_t d[3] = {0, 1, 1};
  int rank = space >= 0 ? H5Sget_simple_extent_ndims(space) : -1;

  if (rank < 1 || rank > 3 || H5Sget_simple_extent_dims(space, d, NULL) < 0) {
    vb_h5_close(space);
    return -1;
  }
  vb_h5_close(space);
  return (long)(d[1] * d[2]);
}

/* Write rows [r0, r0 + nr) of a dataset of rank 1 to 3 (whole along its
 * other dimensions) from buf; nothing when they hold no value.  0 or -1. */
int
vb_h5_write_rows(hid_t ds, hid_t mtype, long r0, long nr, const void *buf)
{
  hid_t fspace = H5Dget_space(ds), mspace = H5I_INVALID_HID;
  hsize_t off[3] = {0, 0, 0}, cnt[3] = {0, 1, 1};
  int rank = fspace >= 0 ? H5Sget_simple_extent_ndims(fspace) : -1, rc = -1;

  if (rank < 1 || rank > 3 || H5Sget_simple_extent_dims(fspace, cnt, NULL) < 0) {
    vb_h5_close(fspace);
    return -1;
  }
  off[0] = (hsize_t)r0;
  cnt[0] = (hsize_t)nr;
  if (nr == 0 || (rank > 1 && cnt[1] == 0) || (rank > 2 && cnt[2] == 0)) {
    vb_h5_close(fspace);
    return 0;
  }
  mspace = H5Screate_simple(rank, cnt, NULL);
  if (mspace >= 0 && H5Sselect_hyperslab(fspace, H5S_SELECT_SET, off, NULL, cnt, NULL) >= 0 &&
      H5Dwrite(ds, mtype, mspace, fspace, H5P_DEFAULT, buf) >= 0)
    rc = 0;
  vb_h5_close(mspace);
  vb_h5_close(fspace);
  return rc;
}

/* ------------------------------------------- dimension scales in bulk */

/* An entry of a scale's REFERENCE_LIST, as H5DS lays it out (HDF5's
 * ds_list_t: the attached dataset, the index of its dimension). */
typedef struct ds_ref {
  hobj_ref_t ref;
  unsigned int dim;
} ds_ref;

/* One scale's attachments, gathered until its REFERENCE_LIST is written. */
struct vb_h5_scale_refs {
  hid_t scale;
  ds_ref *refs;
  long n, cap;
};

/* The gathered attachments of scale s (added at its first attachment),
 * or NULL when out of memory. */
static struct vb_h5_scale_refs *
scale_refs(vb_h5_dims *d, hid_t s)
{
  for (int i = 0; i < d->n; i++)
    if (d->s[i].scale == s)
      return &d->s[i];
  if (d->n == d->cap) {
    int cap = d->cap ? 2 * d->cap : 8;
    struct vb_h5_scale_refs *g = realloc(d->s, (size_t)cap * sizeof *g);
    if (!g)
      return NULL;
    d->s = g;
    d->cap = cap;
  }
  d->s[d->n] = (struct vb_h5_scale_refs){.scale = s};
  return &d->s[d->n++];
}

/* Record that dimension dim of the dataset referenced by ref has scale s. */
static int
scale_ref_add(vb_h5_dims *d, hid_t s, hobj_ref_t ref, int dim)
{
  struct vb_h5_scale_refs *r = scale_refs(d, s);

  if (r && r->n == r->cap) {
    long cap = r->cap ? 2 * r->cap : 16;
    ds_ref *g = realloc(r->refs, (size_t)cap * sizeof *g);
    if (!g)
      return -1;
    r->refs = g;
    r->cap = cap;
  }
  if (!r)
    return -1;
  r->refs[r->n++] = (ds_ref){.ref = ref, .dim = (unsigned int)dim};
  return 0;
}

/* Attach scales[k] to dimension k of ds (rank 1 to 3; a negative scale
 * leaves its dimension without one): what H5DSattach_scale does once per
 * dimension, in one write.  ds's DIMENSION_LIST (a variable-length list of
 * object references per dimension) is written now; each scale's entry of
 * its REFERENCE_LIST is gathered in d and written by vb_h5_dims_done.
 * H5DSattach_scale rewrote both attributes at every call (the scale's list
 * deleted and created again, growing), 190,000 instructions a call, most
 * of the cost of a one-scene file; the attributes, their types and values
 * are the same.  0 or -1 (d then fails too). */
int
vb_h5_dims_attach(vb_h5_dims *d, hid_t ds, const hid_t *scales, int rank)
{
  hsize_t n = (hsize_t)rank;
  hvl_t list[3];
  hobj_ref_t to[3], self;
  hid_t type = H5I_INVALID_HID, space = H5I_INVALID_HID, attr = H5I_INVALID_HID;
  int rc = rank >= 1 && rank <= 3 && d->failed == 0 ? 0 : -1, k;

  if (rc == 0 && H5Rcreate(&self, ds, ".", H5R_OBJECT, H5I_INVALID_HID) < 0)
    rc = -1;
  for (k = 0; k < rank && rc == 0; k++) {
    list[k] = (hvl_t){.len = scales[k] >= 0 ? 1 : 0, .p = scales[k] >= 0 ? &to[k] : NULL};
    if (scales[k] >= 0 && (H5Rcreate(&to[k], scales[k], ".", H5R_OBJECT, H5I_INVALID_HID) < 0 ||
                           scale_ref_add(d, scales[k], self, k) < 0))
      rc = -1;
  }
  if (rc == 0) {
    type = H5Tvlen_create(H5T_STD_REF_OBJ);
    space = H5Screate_simple(1, &n, NULL);
    attr = type >= 0 && space >= 0
               ? H5Acreate2(ds, "DIMENSION_LIST", type, space, H5P_DEFAULT, H5P_DEFAULT)
               : H5I_INVALID_HID;
    rc = attr >= 0 && H5Awrite(attr, type, list) >= 0 ? 0 : -1;
  }
  if (vb_h5_close(attr) < 0 || vb_h5_close(space) < 0 || vb_h5_close(type) < 0)
    rc = -1;
  d->failed |= rc < 0;
  return rc;
}

/* Write a scale's REFERENCE_LIST: its attachments in order, each the
 * dataset and the dimension (H5DS's compound of "dataset", an object
 * reference, and "dimension", a native int). */
static int
reference_list(const struct vb_h5_scale_refs *r)
{
  hsize_t n = (hsize_t)r->n;
  hid_t type = H5Tcreate(H5T_COMPOUND, sizeof(ds_ref)), space = H5Screate_simple(1, &n, NULL);
  hid_t attr = H5I_INVALID_HID;
  int rc = -1;

  if (type >= 0 && space >= 0 &&
      H5Tinsert(type, "dataset", offsetof(ds_ref, ref), H5T_STD_REF_OBJ) >= 0 &&
      H5Tinsert(type, "dimension", offsetof(ds_ref, dim), H5T_NATIVE_INT) >= 0)
    attr = H5Acreate2(r->scale, "REFERENCE_LIST", type, space, H5P_DEFAULT, H5P_DEFAULT);
  if (attr >= 0 && H5Awrite(attr, type, r->refs) >= 0)
    rc = 0;
  if (vb_h5_close(attr) < 0 || vb_h5_close(space) < 0 || vb_h5_close(type) < 0)
    rc = -1;
  return rc;
}

/* Write the REFERENCE_LIST of every scale attached through d (in the
 * order of the attachments) and free d; the scales must still be open.
 * 0, or -1 when this or an attachment failed. */
int
vb_h5_dims_done(vb_h5_dims *d)
{
  int rc = d->failed ? -1 : 0;

  for (int i = 0; i < d->n; i++) {
    if (rc == 0 && d->s[i].n > 0)
      rc = reference_list(&d->s[i]);
    free(d->s[i].refs);
  }
  free(d->s);
  *d = (vb_h5_dims){0};
  return rc;
}
