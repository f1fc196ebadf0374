/* run/run.h - the face of the run wing (not installed): a run's state
 * (struct vb_run) and the stages that act on it, impact tracking
 * (events.c), recording (record.c, record_file.c) and the observers that
 * follow a run, the analysis (analysis.c, analysis.h) and Lyapunov
 * exponents (lyapunov.c, lyapunov.h).  The run wing uses base, solvers and
 * island. */
#ifndef VIBRO_RUN_H
#define VIBRO_RUN_H

#include <stdint.h>
#include <string.h>

#include "base/base.h"
#include "island/island.h"
#include "analysis.h"

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
 * file fd (output/laid.c: its row of the laid-out shard), where offset[j]
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

/* Event bookkeeping of one contact. */
typedef struct {
  int open;         /* an impact is in progress */
  int pending;      /* three-level: released, v_out awaits the next step */
  long n_release;   /* first sample out of contact */
  double x_release; /* compression at that sample, m */
  double sign;      /* side of the barrier (rattle) */
  vb_event ev;
} vb_tracker;

/* A series a sample computes: dst[k] = row->derive(run, instance). */
typedef struct vb_derived {
  const vb_signal *row; /* its row of the signal table */
  int instance;
  double *dst; /* [nrec] */
} vb_derived;

/* A modal body's point whose w or vw is recorded: a sample sums a body's
 * recorded points along w in one pass over its modes (vb_run_wpoints). */
typedef struct vb_wpoint_rec {
  int b, p;       /* scene body and its point */
  double *w, *vw; /* [nrec] or the window's row, m and m/s; NULL when not recorded */
} vb_wpoint_rec;

/* Sample kk of np recorded points along w (a body's consecutive): each
 * sum as vb_run_point_w and vb_run_point_vw give it (friction_run.c). */
void vb_run_wpoints(const struct vb_run *run, const vb_wpoint_rec *r, int np, long kk);

/* A recorded point of an island: a sample computes it (vb_point_eval)
 * and stores it at its series' sample. */
typedef struct vb_point_rec {
  vb_point_ops ops; /* its row and the island's state (vb_point_eval) */
  double *u, *v;    /* [nrec] or the window's row, m and m/s; NULL when not recorded */
} vb_point_rec;

/* A run's steps in three parts (run.c), which vb_run_exec_until and the
 * stepping API (stepping.c) call alike: t = 0; up to count steps (stopping
 * before a step when *stop >= level; VB_OK or the code that ended the
 * run); the end (events, observers, status, the recording's last window). */
int vb_run_steps_begin(struct vb_run *run);
int vb_run_steps(struct vb_run *run, long count, const volatile int *stop, int level);
int vb_run_steps_finish(struct vb_run *run);

/* Where a run is: allocated, between blocks of vb_run_advance, ended. */
enum { VB_RUN_NEW, VB_RUN_STEPPING, VB_RUN_ENDED };

