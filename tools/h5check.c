/* h5check.c - a vibro output's structure checked before a reader trusts
 * it (issue 19, item 6): the groups a layout has, every table column's
 * rank, length and type, every dataset's bytes inside the file, the
 * attributes the readers use readable.  A damaged file is then one line "FILE: damaged:
 * what" and exit 1, never a summary of what HDF5 could still reach (a
 * damaged root B-tree once gave "0 scenes finished" and exit 0), nor a
 * loop over 2^40 rows a damaged header claims. */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "h5check.h"
#include "formats.h"
#include "h5read.h"

#define ATTR_BYTES  ATTR_TEXT_MAX /* largest attribute read */
#define MODEL_DEPTH 3             /* /model, its bodies and contacts, their points */

/* What a check needs: the file's name for messages and its size. */
typedef struct checker {
  const char *file;
  hsize_t size; /* bytes of the file */
} checker;

/* Report what is damaged at path; -1. */
__attribute__((format(printf, 3, 4))) static int
damaged(const checker *c, const char *path, const char *fmt, ...)
{
  char what[PATH_LEN];
  va_list ap;

  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  return cli_complain(c->file, "damaged: %s: %s", path, what);
}

/* What is wrong with a stored type, or NULL: a number's bits inside its
 * bytes (a float's sign, exponent and mantissa inside its bits), a
 * compound's members inside it.  libhdf5 1.10.8 takes a damaged one as
 * it is and converts past its buffers (H5T__bit_copy, H5T__conv_struct_opt
 * in the reader fuzz). */
static const char *
type_wrong(hid_t type, int depth)
{
  H5T_class_t cls = H5Tget_class(type);
  size_t size = H5Tget_size(type), prec, spos, epos, esize, mpos, msize;
  int off;

  if (cls == H5T_INTEGER || cls == H5T_FLOAT) {
    prec = H5Tget_precision(type);
    off = H5Tget_offset(type);
    if (prec == 0 || off < 0 || prec + (size_t)off > 8 * size)
      return "its numbers' bits pass their bytes";
    if (cls == H5T_FLOAT && (H5Tget_fields(type, &spos, &epos, &esize, &mpos, &msize) < 0 ||
                             spos >= prec || epos + esize > prec || mpos + msize > prec))
      return "its numbers' exponent or mantissa pass their bits";
  }
  if (cls == H5T_COMPOUND) {
    int n = H5Tget_nmembers(type);
    const char *wrong = n < 0 || depth > 2 ? "cannot read its columns" : NULL;
    for (int i = 0; !wrong && i < n; i++) {
      hid_t m = H5Tget_member_type(type, (unsigned)i);
      size_t at = H5Tget_member_offset(type, (unsigned)i), msz = m >= 0 ? H5Tget_size(m) : 0;
      wrong = m < 0 || msz == 0 || at > size || msz > size - at ? "a column passes its rows"
                                                                 : type_wrong(m, depth + 1);
      close_id(m);
    }
    return wrong;
  }
  return NULL;
}

/* Read one attribute whole if it is numbers or fixed-length text (what
 * the readers use of what vibro writes); 0, or -1 when HDF5 cannot.  The
 * rest is left alone: H5DS's REFERENCE_LIST and DIMENSION_LIST, which no
 * reader follows, and the variable-length strings of older files, whose
 * global heap each reader reads only where it needs them (h5heap.c has
 * checked every such string's heap object when the file was opened). */
static int
attr_read_whole(hid_t attr)
{
  hid_t ftype = H5Aget_type(attr), space = H5Aget_space(attr);
  hssize_t n = space >= 0 ? H5Sget_simple_extent_npoints(space) : -1;
  size_t size = ftype >= 0 ? H5Tget_size(ftype) : 0;
  H5T_class_t cls = ftype >= 0 ? H5Tget_class(ftype) : H5T_NO_CLASS;
  void *buf = NULL;
  int rc = -1;

  if (ftype < 0 || n < 0 || size == 0 || (hsize_t)n * size > ATTR_BYTES || type_wrong(ftype, 0))
    goto done;
  if ((cls != H5T_STRING && cls != H5T_INTEGER && cls != H5T_FLOAT) ||
      (cls == H5T_STRING && H5Tis_variable_str(ftype) != 0)) {
    rc = 0;
    goto done;
  }
  buf = malloc((size_t)n * size + 1);
  if (buf && H5Aread(attr, ftype, buf) >= 0)
    rc = 0;
done:
  free(buf);
  close_id(space);
  close_id(ftype);
  return rc;
}

