"""What each tile rests on: the ground truth ``supports`` of stacked tiles."""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np

from vision.render.layouts import Placement
from vision.render.tiles import TileGeometry

#: A tile rests on a tile of the layer below when their footprints share more than this
#: fraction of a tile's top area.
SUPPORT_MIN_FRACTION = 0.02


def supports_of(placements: Sequence[Placement],
                geom: TileGeometry) -> list[tuple[int, ...]]:
    """For each placement, the indices of the placements of the layer just below whose
    footprints overlap its own (what it rests on); ``()`` on the table."""
    fps = [p.footprint(geom).astype(np.float32) for p in placements]
    min_area = SUPPORT_MIN_FRACTION * geom.length_mm * geom.width_mm
    out: list[tuple[int, ...]] = []
    for i, p in enumerate(placements):
        if p.layer == 0:
            out.append(())
            continue
        below = []
        for j, q in enumerate(placements):
            if q.layer != p.layer - 1:
                continue
            area, _ = cv2.intersectConvexConvex(fps[i], fps[j])
            if area > min_area:
                below.append(j)
        out.append(tuple(below))
    return out
