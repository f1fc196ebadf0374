/* h5heap.c - the global heap behind a file's variable-length string
 * attributes checked before libhdf5 reads it (issue 19, item 6;
 * tests/fuzz/README.md).  vibro-1 and vibro-2 files keep `format`,
 * `vibro_version`, `units`, names... as variable-length strings: each an
 * ID (length, collection address, object index) in the attribute, its
 * bytes in a global heap collection.  libhdf5 1.10.8 trusts a damaged
 * collection: it copies as many bytes as an object's size claims into a
 * buffer of the string's length (a heap overflow, silent or a crash in
 * H5HG_read), follows an index past the collection's table, or loops for
 * ever on an object of size 0.  Here the file's own bytes are read
 * instead: every version-1 object header (what those files have), each
 * variable-length string attribute message in it, and the collection each
 * of its strings points to, walked as libhdf5 walks it.
 *
 * The layout: the HDF5 file format specification, version 2 superblock
 * and earlier (https://docs.hdfgroup.org/hdf5/v1_10/_f_m_t3.html):
 * IV.A.1.a the version 1 object header, IV.A.2.m the attribute message,
 * IV.A.2.q the continuation message, IV.A.2.d the datatype message (class
 * 9, a variable-length sequence; type 1, a string), IV.A.2.b the
 * dataspace message, III.E the global heap collection.  Version 2 object
 * headers ("OHDR", written by vibro-3 with libver 1.8) are not parsed:
 * vibro-3 writes its string attributes fixed-length. */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "h5heap.h"

#define MSG_LINFO        0x0002 /* IV.A.2.c */
#define MSG_LINK         0x0006 /* IV.A.2.g */
#define MSG_ATTRIBUTE    0x000C /* IV.A.2.m */
#define MSG_CONTINUATION 0x0010 /* IV.A.2.q */
#define CLASS_VLEN       9      /* IV.A.2.d */
#define HEAP_ID          16     /* a string on disk: length 4, collection 8, index 4 bytes */
#define GCOL_MIN         4096   /* the smallest collection libhdf5 writes (III.E) */
#define MAX_CHUNKS       64     /* continuation blocks of one object header at most */
#define MAX_DEPTH        16     /* groups below the root walked */
#define MAX_OBJECTS      (1 << 24) /* objects walked at most */

/* The file's bytes and what was found wrong in them. */
typedef struct image {
  const unsigned char *p;
  uint64_t n;      /* bytes */
  char why[256];   /* what is wrong, once found */
} image;

/* The n-byte little-endian number at offset at into *out; 0, or -1 past
 * the end of the file. */
static int
get(image *im, uint64_t at, unsigned n, uint64_t *out)
{
  *out = 0;
  if (at > im->n || n > im->n - at) {
    snprintf(im->why, sizeof im->why, "an object header or heap at %llu passes the end of the file",
             (unsigned long long)at);
    return -1;
  }
  for (unsigned i = 0; i < n; i++)
    *out |= (uint64_t)im->p[at + i] << (8 * i);
  return 0;
}

/* The size of object idx of the collection at addr into *size, walking
 * every object as libhdf5 loads the collection (III.E), each inside it;
 * 0, or -1 with im->why. */
static int
heap_object(image *im, uint64_t addr, uint64_t idx, uint64_t *size)
{
  uint64_t version, total, at, end, i, s;
  int found = 0;

  if (get(im, addr, 1, &version) < 0 || get(im, addr + 4, 1, &version) < 0 ||
      memcmp(im->p + addr, "GCOL", 4) != 0 || version != 1 || get(im, addr + 8, 8, &total) < 0) {
    snprintf(im->why, sizeof im->why, "no global heap collection at %llu",
             (unsigned long long)addr);
    return -1;
  }
  if (total < GCOL_MIN || total > im->n - addr) {
    snprintf(im->why, sizeof im->why, "the global heap collection at %llu claims %llu bytes",
             (unsigned long long)addr, (unsigned long long)total);
    return -1;
  }
  for (at = addr + 16, end = addr + total; end - at >= 16; at += s) {
    uint64_t osize;
    get(im, at, 2, &i);
    get(im, at + 8, 8, &osize);
    /* an object is its 16-byte header and its bytes padded to 8; the free
     * space (object 0) its size, header included */
    s = i ? (osize > end - at ? UINT64_MAX : 16 + ((osize + 7) & ~(uint64_t)7)) : osize;
    if (s < 16 || s > end - at) {
      snprintf(im->why, sizeof im->why,
               "the global heap collection at %llu: object %llu at %llu, %llu bytes, passes its end",
               (unsigned long long)addr, (unsigned long long)i, (unsigned long long)at,
               (unsigned long long)osize);
      return -1;
    }
    if (i == idx && i) {
      found++;
      *size = osize;
    }
  }
  if (found != 1) {
    snprintf(im->why, sizeof im->why, "the global heap collection at %llu holds %s object %llu",
             (unsigned long long)addr, found ? "more than one" : "no", (unsigned long long)idx);
    return -1;
  }
  return 0;
}

