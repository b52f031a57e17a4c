"""Calibration's own synthetic views of a table with the four markers (for tests and the bench).

This is *not* the project's scene renderer (``vision.render``): it composites a flat, seeded
wood-like table texture with the four printed markers and warps it into a pinhole camera with
``cv2.warpPerspective``, with exactly known ground truth (the table->image homography and the
camera pose). It uses the same table frame as the renderer (``z`` into the table) and the same
camera conventions (height, tilt from straight down, rotation about the vertical, target point).
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from calibration.markers import MARKER_IDS, marker_image
from calibration.plane import MarkerLayout


@dataclass(frozen=True)
class SynthCamera:
    """A pinhole camera (no distortion) placed like the renderer's ``CameraSpec``."""

    height_mm: float = 700.0
    tilt_deg: float = 0.0
    rotation_deg: float = 0.0
    hfov_deg: float = 65.0
    target_mm: tuple[float, float] = (300.0, 300.0)
    image_size: tuple[int, int] = (1280, 720)

    def matrices(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(K, R, t) with ``X_cam = R X_table + t``."""
        w, h = self.image_size
        f = (w / 2) / np.tan(np.deg2rad(self.hfov_deg) / 2)
        K = np.array([[f, 0, w / 2], [0, f, h / 2], [0, 0, 1]], np.float64)
        r, t = np.deg2rad(self.rotation_deg), np.deg2rad(self.tilt_deg)
        down = np.array([-np.sin(r), np.cos(r), 0.0])
        target = np.array([self.target_mm[0], self.target_mm[1], 0.0])
        C = target + self.height_mm * np.tan(t) * down + np.array([0, 0, -self.height_mm])
        fwd = (target - C) / np.linalg.norm(target - C)
        x = np.cross(down, fwd)
        x /= np.linalg.norm(x)
        y = np.cross(fwd, x)
        R = np.stack([x, y, fwd])
        return K, R, -R @ C

    def table_to_image(self, z_mm: float = 0.0) -> np.ndarray:
        K, R, t = self.matrices()
        H = K @ np.column_stack([R[:, 0], R[:, 1], t - R[:, 2] * z_mm])
        return H / H[2, 2]


@dataclass(frozen=True)
class SynthView:
    image_bgr: np.ndarray
    table_to_image: np.ndarray
    camera: SynthCamera
    layout: MarkerLayout
    marker_corners_px: dict[int, np.ndarray]


def table_texture(layout: MarkerLayout, px_per_mm: float, margin_mm: float, seed: int,
                  markers: tuple[int, ...] = MARKER_IDS, brightness: float = 1.0) -> np.ndarray:
    """Top-down image of the table (with margin) and its markers, ``px_per_mm`` resolution."""
    rng = np.random.default_rng(seed)
    w = int(round((layout.width_mm + 2 * margin_mm) * px_per_mm))
    h = int(round((layout.height_mm + 2 * margin_mm) * px_per_mm))
    small = rng.normal(0, 1, (max(h // 24, 2), max(w // 6, 2))).astype(np.float32)
    grain = cv2.resize(small, (w, h), interpolation=cv2.INTER_CUBIC)
    base = np.array([60, 105, 150], np.float32)  # warm wood, BGR
    img = base[None, None, :] + 14 * grain[..., None]
    img = np.clip(img * brightness, 0, 255).astype(np.uint8)
    for marker_id in markers:
        corners = layout.marker_corners_mm(marker_id)
        x0, y0 = corners[0]
        side = layout.marker_mm
        quiet = side / 6 * 1.0
        px = lambda v: int(round((v + margin_mm) * px_per_mm))  # noqa: E731
        qx0, qy0, qx1, qy1 = px(x0 - quiet), px(y0 - quiet), px(x0 + side + quiet), px(y0 + side + quiet)
        img[max(qy0, 0):qy1, max(qx0, 0):qx1] = int(235 * min(brightness, 1.08))
        s = px(x0 + side) - px(x0)
        m = marker_image(marker_id, s)
        patch = cv2.cvtColor(m, cv2.COLOR_GRAY2BGR)
        patch = np.where(patch > 128, int(235 * min(brightness, 1.08)), int(25 * brightness))
        img[px(y0):px(y0) + s, px(x0):px(x0) + s] = patch.astype(np.uint8)
    return img


def synth_view(layout: MarkerLayout, camera: SynthCamera, seed: int = 0,
               markers: tuple[int, ...] = MARKER_IDS, noise: float = 2.0,
               brightness: float = 1.0, px_per_mm: float = 2.5, margin_mm: float = 150.0
               ) -> SynthView:
    """Render the table and markers as ``camera`` sees them (seeded noise, slight blur)."""
    tex = table_texture(layout, px_per_mm, margin_mm, seed, markers, brightness)
    S = np.array([[px_per_mm, 0, px_per_mm * margin_mm], [0, px_per_mm, px_per_mm * margin_mm],
                  [0, 0, 1]], np.float64)
    H = camera.table_to_image()
    # map texture pixel centres: texture pixel (u, v) covers table mm [(u)/ppm - margin, ...]
    Hs = H @ np.linalg.inv(S) @ np.array([[1, 0, 0.5], [0, 1, 0.5], [0, 0, 1]])
    w, h = camera.image_size
    floor = np.full((h, w, 3), (40, 45, 50), np.uint8)
    img = cv2.warpPerspective(tex, Hs, (w, h), flags=cv2.INTER_AREA,
                              borderMode=cv2.BORDER_TRANSPARENT, dst=floor)
    img = cv2.GaussianBlur(img, (0, 0), 0.6)
    if noise > 0:
        rng = np.random.default_rng(seed + 1)
        img = np.clip(img.astype(np.float32) + rng.normal(0, noise, img.shape), 0, 255
                      ).astype(np.uint8)
    corners = {}
    for i in markers:
        q = np.column_stack([layout.marker_corners_mm(i), np.ones(4)]) @ H.T
        corners[i] = q[:, :2] / q[:, 2:3]
    return SynthView(img, H, camera, layout, corners)