/* The attributes the readers use, by object (doc/format.md). */
static const char *const root_attrs[] = {"format", "vibro_version", "input", "source", "inputs",
                                         "scenes", NULL};
static const char *const study_attrs[] = {"mode", "sweep", "scenes", "params", "param_units", NULL};
static const char *const model_attrs[] = {"name", "type", "law", "scheme", "between", "mass",
                                          "u0", "v0", "k", "c", "gap", NULL};
static const char *const column_attrs[] = {"units", NULL};

/* Each of the attributes names of obj (at path) that it has reads; 0 or
 * -1 after a message.  Opened by name, as the readers do: listing every
 * attribute (H5Aiterate2) crashed libhdf5 1.10.8 on a damaged root. */
static int
attrs_check(const checker *c, hid_t obj, const char *path, const char *const *names)
{
  for (; *names; names++) {
    htri_t has = H5Aexists(obj, *names);
    hid_t attr = has > 0 ? H5Aopen(obj, *names, H5P_DEFAULT) : H5I_INVALID_HID;
    int rc = has == 0 ? 0 : attr >= 0 ? attr_read_whole(attr) : -1;
    close_id(attr);
    if (rc < 0)
      return damaged(c, path, "cannot read its attribute '%s'", *names);
  }
  return 0;
}

/* A dataset's bytes are inside the file: without filters, its shape's
 * bytes no more than the file's, and stored contiguously, every byte
 * before its end.  An unallocated dataset holds its fill value. */
static int
storage_check(const checker *c, hid_t ds, const char *path, hsize_t points, size_t size)
{
  hid_t dcpl = H5Dget_create_plist(ds);
  int filters = dcpl >= 0 ? H5Pget_nfilters(dcpl) : -1;
  int external = dcpl >= 0 ? H5Pget_external_count(dcpl) : -1;
  H5D_layout_t layout = dcpl >= 0 ? H5Pget_layout(dcpl) : H5D_LAYOUT_ERROR;
  haddr_t at = layout == H5D_CONTIGUOUS && external == 0 ? H5Dget_offset(ds) : HADDR_UNDEF;
  hsize_t need = points * (hsize_t)size;
  char name[32] = "";

  /* a checkpoint of an MPI run (doc/mpi.md) keeps its signals in
   * shared-rows.h5 beside it, and nowhere else */
  for (int k = 0; k < external; k++) {
    off_t off;
    hsize_t bytes;
    if (H5Pget_external(dcpl, (unsigned)k, sizeof name, name, &off, &bytes) < 0 ||
        strcmp(name, "shared-rows.h5") != 0) {
      close_id(dcpl);
      return damaged(c, path, "keeps its values in another file, '%.24s' (valid: shared-rows.h5 "
                     "beside it, an MPI run's checkpoint)", name);
    }
  }
  close_id(dcpl);
  if (filters < 0 || external < 0 || layout == H5D_LAYOUT_ERROR)
    return damaged(c, path, "cannot read its storage layout");
  if (external > 0)
    return 0;
  if (filters > 0)
    return 0;
  if (size && points > c->size / size)
    return damaged(c, path, "claims %llu values of %zu bytes, more than the file's %llu bytes",
                   (unsigned long long)points, size, (unsigned long long)c->size);
  if (layout == H5D_CONTIGUOUS && at != HADDR_UNDEF && (at > c->size || need > c->size - at))
    return damaged(c, path, "its %llu bytes at %llu pass the end of the file (%llu bytes)",
                   (unsigned long long)need, (unsigned long long)at,
                   (unsigned long long)c->size);
  return 0;
}

