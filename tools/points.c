/* points.c - a distributed contact's [scene][point][time] signals for
 * vibro export (points.h, doc/format.md). */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "h5read.h"
#include "points.h"

/* "signals/" and path with '.' for '/' into buf. */
static void
dotted(char *buf, size_t len, const char *path)
{
  text_format(buf, len, "signals/%s", path);
  for (char *p = buf + 8; *p; p++)
    *p = *p == '/' ? '.' : *p;
}

/* A point named in path ("contacts/neck[3]/force"): path without "[K]"
 * into base and K into *k; 0, or -1 when path names none. */
static int
named_point(const char *path, char *base, size_t len, long *k)
{
  const char *open = strrchr(path, '['), *d;
  char *end;

  if (!open || !isdigit((unsigned char)open[1]))
    return -1;
  *k = strtol(open + 1, &end, 10);
  if (*end != ']' || (end[1] != '\0' && end[1] != '/' && end[1] != '.'))
    return -1;
  d = end + 1;
  text_format(base, len, "%.*s%s", (int)(open - path), path, d);
  return 0;
}

/* Rank of a dataset and its dimensions (at most 3) into dims; -1 if none. */
static int
rank_of(hid_t ds, hsize_t *dims)
{
  hid_t space = ds < 0 ? H5I_INVALID_HID : H5Dget_space(ds);
  int rank = space < 0 ? -1 : H5Sget_simple_extent_ndims(space);

  if (rank < 0 || rank > 3 || H5Sget_simple_extent_dims(space, dims, NULL) < 0)
    rank = -1;
  close_id(space);
  return rank;
}

/* Whether /signals/<name> is a distributed contact's [scene][point][time]. */
static int
is_points(const char *name, int rank)
{
  return rank == 3 && strncmp(name, "contacts.", 9) == 0;
}

/* The signals export can read, for a message: [scene][time] ones by
 * name, a distributed contact's as "contacts.neck[0-7].force". */
static void
valid_signals(const char *file, hid_t fid, char *buf, size_t len)
{
  namelist all = {0}, valid = {0};
  char name[PATH_LEN], item[PATH_LEN + 32];
  hsize_t dims[3];

  children(file, fid, "signals", &all);
  for (size_t i = 0; i < all.n; i++) {
    text_format(name, sizeof name, "signals/%s", all.v[i]);
    hid_t d = H5Dopen2(fid, name, H5P_DEFAULT);
    int rank = rank_of(d, dims);
    const char *dot = strrchr(all.v[i], '.');
    if (rank == 2 && strcmp(all.v[i], "time") != 0)
      names_push(&valid, all.v[i]);
    else if (is_points(all.v[i], rank) && dot && dims[1] > 0) {
      text_format(item, sizeof item, "%.*s[0-%llu]%s", (int)(dot - all.v[i]), all.v[i],
                  (unsigned long long)dims[1] - 1, dot);
      names_push(&valid, item);
    }
    close_id(d);
  }
  names_join(&valid, buf, len);
  names_free(&valid);
  names_free(&all);
}

/* Open the stacked signal path (points.h). */
hid_t
signal_open_stacked(const char *file, hid_t fid, const char *path, long point, long *at)
{
  char name[PATH_LEN], base[PATH_LEN], choices[CHOICES_MAX + 16];
  hsize_t dims[3];
  long k = -1;
  hid_t ds;
  int rank;

  *at = -1;
  dotted(name, sizeof name, path);
  /* "contacts/neck[3]/force": a point of contacts.neck.force, unless that
   * point was recorded on its own */
  if (!has_object(fid, name) && named_point(path, base, sizeof base, &k) == 0)
    dotted(name, sizeof name, base);
  ds = has_object(fid, name) ? H5Dopen2(fid, name, H5P_DEFAULT) : H5I_INVALID_HID;
  rank = rank_of(ds, dims);
  if (rank == 2 && k < 0 && strcmp(name, "signals/time") != 0)
    return ds;
  if (is_points(name + 8, rank)) {
    long p = k >= 0 ? k : point, n = (long)dims[1];
    const char *dot = strrchr(name + 8, '.');
    if (p < 0 || p >= n) {
      close_id(ds);
      if (p >= n)
        return cli_complain(file, "'%s': no point %ld (valid: 0-%ld)", path, p, n - 1);
      return cli_complain(file,
                          "'%s' is [scene][point][time], %ld points: name one, with --point "
                          "K or as %.*s[K]%s (valid K: 0-%ld)",
                          path, n, (int)(dot - (name + 8)), name + 8, dot, n - 1);
    }
    *at = p;
    return ds;
  }
  close_id(ds);
  valid_signals(file, fid, choices, sizeof choices);
  return cli_complain(file, "no signal '%s' of [scene][time] in /signals (valid: %s)", path,
                      choices);
}

/* Read samples of a stacked signal (points.h). */
int
signal_read_stacked(hid_t ds, hsize_t row, long point, hsize_t start, hsize_t count, double *buf)
{
  hsize_t first[3] = {row, start, 0}, size[3] = {1, count, 1};
  hid_t fspace = H5Dget_space(ds), mspace = H5Screate_simple(1, &count, NULL);
  int rc = -1;

  if (point >= 0) { /* [scene][point][time] */
    first[1] = (hsize_t)point;
    first[2] = start;
    size[1] = 1;
    size[2] = count;
  }
  if (fspace >= 0 && mspace >= 0 &&
      H5Sselect_hyperslab(fspace, H5S_SELECT_SET, first, NULL, size, NULL) >= 0 &&
      H5Dread(ds, H5T_NATIVE_DOUBLE, mspace, fspace, H5P_DEFAULT, buf) >= 0)
    rc = 0;
  close_id(mspace);
  close_id(fspace);
  return rc;
}

/* One line per distributed contact with recorded signals (points.h). */
void
points_print(const char *file, hid_t fid)
{
  namelist all = {0};
  char name[PATH_LEN], contact[NAME_LEN], prev[NAME_LEN] = "";
  hsize_t dims[3];

  if (!has_object(fid, "signals") || children(file, fid, "signals", &all) < 0)
    return;
  for (size_t i = 0; i < all.n; i++) {
    const char *dot = strrchr(all.v[i], '.');
    text_format(name, sizeof name, "signals/%s", all.v[i]);
    hid_t d = H5Dopen2(fid, name, H5P_DEFAULT);
    int rank = rank_of(d, dims);
    close_id(d);
    if (!is_points(all.v[i], rank) || !dot || dot - all.v[i] <= 9)
      continue;
    text_format(contact, sizeof contact, "%.*s", (int)(dot - all.v[i] - 9), all.v[i] + 9);
    if (strcmp(contact, prev) != 0) {
      double x0 = NAN, x1 = NAN;
      text_format(name, sizeof name, "signals/point.%s", contact);
      if (has_object(fid, name)) {
        x0 = first_value(fid, name);
        x1 = last_value(fid, name);
      }
      printf("%scontact '%s': %llu points (x %g .. %g m) record [scene][point][time]:",
             prev[0] ? "\n" : "", contact, (unsigned long long)dims[1], x0, x1);
      text_format(prev, sizeof prev, "%s", contact);
    }
    printf(" %s", all.v[i]);
  }
  if (prev[0])
    printf("\n");
  names_free(&all);
}
