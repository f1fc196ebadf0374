/* scene/scene.h - the face of the scene wing (not installed): the text of a
 * scene or study file, its libconfig parse, and the typed getters and
 * message helper every part of the loader shares (source.c, inputs.c,
 * names.c, source_check.c), the loaders of bodies, contacts and
 * distributed blocks (load_*.c), presets, modes files, the Nyquist check
 * and the scene itself (scene.c).  The scene wing uses base, solvers,
 * island and run (the analysis block's loader fills the run's analysis
 * settings).
 *
 * Every message reads "file:line: object: what is wrong (valid: ...)". */
#ifndef VIBRO_SCENE_H
#define VIBRO_SCENE_H

#include <stddef.h>

#include <libconfig.h>

#include "base/base.h"

/* Room for a formatted object name such as "contact 'hit'". */
#define OBJECT_MAX (VB_NAME_MAX + 32)

/* Room for a comma-separated list of choices in a message. */
#define LIST_MAX 512

/* ----------------------------------------------------------- scene text */

/* Shortest decimal text of a double that reads back to the same value
 * (lib/scene/source.c); returns buf. */
const char *vb_number_text(double x, char *buf, size_t size);

/* Most bytes of a scene or study file (and each file it includes), and of
 * a data file (profile, CSV modes file). */
#define VB_TEXT_MAX ((size_t)64 << 20)
#define VB_DATA_MAX ((size_t)256 << 20)

/* Whole content of a file, NUL-terminated; the caller frees it; *len
 * receives the number of bytes read.  Reading stops after the first NUL
 * byte (binary content: strlen(text) < *len tells the caller), so a
 * device such as /dev/zero cannot hang it.  NULL with errno set when it
 * cannot be read, EFBIG when it holds more than max bytes (lib/scene/source.c). */
char *vb_read_text(const char *path, size_t max, size_t *len);

/* Drop the modes at or above fs/2 of every modal body whose island's
 * family cannot step them, and the modes along w at or above fs/2 of every
 * modal body (lib/scene/nyquist.c); VB_OK, VB_ENOMEM, or VB_EINVAL with
 * *bad the body none of whose modes along w is below fs/2. */
int vb_drop_aliased_modes(vb_scene *sc, int *bad);
/* The highest frequency among a body's modes, Hz (0 without modes). */
double vb_body_highest_mode(const vb_body *b);
/* ------------------------------------------------------------- presets */

/* Geometry and material of a modal body computed by a preset
 * (lib/scene/presets.c; conventions in its header comment).  Each kind uses
 * only its own fields and ignores the others. */
typedef struct vb_preset {
  const char *kind;                /* "bar", "string", "plate", "membrane" */
  int nmodes;                      /* how many modes, lowest frequencies first */
  double length, width, thickness; /* bar: length L, section width b x thickness h;
                              plate: lx = length, ly = width, thickness h; m */
  double youngs, density, poisson; /* E (Pa), rho (kg/m^3), nu (plate) */
  double tension;                  /* string: N; membrane: N/m */
  double linear_density;           /* string: kg/m */
  double surface_density;          /* membrane: kg/m^2 */
  double radius;                   /* membrane: m */
  double inharmonicity;            /* string: B, f_n = n f_0 sqrt(1 + B n^2) (Fletcher,
                                      JASA 36, 1964), 1 (0: the ideal string) */
  const double *freq;              /* string: measured frequencies [nmodes], Hz, replacing
                                      the formula (NULL: none) */
  const double *sigma;             /* string: measured decay rates [nmodes], 1/s (NULL: 0) */
  double pluck_x, pluck_h;         /* string: q0 of a triangle of height pluck_h (m)
                                      at pluck_x (m), released from rest (pluck_h 0:
                                      none) */
} vb_preset;

/* Fill a modal body's modes from a preset: allocates nmodes modes and
 * npoints points (vb_body_alloc_modes), copies the names and positions
 * px[i], py[i] (m; py may be NULL: y = 0; bar and string use x along the
 * body from 0 to L, plate (x, y) from the corner, membrane (x, y) from
 * the centre) and computes freq, modal_mass, gravity and the shapes;
 * sigma, q0 and dq0 stay 0.  VB_EINVAL with a one-line message
 * "preset 'bar': ..." (no file or body prefix) on an unknown kind, nmodes
 * outside 1..100000, a parameter <= 0 (poisson outside (-1, 0.5)) or a
 * point off the body; VB_ENOMEM.  The body is left without modes on error. */
