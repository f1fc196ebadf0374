/* output/state.h - the shard writer's state (struct vb_output and the
 * laid-out shard), shared by output.c (shards, manifest, resume),
 * output/laid.c (the shard laid out before a run) and output/part.c
 * (OUT.part/ itself).  Internal. */
#ifndef VB_OUTPUT_WRITER_H
#define VB_OUTPUT_WRITER_H

#include "output.h"

#define PART_SUFFIX   ".part"
#define BATCH_SECONDS 10.0                  /* a shard about every 10 s */
#define BATCH_BYTES   (128.0 * 1024 * 1024) /* or every 128 MiB of signals */
#define IMAGE_BYTES   (16.0 * 1024 * 1024)  /* shards up to this are built in memory */
#define LAID_BYTES    (8 * BATCH_BYTES)     /* a laid-out shard holds at most 1 GiB of signals */
#define SPILL_BYTES   (8.0 * 1024 * 1024)   /* scenes read back from it per shard */
#define LAID_SCENE_BYTES (1024.0 * 1024)    /* scenes this large skip the threads' blocks */
#define LAID_MAP_BYTES LAID_SCENE_BYTES     /* and record in place (a window written with pwrite) */

typedef vb_shard shard;

/* A shard laid out before the run (vb_output_lay): each pending scene has
 * its row, and the thread that ran a scene writes its signals there
 * (pwrite at the datasets' offsets) while the others run, so that no
 * staging and no serial write of the signals is left for the end.  The
 * table, scene indices, swept values and events are written when every
 * row is in; a batch flushed before (the 10 s rule, a signal, an error)
 * drops the file and reads its scenes' signals back from it. */
typedef struct laid {
  char tmp[72]; /* its temporary name under OUT.part/ */
  vb_stack *st; /* open in HDF5 until written or dropped */
  int fd;       /* a descriptor of it, open until vb_output_free */
  long rows, T; /* T: samples of a row (the longest scene's, with ragged) */
  double interval; /* 0 with ragged: the scenes' intervals differ */
  int ragged;   /* scenes may have fewer samples than T (vb_output_lay_rows):
                   their rows are padded with NaN, as one process pads them */
  long *index;  /* [rows] the scene of each row, ascending */
  int64_t *off; /* [nsig] byte offset of each signal's data */
  int closed;   /* (atomic) no scene is placed any more */
  int writing;  /* (atomic) a thread is writing a block */
  int ready;    /* (atomic) vb_output_lay_create has run */
  long written; /* (atomic) bytes placed, for their writeback every 8 MiB */
  int mappable; /* scenes are recorded in place (vb_laid_map_scene) */
  int async;    /* and written by a thread of their own (fewer scenes run than cores) */
  int shared;   /* the ranks of an MPI run write it (vb_laid_share_in/out): they take turns
                   by flock, asleep */
} laid;

struct vb_output {
  vb_format fmt;
  char *path, *part;
  int dirfd, lockfd, manifd, rank;
  int created; /* this run created OUT.part/ (mkdir) */
  int discard; /* remove OUT.part/ when freed (vb_output_discard) */
  unsigned long input_crc;
  unsigned char *complete; /* [nscenes] */
  int *codes;              /* [nscenes] */
  long ndone;
  vb_packed_scene **batch;
  long nbatch, capbatch;
  vb_packed_scene **held; /* [nheld] scenes of listed checkpoints (ranks sharing a file) */
  long nheld, capheld;
  long nlisted;           /* of them back in the batch (vb_output_batch_unhold) */
  double batch_bytes, last_flush;
  long next_shard;
  vb_test_hooks hooks;  /* read once, when the output is opened */
  vb_wpoints points;     /* the write points of the kill hook */
  vb_wb wb;             /* the shard HDF5 is writing (wb.name under dirfd), or none */
  double batch_seconds; /* BATCH_SECONDS, or the test hook's */
  laid *laid;           /* the shard laid out before the run, or NULL */
  char *err;            /* where messages go during a call */
  size_t errlen;
};

/* output/part.c */

/* Create OUT.part/ (*created 1 when this call made it) or check the one
 * there (a directory holding only what vibro writes), and open it as
 * *dirfd; VB_OK or an error with the message. */
int vb_part_dir(const char *path, const char *part, int *dirfd, int *created, char *err,
                size_t errlen);
/* Take this rank's lock of OUT.part/ (o->lockfd); refused (VB_EINVAL)
 * while another writer holds it. */
int vb_part_lock(vb_output *o);
/* Delete the files of OUT.part/ that a fresh start (fresh 1: every file
 * of this rank, and for rank 0 of ranks whose lock is free, except locks)
 * or a resume (the files of this rank not in keep) drops; 0 or -1. */
int vb_part_clean(vb_output *o, const shard *keep, long nkeep, int fresh);

/* output/laid.c */

/* Whether scenes may still be placed in the laid-out shard. */
int vb_laid_open(laid *l);
/* Drop the laid-out shard (its descriptor stays open). */
void vb_laid_drop(vb_output *o);
/* Spill it: it will not be a file (its name and HDF5 handle go), but
 * scenes are still placed in it, and read back a shard at a time. */
void vb_laid_spill(vb_output *o);
/* Drop and free it (no thread runs scenes any more). */
void vb_laid_free(vb_output *o);
/* Write a packed scene's signals at its row; 0, or -1 when not there. */
int vb_laid_place(const vb_output *o, vb_packed_scene *p);
/* Read the batch's placed scenes back into their own memory (o->batch
 * may be a window of the batch). */
int vb_laid_read_back(vb_output *o);
/* Whether the batch is every row of the laid-out shard, in order. */
int vb_laid_complete(const vb_output *o);

#endif
