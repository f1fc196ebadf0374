/* cmd_check.c - vibro check: validate a scene file and print what to
 * expect of it. */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "vibro.h"
#include "cli.h"

/* Where the check is printed: stdout, or a block's buffer while
 * print_alike compares it with the one before. */
static FILE *out;

static const char description[] =
    "Validate SCENE.cfg (every scene of a study) and print, for a study, the\n"
    "number of scenes and the head of the parameter table; then, for the\n"
    "(first) scene and per contact, its scheme, the analytic\n"
    "x_max, v_out and contact time for the initial approach velocity, the\n"
    "contact time in samples, and a warning where the sample rate is too low\n"
    "for the scheme (Papetti 3.3.2, Chatziioannou 2.1) or the scene ends before\n"
    "the predicted contact is over (its v_out would be NaN), or a contact starts\n"
    "inside its barrier storing more energy than the scene's kinetic energy.\n"
    "The contact time is eq 9's for a point mass: exact between free masses\n"
    "and walls, \"about\" (an estimate, not a bound) on a modal body or a\n"
    "spring.  vibro run prints the same warnings.  Then the study's\n"
    "totals: steps, the recording's bytes (with a warning when they exceed the\n"
    "free space of the current directory's file system, where vibro run would\n"
    "refuse them, or one scene's exceed this machine's memory) and the CPU time\n"
    "it will take, from a timed run of the first steps of scene 0, and the\n"
    "events (not in the recording's bytes): that run's impacts, extrapolated\n"
    "to every step of every scene.\n";

/* The size of a study and the head of its parameter table. */
static void
print_study(const vb_study *st)
{
  long n = vb_study_scenes(st), head = n < 8 ? n : 8;
  int np = vb_study_nparams(st);
  fprintf(out, "study: %ld scenes, mode %s, %d parameter%s\n", n, vb_study_mode(st), np,
         np == 1 ? "" : "s");
  fprintf(out, "  %8s", "scene");
  for (int p = 0; p < np; p++)
    fprintf(out, "  %16s", vb_study_param(st, p));
  fprintf(out, "\n");
  for (long i = 0; i < head; i++) {
    fprintf(out, "  %8ld", i);
    for (int p = 0; p < np; p++)
      fprintf(out, "  %16.10g", vb_study_value(st, i, p));
    fprintf(out, "\n");
  }
  if (head < n)
    fprintf(out, "  ... %ld more\n", n - head);
  fprintf(out, "scene 0 of the study:\n");
}

/* The steps of a whole study: those of the scenes its load validated (all,
 * or those that stand for a huge sweep), scaled to its size. */
static double
study_steps(const vb_study *st)
{
  const long *idx;
  long n = vb_study_checked(st, &idx);
  double sum = (double)vb_scene_steps(vb_study_first(st));
  char err[CLI_ERRLEN];

  for (long k = 1; k < n; k++) {
    vb_scene *sc;
    if (vb_study_scene(st, idx ? idx[k] : k, &sc, err, sizeof err) != VB_OK)
      continue;
    sum += (double)vb_scene_steps(sc);
    vb_scene_free(sc);
  }
  return sum / (double)(n > 0 ? n : 1) * (double)vb_study_scenes(st);
}

/* The bodies of a scene, a line each. */
static void
print_body(const vb_scene *sc, int i)
{
  {
    const vb_body *b = &sc->bodies[i];
    /* the type when it is not the kind's own word: "oscillator, mass ..." */
    const char *own = b->kind == VB_BODY_MODAL ? "modal" : "mass";
    const char *type = b->type && strcmp(b->type, own) != 0 ? b->type : "";
    if (b->kind == VB_BODY_MASS && b->k > 0.0)
      fprintf(out, "body '%s': %s%smass %g kg, u0 %g m, v0 %g m/s, on a spring to ground (%g Hz, "
             "zeta %g)\n",
             b->name, type, *type ? ", " : "", b->mass, b->u0, b->v0, b->freq[0],
             b->sigma[0] / (2.0 * M_PI * b->freq[0]));
    else if (b->kind == VB_BODY_MASS)
      fprintf(out, "body '%s': %s%smass %g kg, u0 %g m, v0 %g m/s%s\n", b->name, type, *type ? ", " : "",
             b->mass, b->u0, b->v0, b->c > 0.0 ? ", on a damper to ground" : "");
    else if (b->kind == VB_BODY_MODAL && b->nmodes > 0)
      fprintf(out, "body '%s': %s%smodal, %d modes (%g .. %g Hz), %d points\n", b->name, type,
             *type ? ", " : "", b->nmodes, b->freq[0], b->freq[b->nmodes - 1], b->npoints);
    else if (b->kind == VB_BODY_MODAL)
      fprintf(out, "body '%s': %s%smodal, no modes along u, %d points\n", b->name, type,
             *type ? ", " : "", b->npoints);
    else
      fprintf(out, "body '%s': wall at %g m%s\n", b->name, b->u0,
             b->drive.kind == VB_DRIVE_NONE ? "" : ", driven");
    /* the tangential direction (issue 30) */
    if (b->kind == VB_BODY_MASS && b->has_w)
      fprintf(out, "  along w: w0 %g m, vw0 %g m/s, kw %g N/m, cw %g N s/m\n", b->w0, b->vw0, b->kw,
             b->cw);
    if (b->kind == VB_BODY_MODAL && b->nwmodes > 0)
      fprintf(out, "  along w: %d modes (%g .. %g Hz)\n", b->nwmodes, b->wfreq[0],
             b->wfreq[b->nwmodes - 1]);
    if (b->kind == VB_BODY_MASS && b->has_spin)
      fprintf(out, "  spin: radius %g m, inertia %g kg m^2 (%.4g m r^2), spin0 %g rad/s\n", b->radius,
             b->inertia, b->inertia / (b->mass * b->radius * b->radius), b->spin0);
    if (b->kind == VB_BODY_WALL && b->w_drive.kind == VB_DRIVE_VELOCITY)
      fprintf(out, "  along w: moving at %g m/s from %g m\n", b->w_drive.speed, b->w_drive.start);
    else if (b->kind == VB_BODY_WALL && b->w_drive.kind != VB_DRIVE_NONE)
      fprintf(out, "  along w: driven\n");
  }
}