int vb_preset_fill(vb_body *b, const vb_preset *p, int npoints, const double *px, const double *py,
                   const char *const *names, char *err, size_t errlen);
/* Comma-separated list of preset kinds, for messages. */
const char *vb_preset_choices(void);

/* Read a body's modes from a file of measured or FEM modal data: CSV, or
 * HDF5 when the name ends in .h5 or .hdf5 (formats in lib/scene/presets.c).
 * Fills freq, sigma (ln(1000)/t60, 0 when undamped), modal_mass,
 * gravity (default 1 for 0 Hz modes, 0 otherwise) and the named points'
 * shapes; positions and q0, dq0 stay 0.  VB_EIO (cannot read) or
 * VB_EINVAL with "path:line: message" (CSV) or "path: message" (HDF5);
 * the body is left without modes on error. */
int vb_modes_file_read(vb_body *b, const char *path, char *err, size_t errlen);

/* Read named numeric columns of a CSV data file (a header line naming the
 * columns, comma-separated; blank lines and '#' comments skipped): for
 * each of the ncols (1..8) names, the first of its '|'-separated
 * alternatives the header has, case ignored ("x_m|x").  Allocates out[k]
 * (the caller frees each) with *nrows values.  VB_EIO, VB_ENOMEM or
 * VB_EINVAL with "path:line: message" (a missing column, a field that is
 * not a finite number, a row with another number of fields). */
int vb_csv_columns(const char *path, int ncols, const char *const *names, double **out, int *nrows,
                   char *err, size_t errlen);

/* The files a load read, each with the CRC-32 of its bytes (lib/scene/inputs.c). */
typedef struct vb_inputs {
  char **path;        /* [n] as the loader opened them (owned) */
  unsigned long *crc; /* [n] CRC-32 of each file's bytes */
  long n, cap;
  int failed; /* out of memory: the list is incomplete */
} vb_inputs;

/* Record that a load read `path` (bytes[len], or the file's own bytes when
 * bytes is NULL); once per path; NULL `in` records nothing. */
void vb_inputs_add(vb_inputs *in, const char *path, const char *bytes, size_t len);
/* "PATH CRC32\n" per file in reading order (CRC in 8 hex digits); the
 * caller frees it; NULL when out of memory. */
char *vb_inputs_text(const vb_inputs *in);
/* 1 when `path`, listed in `in`, no longer has the bytes listed (the
 * CRC-32 listed into *then, the present one into *now); 0 when it has, or
 * is not listed, or cannot be read. */
int vb_inputs_changed(const vb_inputs *in, const char *path, unsigned long *then,
                      unsigned long *now);
/* Free the list's memory; a zeroed list is a no-op. */
void vb_inputs_clear(vb_inputs *in);

/* Where each line of a text starts: line k (1-based) at start[k - 1]. */
typedef struct vb_lines {
  long *start; /* [n] byte offsets (owned) */
  long n;
} vb_lines;

/* The @include files a load looked up lines in, each read and indexed
 * once (int_literal_fits); at most VB_INCLUDED_MAX, then read each time. */
#define VB_INCLUDED_MAX 16
typedef struct vb_included {
  int n;
  char *path[VB_INCLUDED_MAX], *text[VB_INCLUDED_MAX]; /* owned */
  vb_lines lines[VB_INCLUDED_MAX];
} vb_included;
/* Free what a vb_included holds and itself; NULL is a no-op. */
void vb_included_free(vb_included *inc);

/* The text of a scene or study file and where it came from. */
typedef struct vb_source {
  char *path;   /* name in messages (owned) */
  char *text;   /* full text, NUL-terminated (owned) */
  char *incdir; /* directory for @include, NULL for the working directory (owned) */
  /* every file read while loading it, the source first (owned); NULL
   * once recording stops (a study stops after scene 0: the scenes built
   * in parallel read the same files) */
  vb_inputs *files;
  /* once recording stopped: the files scene 0 read, with their CRC-32;
   * every later load checks that its data files still match (owned) */
  vb_inputs *expect;
  vb_lines lines; /* where each line of text starts */
} vb_source;

