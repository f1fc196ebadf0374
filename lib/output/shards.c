/* output/shards.c - the shards of OUT.part/ as the manifest lists them:
 * file CRCs, shard names, manifest lines, verification on resume, the
 * scenes of a shard, and the shards of a running study (doc/format.md).
 * Reading, and the small file operations the writer and the merge share
 * (writeback, fsync of a directory, removal of OUT.part/): output.c writes
 * shards, manifests and locks. */
#define _GNU_SOURCE /* sync_file_range (Linux); without it, fsync alone */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zlib.h>

#include "config.h"
#ifdef HAVE_ISAL
#include <isa-l/crc.h>
#endif

#ifdef _OPENMP
#include <omp.h>
#endif

#include "h5util.h"
#include "output.h"

#define PART_SUFFIX  ".part"
#define LINE_MAX_LEN 256

typedef vb_shard shard;

/* Count a write point; the kill hook raises its signal at the chosen one. */
void
vb_write_point(vb_wpoints *p)
{
  if (p && p->kill_at > 0 && ++p->writes == p->kill_at)
    raise(p->sig);
}

/* Start the writeback of what has been written of w's file so far. */
void
vb_wb_push(vb_wb *w)
{
  if (!w || !w->name)
    return;
  if (w->fd < 0)
    w->fd = openat(w->dirfd, w->name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  vb_writeback(w->fd);
}

/* Write len bytes to fd, a write point between pieces of 16 MiB. */
int
vb_write_all(int fd, const void *buf, size_t len, vb_wpoints *points)
{
  size_t done = 0;

  while (done < len) {
    size_t piece = len - done < ((size_t)1 << 24) ? len - done : ((size_t)1 << 24);
    ssize_t w = write(fd, (const char *)buf + done, piece);
    if (w < 0 && errno == EINTR)
      continue;
    if (w <= 0)
      return w < 0 ? errno : ENOSPC;
    done += (size_t)w;
    if (done < len)
      vb_write_point(points);
  }
  return 0;
}

/* zlib's crc32(crc, buf, len) (CRC-32 of gzip and PNG), by ISA-L's folding
 * code when it is there. */
unsigned long
vb_crc32(unsigned long crc, const void *buf, size_t len)
{
#ifdef HAVE_ISAL
  return crc32_gzip_refl((uint32_t)crc, buf, (uint64_t)len);
#else
  const unsigned char *p = buf;
  while (len > 0) {
    uInt n = len > (1u << 30) ? 1u << 30 : (uInt)len;
    crc = crc32(crc, p, n);
    p += n;
    len -= n;
  }
  return crc;
#endif
}

/* CRC-32 of a whole file by name under dirfd; -1 on error; *size its bytes.
 * Its pieces of 4 MiB are each mapped (no copy out of the page cache),
 * summed and unmapped by the threads, then combined in order: the pages
 * mapped at a time are a few pieces, not the file (a whole mapping counted
 * the shard twice in the writer's resident memory). */
long
vb_file_crc(int dirfd, const char *name, int threads, long *size)
{
  const long piece = 1L << 22;
  int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC), failed = 0;
  struct stat st;
  long n, k;
  uLong crc = crc32(0L, Z_NULL, 0), *part;

  if (fd < 0)
    return -1;
  if (fstat(fd, &st) < 0) {
    close(fd);
    return -1;
  }
  *size = (long)st.st_size;
  n = ((long)st.st_size + piece - 1) / piece;
  part = calloc((size_t)n + 1, sizeof *part);
  if (!part) {
    close(fd);
    return -1;
  }
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic, 1) reduction(| : failed)                                \
    num_threads(threads > 0 ? threads : omp_get_max_threads())
#endif
  for (k = 0; k < n; k++) {
    size_t len = (size_t)(k == n - 1 ? (long)st.st_size - k * piece : piece);
    void *map = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, (off_t)(k * piece));
    if (map == MAP_FAILED) {
      failed = 1;
      continue;
    }
    madvise(map, len, MADV_SEQUENTIAL);
    part[k] = vb_crc32(0L, map, len);
    munmap(map, len);
  }
  close(fd);
  for (k = 0; k < n; k++)
    crc = crc32_combine(crc, part[k], (z_off_t)(k == n - 1 ? (long)st.st_size - k * piece : piece));
  free(part);
  return failed ? -1 : (long)crc;
}

