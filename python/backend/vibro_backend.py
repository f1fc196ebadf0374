"""The PEP 517 backend of the vibro package: setuptools', run in a
temporary copy of python/ so that a build leaves nothing (build/,
vibro.egg-info/) in the source tree, with the engine built first.

`pip install ./python` and `pip wheel ./python` call build_wheel here
(`pip install -e ./python` build_editable: the package imported from
python/, with its build tree's library);
setup.py's build_py then puts libvibro.so.0 into the package (vibro/), so
that the installed package loads its own engine with no variable set
(python/vibro/_lib.py).  Where the library comes from is setup.py's
engine(): the configured source tree's own build (`make lib/libvibro.la`
there), the configured build tree named by the config setting
`build-dir` (pip's `-C build-dir=DIR`, for a VPATH build), else a fresh
configure and make of the source tree in a temporary directory.
"""

import base64
import contextlib
import hashlib
import os
import shutil
import tempfile
import zipfile

from setuptools import build_meta as _setuptools

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))   # python/
TOP = os.path.dirname(HERE)                                            # the source tree


@contextlib.contextmanager
def _copy(config_settings):
    """A temporary copy of python/ (without what a build writes) as the
    current directory; the source tree and the build directory to use in
    the environment of setup.py."""
    old_cwd, old_env = os.getcwd(), dict(os.environ)
    tmp = tempfile.mkdtemp(prefix="vibro-build-")
    try:
        src = os.path.join(tmp, "python")
        shutil.copytree(HERE, src, ignore=shutil.ignore_patterns(
            "build", "*.egg-info", "__pycache__", ".pytest_cache", "dist"))
        os.environ["VIBRO_SOURCE_TREE"] = TOP
        build = (config_settings or {}).get("build-dir")
        if build:
            os.environ["VIBRO_BUILD_DIR"] = os.path.abspath(build)
        os.chdir(src)
        yield
    finally:
        os.chdir(old_cwd)
        os.environ.clear()
        os.environ.update(old_env)
        shutil.rmtree(tmp, ignore_errors=True)


def get_requires_for_build_wheel(config_settings=None):
    with _copy(config_settings):
        return _setuptools.get_requires_for_build_wheel(None)


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    with _copy(config_settings):
        return _setuptools.prepare_metadata_for_build_wheel(metadata_directory, None)


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    wheel_directory = os.path.abspath(wheel_directory)
    with _copy(config_settings):
        return _setuptools.build_wheel(wheel_directory, None, metadata_directory)


def get_requires_for_build_editable(config_settings=None):
    return get_requires_for_build_wheel(config_settings)


def prepare_metadata_for_build_editable(metadata_directory, config_settings=None):
    return prepare_metadata_for_build_wheel(metadata_directory, config_settings)


def _record_line(name, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return "%s,sha256=%s,%d\n" % (name, digest, len(data))


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    """`pip install -e ./python`: a wheel holding only a .pth naming
    python/, so that the package is imported from the source tree and
    loads the library of its build tree (make there first; nothing is
    built or written here)."""
    wheel_directory = os.path.abspath(wheel_directory)
    tmp = tempfile.mkdtemp(prefix="vibro-editable-")
    try:
        if metadata_directory is None:
            metadata_directory = tmp
            info = prepare_metadata_for_build_wheel(tmp, config_settings)
        else:
            info = os.path.basename(os.path.normpath(metadata_directory))
            metadata_directory = os.path.dirname(os.path.normpath(metadata_directory))
        version = info[:-len(".dist-info")].split("-", 1)[1]
        name = "vibro-%s-py3-none-any.whl" % version
        files = {"__editable__.vibro-%s.pth" % version: (HERE + "\n").encode()}
        for f in ("METADATA", "top_level.txt"):
            path = os.path.join(metadata_directory, info, f)
            if os.path.exists(path):
                with open(path, "rb") as fh:
                    files["%s/%s" % (info, f)] = fh.read()
        files["%s/WHEEL" % info] = (b"Wheel-Version: 1.0\nGenerator: vibro_backend\n"
                                    b"Root-Is-Purelib: true\nTag: py3-none-any\n")
        record = "".join(_record_line(n, d) for n, d in files.items()) + \
            "%s/RECORD,,\n" % info
        with zipfile.ZipFile(os.path.join(wheel_directory, name), "w",
                             zipfile.ZIP_DEFLATED) as z:
            for n, d in files.items():
                z.writestr(n, d)
            z.writestr("%s/RECORD" % info, record)
        return name
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def build_sdist(sdist_directory, config_settings=None):
    raise RuntimeError("python/ alone cannot build vibro's engine: make dist in the source "
                       "tree gives the source distribution, and pip install ./python "
                       "(or pip wheel ./python) from it gives the package")
