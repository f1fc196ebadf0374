/* output/output.h - the face of the output wing (not installed;
 * doc/format.md): the vibro-3 layout and its tables as descriptors, the
 * shards of OUT.part/ and their merge, the HDF5 helpers (h5util.h), and
 * the writer's calls the study runner makes.  Used by the study wing and
 * pyapi.c.  The writer knows a layout (vb_output_layout), not studies; it
 * uses base and run (a finished run is what it packs).
 *
 * THE PROTOCOL (after SQLite's pager.c: the states first, then the code).
 * Nothing is modified in place; every file becomes visible by a rename of
 * a complete, fsync'ed temporary, and a shard counts only once a valid
 * line of its manifest lists it.  An interruption at any instruction
 * (SIGKILL, a full disk, a lost node) loses at most the scenes of the
 * batch not yet listed; `--resume` starts again from LOCKED.
 *
 *   (nothing) --vb_output_open--> CREATED --vb_part_lock--> LOCKED
 *      CREATED   OUT.part/ made by mkdir (exclusive; vb_part_dir), or an
 *                existing one of vibro's opened (a symlink or a foreign
 *                directory is refused)
 *      LOCKED    lock.rRRR holds "PID\n" under flock(LOCK_EX) for as long
 *                as the writer lives; a second writer is refused.  On
 *                resume: every manifest.r* read, each listed shard's size
 *                and CRC-32 checked (vb_shards_verified), this rank's
 *                unlisted, damaged and *.tmp files removed and its manifest
 *                rewritten with the kept lines (vb_part_clean); a line of
 *                another input refuses the resume
 *   LOCKED --vb_output_lay--> LAID (optional: big scenes, one interval)
 *      LAID      rRRR-NNNNNN.h5.tmp allocated with every pending scene's
 *                row; the threads that run scenes write their signals into
 *                it in place (vb_laid_place, vb_laid_map_*)
 *   LOCKED/LAID --vb_output_add--> BATCH
 *      BATCH     finished runs packed (vb_output_pack) and held, sorted by
 *                index, until the batch rule (10 s or 128 MiB, or every
 *                scene) or a signal flushes it
 *   BATCH --vb_output_flush--> SHARD WRITTEN --> LISTED --> LOCKED/LAID
 *                (writer.c's shard_add: shard_written, then shard_listed)
 *      SHARD WRITTEN  rRRR-NNNNNN.h5.tmp written, fsync'ed, renamed to
 *                rRRR-NNNNNN.h5, the directory fsync'ed (shard_written)
 *      LISTED    "NAME SIZE CRC32 NSCENES MIN MAX INPUTCRC LINECRC\n"
 *                appended to manifest.rRRR and fsync'ed (shard_listed; a
 *                torn line fails its own CRC: the shard is then not listed,
 *                and goes)
 *   LAID --(a flush before every row is in)--> SPILLED
 *      SPILLED   the laid-out file's name removed (vb_laid_spill); scenes
 *                still placed through its descriptor are read back a
 *                SPILL_BYTES shard at a time (vb_laid_read_back) and go
 *                through SHARD WRITTEN and LISTED like any batch
 *   BATCH of every scene, nothing listed --vb_output_finish--> DONE
 *                (the one batch written, fsync'ed and renamed onto OUT;
 *                no manifest line, no merge)
 *   LISTED ... --vb_output_merge--> MERGED --> DONE
 *      MERGED    every verified shard's rows copied in index order into
 *                OUT.part/final.tmp, fsync'ed, renamed onto OUT (one shard
 *                holding every scene in order is itself renamed onto OUT)
 *      DONE      OUT exists, complete; OUT.part/ removed (vb_part_remove)
 *   any state --vb_output_discard--> (nothing): after a failed run,
 *                OUT.part/ is removed only when all of it is this run's
 *                own work; else it stays for --resume.
 *
 * Write points (vb_write_point, counted by the kill hook of
 * vb_test_control) sit between every two steps above. */
