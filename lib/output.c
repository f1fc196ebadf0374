/* output.c - OUT.part/: the shards of an output being written, their
 * manifest and lock, resume, and the merge into OUT (doc/format.md).
 *
 * Nothing is modified in place.  Finished scenes are packed, gathered in
 * a batch, and written as a shard "rRRR-NNNNNN.h5" under a temporary
 * name, fsync'ed and renamed; only then is a line with its size and CRC-32
 * appended to manifest.rRRR.  Resume keeps the shards whose size and
 * CRC-32 match their line and deletes everything else, so an interruption
 * at any instruction (SIGKILL, a full disk, a lost node) loses at most the
 * scenes not yet listed.  The merge writes OUT through a temporary in
 * OUT.part/, renamed into place, then removes OUT.part/. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <zlib.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "h5util.h"
#include "output.h"

#define PART_SUFFIX ".part"
#define BATCH_SECONDS 10.0                /* a shard about every 10 s */
#define BATCH_BYTES (128.0 * 1024 * 1024) /* or every 128 MiB of signals */
#define LINE_MAX_LEN 256
#define IMAGE_BYTES (16.0 * 1024 * 1024) /* shards up to this are built in memory */

typedef vb_shard shard;

struct vb_output {
  vb_format fmt;
  char *path, *part;
  int dirfd, lockfd, manifd, rank;
  unsigned long input_crc;
  unsigned char *complete; /* [nscenes] */
  int *codes;              /* [nscenes] */
  long ndone;
  vb_packed_scene **batch;
  long nbatch, capbatch;
  double batch_bytes, last_flush;
  long next_shard;
  long kill_at, writes;    /* test hook VIBRO_TEST_KILL_AT */
  long batch_scenes;       /* test hook VIBRO_TEST_BATCH: scenes per shard */
  char *err;               /* where messages go during a call */
  size_t errlen;
};

/* Seconds on a monotonic clock. */
static double now(void)
{
  struct timespec ts;

  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Write "message" into err unless one is there; returns code. */
static int msg(char *err, size_t errlen, int code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int msg(char *err, size_t errlen, int code, const char *fmt, ...)
{
  va_list ap;

  if (err && errlen > 0 && !err[0]) {
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
  }
  return code;
}

/* Test hook: with VIBRO_TEST_KILL_AT=k in the environment, the process
 * kills itself (SIGKILL) at the k-th write point of the output. */
static void tick(void *ctx)
{
  vb_output *o = ctx;

  if (o->kill_at > 0 && ++o->writes == o->kill_at)
    raise(SIGKILL);
}

static long env_kill_at(void)
{
  const char *s = getenv("VIBRO_TEST_KILL_AT");
  return s ? atol(s) : 0;
}

/* CRC-32 of a whole file by name under dirfd; -1 on error; *size its bytes.
 * The file is mapped (no copy out of the page cache) and its pieces of
 * 4 MiB summed by the threads (outside a parallel region: the final
 * shard, resume), then combined in order. */
static long file_crc(int dirfd, const char *name, long *size)
{
  const long piece = 1L << 22;
  int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  struct stat st;
  long n, k;
  uLong crc = crc32(0L, Z_NULL, 0), *part;
  const unsigned char *map;

  if (fd < 0)
    return -1;
  if (fstat(fd, &st) < 0) {
    close(fd);
    return -1;
  }
  *size = (long)st.st_size;
  if (st.st_size == 0) {
    close(fd);
    return (long)crc;
  }
  map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
  close(fd);
  if (map == MAP_FAILED)
    return -1;
  madvise((void *)map, (size_t)st.st_size, MADV_SEQUENTIAL);
  n = ((long)st.st_size + piece - 1) / piece;
  part = calloc((size_t)n, sizeof *part);
  if (!part) {
    munmap((void *)map, (size_t)st.st_size);
    return -1;
  }
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic, 1)
#endif
  for (k = 0; k < n; k++)
    part[k] = crc32(0L, map + k * piece,
                    (uInt)(k == n - 1 ? (long)st.st_size - k * piece : piece));
  for (k = 0; k < n; k++)
    crc = crc32_combine(crc, part[k], (z_off_t)(k == n - 1 ? (long)st.st_size - k * piece
                                                            : piece));
  free(part);
  munmap((void *)map, (size_t)st.st_size);
  return (long)crc;
}

/* Write len bytes to fd, calling tick between pieces; 0 or an errno. */
int vb_write_all(int fd, const void *buf, size_t len, void (*tick)(void *), void *ctx)
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
    if (done < len && tick)
      tick(ctx);
  }
  return 0;
}

