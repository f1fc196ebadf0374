/* event_fields.c - the fields of vibro events' tables (event_fields.h). */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "h5read.h"
#include "event_fields.h"

/* Units of field name from an events "units" attribute of the form
 * "t_on:s t_off:s ...", into buf ("" if not listed). */
void
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

/* The text table's column width of a field: its name, units, or values. */
int
field_width(const field *f)
{
  static const int least[] = {[FIELD_FLOAT] = 12, [FIELD_INT] = 6, [FIELD_VSTRING] = 12,
                              [FIELD_FSTRING] = 0};
  int w = (int)strlen(f->name);

  if (f->units[0] && (int)strlen(f->units) + 2 > w)
    w = (int)strlen(f->units) + 2;
  if (w < least[f->kind])
    w = least[f->kind];
  if (f->kind == FIELD_FSTRING && w < (int)f->size)
    w = (int)f->size;
  return w;
}

/* Add the fields of an event table's type to the union of fields. */
int
fields_add(field **fields, size_t *nfields, hid_t ds, hid_t ftype)
{
  char units[TEXT_MAX];
  namelist aligned = {0}; /* vibro-2: a units array aligned with the fields */
  int n = H5Tget_nmembers(ftype);

  if (attr_text(ds, "units", units, sizeof units) < 0)
    attr_strings(ds, "units", &aligned);
  for (int m = 0; m < n; m++) {
    char *name = H5Tget_member_name(ftype, (unsigned)m);
    hid_t mt = H5Tget_member_type(ftype, (unsigned)m);
    H5T_class_t cls = mt < 0 ? H5T_NO_CLASS : H5Tget_class(mt);
    field f = {.kind = FIELD_FLOAT};
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
        names_free(&aligned);
        return -1;
      }
      *fields = more;
      snprintf(f.name, sizeof f.name, "%s", name);
      if (aligned.n == (size_t)n)
        snprintf(f.units, sizeof f.units, "%s",
                 strcmp(aligned.v[m], "1") == 0 || strcmp(aligned.v[m], "-") == 0 ? ""
                                                                                  : aligned.v[m]);
      else
        field_units(units, name, f.units, sizeof f.units);
      f.kind = cls == H5T_FLOAT             ? FIELD_FLOAT
               : cls == H5T_INTEGER         ? FIELD_INT
               : H5Tis_variable_str(mt) > 0 ? FIELD_VSTRING
                                            : FIELD_FSTRING;
      f.size = f.kind == FIELD_FSTRING ? H5Tget_size(mt) + 1 : 0;
      f.width = field_width(&f);
      (*fields)[(*nfields)++] = f;
    } else if ((*fields)[i - 1].kind == FIELD_FSTRING && cls == H5T_STRING &&
               H5Tis_variable_str(mt) <= 0 && H5Tget_size(mt) + 1 > (*fields)[i - 1].size) {
      (*fields)[i - 1].size = H5Tget_size(mt) + 1;
    }
    H5free_memory(name);
    close_id(mt);
  }
  names_free(&aligned);
  return 0;
}

/* vibro-3: the fields of a group of columns (creation order; the `event`
 * or `phase` coordinate is not one), each with its dataset's units. */
int
fields_columns(field **fields, size_t *nfields, hid_t g)
{
  namelist kids = {0};
  int rc = children_ordered(g, &kids);

  for (size_t k = 0; k < kids.n && rc == 0; k++) {
    int coordinate = strcmp(kids.v[k], "event") == 0 || strcmp(kids.v[k], "phase") == 0;
    hid_t ds = coordinate ? H5I_INVALID_HID : H5Dopen2(g, kids.v[k], H5P_DEFAULT);
    hid_t type = ds >= 0 ? H5Dget_type(ds) : H5I_INVALID_HID;
    H5T_class_t cls = type >= 0 ? H5Tget_class(type) : H5T_NO_CLASS;
    field f = {.kind = FIELD_FLOAT}, *more;
    if (cls == H5T_FLOAT || cls == H5T_INTEGER ||
        (cls == H5T_STRING && H5Tis_variable_str(type) <= 0)) {
      more = realloc(*fields, (*nfields + 1) * sizeof *more);
      if (!more) {
        rc = -1;
      } else {
        *fields = more;
        snprintf(f.name, sizeof f.name, "%s", kids.v[k]);
        attr_text(ds, "units", f.units, sizeof f.units);
        if (strcmp(f.units, "1") == 0 || strcmp(f.units, "-") == 0)
          f.units[0] = '\0';
        f.kind = cls == H5T_FLOAT ? FIELD_FLOAT : cls == H5T_INTEGER ? FIELD_INT : FIELD_FSTRING;
        f.size = f.kind == FIELD_FSTRING ? H5Tget_size(type) + 1 : 0;
        f.width = field_width(&f);
        (*fields)[(*nfields)++] = f;
      }
    }
    close_id(type);
    close_id(ds);
  }
  names_free(&kids);
  return rc;
}

