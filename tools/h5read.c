/* h5read.c - reading a vibro output file with the HDF5 C API (see
 * h5read.h).  The commands discover what a file holds (scenes, bodies,
 * contacts, every 1-d signal, every event field, /study/table) instead of
 * assuming one version's list, so datasets added later show up without a
 * change here. */

#include <errno.h>
#include <sys/stat.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "h5heap.h"
#include "formats.h"
#include "h5read.h"

#define WALK_DEPTH    8 /* deepest nesting searched for signals */
#define FORMAT_PREFIX "vibro-"

/* snprintf into buf, cutting what does not fit (names and statuses are
 * short; a cut one still identifies its object). */
__attribute__((format(printf, 3, 4))) void
text_format(char *buf, size_t len, const char *fmt, ...)
{
  va_list ap;

  va_start(ap, fmt);
  vsnprintf(buf, len, fmt, ap);
  va_end(ap);
}

/* Close an HDF5 identifier of any kind; negative ids are ignored. */
void
close_id(hid_t id)
{
  if (id < 0)
    return;
  switch (H5Iget_type(id)) {
  case H5I_FILE: H5Fclose(id); break;
  case H5I_GROUP: H5Gclose(id); break;
  case H5I_DATASET: H5Dclose(id); break;
  case H5I_DATASPACE: H5Sclose(id); break;
  case H5I_DATATYPE: H5Tclose(id); break;
  case H5I_ATTR: H5Aclose(id); break;
  case H5I_GENPROP_LST: H5Pclose(id); break;
  default: break;
  }
}

/* Free the memory HDF5 allocated for variable-length data in buf. */
void
reclaim(hid_t mtype, hid_t space, void *buf)
{
#if H5_VERSION_GE(1, 12, 0)
  H5Treclaim(mtype, space, H5P_DEFAULT, buf);
#else
  H5Dvlen_reclaim(mtype, space, H5P_DEFAULT, buf);
#endif
}

/* Append a copy of s to the list; -1 when out of memory. */
int
names_push(namelist *l, const char *s)
{
  char **v;
  char *copy;

  if (l->n == l->cap) {
    size_t cap = l->cap ? 2 * l->cap : 16;
    v = realloc(l->v, cap * sizeof *v);
    if (!v)
      return -1;
    l->v = v;
    l->cap = cap;
  }
  copy = strdup(s);
  if (!copy)
    return -1;
  l->v[l->n++] = copy;
  return 0;
}

/* Index of s in the list, or -1. */
long
names_find(const namelist *l, const char *s)
{
  for (size_t i = 0; i < l->n; i++)
    if (strcmp(l->v[i], s) == 0)
      return (long)i;
  return -1;
}

/* Free the names and empty the list. */
void
names_free(namelist *l)
{
  for (size_t i = 0; i < l->n; i++)
    free(l->v[i]);
  free(l->v);
  l->v = NULL;
  l->n = l->cap = 0;
}

/* Join the names with ", " into buf, cut with ", ..." beyond CHOICES_MAX
 * characters; "none" for an empty list. */
void
names_join(const namelist *l, char *buf, size_t len)
{
  size_t used = 0;

  snprintf(buf, len, "%s", l->n ? "" : "none");
  for (size_t i = 0; i < l->n; i++) {
    size_t need = strlen(l->v[i]) + (i ? 2 : 0);
    if (used + need > CHOICES_MAX || used + need + 6 > len) {
      snprintf(buf + used, len - used, "%s...", i ? ", " : "");
      return;
    }
    used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? ", " : "", l->v[i]);
  }
}

/* Link iteration callback: collect each name. */
herr_t
names_collect(hid_t group, const char *name, const H5L_info_t *info, void *data)
{
  (void)group;
  (void)info;
  return names_push(data, name) < 0 ? -1 : 0;
}

/* True if path (relative to loc) names an object; follows soft and
 * external links. */
