/* h5check.h - a vibro output's structure checked before a reader trusts
 * it (h5check.c). */
#ifndef VIBRO_H5CHECK_H
#define VIBRO_H5CHECK_H

#include <hdf5.h>

#include "cli.h"
#include "h5read.h"

/* Check the structure of the open output fid (layout vibro-version) named
 * file in messages: its groups, every table column's rank, length and
 * type, every dataset's bytes inside the file, the attributes readers use.
 * 0, or -1 after one line "FILE: damaged: OBJECT: what is wrong". */
int output_check(const char *file, hid_t fid, int version);

/* outputs_open, then output_check on every file it opened; 0, or -1
 * after a message (nothing left open). */
int outputs_open_checked(const char *path, output_files *of);
/* An inspector's one operand, the output file OUT.h5, once its options
 * are read (key: cli_next's last answer): 0 with the file open in *of, or
 * -1 with cli_end done and the command's exit status in *status (0 after
 * --help, 1 after a bad use or an unreadable file). */
int outputs_operand(cli_args *a, int key, output_files *of, int *status);

#endif /* VIBRO_H5CHECK_H */