/* Whether a cause of failure is a full disk or a file size limit. */
static const char *disk_full(int e)
{
  if (e == ENOSPC || e == EDQUOT)
    return "the disk is full";
  if (e == EFBIG)
    return "the file size limit was reached";
  return NULL;
}

/* The message of a failed write to the shard directory. */
static int write_failed(vb_output *o, const char *what, int e)
{
  const char *full = disk_full(e);
  long kept = o->ndone;

  if (o->err && o->errlen > 0)
    o->err[0] = '\0';
  if (kept > 0)
    return msg(o->err, o->errlen, VB_EIO, "%s: cannot write %s: %s; the %ld finished scenes "
               "are kept in %s: run again with --resume to continue", o->path, what,
               full ? full : (e ? strerror(e) : "HDF5 write error"), kept, o->part);
  return msg(o->err, o->errlen, VB_EIO, "%s: cannot write %s: %s; no scene was finished",
             o->path, what, full ? full : (e ? strerror(e) : "HDF5 write error"));
}

/* Shard file names: rank and number. */
static int shard_name_parse(const char *name, int *rank, long *number)
{
  int r, used = 0;
  long n;

  if (sscanf(name, "r%3d-%6ld.h5%n", &r, &n, &used) != 2 || name[used] != '\0')
    return -1;
  *rank = r;
  *number = n;
  return 0;
}

/* Try the lock of rank r: 1 if held by a running writer (its pid in *pid),
 * 0 if free (or absent). */
static int lock_held(int dirfd, int r, long *pid)
{
  char name[32], buf[32];
  int fd, held = 0;
  ssize_t n;

  snprintf(name, sizeof name, "lock.r%03d", r);
  fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0)
    return 0;
  if (flock(fd, LOCK_SH | LOCK_NB) < 0 && errno == EWOULDBLOCK) {
    held = 1;
    n = pread(fd, buf, sizeof buf - 1, 0);
    buf[n > 0 ? n : 0] = '\0';
    *pid = atol(buf);
  }
  close(fd);
  return held;
}

/* Whether a directory entry is one vibro writes in OUT.part/. */
static int ours(const char *name)
{
  int r;
  long n;
  size_t len = strlen(name);

  return strncmp(name, "lock.r", 6) == 0 || strncmp(name, "manifest.r", 10) == 0 ||
         shard_name_parse(name, &r, &n) == 0 || (len > 4 && strcmp(name + len - 4, ".tmp") == 0);
}

/* The rank a file of OUT.part/ belongs to, or -1 (final.tmp). */
static int owner_rank(const char *name)
{
  int r;

  if (sscanf(name, "r%3d-", &r) == 1 || sscanf(name, "manifest.r%3d", &r) == 1 ||
      sscanf(name, "lock.r%3d", &r) == 1)
    return r;
  return -1;
}

/* Parse one manifest line; 0 if complete and its own CRC matches. */
static int line_parse(const char *line, shard *s, unsigned long *input_crc)
{
  char name[64];
  unsigned long crc, icrc, lcrc;
  long size, rows, lo, hi;
  int used = 0;
  const char *end;

  if (sscanf(line, "%63s %ld %lx %ld %ld %ld %lx %n", name, &size, &crc, &rows, &lo, &hi,
             &icrc, &used) != 7)
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
  return shard_name_parse(s->name, &s->rank, &size);
}

