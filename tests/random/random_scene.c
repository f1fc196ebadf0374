/* random_scene.c - print the random scene of a seed (tests/random/scenegen.c),
 * to reproduce a failure of check_random or to feed `vibro run`.
 * Usage: random_scene SEED [--island K] [--shuffle] [--sweep N] [--srcdir DIR] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "scenegen.h"

int
main(int argc, char **argv)
{
  const char *srcdir = TEST_SRCDIR;
  int island = -1, shuffle = 0, sweep = 0;
  char *end;
  if (argc < 2) {
    fprintf(stderr, "usage: random_scene SEED [--island K] [--shuffle] [--sweep N] "
            "[--srcdir DIR]\n");
    return 1;
  }
  unsigned long long seed = strtoull(argv[1], &end, 10);
  if (*end != '\0') {
    fprintf(stderr, "random_scene: bad seed '%s'\n", argv[1]);
    return 1;
  }
  for (int i = 2; i < argc; i++) {
    if (strcmp(argv[i], "--shuffle") == 0)
      shuffle = 1;
    else if (strcmp(argv[i], "--island") == 0 && i + 1 < argc)
      island = atoi(argv[++i]);
    else if (strcmp(argv[i], "--sweep") == 0 && i + 1 < argc)
      sweep = atoi(argv[++i]);
    else if (strcmp(argv[i], "--srcdir") == 0 && i + 1 < argc)
      srcdir = argv[++i];
    else {
      fprintf(stderr, "random_scene: unknown option '%s' (valid: --island K, --shuffle, "
              "--sweep N, --srcdir DIR)\n", argv[i]);
      return 1;
    }
  }
  sg_scene g;
  sg_generate(&g, seed, srcdir);
  int pb[SG_MAX_ITEMS], pc[SG_MAX_ITEMS], pf[SG_MAX_ITEMS];
  sg_permutation(seed, g.nbodies, pb);
  sg_permutation(seed + 1, g.ncontacts, pc);
  sg_permutation(seed + 2, g.nforces, pf);
  char *text = shuffle ? sg_render(&g, island, pb, pc, pf, sweep)
                       : sg_render(&g, island, NULL, NULL, NULL, sweep);
  fputs(text, stdout);
  free(text);
  sg_free(&g);
  return 0;
}
