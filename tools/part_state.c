/* part_state.c - running or interrupted: the writers' locks of OUT.part/
 * (part_state.h).  A lock is probed with a shared flock that is let go at
 * once: a writer holds its lock exclusively from its start to its end, so
 * the probe fails exactly while one runs, and the process a dead writer's
 * lock names is gone. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "part_state.h"

/* The process lock file name (in the directory dirfd) names; whether a
 * running writer holds it into *held.  -1 when it cannot be opened. */
static long
lock_pid(int dirfd, const char *name, int *held)
{
  char buf[32];
  ssize_t n;
  int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);

  if (fd < 0)
    return -1;
  *held = flock(fd, LOCK_SH | LOCK_NB) < 0 && errno == EWOULDBLOCK;
  n = pread(fd, buf, sizeof buf - 1, 0);
  buf[n > 0 ? n : 0] = '\0';
  close(fd); /* lets go of the probe's lock */
  return atol(buf);
}

int
part_state(const char *part, char *text, size_t len)
{
  int dirfd = open(part, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  DIR *d = dirfd >= 0 ? fdopendir(dirfd) : NULL;
  struct dirent *e;
  long gone = 0, running = 0;
  int r, locks = 0, first = 1;

  while (d && (e = readdir(d)) != NULL) {
    int held = 0;
    long pid;
    char tail;
    if (sscanf(e->d_name, "lock.r%3d%c", &r, &tail) != 1)
      continue;
    pid = lock_pid(dirfd, e->d_name, &held);
    if (pid < 0)
      continue;
    locks++;
    if (held && !running)
      running = pid > 0 ? pid : -1; /* (its pid not written yet) */
    if (!held && pid > 0 && (first || r == 0)) {
      gone = pid;
      first = 0;
    }
  }
  if (d)
    closedir(d);
  else if (dirfd >= 0)
    close(dirfd);
  if (running > 0)
    snprintf(text, len, "running (process %ld)", running);
  else if (running)
    snprintf(text, len, "running");
  else if (locks && gone)
    snprintf(text, len, "interrupted (process %ld is gone)", gone);
  else
    snprintf(text, len, "interrupted (no process writes it)");
  return running != 0;
}