/* Read a file into src (VB_EIO or VB_ENOMEM with a message on failure). */
int vb_source_read(const char *path, vb_source *src, char *err, size_t errlen);
/* Copy text into src, named `path` in messages. */
int vb_source_copy(const char *text, const char *path, vb_source *src, char *err, size_t errlen);
/* Free what src holds; a zeroed src is a no-op. */
void vb_source_clear(vb_source *src);
/* Check src's @include files (each a readable regular text file, no
 * cycle, at most 10 deep) and the integer literals of every text, before
 * libconfig parses them; VB_OK or VB_EINVAL (lib/scene/source_check.c). */
int vb_source_check(const vb_source *src, char *err, size_t errlen);
/* Parse src into cfg (which this initialises: the caller always calls
 * config_destroy); "file:line: syntax error: ..." on failure. */
int vb_source_parse(const vb_source *src, config_t *cfg, char *err, size_t errlen);
/* Write "file:line: object: what" for setting s into err; returns VB_EINVAL. */
int vb_source_fail(const vb_source *src, const config_setting_t *s, const char *object, char *err,
                   size_t errlen, const char *fmt, ...) __attribute__((format(printf, 6, 7)));

/* One entry of a name index: a name and the index of its object. */
typedef struct vb_named {
  const char *name;
  int index;
} vb_named;

/* The names of a list of objects, sorted (lib/scene/names.c). */
typedef struct vb_names {
  vb_named *item; /* [n] by name, then index */
  int n;
} vb_names;

/* Index the n names at base + i * stride (stride 0: base is a `const
 * char **`, NULL entries left out); VB_OK or VB_ENOMEM. */
int vb_names_build(vb_names *ix, const void *base, size_t stride, int n);
/* The lowest index of an object called `name`, or -1. */
int vb_names_find(const vb_names *ix, const char *name);
/* The lowest index whose name a lower index has already (that one into
 * *first), or -1. */
int vb_names_duplicate(const vb_names *ix, int *first);
/* Free an index; a zeroed one is a no-op. */
void vb_names_free(vb_names *ix);
/* The lowest element of a list of groups whose `name` an earlier element
 * has (that one into *first); -1 when none, -2 when out of memory. */
int vb_src_first_duplicate(const config_setting_t *list, int *first);

/* Refuse an integer literal of a text named `name` that libconfig would
 * keep wrong in 32 bits (a wide hex literal anywhere, a wide decimal array
 * or list element): "FILE:LINE: integer literal ..." (lib/scene/source_check.c). */
int vb_src_check_literals(const char *text, const char *name, char *err, size_t errlen);

/* State of one load: where messages go and what is being built. */
typedef struct vb_loader {
  const char *path;   /* name of the top file, for messages */
  const char *text;   /* its full text */
  const char *incdir; /* include directory, NULL for the working directory */
  char *err;          /* the caller's message buffer [errlen] */
  size_t errlen;
  vb_scene *scene; /* the scene being loaded (NULL: messages only) */
  vb_inputs *files; /* records the data files read (NULL: no record) */
  const vb_inputs *expect; /* data files must still match these (NULL: no check) */
  char *changed;           /* the first data file that no longer matches (owned), or NULL */
  unsigned long changed_then, changed_now; /* its CRC-32 listed and present */
  const vb_lines *lines; /* of text */
  vb_included *included; /* read @include files (owned; NULL: none kept) */
  /* indices built on first use (owned; vb_loader_clear frees them) */
  vb_names bodies;                 /* the scene's bodies, once they are loaded */
  vb_names *points;                /* [nbodies] each modal body's points, or NULL */
  const config_setting_t *dup_of;  /* the list whose first duplicate is known */
  int dup_at, dup_first;           /* its lowest duplicate element and the first */
} vb_loader;

/* A key that is valid only in some variant of an object. */
typedef struct vb_key_rule {
  const char *key;
  const char *only; /* e.g. "law 'hunt-crossley'" */
} vb_key_rule;

