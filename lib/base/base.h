/* base/base.h - the face of the base wing (not installed): what every
 * wing above may use.  The base wing holds the facts that need nothing but
 * the user's types of vibro.h: status texts and the message helper
 * (status.c), the contact laws (law.c, law.h), Papetti's analytic
 * predictions (analytic.c), drives (drive.c), bodies (bodies.c), contact
 * labels (label.c) and the orbit classifiers (orbit.c, orbit.h).
 *
 * The wings, bottom up, each using only the faces of the wings below it
 * (tests/layers.sh holds the order):
 *   base/     this face
 *   solvers/  the schemes, their registry, Newton and the K-method (scheme.h)
 *   island/   the compiled model, modes, islands, the step, kernels (island.h)
 *   run/      a run and its observers: events, recording, analysis (run.h)
 *   scene/    sources, loaders, presets, modes files (scene.h)
 *   output/   the crash-safe writer (output.h)
 *   study/    studies, sweeps, the study runner, check (study.h)
 * and at the root vibro.h (the user's API) and pyapi.c (foreign callers). */
#ifndef VIBRO_BASE_H
#define VIBRO_BASE_H

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

/* ---------------------------------------------------------------- laws */

/* The laws' shared functions (law.h: what the schemes use). */
#include "law.h"
/* The orbit classifiers (orbit.h). */
#include "orbit.h"

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
/* A wall's displacement at time t (its position plus its drive), m, and
 * its rate in *rate, m/s. */
double vb_wall_u(const vb_body *b, double t, double *rate);
/* The part of contact ct's compression that no mode carries (walls and
 * gap, with their drives) at time t, m, and its rate in *rate, m/s. */
double vb_contact_drive(const vb_scene *sc, const vb_contact *ct, double t, double *rate);
/* Whether a wall of contact ct or its gap is driven. */
int vb_contact_driven(const vb_scene *sc, const vb_contact *ct);

/* -------------------------------------------------------------- bodies */

/* Contact ct of scene sc as messages name it: "'hit'", or for a point of
 * a distributed block "'frets' (point 11, x 0.432 m)" (label.c); a
 * buffer of VB_NAME_MAX + 64 bytes holds it.  Returns buf. */
#define VB_LABEL_MAX (VB_NAME_MAX + 64)
const char *vb_contact_label(const vb_scene *sc, const vb_contact *ct, char *buf, size_t len);
/* Allocate a body's modal arrays (freq, sigma, modal_mass, q0, dq0,
 * gravity) and npoints points with their shapes, zeroed. */
int vb_body_alloc_modes(vb_body *b, int nmodes, int npoints);
/* Allocate a modal body's nwmodes modes along w (wfreq, wsigma,
 * wmodal_mass, wq0, wdq0) and each of its points' wshape, zeroed (issue
 * 30); after its points exist.  vb_body_clear frees them. */
int vb_body_alloc_wmodes(vb_body *b, int nwmodes);
/* Free a body's modal arrays and points. */
void vb_body_clear_modes(vb_body *b);
/* Free the data a drive owns (profile samples, noise components). */
void vb_drive_clear(vb_drive *d);
/* Free everything a body owns (modes, points, drive data). */
void vb_body_clear(vb_body *b);
/* Fill a mass's one mode from mass, k, c, u0 and v0. */
int vb_body_mass_modes(vb_body *b);

/* ----------------------------------------------- floating-point mode */

/* The floating-point environment of a run (fpenv.c): flush-to-zero and
 * denormals-are-zero set for the stepping, the caller's setting given
 * back at the end. */
/* The caller's floating-point mode, saved by vb_fpenv_flush. */
typedef struct vb_fpenv {
  unsigned int mxcsr; /* the calling thread's MXCSR before the run (x86-64; 0 elsewhere) */
  int saved;          /* 1 when vb_fpenv_flush changed the mode and must restore it */
} vb_fpenv;

/* Save the calling thread's flush-to-zero and denormals-are-zero bits in
 * *saved and set both (x86-64 SSE; a no-op elsewhere). */
void vb_fpenv_flush(vb_fpenv *saved);
/* Give the calling thread back the two bits vb_fpenv_flush saved; the
 * other bits of MXCSR (the rounding mode, the exception masks and the
 * flags the run raised) are left as they are.  A no-op when nothing was
 * saved. */
void vb_fpenv_restore(const vb_fpenv *saved);

/* -------------------------------------------------------------- LAPACK */

/* LAPACK loaded at its first call (lapack.c): liblapack.so.3, or the file
 * $VIBRO_LAPACK names, opened once per process.  The LU of the n x n
 * column-major a in place with its pivots (LAPACK's dgetf2; n >= 1):
 * LAPACKE_dgetf2_work's info (0, or k > 0 for a zero pivot at k), or -1
 * when LAPACK cannot be loaded (the reason printed once to stderr). */
