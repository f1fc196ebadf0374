/* info2.c - vibro info on the layout vibro-2 (doc/format.md): everything
 * comes from /study/table, read block by block, and /model, so a study of
 * any size is summarised in one pass over one table, in bounded memory;
 * the shards of a running study are read as they are listed. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "h5read.h"
#include "formats.h"
#include "points.h"
#include "info_analysis.h"

#define ROWS_AT_ONCE 4096 /* rows read at once, at most */
#define ROWS_BYTES   (16.0 * 1024 * 1024) /* and at most this many bytes of them */
#define FAILED_MAX   10

/* What one pass over the table gathers. */
typedef struct summary {
  long rows, done, failed;
  long gained; /* of the done, those whose energy rose past what they can hold
                  (status "done, energy gain ...": lib/run/run.c's done_status) */
  long engaged, engaged_first;  /* scenes that ended inside an impact, the first */
  namelist failures;            /* the first FAILED_MAX failed scenes, as text */
  namelist gains;               /* the first FAILED_MAX of the gained, as text */
  namelist contacts;            /* contact names, from the impacts:C columns */
  long *impacts, *least, *most; /* [contacts.n] totals, fewest and most a scene */
  double worst;                 /* largest |energy balance error|, J */
  long worst_scene;
  namelist swept; /* swept parameter columns */
  double *values; /* [swept.n][rows] their values */
  long events;    /* rows of /study/events */
  analysis_summary analysis; /* the orbits (issue 20), when the table has them */
  int points;                /* list a distributed contact's points one by one */
} summary;

/* The columns of a table that name contacts: impacts:C. */
static int
find_contacts(const rows_reader *r, summary *s)
{
  for (size_t m = 0; m < r->names.n; m++)
    if (strncmp(r->names.v[m], "impacts:", 8) == 0 &&
        names_find(&s->contacts, r->names.v[m] + 8) < 0 &&
        names_push(&s->contacts, r->names.v[m] + 8) < 0)
      return -1;
  s->impacts = calloc(s->contacts.n + 1, sizeof *s->impacts);
  s->least = calloc(s->contacts.n + 1, sizeof *s->least);
  s->most = calloc(s->contacts.n + 1, sizeof *s->most);
  return s->impacts && s->least && s->most ? 0 : -1;
}

/* Sample k of row `row` of a [scene][time] signal in /signals, or NaN. */
static double
signal_cell(hid_t fid, const char *name, long row, long k)
{
  char path[PATH_LEN];
  hid_t ds, space, mem;
  hsize_t dims[2], at[2] = {(hsize_t)row, (hsize_t)k}, one[2] = {1, 1};
  double v = NAN;

  text_format(path, sizeof path, "signals/%s", name);
  if (row < 0 || k < 0 || !has_object(fid, path) || is_group(fid, path))
    return NAN;
  ds = H5Dopen2(fid, path, H5P_DEFAULT);
  space = ds >= 0 ? H5Dget_space(ds) : H5I_INVALID_HID;
  mem = H5Screate_simple(2, one, NULL);
  if (space >= 0 && mem >= 0 && H5Sget_simple_extent_ndims(space) == 2 &&
      H5Sget_simple_extent_dims(space, dims, NULL) == 2 && at[0] < dims[0] && at[1] < dims[1] &&
      (H5Sselect_hyperslab(space, H5S_SELECT_SET, at, NULL, one, NULL) < 0 ||
       H5Dread(ds, H5T_NATIVE_DOUBLE, mem, space, H5P_DEFAULT, &v) < 0))
    v = NAN;
  close_id(mem);
  close_id(space);
  close_id(ds);
  return v;
}

/* A scene's balance error, absolute and relative to the energy that went
 * through it (its initial energy plus the work done on it, from row
 * `at` of the file's /signals, as vibro-1's info has it); at -1 (a
 * vibro-2 file, printed as vibro-2's info did): absolute only. */