#ifndef VB_OUTPUT_H
#define VB_OUTPUT_H

#include <stdint.h>
#include <string.h>
#include <hdf5.h>

#include "base/base.h"
#include "run/run.h"
#include "h5util.h"

#define VB_FORMAT_NAME "vibro-3"
#define VB_STATUS_LEN  128 /* bytes of the table's status column */

/* ------------------------------------------------ the writer's calls */

/* What the study runner (study_run.c) and vb_output_write call between
 * vb_output_open and vb_output_free (vibro.h); not the user's API. */

/* A finished scene packed for the writer. */
typedef struct vb_packed_scene vb_packed_scene;
/* Whether scene `index` is in a kept or written shard (1) or not (0). */
int vb_output_complete(const vb_output *output, long index);
/* Status code of a complete scene as stored in its table row. */
int vb_output_status_code(const vb_output *output, long index);
/* Pack a finished run as scene `index` with its swept values [nparams]:
 * copies small recordings, borrows large ones (the run must then live
 * until vb_output_add returns).  Thread-safe.  Free with
 * vb_packed_scene_free unless handed to vb_output_add. */
int vb_output_pack(const vb_output *output, long index, const double *param_values,
                   const vb_run *run, vb_packed_scene **out, char *err, size_t errlen);
/* Free a packed scene; NULL is a no-op. */
void vb_packed_scene_free(vb_packed_scene *scene);
/* Take a packed scene (always, even on error) into the current batch, and
 * write the batch as a shard when it is a second old or large.  One
 * writer at a time. */
int vb_output_add(vb_output *output, vb_packed_scene *scene, char *err, size_t errlen);
/* vb_output_pack then vb_output_add. */
int vb_output_scene(vb_output *output, long index, const double *param_values, const vb_run *run,
                    char *err, size_t errlen);
/* Write the scenes added so far as a shard (none: nothing to do). */
int vb_output_flush(vb_output *output, char *err, size_t errlen);
/* Scenes in shards of this output (kept and written). */
long vb_output_scenes_done(const vb_output *output);
/* Merge every verified shard of OUT.part/ (of any rank) into OUT, through
 * a temporary renamed into place, and remove OUT.part/; every scene must be
 * in a shard.  A nonzero *stop (may be NULL) abandons the merge with
 * VB_EINTR, the shards kept. */
int vb_output_merge(const char *path, const vb_output_layout *lay, const volatile int *stop,
                    char *err, size_t errlen);

/* Shape of a signal per scene: [time], [mode], [mode][time], and a
 * distributed contact's [point][time]. */
typedef enum { SHAPE_SERIES, SHAPE_MODES, SHAPE_MODES_SERIES, SHAPE_POINTS_SERIES } vb_signal_shape;

/* One recorded signal: /signals/<name>. */
typedef struct vb_signal_desc {
  char name[3 * VB_NAME_MAX + 32]; /* "contacts.hit.force" */
  const char *units;
  vb_signal_shape shape;
  const vb_signal *row; /* its row of the signal table (vb_signal_table) */
  int instance;         /* of that row (vb_signal_count); SHAPE_POINTS_SERIES: the
                           first point's, the others follow it */
  int property;         /* row NULL: a modal property of the body (output/layout.c) */
  int body;             /* the body of point and modes signals, else -1 */
  int nmodes;           /* rows per scene: modes of the body (SHAPE_MODES*), points
                           of the distributed contact (SHAPE_POINTS_SERIES) */
  int along_w;          /* SHAPE_MODES*: the body's modes along w (bodies.B.wmodes.*,
                           on the scale wmode.B; issue 30 item 6), else 0 */
} vb_signal_desc;

/* A writer's write points, counted for the kill hook. */
typedef struct vb_wpoints {
  long kill_at, writes;
  int sig;
} vb_wpoints;

/* A file being written by HDF5 under dirfd, whose dirty pages are sent to
 * the disk as it is written (production I/O, not a test hook). */
