/* inspect.c - vibro info, events and export: read an output file with the
 * HDF5 C API.
 *
 * The file layout (README.md, "Output") is the interface: nothing here uses
 * libvibro's internals.  The commands discover what a file holds (scenes,
 * bodies, contacts, every 1-d signal, every event field, /study/table)
 * instead of assuming one version's list, so datasets added later (modal
 * points, external work, study tables) show up without a change here.
 * Every message is one line "FILE: what is wrong", printed where the
 * problem is found; the functions below then return -1 and print nothing
 * more. */

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hdf5.h>

#include "inspect.h"

#define TEXT_MAX 1024   /* longest attribute text kept */
#define PATH_LEN 512    /* longest object path built */
#define NAME_LEN 256    /* longest field or link name kept */
#define UNITS_LEN 32    /* longest units text of an event field */
#define CHOICES_MAX 240 /* a list of valid choices longer than this is cut */
#define BLOCK 65536     /* samples read at once */
#define DETAIL_ALL 10   /* info details every scene up to this many */
#define DETAIL_HEAD 3   /* ... and the first few beyond that */
#define FAILED_MAX 10   /* failed scenes info lists by name */
#define WALK_DEPTH 8    /* deepest nesting searched for signals */
#define FORMAT_PREFIX "vibro-"

static const char usage_info[] =
  "usage: vibro info OUT.h5 [--all]\n"
  "\n"
  "Print a vibro output at a glance: its format and source, how many scenes\n"
  "are done and which failed (with their status), and per scene its status,\n"
  "sample rate, bodies, contacts (law, scheme, impacts, Newton failures,\n"
  "fall-backs) and energy-balance error, absolute and relative to the\n"
  "scene's initial energy.  With more than 10 scenes only the first 3 are\n"
  "shown in detail, then totals (--all shows every scene).  A study's\n"
  "/study/table is summarised: rows, swept parameters (columns named by a\n"
  "parameter path, such as contacts.hit.k) with their ranges, other columns;\n"
  "scenes that /study/done does not mark complete are counted.\n";

static const char usage_events[] =
  "usage: vibro events OUT.h5 [--scene N] [--contact NAME] [--csv]\n"
  "\n"
  "Print the impact tables (/scenes/N/contacts/NAME/events) of every scene\n"
  "and contact, or of the chosen ones, as one aligned table with a units\n"
  "line, a row per impact, led by the scene number and the contact name.\n"
  "Every field in the file is shown (see README.md for their meaning).\n"
  "--csv prints comma-separated values instead: one header line of field\n"
  "names, then the rows, numbers with 17 significant digits.\n";

static const char usage_export[] =
  "usage: vibro export OUT.h5 [--scene N] --signal PATH (--csv FILE | --wav FILE)\n"
  "\n"
  "Write one recorded signal of a scene: PATH is a 1-d dataset relative to\n"
  "/scenes/NNNNNN, e.g. bodies/hammer/u, contacts/hit/force, energy/total.\n"
  "--csv FILE  two columns, time and value, after a header naming the units\n"
  "            (FILE - is standard output)\n"
  "--wav FILE  16-bit PCM mono WAV at the recorded rate, fs / record_every\n"
  "            (rounded to whole hertz), normalised to the signal's peak\n"
  "            (an all-zero signal gives silence; NaN and inf become 0)\n"
  "--scene may be left out when the file holds a single scene.\n";

/* A growable list of names, each its own allocation. */
typedef struct namelist {
  char **v;   /* [n] names */
  size_t n;   /* names held */
  size_t cap; /* slots allocated */
} namelist;

/* One field of an event table. */
typedef enum { FIELD_FLOAT, FIELD_INT, FIELD_VSTRING, FIELD_FSTRING } field_kind;

typedef struct field {
  char name[NAME_LEN];
  char units[UNITS_LEN]; /* from the dataset's "units" attribute, "" if none */
  field_kind kind;
  size_t size;           /* bytes of a fixed-length string */
  int width;             /* column width of the text table */
} field;

/* One event table selected for printing. */
typedef struct table {
  long scene;            /* scene number, -1 if the group name is not one */
  char group[NAME_LEN];  /* scene group name, e.g. "000000" */
  char contact[NAME_LEN];
  hsize_t rows;
} table;

/* Running totals of info over all scenes. */
typedef struct tally {
  namelist contacts; /* contact names met */
  long *impacts;     /* [contacts.n] impacts over all scenes */
  long *scenes;      /* [contacts.n] scenes that have the contact */
  long *least;       /* [contacts.n] fewest impacts in a scene */
  long *most;        /* [contacts.n] most impacts in a scene */
  double worst_abs;  /* largest |energy balance error|, J */
  char worst_abs_scene[PATH_LEN];
  double worst_rel;  /* largest |error| / |initial energy| */
  double worst_rel_abs;
  char worst_rel_scene[PATH_LEN];
} tally;

/* Print "path: message" on stderr, the command's one error line; -1. */
static int
complain(const char *path, const char *fmt, ...)
{
  va_list ap;

  fprintf(stderr, "%s: ", path);
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
  return -1;
}

/* snprintf into buf, cutting what does not fit (names and statuses are
 * short; a cut one still identifies its object). */
__attribute__((format(printf, 3, 4))) static void
text_format(char *buf, size_t len, const char *fmt, ...)
{
  va_list ap;

  va_start(ap, fmt);
  vsnprintf(buf, len, fmt, ap);
  va_end(ap);
}

/* True if s is -h or --help. */
static int
is_help(const char *s)
{
  return strcmp(s, "-h") == 0 || strcmp(s, "--help") == 0;
}

/* Close an HDF5 identifier of any kind; negative ids are ignored. */
static void
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
static void
reclaim(hid_t mtype, hid_t space, void *buf)
{
#if H5_VERSION_GE(1, 12, 0)
  H5Treclaim(mtype, space, H5P_DEFAULT, buf);
#else
  H5Dvlen_reclaim(mtype, space, H5P_DEFAULT, buf);
#endif
}

/* Append a copy of s to the list; -1 when out of memory. */
static int
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
static long
names_find(const namelist *l, const char *s)
{
  for (size_t i = 0; i < l->n; i++)
    if (strcmp(l->v[i], s) == 0)
      return (long)i;
  return -1;
}

/* Free the names and empty the list. */
static void
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
static void
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
static herr_t
collect_name(hid_t group, const char *name, const H5L_info_t *info, void *data)
{
  (void)group;
  (void)info;
  return names_push(data, name) < 0 ? -1 : 0;
}

/* True if path (relative to loc) names an object; follows soft and
 * external links. */
static int
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

/* The names of the links in group path under loc, in name order, added to
 * out.  An absent group adds nothing.  Returns 0, or -1 when out of
 * memory (reported against file). */