static void
print_balance(hid_t fid, long at, double balance, double samples)
{
  long last = isfinite(samples) ? (long)samples - 1 : -1;
  double e0 = signal_cell(fid, "energy.total", at, 0);
  double work = has_object(fid, "signals/energy.external")
                    ? signal_cell(fid, "energy.external", at, last)
                    : 0.0;
  double scale = fabs(e0) + (isfinite(work) ? fabs(work) : 0.0);

  printf("  energy balance error %.3g J", balance);
  if (isfinite(balance) && isfinite(scale) && scale > 0.0)
    printf(" = %.3g of the initial energy plus the work done, %.6g J", fabs(balance / scale),
           scale);
  else if (isfinite(balance) && at >= 0 && !isfinite(e0))
    printf(" (energy.total not recorded: no relative error)");
  printf("\n");
}

/* How many contacts from c on are the points of one distributed contact,
 * named BASE[0], BASE[1], ... in order (lib/scene_distributed.c's
 * expansion); 1 for any other name. */
static size_t
point_run(const namelist *names, size_t c)
{
  const char *first = names->v[c];
  size_t len = strlen(first), n = 1;
  char want[NAME_LEN + 32];

  if (len < 4 || strcmp(first + len - 3, "[0]") != 0)
    return 1;
  while (c + n < names->n) {
    text_format(want, sizeof want, "%.*s[%zu]", (int)(len - 3), first, n);
    if (strcmp(names->v[c + n], want) != 0)
      break;
    n++;
  }
  return n;
}

/* The law and scheme of contact `name` from /model ("" when absent);
 * law and scheme hold TEXT_MAX. */
static void
contact_law(hid_t model, const char *name, char *law, char *scheme)
{
  char path[PATH_LEN];
  hid_t g;

  text_format(path, sizeof path, "contacts/%s", name);
  law[0] = scheme[0] = '\0';
  g = has_object(model, path) ? H5Gopen2(model, path, H5P_DEFAULT) : H5I_INVALID_HID;
  if (g >= 0) {
    attr_text(g, "law", law, TEXT_MAX);
    attr_text(g, "scheme", scheme, TEXT_MAX);
  }
  close_id(g);
}

/* Cell `what`:`contact` of a row (NaN when the column is absent). */
static double
contact_cell(const rows_reader *r, const unsigned char *row, const char *what, const char *contact)
{
  char column[NAME_LEN + 32];
  text_format(column, sizeof column, "%s:%s", what, contact);
  return rows_number(r, row, rows_column(r, column));
}

/* One point contact's line of a scene's detail. */
static void
print_contact(const rows_reader *r, const unsigned char *row, const char *name, const char *law,
              const char *scheme)
{
  double failures = contact_cell(r, row, "newton_failures", name);
  double fallbacks = contact_cell(r, row, "fallbacks", name);

  double nimp = contact_cell(r, row, "impacts", name);
  printf("  contact '%s': %s, %s, %.0f impact%s", name, law[0] ? law : "law ?",
         scheme[0] ? scheme : "scheme ?", nimp, nimp == 1.0 ? "" : "s");
  if (failures > 0)
    printf(", %.0f Newton failures", failures);
  if (fallbacks > 0)
    printf(", %.0f quadratic fall-backs", fallbacks);
  if (contact_cell(r, row, "engaged_at_end", name) > 0)
    printf(", still closed at the end (the last impact unfinished: NaN v_out)");
  printf("\n");
}

/* The n points of a distributed contact from contact c on, as one line of
 * a scene's detail: impacts over all points and where, Newton failures,
 * fall-backs, points still closed at the end (--points lists each). */
