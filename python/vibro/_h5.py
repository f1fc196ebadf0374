"""Listing an HDF5 group's links and an object's attributes without the
path of libhdf5 1.10.8 that crashes on a damaged file (issue 19, item 6;
tests/fuzz/README.md): h5py's keys(), items() and attrs.items() walk an
index in increasing order, for which libhdf5 copies every entry into a
table and frees a damaged entry's pointers; walking the index in its own
order (ITER_NATIVE) builds no table and reports the damage instead."""


def _links(g):
    """The names of group g's links in h5py's order (creation order where
    the group tracks it, else by name), found by walking the group's name
    index in its own order (ITER_NATIVE).  h5py's g.keys() and g.items()
    walk it in increasing order, for which libhdf5 1.10.8 copies every link
    into a table, and frees a damaged one's pointers on the way out: a
    crash (H5G__link_release_table) where the native walk reports an error
    (tests/fuzz/README.md; tools/h5check.c walks the same way)."""
    import h5py
    names = []
    g.id.links.iterate(names.append, idx_type=h5py.h5.INDEX_NAME, order=h5py.h5.ITER_NATIVE)
    names = [n.decode("utf-8", "surrogateescape") if isinstance(n, bytes) else n for n in names]
    if g.id.get_create_plist().get_link_creation_order() & h5py.h5p.CRT_ORDER_TRACKED:
        return sorted(names, key=lambda n: g.id.links.get_info(n.encode("utf-8",
                                                                          "surrogateescape")).corder)
    return sorted(names, key=lambda n: n.encode("utf-8", "surrogateescape"))


def _items(g):
    """(name, object) of each of group g's links, in _links' order."""
    return [(n, g[n]) for n in _links(g)]


def _attr_items(obj):
    """(name, value) of each of obj's attributes in h5py's order, each read
    by name.  The names come from obj's version-1 object header, read from
    the file's bytes (_header_attributes): libhdf5 1.10.8 lists compact
    attributes (H5Aiterate2, in any order) by copying every one into a
    table and closing it after, and crashed closing a damaged one
    (H5A__close); opened by name, a damaged attribute is an error.  Other
    headers are listed in their index's own order (ITER_NATIVE)."""
    import h5py
    names = _header_attributes(obj)
    if names is None:
        names = []
        h5py.h5a.iterate(obj.id, names.append, index_type=h5py.h5.INDEX_NAME,
                         order=h5py.h5.ITER_NATIVE)
    if obj.id.get_create_plist().get_attr_creation_order() & h5py.h5p.CRT_ORDER_TRACKED:
        names.sort(key=lambda n: h5py.h5a.get_info(obj.id, name=n).corder)
    else:
        names.sort()
    return [(n.decode("utf-8", "surrogateescape"), obj.attrs[n]) for n in names]


# HDF5 file format, version 0 superblocks with 8-byte offsets and lengths
# (what vibro-1 and vibro-2 files are): object header messages and the
# global heap.  https://docs.hdfgroup.org/hdf5/v1_10/_f_m_t3.html
_MSG_ATTRIBUTE = 0x000C   # IV.A.2.m
_MSG_CONTINUATION = 0x0010   # IV.A.2.q
_MSG_ATTRIBUTE_INFO = 0x0015   # IV.A.2.v
_CLASS_VLEN = 9            # IV.A.2.d, datatype class 9, type 1: a string
_HEAP_ID = 16              # a vlen element on disk: length (4), collection (8), index (4)
_GCOL_MIN = 4096           # the smallest global heap collection (III.E)
_MAX_CHUNKS = 64           # an object header's chunks at most (its continuation messages)


def _u(data, at, n):
    """The n-byte little-endian unsigned integer at data[at] (ValueError past its end)."""
    if at < 0 or at + n > len(data):
        raise ValueError("an object header runs past the end of the file")
    return int.from_bytes(data[at:at + n], "little")


