"""Errors of the scene renderer.

Every error is a :class:`ValueError` (through :class:`companion.errors.DominoError`, so the
command line reports it as bad input with exit status 2) whose message names the input, what is
wrong with it and what would be right.
"""

from __future__ import annotations

from companion.errors import DominoError


class RenderSpecError(DominoError):
    """A scene specification (or a constraint for drawing one) that cannot be rendered."""
