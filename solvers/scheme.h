/* scheme.h - the plug-in interface of a numerical scheme (not installed).
 *
 * A scheme is one file in solvers/ exporting one `const vb_scheme` (its
 * facts, vibro.h) whose `ops` point at a `const vb_scheme_ops` (its
 * operations, here).  The rest of the library reaches a scheme only through
 * these two, and a scheme reaches the island only through a contact's
 * history (implicit families), one step's contact problem (vb_kproblem:
 * the energy-quadratised family's linear solve) or a vb_system (explicit
 * family): the system of equations, never the island's state.  A scheme
 * may keep nstate doubles of its own per contact (h->st), which the
 * island allocates with its state and the recording shows
 * (contacts/C/aux).  The families' facts (below, rows in registry.c) say
 * what each family asks of its schemes; how a family steps an island is
 * the island wing's (island/model.h, rows in island/step.c). */
#ifndef VIBRO_SCHEME_H
#define VIBRO_SCHEME_H

#include <stddef.h>
#include <stdlib.h>
#include "base/base.h"
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
  double *st;  /* the scheme's own state of this contact (nstate doubles,
                  allocated with the island's state), or NULL */
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

struct vb_kproblem; /* one step's contact problem (below) */

/* The operations of a scheme.  Implicit families (two-level, three-level)
 * provide the contact functions, the explicit family the step, the
 * energy-quadratised family the contact functions, its state and the
 * island's linear solve. */
typedef struct vb_scheme_ops {
  /* Doubles of state the scheme keeps per contact (h->st), 0 for none;
   * the island's state allocates them and the step never does. */
  int nstate;
  /* Set a contact's state at t = 0 from its history at n = 0 (and, three-
   * level, n = -1). */
  void (*start)(const vb_contact *ct, const vb_chist *h, double *st);
  /* Advance a contact's state over the step from n to n+1 once the new
   * compression x1 (m) is known, h still holding the history at n. */
  void (*advance)(const vb_contact *ct, const vb_chist *h, double dt, double x1, double *st);
  /* How far the state is from its definition after a step (h holding the
   * history after it), in the state's units; NULL when it has no such
   * definition. */
  double (*state_drift)(const vb_contact *ct, const vb_chist *h);
  /* The force the contact applies over the step for a trial compression
   * x1 at n+1 (two-level: from n to n+1; three-level: centred at n), N,
   * and its derivative d/dx1 in *dfdx, N/m. */
  double (*step_force)(const vb_contact *ct, const vb_chist *h, double dt, double x1, double *dfdx);
  /* Optional, both or neither: the part of step_force that is the same
   * for every trial x1 of a step (two-point: V(x^n), J), and step_force
   * with that value b given, to the bit step_force's force and derivative
   * (the K-method's Newton forms b once a solve, not once a trial). */
  double (*step_base)(const vb_contact *ct, const vb_chist *h);
  double (*step_force_at)(const vb_contact *ct, const vb_chist *h, double dt, double x1, double b,
                          double *dfdx);
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
  /* Energy-quadratised family: solve one step's contacts of an island
   * whose step force is linear in the new compressions, by one linear
   * solve (no iteration); VB_OK or VB_EDIVERGED (a singular system). */
  int (*solve_linear)(const struct vb_kproblem *p);
  /* Nonsmooth family: solve one step's rigid contacts as impulses at
   * velocity level (Newton's impact law as a complementarity problem,
   * moreau_jean.c): fbar (the impulse over dt, >= 0) and x1 of every
   * contact of the set; VB_OK, VB_ENOCONV (the solve's cap, its last
   * iterate kept) or VB_EDIVERGED. */
  int (*solve_impulse)(const struct vb_kproblem *p);
  /* Whether the scheme can step contact ct's law; if not, what it needs
   * in why[len] ("an undamped law (valid: ...)").  NULL: every law. */
  int (*accepts)(const vb_contact *ct, char *why, size_t len);
} vb_scheme_ops;

/* ------------------------------------------------------------ families */

