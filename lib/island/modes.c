/* modes.c - the scheme families' modal coefficients: each family's
 * `mode` hook (the row of vb_family_ops in step.c) compiles a mode into the
 * coefficients of its update (model.c explains the families' updates), and
 * the exact free response of a mode starts the three-level family's
 * q^(-1) and the two-level family's velocity. */
#include <complex.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "island.h"

/* Exact free response of one mode from (q0, dq0) under constant
 * acceleration g, at time t (used for q at t = -dt). */
double
vb_free_response(double w0, double sig, double q0, double dq0, double g, double t)
{
  if (w0 == 0.0) {
    if (sig == 0.0)
      return q0 + dq0 * t + 0.5 * g * t * t;
    double k = 2.0 * sig, vinf = g / k;
    return q0 + vinf * t + (dq0 - vinf) * (-expm1(-k * t)) / k;
  }
  double qe = g / (w0 * w0), a = q0 - qe;
  double complex r = csqrt((double complex)(sig * sig - w0 * w0));
  double complex s1 = -sig + r, s2 = -sig - r;
  if (cabs(s1 - s2) < 1e-9 * w0) {
    double s = -sig;
    return qe + (a + (dq0 - s * a) * t) * exp(s * t);
  }
  double complex c1 = (dq0 - s2 * a) / (s1 - s2), c2 = a - c1;
  return qe + creal(c1 * cexp(s1 * t) + c2 * cexp(s2 * t));
}


/* Bilinear pre-warping: the continuous (omega'^2, sigma') whose trapezoidal
 * discretisation has the exact poles exp(s dt) of (omega, sigma). */
static void
warp_bilinear(double w0, double sig, double h, double *w2p, double *sigp)
{
  double disc = sig * sig - w0 * w0;
  if (w0 == 0.0 && sig == 0.0) {
    *w2p = 0.0;
    *sigp = 0.0;
  } else if (disc < 0.0) {
    double complex s = -sig + I * sqrt(-disc);
    double complex sp = (2.0 / h) * ctanh(s * h / 2.0);
    *sigp = -creal(sp);
    *w2p = creal(sp) * creal(sp) + cimag(sp) * cimag(sp);
  } else {
    double r = sqrt(disc);
    double p1 = (2.0 / h) * tanh((-sig + r) * h / 2.0);
    double p2 = (2.0 / h) * tanh((-sig - r) * h / 2.0);
    *sigp = -0.5 * (p1 + p2);
    *w2p = p1 * p2;
  }
}

/* Exact centred recursion: a1 = z1 + z2, a2 = z1 z2 for z = exp(s dt), and
 * g = 1 + a2 - a1 computed without cancellation. */
static void
exact_centred(double w0, double sig, double h, double *a1, double *a2, double *g)
{
  double disc = sig * sig - w0 * w0;
  if (disc < 0.0) {
    double wd = sqrt(-disc), e = exp(-sig * h), one_e = -expm1(-sig * h);
    double sn = sin(0.5 * wd * h);
    *a1 = 2.0 * e * cos(wd * h);
    *a2 = e * e;
    *g = one_e * one_e + 4.0 * e * sn * sn;
  } else {
    double r = sqrt(disc);
    double s1 = -sig + r, s2 = -sig - r;
    *a1 = exp(s1 * h) + exp(s2 * h);
    *a2 = exp((s1 + s2) * h);
    *g = expm1(s1 * h) * expm1(s2 * h);
  }
}

/* Two-level mode: the trapezoidal rule with pre-warped omega and sigma
 * (model.c's header; Papetti eq 20, Chatziioannou eq 8a). */
int
vb_mode_two_level(const vb_mode_in *in, vb_mode_coef *o, char *why, size_t len)
{
  (void)why;
  (void)len;
  double h = in->dt, w2p, sgp;
  warp_bilinear(2.0 * M_PI * in->freq, in->sigma, h, &w2p, &sgp);
  double D = 2.0 / h + 2.0 * sgp + 0.5 * h * w2p;
  *o = (vb_mode_coef){
      .w2 = w2p,
      .sig = sgp,
      .ca = (2.0 / h + 2.0 * sgp - 0.5 * h * w2p) / D,
      .cb = 2.0 / D,
      .cc = h / (D * in->mass),
      .dcoef = 2.0 * in->mass * sgp * h,
      .mw2 = in->mass * w2p,
  };
  return VB_OK;
}

/* Three-level mode: the exact centred recursion (model.c's header;
 * Chatziioannou eq 7, Ducceschi eq 23); refused without a positive
 * discrete energy (Omega^2 dt^2 < 4). */
int
vb_mode_three_level(const vb_mode_in *in, vb_mode_coef *o, char *why, size_t len)
{
  double h = in->dt, a1, a2, g;
  exact_centred(2.0 * M_PI * in->freq, in->sigma, h, &a1, &a2, &g);
  o->ca = a1;
  o->cb = a2;
  o->w2 = 2.0 * g / ((1.0 + a2) * h * h);
  o->sig = (1.0 - a2) / ((1.0 + a2) * h);
  o->cc = 0.5 * h * h * (1.0 + a2) / in->mass;
  o->dcoef = 0.5 * in->mass * o->sig / h;
  o->mw2 = in->mass * o->w2;
  if (o->w2 * h * h >= 4.0)
    return vb_errf(why, len, VB_EINVAL,
                   " (%g Hz, sigma %g) has no positive discrete energy at fs %g for a "
                   "three-level scheme (valid: raise scene.fs or use a two-level scheme)",
                   in->freq, in->sigma, in->fs);
  return VB_OK;
}

/* Explicit mode: the continuous omega and sigma, within the scheme's
 * stability limit. */
int
vb_mode_explicit(const vb_mode_in *in, vb_mode_coef *o, char *why, size_t len)
{
  double w0 = 2.0 * M_PI * in->freq, h = in->dt, lim = in->scheme->stability_limit;
  *o = (vb_mode_coef){.w2 = w0 * w0, .sig = in->sigma};
  if (w0 * h > lim) {
    char wh[32];
    /* the fewest digits (3 or more) that show omega dt above the limit */
    for (int p = 3; p <= 17; p++)
      if (snprintf(wh, sizeof wh, "%.*g", p, w0 * h) > 0 && strtod(wh, NULL) > lim)
        break;
    return vb_errf(why, len, VB_EINVAL,
                   " at %g Hz is beyond the stability limit of scheme '%s' (omega dt = %s > "
                   "%g; valid: raise scene.fs above %.6g Hz or use a two-level or three-level "
                   "scheme)",
                   in->freq, in->scheme->name, wh, lim, w0 / lim);
  }
  return VB_OK;
}

/* Two-level start: the trapezoidal velocity that makes the discrete free
 * response the exact one (q at dt exact); a free mass keeps v0. */
double
vb_start_two_level(const vb_island_model *m, int j, double w0, double sig, double q0, double v0,
                double g)
{
  if (w0 == 0.0 && sig == 0.0)
    return v0;
  double q1 = vb_free_response(w0, sig, q0, v0, g / m->mass[j], m->dt);
  return (q1 - m->ca[j] * q0 - m->cc[j] * g) / m->cb[j];
}