/* The law's parameters of a contact, from the law table:
 * ", k 1e+09 N/m^alpha, alpha 1.5, mu 0.5 s/m". */
static void
print_law(const vb_contact *ct)
{
  const vb_law_info *info = vb_law_info_of(ct->law.kind);

  if (!info)
    return;
  for (const vb_law_param *p = info->params; p && p->key; p++)
    fprintf(out, ", %s %g%s%s", p->key, vb_law_param_value(&ct->law, p),
           strcmp(p->units, "1") == 0 ? "" : " ", strcmp(p->units, "1") == 0 ? "" : p->units);
  if (info->alpha > 0.0 && !vb_law_param_of(ct->law.kind, "alpha"))
    fprintf(out, ", alpha %g (fixed)", info->alpha);
}

/* A friction curve's figures (issue 30, step 3): the slip rate a wall's w
 * velocity drive gives (a belt, a bow: the other body at rest), the
 * curve's coefficient there, and for a curve with a velocity scale (v_s,
 * v0) how many samples the slip takes to cross it at the curve's full
 * imbalance (mu_s - mu_k) N / m (N prescribed, or the weight m g of a mass
 * on a one-sided contact under gravity; m the mass along w). */
static void
print_curve(const vb_scene *sc, const vb_contact *ct, const vb_friction_info *fi)
{
  const vb_body *a = &sc->bodies[ct->a], *b = &sc->bodies[ct->b];
  const vb_body *wall = a->kind == VB_BODY_WALL ? a : b->kind == VB_BODY_WALL ? b : NULL;
  const vb_body *mass = wall == a ? b : a;
  double v = wall && wall->w_drive.kind == VB_DRIVE_VELOCITY ? fabs(wall->w_drive.speed) : 0.0;
  const vb_friction *law = &ct->friction;
  double n = -1.0;

  if (v > 0.0)
    fprintf(out, "  at the slip rate %g m/s of wall '%s' (the body held): coefficient %.6g\n", v,
           wall->name, fi->curve(law, v));
  if (ct->friction.kind == VB_FRICTION_COULOMB || mass->kind != VB_BODY_MASS)
    return;
  if (ct->normal_given)
    n = ct->normal_force;
  else if (sc->gravity > 0.0 && !vb_law_info_of(ct->law.kind)->two_sided)
    n = mass->mass * sc->gravity;
  if (!(n > 0.0) || !(law->mu_s > law->mu_k))
    return;
  double samples = law->v_s * mass->mass / ((law->mu_s - law->mu_k) * n) * sc->fs;
  fprintf(out, "  %s %g m/s: the slip crosses it in %.3g samples at (mu_s - mu_k) N / m (N %g N%s)\n",
         ct->friction.kind == VB_FRICTION_BOW ? "v0" : "v_s", law->v_s, samples, n,
         ct->normal_given ? ", prescribed" : " = m g");
  if (v > 0.0)
    fprintf(out, "  the slip rate is %.3g times %s\n", v / law->v_s,
           ct->friction.kind == VB_FRICTION_BOW ? "v0" : "v_s");
  if (samples < 4.0)
    fprintf(out, "  note: the curve's fall is crossed in fewer than 4 samples: raise fs to "
           "resolve it\n");
  /* the elasto-plastic bristle (issue 30, step 4): its steady deflection
   * z_ss = curve / sigma0 is the slip length over which it relaxes; a step
   * whose slip covers more leaves the midpoint rule's relaxation
   * unresolved (it stays stable, and oscillates about z_ss) */
  if (fi->deflection && law->sigma0 > 0.0) {
    double z0 = law->mu_s / law->sigma0, z1 = law->mu_k / law->sigma0;
    fprintf(out, "  bristle: z_ss %.4g m at rest (mu_s / sigma0) to %.4g m sliding (mu_k / sigma0), "
           "breakaway at %g of it; presliding stiffness sigma0 N = %.4g N/m, period against "
           "the mass %.3g samples\n",
           z0, z1, law->z_ba, law->sigma0 * n, 2.0 * M_PI * sqrt(mass->mass / (law->sigma0 * n)) * sc->fs);
    if (v > 0.0) {
      double zv = (fi->curve(law, v) - law->sigma2 * v) / law->sigma0, per = zv / (v / sc->fs);
      fprintf(out, "  at the slip rate %g m/s a step slips %.3g m: z_ss %.3g m spans %.3g steps\n", v,
             v / sc->fs, zv, per);
      if (per < 1.0)
        fprintf(out, "  note: the bristle relaxes within a step at that slip rate: raise fs to "
               "resolve it\n");
    }
  }
}

