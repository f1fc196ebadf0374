/* record_file.c - a recording written into a file as the run goes
 * (vb_run_alloc_into): the window of samples the run holds, written at
 * each series' offset when it is full and when the run ends, from the
 * run's thread or, when a core would otherwise idle, from a writer thread
 * of the run's own while the run fills the next window of a small ring. */
#define _GNU_SOURCE /* sync_file_range (Linux) */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>
#include "run.h"

#define WRITEBACK_EVERY ((size_t)8 << 20) /* bytes written between writebacks */

/* Bytes of a file recording's window (vb_run_alloc_into): its rows of
 * hundreds of KiB go to the file in one pwrite each, and its stores stay
 * in the cache, where a whole recording's each meet memory (or, mapped, a
 * page fault and the file system's page_mkwrite every 4 KiB).  Measured
 * on the 60 s hammer on a bar (13 series, make bench): user + system
 * 0.49-0.54 s with 256 KiB, 0.47-0.50 s from 1 to 8 MiB, in 4 alternating
 * runs on a loaded machine. */
#define WINDOW_BYTES ((size_t)4 << 20)
#define WINDOW_MIN   8192L /* samples a window holds at least */

/* Samples of the window of a recording of `series` series of nrec samples
 * into a file: WINDOW_BYTES of them, at least WINDOW_MIN, at most nrec,
 * a multiple of 512 (whole pages of doubles) below nrec. */
long
vb_record_window(size_t series, long nrec)
{
  long w = (long)(WINDOW_BYTES / sizeof(double) / (series ? series : 1));
  w = w < WINDOW_MIN ? WINDOW_MIN : w / 512 * 512;
  return w < nrec ? w : nrec;
}

/* A window handed to the writer thread: fill samples from sample k0 of
 * the run, at sample base of each row of the ring. */
typedef struct job {
  long base, k0, fill;
} job;

/* The writer thread of a run and the windows handed to it, oldest first
 * (at most the ring's windows; the run fills the one after the newest). */
struct vb_record_writer {
  pthread_t thread;
  pthread_mutex_t lock;  /* guards q, head, n and done */
  pthread_cond_t posted; /* a window was handed over, or done set */
  pthread_cond_t freed;  /* a window was written */
  job q[VB_RECORD_RING];
  int head, n;     /* the oldest, and how many are handed over and not yet written */
  int done;        /* no more windows: the thread returns when q is empty */
  int err;         /* its first failed write's errno (the thread's own until joined) */
  size_t unsynced; /* bytes it wrote since the last writeback started */
};

/* Write pwrite's whole len bytes at offset at of fd; 0, or the errno. */
static int
pwrite_whole(int fd, const char *buf, size_t len, int64_t at)
{
  while (len > 0) {
    ssize_t w = pwrite(fd, buf, len, (off_t)at);
    if (w < 0 && errno == EINTR)
      continue;
    if (w <= 0)
      return w < 0 ? errno : EIO;
    buf += w;
    len -= (size_t)w;
    at += w;
  }
  return 0;
}

/* Write a window (fill samples from sample k0, at sample base of each row
 * of the run's block) at each series' offset, and start their writeback
 * every WRITEBACK_EVERY bytes (the disk works while the run goes on, and
 * the fsync at the end is short).  A failed write is kept in *err and ends
 * the writes.  Reads only what vb_record_alloc set (the writer thread
 * calls it beside the run). */
static void
window_write(const vb_run *run, job j, int *err, size_t *unsynced)
{
  size_t len = (size_t)j.fill * sizeof(double);
  for (size_t m = 0; m < run->nwrite && !*err; m++)
    *err = pwrite_whole(run->record_fd, (const char *)(run->wsrc[m] + j.base), len,
                        run->wat[m] + j.k0 * (int64_t)sizeof(double));
  *unsynced += len * run->nwrite;
#ifdef SYNC_FILE_RANGE_WRITE
  if (*unsynced >= WRITEBACK_EVERY && !*err) {
    sync_file_range(run->record_fd, 0, 0, SYNC_FILE_RANGE_WRITE);
    *unsynced = 0;
  }
#endif
}

