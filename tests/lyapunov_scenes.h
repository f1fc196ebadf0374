/* lyapunov_scenes.h - the scenes check_lyapunov.c runs, as text (a
 * driven linear oscillator and its analytic bound, a rattling mass, the
 * impact oscillator of scenes/, a string driven against a bar), split
 * from it to keep it under the project's 800 lines. */
#ifndef VIBRO_LYAPUNOV_SCENES_H
#define VIBRO_LYAPUNOV_SCENES_H

#include <math.h>
#include <stdio.h>
#include <string.h>
#include "testutil.h"
#include "scheme.h"

/* The contact law text for `scheme`: the given force law, or a rigid one
 * (Newton's restitution e) for a scheme of the nonsmooth family, which
 * steps the rigid law alone. */
static const char *
law_for(const char *scheme, const char *force_law, const char *rigid_law)
{
  const vb_scheme *s = vb_scheme_lookup(scheme);
  return s && vb_family_info_of(s->family)->impulse ? rigid_law : force_law;
}

/* A linear oscillator (mass m, natural frequency f0, damping ratio zeta)
 * with a stop it never reaches (gap 1 m, stepped by `scheme`), driven by a
 * harmonic force of frequency fd (0: undriven, started at u0 = 2.1 mm). */
static char *
oscillator(double m, double f0, double zeta, double fd, const char *scheme, double fs,
           double duration)
{
  text t = {0};
  double w0 = 2.0 * M_PI * f0;
  add(&t, "scene = { name = \"osc\"; fs = %.17g; duration = %.17g; gravity = 0.0; };\n", fs,
      duration);
  add(&t,
      "bodies = ( { name = \"mass\"; type = \"mass\"; mass = %.17g; k = %.17g; c = %.17g; "
      "u0 = %.17g; },\n  { name = \"stop\"; type = \"wall\"; position = 0.0; } );\n",
      m, m * w0 * w0, 2.0 * zeta * m * w0, fd > 0.0 ? 0.0 : 2.1e-3);
  add(&t,
      "contacts = ( { name = \"far\"; between = [\"mass\", \"stop\"]; %s "
      "gap = 1.0; scheme = \"%s\"; } );\n",
      law_for(scheme, "law = \"power\"; k = 3.1e6; alpha = 1.5;", "law = \"rigid\"; e = 0.7;"),
      scheme);
  if (fd > 0.0)
    add(&t,
        "forces = ( { name = \"drive\"; at = \"mass\"; type = \"harmonic\"; amplitude = %.17g; "
        "freq = %.17g; } );\n",
        0.0137 * m * w0 * w0, fd);
  return t.s;
}

/* The bound on |lambda + zeta w0| over a measured time t_meas for the
 * linear oscillator in the norm q^2 + (v / Omega)^2: the separation is
 * A e^(-sigma t) times a vector turning on the damped ellipse, whose norm
 * squared over A^2 e^(-2 sigma t) stays between the eigenvalues mu_min,
 * mu_max of the quadratic form below, so that ln d is -sigma t plus at
 * most ln(mu_max / mu_min) / 2 either way. */
static double
linear_bound(double f0, double zeta, double omega, double t_meas)
{
  double w0 = 2.0 * M_PI * f0, sig = zeta * w0, wd = w0 * sqrt(1.0 - zeta * zeta);
  /* q = cos(phi), v = -(sig cos(phi) + wd sin(phi)) over (cos, sin) */
  double a = 1.0 + sig * sig / (omega * omega), b = sig * wd / (omega * omega),
         c = wd * wd / (omega * omega);
  double tr = a + c, det = a * c - b * b, disc = sqrt(0.25 * tr * tr - det);
  double mu_max = 0.5 * tr + disc, mu_min = 0.5 * tr - disc;
  return 0.5 * log(mu_max / mu_min) / t_meas;
}

/* A mass between two stops it hits, driven (every contact engaged over a
 * run), stepped by `scheme`: to test copies mid-run with live contacts. */
static char *
rattle(const char *scheme)
{
  text t = {0};
  add(&t, "scene = { name = \"rattle\"; fs = 44100.0; duration = 0.3; gravity = 0.0; };\n");
  add(&t, "bodies = ( { name = \"mass\"; type = \"mass\"; mass = 0.0237; k = 2385.0; c = 0.031; "
          "v0 = 0.173; },\n"
          "  { name = \"lo\"; type = \"wall\"; position = 0.0; },\n"
          "  { name = \"hi\"; type = \"wall\"; position = 0.0; } );\n");
  add(&t,
      "contacts = ( { name = \"down\"; between = [\"lo\", \"mass\"]; %s "
      "gap = 1.3e-3; scheme = \"%s\"; },\n"
      "  { name = \"up\"; between = [\"mass\", \"hi\"]; %s "
      "gap = 0.9e-3; scheme = \"%s\"; } );\n",
      law_for(scheme, "law = \"power\"; k = 3.7e6; alpha = 1.5;", "law = \"rigid\"; e = 0.3;"),
      scheme,
      law_for(scheme, "law = \"power\"; k = 2.9e6; alpha = 1.3;", "law = \"rigid\"; e = 0.3;"),
      scheme);
  add(&t, "forces = ( { name = \"drive\"; at = \"mass\"; type = \"harmonic\"; amplitude = 1.93; "
          "freq = 47.3; } );\n");
  return t.s;
}

/* scenes/impact-oscillator.cfg (its sweep dropped) at forcing frequency
 * freq, stepped at 80 kHz: at the file's 20 kHz the discrete system is
 * itself sensitive at 25 Hz (v_in wanders by 0.3 % without settling, and
 * two runs 1e-9 m apart at the start part by 2e-5 m: doc/analysis.md),
 * at 80 kHz it settles on the orbits the file's comment names. */
static char *
impact_oscillator(double freq)
{
  char *t = tu_read("scenes/impact-oscillator.cfg");
  *strstr(t, "sweep = {") = '\0';
  char fr[64];
  snprintf(fr, sizeof fr, "freq = %.17g", freq);
  tu_replace(&t, "freq = 25.0", fr);
  tu_replace(&t, "fs = 20000.0", "fs = 80000.0");
  return t;
}

/* A string driven at its fundamental against a bar of 32 contact points
 * (a distributed contact: one island that skips the contacts that cannot
 * close, lib/island/sparse.c), with amplitude `amp` N. */
static char *
string_on_bar(double amp)
{
  text t = {0};
  add(&t,
      "scene = { name = \"string-on-bar\"; fs = 44100.0; duration = 1.0; gravity = 0.0; };\n"
      "bodies = ( { name = \"bar\"; type = \"wall\"; },\n"
      "  { name = \"string\"; type = \"modal\"; zeta = 0.002;\n"
      "    preset = { kind = \"string\"; nmodes = 24; length = 1; tension = 40;"
      " linear_density = 0.001; };\n"
      "    points = ( { name = \"drive\"; x = 0.37; } ); } );\n"
      "contacts = ( { name = \"bar\"; between = [\"string\", \"bar\"]; law = \"power\";"
      " k = 1e8; alpha = 1.5; scheme = \"two-point\";\n"
      "  points = { from = 0.6; to = 0.9; n = 32; }; profile = { height = 2e-4; }; } );\n"
      "forces = ( { name = \"drive\"; at = \"string.drive\"; type = \"harmonic\";"
      " amplitude = %.17g; freq = 100.0; } );\n"
      /* no contact signal: a recorded contact is stepped at every step */
      "record = { signals = [\"bodies/*\"]; };\n",
      amp);
  return t.s;
}

#endif
