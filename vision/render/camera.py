"""A pinhole camera with lens distortion looking at the table.

World frame (the table frame, millimetres): ``x`` to the right of the play area, ``y`` down the
play area (towards the near side), ``z`` INTO the table, so the table top is ``z = 0`` and a point
``h`` mm above the table has ``z = -h``. This keeps ``x``/``y`` of the table and of the image
aligned for an upright camera without a mirror. Ground truth reports heights as positive
``height_mm``/``z_mm`` above the table.

The camera sits ``height_mm`` above the table, its optical axis ``tilt_deg`` away from straight
down, turned by ``rotation_deg`` about the vertical (positive turns the table counter-clockwise
in the picture). It looks at ``target_mm`` on the table. ``rvec``/``tvec`` map world points into the
OpenCV camera frame (``x`` right, ``y`` down, ``z`` forward): ``X_cam = R X_world + t``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

from vision.render.errors import RenderSpecError


@dataclass(frozen=True, slots=True)
class CameraSpec:
    """Where the camera is and what lens it has."""

    height_mm: float = 600.0
    tilt_deg: float = 0.0
    rotation_deg: float = 0.0
    hfov_deg: float = 65.0
    target_mm: tuple[float, float] = (0.0, 0.0)
    #: OpenCV distortion (k1, k2, p1, p2, k3); zeros for an ideal lens.
    dist: tuple[float, float, float, float, float] = (0.0, 0.0, 0.0, 0.0, 0.0)

    def check(self) -> None:
        if not 150.0 <= self.height_mm <= 5000.0:
            raise RenderSpecError(
                f"camera height_mm {self.height_mm!r} is out of range; use 150..5000 mm")
        if not 0.0 <= self.tilt_deg <= 50.0:
            raise RenderSpecError(
                f"camera tilt_deg {self.tilt_deg!r} is out of range; use 0..50 degrees "
                "(0 looks straight down)")
        if not 20.0 <= self.hfov_deg <= 120.0:
            raise RenderSpecError(
                f"camera hfov_deg {self.hfov_deg!r} is out of range; use 20..120 degrees")
        if len(self.dist) != 5 or any(abs(d) > 1.0 for d in self.dist):
            raise RenderSpecError(
                f"camera dist {self.dist!r} must be 5 coefficients (k1, k2, p1, p2, k3) in -1..1")


class Camera:
    """The camera of one scene at one resolution: projection, plane homographies, distortion."""

    def __init__(self, spec: CameraSpec, width: int, height: int) -> None:
        spec.check()
        self.spec = spec
        self.width, self.height = int(width), int(height)
        f = (width / 2) / np.tan(np.deg2rad(spec.hfov_deg) / 2)
        self.K = np.array([[f, 0, width / 2], [0, f, height / 2], [0, 0, 1]], np.float64)
        self.dist = np.array(spec.dist, np.float64)
        r = np.deg2rad(spec.rotation_deg)
        t = np.deg2rad(spec.tilt_deg)
        down = np.array([-np.sin(r), np.cos(r), 0.0])  # table direction that is "down" in the image
        target = np.array([spec.target_mm[0], spec.target_mm[1], 0.0])
        self.C = target + spec.height_mm * np.tan(t) * down + np.array([0, 0, -spec.height_mm])
        fwd = target - self.C
        fwd /= np.linalg.norm(fwd)
        x = np.cross(down, fwd)
        x /= np.linalg.norm(x)
        y = np.cross(fwd, x)
        self.R = np.stack([x, y, fwd])
        self.t = -self.R @ self.C
        self.rvec = cv2.Rodrigues(self.R)[0].ravel()

    # projection -----------------------------------------------------------------------------
    def project(self, pts_world: np.ndarray) -> np.ndarray:
        """World points (Nx3 mm) to undistorted pixels (Nx2)."""
        p = (self.R @ np.asarray(pts_world, np.float64).T).T + self.t
        if np.any(p[:, 2] <= 1e-6):
            raise RenderSpecError("a scene point lies behind the camera; lower the tilt or "
                                  "move the target")
        uv = (self.K @ p.T).T
        return uv[:, :2] / uv[:, 2:3]

    def plane_homography(self, height_mm: float = 0.0) -> np.ndarray:
        """3x3 homography from table ``(x, y)`` mm on the plane ``height_mm`` above the table to
        undistorted pixels."""
        z = -float(height_mm)
        H = self.K @ np.column_stack([self.R[:, 0], self.R[:, 1], self.R[:, 2] * z + self.t])
        return H / H[2, 2]

    def depth(self, pts_world: np.ndarray) -> np.ndarray:
        """Distance from the camera centre to each world point (mm)."""
        return np.linalg.norm(np.asarray(pts_world, np.float64) - self.C, axis=1)

    # distortion ---------------------------------------------------------------------------
    @property
    def has_distortion(self) -> bool:
        return bool(np.any(self.dist != 0))

    def distort_pixels(self, uv: np.ndarray) -> np.ndarray:
        """Undistorted pixels (Nx2) to where the distorted lens puts them."""
        uv = np.asarray(uv, np.float64).reshape(-1, 2)
        if not self.has_distortion:
            return uv.copy()
        k1, k2, p1, p2, k3 = self.dist
        fx, fy, cx, cy = self.K[0, 0], self.K[1, 1], self.K[0, 2], self.K[1, 2]
        x = (uv[:, 0] - cx) / fx
        y = (uv[:, 1] - cy) / fy
        r2 = x * x + y * y
        radial = 1 + k1 * r2 + k2 * r2 ** 2 + k3 * r2 ** 3
        xd = x * radial + 2 * p1 * x * y + p2 * (r2 + 2 * x * x)
        yd = y * radial + p1 * (r2 + 2 * y * y) + 2 * p2 * x * y
        return np.column_stack([xd * fx + cx, yd * fy + cy])

    def distort_image(self, img: np.ndarray) -> np.ndarray:
        """The undistorted rendering as the distorted lens would record it."""
        if not self.has_distortion:
            return img
        mx, my = _distortion_maps(self.width, self.height, self.K.tobytes(),
                                  self.dist.tobytes())
        return cv2.remap(img, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)


@lru_cache(maxsize=16)
def _distortion_maps(width: int, height: int, k_bytes: bytes,
                     dist_bytes: bytes) -> tuple[np.ndarray, np.ndarray]:
    """For each distorted output pixel, the undistorted source pixel (computed on a grid every
    8 pixels, then interpolated)."""
    K = np.frombuffer(k_bytes, np.float64).reshape(3, 3)
    dist = np.frombuffer(dist_bytes, np.float64)
    step = 8
    nx, ny = -(-width // step), -(-height // step)
    # grid at cell centres: resizing by exactly ``step`` then puts grid i at pixel (i+0.5)*step-0.5
    gx = (np.arange(nx, dtype=np.float64) + 0.5) * step - 0.5
    gy = (np.arange(ny, dtype=np.float64) + 0.5) * step - 0.5
    xx, yy = np.meshgrid(gx, gy)
    k1, k2, p1, p2, k3 = dist
    fx, fy, cx, cy = K[0, 0], K[1, 1], K[0, 2], K[1, 2]
    xd, yd = (xx - cx) / fx, (yy - cy) / fy
    x, y = xd.copy(), yd.copy()
    for _ in range(30):  # fixed-point inversion of the forward model in distort_pixels
        r2 = x * x + y * y
        radial = 1 + k1 * r2 + k2 * r2 ** 2 + k3 * r2 ** 3
        x = (xd - 2 * p1 * x * y - p2 * (r2 + 2 * x * x)) / radial
        y = (yd - p1 * (r2 + 2 * y * y) - 2 * p2 * x * y) / radial
    # interpolate the (small, smooth) displacement, then add the pixel grid back
    rx = (x * fx + cx - xx).astype(np.float32)
    ry = (y * fy + cy - yy).astype(np.float32)
    rx = cv2.resize(rx, (nx * step, ny * step), interpolation=cv2.INTER_LINEAR)[:height, :width]
    ry = cv2.resize(ry, (nx * step, ny * step), interpolation=cv2.INTER_LINEAR)[:height, :width]
    mx = rx + np.arange(width, dtype=np.float32)[None, :]
    my = ry + np.arange(height, dtype=np.float32)[:, None]
    return np.ascontiguousarray(mx), np.ascontiguousarray(my)
