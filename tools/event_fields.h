/* event_fields.h - the fields of vibro events' tables: their names,
 * units, kinds and column widths, read from an HDF5 compound or a group
 * of column datasets (tools/event_fields.c; split from cmd_events.c). */
#ifndef VIBRO_EVENT_FIELDS_H
#define VIBRO_EVENT_FIELDS_H

#include <stddef.h>
#include <hdf5.h>

#include "h5read.h"

#define UNITS_LEN 32 /* longest units text of an event field */

/* One field of an event table. */
typedef enum { FIELD_FLOAT, FIELD_INT, FIELD_VSTRING, FIELD_FSTRING } field_kind;

typedef struct field {
  char name[NAME_LEN];
  char units[UNITS_LEN]; /* from the dataset's "units" attribute, "" if none */
  field_kind kind;
  size_t size; /* bytes of a fixed-length string */
  int width;   /* column width of the text table */
  int hidden;  /* vibro-2's scene and contact: printed as the row's label */
} field;

/* Units of field name from an events "units" attribute of the form
 * "t_on:s t_off:s ...", into buf ("" if not listed). */
void field_units(const char *units, const char *name, char *buf, size_t len);
/* The text table's column width of a field: its name, units, or values. */
int field_width(const field *f);
/* Add the fields of an event table's type to the union of fields. */
int fields_add(field **fields, size_t *nfields, hid_t ds, hid_t ftype);
/* vibro-3: the fields of a group of columns (creation order; the `event`
 * or `phase` coordinate is not one), each with its dataset's units. */
int fields_columns(field **fields, size_t *nfields, hid_t g);
/* vibro-3: read rows [start, start + count) of every field's column of
 * group g into buf (rows of `row` bytes, field i at offset[i]). */
int columns_block(hid_t g, const field *fields, size_t nfields, const size_t *offset, size_t row,
                  hsize_t start, hsize_t count, unsigned char *buf);
/* Print a text cell of a CSV row, quoted when it needs to be. */
void csv_text(const char *s);
/* The memory type of the union's fields that a table of file type ftype
 * has: offset[i] receives each field's place in a row (SIZE_MAX where the
 * table lacks it), *row the bytes of a row.  The type, or negative. */
hid_t memory_type(hid_t ftype, const field *fields, size_t nfields, size_t *offset, size_t *row);

#endif
