/* status.c - status codes, their messages, the one message helper of the
 * library, and the version string. */
#include <stdarg.h>
#include <stdio.h>

#include "internal.h"
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

/* Format a message into the caller's buffer (truncated safely; nothing
 * when err is NULL or errlen 0) and return status. */
int
vb_errf(char *err, size_t errlen, int status, const char *fmt, ...)
{
  va_list ap;

  if (err == NULL || errlen == 0)
    return status;
  va_start(ap, fmt);
  vsnprintf(err, errlen, fmt, ap);
  va_end(ap);
  return status;
}

/* Version of the library. */
const char *
vb_version(void)
{
  return PACKAGE_VERSION;
}
