/* status.c - status messages and the version string. */
#include "vibro.h"
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

/* Version of the library. */
const char *
vb_version(void)
{
  return PACKAGE_VERSION;
}
