/* cmd_info.c - vibro info: an output file at a glance. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "h5check.h"
#include "h5read.h"
#include "formats.h"

#define DETAIL_ALL  10 /* info details every scene up to this many */
#define DETAIL_HEAD 3  /* ... and the first few beyond that */
#define FAILED_MAX  10 /* failed scenes info lists by name */

static const char description[] =
    "Print a vibro output at a glance: its format and source, how many scenes\n"
    "are done and which failed (with their status), and per scene its status,\n"
    "sample rate, bodies, contacts (law, scheme, impacts, Newton failures,\n"
    "fall-backs) and energy-balance error, absolute and relative to the\n"
    "scene's initial energy.  With more than 10 scenes only the first 3 are\n"
    "shown in detail, then totals (--all shows every scene).  The points of\n"
    "a distributed contact (contacts NAME[0], NAME[1], ...) are summed on one\n"
    "line per contact: impacts, on how many points, where most (--points\n"
    "lists each point).  A study's\n"
    "/study/table is summarised: rows, swept parameters (columns named by a\n"
    "parameter path, such as contacts.hit.k) with their ranges, other columns;\n"
    "scenes that /study/done does not mark complete are counted.\n"
    "On the layouts vibro-2 and -3 (doc/format.md) everything comes from /study/table\n"
    "and /model in one pass.  A study still running can be watched: give its\n"
    "OUT.h5 (not there yet) or OUT.h5.part, and the shards finished so far\n"
    "are read.\n";

/* Running totals of info over all scenes. */
typedef struct tally {
  namelist contacts; /* contact names met */
  long *impacts;     /* [contacts.n] impacts over all scenes */
  long *scenes;      /* [contacts.n] scenes that have the contact */
  long *least;       /* [contacts.n] fewest impacts in a scene */
  long *most;        /* [contacts.n] most impacts in a scene */
  double worst_abs;  /* largest |energy balance error|, J */
  char worst_abs_scene[PATH_LEN];
  double worst_rel; /* largest |error| / |initial energy| */
  double worst_rel_abs;
  char worst_rel_scene[PATH_LEN];
} tally;

/* Add a scene's impacts of contact name to the totals. */
static int
tally_contact(tally *t, const char *name, long impacts)
{
  long i = names_find(&t->contacts, name);

  if (i < 0) {
    size_t n = t->contacts.n + 1;
    long *a = realloc(t->impacts, n * sizeof *a), *b, *c, *d;
    if (a)
      t->impacts = a;
    b = realloc(t->scenes, n * sizeof *b);
    if (b)
      t->scenes = b;
    c = realloc(t->least, n * sizeof *c);
    if (c)
      t->least = c;
    d = realloc(t->most, n * sizeof *d);
    if (d)
      t->most = d;
    if (!a || !b || !c || !d || names_push(&t->contacts, name) < 0)
      return -1;
    i = (long)n - 1;
    t->impacts[i] = t->scenes[i] = t->most[i] = 0;
    t->least[i] = impacts;
  }
  t->impacts[i] += impacts;
  t->scenes[i]++;
  if (impacts < t->least[i])
    t->least[i] = impacts;
  if (impacts > t->most[i])
    t->most[i] = impacts;
  return 0;
}

/* Free the totals. */
static void
tally_free(tally *t)
{
  names_free(&t->contacts);
  free(t->impacts);
  free(t->scenes);
  free(t->least);
  free(t->most);
}

/* Print a count with its noun, plural when it is not 1. */
static void
print_count(long n, const char *noun)
{
  printf("%ld %s%s", n, noun, n == 1 ? "" : "s");
}

