/* inputs.c - reading the files a load reads (the scene, its @include
 * files, modes files, profiles), and the list of them, each with the
 * CRC-32 of its bytes: together they are the identity of a study's input
 * (doc/format.md, `inputs`). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zlib.h>

#include "scene.h"

static char *read_stream(FILE *f, size_t max, size_t *len);

/* Read a whole file into a NUL-terminated buffer; NULL with errno set on
 * failure.  *len receives the number of bytes read. */
char *
vb_read_text(const char *path, size_t max, size_t *len)
{
  FILE *f = fopen(path, "rb");

  if (f == NULL)
    return NULL;
  return read_stream(f, max, len);
}

/* Open a data file for reading only if it is a regular file: the
 * descriptor is opened O_NONBLOCK (a FIFO without a writer does not block
 * the open) and its own fstat decides, so there is no window between the
 * check and the read.  -1 with errno set (VB_NOT_REGULAR_ERRNO: not a
 * regular file, EISDIR: a directory) or the descriptor. */
int
vb_open_regular(const char *path)
{
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC), e;
  struct stat st;

  if (fd < 0) {
    /* a socket cannot be opened at all (ENXIO): say what it is */
    e = errno;
    if (e == ENXIO && stat(path, &st) == 0 && !S_ISREG(st.st_mode))
      e = VB_NOT_REGULAR_ERRNO;
    errno = e;
    return -1;
  }
  if (fstat(fd, &st) != 0)
    e = errno;
  else if (!S_ISREG(st.st_mode))
    e = S_ISDIR(st.st_mode) ? EISDIR : VB_NOT_REGULAR_ERRNO;
  else
    return fd;
  close(fd);
  errno = e;
  return -1;
}

/* vb_read_text of a regular file only (vb_open_regular). */
char *
vb_read_data(const char *path, size_t max, size_t *len)
{
  int fd = vb_open_regular(path);
  FILE *f;

  if (fd < 0)
    return NULL;
  if ((f = fdopen(fd, "rb")) == NULL) {
    int e = errno;
    close(fd);
    errno = e;
    return NULL;
  }
  return read_stream(f, max, len);
}

/* A hexadecimal number field: strtod's "0x" after an optional sign. */
int
vb_hex_field(const char *s)
{
  s += *s == '+' || *s == '-';
  return s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
}

/* The whole of stream f (closed here), as vb_read_text. */
static char *
read_stream(FILE *f, size_t max, size_t *len)
{
  char *buf = NULL, *grown;
  size_t cap = 0, n = 0, got;
  int saved;

  for (;;) {
    if (cap - n < 4096 + 1) {
      cap = cap ? 2 * cap : 8192;
      grown = realloc(buf, cap);
      if (grown == NULL) {
        free(buf);
        fclose(f);
        errno = ENOMEM;
        return NULL;
      }
      buf = grown;
    }
    got = fread(buf + n, 1, cap - n - 1 < max + 1 - n ? cap - n - 1 : max + 1 - n, f);
    /* binary content: stop at the first NUL (the caller sees it as
     * strlen < len), so /dev/zero cannot make the read go on forever */
    if (got > 0 && memchr(buf + n, '\0', got) != NULL) {
      n += got;
      break;
    }
    n += got;
    if (n > max) {
      free(buf);
      fclose(f);
      errno = EFBIG;
      return NULL;
    }
    if (got == 0)
      break;
  }
  if (ferror(f)) {
    saved = errno ? errno : EIO;
    free(buf);
    fclose(f);
    errno = saved;
    return NULL;
  }
  fclose(f);
  buf[n] = '\0';
  *len = n;
  return buf;
}

/* Bytes read at a time when a file's CRC-32 is summed. */
#define CHUNK ((size_t)1 << 16)

/* CRC-32 (zlib's) of a whole regular file of at most VB_DATA_MAX bytes;
 * 0 with *crc set, -1 when it cannot be read (a device or a FIFO is not
 * read: /dev/zero would never end, a FIFO would block). */
