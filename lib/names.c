/* names.c - a sorted index of the names of a list of objects (bodies,
 * points, contacts): lookups by name and the first duplicate in
 * O(log n) and O(n log n), where a linear search per object made loading
 * N objects cost N^2. */
#include <stdlib.h>
#include <string.h>

#include "source.h"

/* Order by name, then by index: the first of equal names is the lowest. */
static int
by_name(const void *a, const void *b)
{
  const vb_named *x = a, *y = b;
  int c = strcmp(x->name, y->name);

  return c != 0 ? c : (x->index > y->index) - (x->index < y->index);
}

/* Index the n names at base, base + stride, ... (NULL entries of an array
 * of pointers, stride 0 meaning base is a `const char **`, are left out);
 * VB_OK or VB_ENOMEM. */
int
vb_names_build(vb_names *ix, const void *base, size_t stride, int n)
{
  ix->n = 0;
  ix->item = malloc(((size_t)n + 1) * sizeof *ix->item);
  if (ix->item == NULL)
    return VB_ENOMEM;
  for (int i = 0; i < n; i++) {
    const char *name =
        stride ? (const char *)base + (size_t)i * stride : ((const char *const *)base)[i];
    if (name != NULL)
      ix->item[ix->n++] = (vb_named){.name = name, .index = i};
  }
  qsort(ix->item, (size_t)ix->n, sizeof *ix->item, by_name);
  return VB_OK;
}

/* The lowest index of an object called `name`, or -1. */
int
vb_names_find(const vb_names *ix, const char *name)
{
  int lo = 0, hi = ix->n;

  while (lo < hi) {
    int mid = lo + (hi - lo) / 2;
    if (strcmp(ix->item[mid].name, name) < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < ix->n && strcmp(ix->item[lo].name, name) == 0 ? ix->item[lo].index : -1;
}

/* The lowest index whose name an object of a lower index has already
 * (that index into *first), or -1: the duplicate a loader reading the
 * objects in order meets first. */
int
vb_names_duplicate(const vb_names *ix, int *first)
{
  int at = -1;

  for (int k = 1; k < ix->n; k++)
    if (strcmp(ix->item[k].name, ix->item[k - 1].name) == 0 &&
        (k < 2 || strcmp(ix->item[k - 1].name, ix->item[k - 2].name) != 0) &&
        (at < 0 || ix->item[k].index < at)) {
      at = ix->item[k].index;
      *first = ix->item[k - 1].index;
    }
  return at;
}

/* Free an index; a zeroed one is a no-op. */
void
vb_names_free(vb_names *ix)
{
  free(ix->item);
  ix->item = NULL;
  ix->n = 0;
}
