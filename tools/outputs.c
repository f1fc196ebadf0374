/* outputs.c - the files of one output (h5read.h): a finished file, or
 * the shards a running study's OUT.part/ manifests list (doc/format.md),
 * each a regular file, each listed once. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

#include "cli.h"
#include "formats.h"
#include "h5read.h"
#include "part_state.h"

/* A shard listed in a manifest. */
typedef struct listed {
  char name[64];
  long lo; /* lowest scene index it holds */
} listed;

/* Order shards by their lowest scene, then by name (an order that does
 * not depend on the directory's: the first of two shards holding a scene
 * is the one kept, open_shards). */
static int
cmp_listed(const void *a, const void *b)
{
  long x = ((const listed *)a)->lo, y = ((const listed *)b)->lo;
  return x != y ? (x > y) - (x < y) : strcmp(((const listed *)a)->name, ((const listed *)b)->name);
}

/* Order shards by name. */
static int
cmp_name(const void *a, const void *b)
{
  return strcmp(((const listed *)a)->name, ((const listed *)b)->name);
}

/* Parse a manifest line "NAME SIZE CRC ROWS LO HI ... LINECRC\n", whose
 * last field is the CRC-32 of the text before it (doc/format.md); 0 when
 * it is complete and intact. */
static int
manifest_line(const char *line, listed *out)
{
  const char *nl = strchr(line, '\n'), *last;
  unsigned long crc;
  long size, rows, hi;
  char *end;

  if (!nl)
    return -1;
  for (last = nl; last > line && last[-1] != ' '; last--)
    ;
  if (last == line)
    return -1;
  crc = strtoul(last, &end, 16);
  if (end != nl || crc32(0L, (const Bytef *)line, (uInt)(last - line)) != crc)
    return -1;
  if (sscanf(line, "%63s %ld %*x %ld %ld %ld", out->name, &size, &rows, &out->lo, &hi) != 5)
    return -1;
  return strchr(out->name, '/') ? -1 : 0;
}

/* True if name is "manifest.rNNN". */
static int
is_manifest(const char *name)
{
  size_t n = strlen("manifest.r");
  if (strncmp(name, "manifest.r", n) != 0 || !name[n])
    return 0;
  for (const char *p = name + n; *p; p++)
    if (*p < '0' || *p > '9')
      return 0;
  return 1;
}