typedef struct vb_wb {
  int dirfd;
  const char *name; /* NULL: nothing to push */
  int fd;           /* opened on first use; -1 before */
} vb_wb;

/* vb_dim, vb_col_type, vb_column and vb_xtable: run/run.h (what a run's
 * observers write is described in the run's wing). */

/* The columns of /study/table, ended by a NULL name; the writer names
 * those it sets or reads by these indices. */
enum {
  VB_TC_SCENE,
  VB_TC_SWEPT,
  VB_TC_STATUS_CODE,
  VB_TC_STATUS,
  VB_TC_SAMPLES,
  VB_TC_INTERVAL,
  VB_TC_FINAL_ENERGY,
  VB_TC_BALANCE,
  VB_TC_EVENTS_START,
  VB_TC_EVENTS_COUNT,
  VB_TC_COUNT_FIXED
};
extern const vb_column vb_table_columns[];
/* The columns of /study/events, ended by a NULL name. */
enum { VB_EC_SCENE, VB_EC_CONTACT };
extern const vb_column vb_event_columns[];
/* Friction's columns of /study/table (output/friction_tables.c; issue 30):
 * contact c's friction work at the end (J) or, for col->at 1, its share of
 * steps sticking (NaN for a contact without friction); present when scene
 * 0 has a contact with friction (vb_has_friction, run/phases.c). */
void vb_get_friction(const vb_column *col, const vb_run_view *rv, int c, const void *item,
                     void *out);
/* The analysis columns of /study/table (output/analysis.c): whether a
 * study has them (scene 0 has an analysis block), and their values: the
 * orbit's code, period, impacts per period or section samples (by the
 * column's name), its tolerance, and -1 for the attractor until the
 * writer assigns it. */
int vb_has_analysis(const vb_scene *first);
void vb_get_orbit(const vb_column *col, const vb_run_view *rv, int c, const void *item, void *out);
void vb_get_orbit_tolerance(const vb_column *col, const vb_run_view *rv, int c, const void *item,
                            void *out);
void vb_get_no_attractor(const vb_column *col, const vb_run_view *rv, int c, const void *item,
                         void *out);

/* A column of a table as a layout expands it: one per swept path, and
 * [contact] values per row for a per-contact column. */
typedef struct vb_field {
  char name[3 * VB_NAME_MAX + 32]; /* the dataset's name: "impacts", "contacts.hit.k" */
  const char *units;
  const vb_column *col;
  int param;     /* VB_DIM_SWEPT: index of the swept path */
  int width;     /* values per row: 1, or the contacts */
  size_t size;   /* bytes of one value */
  size_t offset; /* bytes from the start of a packed row to its first value */
} vb_field;

/* A table of a layout: /study/<name>, one dataset per field along the
 * dimension `dim`; in memory, rows packed field after field. */
typedef struct vb_table {
  const char *name; /* "table", "events" */
  const char *dim;  /* "scene", "event" */
  const vb_column *cols; /* its column list */
  vb_field *field;  /* [nfields] */
  int nfields;
  size_t rowsize;  /* bytes of a packed row */
  size_t *at;      /* [columns of the list] offset of each column's first field */
  int ncontacts;   /* per-contact width (or of the second dimension, dim2) */
  const char *const *contacts; /* [ncontacts] names: the `contact` coordinate (dim2's) */
  const char *dim2; /* the second dimension: "contact", or "point" (sections) */
  const char **names2; /* the second dimension's names when the table owns them, or NULL */
} vb_table;

/* Expand a column list for a layout into t; 0 or -1 (out of memory, or a
 * name used twice). */
int vb_table_init(vb_table *t, const char *name, const char *dim, const vb_column *cols,
                  const vb_output_layout *lay);
/* Release what vb_table_init allocated. */
void vb_table_clear(vb_table *t);
/* A packed row's value of column `column` (an index into the list), as
 * a long (integer columns) or a double (float columns). */
