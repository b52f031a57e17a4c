"""Drawing ground truth over a rendered picture, to check it by eye (``render --overlay``)."""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np


def draw_truth(image_bgr: np.ndarray, truth: dict[str, Any]) -> np.ndarray:
    """A copy of ``image_bgr`` with the ground truth drawn on it: each tile's outline (the
    first half's outer edge red, the second's green, a readable tile white-on-black label with
    its halves in corner order, or grey when the reader need not report it), marker corners
    (blue, corner 0 filled) and hand polygons (magenta)."""
    overlay_bgr = image_bgr.copy()
    for t in truth["tiles"]:
        c = np.array(t["corners"], np.float64)
        p = np.round(c).astype(np.int32)
        readable = t["face_up"] and t["visible"] >= 0.9 and not t["cut"]
        cv2.polylines(overlay_bgr, [p], True, (255, 255, 0) if readable else (128, 128, 128), 1,
                      cv2.LINE_AA)
        cv2.line(overlay_bgr, tuple(p[0]), tuple(p[1]), (0, 0, 255), 2, cv2.LINE_AA)
        cv2.line(overlay_bgr, tuple(p[2]), tuple(p[3]), (0, 255, 0), 2, cv2.LINE_AA)
        label = f"{t['halves'][0]}|{t['halves'][1]}" + (f" L{t['layer']}" if t["layer"] else "")
        if not t["face_up"]:
            label = "down"
        org = (int(t["center"][0]) - 12, int(t["center"][1]) + 4)
        cv2.putText(overlay_bgr, label, org, cv2.FONT_HERSHEY_SIMPLEX, 0.4, (0, 0, 0), 3,
                    cv2.LINE_AA)
        cv2.putText(overlay_bgr, label, org, cv2.FONT_HERSHEY_SIMPLEX, 0.4,
                    (255, 255, 255) if readable else (160, 160, 160), 1, cv2.LINE_AA)
    for m in truth.get("markers", []):
        p = np.round(np.array(m["corners"])).astype(np.int32)
        cv2.polylines(overlay_bgr, [p], True, (255, 0, 0), 2, cv2.LINE_AA)
        cv2.circle(overlay_bgr, tuple(p[0]), 4, (255, 0, 0), -1)
    for poly in truth.get("hands", []):
        p = np.round(np.array(poly)).astype(np.int32)
        cv2.polylines(overlay_bgr, [p], True, (255, 0, 255), 2, cv2.LINE_AA)
    return overlay_bgr