struct vb_run {
  const vb_scene *scene;
  long nsteps, nrec;
  long at;                  /* steps done (atomic: vb_run_fraction reads it from another thread) */
  double dt;                /* s */
  vb_model *model;          /* the scene compiled (owned) */
  vb_island_state **states; /* [nislands] the islands' run states */
  int nislands;
  const int *contact_island; /* [ncontacts] island of each contact (the model's) */
  const int *contact_local;  /* [ncontacts] index within its island */
  const int *body_island;    /* [nbodies] island or -1 (walls) */
  const int *body_offset;    /* [nbodies] first mode within the island */
  int *point_first;          /* [nbodies] index of the body's point 0 in point_u */
  int *point_row;            /* [nbodies] its row among its island's points */
  size_t record_mapped;      /* bytes mapped for record (0: from malloc) */
  /* the copies each sample makes: series plan_dst[m] receives *plan_src[m]
   * (islands' points, modes, contact histories: addresses fixed for the run) */
  int nplan;
  const double **plan_src;
  double **plan_dst;
  int observing[2]; /* observers attached with a step at each stage (vb_observers_start):
                       0, vb_observers_step returns at once */
  int nderived;
  vb_derived *derived;             /* [nderived] the series each sample computes */
  int nwpoints;
  vb_wpoint_rec *wpoints;          /* [nwpoints] modal points' w and vw each sample
                                      computes (a body's consecutive) */
  double **series;                 /* [instances of every row, table order] -> [rows][nrec],
                                      or NULL when not recorded */
  int *series_first;               /* [nsignals + 1] first instance of each row in series */
  double **point_u, **point_v;     /* [recorded points] -> [nrec] m, m/s, or NULL (in series) */
  double **modes_q;                /* [nbodies] -> [nmodes][nrec] m, or NULL */
  int npoints_rec;                 /* points whose u or v is recorded */
  int npoints_both;                /* the first of points_rec, which record u and v */
  vb_point_rec *points_rec;        /* [npoints_rec] each computed straight into its series */
  int nwalls_rec;                  /* walls whose u or v is recorded */
  int *walls_rec;                  /* [nwalls_rec] their bodies */
  int nenergy_rec;                 /* energy series recorded */
  int energy_rec[VB_ENERGY_COUNT]; /* [nenergy_rec] the vb_energy of each */
  double *record;                  /* one block holding the recorded series, or their window */
  size_t nseries;                  /* series of nrec samples recorded */
  /* the samples the series hold: all nrec, or, recording into a file
   * (vb_run_alloc_into), a window of win from sample win_k0 on, win_fill
   * of them stored, which vb_record_flush writes at each row's offset */
  long win, win_k0, win_fill;
  /* recording into a file with a writer thread (record_file.c), a ring of
   * nslot windows in each row (else 1), the run filling the one from
   * sample win_base of each row; its series point at the ring's start */
  int nslot;
  long win_base;
  struct vb_record_writer *writer; /* the writer thread, or NULL */
  long stride;                     /* samples from a row of a series to the next */
  int record_fd;                   /* the file, or -1 */
  int record_errno;                /* the first failed write's errno, or 0 */
  size_t nwrite;                   /* series written into the file (those it holds) */
  double **wsrc;                   /* [nwrite] each one's row of the window */
  int64_t *wat;                    /* [nwrite] its byte offset in the file at sample 0 */
  size_t unsynced;                 /* bytes written since the last writeback started */
  double *energy[VB_ENERGY_COUNT]; /* [nrec] J, or NULL */
  double e_last[VB_ENERGY_COUNT];  /* energies at the last sample recorded, J */
  double e_sum[VB_ENERGY_COUNT];   /* energies vb_record_energy summed last (the
                                      step's, which its sample records), J */
  vb_contact_result *results;      /* [ncontacts] */
  vb_tracker *trackers;            /* [ncontacts] */
  double *e_prev;                  /* [nislands] island energy at the previous step, J */
  double *e_now;                   /* [nislands] island energy now, corrections included, J */
  double e0;                       /* initial energy, J */
  /* the energy the scene may hold, less e0 (energy_guard): the running
   * sum of |change| of the work of forces, and of what the corrections
   * added, J */
  double e_work;
  double ext_prev, corr_prev;      /* their sums over the islands at the last step, J */
  /* the largest ratio of the energy to what the scene may hold, e / (|e0|
   * + e_work + ENERGY_FLOOR), and the step it came at (energy_guard) */
  /* the energy balance error of largest magnitude over the steps so far
   * (signed), J (energy_guard) */
  double bal_worst;
  double e_peak;
  long e_peak_step;
  vb_analysis_run *analysis;       /* the section and impact map, NULL without
                                      an analysis block */
  struct vb_lyapunov *lyap;        /* the Lyapunov twin, NULL unless requested (lyapunov.c) */
  struct vb_phase_run *phases;     /* the stick and slip phases, NULL without friction
                                      (phases.c) */
  char status[320];
  int code;
  int keep_subnormals; /* 1: the run leaves the caller's FTZ/DAZ bits alone (fpenv.c) */
  /* stepping (run.c, stepping.c): the next step, Newton's failed steps
   * and the first of them, and where the run is (VB_RUN_*) */
  long next, failures, first_failure;
  /* of them, the steps whose normal solve (Newton) did not converge and
   * those whose friction solve did not, and the first of each (the
   * status names which: run.c, failure_text) */
  long newton_failures, first_newton_failure, friction_failures, first_friction_failure;
  int stage;
};