long vb_row_long(const vb_table *t, const unsigned char *row, int column);
double vb_row_double(const vb_table *t, const unsigned char *row, int column);
/* Set an integer column of a packed row. */
void vb_row_set_long(const vb_table *t, unsigned char *row, int column, long v);
/* Fill the table row of a run: scene `index`, swept values params. */
void vb_table_fill(const vb_table *t, unsigned char *row, long index, const double *params,
                   const vb_run_view *rv);
/* Fill the event rows of a run, contact by contact and in time order. */
void vb_events_fill(const vb_table *t, unsigned char *out, long index, const double *params,
                    const vb_run_view *rv);
/* Expand observer table x for a layout into t (present or not: t->nfields
 * 0 when the study lacks it); 0 or -1. */
int vb_xtable_init(vb_table *t, int x, const vb_output_layout *lay);
/* Fill the rows of observer table x of a run (vb_xtable_at(x, NULL)->rows of them). */
void vb_xtable_fill(const vb_table *t, int x, unsigned char *out, long index,
                    const vb_run_view *rv);
/* Fetch m section samples from row `first` of a file's /study/sections
 * into x[m][2 np] (u, v of each point in turn); 0 or -1. */
typedef int (*vb_cycle_fn)(void *ctx, long first, long m, double *x);
/* The attractor ids of a file's scenes (its table rows[nrows], packed, in
 * the order of the file's sections): each periodic scene's last `period`
 * samples (fetched by cycle: its rows follow the `sections` of the rows
 * before it) matched by vb_orbit_attractors in row order with scene 0's
 * attractors.tolerance, each coordinate scaled by its largest |value|
 * over those cycles; written into the rows' `attractor`.  0, or -1. */
int vb_table_attractors(const vb_table *t, unsigned char *rows, long nrows, int np,
                        vb_cycle_fn cycle, void *ctx, const vb_scene *first);
/* Create /study/<t->name> (under study) for rows rows: a group with the
 * dimension coordinate, the `contact` coordinate when some field is per
 * contact, and one dataset per field, its handle in ds[] ([nfields]).
 * 0 or -1. */
int vb_table_create(hid_t study, const vb_table *t, long rows, hid_t *ds);
/* Write rows r0 .. r0+nr-1 of every field from nr packed rows; 0 or -1. */
int vb_table_write(const vb_table *t, const hid_t *ds, long r0, long nr,
                   const unsigned char *rows);
/* Read every row of /study/<t->name> of an open file into *rows
 * (malloc'ed, freed by the caller; *nrows rows); 0 or -1. */
int vb_table_read(hid_t file, const vb_table *t, unsigned char **rows, long *nrows);

/* The layout of a file: its signals, table and events. */
typedef struct vb_format {
  vb_output_layout lay;
  int nsig;
  vb_signal_desc *sig; /* [nsig] */
  vb_table table;      /* /study/table */
  vb_table events;     /* /study/events */
  vb_table xt[VB_XT_MAX]; /* the observers' tables, vb_xtable_at's (nfields 0: absent) */
  const char **contact_names; /* [ncontacts] */
  vb_wpoints *points; /* the writer's write points (one before each dataset write), or NULL */
  vb_wb *wb;         /* the file whose writeback is started after each write, or NULL */
  int threads; /* threads that stage a shard's signals; 0: OpenMP's default */
} vb_format;

/* A finished scene, packed for the writer: its table row, its event rows
 * and its signals. */
struct vb_packed_scene {
  long index;
  long samples;
  double interval;       /* s between samples */
  unsigned char *row;    /* [table.rowsize] */
  unsigned char *events; /* [nevents][events.rowsize] */
  long nevents;
  unsigned char *xrows[VB_XT_MAX]; /* [nx[x]][xt[x].rowsize] the observers' tables' rows */
  long nx[VB_XT_MAX];
  const double **sig; /* [nsig]: samples, nmodes or nmodes * samples values */
  double *own;        /* the copied signals, NULL when borrowed from the run */
  long laid_row;      /* >= 0: the signals are in the laid-out shard, at this row */
  int listed;         /* in a listed checkpoint (its rows by reference): held for the end */
  double bytes;       /* bytes of signal data */
};

