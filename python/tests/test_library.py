"""Where the package loads libvibro from (python/vibro/_lib.py): $VIBRO_LIB,
its own directory, the prefix make install recorded, the build tree of
the checkout it is imported from, the system loader; never the lib/ of a
directory above it, nor a directory another user can write (issue 32)."""

import os
import shutil
import subprocess
import sys

import pytest

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))

# A library that says it was loaded: its constructor creates $PLANTED_MARK.
PLANTED = r"""
#include <stdio.h>
#include <stdlib.h>
__attribute__((constructor)) static void
planted(void)
{
  const char *mark = getenv("PLANTED_MARK");
  FILE *f = mark ? fopen(mark, "w") : NULL;
  if (f)
    fclose(f);
}
"""


@pytest.fixture
def planted(tmp_path):
    cc = shutil.which(os.environ.get("CC", "cc")) or shutil.which("gcc")
    if not cc:
        pytest.skip("no C compiler to build the planted library")
    src = tmp_path / "planted.c"
    src.write_text(PLANTED)
    lib = tmp_path / "planted.so"
    subprocess.run([cc, "-shared", "-fPIC", "-o", str(lib), str(src)], check=True)
    return lib


def checkout(root):
    """An unbuilt checkout at root: configure.ac, lib/vibro.h and the
    package in python/vibro, no library."""
    (root / "lib").mkdir(parents=True)
    shutil.copy(os.path.join(TOP, "configure.ac"), root / "configure.ac")
    shutil.copy(os.path.join(TOP, "lib", "vibro.h"), root / "lib" / "vibro.h")
    shutil.copytree(os.path.join(TOP, "python", "vibro"), root / "python" / "vibro",
                    ignore=shutil.ignore_patterns("__pycache__", "libvibro.so*", "_installed.py"))
    return root


def plant(lib, directory):
    directory.mkdir(parents=True, exist_ok=True)
    for name in ("libvibro.so.0", "libvibro.so"):
        shutil.copy(lib, directory / name)


def load(tree, mark):
    """Import the checkout's package in a fresh Python, no $VIBRO_LIB:
    (loaded, the message of the VibroError or '')."""
    env = {k: v for k, v in os.environ.items() if k not in ("VIBRO_LIB", "PYTHONPATH")}
    env.update(PYTHONPATH=str(tree / "python"), PLANTED_MARK=str(mark),
               PYTHONDONTWRITEBYTECODE="1")
    r = subprocess.run([sys.executable, "-c", "from vibro import _lib\n"
                        "try:\n    _lib.library()\n    print('LOADED')\n"
                        "except Exception as e:\n    print(e)"],
                       capture_output=True, text=True, env=env, cwd=str(tree.parent))
    assert r.returncode == 0, r.stderr
    return r.stdout.strip()


def test_ancestor_lib_not_loaded(tmp_path, planted):
    """A library planted in lib/ and lib64/ of every directory above the
    package is not loaded (its constructor does not run), and the error
    names the one thing to do; planted in the build tree it is loaded,
    so the mark would show a load."""
    tree = checkout(tmp_path / "a" / "b" / "src")
    for d in (tmp_path, tmp_path / "a", tmp_path / "a" / "b", tree, tree / "python"):
        for sub in ("lib", "lib64", os.path.join("lib", "x86_64-linux-gnu")):
            plant(planted, d / sub)
    mark = tmp_path / "loaded"
    said = load(tree, mark)
    assert not mark.exists(), "a library planted above the package was loaded"
    assert ("no libvibro for the vibro package in %s: build the source tree it is in: cd %s "
            "&& autoreconf -fi && ./configure && make (tried " % (tree / "python" / "vibro", tree)
            ) in said, said
    # the places tried: 3, not 38
    assert said.endswith("(tried the package, %s: none; the build tree, %s: none; the system "
                         "loader, libvibro.so.0: none; vibro.run(..., inprocess=False) runs the "
                         "vibro program instead)" % (tree / "python" / "vibro" / "libvibro.so.0",
                                                     tree / "lib" / ".libs" / "libvibro.so.0")), said
    plant(planted, tree / "lib" / ".libs")
    said = load(tree, mark)
    assert mark.exists(), "the build tree's library was not tried"
    assert "an older libvibro, without vb_version" in said, said


def test_library_others_can_write_refused(tmp_path, planted):
    """The build tree's library in a directory every user can write (or
    below one, without the sticky bit) is refused before it is loaded,
    the message naming the directory and the chmod that fixes it; the
    same directory made private loads."""
    tree = checkout(tmp_path / "src")
    libs = tree / "lib" / ".libs"
    plant(planted, libs)
    mark = tmp_path / "loaded"
    for open_dir in (libs, tree):
        os.chmod(open_dir, 0o777)
        said = load(tree, mark)
        assert not mark.exists(), "a library others could replace was loaded"
        assert ": make %s writable only by you and root: chmod go-w %s (tried" % (
            open_dir, open_dir) in said, said
        assert "refused, %s is writable by every user" % open_dir in said, said
        os.chmod(open_dir, 0o755)
    os.chmod(tree, 0o1777)              # sticky, as /tmp: nobody else can replace lib/
    assert "an older libvibro" in load(tree, mark) and mark.exists()


def test_vibro_lib_alone(tmp_path):
    """$VIBRO_LIB, when set, is the only place tried."""
    env = dict(os.environ, VIBRO_LIB=str(tmp_path / "nolib.so"),
               PYTHONPATH=os.path.join(TOP, "python"))
    r = subprocess.run([sys.executable, "-c", "from vibro import _lib\n"
                        "print(_lib.candidates())\nprint(_lib.available())"],
                       capture_output=True, text=True, env=env)
    assert r.stdout.split("\n")[:2] == ["[('$VIBRO_LIB', %r)]" % str(tmp_path / "nolib.so"),
                                         "False"], r.stdout + r.stderr