/* ---------------------------------------------------------------- events */

/* Start contact c's tracking at t = 0 (a contact engaged at t = 0 has no
 * onset to extrapolate from: its event gets NaN for what it cannot know). */
void vb_events_start(vb_run *run, int c);
/* Update contact c's impact tracking after step n: onset, Papetti's
 * corrections, release.  x_before and rate_before describe sample n-1;
 * *e_now is the energy of the contact's island at n (which a correction
 * changes).  VB_OK or VB_ENOMEM (the event table could not grow). */
int vb_events_track(vb_run *run, int c, long n, double x_before, double rate_before, double *e_now);
/* Keep the impacts still open (or releases pending) at the end, with NaN
 * for what could not be measured. */
int vb_events_flush(vb_run *run);

/* ---------------------------------------------------------------- record */

/* Whether the recording of a scene fits in the memory available now;
 * VB_ENOMEM with the figures in err if not. */
int vb_record_fits(const vb_scene *scene, char *err, size_t errlen);
/* Size the recording from the signal table and point every series into
 * one block: the whole recording, or a window of it when it goes into a
 * file (to, vb_run_alloc_into); VB_ENOMEM. */
int vb_record_alloc(vb_run *run, const vb_record_file *to);
/* Free the recording. */
void vb_record_free(vb_run *run);
/* Record sample k of step n. */
void vb_record_sample(vb_run *run, long n, long k);
/* Fill the samples from k0 on with NaN (a run that stopped early). */
void vb_record_blank_from(vb_run *run, long k0);
/* Windows of the ring of a recording into a file with a writer thread. */
#define VB_RECORD_RING 3
typedef struct vb_record_writer vb_record_writer;
/* Samples of the window of a recording of `series` series of nrec samples
 * into a file. */
long vb_record_window(size_t series, long nrec);
/* Start the writer thread of a run whose block holds a ring of windows;
 * 1, or 0 when the run must write its windows itself. */
int vb_record_writer_start(vb_run *run);
/* Wait for the writer thread's windows, end it, keep its errno. */
void vb_record_writer_end(vb_run *run);
/* Hand the full window to the writer thread, or write it now, when
 * recording into a file (at each sample that finds it full). */
void vb_record_post(vb_run *run);
/* Write the window's samples into the file, when recording into one, and
 * wait for every write (the end of the run). */
void vb_record_flush(vb_run *run);
/* The scene's discrete energy at the islands' current step, J, kept in
 * run->e_sum for the step's sample (vb_record_sample records it: call this
 * first, after the step's corrections). */
void vb_record_energy(vb_run *run, double *kin, double *pot, double *diss, double *ext,
                      double *corr);

/* vb_run_exec_stop that stops only when *stop >= level. */
int vb_run_exec_until(vb_run *run, const volatile int *stop, int level);
/* The fraction of a run's steps done, 0 to 1 (safe from another thread). */
double vb_run_fraction(const vb_run *run);

/* The Lyapunov exponents of a run (lyapunov.h). */
#include "lyapunov.h"

/* ------------------------------------------------ what observers write */

/* The dimension a table column runs along. */
typedef enum {
  VB_DIM_SCENE,         /* [scene] */
  VB_DIM_SCENE_CONTACT, /* [scene][contact]; in a table of the analysis, [row][its second
                           dimension] ([section][point]) */
  VB_DIM_EVENT,         /* [event]: along the table's own rows (event, section, impact) */
  VB_DIM_SWEPT          /* one column per swept path, along the table's dimension */
} vb_dim;

/* The type of a column's values: int64, int32, float64, or text of
 * VB_STATUS_LEN bytes (fixed length, NUL-padded). */
typedef enum { VB_COL_I64, VB_COL_I32, VB_COL_F64, VB_COL_TEXT } vb_col_type;

/* One column of a table (output/table.c): its name, units, dimension and
 * type, and how a finished run gives its value. */
