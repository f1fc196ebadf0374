/* names.c - a sorted index of the names of a list of objects (bodies,
 * points, contacts): lookups by name and the first duplicate in
 * O(log n) and O(n log n), where a linear search per object made loading
 * N objects cost N^2; and vb_src_element, which starts loading each
 * element of such a list (scene/scene.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scene.h"

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

/* The first duplicate `name` of a list of groups: the lowest element whose
 * name an earlier element has (that one into *first), -1 when none, -2
 * when out of memory; from a sorted index of the names as written (a
 * comparison of each element with every earlier one would cost N^2). */
int
vb_src_first_duplicate(const config_setting_t *list, int *first)
{
  int n = list ? config_setting_length(list) : 0, at;
  const char **names = calloc((size_t)n + 1, sizeof *names);
  vb_names ix = {0};

  if (names == NULL)
    return -2;
  for (int k = 0; k < n; k++) {
    const config_setting_t *m =
        config_setting_get_member(config_setting_get_elem(list, (unsigned)k), "name");
    names[k] = m != NULL && config_setting_type(m) == CONFIG_TYPE_STRING
                   ? config_setting_get_string(m)
                   : NULL;
  }
  at = vb_names_build(&ix, names, 0, n) == VB_OK ? vb_names_duplicate(&ix, first) : -2;
  vb_names_free(&ix);
  free(names);
  return at;
}

/* The first duplicate of a list of named objects, once per list and load. */
static int
first_duplicate(vb_loader *ld, const config_setting_t *list)
{
  ld->dup_of = list;
  ld->dup_at = vb_src_first_duplicate(list, &ld->dup_first);
  if (ld->dup_at == -2)
    return vb_errf(ld->err, ld->errlen, VB_ENOMEM, "%s: out of memory loading the scene",
                   ld->path);
  return VB_OK;
}

/* Start loading element i of a list of named objects: a group, whose name
 * is valid and unique among the elements before it; see scene/scene.h. */
int
vb_src_element(vb_loader *ld, const config_setting_t *list, int i, const char *kind,
               const char *shape, char *names, size_t stride, char *obj, size_t objsize)
{
  const config_setting_t *g = config_setting_get_elem(list, (unsigned)i);
  const char *name = NULL;
  char loc[4200];
  int rc;

  snprintf(obj, objsize, "%s #%d", kind, i + 1);
  if (config_setting_type(g) != CONFIG_TYPE_GROUP)
    return vb_src_fail(ld, g, obj, "must be a group %s", shape);
  if ((rc = vb_src_string(ld, g, obj, "name", 1, &name)) != VB_OK ||
      (rc = vb_src_check_name(ld, g, obj, name)) != VB_OK)
    return rc;
  snprintf(obj, objsize, "%s '%s'", kind, name);
  if (ld->dup_of != list && (rc = first_duplicate(ld, list)) != VB_OK)
    return rc;
  if (i == ld->dup_at)
    return vb_src_fail(ld, vb_src_at(g, "name"), obj, "duplicate %s name (first defined at %s)",
                       kind,
                       vb_src_where(ld, config_setting_get_elem(list, (unsigned)ld->dup_first), loc,
                                    sizeof loc));
  strcpy(names + (size_t)i * stride, name);
  return VB_OK;
}

/* Free the indices a load built. */
void
vb_loader_clear(vb_loader *ld)
{
  vb_names_free(&ld->bodies);
  if (ld->points != NULL && ld->scene != NULL)
    for (int b = 0; b < ld->scene->nbodies; b++)
      vb_names_free(&ld->points[b]);
  free(ld->points);
  ld->points = NULL;
  vb_included_free(ld->included);
  ld->included = NULL;
  free(ld->changed);
  ld->changed = NULL;
}