/* A loader for messages about src (scene NULL) or for loading into scene. */
void vb_loader_init(vb_loader *ld, const vb_source *src, char *err, size_t errlen, vb_scene *scene);
/* Free the indices a load built. */
void vb_loader_clear(vb_loader *ld);

/* Report a problem with setting s as "FILE:LINE: OBJECT: what" (object may
 * be NULL); returns VB_EINVAL so that callers can write return vb_src_fail(...). */
int vb_src_fail(const vb_loader *ld, const config_setting_t *s, const char *object, const char *fmt,
                ...) __attribute__((format(printf, 4, 5)));
/* Refuse a number that breaks a condition: "'k' must be > 0 (got -1)";
 * VB_EINVAL. */
int vb_src_refuse(const vb_loader *ld, const config_setting_t *group, const char *object,
                  const char *key, const char *condition, double x);
/* Refuse any member of a group that is not in the NULL-terminated
 * `allowed`; keys listed in `rules` (NULL-key-terminated, may be NULL) get
 * a message saying where they do apply. */
int vb_src_check_keys(const vb_loader *ld, const config_setting_t *group, const char *object,
                      const char *const *allowed, const vb_key_rule *rules);
/* Check a body or contact name: non-empty, short, [A-Za-z0-9_-]. */
int vb_src_check_name(const vb_loader *ld, const config_setting_t *group, const char *object,
                      const char *name);

/* Start loading element i of a list of named objects of one kind ("body"):
 * it must be a group (`shape`, e.g. "{ name = ...; type = ...; }", names
 * its form in the message) with a valid name that no element before it
 * has.  The names live `stride` bytes apart from `names` (the name field
 * of the first object); the name is copied to element i's, and obj
 * receives "kind 'name'" for the messages that follow. */
int vb_src_element(vb_loader *ld, const config_setting_t *list, int i, const char *kind,
                   const char *shape, char *names, size_t stride, char *obj, size_t objsize);

/* Most variants (law kinds, body types) and keys in all that
 * vb_variant_keys handles. */
#define VB_VARIANTS_MAX     16
#define VB_VARIANT_KEYS_MAX 64 /* the union of the body types' keys was 33 (issue 30's) */

/* Keys of an object that has variants (a contact's law, a body's type)
 * from one table of the keys of each: the keys of variant `self` (of every
 * variant, each once, when self < 0: the variant is unknown yet) are
 * appended to out[*n]; for self >= 0, each key of another variant that
 * self lacks gets a rule in rules[] (NULL-key-terminated; room for
 * VB_VARIANT_KEYS_MAX + 1) saying where it applies, "law 'rattle'" or
 * "types mass and modal" (`word` is "law", "type"), with its text in buf.
 * Returns the number of rules. * out NULL: the rules only; rules NULL: the keys only (the rules word a
 * refusal: build them when vb_src_keys_allowed says a key is not allowed,
 * since their texts cost more than the load of the rest of the object).
 */
int vb_variant_keys(const char *word, int nvariants, const char *const *names,
                    const char *const *const *keys, int self, const char **out, int *n,
                    vb_key_rule *rules, char (*buf)[LIST_MAX]);

/* Whether every member of group is in allowed (NULL-terminated). */
int vb_src_keys_allowed(const config_setting_t *group, const char *const *allowed);

/* Member of a group, or NULL. */
config_setting_t *vb_src_member(const config_setting_t *group, const char *key);
/* The setting to point at for a key: its own line, else the group's. */
const config_setting_t *vb_src_at(const config_setting_t *group, const char *key);
/* Typed members.  Each leaves *out alone when the key is absent and not
 * required, and refuses a wrong type or (numbers) a non-finite value. */
int vb_src_string(const vb_loader *ld, const config_setting_t *group, const char *object,
                  const char *key, int required, const char **out);
int vb_src_number(const vb_loader *ld, const config_setting_t *group, const char *object,
                  const char *key, int required, double *out);
int vb_src_integer(const vb_loader *ld, const config_setting_t *group, const char *object,
                   const char *key, int required, long *out);
int vb_src_bool(const vb_loader *ld, const config_setting_t *group, const char *object,
                const char *key, int *out);