def _header_messages(data, addr):
    """(type, body offset, body size) of each message of the version 1
    object header at addr (IV.A.1.a), following its continuation blocks."""
    if _u(data, addr, 1) != 1:
        return None                                  # version 2 ("OHDR"): not parsed
    nmesgs, chunks, out = _u(data, addr + 2, 2), [(addr + 16, _u(data, addr + 8, 4))], []
    while chunks and len(out) < nmesgs:
        at, size = chunks.pop(0)
        end = at + size
        if end > len(data):
            raise ValueError("an object header chunk at %d passes the end of the file" % at)
        while at + 8 <= end and len(out) < nmesgs:
            mtype, msize = _u(data, at, 2), _u(data, at + 2, 2)
            if at + 8 + msize > end:
                raise ValueError("a message at %d passes its object header chunk" % at)
            out.append((mtype, at + 8, msize))
            if mtype == _MSG_CONTINUATION:
                if len(chunks) + len(out) > _MAX_CHUNKS * 64:
                    raise ValueError("an object header with too many chunks")
                chunks.append((_u(data, at + 8, 8), _u(data, at + 16, 8)))
            at += 8 + msize
    return out


def _pad(n, version):
    """A name, datatype or dataspace of an attribute message: padded to 8 in version 1."""
    return (n + 7) & ~7 if version == 1 else n


def _attribute_heap_ids(data, at, size):
    """(name, [(length, collection, index)]) of a variable-length string
    attribute message (IV.A.2.m) at data[at:at + size], else None."""
    version = _u(data, at, 1)
    if version not in (1, 2, 3):
        raise ValueError("an attribute message of version %d at %d" % (version, at))
    nlen, tlen, slen = _u(data, at + 2, 2), _u(data, at + 4, 2), _u(data, at + 6, 2)
    p = at + (9 if version == 3 else 8)
    name = data[p:p + nlen].split(b"\0")[0].decode("utf-8", "replace")
    t = p + _pad(nlen, version)
    s = t + _pad(tlen, version)
    d = s + _pad(slen, version)
    if d > at + size:
        raise ValueError("attribute '%s': its parts pass its message" % name)
    if _u(data, t, 1) & 0x0F != _CLASS_VLEN or _u(data, t + 1, 1) & 0x0F != 1:
        return None                                  # not a variable-length string
    if _u(data, t + 12, 4) != 1:                     # its characters' type (IV.A.2.d, base type)
        raise ValueError("attribute '%s': a string of %d-byte characters" % (name, _u(data, t + 12, 4)))
    sversion, rank, flags = _u(data, s, 1), _u(data, s + 1, 1), _u(data, s + 2, 1)
    dims = s + (8 if sversion == 1 else 4)
    n = 1
    for k in range(rank):
        n *= _u(data, dims + 8 * k, 8)
    if sversion == 2 and _u(data, s + 3, 1) == 2:
        n = 0                                        # a null dataspace
    if n * _HEAP_ID > at + size - d:
        raise ValueError("attribute '%s': %d strings, more than its message holds" % (name, n))
    return name, [(_u(data, d + _HEAP_ID * k, 4), _u(data, d + _HEAP_ID * k + 4, 8),
                   _u(data, d + _HEAP_ID * k + 12, 4)) for k in range(n)]


def _collection(data, addr):
    """{index: size} of the objects of the global heap collection at addr,
    walked as libhdf5 1.10.8 loads it (III.E), each object inside the
    collection (libhdf5 does not check that, and copies a damaged size's
    bytes from past its buffer)."""
    if data[addr:addr + 4] != b"GCOL" or _u(data, addr + 4, 1) != 1:
        raise ValueError("no global heap collection at %d" % addr)
    size = _u(data, addr + 8, 8)
    if size < _GCOL_MIN or addr + size > len(data):
        raise ValueError("the global heap collection at %d claims %d bytes" % (addr, size))
    objects, at, end = {}, addr + 16, addr + size
    while at + 16 <= end:
        idx, osize = _u(data, at, 2), _u(data, at + 8, 8)
        need = 16 + ((osize + 7) & ~7) if idx else osize
        if idx in objects or need < 16 or at + need > end:
            raise ValueError("the global heap collection at %d: object %d at %d, %d bytes, "
                             "passes its end" % (addr, idx, at, osize))
        objects[idx] = osize
        at += need
    return objects


def check_strings(path, addrs):
    """Refuse (ValueError) a file whose variable-length string attributes
    would have libhdf5 read a damaged global heap: for the object headers
    at addrs (version 1, as vibro-1 and vibro-2 write them), each such
    attribute's strings are in a whole collection, at an object of their
    length.  h5py (and vibro's C readers) would otherwise copy as many
    bytes as the damaged heap claims into a buffer of the string's length,
    or follow an object index past the collection's table: a crash in
    H5HG_read, or a heap corrupted silently (tests/fuzz/README.md)."""
    import builtins
    import mmap
    with builtins.open(path, "rb") as fh, mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as data:
        _check_strings(data, addrs)


