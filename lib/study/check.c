/* check.c - what `vibro check` warns of before a run, as lines of text
 * (the program prints them, the Python package raises them as warnings):
 * a contact shorter than its scheme resolves (Papetti 3.3.2, Chatziioannou
 * 2.1), an exact duration saturated, a contact predicted to last beyond
 * the scene's end, a recording beyond the free disk or the memory, a
 * sweep that crosses a grazing boundary of a linear body under one
 * harmonic force or drive (doc/analysis.md, "Grazing").  One
 * place for the texts, so the two front ends cannot drift apart. */
#include <complex.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "run/run.h"
#include "vibro.h"

/* Append a line to buf (len bytes), keeping it terminated. */
static void
line(char *buf, size_t len, const char *text)
{
  size_t used = strlen(buf);
  if (used < len)
    snprintf(buf + used, len - used, "%s\n", text);
}

/* ------------------------------------------------- alike warnings */

/* Warnings that differ only in the contact they name are said once with
 * a count (issue 32 item 4: 10^5 identical contacts gave 10^5 lines):
 * "100000 contacts alike (contact 'c0' to contact 'c99999'): each ...".
 * Up to ALIKE_KINDS kinds are open at once, said in the order they first
 * appeared (a scene whose warnings are all different reads as before). */
#define ALIKE_KINDS 8
#define ALIKE_TEXT 768

typedef struct {
  char key[ALIKE_TEXT];   /* the text with the contact's label cut out */
  char first[ALIKE_TEXT]; /* the first contact's text as it was */
  char from[VB_NAME_MAX + 64], to[VB_NAME_MAX + 64]; /* first and last labels */
  int count;
} alike_kind;

typedef struct {
  alike_kind kind[ALIKE_KINDS];
  int n;
} alike;

/* Say every open kind into buf; the lines said. */
static int
alike_flush(alike *a, char *buf, size_t len)
{
  char text[2 * ALIKE_TEXT + 2 * (VB_NAME_MAX + 64)];
  for (int k = 0; k < a->n; k++) {
    const alike_kind *w = &a->kind[k];
    const char *cut = strchr(w->key, '\x01');
    if (w->count == 1 || cut == NULL)
      line(buf, len, w->first);
    else {
      snprintf(text, sizeof text, "%d contacts alike (%s to %s): %.*seach%s", w->count, w->from,
               w->to, (int)(cut - w->key), w->key, cut + 1);
      line(buf, len, text);
    }
  }
  int said = a->n;
  a->n = 0;
  return said;
}

/* A warning about contact `who` (its label, as the text names it); the
 * lines said now (0 while it joins an open kind or opens one). */
static int
alike_add(alike *a, const char *who, const char *text, char *buf, size_t len)
{
  char key[ALIKE_TEXT];
  const char *at = strstr(text, who);
  int said = 0;
  if (at)
    snprintf(key, sizeof key, "%.*s\x01%s", (int)(at - text), text, at + strlen(who));
  else
    snprintf(key, sizeof key, "%s", text);
  for (int k = 0; k < a->n; k++)
    if (strcmp(a->kind[k].key, key) == 0) {
      a->kind[k].count++;
      snprintf(a->kind[k].to, sizeof a->kind[k].to, "%s", who);
      return 0;
    }
  if (a->n == ALIKE_KINDS)
    said = alike_flush(a, buf, len);
  alike_kind *w = &a->kind[a->n++];
  snprintf(w->key, sizeof w->key, "%s", key);
  snprintf(w->first, sizeof w->first, "%s", text);
  snprintf(w->from, sizeof w->from, "%s", who);
  snprintf(w->to, sizeof w->to, "%s", who);
  w->count = 1;
  return said;
}

/* ----------------------------------------------------------- analysis */

/* The section's line of vb_analysis_summary: what is sampled, when, and
 * how many points a scene holds (count). */
static void
section_line(const vb_scene *sc, const vb_analysis *an, long count, char *buf, size_t len)
{
  char text[1024], what[512] = "", t[256];
  size_t used = 0;

  for (int p = 0; p < an->npoints && used < sizeof what; p++)
    used += (size_t)snprintf(what + used, sizeof what - used, "%s'%s'", p ? ", " : "",
                             an->points[p].name);
  if (an->drive[0])
    snprintf(t, sizeof t, "%.6g s (1 / freq of '%s')", an->period, an->drive);
  else
    snprintf(t, sizeof t, "%.6g s (period)", an->period);
  snprintf(text, sizeof text,
           "analysis: section: (u, v) of %s every T = %s at phase %.4g rad, from %.6g s "
           "(a transient of %.4g periods) to %.6g s: %ld points a scene",
           what, t, an->phase, an->transient_time, an->transient_time / an->period,
           sc->duration, count);
  line(buf, len, text);
  char tol[128] = "12 / N^2 for impacts of a median N steps (period.tolerance unset)",
       atol[128] = "twice the largest period tolerance, at least 1e-3";
  if (an->tolerance > 0.0)
    snprintf(tol, sizeof tol, "%.3g", an->tolerance);
  if (an->attractor_tolerance > 0.0)
    snprintf(atol, sizeof atol, "%.3g", an->attractor_tolerance);
  snprintf(text, sizeof text,
           "analysis: period: shifts of 1 .. %d periods, closed within %s of each point's "
           "phase-plane size; %ld points tell irregular from not settled; attractors across "
           "the study within %s",
           an->pmax, tol, vb_orbit_needed(an->pmax), atol);
  line(buf, len, text);
}

