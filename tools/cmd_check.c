/* cmd_check.c - vibro check: validate a scene file and print what to
 * expect of it. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include "vibro.h"
#include "cli.h"

static const char description[] =
    "Validate SCENE.cfg (every scene of a study) and print, for a study, the\n"
    "number of scenes and the head of the parameter table; then, for the\n"
    "(first) scene and per contact, its scheme, the analytic\n"
    "x_max, v_out and contact time for the initial approach velocity, the\n"
    "contact time in samples, and a warning where the sample rate is too low\n"
    "for the scheme (Papetti 3.3.2, Chatziioannou 2.1) or the scene ends before\n"
    "the predicted contact is over (its v_out would be NaN).  Then the study's\n"
    "totals: steps, the recording's bytes (with a warning when they exceed the\n"
    "free space of the current directory's file system, where vibro run would\n"
    "refuse them, or one scene's exceed this machine's memory) and the CPU time\n"
    "it will take, from a timed run of the first steps of scene 0.\n";

/* Number of contacts of a scene shorter than their scheme resolves, for
 * the approach the initial state gives. */
static int
short_contacts(const vb_scene *sc)
{
  int n = 0;
  for (int c = 0; c < sc->ncontacts; c++) {
    const vb_contact *ct = &sc->contacts[c];
    if (!vb_law_info_of(ct->law.kind) || !vb_law_info_of(ct->law.kind)->papetti)
      continue;
    double m;
    double v_in = vb_scene_approach_rate(sc, c, &m);
    if (!(v_in > 0.0))
      continue;
    vb_prediction pr;
    vb_law_predict(&ct->law, m, v_in, &pr);
    n += pr.duration * sc->fs < ct->scheme->min_contact_steps;
  }
  return n;
}

/* The size of a study and the head of its parameter table. */
static void
print_study(const vb_study *st)
{
  long n = vb_study_scenes(st), head = n < 8 ? n : 8;
  int np = vb_study_nparams(st);
  printf("study: %ld scenes, mode %s, %d parameter%s\n", n, vb_study_mode(st), np,
         np == 1 ? "" : "s");
  printf("  %8s", "scene");
  for (int p = 0; p < np; p++)
    printf("  %16s", vb_study_param(st, p));
  printf("\n");
  for (long i = 0; i < head; i++) {
    printf("  %8ld", i);
    for (int p = 0; p < np; p++)
      printf("  %16.10g", vb_study_value(st, i, p));
    printf("\n");
  }
  if (head < n)
    printf("  ... %ld more\n", n - head);
  printf("scene 0 of the study:\n");
}

/* Warn once for the scenes of a study (beyond scene 0) that have a contact
 * shorter than their scheme resolves; returns 1 if there are any.  The
 * steps of the whole study into *steps (from the scenes checked). */
static int
study_warnings(const vb_study *st, double *steps)
{
  const long *idx;
  long n = vb_study_checked(st, &idx), count = 0, first = -1;
  double sum = (double)vb_scene_steps(vb_study_first(st));
  char err[CLI_ERRLEN];
  /* the scenes the load validated: all, or those that stand for a huge sweep */
  for (long k = 1; k < n; k++) {
    long i = idx ? idx[k] : k;
    vb_scene *sc;
    if (vb_study_scene(st, i, &sc, err, sizeof err) != VB_OK)
      continue;
    sum += (double)vb_scene_steps(sc);
    if (short_contacts(sc)) {
      count++;
      if (first < 0)
        first = i;
    }
    vb_scene_free(sc);
  }
  /* the steps of every scene: those checked, scaled to the study */
  *steps = n > 0 ? sum / (double)n * (double)vb_study_scenes(st) : *steps;
  if (!count)
    return 0;
  printf("warning: %ld of the other %ld scenes%s have a contact shorter than its scheme "
         "resolves (first: scene %ld)\n",
         count, n - 1, idx ? " checked" : "", first);
  return 1;
}