struct vb_island_model;
struct vb_island_state;

/* A scheme family's facts: what its schemes must provide and what the
 * library asks instead of naming a family.  One row per vb_family in
 * registry.c's table; the island's hooks for each family (island/model.h,
 * rows in island/step.c) point at their row. */
typedef struct vb_family_info {
  const char *name;  /* "two-level", for messages */
  int levels;        /* time levels of the modes' state: 2 (q, v at n) or 3
                        (q at n and n-1; rates are those of the step into n) */
  int velocity;      /* the state holds a velocity at n (Papetti's corrections) */
  int one_scheme;    /* the island is stepped by one scheme (its ops->step) */
  int linear;        /* its contacts are solved by their scheme's solve_linear */
  int impulse;       /* its contacts are rigid, solved as impulses by their
                        scheme's solve_impulse (no step_force) */
} vb_family_info;

/* The facts of every family, indexed by vb_family (registry.c). */
extern const vb_family_info vb_families[];
/* The facts of family f, or NULL beyond the last (registry.c). */
const vb_family_info *vb_family_info_of(vb_family f);


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
  const int *set;        /* [nset] the contacts to solve, ascending (the others
                            are skipped: out of contact, fbar 0); NULL: all */
  int nset;
  int *rounds;           /* out, may be NULL: incremented once per active-set
                            round that looked for contacts to join */
  double *gws;           /* work space of vb_kmethod_global_size(nc, grank)
                            doubles for the globalised fall-back, or NULL
                            (none: a Newton that fails reports VB_ENOCONV) */
  int grank;             /* the rank K can have at most (the island's modes) */
  long *global_solves;   /* out, may be NULL: incremented once per step the
                            globalised fall-back solved */
  long *global_iterations; /* out, may be NULL: the fall-back's iterations
                              added (solved or not) */
  const double *S;       /* [nc][nmp] the compressions per unit modal
                            displacement and cc[nm] the modes' step
                            compliances (m/N per m^2), K = S diag(cc) S^T; or
                            NULL.  With them and gws, a Newton system of more
                            than 32 contacts and four times nm is solved
                            through the modes (dense.c) */
  const double *cc;
  int nm, nmp;
  /* K NULL (an island of many contacts, lib/island/model.c: no nc x nc
   * compliance, lowrank.c forms what is read from S and cc): */
  double *kws;  /* [2 nmp] scratch of the products through the modes */
  int kcap;     /* the largest active set whose K_AA is formed (packed);
                   above it the Newton system is solved through the modes */
  size_t njac;  /* doubles of jac (2 kcap^2 + 8 nc + 8, lib/island/island.c),
                   not nc^2 */
} vb_kproblem;

/* The doubles of p->jac: nc^2, or p->njac where K is NULL. */
static inline size_t
vb_kmethod_jac_size(const vb_kproblem *p)
{
  return p->K ? (size_t)p->nc * p->nc : p->njac;
}

/* The step compliance through the modes where K is NULL (lowrank.c):
 * K_cd (the bits of the dense K); K_AA packed, kaa[j na + i] =
 * K[act[ix[i]]][act[ix[j]]] (act[i] where ix is NULL; ws: nm na doubles of
 * scratch); and the modal products u = 0, u += f S_c (|f| |S_c|
 * for a round-off scale), u = diag(cc) u (|cc|), S_c . u (|S_c| . u), so
 * that K_cA f_A = S_c . (diag(cc) S_A^T f_A).  u has nmp doubles. */
double vb_k_entry(const vb_kproblem *p, int c, int d);
void vb_k_gather(const vb_kproblem *p, int na, const int *act, const int *ix, double *kaa,
                 double *ws);
