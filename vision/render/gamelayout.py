"""Layouts from simulated games (filled in when the rules-core simulator is available)."""

from __future__ import annotations


def available() -> bool:
    """Whether the rules core's simulator can be used as a value source."""
    return False
