"""Atomic file output: a reader sees the old file or the whole new one, never a part."""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

from fedopt.errors import InputError


def _mode_for(target: Path) -> int:
    """The replaced file's permissions, else what a plain ``open`` would give (0666 less the umask):
    ``mkstemp`` makes 0600 files, which other users and tools (a cron job's readers) cannot read."""
    try:
        return target.stat().st_mode & 0o7777
    except OSError:
        return 0o666 & ~_umask()


def _umask() -> int:
    """The process umask, read without setting it where the system shows it (setting it is not
    thread-safe: another thread could create a file in between)."""
    with contextlib.suppress(OSError, ValueError):
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    umask = os.umask(0o022)
    os.umask(umask)
    return umask


def check_writable(path: str | os.PathLike, flag: str) -> None:
    """Refuse an output file that cannot be written before the work, not after a long solve or fit:
    its folder missing or not a folder, a folder in its place, no permission. Raises ``InputError``
    naming ``flag`` (exit status 2)."""
    target = Path(path)
    folder = target.parent
    if target.is_dir():
        raise InputError(flag, f"{str(path)!r} is a folder; give a file name")
    if not folder.exists():
        raise InputError(flag, f"folder {str(folder)!r} does not exist")
    if not folder.is_dir():
        raise InputError(flag, f"{str(folder)!r} is not a folder")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise InputError(flag, f"cannot write in {str(folder)!r}: permission denied")


def check_folder(path: str | os.PathLike, flag: str) -> None:
    """Refuse an output folder that cannot be made or written: a file in its place, or no permission
    where it would be created (``mkdir(parents=True)`` makes the missing part)."""
    folder = Path(path)
    existing = folder
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    if not existing.is_dir():
        where = "is" if existing == folder else f"is under {str(existing)!r}, which is"
        raise InputError(flag, f"{str(path)!r} {where} a file, not a folder")
    if not os.access(existing, os.W_OK | os.X_OK):
        raise InputError(flag, f"cannot write in {str(existing)!r}: permission denied")


def write_atomic(path: str | os.PathLike, text: str | bytes) -> None:
    """Write to a temporary file beside ``path``, fsync it, then rename it over ``path``. A path that
    cannot be written raises ``InputError`` (no traceback); commands call ``check_writable`` first."""
    target = Path(path)
    data = text.encode() if isinstance(text, str) else text
    try:
        _write(target, data)
    except OSError as exc:
        raise InputError(str(path), f"cannot write: {exc.strerror or exc}") from None


def _write(target: Path, data: bytes) -> None:
    if target.is_dir():
        raise IsADirectoryError(21, "is a folder")
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent or ".")
    try:
        os.fchmod(fd, _mode_for(target))
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
