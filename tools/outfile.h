/* outfile.h - writing a file the user named without ever destroying one
 * this run did not create: the destination is checked first (not a
 * symbolic link, not a directory or device, not one of the inputs), the
 * data go to a temporary file beside it, and only a complete file is
 * renamed onto the destination.  "-" is standard output. */
#ifndef VIBRO_OUTFILE_H
#define VIBRO_OUTFILE_H

#include <stdio.h>

/* Refuse a destination that may not be written: a symbolic link, anything
 * but a regular file (directory, device, FIFO, socket), or a file that is
 * one of inputs[ninputs] (the same inode, after resolving).  A destination
 * that does not exist yet is fine.  Returns 0, or -1 after printing
 * "DEST: why" on stderr. */
int outfile_check(const char *dest, const char *const *inputs, int ninputs);

/* A file being written. */
typedef struct outfile {
  const char *dest; /* the name the user gave; "-" for standard output */
  char *temp;       /* the temporary file beside it, NULL for stdout */
  int fd;           /* open for writing (1 for standard output) */
  FILE *f;          /* stdio stream on fd, when opened by outfile_stream */
} outfile;

/* Check dest (as outfile_check) and create the temporary file beside it,
 * exclusively, readable as a new file would be (0666 less the umask).
 * Returns 0, or -1 after a message. */
int outfile_open(outfile *o, const char *dest, const char *const *inputs, int ninputs);

/* A stdio stream on the file (owned by o); NULL after a message. */
FILE *outfile_stream(outfile *o);

/* Finish: flush, sync and rename the temporary file onto dest (checked
 * again just before); with failed set, or when any of that fails, remove
 * the temporary file instead and leave dest as it was.  Returns 0, or -1
 * (after a message unless failed was set). */
int outfile_close(outfile *o, int failed);

#endif /* VIBRO_OUTFILE_H */
