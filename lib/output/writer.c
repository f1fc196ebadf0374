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
#include "state.h"

#define LINE_MAX_LEN 256

/* Seconds on a monotonic clock. */
static double
now(void)
{
  struct timespec ts;

  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* A write point of the output (the kill hook, VIBRO_TEST_KILL_AT). */
static void
tick(vb_output *o)
{
  vb_write_point(&o->points);
}

/* Hand the lock over. */
int
vb_output_take_lock(vb_output *o)
{
  int fd = o ? o->lockfd : -1;

  if (o)
    o->lockfd = -1;
  return fd;
}

/* Threads for staging and summing. */
void
vb_output_threads(vb_output *o, int threads)
{
  o->fmt.threads = threads;
}

/* Whether a cause of failure is a full disk or a file size limit. */
static const char *
disk_full(int e)
{
  if (e == ENOSPC || e == EDQUOT)
    return "the disk is full";
  if (e == EFBIG)
    return "the file size limit was reached";
  return NULL;
}

/* The message of a failed write to the shard directory. */
static int
write_failed(vb_output *o, const char *what, int e)
{
  const char *full = disk_full(e);
  long kept = o->ndone;

  if (o->err && o->errlen > 0)
    o->err[0] = '\0';
  if (kept > 0)
    return vb_errf_first(o->err, o->errlen, VB_EIO,
                         "%s: cannot write %s: %s; the %ld finished scenes "
                         "are kept in %s: run again with --resume to continue",
                         o->path, what, full ? full : (e ? strerror(e) : "HDF5 write error"), kept,
                         o->part);
  return vb_errf_first(o->err, o->errlen, VB_EIO, "%s: cannot write %s: %s; no scene was finished",
                       o->path, what, full ? full : (e ? strerror(e) : "HDF5 write error"));
}

/* Rewrite this rank's manifest with the kept lines (temporary + rename)
 * and open it for appending. */
static int
manifest_open(vb_output *o, const shard *keep, long nkeep)
{
  char name[32], tmp[40], line[LINE_MAX_LEN];
  int fd;
  long k, lines = 0;

  snprintf(name, sizeof name, "manifest.r%03d", o->rank);
  snprintf(tmp, sizeof tmp, "%s.tmp", name);
  fd = openat(o->dirfd, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0)
    return write_failed(o, "the manifest", errno);
  for (k = 0; k < nkeep; k++) {
    if (keep[k].rank != o->rank)
      continue;
    vb_manifest_line(line, sizeof line, &keep[k], o->input_crc);
    if (write(fd, line, strlen(line)) != (ssize_t)strlen(line)) {
      int e = errno;
      close(fd);
      unlinkat(o->dirfd, tmp, 0);
      return write_failed(o, "the manifest", e);
    }
    lines++;
  }
  /* an empty manifest lists what a missing one does (nothing): it needs
   * no fsync, and a run's first shard fsyncs the directory (shard_add)
   * before a line is appended, which makes this rename durable too */
  if ((lines > 0 && fsync(fd) < 0) || close(fd) < 0 ||
      renameat(o->dirfd, tmp, o->dirfd, name) < 0) {
    unlinkat(o->dirfd, tmp, 0);
    return write_failed(o, "the manifest", errno);
  }
  o->manifd = openat(o->dirfd, name, O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC);
  if (o->manifd < 0)
    return write_failed(o, "the manifest", errno);
  return VB_OK;
}

/* Free an output's memory (files closed by the caller). */
static void
output_release(vb_output *o)
{
  long k;

  for (k = 0; k < o->nbatch; k++)
    vb_packed_scene_free(o->batch[k]);
  free(o->batch);
  for (k = 0; k < o->nheld; k++)
    vb_packed_scene_free(o->held[k]);
  free(o->held);
  vb_format_clear(&o->fmt);
  free(o->complete);
  free(o->codes);
  free(o->path);
  free(o->part);
  free(o);
}

/* A fresh start (not VB_RESTART) over an OUT.part/ whose manifests list
 * finished scenes of this input is refused: finished work is never
 * deleted without being asked. */
static int
refuse_finished(const vb_output *o, const vb_output_layout *lay, char *err, size_t errlen)
{
  shard *list = NULL;
  long n = 0, k, scenes = 0;
  int rc = vb_shards_verified(o->dirfd, o->part, lay, o->input_crc, 0, &list, &n, err, errlen);

  for (k = 0; k < n; k++)
    scenes += list[k].rows;
  free(list);
  if (rc != VB_OK || scenes == 0)
    return rc;
  return vb_errf_first(err, errlen, VB_EINVAL,
                       "%s: %s holds %ld finished scene%s of this study: run again with "
                       "--resume to keep %s, or with --restart to discard %s",
                       o->path, o->part, scenes, scenes == 1 ? "" : "s",
                       scenes == 1 ? "it" : "them", scenes == 1 ? "it" : "them");
}

/* Open OUT.part/ for writing. */
int
vb_output_open(const char *path, const vb_output_layout *lay, int resume, int rank, vb_output **out,
               char *err, size_t errlen)
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
    return vb_errf_first(err, errlen, VB_EINVAL, "vb_output_open: %s",
                         !path || !path[0] ? "no output path" : "no layout, scenes or rank");
  o = calloc(1, sizeof *o);
  if (!o)
    return vb_errf_first(err, errlen, VB_ENOMEM, "%s: out of memory", path);
  o->dirfd = o->lockfd = o->manifd = o->wb.fd = -1;
  o->rank = rank;
  o->err = err;
  o->errlen = errlen;
  vb_test_hooks_read(&o->hooks);
  o->points = (vb_wpoints){.kill_at = o->hooks.kill_at, .sig = o->hooks.kill_sig};
  o->batch_seconds = o->hooks.batch_seconds > 0 ? o->hooks.batch_seconds : BATCH_SECONDS;
  o->path = strdup(path);
  o->part = malloc(strlen(path) + sizeof PART_SUFFIX);
  o->complete = calloc((size_t)lay->nscenes, 1);
  o->codes = calloc((size_t)lay->nscenes, sizeof *o->codes);
  if (!o->path || !o->part || !o->complete || !o->codes) {
    output_release(o);
    return vb_errf_first(err, errlen, VB_ENOMEM, "%s: out of memory", path);
  }
  strcpy(o->part, path);
  strcat(o->part, PART_SUFFIX);
  vb_h5_quiet_begin(&q);
  rc = vb_format_init(&o->fmt, lay, err, errlen);
  o->fmt.points = &o->points;
  o->fmt.wb = &o->wb;
  o->input_crc = vb_input_crc(lay);
  if (rc == VB_OK)
    rc = vb_part_dir(path, o->part, &o->dirfd, &o->created, err, errlen);
  if (rc == VB_OK)
    rc = vb_part_lock(o);
  if (rc == VB_OK && resume == 0)
    rc = refuse_finished(o, lay, err, errlen);
  if (rc == VB_OK && resume == 1)
    rc = vb_shards_verified(o->dirfd, o->part, lay, o->input_crc, 1, &kept, &nkept, err, errlen);
  for (k = 0; rc == VB_OK && k < nkept; k++)
    if (vb_shard_scenes(o->part, &kept[k], lay->nscenes, NULL, o->complete, o->codes, &o->ndone,
                        &T) < 0)
      rc = vb_errf_first(err, errlen, VB_EIO, "%s: cannot read %s/%s", path, o->part, kept[k].name);
  if (rc == VB_OK && vb_part_clean(o, kept, nkept, resume != 1) < 0)
    rc = vb_errf_first(err, errlen, VB_EIO, "%s: cannot clean %s: %s", path, o->part,
                       strerror(errno));
  for (k = 0; k < nkept; k++)
    if (kept[k].rank == rank) {
      long number = 0;
      int r;
      vb_shard_name_parse(kept[k].name, &r, &number);
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
    vb_output_discard(o);
    vb_output_free(o);
    return rc;
  }
  *out = o;
  return VB_OK;
}