/* The Lyapunov request's line of vb_analysis_summary: the perturbation
 * and where it comes from, when the twin starts and what it costs. */
static void
lyapunov_line(const vb_scene *sc, const vb_analysis *an, char *buf, size_t len)
{
  char text[640], from_what[160];
  double n, p = vb_lyapunov_perturbation(sc, &n);
  long steps = vb_scene_steps(sc), from = an->section ? (long)ceil(an->transient_time * sc->fs
                                                                   - 1e-9)
                                                      : 1;
  from = from < 1 ? 1 : from;
  if (an->perturbation > 0.0)
    snprintf(from_what, sizeof from_what, "perturbation given");
  else if (n > 0.0)
    snprintf(from_what, sizeof from_what,
             "the default 12 / N^2 in [1e-8, 1e-2] for N = %.3g steps a contact, then N from "
             "the run's impacts",
             n);
  else if (n < 0.0)
    snprintf(from_what, sizeof from_what,
             "the default, not predicted: out of memory; the run will refuse the scene");
  else
    snprintf(from_what, sizeof from_what,
             "the default with no contact that closes, until the run's impacts give N");
  snprintf(text, sizeof text,
           "analysis: lyapunov: a twin %.3g of the state away (%s) steps %ld of the %ld steps "
           "again (from %.6g s), brought back every %ld %s: about %.2g times the run's cost",
           p, from_what, steps - from + 1, steps, (double)from / sc->fs, an->renormalise,
           an->section ? "drive periods" : "periods of the lowest mode",
           1.0 + (double)(steps - from + 1) / (double)(steps > 0 ? steps : 1));
  line(buf, len, text);
}

/* The warning of a default perturbation with no window: below
 * sqrt(12 / 1e-2) steps a contact the section's scatter (about 7 / N^2 of
 * the orbit) reaches an impact's own scale (v_in t_c, about 1e-2 of the
 * orbit on the ball at 40 steps): a line and 1, else 0 (doc/analysis.md,
 * "The default perturbation"). */
static int
lyapunov_warning(const vb_scene *sc, char *buf, size_t len)
{
  const vb_analysis *an = sc->analysis;
  char text[512];
  double n;

  if (!an || !an->lyapunov || an->perturbation > 0.0)
    return 0;
  vb_lyapunov_perturbation(sc, &n);
  if (!(n > 0.0 && LYAPUNOV_SCATTER / (n * n) > LYAPUNOV_CEILING))
    return 0;
  snprintf(text, sizeof text,
           "analysis 'lyapunov': a contact lasts %.3g steps, fewer than the %.3g at which the "
           "default perturbation 12 / N^2 stays below 1e-2: no perturbation is both above the "
           "section's scatter and below an impact's scale, so the exponent's sign may be the "
           "discretisation's; raise fs above %.6g Hz",
           n, sqrt(LYAPUNOV_SCATTER / LYAPUNOV_CEILING),
           sc->fs * sqrt(LYAPUNOV_SCATTER / LYAPUNOV_CEILING) / n);
  line(buf, len, text);
  return 1;
}

/* What the scene's analysis block will compute (vibro check's summary),
 * one a line, appended to buf; the number of lines (0 without a block). */
int
vb_analysis_summary(const vb_scene *sc, char *buf, size_t len)
{
  const vb_analysis *an = sc->analysis;
  char text[512];
  int n = 0;

  if (!an)
    return 0;
  if (an->section) {
    section_line(sc, an, vb_analysis_samples(an, (double)vb_scene_steps(sc) / sc->fs, NULL),
                 buf, len);
    n += 2;
  }
  if (an->map_contact >= 0) {
    snprintf(text, sizeof text,
             "analysis: impact map: every impact of contact '%s' from %.6g s (v_in, the "
             "drive's phase, the time since the previous impact)%s",
             sc->contacts[an->map_contact].name, an->transient_time,
             an->section ? ", and impacts per period" : "");
    line(buf, len, text);
    n++;
  }
  if (an->grazing > 0.0) {
    snprintf(text, sizeof text,
             "analysis: grazing: impacts below %.3g of the scene's median v_in are flagged",
             an->grazing);
    line(buf, len, text);
    n++;
  }
  if (an->lyapunov) {
    lyapunov_line(sc, an, buf, len);
    n++;
  }
  return n;
}

/* The warning of a section too short to be called irregular: a line and
 * 1, else 0. */
static int
section_warning(const vb_scene *sc, char *buf, size_t len)
{
  const vb_analysis *an = sc->analysis;
  char text[512];
  long count, need;

  if (!an || !an->section)
    return 0;
  count = vb_analysis_samples(an, (double)vb_scene_steps(sc) / sc->fs, NULL);
  need = vb_orbit_needed(an->pmax);
  if (count >= need)
    return 0;
  snprintf(text, sizeof text,
           "analysis 'section': %ld points a scene, fewer than the %ld needed to call a section "
           "irregular with period.max = %d: a scene no shift closes will be 'not settled'; "
           "make duration at least %.6g s or lower period.max",
           count, need, an->pmax, an->transient_time + (double)need * an->period);
  line(buf, len, text);
  return 1;
}

