"""Reading a request's JSON body strictly: the one way every POST route reads it.

Python's JSON reader takes ``NaN``, ``Infinity`` and numbers too large for a float (``1e999``,
read as infinity), none of which is JSON: stored in a log entry they would make every later
state the dashboard sends invalid JSON, which the page cannot read. A body nested deeper than
the reader can follow would raise a ``RecursionError``. Both are refused with
:class:`BodyError` (answered 400 by :mod:`web_ui.api`'s handler) naming what was wrong.
"""

from __future__ import annotations

import json
import math
from typing import Any

from flask import request


class BodyError(ValueError):
    """A JSON body the API refuses (the message says why and what is expected)."""


def _constant(name: str) -> Any:
    raise BodyError(f"numbers in the request body must be finite; got {name} (not JSON)")


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise BodyError(f"numbers in the request body must be finite; got {text[:40]}, too large "
                        "for a number")
    return value


def json_body() -> Any:
    """The request's JSON body, or None when it is not JSON (no ``application/json``
    Content-Type, or text that does not parse: each route then says what it expects).
    Raises :class:`BodyError` for non-finite numbers and for nesting too deep to read."""
    if not request.is_json:
        return None
    text = request.get_data(cache=True, as_text=True)
    try:
        return json.loads(text, parse_constant=_constant, parse_float=_finite)
    except BodyError:
        raise
    except RecursionError:
        raise BodyError("the request body is nested too deeply to read; a log entry is an object "
                        "a few levels deep") from None
    except ValueError:
        return None