/* After a failed run: remove OUT.part/ when it is all this run's work
 * and holds nothing finished (this run created it, under its lock, and no
 * scene is in a shard), so that an exit 1 leaves no output behind; an
 * OUT.part/ the user had, or one with finished scenes, stays. */
void
vb_output_discard(vb_output *o)
{
  if (o && o->created && o->ndone == 0 && o->next_shard == 0)
    o->discard = 1;
}

/* Whether a scene is in a shard. */
int
vb_output_complete(const vb_output *o, long index)
{
  return index >= 0 && index < o->fmt.lay.nscenes && o->complete[index];
}

/* Status code of a complete scene. */
int
vb_output_status_code(const vb_output *o, long index)
{
  return vb_output_complete(o, index) ? o->codes[index] : VB_EINVAL;
}

/* Scenes in shards. */
long
vb_output_scenes_done(const vb_output *o)
{
  return o->ndone;
}

/* Pack a run; in the laid-out shard, its signals are written there now. */
int
vb_output_pack(const vb_output *o, long index, const double *params, const vb_run *run,
               vb_packed_scene **out, char *err, size_t errlen)
{
  int live = vb_laid_open(o->laid), rc;

  if (err && errlen > 0)
    err[0] = '\0';
  *out = NULL;
  if (index < 0 || index >= o->fmt.lay.nscenes || !run || !vb_run_scene(run))
    return vb_errf_first(err, errlen, VB_EINVAL, "%s: no scene %ld to write (the study has %ld)",
                         o->path, index, o->fmt.lay.nscenes);
  rc = vb_format_pack(&o->fmt, index, params, run, live, out, err, errlen);
  if (rc != VB_OK || !live || vb_laid_place(o, *out) == 0 || (*out)->bytes > PACK_COPY_MAX)
    return rc;
  if (vb_packed_scene_own(&o->fmt, *out) != VB_OK) {
    vb_packed_scene_free(*out);
    *out = NULL;
    return vb_errf_first(err, errlen, VB_ENOMEM, "out of memory packing scene %ld", index);
  }
  return VB_OK;
}