int
has_object(hid_t loc, const char *path)
{
  hid_t obj;

  if (path[0] == '\0')
    return 0;
  obj = H5Oopen(loc, path, H5P_DEFAULT);
  if (obj < 0)
    return 0;
  close_id(obj);
  return 1;
}

/* True if path (relative to loc) names a group. */
int
is_group(hid_t loc, const char *path)
{
  hid_t obj;
  int group;

  if (path[0] == '\0')
    return 0;
  obj = H5Oopen(loc, path, H5P_DEFAULT);
  if (obj < 0)
    return 0;
  group = H5Iget_type(obj) == H5I_GROUP;
  close_id(obj);
  return group;
}

/* Order names as strcmp does. */
static int
cmp_text(const void *a, const void *b)
{
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The names of the links in group path under loc, in name order, added to
 * out.  An absent group adds nothing.  Returns 0, or -1 when out of
 * memory (reported against file). */
int
children(const char *file, hid_t loc, const char *path, namelist *out)
{
  hid_t g;
  hsize_t idx = 0;
  herr_t r;

  if (!has_object(loc, path))
    return 0;
  g = H5Gopen2(loc, path, H5P_DEFAULT);
  if (g < 0)
    return 0;
  /* the index walked as it lies (no table of links: children_ordered),
   * then sorted by name as H5_ITER_INC would give them */
  size_t first = out->n;
  r = H5Literate(g, H5_INDEX_NAME, H5_ITER_NATIVE, &idx, names_collect, out);
  close_id(g);
  if (r < 0)
    return cli_complain(file, "cannot list %s", path);
  qsort(out->v + first, out->n - first, sizeof *out->v, cmp_text);
  return 0;
}

/* Read a scalar string attribute (variable or fixed length) into buf.
 * Returns 0, or -1 if absent or not a string (buf is then ""). */
int
attr_text(hid_t obj, const char *name, char *buf, size_t len)
{
  hid_t attr = H5I_INVALID_HID, ftype = H5I_INVALID_HID, mtype = H5I_INVALID_HID;
  hid_t space = H5I_INVALID_HID;
  char *text = NULL;
  int rc = -1;

  buf[0] = '\0';
  if (H5Aexists(obj, name) <= 0)
    return -1;
  attr = H5Aopen(obj, name, H5P_DEFAULT);
  if (attr < 0)
    goto done;
  ftype = H5Aget_type(attr);
  space = H5Aget_space(attr);
  if (ftype < 0 || space < 0 || H5Tget_class(ftype) != H5T_STRING ||
      H5Sget_simple_extent_npoints(space) != 1)
    goto done;
  mtype = H5Tcopy(H5T_C_S1);
  if (mtype < 0)
    goto done;
  if (H5Tis_variable_str(ftype) > 0) {
    if (H5Tset_size(mtype, H5T_VARIABLE) < 0 || H5Tset_cset(mtype, H5Tget_cset(ftype)) < 0 ||
        H5Aread(attr, mtype, &text) < 0)
      goto done;
    snprintf(buf, len, "%s", text ? text : "");
    H5free_memory(text);
  } else {
    size_t size = H5Tget_size(ftype);
    if (size == 0 || size > ATTR_TEXT_MAX || !(text = calloc(size + 1, 1)))
      goto done;
    /* HDF5 converts no string between character sets: the file's own */
    if (H5Tset_size(mtype, size + 1) < 0 || H5Tset_strpad(mtype, H5T_STR_NULLTERM) < 0 ||
        H5Tset_cset(mtype, H5Tget_cset(ftype)) < 0 || H5Aread(attr, mtype, text) < 0) {
      free(text);
      goto done;
    }
    snprintf(buf, len, "%s", text);
    free(text);
  }
  rc = 0;
done:
  close_id(mtype);
  close_id(space);
  close_id(ftype);
  close_id(attr);
  return rc;
}

/* Read a scalar numeric attribute as a double.  Returns 0, or -1 if absent
 * or not a number (*out is then NaN). */
int
attr_number(hid_t obj, const char *name, double *out)
{
  hid_t attr, ftype, space;
  H5T_class_t cls;
  int rc = -1;

  *out = NAN;
  if (H5Aexists(obj, name) <= 0)
    return -1;
  attr = H5Aopen(obj, name, H5P_DEFAULT);
  if (attr < 0)
    return -1;
  ftype = H5Aget_type(attr);
  space = H5Aget_space(attr);
  cls = ftype < 0 ? H5T_NO_CLASS : H5Tget_class(ftype);
  if ((cls == H5T_FLOAT || cls == H5T_INTEGER) && space >= 0 &&
      H5Sget_simple_extent_npoints(space) == 1 && H5Aread(attr, H5T_NATIVE_DOUBLE, out) >= 0)
    rc = 0;
  close_id(space);
  close_id(ftype);
  close_id(attr);
  return rc;
}

/* Open path read-only and check that it is a vibro output: its root
 * attribute format reads "vibro-N".  Returns the file, or a negative id
 * after saying why. */
hid_t
output_open(const char *path, char *format, size_t len)
{
  struct stat st;
  FILE *f;
  hid_t file, root, fapl;
  htri_t is;
  char names[TEXT_MAX];

  /* a regular file only: opening a FIFO would wait for a writer */
  if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
    cli_complain(path, "not a vibro output (not a regular file)");
    return H5I_INVALID_HID;
  }
  f = fopen(path, "rb");
  if (!f) {
    cli_complain(path, "cannot open: %s", strerror(errno));
    return H5I_INVALID_HID;
  }
  fclose(f);
  is = H5Fis_hdf5(path);
  if (is <= 0) {
    cli_complain(path, "not a vibro output (not an HDF5 file)");
    return H5I_INVALID_HID;
  }
  /* A metadata cache of at most 4 MiB: reading the groups of thousands of
   * scenes (layout vibro-1) then takes bounded memory */
  fapl = H5Pcreate(H5P_FILE_ACCESS);
  if (fapl >= 0) {
    H5AC_cache_config_t mdc = {.version = H5AC__CURR_CACHE_CONFIG_VERSION};
    if (H5Pget_mdc_config(fapl, &mdc) >= 0) {
      mdc.set_initial_size = 1;
      mdc.initial_size = 1 << 20;
      mdc.min_size = 1 << 20;
      mdc.max_size = 4 << 20;
      H5Pset_mdc_config(fapl, &mdc);
    }
  }
  file = H5Fopen(path, H5F_ACC_RDONLY, fapl >= 0 ? fapl : H5P_DEFAULT);
  close_id(fapl);
  if (file < 0) {
    cli_complain(path, "cannot open the HDF5 file");
    return H5I_INVALID_HID;
  }
  /* the global heap of its string attributes before any is read (a
   * damaged file stays open: closing would free what libhdf5 misread) */
  if (heap_check(path, file) < 0)
    return H5I_INVALID_HID;
  root = H5Gopen2(file, "/", H5P_DEFAULT);
  if (root < 0 || attr_text(root, "format", format, len) < 0) {
    close_id(root);
    close_id(file);
    cli_complain(path, "not a vibro output (no 'format' attribute)");
    return H5I_INVALID_HID;
  }
  close_id(root);
  /* the reader is chosen from the table (formats.c); a "vibro-N" that no
   * row names is a later layout, not a damaged file: say which this reads */
  format_names(names, sizeof names);
  if (!format_reader_of(format)) {
    if (format_version(format) < 1)
      cli_complain(path, "not a vibro output (format '%s', valid: %s)", format, names);
    else
      cli_complain(path, "format '%s' is newer than this vibro reads (valid: %s): update vibro",
                   format, names);
    close_id(file);
    return H5I_INVALID_HID;
  }
  return file;
}