/* Build the format of a layout; VB_OK or an error with the message. */
int vb_format_init(vb_format *f, const vb_output_layout *lay, char *err, size_t errlen);
/* Release what vb_format_init allocated. */
void vb_format_clear(vb_format *f);
/* Values per scene of signal s for a scene of n samples. */
long vb_signal_width(const vb_signal_desc *s, long n);
/* Length of the time axis of a file whose longest scene has T samples: T,
 * or 0 when no signal has a time dimension (record.signals = []). */
long vb_format_time_length(const vb_format *f, long T);

#define PACK_COPY_MAX (8.0 * 1024 * 1024) /* bytes: larger recordings are borrowed */

/* Pack a finished run as scene index (thread-safe); with borrow, its
 * signals are not copied (they point into the run). */
int vb_format_pack(const vb_format *f, long index, const double *params, const vb_run *run,
                   int borrow, vb_packed_scene **out, char *err, size_t errlen);
/* Copy a packed scene's borrowed signals into memory of its own; VB_OK or
 * VB_ENOMEM. */
int vb_packed_scene_own(const vb_format *f, vb_packed_scene *p);

/* An open vibro-2 file of `rows` scenes, written block by block. */
typedef struct vb_stack vb_stack;

/* vb_stack_create flags: the file is built in memory (vb_stack_close_image);
 * its signal datasets are allocated at once and left unfilled, for the
 * caller to write their bytes at vb_stack_signal_offset (no sieve buffer). */
enum { VB_STACK_IN_MEMORY = 1, VB_STACK_LAID = 2 };

/* Create `path` (truncating it) for rows scenes of at most T samples and
 * nevents event rows (nevents < 0: /study/events is created by the first
 * vb_stack_write_events); interval > 0: every scene samples at that
 * interval (a 1-d time scale), else time is [scene][sample].  flags:
 * VB_STACK_*. */
int vb_stack_create(const vb_format *f, const char *path, long rows, long T, double interval,
                    long nevents, int flags, vb_stack **out, char *err, size_t errlen);
/* Where a file's signals are when they are rows of another file (a
 * checkpoint of ranks writing one laid-out file, doc/mpi.md): the file's
 * name (beside this one), each signal's offset there, and nruns runs of
 * consecutive rows (first row there, rows), [T] samples a row. */
typedef struct vb_stack_ext {
  const char *name;
  const int64_t *off; /* [nsig] */
  const long *runs;   /* [2 * nruns] */
  long nruns;
} vb_stack_ext;
/* vb_stack_create for signals that stay in ext's file (no flags). */
int vb_stack_create_external(const vb_format *f, const char *path, long rows, long T,
                             double interval, long nevents, const vb_stack_ext *ext,
                             vb_stack **out, char *err, size_t errlen);
/* Byte offset in the file of signal s's data (contiguous, allocated:
 * VB_STACK_LAID), or -1. */
int64_t vb_stack_signal_offset(const vb_stack *st, int s);
/* Write scenes r0 .. r0+nr-1 of the file: their table rows (packed, nr
 * rows) and, unless sigbuf is NULL, per signal a buffer [nr][width(T)]
 * padded with NaN. */
int vb_stack_write_rows(vb_stack *st, long r0, long nr, const unsigned char *rows,
                        double *const *sigbuf, char *err, size_t errlen);
/* Write rows r0 .. r0+nr-1 of signal s from buf [nr][width(T)]. */
int vb_stack_write_signal(vb_stack *st, int s, long r0, long nr, const double *buf, char *err,
                          size_t errlen);
/* Write the table rows and events of packed scenes (ascending index) as
 * rows 0 .. n-1, with where each scene's events start. */
int vb_stack_write_scenes(vb_stack *st, vb_packed_scene *const *sc, long n, char *err,
                          size_t errlen);
/* Write event rows e0 .. e0+ne-1. */
int vb_stack_write_events(vb_stack *st, long e0, long ne, const unsigned char *events, char *err,
                          size_t errlen);