/* True if path is a regular file (a FIFO would block its reader). */
static int
regular(const char *path)
{
  struct stat st;
  return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* Remove the shards listed twice (in two manifests, or twice in one):
 * each counts once.  The list is in name order on return. */
static int
listed_unique(listed *l, int n)
{
  int kept = 0;

  qsort(l, (size_t)n, sizeof *l, cmp_name);
  for (int i = 0; i < n; i++)
    if (kept == 0 || strcmp(l[kept - 1].name, l[i].name) != 0)
      l[kept++] = l[i];
  return kept;
}

/* The shards every manifest of the directory part lists, by lowest scene. */
static int
list_shards(const char *part, listed **out, int *n)
{
  char path[PATH_LEN + 64], line[1024];
  struct dirent *e;
  DIR *d = opendir(part);
  int cap = 0;

  *out = NULL;
  *n = 0;
  if (!d)
    return cli_complain(part, "cannot list: %s", strerror(errno));
  while ((e = readdir(d)) != NULL) {
    FILE *f;
    if (!is_manifest(e->d_name))
      continue;
    text_format(path, sizeof path, "%s/%s", part, e->d_name);
    f = regular(path) ? fopen(path, "r") : NULL;
    while (f && fgets(line, sizeof line, f)) {
      listed l;
      if (manifest_line(line, &l) < 0)
        continue;
      if (*n == cap) {
        listed *more = realloc(*out, (size_t)(cap = cap ? 2 * cap : 64) * sizeof *more);
        if (!more) {
          fclose(f);
          closedir(d);
          return cli_complain(part, "out of memory");
        }
        *out = more;
      }
      (*out)[(*n)++] = l;
    }
    if (f)
      fclose(f);
  }
  closedir(d);
  if (*n)
    *n = listed_unique(*out, *n);
  if (*n)
    qsort(*out, (size_t)*n, sizeof **out, cmp_listed);
  return 0;
}

/* A scene a shard's table holds, and the shard's place among the open. */
typedef struct held {
  long long scene;
  int shard;
} held;

static int
cmp_held(const void *a, const void *b)
{
  const held *x = a, *y = b;
  return x->scene != y->scene ? (x->scene > y->scene) - (x->scene < y->scene)
                              : (x->shard > y->shard) - (x->shard < y->shard);
}

/* Append the scene indices of shard `shard`'s table (its `scene`
 * coordinate; vibro-3) to *h; a coordinate that cannot be read, or claims
 * more values than the file's bytes, adds nothing (the layout's check then
 * says what is wrong).  0, or -1 when out of memory. */
static int
shard_scenes(hid_t fid, int shard, held **h, size_t *n, size_t *cap)
{
  hid_t ds = H5I_INVALID_HID, space = H5I_INVALID_HID;
  hsize_t dims[1] = {0}, size = 0;
  long long *v = NULL;
  int rc = 0;

  if (!has_object(fid, "study/table/scene") || is_group(fid, "study/table/scene") ||
      (ds = H5Dopen2(fid, "study/table/scene", H5P_DEFAULT)) < 0)
    return 0;
  space = H5Dget_space(ds);
  if (space >= 0 && H5Sget_simple_extent_ndims(space) == 1 &&
      H5Sget_simple_extent_dims(space, dims, NULL) == 1 && H5Fget_filesize(fid, &size) >= 0 &&
      dims[0] > 0 && dims[0] <= size / sizeof *v &&
      (v = malloc((size_t)dims[0] * sizeof *v)) != NULL &&
      H5Dread(ds, H5T_NATIVE_LLONG, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) >= 0) {
    if (*n + dims[0] > *cap) {
      size_t grown = 2 * (*n + (size_t)dims[0]);
      held *more = realloc(*h, grown * sizeof *more);
      if (!more)
        rc = -1;
      else
        *h = more, *cap = grown;
    }
    for (hsize_t i = 0; rc == 0 && i < dims[0]; i++)
      (*h)[(*n)++] = (held){v[i], shard};
  }
  free(v);
  close_id(space);
  close_id(ds);
  return rc;
}

/* Keep each scene once: a shard that holds a scene an earlier open shard
 * (by lowest scene, then name) holds too, a copy of a shard under a new
 * name with its own valid manifest line, is closed and dropped, so that
 * no reader counts a scene twice ("5 scenes finished" of 4). */
static int
shards_unique(const char *path, output_files *of)
{
  held *h = NULL;
  size_t n = 0, cap = 0;
  unsigned char *drop = calloc((size_t)of->n + 1, 1);
  int kept = 0;

  for (int i = 0; drop && i < of->n; i++)
    if (shard_scenes(of->fid[i], i, &h, &n, &cap) < 0) {
      free(h);
      free(drop);
      return cli_complain(path, "out of memory");
    }
  if (!drop) {
    free(h);
    return cli_complain(path, "out of memory");
  }
  if (n > 1)
    qsort(h, n, sizeof *h, cmp_held);
  for (size_t k = 1; k < n; k++)
    if (h[k].scene == h[k - 1].scene && h[k].shard != h[k - 1].shard)
      drop[h[k].shard] = 1;
  for (int i = 0; i < of->n; i++) {
    if (drop[i])
      close_id(of->fid[i]);
    else
      of->fid[kept++] = of->fid[i];
  }
  of->n = kept;
  free(h);
  free(drop);
  return 0;
}

/* Open the shards of a running study in its directory part. */
static int
open_shards(const char *path, const char *part, output_files *of)
{
  char name[PATH_LEN + 64], format[TEXT_MAX];
  listed *shards;
  int n;

  if (list_shards(part, &shards, &n) < 0)
    return -1;
  of->fid = malloc((size_t)(n ? n : 1) * sizeof *of->fid);
  if (!of->fid) {
    free(shards);
    return cli_complain(path, "out of memory");
  }
  of->running = 1;
  part_state(part, of->state, sizeof of->state);
  for (int i = 0; i < n; i++) {
    hid_t fid;
    text_format(name, sizeof name, "%s/%s", part, shards[i].name);
    fid = regular(name) ? H5Fopen(name, H5F_ACC_RDONLY, H5P_DEFAULT) : H5I_INVALID_HID;
    if (fid < 0)
      continue; /* removed since (merged, or resumed): skip */
    of->fid[of->n++] = fid;
    if (of->n == 1) {
      hid_t root = H5Gopen2(fid, "/", H5P_DEFAULT);
      attr_text(root, "format", format, sizeof format);
      close_id(root);
      snprintf(of->format, sizeof of->format, "%s", format);
    }
  }
  free(shards);
  if (of->n > 1 && shards_unique(path, of) < 0)
    return -1;
  if (of->n == 0) {
    snprintf(of->format, sizeof of->format, "%s", format_reader_latest()->name);
    printf("%s: %s, no scene finished yet (%s holds no shard)\n", path, of->state, part);
  }
  of->reader = format_reader_of(of->format);
  if (!of->reader) {
    char names[TEXT_MAX];
    format_names(names, sizeof names);
    for (int i = 0; i < of->n; i++)
      close_id(of->fid[i]);
    of->n = 0;
    free(of->fid);
    of->fid = NULL;
    return cli_complain(path, "a shard of %s is not a vibro output (format '%s', valid: %s)",
                        part, of->format, names);
  }
  return 0;
}

int
outputs_open(const char *path, output_files *of)
{
  char part[PATH_LEN];
  struct stat st;
  size_t len = strlen(path);

  memset(of, 0, sizeof *of);
  /* A reader closes its files itself; what it leaves open (a damaged
   * file, outputs_close) libhdf5 must not tear down at exit.  Takes effect
   * only as the first call into HDF5, as it is in info, events, export */
  H5dont_atexit();
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
  /* OUT.part/ given, or OUT not there yet while OUT.part/ is: a running study */
  if (len > 5 && strcmp(path + len - 5, ".part") == 0 && stat(path, &st) == 0 &&
      S_ISDIR(st.st_mode))
    return open_shards(path, path, of);
  text_format(part, sizeof part, "%s.part", path);
  if (stat(path, &st) != 0 && errno == ENOENT && stat(part, &st) == 0 && S_ISDIR(st.st_mode))
    return open_shards(path, part, of);
  of->fid = malloc(sizeof *of->fid);
  if (!of->fid)
    return cli_complain(path, "out of memory");
  of->fid[0] = output_open(path, of->format, sizeof of->format);
  if (of->fid[0] < 0) {
    free(of->fid);
    of->fid = NULL;
    return -1;
  }
  of->n = 1;
  of->reader = format_reader_of(of->format);
  return 0;
}

void
outputs_close(output_files *of)
{
  /* a damaged file stays open: H5Fclose would free what libhdf5 misread
   * (crashes in H5O__attr_free seen in the reader fuzz), and nothing
   * closes it at exit (H5dont_atexit in outputs_open) */
  for (int i = 0; i < of->n && !of->damaged; i++)
    close_id(of->fid[i]);
  free(of->fid);
  of->fid = NULL;
  of->n = 0;
}
