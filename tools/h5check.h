/* h5check.h - a vibro output's structure checked before a reader trusts
 * it (h5check.c). */
#ifndef VIBRO_H5CHECK_H
#define VIBRO_H5CHECK_H

#include <hdf5.h>

#include "cli.h"
#include "h5read.h"

/* A layout's check (formats.h's check_vN, h5check.c) reads the structure
 * of the open output fid, named file in messages: its groups, every table
 * column's rank, length and type, every dataset's bytes inside the file,
 * the attributes readers use; 0, or -1 after one line "FILE: damaged:
 * OBJECT: what is wrong". */

/* outputs_open, then its layout's check on every file it opened; 0, or -1
 * after a message (nothing left open). */
int outputs_open_checked(const char *path, output_files *of);
/* An inspector's one operand, the output file OUT.h5, once its options
 * are read (key: cli_next's last answer): 0 with the file open in *of, or
 * -1 with cli_end done and the command's exit status in *status (0 after
 * --help, 1 after a bad use or an unreadable file). */
int outputs_operand(cli_args *a, int key, output_files *of, int *status);

#endif /* VIBRO_H5CHECK_H */