/* Whether the static coefficient holds what the scene loads the contact
 * with (issue 30 item 6), for a contact with an exact stick (coulomb,
 * stribeck, bow) between a wall and a mass with a w coordinate and a
 * spring along it, the mass on no other contact, under a steady normal
 * force (prescribed, or the weight m g on a one-sided law under gravity):
 * - a wall at rest (a held block): the load is the spring's force at the
 *   start, |kw w0 + cw vw0|, against mu_s N;
 * - a belt (the wall's w moving at v) with the mass riding it: the stick
 *   carries it to w_b = (sgn(v) mu_s N - cw v) / kw, where the spring's
 *   pull reaches mu_s N, reached after (w_b - w0) / v: the largest stick
 *   excursion; for coulomb with cw = 0 each slip then lasts the closed
 *   form (pi + 2 atan(v / (omega d))) / omega, omega = sqrt(kw / m), d =
 *   (mu_s - mu_k) N / kw, and each stick after it 2 d / |v| (doc/
 *   friction.md's belt; J.P. Den Hartog, "Mechanical Vibrations", 1934,
 *   the stick-slip oscillator). */
static void
print_hold(const vb_scene *sc, int c, const vb_friction_info *fi)
{
  const vb_contact *ct = &sc->contacts[c];
  const vb_body *a = &sc->bodies[ct->a], *b = &sc->bodies[ct->b];
  const vb_body *wall = a->kind == VB_BODY_WALL ? a : b->kind == VB_BODY_WALL ? b : NULL;
  const vb_body *mass = wall == a ? b : a;
  const vb_friction *law = &ct->friction;
  int mi = wall == a ? ct->b : ct->a, others = 0;
  double n = -1.0;

  if (ct->friction.kind != VB_FRICTION_COULOMB && ct->friction.kind != VB_FRICTION_STRIBECK &&
      ct->friction.kind != VB_FRICTION_BOW)
    return;
  if (wall == NULL || mass->kind != VB_BODY_MASS || !mass->has_w || mass->has_spin ||
      !(mass->kw > 0.0))
    return;
  for (int j = 0; j < sc->ncontacts; j++)
    others += j != c && (sc->contacts[j].a == mi || sc->contacts[j].b == mi);
  if (others > 0)
    return;
  if (ct->normal_given && ct->normal_drive.kind == VB_DRIVE_NONE)
    n = ct->normal_force;
  else if (!ct->normal_given && sc->gravity > 0.0 && !vb_law_info_of(ct->law.kind)->two_sided)
    n = mass->mass * sc->gravity;
  if (!(n > 0.0))
    return;
  double hold = fi->hold(law, n);
  const char *nwords = ct->normal_given ? "prescribed" : "m g";
  if (wall->w_drive.kind == VB_DRIVE_NONE) {
    double load = fabs(mass->kw * mass->w0 + mass->cw * mass->vw0);
    if (load <= hold)
      fprintf(out, "  static hold: mu_s N = %.6g N (N %g N, %s) holds the load %.6g N (the spring "
             "along w at w0 %g m)\n",
             hold, n, nwords, load, mass->w0);
    else
      fprintf(out, "  static hold: mu_s N = %.6g N (N %g N, %s) cannot hold the load %.6g N (the "
             "spring along w at w0 %g m): it slips at once\n",
             hold, n, nwords, load, mass->w0);
    return;
  }
  if (wall->w_drive.kind != VB_DRIVE_VELOCITY || wall->w_drive.speed == 0.0)
    return;
  double v = wall->w_drive.speed, sg = v > 0.0 ? 1.0 : -1.0;
  double load = fabs(mass->kw * mass->w0 + mass->cw * v);
  if (mass->vw0 != v) {
    fprintf(out, "  static hold: '%s' starts slipping on '%s' (vw0 %g m/s, the belt %g m/s)\n",
           mass->name, wall->name, mass->vw0, v);
    return;
  }
  if (load > hold) {
    fprintf(out, "  static hold: mu_s N = %.6g N (N %g N, %s) cannot hold the load %.6g N (the "
           "spring along w at w0 %g m): it slips at once\n",
           hold, n, nwords, load, mass->w0);
    return;
  }
  double wb = (sg * hold - mass->cw * v) / mass->kw, tb = (wb - mass->w0) / v;
  fprintf(out, "  static hold: mu_s N = %.6g N (N %g N, %s) holds the load %.6g N at w0; riding "
         "'%s' at %g m/s, the spring's pull reaches it at w %.6g m, the largest stick "
         "excursion, after %.6g s = %.0f samples: it breaks away there\n",
         hold, n, nwords, load, wall->name, v, wb, tb, tb * sc->fs);
  if (ct->friction.kind != VB_FRICTION_COULOMB || mass->cw != 0.0)
    return;
  double om = sqrt(mass->kw / mass->mass), d = (law->mu_s - law->mu_k) * n / mass->kw;
  if (!(d > 0.0)) {
    fprintf(out, "  slip: mu_k = mu_s, no stick-slip cycle to predict\n");
    return;
  }
  double slip = (M_PI + 2.0 * atan(fabs(v) / (om * d))) / om, stick = 2.0 * d / fabs(v);
  fprintf(out, "  slip phases: %.6g s = %.1f samples each (the closed form), the sticks between "
         "them %.6g s = %.1f samples: a period of %.6g s\n",
         slip, slip * sc->fs, stick, stick * sc->fs, slip + stick);
}