void vb_k_modal_zero(const vb_kproblem *p, double *u);
void vb_k_modal_add(const vb_kproblem *p, int c, double f, double *u);
void vb_k_modal_add_abs(const vb_kproblem *p, int c, double f, double *u);
void vb_k_modal_scale(const vb_kproblem *p, double *u, int absolute);
double vb_k_row_dot(const vb_kproblem *p, int c, const double *u, int absolute);
/* The Newton system (I + K_NN diag(fbar')) d = b of n contacts act[ix[k]]
 * (act[k] where ix is NULL; fbar' in df[ix[k]]) through the modes, in
 * its symmetric positive definite form (Woodbury, Cholesky of an nm x nm
 * matrix); b[n] replaced by d.  Scratch: p->gws (nm^2 + nm) and p->kws.
 * 0, or -1 where the form does not apply (a negative cc or fbar', H not
 * positive definite). */
int vb_k_modal_solve(const vb_kproblem *p, int n, const int *act, const int *ix,
                     const double *df, double *b);

/* Whether contact ct could exert a force in a step predicted to reach xt:
 * penetrating at xt, at n or (three-level) at n-1.  Inline, as the
 * vb_workspace_ functions: the step asks it of every contact of a step
 * with no solve (1.2M calls in the tanpura's 0.5 s). */
static inline int
vb_kmethod_may_act(const vb_contact *ct, const vb_chist *h, double xt, int three)
{
  const vb_law *law = &ct->law;
  return law_penetration(law, xt) > 0.0 || law_penetration(law, h->x) > 0.0 ||
         (three && law_penetration(law, h->xm) > 0.0);
}

/* Where the active-set Newton keeps fbar' of its na active contacts,
 * packed: the last na doubles of p->jac (nc x nc). */
static inline double *
vb_kmethod_derivatives(const vb_kproblem *p, int na)
{
  return p->jac + vb_kmethod_jac_size(p) - na;
}

/* One Newton update of the active-set solve (dense.c; exposed for its
 * tests): the active contacts p->piv[0..na) (ascending), the residual r
 * in p->rhs[0..na) and fbar' in the last na doubles of p->jac; d = -J^-1 r
 * with J = I + K_AA diag(fbar') into p->rhs.  K_AA from kaa (na x na,
 * column-major, kaa[j na + i] = K[piv[i]][piv[j]], outside the scratch
 * below) where not NULL, else from p->K: the same bits.  0, or -1 when J
 * is singular or d not finite.  The first na^2 and the last 2 na doubles
 * of p->jac and p->iterations are scratch. */
int vb_kmethod_update(const vb_kproblem *p, int na, const double *kaa);

/* y[i] = y[i] + a[j n + i] x[j] for j = 0 .. m-1 in turn, i < n (a
 * column-major n x m): each y_i the same sum in the same order as a row
 * loop, formed a column at a time (dense.c). */
void vb_dense_gemv_acc(int n, int m, const double *a, const double *x, double *y);

/* LU with partial pivoting of the n x n column-major a in place, pivots
 * 1-based into ipiv[n], by exactly LAPACK dgetf2's operations (reference
 * BLAS): the same bits; 0, or the first zero pivot's k (1-based). */
int vb_dense_lu(int n, double *a, int *ipiv);

/* Solve with vb_dense_lu's factors in place in b[n], by exactly LAPACK
 * dgetrs's operations (one right-hand side): the same bits. */
void vb_dense_lu_solve(int n, const double *a, const int *ipiv, double *b);

/* Solve a step's contacts: one contact by the scheme's closed form or
 * scalar Newton; more by Newton on the contacts that may act (the LU of
 * I + K_AA diag(fbar') by vb_dense_lu or LAPACK, a line search), or, with a closed-form contact,
 * by block Gauss-Seidel polished by that Newton when it stalls (kmethod.c).
 * VB_OK, VB_ENOCONV (not converged within the contacts' max_iterations;
 * the finite iterate is kept) or VB_EDIVERGED (a force overflows). */
int vb_kmethod_solve(const vb_kproblem *p);

/* Doubles of work space vb_kmethod_global needs for n contacts whose
 * compliance has rank at most r (kglobal.c). */
size_t vb_kmethod_global_size(int n, int r);