/* Print the bodies of a scene group: name and type. */
static int
print_bodies(const char *file, hid_t g)
{
  char path[PATH_LEN], text[TEXT_MAX];
  namelist bodies = {0};

  if (children(file, g, "bodies", &bodies) < 0)
    return -1;
  if (bodies.n) {
    printf("  bodies:");
    for (size_t i = 0; i < bodies.n; i++) {
      hid_t b;
      snprintf(path, sizeof path, "bodies/%s", bodies.v[i]);
      b = H5Oopen(g, path, H5P_DEFAULT);
      text[0] = '\0';
      if (b >= 0)
        attr_text(b, "type", text, sizeof text);
      close_id(b);
      printf("%s %s%s%s%s", i ? "," : "", bodies.v[i], text[0] ? " (" : "", text,
             text[0] ? ")" : "");
    }
    printf("\n");
  }
  names_free(&bodies);
  return 0;
}

/* The contacts of a scene group: law, scheme, impacts and counters, added
 * to the totals and, with detail, printed. */
static int
scene_contacts(const char *file, hid_t g, int detail, tally *t)
{
  char path[PATH_LEN], law[TEXT_MAX], scheme[TEXT_MAX];
  namelist contacts = {0};
  int rc = -1;

  if (children(file, g, "contacts", &contacts) < 0)
    return -1;
  for (size_t i = 0; i < contacts.n; i++) {
    double failures = NAN, fallbacks = NAN;
    long impacts;
    hid_t c;
    snprintf(path, sizeof path, "contacts/%s", contacts.v[i]);
    c = H5Oopen(g, path, H5P_DEFAULT);
    if (c < 0)
      continue;
    attr_text(c, "law", law, sizeof law);
    attr_text(c, "scheme", scheme, sizeof scheme);
    attr_number(c, "newton_failures", &failures);
    attr_number(c, "fallbacks", &fallbacks);
    impacts = dataset_rows(c, "events");
    close_id(c);
    if (tally_contact(t, contacts.v[i], impacts > 0 ? impacts : 0) < 0) {
      cli_complain(file, "out of memory");
      goto done;
    }
    if (!detail)
      continue;
    printf("  contact '%s': %s, %s, ", contacts.v[i], law[0] ? law : "law ?",
           scheme[0] ? scheme : "scheme ?");
    if (impacts >= 0)
      print_count(impacts, "impact");
    else
      printf("no event table");
    if (failures > 0)
      printf(", %.0f Newton failures", failures);
    if (fallbacks > 0)
      printf(", %.0f quadratic fall-backs", fallbacks);
    printf("\n");
  }
  rc = 0;
done:
  names_free(&contacts);
  return rc;
}

/* The energy balance of a scene, relative to the energy that went through
 * it (the initial energy plus the work done on it): printed with detail,
 * and the worst kept in the totals. */
static void
scene_balance(hid_t g, double balance, const char *who, int detail, tally *t)
{
  double e0 = first_value(g, "energy/total");
  double work = has_object(g, "energy/external") ? last_value(g, "energy/external") : 0.0;
  double scale = fabs(e0) + (isfinite(work) ? fabs(work) : 0.0);
  double rel = isfinite(scale) && scale != 0.0 ? fabs(balance / scale) : NAN;

  if (!isfinite(balance))
    return;
  if (detail) {
    printf("  energy balance error %.3g J", balance);
    if (isfinite(rel))
      printf(" = %.3g of the initial energy plus the work done, %.6g J", rel, scale);
    printf("\n");
  }
  if (!(fabs(balance) <= t->worst_abs)) {
    t->worst_abs = fabs(balance);
    text_format(t->worst_abs_scene, sizeof t->worst_abs_scene, "%s", who);
  }
  if (isfinite(rel) && !(rel <= t->worst_rel)) {
    t->worst_rel = rel;
    t->worst_rel_abs = balance;
    text_format(t->worst_rel_scene, sizeof t->worst_rel_scene, "%s", who);
  }
}

/* Read one scene for info: add it to the totals and, when detail is set,
 * print it.  Returns 0, or -1 after a message. */