/* Write rows r0 .. r0+nr-1 of observer table x (present in the format),
 * creating it with `total` rows at the first write. */
int vb_stack_write_xt(vb_stack *st, int x, long r0, long nr, long total, const unsigned char *rows,
                      char *err, size_t errlen);
/* Assign the attractor ids of the file's scenes from its own table and
 * sections (vb_table_attractors) once every row is written; nothing
 * without a section. */
int vb_stack_attractors(vb_stack *st, char *err, size_t errlen);
/* Close the file; VB_OK or VB_EIO.  Frees st in any case. */
int vb_stack_close(vb_stack *st, char *err, size_t errlen);

/* Write a batch of packed scenes (ascending index) as one file at path,
 * or with image not NULL in memory, returning the file image (*image
 * malloc'ed, freed by the caller). */
int vb_stack_write_batch(const vb_format *f, const char *path, vb_packed_scene *const *sc, long n,
                         void **image, size_t *image_len, char *err, size_t errlen);
/* Close a file created in_memory, returning its image (malloc'ed). */
int vb_stack_close_image(vb_stack *st, void **image, size_t *len, char *err, size_t errlen);

/* Shared by output.c and output/merge.c. */
typedef struct vb_shard {
  char name[64];
  long size, rows, T, lo, hi; /* bytes, scenes, samples, lowest and highest index */
  unsigned long crc;
  int rank;
} vb_shard;

/* The shards of OUT.part/ (opened as dirfd) listed in a manifest whose size
 * (and, with check, CRC-32 and input) match; *out is freed by the caller. */
int vb_part_verified(int dirfd, const char *part, const vb_output_layout *lay, int check,
                     vb_shard **out, long *nout, char *err, size_t errlen);
/* vb_output_merge; with verify 0 the shards' CRC-32s are not summed again
 * (their size is still checked): for the writer that has just written
 * them, or verified them when it resumed. */
int vb_output_merge_shards(const char *path, const vb_output_layout *lay, int verify,
                           const volatile int *stop, char *err, size_t errlen);
/* Read a shard's scene indices (and T, its samples) and, when complete is
 * not NULL, mark them with their status codes; 0 or -1. */
int vb_shard_scenes(const char *part, const vb_shard *s, long nscenes, int64_t *idx,
                    unsigned char *complete, int *codes, long *ndone, long *T);
/* Write len bytes to fd, a write point (vb_write_point) between pieces of 16
 * MiB; 0 or an errno. */
int vb_write_all(int fd, const void *buf, size_t len, vb_wpoints *points);
/* Start writing a file's dirty pages back to the disk, without waiting. */
void vb_writeback(int fd);
/* fsync a file by path, or with dir the directory holding it; 0 or -1. */
int vb_sync_path(const char *path, int dir);
/* Remove OUT.part/ (open as dirfd) and every file in it. */
void vb_part_remove(int dirfd, const char *part);
/* After a failed run: have vb_output_free remove OUT.part/ when this run
 * created it and no scene of it is in a shard (nothing the user had). */
void vb_output_discard(vb_output *o);
/* "PART/NAME", malloc'ed. */
char *vb_part_file(const char *part, const char *name);

/* output/shards.c: reading OUT.part/. */

/* A write point: with the kill hook set, the k-th raises its signal
 * (SIGKILL, or SIGSTOP to freeze a writer where a test wants it). */
void vb_write_point(vb_wpoints *p);
/* Start the writeback of what has been written of w's file (none: nothing). */
void vb_wb_push(vb_wb *w);
/* zlib's crc32 of len bytes at buf, continuing crc (0 to start). */
unsigned long vb_crc32(unsigned long crc, const void *buf, size_t len);
/* CRC-32 of a file under dirfd, its size in *size; -1 on error.  Summed
 * by `threads` threads (0: OpenMP's default). */
long vb_file_crc(int dirfd, const char *name, int threads, long *size);
/* Hand over the descriptor that holds the output's lock (-1 when there is
 * none): vb_output_free then leaves it open, for the caller to close. */
