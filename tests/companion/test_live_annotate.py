"""The picture the dashboard shows: the live loop's status line stays legible on a tablet."""

from __future__ import annotations

import numpy as np
import pytest

from companion.live import annotate


def _text_box(img: np.ndarray, background: int) -> tuple[int, int, int, int]:
    ys, xs = np.nonzero((img != background).any(axis=2))
    return int(ys.min()), int(ys.max()), int(xs.min()), int(xs.max())


@pytest.mark.parametrize("width, height", [(1280, 720), (1920, 1080), (640, 480)])
def test_the_status_line_grows_with_the_frame(width: int, height: int) -> None:
    """On a 1280-px frame the letters are over 30 px tall, so about 10 px or more where the
    tablet shows the picture 430 px wide; they stay inside the frame."""
    frame = np.full((height, width, 3), 120, np.uint8)
    out = annotate(frame, None, "something is moving over the table")
    y0, y1, x0, x1 = _text_box(out, 120)
    assert (y1 - y0) * 430 / width >= 9.5
    assert x1 < width - 1 and y1 < height // 4
    assert np.array_equal(frame, np.full((height, width, 3), 120, np.uint8))  # not drawn on


def test_a_long_status_line_is_made_smaller_to_fit() -> None:
    frame = np.full((720, 1280, 3), 120, np.uint8)
    out = annotate(frame, None, "the camera stopped sending pictures; trying it again " * 2)
    _, _, x0, x1 = _text_box(out, 120)
    assert x0 > 0 and x1 < 1279


def test_no_message_draws_nothing() -> None:
    frame = np.full((240, 320, 3), 120, np.uint8)
    assert np.array_equal(annotate(frame, None, ""), frame)