def _check_strings(data, addrs):
    heaps = {}
    for addr in addrs:
        for mtype, at, size in _header_messages(data, addr) or ():
            found = _attribute_heap_ids(data, at, size) if mtype == _MSG_ATTRIBUTE else None
            for length, coll, idx in (found[1] if found else ()):
                if coll == 0:
                    continue                         # no string: libhdf5 reads nothing
                if coll not in heaps:
                    heaps[coll] = _collection(data, coll)
                if idx == 0 or heaps[coll].get(idx) != length:
                    raise ValueError("attribute '%s': a string of %d bytes at object %d of the "
                                     "global heap collection at %d, which holds %s"
                                     % (found[0], length, idx, coll,
                                        "%d bytes" % heaps[coll][idx] if idx in heaps[coll]
                                        else "no such object"))


_MSG_LINFO = 0x0002          # IV.A.2.c
_MSG_LINK = 0x0006           # IV.A.2.g
_MSG_SYMBOL_TABLE = 0x0011   # IV.A.2.r
_MAX_DEPTH = 16              # groups below the root walked (as tools/h5heap.c)


def _check_linfo(data, messages):
    """Refuse (ValueError) a group whose link info message (IV.A.2.c) names
    a fractal heap or v2 B-tree that is not one (its signature FRHP, BTHD
    inside the file) or only one of the two a group's dense links need:
    libhdf5 1.10.8 opens them as the message says (a flipped bit of an
    undefined heap address crashed it under h5py's visit, the reader fuzz's
    ana-403 and ana-926; tools/h5heap.c, linfo_check, for the C readers)."""
    for mtype, at, size in messages or ():
        if mtype != _MSG_LINFO:
            continue
        version, flags = _u(data, at, 1), _u(data, at + 1, 1)
        first, n = at + 2 + (8 if flags & 1 else 0), 3 if flags & 2 else 2
        if version != 0 or first + 8 * n > at + size:
            raise ValueError("a group's link info at %d: version %d of %d bytes"
                             % (at, version, size))
        addrs = [_u(data, first + 8 * k, 8) for k in range(n)]
        for addr, sig, what in zip(addrs, (b"FRHP", b"BTHD", b"BTHD"),
                                   ("fractal heap", "name index", "creation order index")):
            if addr != 2 ** 64 - 1 and data[addr:addr + 4] != sig:
                raise ValueError("a group's link info at %d: its %s at %d is not one"
                                 % (at, what, addr))
        if (addrs[0] == 2 ** 64 - 1) != (addrs[1] == 2 ** 64 - 1):
            raise ValueError("a group's link info at %d: a fractal heap without a name "
                             "index or the reverse" % at)
    for mtype, at, size in messages or ():
        if mtype == _MSG_LINK:
            _check_link(data, at, size)


def _check_link(data, at, size):
    """Refuse (ValueError) a compact group's link message (IV.A.2.g) whose
    parts do not fit it: libhdf5 1.10.8 builds its table of a compact
    group's links from them and freed a damaged one's name (a crash in
    H5G__link_release_table under h5py's links.iterate, ana-403)."""
    version, flags = _u(data, at, 1), _u(data, at + 1, 1)
    p, ltype = at + 2, 0
    if flags & 0x08:
        ltype, p = _u(data, p, 1), p + 1
    if flags & 0x04:
        p += 8
    if flags & 0x10:
        p += 1
    width = 1 << (flags & 3)
    nlen, p = _u(data, p, width), p + width
    p += nlen
    if ltype == 0:
        need, addr = 8, _u(data, p, 8) if p + 8 <= at + size else None
    else:
        need, addr = 2 + (_u(data, p, 2) if p + 2 <= at + size else 0), None
    if (version != 1 or flags & 0xE0 or nlen == 0 or (ltype not in (0, 1) and ltype < 64)
            or p + need > at + size or (addr is not None and addr >= len(data))):
        raise ValueError("a group's link message at %d: its parts do not fit its %d bytes"
                         % (at, size))


