/* check.c - what `vibro check` warns of before a run, as lines of text
 * (the program prints them, the Python package raises them as warnings):
 * a contact shorter than its scheme resolves (Papetti 3.3.2, Chatziioannou
 * 2.1), an exact duration saturated, a contact predicted to last beyond
 * the scene's end, a recording beyond the free disk or the memory.  One
 * place for the texts, so the two front ends cannot drift apart. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "vibro.h"

/* Append a line to buf (len bytes), keeping it terminated. */
static void
line(char *buf, size_t len, const char *text)
{
  size_t used = strlen(buf);
  if (used < len)
    snprintf(buf + used, len - used, "%s\n", text);
}

/* When free flight from the initial state brings contact c to its
 * barrier, s, for the approach rate v_in it reaches it with (0 when it
 * starts engaged): p0 + v0 t + a0 t^2 / 2 = 0 with v0 + a0 t = v_in (as
 * vibro check says it). */
static double
onset_time(const vb_contact_start *s)
{
  if (!(s->p0 < 0.0))
    return 0.0;
  if (s->a0 != 0.0)
    return (s->rate - s->v0) / s->a0 > 0.0 ? (s->rate - s->v0) / s->a0 : 0.0;
  return s->v0 > 0.0 ? -s->p0 / s->v0 : 0.0;
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

/* The modes at or above fs/2 the loader dropped (lib/nyquist.c), a line
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
  return n;
}

/* The warnings `vibro check` prints for one scene (modes dropped above
 * fs/2; an exact-duration contact saturated; a contact shorter than its
 * scheme resolves; one predicted to last beyond the scene's end: once per
 * distributed block, for its first point to touch), one a line without
 * "warning: ", appended to buf; their number. */
int
vb_scene_warnings(const vb_scene *sc, char *buf, size_t len)
{
  char text[512];
  int n = dropped_warnings(sc, buf, len), end;
  vb_contact_start *s = starts(sc);

  if (!s) {
    line(buf, len, "out of memory checking the contacts");
    return n + 1;
  }
  for (int k = 0; k < sc->ncontacts; k = end) {
    int c = speaker(sc, s, k, &end);
    const vb_contact *ct = &sc->contacts[c];
    double dt = 1.0 / sc->fs, w, limit, used, t, t_on = 0.0;
    if (ct->exact_duration) {
      vb_contact_exact_duration(sc, c, &w, &limit, &used);
      if (used != w) {
        snprintf(text, sizeof text,
                 "contact '%s' saturated: the sample rate resolves contacts down to "
                 "%.6g s (%.3g samples), not the %.6g s this one lasts; it will last %.6g s",
                 ct->name, M_PI / limit, M_PI / limit / dt, M_PI / w, M_PI / used);
        line(buf, len, text);
        n++;
      }
    }
    if (too_short(sc, c, &s[c], &t, &t_on)) {
      snprintf(text, sizeof text,
               "contact '%s' lasts %.3g samples, shorter than the %d scheme '%s' resolves; "
               "raise fs above %.6g Hz",
               ct->name, t / dt, ct->scheme->min_contact_steps, ct->scheme->name,
               ct->scheme->min_contact_steps / t);
      line(buf, len, text);
      n++;
    }
    if (!isnan(t) && t_on + t > sc->duration) {
      snprintf(text, sizeof text,
               "contact '%s' is predicted from %.6g s to %.6g s, after the scene ends at %.6g "
               "s: its v_out and cor will be NaN; make duration longer than %.6g s",
               ct->name, t_on, t_on + t, sc->duration, t_on + t);
      line(buf, len, text);
      n++;
    }
  }
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

/* The warnings `vibro check` prints for a study: scene 0's
 * (vb_scene_warnings), one for the other scenes it validated that have a
 * contact shorter than its scheme resolves, then its totals'; appended to
 * buf, one a line; their number. */
int
vb_study_warnings(const vb_study *st, char *buf, size_t len)
{
  const long *idx;
  long n = vb_study_checked(st, &idx), count = 0, first = -1;
  char err[512], text[512];
  int warnings = vb_scene_warnings(vb_study_first(st), buf, len);

  for (long k = 1; k < n && vb_study_scenes(st) > 1; k++) {
    long i = idx ? idx[k] : k;
    vb_scene *sc;
    int any = 0;
    double t, t_on;
    vb_contact_start *s;
    if (vb_study_scene(st, i, &sc, err, sizeof err) != VB_OK)
      continue;
    s = starts(sc);
    for (int c = 0; s && c < sc->ncontacts; c++)
      any |= too_short(sc, c, &s[c], &t, &t_on);
    free(s);
    if (any && first < 0)
      first = i;
    count += any;
    vb_scene_free(sc);
  }
  if (count) {
    snprintf(text, sizeof text,
             "%ld of the other %ld scenes%s have a contact shorter than its scheme resolves "
             "(first: scene %ld)",
             count, n - 1, idx ? " checked" : "", first);
    line(buf, len, text);
    warnings++;
  }
  return warnings + total_warnings(st, buf, len);
}

