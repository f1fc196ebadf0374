/* friction.h - the tangential direction w and friction of an island: its
 * compiled model and its run state (not installed; doc/friction.md; issue
 * 30, step 1).  One file per wing: friction_law.c the laws' table (base),
 * friction.c the model, state and step (island), solvers/friction_solve.c
 * the solve kernel, friction_run.c a run's signals (run), load_friction.c
 * the scene keys (scene).
 *
 * Beside an island's modes along the normal u, its masses with a w
 * coordinate, their spins and its modal bodies' modes along w (step 3) are
 * tangential coordinates, each a one-mode oscillator along w (mass m,
 * spring kw and damper cw to ground; a mode's modal mass, frequency and
 * damping) stepped by the island's
 * two-level (trapezoidal) rule, and its contacts with friction join them
 * to each other or to walls moving along w.  Contact i's relative
 * tangential displacement is y_i = w_b - w_a (a wall's w is its drive), its
 * force ft_i acts on b along +w and on a along -w, so that a step is
 *   y_i^(n+1) = y~_i + sum_k Kt_ik ft_k,
 * y~ the free motion and Kt the tangential compliance of the step, the
 * tangential twin of the K-method's x^(n+1) = x~ - K f.  The normal forces
 * of the step are those the island's contact solve found (fbar): the
 * friction step comes after it (for masses, whose tangential and normal
 * coordinates are distinct, this is the joint solve; friction.c says
 * why). */
#ifndef VIBRO_FRICTION_H
#define VIBRO_FRICTION_H

#include <stddef.h>
#include <string.h>
#include "base/base.h"

struct vb_island_model;
struct vb_island_state;
struct vb_run;

/* The tangential part of one island, compiled: const after
 * vb_friction_compile. */
typedef struct vb_friction_model {
  double dt;            /* s */
  int nt;               /* tangential coordinates: the island's masses' w, then their
                           spins' angles (issue 30, step 2), then its modal bodies'
                           modes along w (step 3) */
  int nw;               /* the first nw of them are w (m), then spin angles (rad) */
  int nmw;              /* from nmw on, modes along w (m): nmw - nw spins */
  int nfc;              /* the island's contacts with friction */
  const int *tbody;     /* [nt] scene body of each coordinate */
  const int *tmode;     /* [nt] a mode along w: its index among the body's modes
                           along w, -1 for a mass's w or a spin */
  const double *mass;   /* [nt] kg (a spin: its inertia, kg m^2) */
  const double *w2;     /* [nt] kw / m as the two-level family warps it, 1/s^2 */
  const double *sig;    /* [nt] cw / (2 m), warped, 1/s */
  const double *cq;     /* [nt] two-level update in increments, w1 - w = cq w + cb vw
                           + cc f: cq = ca - 1 = -dt w2 cb / 2 formed so (ca - 1
                           would keep only the digits of ca that 1 leaves: 1e-9 of
                           the spring at 40 kHz, which the balance showed), 1 */
  const double *cb;     /* [nt] s */
  const double *cc;     /* [nt] compliance of a step, m/N */
  const int *local;     /* [nfc] the contact's index in the island */
  const int *scene_c;   /* [nfc] and in the scene */
  const int *ia, *ib;   /* [nfc] coordinate of a mass a and b, -1 for a wall or a
                           modal body */
  const int *sa, *sb;   /* [nfc] the spin coordinate of body a and b, -1 for none */
  const double *ra, *rb; /* [nfc] their radii (0 without a spin), m */
  const int *row_first; /* [nfc + 1] contact i's row of T is entries row_first[i] ..
                           row_first[i + 1] - 1: its slip is T q' + the walls' rates,
                           with T = +1 at a mass b's w, -1 at a mass a's, the radius
                           at either's spin (vibro.h's vb_body says why), +shape at
                           b's modes along w at its point and -shape at a's: a mass is
                           a one-mode body with shape 1, a spin a column with weight
                           its radius */
  const int *row_j;     /* [row_first[nfc]] the coordinate of each entry */
  const double *row_t;  /* [row_first[nfc]] its weight T_ij (1, m or m/rad) */
  const double *row_tc; /* [row_first[nfc]] cc_j T_ij and T_ij / mass_j, for a row of */
  const double *row_tm; /* more than four entries (modes along w: friction.c) */
  const int *row_base;  /* [nfc] such a row's first coordinate when its coordinates
                           are consecutive (a modal body and a wall), else -1 */
  const vb_drive **da;  /* [nfc] a wall a's w drive, or NULL (fixed, or a mass) */
  const vb_drive **db;  /* [nfc] the same for b */
  const double *Kt;     /* [nfc][nfc] tangential compliance of a step, m/N; NULL
                           above VB_FRICTION_KT_DENSE contacts (the distributed
                           solve forms the touching block from the rows) */
  const double *kv;     /* [nfc] slip rate per unit impulse at each contact, sum over
                           its coordinates of T^2 / m (a spin's r^2 / I), 1/kg */
  const vb_friction_info **info; /* [nfc] each contact's friction law row */
  const vb_friction **law;       /* [nfc] its parameters */
  const int *two_sided; /* [nfc] the normal law pushes on both sides: N = |fbar| */
  const double *given;  /* [nfc] the contact's prescribed normal force (a bow, no
                           normal law), N, or -1 when its normal law gives it */
  const vb_drive **ndrive; /* [nfc] its time profile (added to given, N), or NULL */
  const int *st_first;  /* [nfc + 1] each contact's first law-state double */
  const int *alone;     /* [nfc] the contact is a wall and a coordinate without spin
                           that no other contact with friction moves: its stick is
                           exact (the coordinate follows the wall to the bit) */
  const int *sparse;    /* [nfc] 1 for a point of a distributed contact: skipped
                           while its normal force is 0 (friction_dist.c), or NULL
                           when the island has none */
  int nsparse;          /* how many */
  int plain;            /* with sparse: no contact has a wall's w drive, a prescribed
                           normal force or a law with a stored energy (the step's
                           per-contact loop then skips those terms, friction.c) */
  const double *msig, *hm, *hmw2; /* [nt] with sparse: m sig, m / 2 and (m / 2) w2, the
                           products that open the pass's terms (friction_dist.c) */
  int one_row;          /* one contact with friction, no distributed points, its row the
                           island's modes along w, all of them and in order (a modal
                           body bowed by a wall): the step sums them in two passes
                           (friction.c, step_one_row) */
  int max_sweeps;       /* Gauss-Seidel sweeps of a step's friction solve */
  double tolerance;     /* its relative tolerance */
  void *block;          /* the storage behind the arrays */
} vb_friction_model;