/* Format a manifest line. */
static void line_format(char *line, size_t len, const shard *s, unsigned long input_crc)
{
  int n = snprintf(line, len, "%s %ld %08lx %ld %ld %ld %08lx ", s->name, s->size, s->crc,
                   s->rows, s->lo, s->hi, input_crc);
  snprintf(line + n, len - (size_t)n, "%08lx\n",
           (unsigned long)crc32(0L, (const Bytef *)line, (uInt)n));
}

/* Read every manifest in OUT.part/: the listed shards whose size and
 * CRC-32 match (their scenes read from the shard), in *out.  A line for
 * another input is an error (VB_EINVAL). */
static int shards_verified(int dirfd, const char *part, const char *source,
                           unsigned long input_crc, int check, shard **out, long *nout,
                           char *err, size_t errlen)
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
    return msg(err, errlen, VB_EIO, "cannot list %s: %s", part, strerror(errno));
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
        rc = msg(err, errlen, VB_EINVAL, "%s was written for a different input than %s; run "
                 "without --resume to start over", part, source);
        break;
      }
      if (check && ((long)file_crc(dirfd, s.name, &size) != (long)s.crc || size != s.size))
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
          rc = msg(err, errlen, VB_ENOMEM, "out of memory reading %s", part);
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

/* Path of a file in OUT.part/. */
char *vb_part_file(const char *part, const char *name)
{
  size_t len = strlen(part) + strlen(name) + 2;
  char *p = malloc(len);

  if (p)
    snprintf(p, len, "%s/%s", part, name);
  return p;
}

