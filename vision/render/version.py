"""Which renderer drew a picture: the last git commit that changed ``vision/render``.

Model cards and rechecks record it, because a model's figures belong to the pictures it was
trained and measured on, and the renderer keeps changing."""

from __future__ import annotations

import subprocess
from pathlib import Path


def renderer_version() -> str:
    """The short hash of the last commit that changed ``vision/render``, with ``+dirty`` when
    that folder has local changes, or ``"unknown (no git)"`` outside a git checkout."""
    root = Path(__file__).resolve().parents[2]
    try:
        commit = subprocess.run(["git", "log", "-1", "--format=%h", "--", "vision/render"],
                                cwd=root, capture_output=True, text=True, check=True).stdout
        dirty = subprocess.run(["git", "status", "--porcelain", "--", "vision/render"],
                               cwd=root, capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return "unknown (no git)"
    return commit.strip() + ("+dirty" if dirty.strip() else "")