typedef struct vb_column vb_column;
typedef struct vb_run_view vb_run_view;
struct vb_column {
  const char *name;  /* "impacts", "t_on" */
  const char *units; /* "1", "s"; NULL for text */
  vb_dim dim;
  vb_col_type type;
  /* Write the value for run (of contact `contact`, or value `contact` of
   * a [row][point] column, and of the row's item: a vb_event in the
   * event table, a vb_map_entry in the impact map, a long section index
   * in the sections) to out; NULL: the writer sets it (scene,
   * events_start, attractor). */
  void (*get)(const vb_column *col, const vb_run_view *rv, int contact, const void *item,
              void *out);
  size_t at; /* offset of the value in vb_contact_result, vb_event or vb_map_entry, for the
                plain gets */
  /* Whether a study whose scene 0 is `first` has the column; NULL: every
   * study (the analysis's columns need an analysis block). */
  int (*present)(const vb_scene *first);
  const char *flag_meanings; /* CF flag_meanings of a code column (values 0, 1, ...), or NULL */
};

/* Write an integer value as the column's type (int32 or int64).  Inline
 * here: the output's lists (output/table.c) and the observers' tables
 * (run/analysis.c) use it. */
static inline void
vb_column_put_long(const vb_column *col, void *out, long v)
{
  if (col->type == VB_COL_I32) {
    int32_t x = (int32_t)v;
    memcpy(out, &x, 4);
  } else {
    int64_t x = v;
    memcpy(out, &x, 8);
  }
}

/* The `get` of a column that is a member of the row's item (a vb_event, an
 * impact-map entry) at col->at: a double, or an int stored as the column's type. */
static inline void
vb_column_member(const vb_column *col, const vb_run_view *rv, int contact, const void *item,
                 void *out)
{
  (void)rv, (void)contact;
  if (col->type == VB_COL_I32) {
    int v;
    memcpy(&v, (const char *)item + col->at, sizeof v);
    vb_column_put_long(col, out, v);
  } else {
    memcpy(out, (const char *)item + col->at, 8);
  }
}

/* A table of an observer (doc/format.md: /study/NAME): rows of each scene
 * along their own dimension, like the events, in scene order; present
 * when scene 0 asks for it.  An observer row (vb_observer.tables) lists
 * its own; the writer (lib/output/) writes every observer's, in the
 * observer table's order, through vb_xtable_at. */
typedef struct vb_xtable {
  const char *name, *dim; /* "sections", "section" */
  const vb_column *cols;  /* its columns; the first is `scene` */
  int (*present)(const vb_scene *first);
  long (*rows)(const vb_run_view *rv); /* rows of a run */
  /* The item of row r of a run (a column's get reads it); *buf holds a
   * row index where the item is one. */
  const void *(*item)(const vb_run_view *rv, long r, long *buf);
  /* The second dimension of its [row][...] columns: its name, and its
   * names of scene 0 into names (NULL: none), their number. */
  const char *dim2;
  int (*names)(const vb_scene *first, const char **names);
} vb_xtable;

/* The most tables all observers may have (the writer's arrays). */
#define VB_XT_MAX 8
/* Table x of all observers' (in the observer table's order), NULL beyond;
 * *n (may be NULL) gets their count. */
const vb_xtable *vb_xtable_at(int x, int *n);
/* Their count (at most VB_XT_MAX: tests/run/check_observe). */
int vb_xtable_count(void);
/* The index of the table called name, or -1. */
int vb_xtable_index(const char *name);
/* ------------------------------------------------------------ phases */

/* The stick and slip phases of the contacts with friction (phases.c), an
 * observer row of observe.c: attach (a scene with friction only; VB_OK
 * without), whether attached, after step n, at the end (VB_ENOMEM when its
 * table could not grow), free. */
typedef struct vb_phase_run vb_phase_run;
int vb_phases_alloc(vb_run *run, char *err, size_t errlen);
int vb_phases_attached(const vb_run *run);
void vb_phases_step(vb_run *run, long n);
int vb_phases_finish(vb_run *run);
void vb_phases_free(vb_run *run);
/* Each contact's share of steps sticking and friction work at the end
 * ([ncontacts], NaN for a contact without friction), NULL without
 * friction. */
const double *vb_phases_share(const vb_run *run);
const double *vb_phases_work(const vb_run *run);

/* ------------------------------------------------------- the observers */

