"""Atomic file output: a reader sees the old file or the whole new one, never a part."""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path


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


def write_atomic(path: str | os.PathLike, text: str | bytes) -> None:
    """Write to a temporary file beside ``path``, fsync it, then rename it over ``path``."""
    target = Path(path)
    data = text.encode() if isinstance(text, str) else text
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