static int
file_crc(const char *path, unsigned long *crc)
{
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  FILE *f = NULL;
  struct stat st;
  unsigned char *buf;
  size_t got;
  uLong c = crc32(0L, Z_NULL, 0);
  int rc = 0;

  if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (size_t)st.st_size <= VB_DATA_MAX)
    f = fdopen(fd, "rb");
  if (f == NULL) {
    if (fd >= 0)
      close(fd);
    return -1;
  }
  buf = malloc(CHUNK);
  if (buf == NULL) {
    fclose(f);
    return -1;
  }
  while ((got = fread(buf, 1, CHUNK, f)) > 0)
    c = crc32(c, buf, (uInt)got);
  if (ferror(f))
    rc = -1;
  free(buf);
  fclose(f);
  *crc = c;
  return rc;
}

/* Record that a load read `path`: its bytes (or, when bytes is NULL, the
 * file's own) summed by CRC-32; a path already listed is not listed again.
 * NULL `in` records nothing.  Out of memory marks the list as failed. */
void
vb_inputs_add(vb_inputs *in, const char *path, const char *bytes, size_t len)
{
  unsigned long crc;
  long k;

  if (in == NULL || path == NULL)
    return;
  for (k = 0; k < in->n; k++)
    if (strcmp(in->path[k], path) == 0)
      return;
  if (bytes != NULL)
    crc = crc32(crc32(0L, Z_NULL, 0), (const Bytef *)bytes, (uInt)len);
  else if (file_crc(path, &crc) < 0)
    return; /* unreadable: the read that follows reports it */
  if (in->n == in->cap) {
    long cap = in->cap ? 2 * in->cap : 8;
    char **p = realloc(in->path, (size_t)cap * sizeof *p);
    unsigned long *c = p ? realloc(in->crc, (size_t)cap * sizeof *c) : NULL;

    if (p)
      in->path = p;
    if (c == NULL) {
      in->failed = 1;
      return;
    }
    in->crc = c;
    in->cap = cap;
  }
  in->path[in->n] = strdup(path);
  if (in->path[in->n] == NULL) {
    in->failed = 1;
    return;
  }
  in->crc[in->n++] = crc;
}

/* The list as text, "PATH CRC32\n" per file (CRC in 8 hex digits), in the
 * order the load read them; the caller frees it; NULL when out of memory. */
char *
vb_inputs_text(const vb_inputs *in)
{
  size_t size = 1, used = 0;
  char *text;
  long k;

  for (k = 0; k < in->n; k++)
    size += strlen(in->path[k]) + 10;
  text = malloc(size);
  if (text == NULL)
    return NULL;
  text[0] = '\0';
  for (k = 0; k < in->n; k++)
    used += (size_t)snprintf(text + used, size - used, "%s %08lx\n", in->path[k], in->crc[k]);
  return text;
}

/* Whether `path`, read again by a later load, still has the bytes the
 * list recorded for it: 0 when it has (or the list does not name it, or it
 * cannot be read now: the read that follows reports that), 1 when it
 * changed, with the CRC-32 recorded into *then and the present one into
 * *now.  The scenes of a study each read their data files again. */
int
vb_inputs_changed(const vb_inputs *in, const char *path, unsigned long *then, unsigned long *now)
{
  long k;

  if (in == NULL || path == NULL)
    return 0;
  for (k = 0; k < in->n; k++)
    if (strcmp(in->path[k], path) == 0)
      break;
  if (k == in->n || file_crc(path, now) < 0)
    return 0;
  *then = in->crc[k];
  return *now != *then;
}

/* Free the list; a zeroed list is a no-op. */
void
vb_inputs_clear(vb_inputs *in)
{
  long k;

  if (in == NULL)
    return;
  for (k = 0; k < in->n; k++)
    free(in->path[k]);
  free(in->path);
  free(in->crc);
  memset(in, 0, sizeof *in);
}