/* When free flight from the initial state brings contact c to its
 * barrier, s (0 when it starts engaged or none follows): the closed form
 * of a constant acceleration, or the first crossing of the modes' free
 * response (vb_scene_contact_states). */
static double
onset_time(const vb_contact_start *s)
{
  return s->rate > 0.0 ? s->t_on : 0.0;
}

/* Every contact's initial state from one island build (a build per
 * contact made a scene of N contacts cost N^2); NULL when out of memory. */
static vb_contact_start *
starts(const vb_scene *sc)
{
  vb_contact_start *s = malloc(((size_t)sc->ncontacts + 1) * sizeof *s);
  if (s)
    vb_scene_contact_states(sc, s);
  return s;
}

/* Whether contact c of a scene is shorter than its scheme resolves at the
 * approach its initial state gives; its predicted duration (Papetti eq 9,
 * s) into *t and its onset (s) into *t_on when there is an impact to
 * predict, else *t = NaN. */
static int
too_short(const vb_scene *sc, int c, const vb_contact_start *s, double *t, double *t_on)
{
  const vb_contact *ct = &sc->contacts[c];
  const vb_law_info *info = vb_law_info_of(ct->law.kind);
  vb_prediction pr;

  *t = NAN;
  if (!info || !info->papetti)
    return 0;
  if (!(s->rate > 0.0))
    return 0;
  vb_law_predict(&ct->law, s->meff, s->rate, &pr);
  *t = pr.duration;
  *t_on = onset_time(s);
  return pr.duration * sc->fs < ct->scheme->min_contact_steps;
}

/* The contact that speaks for contacts c .. *end - 1: c itself for a point
 * contact; for a distributed block (its points are consecutive) the point
 * free flight brings to its barrier first, else its first point, so that a
 * block of 862 points warns once. */
static int
speaker(const vb_scene *sc, const vb_contact_start *s, int c, int *end)
{
  int e, best = c;
  double first = INFINITY;

  if (sc->contacts[c].group[0] == '\0') {
    *end = c + 1;
    return c;
  }
  for (e = c; e < sc->ncontacts && strcmp(sc->contacts[e].group, sc->contacts[c].group) == 0; e++)
    if (s[e].rate > 0.0 && onset_time(&s[e]) < first) {
      first = onset_time(&s[e]);
      best = e;
    }
  *end = e;
  return best;
}

/* How a warning names contact c: "contact 'hit'", or for a point of a
 * distributed block "contact 'frets' (point 11, x 0.432 m)". */
static const char *
contact_label(const vb_scene *sc, int c, char *buf, size_t len)
{
  char who[VB_LABEL_MAX];
  snprintf(buf, len, "contact %s", vb_contact_label(sc, &sc->contacts[c], who, sizeof who));
  return buf;
}

/* How far a point mass's contact time (Papetti eq 9 at the contact's
 * effective mass, what too_short and the end-of-scene warning compare)
 * speaks for contact c. */
typedef enum {
  DURATION_EXACT,   /* free masses and walls: eq 9 is the contact's own time */
  DURATION_ESTIMATE /* a modal body, a spring or damper to ground, a spring
                       contact: an estimate, not a bound (bound_of) */
} duration_bound;

static int coupled(const vb_scene *sc, const int *springs, int c, int i);
static int *springs_of(const vb_scene *sc);

/* The bound eq 9 gives contact c.  Between free masses and walls it is
 * the contact's time (Papetti eq 9; the run's events agree to a sample).
 * On a modal body it takes every kept mode as a free mass (the effective
 * mass 1 / sum_j shape_j^2 / modal_mass_j): modes above the contact's own
 * frequency answer its force as springs (more mass met: longer), the
 * modes' free motion keeps pressing the point (longer), and points of a
 * distributed block that touch together share the body's mass (shorter).
 * Measured against resolved runs: the hammer on Avanzini's bar lasts 1.230
 * ms, eq 9 1.126 ms; the fretted bass's first contact 39 us at 4.01 MHz,
 * eq 9 2.7 us; the fretless bass's 3.3 us at 1.00 MHz, eq 9 2.5 us; but
 * the tanpura's bridge contacts (scenes/tanpura.cfg, 64 points in 2 cm)
 * last 4.4 us at 705.6 kHz (the same at 2.8 and 11.3 MHz) where eq 9 says
 * 6.8 us.  So no bound either way: "about".  A spring or damper to ground,
 * or a spring contact, acts during the contact too: "about" as well. */
static duration_bound
bound_of(const vb_scene *sc, const int *springs, int c)
{
  const vb_contact *ct = &sc->contacts[c];
  const int side[2] = {ct->a, ct->b};

  for (int s = 0; s < 2; s++) {
    const vb_body *b = &sc->bodies[side[s]];
    if (b->kind == VB_BODY_WALL)
      continue;
    if (b->kind == VB_BODY_MODAL || coupled(sc, springs, c, side[s]) || b->k > 0.0 ||
        b->c > 0.0)
      return DURATION_ESTIMATE;
  }
  return DURATION_EXACT;
}

/* The position x along its modal body of point contact c of a
 * distributed block, m. */