static int
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
  r = H5Literate(g, H5_INDEX_NAME, H5_ITER_INC, &idx, collect_name, out);
  close_id(g);
  if (r < 0)
    return complain(file, "cannot list %s", path);
  return 0;
}

/* Read a scalar string attribute (variable or fixed length) into buf.
 * Returns 0, or -1 if absent or not a string (buf is then ""). */
static int
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
    if (H5Tset_size(mtype, H5T_VARIABLE) < 0 ||
        H5Tset_cset(mtype, H5Tget_cset(ftype)) < 0 ||
        H5Aread(attr, mtype, &text) < 0)
      goto done;
    snprintf(buf, len, "%s", text ? text : "");
    H5free_memory(text);
  } else {
    size_t size = H5Tget_size(ftype);
    if (size == 0 || !(text = calloc(size + 1, 1)))
      goto done;
    if (H5Tset_size(mtype, size + 1) < 0 || H5Tset_strpad(mtype, H5T_STR_NULLTERM) < 0 ||
        H5Aread(attr, mtype, text) < 0) {
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
static int
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
      H5Sget_simple_extent_npoints(space) == 1 &&
      H5Aread(attr, H5T_NATIVE_DOUBLE, out) >= 0)
    rc = 0;
  close_id(space);
  close_id(ftype);
  close_id(attr);
  return rc;
}

/* Open path read-only and check that it is a vibro output: its root
 * attribute format reads "vibro-N".  Returns the file, or a negative id
 * after saying why. */
static hid_t
output_open(const char *path, char *format, size_t len)
{
  FILE *f;
  hid_t file, root;
  htri_t is;
  char *end;
  long version;

  f = fopen(path, "rb");
  if (!f) {
    complain(path, "cannot open: %s", strerror(errno));
    return H5I_INVALID_HID;
  }
  fclose(f);
  is = H5Fis_hdf5(path);
  if (is <= 0) {
    complain(path, "not a vibro output (not an HDF5 file)");
    return H5I_INVALID_HID;
  }
  file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  if (file < 0) {
    complain(path, "cannot open the HDF5 file");
    return H5I_INVALID_HID;
  }
  root = H5Gopen2(file, "/", H5P_DEFAULT);
  if (root < 0 || attr_text(root, "format", format, len) < 0) {
    close_id(root);
    close_id(file);
    complain(path, "not a vibro output (no 'format' attribute)");
    return H5I_INVALID_HID;
  }
  close_id(root);
  version = 0;
  if (strncmp(format, FORMAT_PREFIX, strlen(FORMAT_PREFIX)) == 0) {
    errno = 0;
    version = strtol(format + strlen(FORMAT_PREFIX), &end, 10);
    if (errno || *end || end == format + strlen(FORMAT_PREFIX))
      version = 0;
  }
  if (version < 1) {
    complain(path, "not a vibro output (format '%s', expected vibro-1)", format);
    close_id(file);
    return H5I_INVALID_HID;
  }
  return file;
}

/* Scene number of a group name of digits, or -1. */
static long
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
static void
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
static void
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
static long
scene_find(const char *file, const namelist *scenes, const char *arg)
{
  char choices[CHOICES_MAX + 16];
  long want = scene_number(arg);

  for (size_t i = 0; i < scenes->n; i++)
    if ((want >= 0 && scene_number(scenes->v[i]) == want) ||
        strcmp(scenes->v[i], arg) == 0)
      return (long)i;
  scene_choices(scenes, choices, sizeof choices);
  complain(file, "no scene %s (valid: %s)", arg, choices);
  return -1;
}

/* Length of a 1-d numeric dataset at path under loc; -1 if there is no
 * such dataset. */
static long
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
      H5Sget_simple_extent_ndims(space) == 1 &&
      H5Sget_simple_extent_dims(space, dims, NULL) == 1)
    n = (long)dims[0];
  close_id(space);
  close_id(type);
  close_id(ds);
  return n;
}

/* Number of rows of a 1-d dataset of any type at path; -1 if none. */
static long
dataset_rows(hid_t loc, const char *path)
{
  hid_t ds, space;
  hsize_t dims[1];
  long n = -1;

  if (!has_object(loc, path))
    return -1;
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
static int
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
static double
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
static double
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
static int
collect_signals(const char *file, hid_t scene, const char *prefix, int depth,
                namelist *out)
{
  namelist kids = { 0 };
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
        rc = complain(file, "out of memory");
    }
    close_id(obj);
  }
  names_free(&kids);
  return rc;
}

/* ------------------------------------------------------------------ info */

/* Add a scene's impacts of contact name to the totals. */
static int
tally_contact(tally *t, const char *name, long impacts)
{
  long i = names_find(&t->contacts, name);

  if (i < 0) {
    size_t n = t->contacts.n + 1;
    long *a = realloc(t->impacts, n * sizeof *a), *b, *c, *d;
    if (a)
      t->impacts = a;
    b = realloc(t->scenes, n * sizeof *b);
    if (b)
      t->scenes = b;
    c = realloc(t->least, n * sizeof *c);
    if (c)
      t->least = c;
    d = realloc(t->most, n * sizeof *d);
    if (d)
      t->most = d;
    if (!a || !b || !c || !d || names_push(&t->contacts, name) < 0)
      return -1;
    i = (long)n - 1;
    t->impacts[i] = t->scenes[i] = t->most[i] = 0;
    t->least[i] = impacts;
  }
  t->impacts[i] += impacts;
  t->scenes[i]++;
  if (impacts < t->least[i])
    t->least[i] = impacts;
  if (impacts > t->most[i])
    t->most[i] = impacts;
  return 0;
}

/* Free the totals. */
static void
tally_free(tally *t)
{
  names_free(&t->contacts);
  free(t->impacts);
  free(t->scenes);
  free(t->least);
  free(t->most);
}

/* Print a count with its noun, plural when it is not 1. */
static void
print_count(long n, const char *noun)
{
  printf("%ld %s%s", n, noun, n == 1 ? "" : "s");
}

/* Read one scene for info: add it to the totals and, when detail is set,
 * print it.  Returns 0, or -1 after a message. */