/* The attribute message at [at, at + size): if a variable-length string,
 * each of its strings' heap object is that string's length; 0 or -1. */
static int
attribute_check(image *im, uint64_t at, uint64_t size)
{
  uint64_t version, nlen, tlen, slen, cls, sversion, rank, stype = 1, n = 1, d;
  uint64_t t, s, pad;
  char name[64] = "";

  if (get(im, at, 1, &version) < 0 || get(im, at + 2, 2, &nlen) < 0 ||
      get(im, at + 4, 2, &tlen) < 0 || get(im, at + 6, 2, &slen) < 0)
    return -1;
  pad = version == 1 ? 7 : 0; /* version 1 pads the name, datatype and dataspace to 8 */
  t = at + (version == 3 ? 9 : 8) + ((nlen + pad) & ~pad);
  memcpy(name, im->p + at + (version == 3 ? 9 : 8),
         nlen < sizeof name && t <= im->n ? nlen : 0);
  name[sizeof name - 1] = '\0';
  s = t + ((tlen + pad) & ~pad);
  d = s + ((slen + pad) & ~pad);
  if (version < 1 || version > 3 || d > at + size) {
    snprintf(im->why, sizeof im->why, "attribute '%s': its parts pass its message at %llu", name,
             (unsigned long long)at);
    return -1;
  }
  if (get(im, t, 1, &cls) < 0 || (cls & 0x0F) != CLASS_VLEN || get(im, t + 1, 1, &cls) < 0 ||
      (cls & 0x0F) != 1)
    return 0; /* not a variable-length string */
  /* its characters' type, the base type after the 8 bytes of its own: 1 byte
   * (libhdf5 converts length x base size bytes: 2^30 of them hung h5py) */
  if (get(im, t + 12, 4, &cls) < 0 || cls != 1) {
    snprintf(im->why, sizeof im->why, "attribute '%s': a string of %llu-byte characters", name,
             (unsigned long long)cls);
    return -1;
  }
  if (get(im, s, 1, &sversion) < 0 || get(im, s + 1, 1, &rank) < 0 ||
      (sversion == 2 && get(im, s + 3, 1, &stype) < 0))
    return -1;
  for (uint64_t k = 0; k < rank; k++) {
    uint64_t dim;
    if (get(im, s + (sversion == 1 ? 8 : 4) + 8 * k, 8, &dim) < 0)
      return -1;
    n = dim && n > (at + size - d) / dim ? UINT64_MAX : n * dim;
  }
  if (sversion == 2 && stype == 2)
    n = 0; /* a null dataspace */
  if (n > (at + size - d) / HEAP_ID) {
    snprintf(im->why, sizeof im->why, "attribute '%s': more strings than its message holds", name);
    return -1;
  }
  for (uint64_t k = 0; k < n; k++) {
    uint64_t len, coll, idx, osize;
    get(im, d + HEAP_ID * k, 4, &len);
    get(im, d + HEAP_ID * k + 4, 8, &coll);
    get(im, d + HEAP_ID * k + 12, 4, &idx);
    if (coll == 0)
      continue; /* no string: libhdf5 reads nothing */
    if (heap_object(im, coll, idx, &osize) < 0)
      return -1;
    if (osize != len) {
      snprintf(im->why, sizeof im->why,
               "attribute '%s': a string of %llu bytes, its heap object %llu bytes", name,
               (unsigned long long)len, (unsigned long long)osize);
      return -1;
    }
  }
  return 0;
}

/* The link info message of a group at [at, at + size) (IV.A.2.c; a group
 * that tracks its links' creation order, vibro's tables): the fractal heap
 * and the v2 B-trees of its dense links, each undefined or its signature
 * ("FRHP", III.G; "BTHD", III.A.2) inside the file.  libhdf5 1.10.8 opens
 * them as the message says: a flipped byte of the heap's address crashed
 * vibro info in H5B2_open under H5G__obj_get_linfo (the reader fuzz,
 * tests/fuzz/README.md).  0, or -1 with im->why. */
