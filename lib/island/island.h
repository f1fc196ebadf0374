/* island/island.h - the face of the island wing (not installed): the
 * compiled model of a scene (model.h, model.c, modes.c), the run state of
 * an island and its step (island.c, step.c, sparse.c, corrections.c), the
 * mode kernels (kernels.h, kernels.c) and the queries of a compiled scene
 * (scene_query.c).  The island wing uses base and solvers.
 *
 * A run keeps one vb_island_state per island of the compiled model
 * (model.h), sized once from it (island.c); vb_island_step(const model *,
 * state *) steps it through its family's row (step.c) and allocates
 * nothing. */
#ifndef VIBRO_ISLAND_H
#define VIBRO_ISLAND_H

#include <stddef.h>
#include "model.h"
#include "kernels.h"

/* ---------------------------------------------------------------- state */

/* Everything of an island that changes during a run, sized once from its
 * model (island.c).  Scratch is marked. */
typedef struct vb_island_state {
  double time; /* t of the state, s */
  /* modes [nmp] */
  double *q, *v, *qm; /* q^n, v^n (two-level, explicit), q^(n-1) (three-level), m, m/s */
  double *acc;        /* explicit: acceleration at n, m/s^2 */
  double *gen;        /* generalised force of the step, N */
  double *qt;         /* predicted q without contact forces, m */
  double *scratch;    /* scratch: the force at n+1 (two-level), -qm (three-
                         level), the external force (explicit), N or m */
  int ahead;          /* qt already holds the next step's prediction */
  double ahead_dot;   /* and, with one contact, its dot with S */
  /* contacts [nc] */
  vb_contact *act;   /* the contacts as stepped: each with its active law
                        (vb_law_at_onset of the compiled law at the onset) */
  vb_chist *hist;    /* compression histories */
  double *xdrv;      /* compression from walls and gap at n, m */
  double *xdrv_rate; /* its rate at n, m/s */
  double *xdrv_m;    /* three-level: at n-1, m */
  double *xd_next;   /* scratch: walls and gap at n+1, m */
  double *rd_next;   /* scratch: their rate at n+1, m/s */
  double *fbar;      /* step forces, N */
  double *xt;        /* scratch: predicted compressions, m */
  double *x1;        /* scratch: new compressions, m */
  double *jac;       /* scratch: [nc][nc] Newton matrix, or [njac] where the
                        model is lowrank (vb_kproblem.njac) */
  size_t njac;       /* doubles of jac */
  double *kws;       /* scratch: [2 nmp] the solve's products through the
                        modes (lowrank), else NULL */
  double *rhs;       /* scratch: [nc] (Newton's; the update's held forces) */
  int *piv;          /* scratch: [nc] */
  int *trk;          /* the contacts stepped (live), ascending, [ntrk]: all of
                        them unless the island skips (sparse.c) */
  int ntrk;
  struct vb_sparse *sp; /* the skipping of contacts that cannot act, or NULL
                           (sparse.c) */
  int *iterations;   /* Newton iterations of the last step */
  int *fallback;     /* 1 if the scheme's fallback stepped it last step */
  int solved;        /* the last step solved its contacts: fbar, iterations and
                        fallback may be nonzero (else all are 0) */
  double *xmax;      /* [nc] largest compression at the recorded samples so
                        far, m (record.c) */
  double *xb, *rb;   /* [nc] compression (m) and rate (m/s) at n-1 of the
                        contacts stepped by the last step (run.c's events) */
  int *eng;          /* the contacts stepped by the last step that are in
                        contact at n (law_engaged), ascending, [neng] (the
                        implicit families; explicit: neng = -1, unknown) */
  int neng;
  int *watch;        /* the contacts with an impact open or a release
                        pending after the last step's tracking, ascending,
                        [nwatch] (run.c), and room for the next list */
  int *watch_next;
  int nwatch;
  int law_potential; /* every contact's potential is its law's V(x) at n
                        (step.c: summed over those in contact alone) */
  int onset;         /* some contact's law sets its damping at the onset
                        (vb_law_at_onset; else its active law is its
                        compiled law at every step) */
  int one_sided;     /* every contact's law is one-sided and not always
                        engaged: its penetration is x itself (law.h) */
  int undriven;      /* no contact's walls or gap are driven: their
                        compressions xdrv, xdrv_m, xd_next and rates are
                        constants of the start, bit for bit */
  int corrections;   /* some contact corrects (Papetti): its moves change
                        every other contact's compression (run.c's events) */
  int contacts_finite; /* the last step's contacts' x, rate and f are all
                          finite (-1: not known, vb_island_finite checks) */
  double power[2];   /* explicit: dissipated and external power at n, W */
  /* energy of the island at n (the family's discrete definition), J */
  double kinetic, potential;
  double dissipated; /* running, J */
  double corrected;  /* running energy added by corrections, J */
  double external;   /* running work of forces, gravity and drivers, J */
  long newton_failures;
  long global_solves; /* steps the K-method's globalised fall-back solved
                         (solvers/kglobal.c) */
  long global_iterations; /* the fall-back's iterations in all */
  double *gws;        /* scratch: its work space, or NULL (no K-method or a
                         single contact) */
  double state_drift; /* largest drift of a scheme state from its definition
                         (ops->state_drift), NaN when no contact has one */
  double *drift;      /* [nc] contact c's largest drift of its scheme state from
                         its definition (ops->state_drift), J^(1/2); 0 for a
                         contact without one */
  void *work;                   /* explicit: the scheme's work space */
  vb_system sys;                /* explicit: the island as a system for the scheme */
  const vb_island_model *model; /* the model the state was sized for */
  void *block;                  /* the storage behind the arrays (island.c) */
  /* The tangential coordinates and friction (issue 30; friction.h), NULL
   * when the model has none; its energy, dissipation and work are in the
   * island's above. */
  struct vb_friction_state *fric;
  /* Scratch of its circular clearances (clearance.h), NULL without. */
  struct vb_clearance_state *clr;
  /* Scratch of a contact point that follows a mass's w (moving.c):
   * [VB_MOVING_WS nmp], NULL without. */
  double *mws;
} vb_island_state;

