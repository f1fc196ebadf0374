/* modes_file.c - modal data of a body read from a file (measured or FEM),
 * by the conventions of lib/scene/presets.c.
 *
 * Modes files give shapes in the same sense: the value at a point per unit
 * modal displacement, with the modal masses that go with that scaling.
 *   CSV: lines whose first non-blank character is '#', and blank lines, are
 *   skipped anywhere.  The first other line is the header naming the
 *   columns, comma-separated: freq (Hz), t60 (s; 0 or an empty field =
 *   undamped), mass (kg), gravity (optional; an empty field = default),
 *   and every other name is a point whose column gives its shape value
 *   (a valid point name, [A-Za-z0-9_-], that does not read like a mistyped
 *   reserved name: within one edit of one ignoring case, or one followed by
 *   ' ', '_', '-', '(' or '[', as in "T60", "gravty", "mass_kg").
 *   The reserved columns may come in any order; freq and mass are
 *   required, t60 and gravity optional; at least one point.  Then one line
 *   per mode with one number per column; blanks around fields are ignored
 *   and CRLF line ends accepted.
 *   HDF5 (name ending in .h5 or .hdf5): 1-D numeric datasets /freq, /mass,
 *   optional /t60 and /gravity, and a group /shapes holding one 1-D
 *   dataset per point (named as the point), all of length nmodes.  Points
 *   come in creation order when /shapes tracks it (h5py: track_order=True),
 *   otherwise in name order.
 *   Both: text of at most VB_DATA_MAX bytes and no NUL byte (CSV);
 *   sigma = ln(1000)/t60 (0 when undamped); gravity defaults to 1
 *   for a 0 Hz mode and 0 otherwise; at most 100000 modes. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <hdf5.h>

#include "scene.h"

/* Most modes a modes file may give. */
#define MODES_MAX 100000

/* Columns of a modes file other than the points. */
typedef enum { COL_FREQ = 0, COL_T60, COL_MASS, COL_GRAVITY, COL_POINT } column_role;

static const char *const column_names[COL_POINT] = {"freq", "t60", "mass", "gravity"};

/* Check one value of a column; VB_OK or VB_EINVAL with "<where>'<what>'
 * must be ... (got ...)" in err. */
static int
check_value(column_role role, double v, const char *where, const char *what, char *err,
            size_t errlen)
{
  char num[32];
  const char *condition = NULL;

  switch (role) {
  case COL_FREQ: condition = isfinite(v) && v >= 0.0 ? NULL : ">= 0"; break;
  case COL_T60: condition = isfinite(v) && v >= 0.0 ? NULL : "> 0, or 0 for undamped"; break;
  case COL_MASS: condition = isfinite(v) && v > 0.0 ? NULL : "> 0"; break;
  default: condition = isfinite(v) ? NULL : "finite"; break;
  }
  if (condition == NULL)
    return VB_OK;
  return vb_errf(err, errlen, VB_EINVAL, "%s%s must be %s (got %s)", where, what, condition,
                 vb_number_text(v, num, sizeof num));
}

/* Store the mode-level values of mode j: sigma = ln(1000)/t60 (amplitude
 * down 60 dB in t60; 0 when t60 is 0); gravity as given, or when it is
 * NAN (not given) 1 for a 0 Hz mode and 0 otherwise. */
static void
store_mode(vb_body *b, int j, double freq, double t60, double mass, double gravity)
{
  b->freq[j] = freq;
  b->sigma[j] = t60 > 0.0 ? log(1000.0) / t60 : 0.0;
  b->modal_mass[j] = mass;
  b->gravity[j] = isnan(gravity) ? (freq == 0.0 ? 1.0 : 0.0) : gravity;
}

