/* record_file.c - a recording written into a file as the run goes
 * (vb_run_alloc_into): the window of samples the run holds, written at
 * each series' offset when it is full and when the run ends. */
#define _GNU_SOURCE /* sync_file_range (Linux) */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include "run_state.h"

#define WRITEBACK_EVERY ((size_t)8 << 20) /* bytes written between writebacks */

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

/* Write the window's samples at each series' offset, and start their
 * writeback every WRITEBACK_EVERY bytes (the disk works while the run
 * goes on, and the fsync at the end is short); the window then starts
 * after them.  A failed write is kept in record_errno and ends the
 * writes. */
void
vb_record_flush(vb_run *run)
{
  size_t len = (size_t)run->win_fill * sizeof(double);
  if (run->record_fd < 0 || run->win_fill == 0)
    return;
  for (size_t m = 0; m < run->nwrite && !run->record_errno; m++)
    run->record_errno = pwrite_whole(run->record_fd, (const char *)run->wsrc[m], len,
                                     run->wat[m] + run->win_k0 * (int64_t)sizeof(double));
  run->win_k0 += run->win_fill;
  run->win_fill = 0;
  run->unsynced += len * run->nwrite;
#ifdef SYNC_FILE_RANGE_WRITE
  if (run->unsynced >= WRITEBACK_EVERY && !run->record_errno) {
    sync_file_range(run->record_fd, 0, 0, SYNC_FILE_RANGE_WRITE);
    run->unsynced = 0;
  }
#endif
}