static double
point_x(const vb_scene *sc, int c)
{
  const vb_contact *p = &sc->contacts[c];
  const vb_body *a = &sc->bodies[p->a];
  return a->kind == VB_BODY_MODAL ? a->points[p->pa].x : sc->bodies[p->b].points[p->pb].x;
}

/* The kinetic energy of the scene's initial state, J: every body's
 * modes (a mass is one) and a mass's motion along w. */
static double
kinetic_energy(const vb_scene *sc)
{
  double e = 0.0;
  for (int i = 0; i < sc->nbodies; i++) {
    const vb_body *b = &sc->bodies[i];
    for (int j = 0; j < b->nmodes; j++)
      e += 0.5 * b->modal_mass[j] * b->dq0[j] * b->dq0[j];
    if (b->kind == VB_BODY_MASS && b->has_w)
      e += 0.5 * b->mass * b->vw0 * b->vw0;
  }
  return e;
}

/* The energy contact c's law stores at its initial penetration beyond
 * what its static load (the free-flight acceleration a0 of its
 * penetration times its effective mass: gravity, constant forces) holds it
 * at, J, 0 when it starts open: V(p0) - V(p_eq) - F (p0 - p_eq), with
 * V = k/(a+1) p^(a+1) (Chatziioannou eq 2) and the rest p_eq where
 * k p_eq^a = F.  A body resting on its contact under gravity stores
 * V(p_eq) and releases none of it; a ball started 1 mm inside a stiff
 * contact releases almost all.  *stored gets V(p0), *rest V(p_eq). */
static double
excess_energy(const vb_scene *sc, int c, const vb_contact_start *s, double *stored, double *rest)
{
  const vb_contact *ct = &sc->contacts[c];
  const vb_law_info *info = vb_law_info_of(ct->law.kind);
  double load = s->meff * s->a0, p_eq = 0.0, shift;

  *stored = *rest = 0.0;
  if (!info || info->always_engaged || !(s->p0 > 0.0) || !(ct->law.k > 0.0))
    return 0.0;
  /* the compression whose penetration is p: p + h for a two-sided law */
  shift = info->two_sided ? ct->law.h : 0.0;
  *stored = vb_law_potential(&ct->law, s->p0 + shift);
  if (load > 0.0 && isfinite(load)) {
    p_eq = pow(load / ct->law.k, 1.0 / ct->law.alpha);
    if (p_eq > s->p0)
      p_eq = s->p0;
  }
  *rest = p_eq > 0.0 ? vb_law_potential(&ct->law, p_eq + shift) : 0.0;
  double excess = *stored - *rest - load * (s->p0 - p_eq);
  return excess > 0.0 ? excess : 0.0;
}

/* The warning of contacts that start inside their barrier storing more
 * energy, beyond the rest their static load holds them at, than the
 * scene's initial kinetic energy and the energy they hold at that rest:
 * the first steps release it as motion no initial condition gave.  (Not
 * the stored energy against the kinetic alone: a block resting on its
 * contact under gravity, with no kinetic energy, releases nothing, and a
 * start a little off its rest (the rolling ball, about 1.4 times its static
 * penetration) releases less than the rest holds.)  One line a point
 * contact or a distributed block (its points summed); their number. */
static int
stored_warnings(const vb_scene *sc, const vb_contact_start *s, char *buf, size_t len)
{
  double kinetic = kinetic_energy(sc);
  char text[768], who[VB_NAME_MAX + 64];
  int n = 0;

  for (int c = 0, end; c < sc->ncontacts; c = end) {
    double excess = 0.0, stored = 0.0, rest = 0.0, deepest = 0.0, meff = 0.0;
    int engaged = 0, at = c;
    end = c + 1;
    if (sc->contacts[c].group[0] != '\0')
      while (end < sc->ncontacts && strcmp(sc->contacts[end].group, sc->contacts[c].group) == 0)
        end++;
    for (int k = c; k < end; k++) {
      double v, r, e = excess_energy(sc, k, &s[k], &v, &r);
      if (!(v > 0.0))
        continue;
      engaged++;
      excess += e;
      stored += v;
      rest += r;
      if (s[k].p0 > deepest) {
        deepest = s[k].p0;
        meff = s[k].meff;
        at = k;
      }
    }
    /* rounding of a body at rest on its contact: p_eq from pow */
    if (!(excess > kinetic + rest && excess > 1e-9 * stored))
      continue;
    if (end - c == 1)
      snprintf(text, sizeof text,
               "%s starts %.6g m inside its barrier, storing %.6g J (%.6g J beyond the rest "
               "its static load holds it at), more than the scene's initial kinetic energy "
               "of %.6g J: the first steps release it (%.6g m/s for its effective mass of "
               "%g kg); start the bodies outside the contact or at that rest",
               contact_label(sc, c, who, sizeof who), deepest, stored, excess, kinetic,
               sqrt(2.0 * excess / meff), meff);
    else
      snprintf(text, sizeof text,
               "contact '%s': %d of its %d points start inside the barrier (deepest: point "
               "%d, x %g m, %.6g m in), storing %.6g J (%.6g J beyond the rest their static "
               "load holds them at), more than the scene's initial kinetic energy of %.6g J: "
               "the first steps release it; start the body clear of the barrier (lower the "
               "profile)",
               sc->contacts[c].group, engaged, end - c, sc->contacts[at].group_point,
               point_x(sc, at), deepest, stored, excess, kinetic);
    line(buf, len, text);
    n++;
  }
  return n;
}