/* A numeric array (or, when scalar_ok, one number applied to all n) into
 * out[n]; n < 0 allocates *out with the array's own length in *count.
 * *present (may be NULL) says whether the key was there. */
int vb_src_array(const vb_loader *ld, const config_setting_t *group, const char *object,
                 const char *key, int required, int scalar_ok, int n, double **out, int *count,
                 int *present);

/* Location "FILE:LINE" of a setting, for "first defined at" messages. */
const char *vb_src_where(const vb_loader *ld, const config_setting_t *s, char *buf, size_t size);
/* A data file named in the scene, relative to the scene's directory; a study's
 * later scenes note in ld->changed a file that no longer has scene 0's bytes. */
void vb_src_data_path(vb_loader *ld, const char *file, char *buf, size_t size);

/* Append an item to a comma-separated list, ending in "..." when full. */
void vb_list_add(char *list, size_t size, const char *item);
/* Join a NULL-terminated array of keys into a comma-separated list. */
const char *vb_key_list(const char *const *keys, char *buf, size_t size);
/* Whether a NULL-terminated array of keys holds a key. */
int vb_has_key(const char *const *keys, const char *key);

/* The parts of the scene loader (load_body.c, load_contact.c): each loads
 * one top-level list of a parsed document into ld->scene. */
int vb_load_bodies(vb_loader *ld, const config_setting_t *list);
int vb_load_contacts(vb_loader *ld, const config_setting_t *list);
int vb_load_forces(vb_loader *ld, const config_setting_t *list);
/* Resolve "body" or "body.point" (key `key` of object obj, messages at m)
 * into a body and point index: a modal object needs a point, a mass or
 * wall takes none (load_contact.c).  VB_OK, VB_EINVAL or VB_ENOMEM. */
int vb_src_point(vb_loader *ld, const config_setting_t *m, const char *obj, const char *key,
                 const char *text, int *body, int *point);
/* A numeric key of an object and its SI units ("1" when dimensionless). */
typedef struct vb_key_units {
  const char *key; /* scene-file key; "loss[1]" names one element of an array */
  const char *units;
} vb_key_units;

/* A body type: one row of load_body.c's table.  The loader's valid keys,
 * its 'applies only to type' rules and its choices, the sweepable paths
 * and their units, and the messages naming types all come from the rows;
 * a type that is "modes + points" (kind mass or modal) needs nothing else. */
typedef struct vb_body_type {
  const char *name;             /* scene-file type, e.g. "mass" */
  vb_body_kind kind;            /* what the model, recording and output see */
  const char *const *keys;      /* every valid key, NULL-terminated */
  const vb_key_units *numbers;  /* its numeric keys with units, NULL-key-terminated */
  int create;                   /* 1: a sweep may set a numeric key the file leaves out */
  /* Load the body from group g (messages about `obj`); VB_OK or VB_EINVAL
   * with the message in ld. */
  int (*load)(vb_loader *ld, const config_setting_t *g, const char *obj, vb_body *b);
} vb_body_type;

/* The body type of a scene-file name, or NULL. */
const vb_body_type *vb_body_type_lookup(const char *name);
/* Row i of the body-type table, NULL beyond; *n (may be NULL) gets the count. */
const vb_body_type *vb_body_type_at(int i, int *n);

/* A drive group (a wall's drive, a contact's gap_drive) into *d, with
 * messages about `obj` (load_body.c). */
int vb_load_drive(vb_loader *ld, const config_setting_t *g, const char *obj, vb_drive *d);

/* The parameters of a body's preset group pg into *p, with messages about
 * `pobj`; a string's measured modes are read into *freq and *sigma
 * (allocated, NULL when none: the caller frees them) (load_body.c). */
int vb_load_preset_params(vb_loader *ld, const config_setting_t *pg, const char *pobj, vb_preset *p,
                          double **freq, double **sigma);

/* A distributed contact block: the points it spans on a modal body and
 * the barrier's height at each, from the first pass over the contacts
 * list (load_distributed.c). */
typedef struct vb_dist_block {
  int body;        /* the modal body (scene index) its points lie on */
  int other;       /* the wall or mass it meets */
  int body_first;  /* 1: between = [body, other], the barrier is above the
                      body (x = u - h); 0: below (x = h - u) */
  int first_point; /* index of its first point among the body's points */
  int n;           /* number of points */
  double *height;  /* [n] the barrier's height at each point, m (owned) */
} vb_dist_block;