/* A dataset's class, rank and dimensions (rank at most 3). */
typedef struct shape {
  H5T_class_t cls;
  int vlen; /* a variable-length string */
  const char *wrong; /* what type_wrong found, or NULL */
  size_t size;
  int rank;
  hsize_t d[3];
} shape;

/* Open dataset path under loc, read its shape and check its storage and
 * attributes; the dataset, or a negative id after a message. */
static hid_t
dataset_open(const checker *c, hid_t loc, const char *path, const char *full, shape *s)
{
  hid_t ds = H5Dopen2(loc, path, H5P_DEFAULT), type, space;
  hsize_t points = 1;

  memset(s, 0, sizeof *s);
  if (ds < 0) {
    damaged(c, full, "cannot open the dataset");
    return H5I_INVALID_HID;
  }
  type = H5Dget_type(ds);
  space = H5Dget_space(ds);
  s->cls = type >= 0 ? H5Tget_class(type) : H5T_NO_CLASS;
  s->wrong = type >= 0 ? type_wrong(type, 0) : NULL;
  s->vlen = s->cls == H5T_STRING && H5Tis_variable_str(type) > 0;
  s->size = type >= 0 ? H5Tget_size(type) : 0;
  s->rank = space >= 0 ? H5Sget_simple_extent_ndims(space) : -1;
  if (s->rank >= 0 && s->rank <= 3 && H5Sget_simple_extent_dims(space, s->d, NULL) < 0)
    s->rank = -1;
  close_id(type);
  close_id(space);
  for (int i = 0; i < s->rank && i < 3; i++)
    points = s->d[i] && points > UINT64_MAX / s->d[i] ? UINT64_MAX : points * s->d[i];
  if (s->cls == H5T_NO_CLASS || s->size == 0 || s->rank < 0 || s->rank > 3) {
    damaged(c, full, "cannot read its type and shape");
  } else if (s->wrong) {
    damaged(c, full, "%s", s->wrong);
  } else if (storage_check(c, ds, full, points, s->size) == 0 &&
             attrs_check(c, ds, full, column_attrs) == 0) {
    return ds;
  }
  close_id(ds);
  return H5I_INVALID_HID;
}

/* The names of group path's links, into out (cleared first), in the
 * order of the name index's hash (H5_ITER_NATIVE: no table of links built,
 * see children_ordered); the group opened, or a negative id after a message. */
static hid_t
group_list(const checker *c, hid_t loc, const char *path, const char *full,
           const char *const *attrs, namelist *out)
{
  hid_t g = H5Oopen(loc, path, H5P_DEFAULT);
  hsize_t idx = 0;

  names_free(out);
  if (g < 0 || H5Iget_type(g) != H5I_GROUP) {
    close_id(g);
    damaged(c, full, g < 0 ? "cannot open the group" : "not a group");
    return H5I_INVALID_HID;
  }
  if (H5Literate(g, H5_INDEX_NAME, H5_ITER_NATIVE, &idx, names_collect, out) < 0)
    damaged(c, full, "cannot list the group");
  else if (attrs_check(c, g, full, attrs) == 0)
    return g;
  names_free(out);
  close_id(g);
  return H5I_INVALID_HID;
}

/* The tables of vibro-3 (doc/format.md): groups of columns along the
 * coordinate dim, some columns [dim][dim2].  The readers know the file
 * by its layout alone (h5read.h), so this is their own list of what
 * lib/output_analysis.c's vb_xtables and the table and events write. */
static const struct table_shape {
  const char *path, *dim, *dim2; /* dim2: NULL when every column is 1-d */
} vibro3_tables[] = {
    {"/study/table", "scene", "contact"},
    {"/study/events", "event", NULL},
    {"/study/sections", "section", "point"},
    {"/study/impact_map", "impact", NULL},
    {"/study/phases", "phase", NULL}, /* issue 30: with friction */
};

