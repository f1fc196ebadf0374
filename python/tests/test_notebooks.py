"""The notebooks in examples/ run top to bottom (small, VIBRO_QUICK=1) in a
fresh kernel of this Python, each in a directory of its own; a cell that
raises, an assertion in it included, fails the test."""

import os
import shutil

import pytest

from conftest import TOP

NOTEBOOKS = ["cor_study", "rattle_map", "listen"]


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_notebook(name, tmp_path, monkeypatch):
    nbformat = pytest.importorskip("nbformat", reason="python3-nbformat (tools/setup.sh)")
    nbclient = pytest.importorskip("nbclient", reason="python3-nbclient (tools/setup.sh)")
    pytest.importorskip("ipykernel", reason="python3-ipykernel (tools/setup.sh)")
    work = tmp_path / "examples"
    work.mkdir()
    shutil.copy(os.path.join(TOP, "examples", name + ".ipynb"), work)
    os.symlink(os.path.join(TOP, "scenes"), tmp_path / "scenes")
    monkeypatch.setenv("VIBRO_QUICK", "1")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(
        [os.path.join(TOP, "python")] + [p for p in os.environ.get("PYTHONPATH", "").split(
            os.pathsep) if p]))
    nb = nbformat.read(str(work / (name + ".ipynb")), as_version=4)
    client = nbclient.NotebookClient(nb, timeout=600, kernel_name="python3",
                                     resources={"metadata": {"path": str(work)}})
    client.execute()
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])
              if o.get("output_type") == "error"]
    assert not errors, errors
