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
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "h5heap.h"

#define MSG_ATTRIBUTE    0x000C /* IV.A.2.m */
#define MSG_CONTINUATION 0x0010 /* IV.A.2.q */
#define CLASS_VLEN       9      /* IV.A.2.d */
#define HEAP_ID          16     /* a string on disk: length 4, collection 8, index 4 bytes */
#define GCOL_MIN         4096   /* the smallest collection libhdf5 writes (III.E) */
#define MAX_CHUNKS       64     /* continuation blocks of one object header at most */

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

/* The version 1 object header at addr (IV.A.1.a): every attribute message
 * of its chunks checked; 0 or -1. */
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

/* H5Ovisit's callback: the object's header checked; 0, or -1 to stop. */
static herr_t
visit(hid_t obj, const char *name, const H5O_info_t *info, void *data)
{
  (void)obj;
  (void)name;
  return header_check(data, info->addr) < 0 ? -1 : 0;
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
  /* the objects in the order of their groups' name index: no table of
   * links built.  Where libhdf5 itself cannot walk a group, the objects
   * before it are checked and output_check names the group (h5check.c,
   * which reads no variable-length string) */
  if (H5Ovisit2(fid, H5_INDEX_NAME, H5_ITER_NATIVE, visit, &im, H5O_INFO_BASIC) < 0 && im.why[0])
    rc = cli_complain(file, "damaged: %s", im.why);
  munmap(map, (size_t)st.st_size);
  close(fd);
  return rc;
}