/* The tangential run state of one island, sized once from its model. */
typedef struct vb_friction_state {
  double *w, *vw;    /* [nt] w^n, m, and its rate, m/s (a spin: its angle, rad, and
                        angular velocity, rad/s) */
  double *ft;        /* [nfc] tangential force of the last step, N (on b, +w) */
  double *slip;      /* [nfc] mean slip rate of the last step, m/s */
  double *normal;    /* [nfc] normal force that bounded it, N */
  double *work;      /* [nfc] running friction work, J (never negative) */
  double *st;        /* [st_first[nfc]] the laws' states at n */
  double *st_old;    /* scratch: the states at the step's start */
  int *broke;        /* scratch: [nfc] broke free in the step's solve */
  int *stk;          /* scratch: [nfc] the contacts that stick after it (the catch) */
  double *dfree;     /* scratch: [nt] free increments of the step, m */
  double *dyfree;    /* scratch: [nfc] free relative increments, m */
  double *dydrv;     /* scratch: [nfc] the walls' part of them, m */
  double kinetic, potential; /* of the coordinates at n, J */
  double dissipated;  /* running: the dampers' and friction's, J */
  double external;    /* running: the walls' work through friction, J */
  double work_min;    /* the most negative friction work of one step, J
                         (round-off: 0 or a few ulps of the step's) */
  long sweeps_failed; /* steps whose friction solve did not converge (the Gauss-Seidel, then its
                         block fall-back) */
  struct vb_fdist_state *dist; /* the distributed points' compact problem
                                  (friction_dist.c), or NULL */
  int dfree_next;     /* an island with distributed points: dfree already holds the
                         next step's free increments (formed with the energy at the
                         end of the last step, friction_dist.c) */
  int stepping;       /* set while the island's family steps (vb_island_step):
                         its energy then leaves the coordinates out, which
                         vb_friction_step adds at n+1 (an explicit family's
                         step ends in vb_island_energy, the others not) */
  void *block;
} vb_friction_state;

/* Two doubles side by side (GCC's vector extension: each lane's arithmetic
 * is the scalar's, IEEE to the bit), loaded and stored unaligned: the
 * sums over a body's modes along w that replace loops of `#pragma omp simd
 * reduction(+ : y)` keep their order with them.  GCC on x86-64 (SSE2, two
 * doubles a vector) adds such a loop's terms in two partial sums, y[0] the
 * terms 0, 2, 4, ... from the loop's start and an odd count's last one,
 * y[1] the terms 1, 3, 5, ..., and returns (y[0] + 0) + y[1]
 * (vb_lanes_sum).  These give those digits on every machine; the loops
 * themselves give them where GCC vectorises them so (x86-64 without AVX,
 * the default build: tests/run/check_friction's test_one_row_same). */
