"""Atomic writes keep the permissions a reader expects (mkstemp alone makes 0600 files)."""

import os
import stat

from fedopt.atomic import write_atomic


def test_new_file_gets_the_umask_mode(tmp_path):
    old = os.umask(0o022)
    try:
        write_atomic(tmp_path / "plan.json", "{}")
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "plan.json").stat().st_mode) == 0o644
    assert (tmp_path / "plan.json").read_text() == "{}"


def test_replaced_file_keeps_its_mode(tmp_path):
    path = tmp_path / "out.csv"
    path.write_text("old")
    path.chmod(0o640)
    write_atomic(path, b"new")
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    assert path.read_bytes() == b"new"
    assert [p.name for p in tmp_path.iterdir()] == ["out.csv"]  # no temporary file left
