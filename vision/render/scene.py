"""Scene composition: a :class:`SceneSpec` in, a webcam-like image and its ground truth out.

:func:`render_scene` is pure: the same spec always gives the same pixels. It draws, in order:
the table texture on the plane ``z = 0``; the ArUco markers; soft cast shadows; every tile far to
near (painter's order: lower layers first, within a layer by distance from the camera to the
tile's top centre: side walls shaded per
facet, then the top face warped from a cached texture with one homography); hands reaching in;
the lamp's light fall-off, its specular glare on glossy tile tops, white balance and exposure,
vignetting; lens distortion; defocus and motion blur; sensor noise; JPEG.

Ground truth corners, centres, marker corners and hand polygons are in the final (distorted)
image; ``table_to_image`` is the undistorted homography from table mm (``z = 0``) to pixels.
A tile's ``visible`` is the fraction of its top face's projected area that is seen in the frame
(not hidden by nearer tiles, walls or hands, and not outside the picture). The world frame is
described in :mod:`vision.render.camera`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np

from vision.render.camera import Camera, CameraSpec
from vision.render.errors import RenderSpecError
from vision.render.layouts import Placement
from vision.render.decor import draw_decor
from vision.render.props import PROP_KINDS, PropSpec, pad_lines, prop_outlines, seen_outlines
from vision.render.styles import TABLE_FAMILIES, table_texture
from vision.render.support import supports_of
from vision.render.tiles import TileGeometry, TileStyle, face_texture, geometry_for_set

ARUCO_DICT = cv2.aruco.DICT_4X4_50


@dataclass(frozen=True, slots=True)
class LightSpec:
    """A lamp above the table and the camera's colour response."""

    lamp_mm: tuple[float, float, float] = (0.0, 0.0, 1200.0)  # x, y, height above the table
    ambient: float = 0.55
    shadow: float = 0.45
    shadow_blur_mm: float = 4.0
    glare: float = 0.0
    glare_size_mm: float = 40.0
    wb_gains_bgr: tuple[float, float, float] = (1.0, 1.0, 1.0)
    exposure: float = 1.0
    vignette: float = 0.0


@dataclass(frozen=True, slots=True)
class DegradeSpec:
    """Camera faults: blur, noise, compression."""

    defocus_sigma_px: float = 0.0
    motion_px: float = 0.0
    motion_deg: float = 0.0
    noise_sigma: float = 0.0
    jpeg_quality: int = 0  # 0: no JPEG round trip
    #: Webcam sharpening (unsharp mask amount, 0 = off), applied after blur and noise.
    sharpen: float = 0.0


@dataclass(frozen=True, slots=True)
class HandSpec:
    """An arm reaching into the frame: from ``entry`` (on the border) to the fingertips at
    ``tip``, both as fractions of the image width/height. ``sleeve_bgr``: the arm is clothed
    in that colour from the border to ``sleeve_to`` of the way to the wrist (None: bare)."""

    entry: tuple[float, float]
    tip: tuple[float, float]
    width_px: float
    skin_bgr: tuple[int, int, int]
    sleeve_bgr: tuple[int, int, int] | None = None
    sleeve_to: float = 0.9


@dataclass(frozen=True)
class SceneSpec:
    """Everything that decides a rendered scene (build one by hand or with
    :func:`vision.render.random_scene_spec`)."""

    seed: int
    set_max: int
    placements: tuple[Placement, ...]
    tile_styles: tuple[TileStyle, ...]
    camera: CameraSpec
    width: int = 1280
    height: int = 720
    table_family: str = "wood"
    table_variant: int = 0
    light: LightSpec = field(default_factory=LightSpec)
    degrade: DegradeSpec = field(default_factory=DegradeSpec)
    markers: bool = False
    marker_size_mm: float = 40.0
    marker_rect_mm: tuple[float, float, float, float] = (-300.0, -200.0, 300.0, 200.0)
    hands: tuple[HandSpec, ...] = ()
    layout: str = ""
    game: dict[str, Any] | None = None
    held_out: bool = False
    #: Frame number in a sequence of one table: only the sensor noise depends on it.
    frame: int = 0
    #: Printed game-board art on the table (:mod:`vision.render.decor`); off by default.
    decor: bool = False
    #: Things on the table that are not tiles (a mug, a phone: :mod:`vision.render.props`),
    #: drawn over the tiles and under the hands.
    props: tuple[PropSpec, ...] = ()

    def check(self) -> None:
        """Raise :class:`RenderSpecError` naming the first thing that cannot be rendered."""
        if not (isinstance(self.width, int) and isinstance(self.height, int)
                and 64 <= self.width <= 8192 and 64 <= self.height <= 8192):
            raise RenderSpecError(f"image size {self.width!r}x{self.height!r} is out of range; "
                                  "use integers 64..8192, e.g. 1280x720")
        geometry_for_set(self.set_max)
        if len(self.tile_styles) != len(self.placements):
            raise RenderSpecError(
                f"{len(self.tile_styles)} tile styles for {len(self.placements)} placements; "
                "give one style per placement")
        for p in self.placements:
            if p.tile.high > self.set_max:
                raise RenderSpecError(f"tile {p.tile} is not in a double-{self.set_max} set; "
                                      f"use values 0..{self.set_max} or a larger set_max")
        if self.table_family not in TABLE_FAMILIES:
            raise RenderSpecError(f"table family {self.table_family!r} is unknown; use one of "
                                  f"{list(TABLE_FAMILIES)}")
        if not 10.0 <= self.marker_size_mm <= 200.0:
            raise RenderSpecError(f"marker_size_mm {self.marker_size_mm!r} is out of range; "
                                  "use 10..200 mm")
        if not 0 <= self.degrade.jpeg_quality <= 100:
            raise RenderSpecError(f"jpeg_quality {self.degrade.jpeg_quality!r} must be 0 (off) "
                                  "or 1..100")
        self.camera.check()
        for prop in self.props:
            prop.check()
        if self.light.lamp_mm[2] <= 50.0:
            raise RenderSpecError(f"lamp height {self.light.lamp_mm[2]!r} mm must be above "
                                  "the tiles (> 50 mm)")