/* The warning of an exact-duration contact (a point, or the points of a
 * distributed block c .. end - 1, once for the block) that the sample
 * rate saturates; 1 with a line, else 0. */
static int
saturated_warning(const vb_scene *sc, const vb_contact_start *s, int c, int end, char *buf,
                  size_t len)
{
  const vb_contact *ct = &sc->contacts[c];
  double dt = 1.0 / sc->fs, w = 0.0, limit = 0.0, used = 0.0;
  char text[640], who[VB_NAME_MAX + 64];
  int saturated = 0, at = -1;

  if (!ct->exact_duration)
    return 0;
  for (int k = c; k < end; k++) {
    double wk, lk, uk;
    vb_contact_exact_duration_at(sc, k, s[k].meff, &wk, &lk, &uk);
    if (uk != wk && saturated++ == 0) {
      at = k;
      w = wk;
      limit = lk;
      used = uk;
    }
  }
  if (saturated == 0)
    return 0;
  if (ct->group[0] == '\0') {
    snprintf(text, sizeof text,
             "%s saturated: the sample rate resolves contacts down to "
             "%.6g s (%.3g samples), not the %.6g s this one lasts; it will last %.6g s",
             contact_label(sc, c, who, sizeof who), M_PI / limit, M_PI / limit / dt, M_PI / w,
             M_PI / used);
  } else {
    const vb_contact *p = &sc->contacts[at];
    double x = point_x(sc, at);
    snprintf(text, sizeof text,
             "contact '%s': %d of its %d points saturated (first: point %d, x %g m: it lasts "
             "%.6g s, the sample rate resolves contacts down to %.6g s; it will last %.6g s)",
             ct->group, saturated, end - c, p->group_point, x, M_PI / w, M_PI / limit,
             M_PI / used);
  }
  line(buf, len, text);
  return 1;
}

/* The modes at or above fs/2 the loader dropped (lib/scene/nyquist.c), a line
 * per body; their number. */
static int
dropped_warnings(const vb_scene *sc, char *buf, size_t len)
{
  char text[512];
  int n = 0;
  for (int i = 0; i < sc->nbodies; i++) {
    const vb_body *b = &sc->bodies[i];
    double top = 0.0;
    if (b->ndropped == 0)
      continue;
    for (int j = 0; j < b->nmodes; j++)
      top = b->freq[j] > top ? b->freq[j] : top;
    snprintf(text, sizeof text,
             "body '%s': %d modes at or above fs/2 = %g Hz dropped (modes %d .. %d as given, "
             "counted from 0): the scheme of its island cannot step them (a three-level scheme "
             "steps them exactly, aliased); the highest kept is at %g Hz",
             b->name, b->ndropped, 0.5 * sc->fs, b->dropped[0], b->dropped[b->ndropped - 1], top);
    line(buf, len, text);
    n++;
  }
  for (int i = 0; i < sc->nbodies; i++) {
    const vb_body *b = &sc->bodies[i];
    double top = 0.0;
    if (b->nwdropped == 0)
      continue;
    for (int j = 0; j < b->nwmodes; j++)
      top = b->wfreq[j] > top ? b->wfreq[j] : top;
    snprintf(text, sizeof text,
             "body '%s': %d modes along w at or above fs/2 = %g Hz dropped (modes %d .. %d "
             "along w as given, counted from 0): their trapezoidal step cannot resolve them; "
             "the highest kept is at %g Hz",
             b->name, b->nwdropped, 0.5 * sc->fs, b->wdropped[0],
             b->wdropped[b->nwdropped - 1], top);
    line(buf, len, text);
    n++;
  }
  return n;
}

/* A contact predicted to last less than this fraction of a sample gets a
 * second, loud warning for a scheme with an auxiliary state (sav): the
 * issue-32 cases (0.0016 and 0.056 samples) are held closed or pushed
 * back with the state far from its definition. */
#define SAV_FRACTION 1.0

/* The warnings `vibro check` prints for one scene (modes dropped above
 * fs/2; an exact-duration contact saturated; a contact shorter than its
 * scheme resolves; one predicted to last beyond the scene's end: once per
 * distributed block, for its first point to touch), one a line without
 * "warning: ", appended to buf; their number.  s: every contact's start
 * (vb_scene_contact_states; NULL when out of memory). */
/* A contact's warning, said with those alike (out of memory: at once). */
#define SAY(text) (same ? alike_add(same, who, (text), buf, len) : (line(buf, len, (text)), 1))

