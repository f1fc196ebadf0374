/* scenegen.h - a seeded generator of valid random scenes (libconfig text)
 * for the property-based tests (tests/check_random.c, tests/random.sh).
 *
 * A scene has 1 to 4 islands, each a connected network of masses and modal
 * objects with its own walls (fixed, or driven by a sine, a profile or
 * noise), joined by contacts of every law; plus 0 to 2 free bodies (in no
 * contact) and sometimes a driven wall in no contact.  The contacts of an
 * island share a scheme family (two-point/am1, three-point/quadratic, or
 * one explicit scheme).  Gravity, forces (constant, harmonic), gap drives,
 * Papetti's corrections and the exact-duration substitution appear at
 * random.  The same seed gives the same scene on every machine. */
#ifndef VIBRO_SCENEGEN_H
#define VIBRO_SCENEGEN_H

#include <stdint.h>

#define SG_MAX_ITEMS 64

/* One body, contact or force: its rendered group and the island it
 * belongs to (free bodies and free walls count as islands of their own). */
typedef struct sg_item {
  char name[32];
  int island;
  char *text; /* "{ ... }" (owned) */
} sg_item;

/* A generated scene, kept as separate items so that it can be rendered
 * whole, one island alone, or in another order. */
typedef struct sg_scene {
  uint64_t seed;
  char *header;        /* scene = { ... }; (owned) */
  char *record;        /* record = { ... }; (owned) */
  int nislands;        /* islands, free bodies included */
  int conserving[SG_MAX_ITEMS]; /* per island: 1 if every contact's scheme
                                   is energy conserving (free: 1) */
  int nbodies, ncontacts, nforces;
  sg_item bodies[SG_MAX_ITEMS], contacts[SG_MAX_ITEMS], forces[SG_MAX_ITEMS];
  char sweep_path[96]; /* a numeric path to sweep (a contact's gap) */
  double sweep_value;  /* its value in the scene */
} sg_scene;

/* Generate the scene of a seed; data files are found under srcdir. */
void sg_generate(sg_scene *g, uint64_t seed, const char *srcdir);
/* Free what sg_generate made. */
void sg_free(sg_scene *g);
/* Render the scene as libconfig text (the caller frees it): island < 0
 * gives the whole scene, else that island alone; the items are listed in
 * the order of the permutations (NULL: as generated), each an array of
 * nbodies, ncontacts, nforces indices.  nsweep > 0 appends a sweep block
 * with that many values of sweep_path. */
char *sg_render(const sg_scene *g, int island, const int *pbodies, const int *pcontacts,
                const int *pforces, int nsweep);
/* A random permutation of n items from a seed (out has n entries). */
void sg_permutation(uint64_t seed, int n, int *out);

#endif