/* Order of packed scenes by index. */
static int
by_index(const void *a, const void *b)
{
  long x = (*(vb_packed_scene *const *)a)->index, y = (*(vb_packed_scene *const *)b)->index;
  return (x > y) - (x < y);
}

/* Write the batch as the file tmp (tpath, freed here) of OUT.part/,
 * fsync'ed; its CRC-32 (with sum, else 0) and size.  VB_OK or an error
 * with the message. */
static int
shard_write(vb_output *o, const char *tmp, char *tpath, int sum, long *crcp, long *sizep)
{
  long crc = -1, size = 0;
  int rc, fd, e;
  size_t ilen = 0;
  void *image = NULL;

  tick(o);
  if (o->batch_bytes > IMAGE_BYTES || (o->nbatch == 1 && !o->batch[0]->own) ||
      vb_laid_complete(o)) {
    /* a large batch: HDF5 writes it from the staging buffers or the run's
     * memory (an image in memory would cost two more passes over it; a
     * failed write is reported, and vibro's main skips HDF5's exit
     * handler, which would crash on it) */
    errno = 0;
    /* the writeback of what HDF5 writes of a large shard is started after
     * each dataset, so that the disk works while the rest is written */
    o->wb = (vb_wb){.dirfd = o->dirfd, .name = tmp, .fd = -1};
    if (vb_laid_complete(o)) {
      /* the laid-out shard (named tmp): its signals are in place; the
       * table and events, then close */
      laid *l = o->laid;
      rc = vb_stack_write_scenes(l->st, o->batch, o->nbatch, NULL, 0);
      e = errno;
      if (vb_stack_close(l->st, NULL, 0) != VB_OK && rc == VB_OK) {
        rc = VB_EIO;
        e = errno;
      }
      l->st = NULL;
      __atomic_store_n(&l->closed, 1, __ATOMIC_RELEASE);
      errno = e;
    } else {
      rc = vb_stack_write_batch(&o->fmt, tpath, o->batch, o->nbatch, NULL, NULL, NULL, 0);
    }
    e = errno;
    free(tpath);
    fd = o->wb.fd;
    o->wb = (vb_wb){.dirfd = o->dirfd, .name = NULL, .fd = -1};
    if (rc == VB_OK && fd < 0)
      fd = openat(o->dirfd, tmp, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    /* the CRC is summed from the page cache while the disk writes the
     * shard back; fsync then waits for what is left */
    if (rc == VB_OK && fd >= 0 && !sum) {
      struct stat st;
      crc = fstat(fd, &st) == 0 ? 0 : -1;
      size = (long)st.st_size;
    } else if (rc == VB_OK && fd >= 0) {
      vb_writeback(fd);
      crc = vb_file_crc(o->dirfd, tmp, o->fmt.threads, &size);
    }
    if (rc != VB_OK || fd < 0 || crc < 0 || fsync(fd) < 0) {
      e = rc != VB_OK ? e : errno;
      if (fd >= 0)
        close(fd);
      unlinkat(o->dirfd, tmp, 0);
      return rc == VB_ENOMEM ? vb_errf_first(o->err, o->errlen, rc,
                                             "%s: out of memory writing a shard", o->path)
                             : write_failed(o, tmp, e);
    }
    close(fd);
  } else {
    /* the shard is made in memory and written here: a full disk is an
     * error of write() (HDF5 1.10 crashes at exit after a failed write of
     * its own), and the CRC comes from the buffer */
    rc = vb_stack_write_batch(&o->fmt, tpath, o->batch, o->nbatch, &image, &ilen, NULL, 0);
    free(tpath);
    if (rc != VB_OK)
      return vb_errf_first(o->err, o->errlen, rc, "%s: out of memory writing a shard of %ld scenes",
                           o->path, o->nbatch);
    crc = sum ? (long)vb_crc32(0L, image, ilen) : 0;
    size = (long)ilen;
    tick(o);
    fd = openat(o->dirfd, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
    e = fd < 0 ? errno : vb_write_all(fd, image, ilen, &o->points);
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

/* Sort the batch by index; a batch that is not the whole laid-out shard
 * spills it (vb_laid_spill: it can no longer become a file of its own,
 * and is only where the scenes placed in it are read back from). */
static void
batch_sort(vb_output *o)
{
  qsort(o->batch, (size_t)o->nbatch, sizeof *o->batch, by_index);
  if (o->laid && !vb_laid_complete(o))
    vb_laid_spill(o);
}

/* Whether a scene of the batch has its signals in the laid-out shard. */
static int
batch_placed(const vb_output *o)
{
  for (long k = 0; k < o->nbatch; k++)
    if (o->batch[k]->laid_row >= 0)
      return 1;
  return 0;
}

/* Mark the batch's scenes complete and empty it. */
static void
batch_done(vb_output *o)
{
  for (long k = 0; k < o->nbatch; k++) {
    long i = o->batch[k]->index;
    if (!o->complete[i]) {
      o->complete[i] = 1;
      o->codes[i] = (int)vb_row_long(&o->fmt.table, o->batch[k]->row, VB_TC_STATUS_CODE);
      o->ndone++;
    }
    vb_packed_scene_free(o->batch[k]);
  }
  o->nbatch = 0;
  o->batch_bytes = 0;
}

/* The shard written as tmp in the shard directory under its name: renamed
 * and the directory synced, the write points ticked on either side (VB_OK,
 * or the failed rename's message, tmp removed). */
static int
shard_publish(vb_output *o, const char *tmp, const char *name)
{
  tick(o);
  if (renameat(o->dirfd, tmp, o->dirfd, name) < 0) {
    int e = errno;
    unlinkat(o->dirfd, tmp, 0);
    return write_failed(o, name, e);
  }
  o->next_shard++;
  tick(o);
  fsync(o->dirfd);
  return VB_OK;
}

/* SHARD WRITTEN (output.h's protocol): the batch (sorted, its signals in
 * memory) written to rRRR-NNNNNN.h5.tmp, fsync'ed, renamed to its name,
 * the directory fsync'ed; its manifest entry into *s. */
static int
shard_written(vb_output *o, shard *s, int hold)
{
  char name[64], tmp[72], *tpath;
  long size = 0, crc = -1;
  int rc;

  snprintf(name, sizeof name, "r%03d-%06ld.h5", o->rank, o->next_shard);
  snprintf(tmp, sizeof tmp, "%s.tmp", name);
  tpath = vb_part_file(o->part, tmp);
  if (!tpath)
    return vb_errf_first(o->err, o->errlen, VB_ENOMEM, "%s: out of memory", o->path);
  rc = shard_write(o, tmp, tpath, 1, &crc, &size);
  if (rc != VB_OK)
    return rc;
  (void)hold;
  rc = shard_publish(o, tmp, name);
  if (rc != VB_OK)
    return rc;
  memset(s, 0, sizeof *s);
  snprintf(s->name, sizeof s->name, "%s", name);
  s->size = size;
  s->crc = (unsigned long)crc;
  s->rows = o->nbatch;
  s->lo = o->batch[0]->index;
  s->hi = o->batch[o->nbatch - 1]->index;
  if (crc < 0) {
    unlinkat(o->dirfd, name, 0);
    return write_failed(o, "the manifest", errno);
  }
  return VB_OK;
}

/* LISTED: the written shard's line appended to manifest.rRRR and
 * fsync'ed, in two writes (a torn line fails its own CRC: the shard is
 * then not listed, and goes at the next resume); the batch then freed. */
static void batch_hold(vb_output *o);

static int
shard_listed(vb_output *o, const shard *s, int hold)
{
  char line[LINE_MAX_LEN];
  size_t len;
  int e;

  vb_manifest_line(line, sizeof line, s, o->input_crc);
  len = strlen(line);
  tick(o);
  if (write(o->manifd, line, len / 2) != (ssize_t)(len / 2)) {
    e = errno;
    unlinkat(o->dirfd, s->name, 0);
    return write_failed(o, "the manifest", e);
  }
  tick(o);
  if (write(o->manifd, line + len / 2, len - len / 2) != (ssize_t)(len - len / 2) ||
      fsync(o->manifd) < 0) {
    e = errno;
    return write_failed(o, "the manifest", e);
  }
  tick(o);
  if (hold)
    batch_hold(o);
  else
    batch_done(o);
  return VB_OK;
}

/* BATCH -> SHARD WRITTEN -> LISTED: the batch as one listed shard. */
static int
shard_add(vb_output *o)
{
  shard s;
  int rc = shard_written(o, &s, 0);
  return rc == VB_OK ? shard_listed(o, &s, 0) : rc;
}

/* Mark the batch's scenes complete (listed) and hold them for the end:
 * their table rows and events go to rank 0 then (finish_shared). */
static void
batch_hold(vb_output *o)
{
  for (long k = 0; k < o->nbatch; k++) {
    vb_packed_scene *p = o->batch[k];
    if (!o->complete[p->index]) {
      o->complete[p->index] = 1;
      o->codes[p->index] = (int)vb_row_long(&o->fmt.table, p->row, VB_TC_STATUS_CODE);
      o->ndone++;
    }
    p->listed = 1;
    if (o->nheld == o->capheld) {
      long cap = o->capheld ? 2 * o->capheld : 64;
      vb_packed_scene **g = realloc(o->held, (size_t)cap * sizeof *g);
      if (!g) { /* then it is only not held: the end falls back to the merge */
        vb_packed_scene_free(p);
        continue;
      }
      o->held = g;
      o->capheld = cap;
    }
    o->held[o->nheld++] = p;
  }
  o->nbatch = 0;
  o->batch_bytes = 0;
}

/* Whether a flush of the batch is a checkpoint of ranks writing one
 * laid-out file (doc/mpi.md): every scene of the batch is placed in it
 * and the file is still open for placing. */
static int
checkpoint_due(const vb_output *o)
{
  const laid *l = o->laid;

  if (!l || !l->shared || l->fd < 0 || !vb_laid_open(o->laid) || o->nbatch == 0)
    return 0;
  for (long k = 0; k < o->nbatch; k++)
    if (o->batch[k]->laid_row < 0)
      return 0;
  return 1;
}

/* CHECKPOINT: the batch (its scenes placed in the ranks' laid-out file,
 * sorted) listed as a shard whose signals are those rows by reference
 * (HDF5 external storage: vb_stack_create_external), once the file's
 * data are on the disk (fdatasync): no sample is read back or written
 * again, and a crash keeps these scenes (a resume merges them from the
 * file).  The shard holds the table rows, the events and the swept
 * values; the scenes are held for the end. */
static int
checkpoint(vb_output *o)
{
  laid *l = o->laid;
  char name[64], tmp[72], *tpath;
  long *runs = malloc((size_t)(2 * o->nbatch) * sizeof *runs), nruns = 0, nev = 0, size = 0, crc;
  vb_stack *st = NULL;
  shard s;
  int rc, e = 0, fd, synced = 0;

  if (!runs)
    return vb_errf_first(o->err, o->errlen, VB_ENOMEM, "%s: out of memory", o->path);
  qsort(o->batch, (size_t)o->nbatch, sizeof *o->batch, by_index);
  for (long k = 0; k < o->nbatch; k++) {
    long row = o->batch[k]->laid_row;
    nev += o->batch[k]->nevents;
    if (nruns > 0 && runs[2 * nruns - 2] + runs[2 * nruns - 1] == row)
      runs[2 * nruns - 1]++;
    else {
      runs[2 * nruns] = row;
      runs[2 * nruns + 1] = 1;
      nruns++;
    }
  }
  snprintf(name, sizeof name, "r%03d-%06ld.h5", o->rank, o->next_shard);
  snprintf(tmp, sizeof tmp, "%s.tmp", name);
  tpath = vb_part_file(o->part, tmp);
  tick(o);
  /* the rows first: a listed checkpoint never names rows not on the disk */
  rc = !tpath ? VB_ENOMEM : fdatasync(l->fd) < 0 ? (e = errno, VB_EIO) : VB_OK;
  synced = rc == VB_OK;
  if (rc == VB_OK) {
    vb_stack_ext x = {.name = l->tmp, .off = l->off, .runs = runs, .nruns = nruns};
    errno = 0;
    rc = vb_stack_create_external(&o->fmt, tpath, o->nbatch, vb_format_time_length(&o->fmt, l->T),
                                  l->interval, nev, &x, &st, NULL, 0);
    if (rc == VB_OK)
      rc = vb_stack_write_scenes(st, o->batch, o->nbatch, NULL, 0);
    e = errno;
    if (st && vb_stack_close(st, NULL, 0) != VB_OK && rc == VB_OK) {
      rc = VB_EIO;
      e = errno;
    }
  }
  free(runs);
  free(tpath);
  if (rc == VB_ENOMEM)
    return vb_errf_first(o->err, o->errlen, rc, "%s: out of memory writing a checkpoint", o->path);
  fd = rc == VB_OK ? openat(o->dirfd, tmp, O_RDONLY | O_NOFOLLOW | O_CLOEXEC) : -1;
  crc = fd >= 0 ? vb_file_crc(o->dirfd, tmp, 1, &size) : -1;
  if (rc != VB_OK || fd < 0 || crc < 0 || fsync(fd) < 0) {
    e = rc != VB_OK ? e : errno;
    if (fd >= 0)
      close(fd);
    unlinkat(o->dirfd, tmp, 0);
    return write_failed(o, synced ? tmp : l->tmp, e);
  }
  close(fd);
  rc = shard_publish(o, tmp, name);
  if (rc != VB_OK)
    return rc;
  memset(&s, 0, sizeof s);
  snprintf(s.name, sizeof s.name, "%s", name);
  s.size = size;
  s.crc = (unsigned long)crc;
  s.rows = o->nbatch;
  s.lo = o->batch[0]->index;
  s.hi = o->batch[o->nbatch - 1]->index;
  return shard_listed(o, &s, 1);
}

/* Write a batch with scenes placed in the (spilled) laid-out shard: in
 * shards of at most SPILL_BYTES each, their signals read back from it one
 * shard at a time, so that a batch flushed before the laid-out shard is
 * complete (the 10 s rule, a signal) is written, not held in memory. */
static int
spill_write(vb_output *o)
{
  vb_packed_scene **all = o->batch;
  long n = o->nbatch, k = 0, m;
  int rc = VB_OK;

  while (k < n && rc == VB_OK) {
    double bytes = 0.0;
    for (m = 0; k + m < n && (m == 0 || bytes + all[k + m]->bytes <= SPILL_BYTES); m++)
      bytes += all[k + m]->bytes;
    o->batch = all + k;
    o->nbatch = m;
    o->batch_bytes = bytes;
    rc = vb_laid_read_back(o);
    if (rc == VB_OK)
      rc = shard_add(o); /* frees the m scenes */
    o->batch = all;
    if (rc == VB_OK)
      k += m;
  }
  /* on failure the scenes not written stay in the batch */
  memmove(all, all + k, (size_t)(n - k) * sizeof *all);
  o->nbatch = n - k;
  o->batch_bytes = 0.0;
  for (m = 0; m < o->nbatch; m++)
    o->batch_bytes += all[m]->laid_row < 0 ? all[m]->bytes : 0.0;
  return rc;
}

/* Write the batch as a shard (or, with scenes placed in the laid-out
 * shard that is not complete, as shards: spill_write). */
static int
flush(vb_output *o)
{
  o->last_flush = now();
  if (o->nbatch == 0)
    return VB_OK;
  if (checkpoint_due(o))
    return checkpoint(o);
  batch_sort(o);
  return batch_placed(o) && !vb_laid_complete(o) ? spill_write(o) : shard_add(o);
}

/* Write the batch as a shard now. */
int
vb_output_flush(vb_output *o, char *err, size_t errlen)
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

/* The last write of a run.  When the batch is every scene of the study
 * and nothing was written before it (no shard, nothing kept), it is the
 * finished file: written, fsync'ed and renamed onto OUT, and OUT.part/
 * removed, with no CRC, manifest line or merge (an interruption before
 * the rename loses the batch, as it would lose a batch not yet listed);
 * *finished is then 1.  Else as vb_output_flush. */
int
vb_output_finish(vb_output *o, int *finished, char *err, size_t errlen)
{
  vb_h5quiet q;
  char tmp[72], *tpath = NULL;
  long crc, size;
  int rc;

  *finished = 0;
  /* (ranks writing one laid-out file: but for the scenes of this rank's
   * checkpoints, back in the batch, whose shards go with OUT.part/) */
  if (o->nbatch == 0 || o->nbatch != o->fmt.lay.nscenes || o->ndone > o->nlisted ||
      (o->next_shard > 0 && o->nlisted == 0))
    return vb_output_flush(o, err, errlen);
  /* scenes in a laid-out shard that is not complete are read back a
   * shard at a time (spill_write), not all at once for one file */
  qsort(o->batch, (size_t)o->nbatch, sizeof *o->batch, by_index);
  /* (scenes of different lengths: as long as laid out, else the merge) */
  if (batch_placed(o) && (!vb_laid_complete(o) || !vb_laid_batch_fits(o)))
    return vb_output_flush(o, err, errlen);
  if (err && errlen > 0)
    err[0] = '\0';
  o->err = err;
  o->errlen = errlen;
  vb_h5_quiet_begin(&q);
  batch_sort(o);
  rc = VB_OK;
  snprintf(tmp, sizeof tmp, "r%03d-%06ld.h5.tmp", o->rank, o->next_shard);
  if (vb_laid_complete(o)) /* the laid-out file (the ranks': VB_SHARED_ROWS) */
    snprintf(tmp, sizeof tmp, "%s", o->laid->tmp);
  if (rc == VB_OK && !(tpath = vb_part_file(o->part, tmp)))
    rc = vb_errf_first(err, errlen, VB_ENOMEM, "%s: out of memory", o->path);
  if (rc == VB_OK)
    rc = shard_write(o, tmp, tpath, 0, &crc, &size);
  vb_h5_quiet_end(&q);
  if (rc == VB_OK) {
    tick(o);
    if (renameat(o->dirfd, tmp, AT_FDCWD, o->path) < 0) {
      int en = errno;
      unlinkat(o->dirfd, tmp, 0);
      rc = vb_errf_first(err, errlen, VB_EIO, "%s: cannot rename %s/%s into place: %s", o->path,
                         o->part, tmp, strerror(en));
    }
  }
  if (rc == VB_OK) {
    /* the rename is made durable, then OUT.part/ goes */
    tick(o);
    vb_sync_path(o->path, 1);
    tick(o);
    vb_part_remove(o->dirfd, o->part);
    batch_done(o);
    *finished = 1;
  }
  o->err = NULL;
  o->errlen = 0;
  return rc;
}

/* Room in the batch for one more scene: VB_OK or VB_ENOMEM. */
static int
batch_room(vb_output *o)
{
  if (o->nbatch < o->capbatch)
    return VB_OK;
  long cap = o->capbatch ? 2 * o->capbatch : 64;
  vb_packed_scene **g = realloc(o->batch, (size_t)cap * sizeof *g);
  if (!g)
    return VB_ENOMEM;
  o->batch = g;
  o->capbatch = cap;
  return VB_OK;
}

/* Take a packed scene into the batch. */
int
vb_output_add(vb_output *o, vb_packed_scene *p, char *err, size_t errlen)
{
  int borrowed = p && !p->own && p->laid_row < 0;

  if (err && errlen > 0)
    err[0] = '\0';
  if (!p)
    return vb_errf_first(err, errlen, VB_EINVAL, "%s: no scene to add", o->path);
  if (batch_room(o) != VB_OK) {
    vb_packed_scene_free(p);
    return vb_errf_first(err, errlen, VB_ENOMEM, "%s: out of memory", o->path);
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
  /* the bytes held in memory: a scene placed in the laid-out shard holds
   * none (a batch of them is written without being read back whole) */
  o->batch_bytes += p->laid_row < 0 ? p->bytes : 0.0;
  if (borrowed || o->batch_bytes >= BATCH_BYTES || now() - o->last_flush >= o->batch_seconds ||
      (o->hooks.batch_scenes > 0 && o->nbatch >= o->hooks.batch_scenes))
    return vb_output_flush(o, err, errlen);
  return VB_OK;
}

/* Pack and add. */
int
vb_output_scene(vb_output *o, long index, const double *params, const vb_run *run, char *err,
                size_t errlen)
{
  vb_packed_scene *p;
  int rc = vb_output_pack(o, index, params, run, &p, err, errlen);

  return rc == VB_OK ? vb_output_add(o, p, err, errlen) : rc;
}

/* Unlock and free. */
void
vb_output_free(vb_output *o)
{
  if (!o)
    return;
  vb_laid_free(o);
  if (o->manifd >= 0)
    close(o->manifd);
  if (o->discard && o->dirfd >= 0)
    vb_part_remove(o->dirfd, o->part); /* under the lock, still held */
  if (o->lockfd >= 0)
    close(o->lockfd);
  if (o->dirfd >= 0)
    close(o->dirfd);
  output_release(o);
}

/* ------------------------------ the batch of an MPI rank, to rank 0 */

/* A packed scene's facts ahead of its rows (vb_output_batch_pack). */
typedef struct packed_head {
  long index, samples, nevents, laid_row;
  double interval, bytes;
  long nx[VB_XT_MAX];
} packed_head;

/* Bytes of a packed scene without its signals. */
static size_t
packed_size(const vb_format *f, const vb_packed_scene *p)
{
  size_t n = sizeof(packed_head) + f->table.rowsize + (size_t)p->nevents * f->events.rowsize;

  for (int x = 0; x < vb_xtable_count(); x++)
    n += (size_t)p->nx[x] * f->xt[x].rowsize;
  return n;
}

/* Whether the batch is exactly scenes index[0 .. n-1], each placed. */
int
vb_output_batch_placed(vb_output *o, const long *index, long n)
{
  if (o->nbatch != n)
    return 0;
  qsort(o->batch, (size_t)o->nbatch, sizeof *o->batch, by_index);
  for (long k = 0; k < n; k++)
    if (o->batch[k]->index != index[k] || o->batch[k]->laid_row != index[k])
      return 0;
  return 1;
}

/* The batch's scenes (placed: no signals) as bytes. */
int
vb_output_batch_pack(const vb_output *o, unsigned char **buf, long *len)
{
  const vb_format *f = &o->fmt;
  size_t total = 0, at = 0;
  unsigned char *b;

  for (long k = 0; k < o->nbatch; k++)
    total += packed_size(f, o->batch[k]);
  *buf = b = malloc(total > 0 ? total : 1);
  *len = 0;
  if (!b)
    return VB_ENOMEM;
  for (long k = 0; k < o->nbatch; k++) {
    const vb_packed_scene *p = o->batch[k];
    packed_head h = {.index = p->index,
                     .samples = p->samples,
                     .nevents = p->nevents,
                     .laid_row = p->laid_row,
                     .interval = p->interval,
                     .bytes = p->bytes};
    for (int x = 0; x < vb_xtable_count(); x++)
      h.nx[x] = p->nx[x];
    memcpy(b + at, &h, sizeof h);
    at += sizeof h;
    memcpy(b + at, p->row, f->table.rowsize);
    at += f->table.rowsize;
    if (p->nevents > 0)
      memcpy(b + at, p->events, (size_t)p->nevents * f->events.rowsize);
    at += (size_t)p->nevents * f->events.rowsize;
    for (int x = 0; x < vb_xtable_count(); x++) {
      size_t xl = (size_t)p->nx[x] * f->xt[x].rowsize;
      if (xl > 0)
        memcpy(b + at, p->xrows[x], xl);
      at += xl;
    }
  }
  *len = (long)at;
  return VB_OK;
}

/* Copy n bytes of buf at *at into fresh memory (NULL when n is 0 or out of
 * memory: *bad then set). */
static unsigned char *
take_bytes(const unsigned char *buf, size_t *at, size_t n, int *bad)
{
  unsigned char *m = NULL;

  if (n == 0)
    return NULL;
  if (!(m = malloc(n)))
    *bad = 1;
  else
    memcpy(m, buf + *at, n);
  *at += n;
  return m;
}

/* Rank 0: another rank's scenes into the batch. */
int
vb_output_batch_unpack(vb_output *o, const unsigned char *buf, long len, char *err, size_t errlen)
{
  const vb_format *f = &o->fmt;
  size_t at = 0;

  while (at < (size_t)len) {
    packed_head h;
    vb_packed_scene *p;
    int bad = 0;
    if (at + sizeof h > (size_t)len)
      return vb_errf_first(err, errlen, VB_EIO, "%s: a rank's scenes are cut short", o->path);
    memcpy(&h, buf + at, sizeof h);
    at += sizeof h;
    if (h.index < 0 || h.index >= f->lay.nscenes || h.nevents < 0 ||
        at + f->table.rowsize + (size_t)h.nevents * f->events.rowsize > (size_t)len)
      return vb_errf_first(err, errlen, VB_EIO, "%s: a rank's scenes are cut short", o->path);
    p = calloc(1, sizeof *p);
    if (!p)
      return vb_errf_first(err, errlen, VB_ENOMEM, "%s: out of memory", o->path);
    p->index = h.index;
    p->samples = h.samples;
    p->interval = h.interval;
    p->bytes = h.bytes;
    p->laid_row = h.laid_row;
    p->nevents = h.nevents;
    p->sig = calloc((size_t)f->nsig + 1, sizeof *p->sig);
    bad = !p->sig;
    p->row = take_bytes(buf, &at, f->table.rowsize, &bad);
    p->events = take_bytes(buf, &at, (size_t)h.nevents * f->events.rowsize, &bad);
    for (int x = 0; x < vb_xtable_count() && !bad; x++) {
      size_t xl = (size_t)h.nx[x] * f->xt[x].rowsize;
      if (h.nx[x] < 0 || at + xl > (size_t)len) {
        vb_packed_scene_free(p);
        return vb_errf_first(err, errlen, VB_EIO, "%s: a rank's scenes are cut short", o->path);
      }
      p->nx[x] = h.nx[x];
      p->xrows[x] = take_bytes(buf, &at, xl, &bad);
    }
    if (bad) {
      vb_packed_scene_free(p);
      return vb_errf_first(err, errlen, VB_ENOMEM, "%s: out of memory", o->path);
    }
    if (batch_room(o) != VB_OK) {
      vb_packed_scene_free(p);
      return vb_errf_first(err, errlen, VB_ENOMEM, "%s: out of memory", o->path);
    }
    o->batch[o->nbatch++] = p; /* placed: no bytes held in memory */
  }
  return VB_OK;
}

/* Another rank: its scenes are rank 0's to write. */
void
vb_output_batch_handed(vb_output *o)
{
  batch_done(o);
}

void
vb_output_batch_unhold(vb_output *o)
{
  for (long k = 0; k < o->nheld; k++) {
    if (batch_room(o) != VB_OK) {
      vb_packed_scene_free(o->held[k]); /* listed: the end falls back to the merge */
      continue;
    }
    o->batch[o->nbatch++] = o->held[k];
    o->nlisted++;
  }
  o->nheld = 0;
  qsort(o->batch, (size_t)o->nbatch, sizeof *o->batch, by_index);
}

void
vb_output_batch_unlisted(vb_output *o)
{
  long kept = 0;

  for (long k = 0; k < o->nbatch; k++)
    if (o->batch[k]->listed)
      vb_packed_scene_free(o->batch[k]);
    else
      o->batch[kept++] = o->batch[k];
  o->nbatch = kept;
  o->nlisted = 0;
}

/* Rank 0, when the ranks did not finish together: only its own scenes
 * index[0 .. n-1] (ascending) stay in the batch. */
void
vb_output_batch_keep(vb_output *o, const long *index, long n)
{
  long kept = 0;

  for (long k = 0; k < o->nbatch; k++) {
    long lo = 0, hi = n - 1, i = o->batch[k]->index;
    int mine = 0;
    while (!mine && lo <= hi) {
      long mid = lo + (hi - lo) / 2;
      mine = index[mid] == i;
      if (index[mid] < i)
        lo = mid + 1;
      else
        hi = mid - 1;
    }
    if (mine)
      o->batch[kept++] = o->batch[k];
    else
      vb_packed_scene_free(o->batch[k]);
  }
  o->nbatch = kept;
}