/* A vibro-3 table (a group of columns along coordinate dim): every child
 * a numeric or fixed-string dataset [rows] or [rows][n of dim2]; 0 or -1. */
static int
columns_check(const checker *c, hid_t fid, const char *path, const char *dim, const char *dim2,
              long *rows_out)
{
  namelist kids = {0};
  hid_t g = group_list(c, fid, path + 1, path, column_attrs, &kids), ds;
  hsize_t rows = 0, contacts = 0;
  char full[PATH_LEN];
  shape s;
  int rc = g < 0 ? -1 : 0, found = 0;

  /* the coordinates first: the rows, and the contacts of [rows][contact] */
  for (size_t k = 0; rc == 0 && k < kids.n; k++) {
    int is_dim = strcmp(kids.v[k], dim) == 0;
    if (!is_dim && !(dim2 && strcmp(kids.v[k], dim2) == 0))
      continue;
    text_format(full, sizeof full, "%s/%s", path, kids.v[k]);
    if ((ds = dataset_open(c, g, kids.v[k], full, &s)) < 0)
      rc = -1;
    else if (s.rank != 1 || (is_dim ? s.cls != H5T_INTEGER : s.cls != H5T_STRING || s.vlen))
      rc = damaged(c, full, "not a 1-d %s coordinate", is_dim ? "integer" : "fixed-string");
    else if (is_dim)
      rows = s.d[0], found = 1;
    else
      contacts = s.d[0];
    close_id(ds);
  }
  if (rc == 0 && !found)
    rc = damaged(c, path, "no coordinate '%s'", dim);
  for (size_t k = 0; rc == 0 && k < kids.n; k++) {
    if (strcmp(kids.v[k], dim) == 0 || (dim2 && strcmp(kids.v[k], dim2) == 0))
      continue;
    text_format(full, sizeof full, "%s/%s", path, kids.v[k]);
    if ((ds = dataset_open(c, g, kids.v[k], full, &s)) < 0)
      rc = -1;
    else if (s.cls != H5T_INTEGER && s.cls != H5T_FLOAT && (s.cls != H5T_STRING || s.vlen))
      rc = damaged(c, full, "not numbers or fixed-length text");
    else if (s.rank < 1 || s.rank > 2 || s.d[0] != rows ||
             (s.rank == 2 && (s.cls == H5T_STRING || s.d[1] != contacts))) {
      char shape[64];
      if (s.rank == 2)
        text_format(shape, sizeof shape, "[%llu][%llu]", (unsigned long long)s.d[0],
                    (unsigned long long)s.d[1]);
      else
        text_format(shape, sizeof shape, "[%llu] (rank %d)", (unsigned long long)s.d[0], s.rank);
      if (s.rank == 1)
        shape[strcspn(shape, " ")] = '\0'; /* a 1-d column: its length alone */
      rc = damaged(c, full, "shape %s, the table's is [%llu] or [%llu][%llu]", shape,
                   (unsigned long long)rows, (unsigned long long)rows, (unsigned long long)contacts);
    }
    close_id(ds);
  }
  names_free(&kids);
  close_id(g);
  *rows_out = (long)rows;
  return rc;
}

/* A vibro-2 table: a 1-d compound dataset of numbers and strings. */
static int
compound_check(const checker *c, hid_t fid, const char *path, long *rows_out)
{
  shape s;
  hid_t ds = dataset_open(c, fid, path + 1, path, &s);
  int rc = ds < 0 ? -1 : 0;

  if (rc == 0 && (s.cls != H5T_COMPOUND || s.rank != 1))
    rc = damaged(c, path, "not a 1-d table of named columns");
  close_id(ds);
  *rows_out = (long)s.d[0];
  return rc;
}