@dataclass(frozen=True)
class RenderedScene:
    """A rendered picture (BGR, uint8) and its ground truth (the shared JSON layout)."""

    image_bgr: np.ndarray
    truth: dict[str, Any]


# --- helpers ------------------------------------------------------------------------------------

def _apply_h(H: np.ndarray, pts: np.ndarray) -> np.ndarray:
    p = np.column_stack([pts, np.ones(len(pts))]) @ H.T
    return p[:, :2] / p[:, 2:3]


def _rot(deg: float) -> np.ndarray:
    a = math.radians(deg)
    return np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])


def _fill(canvas: np.ndarray, pts: np.ndarray, colour: Any, aa: bool = True) -> None:
    """Fill the convex polygon ``pts`` (float pixels, sub-pixel exact) on any 1- or 3-channel
    ``canvas``."""
    shift = 4
    p = np.round(pts * (1 << shift)).astype(np.int32)
    cv2.fillConvexPoly(canvas, p, colour, cv2.LINE_AA if aa else cv2.LINE_8, shift)


def _marker_patch(marker_id: int, px_per_cell: int = 24) -> np.ndarray:
    """Marker ``marker_id`` with a one-cell white border (8 x 8 cells), grayscale uint8."""
    dictionary = cv2.aruco.getPredefinedDictionary(ARUCO_DICT)
    inner = cv2.aruco.generateImageMarker(dictionary, marker_id, 6 * px_per_cell)
    return cv2.copyMakeBorder(inner, px_per_cell, px_per_cell, px_per_cell, px_per_cell,
                              cv2.BORDER_CONSTANT, value=255)