static void
print_points(const rows_reader *r, const unsigned char *row, const summary *s, size_t c,
             size_t n, const char *law, const char *scheme)
{
  const char *first = s->contacts.v[c];
  double impacts = 0.0, failures = 0.0, fallbacks = 0.0, most = -1.0;
  size_t hit = 0, engaged = 0, at = c;

  for (size_t p = c; p < c + n; p++) {
    double v = contact_cell(r, row, "impacts", s->contacts.v[p]);
    if (v > 0) {
      impacts += v;
      hit++;
    }
    if (v > most) {
      most = v;
      at = p;
    }
    v = contact_cell(r, row, "newton_failures", s->contacts.v[p]);
    failures += v > 0 ? v : 0.0;
    v = contact_cell(r, row, "fallbacks", s->contacts.v[p]);
    fallbacks += v > 0 ? v : 0.0;
    engaged += contact_cell(r, row, "engaged_at_end", s->contacts.v[p]) > 0;
  }
  printf("  contact '%.*s': %zu points (%s .. %s), %s, %s, %.0f impacts on %zu points",
         (int)(strlen(first) - 3), first, n, first, s->contacts.v[c + n - 1],
         law[0] ? law : "law ?", scheme[0] ? scheme : "scheme ?", impacts, hit);
  if (most > 0)
    printf(" (most %.0f, at %s)", most, s->contacts.v[at]);
  if (failures > 0)
    printf(", %.0f Newton failures", failures);
  if (fallbacks > 0)
    printf(", %.0f quadratic fall-backs", fallbacks);
  if (engaged > 0)
    printf(", %zu points still closed at the end (their last impact unfinished: NaN v_out)",
           engaged);
  printf("\n");
}

/* The detail of one scene (row `at` of file fid): status, swept values,
 * contacts, balance. */
static void
print_scene(hid_t fid, long at, hid_t model, const rows_reader *r, const unsigned char *row,
            const summary *s, const char *name)
{
  char law[TEXT_MAX], scheme[TEXT_MAX];
  double samples = rows_number(r, row, rows_column(r, "samples"));
  double interval = rows_number(r, row, rows_column(r, "sample_interval"));

  printf("scene %.0f '%s': %s", rows_number(r, row, rows_column(r, "index")), name,
         rows_text(r, row, rows_column(r, "status")));
  if (isfinite(samples))
    printf("; %.0f samples", samples);
  if (interval > 0.0)
    printf(" at %g Hz", 1.0 / interval);
  for (size_t p = 0; p < s->swept.n; p++)
    printf("%s %s %g", p ? "," : ";", s->swept.v[p],
           rows_number(r, row, rows_column(r, s->swept.v[p])));
  printf("\n");
  for (size_t c = 0, n; c < s->contacts.n; c += n) {
    n = s->points ? 1 : point_run(&s->contacts, c);
    contact_law(model, s->contacts.v[c], law, scheme);
    if (n > 1)
      print_points(r, row, s, c, n, law, scheme);
    else
      print_contact(r, row, s->contacts.v[c], law, scheme);
  }
  print_balance(fid, at, rows_number(r, row, rows_column(r, "energy_balance_error")), samples);
  analysis_print_scene(r, row);
}

/* Add one row to the summary. */
static int
add_row(const rows_reader *r, const unsigned char *row, summary *s)
{
  double index = rows_number(r, row, rows_column(r, "index"));
  double balance = rows_number(r, row, rows_column(r, "energy_balance_error"));
  char text[TEXT_MAX];

  if (rows_number(r, row, rows_column(r, "status_code")) == 0.0) {
    static const char gain[] = "done, energy gain";
    const char *status = rows_text(r, row, rows_column(r, "status"));
    s->done++;
    if (strncmp(status, gain, sizeof gain - 1) == 0 && s->gained++ < FAILED_MAX) {
      text_format(text, sizeof text, "scene %.0f: %s", index, status);
      if (names_push(&s->gains, text) < 0)
        return -1;
    }
  } else {
    s->failed++;
    text_format(text, sizeof text, "scene %.0f: %s", index,
                rows_text(r, row, rows_column(r, "status")));
    if (s->failures.n < FAILED_MAX && names_push(&s->failures, text) < 0)
      return -1;
  }
  int engaged = 0;
  for (size_t c = 0; c < s->contacts.n; c++) {
    char column[NAME_LEN + 32];
    text_format(column, sizeof column, "engaged_at_end:%s", s->contacts.v[c]);
    engaged |= rows_number(r, row, rows_column(r, column)) > 0;
    text_format(column, sizeof column, "impacts:%s", s->contacts.v[c]);
    double v = rows_number(r, row, rows_column(r, column));
    long n = isfinite(v) ? (long)v : 0;
    s->impacts[c] += n;
    if (s->rows == 0 || n < s->least[c])
      s->least[c] = n;
    if (s->rows == 0 || n > s->most[c])
      s->most[c] = n;
  }
  if (engaged && s->engaged++ == 0)
    s->engaged_first = (long)index;
  analysis_add(r, row, &s->analysis);
  if (isfinite(balance) && !(fabs(balance) <= s->worst)) {
    s->worst = fabs(balance);
    s->worst_scene = (long)index;
  }
  return 0;
}

