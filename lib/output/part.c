/* output/part.c - OUT.part/, the shard directory of an output being
 * written: created or checked (nothing there that vibro did not write),
 * locked per rank, and cleaned of what a fresh start or a resume drops
 * (doc/format.md).  The writer (output.c) writes the shards and manifests
 * in it. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "output.h"
#include "state.h"

/* Try the lock of rank r: 1 if held by a running writer (its pid in *pid),
 * 0 if free (or absent). */
static int
lock_held(int dirfd, int r, long *pid)
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
static int
ours(const char *name)
{
  int r;
  long n;
  size_t len = strlen(name);

  return strncmp(name, "lock.r", 6) == 0 || strncmp(name, "manifest.r", 10) == 0 ||
         strcmp(name, VB_SHARED_ROWS) == 0 ||
         vb_shard_name_parse(name, &r, &n) == 0 || (len > 4 && strcmp(name + len - 4, ".tmp") == 0);
}

/* The rank a file of OUT.part/ belongs to, or -1 (final.tmp). */
static int
owner_rank(const char *name)
{
  int r;

  if (sscanf(name, "r%3d-", &r) == 1 || sscanf(name, "manifest.r%3d", &r) == 1 ||
      sscanf(name, "lock.r%3d", &r) == 1)
    return r;
  return -1;
}

/* Create OUT.part/ or check the one there; open it. */
int
vb_part_dir(const char *path, const char *part, int *dirfd, int *created, char *err, size_t errlen)
{
  struct stat st;
  DIR *d;
  struct dirent *e;
  int fd;

  *created = mkdir(part, 0777) == 0;
  if (!*created && errno != EEXIST)
    return vb_errf_first(err, errlen, VB_EIO, "%s: cannot create %s: %s", path, part,
                         strerror(errno));
  if (lstat(part, &st) < 0)
    return vb_errf_first(err, errlen, VB_EIO, "%s: cannot stat %s: %s", path, part,
                         strerror(errno));
  if (S_ISLNK(st.st_mode) || !S_ISDIR(st.st_mode))
    return vb_errf_first(err, errlen, VB_EINVAL,
                         "%s: %s exists and is %s, not vibro's shard directory; "
                         "move it away (it is not touched)",
                         path, part, S_ISLNK(st.st_mode) ? "a symbolic link" : "not a directory");
  fd = open(part, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0)
    return vb_errf_first(err, errlen, VB_EIO, "%s: cannot open %s: %s", path, part,
                         strerror(errno));
  d = fdopendir(dup(fd));
  if (d)
    rewinddir(d);
  while (d && (e = readdir(d)) != NULL)
    if (e->d_name[0] != '.' && !ours(e->d_name)) {
      vb_errf_first(err, errlen, VB_EINVAL,
                    "%s: %s holds '%s', which vibro did not write; move it "
                    "away (it is not touched)",
                    path, part, e->d_name);
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
int
vb_part_lock(vb_output *o)
{
  char name[32], pid[32];
  long other = 0;
  int n;

  snprintf(name, sizeof name, "lock.r%03d", o->rank);
  o->lockfd = openat(o->dirfd, name, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (o->lockfd < 0)
    return vb_errf_first(o->err, o->errlen, VB_EIO, "%s: cannot create %s/%s: %s", o->path, o->part,
                         name, strerror(errno));
  /* a reader's probe (vibro info: running or interrupted) holds a shared
   * lock for microseconds: try again for up to 50 ms before refusing */
  int locked, tries = 0;
  while (!(locked = flock(o->lockfd, LOCK_EX | LOCK_NB) == 0) && errno == EWOULDBLOCK &&
         ++tries < 50) {
    struct timespec ms = {0, 1000000};
    nanosleep(&ms, NULL);
  }
  if (!locked) {
    ssize_t r = pread(o->lockfd, pid, sizeof pid - 1, 0);
    pid[r > 0 ? r : 0] = '\0';
    other = atol(pid);
    close(o->lockfd);
    o->lockfd = -1;
    return vb_errf_first(o->err, o->errlen, VB_EINVAL,
                         "%s: being written by process %ld (%s/%s); not "
                         "starting a second writer",
                         o->path, other, o->part, name);
  }
  n = snprintf(pid, sizeof pid, "%ld\n", (long)getpid());
  if (ftruncate(o->lockfd, 0) < 0 || pwrite(o->lockfd, pid, (size_t)n, 0) != n)
    return vb_errf_first(o->err, o->errlen, VB_EIO, "%s: cannot write %s/%s: %s", o->path, o->part,
                         name, strerror(errno));
  return VB_OK;
}

/* Delete files of OUT.part/ that a fresh start or a resume drops: with
 * keep NULL every file of this rank (and, for rank 0, of ranks whose lock
 * is free) except locks; else the files of this rank not listed in keep. */
int
vb_part_clean(vb_output *o, const shard *keep, long nkeep, int fresh)
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
    size_t len = strlen(e->d_name);
    /* a temporary name is never kept, whatever it starts with and whatever
     * it is (a stray manifest.r000.tmp symlink made every resume fail to
     * write the manifest, O_NOFOLLOW, and ask for another resume) */
    int temporary = len > 4 && strcmp(e->d_name + len - 4, ".tmp") == 0;
    if (e->d_name[0] == '.' || (strncmp(e->d_name, "lock.r", 6) == 0 && !temporary))
      continue;
    if (strncmp(e->d_name, "manifest.r", 10) == 0 && !fresh && !temporary)
      continue;
    /* the ranks' laid-out file, whose rows checkpoints of any rank may
     * name (output/writer.c): kept by a resume, gone with OUT.part/ */
    if (strcmp(e->d_name, VB_SHARED_ROWS) == 0 && !fresh)
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
    if (unlinkat(o->dirfd, e->d_name, 0) < 0 && errno != ENOENT &&
        !(temporary && (errno == EISDIR || errno == EPERM) &&
          unlinkat(o->dirfd, e->d_name, AT_REMOVEDIR) == 0))
      rc = -1;
  }
  closedir(d);
  (void)r;
  return rc;
}