def _warp_patch(canvas_bgr: np.ndarray, patch_bgr: np.ndarray, M: np.ndarray,
                alpha: np.ndarray | None = None
                ) -> tuple[tuple[int, int, int, int], np.ndarray] | None:
    """Warp ``patch_bgr`` (with optional alpha) by ``M`` (patch px -> image px) onto the float32
    ``canvas_bgr`` within the ROI of its projected corners; returns the ROI and the warped
    alpha."""
    h, w = patch_bgr.shape[:2]
    corners = _apply_h(M, np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float64))
    H_img, W_img = canvas_bgr.shape[:2]
    x0 = max(0, int(math.floor(corners[:, 0].min())) - 1)
    y0 = max(0, int(math.floor(corners[:, 1].min())) - 1)
    x1 = min(W_img, int(math.ceil(corners[:, 0].max())) + 2)
    y1 = min(H_img, int(math.ceil(corners[:, 1].max())) + 2)
    if x1 <= x0 or y1 <= y0:
        return None
    T = np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1]], np.float64) @ M
    size = (x1 - x0, y1 - y0)
    warped_bgr = cv2.warpPerspective(patch_bgr, T, size, flags=cv2.INTER_LINEAR,
                                 borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    if alpha is None:
        alpha = np.ones((h, w), np.float32)
    a = cv2.warpPerspective(alpha, T, size, flags=cv2.INTER_LINEAR,
                            borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    roi = canvas_bgr[y0:y1, x0:x1]
    roi[:] = roi * (1 - a[..., None]) + warped_bgr.astype(np.float32) * a[..., None]
    return (x0, y0, x1, y1), a


def _table_region(cam: Camera, H0: np.ndarray) -> tuple[float, float, float, float]:
    """Table area (mm) seen by the camera, with a margin."""
    w, h = cam.width, cam.height
    m = 0.08
    px = np.array([[-m * w, -m * h], [(1 + m) * w, -m * h], [(1 + m) * w, (1 + m) * h],
                    [-m * w, (1 + m) * h]], np.float64)
    Hinv = np.linalg.inv(H0)
    p = np.column_stack([px, np.ones(4)]) @ Hinv.T
    if np.any(p[:, 2] <= 0):
        raise RenderSpecError("the camera sees above the horizon; lower tilt_deg")
    mm = p[:, :2] / p[:, 2:3]
    x0, y0 = mm.min(0)
    x1, y1 = mm.max(0)
    cx, cy = cam.spec.target_mm
    lim = 6.0 * cam.spec.height_mm
    return (max(x0, cx - lim), max(y0, cy - lim), min(x1, cx + lim), min(y1, cy + lim))


def _arm_axis(spec: HandSpec, w: int, h: int
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None:
    """(entry point, unit direction in, palm centre, wrist point) of an arm in pixels; None
    when the arm has no length."""
    E = np.array([spec.entry[0] * w, spec.entry[1] * h])
    T = np.array([spec.tip[0] * w, spec.tip[1] * h])
    d = T - E
    n_len = float(np.linalg.norm(d))
    if n_len < 1:
        return None
    d /= n_len
    if n_len < 2.3 * spec.width_px:  # the palm and fingers need room inside the frame
        T = E + d * 2.3 * spec.width_px
    wd = spec.width_px
    palm_c = T - d * (0.75 * wd + 0.45 * wd)  # fingers 0.75 widths long, palm 0.45 to its middle
    return E, d, palm_c, palm_c - d * 0.25 * wd  # the wrist inside the palm: arm and palm join


def _hand_mask(spec: HandSpec, w: int, h: int) -> np.ndarray:
    """Filled mask (uint8 0/255) of an arm with palm and fingers."""
    mask = np.zeros((h, w), np.uint8)
    axis = _arm_axis(spec, w, h)
    if axis is None:
        return mask
    E, d, palm_c, wrist = axis
    nrm = np.array([-d[1], d[0]])
    wd = spec.width_px
    finger_len = 0.75 * wd
    # forearm from beyond the border to the wrist
    E2 = E - d * wd
    arm = np.array([E2 + nrm * wd * 0.42, wrist + nrm * wd * 0.36, wrist - nrm * wd * 0.36,
                    E2 - nrm * wd * 0.42])
    cv2.fillConvexPoly(mask, np.round(arm).astype(np.int32), 255, cv2.LINE_AA)
    ang = math.degrees(math.atan2(d[1], d[0]))
    cv2.ellipse(mask, (int(palm_c[0]), int(palm_c[1])), (int(0.55 * wd), int(0.5 * wd)), ang,
                0, 360, 255, -1, cv2.LINE_AA)
    fw = max(2, int(0.19 * wd))
    front = palm_c + d * 0.45 * wd
    for k, off in enumerate((-0.33, -0.11, 0.11, 0.33)):
        base = front + nrm * off * wd
        length = finger_len * (0.85, 1.0, 0.95, 0.75)[k]
        spread = d + nrm * off * 0.25
        spread /= np.linalg.norm(spread)
        tip = base + spread * length
        cv2.line(mask, (int(base[0]), int(base[1])), (int(tip[0]), int(tip[1])), 255, fw,
                 cv2.LINE_AA)
        cv2.circle(mask, (int(tip[0]), int(tip[1])), fw // 2, 255, -1, cv2.LINE_AA)
    thumb_b = palm_c + nrm * 0.45 * wd
    thumb_t = thumb_b + (nrm * 0.7 + d * 0.5) * 0.6 * wd
    cv2.line(mask, (int(thumb_b[0]), int(thumb_b[1])), (int(thumb_t[0]), int(thumb_t[1])), 255,
             int(fw * 1.15), cv2.LINE_AA)
    return mask


# --- rendering ----------------------------------------------------------------------------------

@dataclass
class _Canvas:
    """The picture being drawn (float32 BGR), which tile owns each pixel's top face (its index;
    -1 none; ``_MARKER_ID0 - k`` marker ``k``), and how glossy each pixel is (for the glare)."""

    image_bgr: np.ndarray  # float32
    idbuf: np.ndarray
    gloss: np.ndarray


@dataclass(frozen=True)
class _TileRig:
    """Geometry shared by every tile of a scene."""

    geom: TileGeometry
    outline: np.ndarray  # rounded outline, local mm
    normals: np.ndarray  # outward normal of each outline edge, local

    @classmethod
    def of(cls, geom: TileGeometry) -> "_TileRig":
        outline = geom.outline_local(per_corner=3)
        e = np.roll(outline, -1, axis=0) - outline
        n = np.column_stack([e[:, 1], -e[:, 0]])
        n /= np.linalg.norm(n, axis=1, keepdims=True)
        if np.dot(n[0], outline[0] + outline[1]) < 0:
            n = -n
        return cls(geom, outline, n)

    def world(self, pl: Placement, local: np.ndarray) -> np.ndarray:
        return local @ _rot(pl.angle_deg).T + np.array(pl.center_mm)


#: Pixels of marker ``k``'s black square carry ``_MARKER_ID0 - k`` in the id buffer.
_MARKER_ID0 = -10

_TABLE_GLOSS = {"wood": 0.15, "stone": 0.35, "felt": 0.0, "cloth": 0.0, "paper": 0.05}


def _draw_table(spec: SceneSpec, cam: Camera, ppm_img: float) -> _Canvas:
    W, H = spec.width, spec.height
    H0 = cam.plane_homography(0.0)
    x0, y0, x1, y1 = _table_region(cam, H0)
    tex_ppm = min(1.0 * ppm_img, 1024.0 / max(x1 - x0, y1 - y0))
    tw, th = max(16, int((x1 - x0) * tex_ppm)), max(16, int((y1 - y0) * tex_ppm))
    table_bgr = table_texture(spec.table_family, spec.table_variant, spec.seed, (tw, th),
                              tex_ppm)
    if spec.decor:
        geom = geometry_for_set(spec.set_max)
        table_bgr = draw_decor(table_bgr, spec.seed, (x0, y0), tex_ppm, spec.camera.target_mm,
                               (geom.length_mm, geom.width_mm), spec.held_out)
    A = np.array([[1 / tex_ppm, 0, x0], [0, 1 / tex_ppm, y0], [0, 0, 1]])
    image_bgr = cv2.warpPerspective(table_bgr, H0 @ A, (W, H), flags=cv2.INTER_LINEAR,
                                    borderMode=cv2.BORDER_REFLECT).astype(np.float32)
    return _Canvas(image_bgr, np.full((H, W), -1, np.int16),
                   np.full((H, W), _TABLE_GLOSS[spec.table_family], np.float32))


def _draw_markers(spec: SceneSpec, cam: Camera, cv: _Canvas) -> list[dict[str, Any]]:
    """Markers lie flat on the table (z = 0), each in its white border; returns their truth
    with undistorted corners (top-left, top-right, bottom-right, bottom-left of the black
    square, as cv2.aruco reports them)."""
    out: list[dict[str, Any]] = []
    if not spec.markers:
        return out
    H0 = cam.plane_homography(0.0)
    s = spec.marker_size_mm
    rx0, ry0, rx1, ry1 = spec.marker_rect_mm
    for mid, (cx, cy) in enumerate(((rx0, ry0), (rx1, ry0), (rx1, ry1), (rx0, ry1))):
        marker_gray = _marker_patch(mid)
        cell = s / 6.0
        ppx = marker_gray.shape[0] / (8 * cell)  # patch px per mm
        Am = np.array([[1 / ppx, 0, cx - 4 * cell], [0, 1 / ppx, cy - 4 * cell], [0, 0, 1]])
        res = _warp_patch(cv.image_bgr, cv2.cvtColor(marker_gray, cv2.COLOR_GRAY2BGR), H0 @ Am)
        if res is not None:
            (bx0, by0, bx1, by1), a = res
            g = cv.gloss[by0:by1, bx0:bx1]
            g[:] = g * (1 - a) + a * 0.1
        sq = np.array([[cx - s / 2, cy - s / 2], [cx + s / 2, cy - s / 2],
                       [cx + s / 2, cy + s / 2], [cx - s / 2, cy + s / 2]])
        sq_px = _apply_h(H0, sq)
        _fill(cv.idbuf, sq_px, _MARKER_ID0 - mid, aa=False)  # for its visible fraction
        out.append({"id": mid, "corners_und": sq_px, "center_mm": [cx, cy], "size_mm": s,
                    "area": float(cv2.contourArea(sq_px.astype(np.float32)))})
    return out


def _shadow_poly(rig: _TileRig, cam: Camera, lamp: np.ndarray, pl: Placement, z_base: float,
                 z_top: float) -> np.ndarray:
    """Image polygon of the shadow a tile (from ``z_base`` to ``z_top``) casts on ``z_base``."""
    base = rig.world(pl, rig.outline)
    k = (z_top - z_base) / max(1.0, lamp[2] - z_top)
    top = base + (base - lamp[:2]) * k  # the lamp ray through a top point meets z_base here
    hull = cv2.convexHull(np.concatenate([base, top]).astype(np.float32)).reshape(-1, 2)
    return _apply_h(cam.plane_homography(z_base), hull.astype(np.float64))


def _darken_roi(cv: _Canvas, poly: np.ndarray, sigma: float, strength: float) -> None:
    H, W = cv.idbuf.shape
    pad = int(3 * sigma) + 2
    x0, y0 = max(0, int(poly[:, 0].min()) - pad), max(0, int(poly[:, 1].min()) - pad)
    x1, y1 = min(W, int(poly[:, 0].max()) + pad + 1), min(H, int(poly[:, 1].max()) + pad + 1)
    if x1 <= x0 or y1 <= y0:
        return
    m8 = np.zeros((y1 - y0, x1 - x0), np.uint8)
    _fill(m8, poly - [x0, y0], 255)
    m = cv2.GaussianBlur(m8, (0, 0), sigma).astype(np.float32) * np.float32(strength / 255.0)
    cv.image_bgr[y0:y1, x0:x1] *= (1.0 - m)[..., None]


def _cast_table_shadows(spec: SceneSpec, cam: Camera, rig: _TileRig, cv: _Canvas,
                        ppm_img: float) -> None:
    """Soft shadows of the layer-0 tiles on the table, in one pass at half resolution."""
    lt = spec.light
    polys = [_shadow_poly(rig, cam, np.array(lt.lamp_mm), p, 0.0, rig.geom.thickness_mm)
             for p in spec.placements if p.layer == 0]
    if not polys or lt.shadow <= 0:
        return
    H, W = cv.idbuf.shape
    m8 = np.zeros(((H + 1) // 2, (W + 1) // 2), np.uint8)
    for p in polys:
        _fill(m8, p * 0.5, 255)
    m8 = cv2.GaussianBlur(m8, (0, 0), max(0.6, lt.shadow_blur_mm * ppm_img * 0.5))
    m = cv2.resize(m8, (W, H), interpolation=cv2.INTER_LINEAR).astype(np.float32)
    cv.image_bgr *= (1.0 - np.float32(lt.shadow / 255.0) * m)[..., None]


def _draw_tiles(spec: SceneSpec, cam: Camera, rig: _TileRig, cv: _Canvas,
                ppm_img: float) -> dict[int, dict[str, Any]]:
    """Every tile far to near: its shadow on what it rests on, side walls shaded per facet, the
    top face from its texture. Returns per tile the undistorted top corners and face area."""
    geom, T = rig.geom, rig.geom.thickness_mm
    lamp = np.array(spec.light.lamp_mm, np.float64)
    f = cam.K[0, 0]
    tops = np.array([[*p.center_mm, -(p.layer + 1) * T] for p in spec.placements]).reshape(-1, 3)
    depth = cam.depth(tops) if len(tops) else np.zeros(0)
    # lower layers first: nothing of layer L reaches above the plane (L + 1) * T, so it can never
    # hide a higher tile (camera rays only go down); within a layer, far to near
    order = sorted(range(len(spec.placements)),
                   key=lambda i: (spec.placements[i].layer, -depth[i]))
    light_dir = lamp[:2] - np.array(cam.spec.target_mm)
    light_dir = light_dir / (np.linalg.norm(light_dir) + 1e-9)
    n_out = len(rig.outline)
    truth: dict[int, dict[str, Any]] = {}
    for i in order:
        pl, style = spec.placements[i], spec.tile_styles[i]
        z_bot, z_top = pl.layer * T, (pl.layer + 1) * T
        if pl.layer > 0 and spec.light.shadow > 0:
            _darken_roi(cv, _shadow_poly(rig, cam, lamp, pl, z_bot, z_top),
                        max(0.6, spec.light.shadow_blur_mm * 0.5 * ppm_img), spec.light.shadow)
        Ht, Hb = cam.plane_homography(z_top), cam.plane_homography(z_bot)
        wo = rig.world(pl, rig.outline)
        top_px, bot_px = _apply_h(Ht, wo), _apply_h(Hb, wo)
        side = np.array(style.side_bgr, np.float64)
        hull = cv2.convexHull(np.concatenate([top_px, bot_px]).astype(np.float32)).reshape(-1, 2)
        _fill(cv.image_bgr, hull.astype(np.float64), tuple(side * 0.6))
        _fill(cv.idbuf, hull.astype(np.float64), -1, aa=False)
        normals = rig.normals @ _rot(pl.angle_deg).T
        mids = (wo + np.roll(wo, -1, axis=0)) / 2
        facing = np.einsum("ij,ij->i", normals, cam.C[:2] - mids) > 0
        shades = 0.5 + 0.45 * np.clip(normals @ light_dir, 0, None)
        for j in np.flatnonzero(facing):
            k = (j + 1) % n_out
            _fill(cv.image_bgr, np.array([top_px[j], top_px[k], bot_px[k], bot_px[j]]),
                  tuple(side * shades[j]))
        ppm_tile = f / max(1.0, float(depth[i]))
        tex_ppm = float(min(24.0, max(3.0, round(2 * 1.6 * ppm_tile) / 2)))
        face, alpha = face_texture(tuple(pl.halves), style, geom, tex_ppm, pl.face_up)
        fh, fw = face.shape[:2]
        A_tex = np.array([[geom.length_mm / fw, 0, -geom.length_mm / 2],
                          [0, geom.width_mm / fh, -geom.width_mm / 2], [0, 0, 1]])
        R2 = _rot(pl.angle_deg)
        A_world = np.array([[R2[0, 0], R2[0, 1], pl.center_mm[0]],
                            [R2[1, 0], R2[1, 1], pl.center_mm[1]], [0, 0, 1]])
        res = _warp_patch(cv.image_bgr, face, Ht @ A_world @ A_tex, alpha)
        if res is not None:
            (rx0, ry0, rx1, ry1), a = res
            cv.idbuf[ry0:ry1, rx0:rx1][a > 0.5] = i
            g = cv.gloss[ry0:ry1, rx0:rx1]
            g[:] = g * (1 - a) + a * style.gloss
        truth[i] = {"corners_und": _apply_h(Ht, rig.world(pl, geom.corners_local())),
                    "outline_und": top_px, "z_top": z_top,
                    "area": float(cv2.contourArea(top_px.astype(np.float32)))}
    return truth


def _draw_hands(spec: SceneSpec, cv: _Canvas) -> list[np.ndarray]:
    """Arms reaching in over everything, with a soft shadow; returns undistorted polygons.
    Work is limited to the hand's bounding box plus its shadow's reach."""
    H, W = cv.idbuf.shape
    polys = []
    for hs in spec.hands:
        mask = _hand_mask(hs, W, H)
        bx, by, bw, bh = cv2.boundingRect(mask)
        if bw == 0 or bh == 0:
            continue
        pad = int(0.9 * hs.width_px) + 4
        x0, y0 = max(0, bx - pad), max(0, by - pad)
        x1, y1 = min(W, bx + bw + pad), min(H, by + bh + pad)
        m8 = mask[y0:y1, x0:x1]
        rh, rw = m8.shape
        roi_bgr = cv.image_bgr[y0:y1, x0:x1]
        # shadow: the mask shifted away from the lamp side and blurred, at quarter resolution
        q = cv2.resize(m8, ((rw + 3) // 4, (rh + 3) // 4), interpolation=cv2.INTER_AREA)
        shift = np.float32([[1, 0, 0.04 * hs.width_px], [0, 1, 0.03 * hs.width_px]])
        q = cv2.warpAffine(q, shift, (q.shape[1], q.shape[0]), borderMode=cv2.BORDER_REPLICATE)
        q = cv2.GaussianBlur(q, (0, 0), max(1.0, 0.06 * hs.width_px))
        sh = cv2.resize(q, (rw, rh), interpolation=cv2.INTER_LINEAR).astype(np.float32)
        roi_bgr *= (1 - np.float32(0.45 / 255.0) * sh)[..., None]
        inside = m8 > 127
        # rounded look: darker towards the outline, lighter along the middle of arm and palm
        dist = cv2.distanceTransform(inside.astype(np.uint8), cv2.DIST_L2, 3)
        shade = 0.72 + 0.36 * np.clip(dist / (0.22 * hs.width_px), 0, 1)
        skin_bgr = np.array(hs.skin_bgr, np.float32) * shade[..., None]
        axis = None if hs.sleeve_bgr is None else _arm_axis(hs, W, H)
        if axis is not None:
            E, d, _, wrist = axis
            yy, xx = np.mgrid[y0:y1, x0:x1]
            along = (xx - E[0]) * d[0] + (yy - E[1]) * d[1]  # px from the border inwards
            cuff = hs.sleeve_to * float((wrist - E) @ d)
            clothed = (along < cuff)[..., None]
            skin_bgr = np.where(clothed, np.array(hs.sleeve_bgr, np.float32) * shade[..., None],
                                skin_bgr)
        m = (m8.astype(np.float32) / 255.0)[..., None]
        roi_bgr[:] = roi_bgr * (1 - m) + skin_bgr * m
        cv.idbuf[y0:y1, x0:x1][inside] = -1
        cv.gloss[y0:y1, x0:x1][inside] = 0.05
        contours, _ = cv2.findContours((mask > 127).astype(np.uint8), cv2.RETR_EXTERNAL,
                                       cv2.CHAIN_APPROX_SIMPLE)
        big = max(contours, key=cv2.contourArea)
        polys.append(cv2.approxPolyDP(big, 1.5, True).reshape(-1, 2).astype(np.float64))
    return polys


def _blend_poly(cv: _Canvas, polys: list[np.ndarray], colour: np.ndarray,
                box: tuple[int, int, int, int], gloss: float | None = None,
                lines: bool = False) -> None:
    """Paint ``colour`` (BGR floats) over the convex polygons ``polys``
    (undistorted pixels; with ``lines``, pairs of end points: 1 px lines) inside ``box``."""
    x0, y0, x1, y1 = box
    m8 = np.zeros((y1 - y0, x1 - x0), np.uint8)
    for p in polys:
        if lines:
            a, b = np.round((p - [x0, y0]) * 16).astype(np.int32)
            cv2.line(m8, tuple(int(v) for v in a), tuple(int(v) for v in b), 255, 1,
                     cv2.LINE_AA, 4)
        else:
            _fill(m8, p - [x0, y0], 255)
    m = (m8.astype(np.float32) / 255.0)[..., None]
    roi = cv.image_bgr[y0:y1, x0:x1]
    roi[:] = roi * (1 - m) + colour * m
    if gloss is not None:
        g = cv.gloss[y0:y1, x0:x1]
        g[:] = g * (1 - m[..., 0]) + np.float32(gloss) * m[..., 0]


def _draw_props(spec: SceneSpec, cam: Camera, cv: _Canvas, ppm_img: float) -> list[np.ndarray]:
    """Things on the table that are not tiles (:mod:`vision.render.props`), over the tiles: a
    soft shadow cast from the lamp, the side walls (the hull of base and top as the camera sees
    them), the top with its detail (a mug's coffee, a can's lid, a phone's screen, a pad's ruled
    lines). Returns each one's outline (undistorted pixels); its pixels hide the tiles."""
    H, W = cv.idbuf.shape
    lamp = np.array(spec.light.lamp_mm, np.float64)
    H0 = cam.plane_homography(0.0)
    polys = []
    for pr in spec.props:
        h = pr.height_mm
        Ht = cam.plane_homography(h)
        base = prop_outlines(pr)
        base_px, top_px = seen_outlines(pr, cam)
        sil = cv2.convexHull(np.concatenate([top_px, base_px]).astype(np.float32)).reshape(-1, 2)
        sil = sil.astype(np.float64)
        if spec.light.shadow > 0:  # the lamp ray through its top meets the table here; the
            # penumbra widens with the height
            cast = base + (base - lamp[:2]) * (h / max(1.0, lamp[2] - h))
            shadow = cv2.convexHull(np.concatenate([base, cast]).astype(np.float32))
            _darken_roi(cv, _apply_h(H0, shadow.reshape(-1, 2).astype(np.float64)),
                        max(0.8, (0.5 * spec.light.shadow_blur_mm + 0.05 * h) * ppm_img),
                        0.8 * spec.light.shadow)
        pad = 3
        x0, y0 = max(0, int(sil[:, 0].min()) - pad), max(0, int(sil[:, 1].min()) - pad)
        x1, y1 = min(W, int(sil[:, 0].max()) + pad + 1), min(H, int(sil[:, 1].max()) + pad + 1)
        if x1 <= x0 or y1 <= y0:
            polys.append(sil)
            continue
        box = (x0, y0, x1, y1)
        body = np.array(pr.colour_bgr, np.float32)
        shape = PROP_KINDS[pr.kind][0]
        _blend_poly(cv, [sil], body * np.float32(0.62 if shape == "round" else 0.45), box, 0.1)
        if pr.kind == "mug":
            _blend_poly(cv, [top_px], np.minimum(body * 1.15 + 25, 255), box, 0.3)  # the rim
            coffee = _apply_h(cam.plane_homography(h - 12.0), prop_outlines(pr, inset_mm=5.0))
            _blend_poly(cv, [coffee], np.array((28, 42, 66), np.float32), box, 0.6)
        elif pr.kind == "can":
            _blend_poly(cv, [top_px], np.array((178, 180, 184), np.float32), box, 0.5)
            lid = _apply_h(Ht, prop_outlines(pr, inset_mm=4.0))
            _blend_poly(cv, [lid], np.array((150, 152, 158), np.float32), box, 0.5)
        elif pr.kind == "phone":
            _blend_poly(cv, [top_px], body, box, 0.3)
            screen = _apply_h(Ht, prop_outlines(pr, inset_mm=3.5))
            _blend_poly(cv, [screen], np.array((22, 18, 16), np.float32), box, 0.9)
        else:  # a score pad: white paper, faint blue rules
            _blend_poly(cv, [top_px], np.array((236, 240, 242), np.float32), box, 0.15)
            rules = [_apply_h(Ht, np.array(ends)) for ends in pad_lines(pr)]
            _blend_poly(cv, rules, np.array((205, 170, 140), np.float32), box, lines=True)
        m8 = np.zeros((y1 - y0, x1 - x0), np.uint8)
        _fill(m8, sil - [x0, y0], 255, aa=False)
        cv.idbuf[y0:y1, x0:x1][m8 > 0] = -1
        polys.append(sil)
    return polys


def _light(spec: SceneSpec, cam: Camera, cv: _Canvas, ppm_img: float) -> np.ndarray:
    """The lamp's fall-off, exposure, vignetting and white balance in one gain map, then the
    lamp's specular glare on glossy surfaces; returns uint8 BGR."""
    lt = spec.light
    H, W = cv.idbuf.shape
    lamp = np.array(lt.lamp_mm, np.float64)
    H0inv = np.linalg.inv(cam.plane_homography(0.0))
    step = 16
    gx, gy = np.meshgrid(np.arange(0, W + step, step, dtype=np.float64),
                         np.arange(0, H + step, step, dtype=np.float64))
    pts = np.column_stack([gx.ravel(), gy.ravel(), np.ones(gx.size)]) @ H0inv.T
    dxy = pts[:, :2] / pts[:, 2:3] - lamp[:2]
    d2 = (dxy ** 2).sum(1) + lamp[2] ** 2
    irr = (lamp[2] ** 3) / d2 ** 1.5  # cos(theta) / d^2, 1 straight under the lamp
    field_ = (lt.ambient + (1 - lt.ambient) * irr).reshape(gx.shape).astype(np.float32)
    gain = cv2.resize(field_, (gx.shape[1] * step, gx.shape[0] * step),
                      interpolation=cv2.INTER_LINEAR)[:H, :W] * np.float32(lt.exposure)
    if lt.vignette > 0:
        xs = (np.arange(W, dtype=np.float32) - W / 2) / (W / 2)
        ys = (np.arange(H, dtype=np.float32) - H / 2) / (W / 2)
        r2 = ys[:, None] ** 2 + xs[None, :] ** 2
        gain *= 1 - np.float32(lt.vignette / 1.6) * np.minimum(r2, 1.6)
    lit_bgr = cv.image_bgr
    lit_bgr *= gain[..., None]
    if lt.glare > 0:
        # the mirror image of the lamp in the tile-top plane, seen from the camera
        zt = geometry_for_set(spec.set_max).thickness_mm  # top of a tile on the table
        hc = cam.spec.height_mm
        s = (hc - zt) / (hc - (2 * zt - lamp[2]))
        spot = cam.C[:2] + s * (lamp[:2] - cam.C[:2])
        spot_px = _apply_h(cam.plane_homography(zt), spot[None])[0]
        sig = lt.glare_size_mm * ppm_img
        gy_ = np.exp(-((np.arange(H) - spot_px[1]) ** 2) / (2 * sig ** 2)).astype(np.float32)
        gx_ = np.exp(-((np.arange(W) - spot_px[0]) ** 2) / (2 * sig ** 2)).astype(np.float32)
        blob = np.outer(gy_, gx_) * np.float32(255.0 * lt.glare * 1.6) * cv.gloss
        lit_bgr += blob[..., None]
    lit_bgr = cv2.transform(lit_bgr, np.diag(np.array(lt.wb_gains_bgr, np.float32)))
    return cv2.convertScaleAbs(lit_bgr)


def _degrade(frame_bgr: np.ndarray, dg: DegradeSpec, rng: np.random.Generator) -> np.ndarray:
    """Defocus, motion blur, sensor noise, sharpening, JPEG round trip."""
    if dg.defocus_sigma_px > 0.2:
        frame_bgr = cv2.GaussianBlur(frame_bgr, (0, 0), dg.defocus_sigma_px)
    if dg.motion_px >= 1.5:
        k = int(math.ceil(dg.motion_px)) | 1
        ker = np.zeros((k, k), np.float32)
        c = k // 2
        dx, dy = math.cos(math.radians(dg.motion_deg)), math.sin(math.radians(dg.motion_deg))
        cv2.line(ker, (int(round(c - dx * c)), int(round(c - dy * c))),
                 (int(round(c + dx * c)), int(round(c + dy * c))), 1.0, 1, cv2.LINE_AA)
        frame_bgr = cv2.filter2D(frame_bgr, -1, ker / ker.sum())
    if dg.noise_sigma > 0:
        # luminance noise per pixel; colour noise at half resolution (as after demosaicing)
        h, w = frame_bgr.shape[:2]
        lum = rng.standard_normal((h, w), dtype=np.float32) * np.float32(dg.noise_sigma)
        chroma = rng.standard_normal(((h + 1) // 2, (w + 1) // 2, 3), dtype=np.float32)
        chroma = cv2.resize(chroma * np.float32(0.7 * dg.noise_sigma), (w, h),
                            interpolation=cv2.INTER_NEAREST)
        chroma += lum[..., None]
        frame_bgr = cv2.convertScaleAbs(cv2.add(frame_bgr.astype(np.float32), chroma))
    if dg.sharpen > 0:
        soft = cv2.GaussianBlur(frame_bgr, (0, 0), 1.2)
        frame_bgr = cv2.addWeighted(frame_bgr, 1.0 + dg.sharpen, soft, -dg.sharpen, 0.0)
    if dg.jpeg_quality:
        ok, buf = cv2.imencode(".jpg", frame_bgr, [cv2.IMWRITE_JPEG_QUALITY, int(dg.jpeg_quality)])
        frame_bgr = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    return frame_bgr


def render_scene(spec: SceneSpec) -> RenderedScene:
    """Render ``spec`` into a webcam-like BGR picture with its ground truth (pure function)."""
    spec.check()
    W, H = spec.width, spec.height
    cam = Camera(spec.camera, W, H)
    geom = geometry_for_set(spec.set_max)
    rig = _TileRig.of(geom)
    rng = np.random.default_rng([spec.seed, spec.frame])  # only for sensor noise
    ppm_img = cam.K[0, 0] / cam.spec.height_mm * math.cos(math.radians(cam.spec.tilt_deg))

    cv = _draw_table(spec, cam, ppm_img)
    markers_truth = _draw_markers(spec, cam, cv)
    _cast_table_shadows(spec, cam, rig, cv, ppm_img)
    tile_truth = _draw_tiles(spec, cam, rig, cv, ppm_img)
    props_truth = _draw_props(spec, cam, cv, ppm_img)
    hands_truth = _draw_hands(spec, cv)
    frame_bgr = _light(spec, cam, cv, ppm_img)
    frame_bgr = cam.distort_image(frame_bgr)
    frame_bgr = _degrade(frame_bgr, spec.degrade, rng)
    truth = _truth(spec, cam, geom, cv, tile_truth, markers_truth, hands_truth)
    if spec.props:
        truth["props"] = [{"kind": pr.kind, "outline": np.round(cam.distort_pixels(p), 1).tolist()}
                          for pr, p in zip(spec.props, props_truth)]
    frame_bgr.setflags(write=False)
    return RenderedScene(frame_bgr, truth)


def _truth(spec: SceneSpec, cam: Camera, geom: TileGeometry, cv: _Canvas,
           tile_truth: dict[int, dict[str, Any]], markers_truth: list[dict[str, Any]],
           hands_truth: list[np.ndarray]) -> dict[str, Any]:
    W, H = spec.width, spec.height
    T = geom.thickness_mm
    counts = np.bincount(cv.idbuf[cv.idbuf >= 0].ravel(), minlength=len(spec.placements))
    supports = supports_of(spec.placements, geom)
    tiles_gt = []
    for i, pl in enumerate(spec.placements):
        tt = tile_truth[i]
        corners = cam.distort_pixels(tt["corners_und"])
        center = corners.mean(0)
        a = (corners[2] + corners[3]) / 2 - (corners[0] + corners[1]) / 2
        outline_px = cam.distort_pixels(tt["outline_und"])
        cut = bool(np.any(outline_px < 0) or np.any(outline_px[:, 0] > W - 1)
                   or np.any(outline_px[:, 1] > H - 1))
        vis = float(min(1.0, counts[i] / tt["area"])) if tt["area"] > 0 else 0.0
        tiles_gt.append({
            "id": i, "tile": str(pl.tile.plain()),
            "halves": [int(pl.halves[0]), int(pl.halves[1])],
            "corners": np.round(corners, 2).tolist(), "center": np.round(center, 2).tolist(),
            "angle": round(math.degrees(math.atan2(a[1], a[0])), 2),
            "table_mm": {"center": [round(pl.center_mm[0], 2), round(pl.center_mm[1], 2)],
                         "angle": round(pl.angle_deg % 360.0, 2),
                         "z_mm": round(pl.layer * T, 2)},
            "layer": pl.layer, "supports": list(supports[i]), "face_up": pl.face_up, "visible": round(vis, 4), "cut": cut,
            "colour": pl.tile.colour, "style": spec.tile_styles[i].family,
        })
    lt, dg = spec.light, spec.degrade
    H0 = cam.plane_homography(0.0)
    return {
        "image": "", "width": W, "height": H, "seed": spec.seed, "frame": spec.frame,
        "set_max": spec.set_max,
        "style": {"table": spec.table_family, "table_variant": spec.table_variant,
                  "tile_styles": sorted({s.family for s in spec.tile_styles}),
                  "lighting": {"lamp_mm": list(lt.lamp_mm), "ambient": lt.ambient,
                               "shadow": lt.shadow, "glare": lt.glare,
                               "wb_gains_bgr": list(lt.wb_gains_bgr), "exposure": lt.exposure,
                               "vignette": lt.vignette},
                  "blur": {"defocus_sigma_px": dg.defocus_sigma_px, "motion_px": dg.motion_px,
                           "motion_deg": dg.motion_deg},
                  "noise": dg.noise_sigma, "jpeg_quality": dg.jpeg_quality,
                  "sharpen": dg.sharpen,
                  "layout": spec.layout, "held_out": spec.held_out,
                  "tile_mm": [geom.length_mm, geom.width_mm, geom.thickness_mm],
                  **({"decor": True} if spec.decor else {})},
        "camera": {"height_mm": cam.spec.height_mm, "tilt_deg": cam.spec.tilt_deg,
                   "rotation_deg": cam.spec.rotation_deg, "hfov_deg": cam.spec.hfov_deg,
                   "target_mm": list(cam.spec.target_mm),
                   "K": np.round(cam.K, 4).tolist(), "dist": list(cam.spec.dist),
                   "rvec": cam.rvec.tolist(), "tvec": cam.t.tolist(),
                   "center_mm": cam.C.tolist(),
                   "world": "table mm: x right, y down the play area, z into the table "
                            "(a point h mm above the table has z = -h)"},
        "table_to_image": (H0 / H0[2, 2]).tolist(),
        "tiles": tiles_gt,
        "markers": [{"id": m["id"],
                     "corners": np.round(cam.distort_pixels(m["corners_und"]), 2).tolist(),
                     "center_mm": m["center_mm"], "size_mm": m["size_mm"],
                     "visible": round(min(1.0, float(np.count_nonzero(
                         cv.idbuf == _MARKER_ID0 - m["id"])) / max(1.0, m["area"])), 4)}
                    for m in markers_truth],
        "hands": [np.round(cam.distort_pixels(p), 1).tolist() for p in hands_truth],
        "game": spec.game,
    }