/* Scene number of a group name of digits, or -1. */
long
scene_number(const char *group)
{
  char *end;
  long n;

  if (group[0] < '0' || group[0] > '9')
    return -1;
  errno = 0;
  n = strtol(group, &end, 10);
  return errno || *end ? -1 : n;
}

/* The valid scene choices for a message: "0-999" for a contiguous
 * numbered run, otherwise the group names. */
void
scene_choices(const namelist *scenes, char *buf, size_t len)
{
  long first = scenes->n ? scene_number(scenes->v[0]) : -1;
  int contiguous = first >= 0;

  for (size_t i = 0; contiguous && i < scenes->n; i++)
    contiguous = scene_number(scenes->v[i]) == first + (long)i;
  if (contiguous && scenes->n > 1)
    snprintf(buf, len, "%ld-%ld", first, first + (long)scenes->n - 1);
  else if (contiguous)
    snprintf(buf, len, "%ld", first);
  else
    names_join(scenes, buf, len);
}

/* Name a scene in messages: its number, or its group name. */
void
scene_label(const char *group, char *buf, size_t len)
{
  long n = scene_number(group);

  if (n >= 0)
    snprintf(buf, len, "%ld", n);
  else
    snprintf(buf, len, "'%s'", group);
}

/* Find the scene group chosen by arg (a number, or a group name) among
 * scenes; its index, or -1 after saying which are valid. */