/* Shard file names: rank and number. */
int
vb_shard_name_parse(const char *name, int *rank, long *number)
{
  int r, used = 0;
  long n;

  if (sscanf(name, "r%3d-%6ld.h5%n", &r, &n, &used) != 2 || name[used] != '\0')
    return -1;
  *rank = r;
  *number = n;
  return 0;
}

/* Parse one manifest line; 0 if complete and its own CRC matches. */
static int
line_parse(const char *line, shard *s, unsigned long *input_crc)
{
  char name[64];
  unsigned long crc, icrc, lcrc;
  long size, rows, lo, hi;
  int used = 0;
  const char *end;

  if (sscanf(line, "%63s %ld %lx %ld %ld %ld %lx %n", name, &size, &crc, &rows, &lo, &hi, &icrc,
             &used) != 7)
    return -1;
  end = line + used;
  if (sscanf(end, "%lx", &lcrc) != 1)
    return -1;
  if (crc32(0L, (const Bytef *)line, (uInt)used) != lcrc)
    return -1;
  memset(s, 0, sizeof *s);
  snprintf(s->name, sizeof s->name, "%s", name);
  s->size = size;
  s->crc = crc;
  s->rows = rows;
  s->lo = lo;
  s->hi = hi;
  *input_crc = icrc;
  return vb_shard_name_parse(s->name, &s->rank, &size);
}

/* Format a manifest line. */
void
vb_manifest_line(char *line, size_t len, const shard *s, unsigned long input_crc)
{
  int n = snprintf(line, len, "%s %ld %08lx %ld %ld %ld %08lx ", s->name, s->size, s->crc, s->rows,
                   s->lo, s->hi, input_crc);
  snprintf(line + n, len - (size_t)n, "%08lx\n",
           (unsigned long)crc32(0L, (const Bytef *)line, (uInt)n));
}

/* The CRC-32 listed for `path` in an inputs text ("PATH CRC32\n" lines);
 * -1 when it is not listed. */
static long
listed_crc(const char *list, const char *path)
{
  size_t n = strlen(path);
  const char *p;
  unsigned long crc;

  for (p = list; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
    if (strncmp(p, path, n) == 0 && p[n] == ' ' && sscanf(p + n + 1, "%lx", &crc) == 1)
      return (long)crc;
  return -1;
}

/* Name in buf the first file of the input that differs from what shard
 * `name` was run from (its root attribute `inputs`): "'inc.cfg' changed"
 * or "'old.csv' is no longer read"; "" when the shard does not say. */
static void
input_changed(const char *part, const char *name, const char *now, char *buf, size_t size)
{
  char *path = vb_part_file(part, name), *then = NULL, file[4096];
  const char *lists[2], *p;
  hid_t f = path ? H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT) : H5I_INVALID_HID;
  int k;

  buf[0] = '\0';
  if (f >= 0)
    then = vb_h5_attr_read_string(f, "inputs");
  vb_h5_close(f);
  free(path);
  lists[0] = now;
  lists[1] = then;
  for (k = 0; then && now && k < 2 && !buf[0]; k++)
    for (p = lists[k]; *p && !buf[0]; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : p + strlen(p)) {
      const char *sp = strchr(p, ' ');
      size_t n = sp ? (size_t)(sp - p) : 0;
      if (n == 0 || n >= sizeof file)
        continue;
      memcpy(file, p, n);
      file[n] = '\0';
      if (listed_crc(lists[1 - k], file) != listed_crc(lists[k], file))
        snprintf(buf, size, " ('%s' %s since)", file, k == 0 ? "changed" : "is no longer read");
    }
  free(then);
}

/* Read every manifest in OUT.part/: the listed shards whose size and
 * CRC-32 match (their scenes read from the shard), in *out.  A line for
 * another input is an error (VB_EINVAL) naming the file that changed. */