typedef double vb_lanes __attribute__((vector_size(16)));

static inline vb_lanes
vb_lanes_at(const double *p)
{
  vb_lanes v;
  memcpy(&v, p, sizeof v);
  return v;
}

static inline void
vb_lanes_put(double *p, vb_lanes v)
{
  memcpy(p, &v, sizeof v);
}

static inline double
vb_lanes_sum(vb_lanes y)
{
  return (y[0] + 0.0) + y[1];
}

/* Compile the tangential part of island m (after its modes and contacts):
 * *out NULL when the island has neither a w coordinate nor friction.
 * VB_EINVAL with "file:line: object: what (valid: ...)" in err for what
 * this step does not do yet (friction on a modal body, in a distributed
 * contact, with a scheme that cannot step it); VB_ENOMEM. */
int vb_friction_compile(const struct vb_island_model *m, vb_friction_model **out, char *err,
                        size_t errlen);
/* Free a model; NULL is a no-op. */
void vb_friction_model_free(vb_friction_model *fm);
/* Allocate the state of a model (NULL model: *out NULL, VB_OK); free with
 * vb_friction_state_free (NULL is a no-op). */
int vb_friction_state_alloc(const vb_friction_model *fm, vb_friction_state **out);
void vb_friction_state_free(vb_friction_state *fs);
/* Copy src into dst, both of model fm. */
void vb_friction_state_copy(const vb_friction_model *fm, vb_friction_state *dst,
                            const vb_friction_state *src);
/* The state at t = 0 (vb_island_start, before vb_island_energy adds its
 * energy to the island's). */
void vb_friction_start(const struct vb_island_model *m, struct vb_island_state *s);
/* Step the tangential coordinates and friction from n to n + 1 once the
 * island's normal forces of the step are known (after its family's
 * step), and add their energy, dissipation and work to the island's.
 * VB_OK, or VB_ENOCONV when the friction solve of several coupled
 * contacts (the Gauss-Seidel, then the block solve where the laws are all
 * Coulomb's) did not converge (the last sweep's forces are kept, in the
 * cone; counted in sweeps_failed, which the run's status names). */
int vb_friction_step(const struct vb_island_model *m, struct vb_island_state *s, long n);
/* The steps whose friction solve did not converge so far (the run's
 * status tells them from Newton's: run.c). */
static inline long
vb_friction_failed_steps(const vb_friction_state *fs)
{
  return fs->sweeps_failed;
}
/* Add the coordinates' energy at n to *kin and *pot (vb_island_energy). */
void vb_friction_energy(const struct vb_island_model *m, const struct vb_island_state *s,
                        double *kin, double *pot);

/* Most contacts with friction in an island for which the compile forms
 * the whole tangential compliance Kt (nfc^2 entries, nfc^2 nt products);
 * above it, the distributed solve forms the touching points' block at
 * each step (friction_dist.c). */
#define VB_FRICTION_KT_DENSE 256

/* Friction on a distributed contact (friction_dist.c).  Whether contact i
 * is skipped this step: a point of a distributed contact with no normal
 * force (apart), whose friction is 0. */
static inline int
vb_friction_skips(const vb_friction_model *fm, const vb_friction_state *fs, int i)
{
  return fm->sparse && fm->sparse[i] && fs->normal[i] == 0.0;
}
/* Mark the points of distributed contacts (after vb_friction_compile's
 * contacts); VB_OK or VB_ENOMEM.  Freed by vb_friction_dist_model_free. */
int vb_friction_dist_compile(const struct vb_island_model *m, vb_friction_model *fm);
void vb_friction_dist_model_free(vb_friction_model *fm);
/* The compact problem's scratch of a state (NULL without distributed
 * points); free with vb_friction_dist_free (NULL is a no-op). */
int vb_friction_dist_alloc(const vb_friction_model *fm, vb_friction_state *fs);
void vb_friction_dist_free(vb_friction_state *fs);
struct vb_fproblem;
/* Solve a step's friction of an island with distributed points: the
 * apart ones told so (ft 0), the touching ones and the point contacts by
 * vb_friction_solve on their compact problem.  As vb_friction_solve. */
int vb_friction_dist_solve(const vb_friction_model *fm, vb_friction_state *fs,
                           const struct vb_fproblem *p);
