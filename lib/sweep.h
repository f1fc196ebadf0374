/* sweep.h - declarations shared by the scene loader, the sweep expansion,
 * the study runner and the output writer inside libvibro; not installed. */
#ifndef VIBRO_SWEEP_H
#define VIBRO_SWEEP_H

#include <stdint.h>

#include <libconfig.h>

#include "source.h"

/* Largest number of scenes a study may have. */
#define VB_STUDY_MAX_SCENES 100000000L

/* Load a scene from a parsed document of src.  The document may carry a
 * sweep block (already applied by the caller); it is removed from cfg. */
int vb_scene_load_config(const vb_source *src, config_t *cfg, vb_scene **out, char *err,
                         size_t errlen);

/* Find the numeric setting a sweep path names in cfg ("contacts.hit.k",
 * "scene.fs", "bodies.bar.freq[2]"), creating an optional key the file
 * leaves out.  `origin` (the path's own setting) places the messages. */
int vb_sweep_target(const vb_source *src, config_t *cfg, const char *path,
                    const config_setting_t *origin, config_setting_t **target,
                    char *err, size_t errlen);
/* SI units of the numeric setting a sweep path names in cfg ("N/m^alpha"
 * for a law's k, "Hz" for scene.fs, "1" when dimensionless), from the
 * law table and the sweep's table of keys; NULL when no table knows it. */
const char *vb_sweep_units(config_t *cfg, const char *path);
/* Give a target setting a swept value; messages about it will point at
 * `origin`, the sweep parameter that set it. */
void vb_sweep_assign(config_setting_t *target, double value,
                     const config_setting_t *origin);
/* A parsed sweep block (sweep.c). */
typedef struct vb_sweep vb_sweep;

/* Parse and check the sweep group of a study (paths are checked by the
 * caller, with vb_sweep_target); *out is freed with vb_sweep_free. */
int vb_sweep_parse(const vb_source *src, const config_setting_t *sweep, vb_sweep **out,
                   char *err, size_t errlen);
/* Free a sweep; NULL is a no-op. */
void vb_sweep_free(vb_sweep *sweep);
/* Number of scenes, of parameters; the path of parameter p. */
long vb_sweep_scenes(const vb_sweep *sweep);
int vb_sweep_nparams(const vb_sweep *sweep);
const char *vb_sweep_path(const vb_sweep *sweep, int p);
/* Mode name ("grid", "zip", "random") and canonical text of the sweep. */
const char *vb_sweep_mode(const vb_sweep *sweep);
const char *vb_sweep_text(const vb_sweep *sweep);
/* Value of parameter p in scene `index`. */
double vb_sweep_value(const vb_sweep *sweep, long index, int p);

/* splitmix64 (Steele, Lea & Flood 2014): output number k (k = 0, 1, ...)
 * of the stream started at `seed`; stateless, so any scene's draw is
 * computed directly from its index. */
uint64_t vb_splitmix64(uint64_t seed, uint64_t k);

#endif