int
vb_shards_verified(int dirfd, const char *part, const vb_output_layout *lay,
                   unsigned long input_crc, int check, shard **out, long *nout, char *err,
                   size_t errlen)
{
  DIR *d;
  struct dirent *e;
  shard *list = NULL;
  long n = 0, cap = 0;
  int rc = VB_OK, fd;

  *out = NULL;
  *nout = 0;
  fd = dup(dirfd);
  d = fd >= 0 ? fdopendir(fd) : NULL;
  if (!d) {
    if (fd >= 0)
      close(fd);
    return vb_errf_first(err, errlen, VB_EIO, "cannot list %s: %s", part, strerror(errno));
  }
  rewinddir(d);
  while (rc == VB_OK && (e = readdir(d)) != NULL) {
    FILE *f;
    char line[LINE_MAX_LEN];
    int mfd;

    if (strncmp(e->d_name, "manifest.r", 10) != 0 || strchr(e->d_name, '.') != e->d_name + 8)
      continue;
    mfd = openat(dirfd, e->d_name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    f = mfd >= 0 ? fdopen(mfd, "r") : NULL;
    if (!f) {
      if (mfd >= 0)
        close(mfd);
      continue;
    }
    while (rc == VB_OK && fgets(line, sizeof line, f)) {
      shard s;
      unsigned long icrc;
      long size;

      if (strchr(line, '\n') == NULL || line_parse(line, &s, &icrc) != 0)
        continue; /* torn or damaged line: its shard is not listed */
      if (check && icrc != input_crc) {
        char what[4200];
        input_changed(part, s.name, lay->inputs, what, sizeof what);
        rc = vb_errf_first(err, errlen, VB_EINVAL,
                           "%s was written for a different input than %s%s; run "
                           "without --resume to start over",
                           part, lay->source, what);
        break;
      }
      if (!check && lay != NULL && icrc != input_crc)
        continue; /* listing: the lines of this input only */
      if (check && ((long)vb_file_crc(dirfd, s.name, 0, &size) != (long)s.crc || size != s.size))
        continue; /* damaged or missing: its scenes are run again */
      if (!check) {
        struct stat st;
        if (fstatat(dirfd, s.name, &st, AT_SYMLINK_NOFOLLOW) < 0 || st.st_size != s.size)
          continue;
      }
      if (n == cap) {
        long ncap = cap ? 2 * cap : 16;
        shard *g = realloc(list, (size_t)ncap * sizeof *g);
        if (!g) {
          rc = vb_errf_first(err, errlen, VB_ENOMEM, "out of memory reading %s", part);
          break;
        }
        list = g;
        cap = ncap;
      }
      list[n++] = s;
    }
    fclose(f);
  }
  closedir(d);
  if (rc != VB_OK) {
    free(list);
    return rc;
  }
  *out = list;
  *nout = n;
  return VB_OK;
}

/* Start writing a file's dirty pages back to the disk, without waiting. */
void
vb_writeback(int fd)
{
#ifdef SYNC_FILE_RANGE_WRITE
  if (fd >= 0)
    sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE);
#else
  (void)fd;
#endif
}

/* fsync a file by path, or with dir the directory holding it; 0 or -1. */
int
vb_sync_path(const char *path, int dir)
{
  char *copy = strdup(path);
  const char *target = dir && copy ? dirname(copy) : path;
  int fd = open(target, O_RDONLY | O_CLOEXEC), rc = -1;

  if (fd >= 0) {
    rc = fsync(fd);
    close(fd);
  }
  free(copy);
  return rc;
}

/* Remove OUT.part/ (open as dirfd) and what vibro wrote in it. */
void
vb_part_remove(int dirfd, const char *part)
{
  DIR *d = fdopendir(dup(dirfd));
  struct dirent *e;

  if (d)
    rewinddir(d);
  while (d && (e = readdir(d)) != NULL)
    if (e->d_name[0] != '.')
      unlinkat(dirfd, e->d_name, 0);
  if (d)
    closedir(d);
  rmdir(part);
}

/* Path of a file in OUT.part/. */
char *
vb_part_file(const char *part, const char *name)
{
  size_t len = strlen(part) + strlen(name) + 2;
  char *p = malloc(len);

  if (p)
    snprintf(p, len, "%s/%s", part, name);
  return p;
}

/* Elements of a dataset, or -1. */
static long
dataset_length(hid_t ds)
{
  hid_t space = H5Dget_space(ds);
  hssize_t n = space >= 0 ? H5Sget_simple_extent_npoints(space) : -1;

  vb_h5_close(space);
  return (long)n;
}

