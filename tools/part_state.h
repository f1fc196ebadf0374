/* part_state.h - whether a study's OUT.part/ is still being written: the
 * writers' locks (lib/output_part.c's lock.rNNN, each held with flock by
 * its running writer and naming its process). */
#ifndef VIBRO_PART_STATE_H
#define VIBRO_PART_STATE_H

#include <stddef.h>

/* The state of the writers of the shard directory part, as words for
 * `vibro info` into text (len bytes): "running (process N)" while a
 * writer holds its lock, "interrupted (process N is gone)" when the locks
 * are there but no process holds one (N: the process rank 0's lock
 * names, else the first), "interrupted (no process writes it)" when there
 * is no lock.  Returns 1 while running, else 0. */
int part_state(const char *part, char *text, size_t len);

#endif
