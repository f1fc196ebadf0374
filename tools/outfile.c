/* outfile.c - checked, temporary-then-rename output files (outfile.h). */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "outfile.h"

int
outfile_check(const char *dest, const char *const *inputs, int ninputs)
{
  struct stat d, in;

  if (strcmp(dest, "-") == 0)
    return 0;
  if (dest[0] == '\0')
    return cli_complain("vibro", "an empty output file name");
  if (lstat(dest, &d) < 0) {
    if (errno == ENOENT)
      return 0;
    return cli_complain(dest, "cannot use as output: %s", strerror(errno));
  }
  if (S_ISLNK(d.st_mode))
    return cli_complain(dest, "is a symbolic link; refusing to write through it "
                              "(name the file it points to)");
  if (S_ISDIR(d.st_mode))
    return cli_complain(dest, "is a directory; name a file in it");
  if (!S_ISREG(d.st_mode))
    return cli_complain(dest, "is not a regular file (a device, FIFO or socket); refusing "
                              "to replace it (use - for standard output)");
  for (int i = 0; i < ninputs; i++)
    if (inputs[i] && stat(inputs[i], &in) == 0 && in.st_dev == d.st_dev && in.st_ino == d.st_ino)
      return cli_complain(dest, "is the input %s; refusing to overwrite it", inputs[i]);
  return 0;
}

/* An existing destination the real user may not write is refused (the
 * rename would replace it all the same: it needs only the directory);
 * *old receives its status, st_nlink 0 when there is none. */
static int
dest_writable(const char *dest, struct stat *old)
{
  memset(old, 0, sizeof *old);
  if (stat(dest, old) < 0) {
    old->st_nlink = 0;
    return 0;
  }
  if (access(dest, W_OK) != 0)
    return cli_complain(dest, "no permission to write it (mode %04o); refusing to replace it "
                              "(valid: a file you may write, or a new name)",
                        (unsigned)(old->st_mode & 07777));
  return 0;
}

int
outfile_open(outfile *o, const char *dest, const char *const *inputs, int ninputs)
{
  char *copy, *dir, *base;
  struct stat old;
  mode_t mask;
  size_t len;

  memset(o, 0, sizeof *o);
  o->dest = dest;
  o->fd = -1;
  if (outfile_check(dest, inputs, ninputs) < 0)
    return -1;
  if (strcmp(dest, "-") != 0 && dest_writable(dest, &old) < 0)
    return -1;
  if (strcmp(dest, "-") == 0) {
    o->fd = 1;
    return 0;
  }
  copy = strdup(dest);
  len = strlen(dest) + 32;
  o->temp = malloc(len);
  if (!copy || !o->temp) {
    free(copy);
    free(o->temp);
    o->temp = NULL;
    return cli_complain(dest, "out of memory");
  }
  /* dirname and basename may modify their argument: one copy each */
  dir = dirname(copy);
  snprintf(o->temp, len, "%s/", dir);
  free(copy);
  copy = strdup(dest);
  base = copy ? basename(copy) : "out";
  snprintf(o->temp + strlen(o->temp), len - strlen(o->temp), ".%s.XXXXXX", base);
  free(copy);
  o->fd = mkstemp(o->temp);
  if (o->fd < 0) {
    cli_complain(dest, "cannot write: %s", strerror(errno));
    free(o->temp);
    o->temp = NULL;
    return -1;
  }
  mask = umask(0);
  umask(mask);
  if (old.st_nlink > 0) {
    /* a replaced file keeps its mode, and its owner where we may */
    fchmod(o->fd, old.st_mode & 07777);
    if (fchown(o->fd, old.st_uid, old.st_gid) < 0)
      (void)0; /* only root may give a file away */
  } else {
    fchmod(o->fd, 0666 & ~mask);
  }
  return 0;
}

FILE *
outfile_stream(outfile *o)
{
  if (o->f)
    return o->f;
  if (o->fd == 1) {
    o->f = stdout;
    return o->f;
  }
  o->f = fdopen(o->fd, "wb");
  if (!o->f)
    cli_complain(o->dest, "cannot write: %s", strerror(errno));
  return o->f;
}

int
outfile_close(outfile *o, int failed)
{
  int bad = failed;

  if (o->fd == 1) {
    if (fflush(stdout) != 0 && !failed) {
      cli_complain("standard output", "cannot write: %s", strerror(errno));
      bad = 1;
    }
    return bad ? -1 : 0;
  }
  if (o->fd < 0)
    return -1;
  if (o->f) {
    if (!bad && (fflush(o->f) != 0 || fsync(fileno(o->f)) != 0)) {
      cli_complain(o->dest, "cannot write: %s", strerror(errno));
      bad = 1;
    }
    if (fclose(o->f) != 0 && !bad) {
      cli_complain(o->dest, "cannot write: %s", strerror(errno));
      bad = 1;
    }
  } else {
    if (!bad && fsync(o->fd) != 0) {
      cli_complain(o->dest, "cannot write: %s", strerror(errno));
      bad = 1;
    }
    close(o->fd);
  }
  o->f = NULL;
  o->fd = -1;
  /* The destination may have changed while we wrote: check it again */
  if (!bad && outfile_check(o->dest, NULL, 0) < 0)
    bad = 1;
  if (!bad && rename(o->temp, o->dest) != 0) {
    cli_complain(o->dest, "cannot write: %s", strerror(errno));
    bad = 1;
  }
  if (bad)
    unlink(o->temp);
  free(o->temp);
  o->temp = NULL;
  return bad ? -1 : 0;
}
