"""setup.py of the vibro package: setuptools' build with the engine.

build_py puts libvibro.so.0 into the package directory (vibro/), where
python/vibro/_lib.py looks for it first, so that a package installed by
pip carries its engine and finds it with no variable set.  The library is
the one the autotools build of the source tree makes (engine()); the
wheel is tagged for this platform (it holds machine code) but for any
Python 3 (the library is loaded through ctypes, not as an extension).
Run through python/backend/vibro_backend.py (pyproject.toml), which
builds in a temporary copy of python/.
"""

import os
import shutil
import subprocess
import tempfile

from setuptools import Distribution, setup
from setuptools.command.build_py import build_py

LIBRARY = "libvibro.so.0"


def source_tree():
    """The vibro source tree this python/ belongs to."""
    return os.environ.get("VIBRO_SOURCE_TREE") or \
        os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _is_tree(d):
    return os.path.isfile(os.path.join(d, "configure.ac")) and \
        os.path.isfile(os.path.join(d, "lib", "vibro.h"))


def _jobs():
    return str(max(1, min(os.cpu_count() or 1, 8)))


def _step(what, cmd, cwd, log):
    """Run one build command, its output into the log; a failure names the
    command, the directory and the log's last lines."""
    log.write("$ (cd %s && %s)\n" % (cwd, " ".join(cmd)))
    log.flush()
    env = dict(os.environ)
    env.pop("MAKEFLAGS", None)          # a jobserver of pip's caller is not ours
    env.pop("MFLAGS", None)
    r = subprocess.run(cmd, cwd=cwd, stdout=log, stderr=subprocess.STDOUT,
                       stdin=subprocess.DEVNULL, env=env)
    if r.returncode != 0:
        log.flush()
        with open(log.name, errors="replace") as fh:
            tail = "".join(fh.readlines()[-25:])
        raise SystemExit("vibro: building libvibro failed (%s: `%s` in %s exited %d):\n%s"
                         % (what, " ".join(cmd), cwd, r.returncode, tail))


def engine(tmp, log):
    """The path of a libvibro.so.0 built from the source tree: in its
    configured build tree ($VIBRO_BUILD_DIR, the backend's build-dir; else
    the source tree itself when it is configured), brought up to date with
    `make lib/libvibro.la`; else configured and made afresh in tmp (after
    autoreconf in a copy of the tree when it has no configure script)."""
    tree = source_tree()
    if not _is_tree(tree):
        raise SystemExit("vibro: %s is not vibro's source tree (no configure.ac and "
                         "lib/vibro.h beside python/): run pip install on the python/ "
                         "directory of a vibro source tree" % tree)
    build = os.environ.get("VIBRO_BUILD_DIR")
    if not build and os.path.isfile(os.path.join(tree, "config.status")):
        build = tree
    if build:
        if not os.path.isfile(os.path.join(build, "config.status")):
            raise SystemExit("vibro: build-dir %s is not a configured vibro build tree "
                             "(no config.status)" % build)
        _step("make", ["make", "-j" + _jobs(), "lib/libvibro.la"], build, log)
        return os.path.join(build, "lib", ".libs", LIBRARY)
    src = tree
    if not os.path.isfile(os.path.join(tree, "configure")):
        src = os.path.join(tmp, "src")
        shutil.copytree(tree, src, symlinks=True, ignore=shutil.ignore_patterns(
            ".git", "autom4te.cache", "*.h5", "*.h5.part", "__pycache__", "build",
            "*.egg-info"))
        _step("autoreconf", ["autoreconf", "-fi"], src, log)
    out = os.path.join(tmp, "build")
    os.mkdir(out)
    _step("configure", [os.path.join(src, "configure"), "--quiet"], out, log)
    _step("make", ["make", "-j" + _jobs(), "lib/libvibro.la"], out, log)
    return os.path.join(out, "lib", ".libs", LIBRARY)


class build_py_engine(build_py):
    """build_py, then libvibro.so.0 into the built package."""

    def run(self):
        super().run()
        target = os.path.join(self.build_lib, "vibro", LIBRARY)
        tmp = tempfile.mkdtemp(prefix="vibro-engine-")
        try:
            with open(os.path.join(tmp, "build.log"), "w") as log:
                built = engine(tmp, log)
            if not os.path.isfile(built):
                raise SystemExit("vibro: the build made no %s" % built)
            self.mkpath(os.path.dirname(target))
            shutil.copyfile(os.path.realpath(built), target)
            os.chmod(target, 0o755)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        self.engine = target

    def get_outputs(self, include_bytecode=1):
        return super().get_outputs(include_bytecode) + \
            [os.path.join(self.build_lib, "vibro", LIBRARY)]


class EngineDistribution(Distribution):
    """A distribution holding machine code: installed as platform files
    (platlib), in a wheel whose root is not pure."""

    def has_ext_modules(self):
        return True


cmdclass = {"build_py": build_py_engine}
try:
    try:
        from setuptools.command.bdist_wheel import bdist_wheel    # setuptools 70.1 on
    except ImportError:
        from wheel.bdist_wheel import bdist_wheel

    class bdist_wheel_engine(bdist_wheel):
        """A wheel for this platform and any Python 3 (py3-none-PLATFORM)."""

        def get_tag(self):
            return ("py3", "none", super().get_tag()[2])

    cmdclass["bdist_wheel"] = bdist_wheel_engine
except ImportError:
    pass

setup(cmdclass=cmdclass, distclass=EngineDistribution)
