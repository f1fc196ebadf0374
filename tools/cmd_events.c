/* cmd_events.c - vibro events: the impact tables, as text or CSV. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "h5check.h"
#include "h5read.h"
#include "event_fields.h"
#include "formats.h"

static const char description[] =
    "Print the impact tables (/scenes/N/contacts/NAME/events) of every scene\n"
    "and contact, or of the chosen ones, as one aligned table with a units\n"
    "line, a row per impact, led by the scene number and the contact name.\n"
    "Every field in the file is shown (doc/output.md and doc/format.md give their meaning).\n"
    "--csv prints comma-separated values instead: one header line of field\n"
    "names, then the rows, numbers with 17 significant digits; on vibro-3\n"
    "two more columns last: `impact` (the row's index among the scene's\n"
    "impacts on its contact, from 0) and `cor` (-v_out/v_in), as the Python\n"
    "reader's events() has them.\n"
    "On the layouts vibro-2 and vibro-3 the rows come from /study/events (every impact of\n"
    "the study, with its swept values), read in blocks; on a running study\n"
    "(OUT.h5 not there yet, or OUT.h5.part) from the shards finished so far.\n"
    "A distributed contact's points are the contacts NAME[k] (k = 0, 1, ...,\n"
    "in the order of its points); --contact NAME selects them all.\n"
    "--phases prints the stick and slip phases of the contacts with friction\n"
    "instead (/study/phases of vibro-3: stick 1 or 0, t_on, t_off, duration,\n"
    "mean_slip, friction_work, steps; doc/format.md), with the same filters.\n";

/* One event table selected for printing. */
typedef struct table {
  long scene;           /* scene number, -1 if the group name is not one */
  char group[NAME_LEN]; /* scene group name, e.g. "000000" */
  char contact[NAME_LEN];
  hsize_t rows;
} table;

/* Print one row of events: the label (scene) and contact, then the
 * fields at offset[] in p (SIZE_MAX: absent from this table); with impact
 * >= 0 (CSV only) that and cor = -v_out/v_in last. */
static void
print_row(const char *label, const char *contact, long impact, const unsigned char *p,
          const field *fields, const size_t *offset, size_t nfields, int contact_width, int csv)
{
  double v[2] = {NAN, NAN}; /* v_in, v_out */

  if (csv) {
    csv_text(label);
    putchar(',');
    csv_text(contact);
  } else {
    printf("%6s  %-*s", label, contact_width, contact);
  }
  for (size_t i = 0; i < nfields; i++) {
    const field *f = &fields[i];
    char cell[TEXT_MAX];
    double d;
    long long k;
    const char *s;
    if (f->hidden)
      continue;
    if (offset[i] == SIZE_MAX) {
      snprintf(cell, sizeof cell, "%s", csv ? "" : "-");
    } else if (f->kind == FIELD_FLOAT) {
      memcpy(&d, p + offset[i], sizeof d);
      snprintf(cell, sizeof cell, csv ? "%.17g" : "%.6g", d);
      if (strcmp(f->name, "v_in") == 0 || strcmp(f->name, "v_out") == 0)
        v[f->name[2] == 'o'] = d;
    } else if (f->kind == FIELD_INT) {
      memcpy(&k, p + offset[i], sizeof k);
      snprintf(cell, sizeof cell, "%lld", k);
    } else if (f->kind == FIELD_VSTRING) {
      memcpy(&s, p + offset[i], sizeof s);
      snprintf(cell, sizeof cell, "%s", s ? s : "");
    } else {
      snprintf(cell, sizeof cell, "%s", (const char *)(p + offset[i]));
    }
    if (csv) {
      putchar(',');
      csv_text(cell);
    } else if (f->kind == FIELD_VSTRING || f->kind == FIELD_FSTRING) {
      printf("  %-*s", f->width, cell);
    } else {
      printf("  %*s", f->width, cell);
    }
  }
  if (csv && impact >= 0)
    printf(",%ld,%.17g", impact, isnan(v[1] / v[0]) ? NAN : -v[1] / v[0]);
  putchar('\n');
}