/* One contact: what it joins, its law and scheme, and what to expect of
 * its first impact (the warnings come after, from vb_study_warnings). */
static void
print_contact(const vb_scene *sc, int c, const vb_contact_start *st)
{
  double v_in = st->rate, m = st->meff;
  const vb_contact *ct = &sc->contacts[c];
  const vb_body *a = &sc->bodies[ct->a], *b = &sc->bodies[ct->b];
  double dt = 1.0 / sc->fs;

  fprintf(out, "contact '%s' between '%s%s%s' and '%s%s%s', law %s, scheme %s (%s)\n", ct->name, a->name,
         a->kind == VB_BODY_MODAL ? "." : "",
         a->kind == VB_BODY_MODAL ? a->points[ct->pa].name : "", b->name,
         b->kind == VB_BODY_MODAL ? "." : "",
         b->kind == VB_BODY_MODAL ? b->points[ct->pb].name : "",
         ct->normal_given ? "none" : vb_law_name(ct->law.kind), ct->scheme->name,
         ct->scheme->doc);
  fprintf(out, "  effective mass %g kg", m);
  if (ct->normal_given)
    fprintf(out, ", no normal law: normal force %g N prescribed%s (the normal direction carries no "
           "contact force)",
           ct->normal_force, ct->normal_drive.kind != VB_DRIVE_NONE ? " with a sine profile" : "");
  if (ct->normal_given && ct->normal_drive.kind == VB_DRIVE_SINE)
    fprintf(out, ", N(t) = %g + %g sin(2 pi %g t + %g) N", ct->normal_force,
           ct->normal_drive.amplitude, ct->normal_drive.freq, ct->normal_drive.phase);
  else
    print_law(ct);
  if (ct->corrections)
    fprintf(out, ", corrections%s%s (vout %s)", ct->corrections & VB_CORRECT_XMAX ? " xmax" : "",
           ct->corrections & VB_CORRECT_VOUT ? " vout" : "", ct->vout_exact ? "exact" : "approx");
  fprintf(out, "\n");
  /* its friction (issue 30), from the friction table */
  const vb_friction_info *fi = vb_friction_info_of(ct->friction.kind);
  if (fi) {
    fprintf(out, "  friction %s (%s)", fi->name, fi->doc);
    for (const vb_friction_param *p = fi->params; p->key; p++) {
      double x;
      memcpy(&x, (const char *)&ct->friction + p->offset, sizeof x);
      fprintf(out, ", %s %g%s%s", p->key, x, strcmp(p->units, "1") == 0 ? "" : " ",
             strcmp(p->units, "1") == 0 ? "" : p->units);
    }
    fprintf(out, "\n");
    print_curve(sc, ct, fi);
    print_hold(sc, c, fi);
  }
  if (ct->normal_given) {
    fprintf(out, "  no impact to predict: the contact has no normal law\n");
    return;
  }
  if (ct->ntrack > 0)
    /* issue 30, item 5 (doc/geometry.md): the point moves along a track */
    fprintf(out, "  moving contact point: %d track points from %g m to %g m, the point's shapes linear "
           "between them at %s (the effective mass and the prediction below "
           "are at the first point)\n",
           ct->ntrack, ct->track_at[0], ct->track_at[ct->ntrack - 1],
           ct->track_follow ? "start + the mass's w, pushed along w by the body's slope"
                            : "its drive's position");
  if (ct->geometry == VB_GEOMETRY_CIRCULAR) {
    /* issue 30, item 4 (doc/geometry.md): the radial gap |(u_b - u_a, w_b - w_a)| - c */
    fprintf(out, "  circular clearance %g m: gap |(u_b - u_a, w_b - w_a)| - %g, the force along the "
           "radial direction (the effective mass above is along u; no impact is predicted from "
           "the initial state)\n",
           ct->clearance, ct->clearance);
    return;
  }
  if (ct->exact_duration) {
    double w, limit, used;
    vb_contact_exact_duration_at(sc, c, m, &w, &limit, &used);
    fprintf(out, "  exact_duration: omega_c %.6g rad/s, contact time %.6g s = %.3g samples\n", w,
           M_PI / w, M_PI / w / dt);
  }
  const vb_law_info *info = vb_law_info_of(ct->law.kind);
  if (info && info->rigid) {
    /* Newton's impact (doc/rigid.md): an impulse, no penetration */
    if (v_in > 0.0)
      fprintf(out, "  at v_in %.6g m/s: Newton's impact, an impulse of %.6g N s within one step, "
             "v_out %.6g m/s, the loss %.6g J ((1 - e^2) of m v_in^2 / 2)\n",
             v_in, m * (1.0 + ct->law.e) * v_in, -ct->law.e * v_in,
             0.5 * m * (1.0 - ct->law.e * ct->law.e) * v_in * v_in);
    else
      fprintf(out, "  no impact follows from the initial state\n");
    return;
  }
  if (!info || !info->papetti) {
    fprintf(out, "  no analytic x_max/v_out/contact time: law '%s' %s\n", vb_law_name(ct->law.kind),
           info && info->always_engaged ? "is always engaged"
                                        : "is not Papetti's f = k x^a (1 + mu x') (eq 1)");
    return;
  }
  if (!(v_in > 0.0) && st->p0 > 0.0) {
    fprintf(out, "  starts engaged: penetration %.6g m at t = 0, rate %.6g m/s (an impact under way, "
           "no approach to predict from)\n", st->p0, st->v0);
    return;
  }
  if (!(v_in > 0.0)) {
    fprintf(out, "  no impact follows from the initial state\n");
    return;
  }
  vb_prediction pr;
  vb_law_predict(&ct->law, m, v_in, &pr);
  double samples = pr.duration / dt;
  fprintf(out, "  at v_in %.6g m/s: x_max %.6g m, v_out %.6g m/s (eq 7-8: %.6g), "
         "contact time %.6g s = %.3g samples\n",
         v_in, pr.x_max, pr.v_out_exact, pr.v_out, pr.duration, samples);
}

