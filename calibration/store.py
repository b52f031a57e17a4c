"""Versioned, atomic storage of calibration and settings files (JSON, never pickle).

Every file is a JSON object with a ``"kind"`` (what it holds, e.g. ``"table-calibration"``) and a
``"version"`` (an integer). Writes are atomic: the new content goes to a temporary file in the
same folder, is fsynced, and replaces the old file with :func:`os.replace`; the previous content is
kept beside it as ``NAME.prev.json`` (also replaced atomically, before the new file lands), so at
every instant both files are complete.

Reading never crashes on a bad file: :func:`load_versioned` tries the current file, then the
previous one, and reports in :class:`Loaded.problems` what was wrong with each (corrupt JSON, the
wrong kind, an unknown version) and what it fell back to. Callers that have defaults use them when
``Loaded.data`` is ``None``.

The default folder is the platform's user data folder for ``domino-companion`` (from
``platformdirs``), overridden by the ``DOMINO_COMPANION_HOME`` environment variable or by a path
argument, so tests always write under ``tmp_path``.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping

from companion.atomic import atomic_write
from companion.errors import DominoError

#: Environment variable that overrides the default data folder.
HOME_ENV = "DOMINO_COMPANION_HOME"


class StoreError(DominoError):
    """A calibration or settings file that cannot be written or read."""


def default_home() -> Path:
    """The folder where calibration lives unless told otherwise.

    ``$DOMINO_COMPANION_HOME`` when set, else the platform's user data folder (for example
    ``~/.local/share/domino-companion`` on Linux).
    """
    env = os.environ.get(HOME_ENV)
    if env:
        return Path(env).expanduser()
    import platformdirs

    return Path(platformdirs.user_data_dir("domino-companion", appauthor=False))


def previous_path(path: Path) -> Path:
    """Where the previous version of ``path`` is kept: ``table.json`` -> ``table.prev.json``."""
    path = Path(path)
    return path.with_name(f"{path.stem}.prev{path.suffix or '.json'}")


def write_atomic(path: str | os.PathLike[str], data: bytes, keep_previous: bool = True) -> Path:
    """Write ``data`` to ``path`` atomically, keeping the old content as ``NAME.prev.EXT``.

    The folder is created if needed. Raises :class:`StoreError` when the folder cannot be written.
    """
    path = Path(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        if keep_previous and path.exists():
            atomic_write(previous_path(path), path.read_bytes())
        atomic_write(path, data)
    except OSError as exc:
        raise StoreError(f"cannot write {path}: {exc.strerror or exc}; "
                         f"choose a folder you can write to (--out DIR or ${HOME_ENV})") from exc
    return path


def save_versioned(path: str | os.PathLike[str], kind: str, version: int,
                   payload: Mapping[str, Any]) -> Path:
    """Save ``payload`` as a JSON object tagged with ``kind`` and ``version``, atomically."""
    doc = {"kind": kind, "version": int(version), **payload}
    text = json.dumps(doc, indent=2, sort_keys=False, allow_nan=False) + "\n"
    return write_atomic(path, text.encode("utf-8"))


@dataclass
class Loaded:
    """What :func:`load_versioned` found.

    ``data`` is the payload (the JSON object without ``kind``), or ``None`` when neither the file
    nor its previous version could be used; ``source`` is ``"current"``, ``"previous"`` or
    ``"none"``; ``problems`` lists, in words, what was wrong and what was done about it.
    """

    data: dict[str, Any] | None
    source: str
    path: Path
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.data is not None


def _read_one(path: Path, kind: str, version: int,
              migrate: Mapping[int, Callable[[dict[str, Any]], dict[str, Any]]]) -> dict[str, Any]:
    """Read and check one file; raise StoreError saying what is wrong."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise StoreError(f"{path} does not exist") from None
    except OSError as exc:
        raise StoreError(f"{path} cannot be read: {exc.strerror or exc}") from None
    try:
        doc = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise StoreError(f"{path} is corrupt (not valid JSON: {exc})") from None
    if not isinstance(doc, dict):
        raise StoreError(f"{path} is corrupt: expected a JSON object, got {type(doc).__name__}")
    if doc.get("kind") != kind:
        held = ("no 'kind' field" if "kind" not in doc
                else f"a file of kind {doc['kind']!r}")
        raise StoreError(f"{path} holds {held}; expected kind {kind!r}")
    got = doc.get("version")
    if not isinstance(got, int) or isinstance(got, bool):
        raise StoreError(f"{path} has no integer 'version' field (got {got!r}); expected {version}")
    while got != version:
        step = migrate.get(got)
        if step is None:
            newer = "newer" if got > version else "older"
            raise StoreError(f"{path} is version {got} ({newer} than this program's {version}) "
                             f"and cannot be converted; run the calibration again")
        doc = step(doc)
        got = int(doc["version"])
    doc = dict(doc)
    doc.pop("kind", None)
    doc.pop("version", None)
    return doc


def load_versioned(path: str | os.PathLike[str], kind: str, version: int,
                   migrate: Mapping[int, Callable[[dict[str, Any]], dict[str, Any]]] | None = None,
                   validate: Callable[[dict[str, Any]], None] | None = None) -> Loaded:
    """Load a versioned file, falling back to its previous version; never raises for bad files.

    ``migrate`` maps an old version number to a function that converts a document of that version
    to the next one. ``validate`` may raise ``ValueError`` to reject a payload whose fields are
    wrong; that counts as corrupt and the previous version is tried.
    """
    path = Path(path)
    problems: list[str] = []
    for source, candidate in (("current", path), ("previous", previous_path(path))):
        try:
            data = _read_one(candidate, kind, version, migrate or {})
            if validate is not None:
                try:
                    validate(data)
                except (ValueError, KeyError, TypeError) as exc:
                    raise StoreError(f"{candidate} has bad content: {exc}") from None
        except StoreError as exc:
            if source == "previous" and not candidate.exists():
                break
            problems.append(str(exc))
            continue
        if problems:
            problems.append(f"using the previous version {candidate}")
        return Loaded(data, source, path, problems)
    if problems:
        problems.append("falling back to defaults")
    return Loaded(None, "none", path, problems)