/* vibro-3: read rows [start, start + count) of every field's column of
 * group g into buf (rows of `row` bytes, field i at offset[i]). */
int
columns_block(hid_t g, const field *fields, size_t nfields, const size_t *offset, size_t row,
              hsize_t start, hsize_t count, unsigned char *buf)
{
  unsigned char *tmp = NULL;
  int rc = 0;

  for (size_t i = 0; i < nfields && rc == 0; i++) {
    size_t esize = fields[i].kind == FIELD_FSTRING ? fields[i].size : 8;
    hid_t ds = H5Dopen2(g, fields[i].name, H5P_DEFAULT), mtype;
    hid_t fspace = ds >= 0 ? H5Dget_space(ds) : H5I_INVALID_HID;
    hid_t mspace = H5Screate_simple(1, &count, NULL);
    if (fields[i].kind == FIELD_FSTRING) {
      mtype = H5Tcopy(H5T_C_S1);
      H5Tset_size(mtype, esize);
    } else {
      mtype = H5Tcopy(fields[i].kind == FIELD_INT ? H5T_NATIVE_LLONG : H5T_NATIVE_DOUBLE);
    }
    tmp = malloc((size_t)count * esize + 1);
    rc = tmp && fspace >= 0 && mspace >= 0 && mtype >= 0 &&
                 H5Sselect_hyperslab(fspace, H5S_SELECT_SET, &start, NULL, &count, NULL) >= 0 &&
                 H5Dread(ds, mtype, mspace, fspace, H5P_DEFAULT, tmp) >= 0
             ? 0
             : -1;
    for (hsize_t r = 0; rc == 0 && r < count; r++)
      memcpy(buf + r * row + offset[i], tmp + r * esize, esize);
    free(tmp);
    close_id(mtype);
    close_id(mspace);
    close_id(fspace);
    close_id(ds);
  }
  return rc;
}

/* Print a text cell of a CSV row, quoted when it needs to be. */
void
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

/* The memory type of the union's fields that a table of file type ftype
 * has: offset[i] receives each field's place in a row (SIZE_MAX where the
 * table lacks it), *row the bytes of a row.  The type, or negative. */
hid_t
memory_type(hid_t ftype, const field *fields, size_t nfields, size_t *offset, size_t *row)
{
  hid_t mtype;

  *row = 0;
  for (size_t i = 0; i < nfields; i++) {
    size_t size = fields[i].kind == FIELD_FSTRING   ? fields[i].size
                  : fields[i].kind == FIELD_VSTRING ? sizeof(char *)
                                                    : 8;
    offset[i] = SIZE_MAX;
    if (H5Tget_member_index(ftype, fields[i].name) < 0)
      continue;
    offset[i] = *row;
    *row += (size + 7) / 8 * 8;
  }
  mtype = H5Tcreate(H5T_COMPOUND, *row ? *row : 8);
  if (mtype < 0)
    return mtype;
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
      r = t < 0 ? -1
                : H5Tset_size(t, fields[i].kind == FIELD_VSTRING ? H5T_VARIABLE : fields[i].size);
      if (r >= 0)
        r = H5Tinsert(mtype, fields[i].name, offset[i], t);
      close_id(t);
      break;
    }
    if (r < 0) {
      close_id(mtype);
      return H5I_INVALID_HID;
    }
  }
  return mtype;
}