/* /model and below: every group lists, the attributes readers use read. */
static int
model_check(const checker *c, hid_t loc, const char *path, const char *full, int depth)
{
  namelist kids = {0};
  hid_t g = group_list(c, loc, path, full, model_attrs, &kids);
  char sub[PATH_LEN];
  int rc = g < 0 ? -1 : 0;

  for (size_t k = 0; rc == 0 && depth < MODEL_DEPTH && k < kids.n; k++) {
    text_format(sub, sizeof sub, "%s/%s", full, kids.v[k]);
    if (is_group(g, kids.v[k]))
      rc = model_check(c, g, kids.v[k], sub, depth + 1);
  }
  names_free(&kids);
  close_id(g);
  return rc;
}

/* Whether a dataset of /signals is a modal body's constants [scene][mode]
 * (bodies.B.modes.freq, .mass, .sigma; bodies.B.wmodes.* along w), not a
 * series along time. */
static int
modal_constants(const char *name)
{
  static const char *const ends[] = {".modes.freq",  ".modes.mass",  ".modes.sigma",
                                     ".wmodes.freq", ".wmodes.mass", ".wmodes.sigma"};
  size_t n = strlen(name);

  for (size_t i = 0; i < sizeof ends / sizeof *ends; i++)
    if (n > strlen(ends[i]) && strcmp(name + n - strlen(ends[i]), ends[i]) == 0)
      return 1;
  return 0;
}

/* /signals: every dataset's bytes inside the file, its attributes read;
 * a signal [scene]...[time] as long as its coordinates /signals/scene and
 * (1-d) /signals/time (a modal body's constants [scene][mode]: scene only). */
static int
signals_check(const checker *c, hid_t fid)
{
  namelist kids = {0};
  hid_t g, ds;
  char full[PATH_LEN];
  shape s;
  long scenes = -1, samples = -1;
  int rc = 0;

  if (!has_object(fid, "signals"))
    return 0;
  g = group_list(c, fid, "signals", "/signals", column_attrs, &kids);
  if (g < 0)
    return -1;
  for (size_t k = 0; rc == 0 && k < kids.n; k++) {
    text_format(full, sizeof full, "/signals/%s", kids.v[k]);
    if ((ds = dataset_open(c, g, kids.v[k], full, &s)) < 0)
      rc = -1;
    else if (s.rank == 1 && strcmp(kids.v[k], "scene") == 0)
      scenes = (long)s.d[0];
    else if (s.rank == 1 && strcmp(kids.v[k], "time") == 0)
      samples = (long)s.d[0];
    close_id(ds);
  }
  for (size_t k = 0; rc == 0 && k < kids.n; k++) {
    text_format(full, sizeof full, "/signals/%s", kids.v[k]);
    if ((ds = dataset_open(c, g, kids.v[k], full, &s)) < 0)
      rc = -1;
    else if (s.rank >= 2 && ((scenes >= 0 && s.d[0] != (hsize_t)scenes) ||
                             (samples >= 0 && !modal_constants(kids.v[k]) &&
                              s.d[s.rank - 1] != (hsize_t)samples)))
      rc =
          damaged(c, full, "%llu rows of %llu samples, its coordinates %ld scenes and %ld samples",
                  (unsigned long long)s.d[0], (unsigned long long)s.d[s.rank - 1], scenes, samples);
    close_id(ds);
  }
  names_free(&kids);
  close_id(g);
  return rc;
}

/* The scene count an attribute claims agrees with the table's rows. */
static int
scenes_check(const checker *c, hid_t obj, const char *path, long rows, int exact)
{
  double n;

  if (attr_number(obj, "scenes", &n) < 0)
    return 0;
  if (!(n >= 0.0 && n < 1e12) || (exact ? n != (double)rows : n < (double)rows))
    return damaged(c, path, "its attribute scenes = %.0f, the table has %ld rows", n, rows);
  return 0;
}

/* The root's attributes and the checker of file fid, before a layout's
 * own checks; 0, or -1 after a message. */