static int
linfo_check(image *im, uint64_t at, uint64_t size)
{
  static const char *const what[] = {"fractal heap", "name index", "creation order index"};
  static const char *const sig[] = {"FRHP", "BTHD", "BTHD"};
  uint64_t version, flags, addr[3];
  int n;

  if (get(im, at, 1, &version) < 0 || get(im, at + 1, 1, &flags) < 0)
    return -1;
  n = flags & 2 ? 3 : 2;
  uint64_t first = at + 2 + (flags & 1 ? 8 : 0);
  if (version != 0 || first + 8 * (uint64_t)n > at + size) {
    snprintf(im->why, sizeof im->why, "a group's link info at %llu: version %llu of %llu bytes",
             (unsigned long long)at, (unsigned long long)version, (unsigned long long)size);
    return -1;
  }
  for (int k = 0; k < n; k++) {
    if (get(im, first + 8 * (uint64_t)k, 8, &addr[k]) < 0)
      return -1;
    if (addr[k] == UINT64_MAX)
      continue; /* undefined: the links are compact */
    if (addr[k] > im->n || im->n - addr[k] < 4 || memcmp(im->p + addr[k], sig[k], 4) != 0) {
      snprintf(im->why, sizeof im->why, "a group's link info at %llu: its %s at %llu is not one",
               (unsigned long long)at, what[k], (unsigned long long)addr[k]);
      return -1;
    }
  }
  if ((addr[0] == UINT64_MAX) != (addr[1] == UINT64_MAX)) {
    snprintf(im->why, sizeof im->why,
             "a group's link info at %llu: a fractal heap without a name index or the reverse",
             (unsigned long long)at);
    return -1;
  }
  return 0;
}

/* A compact group's link message at [at, at + size) (IV.A.2.g): its
 * parts inside it, a known link type, a hard link's address inside the
 * file.  libhdf5 1.10.8 builds its table of a compact group's links from
 * them and frees each name again: a damaged one crashed the package in
 * H5G__link_release_table (the reader fuzz's ana-403, ana-926).  0, or
 * -1 with im->why. */
static int
link_check(image *im, uint64_t at, uint64_t size)
{
  uint64_t version, flags, ltype = 0, nlen, vlen = 0, addr = 0, p = at + 2, need;

  if (get(im, at, 1, &version) < 0 || get(im, at + 1, 1, &flags) < 0)
    return -1;
  if (flags & 0x08) {
    if (get(im, p, 1, &ltype) < 0)
      return -1;
    p++;
  }
  p += (flags & 0x04 ? 8 : 0) + (flags & 0x10 ? 1 : 0);
  unsigned width = 1u << (flags & 3);
  if (get(im, p, width, &nlen) < 0)
    return -1;
  p += width;
  if (nlen > size)
    nlen = size + 1; /* (past the message either way; no overflow below) */
  p += nlen;
  need = ltype == 0 ? 8 : 2;
  if (p + need <= at + size) {
    if (ltype == 0)
      get(im, p, 8, &addr);
    else {
      get(im, p, 2, &vlen);
      need += vlen;
    }
  }
  if (version != 1 || (flags & 0xE0) || nlen == 0 || (ltype > 1 && ltype < 64) ||
      p + need > at + size || (ltype == 0 && addr >= im->n)) {
    snprintf(im->why, sizeof im->why, "a group's link message at %llu: its parts do not fit its %llu bytes",
             (unsigned long long)at, (unsigned long long)size);
    return -1;
  }
  return 0;
}

/* The version 1 object header at addr (IV.A.1.a): every attribute, link
 * info and link message of its chunks checked; 0 or -1. */
static int
header_check(image *im, uint64_t addr)
{
  uint64_t version, nmesgs, seen = 0, chunk[MAX_CHUNKS][2];
  int nchunks = 1;

  if (get(im, addr, 1, &version) < 0)
    return -1;
  if (version != 1)
    return 0; /* a version 2 header ("OHDR"): vibro-3's, not parsed */
  if (get(im, addr + 2, 2, &nmesgs) < 0 || get(im, addr + 8, 4, &chunk[0][1]) < 0)
    return -1;
  chunk[0][0] = addr + 16;
  for (int c = 0; c < nchunks && seen < nmesgs; c++) {
    uint64_t at = chunk[c][0], end = chunk[c][0] + chunk[c][1];
    if (end > im->n || end < at) {
      snprintf(im->why, sizeof im->why, "an object header chunk at %llu passes the end of the file",
               (unsigned long long)at);
      return -1;
    }
    for (uint64_t type, size; end - at >= 8 && seen < nmesgs; at += 8 + size, seen++) {
      get(im, at, 2, &type);
      get(im, at + 2, 2, &size);
      if (size > end - at - 8) {
        snprintf(im->why, sizeof im->why, "a message at %llu passes its object header",
                 (unsigned long long)at);
        return -1;
      }
      if (type == MSG_ATTRIBUTE && attribute_check(im, at + 8, size) < 0)
        return -1;
      if (type == MSG_LINFO && linfo_check(im, at + 8, size) < 0)
        return -1;
      if (type == MSG_LINK && link_check(im, at + 8, size) < 0)
        return -1;
      if (type == MSG_CONTINUATION && size >= 16) {
        if (nchunks == MAX_CHUNKS) {
          snprintf(im->why, sizeof im->why, "an object header of more than %d chunks", MAX_CHUNKS);
          return -1;
        }
        get(im, at + 8, 8, &chunk[nchunks][0]);
        get(im, at + 16, 8, &chunk[nchunks++][1]);
      }
    }
  }
  return 0;
}

