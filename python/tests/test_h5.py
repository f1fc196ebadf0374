"""vibro._h5: listing links and attributes without libhdf5's table (against
h5py's own listing) and the global heap check of variable-length string
attributes (against what h5py writes and reads), on random files."""

import random

import h5py
import numpy as np
import pytest

from vibro._h5 import _attr_items, _links, check_strings, header_addresses

SEEDS = range(6)


def random_name(rng, used):
    """A new link or attribute name: ASCII, digits, UTF-8, up to 40 characters."""
    alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._:-é漢"
    while True:
        name = "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 40)))
        if name not in used:
            used.add(name)
            return name


@pytest.mark.parametrize("seed", SEEDS)
def test_links_and_attributes_as_h5py_lists_them(tmp_path, seed):
    """_links and _attr_items give h5py's names in h5py's order, for groups
    of 0 to 300 links and objects of 0 to 60 attributes (compact and dense
    storage), with and without creation order tracked, old and new layouts."""
    rng = random.Random(seed)
    path = tmp_path / "links.h5"
    with h5py.File(path, "w", libver=rng.choice(["earliest", "latest"]),
                   track_order=rng.random() < 0.5) as f:
        for k in range(4):
            g = f.create_group("g%d" % k, track_order=rng.random() < 0.5)
            used = set()
            for _ in range(rng.choice([0, 1, 5, 9, 60, 300])):
                name = random_name(rng, used)
                if rng.random() < 0.3:
                    g.create_group(name)
                else:
                    g[name] = np.arange(rng.randint(0, 4))
            used = set()
            for _ in range(rng.choice([0, 1, 8, 9, 60])):
                g.attrs[random_name(rng, used)] = rng.random()
    with h5py.File(path, "r") as f:
        for g in [f] + [f[n] for n in f]:
            assert _links(g) == list(g.keys())
            got = _attr_items(g)
            assert [n for n, _ in got] == list(g.attrs.keys())
            assert all(v == g.attrs[n] for n, v in got)


def string_file(path, rng):
    """A file of random variable-length string attributes (what vibro-2
    wrote): scalars and arrays, empty, long and non-ASCII strings."""
    with h5py.File(path, "w") as f:
        objs = [f] + [f.create_group("g%d" % k) for k in range(rng.randint(1, 6))]
        objs.append(objs[-1].create_dataset("d", data=np.zeros(3)))
        for obj in objs:
            used = set()
            for _ in range(rng.randint(0, 12)):
                n = rng.choice([0, 1, 2, 7, 100, 5000])
                text = "".join(rng.choice("ab é\n漢") for _ in range(n))
                name = random_name(rng, used)
                if rng.random() < 0.3:
                    value = [text[:rng.randint(0, n)] for _ in range(rng.randint(1, 30))]
                    obj.attrs.create(name, value, dtype=h5py.string_dtype())
                else:
                    obj.attrs.create(name, text, dtype=h5py.string_dtype())


def heap_objects(data):
    """(offset of the size field, size) of every object of every global heap
    collection of data, found by its signature (a test file holds no other)."""
    out, g = [], data.find(b"GCOL")
    while g >= 0:
        end, at = g + int.from_bytes(data[g + 8:g + 16], "little"), g + 16
        while end - at >= 16:
            idx, size = int.from_bytes(data[at:at + 2], "little"), int.from_bytes(
                data[at + 8:at + 16], "little")
            if idx:
                out.append((at + 8, size))
            at += 16 + (size + 7) // 8 * 8 if idx else size
        g = data.find(b"GCOL", end)
    return out


@pytest.mark.parametrize("seed", SEEDS)
def test_strings_of_a_sound_file_pass(tmp_path, seed):
    """Every variable-length string h5py wrote passes the check, and h5py
    reads them all back."""
    rng = random.Random(seed)
    path = tmp_path / "strings.h5"
    string_file(path, rng)
    with h5py.File(path, "r") as f:
        check_strings(path, header_addresses(f))
        f.visititems(lambda n, o: [o.attrs[a] for a in o.attrs])


@pytest.mark.parametrize("seed", SEEDS)
def test_a_damaged_heap_object_is_refused(tmp_path, seed):
    """One heap object's size changed (by a flipped bit, or by a few bytes,
    which libhdf5 copies past the string's buffer): ValueError."""
    rng = random.Random(seed)
    path = tmp_path / "strings.h5"
    string_file(path, rng)
    data = bytearray(path.read_bytes())
    objects = heap_objects(bytes(data))
    if not objects:
        pytest.skip("no heap object (every string empty)")
    at, size = rng.choice(objects)
    new = size ^ (1 << rng.randrange(40)) if rng.random() < 0.5 else size + rng.randint(1, 300)
    data[at:at + 8] = new.to_bytes(8, "little")
    path.write_bytes(bytes(data))
    with h5py.File(path, "r") as f:
        addrs = header_addresses(f)
    with pytest.raises(ValueError, match="heap"):
        check_strings(path, addrs)
