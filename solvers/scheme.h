/* scheme.h - the plug-in interface of a numerical scheme (not installed).
 *
 * A scheme is one file in solvers/ exporting one `const vb_scheme` (its
 * facts, vibro.h) whose `ops` point at a `const vb_scheme_ops` (its
 * operations, here).  The rest of the library reaches a scheme only through
 * these two, and a scheme reaches the island only through a contact's
 * history (implicit families) or a vb_system (explicit family). */
#ifndef VIBRO_SCHEME_H
#define VIBRO_SCHEME_H

#include <stddef.h>
#include <stdlib.h>
#include "vibro.h"

/* History of one contact's compression that a scheme's step force needs.
 * Two-level: x, rate and f at n, and roff such that the rate at n+1 is
 * 2 (x1 - x) / dt + roff (the trapezoidal relation, Papetti eq 20).
 * Three-level: x at n and xm at n-1. */
typedef struct vb_chist {
  double x;    /* compression at n, m */
  double xm;   /* compression at n-1, m (three-level) */
  double rate; /* compression rate at n, m/s */
  double roff; /* two-level: rate(n+1) = 2 (x1 - x)/dt + roff, m/s */
  double f;    /* force the scheme holds at n, N */
} vb_chist;

/* An island as a system of equations for an explicit scheme (after GSL's
 * gsl_odeiv2_system): nm modes with displacements q and velocities v, and
 * nc contacts. */
typedef struct vb_system {
  int nm, nc;
  /* The modes' accelerations a[nm] (m/s^2) at time t (s) for the state
   * (q[nm], v[nm]), with the contacts' compressions x[nc] (m), their rates
   * rate[nc] (m/s) and forces f[nc] (N) it found on the way. */
  void (*accel)(const void *ctx, double t, const double *q, const double *v, double *a, double *x,
                double *rate, double *f);
  const void *ctx;
} vb_system;

/* The operations of a scheme.  Implicit families (two-level, three-level)
 * provide the contact functions, the explicit family the step. */
typedef struct vb_scheme_ops {
  /* The force the contact applies over the step for a trial compression
   * x1 at n+1 (two-level: from n to n+1; three-level: centred at n), N,
   * and its derivative d/dx1 in *dfdx, N/m. */
  double (*step_force)(const vb_contact *ct, const vb_chist *h, double dt, double x1, double *dfdx);
  /* Optional closed form for an island with this one contact:
   * x1 = e - w * step_force(x1) with compliance w > 0 (m/N); VB_OK, or
   * VB_EDISCRIM when it has no real solution (then the scheme's fallback
   * steps the contact). */
  int (*solve_single)(const vb_contact *ct, const vb_chist *h, double dt, double e, double w,
                      double *x1);
  /* Force to hold at n+1 once the step force fbar is known (what the next
   * step reuses and the recording shows), N. */
  double (*held_force)(const vb_contact *ct, const vb_chist *h, double dt, double x1, double fbar);
  /* Energy the law's damping took over the step, J. */
  double (*dissipation)(const vb_contact *ct, const vb_chist *h, double dt, double x1, double fbar);
  /* The contact's potential in the scheme's discrete energy, J, with h
   * holding the state after the step (x at n+1, xm at n). */
  double (*potential)(const vb_contact *ct, const vb_chist *h);
  /* Explicit family: the work space of a system of nm modes and nc
   * contacts (NULL when out of memory), freed by free (NULL is a no-op). */
  void *(*alloc)(int nm, int nc);
  void (*free)(void *ws);
  /* Explicit family: advance (q, v) of sys from t by h, with a[nm] the
   * accelerations at the start, replaced by those at the end, and f[nc]
   * receiving the contact forces that went into them; VB_OK. */
  int (*step)(void *ws, const vb_system *sys, double t, double h, double *q, double *v, double *a,
              double *f);
} vb_scheme_ops;

/* Check that a scheme has the operations and facts its family needs, once,
 * where it is attached (after SUNDIALS): VB_OK, or VB_EINVAL with
 * "scheme 'x': no step_force (the two-level family needs it)" in err. */
int vb_scheme_check(const vb_scheme *s, char *err, size_t errlen);

/* Explicit family: a zeroed work space of n doubles (NULL when out of
 * memory), the schemes' alloc; freed by vb_workspace_free, their free
 * (NULL is a no-op).  Inline, so that the schemes need nothing of the
 * registry that lists them (no circle of files). */
static inline void *
vb_workspace_alloc(size_t n)
{
  return calloc(n + 1, sizeof(double));
}
static inline void
vb_workspace_free(void *ws)
{
  free(ws);
}

/* The law's potential V(x^n) with h holding the state after the step, J
 * (the contact potential of both two-level schemes, two_point.c). */
double vb_two_level_potential(const vb_contact *ct, const vb_chist *h);
/* The law at n+1 with the rate of the step into it, N (the held force of
 * both three-level schemes). */
double vb_three_level_held_force(const vb_contact *ct, const vb_chist *h, double dt, double x1,
                                 double fbar);

/* ------------------------------------------------------------ K-method */

/* One step's contact problem of an implicit island (Borin, De Poli &
 * Rocchesso; Avanzini): the modes give a predicted compression xt per
 * contact and the constant compliance K, so that x1 = xt - K fbar(x1). */
typedef struct vb_kproblem {
  int nc;                /* contacts */
  int three;             /* three-level family */
  double dt;             /* s */
  const double *K;       /* [nc][nc] step compliance, m/N */
  const double *xt;      /* [nc] predicted compressions, m */
  const vb_contact *cts; /* [nc] the contacts with their active laws */
  const vb_chist *hist;  /* [nc] their histories */
  double *x1;            /* [nc] out: new compressions, m */
  double *fbar;          /* [nc] out: step forces, N */
  int *iterations;       /* [nc] out: Newton iterations */
  int *fallback;         /* [nc] out: 1 if the scheme's fallback stepped it */
  double *jac;           /* [nc][nc] scratch */
  double *rhs;           /* [nc] scratch */
  int *piv;              /* [nc] scratch */
} vb_kproblem;

/* Whether contact ct could exert a force in a step predicted to reach xt. */
int vb_kmethod_may_act(const vb_contact *ct, const vb_chist *h, double xt, int three);

/* Solve a step's contacts: one contact by the scheme's closed form or
 * scalar Newton; more by Newton on the contacts that may act (LAPACK's LU
 * of I + K_AA diag(fbar'), a line search), or, with a closed-form contact,
 * by block Gauss-Seidel polished by that Newton when it stalls (kmethod.c).
 * VB_OK, VB_ENOCONV (not converged within the contacts' max_iterations;
 * the finite iterate is kept) or VB_EDIVERGED (a force overflows). */
int vb_kmethod_solve(const vb_kproblem *p);

#endif