int vb_lapack_dgetf2(int n, double *a, int *ipiv);
/* Solve with the factors of vb_lapack_dgetf2, b in place (dgetrs, no
 * transpose, one right-hand side): 0, or -1 as above. */
int vb_lapack_dgetrs(int n, const double *a, const int *ipiv, double *b);
/* Load LAPACK now if it is not loaded; 0 when it is there, else -1.  *file
 * (may be NULL) receives the file that provides dgetf2_, or the reason it
 * could not be loaded (a static string). */
int vb_lapack_load(const char **file);
/* dlopen's handle of the LAPACK loaded, or NULL when it is not (yet). */
void *vb_lapack_handle_if_loaded(void);
/* Print to stderr why LAPACK could not be loaded. */
void vb_lapack_tell(void);

/* ---------------------------------------------------------- test control */

/* The test hooks of a process (testctl.c, after SQLite's
 * sqlite3_test_control), set by the test suites before anything runs:
 * the vibro program from VIBRO_TEST_* and VIBRO_NO_SKIP (tools/testenv.c,
 * doc/format.md), the C suites by vb_test_control.  The library reads no
 * environment for them. */
typedef struct vb_test_hooks {
  long kill_at;         /* raise kill_sig at that write point of a writer; 0 never */
  int kill_sig;         /* the signal, SIGKILL unless set */
  long batch_scenes;    /* a shard every so many scenes; 0 off */
  double batch_seconds; /* s between shards; 0: the default */
  double map_bytes;     /* scenes of this many bytes or more record in place
                           (output/laid.c); 0: the default, LAID_MAP_BYTES */
  int writer_thread;    /* 1 a scene recorded in place writes from a thread of its own,
                           0 never; -1: when fewer scenes run than there are cores */
  int lyapunov_nomem;   /* the Lyapunov twin's contact states are not allocated */
  int no_skip;          /* no island skips its contacts (island/sparse.c) */
  int no_global;        /* no island gets the K-method's fall-back work space:
                           Newton as before issue 33 item 3, with neither the
                           globalised fall-back (solvers/kglobal.c) nor the
                           solve through the modes (solvers/dense.c) */
  int no_search_skip;   /* vibro check's free-flight search evaluates every contact
                           at every step (island/scene_query.c: its skipping gives
                           the same answers) */
  int lowrank;          /* -1 (the default): islands of more than
                           VB_LOWRANK_MIN_CONTACTS contacts keep no dense
                           compliance (solvers/lowrank.c); 1: every island
                           that can; 0: none (the dense K up to 8192
                           contacts, as before issue 33 item 2) */
  int no_one_row;       /* no island steps its modes along w as one row, and a sample
                           sums each point along w alone (island/friction.c's
                           one_row, run/record.c's wpoints: the same bits) */
  int friction_newton_cap; /* > 0: the friction solve's Newton on a stalled block
                              (solvers/friction_solve.c) stops after this many
                              iterations, so that its failure is reported (this
                              one changes results: the tests of that report) */
} vb_test_hooks;

/* What vb_test_control sets. */
typedef enum vb_test_op {
  VB_TEST_RESET,          /* every hook back to its default */
  VB_TEST_KILL_AT,        /* kill_at = value */
  VB_TEST_KILL_SIG,       /* kill_sig = value (SIGKILL when not > 0) */
  VB_TEST_BATCH,          /* batch_scenes = value */
  VB_TEST_BATCH_SECONDS,  /* batch_seconds = value */
  VB_TEST_MAP_BYTES,      /* map_bytes = value */
  VB_TEST_WRITER_THREAD,  /* writer_thread = value (< 0: unset) */
  VB_TEST_LYAPUNOV_NOMEM, /* lyapunov_nomem = (value != 0) */
  VB_TEST_NO_SKIP,        /* no_skip = (value != 0) */
  VB_TEST_NO_GLOBAL,      /* no_global = (value != 0) */
  VB_TEST_NO_SEARCH_SKIP, /* no_search_skip = (value != 0) */
  VB_TEST_LOWRANK,        /* lowrank = value < 0 ? -1 : value != 0 */
  VB_TEST_NO_ONE_ROW,     /* no_one_row = (value != 0) */
  VB_TEST_FRICTION_NEWTON_CAP, /* friction_newton_cap = value (<= 0: none) */
} vb_test_op;

/* Set one test hook of the process, before any run or output starts;
 * VB_OK, or VB_EINVAL for an unknown op. */
int vb_test_control(vb_test_op op, double value);
/* The process's test hooks (read where a run or an output starts). */
const vb_test_hooks *vb_test_hooks_now(void);
/* A copy of them. */
void vb_test_hooks_read(vb_test_hooks *h);

#endif