/* One pass over the table of every file: the summary, and the detail of
 * the scenes chosen (the first `detail` rows). */
static int
scan_tables(const char *file, const output_files *of, long total, long detail, const char *name,
            summary *s)
{
  unsigned char *buf = NULL;
  long block;
  int rc = -1;

  for (int f = 0; f < of->n; f++) {
    rows_reader r;
    hid_t model;
    if (rows_open(of->fid[f], "study/table", &r) < 0)
      continue;
    model = H5Gopen2(of->fid[f], "model", H5P_DEFAULT);
    /* rows at once: ROWS_AT_ONCE, or fewer when a row is wide (10,000
     * contacts make a row of 560 kB) */
    block = (long)(ROWS_BYTES / (double)(r.row ? r.row : 8));
    block = block < 1 ? 1 : block > ROWS_AT_ONCE ? ROWS_AT_ONCE : block;
    free(buf);
    if (!(buf = malloc((size_t)block * (r.row ? r.row : 8)))) {
      rows_close(&r);
      close_id(model);
      return cli_complain(file, "out of memory");
    }
    for (long start = 0; start < r.rows; start += block) {
      long count = r.rows - start < block ? r.rows - start : block;
      if (rows_read(&r, (hsize_t)start, (hsize_t)count, buf) < 0) {
        cli_complain(file, "cannot read /study/table");
        rows_close(&r);
        close_id(model);
        goto done;
      }
      for (long i = 0; i < count; i++) {
        const unsigned char *row = buf + (size_t)i * r.row;
        if (s->rows < detail)
          print_scene(of->fid[f], of->reader->table_rows ? start + i : -1, model, &r, row, s, name);
        if (add_row(&r, row, s) < 0) {
          cli_complain(file, "out of memory");
          rows_close(&r);
          close_id(model);
          goto done;
        }
        for (size_t p = 0; p < s->swept.n; p++)
          s->values[p * (size_t)total + (size_t)s->rows] =
              rows_number(&r, row, rows_column(&r, s->swept.v[p]));
        s->rows++;
      }
    }
    s->events +=
        dataset_rows(of->fid[f], "study/events") > 0 ? dataset_rows(of->fid[f], "study/events") : 0;
    analysis_add_file(of->fid[f], &s->analysis);
    rows_close(&r);
    close_id(model);
  }
  rc = 0;
done:
  free(buf);
  return rc;
}