long
scene_find(const char *file, const namelist *scenes, const char *arg)
{
  char choices[CHOICES_MAX + 16];
  long want = scene_number(arg);

  for (size_t i = 0; i < scenes->n; i++)
    if ((want >= 0 && scene_number(scenes->v[i]) == want) || strcmp(scenes->v[i], arg) == 0)
      return (long)i;
  scene_choices(scenes, choices, sizeof choices);
  cli_complain(file, "no scene %s (valid: %s)", arg, choices);
  return -1;
}

/* Length of a 1-d numeric dataset at path under loc; -1 if there is no
 * such dataset. */
long
signal_length(hid_t loc, const char *path)
{
  hid_t obj, ds, type, space;
  hsize_t dims[1];
  H5T_class_t cls;
  long n = -1;

  obj = H5Oopen(loc, path, H5P_DEFAULT);
  if (obj < 0)
    return -1;
  if (H5Iget_type(obj) != H5I_DATASET) {
    close_id(obj);
    return -1;
  }
  ds = obj;
  type = H5Dget_type(ds);
  space = H5Dget_space(ds);
  cls = type < 0 ? H5T_NO_CLASS : H5Tget_class(type);
  if ((cls == H5T_FLOAT || cls == H5T_INTEGER) && space >= 0 &&
      H5Sget_simple_extent_ndims(space) == 1 && H5Sget_simple_extent_dims(space, dims, NULL) == 1)
    n = (long)dims[0];
  close_id(space);
  close_id(type);
  close_id(ds);
  return n;
}

/* Number of rows of a 1-d dataset of any type at path; -1 if none. */
long
dataset_rows(hid_t loc, const char *path)
{
  hid_t ds, space;
  hsize_t dims[1];
  long n = -1;

  if (!has_object(loc, path))
    return -1;
  if (is_group(loc, path)) {
    /* vibro-3: the length of the table's coordinate */
    char sub[PATH_LEN];
    text_format(sub, sizeof sub, "%s/scene", path);
    if (!has_object(loc, sub))
      text_format(sub, sizeof sub, "%s/event", path);
    return has_object(loc, sub) && !is_group(loc, sub) ? dataset_rows(loc, sub) : -1;
  }
  ds = H5Dopen2(loc, path, H5P_DEFAULT);
  if (ds < 0)
    return -1;
  space = H5Dget_space(ds);
  if (space >= 0 && H5Sget_simple_extent_ndims(space) == 1 &&
      H5Sget_simple_extent_dims(space, dims, NULL) == 1)
    n = (long)dims[0];
  close_id(space);
  close_id(ds);
  return n;
}