/* Whether a contacts-list element is a distributed contact block (it has
 * `points`). */
int vb_is_distributed(const config_setting_t *g);
/* First pass over distributed block g (element i of the contacts list):
 * its points, appended to its modal body's points as "NAME[k]" with the
 * preset's shapes there, and its profile's heights.  VB_OK or VB_EINVAL
 * with "file:line: contact 'NAME': ... (valid: ...)". */
int vb_load_distributed(vb_loader *ld, const config_setting_t *g, vb_dist_block *out);

/* Data files: regular files only, decimal numbers. */
/* errno of vb_open_regular and vb_read_data for a path that is not a
 * regular file (a FIFO, a device or a socket): a read never sets it. */
#define VB_NOT_REGULAR_ERRNO ESPIPE
/* Open `path` read-only if it is a regular file, decided by fstat on the
 * descriptor itself (opened O_NONBLOCK: a FIFO cannot block the open, and
 * nothing can be swapped in between the check and the read).  The
 * descriptor (the caller closes it), or -1 with errno set:
 * VB_NOT_REGULAR_ERRNO, EISDIR for a directory, or open's own (inputs.c). */
int vb_open_regular(const char *path);
/* vb_read_text of a data file (a CSV file, a profile, a points file) that
 * must be a regular file: NULL with errno VB_NOT_REGULAR_ERRNO or EISDIR
 * when it is not (vb_open_regular); the caller frees the text. */
char *vb_read_data(const char *path, size_t max, size_t *len);
/* Whether a number field of a data file (trimmed) is hexadecimal, which
 * strtod would read (0x10 as 16, 0x1p3 as 8) and a data file refuses: a
 * sign, then 0x or 0X. */
int vb_hex_field(const char *s);

/* Load the `analysis` group g of a document into ld->scene->analysis
 * (load_analysis.c), once the bodies, contacts and forces are loaded.
 * VB_OK, VB_ENOMEM, or VB_EINVAL with "file:line: analysis 'section':
 * what (valid: ...)". */
int vb_load_analysis(vb_loader *ld, const config_setting_t *g);

/* Contacts whose analytic predictions the loader has found finite (its
 * check that a contact's law parameters give finite x_max, v_out and
 * contact time at an impact of 1 m/s), so that the scenes of a study that
 * share a contact's law and effective mass compute that check once per
 * parsed document (one per thread) instead of once per scene: the check
 * depends on those parameters alone.  Zeroed is empty; the oldest entry
 * gives way when it is full. */
#define VB_PREDICT_MEMO 8
typedef struct vb_predict_memo {
  int n;    /* entries in use */
  int next; /* the entry the next insertion replaces once n is full */
  struct {
    vb_law law; /* the contact's law as loaded */
    double m;   /* its effective mass, kg */
  } ok[VB_PREDICT_MEMO];
} vb_predict_memo;

/* Load a scene from a parsed document of src.  The document may carry a
 * sweep block (already applied by the caller); it is removed from cfg.
 * The scene shares src's text (scene->input_shared): src outlives it.
 * memo (may be NULL) keeps the contacts whose predictions were checked,
 * for the next scene loaded with it (owned by the caller, one per
 * thread). */
int vb_scene_load_config(const vb_source *src, config_t *cfg, vb_predict_memo *memo,
                         vb_scene **out, char *err, size_t errlen);

/* ------------------------------------------- friction (issue 30, step 1) */

/* The tangential direction and friction of a loaded document's bodies and
 * contacts (load_friction.c): masses' w0, vw0, kw, cw, walls' w_drive and
 * contacts' friction, after both lists are loaded; VB_EINVAL with
 * "file:line: object: what (valid: ...)". */
int vb_load_friction(vb_loader *ld, const config_setting_t *root);

/* The contacts' gap geometry (load_geometry.c; issue 30, item 4): a
 * circular clearance, after the friction; VB_EINVAL with "file:line:
 * object: what (valid: ...)". */
int vb_load_geometry(vb_loader *ld, const config_setting_t *root);

#endif