/* Read a shard's scene indices and status codes into complete[] and codes[]. */
int vb_shard_scenes(const char *part, const shard *s, long nscenes, int64_t *idxout,
                    unsigned char *complete, int *codes, long *ndone, long *T)
{
  char *path = vb_part_file(part, s->name);
  hid_t file = path ? H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT) : -1;
  hid_t scene = file >= 0 ? H5Dopen2(file, "signals/scene", H5P_DEFAULT) : -1;
  hid_t table = file >= 0 ? H5Dopen2(file, "study/table", H5P_DEFAULT) : -1;
  hid_t ctype = H5Tcreate(H5T_COMPOUND, sizeof(int));
  hid_t time = file >= 0 ? H5Dopen2(file, "signals/time", H5P_DEFAULT) : -1;
  hid_t space = time >= 0 ? H5Dget_space(time) : -1;
  int64_t *idx = idxout ? idxout : malloc((size_t)(s->rows > 0 ? s->rows : 1) * sizeof *idx);
  int *code = malloc((size_t)(s->rows > 0 ? s->rows : 1) * sizeof *code);
  hsize_t dims[2] = { 0, 0 };
  int rc = -1, nd;
  long r;

  if (scene >= 0 && table >= 0 && ctype >= 0 && idx && code && space >= 0 &&
      H5Tinsert(ctype, "status_code", 0, H5T_NATIVE_INT) >= 0 &&
      H5Dread(scene, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, idx) >= 0 &&
      H5Dread(table, ctype, H5S_ALL, H5S_ALL, H5P_DEFAULT, code) >= 0 &&
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
  vb_h5_close(ctype);
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
static unsigned long input_crc(const vb_output_layout *lay);

/* Verified shards of OUT.part/. */
int vb_part_verified(int dirfd, const char *part, const vb_output_layout *lay,
                     vb_shard **out, long *nout, char *err, size_t errlen)
{
  return shards_verified(dirfd, part, lay->source, input_crc(lay), 1, out, nout, err, errlen);
}

/* CRC-32 of the input text. */
static unsigned long input_crc(const vb_output_layout *lay)
{
  const char *t = lay->input ? lay->input : "";
  return crc32(0L, (const Bytef *)t, (uInt)strlen(t));
}

/* Create OUT.part/ or check the one there; open it. */
static int part_dir(const char *path, const char *part, int *dirfd, char *err, size_t errlen)
{
  struct stat st;
  DIR *d;
  struct dirent *e;
  int fd;

  if (mkdir(part, 0777) < 0 && errno != EEXIST)
    return msg(err, errlen, VB_EIO, "%s: cannot create %s: %s", path, part, strerror(errno));
  if (lstat(part, &st) < 0)
    return msg(err, errlen, VB_EIO, "%s: cannot stat %s: %s", path, part, strerror(errno));
  if (S_ISLNK(st.st_mode) || !S_ISDIR(st.st_mode))
    return msg(err, errlen, VB_EINVAL, "%s: %s exists and is %s, not vibro's shard directory; "
               "move it away (it is not touched)", path, part,
               S_ISLNK(st.st_mode) ? "a symbolic link" : "not a directory");
  fd = open(part, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0)
    return msg(err, errlen, VB_EIO, "%s: cannot open %s: %s", path, part, strerror(errno));
  d = fdopendir(dup(fd));
  if (d)
    rewinddir(d);
  while (d && (e = readdir(d)) != NULL)
    if (e->d_name[0] != '.' && !ours(e->d_name)) {
      msg(err, errlen, VB_EINVAL, "%s: %s holds '%s', which vibro did not write; move it "
          "away (it is not touched)", path, part, e->d_name);
      closedir(d);
      close(fd);
      return VB_EINVAL;
    }
  if (d)
    closedir(d);
  *dirfd = fd;
  return VB_OK;
}

/* Take the lock of this rank; refuse if another writer holds it. */
static int take_lock(vb_output *o)
{
  char name[32], pid[32];
  long other = 0;
  int n;

  snprintf(name, sizeof name, "lock.r%03d", o->rank);
  o->lockfd = openat(o->dirfd, name, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (o->lockfd < 0)
    return msg(o->err, o->errlen, VB_EIO, "%s: cannot create %s/%s: %s", o->path, o->part,
               name, strerror(errno));
  if (flock(o->lockfd, LOCK_EX | LOCK_NB) < 0) {
    ssize_t r = pread(o->lockfd, pid, sizeof pid - 1, 0);
    pid[r > 0 ? r : 0] = '\0';
    other = atol(pid);
    close(o->lockfd);
    o->lockfd = -1;
    return msg(o->err, o->errlen, VB_EINVAL, "%s: being written by process %ld (%s/%s); not "
               "starting a second writer", o->path, other, o->part, name);
  }
  n = snprintf(pid, sizeof pid, "%ld\n", (long)getpid());
  if (ftruncate(o->lockfd, 0) < 0 || pwrite(o->lockfd, pid, (size_t)n, 0) != n)
    return msg(o->err, o->errlen, VB_EIO, "%s: cannot write %s/%s: %s", o->path, o->part, name,
               strerror(errno));
  return VB_OK;
}

/* Delete files of OUT.part/ that a fresh start or a resume drops: with
 * keep NULL every file of this rank (and, for rank 0, of ranks whose lock
 * is free) except locks; else the files of this rank not listed in keep. */
static int part_clean(vb_output *o, const shard *keep, long nkeep, int fresh)
{
  DIR *d = fdopendir(dup(o->dirfd));
  struct dirent *e;
  long k, pid;
  int r, rc = 0;

  if (!d)
    return -1;
  rewinddir(d);
  while ((e = readdir(d)) != NULL) {
    int owner = owner_rank(e->d_name), listed = 0;
    if (e->d_name[0] == '.' || strncmp(e->d_name, "lock.r", 6) == 0)
      continue;
    if (strncmp(e->d_name, "manifest.r", 10) == 0 && !fresh)
      continue;
    if (owner != o->rank && owner >= 0) {
      if (!fresh || o->rank != 0 || lock_held(o->dirfd, owner, &pid))
        continue;
    }
    if (owner < 0 && o->rank != 0)
      continue;
    for (k = 0; k < nkeep; k++)
      if (strcmp(keep[k].name, e->d_name) == 0)
        listed = 1;
    if (listed)
      continue;
    if (unlinkat(o->dirfd, e->d_name, 0) < 0 && errno != ENOENT)
      rc = -1;
  }
  closedir(d);
  (void)r;
  return rc;
}

/* Rewrite this rank's manifest with the kept lines (temporary + rename)
 * and open it for appending. */
static int manifest_open(vb_output *o, const shard *keep, long nkeep)
{
  char name[32], tmp[40], line[LINE_MAX_LEN];
  int fd;
  long k;

  snprintf(name, sizeof name, "manifest.r%03d", o->rank);
  snprintf(tmp, sizeof tmp, "%s.tmp", name);
  fd = openat(o->dirfd, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0)
    return write_failed(o, "the manifest", errno);
  for (k = 0; k < nkeep; k++) {
    if (keep[k].rank != o->rank)
      continue;
    line_format(line, sizeof line, &keep[k], o->input_crc);
    if (write(fd, line, strlen(line)) != (ssize_t)strlen(line)) {
      int e = errno;
      close(fd);
      unlinkat(o->dirfd, tmp, 0);
      return write_failed(o, "the manifest", e);
    }
  }
  if (fsync(fd) < 0 || close(fd) < 0 || renameat(o->dirfd, tmp, o->dirfd, name) < 0) {
    unlinkat(o->dirfd, tmp, 0);
    return write_failed(o, "the manifest", errno);
  }
  o->manifd = openat(o->dirfd, name, O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC);
  if (o->manifd < 0)
    return write_failed(o, "the manifest", errno);
  return VB_OK;
}

/* Free an output's memory (files closed by the caller). */
static void output_release(vb_output *o)
{
  long k;

  for (k = 0; k < o->nbatch; k++)
    vb_packed_scene_free(o->batch[k]);
  free(o->batch);
  vb_format_clear(&o->fmt);
  free(o->complete);
  free(o->codes);
  free(o->path);
  free(o->part);
  free(o);
}

/* Open OUT.part/ for writing. */
int vb_output_open(const char *path, const vb_output_layout *lay, int resume, int rank,
                   vb_output **out, char *err, size_t errlen)
{
  vb_output *o;
  vb_h5quiet q;
  shard *kept = NULL;
  long nkept = 0, k, T;
  int rc;

  *out = NULL;
  if (err && errlen > 0)
    err[0] = '\0';
  if (!path || !path[0] || !lay || !lay->first || lay->nscenes < 1 || rank < 0 || rank > 999)
    return msg(err, errlen, VB_EINVAL, "vb_output_open: %s",
               !path || !path[0] ? "no output path" : "no layout, scenes or rank");
  o = calloc(1, sizeof *o);
  if (!o)
    return msg(err, errlen, VB_ENOMEM, "%s: out of memory", path);
  o->dirfd = o->lockfd = o->manifd = -1;
  o->rank = rank;
  o->err = err;
  o->errlen = errlen;
  o->kill_at = env_kill_at();
  o->batch_scenes = getenv("VIBRO_TEST_BATCH") ? atol(getenv("VIBRO_TEST_BATCH")) : 0;
  o->path = strdup(path);
  o->part = malloc(strlen(path) + sizeof PART_SUFFIX);
  o->complete = calloc((size_t)lay->nscenes, 1);
  o->codes = calloc((size_t)lay->nscenes, sizeof *o->codes);
  if (!o->path || !o->part || !o->complete || !o->codes) {
    output_release(o);
    return msg(err, errlen, VB_ENOMEM, "%s: out of memory", path);
  }
  strcpy(o->part, path);
  strcat(o->part, PART_SUFFIX);
  vb_h5_quiet_begin(&q);
  rc = vb_format_init(&o->fmt, lay, err, errlen);
  o->fmt.tick = tick;
  o->fmt.tick_ctx = o;
  o->input_crc = input_crc(lay);
  if (rc == VB_OK)
    rc = part_dir(path, o->part, &o->dirfd, err, errlen);
  if (rc == VB_OK)
    rc = take_lock(o);
  if (rc == VB_OK && resume)
    rc = shards_verified(o->dirfd, o->part, lay->source, o->input_crc, 1, &kept, &nkept, err,
                         errlen);
  for (k = 0; rc == VB_OK && k < nkept; k++)
    if (vb_shard_scenes(o->part, &kept[k], lay->nscenes, NULL, o->complete, o->codes, &o->ndone, &T) < 0)
      rc = msg(err, errlen, VB_EIO, "%s: cannot read %s/%s", path, o->part, kept[k].name);
  if (rc == VB_OK && part_clean(o, kept, nkept, !resume) < 0)
    rc = msg(err, errlen, VB_EIO, "%s: cannot clean %s: %s", path, o->part, strerror(errno));
  for (k = 0; k < nkept; k++)
    if (kept[k].rank == rank) {
      long number = 0;
      int r;
      shard_name_parse(kept[k].name, &r, &number);
      if (number >= o->next_shard)
        o->next_shard = number + 1;
    }
  if (rc == VB_OK)
    rc = manifest_open(o, kept, nkept);
  vb_h5_quiet_end(&q);
  free(kept);
  o->last_flush = now();
  o->err = NULL;
  o->errlen = 0;
  if (rc != VB_OK) {
    vb_output_free(o);
    return rc;
  }
  *out = o;
  return VB_OK;
}

/* Whether a scene is in a shard. */
int vb_output_complete(const vb_output *o, long index)
{
  return index >= 0 && index < o->fmt.lay.nscenes && o->complete[index];
}

/* Status code of a complete scene. */
int vb_output_status_code(const vb_output *o, long index)
{
  return vb_output_complete(o, index) ? o->codes[index] : VB_EINVAL;
}

/* Scenes in shards. */
long vb_output_scenes_done(const vb_output *o) { return o->ndone; }

/* Pack a run. */
int vb_output_pack(const vb_output *o, long index, const double *params, const vb_run *run,
                   vb_packed_scene **out, char *err, size_t errlen)
{
  if (err && errlen > 0)
    err[0] = '\0';
  *out = NULL;
  if (index < 0 || index >= o->fmt.lay.nscenes || !run || !vb_run_scene(run))
    return msg(err, errlen, VB_EINVAL, "%s: no scene %ld to write (the study has %ld)",
               o->path, index, o->fmt.lay.nscenes);
  return vb_format_pack(&o->fmt, index, params, run, out, err, errlen);
}

/* Order of packed scenes by index. */
static int by_index(const void *a, const void *b)
{
  long x = (*(vb_packed_scene *const *)a)->index, y = (*(vb_packed_scene *const *)b)->index;
  return (x > y) - (x < y);
}

/* Write the batch as the file tmp (tpath, freed here) of OUT.part/,
 * fsync'ed; its CRC-32 and size.  VB_OK or an error with the message. */
static int shard_write(vb_output *o, const char *tmp, char *tpath, long *crcp, long *sizep)
{
  long crc = -1, size = 0;
  int rc, fd, e;
  size_t ilen = 0;
  void *image = NULL;

  tick(o);
  if (o->batch_bytes > IMAGE_BYTES || (o->nbatch == 1 && !o->batch[0]->own)) {
    /* a large batch: HDF5 writes it from the staging buffers or the run's
     * memory (an image in memory would cost two more passes over it; a
     * failed write is reported, and vibro's main skips HDF5's exit
     * handler, which would crash on it) */
    errno = 0;
    rc = vb_stack_write_batch(&o->fmt, tpath, o->batch, o->nbatch, NULL, NULL, NULL, 0);
    e = errno;
    free(tpath);
    fd = rc == VB_OK ? openat(o->dirfd, tmp, O_RDONLY | O_NOFOLLOW | O_CLOEXEC) : -1;
    if (rc != VB_OK || fd < 0 || fsync(fd) < 0) {
      e = rc != VB_OK ? e : errno;
      if (fd >= 0)
        close(fd);
      unlinkat(o->dirfd, tmp, 0);
      return rc == VB_ENOMEM ? msg(o->err, o->errlen, rc, "%s: out of memory writing a shard",
                                   o->path)
                             : write_failed(o, tmp, e);
    }
    close(fd);
    crc = file_crc(o->dirfd, tmp, &size);
    if (crc < 0)
      return write_failed(o, tmp, errno);
  } else {
  /* the shard is made in memory and written here: a full disk is an
   * error of write() (HDF5 1.10 crashes at exit after a failed write of
   * its own), and the CRC comes from the buffer */
  rc = vb_stack_write_batch(&o->fmt, tpath, o->batch, o->nbatch, &image, &ilen, NULL, 0);
  free(tpath);
  if (rc != VB_OK)
    return msg(o->err, o->errlen, rc, "%s: out of memory writing a shard of %ld scenes",
               o->path, o->nbatch);
  crc = (long)crc32(crc32(0L, Z_NULL, 0), image, (uInt)ilen);
  size = (long)ilen;
  tick(o);
  fd = openat(o->dirfd, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
  e = fd < 0 ? errno : vb_write_all(fd, image, ilen, tick, o);
  free(image);
  if (e == 0 && fsync(fd) < 0)
    e = errno;
  if (fd >= 0 && close(fd) < 0 && e == 0)
    e = errno;
  if (e != 0) {
    unlinkat(o->dirfd, tmp, 0);
    return write_failed(o, tmp, e);
  }
  }
  *crcp = crc;
  *sizep = size;
  return VB_OK;
}

/* Write the batch as a shard: temporary, fsync, rename, manifest line. */
static int flush(vb_output *o)
{
  char name[64], tmp[72], line[LINE_MAX_LEN], *tpath;
  shard s;
  long k, size = 0, crc = -1;
  int rc, e;
  size_t len;

  o->last_flush = now();
  if (o->nbatch == 0)
    return VB_OK;
  qsort(o->batch, (size_t)o->nbatch, sizeof *o->batch, by_index);
  snprintf(name, sizeof name, "r%03d-%06ld.h5", o->rank, o->next_shard);
  snprintf(tmp, sizeof tmp, "%s.tmp", name);
  tpath = vb_part_file(o->part, tmp);
  if (!tpath)
    return msg(o->err, o->errlen, VB_ENOMEM, "%s: out of memory", o->path);
  rc = shard_write(o, tmp, tpath, &crc, &size);
  if (rc != VB_OK)
    return rc;
  tick(o);
  if (renameat(o->dirfd, tmp, o->dirfd, name) < 0) {
    e = errno;
    unlinkat(o->dirfd, tmp, 0);
    return write_failed(o, name, e);
  }
  o->next_shard++;
  tick(o);
  fsync(o->dirfd);
  memset(&s, 0, sizeof s);
  snprintf(s.name, sizeof s.name, "%s", name);
  s.size = size;
  s.crc = (unsigned long)crc;
  s.rows = o->nbatch;
  s.lo = o->batch[0]->index;
  s.hi = o->batch[o->nbatch - 1]->index;
  line_format(line, sizeof line, &s, o->input_crc);
  len = strlen(line);
  tick(o);
  /* a torn line fails its own CRC: the shard is then not listed */
  if (crc < 0 || write(o->manifd, line, len / 2) != (ssize_t)(len / 2)) {
    e = errno;
    unlinkat(o->dirfd, name, 0);
    return write_failed(o, "the manifest", e);
  }
  tick(o);
  if (write(o->manifd, line + len / 2, len - len / 2) != (ssize_t)(len - len / 2) ||
      fsync(o->manifd) < 0) {
    e = errno;
    return write_failed(o, "the manifest", e);
  }
  tick(o);
  for (k = 0; k < o->nbatch; k++) {
    long i = o->batch[k]->index;
    int32_t code;
    memcpy(&code, o->batch[k]->row + o->fmt.off_code, 4);
    if (!o->complete[i]) {
      o->complete[i] = 1;
      o->codes[i] = code;
      o->ndone++;
    }
    vb_packed_scene_free(o->batch[k]);
  }
  o->nbatch = 0;
  o->batch_bytes = 0;
  return VB_OK;
}

/* Write the batch as a shard now. */
int vb_output_flush(vb_output *o, char *err, size_t errlen)
{
  vb_h5quiet q;
  int rc;

  if (err && errlen > 0)
    err[0] = '\0';
  o->err = err;
  o->errlen = errlen;
  vb_h5_quiet_begin(&q);
  rc = flush(o);
  vb_h5_quiet_end(&q);
  o->err = NULL;
  o->errlen = 0;
  return rc;
}

/* Take a packed scene into the batch. */
int vb_output_add(vb_output *o, vb_packed_scene *p, char *err, size_t errlen)
{
  int borrowed = p && !p->own;

  if (err && errlen > 0)
    err[0] = '\0';
  if (!p)
    return msg(err, errlen, VB_EINVAL, "%s: no scene to add", o->path);
  if (o->nbatch == o->capbatch) {
    long cap = o->capbatch ? 2 * o->capbatch : 64;
    vb_packed_scene **g = realloc(o->batch, (size_t)cap * sizeof *g);
    if (!g) {
      vb_packed_scene_free(p);
      return msg(err, errlen, VB_ENOMEM, "%s: out of memory", o->path);
    }
    o->batch = g;
    o->capbatch = cap;
  }
  /* a borrowed (large) scene goes alone, before its run is freed */
  if (borrowed && o->nbatch > 0) {
    int rc = vb_output_flush(o, err, errlen);
    if (rc != VB_OK) {
      vb_packed_scene_free(p);
      return rc;
    }
  }
  o->batch[o->nbatch++] = p;
  o->batch_bytes += p->bytes;
  if (borrowed || o->batch_bytes >= BATCH_BYTES || now() - o->last_flush >= BATCH_SECONDS ||
      (o->batch_scenes > 0 && o->nbatch >= o->batch_scenes))
    return vb_output_flush(o, err, errlen);
  return VB_OK;
}

/* Pack and add. */
int vb_output_scene(vb_output *o, long index, const double *params, const vb_run *run,
                    char *err, size_t errlen)
{
  vb_packed_scene *p;
  int rc = vb_output_pack(o, index, params, run, &p, err, errlen);

  return rc == VB_OK ? vb_output_add(o, p, err, errlen) : rc;
}

/* Unlock and free. */
void vb_output_free(vb_output *o)
{
  if (!o)
    return;
  if (o->manifd >= 0)
    close(o->manifd);
  if (o->lockfd >= 0)
    close(o->lockfd);
  if (o->dirfd >= 0)
    close(o->dirfd);
  output_release(o);
}

/* The shards of a running study. */
int vb_output_running(const char *path, char ***paths, long *n, char *err, size_t errlen)
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
    return msg(err, errlen, VB_ENOMEM, "%s: out of memory", path);
  strcpy(part, path);
  strcat(part, PART_SUFFIX);
  dirfd = open(part, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (dirfd < 0) {
    rc = msg(err, errlen, VB_EINVAL, "%s: no running study (%s: %s)", path, part,
             strerror(errno));
    free(part);
    return rc;
  }
  rc = shards_verified(dirfd, part, path, 0, 0, &list, &count, err, errlen);
  close(dirfd);
  if (rc == VB_OK && count > 0) {
    *paths = calloc((size_t)count, sizeof **paths);
    for (k = 0; *paths && k < count; k++)
      if (!((*paths)[k] = vb_part_file(part, list[k].name)))
        break;
    if (!*paths || k < count) {
      vb_output_running_free(*paths, count);
      *paths = NULL;
      rc = msg(err, errlen, VB_ENOMEM, "%s: out of memory", path);
    } else {
      *n = count;
    }
  }
  free(list);
  free(part);
  return rc;
}

/* Free what vb_output_running returned. */
void vb_output_running_free(char **paths, long n)
{
  long k;

  for (k = 0; paths && k < n; k++)
    free(paths[k]);
  free(paths);
}