/* Allocate the state of an island, the schemes' per-contact state
 * included (island.c); VB_ENOMEM.  Free with vb_island_state_free (NULL
 * is a no-op). */
int vb_island_state_alloc(const vb_island_model *m, vb_island_state **out);
void vb_island_state_free(vb_island_state *s);
/* Copy state src into dst, both allocated for the same model: every
 * array and scalar the step carries (dst's explicit work space, scratch,
 * stays its own). */
void vb_island_state_copy(vb_island_state *dst, const vb_island_state *src);
/* b = a + r (b - a) on the modes: b moved along its separation from a,
 * scaled by r (the Lyapunov twin's renormalisation, lyapunov.c); the
 * contacts' histories and the schemes' per-contact state re-derived from
 * a's and the modes' differences (island.c says why).  Both states of one
 * model. */
void vb_island_state_blend(vb_island_state *b, const vb_island_state *a, double r);
/* Displace a state's modes by dq[nm] (m) and velocities by dv[nm] (m/s)
 * at its current step, its contacts' compressions and rates with them. */
void vb_island_state_displace(const vb_island_model *m, vb_island_state *s, const double *dq,
                              const double *dv);
/* The families' modal coefficients (modes.c): the `mode` hooks of the
 * two-level (trapezoidal, pre-warped), three-level (exact centred) and
 * explicit families (vb_family_ops), the two-level start's velocity that
 * makes the discrete free response exact, and a mode's exact free
 * response from (q0, dq0) under constant acceleration g at time t, m. */
int vb_mode_two_level(const vb_mode_in *in, vb_mode_coef *o, char *why, size_t len);
int vb_mode_three_level(const vb_mode_in *in, vb_mode_coef *o, char *why, size_t len);
int vb_mode_explicit(const vb_mode_in *in, vb_mode_coef *o, char *why, size_t len);
double vb_start_two_level(const vb_island_model *m, int j, double w0, double sig, double q0,
                          double v0, double g);
double vb_free_response(double w0, double sig, double q0, double dq0, double g, double t);

/* Set the state at t = 0 and the energy at n = 0 (step.c). */
void vb_island_start(const vb_island_model *m, vb_island_state *s);
/* Advance an island from step n to n + 1 through its family's row
 * (step.c).  VB_OK, VB_ENOCONV (Newton hit its cap in some contact; the
 * step is still taken), VB_EDIVERGED. */
int vb_island_step(const vb_island_model *m, vb_island_state *s, long n);
/* Displacement u[r] and velocity v[r] of the recorded points of the rows
 * rows[nrows] (three-level: the rate of the step into the sample), m and
 * m/s; the other entries of u[npts], v[npts] are left as they are. */
void vb_island_points(const vb_island_model *m, const vb_island_state *s, const int *rows, int nrows,
                      double *u, double *v);

/* A point's operands, taken once for a run (vb_island_point_ops), so that
 * a sample computes it with one kernel call (vb_point_eval). */
typedef struct vb_point_ops {
  const double *row;  /* its row of P */
  const double *q;    /* the state's q^n */
  const double *w;    /* v^n, or q^(n-1) (three-level) */
  int from, to;       /* the modes of its body, in whole blocks */
  int three;          /* three-level: v is the rate of the step into the sample */
  double dt;          /* s */
} vb_point_ops;
/* The operands of point row r of an island. */
void vb_island_point_ops(const vb_island_model *m, const vb_island_state *s, int r,
                         vb_point_ops *ops);