/* Compare doubles for qsort. */
static int
cmp_double(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* The study's parameters: ranges and distinct values, with units. */
static void
print_params(hid_t fid, const summary *s)
{
  namelist units = {0};
  hid_t study = H5Gopen2(fid, "study", H5P_DEFAULT);
  char mode[TEXT_MAX];

  printf("study table: %ld row%s", s->rows, s->rows == 1 ? "" : "s");
  if (study >= 0 && attr_text(study, "mode", mode, sizeof mode) == 0 && mode[0])
    printf(", sweep mode %s", mode);
  printf("\n");
  if (study >= 0)
    attr_strings(study, "param_units", &units);
  for (size_t p = 0; p < s->swept.n && s->rows > 0; p++) {
    double *v = s->values + p * (size_t)s->rows;
    long distinct = 0;
    qsort(v, (size_t)s->rows, sizeof *v, cmp_double);
    for (long i = 0; i < s->rows; i++)
      distinct += i == 0 || v[i] != v[i - 1];
    printf("  swept %s: %.6g .. %.6g%s%s, %ld value%s\n", s->swept.v[p], v[0], v[s->rows - 1],
           p < units.n ? " " : "", p < units.n ? units.v[p] : "", distinct,
           distinct == 1 ? "" : "s");
  }
  if (!s->swept.n)
    printf("  no swept parameters\n");
  names_free(&units);
  close_id(study);
}

/* The totals after the scenes. */
static void
print_totals(const summary *s, long detailed)
{
  if (detailed < s->rows) {
    printf("... %ld more scenes (vibro info --all shows each)\n", s->rows - detailed);
    for (size_t c = 0, n; c < s->contacts.n; c += n) {
      long impacts = 0, most = 0;
      n = s->points ? 1 : point_run(&s->contacts, c);
      for (size_t p = c; p < c + n; p++) {
        impacts += s->impacts[p];
        most = s->most[p] > most ? s->most[p] : most;
      }
      if (n > 1)
        printf("contact '%.*s' (%zu points): %ld impact%s in %ld scene%s, at most %ld a point "
               "in a scene\n",
               (int)(strlen(s->contacts.v[c]) - 3), s->contacts.v[c], n, impacts,
               impacts == 1 ? "" : "s", s->rows, s->rows == 1 ? "" : "s", most);
      else
        printf("contact '%s': %ld impact%s in %ld scene%s, %ld to %ld per scene\n",
               s->contacts.v[c], s->impacts[c], s->impacts[c] == 1 ? "" : "s", s->rows,
               s->rows == 1 ? "" : "s", s->least[c], s->most[c]);
    }
  }
  for (size_t i = 0; i < s->gains.n; i++)
    printf("energy gain: %s\n", s->gains.v[i]);
  if (s->gained > (long)s->gains.n)
    printf("energy gain: ... and %ld more\n", s->gained - (long)s->gains.n);
  for (size_t i = 0; i < s->failures.n; i++)
    printf("failed: %s\n", s->failures.v[i]);
  if (s->failed > (long)s->failures.n)
    printf("failed: ... and %ld more\n", s->failed - (long)s->failures.n);
  if (s->engaged > 0)
    printf("ended inside an impact: %ld scene%s (engaged_at_end; first: scene %ld): the last "
           "impact has NaN v_out and cor\n",
           s->engaged, s->engaged == 1 ? "" : "s", s->engaged_first);
  if (s->worst >= 0.0)
    printf("largest absolute energy balance error: %.3g J, scene %ld\n", s->worst, s->worst_scene);
  printf("study events: %ld impact%s in /study/events\n", s->events, s->events == 1 ? "" : "s");
  analysis_print(&s->analysis);
}

/* The model every scene shares: its name and bodies. */
static void
print_model(const char *file, hid_t model, const char *name)
{
  char path[PATH_LEN], type[TEXT_MAX];
  namelist bodies = {0};

  if (children(file, model, "bodies", &bodies) < 0)
    return;
  printf("model '%s', bodies:", name);
  for (size_t i = 0; i < bodies.n; i++) {
    hid_t b;
    text_format(path, sizeof path, "bodies/%s", bodies.v[i]);
    b = H5Gopen2(model, path, H5P_DEFAULT);
    type[0] = '\0';
    if (b >= 0)
      attr_text(b, "type", type, sizeof type);
    close_id(b);
    printf("%s %s%s%s%s", i ? "," : "", bodies.v[i], type[0] ? " (" : "", type, type[0] ? ")" : "");
  }
  printf("\n");
  names_free(&bodies);
}

/* The headline: format, writer, source, and the count of scenes. */
static long
print_head(const char *file, const output_files *of, char *name, size_t len, long *total)
{
  char text[TEXT_MAX];
  hid_t root = of->n ? H5Gopen2(of->fid[0], "/", H5P_DEFAULT) : H5I_INVALID_HID;
  hid_t model = of->n ? H5Gopen2(of->fid[0], "model", H5P_DEFAULT) : H5I_INVALID_HID;
  hid_t study = of->n ? H5Gopen2(of->fid[0], "study", H5P_DEFAULT) : H5I_INVALID_HID;
  double scenes = NAN;
  long rows = 0;

  printf("%s: %s", file, of->format);
  if (root >= 0 && attr_text(root, "vibro_version", text, sizeof text) == 0)
    printf(", written by vibro %s", text);
  if (root >= 0 && attr_text(root, "source", text, sizeof text) == 0 && text[0])
    printf(", from %s", text);
  if (of->running)
    printf("; %s: %d shard%s finished so far", of->state, of->n, of->n == 1 ? "" : "s");
  printf("\n");
  name[0] = '\0';
  if (model >= 0)
    attr_text(model, "name", name, len);
  if (study >= 0)
    attr_number(study, "scenes", &scenes);
  for (int f = 0; f < of->n; f++) {
    long n = dataset_rows(of->fid[f], "study/table");
    rows += n > 0 ? n : 0;
  }
  *total = isfinite(scenes) ? (long)scenes : rows;
  if (model >= 0)
    print_model(file, model, name);
  if (of->n)
    points_print(file, of->fid[0]);
  close_id(study);
  close_id(model);
  close_id(root);
  return rows;
}

/* vibro-2 and vibro-3 (formats.h): the summary of a finished file or of
 * the shards of a running study; every scene in detail with all set, else
 * the first few; a distributed contact's points (BASE[k]) as one line a
 * contact, or one by one with points set. */
int
info_v2(const char *file, const output_files *of, int all, int points)
{
  char name[TEXT_MAX];
  summary s = {.worst = -1.0, .worst_scene = -1, .points = points};
  rows_reader r;
  long total, rows = print_head(file, of, name, sizeof name, &total), detail;
  int rc = -1;
  hid_t study;

  /* The contacts and swept columns, from the first table */
  if (of->n && rows_open(of->fid[0], "study/table", &r) == 0) {
    study = H5Gopen2(of->fid[0], "study", H5P_DEFAULT);
    if (study >= 0)
      attr_strings(study, "params", &s.swept);
    close_id(study);
    rc = find_contacts(&r, &s);
    rows_close(&r);
    if (rc < 0) {
      cli_complain(file, "out of memory");
      goto done;
    }
  }
  s.values = malloc((s.swept.n * (size_t)(rows ? rows : 1) + 1) * sizeof *s.values);
  if (!s.values) {
    rc = cli_complain(file, "out of memory");
    goto done;
  }
  detail = all || rows <= 10 ? rows : 3;
  /* First the count of scenes, then the detail */
  printf("%ld scene%s finished", rows, rows == 1 ? "" : "s");
  if (total > rows)
    printf(" of the study's %ld (%ld not yet)", total, total - rows);
  printf("\n");
  rc = scan_tables(file, of, rows, detail, name, &s);
  if (rc == 0) {
    printf("%ld done, %ld failed", s.done, s.failed);
    if (s.gained > 0)
      printf("; %ld of the done gained energy past what they can hold, a numerical failure",
             s.gained);
    printf("\n");
    print_totals(&s, detail);
    if (of->n)
      print_params(of->fid[0], &s);
  }
done:
  names_free(&s.failures);
  names_free(&s.gains);
  names_free(&s.contacts);
  names_free(&s.swept);
  free(s.impacts);
  free(s.least);
  free(s.most);
  free(s.values);
  return rc;
}