/* Print the rows of one event table: read them whole, with the union's
 * fields that this table has, and print each in text or CSV. */
static int
events_print(const char *file, hid_t fid, const table *tb, const field *fields, size_t nfields,
             int contact_width, int csv)
{
  char path[PATH_LEN], label[PATH_LEN];
  hid_t ds = H5I_INVALID_HID, ftype = H5I_INVALID_HID, mtype = H5I_INVALID_HID;
  hid_t space = H5I_INVALID_HID;
  size_t *offset = NULL, row = 0;
  unsigned char *buf = NULL;
  int rc = -1;

  if (tb->rows == 0)
    return 0;
  text_format(path, sizeof path, "scenes/%s/contacts/%s/events", tb->group, tb->contact);
  ds = H5Dopen2(fid, path, H5P_DEFAULT);
  ftype = ds < 0 ? H5I_INVALID_HID : H5Dget_type(ds);
  space = ds < 0 ? H5I_INVALID_HID : H5Dget_space(ds);
  offset = malloc(nfields * sizeof *offset);
  if (ftype < 0 || space < 0 || !offset) {
    cli_complain(file, "cannot read /%s", path);
    goto done;
  }
  mtype = memory_type(ftype, fields, nfields, offset, &row);
  if (mtype < 0)
    goto bad;
  buf = calloc((size_t)tb->rows, row ? row : 8);
  if (!buf) {
    cli_complain(file, "out of memory reading /%s", path);
    goto done;
  }
  if (H5Dread(ds, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0)
    goto bad;

  if (tb->scene >= 0)
    snprintf(label, sizeof label, "%ld", tb->scene);
  else
    snprintf(label, sizeof label, "%s", tb->group);
  for (hsize_t r = 0; r < tb->rows; r++)
    print_row(label, tb->contact, -1, buf + r * row, fields, offset, nfields, contact_width, csv);
  reclaim(mtype, space, buf);
  rc = 0;
  goto done;
bad:
  cli_complain(file, "cannot read /%s", path);
done:
  free(buf);
  free(offset);
  close_id(mtype);
  close_id(space);
  close_id(ftype);
  close_id(ds);
  return rc;
}

/* Add the event tables of one scene group (all contacts, or the one named
 * contact) to the selection and their fields to the union. */
static int
events_select(const char *file, hid_t fid, const char *group, const char *contact, table **tables,
              size_t *ntables, field **fields, size_t *nfields, namelist *seen)
{
  namelist contacts = {0};
  char path[PATH_LEN];
  int rc = -1;

  snprintf(path, sizeof path, "scenes/%s/contacts", group);
  if (children(file, fid, path, &contacts) < 0)
    return -1;
  for (size_t i = 0; i < contacts.n; i++) {
    hid_t ds, ftype;
    long rows;
    table *more;
    if (names_find(seen, contacts.v[i]) < 0 && names_push(seen, contacts.v[i]) < 0)
      goto oom;
    if (contact && strcmp(contact, contacts.v[i]) != 0)
      continue;
    snprintf(path, sizeof path, "scenes/%s/contacts/%s/events", group, contacts.v[i]);
    rows = dataset_rows(fid, path);
    if (rows < 0)
      continue;
    ds = H5Dopen2(fid, path, H5P_DEFAULT);
    ftype = ds < 0 ? H5I_INVALID_HID : H5Dget_type(ds);
    if (ftype < 0 || H5Tget_class(ftype) != H5T_COMPOUND) {
      close_id(ftype);
      close_id(ds);
      continue;
    }
    if (fields_add(fields, nfields, ds, ftype) < 0) {
      close_id(ftype);
      close_id(ds);
      goto oom;
    }
    close_id(ftype);
    close_id(ds);
    more = realloc(*tables, (*ntables + 1) * sizeof *more);
    if (!more)
      goto oom;
    *tables = more;
    more += (*ntables)++;
    more->scene = scene_number(group);
    snprintf(more->group, sizeof more->group, "%s", group);
    snprintf(more->contact, sizeof more->contact, "%s", contacts.v[i]);
    more->rows = (hsize_t)rows;
  }
  rc = 0;
  goto done;
oom:
  cli_complain(file, "out of memory");
done:
  names_free(&contacts);
  return rc;
}

/* Select the tables of the chosen scene (or all) and contact (or all);
 * an unknown scene or contact is an error. */
static int
select_tables(const char *file, hid_t fid, const namelist *scenes, const char *scene,
              const char *contact, table **tables, size_t *ntables, field **fields, size_t *nfields)
{
  char choices[CHOICES_MAX + 16], label[PATH_LEN];
  namelist seen = {0};
  int rc = -1;

  if (scene) {
    long s = scene_find(file, scenes, scene);
    if (s < 0 || events_select(file, fid, scenes->v[s], contact, tables, ntables, fields, nfields,
                               &seen) < 0)
      goto done;
    if (contact && names_find(&seen, contact) < 0) {
      names_join(&seen, choices, sizeof choices);
      scene_label(scenes->v[s], label, sizeof label);
      cli_complain(file, "no contact '%s' in scene %s (valid: %s)", contact, label, choices);
      goto done;
    }
  } else {
    for (size_t s = 0; s < scenes->n; s++)
      if (events_select(file, fid, scenes->v[s], contact, tables, ntables, fields, nfields, &seen) <
          0)
        goto done;
    if (contact && names_find(&seen, contact) < 0) {
      names_join(&seen, choices, sizeof choices);
      cli_complain(file, "no contact '%s' in any scene (valid: %s)", contact, choices);
      goto done;
    }
  }
  rc = 0;
done:
  names_free(&seen);
  return rc;
}

/* The header: names (and a units line for text); csv 2 adds impact and cor. */
static void
print_header(const field *fields, size_t nfields, int contact_width, int csv)
{
  if (csv) {
    printf("scene,contact");
    for (size_t i = 0; i < nfields; i++) {
      if (fields[i].hidden)
        continue;
      putchar(',');
      csv_text(fields[i].name);
    }
    printf(csv == 2 ? ",impact,cor\n" : "\n");
    return;
  }
  printf("%6s  %-*s", "scene", contact_width, "contact");
  for (size_t i = 0; i < nfields; i++)
    if (!fields[i].hidden)
      printf("  %*s", fields[i].width, fields[i].name);
  printf("\n%6s  %-*s", "", contact_width, "");
  for (size_t i = 0; i < nfields; i++) {
    char units[UNITS_LEN + 2];
    if (fields[i].hidden)
      continue;
    snprintf(units, sizeof units, fields[i].units[0] ? "[%s]" : "%s", fields[i].units);
    printf("  %*s", fields[i].width, units);
  }
  putchar('\n');
}

/* vibro-1 (formats.h): print the chosen event tables of the file. */
int
events_v1(const char *file, const output_files *of, const char *scene, const char *contact,
          int csv)
{
  hid_t fid = of->fid[0];
  namelist scenes = {0};
  table *tables = NULL;
  field *fields = NULL;
  size_t ntables = 0, nfields = 0;
  int rc = -1, contact_width = 7;

  if (children(file, fid, "scenes", &scenes) < 0)
    goto done;
  if (scenes.n == 0) {
    cli_complain(file, "no scenes");
    goto done;
  }
  if (select_tables(file, fid, &scenes, scene, contact, &tables, &ntables, &fields, &nfields) < 0)
    goto done;
  for (size_t i = 0; i < ntables; i++)
    if ((int)strlen(tables[i].contact) > contact_width)
      contact_width = (int)strlen(tables[i].contact);
  print_header(fields, nfields, contact_width, csv);
  for (size_t i = 0; i < ntables; i++)
    if (events_print(file, fid, &tables[i], fields, nfields, contact_width, csv) < 0)
      goto done;
  if (fflush(stdout) != 0) {
    cli_complain(file, "cannot write the events: %s", strerror(errno));
    goto done;
  }
  rc = 0;
done:
  free(tables);
  free(fields);
  names_free(&scenes);
  return rc;
}

/* Whether `name` is a point of the distributed contact `block`: its
 * expansion names them block[k], k = 0, 1, ... (lib/scene/load_distributed.c). */
static int
point_of(const char *name, const char *block)
{
  size_t n = strlen(block), d = 0;
  if (strncmp(name, block, n) != 0 || name[n] != '[')
    return 0;
  for (name += n + 1; name[d] >= '0' && name[d] <= '9'; d++)
    ;
  return d > 0 && name[d] == ']' && name[d + 1] == '\0';
}

/* vibro-2 and -3: the fields of /study/events, or of another table of rows
 * led by scene and contact (path: "study/phases"), a group of columns when
 * group (vibro-3), scene and contact hidden: they lead each row; the
 * contact names, and the filters (*pick: which contacts to print,
 * [contacts->n], or NULL for all: the one named, or every point NAME[k] of
 * the distributed contact NAME); 0 or -1. */
static int
events_v2_fields(const char *file, hid_t fid, int group, const char *path, const char *scene,
                 const char *contact, field **fields, size_t *nfields, namelist *contacts,
                 long *want_scene, unsigned char **pick)
{
  char choices[CHOICES_MAX + 16];
  hid_t ds = !has_object(fid, path) ? H5I_INVALID_HID
             : group                ? H5Gopen2(fid, path, H5P_DEFAULT)
                                    : H5Dopen2(fid, path, H5P_DEFAULT);
  hid_t ftype = ds < 0 || group ? H5I_INVALID_HID : H5Dget_type(ds);
  hid_t study = H5Gopen2(fid, "study", H5P_DEFAULT);
  double total = NAN;
  int rc = -1;

  if (ds < 0 || (!group && (ftype < 0 || H5Tget_class(ftype) != H5T_COMPOUND))) {
    if (strcmp(path, "study/phases") == 0)
      cli_complain(file, "no /study/phases table: the scenes have no contact with friction "
                         "(valid: a vibro-3 file of a scene with friction = { ... })");
    else
      cli_complain(file, "no /%s table", path);
    goto done;
  }
  if ((group ? fields_columns(fields, nfields, ds) : fields_add(fields, nfields, ds, ftype)) < 0) {
    cli_complain(file, "out of memory");
    goto done;
  }
  /* vibro-2: an attribute; vibro-3: the table's `contact` coordinate (an
   * attribute cannot hold 10,000 names) */
  if (attr_strings(ds, "contacts", contacts) < 0 && group)
    column_texts(fid, "study/table/contact", contacts);
  for (size_t i = 0; i < *nfields; i++)
    (*fields)[i].hidden =
        strcmp((*fields)[i].name, "scene") == 0 || strcmp((*fields)[i].name, "contact") == 0;
  if (study >= 0)
    attr_number(study, "scenes", &total);
  if (scene) {
    *want_scene = scene_number(scene);
    if (*want_scene < 0 || (isfinite(total) && *want_scene >= total)) {
      if (total == 1)
        cli_complain(file, "no scene %s (valid: 0)", scene);
      else
        cli_complain(file, "no scene %s (valid: 0-%.0f)", scene, total - 1);
      goto done;
    }
  }
  if (contact) {
    size_t picked = 0;
    if ((*pick = calloc(contacts->n + 1, 1)) == NULL) {
      cli_complain(file, "out of memory");
      goto done;
    }
    for (size_t i = 0; i < contacts->n; i++)
      picked += (*pick)[i] =
          strcmp(contacts->v[i], contact) == 0 || point_of(contacts->v[i], contact);
    if (picked == 0) {
      names_join(contacts, choices, sizeof choices);
      cli_complain(file, "no contact '%s' (valid: %s)", contact, choices);
      goto done;
    }
  }
  rc = 0;
done:
  close_id(study);
  close_id(ftype);
  close_id(ds);
  return rc;
}

/* vibro-2: print the chosen rows of one file's /study/events (or path's),
 * read in blocks; scene and contact are at offset[sc] and offset[ct]. */
static int
events_v2_file(const char *file, hid_t fid, int group, const char *path, const field *fields,
               size_t nfields,
               const namelist *contacts, long want_scene, const unsigned char *pick, int width,
               int csv)
{
  size_t *offset = malloc((nfields + 1) * sizeof *offset), row = 0, sc = SIZE_MAX, ct = SIZE_MAX;
  hid_t ds = group ? H5Gopen2(fid, path, H5P_DEFAULT) : H5Dopen2(fid, path, H5P_DEFAULT);
  hid_t mtype = H5I_INVALID_HID, ftype = ds < 0 || group ? H5I_INVALID_HID : H5Dget_type(ds);
  long rows = dataset_rows(fid, path);
  unsigned char *buf = NULL;
  long *impacts = calloc(contacts->n + 1, sizeof *impacts); /* of each contact in this scene */
  long long last_scene = -1;
  int rc = -1;

  if (ftype >= 0 && offset)
    mtype = memory_type(ftype, fields, nfields, offset, &row);
  if (group && ds >= 0 && offset) {
    /* vibro-3: every field is a column of the group */
    for (size_t i = 0; i < nfields; i++) {
      offset[i] = row;
      row += ((fields[i].kind == FIELD_FSTRING ? fields[i].size : 8) + 7) / 8 * 8;
    }
    mtype = H5Tcopy(H5T_NATIVE_INT); /* a placeholder: read column by column */
  }
  for (size_t i = 0; mtype >= 0 && i < nfields; i++) {
    if (strcmp(fields[i].name, "scene") == 0)
      sc = offset[i];
    if (strcmp(fields[i].name, "contact") == 0)
      ct = offset[i];
  }
  buf = mtype >= 0 ? malloc(BLOCK * row) : NULL;
  if (!buf || !impacts || sc == SIZE_MAX || ct == SIZE_MAX) {
    cli_complain(file, "cannot read /%s", path);
    goto done;
  }
  for (long start = 0; start < rows; start += BLOCK) {
    hsize_t first = (hsize_t)start, count = (hsize_t)(rows - start < BLOCK ? rows - start : BLOCK);
    hid_t fspace = group ? H5I_INVALID_HID : H5Dget_space(ds);
    hid_t mspace = group ? H5I_INVALID_HID : H5Screate_simple(1, &count, NULL);
    herr_t r = group ? columns_block(ds, fields, nfields, offset, row, first, count, buf)
                     : H5Sselect_hyperslab(fspace, H5S_SELECT_SET, &first, NULL, &count, NULL);
    if (r >= 0 && !group)
      r = H5Dread(ds, mtype, mspace, fspace, H5P_DEFAULT, buf);
    close_id(mspace);
    close_id(fspace);
    if (r < 0) {
      cli_complain(file, "cannot read /%s", path);
      goto done;
    }
    for (hsize_t i = 0; i < count; i++) {
      const unsigned char *p = buf + i * row;
      long long scene, contact;
      char label[32];
      memcpy(&scene, p + sc, sizeof scene);
      memcpy(&contact, p + ct, sizeof contact);
      if (scene != last_scene)
        memset(impacts, 0, (contacts->n + 1) * sizeof *impacts);
      last_scene = scene;
      int known = contact >= 0 && (size_t)contact < contacts->n;
      long impact = known ? impacts[contact]++ : 0;
      if ((want_scene >= 0 && scene != want_scene) ||
          (pick && !(contact >= 0 && (size_t)contact < contacts->n && pick[contact])))
        continue;
      snprintf(label, sizeof label, "%lld", scene);
      print_row(label, known ? contacts->v[contact] : "?", csv == 2 ? impact : -1, p, fields,
                offset, nfields, width, csv);
    }
  }
  rc = 0;
done:
  free(buf);
  free(impacts);
  free(offset);
  close_id(mtype);
  close_id(ftype);
  close_id(ds);
  return rc;
}

/* vibro-2 and -3: every row of table path (study/events, study/phases) of
 * every file (the shards of a running study in scene order), filtered by
 * scene and contact. */
static int
table_v2(const char *file, const output_files *of, const char *path, const char *scene,
         const char *contact, int csv)
{
  field *fields = NULL;
  size_t nfields = 0;
  namelist contacts = {0};
  long want_scene = -1;
  unsigned char *pick = NULL;
  int rc = -1, width = 7;

  if (of->n == 0)
    return 0;
  if (events_v2_fields(file, of->fid[0], of->reader->columns, path, scene, contact, &fields,
                       &nfields, &contacts, &want_scene, &pick) < 0)
    goto done;
  for (size_t i = 0; i < contacts.n; i++)
    if ((int)strlen(contacts.v[i]) > width)
      width = (int)strlen(contacts.v[i]);
  /* vibro-3 adds impact and cor to the CSV (vibro-2's readers printed none) */
  csv = csv && of->reader->csv_extras && strcmp(path, "study/events") == 0 ? 2 : csv;
  print_header(fields, nfields, width, csv);
  for (int f = 0; f < of->n; f++)
    if (events_v2_file(file, of->fid[f], of->reader->columns, path, fields, nfields, &contacts,
                       want_scene, pick, width,
                       csv) < 0)
      goto done;
  if (fflush(stdout) != 0) {
    cli_complain(file, "cannot write the events: %s", strerror(errno));
    goto done;
  }
  rc = 0;
done:
  free(pick);
  free(fields);
  names_free(&contacts);
  return rc;
}

/* vibro-2 and -3 (formats.h): every impact. */
int
events_v2(const char *file, const output_files *of, const char *scene, const char *contact, int csv)
{
  return table_v2(file, of, "study/events", scene, contact, csv);
}

/* vibro-3 (formats.h): every stick and slip phase (issue 30). */
int
phases_v3(const char *file, const output_files *of, const char *scene, const char *contact,
          int csv)
{
  return table_v2(file, of, "study/phases", scene, contact, csv);
}

enum { OPT_SCENE = 256, OPT_CONTACT, OPT_CSV, OPT_PHASES };

static const cli_option options[] = {
    {OPT_SCENE, "scene", "N", "only scene N (a number, or a scene group's name)"},
    {OPT_CONTACT, "contact", "NAME",
     "only the contact NAME (a distributed contact's name: all its points NAME[k])"},
    {OPT_CSV, "csv", NULL, "comma-separated values, 17 significant digits"},
    {OPT_PHASES, "phases", NULL, "the stick and slip phases of the contacts with friction"},
    {0, NULL, NULL, NULL},
};

/* vibro events */
static int
events_main(const cli_command *cmd, int argc, char **argv)
{
  const char *scene = NULL, *contact = NULL;
  output_files of;
  cli_args a;
  int csv = 0, phases = 0, key, rc;

  cli_begin(&a, cmd, argc, argv);
  while ((key = cli_next(&a)) > 0 && key != 'h') {
    if (key == OPT_SCENE)
      scene = a.value;
    else if (key == OPT_CONTACT)
      contact = a.value;
    else if (key == OPT_CSV)
      csv = 1;
    else if (key == OPT_PHASES)
      phases = 1;
  }
  if (outputs_operand(&a, key, &of, &rc) < 0)
    return rc;
  if (phases && !of.reader->phases) {
    cli_complain(a.operands[0], "no /study/phases table: a %s file (valid: vibro-3)", of.format);
    rc = 1;
  } else {
    rc = (phases ? of.reader->phases : of.reader->events)(a.operands[0], &of, scene, contact,
                                                          csv) < 0;
  }
  outputs_close(&of);
  cli_end(&a);
  return rc;
}

const cli_command cli_events = {
    .name = "events",
    .synopsis = "OUT.h5 [--scene N] [--contact NAME] [--csv] [--phases]",
    .summary = "the impact tables, as text or CSV",
    .description = description,
    .options = options,
    .main = events_main,
};
