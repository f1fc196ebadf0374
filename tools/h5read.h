/* h5read.h - reading a vibro output file (layout "vibro-N", see
 * doc/format.md and README.md) with the HDF5 C API, for the commands info,
 * events and export.  Nothing here uses libvibro's internals: the file
 * layout is the interface.  Functions that can fail print one line
 * "FILE: what is wrong" on stderr where the problem is found and return
 * -1 (or a negative id); callers print nothing more. */
#ifndef VIBRO_H5READ_H
#define VIBRO_H5READ_H

#include <stddef.h>
#include <hdf5.h>

#include "cli.h"

#define TEXT_MAX    1024  /* longest attribute text kept */
#define ATTR_TEXT_MAX (1 << 24) /* bytes of a string attribute read at most */
#define PATH_LEN    512   /* longest object path built */
#define NAME_LEN    256   /* longest field or link name kept */
#define CHOICES_MAX 240   /* a list of valid choices longer than this is cut */
#define BLOCK       65536 /* samples read at once */

/* A growable list of names, each its own allocation. */
typedef struct namelist {
  char **v;   /* [n] names */
  size_t n;   /* names held */
  size_t cap; /* slots allocated */
} namelist;

/* Append a copy of s to the list; -1 when out of memory. */
int names_push(namelist *l, const char *s);
/* Index of s in the list, or -1. */
long names_find(const namelist *l, const char *s);
/* H5Literate callback: append each link's name to the namelist data. */
herr_t names_collect(hid_t group, const char *name, const H5L_info_t *info, void *data);
/* Free the names and empty the list. */
void names_free(namelist *l);
/* Join the names with ", " into buf, cut with ", ..." beyond CHOICES_MAX
 * characters; "none" for an empty list. */
void names_join(const namelist *l, char *buf, size_t len);

/* snprintf into buf, cutting what does not fit. */
__attribute__((format(printf, 3, 4))) void text_format(char *buf, size_t len, const char *fmt, ...);

/* Close an HDF5 identifier of any kind; negative ids are ignored. */
void close_id(hid_t id);
/* Free the memory HDF5 allocated for variable-length data in buf. */
void reclaim(hid_t mtype, hid_t space, void *buf);
/* True if path (relative to loc) names an object. */
int has_object(hid_t loc, const char *path);
/* Add the names of group g's links to out, in creation order when the
 * group tracks it (vibro-3's tables), else in name order; 0 or -1. */
int children_ordered(hid_t g, namelist *out);
/* Read a 1-d dataset of fixed-length strings into out; 0 or -1. */
int column_texts(hid_t loc, const char *path, namelist *out);
/* True if path (relative to loc) names a group. */
int is_group(hid_t loc, const char *path);
/* Add the names of the links in group path under loc, in name order, to
 * out; an absent group adds nothing.  0, or -1 (reported against file). */
int children(const char *file, hid_t loc, const char *path, namelist *out);
/* A scalar string attribute into buf; 0, or -1 if absent (buf is ""). */
int attr_text(hid_t obj, const char *name, char *buf, size_t len);
/* A scalar numeric attribute; 0, or -1 if absent (*out is NaN). */
int attr_number(hid_t obj, const char *name, double *out);

/* Rows of an integer dataset [rows] or [rows][k] (a vibro-3 table column,
 * e.g. study/table/engaged_at_end) with a nonzero entry, the first of them
 * in *first (-1 when none); -1 when the dataset is absent or unreadable. */
long rows_nonzero(hid_t loc, const char *path, long *first);

/* Open path read-only (also while a study is still writing it) and check
 * its root attribute format reads "vibro-N"; the file, or a negative id
 * after saying why.  format receives the attribute. */
hid_t output_open(const char *path, char *format, size_t len);

/* The N of a format "vibro-N", or 0. */
int format_version(const char *format);

/* The files of one output: the finished file, or the shards of a running
 * study (OUT.part/, doc/format.md), in scene order. */