static int
info_scene(const char *file, hid_t scenes_group, const char *group, int detail,
           tally *t)
{
  char name[TEXT_MAX], status[TEXT_MAX], label[PATH_LEN], text[TEXT_MAX], path[PATH_LEN];
  namelist bodies = { 0 }, contacts = { 0 };
  double fs, duration, every, balance, e0;
  long samples;
  hid_t g;
  int rc = -1;

  g = H5Gopen2(scenes_group, group, H5P_DEFAULT);
  if (g < 0)
    return complain(file, "cannot open scene group /scenes/%s", group);
  attr_text(g, "name", name, sizeof name);
  if (attr_text(g, "status", status, sizeof status) < 0)
    snprintf(status, sizeof status, "no status");
  attr_number(g, "fs", &fs);
  attr_number(g, "duration", &duration);
  attr_number(g, "record_every", &every);
  attr_number(g, "energy_balance_error", &balance);
  samples = signal_length(g, "time");
  scene_label(group, label, sizeof label);
  if (detail) {
    printf("scene %s '%s': %s", label, name, status);
    if (isfinite(fs))
      printf("; fs %g Hz", fs);
    if (samples >= 0) {
      printf(", ");
      print_count(samples, "sample");
    }
    if (isfinite(every) && every != 1.0)
      printf(" (every %g steps)", every);
    if (isfinite(duration))
      printf(", %g s", duration);
    printf("\n");
  }

  /* Bodies: name and type */
  if (children(file, g, "bodies", &bodies) < 0)
    goto done;
  if (detail && bodies.n) {
    printf("  bodies:");
    for (size_t i = 0; i < bodies.n; i++) {
      hid_t b;
      snprintf(path, sizeof path, "bodies/%s", bodies.v[i]);
      b = H5Oopen(g, path, H5P_DEFAULT);
      text[0] = '\0';
      if (b >= 0)
        attr_text(b, "type", text, sizeof text);
      close_id(b);
      printf("%s %s%s%s%s", i ? "," : "", bodies.v[i], text[0] ? " (" : "", text,
             text[0] ? ")" : "");
    }
    printf("\n");
  }

  /* Contacts: law, scheme, impacts and counters */
  if (children(file, g, "contacts", &contacts) < 0)
    goto done;
  for (size_t i = 0; i < contacts.n; i++) {
    char law[TEXT_MAX], scheme[TEXT_MAX];
    double failures = NAN, fallbacks = NAN;
    long impacts;
    hid_t c;
    snprintf(path, sizeof path, "contacts/%s", contacts.v[i]);
    c = H5Oopen(g, path, H5P_DEFAULT);
    if (c < 0)
      continue;
    attr_text(c, "law", law, sizeof law);
    attr_text(c, "scheme", scheme, sizeof scheme);
    attr_number(c, "newton_failures", &failures);
    attr_number(c, "fallbacks", &fallbacks);
    impacts = dataset_rows(c, "events");
    close_id(c);
    if (tally_contact(t, contacts.v[i], impacts > 0 ? impacts : 0) < 0) {
      complain(file, "out of memory");
      goto done;
    }
    if (!detail)
      continue;
    printf("  contact '%s': %s, %s, ", contacts.v[i], law[0] ? law : "law ?",
           scheme[0] ? scheme : "scheme ?");
    if (impacts >= 0)
      print_count(impacts, "impact");
    else
      printf("no event table");
    if (failures > 0)
      printf(", %.0f Newton failures", failures);
    if (fallbacks > 0)
      printf(", %.0f quadratic fall-backs", fallbacks);
    printf("\n");
  }

  /* Energy balance, relative to the energy that went through the scene:
   * the initial energy plus the work done on it */
  e0 = first_value(g, "energy/total");
  double work = has_object(g, "energy/external") ? last_value(g, "energy/external") : 0.0;
  double scale = fabs(e0) + (isfinite(work) ? fabs(work) : 0.0);
  if (isfinite(balance)) {
    double rel = isfinite(scale) && scale != 0.0 ? fabs(balance / scale) : NAN;
    if (detail) {
      printf("  energy balance error %.3g J", balance);
      if (isfinite(rel))
        printf(" = %.3g of the initial energy plus the work done, %.6g J", rel, scale);
      printf("\n");
    }
    text_format(text, sizeof text, "%s '%s'", label, name);
    if (!(fabs(balance) <= t->worst_abs)) {
      t->worst_abs = fabs(balance);
      text_format(t->worst_abs_scene, sizeof t->worst_abs_scene, "%s", text);
    }
    if (isfinite(rel) && !(rel <= t->worst_rel)) {
      t->worst_rel = rel;
      t->worst_rel_abs = balance;
      text_format(t->worst_rel_scene, sizeof t->worst_rel_scene, "%s", text);
    }
  }
  rc = 0;
done:
  names_free(&contacts);
  names_free(&bodies);
  close_id(g);
  return rc;
}