static int
check_begin(checker *c, const char *file, hid_t fid, hid_t *root)
{
  *c = (checker){.file = file};
  *root = H5Gopen2(fid, "/", H5P_DEFAULT);
  if (H5Fget_filesize(fid, &c->size) < 0 || *root < 0) {
    close_id(*root);
    *root = H5I_INVALID_HID;
    return cli_complain(file, "damaged: cannot read the file's size and root group");
  }
  return attrs_check(c, *root, "/", root_attrs);
}

/* vibro-1 (formats.h): a group per scene. */
int
check_v1(const char *file, hid_t fid)
{
  checker c;
  hid_t root, g = H5I_INVALID_HID;
  namelist kids = {0};
  int rc = -1;

  if (check_begin(&c, file, fid, &root) == 0) {
    g = group_list(&c, fid, "scenes", "/scenes", column_attrs, &kids);
    rc = g < 0 ? -1 : 0;
  }
  close_id(g);
  names_free(&kids);
  close_id(root);
  return rc;
}

/* vibro-2 and vibro-3: /study, /model, the study table (and vibro-2's
 * events) by table_check, the scene counts and the signals. */
static int
check_stacked(const char *file, hid_t fid, int (*table_check)(checker *c, hid_t fid, long *rows))
{
  checker c;
  hid_t root, study = H5I_INVALID_HID;
  namelist kids = {0};
  long rows = 0;
  int rc = -1;

  if (check_begin(&c, file, fid, &root) < 0)
    goto done;
  study = group_list(&c, fid, "study", "/study", study_attrs, &kids);
  if (study < 0 || model_check(&c, fid, "model", "/model", 0) < 0 || table_check(&c, fid, &rows) < 0)
    goto done;
  if (scenes_check(&c, root, "/", rows, 1) < 0 || scenes_check(&c, study, "/study", rows, 0) < 0 ||
      signals_check(&c, fid) < 0)
    goto done;
  rc = 0;
done:
  names_free(&kids);
  close_id(study);
  close_id(root);
  return rc;
}

/* vibro-2's tables: compound datasets. */
static int
tables_v2(checker *c, hid_t fid, long *rows)
{
  long events = 0;
  if (compound_check(c, fid, "/study/table", rows) < 0)
    return -1;
  return has_object(fid, "study/events") ? compound_check(c, fid, "/study/events", &events) : 0;
}

/* vibro-3's tables: groups of columns, the study table against its scene
 * and contact coordinates, and every other table, each column against its
 * coordinate (the sections and impact map too: a column that claims 4e9
 * values against 9 rows is damage, not a table to read). */
static int
tables_v3(checker *c, hid_t fid, long *rows)
{
  if (columns_check(c, fid, "/study/table", "scene", "contact", rows) < 0)
    return -1;
  for (size_t t = 1; t < sizeof vibro3_tables / sizeof *vibro3_tables; t++) {
    long n = 0;
    if (has_object(fid, vibro3_tables[t].path + 1) &&
        columns_check(c, fid, vibro3_tables[t].path, vibro3_tables[t].dim, vibro3_tables[t].dim2,
                      &n) < 0)
      return -1;
  }
  return 0;
}

int
check_v2(const char *file, hid_t fid)
{
  return check_stacked(file, fid, tables_v2);
}

int
check_v3(const char *file, hid_t fid)
{
  return check_stacked(file, fid, tables_v3);
}

int
outputs_open_checked(const char *path, output_files *of)
{
  if (outputs_open(path, of) < 0)
    return -1;
  for (int f = 0; f < of->n; f++)
    if (of->reader->check(path, of->fid[f]) < 0) {
      of->damaged = 1; /* closing would have libhdf5 free what it misread */
      outputs_close(of);
      return -1;
    }
  return 0;
}

int
outputs_operand(cli_args *a, int key, output_files *of, int *status)
{
  static const char *const operands[] = {"OUT.h5"};

  if (key != 0 || cli_operands(a, 1, operands) < 0) {
    cli_end(a);
    *status = key == 'h' ? 0 : 1;
    return -1;
  }
  if (outputs_open_checked(a->operands[0], of) < 0) {
    cli_end(a);
    *status = 1;
    return -1;
  }
  return 0;
}
