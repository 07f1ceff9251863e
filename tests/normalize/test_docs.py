"""docs/normalize.md's file table names every module of the package, so a reader finds each one."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_every_module_is_in_the_docs_file_table():
    table = {line.split("`")[1] for line in (ROOT / "docs" / "normalize.md").read_text().splitlines() if line.startswith("| `")}
    modules = {p.relative_to(ROOT).as_posix() for p in (ROOT / "fedopt" / "normalize").glob("*.py") if p.name != "__init__.py"}
    assert modules - table == set()
    assert {m for m in table if m.startswith("fedopt/normalize/")} - modules == set()  # no stale row