static int
scene_warnings(const vb_scene *sc, const vb_contact_start *s, char *buf, size_t len)
{
  char text[512], who[VB_NAME_MAX + 64];
  int n = dropped_warnings(sc, buf, len), end;

  if (!s) {
    line(buf, len, "out of memory checking the contacts");
    return n + 1;
  }
  int *springs = springs_of(sc);
  alike *same = malloc(sizeof *same);
  if (same)
    same->n = 0;
  for (int k = 0; k < sc->ncontacts; k = end) {
    int c = speaker(sc, s, k, &end);
    const vb_contact *ct = &sc->contacts[c];
    double dt = 1.0 / sc->fs, t, t_on = 0.0;
    duration_bound bound = bound_of(sc, springs, c);
    const char *word = bound == DURATION_EXACT ? "" : "about ";
    contact_label(sc, c, who, sizeof who);
    n += saturated_warning(sc, s, k, end, buf, len);
    if (too_short(sc, c, &s[c], &t, &t_on)) {
      if (bound == DURATION_EXACT)
        snprintf(text, sizeof text,
                 "%s lasts %.3g samples, shorter than the %d scheme '%s' resolves; "
                 "raise fs above %.6g Hz",
                 who, t / dt, ct->scheme->min_contact_steps, ct->scheme->name,
                 ct->scheme->min_contact_steps / t);
      else
        snprintf(text, sizeof text,
                 "%s lasts about %.3g samples (a point mass's time at the effective mass "
                 "there, Papetti eq 9: an estimate on a %s, not a bound), fewer than the %d "
                 "scheme '%s' resolves; raise fs above about %.6g Hz",
                 who, t / dt,
                 sc->bodies[ct->a].kind == VB_BODY_MODAL || sc->bodies[ct->b].kind == VB_BODY_MODAL
                     ? "modal body"
                     : "body on a spring or damper",
                 ct->scheme->min_contact_steps, ct->scheme->name,
                 ct->scheme->min_contact_steps / t);
      n += SAY(text);
      /* a scheme whose state stands for the contact's energy (sav's psi)
       * acts from the previous step's compression: a contact of less than
       * a sample puts the impact's energy into that state, and the run
       * ends "done, under-resolved" (run.c) */
      if (ct->scheme->ops->state_drift && t / dt < SAV_FRACTION) {
        snprintf(text, sizeof text,
                 "UNRESOLVED: %s lasts %s%.3g of a sample: scheme '%s' takes its force from the "
                 "previous step's compression, so its auxiliary variable will take the impact's "
                 "energy and the contact be passed through or held closed (the run will say "
                 "'done, under-resolved'); use scheme 'two-point' or raise fs above %s%.6g Hz",
                 who, word, t / dt, ct->scheme->name, word, ct->scheme->min_contact_steps / t);
        n += SAY(text);
      }
    }
    if (!isnan(t) && t_on + t > sc->duration) {
      snprintf(text, sizeof text,
               "%s is predicted from %.6g s to %s%.6g s, after the scene ends at %.6g "
               "s: its v_out and cor will be NaN; make duration longer than %s%.6g s",
               who, t_on, word, t_on + t, sc->duration, word, t_on + t);
      n += SAY(text);
    }
  }
  if (same)
    n += alike_flush(same, buf, len);
  free(same);
  free(springs);
  n += stored_warnings(sc, s, buf, len);
  return n + section_warning(sc, buf, len) + lyapunov_warning(sc, buf, len);
}

/* The warnings `vibro check` prints for one scene (scene_warnings), from
 * one island build; their number. */
int
vb_scene_warnings(const vb_scene *sc, char *buf, size_t len)
{
  vb_contact_start *s = starts(sc);
  int n = scene_warnings(sc, s, buf, len);
  free(s);
  return n;
}

/* The warnings of a study's totals: its recording against the free space
 * of the current directory's file system and a scene's against this
 * machine's memory (as vibro check says them); appended to buf. */
static int
total_warnings(const vb_study *st, char *buf, size_t len)
{
  double bytes = vb_study_record_total(st), most = vb_study_record_max(st);
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  double memory = pages > 0 && page > 0 ? (double)pages * (double)page : INFINITY;
  struct statvfs fs;
  char text[512];
  int n = 0;

  if (statvfs(".", &fs) == 0 && bytes > (double)fs.f_bavail * (double)fs.f_frsize) {
    snprintf(text, sizeof text,
             "the recording needs up to %.3g bytes, only %.3g free on the current directory's "
             "file system (vibro run refuses that); raise record.every, select fewer signals "
             "(record.signals) or shorten the duration",
             bytes, (double)fs.f_bavail * (double)fs.f_frsize);
    line(buf, len, text);
    n++;
  }
  if (most > memory) {
    snprintf(text, sizeof text,
             "a scene records up to %.3g bytes, more than this machine's %.3g bytes of memory, "
             "where a scene's recording is held while it runs; raise record.every or select "
             "fewer signals (record.signals)",
             most, memory);
    line(buf, len, text);
    n++;
  }
  return n;
}

/* ------------------------------------------------------------ grazing */

/* Most grazing boundaries a study's check names one by one. */
enum { GRAZING_LINES = 8 };

/* Phasor P (Re[P e^(i w t)]) of amplitude a sin(w t + phase). */
static double complex
sine_phasor(double a, double phase)
{
  return -I * a * cexp(I * phase);
}

/* The no-contact steady state of point p of body i of a scene under its
 * forces and gravity: static displacement *u (m) and phasor *z (m) at the
 * one harmonic frequency *f (Hz; 0 until a source sets it).  0 when it has
 * none that the modal sum can give: a rigid or undamped mode that a force
 * or gravity moves, a harmonic force at another frequency (doc/analysis.md
 * eq G1). */