/* A walk of the file's groups: the bytes, the headers seen. */
typedef struct walker {
  image *im;
  haddr_t *seen; /* header addresses checked of objects of more than one link */
  size_t n, cap;
  int depth;
} walker;

/* H5Literate's callback: the object a hard link names checked once, a
 * group's objects below it (MAX_DEPTH deep); 0, or -1 to stop with
 * im->why.  An object libhdf5 cannot reach is left to output_check
 * (h5check.c), which names it; no reader reads its attributes. */
static herr_t
walk_link(hid_t g, const char *name, const H5L_info_t *link, void *data)
{
  walker *w = data;
  H5O_info_t info;
  herr_t rc = 0;

  if (link->type != H5L_TYPE_HARD ||
      H5Oget_info_by_name2(g, name, &info, H5O_INFO_BASIC, H5P_DEFAULT) < 0)
    return 0;
  /* an object of one link is met once; one of more links (and a loop of
   * groups) is remembered */
  for (size_t i = 0; info.rc > 1 && i < w->n; i++)
    if (w->seen[i] == info.addr)
      return 0;
  if (info.rc > 1 && w->n == w->cap) {
    size_t cap = w->cap ? 2 * w->cap : 64;
    haddr_t *seen = cap <= MAX_OBJECTS ? realloc(w->seen, cap * sizeof *seen) : NULL;
    if (!seen) {
      snprintf(w->im->why, sizeof w->im->why, "more than %d objects", MAX_OBJECTS);
      return -1;
    }
    w->seen = seen;
    w->cap = cap;
  }
  if (info.rc > 1)
    w->seen[w->n++] = info.addr;
  if (header_check(w->im, info.addr) < 0)
    return -1;
  if (info.type == H5O_TYPE_GROUP && w->depth < MAX_DEPTH) {
    hid_t sub = H5Gopen2(g, name, H5P_DEFAULT);
    hsize_t idx = 0;
    w->depth++;
    /* in the name index's own order: no table of links built (h5check.c) */
    if (sub >= 0 && H5Literate(sub, H5_INDEX_NAME, H5_ITER_NATIVE, &idx, walk_link, w) < 0 &&
        w->im->why[0])
      rc = -1;
    w->depth--;
    if (sub >= 0)
      H5Gclose(sub);
  }
  return rc;
}

int
heap_check(const char *file, hid_t fid)
{
  hid_t fcpl = H5Fget_create_plist(fid);
  size_t offsets = 0, lengths = 0;
  hsize_t userblock = 1;
  image im = {.why = ""};
  struct stat st;
  void *map = MAP_FAILED;
  int fd, rc = 0;

  /* the layout parsed: 8-byte offsets and lengths, no user block */
  if (fcpl < 0 || H5Pget_sizes(fcpl, &offsets, &lengths) < 0 ||
      H5Pget_userblock(fcpl, &userblock) < 0 || offsets != 8 || lengths != 8 || userblock) {
    H5Pclose(fcpl);
    return 0;
  }
  H5Pclose(fcpl);
  fd = open(file, O_RDONLY);
  if (fd < 0 || fstat(fd, &st) < 0 || st.st_size <= 0 ||
      (map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0)) == MAP_FAILED) {
    if (fd >= 0)
      close(fd);
    return cli_complain(file, "damaged: cannot read the file to check it");
  }
  im.p = map;
  im.n = (uint64_t)st.st_size;
  /* the root, then every object below it; where libhdf5 itself cannot
   * reach an object or list a group, output_check names it (h5check.c,
   * which reads no variable-length string) */
  H5O_info_t root;
  walker w = {.im = &im};
  hsize_t idx = 0;
  if (H5Oget_info2(fid, &root, H5O_INFO_BASIC) >= 0 &&
      (header_check(&im, root.addr) < 0 ||
       (H5Literate(fid, H5_INDEX_NAME, H5_ITER_NATIVE, &idx, walk_link, &w) < 0 && im.why[0])))
    rc = cli_complain(file, "damaged: %s", im.why);
  free(w.seen);
  munmap(map, (size_t)st.st_size);
  close(fd);
  return rc;
}
