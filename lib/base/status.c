/* status.c - status codes, their messages, the library's message helper
 * (vb_errf, and vb_errf_first that keeps the first message), and the
 * version string. */
#include <stdarg.h>
#include <stdio.h>

#include "base.h"
#include "config.h"

/* Message text for a status code. */
const char *
vb_strerror(int status)
{
  switch (status) {
  case VB_OK: return "success";
  case VB_EINVAL: return "invalid input";
  case VB_ENOMEM: return "out of memory";
  case VB_ENOCONV: return "Newton iteration did not converge";
  case VB_EIO: return "input/output error";
  case VB_EDIVERGED: return "simulation diverged";
  case VB_EDISCRIM: return "negative discriminant in the quadratic scheme";
  case VB_EINTR: return "interrupted";
  default: return "unknown status";
  }
}

/* Format a message into err[errlen] and return status; with keep, only
 * when err holds no message yet. */
static int
verrf(char *err, size_t errlen, int keep, int status, const char *fmt, va_list ap)
{
  if (err == NULL || errlen == 0 || (keep && err[0] != '\0'))
    return status;
  vsnprintf(err, errlen, fmt, ap);
  return status;
}

/* Format a message into the caller's buffer (truncated safely; nothing
 * when err is NULL or errlen 0) and return status. */
int
vb_errf(char *err, size_t errlen, int status, const char *fmt, ...)
{
  va_list ap;

  va_start(ap, fmt);
  verrf(err, errlen, 0, status, fmt, ap);
  va_end(ap);
  return status;
}

/* The same, but keeping a message already in err: the first failure
 * explains, the callers' later context does not overwrite it. */
int
vb_errf_first(char *err, size_t errlen, int status, const char *fmt, ...)
{
  va_list ap;

  va_start(ap, fmt);
  verrf(err, errlen, 1, status, fmt, ap);
  va_end(ap);
  return status;
}

/* Version of the library. */
const char *
vb_version(void)
{
  return PACKAGE_VERSION;
}
