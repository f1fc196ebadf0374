/* internal.h - declarations shared inside libvibro, not installed. */
#ifndef VIBRO_INTERNAL_H
#define VIBRO_INTERNAL_H

#include <stdint.h>
#include "vibro.h"

/* ------------------------------------------------------------- status */

/* The library's one message helper: format a message into err[errlen]
 * (truncated safely; nothing when err is NULL or errlen is 0) and return
 * `status`, so that callers write
 *   return vb_errf(err, errlen, VB_ENOMEM, "%s: out of memory ...", path); */
int vb_errf(char *err, size_t errlen, int status, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* vb_errf for code that unwinds through several callers, each with its
 * own context: writes only when err[0] is '\0' (so err must start empty),
 * keeping the first, most specific message; returns `status`. */
int vb_errf_first(char *err, size_t errlen, int status, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Shortest decimal text of a double that reads back to the same value
 * (lib/source.c); returns buf. */
const char *vb_number_text(double x, char *buf, size_t size);

/* Most bytes of a scene or study file (and each file it includes), and of
 * a data file (profile, CSV modes file). */
#define VB_TEXT_MAX ((size_t)64 << 20)
#define VB_DATA_MAX ((size_t)256 << 20)

/* Whole content of a file, NUL-terminated; the caller frees it; *len
 * receives the number of bytes read.  Reading stops after the first NUL
 * byte (binary content: strlen(text) < *len tells the caller), so a
 * device such as /dev/zero cannot hang it.  NULL with errno set when it
 * cannot be read, EFBIG when it holds more than max bytes (lib/source.c). */
char *vb_read_text(const char *path, size_t max, size_t *len);

/* ------------------------------------------------------------- Newton */

/* Scalar residual r(y) and its derivative, for vb_newton_solve. */
typedef double (*vb_residual_fn)(double y, void *data, double *dr);

/* Solve r(y) = 0 by Newton's method from y0, safeguarded by bisection
 * inside [lo, hi] once a sign change is known.  Converged when the update
 * is below tol * max(|y|, scale).  Stores the iterate in *y and the count
 * in *iterations; VB_OK or VB_ENOCONV after max_iter iterations. */
int vb_newton_solve(vb_residual_fn r, void *data, double y0, double scale, double tol, int max_iter,
                    double *y, int *iterations);

/* ---------------------------------------------------------------- laws */

/* The laws' shared functions (law.h: what the schemes include). */
#include "law.h"

/* ------------------------------------------------------------- drivers */

/* The offset of a drive parameter that is an integer the loader handles
 * itself (noise seed and components), not a double of vb_drive. */
#define VB_DRIVE_INTEGER ((size_t)-1)

/* One numeric key of a drive type. */
typedef struct vb_drive_param {
  const char *key;   /* scene-file key, e.g. "freq" */
  const char *units; /* SI units, "1" when dimensionless */
  size_t offset;     /* offset of its double in vb_drive, or VB_DRIVE_INTEGER */
  int required;      /* 1: the drive group must give it */
  double fallback;   /* its value when absent and not required */
  double min, max;   /* valid values: >= min (> min when min_open); an
                        integer also <= max */
  int min_open;
  const char *condition; /* the valid values in words, NULL when any */
} vb_drive_param;

/* A drive type (a row of drive.c's table). */
typedef struct vb_drive_info {
  const char *name; /* scene-file type, e.g. "sine" */
  vb_drive_kind kind;
  int file;                     /* 1: also a string key `file` (profile) */
  const vb_drive_param *params; /* numeric keys, NULL-key-terminated */
} vb_drive_info;

/* The drive type of a scene-file name, or NULL. */
const vb_drive_info *vb_drive_lookup(const char *name);
/* Row i of the drive table, NULL beyond; *n (may be NULL) gets the count. */
const vb_drive_info *vb_drive_info_at(int i, int *n);
/* Whether x is a valid value of drive parameter p (p->condition). */
int vb_drive_param_valid(const vb_drive_param *p, double x);

/* Prescribed displacement of a drive at time t, m, and its rate in *rate. */
double vb_drive_eval(const vb_drive *d, double t, double *rate);
/* Set up seeded band-limited noise: ncomp cosines of random frequency in
 * (0, freq] and random phase, rms `amplitude`; allocates the components. */
int vb_drive_noise_setup(vb_drive *d, long ncomp);

/* -------------------------------------------------------------- bodies */

/* Allocate a body's modal arrays (freq, sigma, modal_mass, q0, dq0,
 * gravity) and npoints points with their shapes, zeroed. */
/* Contact ct of scene sc as messages name it: "'hit'", or for a point of
 * a distributed block "'frets' (point 11, x 0.432 m)" (label.c); a
 * buffer of VB_NAME_MAX + 64 bytes holds it.  Returns buf. */
#define VB_LABEL_MAX (VB_NAME_MAX + 64)
const char *vb_contact_label(const vb_scene *sc, const vb_contact *ct, char *buf, size_t len);
int vb_body_alloc_modes(vb_body *b, int nmodes, int npoints);
/* Free a body's modal arrays and points. */
void vb_body_clear_modes(vb_body *b);
/* Free the data a drive owns (profile samples, noise components). */
void vb_drive_clear(vb_drive *d);
/* Free everything a body owns (modes, points, drive data). */
void vb_body_clear(vb_body *b);
/* Drop the modes at or above fs/2 of every modal body whose island's
 * family cannot step them (lib/nyquist.c); VB_OK or VB_ENOMEM. */
int vb_drop_aliased_modes(vb_scene *sc);
/* The highest frequency among a body's modes, Hz (0 without modes). */
double vb_body_highest_mode(const vb_body *b);
/* Fill a mass's one mode from mass, k, c, u0 and v0. */
int vb_body_mass_modes(vb_body *b);

/* The compiled model, the run state and the schemes' interface are in
 * model.h, island.h and solvers/scheme.h, included by the files that use
 * them: a scheme sees the system of equations (scheme.h), not the island. */

/* ------------------------------------------------------------- presets */

/* Geometry and material of a modal body computed by a preset
 * (lib/presets.c; conventions in its header comment).  Each kind uses
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
 * HDF5 when the name ends in .h5 or .hdf5 (formats in lib/presets.c).
 * Fills freq, sigma (ln(1000)/t60, 0 when undamped), modal_mass,
 * gravity (default 1 for 0 Hz modes, 0 otherwise) and the named points'
 * shapes; positions and q0, dq0 stay 0.  VB_EIO (cannot read) or
 * VB_EINVAL with "path:line: message" (CSV) or "path: message" (HDF5);
 * the body is left without modes on error. */
int vb_modes_file_read(vb_body *b, const char *path, char *err, size_t errlen);

/* Index a loaded scene's point and modes signal instances by body
 * (record.c; scene.c calls it once the bodies and the record block are
 * read); VB_OK or VB_ENOMEM. */
int vb_record_index(vb_scene *sc);

/* Where instance i of a signal row is among a scene's recorded
 * instances (every row's instances in table order), and how many there
 * are: the index of vb_run_alloc_into's `into` (record.c). */
int vb_signal_instance(const vb_signal *s, const vb_scene *sc, int i);
int vb_signal_instances(const vb_scene *sc);

/* Where a run writes its recording as it goes, instead of holding it
 * whole (vb_run_alloc_into): recorded instance j's vb_signal_rows rows of
 * vb_scene_samples doubles ([rows][samples]) at byte offset[j] of the
 * file fd (output_laid.c: its row of the laid-out shard), where offset[j]
 * is not negative.  The run keeps a window of samples in memory and writes
 * it with pwrite when it is full and when the run ends; a recorded series
 * without an offset is not written (the file does not hold it). */
typedef struct vb_record_file {
  int fd;
  const int64_t *offset; /* [vb_signal_instances] bytes, -1 where not recorded */
  int async; /* write the windows from a thread of the run's own (a core is free) */
} vb_record_file;

/* vb_run_alloc, recording into a file as the run goes when `to` is not
 * NULL (then the recording is not held in memory: vb_run_point_u and the
 * other series hold only the last window). */
int vb_run_alloc_into(const vb_scene *scene, const vb_record_file *to, vb_run **out, char *err,
                      size_t errlen);
/* The errno of the first failed write of a run recording into a file
 * (vb_run_alloc_into), or 0: then the file does not hold its recording. */
int vb_run_record_errno(const vb_run *run);
/* Samples of a run's recording held in memory: all, or its window's. */
long vb_run_record_window(const vb_run *run);
/* Doubles from a row of a recorded series to the next in memory (and from
 * an instance of a row to the next, when they follow one another): the
 * samples, or beyond the window's when recording into a file. */
long vb_run_record_stride(const vb_run *run);

/* Read named numeric columns of a CSV data file (a header line naming the
 * columns, comma-separated; blank lines and '#' comments skipped): for
 * each of the ncols (1..8) names, the first of its '|'-separated
 * alternatives the header has, case ignored ("x_m|x").  Allocates out[k]
 * (the caller frees each) with *nrows values.  VB_EIO, VB_ENOMEM or
 * VB_EINVAL with "path:line: message" (a missing column, a field that is
 * not a finite number, a row with another number of fields). */
int vb_csv_columns(const char *path, int ncols, const char *const *names, double **out, int *nrows,
                   char *err, size_t errlen);

/* ------------------------------------------- data files (issue 32) */

/* errno of vb_open_regular and vb_read_data for a path that is not a
 * regular file (a FIFO, a device or a socket): a read never sets it. */
#define VB_NOT_REGULAR_ERRNO ESPIPE
/* Open `path` read-only if it is a regular file, decided by fstat on the
 * descriptor itself (opened O_NONBLOCK: a FIFO cannot block the open, and
 * nothing can be swapped in between the check and the read).  The
 * descriptor (the caller closes it), or -1 with errno set:
 * VB_NOT_REGULAR_ERRNO, EISDIR for a directory, or open's own (lib/inputs.c). */
int vb_open_regular(const char *path);
/* vb_read_text of a data file (a CSV file, a profile, a points file) that
 * must be a regular file: NULL with errno VB_NOT_REGULAR_ERRNO or EISDIR
 * when it is not (vb_open_regular); the caller frees the text. */
char *vb_read_data(const char *path, size_t max, size_t *len);
/* Whether a number field of a data file (trimmed) is hexadecimal, which
 * strtod would read (0x10 as 16, 0x1p3 as 8) and a data file refuses: a
 * sign, then 0x or 0X. */
int vb_hex_field(const char *s);

#endif