static int
body_steady(const vb_scene *sc, int i, int p, double *f, double *u, double complex *z)
{
  const vb_body *b = &sc->bodies[i];
  for (int j = 0; j < b->nmodes; j++) {
    double shape = b->points[p].shape[j], w0 = 2.0 * M_PI * b->freq[j];
    double mass = b->modal_mass[j], load = -sc->gravity * mass * b->gravity[j];
    double complex drive = 0.0;
    if (shape == 0.0)
      continue;
    for (int k = 0; k < sc->nforces; k++) {
      const vb_force *fc = &sc->forces[k];
      double g = fc->body == i ? b->points[fc->point].shape[j] : 0.0;
      if (g == 0.0)
        continue;
      load += g * fc->value;
      if (fc->kind != VB_FORCE_HARMONIC || fc->amplitude == 0.0)
        continue;
      if (*f != 0.0 && fabs(fc->freq - *f) > 1e-12 * *f)
        return 0;
      *f = fc->freq;
      drive += g * sine_phasor(fc->amplitude, fc->phase);
    }
    if (load == 0.0 && drive == 0.0)
      continue;
    if (!(w0 > 0.0 && b->sigma[j] > 0.0))
      return 0;
    *u += shape * load / (mass * w0 * w0);
    if (drive != 0.0) {
      double w = 2.0 * M_PI * *f;
      *z += shape * drive / (mass * (w0 * w0 - w * w + 2.0 * I * b->sigma[j] * w));
    }
  }
  return 1;
}

/* A wall's or gap's prescribed motion as a static part and a phasor; 0
 * for a drive other than a sine or at another frequency. */
static int
drive_steady(const vb_drive *d, double *f, double complex *z, double sign)
{
  if (d->kind == VB_DRIVE_NONE)
    return 1;
  if (d->kind != VB_DRIVE_SINE || (*f != 0.0 && fabs(d->freq - *f) > 1e-12 * *f))
    return 0;
  *f = d->freq;
  *z += sign * sine_phasor(d->amplitude, d->phase);
  return 1;
}

/* The always-engaged (spring-like) contacts on each body, [nbodies], or
 * NULL out of memory (coupled then scans the contacts): counted once, so
 * that checking n contacts is not n^2 (10^5 contacts on their own islands
 * took minutes, issue 32 item 4). */
static int *
springs_of(const vb_scene *sc)
{
  int *n = calloc((size_t)sc->nbodies + 1, sizeof *n);
  for (int k = 0; n && k < sc->ncontacts; k++) {
    const vb_contact *ct = &sc->contacts[k];
    const vb_law_info *info = vb_law_info_of(ct->law.kind);
    if (info && info->always_engaged) {
      n[ct->a]++;
      if (ct->b != ct->a)
        n[ct->b]++;
    }
  }
  return n;
}

/* Whether a spring-like (always engaged) contact other than c joins body
 * i to another: then the body alone is not the linear system.  springs:
 * springs_of(sc), or NULL. */
static int
coupled(const vb_scene *sc, const int *springs, int c, int i)
{
  if (springs) {
    const vb_contact *ct = &sc->contacts[c];
    const vb_law_info *info = vb_law_info_of(ct->law.kind);
    int self = info && info->always_engaged && (ct->a == i || ct->b == i);
    return springs[i] - self > 0;
  }
  for (int k = 0; k < sc->ncontacts; k++) {
    const vb_contact *ct = &sc->contacts[k];
    const vb_law_info *info = vb_law_info_of(ct->law.kind);
    if (k != c && (ct->a == i || ct->b == i) && info && info->always_engaged)
      return 1;
  }
  return 0;
}

/* How far the no-contact steady state of point contact c passes its
 * barrier at most (m; > 0: it would penetrate, so impacts happen; <= 0:
 * it clears it), the amplitude |X| of its compression into *amp (eq G2);
 * NaN when it cannot be predicted: a distributed or always-engaged
 * contact, a body coupled by a spring, no single harmonic source. */
static double
grazing_margin(const vb_scene *sc, const int *springs, int c, double *amp)
{
  const vb_contact *ct = &sc->contacts[c];
  const vb_law_info *info = vb_law_info_of(ct->law.kind);
  const int side[2] = {ct->a, ct->b}, point[2] = {ct->pa, ct->pb};
  double f = 0.0, x = -ct->gap;
  double complex z = 0.0;

  if (ct->group[0] != '\0' || !info || info->always_engaged)
    return NAN;
  if (!drive_steady(&ct->gap_drive, &f, &z, -1.0))
    return NAN;
  for (int s = 0; s < 2; s++) {
    const vb_body *b = &sc->bodies[side[s]];
    double u = 0.0, sign = s == 0 ? 1.0 : -1.0;
    double complex w = 0.0;
    if (b->kind == VB_BODY_WALL) {
      u = b->u0;
      if (!drive_steady(&b->drive, &f, &w, 1.0))
        return NAN;
    } else if (coupled(sc, springs, c, side[s]) ||
               !body_steady(sc, side[s], point[s], &f, &u, &w))
      return NAN;
    x += sign * u;
    z += sign * w;
  }
  if (f == 0.0)
    return NAN;
  *amp = cabs(z);
  return info->two_sided ? fabs(x) + *amp - ct->law.h : x + *amp;
}

/* Scene `index`'s margins (grazing_margin) into margin[ncontacts], and
 * against the previous scene's (prev, of scene index - 1, or NULL) a line
 * for each contact whose sign changed between the two, when they differ
 * in one swept parameter: its value where the margin is 0, interpolated.
 * The number of boundaries found. */
