/* output/laid.c - the shard laid out before a run (doc/format.md, "the
 * laid-out shard"): its signal datasets allocated at once, each thread
 * writing its scenes' signals in place a block of consecutive rows at a
 * time, the rest written by HDF5 when every row is in (output.c). */
#define _GNU_SOURCE /* fallocate (Linux) */
#include <errno.h>
#include <math.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include "h5util.h"
#include "output.h"
#include "state.h"

/* Whether scenes may still be placed in the laid-out shard. */
int
vb_laid_open(laid *l)
{
  return l && !__atomic_load_n(&l->closed, __ATOMIC_ACQUIRE);
}

/* Drop the laid-out shard: no scene is placed any more, its name goes and
 * HDF5 closes it.  The descriptor stays open: a thread may still be
 * writing a scene into it, and the scenes placed are read back from it. */
void
vb_laid_drop(vb_output *o)
{
  laid *l = o->laid;

  if (!l)
    return;
  __atomic_store_n(&l->closed, 1, __ATOMIC_RELEASE);
  if (l->st) {
    /* the ranks' file stays: checkpoints may name its rows (it goes with
     * OUT.part/) */
    if (!l->shared)
      unlinkat(o->dirfd, l->tmp, 0);
    vb_stack_close(l->st, NULL, 0);
    l->st = NULL;
  }
}

/* Spill the laid-out shard: its name goes and HDF5 closes it, so that it
 * will not become a file, but scenes are still placed in it (through its
 * descriptor) and read back from it a shard at a time (output.c,
 * spill_write): a batch flushed before every row is in is written, not
 * held in memory. */
void
vb_laid_spill(vb_output *o)
{
  laid *l = o->laid;

  if (!l || !l->st)
    return;
  if (!l->shared)
    unlinkat(o->dirfd, l->tmp, 0);
  vb_stack_close(l->st, NULL, 0);
  l->st = NULL;
}

/* Drop and free the laid-out shard (no thread runs scenes any more). */
void
vb_laid_free(vb_output *o)
{
  laid *l = o->laid;

  if (!l)
    return;
  vb_laid_drop(o);
  if (l->fd >= 0)
    close(l->fd);
  free(l->index);
  free(l->off);
  free(l);
  o->laid = NULL;
}

/* Whether scenes recorded in place write from a thread of their own: when
 * fewer of the n scenes run at a time than there are cores (a one-scene
 * run leaves a core idle, on which the kernel's copy of the windows into
 * the page cache then runs), or as the VIBRO_TEST_WRITER_THREAD hook says.
 * When every core runs a scene, a writer thread would only take turns
 * with them. */
static int
laid_async(const vb_output *o, long n)
{
  cpu_set_t set;
  long cores = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set)
                                                           : sysconf(_SC_NPROCESSORS_ONLN);
  long running = o->fmt.threads > 0 ? o->fmt.threads : cores;
  if (o->hooks.writer_thread >= 0)
    return o->hooks.writer_thread;
  return (running < n ? running : n) < cores;
}

/* Lay out the shard of the pending scenes (ascending) before they run,
 * when it pays and is safe: they hold at most LAID_BYTES of signals (on
 * disk, not in memory: a batch of placed scenes holds none, and one
 * flushed early is spilled), more than a shard built in memory
 * (IMAGE_BYTES), and every scene records T samples at interval (a scene
 * that does not is kept in memory, and the batch written the usual way),
 * or (ragged) at most T, at interval unless it is 0.  Not with the
 * VIBRO_TEST_BATCH hook. */