/* Read count doubles from position start of a 1-d dataset. */
int
read_block(hid_t ds, hsize_t start, hsize_t count, double *buf)
{
  hid_t fspace, mspace;
  int rc = -1;

  fspace = H5Dget_space(ds);
  mspace = H5Screate_simple(1, &count, NULL);
  if (fspace >= 0 && mspace >= 0 &&
      H5Sselect_hyperslab(fspace, H5S_SELECT_SET, &start, NULL, &count, NULL) >= 0 &&
      H5Dread(ds, H5T_NATIVE_DOUBLE, mspace, fspace, H5P_DEFAULT, buf) >= 0)
    rc = 0;
  close_id(mspace);
  close_id(fspace);
  return rc;
}

/* The first value of a 1-d numeric dataset at path, or NaN. */
double
first_value(hid_t loc, const char *path)
{
  hid_t ds;
  double v = NAN;

  if (signal_length(loc, path) < 1)
    return NAN;
  ds = H5Dopen2(loc, path, H5P_DEFAULT);
  if (ds < 0)
    return NAN;
  if (read_block(ds, 0, 1, &v) < 0)
    v = NAN;
  close_id(ds);
  return v;
}

/* Last value of a 1-d dataset, NaN if there is none. */
double
last_value(hid_t loc, const char *path)
{
  long n = signal_length(loc, path);
  hid_t ds;
  double v = NAN;

  if (n < 1)
    return NAN;
  ds = H5Dopen2(loc, path, H5P_DEFAULT);
  if (ds < 0)
    return NAN;
  if (read_block(ds, n - 1, 1, &v) < 0)
    v = NAN;
  close_id(ds);
  return v;
}

/* Collect into out the paths (relative to the scene group) of every 1-d
 * numeric dataset below group `prefix` of the scene, except time. */
int
collect_signals(const char *file, hid_t scene, const char *prefix, int depth, namelist *out)
{
  namelist kids = {0};
  char path[PATH_LEN];
  int rc = 0;

  if (depth > WALK_DEPTH)
    return 0;
  if (children(file, scene, prefix[0] ? prefix : ".", &kids) < 0)
    return -1;
  for (size_t i = 0; i < kids.n && rc == 0; i++) {
    hid_t obj;
    if (prefix[0])
      snprintf(path, sizeof path, "%s/%s", prefix, kids.v[i]);
    else
      snprintf(path, sizeof path, "%s", kids.v[i]);
    obj = H5Oopen(scene, path, H5P_DEFAULT);
    if (obj < 0)
      continue;
    if (H5Iget_type(obj) == H5I_GROUP) {
      rc = collect_signals(file, scene, path, depth + 1, out);
    } else if (strcmp(path, "time") != 0 && signal_length(scene, path) >= 0) {
      if (names_push(out, path) < 0)
        rc = cli_complain(file, "out of memory");
    }
    close_id(obj);
  }
  names_free(&kids);
  return rc;
}

int
format_version(const char *format)
{
  char *end;
  long version = 0;

  if (strncmp(format, FORMAT_PREFIX, strlen(FORMAT_PREFIX)) == 0) {
    errno = 0;
    version = strtol(format + strlen(FORMAT_PREFIX), &end, 10);
    if (errno || *end || end == format + strlen(FORMAT_PREFIX) || version > 1000)
      version = 0;
  }
  return (int)version;
}