typedef struct output_files {
  char format[TEXT_MAX]; /* the root attribute format, e.g. "vibro-2" */
  const struct format_reader *reader; /* its layout's reader (formats.h) */
  int running;           /* 1 when read from the shards of OUT.part/ */
  char state[64];        /* then whether it is still written (part_state.h's words) */
  hid_t *fid;            /* [n] open files */
  int n;
  int damaged; /* 1: a file failed its layout's check; outputs_close leaves them open */
} output_files;

/* Open path: a finished output, or, when path is OUT.part/ or OUT does not
 * exist yet but OUT.part/ does, the shards its manifests list (a study
 * still running).  0, or -1 after a message. */
int outputs_open(const char *path, output_files *of);
/* Close what outputs_open opened. */
void outputs_close(output_files *of);

/* Scene number of a group name of digits, or -1. */
long scene_number(const char *group);
/* The valid scene choices for a message: "0-999", or the group names. */
void scene_choices(const namelist *scenes, char *buf, size_t len);
/* Name a scene in messages: its number, or its quoted group name. */
void scene_label(const char *group, char *buf, size_t len);
/* Index among scenes of the one arg names (a number or a group name), or
 * -1 after saying which are valid. */
long scene_find(const char *file, const namelist *scenes, const char *arg);

/* Length of a 1-d numeric dataset at path under loc; -1 if none. */
long signal_length(hid_t loc, const char *path);
/* Rows of a 1-d dataset of any type at path, or of a vibro-3 table (a
 * group: its `scene` or `event` coordinate); -1 if none. */
long dataset_rows(hid_t loc, const char *path);
/* Read count doubles from position start of a 1-d dataset; 0 or -1. */
int read_block(hid_t ds, hsize_t start, hsize_t count, double *buf);
/* The first value of a 1-d numeric dataset at path, or NaN. */
double first_value(hid_t loc, const char *path);
/* The last value of a 1-d numeric dataset at path, or NaN. */
double last_value(hid_t loc, const char *path);
/* Add to out the paths (relative to the scene group) of every 1-d numeric
 * dataset below group prefix ("" for the scene) except time. */
int collect_signals(const char *file, hid_t scene, const char *prefix, int depth, namelist *out);

/* Read a string-array attribute (or a scalar string) into out; 0, or -1
 * if absent or not strings. */
int attr_strings(hid_t obj, const char *name, namelist *out);

#define ROW_TEXT 160 /* bytes kept of a text column */

/* A table read block by block, every numeric column as a double and
 * every fixed-length string as text of at most ROW_TEXT - 1 bytes: a
 * compound dataset (vibro-1, vibro-2), or a group of columns along one
 * dimension (vibro-3), where a [scene][contact] column X is read as the
 * columns "X:C", one per contact C (vibro-2's names), and the coordinates
 * `contact` and `event` are not columns. */
typedef struct rows_reader {
  hid_t ds, mtype;
  namelist names; /* [n] member names, in file order */
  size_t *offset; /* [n] place in a row; SIZE_MAX for a member not read */
  int *text;      /* [n] 1 for a text member */
  size_t row;     /* bytes of a row in memory */
  long rows;      /* rows of the table */
  size_t *order;  /* [n] member indices in name order, for rows_column */
  /* vibro-3 */
  hid_t *col;  /* [ncols] the group's column datasets */
  int *first;  /* [ncols] the member of each column's first value */
  int *width;  /* [ncols] values per row: its contacts, or 1 */
  int ncols;
} rows_reader;

/* Open the table at path under loc (a compound dataset or a group of
 * columns); 0, or -1 (nothing said) if there is none. */
int rows_open(hid_t loc, const char *path, rows_reader *r);
/* Read rows [start, start + count) into buf (count * r->row bytes). */
int rows_read(const rows_reader *r, hsize_t start, hsize_t count, unsigned char *buf);
/* The column of a member read, or -1 ("index" is vibro-3's "scene"). */
int rows_column(const rows_reader *r, const char *name);
/* A numeric cell (NaN for a text or absent column). */
double rows_number(const rows_reader *r, const unsigned char *row, int column);
/* A text cell ("" for a numeric or absent column). */
const char *rows_text(const rows_reader *r, const unsigned char *row, int column);
/* Close and free; a closed reader may be closed again. */
void rows_close(rows_reader *r);

#endif /* VIBRO_H5READ_H */