static int
lay_rows(vb_output *o, const long *pending, long n, long T, double interval, int ragged)
{
  const vb_format *f = &o->fmt;
  long k;
  double per = 0.0;
  struct rlimit rl;
  laid *l;
  int s;

  if (o->laid || n < 1 || o->hooks.batch_scenes > 0 || o->nbatch > 0)
    return 0;
  for (s = 0; s < f->nsig; s++)
    per += 8.0 * (double)vb_signal_width(&f->sig[s], T);
  if (per * (double)n > LAID_BYTES || per * (double)n <= IMAGE_BYTES)
    return 0;
  /* not near a file size limit: HDF5 could not close a file it cannot
   * extend to its end (nor create another) */
  if (getrlimit(RLIMIT_FSIZE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
      (double)rl.rlim_cur < 2.0 * per * (double)n + 1048576.0)
    return 0;
  l = calloc(1, sizeof *l);
  if (!l)
    return 0;
  o->laid = l;
  l->fd = -1;
  l->rows = n;
  l->async = laid_async(o, n);
  l->T = T;
  l->interval = interval;
  l->ragged = ragged;
  l->index = malloc((size_t)n * sizeof *l->index);
  l->off = calloc((size_t)f->nsig + 1, sizeof *l->off);
  if (!l->index || !l->off) {
    vb_laid_free(o); /* the usual batch: laying out is only faster */
    return 0;
  }
  for (k = 0; k < n; k++)
    l->index[k] = pending[k];
  return 1;
}

int
vb_output_lay(vb_output *o, const long *pending, long n)
{
  const vb_scene *s0 = o->fmt.lay.first;

  /* every scene with scene 0's samples, at its interval (as vb_format_pack) */
  return lay_rows(o, pending, n, vb_scene_samples(s0), (double)s0->record_every / s0->fs, 0);
}

/* Rows of T samples at interval (0: each scene's own): shorter scenes are
 * padded with NaN in their rows, as the merge pads them (file.c, stage_row). */
int
vb_output_lay_rows(vb_output *o, const long *pending, long n, long T, double interval)
{
  return T > 0 && lay_rows(o, pending, n, T, interval, 1);
}

static long laid_width(const vb_output *o);

/* Whether a packed scene fits its row: scene 0's samples and interval, or
 * (ragged) at most T samples and, unless the intervals differ, the
 * interval laid out. */
static int
laid_fits(const laid *l, long samples, double interval)
{
  if (!l->ragged)
    return samples == l->T && interval == l->interval;
  return samples <= l->T && (l->interval == 0.0 || interval == l->interval);
}

/* A scene's values of signal s (n samples, [rows][n]) as a row of T
 * samples ([rows][T]) into row, NaN past its own (file.c, stage_row). */
static void
laid_pad(const vb_signal_desc *s, double *row, long T, const double *src, long n)
{
  long w = vb_signal_width(s, T), own = vb_signal_width(s, n), k;

  if (s->shape == SHAPE_SERIES || s->shape == SHAPE_MODES) {
    memcpy(row, src, (size_t)own * sizeof(double));
    for (k = own; k < w; k++)
      row[k] = NAN;
    return;
  }
  for (int m = 0; m < s->nmodes; m++)
    for (k = 0; k < T; k++)
      row[(long)m * T + k] = k < n ? src[(long)m * n + k] : NAN;
}

int
vb_laid_batch_fits(const vb_output *o)
{
  const laid *l = o->laid;
  long T = 0;
  int differ = 0;

  if (!l || !l->ragged)
    return l != NULL;
  for (long k = 0; k < o->nbatch; k++) {
    T = o->batch[k]->samples > T ? o->batch[k]->samples : T;
    differ |= o->nbatch > 0 && o->batch[k]->interval != o->batch[0]->interval;
  }
  return T == l->T && differ == (l->interval == 0.0);
}

/* Whether scenes are recorded in place: they are large (LAID_MAP_BYTES,
 * or the VIBRO_TEST_MAP_BYTES hook's), and the signals' blocks are
 * reserved on the disk (fallocate), so that a full disk is found before
 * the run, not in the middle of its writes.  A scene recorded in place
 * writes a window of its samples at a time (record.c, vb_record_flush):
 * measured (make bench, ext4, Linux 6.18) on the 254 MB scene of the 60 s
 * hammer on a bar, 0.07-0.16 s of system time and 30 MiB peak, against
 * 0.19-0.46 s and 280 MiB when its series were a shared mapping of the
 * file (a page fault, a read of the page and ext4's page_mkwrite every
 * 4 KiB) and 0.8-1.0 s recorded into fresh memory and written. */
static int
laid_reserve(const vb_output *o)
{
  const laid *l = o->laid;
  int64_t end = 0;
  long width = 0;

  for (int s = 0; s < o->fmt.nsig; s++) {
    long w = vb_signal_width(&o->fmt.sig[s], l->T);
    width += w;
    if (w > 0 && l->off[s] + (int64_t)l->rows * w * 8 > end)
      end = l->off[s] + (int64_t)l->rows * w * 8;
  }
  return 8.0 * (double)width >= (o->hooks.map_bytes > 0 ? o->hooks.map_bytes : LAID_MAP_BYTES) &&
         end > 0 &&
         fallocate(l->fd, 0, 0, (off_t)end) == 0;
}

/* Create the laid-out shard's file (one thread, as the writer: its HDF5
 * calls are the writer's): the threads running scenes meanwhile gather
 * them in their blocks, which wait for it (vb_laid_block_write).  On
 * failure no scene is placed (the usual batch). */
void
vb_output_lay_create(vb_output *o)
{
  const vb_format *f = &o->fmt;
  laid *l = o->laid;
  vb_h5quiet q;
  char e[64], *tpath;
  int s, ok;

  if (!l || __atomic_load_n(&l->ready, __ATOMIC_ACQUIRE))
    return;
  ok = vb_laid_open(l);
  /* the ranks' file has a name of its own (VB_SHARED_ROWS): a resume keeps
   * it, where checkpoints name its rows */
  if (l->shared)
    snprintf(l->tmp, sizeof l->tmp, "%s", VB_SHARED_ROWS);
  else
    snprintf(l->tmp, sizeof l->tmp, "r%03d-%06ld.h5.tmp", o->rank, o->next_shard);
  tpath = ok ? vb_part_file(o->part, l->tmp) : NULL;
  ok = ok && tpath;
  vb_h5_quiet_begin(&q);
  if (ok)
    vb_write_point(o->fmt.points); /* the kill hook's write point */
  if (ok)
    ok = vb_stack_create(f, tpath, l->rows, vb_format_time_length(f, l->T), l->interval, -1,
                         VB_STACK_LAID, &l->st, e, sizeof e) == VB_OK;
  for (s = 0; ok && s < f->nsig; s++) {
    l->off[s] = vb_stack_signal_offset(l->st, s);
    ok = l->off[s] >= 0 || vb_signal_width(&f->sig[s], l->T) == 0;
  }
  if (ok) {
    l->fd = openat(o->dirfd, l->tmp, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
    ok = l->fd >= 0;
  }
  if (ok)
    l->mappable = laid_reserve(o);
  if (!ok && tpath) {
    __atomic_store_n(&l->closed, 1, __ATOMIC_RELEASE);
    vb_stack_close(l->st, NULL, 0);
    l->st = NULL;
    unlinkat(o->dirfd, l->tmp, 0);
    if (l->fd >= 0)
      close(l->fd);
    l->fd = -1;
  }
  vb_h5_quiet_end(&q);
  free(tpath);
  if (!ok)
    __atomic_store_n(&l->closed, 1, __ATOMIC_RELEASE);
  __atomic_store_n(&l->ready, 1, __ATOMIC_RELEASE);
}

/* Write all of buf at offset at of fd; 0 or -1. */
static int
pwrite_all(int fd, const void *buf, size_t len, off_t at)
{
  while (len > 0) {
    ssize_t w = pwrite(fd, buf, len, at);
    if (w < 0 && errno == EINTR)
      continue;
    if (w <= 0)
      return -1;
    buf = (const char *)buf + w;
    len -= (size_t)w;
    at += w;
  }
  return 0;
}

/* Count bytes placed by a thread; every 8 MiB, start their writeback, so
 * that the disk works during the run and the fsync at its end is short. */
static void
laid_wrote(laid *l, size_t bytes)
{
  const long every = 8L << 20;
  long after = __atomic_add_fetch(&l->written, (long)bytes, __ATOMIC_RELAXED);

  if (after / every != (after - (long)bytes) / every)
    vb_writeback(l->fd);
}

/* Row of scene index in the laid-out shard, or -1. */
static long
laid_row(const laid *l, long index)
{
  long lo = 0, hi = l->rows - 1;

  while (lo <= hi) {
    long mid = lo + (hi - lo) / 2;
    if (l->index[mid] == index)
      return mid;
    if (l->index[mid] < index)
      lo = mid + 1;
    else
      hi = mid - 1;
  }
  return -1;
}

/* Write a packed scene's signals at its row of the laid-out shard
 * (thread-safe: rows are distinct); 0, or -1 when it is not there (it
 * has no row, other samples, or a write failed: then no scene is placed
 * any more). */
int
vb_laid_place(const vb_output *o, vb_packed_scene *p)
{
  laid *l = o->laid;
  long row = laid_row(l, p->index);
  int s;

  /* the file is being created (vb_output_lay_create, by the thread that
   * starts first: it always ends ready); a scene kept in memory now would
   * leave a row empty, and the study a merge */
  while (!__atomic_load_n(&l->ready, __ATOMIC_ACQUIRE))
    usleep(100);
  if (l->fd < 0)
    return -1; /* it could not be created: the scene keeps its own copy */
  if (row < 0 || !laid_fits(l, p->samples, p->interval)) {
    __atomic_store_n(&l->closed, 1, __ATOMIC_RELEASE);
    return -1;
  }
  /* a shorter scene's row is padded (ragged): staged one signal at a time */
  double *pad = NULL;
  if (p->samples < l->T && !(pad = malloc((size_t)(laid_width(o) + 1) * sizeof *pad))) {
    __atomic_store_n(&l->closed, 1, __ATOMIC_RELEASE);
    return -1;
  }
  for (s = 0; s < o->fmt.nsig; s++) {
    size_t len = (size_t)vb_signal_width(&o->fmt.sig[s], l->T) * sizeof(double);
    if (len > 0 && pad)
      laid_pad(&o->fmt.sig[s], pad, l->T, p->sig[s], p->samples);
    if (len > 0 && pwrite_all(l->fd, pad ? pad : p->sig[s], len,
                              (off_t)(l->off[s] + (int64_t)row * (int64_t)len)) < 0) {
      free(pad);
      __atomic_store_n(&l->closed, 1, __ATOMIC_RELEASE);
      return -1;
    }
  }
  free(pad);
  for (s = 0; s < o->fmt.nsig; s++)
    p->sig[s] = NULL;
  p->laid_row = row;
  laid_wrote(l, (size_t)laid_width(o) * sizeof(double));
  return 0;
}

/* Read len bytes at offset from of fd into buf; 0, or -1 (errno, or 0 at
 * the end of the file). */
static int
pread_all(int fd, void *buf, size_t len, off_t from)
{
  size_t got = 0;

  while (got < len) {
    ssize_t r = pread(fd, (char *)buf + got, len - got, from + (off_t)got);
    if (r < 0 && errno == EINTR)
      continue;
    if (r <= 0) {
      if (r == 0)
        errno = 0;
      return -1;
    }
    got += (size_t)r;
  }
  return 0;
}

/* Read the signals of the batch's placed scenes back from the laid-out
 * shard (dropped), into their own memory. */
int
vb_laid_read_back(vb_output *o)
{
  laid *l = o->laid;
  long k;
  int s;

  for (k = 0; l && k < o->nbatch; k++) {
    vb_packed_scene *p = o->batch[k];
    long total = 0, at = 0;

    if (p->laid_row < 0)
      continue;
    /* the scene's own samples (a ragged row's padding stays in the file) */
    for (s = 0; s < o->fmt.nsig; s++)
      total += vb_signal_width(&o->fmt.sig[s], p->samples);
    p->own = malloc(total > 0 ? (size_t)total * sizeof(double) : 1);
    if (!p->own)
      return vb_errf_first(o->err, o->errlen, VB_ENOMEM, "%s: out of memory", o->path);
    for (s = 0; s < o->fmt.nsig; s++) {
      const vb_signal_desc *d = &o->fmt.sig[s];
      long w = vb_signal_width(d, p->samples);
      off_t from = (off_t)(l->off[s] + (int64_t)p->laid_row * vb_signal_width(d, l->T) * 8);
      /* [rows][T] in the file, [rows][samples] in memory */
      int parts = d->shape == SHAPE_SERIES || d->shape == SHAPE_MODES ? 1 : d->nmodes;
      long each = parts > 1 ? p->samples : w;
      for (int m = 0; m < parts && w > 0; m++)
        if (pread_all(l->fd, p->own + at + (long)m * each, (size_t)each * sizeof(double),
                      from + (off_t)m * l->T * 8) < 0)
          return vb_errf_first(o->err, o->errlen, VB_EIO, "%s: cannot read back %s/%s: %s", o->path,
                               o->part, l->tmp, errno ? strerror(errno) : "end of file");
      p->sig[s] = p->own + at;
      at += w;
    }
    p->laid_row = -1;
  }
  return VB_OK;
}

/* Rows of the laid-out shard a thread gathers before writing them: one
 * pwrite per signal a block (a write per scene and signal cost twice as
 * much, on ext4, as HDF5's write of the whole). */
#define LAID_BLOCK       128                 /* rows a block holds at most */
#define LAID_BLOCK_BYTES (8.0 * 1024 * 1024) /* and bytes of signals */

/* A thread's block of consecutive rows: their signals, signal-major. */
struct vb_laid_block {
  long r0, n;
  long cap, due; /* rows it holds; from due on it is written if it can be */
  vb_packed_scene *sc[LAID_BLOCK];
  double *buf; /* [signal][cap][width] */
};

/* Doubles per scene in the laid-out shard. */
static long
laid_width(const vb_output *o)
{
  long total = 0;

  for (int s = 0; s < o->fmt.nsig; s++)
    total += vb_signal_width(&o->fmt.sig[s], o->laid->T);
  return total;
}

/* A block for the calling thread, or NULL (no laid-out shard). */
vb_laid_block *
vb_laid_block_new(const vb_output *o)
{
  vb_laid_block *b;

  /* a large scene is mapped (vb_laid_map_scene) or written from the run */
  if (!vb_laid_block_rows(o) || !(b = calloc(1, sizeof *b)))
    return NULL;
  /* 8 MiB: 128 rows of the 2000-scene study (39 KiB a scene), one of 8 MiB */
  b->cap = (long)(LAID_BLOCK_BYTES / (8.0 * (double)(laid_width(o) > 0 ? laid_width(o) : 1)));
  b->cap = b->cap < 1 ? 1 : b->cap > LAID_BLOCK ? LAID_BLOCK : b->cap;
  b->due = b->cap > 1 ? b->cap / 2 : 1;
  b->buf = malloc((size_t)(b->cap * laid_width(o) + 1) * sizeof(double));
  if (!b->buf) {
    free(b);
    return NULL;
  }
  return b;
}

/* The most rows a block holds (scenes taken in consecutive rows, the runs
 * of a guided schedule, fill it), or 0 when the threads gather no blocks:
 * nothing is laid out, or its scenes are large (LAID_SCENE_BYTES), each
 * written on its own. */
int
vb_laid_block_rows(const vb_output *o)
{
  return vb_laid_open(o->laid) && 8.0 * (double)laid_width(o) < LAID_SCENE_BYTES ? LAID_BLOCK : 0;
}

/* Whether the block should be written (if no other thread is writing). */
int
vb_laid_block_due(const vb_laid_block *b)
{
  return b->n >= b->due;
}

/* Whether scene index may join the block (else write the block first). */
int
vb_laid_block_accepts(const vb_output *o, const vb_laid_block *b, long index)
{
  return b->n == 0 || (b->n < b->cap && laid_row(o->laid, index) == b->r0 + b->n);
}

/* Pack a run into the block: its signals are copied there, the packed
 * scene held until vb_laid_block_write; *taken 0 when the scene does not
 * go there (vb_output_pack it). */
int
vb_laid_block_pack(const vb_output *o, vb_laid_block *b, long index, const double *params,
                   const vb_run *run, int *taken, char *err, size_t errlen)
{
  laid *l = o->laid;
  vb_packed_scene *p = NULL;
  long row = laid_row(l, index), at = 0;
  int s, rc;

  *taken = 0;
  if (!vb_laid_open(l) || row < 0 || !vb_laid_block_accepts(o, b, index) || !run ||
      vb_run_samples(run) > l->T || (!l->ragged && vb_run_samples(run) != l->T))
    return VB_OK;
  if (err && errlen > 0)
    err[0] = '\0';
  rc = vb_format_pack(&o->fmt, index, params, run, 1, &p, err, errlen);
  if (rc != VB_OK)
    return rc;
  if (!laid_fits(l, p->samples, p->interval)) {
    vb_packed_scene_free(p);
    return VB_OK;
  }
  if (b->n == 0)
    b->r0 = row;
  for (s = 0; s < o->fmt.nsig; s++) {
    long w = vb_signal_width(&o->fmt.sig[s], l->T);
    if (w > 0 && p->samples < l->T)
      laid_pad(&o->fmt.sig[s], b->buf + at + b->n * w, l->T, p->sig[s], p->samples);
    else if (w > 0)
      memcpy(b->buf + at + b->n * w, p->sig[s], (size_t)w * sizeof(double));
    p->sig[s] = NULL;
    at += b->cap * w;
  }
  p->laid_row = row;
  b->sc[b->n++] = p;
  *taken = 1;
  return VB_OK;
}

/* Write the block's rows into the laid-out shard (even dropped: they are
 * read back from it) and hand its scenes to out[] (*n of them), for
 * vb_output_add.  A failed write leaves each scene its own copy. */
int
vb_laid_block_write(const vb_output *o, vb_laid_block *b, int force, vb_packed_scene **out, long *n,
                    char *err, size_t errlen)
{
  laid *l = o->laid;
  long at, k;
  int s, failed, mine;

  /* one thread writes at a time when it can: two writing to one file wait
   * for each other in the kernel (its lock of the file), which spins */
  *n = 0;
  if (b->n > 0 && !__atomic_load_n(&l->ready, __ATOMIC_ACQUIRE)) {
    if (!force)
      return VB_OK;
    while (!__atomic_load_n(&l->ready, __ATOMIC_ACQUIRE))
      usleep(100); /* the file is being created (vb_output_lay_create) */
  }
  mine = __atomic_exchange_n(&l->writing, 1, __ATOMIC_ACQUIRE) == 0;
  if (b->n == 0 || (!mine && !force)) {
    if (mine)
      __atomic_store_n(&l->writing, 0, __ATOMIC_RELEASE);
    return VB_OK;
  }

  failed = l->fd < 0; /* it could not be created */
  /* the ranks sharing the file take turns too, by an open file
   * description's lock of its first byte (HDF5 holds a flock of the whole
   * file on rank 0): a rank waiting for another's write sleeps, where on
   * ext4's lock of the file it would spin */
  int locked = 0;
  struct flock turn = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 1};
  if (l->shared && !failed) {
    int e;
    while ((e = fcntl(l->fd, force ? F_OFD_SETLKW : F_OFD_SETLK, &turn)) < 0 && errno == EINTR)
      ;
    locked = e == 0;
    if (!locked && !force) {
      if (mine)
        __atomic_store_n(&l->writing, 0, __ATOMIC_RELEASE);
      return VB_OK; /* another rank is writing: the block is kept */
    }
  }
  for (s = 0, at = 0; s < o->fmt.nsig && !failed; s++) {
    size_t len = (size_t)vb_signal_width(&o->fmt.sig[s], l->T) * sizeof(double);
    if (len > 0 && pwrite_all(l->fd, b->buf + at, (size_t)b->n * len,
                              (off_t)(l->off[s] + (int64_t)b->r0 * (int64_t)len)) < 0)
      failed = 1;
    at += b->cap * (long)(len / sizeof(double));
  }
  if (locked) {
    turn.l_type = F_UNLCK;
    fcntl(l->fd, F_OFD_SETLK, &turn);
  }
  if (mine)
    __atomic_store_n(&l->writing, 0, __ATOMIC_RELEASE);
  if (!failed)
    laid_wrote(l, (size_t)b->n * (size_t)laid_width(o) * sizeof(double));
  else
    __atomic_store_n(&l->closed, 1, __ATOMIC_RELEASE);
  for (k = 0; k < b->n; k++) {
    vb_packed_scene *p = b->sc[k];
    if (failed) {
      /* its signals from the block into memory of its own (a ragged
       * row's [rows][T] back to [rows][samples] in place: each part moves
       * down, never over one still to move) */
      for (s = 0, at = 0; s < o->fmt.nsig; s++) {
        const vb_signal_desc *d = &o->fmt.sig[s];
        long w = vb_signal_width(d, l->T);
        p->sig[s] = b->buf + at + k * w;
        if (p->samples < l->T && d->shape != SHAPE_SERIES && d->shape != SHAPE_MODES)
          for (int m = 1; m < d->nmodes; m++)
            memmove(b->buf + at + k * w + (long)m * p->samples, b->buf + at + k * w + (long)m * l->T,
                    (size_t)p->samples * sizeof(double));
        at += b->cap * w;
      }
      p->laid_row = -1;
      if (vb_packed_scene_own(&o->fmt, p) != VB_OK) {
        for (; k < b->n; k++)
          vb_packed_scene_free(b->sc[k]);
        b->n = 0;
        return vb_errf_first(err, errlen, VB_ENOMEM, "%s: out of memory", o->path);
      }
    }
    out[k] = p;
    *n = k + 1;
  }
  b->n = 0;
  return VB_OK;
}

/* Free a block (and the scenes it still holds). */
void
vb_laid_block_free(vb_laid_block *b)
{
  if (!b)
    return;
  for (long k = 0; k < b->n; k++)
    vb_packed_scene_free(b->sc[k]);
  free(b->buf);
  free(b);
}

/* Whether the batch is every row of the laid-out shard, in order. */
int
vb_laid_complete(const vb_output *o)
{
  long k;

  if (!o->laid || !o->laid->st || o->nbatch != o->laid->rows)
    return 0;
  for (k = 0; k < o->nbatch; k++)
    if (o->batch[k]->laid_row != k)
      return 0;
  return 1;
}

/* ------------------------------------------------- recording in place */

/* A scene recording its signals straight into its row, as it runs. */
struct vb_laid_map {
  long row;
  vb_record_file to; /* the run's file and each instance's offset there */
  int64_t *offset;   /* [instances of the scene] the storage of to.offset */
};

/* Free. */
void
vb_laid_map_free(vb_laid_map *m)
{
  if (!m)
    return;
  free(m->offset);
  free(m);
}

/* Place scene index's recording at its row for a run of sc: the offset of
 * every signal it records, [rows][T] at the signal's offset. */
vb_laid_map *
vb_laid_map_scene(const vb_output *o, long index, const vb_scene *sc)
{
  const vb_format *f = &o->fmt;
  laid *l = o->laid;
  int ninst = vb_signal_instances(sc);
  vb_laid_map *m;
  long row;

  if (!vb_laid_open(l) || !__atomic_load_n(&l->ready, __ATOMIC_ACQUIRE) || !l->mappable ||
      l->fd < 0 || (row = laid_row(l, index)) < 0 || vb_scene_samples(sc) != l->T ||
      (double)sc->record_every / sc->fs != l->interval || !(m = calloc(1, sizeof *m)))
    return NULL;
  m->row = row;
  m->offset = malloc(((size_t)ninst + 1) * sizeof *m->offset);
  if (!m->offset) {
    vb_laid_map_free(m);
    return NULL;
  }
  for (int j = 0; j < ninst; j++)
    m->offset[j] = -1;
  m->to = (vb_record_file){.fd = l->fd, .offset = m->offset, .async = l->async};
  for (int s = 0; s < f->nsig; s++) {
    const vb_signal_desc *d = &f->sig[s];
    long w = vb_signal_width(d, l->T);
    if (!d->row || w == 0)
      continue; /* not recorded: written by vb_laid_map_pack */
    /* a distributed contact's points: nmodes instances, one row each */
    int npts = d->shape == SHAPE_POINTS_SERIES ? d->nmodes : 1;
    long rows = d->shape == SHAPE_POINTS_SERIES ? npts : vb_signal_rows(d->row, sc, d->instance);
    if (!vb_signal_recorded(d->row, sc, d->instance) || rows * l->T != w) {
      vb_laid_map_free(m);
      return NULL;
    }
    for (int k = 0; k < npts; k++)
      m->offset[vb_signal_instance(d->row, sc, d->instance + k)] =
          l->off[s] + (int64_t)row * w * 8 + (int64_t)k * l->T * 8;
  }
  return m;
}

/* The `to` of vb_run_alloc_into. */
const vb_record_file *
vb_laid_map_into(const vb_laid_map *m)
{
  return m ? &m->to : NULL;
}

/* Pack a run recorded in place: write its other signals at its row, and
 * place it.  Its recording is only in the file: a failed write is an
 * error (no scene is placed any more). */
int
vb_laid_map_pack(const vb_output *o, vb_laid_map *m, const double *params, const vb_run *run,
                 vb_packed_scene **out, char *err, size_t errlen)
{
  laid *l = o->laid;
  vb_packed_scene *p;
  int s, e = vb_run_record_errno(run);
  long index = l->index[m->row];
  int rc = vb_format_pack(&o->fmt, index, params, run, 1, &p, err, errlen);

  *out = NULL;
  if (rc != VB_OK)
    return rc;
  for (s = 0; s < o->fmt.nsig && !e; s++) {
    size_t len = (size_t)vb_signal_width(&o->fmt.sig[s], l->T) * sizeof(double);
    if (!o->fmt.sig[s].row && len > 0 &&
        pwrite_all(l->fd, p->sig[s], len, (off_t)(l->off[s] + (int64_t)m->row * (int64_t)len)) < 0)
      e = errno ? errno : EIO;
  }
  if (e) {
    __atomic_store_n(&l->closed, 1, __ATOMIC_RELEASE);
    vb_packed_scene_free(p);
    return vb_errf_first(err, errlen, VB_EIO, "%s: cannot write scene %ld's signals into %s/%s: %s",
                         o->path, index, o->part, l->tmp, strerror(e));
  }
  for (s = 0; s < o->fmt.nsig; s++)
    p->sig[s] = NULL;
  p->laid_row = m->row;
  laid_wrote(l, (size_t)p->bytes);
  *out = p;
  return VB_OK;
}

/* ---------------------------------------- one laid-out file for the ranks */

/* What rank 0 tells the other ranks of the laid-out file it made for
 * every scene of an MPI study (vb_study_options.ranks): whether it is
 * there, whether scenes record in place, its name under OUT.part/ and
 * each signal's offset. */
typedef struct laid_share {
  int ok, mappable;
  char tmp[72];
  int64_t off[]; /* [nsig] */
} laid_share;

/* Rank 0, before vb_output_lay_create: the laid-out file is the ranks'. */
void
vb_laid_mark_shared(vb_output *o)
{
  if (o->laid)
    o->laid->shared = 1;
}

/* Bytes of the share. */
long
vb_laid_share_size(const vb_output *o)
{
  return (long)(sizeof(laid_share) + ((size_t)o->fmt.nsig + 1) * sizeof(int64_t));
}

/* Rank 0: the share of its laid-out file (created by vb_output_lay_create)
 * into buf [vb_laid_share_size]. */
void
vb_laid_share_out(const vb_output *o, unsigned char *buf)
{
  const laid *l = o->laid;
  laid_share *sh = (laid_share *)buf;

  memset(buf, 0, (size_t)vb_laid_share_size(o));
  if (!l || l->fd < 0 || !vb_laid_open(o->laid) || !l->st)
    return;
  sh->ok = 1;
  o->laid->shared = 1;
  sh->mappable = l->mappable;
  memcpy(sh->tmp, l->tmp, sizeof sh->tmp);
  memcpy(sh->off, l->off, (size_t)o->fmt.nsig * sizeof *sh->off);
}

/* Another rank: join rank 0's laid-out file (its rows laid out by
 * vb_output_lay over every scene): open it, take its offsets, and place
 * this rank's scenes there.  0, or -1 when it cannot (nothing is placed). */
int
vb_laid_share_in(vb_output *o, const unsigned char *buf)
{
  const laid_share *sh = (const laid_share *)buf;
  laid *l = o->laid;

  if (!l || !sh->ok)
    return -1;
  memcpy(l->tmp, sh->tmp, sizeof l->tmp);
  l->tmp[sizeof l->tmp - 1] = '\0';
  memcpy(l->off, sh->off, (size_t)o->fmt.nsig * sizeof *l->off);
  l->mappable = sh->mappable;
  l->shared = 1;
  l->fd = openat(o->dirfd, l->tmp, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
  if (l->fd < 0)
    __atomic_store_n(&l->closed, 1, __ATOMIC_RELEASE);
  __atomic_store_n(&l->ready, 1, __ATOMIC_RELEASE);
  return l->fd >= 0 ? 0 : -1;
}

/* Whether scenes are still placed in the laid-out file and it still has
 * its name (not dropped, not spilled). */
int
vb_laid_whole(const vb_output *o, int rank0)
{
  const laid *l = o->laid;

  return l && l->fd >= 0 && !__atomic_load_n(&l->closed, __ATOMIC_ACQUIRE) && (!rank0 || l->st);
}

/* Undo vb_output_lay. */
void
vb_output_unlay(vb_output *o)
{
  /* before the ranks ran anything: no checkpoint names the ranks' file */
  if (o->laid)
    o->laid->shared = 0;
  vb_laid_free(o);
}

/* Rows a thread's block holds (consecutive scenes written with one pwrite
 * per signal), or 0 when the threads gather no blocks. */
long
vb_laid_block_cap(const vb_output *o)
{
  long cap;

  if (!vb_laid_block_rows(o))
    return 0;
  cap = (long)(LAID_BLOCK_BYTES / (8.0 * (double)(laid_width(o) > 0 ? laid_width(o) : 1)));
  return cap < 1 ? 1 : cap > LAID_BLOCK ? LAID_BLOCK : cap;
}
