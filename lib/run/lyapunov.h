/* lyapunov.h - the largest Lyapunov exponent of a run by a perturbed twin
 * (not installed; doc/analysis.md, "Lyapunov exponent").
 *
 * On request, a run carries a twin of its islands' states started a small
 * distance d0 from the run after the transient and stepped alongside it
 * with the same scheme and step (Benettin et al. 1980; Wolf et al. 1985).
 * Every `renormalise` drive periods the separation d is measured in the
 * scaled state norm and the twin is moved back to d0 along it; the
 * exponent is sum ln(d_k / d0) over the time elapsed.  The twin records
 * nothing and writes no events.  A run without the request carries a
 * NULL pointer and pays one test per step. */
#ifndef VIBRO_LYAPUNOV_H
#define VIBRO_LYAPUNOV_H

#include <stddef.h>
#include "run.h"

/* What a run's exponent is asked with (the analysis block's `lyapunov`
 * key and its section). */
typedef struct vb_lyapunov_opts {
  double perturbation; /* d0 relative to the largest norm of the run's state met
                          at the twin's start and measurements, 1 (valid: > 0 and
                          < 1; the analysis block's default is
                          vb_lyapunov_perturbation's, doc/analysis.md) */
  double renormalise;  /* periods T between renormalisations, 1 (> 0) */
  double period;       /* T, s: the section's drive period; 0 when there is no
                          drive (then T = 1 / the scene's lowest mode frequency,
                          or 1000 steps when it has no oscillating mode) */
  double start;        /* s: the twin starts at the first step at or after
                          this time (the section's transient), >= 0 */
  int from_impacts;    /* 1: perturbation is only the start's; at the twin's
                          start and each renormalisation it becomes
                          clamp(12 / N^2, 1e-8, 1e-2) for N the median steps
                          the run's last LYAPUNOV_RECENT impacts lasted
                          (the analysis block's default); 0: fixed */
} vb_lyapunov_opts;

/* The default perturbation, 1: 12 / N^2 for N steps a contact (the
 * section's scatter is about 7 / N^2 of the orbit, doc/analysis.md
 * "Default tolerances"), kept in [FLOOR, CEILING]; FLOOR without a
 * contact that closes.  Below sqrt(SCATTER / CEILING) = 34.6 steps a
 * contact the clamp bites and vibro check warns (the window above the
 * scatter and below v_in t_c is empty; doc/analysis.md, "The default
 * perturbation"). */
#define LYAPUNOV_SCATTER 12.0
#define LYAPUNOV_FLOOR   1e-8
#define LYAPUNOV_CEILING 1e-2
/* Impacts (the last ones the event tracker finished, every contact) whose
 * median duration sets the default perturbation during a run. */
#define LYAPUNOV_RECENT 64

/* The twin and its running sums (lyapunov.c). */
typedef struct vb_lyapunov vb_lyapunov;

/* Give a run a twin for its largest Lyapunov exponent: allocates one state
 * per island (VB_ENOMEM).  VB_EINVAL with "scene 'x': analysis 'lyapunov':
 * what (valid: ...)" in err for options out of range or a contact with
 * Papetti's corrections (which the twin, keeping no events, cannot apply).
 * Freed with the run. */
int vb_lyapunov_attach(vb_run *run, const vb_lyapunov_opts *o, char *err, size_t errlen);
/* Give a run the twin its scene's analysis block asks for (nothing
 * without `lyapunov`): T and the start are the section's period and
 * transient (no section: no drive, from t = 0).  As vb_lyapunov_attach. */
int vb_lyapunov_alloc(vb_run *run, char *err, size_t errlen);
/* The fewest steps (Papetti eq 9's predicted duration times fs) a
 * contact lasts among those free flight from the initial state brings to
 * an impact, as vibro check predicts it; 0 when none can close; -1 when
 * memory ran out computing it (the lyapunov_nomem test hook forces that,
 * vb_test_control). */
double vb_lyapunov_contact_steps(const vb_scene *sc);
/* The relative perturbation a scene's twin starts with, 1: the analysis
 * block's `perturbation` when given, else clamp(12 / N^2, 1e-8, 1e-2) for
 * N = vb_lyapunov_contact_steps (1e-8 when 0; the run then follows its own
 * impacts, vb_lyapunov_opts.from_impacts); N into *steps (0 when given or
 * none, -1 when memory ran out: the perturbation is then NaN and
 * vb_lyapunov_alloc fails with VB_ENOMEM; may be NULL). */
double vb_lyapunov_perturbation(const vb_scene *sc, double *steps);
/* Free a twin; NULL is a no-op. */
void vb_lyapunov_free(vb_lyapunov *ly);
/* The run's hook, once the islands stand at step n (n >= 1): step the
 * twin to n, start it at its first step, measure and renormalise it at
 * each interval's end and at the last step.  Allocates nothing. */
void vb_lyapunov_step(vb_run *run, long n);

/* The largest Lyapunov exponent of a finished run, 1/s, and in
 * *second_half (may be NULL) the estimate over the intervals that begin
 * in the second half of the time measured; NaN when the run has no twin,
 * did not reach its end, or the twin's step failed (Newton did not
 * converge or the twin diverged); -inf when the twin fell onto the run to
 * the last bit (contraction beyond what double precision resolves). */
double vb_run_lyapunov(const vb_run *run, double *second_half);
/* The relative perturbation a run's twin was last brought back to, 1:
 * the one given, or the default from the run's impacts over the last
 * interval (NaN without a twin). */
double vb_run_lyapunov_perturbation(const vb_run *run);
/* Renormalisation intervals measured, and the separation's scale d0 (m,
 * in the norm of doc/analysis.md) the twin was held at; 0 without a
 * twin. */
long vb_run_lyapunov_intervals(const vb_run *run, double *d0);

#endif
