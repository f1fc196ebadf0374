/* kernels.h - the per-mode loops of the implicit families (lib/island/kernels.c).
 * Every array is padded to a multiple of 8 modes (nmp) with inert zeros. */
#ifndef VIBRO_KERNELS_H
#define VIBRO_KERNELS_H

/* Prediction qt = ca q + cb w + cc g over nmp modes; returns row . qt (0
 * when row is NULL). */
double vb_kernel_predict(int nmp, const double *q, const double *w, const double *ca,
                         const double *cb, const double *cc, const double *g, double *qt,
                         const double *row);
/* |a - b|^2 over the modes [from, to), both multiples of 8. */
double vb_kernel_dist2(int from, int to, const double *a, const double *b);
/* a . b over the modes [from, to), both multiples of 8. */
double vb_kernel_dot(int from, int to, const double *a, const double *b);
/* out[r] = S_r . b for the nrows rows of S (stride nmp, m per modal m),
 * each bit for bit as vb_kernel_dot(0, nmp, S_r, b), four rows per pass. */
void vb_kernel_dots(int nmp, int nrows, const double *S, const double *b, double *out);
/* a . b into *ab and a . c into *ac in one pass over [from, to). */
void vb_kernel_dot2(int from, int to, const double *a, const double *b, const double *c, double *ab,
                    double *ac);
/* qt -= cc row f: contact force f (N) along the compression row. */
void vb_kernel_force(int nmp, double *qt, const double *cc, const double *row, double f);
/* Two-level mode update from the prediction qt and one more contact force
 * f0 (N) along row0: q1, v1 = 2 (q1 - q)/h - v; into out[0..3] the step's
 * dissipation and external work (J) and twice the kinetic and potential
 * energy (J).  With `ahead` it also writes the next step's prediction
 * into qt (for a constant generalised force gen) and its dot with rowp
 * into out[4]; has_gen = 0 skips the gen terms (all zero). */
void vb_kernel_update2(int nmp, double h, double *qt, const double *cc, const double *row0,
                       double f0, double *q, double *v, const double *mass, const double *dcoef,
                       const double *mw2, const double *gen, int ahead, int has_gen,
                       const double *ca, const double *cb, const double *rowp, double out[5]);
/* Three-level mode update: q1 from qt and f0 along row0, then qm = q,
 * q = q1; sums as vb_kernel_update2 (the energy of the step into n+1). */
void vb_kernel_update3(int nmp, double h, double *qt, const double *cc, const double *row0,
                       double f0, double *q, double *qm, const double *mass, const double *dcoef,
                       const double *mw2, const double *gen, int ahead, const double *ca,
                       const double *cb, const double *rowp, double out[5]);
/* Two-level update of an island without contacts in increments
 * d = (ca - 1) q + cb v + cc gen: v1 = 2 d/h - v, q1 = q + d; into
 * out[0..3] the step's dissipation and external work (J) and twice the
 * kinetic and potential energy (J). */
void vb_kernel_free2(int nmp, double h, double *q, double *v, const double *ca, const double *cb,
                     const double *cc, const double *gen, const double *mass, const double *dcoef,
                     const double *mw2, double out[4]);

#endif