int vb_output_take_lock(vb_output *output);
/* Lay out the shard of the pending scenes (ascending) before they run, when
 * it pays: the threads then write each scene's signals in place
 * (vb_output_pack).  Does nothing when it does not pay or fails; 1 when
 * laid out. */
int vb_output_lay(vb_output *output, const long *pending, long n);
/* vb_output_lay with rows of T samples (the longest scene's) at interval
 * (0: the scenes' intervals differ), for an MPI study whose scenes differ
 * in length (doc/mpi.md): a shorter scene's row is padded with NaN. */
int vb_output_lay_rows(vb_output *output, const long *pending, long n, long T, double interval);
/* Whether the batch (every scene of the laid-out file) has the length
 * and interval it was laid out with: the longest scene's samples are T,
 * and the intervals differ exactly when laid out so (else the file would
 * not be the one a process writes). */
int vb_laid_batch_fits(const vb_output *output);
/* Create the laid-out shard's file, if any (one thread, in the writer's
 * place: inside its critical section, while the others start running). */
void vb_output_lay_create(vb_output *output);
/* One laid-out file for every scene of an MPI study (doc/mpi.md): rank 0
 * lays it out over every scene (vb_output_lay) and creates it
 * (vb_output_lay_create), and hands the others its share (bytes:
 * vb_laid_share_size), with which they lay out the same rows and join it
 * (0, or -1: then no rank places anything). */
long vb_laid_share_size(const vb_output *output);
/* Rank 0, before vb_output_lay_create: the file is the ranks' (named
 * VB_SHARED_ROWS under OUT.part/, kept by a resume: checkpoints name its
 * rows). */
void vb_laid_mark_shared(vb_output *output);
#define VB_SHARED_ROWS "shared-rows.h5"

/* Rows of a thread's block of the laid-out file, 0 when there are none. */
long vb_laid_block_cap(const vb_output *output);
/* Undo vb_output_lay (rank 0's file, if made, is deleted). */
void vb_output_unlay(vb_output *output);
void vb_laid_share_out(const vb_output *output, unsigned char *buf);
int vb_laid_share_in(vb_output *output, const unsigned char *buf);
/* Whether scenes are still placed in the laid-out file (for rank 0: and it
 * still has its name and HDF5 handle). */
int vb_laid_whole(const vb_output *output, int rank0);
/* Whether the batch holds exactly the n scenes given (ascending), every
 * one placed in the laid-out file at the row of its index. */
int vb_output_batch_placed(vb_output *output, const long *index, long n);
/* The batch's scenes without their signals (placed in the laid-out file)
 * as bytes: *buf (malloc'ed, the caller frees) of *len.  VB_OK or
 * VB_ENOMEM. */
int vb_output_batch_pack(const vb_output *output, unsigned char **buf, long *len);
/* Rank 0: add the scenes another rank packed (vb_output_batch_pack) to the
 * batch, placed at their rows; VB_OK or an error with the message. */
int vb_output_batch_unpack(vb_output *output, const unsigned char *buf, long len, char *err,
                           size_t errlen);
/* Another rank, once rank 0 has its scenes: they count as written, the
 * batch is emptied. */
void vb_output_batch_handed(vb_output *output);
/* Rank 0, when the ranks do not finish together after all: the other
 * ranks' scenes leave the batch (freed), its own index[0 .. n-1] stay. */
void vb_output_batch_keep(vb_output *output, const long *index, long n);
/* Ranks writing one laid-out file: the scenes of this rank's checkpoints
 * (listed shards whose signals are the rows of that file, held since)
 * back into the batch, before the end's vote; and out of it again (freed:
 * they are in listed shards) when the ranks do not finish together. */
void vb_output_batch_unhold(vb_output *output);
void vb_output_batch_unlisted(vb_output *output);
/* A thread's block of consecutive rows of the laid-out shard: the scenes
 * it runs are packed into it (their signals copied), and it is written
 * with one pwrite per signal; its scenes then go to vb_output_add. */
