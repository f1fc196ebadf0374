/* study/study.h - the face of the study wing (not installed): sweeps
 * (sweep.c, sweep_path.c), studies (study.c), the study runner
 * (study_run.c) and the scenes' and studies' checks (check.c).  The study
 * wing uses every wing below it; the root (vibro.h, pyapi.c) uses it. */
#ifndef VIBRO_STUDY_H
#define VIBRO_STUDY_H

#include <stdint.h>

#include <libconfig.h>

#include "scene/scene.h"

/* Largest number of scenes a study may have. */
#define VB_STUDY_MAX_SCENES 100000000L

/* Find the numeric setting a sweep path names in cfg ("contacts.hit.k",
 * "scene.fs", "bodies.bar.freq[2]"), creating an optional key the file
 * leaves out.  `origin` (the path's own setting) places the messages. */
int vb_sweep_target(const vb_source *src, config_t *cfg, const char *path,
                    const config_setting_t *origin, config_setting_t **target, char *err,
                    size_t errlen);
/* SI units of the numeric setting a sweep path names in cfg ("N/m^alpha"
 * for a law's k, "Hz" for scene.fs, "1" when dimensionless), from the
 * law table and the sweep's table of keys; NULL when no table knows it. */
const char *vb_sweep_units(config_t *cfg, const char *path);
/* Give a target setting a swept value; messages about it will point at
 * `origin`, the sweep parameter that set it. */
void vb_sweep_assign(config_setting_t *target, double value, const config_setting_t *origin);
/* vb_sweep_assign, the origin given as its line and file name. */
void vb_sweep_assign_at(config_setting_t *target, double value, unsigned int line,
                        const char *file);
/* A parsed sweep block (sweep.c). */
typedef struct vb_sweep vb_sweep;

/* Parse and check the sweep group of a study (paths are checked by the
 * caller, with vb_sweep_target); *out is freed with vb_sweep_free. */
int vb_sweep_parse(const vb_source *src, const config_setting_t *sweep, vb_sweep **out, char *err,
                   size_t errlen);
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

/* The scenes that stand for a sweep too large to validate one by one:
 * *out (freed by the caller) receives the sorted distinct indices, their
 * number is returned (-1: out of memory).  Always scene 0.
 *   grid: each parameter's values (all of them up to `cap`; of a longer
 *   linspace or logspace its first two, last two, extremes and `cap`
 *   evenly spaced ones) with the others at their first value, and every
 *   corner of the grid (each parameter at its smallest or largest value;
 *   with more than 12 parameters the all-smallest and all-largest corners
 *   and each with one parameter flipped).  This suffices because every
 *   check of a value is an interval condition (between two valid values
 *   of a linspace or logspace every value is valid; the neighbours of the
 *   ends catch a step that breaks an integer or odd-integer key), and
 *   every check that combines values (steps = duration fs, modes below
 *   Nyquist and an explicit scheme's stability limit, exact-duration
 *   limits, forces that overflow) is monotone in each value, so the worst
 *   case of a grid is one of its corners.
 *   zip: `cap` evenly spaced scenes and those where a parameter takes its
 *   smallest or largest value (corners of a zip are not scenes).
 *   random: the first `cap` scenes (independent draws over the box).
 * Every scene is still validated as it is built at run time
 * (vb_study_scene), so a zip or random scene outside the sample fails
 * there with its own message. */
long vb_sweep_sample(const vb_sweep *sweep, long cap, long **out);

/* splitmix64 (Steele, Lea & Flood 2014): output number k (k = 0, 1, ...)
 * of the stream started at `seed`; stateless, so any scene's draw is
 * computed directly from its index. */
uint64_t vb_splitmix64(uint64_t seed, uint64_t k);

#endif