static int
info_scene(const char *file, hid_t scenes_group, const char *group, int detail, tally *t)
{
  char name[TEXT_MAX], status[TEXT_MAX], label[PATH_LEN], who[TEXT_MAX];
  double fs, duration, every, balance;
  long samples;
  hid_t g;
  int rc = -1;

  g = H5Gopen2(scenes_group, group, H5P_DEFAULT);
  if (g < 0)
    return cli_complain(file, "cannot open scene group /scenes/%s", group);
  attr_text(g, "name", name, sizeof name);
  if (attr_text(g, "status", status, sizeof status) < 0)
    snprintf(status, sizeof status, "no status");
  attr_number(g, "fs", &fs);
  attr_number(g, "duration", &duration);
  attr_number(g, "record_every", &every);
  attr_number(g, "energy_balance_error", &balance);
  samples = signal_length(g, "time");
  scene_label(group, label, sizeof label);
  if (detail) {
    printf("scene %s '%s': %s", label, name, status);
    if (isfinite(fs))
      printf("; fs %g Hz", fs);
    if (samples >= 0) {
      printf(", ");
      print_count(samples, "sample");
    }
    if (isfinite(every) && every != 1.0)
      printf(" (every %g steps)", every);
    if (isfinite(duration))
      printf(", %g s", duration);
    printf("\n");
    if (print_bodies(file, g) < 0)
      goto done;
  }
  if (scene_contacts(file, g, detail, t) < 0)
    goto done;
  text_format(who, sizeof who, "%s '%s'", label, name);
  scene_balance(g, balance, who, detail, t);
  rc = 0;
done:
  close_id(g);
  return rc;
}