/* The point's displacement *u (m) and velocity *v (m/s) now. */
static inline void
vb_point_eval(const vb_point_ops *p, double *u, double *v)
{
  double w;
  vb_kernel_dot2(p->from, p->to, p->row, p->q, p->w, u, &w);
  *v = p->three ? (*u - w) / p->dt : w;
}
/* Whether the island's contact states, forces and energies are all finite
 * (a non-finite mode shows in the energies).  A few operations per
 * contact: called every step. */
int vb_island_finite(const vb_island_model *m, const vb_island_state *s);
/* Name the island's first non-finite quantity in what[len], e.g.
 * "contact 'hit': force is inf" or "body 'ball': mode 0 velocity is nan"
 * (with solve_failed, after the step's solve gave VB_EDIVERGED, also its
 * iterates); 0 if there is none. */
int vb_island_nonfinite(const vb_island_model *m, const vb_island_state *s, int solve_failed,
                        char *what, size_t len);

/* Generalised force on every mode at time t from gravity and forces, into
 * gen[nm], N. */
void vb_island_external(const vb_island_model *m, double t, double *gen);
/* Contact compressions x[nc] (m) and rates rate[nc] (m/s) of a modal state
 * (q, v) at time t. */
void vb_island_compressions(const vb_island_model *m, const double *q, const double *v, double t,
                            double *x, double *rate);
/* Accelerations a[nm] of the modes for the state (q, v), contact forces
 * f[nc] and external generalised force ext[nm], m/s^2. */
void vb_island_accel(const vb_island_model *m, const double *q, const double *v, const double *f,
                     const double *ext, double *a);
/* The family's discrete energy of the island now, into s->kinetic and
 * s->potential. */
void vb_island_energy(const vb_island_model *m, vb_island_state *s);
/* Explicit family: dissipated and external power of the state at t, W. */
void vb_island_explicit_power(const vb_island_model *m, vb_island_state *s, double t, double *pd,
                              double *pe);

/* ------------------------------------------------ skipped contacts (sparse.c)
 *
 * An island of many contacts steps only those that may act: the others
 * are stale (their history keeps the values of the step they left, out of
 * contact, with no force) until a bound on their compression says they
 * might engage.  vb_island_state_alloc decides, vb_island_start starts
 * it; the step calls the rest. */

/* Set up the skipping for an island that can (VB_OK with s->sp NULL when
 * it cannot; `undriven`: no contact's walls or gap are driven); VB_ENOMEM. */
int vb_sparse_alloc(const vb_island_model *m, vb_island_state *s, int undriven);
void vb_sparse_free(struct vb_sparse *sp);
/* Every contact live at the start, the reference at the initial modes. */
void vb_sparse_start(const vb_island_model *m, vb_island_state *s);
/* Step n's live set from the prediction qt: leave contacts that are safe,
 * rejoin those whose bound may engage (their history at n computed from
 * the modes), and the live contacts' predicted compressions xt and drives
 * at t1 into s->xt, s->xd_next, s->rd_next. */
void vb_sparse_select(const vb_island_model *m, vb_island_state *s, double t1);
/* Keep the prediction qt before the step's forces are applied to it. */
void vb_sparse_save(const vb_island_model *m, vb_island_state *s);
/* After the solve, with the forces applied to qt: how many skipped
 * contacts may engage at the new modes; those rejoin (with their xt) and
 * qt is restored to the prediction, and the caller solves again. */
int vb_sparse_check(const vb_island_model *m, vb_island_state *s);
/* Keep contact c live for the whole run (its signals are recorded). */
void vb_island_pin(const vb_island_model *m, vb_island_state *s, int c);
/* Contact c's compression now, m: its history's when live; when skipped,
 * an upper bound of it (out of contact). */
double vb_island_compression_bound(const vb_island_model *m, const vb_island_state *s, int c);
/* The contacts that rejoined during the last step, with their
 * compression and rate at its start (n); how many. */
int vb_island_rejoined(const vb_island_state *s, const int **lc, const double **x,
                       const double **rate);
/* Counters of the skipping (for the benchmarks): references refreshed,
 * rejoins, and the sum over steps of the live contacts; 0 when the
 * island does not skip. */
int vb_island_sparse_stats(const vb_island_state *s, long *refreshes, long *rejoins,
                           long *live_steps);
/* Steps that scanned the live contacts for leavers since the start (the
 * others waited: every contact live and the last scans found none); 0
 * when the island does not skip. */
long vb_island_sparse_scans(const vb_island_state *s);

/* Move contact c of an island by dx in compression and dv in rate at the
 * current step, sharing the change between its bodies by their compliance
 * (a mass against a wall moves alone), and return the energy it added, J
 * (Papetti 4.2 corrections, corrections.c).  Two-level and explicit
 * families only. */
double vb_island_correct(const vb_island_model *m, vb_island_state *s, int c, double dx, double dv);

/* The tangential direction and friction (friction.h). */
#include "friction.h"
/* The circular clearance (clearance.h). */
#include "clearance.h"
/* The moving contact point (moving.h). */
#include "moving.h"

#endif