/* Read a shard's scene indices and status codes into complete[] and codes[]. */
int
vb_shard_scenes(const char *part, const shard *s, long nscenes, int64_t *idxout,
                unsigned char *complete, int *codes, long *ndone, long *T)
{
  char *path = vb_part_file(part, s->name);
  hid_t file = path ? H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT) : -1;
  hid_t scene = file >= 0 ? H5Dopen2(file, "signals/scene", H5P_DEFAULT) : -1;
  hid_t table = file >= 0 ? H5Dopen2(file, "study/table/status_code", H5P_DEFAULT) : -1;
  hid_t time = file >= 0 ? H5Dopen2(file, "signals/time", H5P_DEFAULT) : -1;
  hid_t space = time >= 0 ? H5Dget_space(time) : -1;
  int64_t *idx = idxout ? idxout : malloc((size_t)(s->rows > 0 ? s->rows : 1) * sizeof *idx);
  int *code = malloc((size_t)(s->rows > 0 ? s->rows : 1) * sizeof *code);
  hsize_t dims[2] = {0, 0};
  int rc = -1, nd;
  long r;

  if (scene >= 0 && table >= 0 && idx && code && space >= 0 &&
      dataset_length(scene) == s->rows && dataset_length(table) == s->rows &&
      H5Dread(scene, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, idx) >= 0 &&
      H5Dread(table, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, code) >= 0 &&
      (nd = H5Sget_simple_extent_dims(space, dims, NULL)) >= 1) {
    *T = (long)dims[nd - 1];
    rc = 0;
    for (r = 0; r < s->rows; r++) {
      if (idx[r] < 0 || idx[r] >= nscenes) {
        rc = -1;
        break;
      }
      if (complete && !complete[idx[r]]) {
        complete[idx[r]] = 1;
        codes[idx[r]] = code[r];
        (*ndone)++;
      }
    }
  }
  vb_h5_close(space);
  vb_h5_close(time);
  vb_h5_close(table);
  vb_h5_close(scene);
  vb_h5_close(file);
  if (idx != idxout)
    free(idx);
  free(code);
  free(path);
  return rc;
}

/* CRC-32 of the input text: a manifest line names what it was run for. */
unsigned long vb_input_crc(const vb_output_layout *lay);

/* Verified shards of OUT.part/ (listed and of the listed size; with
 * check, also of the listed CRC-32 and input). */
int
vb_part_verified(int dirfd, const char *part, const vb_output_layout *lay, int check,
                 vb_shard **out, long *nout, char *err, size_t errlen)
{
  return vb_shards_verified(dirfd, part, lay, vb_input_crc(lay), check, out, nout, err, errlen);
}

/* The identity of the input: the CRC-32 of the study text, continued over
 * the CRC-32 (its 8 hex digits) of every other file the load read, in
 * order (lay->inputs' lines after the first).  A study that reads no
 * other file keeps the identity of earlier versions, the text's CRC. */
unsigned long
vb_input_crc(const vb_output_layout *lay)
{
  const char *t = lay->input ? lay->input : "", *p = lay->inputs, *eol;
  uLong crc = crc32(0L, (const Bytef *)t, (uInt)strlen(t));

  if (p == NULL || (p = strchr(p, '\n')) == NULL)
    return crc;
  for (p++; (eol = strchr(p, '\n')) != NULL; p = eol + 1)
    if (eol - p >= 9 && eol[-9] == ' ')
      crc = crc32(crc, (const Bytef *)eol - 8, 8);
  return crc;
}

/* The shards of a running study. */
int
vb_output_running(const char *path, char ***paths, long *n, char *err, size_t errlen)
{
  char *part = malloc(strlen(path) + sizeof PART_SUFFIX);
  shard *list = NULL;
  long k, count = 0;
  int dirfd, rc;

  *paths = NULL;
  *n = 0;
  if (err && errlen > 0)
    err[0] = '\0';
  if (!part)
    return vb_errf_first(err, errlen, VB_ENOMEM, "%s: out of memory", path);
  strcpy(part, path);
  strcat(part, PART_SUFFIX);
  dirfd = open(part, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (dirfd < 0) {
    rc = vb_errf_first(err, errlen, VB_EINVAL, "%s: no running study (%s: %s)", path, part,
                       strerror(errno));
    free(part);
    return rc;
  }
  rc = vb_shards_verified(dirfd, part, NULL, 0, 0, &list, &count, err, errlen);
  close(dirfd);
  if (rc == VB_OK && count > 0) {
    *paths = calloc((size_t)count, sizeof **paths);
    for (k = 0; *paths && k < count; k++)
      if (!((*paths)[k] = vb_part_file(part, list[k].name)))
        break;
    if (!*paths || k < count) {
      vb_output_running_free(*paths, count);
      *paths = NULL;
      rc = vb_errf_first(err, errlen, VB_ENOMEM, "%s: out of memory", path);
    } else {
      *n = count;
    }
  }
  free(list);
  free(part);
  return rc;
}

/* Free what vb_output_running returned. */
void
vb_output_running_free(char **paths, long n)
{
  long k;

  for (k = 0; paths && k < n; k++)
    free(paths[k]);
  free(paths);
}