def header_addresses(f):
    """The object header addresses of every object of h5py.File f: the root
    and every object below it, each group's header checked (_check_linfo)
    before libhdf5 lists its links, in its name index's order (ITER_NATIVE,
    as _links: no table of links built), each object's address from its
    link (no header of it read by libhdf5 but a group's, to open it), as
    tools/h5heap.c walks a file.  ValueError for a damaged group."""
    import builtins
    import mmap
    import h5py
    root = h5py.h5o.get_info(f.id).addr
    out = {root}
    with builtins.open(f.filename, "rb") as fh, \
            mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as data:
        _check_linfo(data, _header_messages(data, root))

        def walk(gid, depth):
            names = []
            gid.links.iterate(names.append, idx_type=h5py.h5.INDEX_NAME,
                              order=h5py.h5.ITER_NATIVE)
            for name in names:
                link = gid.links.get_info(name)
                if link.type != h5py.h5l.TYPE_HARD or link.u in out:
                    continue
                out.add(link.u)
                messages = _header_messages(data, link.u)
                if messages is None:    # a version 2 header: libhdf5 says what it is
                    group = h5py.h5o.get_info(gid, name).type == h5py.h5o.TYPE_GROUP
                else:
                    _check_linfo(data, messages)
                    group = any(t in (_MSG_LINFO, _MSG_SYMBOL_TABLE) for t, _, _ in messages)
                if group and depth < _MAX_DEPTH:
                    walk(h5py.h5g.open(gid, name), depth + 1)

        walk(h5py.h5g.open(f.id, b"/"), 0)
    return out


def _header_attributes(obj):
    """The names (bytes) of the attribute messages in obj's version-1
    object header, or None for another header or one that may keep its
    attributes elsewhere (an attribute info message: dense storage)."""
    import builtins
    import mmap
    import h5py
    addr = h5py.h5o.get_info(obj.id).addr
    with builtins.open(obj.file.filename, "rb") as fh, \
            mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as data:
        messages = _header_messages(data, addr)
        if messages is None or any(t == _MSG_ATTRIBUTE_INFO for t, _, _ in messages):
            return None
        names = []
        for mtype, at, size in messages:
            if mtype == _MSG_ATTRIBUTE:
                nlen = _u(data, at + 2, 2)
                p = at + (9 if _u(data, at, 1) == 3 else 8)
                if nlen < 1 or p + nlen > at + size:
                    raise ValueError("an attribute's name passes its message at %d" % at)
                names.append(bytes(data[p:p + nlen]).split(b"\0")[0])
        return names


def type_wrong(t, depth=0):
    """What is wrong with a stored type (an h5py TypeID), or None: a
    number's bits inside its bytes, a float's sign, exponent and mantissa
    inside its bits, a compound's members inside it -- the checks of
    tools/h5check.c's type_wrong.  libhdf5 converts a damaged type past its
    buffers: a float of 63 bits with its sign at bit 63 made h5py pick
    numpy's long double and glibc abort ("double free or corruption") in
    the reader fuzz (tests/fuzz/README.md, v2-711, 830, 1577, 1723)."""
    from h5py import h5t
    cls = t.get_class()
    if cls in (h5t.INTEGER, h5t.FLOAT):
        prec, off, size = t.get_precision(), t.get_offset(), t.get_size()
        if prec == 0 or off < 0 or prec + off > 8 * size:
            return "its numbers' bits pass their bytes"
        if cls == h5t.FLOAT:
            spos, epos, esize, mpos, msize = t.get_fields()
            if spos >= prec or epos + esize > prec or mpos + msize > prec:
                return "its numbers' exponent or mantissa pass their bits"
            # vibro writes IEEE binary64 (and binary32) only; h5py maps any
            # other layout (an exponent bias of 511, say) to numpy's long
            # double, whose conversion aborted in glibc (v2-711)
            ieee = {8: ((63, 52, 11, 0, 52), 1023), 4: ((31, 23, 8, 0, 23), 127)}.get(size)
            if (ieee is None or off != 0 or (spos, epos, esize, mpos, msize) != ieee[0]
                    or t.get_ebias() != ieee[1] or t.get_norm() != h5t.NORM_IMPLIED):
                return "its numbers are not IEEE floating point"
    if cls == h5t.COMPOUND:
        n, size = t.get_nmembers(), t.get_size()
        if depth > 2:
            return "cannot read its columns"
        for i in range(n):
            m = t.get_member_type(i)
            at, msz = t.get_member_offset(i), m.get_size()
            if msz == 0 or at > size or msz > size - at:
                return "a column passes its rows"
            wrong = type_wrong(m, depth + 1)
            if wrong:
                return wrong
    return None
