/* output_v1.h - the vibro-1 writer, kept while the inspectors move to
 * vibro-2 (internal; vb_study_options.format = 1). */
#ifndef VB_OUTPUT_V1_H
#define VB_OUTPUT_V1_H

#include "vibro.h"

typedef struct vb_v1_output vb_v1_output;
typedef struct vb_v1_chunks vb_v1_chunks;

/* As the vibro-1 API: create or resume OUT.part (one HDF5 file). */
int vb_v1_open(const char *path, const vb_study *study, int resume, vb_v1_output **out,
               char *err, size_t errlen);
/* Whether scene index is complete; its status code. */
int vb_v1_complete(const vb_v1_output *output, long index);
int vb_v1_status_code(const vb_v1_output *output, long index);
/* Compress a run's datasets (any thread); free them. */
int vb_v1_chunks_alloc(const vb_run *run, vb_v1_chunks **out, char *err, size_t errlen);
void vb_v1_chunks_free(vb_v1_chunks *chunks);
/* Write scene index from its chunks (one writer at a time). */
int vb_v1_scene_chunks(vb_v1_output *output, long index, const vb_run *run,
                       const vb_v1_chunks *chunks, char *err, size_t errlen);
/* Write scene index, compressing here. */
int vb_v1_scene(vb_v1_output *output, long index, const vb_run *run, char *err,
                size_t errlen);
/* Close and rename into place; close leaving OUT.part. */
int vb_v1_finish(vb_v1_output *output, char *err, size_t errlen);
void vb_v1_free(vb_v1_output *output);
/* Join per-rank vibro-1 files into OUT. */
int vb_v1_merge(const char *path, const vb_study *study, const char *const *parts,
                int nparts, char *err, size_t errlen);
/* Write runs of one scene file as vibro-1. */
int vb_v1_write(const char *path, const vb_run *const *runs, int nruns, char *err,
                size_t errlen);

/* The vibro-1 runner behind vb_study_run when opt->format is 1. */
int vb_v1_study_run(const vb_study *study, const char *out, const vb_study_options *opt,
                    vb_study_report *report, char *err, size_t errlen);

#endif
