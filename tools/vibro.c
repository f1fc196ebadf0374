/* vibro.c - the vibro command: run and check scene files. */
#include <errno.h>
#include <libgen.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include "vibro.h"
#include "inspect.h"

#define ERRLEN 1024

static const char usage_main[] =
  "usage: vibro COMMAND [OPTIONS]\n"
  "\n"
  "Multi-body vibro-impact simulation.\n"
  "\n"
  "commands:\n"
  "  run SCENE.cfg -o OUT.h5   simulate a scene and write the HDF5 output\n"
  "  check SCENE.cfg           validate a scene and print what to expect\n"
  "  info OUT.h5               an output file at a glance: scenes, status, impacts\n"
  "  events OUT.h5             the impact tables, as text or CSV\n"
  "  export OUT.h5 ...         a recorded signal as CSV or WAV\n"
  "\n"
  "Plots: vibro-plot --help.  Manual: man vibro.\n"
  "\n"
  "options:\n"
  "  -h, --help                this help (or `vibro COMMAND --help`)\n"
  "  -V, --version             print the version\n"
  "\n"
  "exit status: 0 success, 1 bad input or I/O error, 2 a scene did not finish\n"
  "(diverged, or Newton failed: the output file records why).\n";

static const char usage_run[] =
  "usage: vibro run SCENE.cfg -o OUT.h5 [--quiet]\n"
  "\n"
  "Simulate SCENE.cfg and write OUT.h5 (layout vibro-1, see README.md).\n"
  "The file appears only once it is complete.  Exit status 2 when the\n"
  "scene did not finish cleanly; its status attribute says why.\n";

static const char usage_check[] =
  "usage: vibro check SCENE.cfg\n"
  "\n"
  "Validate SCENE.cfg and print, per contact, its scheme, the analytic\n"
  "x_max, v_out and contact time for the initial approach velocity, the\n"
  "contact time in samples, and a warning where the sample rate is too low\n"
  "for the scheme (Papetti 3.3.2, Chatziioannou 2.1).\n";

/* True if s is -h or --help. */
static int
is_help(const char *s)
{
  return strcmp(s, "-h") == 0 || strcmp(s, "--help") == 0;
}

/* Impact rate a contact is expected to have, from its initial state and
 * gravity (free flight); 0 if no impact follows. */
static double
approach_rate(const vb_scene *sc, const vb_contact *ct)
{
  const vb_body *a = &sc->bodies[ct->a], *b = &sc->bodies[ct->b];
  double x0 = vb_law_penetration(&ct->law, a->u0 - b->u0 - ct->gap);
  double v0 = a->v0 - b->v0;
  double acc = 0.0;
  if (a->kind == VB_BODY_MASS && b->kind == VB_BODY_WALL)
    acc = -sc->gravity;
  else if (a->kind == VB_BODY_WALL && b->kind == VB_BODY_MASS)
    acc = sc->gravity;
  if (ct->law.kind == VB_LAW_RATTLE) {
    double x = a->u0 - b->u0 - ct->gap;
    if (x < 0.0) {
      v0 = -v0;
      acc = -acc;
    }
  }
  if (x0 > 0.0)
    return 0.0;
  double v2 = v0 * v0 - 2.0 * acc * x0;
  if (v0 <= 0.0 && acc <= 0.0)
    return 0.0;
  return v2 > 0.0 ? sqrt(v2) : 0.0;
}

