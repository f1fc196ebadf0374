/* points.h - a distributed contact's [scene][point][time] signals in a
 * vibro-3 file (doc/format.md): naming one point of them, reading a
 * scene's samples of it.  For vibro export; the file layout is the
 * interface. */
#ifndef VIBRO_POINTS_H
#define VIBRO_POINTS_H

#include <hdf5.h>

/* Open the stacked signal `path` of /signals in file fid: a [scene][time]
 * dataset ("bodies/hammer/u", "bodies.hammer.u"), or point K of a
 * distributed contact's [scene][point][time] one, named
 * "contacts/neck[K]/force" or "contacts/neck/force" with point K (>= 0;
 * -1: none given, as without --point; a [scene][time] signal ignores
 * it).  *at receives the point, -1 for a [scene][time] signal.  The
 * dataset, or a negative id after one line naming what is wrong and what
 * is valid (reported against file). */
hid_t signal_open_stacked(const char *file, hid_t fid, const char *path, long point, long *at);

/* Read count samples from sample start of row `row` (the scene) of a
 * stacked signal, of point `point` (-1: a [scene][time] signal) into
 * buf; 0 or -1. */
int signal_read_stacked(hid_t ds, hsize_t row, long point, hsize_t start, hsize_t count,
                        double *buf);

/* Print one line per distributed contact whose signals the file records
 * as [scene][point][time]: its points, their positions' range and the
 * signals' names. */
void points_print(const char *file, hid_t fid);

#endif