static int
grazing_lines(const vb_study *st, long index, const vb_scene *sc, const double *prev,
              double *margin, int shown, char *buf, size_t len)
{
  int found = 0, np = vb_study_nparams(st), p = -1, differ = 0;
  char text[768];

  for (int q = 0; q < np && prev; q++)
    if (vb_study_value(st, index - 1, q) != vb_study_value(st, index, q)) {
      p = q;
      differ++;
    }
  int *springs = springs_of(sc);
  for (int c = 0; c < sc->ncontacts; c++) {
    double amp = NAN, m0, v0, v1, at;
    margin[c] = grazing_margin(sc, springs, c, &amp);
    if (!prev || differ != 1 || !isfinite(prev[c]) || !isfinite(margin[c]) ||
        (prev[c] > 0.0) == (margin[c] > 0.0))
      continue;
    /* eq G3: the crossing, linear between the two scenes */
    m0 = prev[c];
    v0 = vb_study_value(st, index - 1, p);
    v1 = vb_study_value(st, index, p);
    at = v0 + (v1 - v0) * m0 / (m0 - margin[c]);
    if (shown + found < GRAZING_LINES) {
      snprintf(text, sizeof text,
               "contact '%s': the sweep crosses a grazing boundary between scene %ld (%s = %g) "
               "and scene %ld (%s = %g): the no-contact steady state at the contact (amplitude "
               "%.6g m in scene %ld) just reaches the barrier at %s = %.6g %s (interpolated); "
               "impacts begin there with v_in near 0",
               sc->contacts[c].name, index - 1, vb_study_param(st, p), v0, index,
               vb_study_param(st, p), v1, amp, index, vb_study_param(st, p), at,
               vb_study_param_units(st, p));
      line(buf, len, text);
    }
    found++;
  }
  free(springs);
  return found;
}

/* The warnings `vibro check` prints for a study: scene 0's
 * (scene_warnings, from its contact starts s0 when not NULL), one for the other scenes it validated that have a
 * contact shorter than its scheme resolves, one for each grazing boundary
 * between two consecutive scenes (up to GRAZING_LINES, then their count),
 * then its totals'; appended to buf, one a line; their number. */
int
vb_study_warnings_from(const vb_study *st, const vb_contact_start *s0, char *buf, size_t len)
{
  const long *idx;
  const vb_scene *first_scene = vb_study_first(st);
  long n = vb_study_checked(st, &idx), count = 0, first = -1, held = -1;
  int estimate = 0;
  char err[512], text[640];
  int warnings = s0 ? scene_warnings(first_scene, s0, buf, len)
                    : vb_scene_warnings(first_scene, buf, len), grazing = 0;
  size_t nc = (size_t)first_scene->ncontacts + 1;
  double *prev = malloc(nc * sizeof *prev), *margin = malloc(nc * sizeof *margin), *swap;

  /* prev holds the margins of scene `held` */
  if (prev && margin && vb_study_scenes(st) > 1) {
    held = idx ? idx[0] : 0;
    grazing += grazing_lines(st, held, first_scene, NULL, prev, 0, buf, len);
  }
  for (long k = 1; k < n && vb_study_scenes(st) > 1; k++) {
    long i = idx ? idx[k] : k;
    vb_scene *sc;
    int any = 0;
    double t, t_on;
    vb_contact_start *s;
    if (vb_study_scene(st, i, &sc, err, sizeof err) != VB_OK)
      continue;
    s = starts(sc);
    int *springs = springs_of(sc);
    for (int c = 0; s && c < sc->ncontacts; c++)
      if (too_short(sc, c, &s[c], &t, &t_on)) {
        any = 1;
        estimate |= bound_of(sc, springs, c) != DURATION_EXACT;
      }
    free(springs);
    free(s);
    if (any && first < 0)
      first = i;
    count += any;
    if (prev && margin && sc->ncontacts + 1 == (int)nc) {
      /* scenes next to each other in the sweep: a grazing boundary between */
      grazing += grazing_lines(st, i, sc, held == i - 1 ? prev : NULL, margin, grazing, buf, len);
      held = i;
      swap = prev;
      prev = margin;
      margin = swap;
    }
    vb_scene_free(sc);
  }
  free(prev);
  free(margin);
  if (grazing > GRAZING_LINES) {
    snprintf(text, sizeof text, "%d more grazing boundaries in the sweep, not listed",
             grazing - GRAZING_LINES);
    line(buf, len, text);
  }
  warnings += grazing < GRAZING_LINES ? grazing : GRAZING_LINES + 1;
  if (count) {
    snprintf(text, sizeof text,
             "%ld of the other %ld scenes%s have a contact shorter than its scheme resolves "
             "%s(first: scene %ld)",
             count, n - 1, idx ? " checked" : "",
             estimate ? "by the estimate of a point mass's contact time (about: a modal body "
                        "or a spring) "
                      : "",
             first);
    line(buf, len, text);
    warnings++;
  }
  return warnings + total_warnings(st, buf, len);
}

/* The warnings `vibro check` prints for a study (vb_study_warnings_from,
 * scene 0's contact starts computed here). */
int
vb_study_warnings(const vb_study *st, char *buf, size_t len)
{
  return vb_study_warnings_from(st, NULL, buf, len);
}