/* The K-method's globalised fall-back (kglobal.c): a step's contacts (the
 * set's) as the minimum of a strictly convex function, K = B B^T by
 * pivoted Cholesky, semismooth Newton in the modes' coordinates with an
 * exact line search; it cannot cycle and converges from any start for a
 * monotone law and K positive semi-definite.  Starts from p->fbar; the
 * iterations it took into *iterations.  VB_OK with x1 and fbar of every
 * member of the set, or VB_ENOCONV (p->gws NULL, a force that falls with
 * x, the cap) with x1 and fbar as they were.  p->piv and p->jac are
 * scratch. */
int vb_kmethod_global(const vb_kproblem *p, int *iterations);

/* ------------------------------------------------------------- Newton */

/* (newton.c) */
/* Scalar residual r(y) and its derivative, for vb_newton_solve. */
typedef double (*vb_residual_fn)(double y, void *data, double *dr);

/* Solve r(y) = 0 by Newton's method from y0, safeguarded by bisection
 * inside [lo, hi] once a sign change is known.  Converged when the update
 * is below tol * max(|y|, scale).  Stores the iterate in *y and the count
 * in *iterations; VB_OK or VB_ENOCONV after max_iter iterations. */
int vb_newton_solve(vb_residual_fn r, void *data, double y0, double scale, double tol, int max_iter,
                    double *y, int *iterations);

/* ------------------------------------------- friction (issue 30, step 1)
 * One step's friction problem of an island (lib/friction.h): contact i's
 * relative tangential displacement moves by dy_i = dyfree_i + sum_k
 * Kt_ik ft_k over the step, its slip rate is dy_i / dt, and each ft_i is
 * its law's local answer (vb_friction_info.local) to the slip the others
 * leave it, under its normal force. */
typedef struct vb_fproblem {
  int nfc;                             /* contacts with friction */
  double dt;                           /* s */
  const double *Kt;                    /* [nfc][nfc] tangential compliance, m/N */
  const double *dyfree;                /* [nfc] free relative increments, m */
  const double *normal;                /* [nfc] normal forces of the step, N (>= 0) */
  const vb_friction_info *const *info; /* [nfc] the laws' rows */
  const vb_friction *const *law;       /* [nfc] their parameters */
  const int *st_first;                 /* [nfc + 1] first state double of each */
  const double *st_old;                /* the laws' states at n */
  double *st;                          /* out: the states at n+1 */
  double *ft;                          /* in: a first guess (the last step's); out, N */
  int max_sweeps;                      /* Gauss-Seidel sweeps at most */
  double tolerance;                    /* relative change of ft that ends them */
  int *sweeps;                         /* out: sweeps done */
  int *broke;                          /* scratch [nfc]: left the static set this step
                                          (vb_friction_info.local) */
} vb_fproblem;

/* Solve a step's friction (solvers/friction_solve.c): one contact exactly
 * by its law's local problem; several by projected (nonsmooth) Gauss-
 * Seidel over the contacts in order (Jean & Moreau 1992), each solved
 * exactly given the others, until no force changes by more than
 * tolerance of the largest.  A contact that breaks free in a sweep stays
 * on its slip branch for the rest of the step's solve: the sweeps then
 * iterate a fixed projection on boxes with the symmetric positive
 * definite Kt, which converges (a static/kinetic jump would let a contact
 * at its threshold flip at every sweep), but slowly where Kt is near
 * singular (many points on few modes): after max_sweeps, contacts all of
 * Coulomb's law are solved as a block (the box-constrained quadratic on
 * Kt, exactly, by an active-set method; friction_solve.c, block_solve),
 * and contacts of laws with a stick set (Coulomb, Stribeck, bow) by a
 * fixed point on that problem's bounds, each the law's curve at the
 * contact's slip (curve_solve), and blocks that hold a smooth law
 * (exponential, elasto-plastic) by a semismooth Newton, Levenberg-
 * Marquardt with a line search (newton_solve).  VB_OK, or VB_ENOCONV when none converged
 * (the last sweep's forces kept: each is in its law's set). */
int vb_friction_solve(const vb_fproblem *p);

#endif