/* Compare doubles for qsort. */
static int
cmp_double(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* True if a /study/table column is a swept parameter: named by its
 * parameter path (contacts.hit.k), which has a dot, unlike the summary
 * columns (impacts:hit, final_energy). */
static int
is_swept(const char *column)
{
  return strchr(column, '.') && !strchr(column, ':');
}

/* Summarise /study/table: rows, the swept parameters with their ranges,
 * the other columns.  Nothing for a plain scene's one-row table. */
static int
info_study(const char *file, hid_t fid)
{
  hid_t ds = H5I_INVALID_HID, ftype = H5I_INVALID_HID, study = H5I_INVALID_HID;
  namelist swept = { 0 }, other = { 0 };
  double *col = NULL;
  char list[CHOICES_MAX + 16], mode[TEXT_MAX];
  long rows;
  int nmembers, rc = -1;

  rows = dataset_rows(fid, "study/table");
  if (rows < 0)
    return 0;
  ds = H5Dopen2(fid, "study/table", H5P_DEFAULT);
  ftype = ds < 0 ? H5I_INVALID_HID : H5Dget_type(ds);
  if (ftype < 0 || H5Tget_class(ftype) != H5T_COMPOUND) {
    printf("study table: not a table of named columns\n");
    rc = 0;
    goto done;
  }
  nmembers = H5Tget_nmembers(ftype);
  for (int m = 0; m < nmembers; m++) {
    char *name = H5Tget_member_name(ftype, (unsigned)m);
    H5T_class_t cls = H5Tget_member_class(ftype, (unsigned)m);
    int numeric = cls == H5T_FLOAT || cls == H5T_INTEGER;
    if (!name)
      continue;
    if (names_push(numeric && is_swept(name) ? &swept : &other, name) < 0) {
      H5free_memory(name);
      complain(file, "out of memory");
      goto done;
    }
    H5free_memory(name);
  }
  if (swept.n == 0 && rows <= 1) {
    rc = 0;
    goto done;
  }
  printf("study table: ");
  print_count(rows, "row");
  study = H5Gopen2(fid, "study", H5P_DEFAULT);
  if (study >= 0 && attr_text(study, "mode", mode, sizeof mode) == 0 && mode[0])
    printf(", sweep mode %s", mode);
  printf("\n");
  col = malloc((size_t)(rows ? rows : 1) * sizeof *col);
  if (!col) {
    complain(file, "out of memory");
    goto done;
  }
  for (size_t i = 0; i < swept.n && rows > 0; i++) {
    hid_t mtype = H5Tcreate(H5T_COMPOUND, sizeof(double));
    long distinct = 0;
    if (mtype >= 0 && H5Tinsert(mtype, swept.v[i], 0, H5T_NATIVE_DOUBLE) >= 0 &&
        H5Dread(ds, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, col) >= 0) {
      qsort(col, (size_t)rows, sizeof *col, cmp_double);
      for (long r = 0; r < rows; r++)
        distinct += r == 0 || col[r] != col[r - 1];
      printf("  swept %s: %.6g .. %.6g, ", swept.v[i], col[0], col[rows - 1]);
      print_count(distinct, "value");
      printf("\n");
    }
    close_id(mtype);
  }
  if (!swept.n)
    printf("  no swept parameter columns\n");
  names_join(&other, list, sizeof list);
  printf("  other columns: %s\n", list);
  rc = 0;
done:
  free(col);
  names_free(&other);
  names_free(&swept);
  close_id(study);
  close_id(ftype);
  close_id(ds);
  return rc;
}

/* Number of scenes /study/done does not mark complete (0 when absent). */
static long
not_done(hid_t fid)
{
  long n = signal_length(fid, "study/done"), missing = 0;
  double *buf;
  hid_t ds;

  if (n <= 0)
    return 0;
  buf = malloc(BLOCK * sizeof *buf);
  ds = buf ? H5Dopen2(fid, "study/done", H5P_DEFAULT) : H5I_INVALID_HID;
  for (long start = 0; ds >= 0 && start < n; start += BLOCK) {
    long count = n - start < BLOCK ? n - start : BLOCK;
    if (read_block(ds, (hsize_t)start, (hsize_t)count, buf) < 0)
      break;
    for (long i = 0; i < count; i++)
      missing += buf[i] == 0.0;
  }
  close_id(ds);
  free(buf);
  return missing;
}

/* vibro info */
int
cmd_info(int argc, char **argv)
{
  const char *file = NULL;
  char format[TEXT_MAX], text[TEXT_MAX], source[TEXT_MAX];
  namelist scenes = { 0 }, failed = { 0 };
  tally t = { 0 };
  hid_t fid = H5I_INVALID_HID, root = H5I_INVALID_HID, sg = H5I_INVALID_HID;
  long done = 0, detailed = 0, rows, missing;
  int all = 0, rc = 1;

  for (int i = 1; i < argc; i++) {
    if (is_help(argv[i])) {
      fputs(usage_info, stdout);
      return 0;
    } else if (strcmp(argv[i], "--all") == 0) {
      all = 1;
    } else if (argv[i][0] == '-' && argv[i][1]) {
      fprintf(stderr, "vibro info: unknown option '%s' (valid: --all, --help)\n", argv[i]);
      return 1;
    } else if (!file) {
      file = argv[i];
    } else {
      fprintf(stderr, "vibro info: more than one output file ('%s')\n", argv[i]);
      return 1;
    }
  }
  if (!file) {
    fprintf(stderr, "vibro info: no output file given (see vibro info --help)\n");
    return 1;
  }
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
  fid = output_open(file, format, sizeof format);
  if (fid < 0)
    return 1;
  t.worst_abs = t.worst_rel = -1.0;

  root = H5Gopen2(fid, "/", H5P_DEFAULT);
  printf("%s: %s", file, format);
  if (root >= 0 && attr_text(root, "vibro_version", text, sizeof text) == 0)
    printf(", written by vibro %s", text);
  if (root >= 0 && attr_text(root, "source", source, sizeof source) == 0 && source[0])
    printf(", from %s", source);
  printf("\n");

  if (children(file, fid, "scenes", &scenes) < 0)
    goto done;
  sg = scenes.n ? H5Gopen2(fid, "scenes", H5P_DEFAULT) : H5I_INVALID_HID;
  if (scenes.n && sg < 0) {
    complain(file, "cannot open /scenes");
    goto done;
  }
  /* Status of every scene first, for the headline */
  for (size_t i = 0; i < scenes.n; i++) {
    char status[TEXT_MAX], name[TEXT_MAX], label[PATH_LEN];
    hid_t g = H5Gopen2(sg, scenes.v[i], H5P_DEFAULT);
    if (g < 0 || attr_text(g, "status", status, sizeof status) < 0)
      snprintf(status, sizeof status, "no status");
    attr_text(g, "name", name, sizeof name);
    close_id(g);
    if (strcmp(status, "done") == 0) {
      done++;
      continue;
    }
    scene_label(scenes.v[i], label, sizeof label);
    text_format(text, sizeof text, "scene %s '%s': %s", label, name, status);
    if (names_push(&failed, text) < 0) {
      complain(file, "out of memory");
      goto done;
    }
  }
  print_count((long)scenes.n, "scene");
  printf(": %ld done, %zu failed", done, failed.n);
  rows = dataset_rows(fid, "study/table");
  if (rows > (long)scenes.n)
    printf(", %ld not written (the study table has %ld rows)", rows - (long)scenes.n,
           rows);
  missing = not_done(fid);
  if (missing > 0)
    printf(", %ld not marked complete in /study/done (vibro run --resume)", missing);
  printf("\n");

  for (size_t i = 0; i < scenes.n; i++) {
    int detail = all || scenes.n <= DETAIL_ALL || i < DETAIL_HEAD;
    if (info_scene(file, sg, scenes.v[i], detail, &t) < 0)
      goto done;
    detailed += detail;
  }
  if ((size_t)detailed < scenes.n) {
    printf("... %zu more scenes (vibro info --all shows each)\n",
           scenes.n - (size_t)detailed);
    for (size_t c = 0; c < t.contacts.n; c++) {
      printf("contact '%s': ", t.contacts.v[c]);
      print_count(t.impacts[c], "impact");
      printf(" in ");
      print_count(t.scenes[c], "scene");
      printf(", %ld to %ld per scene\n", t.least[c], t.most[c]);
    }
  }
  for (size_t i = 0; i < failed.n && i < FAILED_MAX; i++)
    printf("failed: %s\n", failed.v[i]);
  if (failed.n > FAILED_MAX)
    printf("failed: ... and %zu more\n", failed.n - FAILED_MAX);
  if (t.worst_rel >= 0.0)
    printf("worst energy balance error: %.3g J = %.3g of the initial energy plus the work "
           "done, scene %s\n",
           t.worst_rel_abs, t.worst_rel, t.worst_rel_scene);
  if (t.worst_abs >= 0.0 && (t.worst_rel < 0.0 || strcmp(t.worst_abs_scene,
                                                        t.worst_rel_scene) != 0))
    printf("largest absolute energy balance error: %.3g J, scene %s\n", t.worst_abs,
           t.worst_abs_scene);
  if (info_study(file, fid) < 0)
    goto done;
  rc = 0;
done:
  tally_free(&t);
  names_free(&failed);
  names_free(&scenes);
  close_id(sg);
  close_id(root);
  close_id(fid);
  return rc;
}

/* ---------------------------------------------------------------- events */

/* Units of field name from an events "units" attribute of the form
 * "t_on:s t_off:s ...", into buf ("" if not listed). */
static void
field_units(const char *units, const char *name, char *buf, size_t len)
{
  size_t n = strlen(name);
  const char *p = units;

  buf[0] = '\0';
  while (p && *p) {
    while (*p == ' ')
      p++;
    if (strncmp(p, name, n) == 0 && p[n] == ':') {
      size_t k = strcspn(p + n + 1, " ");
      snprintf(buf, len, "%.*s", (int)k, p + n + 1);
      return;
    }
    p = strchr(p, ' ');
  }
}

/* Add the fields of an event table's type to the union of fields. */
static int
fields_add(field **fields, size_t *nfields, hid_t ds, hid_t ftype)
{
  char units[TEXT_MAX];
  int n = H5Tget_nmembers(ftype);

  attr_text(ds, "units", units, sizeof units);
  for (int m = 0; m < n; m++) {
    char *name = H5Tget_member_name(ftype, (unsigned)m);
    hid_t mt = H5Tget_member_type(ftype, (unsigned)m);
    H5T_class_t cls = mt < 0 ? H5T_NO_CLASS : H5Tget_class(mt);
    field f = { .kind = FIELD_FLOAT };
    size_t i;
    int known = 0;

    if (!name || (cls != H5T_FLOAT && cls != H5T_INTEGER && cls != H5T_STRING)) {
      H5free_memory(name);
      close_id(mt);
      continue;
    }
    for (i = 0; i < *nfields && !known; i++)
      known = strcmp((*fields)[i].name, name) == 0;
    if (!known) {
      field *more = realloc(*fields, (*nfields + 1) * sizeof *more);
      if (!more) {
        H5free_memory(name);
        close_id(mt);
        return -1;
      }
      *fields = more;
      snprintf(f.name, sizeof f.name, "%s", name);
      field_units(units, name, f.units, sizeof f.units);
      f.kind = cls == H5T_FLOAT ? FIELD_FLOAT : cls == H5T_INTEGER ? FIELD_INT
             : H5Tis_variable_str(mt) > 0 ? FIELD_VSTRING : FIELD_FSTRING;
      f.size = f.kind == FIELD_FSTRING ? H5Tget_size(mt) + 1 : 0;
      f.width = (int)strlen(f.name);
      if (f.units[0] && (int)strlen(f.units) + 2 > f.width)
        f.width = (int)strlen(f.units) + 2;
      if (f.kind == FIELD_FLOAT && f.width < 12)
        f.width = 12;
      if (f.kind == FIELD_INT && f.width < 6)
        f.width = 6;
      if (f.kind == FIELD_FSTRING && f.width < (int)f.size)
        f.width = (int)f.size;
      if (f.kind == FIELD_VSTRING && f.width < 12)
        f.width = 12;
      (*fields)[(*nfields)++] = f;
    } else if ((*fields)[i - 1].kind == FIELD_FSTRING && cls == H5T_STRING &&
               H5Tis_variable_str(mt) <= 0 && H5Tget_size(mt) + 1 > (*fields)[i - 1].size) {
      (*fields)[i - 1].size = H5Tget_size(mt) + 1;
    }
    H5free_memory(name);
    close_id(mt);
  }
  return 0;
}

/* Print a text cell of a CSV row, quoted when it needs to be. */
static void
csv_text(const char *s)
{
  if (!strpbrk(s, ",\"\n")) {
    fputs(s, stdout);
    return;
  }
  putchar('"');
  for (; *s; s++) {
    if (*s == '"')
      putchar('"');
    putchar(*s);
  }
  putchar('"');
}

/* Print the rows of one event table: read them whole, with the union's
 * fields that this table has, and print each in text or CSV. */
static int
events_print(const char *file, hid_t fid, const table *tb, const field *fields,
             size_t nfields, int contact_width, int csv)
{
  char path[PATH_LEN], label[PATH_LEN];
  hid_t ds = H5I_INVALID_HID, ftype = H5I_INVALID_HID, mtype = H5I_INVALID_HID;
  hid_t space = H5I_INVALID_HID;
  size_t *offset = NULL, row = 0;
  unsigned char *buf = NULL;
  int rc = -1;

  if (tb->rows == 0)
    return 0;
  text_format(path, sizeof path, "scenes/%s/contacts/%s/events", tb->group, tb->contact);
  ds = H5Dopen2(fid, path, H5P_DEFAULT);
  ftype = ds < 0 ? H5I_INVALID_HID : H5Dget_type(ds);
  space = ds < 0 ? H5I_INVALID_HID : H5Dget_space(ds);
  offset = malloc(nfields * sizeof *offset);
  if (ftype < 0 || space < 0 || !offset) {
    complain(file, "cannot read /%s", path);
    goto done;
  }
  /* Memory layout: one slot per field this table has, SIZE_MAX otherwise */
  for (size_t i = 0; i < nfields; i++) {
    size_t size = fields[i].kind == FIELD_FSTRING ? fields[i].size
                : fields[i].kind == FIELD_VSTRING ? sizeof(char *) : 8;
    offset[i] = SIZE_MAX;
    if (H5Tget_member_index(ftype, fields[i].name) < 0)
      continue;
    offset[i] = row;
    row += (size + 7) / 8 * 8;
  }
  mtype = H5Tcreate(H5T_COMPOUND, row ? row : 8);
  if (mtype < 0)
    goto bad;
  for (size_t i = 0; i < nfields; i++) {
    hid_t t;
    herr_t r;
    if (offset[i] == SIZE_MAX)
      continue;
    switch (fields[i].kind) {
    case FIELD_FLOAT: r = H5Tinsert(mtype, fields[i].name, offset[i], H5T_NATIVE_DOUBLE); break;
    case FIELD_INT: r = H5Tinsert(mtype, fields[i].name, offset[i], H5T_NATIVE_LLONG); break;
    default:
      t = H5Tcopy(H5T_C_S1);
      r = t < 0 ? -1 : H5Tset_size(t, fields[i].kind == FIELD_VSTRING ? H5T_VARIABLE
                                                                       : fields[i].size);
      if (r >= 0)
        r = H5Tinsert(mtype, fields[i].name, offset[i], t);
      close_id(t);
      break;
    }
    if (r < 0)
      goto bad;
  }
  buf = calloc((size_t)tb->rows, row ? row : 8);
  if (!buf) {
    complain(file, "out of memory reading /%s", path);
    goto done;
  }
  if (H5Dread(ds, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0)
    goto bad;

  if (tb->scene >= 0)
    snprintf(label, sizeof label, "%ld", tb->scene);
  else
    snprintf(label, sizeof label, "%s", tb->group);
  for (hsize_t r = 0; r < tb->rows; r++) {
    const unsigned char *p = buf + r * row;
    if (csv) {
      csv_text(label);
      putchar(',');
      csv_text(tb->contact);
    } else {
      printf("%6s  %-*s", label, contact_width, tb->contact);
    }
    for (size_t i = 0; i < nfields; i++) {
      const field *f = &fields[i];
      char cell[TEXT_MAX];
      double d;
      long long k;
      const char *s;
      if (offset[i] == SIZE_MAX) {
        snprintf(cell, sizeof cell, "%s", csv ? "" : "-");
      } else if (f->kind == FIELD_FLOAT) {
        memcpy(&d, p + offset[i], sizeof d);
        snprintf(cell, sizeof cell, csv ? "%.17g" : "%.6g", d);
      } else if (f->kind == FIELD_INT) {
        memcpy(&k, p + offset[i], sizeof k);
        snprintf(cell, sizeof cell, "%lld", k);
      } else if (f->kind == FIELD_VSTRING) {
        memcpy(&s, p + offset[i], sizeof s);
        snprintf(cell, sizeof cell, "%s", s ? s : "");
      } else {
        snprintf(cell, sizeof cell, "%s", (const char *)(p + offset[i]));
      }
      if (csv) {
        putchar(',');
        csv_text(cell);
      } else if (f->kind == FIELD_VSTRING || f->kind == FIELD_FSTRING) {
        printf("  %-*s", f->width, cell);
      } else {
        printf("  %*s", f->width, cell);
      }
    }
    putchar('\n');
  }
  reclaim(mtype, space, buf);
  rc = 0;
  goto done;
bad:
  complain(file, "cannot read /%s", path);
done:
  free(buf);
  free(offset);
  close_id(mtype);
  close_id(space);
  close_id(ftype);
  close_id(ds);
  return rc;
}

/* Add the event tables of one scene group (all contacts, or the one named
 * contact) to the selection and their fields to the union. */
static int
events_select(const char *file, hid_t fid, const char *group, const char *contact,
              table **tables, size_t *ntables, field **fields, size_t *nfields,
              namelist *seen)
{
  namelist contacts = { 0 };
  char path[PATH_LEN];
  int rc = -1;

  snprintf(path, sizeof path, "scenes/%s/contacts", group);
  if (children(file, fid, path, &contacts) < 0)
    return -1;
  for (size_t i = 0; i < contacts.n; i++) {
    hid_t ds, ftype;
    long rows;
    table *more;
    if (names_find(seen, contacts.v[i]) < 0 && names_push(seen, contacts.v[i]) < 0)
      goto oom;
    if (contact && strcmp(contact, contacts.v[i]) != 0)
      continue;
    snprintf(path, sizeof path, "scenes/%s/contacts/%s/events", group, contacts.v[i]);
    rows = dataset_rows(fid, path);
    if (rows < 0)
      continue;
    ds = H5Dopen2(fid, path, H5P_DEFAULT);
    ftype = ds < 0 ? H5I_INVALID_HID : H5Dget_type(ds);
    if (ftype < 0 || H5Tget_class(ftype) != H5T_COMPOUND) {
      close_id(ftype);
      close_id(ds);
      continue;
    }
    if (fields_add(fields, nfields, ds, ftype) < 0) {
      close_id(ftype);
      close_id(ds);
      goto oom;
    }
    close_id(ftype);
    close_id(ds);
    more = realloc(*tables, (*ntables + 1) * sizeof *more);
    if (!more)
      goto oom;
    *tables = more;
    more += (*ntables)++;
    more->scene = scene_number(group);
    snprintf(more->group, sizeof more->group, "%s", group);
    snprintf(more->contact, sizeof more->contact, "%s", contacts.v[i]);
    more->rows = (hsize_t)rows;
  }
  rc = 0;
  goto done;
oom:
  complain(file, "out of memory");
done:
  names_free(&contacts);
  return rc;
}

/* vibro events */
int
cmd_events(int argc, char **argv)
{
  const char *file = NULL, *scene = NULL, *contact = NULL;
  char format[TEXT_MAX], choices[CHOICES_MAX + 16], label[PATH_LEN];
  namelist scenes = { 0 }, seen = { 0 };
  table *tables = NULL;
  field *fields = NULL;
  size_t ntables = 0, nfields = 0;
  hid_t fid;
  int csv = 0, rc = 1, contact_width = 7;

  for (int i = 1; i < argc; i++) {
    if (is_help(argv[i])) {
      fputs(usage_events, stdout);
      return 0;
    } else if (strcmp(argv[i], "--csv") == 0) {
      csv = 1;
    } else if (strcmp(argv[i], "--scene") == 0 && i + 1 < argc) {
      scene = argv[++i];
    } else if (strcmp(argv[i], "--contact") == 0 && i + 1 < argc) {
      contact = argv[++i];
    } else if (argv[i][0] == '-' && argv[i][1]) {
      fprintf(stderr, "vibro events: unknown option '%s' (valid: --scene N, "
              "--contact NAME, --csv, --help)\n", argv[i]);
      return 1;
    } else if (!file) {
      file = argv[i];
    } else {
      fprintf(stderr, "vibro events: more than one output file ('%s')\n", argv[i]);
      return 1;
    }
  }
  if (!file) {
    fprintf(stderr, "vibro events: no output file given (see vibro events --help)\n");
    return 1;
  }
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
  fid = output_open(file, format, sizeof format);
  if (fid < 0)
    return 1;
  if (children(file, fid, "scenes", &scenes) < 0)
    goto done;
  if (scenes.n == 0) {
    complain(file, "no scenes");
    goto done;
  }

  /* Select the tables; an unknown scene or contact is an error */
  if (scene) {
    long s = scene_find(file, &scenes, scene);
    if (s < 0)
      goto done;
    if (events_select(file, fid, scenes.v[s], contact, &tables, &ntables, &fields,
                      &nfields, &seen) < 0)
      goto done;
    if (contact && names_find(&seen, contact) < 0) {
      names_join(&seen, choices, sizeof choices);
      scene_label(scenes.v[s], label, sizeof label);
      complain(file, "no contact '%s' in scene %s (valid: %s)", contact, label, choices);
      goto done;
    }
  } else {
    for (size_t s = 0; s < scenes.n; s++)
      if (events_select(file, fid, scenes.v[s], contact, &tables, &ntables, &fields,
                        &nfields, &seen) < 0)
        goto done;
    if (contact && names_find(&seen, contact) < 0) {
      names_join(&seen, choices, sizeof choices);
      complain(file, "no contact '%s' in any scene (valid: %s)", contact, choices);
      goto done;
    }
  }

  /* Header: names (and a units line for text), then every table's rows */
  for (size_t i = 0; i < ntables; i++)
    if ((int)strlen(tables[i].contact) > contact_width)
      contact_width = (int)strlen(tables[i].contact);
  if (csv) {
    printf("scene,contact");
    for (size_t i = 0; i < nfields; i++) {
      putchar(',');
      csv_text(fields[i].name);
    }
    putchar('\n');
  } else {
    printf("%6s  %-*s", "scene", contact_width, "contact");
    for (size_t i = 0; i < nfields; i++)
      printf("  %*s", fields[i].width, fields[i].name);
    printf("\n%6s  %-*s", "", contact_width, "");
    for (size_t i = 0; i < nfields; i++) {
      char units[UNITS_LEN + 2];
      snprintf(units, sizeof units, fields[i].units[0] ? "[%s]" : "%s", fields[i].units);
      printf("  %*s", fields[i].width, units);
    }
    putchar('\n');
  }
  for (size_t i = 0; i < ntables; i++)
    if (events_print(file, fid, &tables[i], fields, nfields, contact_width, csv) < 0)
      goto done;
  rc = fflush(stdout) == 0 ? 0 : 1;
  if (rc)
    complain(file, "cannot write the events: %s", strerror(errno));
done:
  free(tables);
  free(fields);
  names_free(&seen);
  names_free(&scenes);
  close_id(fid);
  return rc;
}

/* ---------------------------------------------------------------- export */

/* Store v little-endian in 2 or 4 bytes. */
static void
put_le(unsigned char *p, uint32_t v, int bytes)
{
  for (int i = 0; i < bytes; i++)
    p[i] = (unsigned char)(v >> (8 * i));
}

/* Write the 44-byte RIFF/WAVE header of 16-bit PCM mono: a fmt chunk and
 * the header of a data chunk of data_bytes (padded to even in RIFF). */
static int
wav_header(FILE *f, uint32_t rate, uint32_t data_bytes)
{
  unsigned char h[44];

  memcpy(h, "RIFF", 4);
  put_le(h + 4, 36 + data_bytes + (data_bytes & 1), 4);
  memcpy(h + 8, "WAVE", 4);
  memcpy(h + 12, "fmt ", 4);
  put_le(h + 16, 16, 4);        /* fmt chunk size */
  put_le(h + 20, 1, 2);         /* PCM */
  put_le(h + 22, 1, 2);         /* channels */
  put_le(h + 24, rate, 4);      /* sample rate, Hz */
  put_le(h + 28, rate * 2, 4);  /* byte rate */
  put_le(h + 32, 2, 2);         /* block align */
  put_le(h + 34, 16, 2);        /* bits per sample */
  memcpy(h + 36, "data", 4);
  put_le(h + 40, data_bytes, 4);
  return fwrite(h, sizeof h, 1, f) == 1 ? 0 : -1;
}

/* What export reads and writes. */
typedef struct exported {
  const char *file;  /* the output file, for messages */
  hid_t ds;          /* the signal dataset */
  hid_t time;        /* the scene's time dataset, or negative */
  long n;            /* samples */
  double rate;       /* recorded rate, Hz: fs / record_every */
  char units[TEXT_MAX];
  char path[PATH_LEN];
} exported;

/* Write time,value rows to out; times from the time dataset, else k / rate. */
static int
export_csv(const exported *sg, FILE *out)
{
  double *v = malloc(BLOCK * sizeof *v), *t = malloc(BLOCK * sizeof *t);
  int rc = -1;

  if (!v || !t) {
    complain(sg->file, "out of memory");
    goto done;
  }
  fprintf(out, "time (s),%s", sg->path);
  if (sg->units[0])
    fprintf(out, " (%s)", sg->units);
  fputc('\n', out);
  for (long start = 0; start < sg->n; start += BLOCK) {
    long count = sg->n - start < BLOCK ? sg->n - start : BLOCK;
    if (read_block(sg->ds, (hsize_t)start, (hsize_t)count, v) < 0 ||
        (sg->time >= 0 && read_block(sg->time, (hsize_t)start, (hsize_t)count, t) < 0)) {
      complain(sg->file, "cannot read %s", sg->path);
      goto done;
    }
    for (long i = 0; i < count; i++)
      fprintf(out, "%.17g,%.17g\n", sg->time >= 0 ? t[i] : (double)(start + i) / sg->rate,
              v[i]);
  }
  rc = 0;
done:
  free(t);
  free(v);
  return rc;
}

/* Write a 16-bit PCM mono WAV of the signal, normalised to its peak;
 * *peak receives the peak (non-finite samples count as 0). */
static int
export_wav(const exported *sg, FILE *out, const char *name, uint32_t rate, double *peak)
{
  double *v = malloc(BLOCK * sizeof *v);
  unsigned char *pcm = malloc(2 * BLOCK);
  double scale;
  int rc = -1;

  *peak = 0.0;
  if (!v || !pcm) {
    complain(sg->file, "out of memory");
    goto done;
  }
  /* First pass: the peak */
  for (long start = 0; start < sg->n; start += BLOCK) {
    long count = sg->n - start < BLOCK ? sg->n - start : BLOCK;
    if (read_block(sg->ds, (hsize_t)start, (hsize_t)count, v) < 0) {
      complain(sg->file, "cannot read %s", sg->path);
      goto done;
    }
    for (long i = 0; i < count; i++)
      if (isfinite(v[i]) && fabs(v[i]) > *peak)
        *peak = fabs(v[i]);
  }
  scale = *peak > 0.0 ? 32767.0 / *peak : 0.0;
  if (wav_header(out, rate, (uint32_t)(2 * sg->n)) < 0)
    goto bad;
  /* Second pass: the samples */
  for (long start = 0; start < sg->n; start += BLOCK) {
    long count = sg->n - start < BLOCK ? sg->n - start : BLOCK;
    if (read_block(sg->ds, (hsize_t)start, (hsize_t)count, v) < 0) {
      complain(sg->file, "cannot read %s", sg->path);
      goto done;
    }
    for (long i = 0; i < count; i++) {
      double s = isfinite(v[i]) ? v[i] * scale : 0.0;
      long q = lrint(s > 32767.0 ? 32767.0 : s < -32767.0 ? -32767.0 : s);
      put_le(pcm + 2 * i, (uint32_t)(uint16_t)(int16_t)q, 2);
    }
    if (fwrite(pcm, 2, (size_t)count, out) != (size_t)count)
      goto bad;
  }
  rc = 0;
  goto done;
bad:
  complain(name, "cannot write: %s", strerror(errno));
done:
  free(pcm);
  free(v);
  return rc;
}

/* Open an export destination ("-" is standard output for CSV). */
static FILE *
dest_open(const char *name)
{
  FILE *f;

  if (strcmp(name, "-") == 0)
    return stdout;
  f = fopen(name, "wb");
  if (!f)
    complain(name, "cannot write: %s", strerror(errno));
  return f;
}

/* Close an export destination; on failure (or when failed is set) remove
 * the file.  Returns 0 or -1. */
static int
dest_close(FILE *f, const char *name, int failed)
{
  if (f == stdout)
    return fflush(f) == 0 && !failed ? 0 : -1;
  if (fclose(f) != 0 && !failed) {
    complain(name, "cannot write: %s", strerror(errno));
    failed = 1;
  }
  if (failed)
    remove(name);
  return failed ? -1 : 0;
}

/* vibro export */
int
cmd_export(int argc, char **argv)
{
  const char *file = NULL, *scene = NULL, *path = NULL, *csv = NULL, *wav = NULL;
  char format[TEXT_MAX], choices[CHOICES_MAX + 16], label[PATH_LEN];
  namelist scenes = { 0 }, valid = { 0 };
  exported sg = { .ds = H5I_INVALID_HID, .time = H5I_INVALID_HID };
  hid_t fid, g = H5I_INVALID_HID;
  double fs, every;
  long s;
  int rc = 1;

  for (int i = 1; i < argc; i++) {
    if (is_help(argv[i])) {
      fputs(usage_export, stdout);
      return 0;
    } else if (strcmp(argv[i], "--scene") == 0 && i + 1 < argc) {
      scene = argv[++i];
    } else if (strcmp(argv[i], "--signal") == 0 && i + 1 < argc) {
      path = argv[++i];
    } else if (strcmp(argv[i], "--csv") == 0 && i + 1 < argc) {
      csv = argv[++i];
    } else if (strcmp(argv[i], "--wav") == 0 && i + 1 < argc) {
      wav = argv[++i];
    } else if (argv[i][0] == '-' && argv[i][1]) {
      fprintf(stderr, "vibro export: unknown option or missing value '%s' (valid: "
              "--scene N, --signal PATH, --csv FILE, --wav FILE, --help)\n", argv[i]);
      return 1;
    } else if (!file) {
      file = argv[i];
    } else {
      fprintf(stderr, "vibro export: more than one output file ('%s')\n", argv[i]);
      return 1;
    }
  }
  if (!file || !path || (!csv && !wav)) {
    fprintf(stderr, "vibro export: %s (see vibro export --help)\n",
            !file ? "no output file given" : !path ? "no --signal PATH given"
                                                   : "no --csv FILE or --wav FILE given");
    return 1;
  }
  if (wav && strcmp(wav, "-") == 0 && csv && strcmp(csv, "-") == 0) {
    fprintf(stderr, "vibro export: --csv and --wav cannot both write to standard output\n");
    return 1;
  }
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
  fid = output_open(file, format, sizeof format);
  if (fid < 0)
    return 1;
  sg.file = file;
  while (path[0] == '/')
    path++;
  snprintf(sg.path, sizeof sg.path, "%s", path);

  /* The scene: named, or the only one */
  if (children(file, fid, "scenes", &scenes) < 0)
    goto done;
  if (scenes.n == 0) {
    complain(file, "no scenes");
    goto done;
  }
  if (scene) {
    s = scene_find(file, &scenes, scene);
    if (s < 0)
      goto done;
  } else if (scenes.n == 1) {
    s = 0;
  } else {
    scene_choices(&scenes, choices, sizeof choices);
    complain(file, "%zu scenes: choose one with --scene (valid: %s)", scenes.n, choices);
    goto done;
  }
  scene_label(scenes.v[s], label, sizeof label);
  snprintf(choices, sizeof choices, "scenes/%s", scenes.v[s]);
  g = H5Gopen2(fid, choices, H5P_DEFAULT);
  if (g < 0) {
    complain(file, "cannot open /scenes/%s", scenes.v[s]);
    goto done;
  }

  /* The signal: a 1-d numeric dataset of the scene */
  sg.n = signal_length(g, sg.path);
  if (sg.n < 0) {
    int exists = has_object(g, sg.path);
    if (collect_signals(file, g, "", 0, &valid) < 0)
      goto done;
    names_join(&valid, choices, sizeof choices);
    if (exists)
      complain(file, "'%s' in scene %s is not a 1-d signal (valid: %s)", sg.path, label,
               choices);
    else
      complain(file, "no signal '%s' in scene %s (valid: %s)", sg.path, label, choices);
    goto done;
  }
  sg.ds = H5Dopen2(g, sg.path, H5P_DEFAULT);
  if (sg.ds < 0) {
    complain(file, "cannot open /scenes/%s/%s", scenes.v[s], sg.path);
    goto done;
  }
  attr_text(sg.ds, "units", sg.units, sizeof sg.units);
  if (signal_length(g, "time") == sg.n)
    sg.time = H5Dopen2(g, "time", H5P_DEFAULT);
  attr_number(g, "fs", &fs);
  if (attr_number(g, "record_every", &every) < 0)
    every = 1.0;
  sg.rate = fs / every;
  if (!(sg.rate > 0.0) || !isfinite(sg.rate)) {
    complain(file, "scene %s has no valid sample rate (attributes fs, record_every)",
             label);
    goto done;
  }

  if (csv) {
    FILE *out = dest_open(csv);
    if (!out)
      goto done;
    if (dest_close(out, csv, export_csv(&sg, out) < 0) < 0)
      goto done;
  }
  if (wav) {
    double peak;
    FILE *out;
    uint32_t rate;
    if (sg.rate > 4294967295.0 || 2.0 * (double)sg.n + 44.0 > 4294967295.0) {
      complain(wav, "%s is too long or too fast for a WAV file", sg.path);
      goto done;
    }
    rate = (uint32_t)lrint(sg.rate);
    if (rate < 1)
      rate = 1;
    out = dest_open(wav);
    if (!out)
      goto done;
    if (dest_close(out, wav, export_wav(&sg, out, wav, rate, &peak) < 0) < 0)
      goto done;
    if (out != stdout && (!csv || strcmp(csv, "-") != 0))
      printf("%s: %ld samples at %lu Hz, 16-bit mono, peak %.6g%s%s -> full scale\n",
             wav, sg.n, (unsigned long)rate, peak, sg.units[0] ? " " : "", sg.units);
  }
  rc = 0;
done:
  names_free(&valid);
  names_free(&scenes);
  close_id(sg.time);
  close_id(sg.ds);
  close_id(g);
  close_id(fid);
  return rc;
}