/* The bodies of a scene, a line each. */
static void
print_bodies(const vb_scene *sc)
{
  for (int i = 0; i < sc->nbodies; i++) {
    const vb_body *b = &sc->bodies[i];
    /* the type when it is not the kind's own word: "oscillator, mass ..." */
    const char *own = b->kind == VB_BODY_MODAL ? "modal" : "mass";
    const char *type = b->type && strcmp(b->type, own) != 0 ? b->type : "";
    if (b->kind == VB_BODY_MASS && b->k > 0.0)
      printf("body '%s': %s%smass %g kg, u0 %g m, v0 %g m/s, on a spring to ground (%g Hz, "
             "zeta %g)\n",
             b->name, type, *type ? ", " : "", b->mass, b->u0, b->v0, b->freq[0],
             b->sigma[0] / (2.0 * M_PI * b->freq[0]));
    else if (b->kind == VB_BODY_MASS)
      printf("body '%s': %s%smass %g kg, u0 %g m, v0 %g m/s%s\n", b->name, type, *type ? ", " : "",
             b->mass, b->u0, b->v0, b->c > 0.0 ? ", on a damper to ground" : "");
    else if (b->kind == VB_BODY_MODAL)
      printf("body '%s': %s%smodal, %d modes (%g .. %g Hz), %d points\n", b->name, type,
             *type ? ", " : "", b->nmodes, b->freq[0], b->freq[b->nmodes - 1], b->npoints);
    else
      printf("body '%s': wall at %g m%s\n", b->name, b->u0,
             b->drive.kind == VB_DRIVE_NONE ? "" : ", driven");
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
    printf(", %s %g%s%s", p->key, vb_law_param_value(&ct->law, p),
           strcmp(p->units, "1") == 0 ? "" : " ", strcmp(p->units, "1") == 0 ? "" : p->units);
  if (info->alpha > 0.0 && !vb_law_param_of(ct->law.kind, "alpha"))
    printf(", alpha %g (fixed)", info->alpha);
}

/* When free flight from the initial state brings contact c to its
 * barrier, s, for the approach rate v_in it reaches it with (0 when it
 * starts engaged): p0 + v0 t + a0 t^2 / 2 = 0 with v0 + a0 t = v_in. */
static double
onset_time(const vb_scene *sc, int c, double v_in)
{
  double p0, v0, a0, m;
  vb_scene_contact_state(sc, c, &p0, &v0, &a0, &m);
  if (!(p0 < 0.0))
    return 0.0;
  if (a0 != 0.0)
    return (v_in - v0) / a0 > 0.0 ? (v_in - v0) / a0 : 0.0;
  return v0 > 0.0 ? -p0 / v0 : 0.0;
}

/* One contact: what it joins, its law and scheme, and what to expect of
 * its first impact.  Returns the number of warnings printed. */
static int
print_contact(const vb_scene *sc, int c)
{
  const vb_contact *ct = &sc->contacts[c];
  const vb_body *a = &sc->bodies[ct->a], *b = &sc->bodies[ct->b];
  double dt = 1.0 / sc->fs, m;
  double v_in = vb_scene_approach_rate(sc, c, &m);
  int warnings = 0;

  printf("contact '%s' between '%s%s%s' and '%s%s%s', law %s, scheme %s (%s)\n", ct->name, a->name,
         a->kind == VB_BODY_MODAL ? "." : "",
         a->kind == VB_BODY_MODAL ? a->points[ct->pa].name : "", b->name,
         b->kind == VB_BODY_MODAL ? "." : "",
         b->kind == VB_BODY_MODAL ? b->points[ct->pb].name : "", vb_law_name(ct->law.kind),
         ct->scheme->name, ct->scheme->doc);
  printf("  effective mass %g kg", m);
  print_law(ct);
  if (ct->corrections)
    printf(", corrections%s%s (vout %s)", ct->corrections & VB_CORRECT_XMAX ? " xmax" : "",
           ct->corrections & VB_CORRECT_VOUT ? " vout" : "", ct->vout_exact ? "exact" : "approx");
  printf("\n");
  if (ct->exact_duration) {
    double w, limit, used;
    vb_contact_exact_duration(sc, c, &w, &limit, &used);
    printf("  exact_duration: omega_c %.6g rad/s, contact time %.6g s = %.3g samples\n", w,
           M_PI / w, M_PI / w / dt);
    if (used != w) {
      printf("  warning: contact '%s' saturated: the sample rate resolves contacts down to "
             "%.6g s (%.3g samples), not the %.6g s this one lasts; it will last %.6g s\n",
             ct->name, M_PI / limit, M_PI / limit / dt, M_PI / w, M_PI / used);
      warnings++;
    }
  }
  const vb_law_info *info = vb_law_info_of(ct->law.kind);
  if (!info || !info->papetti) {
    printf("  no analytic x_max/v_out/contact time: law '%s' %s\n", vb_law_name(ct->law.kind),
           info && info->always_engaged ? "is always engaged"
                                        : "is not Papetti's f = k x^a (1 + mu x') (eq 1)");
    return warnings;
  }
  if (!(v_in > 0.0)) {
    printf("  no impact follows from the initial state\n");
    return warnings;
  }
  vb_prediction pr;
  vb_law_predict(&ct->law, m, v_in, &pr);
  double samples = pr.duration / dt;
  printf("  at v_in %.6g m/s: x_max %.6g m, v_out %.6g m/s (eq 7-8: %.6g), "
         "contact time %.6g s = %.3g samples\n",
         v_in, pr.x_max, pr.v_out_exact, pr.v_out, pr.duration, samples);
  if (samples < ct->scheme->min_contact_steps) {
    printf("  warning: contact '%s' lasts %.3g samples, shorter than the %d "
           "scheme '%s' resolves; raise fs above %.6g Hz\n",
           ct->name, samples, ct->scheme->min_contact_steps, ct->scheme->name,
           ct->scheme->min_contact_steps / pr.duration);
    warnings++;
  }
  double t_on = onset_time(sc, c, v_in);
  if (t_on + pr.duration > sc->duration) {
    printf("  warning: contact '%s' is predicted from %.6g s to %.6g s, after the scene ends "
           "at %.6g s: its v_out and cor will be NaN; make duration longer than %.6g s\n",
           ct->name, t_on, t_on + pr.duration, sc->duration, t_on + pr.duration);
    warnings++;
  }
  return warnings;
}

/* Seconds on a monotonic clock. */
static double
seconds(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* CPU seconds a step of the study's scene 0 takes here, from a run of its
 * first steps (at most 2000, fewer for a large model), or NaN. */
static double
step_cost(const vb_study *st)
{
  char err[CLI_ERRLEN];
  vb_scene *sc;
  vb_run *run;
  double cost = NAN;

  if (vb_study_scene(st, 0, &sc, err, sizeof err) != VB_OK)
    return NAN;
  long size = sc->ncontacts + 1;
  for (int b = 0; b < sc->nbodies; b++)
    size += sc->bodies[b].nmodes;
  long steps = vb_scene_steps(sc), n = 20000000 / size;
  n = n < 10 ? 10 : n > 2000 ? 2000 : n;
  n = n < steps ? n : steps;
  if (n > 0) {
    sc->duration = (double)n / sc->fs;
    if (vb_run_alloc(sc, &run, err, sizeof err) == VB_OK) {
      double t0 = seconds();
      vb_run_exec(run);
      cost = (seconds() - t0) / (double)vb_scene_steps(sc);
      vb_run_free(run);
    }
  }
  vb_scene_free(sc);
  return cost;
}

/* The study's totals: steps, recording bytes against the free space here
 * and this machine's memory, and the CPU time at scene 0's cost per step.
 * Returns the number of warnings printed. */
static int
print_totals(const vb_study *st, double steps)
{
  double bytes = vb_study_record_total(st), cost = step_cost(st), cpu = cost * steps;
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  double memory = pages > 0 && page > 0 ? (double)pages * (double)page : INFINITY;
  struct statvfs fs;
  int warnings = 0;

  printf("in all: %ld scene%s, %.6g steps, recording %.3g bytes, about %.3g s of CPU here "
         "(%.3g us a step, timed on scene 0)\n",
         vb_study_scenes(st), vb_study_scenes(st) == 1 ? "" : "s", steps, bytes, cpu, 1e6 * cost);
  if (statvfs(".", &fs) == 0 && bytes > (double)fs.f_bavail * (double)fs.f_frsize) {
    printf("warning: the recording needs up to %.3g bytes, only %.3g free on the current "
           "directory's file system (vibro run refuses that); raise record.every, select "
           "fewer signals (record.signals) or shorten the duration\n",
           bytes, (double)fs.f_bavail * (double)fs.f_frsize);
    warnings++;
  }
  if (vb_study_record_max(st) > memory) {
    printf("warning: a scene records up to %.3g bytes, more than this machine's %.3g bytes "
           "of memory, where a scene's recording is held while it runs; raise record.every "
           "or select fewer signals (record.signals)\n",
           vb_study_record_max(st), memory);
    warnings++;
  }
  return warnings;
}

/* Print the check of a loaded study; the number of warnings. */
static int
check_study(const vb_study *study)
{
  const vb_scene *sc = vb_study_first(study);
  int warnings = 0;

  if (vb_study_scenes(study) > 1)
    print_study(study);
  printf("scene '%s': fs %g Hz, duration %g s (%ld steps), gravity %g m/s^2\n", sc->name, sc->fs,
         sc->duration, vb_scene_steps(sc), sc->gravity);
  printf("recording: every %ld steps, %ld samples, %.3g bytes\n", sc->record_every,
         vb_scene_samples(sc), vb_scene_record_bytes(sc));
  print_bodies(sc);
  for (int c = 0; c < sc->ncontacts; c++)
    warnings += print_contact(sc, c);
  double steps = (double)vb_scene_steps(sc) * (double)vb_study_scenes(study);
  if (vb_study_scenes(study) > 1)
    warnings += study_warnings(study, &steps);
  warnings += print_totals(study, steps);
  return warnings;
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
  printf("%s: valid, %d warning%s\n", a.operands[0], warnings, warnings == 1 ? "" : "s");
  vb_study_free(study);
  cli_end(&a);
  return 0;
}

const cli_command cli_check = {
    .name = "check",
    .synopsis = "SCENE.cfg",
    .summary = "validate a scene and print what to expect",
    .description = description,
    .options = options,
    .main = check_main,
};