int
attr_strings(hid_t obj, const char *name, namelist *out)
{
  hid_t attr, ftype = H5I_INVALID_HID, space = H5I_INVALID_HID, mtype = H5I_INVALID_HID;
  hssize_t n;
  int rc = -1;

  if (H5Aexists(obj, name) <= 0)
    return -1;
  attr = H5Aopen(obj, name, H5P_DEFAULT);
  ftype = attr < 0 ? H5I_INVALID_HID : H5Aget_type(attr);
  space = attr < 0 ? H5I_INVALID_HID : H5Aget_space(attr);
  n = space < 0 ? -1 : H5Sget_simple_extent_npoints(space);
  if (ftype < 0 || n < 0 || H5Tget_class(ftype) != H5T_STRING)
    goto done;
  mtype = H5Tcopy(H5T_C_S1);
  if (H5Tis_variable_str(ftype) > 0) {
    char **v = calloc((size_t)n + 1, sizeof *v);
    if (v && H5Tset_size(mtype, H5T_VARIABLE) >= 0 &&
        H5Tset_cset(mtype, H5Tget_cset(ftype)) >= 0 && H5Aread(attr, mtype, v) >= 0) {
      rc = 0;
      for (hssize_t i = 0; i < n; i++)
        if (names_push(out, v[i] ? v[i] : "") < 0)
          rc = -1;
      reclaim(mtype, space, v);
    }
    free(v);
  } else {
    size_t size = H5Tget_size(ftype) + 1;
    char *v = (hsize_t)n * size <= ATTR_TEXT_MAX ? calloc((size_t)n + 1, size) : NULL;
    if (v && H5Tset_size(mtype, size) >= 0 && H5Tset_strpad(mtype, H5T_STR_NULLTERM) >= 0 &&
        H5Tset_cset(mtype, H5Tget_cset(ftype)) >= 0 && H5Aread(attr, mtype, v) >= 0) {
      rc = 0;
      for (hssize_t i = 0; i < n; i++)
        if (names_push(out, v + (size_t)i * size) < 0)
          rc = -1;
    }
    free(v);
  }
done:
  close_id(mtype);
  close_id(space);
  close_id(ftype);
  close_id(attr);
  return rc;
}

/* Rows of an integer dataset [rows] or [rows][k] with a nonzero entry. */
long
rows_nonzero(hid_t loc, const char *path, long *first)
{
  hid_t ds = has_object(loc, path) ? H5Dopen2(loc, path, H5P_DEFAULT) : H5I_INVALID_HID;
  hid_t space = ds >= 0 ? H5Dget_space(ds) : H5I_INVALID_HID;
  hsize_t dims[2] = {0, 1};
  int nd = space >= 0 ? H5Sget_simple_extent_ndims(space) : -1;
  long found = -1;
  long long *buf = NULL;

  *first = -1;
  if ((nd == 1 || nd == 2) && H5Sget_simple_extent_dims(space, dims, NULL) == nd) {
    hsize_t block = dims[1] > 0 && dims[1] < BLOCK ? BLOCK / dims[1] : 1;
    buf = malloc((size_t)(block * (dims[1] > 0 ? dims[1] : 1)) * sizeof *buf);
    found = buf ? 0 : -1;
    for (hsize_t start = 0; buf && found >= 0 && start < dims[0]; start += block) {
      hsize_t at[2] = {start, 0}, count[2] = {dims[0] - start < block ? dims[0] - start : block,
                                              dims[1]};
      hid_t mem = H5Screate_simple(nd, count, NULL);
      if (mem < 0 ||
          H5Sselect_hyperslab(space, H5S_SELECT_SET, at, NULL, count, NULL) < 0 ||
          H5Dread(ds, H5T_NATIVE_LLONG, mem, space, H5P_DEFAULT, buf) < 0) {
        found = -1;
      } else {
        for (hsize_t i = 0; i < count[0]; i++) {
          int any = 0;
          for (hsize_t k = 0; k < dims[1]; k++)
            any |= buf[i * dims[1] + k] != 0;
          if (any && *first < 0)
            *first = (long)(start + i);
          found += any;
        }
      }
      close_id(mem);
    }
  }
  free(buf);
  close_id(space);
  close_id(ds);
  return found;
}