/* onset from a contact's initial state, s (as lib/study/check.c's onset_time). */
static double
onset_from(const vb_contact_start *s)
{
  return s->rate > 0.0 ? s->t_on : 0.0;
}

/* A distributed contact, the contacts c .. *end - 1 of one group, in two
 * lines: its points, the barrier's side and heights, its scheme, then its
 * law and the first contact free flight predicts among its points (s:
 * every contact's start, vb_scene_contact_states).  Its warnings come with
 * the others (vb_scene_warnings: one per block). */
static void
print_distributed(const vb_scene *sc, int c, const vb_contact_start *s, int *end)
{
  const vb_contact *c0 = &sc->contacts[c];
  int body_a = sc->bodies[c0->a].kind == VB_BODY_MODAL, e, first = -1;
  const vb_body *b = &sc->bodies[body_a ? c0->a : c0->b], *o = &sc->bodies[body_a ? c0->b : c0->a];
  double hmin = INFINITY, hmax = -INFINITY, xmin = INFINITY, xmax = -INFINITY, t_first = INFINITY;
  double pmax = 0.0;
  int engaged = 0;

  for (e = c; e < sc->ncontacts && strcmp(sc->contacts[e].group, c0->group) == 0; e++) {
    const vb_contact *ct = &sc->contacts[e];
    double h = body_a ? ct->gap : -ct->gap, x = b->points[body_a ? ct->pa : ct->pb].x;
    hmin = fmin(hmin, h);
    hmax = fmax(hmax, h);
    xmin = fmin(xmin, x);
    xmax = fmax(xmax, x);
    if (s[e].rate > 0.0 && onset_from(&s[e]) < t_first) {
      t_first = onset_from(&s[e]);
      first = e;
    }
    if (s[e].p0 > 0.0) {
      engaged++;
      pmax = fmax(pmax, s[e].p0);
    }
  }
  *end = e;
  fprintf(out, "contact '%s': distributed, %d points on '%s' (x %g .. %g m) against '%s' %s, heights "
         "%g .. %g m, scheme %s\n",
         c0->group, e - c, b->name, xmin, xmax, o->name, body_a ? "above" : "below", hmin, hmax,
         c0->scheme->name);
  fprintf(out, "  law %s", vb_law_name(c0->law.kind));
  print_law(c0);
  const vb_law_info *info = vb_law_info_of(c0->law.kind);
  if (first < 0 && isfinite(s[c].horizon) && s[c].horizon < sc->duration) {
    fprintf(out, "; no impact at any point in the first %.6g s of free flight (the search stopped "
           "there, at its cost cap)\n", s[c].horizon);
    return;
  }
  if (first < 0 && engaged > 0) {
    fprintf(out, "; %d of %d points start engaged (penetration up to %.6g m at t = 0: impacts under "
           "way, no approach to predict from)\n", engaged, e - c, pmax);
    return;
  }
  if (first < 0 || !info || !info->papetti) {
    fprintf(out, "; %s\n", first < 0 ? "no impact follows from the initial state at any point"
                               : "no analytic contact time for this law");
    return;
  }
  vb_prediction pr;
  vb_law_predict(&sc->contacts[first].law, s[first].meff, s[first].rate, &pr);
  fprintf(out, "; first contact at point %d (x %g m) at %.6g s, v_in %.6g m/s, effective mass %g kg, "
         "contact time (a point mass's, eq 9) %.6g s = %.3g samples\n",
         sc->contacts[first].group_point,
         b->points[body_a ? sc->contacts[first].pa : sc->contacts[first].pb].x, t_first,
         s[first].rate, s[first].meff, pr.duration, pr.duration * sc->fs);
  /* points pressed into the barrier from t = 0 act from the first step,
   * before the first contact above: a profile set too high says so here */
  if (engaged > 0)
    fprintf(out, "  %d of %d points start engaged (penetration up to %.6g m at t = 0)\n", engaged,
           e - c, pmax);
}