/* The writer thread: write the windows handed over, oldest first, until
 * done and none is left.  Calls nothing outside this file but the C
 * library. */
static void *
writer_main(void *arg)
{
  const vb_run *run = arg;
  vb_record_writer *w = run->writer;

  pthread_mutex_lock(&w->lock);
  for (;;) {
    while (w->n == 0 && !w->done)
      pthread_cond_wait(&w->posted, &w->lock);
    if (w->n == 0)
      break;
    job j = w->q[w->head];
    pthread_mutex_unlock(&w->lock);
    window_write(run, j, &w->err, &w->unsynced);
    pthread_mutex_lock(&w->lock);
    w->head = (w->head + 1) % VB_RECORD_RING;
    w->n--;
    pthread_cond_signal(&w->freed);
  }
  pthread_mutex_unlock(&w->lock);
  return NULL;
}

/* Start the writer thread of a run whose block holds a ring of nslot > 1
 * windows; without one (0 returned: no memory or no thread) the run
 * writes its windows itself.  The thread takes no signal: they go to the
 * threads that run scenes, as before it. */
int
vb_record_writer_start(vb_run *run)
{
  vb_record_writer *w = calloc(1, sizeof *w);
  sigset_t all, old;
  if (!w)
    return 0;
  if (pthread_mutex_init(&w->lock, NULL) != 0)
    goto fail_lock;
  if (pthread_cond_init(&w->posted, NULL) != 0)
    goto fail_posted;
  if (pthread_cond_init(&w->freed, NULL) != 0)
    goto fail_freed;
  run->writer = w;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  int rc = pthread_create(&w->thread, NULL, writer_main, run);
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  if (rc == 0)
    return 1;
  run->writer = NULL;
  pthread_cond_destroy(&w->freed);
fail_freed:
  pthread_cond_destroy(&w->posted);
fail_posted:
  pthread_mutex_destroy(&w->lock);
fail_lock:
  free(w);
  return 0;
}

/* Wait for the writer thread to write every window handed to it, end it,
 * and keep its first failed write's errno in record_errno (if the run had
 * none of its own).  The run then writes its windows itself. */
void
vb_record_writer_end(vb_run *run)
{
  vb_record_writer *w = run->writer;
  if (!w)
    return;
  pthread_mutex_lock(&w->lock);
  w->done = 1;
  pthread_cond_signal(&w->posted);
  pthread_mutex_unlock(&w->lock);
  pthread_join(w->thread, NULL);
  if (!run->record_errno)
    run->record_errno = w->err;
  pthread_cond_destroy(&w->freed);
  pthread_cond_destroy(&w->posted);
  pthread_mutex_destroy(&w->lock);
  free(w);
  run->writer = NULL;
}

/* The window is full (or the run ends): hand it to the writer thread and
 * go on in the next window of the ring, once that one is written (the
 * run waits only when the writer is a whole ring behind), or, without a
 * writer thread, write it now.  The window then starts after it. */
void
vb_record_post(vb_run *run)
{
  vb_record_writer *w = run->writer;
  if (run->record_fd < 0 || run->win_fill == 0)
    return;
  job j = {.base = run->win_base, .k0 = run->win_k0, .fill = run->win_fill};
  if (!w)
    window_write(run, j, &run->record_errno, &run->unsynced);
  else {
    pthread_mutex_lock(&w->lock);
    w->q[(w->head + w->n) % VB_RECORD_RING] = j;
    w->n++;
    pthread_cond_signal(&w->posted);
    /* the next window is the oldest handed over when the ring is full */
    while (w->n >= run->nslot)
      pthread_cond_wait(&w->freed, &w->lock);
    pthread_mutex_unlock(&w->lock);
    run->win_base = (run->win_base + run->win) % ((long)run->nslot * run->win);
  }
  run->win_k0 += run->win_fill;
  run->win_fill = 0;
}

/* Write what the window holds and wait until every window is written (the
 * end of the run: the file then holds its recording, or record_errno says
 * why not). */
void
vb_record_flush(vb_run *run)
{
  vb_record_post(run);
  vb_record_writer_end(run);
}
