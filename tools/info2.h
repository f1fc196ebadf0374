/* info2.h - vibro info on the layout vibro-2 (doc/format.md). */
#ifndef VIBRO_INFO2_H
#define VIBRO_INFO2_H

#include "h5read.h"

/* Print the summary of an output of layout vibro-2 (a finished file or the
 * shards of a running study); every scene in detail with all set, else
 * the first few; the points of a distributed contact (named BASE[k]) as
 * one line each contact, or one by one with points set.  0, or -1 after a
 * message. */
int info_v2(const char *file, const output_files *of, int all, int points);

#endif /* VIBRO_INFO2_H */