/* Compare doubles for qsort. */
static int
cmp_double(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* True if a /study/table column is a swept parameter: named by its
 * parameter path (contacts.hit.k), which has a dot, unlike the summary
 * columns (impacts:hit, final_energy). */
static int
is_swept(const char *column)
{
  return strchr(column, '.') && !strchr(column, ':');
}

/* Summarise /study/table: rows, the swept parameters with their ranges,
 * the other columns.  Nothing for a plain scene's one-row table. */
static int
info_study(const char *file, hid_t fid)
{
  hid_t ds = H5I_INVALID_HID, ftype = H5I_INVALID_HID, study = H5I_INVALID_HID;
  namelist swept = {0}, other = {0};
  double *col = NULL;
  char list[CHOICES_MAX + 16], mode[TEXT_MAX];
  long rows;
  int nmembers, rc = -1;

  rows = dataset_rows(fid, "study/table");
  if (rows < 0)
    return 0;
  ds = H5Dopen2(fid, "study/table", H5P_DEFAULT);
  ftype = ds < 0 ? H5I_INVALID_HID : H5Dget_type(ds);
  if (ftype < 0 || H5Tget_class(ftype) != H5T_COMPOUND) {
    printf("study table: not a table of named columns\n");
    rc = 0;
    goto done;
  }
  nmembers = H5Tget_nmembers(ftype);
  for (int m = 0; m < nmembers; m++) {
    char *name = H5Tget_member_name(ftype, (unsigned)m);
    H5T_class_t cls = H5Tget_member_class(ftype, (unsigned)m);
    int numeric = cls == H5T_FLOAT || cls == H5T_INTEGER;
    if (!name)
      continue;
    if (names_push(numeric && is_swept(name) ? &swept : &other, name) < 0) {
      H5free_memory(name);
      cli_complain(file, "out of memory");
      goto done;
    }
    H5free_memory(name);
  }
  if (swept.n == 0 && rows <= 1) {
    rc = 0;
    goto done;
  }
  printf("study table: ");
  print_count(rows, "row");
  study = H5Gopen2(fid, "study", H5P_DEFAULT);
  if (study >= 0 && attr_text(study, "mode", mode, sizeof mode) == 0 && mode[0])
    printf(", sweep mode %s", mode);
  printf("\n");
  col = malloc((size_t)(rows ? rows : 1) * sizeof *col);
  if (!col) {
    cli_complain(file, "out of memory");
    goto done;
  }
  for (size_t i = 0; i < swept.n && rows > 0; i++) {
    hid_t mtype = H5Tcreate(H5T_COMPOUND, sizeof(double));
    long distinct = 0;
    if (mtype >= 0 && H5Tinsert(mtype, swept.v[i], 0, H5T_NATIVE_DOUBLE) >= 0 &&
        H5Dread(ds, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, col) >= 0) {
      qsort(col, (size_t)rows, sizeof *col, cmp_double);
      for (long r = 0; r < rows; r++)
        distinct += r == 0 || col[r] != col[r - 1];
      printf("  swept %s: %.6g .. %.6g, ", swept.v[i], col[0], col[rows - 1]);
      print_count(distinct, "value");
      printf("\n");
    }
    close_id(mtype);
  }
  if (!swept.n)
    printf("  no swept parameter columns\n");
  names_join(&other, list, sizeof list);
  printf("  other columns: %s\n", list);
  rc = 0;
done:
  free(col);
  names_free(&other);
  names_free(&swept);
  close_id(study);
  close_id(ftype);
  close_id(ds);
  return rc;
}

/* Number of scenes /study/done does not mark complete (0 when absent). */
static long
not_done(hid_t fid)
{
  long n = signal_length(fid, "study/done"), missing = 0;
  double *buf;
  hid_t ds;

  if (n <= 0)
    return 0;
  buf = malloc(BLOCK * sizeof *buf);
  ds = buf ? H5Dopen2(fid, "study/done", H5P_DEFAULT) : H5I_INVALID_HID;
  for (long start = 0; ds >= 0 && start < n; start += BLOCK) {
    long count = n - start < BLOCK ? n - start : BLOCK;
    if (read_block(ds, (hsize_t)start, (hsize_t)count, buf) < 0)
      break;
    for (long i = 0; i < count; i++)
      missing += buf[i] == 0.0;
  }
  close_id(ds);
  free(buf);
  return missing;
}

/* The headline: format, writer and source of the file. */
static void
print_header(const char *file, hid_t fid, const char *format)
{
  char text[TEXT_MAX], source[TEXT_MAX];
  hid_t root = H5Gopen2(fid, "/", H5P_DEFAULT);

  printf("%s: %s", file, format);
  if (root >= 0 && attr_text(root, "vibro_version", text, sizeof text) == 0)
    printf(", written by vibro %s", text);
  if (root >= 0 && attr_text(root, "source", source, sizeof source) == 0 && source[0])
    printf(", from %s", source);
  printf("\n");
  close_id(root);
}

/* Count the scenes whose status is done; list the others in failed. */
static int
scan_status(const char *file, hid_t sg, const namelist *scenes, long *done, namelist *failed)
{
  char status[TEXT_MAX], name[TEXT_MAX], label[PATH_LEN], text[TEXT_MAX];

  for (size_t i = 0; i < scenes->n; i++) {
    hid_t g = H5Gopen2(sg, scenes->v[i], H5P_DEFAULT);
    if (g < 0 || attr_text(g, "status", status, sizeof status) < 0)
      snprintf(status, sizeof status, "no status");
    attr_text(g, "name", name, sizeof name);
    close_id(g);
    if (strcmp(status, "done") == 0) {
      (*done)++;
      continue;
    }
    scene_label(scenes->v[i], label, sizeof label);
    text_format(text, sizeof text, "scene %s '%s': %s", label, name, status);
    if (names_push(failed, text) < 0)
      return cli_complain(file, "out of memory");
  }
  return 0;
}

/* The totals after the scenes: per contact, failures, worst balances. */
static void
print_totals(const tally *t, const namelist *failed, size_t nscenes, long detailed)
{
  if ((size_t)detailed < nscenes) {
    printf("... %zu more scenes (vibro info --all shows each)\n", nscenes - (size_t)detailed);
    for (size_t c = 0; c < t->contacts.n; c++) {
      printf("contact '%s': ", t->contacts.v[c]);
      print_count(t->impacts[c], "impact");
      printf(" in ");
      print_count(t->scenes[c], "scene");
      printf(", %ld to %ld per scene\n", t->least[c], t->most[c]);
    }
  }
  for (size_t i = 0; i < failed->n && i < FAILED_MAX; i++)
    printf("failed: %s\n", failed->v[i]);
  if (failed->n > FAILED_MAX)
    printf("failed: ... and %zu more\n", failed->n - FAILED_MAX);
  if (t->worst_rel >= 0.0)
    printf("worst energy balance error: %.3g J = %.3g of the initial energy plus the work "
           "done, scene %s\n",
           t->worst_rel_abs, t->worst_rel, t->worst_rel_scene);
  if (t->worst_abs >= 0.0 &&
      (t->worst_rel < 0.0 || strcmp(t->worst_abs_scene, t->worst_rel_scene) != 0))
    printf("largest absolute energy balance error: %.3g J, scene %s\n", t->worst_abs,
           t->worst_abs_scene);
}

/* vibro-1 (formats.h): print the whole report of the file (points: its
 * report has no per-contact summary of points to expand). */
int
info_v1(const char *file, const output_files *of, int all, int points)
{
  hid_t fid = of->fid[0];
  const char *format = of->format;
  (void)points;
  namelist scenes = {0}, failed = {0};
  tally t = {0};
  hid_t sg = H5I_INVALID_HID;
  long done = 0, detailed = 0, rows, missing;
  int rc = -1;

  t.worst_abs = t.worst_rel = -1.0;
  print_header(file, fid, format);
  if (children(file, fid, "scenes", &scenes) < 0)
    goto done;
  sg = scenes.n ? H5Gopen2(fid, "scenes", H5P_DEFAULT) : H5I_INVALID_HID;
  if (scenes.n && sg < 0) {
    cli_complain(file, "cannot open /scenes");
    goto done;
  }
  if (scan_status(file, sg, &scenes, &done, &failed) < 0)
    goto done;
  print_count((long)scenes.n, "scene");
  printf(": %ld done, %zu failed", done, failed.n);
  rows = dataset_rows(fid, "study/table");
  if (rows > (long)scenes.n)
    printf(", %ld not written (the study table has %ld rows)", rows - (long)scenes.n, rows);
  missing = not_done(fid);
  if (missing > 0)
    printf(", %ld not marked complete in /study/done (vibro run --resume)", missing);
  printf("\n");
  for (size_t i = 0; i < scenes.n; i++) {
    int detail = all || scenes.n <= DETAIL_ALL || i < DETAIL_HEAD;
    if (info_scene(file, sg, scenes.v[i], detail, &t) < 0)
      goto done;
    detailed += detail;
  }
  print_totals(&t, &failed, scenes.n, detailed);
  rc = info_study(file, fid);
done:
  tally_free(&t);
  names_free(&failed);
  names_free(&scenes);
  close_id(sg);
  return rc;
}

enum { OPT_ALL = 256, OPT_POINTS };

static const cli_option options[] = {
    {OPT_ALL, "all", NULL, "detail every scene, however many"},
    {OPT_POINTS, "points", NULL, "list a distributed contact's points one by one"},
    {0, NULL, NULL, NULL},
};

/* vibro info */
static int
info_main(const cli_command *cmd, int argc, char **argv)
{
  output_files of;
  cli_args a;
  int all = 0, points = 0, key, rc;

  cli_begin(&a, cmd, argc, argv);
  while ((key = cli_next(&a)) > 0 && key != 'h')
    if (key == OPT_ALL)
      all = 1;
    else if (key == OPT_POINTS)
      points = 1;
  if (outputs_operand(&a, key, &of, &rc) < 0)
    return rc;
  rc = of.reader->info(a.operands[0], &of, all, points) < 0;
  outputs_close(&of);
  cli_end(&a);
  return rc;
}

const cli_command cli_info = {
    .name = "info",
    .synopsis = "OUT.h5 [--all] [--points]",
    .summary = "an output file at a glance: scenes, status, impacts",
    .description = description,
    .options = options,
    .main = info_main,
};
