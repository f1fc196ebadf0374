/* run_state.h - a run's state (struct vb_run) and the stages that act on
 * it, impact tracking (events.c) and recording (record.c); shared by run.c,
 * events.c, record.c, analysis.c and lyapunov.c (not installed). */
#ifndef VIBRO_RUN_H
#define VIBRO_RUN_H

#include "internal.h"
#include "island.h"
#include "analysis.h"

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

/* A recorded point of an island: a sample computes it (vb_point_eval)
 * and stores it at its series' sample. */
typedef struct vb_point_rec {
  vb_point_ops ops; /* its row and the island's state (vb_point_eval) */
  double *u, *v;    /* [nrec] or the window's row, m and m/s; NULL when not recorded */
} vb_point_rec;

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
  int nderived;
  vb_derived *derived;             /* [nderived] the series each sample computes */
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
  double e_peak;
  long e_peak_step;
  vb_analysis_run *analysis;       /* the section and impact map, NULL without
                                      an analysis block */
  struct vb_lyapunov *lyap;        /* the Lyapunov twin, NULL unless requested (lyapunov.c) */
  char status[320];
  int code;
  int keep_subnormals; /* 1: the run leaves the caller's FTZ/DAZ bits alone (fpenv.c) */
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

#endif