/* vibro check */
static int
cmd_check(int argc, char **argv)
{
  if (argc < 2 || is_help(argv[1])) {
    fputs(usage_check, argc < 2 ? stderr : stdout);
    return argc < 2 ? 1 : 0;
  }
  char err[ERRLEN];
  vb_scene *sc;
  if (vb_scene_load(argv[1], &sc, err, sizeof err) != VB_OK) {
    fprintf(stderr, "%s\n", err);
    return 1;
  }
  double dt = 1.0 / sc->fs;
  int warnings = 0;
  printf("scene '%s': fs %g Hz, duration %g s (%ld steps), gravity %g m/s^2\n",
         sc->name, sc->fs, sc->duration, vb_scene_steps(sc), sc->gravity);
  printf("recording: every %ld steps, %ld samples, %.3g bytes\n", sc->record_every,
         vb_scene_samples(sc), vb_scene_record_bytes(sc));
  for (int i = 0; i < sc->nbodies; i++) {
    const vb_body *b = &sc->bodies[i];
    if (b->kind == VB_BODY_MASS)
      printf("body '%s': mass %g kg, u0 %g m, v0 %g m/s\n", b->name, b->mass, b->u0, b->v0);
    else
      printf("body '%s': wall at %g m\n", b->name, b->u0);
  }
  for (int c = 0; c < sc->ncontacts; c++) {
    const vb_contact *ct = &sc->contacts[c];
    const vb_body *a = &sc->bodies[ct->a], *b = &sc->bodies[ct->b];
    double m = a->kind == VB_BODY_WALL ? b->mass
             : b->kind == VB_BODY_WALL ? a->mass
             : a->mass * b->mass / (a->mass + b->mass);
    printf("island %d: contact '%s' between '%s' and '%s', law %s, scheme %s (%s)\n",
           c, ct->name, a->name, b->name, vb_law_name(ct->law.kind), ct->scheme->name,
           ct->scheme->doc);
    printf("  effective mass %g kg, k %g, alpha %g", m, ct->law.k, ct->law.alpha);
    if (ct->law.kind == VB_LAW_HUNT_CROSSLEY)
      printf(", mu %g s/m", ct->law.mu);
    if (ct->law.kind == VB_LAW_RATTLE)
      printf(", h %g m", ct->law.h);
    printf("\n");
    if (ct->law.kind == VB_LAW_POLYNOMIAL) {
      printf("  polynomial spring: always engaged, no impacts\n");
      continue;
    }
    double v_in = approach_rate(sc, ct);
    if (!(v_in > 0.0)) {
      printf("  no impact follows from the initial state\n");
      continue;
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
  }
  printf("%s: valid, %d warning%s\n", argv[1], warnings, warnings == 1 ? "" : "s");
  vb_scene_free(sc);
  return 0;
}

/* Refuse a recording that cannot fit on the output's file system. */
static int
check_disk(const char *out, double need, char *err, size_t errlen)
{
  char *copy = strdup(out);
  if (!copy)
    return 0;
  struct statvfs fs;
  int ok = statvfs(dirname(copy), &fs) == 0;
  free(copy);
  if (!ok)
    return 1; /* the writer reports a missing directory */
  double avail = (double)fs.f_bavail * (double)fs.f_frsize;
  if (need > avail) {
    snprintf(err, errlen, "%s: the recording needs up to %.3g bytes, only %.3g "
             "free on its file system; raise record.every or shorten the duration",
             out, need, avail);
    return 0;
  }
  return 1;
}

/* vibro run */
static int
cmd_run(int argc, char **argv)
{
  const char *scene_path = NULL, *out = NULL;
  int quiet = 0;
  for (int i = 1; i < argc; i++) {
    if (is_help(argv[i])) {
      fputs(usage_run, stdout);
      return 0;
    } else if (strcmp(argv[i], "-o") == 0 && i + 1 < argc) {
      out = argv[++i];
    } else if (strcmp(argv[i], "--quiet") == 0 || strcmp(argv[i], "-q") == 0) {
      quiet = 1;
    } else if (argv[i][0] == '-') {
      fprintf(stderr, "vibro run: unknown option '%s' (valid: -o, --quiet, --help)\n", argv[i]);
      return 1;
    } else if (!scene_path) {
      scene_path = argv[i];
    } else {
      fprintf(stderr, "vibro run: more than one scene file ('%s')\n", argv[i]);
      return 1;
    }
  }
  if (!scene_path || !out) {
    fputs(usage_run, stderr);
    return 1;
  }
  char err[ERRLEN];
  vb_scene *sc;
  if (vb_scene_load(scene_path, &sc, err, sizeof err) != VB_OK) {
    fprintf(stderr, "%s\n", err);
    return 1;
  }
  vb_run *run = NULL;
  if (!check_disk(out, vb_scene_record_bytes(sc), err, sizeof err)
      || vb_run_alloc(sc, &run, err, sizeof err) != VB_OK) {
    fprintf(stderr, "%s\n", err);
    vb_scene_free(sc);
    return 1;
  }
  int rc = vb_run_exec(run);
  const vb_run *runs[1] = { run };
  int wrc = vb_output_write(out, runs, 1, err, sizeof err);
  int status = 0;
  if (wrc != VB_OK) {
    fprintf(stderr, "%s\n", err);
    status = 1;
  } else {
    if (!quiet) {
      printf("scene '%s': %s, %ld samples", sc->name, vb_run_status(run), vb_run_samples(run));
      for (int c = 0; c < sc->ncontacts; c++) {
        const vb_contact_result *r = vb_run_contact(run, c);
        printf(", contact '%s': %ld impact%s", sc->contacts[c].name, r->nevents,
               r->nevents == 1 ? "" : "s");
      }
      printf(", energy balance error %.3g J -> %s\n", vb_run_balance_error(run), out);
    }
    for (int c = 0; c < sc->ncontacts; c++) {
      const vb_contact_result *r = vb_run_contact(run, c);
      if (r->fallbacks)
        fprintf(stderr, "warning: contact '%s': %ld quadratic steps had a negative "
                "discriminant and fell back to the three-point scheme\n",
                sc->contacts[c].name, r->fallbacks);
      if (r->newton_failures)
        fprintf(stderr, "warning: contact '%s': Newton did not converge in %ld steps\n",
                sc->contacts[c].name, r->newton_failures);
    }
    if (rc != VB_OK) {
      fprintf(stderr, "%s: scene '%s' did not finish: %s\n", scene_path, sc->name,
              vb_run_status(run));
      status = 2;
    }
  }
  vb_run_free(run);
  vb_scene_free(sc);
  return status;
}

int
main(int argc, char **argv)
{
  if (argc < 2) {
    fputs(usage_main, stderr);
    return 1;
  }
  if (is_help(argv[1])) {
    fputs(usage_main, stdout);
    return 0;
  }
  if (strcmp(argv[1], "-V") == 0 || strcmp(argv[1], "--version") == 0) {
    printf("vibro %s\n", vb_version());
    return 0;
  }
  if (strcmp(argv[1], "run") == 0)
    return cmd_run(argc - 1, argv + 1);
  if (strcmp(argv[1], "check") == 0)
    return cmd_check(argc - 1, argv + 1);
  if (strcmp(argv[1], "info") == 0)
    return cmd_info(argc - 1, argv + 1);
  if (strcmp(argv[1], "events") == 0)
    return cmd_events(argc - 1, argv + 1);
  if (strcmp(argv[1], "export") == 0)
    return cmd_export(argc - 1, argv + 1);
  fprintf(stderr, "vibro: unknown command '%s' (valid: run, check, info, events, export)\n",
          argv[1]);
  return 1;
}
