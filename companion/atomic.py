"""Atomic file writes: the one way the companion replaces a file on disk.

The data goes to a temporary file in the same folder, is flushed and fsynced, then replaces the
target with :func:`os.replace`, and the folder itself is fsynced. A reader sees the old file or
the new one, never a half-written one, and a crash at any instant leaves one of the two.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def fsync_dir(folder: str | os.PathLike[str]) -> None:
    """Make a rename inside ``folder`` durable (a no-op where folders cannot be opened)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def atomic_write(path: str | os.PathLike[str], data: bytes | str, mode: int = 0o644) -> Path:
    """Replace ``path`` with ``data`` atomically (text is written as UTF-8); the file gets
    permissions ``mode`` (0o600 for secrets). The folder must exist."""
    path = Path(path)
    payload = data.encode("utf-8") if isinstance(data, str) else data
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        if hasattr(os, "fchmod"):
            os.fchmod(fd, mode)
        with os.fdopen(fd, "wb") as fh:
            fh.write(payload)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    fsync_dir(path.parent)
    return path
