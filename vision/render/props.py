"""Things on the table that are not tiles: a mug, a can, a phone, a score pad.

At a game night people put their drinks, phones and score pads down on the table, often over
part of the tiles. :class:`PropSpec` says what lies where (table millimetres); this module gives
its solid shape (:func:`prop_outlines`: the outline of its base on the table and of its top at
its height) and its look; :func:`vision.render.scene.render_scene` draws it over the tiles, with
its side walls and its soft shadow, and counts it as hiding what it covers (``visible`` of the
tiles under it; ``props`` in the ground truth).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from vision.render.errors import RenderSpecError

#: Each kind's shape: ``round`` (a cylinder: diameter, height) or ``box`` (length, width,
#: height), millimetres.
PROP_KINDS: dict[str, tuple[str, tuple[float, ...]]] = {
    "mug": ("round", (84.0, 95.0)),
    "can": ("round", (66.0, 115.0)),
    "phone": ("box", (152.0, 72.0, 8.0)),
    "pad": ("box", (148.0, 105.0, 4.0)),
}
#: Points round a cylinder's rim.
_ROUND_POINTS = 48


@dataclass(frozen=True)
class PropSpec:
    """One thing lying on the table: ``kind`` (a key of :data:`PROP_KINDS`) centred at
    ``center_mm`` (table millimetres), turned ``angle_deg``; ``colour_bgr`` is its body's colour
    (a mug's glaze, a can's paint, a phone's case; a pad's paper is white whatever it says)."""

    kind: str
    center_mm: tuple[float, float]
    angle_deg: float = 0.0
    colour_bgr: tuple[int, int, int] = (60, 60, 160)

    def check(self) -> None:
        """Raise :class:`RenderSpecError` when the prop cannot be drawn."""
        if self.kind not in PROP_KINDS:
            raise RenderSpecError(f"prop kind {self.kind!r} is unknown; use one of "
                                  f"{sorted(PROP_KINDS)}")
        if not all(math.isfinite(v) for v in (*self.center_mm, self.angle_deg)):
            raise RenderSpecError(f"prop {self.kind} at {self.center_mm!r}, angle "
                                  f"{self.angle_deg!r}: use finite millimetres and degrees")

    @property
    def height_mm(self) -> float:
        """How high its top lies above the table."""
        shape, dims = PROP_KINDS[self.kind]
        return dims[1] if shape == "round" else dims[2]


def prop_outlines(prop: PropSpec, inset_mm: float = 0.0) -> np.ndarray:
    """The outline of the prop's top (the same as its base's), in table millimetres (N x 2),
    shrunk by ``inset_mm`` (a mug's rim, a phone's bezel)."""
    shape, dims = PROP_KINDS[prop.kind]
    cx, cy = prop.center_mm
    if shape == "round":
        r = max(1.0, dims[0] / 2 - inset_mm)
        a = np.linspace(0.0, 2 * math.pi, _ROUND_POINTS, endpoint=False)
        return np.column_stack([cx + r * np.cos(a), cy + r * np.sin(a)])
    hl, hw = max(1.0, dims[0] / 2 - inset_mm), max(1.0, dims[1] / 2 - inset_mm)
    return _placed(prop, np.array([[-hl, -hw], [hl, -hw], [hl, hw], [-hl, hw]]))


def seen_outlines(prop: PropSpec, cam: Any) -> tuple[np.ndarray, np.ndarray]:
    """The outlines of the prop's base and of its top as the camera ``cam`` (a
    :class:`vision.render.camera.Camera`) sees them, in undistorted pixels (N x 2 each): the
    top lies further out, in perspective."""
    base = prop_outlines(prop)
    return (_through(cam.plane_homography(0.0), base),
            _through(cam.plane_homography(prop.height_mm), base))


def _through(homography: np.ndarray, pts: np.ndarray) -> np.ndarray:
    """Table points (N x 2 mm) through a plane's homography to pixels."""
    p = np.column_stack([pts, np.ones(len(pts))]) @ homography.T
    return p[:, :2] / p[:, 2:3]


def _placed(prop: PropSpec, local: np.ndarray) -> np.ndarray:
    """Points in the prop's own millimetres (N x 2) turned and moved to where it lies."""
    t = math.radians(prop.angle_deg)
    rot = np.array([[math.cos(t), -math.sin(t)], [math.sin(t), math.cos(t)]])
    return local @ rot.T + np.asarray(prop.center_mm)


def pad_lines(prop: PropSpec, every_mm: float = 8.0) -> list[tuple[np.ndarray, np.ndarray]]:
    """A score pad's ruled lines (table mm end points), across its width, every ``every_mm``."""
    _, dims = PROP_KINDS["pad"]
    hl, hw = dims[0] / 2, dims[1] / 2
    out = []
    for x in np.arange(-hl + 18.0, hl - 4.0, every_mm):
        ends = _placed(prop, np.array([[x, -hw + 4.0], [x, hw - 4.0]]))
        out.append((ends[0], ends[1]))
    return out