/* Strip leading and trailing blanks (spaces, tabs, CR) in place. */
static char *
trim(char *s)
{
  char *end;
  while (*s == ' ' || *s == '\t' || *s == '\r')
    s++;
  end = s + strlen(s);
  while (end > s && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
    *--end = '\0';
  return s;
}

/* Split a line at commas in place into at most max trimmed fields; returns
 * the number of fields (which may exceed max: the rest are not stored). */
static int
split_fields(char *line, char **fields, int max)
{
  int n = 0;
  for (;;) {
    char *comma = strchr(line, ',');
    if (comma != NULL)
      *comma = '\0';
    if (n < max)
      fields[n] = trim(line);
    n++;
    if (comma == NULL)
      return n;
    line = comma + 1;
  }
}

/* Parse a number that fills the whole field. */
static int
parse_number(const char *s, double *v)
{
  char *end;
  /* decimal only: strtod would also read hexadecimal (0x10 as 16) */
  if (*s == '\0' || vb_hex_field(s))
    return 0;
  errno = 0;
  *v = strtod(s, &end);
  return *end == '\0';
}

/* A CSV file split into trimmed lines, and the roles of its columns. */
typedef struct csv {
  const char *path;
  char **lines; /* [nlines] trimmed, NUL-terminated in the text */
  int nlines;
  int header; /* index of the header line */
  int ncols;
  char **colname;    /* [ncols] column names (in the header's text) */
  column_role *role; /* [ncols] */
  int *point;        /* [ncols] point index of a point column, else -1 */
  int npoints;
  int col_of[COL_POINT]; /* column of each reserved role, or -1 */
  char **fields;         /* [ncols] scratch for one line's fields */
} csv;

/* Free what a csv holds. */
static void
csv_clear(csv *t)
{
  free(t->lines);
  free(t->fields);
  free(t->role);
  free(t->point);
  free(t->colname);
}

/* Split text into trimmed lines in place and find the header: the first
 * line that is neither blank nor a comment (expected: what the message
 * says it should hold when there is none). */
static int
csv_lines(csv *t, char *text, const char *expected, char *err, size_t errlen)
{
  if ((unsigned char)text[0] == 0xEF && (unsigned char)text[1] == 0xBB &&
      (unsigned char)text[2] == 0xBF)
    text += 3; /* a UTF-8 byte-order mark (spreadsheets write one) is not the header's */
  t->nlines = 1;
  for (char *c = text; *c; c++)
    t->nlines += *c == '\n';
  t->lines = malloc((size_t)t->nlines * sizeof *t->lines);
  if (t->lines == NULL)
    return vb_errf(err, errlen, VB_ENOMEM, "%s: out of memory", t->path);
  t->nlines = 0;
  for (char *c = text;;) {
    char *nl = strchr(c, '\n');
    t->lines[t->nlines++] = c;
    if (nl == NULL)
      break;
    *nl = '\0';
    c = nl + 1;
  }
  t->header = -1;
  for (int i = 0; i < t->nlines; i++) {
    t->lines[i] = trim(t->lines[i]);
    if (t->header < 0 && *t->lines[i] != '\0' && *t->lines[i] != '#')
      t->header = i;
  }
  if (t->header < 0)
    return vb_errf(err, errlen, VB_EINVAL,
                   "%s: no header line (expected: %s)", t->path, expected);
  const char *h = t->lines[t->header];
  if (strchr(h, ',') == NULL && (strchr(h, ';') != NULL || strchr(h, '\t') != NULL))
    return vb_errf(err, errlen, VB_EINVAL,
                   "%s:%d: the columns are separated by %s, not commas (valid: comma-separated "
                   "values with '.' as the decimal point, as a spreadsheet's 'CSV (comma "
                   "delimited)' writes them: %s)",
                   t->path, t->header + 1, strchr(h, ';') != NULL ? "semicolons" : "tabs",
                   expected);
  return VB_OK;
}

/* Whether two names differ by at most one edit (insertion, deletion,
 * substitution or swap of neighbours), ignoring case. */
static int
near_name(const char *a, const char *b)
{
  size_t la = strlen(a), lb = strlen(b), i = 0;

  while (i < la && i < lb && tolower((unsigned char)a[i]) == tolower((unsigned char)b[i]))
    i++;
  if (i == la && i == lb)
    return 1;
  if (la == lb)
    return strcasecmp(a + i + 1, b + i + 1) == 0 ||
           (i + 1 < la && tolower((unsigned char)a[i]) == tolower((unsigned char)b[i + 1]) &&
            tolower((unsigned char)a[i + 1]) == tolower((unsigned char)b[i]) &&
            strcasecmp(a + i + 2, b + i + 2) == 0);
  if (la == lb + 1)
    return strcasecmp(a + i + 1, b + i) == 0;
  if (lb == la + 1)
    return strcasecmp(a + i, b + i + 1) == 0;
  return 0;
}

/* Refuse a point column whose name is not a valid point name, or reads
 * like a mistyped reserved column ("frq", "T60", "mass_kg", "t60 (s)"):
 * silently taken as a point, it would lose the data it meant to give. */
static int
check_point_column(const csv *t, int c, char *err, size_t errlen)
{
  const char *name = t->colname[c];

  for (int r = 0; r < COL_POINT; r++) {
    size_t n = strlen(column_names[r]);
    if (near_name(name, column_names[r]) ||
        (strncasecmp(name, column_names[r], n) == 0 && strchr(" _-([", name[n]) != NULL))
      return vb_errf(err, errlen, VB_EINVAL,
                     "%s:%d: column '%s' looks like a mistyped '%s' (valid: freq, t60, "
                     "mass, gravity, or a point name that is not one of them)",
                     t->path, t->header + 1, name, column_names[r]);
  }
  for (const char *p = name; *p; p++)
    if (!(isalnum((unsigned char)*p) || *p == '_' || *p == '-'))
      return vb_errf(err, errlen, VB_EINVAL,
                     "%s:%d: invalid point name '%s' in column %d (valid: letters, digits, "
                     "'_' and '-')",
                     t->path, t->header + 1, name, c + 1);
  return VB_OK;
}

/* Name the columns from the header: the reserved ones by role, every
 * other one a point. */
static int
csv_header(csv *t, char *err, size_t errlen)
{
  int line = t->header + 1, rc;

  t->ncols = 1;
  for (const char *c = t->lines[t->header]; *c; c++)
    t->ncols += *c == ',';
  t->fields = malloc((size_t)t->ncols * sizeof *t->fields);
  t->role = malloc((size_t)t->ncols * sizeof *t->role);
  t->point = malloc((size_t)t->ncols * sizeof *t->point);
  t->colname = malloc((size_t)t->ncols * sizeof *t->colname);
  if (t->fields == NULL || t->role == NULL || t->point == NULL || t->colname == NULL)
    return vb_errf(err, errlen, VB_ENOMEM, "%s: out of memory", t->path);
  /* the header's fields stay in place: the column names */
  split_fields(t->lines[t->header], t->colname, t->ncols);
  for (int r = 0; r < COL_POINT; r++)
    t->col_of[r] = -1;
  for (int c = 0; c < t->ncols; c++) {
    const char *name = t->colname[c];
    t->role[c] = COL_POINT;
    t->point[c] = -1;
    for (int r = 0; r < COL_POINT; r++)
      if (strcmp(name, column_names[r]) == 0)
        t->role[c] = (column_role)r;
    if (*name == '\0')
      return vb_errf(err, errlen, VB_EINVAL, "%s:%d: column %d has no name", t->path, line, c + 1);
    if (strlen(name) >= VB_NAME_MAX)
      return vb_errf(err, errlen, VB_EINVAL,
                     "%s:%d: column name '%s' is too long (valid: at most %d characters)", t->path,
                     line, name, VB_NAME_MAX - 1);
    for (int d = 0; d < c; d++)
      if (strcmp(t->colname[d], name) == 0)
        return vb_errf(err, errlen, VB_EINVAL, "%s:%d: duplicate column '%s'", t->path, line, name);
    if (t->role[c] != COL_POINT) {
      t->col_of[t->role[c]] = c;
      continue;
    }
    if ((rc = check_point_column(t, c, err, errlen)) != VB_OK)
      return rc;
    t->point[c] = t->npoints++;
  }
  for (int r = COL_FREQ; r <= COL_MASS; r++)
    if (r != COL_T60 && t->col_of[r] < 0)
      return vb_errf(err, errlen, VB_EINVAL,
                     "%s:%d: no column '%s' (expected: freq,t60,mass,<point>,...)", t->path, line,
                     column_names[r]);
  if (t->npoints == 0)
    return vb_errf(err, errlen, VB_EINVAL,
                   "%s:%d: no point columns (expected: freq,t60,mass,<point>,...)", t->path, line);
  return VB_OK;
}

/* Read data line i (mode j) into the body. */
static int
csv_row(const csv *t, vb_body *b, int i, int j, char *err, size_t errlen)
{
  double value[COL_POINT] = {0.0, 0.0, 0.0, NAN};
  char where[256], what[VB_NAME_MAX + 2];
  int n = split_fields(t->lines[i], t->fields, t->ncols), rc;

  if (n != t->ncols)
    return vb_errf(err, errlen, VB_EINVAL, "%s:%d: expected %d numbers, got %d", t->path, i + 1,
                   t->ncols, n);
  for (int c = 0; c < t->ncols; c++) {
    double v = NAN;
    const char *field = t->fields[c];
    if (*field == '\0' && (t->role[c] == COL_T60 || t->role[c] == COL_GRAVITY))
      continue; /* empty: undamped, or the default participation */
    if (*field == '\0')
      return vb_errf(err, errlen, VB_EINVAL, "%s:%d: no value in column '%s'", t->path, i + 1,
                     t->colname[c]);
    if (!parse_number(field, &v))
      return vb_errf(err, errlen, VB_EINVAL,
                     "%s:%d: '%s' is not a number (valid: a decimal number, e.g. 2.5e-3)", t->path,
                     i + 1, field);
    snprintf(where, sizeof where, "%s:%d: ", t->path, i + 1);
    snprintf(what, sizeof what, "'%s'", t->colname[c]);
    if ((rc = check_value(t->role[c], v, where, what, err, errlen)) != VB_OK)
      return rc;
    if (t->role[c] == COL_POINT)
      b->points[t->point[c]].shape[j] = v;
    else
      value[t->role[c]] = v;
  }
  store_mode(b, j, value[COL_FREQ], value[COL_T60], value[COL_MASS], value[COL_GRAVITY]);
  return VB_OK;
}

/* Count the modes after the header, allocate them and read every row. */
static int
csv_rows(const csv *t, vb_body *b, char *err, size_t errlen)
{
  int nmodes = 0, rc;

  for (int i = t->header + 1; i < t->nlines; i++)
    if (*t->lines[i] != '\0' && *t->lines[i] != '#' && ++nmodes > MODES_MAX)
      return vb_errf(err, errlen, VB_EINVAL, "%s:%d: more than %d modes", t->path, i + 1,
                     MODES_MAX);
  if (nmodes == 0)
    return vb_errf(err, errlen, VB_EINVAL,
                   "%s: no modes (expected one line per mode after "
                   "the header)",
                   t->path);
  if ((rc = vb_body_alloc_modes(b, nmodes, t->npoints)) != VB_OK)
    return vb_errf(err, errlen, rc, "%s: out of memory", t->path);
  for (int c = 0; c < t->ncols; c++)
    if (t->role[c] == COL_POINT)
      strcpy(b->points[t->point[c]].name, t->colname[c]);
  for (int i = t->header + 1, j = 0; i < t->nlines; i++) {
    if (*t->lines[i] == '\0' || *t->lines[i] == '#')
      continue;
    if ((rc = csv_row(t, b, i, j++, err, errlen)) != VB_OK)
      return rc;
  }
  return VB_OK;
}

/* A CSV modes file: '#' comment lines and blank lines anywhere; a header
 * naming the columns (freq, t60, mass, optional gravity, then one column
 * per point, in any order; freq and mass required); one line per mode. */
static int
modes_csv(vb_body *b, const char *path, char *text, char *err, size_t errlen)
{
  csv t;
  int rc;

  memset(&t, 0, sizeof t);
  t.path = path;
  rc = csv_lines(&t, text, "freq,t60,mass,<point>,...", err, errlen);
  if (rc == VB_OK)
    rc = csv_header(&t, err, errlen);
  if (rc == VB_OK)
    rc = csv_rows(&t, b, err, errlen);
  if (rc != VB_OK)
    vb_body_clear_modes(b);
  csv_clear(&t);
  return rc;
}

/* Names of the links of a group, collected by H5Literate. */
typedef struct name_list {
  char **names;
  int count, cap;
} name_list;

static herr_t
collect_name(hid_t group, const char *name, const H5L_info_t *info, void *data)
{
  name_list *list = data;
  (void)group;
  (void)info;
  if (list->count == list->cap) {
    int grown = 2 * list->cap + 16;
    char **more = realloc(list->names, (size_t)grown * sizeof *more);
    if (more == NULL)
      return -1;
    list->names = more;
    list->cap = grown;
  }
  list->names[list->count] = malloc(strlen(name) + 1);
  if (list->names[list->count] == NULL)
    return -1;
  strcpy(list->names[list->count++], name);
  return 0;
}

/* Refuse a link of the modes file that is not a hard link: an external
 * link names another file (an absolute path may name any readable file),
 * a soft or user-defined link another object; what they name would be
 * modal data that the input identity (lib/inputs.c) does not cover.
 * VB_OK for a hard link or an absent one (the caller's own check). */
static int
linked_here(hid_t file, const char *path, const char *name, char *err, size_t errlen)
{
  H5L_info_t info;
  char value[1024] = "";
  const char *target = NULL, *object = NULL;
  unsigned flags = 0;

  if (H5Lexists(file, name, H5P_DEFAULT) <= 0 || H5Lget_info(file, name, &info, H5P_DEFAULT) < 0)
    return VB_OK;
  if (info.type == H5L_TYPE_HARD)
    return VB_OK;
  if (info.type == H5L_TYPE_EXTERNAL && info.u.val_size <= sizeof value &&
      H5Lget_val(file, name, value, sizeof value, H5P_DEFAULT) >= 0 &&
      H5Lunpack_elink_val(value, info.u.val_size, &flags, &target, &object) >= 0)
    return vb_errf(err, errlen, VB_EINVAL,
                   "%s: object '%s': an external link to '%s' in '%s' (valid: data stored "
                   "in the modes file itself)",
                   path, name, object, target);
  if (info.type == H5L_TYPE_SOFT && info.u.val_size <= sizeof value &&
      H5Lget_val(file, name, value, sizeof value, H5P_DEFAULT) >= 0) {
    value[sizeof value - 1] = '\0';
    return vb_errf(err, errlen, VB_EINVAL,
                   "%s: object '%s': a soft link to '%s' (valid: data stored in the modes "
                   "file itself, no links)",
                   path, name, value);
  }
  return vb_errf(err, errlen, VB_EINVAL,
                 "%s: object '%s': %s link (valid: data stored in the modes file itself, "
                 "no links)",
                 path, name,
                 info.type == H5L_TYPE_EXTERNAL ? "an external"
                 : info.type == H5L_TYPE_SOFT   ? "a soft"
                                                : "a user-defined");
}

/* Refuse a dataset whose raw data is not in the modes file: external raw
 * storage (H5Pset_external: any file, by an absolute path too) or a
 * virtual dataset (mapped from other files). */
static int
stored_here(hid_t set, const char *path, const char *name, char *err, size_t errlen)
{
  hid_t dcpl = H5Dget_create_plist(set);
  char raw[1024] = "";
  off_t offset = 0;
  hsize_t size = 0;
  int external, rc = VB_OK;

  if (dcpl < 0)
    return vb_errf(err, errlen, VB_EIO, "%s: cannot read %s", path, name);
  external = H5Pget_external_count(dcpl);
  if (external != 0) {
    if (external < 0 || H5Pget_external(dcpl, 0, sizeof raw, raw, &offset, &size) < 0)
      raw[0] = '\0';
    raw[sizeof raw - 1] = '\0';
    rc = vb_errf(err, errlen, VB_EINVAL,
                 "%s: object '%s': raw data stored in the external file '%s'%s (valid: data "
                 "stored in the modes file itself)",
                 path, name, raw, external > 1 ? " and others" : "");
  } else if (H5Pget_layout(dcpl) == H5D_VIRTUAL) {
    rc = vb_errf(err, errlen, VB_EINVAL,
                 "%s: object '%s': a virtual dataset, its data mapped from other files (valid: "
                 "data stored in the modes file itself)",
                 path, name);
  }
  H5Pclose(dcpl);
  return rc;
}

/* Read a numeric 1-D dataset into a new array (*values, freed by the
 * caller) of *n doubles.  VB_OK; VB_EINVAL with a message, or 1 when
 * the dataset is absent and optional. */
static int
read_vector(hid_t file, const char *path, const char *name, int required, double **values,
            hsize_t *n, char *err, size_t errlen)
{
  hid_t set = H5I_INVALID_HID, space = H5I_INVALID_HID, type = H5I_INVALID_HID;
  int rc = VB_OK;

  *values = NULL;
  if ((rc = linked_here(file, path, name, err, errlen)) != VB_OK)
    return rc;
  if (H5Lexists(file, name, H5P_DEFAULT) <= 0 || (set = H5Dopen2(file, name, H5P_DEFAULT)) < 0) {
    if (!required)
      return 1;
    return vb_errf(err, errlen, VB_EINVAL, "%s: no dataset %s", path, name);
  }
  type = H5Dget_type(set);
  space = H5Dget_space(set);
  rc = stored_here(set, path, name, err, errlen);
  if (rc != VB_OK) {
    /* refused: nothing read */
  } else if (type < 0 || space < 0) {
    rc = vb_errf(err, errlen, VB_EIO, "%s: cannot read %s", path, name);
  } else if (H5Tget_class(type) != H5T_INTEGER && H5Tget_class(type) != H5T_FLOAT) {
    rc = vb_errf(err, errlen, VB_EINVAL, "%s: %s is not numeric", path, name);
  } else if (H5Sget_simple_extent_ndims(space) != 1) {
    rc = vb_errf(err, errlen, VB_EINVAL, "%s: %s is not a 1-D dataset", path, name);
  } else {
    H5Sget_simple_extent_dims(space, n, NULL);
    *values = malloc((size_t)*n * sizeof **values + 1);
    if (*values == NULL)
      rc = vb_errf(err, errlen, VB_ENOMEM, "%s: out of memory", path);
    else if (*n > 0 && H5Dread(set, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, *values) < 0)
      rc = vb_errf(err, errlen, VB_EIO, "%s: cannot read %s", path, name);
  }
  if (rc != VB_OK) {
    free(*values);
    *values = NULL;
  }
  if (type >= 0)
    H5Tclose(type);
  if (space >= 0)
    H5Sclose(space);
  H5Dclose(set);
  return rc;
}

/* Check that a dataset has one value per mode and each value is valid. */
static int
check_vector(const char *path, const char *name, column_role role, const double *v, hsize_t n,
             hsize_t nmodes, char *err, size_t errlen)
{
  char prefix[4200], what[VB_NAME_MAX + 64];

  if (n != nmodes)
    return vb_errf(err, errlen, VB_EINVAL, "%s: %s has %llu values, /freq has %llu", path, name,
                   (unsigned long long)n, (unsigned long long)nmodes);
  snprintf(prefix, sizeof prefix, "%s: ", path);
  for (hsize_t j = 0; j < n; j++) {
    snprintf(what, sizeof what, "%s[%llu]", name, (unsigned long long)j);
    if (check_value(role, v[j], prefix, what, err, errlen) != VB_OK)
      return VB_EINVAL;
  }
  return VB_OK;
}

/* An HDF5 modes file: datasets /freq, /mass, optional /t60 and /gravity,
 * and a group /shapes with one dataset per point (points in creation
 * order when the group tracks it, else in name order). */
static int
modes_hdf5(vb_body *b, const char *path, char *err, size_t errlen)
{
  hid_t file = H5I_INVALID_HID, group = H5I_INVALID_HID, gcpl = H5I_INVALID_HID;
  double *freq = NULL, *t60 = NULL, *mass = NULL, *gravity = NULL, *shape = NULL;
  hsize_t nmodes = 0, n = 0;
  name_list points = {NULL, 0, 0};
  unsigned order = 0;
  int rc;

  if (H5Fis_hdf5(path) <= 0)
    return vb_errf(err, errlen, VB_EIO, "%s: cannot read: not an HDF5 file", path);
  file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  if (file < 0)
    return vb_errf(err, errlen, VB_EIO, "%s: cannot read: HDF5 cannot open it", path);

  if ((rc = read_vector(file, path, "/freq", 1, &freq, &nmodes, err, errlen)) != VB_OK)
    goto done;
  if (nmodes < 1 || nmodes > MODES_MAX) {
    rc = vb_errf(err, errlen, VB_EINVAL, "%s: /freq has %llu values (valid: 1 to %d modes)", path,
                 (unsigned long long)nmodes, MODES_MAX);
    goto done;
  }
  if ((rc = check_vector(path, "/freq", COL_FREQ, freq, nmodes, nmodes, err, errlen)) != VB_OK ||
      (rc = read_vector(file, path, "/mass", 1, &mass, &n, err, errlen)) != VB_OK ||
      (rc = check_vector(path, "/mass", COL_MASS, mass, n, nmodes, err, errlen)) != VB_OK)
    goto done;
  if ((rc = read_vector(file, path, "/t60", 0, &t60, &n, err, errlen)) < VB_OK ||
      (rc == VB_OK &&
       (rc = check_vector(path, "/t60", COL_T60, t60, n, nmodes, err, errlen)) != VB_OK))
    goto done;
  if ((rc = read_vector(file, path, "/gravity", 0, &gravity, &n, err, errlen)) < VB_OK ||
      (rc == VB_OK && (rc = check_vector(path, "/gravity", COL_GRAVITY, gravity, n, nmodes, err,
                                         errlen)) != VB_OK))
    goto done;

  /* the points: the datasets of /shapes */
  if ((rc = linked_here(file, path, "/shapes", err, errlen)) != VB_OK)
    goto done;
  if (H5Lexists(file, "/shapes", H5P_DEFAULT) <= 0 ||
      (group = H5Gopen2(file, "/shapes", H5P_DEFAULT)) < 0) {
    rc = vb_errf(err, errlen, VB_EINVAL, "%s: no group /shapes", path);
    goto done;
  }
  gcpl = H5Gget_create_plist(group);
  if (gcpl >= 0 && H5Pget_link_creation_order(gcpl, &order) < 0)
    order = 0;
  if (H5Literate(group, (order & H5P_CRT_ORDER_TRACKED) ? H5_INDEX_CRT_ORDER : H5_INDEX_NAME,
                 H5_ITER_INC, NULL, collect_name, &points) < 0) {
    rc = vb_errf(err, errlen, VB_EIO, "%s: cannot list /shapes", path);
    goto done;
  }
  if (points.count == 0) {
    rc = vb_errf(err, errlen, VB_EINVAL, "%s: group /shapes has no datasets (one per point)", path);
    goto done;
  }
  if ((rc = vb_body_alloc_modes(b, (int)nmodes, points.count)) != VB_OK) {
    rc = vb_errf(err, errlen, rc, "%s: out of memory", path);
    goto done;
  }
  for (int i = 0; i < points.count; i++) {
    char name[VB_NAME_MAX + 16];
    if (strlen(points.names[i]) >= VB_NAME_MAX) {
      rc = vb_errf(err, errlen, VB_EINVAL,
                   "%s: point name '%s' is too long (valid: at most %d characters)", path,
                   points.names[i], VB_NAME_MAX - 1);
      goto done;
    }
    snprintf(name, sizeof name, "/shapes/%s", points.names[i]);
    if ((rc = read_vector(file, path, name, 1, &shape, &n, err, errlen)) != VB_OK ||
        (rc = check_vector(path, name, COL_POINT, shape, n, nmodes, err, errlen)) != VB_OK)
      goto done;
    strcpy(b->points[i].name, points.names[i]);
    for (hsize_t j = 0; j < nmodes; j++)
      b->points[i].shape[j] = shape[j];
    free(shape);
    shape = NULL;
  }
  for (hsize_t j = 0; j < nmodes; j++)
    store_mode(b, (int)j, freq[j], t60 ? t60[j] : 0.0, mass[j], gravity ? gravity[j] : NAN);
  rc = VB_OK;

done:
  if (rc != VB_OK)
    vb_body_clear_modes(b);
  for (int i = 0; i < points.count; i++)
    free(points.names[i]);
  free(points.names);
  free(freq);
  free(t60);
  free(mass);
  free(gravity);
  free(shape);
  if (gcpl >= 0)
    H5Pclose(gcpl);
  if (group >= 0)
    H5Gclose(group);
  H5Fclose(file);
  return rc;
}

/* Whether a path names an HDF5 file by its extension (.h5, .hdf5). */
static int
hdf5_extension(const char *path)
{
  const char *dot = strrchr(path, '.');
  const char *slash = strrchr(path, '/');
  if (dot == NULL || (slash != NULL && dot < slash))
    return 0;
  char ext[8];
  size_t i;
  for (i = 0; i < sizeof ext - 1 && dot[1 + i]; i++)
    ext[i] = (char)tolower((unsigned char)dot[1 + i]);
  ext[i] = '\0';
  return dot[1 + i] == '\0' && (strcmp(ext, "h5") == 0 || strcmp(ext, "hdf5") == 0);
}


/* The text of a CSV data file (what: "a CSV modes file", for the size
 * message) into *text (the caller frees it): VB_EINVAL when it is larger
 * than VB_DATA_MAX or holds a NUL byte, VB_EIO when it cannot be read. */
static int
read_csv_text(const char *path, const char *what, char **text, char *err, size_t errlen)
{
  size_t length = 0;

  *text = vb_read_data(path, VB_DATA_MAX, &length);
  if (*text == NULL && errno == VB_NOT_REGULAR_ERRNO)
    return vb_errf(err, errlen, VB_EINVAL, "'%s' is not a regular file (valid: %s)", path, what);
  if (*text == NULL && errno == EFBIG)
    return vb_errf(err, errlen, VB_EINVAL, "%s: larger than %zu MiB (valid: %s of at most %zu MiB)",
                   path, VB_DATA_MAX >> 20, what, VB_DATA_MAX >> 20);
  if (*text == NULL)
    return vb_errf(err, errlen, VB_EIO, "%s: cannot read: %s", path, strerror(errno));
  if (strlen(*text) != length) {
    free(*text);
    *text = NULL;
    return vb_errf(err, errlen, VB_EINVAL, "%s: not a text file (it holds a NUL byte)", path);
  }
  return VB_OK;
}

/* Read a modes file (CSV, or HDF5 by its extension) into a modal body. */
int
vb_modes_file_read(vb_body *b, const char *path, char *err, size_t errlen)
{
  char *text;
  int rc;

  if (hdf5_extension(path)) {
    H5E_auto2_t old_func = NULL;
    void *old_data = NULL;
    /* a regular file only (a FIFO would block HDF5's open for ever): the
     * check is on a descriptor of our own, and HDF5 opens the path again,
     * so a file swapped for a FIFO in between would still block (a race
     * with whoever can write the scene's directory, who can give any
     * input anyway) */
    int fd = vb_open_regular(path);
    if (fd < 0 && errno == VB_NOT_REGULAR_ERRNO)
      return vb_errf(err, errlen, VB_EINVAL,
                     "'%s' is not a regular file (valid: an HDF5 modes file)", path);
    if (fd < 0)
      return vb_errf(err, errlen, VB_EIO, "%s: cannot read: %s", path, strerror(errno));
    close(fd);
    /* HDF5's own error stack would print on stderr: silence it */
    int have_auto = H5Eget_auto2(H5E_DEFAULT, &old_func, &old_data) >= 0;
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    rc = modes_hdf5(b, path, err, errlen);
    if (have_auto)
      H5Eset_auto2(H5E_DEFAULT, old_func, old_data);
    return rc;
  }
  if ((rc = read_csv_text(path, "a CSV modes file", &text, err, errlen)) != VB_OK)
    return rc;
  rc = modes_csv(b, path, text, err, errlen);
  free(text);
  return rc;
}

/* ------------------------------------------------- named data columns */

/* Index of the header field that matches one of the '|'-separated
 * alternatives of `want` (the first alternative present wins), or -1. */
static int
find_column(char **fields, int nf, const char *want)
{
  char alt[64];
  for (const char *p = want; *p;) {
    size_t n = strcspn(p, "|");
    snprintf(alt, sizeof alt, "%.*s", (int)(n < sizeof alt ? n : sizeof alt - 1), p);
    for (int f = 0; f < nf; f++)
      if (strcasecmp(fields[f], alt) == 0)
        return f;
    p += n + (p[n] == '|');
  }
  return -1;
}

/* Read named numeric columns of a CSV data file into out[k][*nrows]. */
int
vb_csv_columns(const char *path, int ncols, const char *const *names, double **out, int *nrows,
               char *err, size_t errlen)
{
  csv t = {.path = path};
  int col[8], rc = VB_OK, nf, rows = 0;
  char *text = NULL;

  for (int k = 0; k < ncols; k++)
    out[k] = NULL;
  *nrows = 0;
  if (ncols < 1 || ncols > 8)
    return vb_errf(err, errlen, VB_EINVAL, "%s: between 1 and 8 columns", path);
  if ((rc = read_csv_text(path, "a CSV file", &text, err, errlen)) != VB_OK)
    return rc;
  char expected[256] = "";
  for (int k = 0; k < ncols; k++)
    snprintf(expected + strlen(expected), sizeof expected - strlen(expected), "%s%s",
             k ? "," : "a header naming the columns, e.g. ", names[k]);
  if ((rc = csv_lines(&t, text, expected, err, errlen)) != VB_OK)
    goto done;
  nf = 1;
  for (const char *c = t.lines[t.header]; *c; c++)
    nf += *c == ',';
  t.fields = malloc(((size_t)nf + 1) * sizeof *t.fields);
  for (int k = 0; t.fields != NULL && k < ncols; k++)
    out[k] = malloc(((size_t)t.nlines + 1) * sizeof(double));
  if (t.fields == NULL || out[ncols - 1] == NULL) {
    rc = vb_errf(err, errlen, VB_ENOMEM, "%s: out of memory", path);
    goto done;
  }
  split_fields(t.lines[t.header], t.fields, nf);
  for (int k = 0; k < ncols; k++)
    if ((col[k] = find_column(t.fields, nf, names[k])) < 0) {
      rc = vb_errf(err, errlen, VB_EINVAL,
                   "%s:%d: no column '%s' in the header (valid: a "
                   "header naming the columns, e.g. %s)",
                   path, t.header + 1, names[k], names[k]);
      goto done;
    }
  for (int i = t.header + 1; i < t.nlines; i++) {
    if (*t.lines[i] == '\0' || *t.lines[i] == '#')
      continue;
    int got = split_fields(t.lines[i], t.fields, nf);
    if (got != nf) {
      rc = vb_errf(err, errlen, VB_EINVAL, "%s:%d: %d fields (valid: %d, as the header)", path,
                   i + 1, got, nf);
      goto done;
    }
    for (int k = 0; k < ncols; k++)
      if (!parse_number(t.fields[col[k]], &out[k][rows]) || !isfinite(out[k][rows])) {
        rc = vb_errf(err, errlen, VB_EINVAL,
                     "%s:%d: column '%s': '%s' is not a finite number (valid: a decimal "
                     "number, e.g. 2.5e-3)",
                     path, i + 1, t.fields[col[k]] == NULL ? "" : names[k], t.fields[col[k]]);
        goto done;
      }
    rows++;
  }
  *nrows = rows;
done:
  if (rc != VB_OK)
    for (int k = 0; k < ncols; k++) {
      free(out[k]);
      out[k] = NULL;
    }
  csv_clear(&t);
  free(text);
  return rc;
}
