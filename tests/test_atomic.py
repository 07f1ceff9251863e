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


def test_unwritable_paths_raise_input_error_naming_the_flag(tmp_path):
    import pytest

    from fedopt.atomic import check_folder, check_writable
    from fedopt.errors import InputError

    (tmp_path / "a.csv").write_text("x")
    with pytest.raises(InputError, match=r"--out: folder '.*missing' does not exist"):
        check_writable(tmp_path / "missing" / "p.csv", "--out")
    with pytest.raises(InputError, match="is a folder; give a file name"):
        check_writable(tmp_path, "--out")
    with pytest.raises(InputError, match="is not a folder"):
        check_writable(tmp_path / "a.csv" / "p.csv", "--out")
    with pytest.raises(InputError, match=r"is under .*a\.csv', which is a file"):
        check_folder(tmp_path / "a.csv" / "sub", "--plots")
    with pytest.raises(InputError, match="is a file, not a folder"):
        check_folder(tmp_path / "a.csv", "--plots")
    check_writable(tmp_path / "new.csv", "--out")  # a new file in an existing folder
    check_folder(tmp_path / "new" / "deeper", "--plots")  # made with its parents
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.csv"]  # checking writes nothing


def test_write_atomic_reports_an_unwritable_path_without_oserror(tmp_path):
    import pytest

    from fedopt.errors import InputError

    with pytest.raises(InputError, match="cannot write"):
        write_atomic(tmp_path / "missing" / "plan.json", "{}")
    with pytest.raises(InputError, match="cannot write: is a folder"):
        write_atomic(tmp_path, "{}")
    assert list(tmp_path.iterdir()) == []