typedef struct vb_laid_block vb_laid_block;
/* A block, or NULL when there is no laid-out shard. */
vb_laid_block *vb_laid_block_new(const vb_output *output);
/* The most rows a block holds (and hands to vb_laid_block_write's out),
 * or 0 when nothing is laid out. */
int vb_laid_block_rows(const vb_output *output);
/* Whether scene index may join the block (else write the block first). */
int vb_laid_block_accepts(const vb_output *output, const vb_laid_block *b, long index);
/* Pack a run into the block; *taken 0: it does not go there (use
 * vb_output_pack). */
int vb_laid_block_pack(const vb_output *output, vb_laid_block *b, long index, const double *params,
                       const vb_run *run, int *taken, char *err, size_t errlen);
/* Whether the block should be written, if no other thread is writing. */
int vb_laid_block_due(const vb_laid_block *b);
/* Write the block's rows (unless force is 0 and another thread is writing
 * one: *n 0, the block kept); its scenes (*n, at most vb_laid_block_rows)
 * go to out, for vb_output_add.  VB_OK or VB_ENOMEM. */
int vb_laid_block_write(const vb_output *output, vb_laid_block *b, int force, vb_packed_scene **out,
                        long *n, char *err, size_t errlen);
/* Free a block and the scenes it holds. */
void vb_laid_block_free(vb_laid_block *b);
/* A scene recording straight into its row of the laid-out shard: the
 * run writes its signals there as it goes (vb_run_alloc_into, through a
 * window of samples), and they are in place when it ends, with no copy of
 * the whole. */
typedef struct vb_laid_map vb_laid_map;
/* The row of scene index for a run of sc, or NULL (nothing laid out, a
 * small scene, another shape, a failure: the run records into memory of
 * its own). */
vb_laid_map *vb_laid_map_scene(const vb_output *output, long index, const vb_scene *sc);
/* The `to` of vb_run_alloc_into for a scene recorded in place. */
const vb_record_file *vb_laid_map_into(const vb_laid_map *m);
/* Pack a run recorded in place: its signals not recorded (a modal body's
 * properties) are written at its row, and the packed scene is placed.
 * VB_EIO when a write of its recording failed. */
int vb_laid_map_pack(const vb_output *output, vb_laid_map *m, const double *params,
                     const vb_run *run, vb_packed_scene **out, char *err, size_t errlen);
/* Free (after the run is freed). */
void vb_laid_map_free(vb_laid_map *m);
/* The last write of a run by one writer: the whole study in one batch,
 * with nothing written before, is renamed onto OUT (*finished 1); else a
 * flush (vb_output_flush).  VB_OK or an error with the message. */
int vb_output_finish(vb_output *output, int *finished, char *err, size_t errlen);
/* Threads the writer may use to stage and sum a shard (the run's -j;
 * 0: OpenMP's default). */
void vb_output_threads(vb_output *output, int threads);
/* Rank and number of a shard file name "rRRR-NNNNNN.h5"; 0 or -1. */
int vb_shard_name_parse(const char *name, int *rank, long *number);
/* Format a shard's manifest line (with its own CRC) into line. */
void vb_manifest_line(char *line, size_t len, const vb_shard *s, unsigned long input_crc);
/* The shards the manifests of OUT.part/ list for this input; with check,
 * only those whose size and CRC-32 match, and a line of another input is
 * refused naming the file of lay (not NULL with check) that changed;
 * without check, those of the listed size (of this input when lay is not
 * NULL, of any input when it is).  *out
 * is freed by the caller. */
int vb_shards_verified(int dirfd, const char *part, const vb_output_layout *lay,
                       unsigned long input_crc, int check, vb_shard **out, long *nout, char *err,
                       size_t errlen);
/* The identity of the input (its text and every file lay->inputs lists):
 * what a manifest line was run for. */
unsigned long vb_input_crc(const vb_output_layout *lay);

#endif