/* Seconds on a monotonic clock. */
static double
seconds(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Seconds step_cost runs scene 0 for at most (past the step under way). */
#define COST_BUDGET 0.25

/* The stop flag of step_cost's run and the timer that sets it. */
typedef struct cost_timer {
  volatile int stop; /* set after COST_BUDGET, or by the caller when done */
  volatile int done;
} cost_timer;

/* Set t->stop after COST_BUDGET seconds, sooner when t->done is set. */
static void *
cost_timer_main(void *arg)
{
  cost_timer *t = arg;
  struct timespec tick = {.tv_sec = 0, .tv_nsec = 5000000};

  for (double waited = 0.0; !t->done && waited < COST_BUDGET; waited += 0.005)
    nanosleep(&tick, NULL);
  t->stop = 1;
  return NULL;
}

/* CPU seconds a step of the study's scene 0 takes here, from a run of its
 * first steps (at most 2000, fewer for a large model) stopped after
 * COST_BUDGET seconds, or NaN.  A step's cost grows faster than the
 * model's size (a dense compliance, Newton over the active contacts): a
 * count fixed by the size alone ran all 221 steps of a 5000-point bridge,
 * 4 minutes of `vibro check`.  The impacts of that run into *events, the
 * seconds it simulated into *simulated (0 when nothing ran). */
static double
step_cost(const vb_study *st, long *events, double *simulated)
{
  char err[CLI_ERRLEN];
  /* scene 0 as the study holds it, with the duration of the timed steps:
   * a copy of its fields that shares its arrays, which the run only reads
   * (loading scene 0 again parsed and compiled its model again, a third
   * of the check of 10^5 islands) */
  vb_scene shortened = *vb_study_first(st), *sc = &shortened;
  vb_run *run;
  double cost = NAN, stopped_at;
  cost_timer timer = {.stop = 0, .done = 0};
  pthread_t thread;

  *events = 0;
  *simulated = 0.0;
  long size = sc->ncontacts + 1;
  for (int b = 0; b < sc->nbodies; b++)
    size += sc->bodies[b].nmodes;
  long steps = vb_scene_steps(sc), n = 2000000 / size;
  n = n < 10 ? 10 : n > 2000 ? 2000 : n;
  n = n < steps ? n : steps;
  if (n > 0) {
    sc->duration = (double)n / sc->fs;
    if (vb_run_alloc(sc, &run, err, sizeof err) == VB_OK) {
      vb_run_keep_subnormals(run, cli_keep_subnormals());
      int timed = pthread_create(&thread, NULL, cost_timer_main, &timer) == 0;
      double t0 = seconds();
      int rc = vb_run_exec_stop(run, timed ? &timer.stop : NULL);
      double t = seconds() - t0;
      long done = vb_scene_steps(sc);
      timer.done = 1;
      if (timed)
        pthread_join(thread, NULL);
      /* stopped: "stopped at t=T s on request", T the steps done */
      if (rc == VB_EINTR)
        done = sscanf(vb_run_status(run), "stopped at t=%lf", &stopped_at) == 1
                   ? (long)(stopped_at * sc->fs + 0.5)
                   : 0;
      cost = done > 0 ? t / (double)done : NAN;
      *simulated = (double)done / sc->fs;
      for (int c = 0; c < sc->ncontacts; c++)
        *events += vb_run_contact(run, c)->nevents;
      vb_run_free(run);
    }
  }
  return cost;
}

/* Bytes of one impact in /study/events: its 21 columns of 8 bytes
 * (doc/format.md). */
#define EVENT_BYTES 168.0

/* The study's totals: steps, recording bytes, the CPU time at scene 0's
 * cost per step, and the events: those of the timed run of scene 0
 * extrapolated to every step of every scene (the recording's bytes count
 * the signals only, and a string buzzing on a bridge writes tens of
 * thousands of events a second), an extrapolation when the timed steps
 * are not all of the scene. */
static void
print_totals(const vb_study *st, double steps)
{
  long events;
  double simulated, cost = step_cost(st, &events, &simulated);
  double per_step = simulated > 0.0 ? events / (simulated * vb_study_first(st)->fs) : 0.0;
  fprintf(out, "in all: %ld scene%s, %.6g steps, recording %.3g bytes, about %.3g s of CPU here "
         "(%.3g us a step, timed on scene 0)\n",
         vb_study_scenes(st), vb_study_scenes(st) == 1 ? "" : "s", steps,
         vb_study_record_total(st), cost * steps, 1e6 * cost);
  if (!(simulated > 0.0))
    return;
  fprintf(out, "events: %ld in the %.3g s timed of scene 0", events, simulated);
  if (events > 0)
    fprintf(out, ", at that rate about %.3g events, %.3g bytes more in all", per_step * steps,
           per_step * steps * EVENT_BYTES);
  fprintf(out, "%s\n", simulated * vb_study_first(st)->fs < steps / vb_study_scenes(st)
                     ? " (an extrapolation of the timed steps: impacts that begin later or "
                       "come at another rate are not in it)"
                     : "");
}

/* The warnings of vb_study_warnings_from (s: scene 0's contact starts),
 * "warning: " before each line; their number (lines beyond the buffer are
 * counted, not shown). */
static int
print_warnings(const vb_study *st, const vb_contact_start *s)
{
  static char buf[65536];
  buf[0] = '\0';
  int n = vb_study_warnings_from(st, s, buf, sizeof buf), shown = 0;
  for (char *p = buf, *end; *p; p = end + 1, shown++) {
    end = strchr(p, '\n');
    if (!end)
      break;
    fprintf(out, "warning: %.*s\n", (int)(end - p), p);
  }
  if (shown < n)
    fprintf(out, "warning: ... %d more warnings\n", n - shown);
  return n;
}

/* ------------------------------------------------- alike blocks */

/* A body's or a contact's lines (block i), and the quoted names in them
 * that do not make it different from its neighbours. */
typedef void (*block_print)(const vb_scene *sc, int i, const vb_contact_start *s);
typedef int (*block_names)(const vb_scene *sc, int i, const char **names);

static void
body_block(const vb_scene *sc, int i, const vb_contact_start *s)
{
  (void)s;
  print_body(sc, i);
}

static int
body_names(const vb_scene *sc, int i, const char **names)
{
  names[0] = sc->bodies[i].name;
  return 1;
}

static void
contact_block(const vb_scene *sc, int c, const vb_contact_start *s)
{
  print_contact(sc, c, &s[c]);
}

static int
contact_names(const vb_scene *sc, int c, const char **names)
{
  names[0] = sc->contacts[c].name;
  names[1] = sc->bodies[sc->contacts[c].a].name;
  names[2] = sc->bodies[sc->contacts[c].b].name;
  return 3;
}

/* Block i's text (NULL out of memory). */
static char *
block_text(const vb_scene *sc, int i, const vb_contact_start *s, block_print fn)
{
  char *text = NULL;
  size_t len = 0;
  FILE *mem = open_memstream(&text, &len);
  if (mem == NULL)
    return NULL;
  out = mem;
  fn(sc, i, s);
  out = stdout;
  if (fclose(mem) != 0) {
    free(text);
    return NULL;
  }
  return text;
}

/* The text with each of its quoted names 'x' made '\x01'. */
static char *
block_key(const char *text, const char **names, int n)
{
  char *key = strdup(text);
  for (int k = 0; key && k < n; k++) {
    char quoted[VB_NAME_MAX + 3];
    snprintf(quoted, sizeof quoted, "'%s'", names[k]);
    size_t ql = strlen(quoted);
    char *w = key, *r = key, *hit;
    while ((hit = strstr(r, quoted)) != NULL) {
      memmove(w, r, (size_t)(hit - r));
      w += hit - r;
      memcpy(w, "'\x01'", 3);
      w += 3;
      r = hit + ql;
    }
    memmove(w, r, strlen(r) + 1);
  }
  return key;
}

/* Print blocks from .. to - 1; a run of blocks that differ from the one
 * before only in their names is said in one line after the first
 * ALIKE_SHOWN + 1 (issue 32 item 4: 10^5 alike contacts printed 400,000
 * lines). */
#define ALIKE_SHOWN 3
static void
print_alike(const vb_scene *sc, int from, int to, const vb_contact_start *s, block_print fn,
            block_names names_of, const char *what)
{
  char *prev = NULL;
  int run = 0, first = -1, last = -1, shown = 0;
  const char *names[3];
  for (int i = from; i <= to; i++) {
    char *text = i < to ? block_text(sc, i, s, fn) : NULL;
    char *key = text ? block_key(text, names, names_of(sc, i, names)) : NULL;
    if (key && prev && strcmp(key, prev) == 0 && shown < ALIKE_SHOWN) {
      shown++; /* the first few alike are printed as they are */
      free(key);
      fputs(text, out);
      free(text);
      continue;
    }
    if (key && prev && strcmp(key, prev) == 0) {
      if (run++ == 0)
        first = i;
      last = i;
      free(text);
      free(key);
      continue;
    }
    shown = 0;
    if (run > 0) {
      names_of(sc, first, names);
      fprintf(out, "  and %d more %s alike, '%s'", run, what, names[0]);
      names_of(sc, last, names);
      fprintf(out, " to '%s' (the same but for their names)\n", names[0]);
    }
    run = 0;
    free(prev);
    prev = key;
    if (text)
      fputs(text, out);
    else if (i < to)
      fn(sc, i, s); /* out of memory: as it comes */
    free(text);
  }
  free(prev);
}

/* Print the check of a loaded study; the number of warnings, -1 when out
 * of memory. */
static int
check_study(const vb_study *study)
{
  const vb_scene *sc = vb_study_first(study);

  out = stdout;

  if (vb_study_scenes(study) > 1)
    print_study(study);
  fprintf(out, "scene '%s': fs %g Hz, duration %g s (%ld steps), gravity %g m/s^2\n", sc->name, sc->fs,
         sc->duration, vb_scene_steps(sc), sc->gravity);
  fprintf(out, "recording: every %ld steps, %ld samples, %.3g bytes\n", sc->record_every,
         vb_scene_samples(sc), vb_scene_record_bytes(sc));
  print_alike(sc, 0, sc->nbodies, NULL, body_block, body_names, "bodies");
  /* one island build for every contact (one each made N contacts cost N^2);
   * a distributed contact's points in one summary */
  vb_contact_start *s = malloc(((size_t)sc->ncontacts + 1) * sizeof *s);
  if (s == NULL) {
    fprintf(stderr, "%s: out of memory checking the contacts\n", sc->path);
    return -1;
  }
  vb_scene_contact_states(sc, s);
  for (int c = 0; c < sc->ncontacts;)
    if (sc->contacts[c].group[0] != '\0')
      print_distributed(sc, c, s, &c);
    else {
      int e = c;
      while (e < sc->ncontacts && sc->contacts[e].group[0] == '\0')
        e++;
      print_alike(sc, c, e, s, contact_block, contact_names, "contacts");
      c = e;
    }
  char text[4096] = "";
  vb_analysis_summary(sc, text, sizeof text);
  fputs(text, out);
  print_totals(study, study_steps(study));
  /* the warnings from the same starts: one island build and one search of
   * the modes' free response for the whole check (two made 36 % of the
   * fretless bass's check) */
  int n = print_warnings(study, s);
  free(s);
  return n;
}

static const cli_option options[] = {
    {0, NULL, NULL, NULL},
};

/* vibro check */
static int
check_main(const cli_command *cmd, int argc, char **argv)
{
  static const char *const operands[] = {"SCENE.cfg"};
  char err[CLI_ERRLEN];
  vb_study *study;
  cli_args a;
  int key, warnings;

  cli_begin(&a, cmd, argc, argv);
  while ((key = cli_next(&a)) > 0 && key != 'h')
    ;
  if (key != 0 || cli_operands(&a, 1, operands) < 0) {
    cli_end(&a);
    return key == 'h' ? 0 : 1;
  }
  if (vb_study_load(a.operands[0], &study, err, sizeof err) != VB_OK) {
    fprintf(stderr, "%s\n", err);
    cli_end(&a);
    return 1;
  }
  warnings = check_study(study);
  if (warnings >= 0)
    fprintf(out, "%s: valid, %d warning%s\n", a.operands[0], warnings, warnings == 1 ? "" : "s");
  vb_study_free(study);
  cli_end(&a);
  return warnings < 0;
}

const cli_command cli_check = {
    .name = "check",
    .synopsis = "SCENE.cfg",
    .summary = "validate a scene and print what to expect",
    .description = description,
    .options = options,
    .main = check_main,
};