/* The stages of a step at which an observer's step hook runs. */
enum { VB_STAGE_BEFORE_SAMPLE, VB_STAGE_AFTER_SAMPLE };

/* A run observer: a per-scene tracker that follows a run without changing
 * it (the analysis, the Lyapunov twin), one row of observe.c's table,
 * which the run iterates at its stages (after MuJoCo's plugins).  Its
 * state hangs on the run. */
typedef struct vb_observer {
  const char *name; /* "analysis", for messages */
  int stage;        /* VB_STAGE_*: where in a step its step hook runs */
  /* Attach its state when the scene asks for it (VB_OK also when it does
   * not); VB_ENOMEM or VB_EINVAL with "scene 'x': ..." in err. */
  int (*alloc)(struct vb_run *run, char *err, size_t errlen);
  /* Whether the run has its state (alloc attached it). */
  int (*attached)(const struct vb_run *run);
  /* After the start's sample (step 0); NULL: nothing to do. */
  void (*start)(struct vb_run *run);
  /* After step n, at its stage. */
  void (*step)(struct vb_run *run, long n);
  /* At the end of every run, a failed one's too (NULL: nothing to do);
   * VB_OK or VB_ENOMEM. */
  int (*finish)(struct vb_run *run);
  /* Free its state (the run's pointer to it cleared). */
  void (*free)(struct vb_run *run);
  /* Its tables in the output (/study/NAME, doc/format.md), ended by a
   * NULL name; NULL: none.  Columns it adds to /study/table are
   * output/table.c's. */
  const vb_xtable *tables;
} vb_observer;

/* The observers' own tables, each in its tracker's file: the analysis's
 * /study/sections and /study/impact_map (analysis.c). */
extern const vb_xtable vb_analysis_tables[];
/* The stick and slip phases' /study/phases (phases.c), present when scene
 * 0 has a contact with friction (vb_has_friction; also the friction
 * columns of /study/table). */
extern const vb_xtable vb_phase_tables[];
int vb_has_friction(const vb_scene *first);

/* Row i of the observer table, NULL beyond; *n (may be NULL) gets the count. */
const vb_observer *vb_observer_at(int i, int *n);
/* Every row's alloc, in table order; the first failure's code. */
int vb_observers_alloc(struct vb_run *run, char *err, size_t errlen);
/* Every attached row's start. */
void vb_observers_start(struct vb_run *run);
/* Every attached row's step of one stage, after step n. */
void vb_observers_step(struct vb_run *run, long n, int stage);
/* Every row's finish; VB_OK or the first failure (all are called). */
int vb_observers_finish(struct vb_run *run);
/* Every row's free. */
void vb_observers_free(struct vb_run *run);

/* ------------------------------------------------------------ the view */

/* One view of a finished run, taken once when the run is packed for the
 * output (vb_run_view_take): everything the output's column getters read,
 * so that packing a run asks it once and every getter reads one struct. */
struct vb_run_view {
  const vb_run *run;                 /* the run itself (its recorded series) */
  const vb_scene *scene;             /* its scene */
  int code;                          /* VB_OK or the code that ended it */
  const char *status;                /* its status text (the run's own buffer) */
  long samples;                      /* recorded samples */
  double interval;                   /* s between recorded samples */
  double final_energy;               /* total energy at the last sample, J; NaN without samples */
  double balance_error;              /* energy balance error at the end, J */
  double balance_worst;              /* and its largest magnitude over the run's steps, J */
  double state_drift;                /* largest scheme-state drift, J^(1/2); NaN without one */
  const vb_contact_result *contacts; /* [ncontacts] each contact's results */
  double lyapunov, lyapunov_half;    /* largest exponent, whole and second half, 1/s; NaN
                                        without the twin */
  double lyapunov_perturbation;      /* the twin's relative perturbation, 1; NaN without it */
  const vb_analysis_run *analysis;   /* the section and impact map; NULL without a block */
  const double *stick_share;         /* [ncontacts] share of steps sticking, NaN without
                                        friction; NULL for a scene without friction */
  const double *friction_work;       /* [ncontacts] friction work at the end, J; the same */
};

/* Take the view of a finished run (run.c). */
void vb_run_view_take(const vb_run *run, vb_run_view *v);


#endif
