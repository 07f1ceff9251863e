"""The research notebooks in ``notebooks/``: committed without outputs, and every cell runs.

Each notebook is read from its committed file, executed with nbclient (working directory
``notebooks/``, as when a person opens it there) and the executed copy is written to a temporary
folder; the committed file is never touched. The kernel is started from this test's own
interpreter through a kernelspec written into a temporary ``JUPYTER_PATH``, so nothing has to be
installed with ``ipykernel install`` and a user's own kernels do not interfere.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import nbclient
import nbformat
import pytest
from nbclient.exceptions import CellExecutionError

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOK_DIR = ROOT / "notebooks"
NOTEBOOKS = sorted(NOTEBOOK_DIR.glob("*.ipynb"))
EXPECTED = {"quickstart.ipynb", "normalization.ipynb", "scale.ipynb"}

KERNEL_NAME = "fedopt-test-python"
CELL_TIMEOUT = 300  # seconds; each notebook takes well under a minute on two cores
STARTUP_TIMEOUT = 120


def _ids(path: Path) -> str:
    return path.name


@pytest.fixture(scope="module")
def kernel_name(tmp_path_factory):
    """A kernelspec that runs ipykernel under ``sys.executable``, found through ``JUPYTER_PATH``."""
    base = tmp_path_factory.mktemp("jupyter")
    spec_dir = base / "data" / "kernels" / KERNEL_NAME
    spec_dir.mkdir(parents=True)
    spec = {
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": f"Python {sys.version_info.major}.{sys.version_info.minor} (tests)",
        "language": "python",
        "env": {"MPLBACKEND": "Agg"},
    }
    (spec_dir / "kernel.json").write_text(json.dumps(spec, indent=1), encoding="utf-8")
    (base / "ipython").mkdir()
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("JUPYTER_PATH", str(base / "data"))
        mp.setenv("JUPYTER_PLATFORM_DIRS", "1")
        mp.setenv("JUPYTER_CONFIG_DIR", str(base / "config"))  # no user configuration
        mp.setenv("JUPYTER_RUNTIME_DIR", str(base / "runtime"))  # connection files
        mp.setenv("IPYTHONDIR", str(base / "ipython"))  # no user profile or startup files
        mp.setenv("MPLBACKEND", "Agg")
        yield KERNEL_NAME


def test_the_notebooks_are_there():
    missing = EXPECTED - {p.name for p in NOTEBOOKS}
    assert not missing, f"missing notebooks: {sorted(missing)}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=_ids)
def test_committed_without_outputs(path: Path):
    nb = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
    dirty = []
    for i, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        if cell.get("outputs"):
            dirty.append(f"cell {i}: outputs")
        if cell.get("execution_count") is not None:
            dirty.append(f"cell {i}: execution_count {cell['execution_count']}")
        if "execution" in cell.get("metadata", {}):
            dirty.append(f"cell {i}: execution timings in metadata")
    assert not dirty, f"{path.name} must be committed without outputs (clear them first): " + "; ".join(dirty)
    assert nb.metadata.get("kernelspec", {}).get("language", "python") == "python"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=_ids)
def test_runs_without_errors(path: Path, kernel_name: str, tmp_path: Path):
    before = path.read_bytes()
    nb = nbformat.read(path, as_version=4)
    client = nbclient.NotebookClient(
        nb,
        kernel_name=kernel_name,
        timeout=CELL_TIMEOUT,
        startup_timeout=STARTUP_TIMEOUT,
        allow_errors=False,
        resources={"metadata": {"path": str(NOTEBOOK_DIR)}},
    )
    t0 = time.perf_counter()
    try:
        client.execute()
    except CellExecutionError as exc:
        pytest.fail(f"{path.name}: a cell failed\n{exc}", pytrace=False)
    finally:
        nbformat.write(nb, tmp_path / path.name)  # the executed copy, outputs and all
    seconds = time.perf_counter() - t0
    print(f"{path.name}: executed in {seconds:.1f} s -> {tmp_path / path.name}")

    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", []) if o.get("output_type") == "error"]
    assert not errors
    ran = [c for c in nb.cells if c.cell_type == "code"]
    assert ran and all(c.get("execution_count") for c in ran), "every code cell ran"
    assert path.read_bytes() == before, "executing must not change the committed file"