/* The per-mode loops of an island with distributed points (friction_dist.c:
 * 4-lane vectors, a fixed order): free increments dfree = cq w + cb vw,
 * the move to n+1 (w += d, vw = 2 d / h - vw), the energy sums, a row's
 * dot product and d += t f. */
void vb_fdist_free(int n, const double *cq, const double *cb, const double *w, const double *vw,
                   double *dfree);
void vb_fdist_move(int n, const double *d, double *w, double *vw, double h);
void vb_fdist_energy(int n, const double *mass, const double *w2, const double *w,
                     const double *vw, double *kin, double *pot);
double vb_fdist_dot(int n, const double *t, const double *d);
void vb_fdist_axpy(int n, const double *t, double f, double *d);
/* vb_fdist_energy's sums (for the modes from nmw on) and the next step's
 * free increments vb_fdist_free in one pass. */
void vb_fdist_energy_free(int n, const double *mass, const double *w2, const double *cq,
                          const double *cb, const double *w, const double *vw, double *dfree,
                          double *kin, double *pot);
/* The dampers' work sum 2 m sig d^2 / h and vb_fdist_move in one pass;
 * returns the sum. */
double vb_fdist_damp_move(int n, const double *mass, const double *sig, const double *d,
                          double *w, double *vw, double h);
/* The step's pass over the modes along w after the friction solve, when
 * every touching point's row spans them all (friction.c): the points'
 * forces d += tc_k f_k in contact order (t_add_force), the dampers' work
 * and the move (vb_fdist_damp_move), each point's slip T_k . d
 * (vb_fdist_dot), the first sticking point's node slip tv . vw^(n+1)
 * (the catch's first reading of the rates) and, with energy set (no point
 * sticks: the catch moves nothing), the energy at n+1 and the next free
 * increments into d (vb_fdist_energy_free); else d keeps the increments.
 * Each element and each sum as those kernels one after the other form
 * them. */
#define VB_FDIST_FUSE 16
typedef struct vb_fdist_pass {
  int n, nf;                   /* modes along w; touching rows (<= VB_FDIST_FUSE) */
  const double *tc[VB_FDIST_FUSE], *t[VB_FDIST_FUSE]; /* each row's cc T and T */
  double f[VB_FDIST_FUSE];     /* its force of the step, N */
  double dy[VB_FDIST_FUSE];    /* out: its T . d after the forces, m */
  const double *tv;            /* a row for tv . vw^(n+1), or NULL */
  double sv;                   /* out: that dot, m/s */
  const double *mass, *sig, *w2, *cq, *cb;
  const double *msig, *hm, *hmw2; /* the model's products (the 8-blocks' terms) */
  double *d, *w, *vw;          /* from the first mode along w */
  double h;
  int energy;
  double diss, kin, pot;       /* out: the dampers' work sum; the energy sums */
} vb_fdist_pass;
void vb_fdist_pass_run(vb_fdist_pass *p);
/* The catch's impulse v += tm P (vb_fdist_axpy) with, in the same pass,
 * the dot t . v of the result (returned), or the energy and next free
 * increments of vb_fdist_energy_free; the same bits as the kernels one
 * after the other. */
double vb_fdist_axpy_dot(int n, const double *tm, double P, double *v, const double *t);
void vb_fdist_imp_energy_free(int n, const double *tm, double P, const double *mass,
                              const double *w2, const double *cq, const double *cb,
                              const double *w, double *vw, double *dfree, double *kin,
                              double *pot);

/* The Lyapunov twin along w (lib/run/lyapunov.c, doc/analysis.md): the
 * squared norm of state b's separation from a over the tangential
 * coordinates, each w (a mass's, a mode's, m) and its rate over omega
 * (m/s over rad/s), a spin's rate times its lever (the radius, m) over
 * omega (its angle moves nothing), and each elasto-plastic bristle's
 * deflection (m); with b NULL, of a itself. */
double vb_friction_separation2(const vb_friction_model *fm, const vb_friction_state *b,
                               const vb_friction_state *a, double omega);
/* b = a + r (b - a) on the coordinates, their rates and the bristles'
 * states; the stick flags and running sums stay b's. */
void vb_friction_state_blend(const vb_friction_model *fm, vb_friction_state *b,
                             const vb_friction_state *a, double r);
/* The lever that turns coordinate j's rate into a speed at a contact: 1
 * for a w (m/s already), a spin's radius (m: that of the first contact
 * with friction it turns, 1 when none). */
double vb_friction_lever(const vb_friction_model *fm, int j);
/* Displace the coordinates by dw[nt] and their rates by dvw[nt]. */
void vb_friction_state_displace(const vb_friction_model *fm, vb_friction_state *s,
                                const double *dw, const double *dvw);

#endif
