"""Close-up photos of one tile: small (100x100) pictures of a single ivory tile seen from above,
filling much of the frame, on beige paper or wood under a spot lamp.

These are the conditions where the reader's tile finder fails most on real phone photos: the
tile's face is hardly brighter than paper lit by the lamp, and the lamp makes the table brighter
near the light than the tile is away from it. Every picture is drawn from its seed alone.

The picture is drawn large (``SUPERSAMPLE`` times) and shrunk, so edges are anti-aliased as a
camera's are; the tile's side walls show on the side away from the camera's axis, a soft shadow
falls beside it, and blur, sensor noise and JPEG coding follow.

:func:`render_small_closeup` (opt-in; :func:`render_closeup` draws every seed as before) draws the
close-ups real phone photos also are and :func:`render_closeup` does not: one to four small tiles
(0.08-0.22 of the picture's side wide, against 0.22-0.42 there), pale tiles on pale card, and
lamp glare washing over them. Its tiles are of the training tile families only
(:data:`SMALL_FAMILIES`: cream and white faces; the held-out ``marbled`` look is never drawn),
and blank halves come often (0-0 doubles are the tiles most often missed).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import cv2
import numpy as np

from vision.render.errors import RenderSpecError
from vision.render.styles import table_texture, tile_style
from vision.render.tiles import GEOMETRY_BY_SET, TileStyle, face_texture

#: Backgrounds of close-ups: the table families they are drawn on.
CLOSEUP_TABLES = ("paper", "wood", "beige")
#: Drawing resolution, as a multiple of the output size.
SUPERSAMPLE = 4


@dataclass(frozen=True)
class Closeup:
    """One close-up picture and its truth: the top face's corners (4, 2) in output pixels, in the
    shared ground-truth order, and the tile's halves (first half at corners 0-1)."""

    image_bgr: np.ndarray
    corners: np.ndarray
    halves: tuple[int, int]
    table: str


def _background(kind: str, rng: np.random.Generator, size: int) -> np.ndarray:
    """The table under the tile: paper or wood from the renderer's textures, or flat beige."""
    seed = int(rng.integers(0, 2**31 - 1))
    if kind == "beige":
        base = np.array([rng.uniform(150, 200), rng.uniform(185, 220), rng.uniform(200, 235)])
        noise = rng.normal(0, 3.0, (size, size, 1))
        return np.clip(base[None, None, :] + noise, 0, 255).astype(np.uint8)
    return table_texture(kind, int(rng.integers(0, 3)), seed, (size, size), px_per_mm=2.0)


def _lamp(rng: np.random.Generator, size: int) -> np.ndarray:
    """A spot lamp's light over the picture (multiplier, HxWx1): bright where it points, falling
    off to between 0.35 and 0.8 of that at the far corner."""
    cx, cy = rng.uniform(-0.3, 1.3, 2) * size
    reach = rng.uniform(0.6, 1.4) * size
    floor = rng.uniform(0.35, 0.8)
    yy, xx = np.mgrid[0:size, 0:size].astype(np.float32)
    r2 = ((xx - cx) ** 2 + (yy - cy) ** 2) / (reach ** 2)
    light = floor + (1.0 - floor) * np.exp(-r2)
    return (light * rng.uniform(0.9, 1.15))[..., None]


def render_closeup(seed: int, size: int = 100, halves: tuple[int, int] | None = None,
                   table: str | None = None) -> Closeup:
    """A close-up of one ivory double-six tile, drawn from ``seed`` (see the module docstring)."""
    if not 32 <= size <= 512:
        raise RenderSpecError(f"close-up size {size!r} px is out of range 32..512")
    if table is not None and table not in CLOSEUP_TABLES:
        raise RenderSpecError(f"close-up table {table!r} is unknown; use one of "
                              f"{list(CLOSEUP_TABLES)}")
    rng = np.random.default_rng(seed)
    if halves is None:
        halves = (int(rng.integers(0, 7)), int(rng.integers(0, 7)))
    kind = table if table is not None else CLOSEUP_TABLES[int(rng.integers(len(CLOSEUP_TABLES)))]
    big = size * SUPERSAMPLE
    geom = GEOMETRY_BY_SET[6]
    style = tile_style("ivory", rng)
    # the tile's length is 45-85% of the picture's side, at any angle, anywhere it fits
    length_px = rng.uniform(0.45, 0.85) * big
    px_per_mm = length_px / geom.length_mm
    face_bgr, alpha = face_texture(halves, style, geom, float(min(40.0, px_per_mm / 2)))
    angle = rng.uniform(0, 2 * np.pi)
    ua = np.array([np.cos(angle), np.sin(angle)])
    ub = np.array([-ua[1], ua[0]])
    half_l, half_w = length_px / 2, geom.width_mm * px_per_mm / 2
    room = big / 2 - np.abs(ua) * half_l - np.abs(ub) * half_w
    centre = big / 2 + rng.uniform(-1, 1, 2) * np.maximum(room - 0.03 * big, 0)
    corners = np.array([centre - half_l * ua - half_w * ub, centre - half_l * ua + half_w * ub,
                        centre + half_l * ua + half_w * ub, centre + half_l * ua - half_w * ub])
    th, tw = face_bgr.shape[:2]
    src = np.array([[0, 0], [0, th], [tw, th], [tw, 0]], np.float32)
    hom = cv2.getPerspectiveTransform(src, corners.astype(np.float32))
    img = _background(kind, rng, big).astype(np.float32)
    # shadow, then side walls seen on one side (the camera is not quite overhead)
    shift = rng.uniform(-1, 1, 2) * 0.12 * half_w * 2
    shadow = np.zeros((big, big), np.float32)
    cv2.fillConvexPoly(shadow, np.round(corners + shift * 2.5).astype(np.int32), 1.0)
    soft = cv2.GaussianBlur(shadow, (0, 0), 0.08 * big)
    img *= (1.0 - rng.uniform(0.2, 0.5) * soft)[..., None]
    side = np.zeros((big, big), np.uint8)
    cv2.fillConvexPoly(side, np.round(np.concatenate([corners, corners + shift])).astype(np.int32)[
        cv2.convexHull(np.concatenate([corners, corners + shift]).astype(np.float32),
                       returnPoints=False).reshape(-1)], 255)
    img[side > 0] = np.array(style.side_bgr, np.float32)
    face = cv2.warpPerspective(face_bgr, hom, (big, big), flags=cv2.INTER_LINEAR).astype(np.float32)
    a = cv2.warpPerspective(alpha, hom, (big, big), flags=cv2.INTER_LINEAR)[..., None]
    img = img * (1 - a) + face * a
    img *= _lamp(rng, big)
    image = _camera_finish(img, size, rng)
    corners_out = (corners + 0.5) / SUPERSAMPLE - 0.5
    return Closeup(image, corners_out, halves, kind)


def _camera_finish(img: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
    """A supersampled close-up (float BGR) as a phone camera delivers it: shrunk to ``size``,
    a random slight defocus, sensor noise and JPEG coding (the draws in this order, so every
    seed's picture stays the same)."""
    out = cv2.resize(np.clip(img, 0, 255).astype(np.uint8), (size, size),
                     interpolation=cv2.INTER_AREA)
    sigma = rng.uniform(0.0, 0.9)
    if sigma > 0.2:
        out = cv2.GaussianBlur(out, (0, 0), sigma)
    out = np.clip(out.astype(np.float32) + rng.normal(0, rng.uniform(1, 5), out.shape), 0, 255)
    ok, enc = cv2.imencode(".jpg", out.astype(np.uint8),
                           [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(60, 95))])
    if not ok:
        raise RenderSpecError("JPEG coding of a close-up failed")
    image = cv2.imdecode(enc, cv2.IMREAD_COLOR)
    if image is None:
        raise RenderSpecError("JPEG decoding of a close-up failed")
    return image


#: Backgrounds of small-tile close-ups: the close-up tables and pale card (white to cream,
#: hardly darker than the tiles' faces).
SMALL_TABLES = CLOSEUP_TABLES + ("card",)
#: Tile families of small-tile close-ups: pale faces of training families only.
SMALL_FAMILIES = ("ivory", "white", "pipcolour")
#: Least and greatest tile width of a small-tile close-up, as a share of the picture's side.
SMALL_WIDTH = (0.08, 0.22)
#: Most tiles in one small-tile close-up.
SMALL_MAX_TILES = 4


@dataclass(frozen=True)
class SmallCloseup:
    """A close-up of small tiles and its truth: each tile's top-face corners (N, 4, 2) in output
    pixels (shared ground-truth order), halves (first half at corners 0-1), the table, the tile
    family and whether lamp glare was drawn. Every tile lies wholly inside the picture."""

    image_bgr: np.ndarray
    corners: np.ndarray
    halves: tuple[tuple[int, int], ...]
    table: str
    family: str
    glare: bool


def _card(rng: np.random.Generator, size: int) -> np.ndarray:
    """Pale card: near-white to cream, a faint tilt of light across it and fine grain."""
    base = np.array([rng.uniform(200, 245), rng.uniform(215, 248), rng.uniform(220, 250)])
    yy, xx = np.mgrid[0:size, 0:size].astype(np.float32) / size
    tilt = 1.0 + rng.uniform(-0.06, 0.06) * (xx - 0.5) + rng.uniform(-0.06, 0.06) * (yy - 0.5)
    grain = rng.normal(0, 2.0, (size, size, 1))
    return np.clip(base[None, None, :] * tilt[..., None] + grain, 0, 255).astype(np.uint8)


def _glare(rng: np.random.Generator, size: int) -> np.ndarray:
    """Lamp glare (HxWx1, 0..1): a soft bright ellipse, blended towards white by this much."""
    cx, cy = rng.uniform(0.1, 0.9, 2) * size
    ax = rng.uniform(0.08, 0.35) * size
    ay = ax * rng.uniform(0.3, 1.0)
    turn = rng.uniform(0, np.pi)
    yy, xx = np.mgrid[0:size, 0:size].astype(np.float32)
    u = (xx - cx) * np.cos(turn) + (yy - cy) * np.sin(turn)
    v = -(xx - cx) * np.sin(turn) + (yy - cy) * np.cos(turn)
    return (rng.uniform(0.35, 0.9) * np.exp(-((u / ax) ** 2 + (v / ay) ** 2)))[..., None]


def _small_halves(rng: np.random.Generator) -> tuple[int, int]:
    """Double-six halves, blanks often: a 0-0 double 1 time in 6, a blank half 1 in 3 more."""
    r = rng.random()
    if r < 1 / 6:
        return (0, 0)
    if r < 0.5:
        pair = [0, int(rng.integers(1, 7))]
        rng.shuffle(pair)
        return (pair[0], pair[1])
    return (int(rng.integers(0, 7)), int(rng.integers(0, 7)))


def _place(rng: np.random.Generator, big: float, half_l: float, half_w: float,
           placed: list[np.ndarray], gap: float) -> np.ndarray | None:
    """Corners of a tile of half length ``half_l`` and half width ``half_w`` at a random angle
    and place inside the picture (side ``big``), at least ``gap`` from the tiles ``placed``
    (outlines grown by ``gap`` do not meet); None when 100 tries find no room."""
    def grown(q: np.ndarray) -> np.ndarray:
        c = q.mean(axis=0)
        return (c + (q - c) * (1 + gap / half_w)).astype(np.float32)

    for _ in range(100):
        angle = rng.uniform(0, 2 * np.pi)
        ua = np.array([np.cos(angle), np.sin(angle)])
        ub = np.array([-ua[1], ua[0]])
        room = big / 2 - np.abs(ua) * half_l - np.abs(ub) * half_w - 0.04 * big
        if np.any(room <= 0):
            continue
        centre = big / 2 + rng.uniform(-1, 1, 2) * room
        corners = np.array([centre - half_l * ua - half_w * ub, centre - half_l * ua + half_w * ub,
                            centre + half_l * ua + half_w * ub, centre + half_l * ua - half_w * ub])
        if all(cv2.intersectConvexConvex(grown(corners), grown(q))[0] <= 0 for q in placed):
            return corners
    return None


def _place_all(rng: np.random.Generator, n: int, big: float, half_l: float, half_w: float,
               gap: float) -> list[np.ndarray]:
    """Corners of ``n`` tiles apart inside the picture (:func:`_place`), starting again from
    none up to 20 times when one finds no room."""
    for _ in range(20):
        placed: list[np.ndarray] = []
        while len(placed) < n:
            q = _place(rng, big, half_l, half_w, placed, gap)
            if q is None:
                break
            placed.append(q)
        if len(placed) == n:
            return placed
    raise RenderSpecError(f"no room for {n} tiles {2 * half_l:.0f} px long in a {big:.0f} px "
                          "close-up")


def _draw_tile(img: np.ndarray, corners: np.ndarray, halves: tuple[int, int], style: TileStyle,
               px_per_mm: float, shift: np.ndarray) -> None:
    """Side walls (seen towards ``shift``) and the top face of one tile onto ``img`` (float32)."""
    big = img.shape[0]
    geom = GEOMETRY_BY_SET[6]
    face_bgr, alpha = face_texture(halves, style, geom, float(np.clip(px_per_mm / 2, 1.0, 40.0)))
    th, tw = face_bgr.shape[:2]
    src = np.array([[0, 0], [0, th], [tw, th], [tw, 0]], np.float32)
    hom = cv2.getPerspectiveTransform(src, corners.astype(np.float32))
    both = np.concatenate([corners, corners + shift])
    side = np.zeros((big, big), np.uint8)
    cv2.fillConvexPoly(side, np.round(both).astype(np.int32)[
        cv2.convexHull(both.astype(np.float32), returnPoints=False).reshape(-1)], 255)
    img[side > 0] = np.array(style.side_bgr, np.float32)
    face = cv2.warpPerspective(face_bgr, hom, (big, big), flags=cv2.INTER_LINEAR).astype(np.float32)
    a = cv2.warpPerspective(alpha, hom, (big, big), flags=cv2.INTER_LINEAR)[..., None]
    img[...] = img * (1 - a) + face * a


def render_small_closeup(seed: int, size: int = 192, tiles: int | None = None,
                         table: str | None = None, family: str | None = None) -> SmallCloseup:
    """A close-up of ``tiles`` (default 1 to :data:`SMALL_MAX_TILES`, one most often) small pale
    double-six tiles, drawn from ``seed`` (see the module docstring): each tile
    :data:`SMALL_WIDTH` of the side wide (at most 0.22 for one tile, less for more: the widest
    is 0.08 plus 0.14 over the number of tiles), all apart and inside the picture, on ``table`` (one of :data:`SMALL_TABLES`; pale card
    half the time by default), of one ``family`` (one of :data:`SMALL_FAMILIES`), with lamp
    glare half the time; spot lamp, shadows, side walls, blur, noise and JPEG as in
    :func:`render_closeup`."""
    if not 32 <= size <= 512:
        raise RenderSpecError(f"close-up size {size!r} px is out of range 32..512")
    if tiles is not None and not 1 <= tiles <= SMALL_MAX_TILES:
        raise RenderSpecError(f"a small-tile close-up holds 1..{SMALL_MAX_TILES} tiles, "
                              f"got {tiles!r}")
    if table is not None and table not in SMALL_TABLES:
        raise RenderSpecError(f"close-up table {table!r} is unknown; use one of "
                              f"{list(SMALL_TABLES)}")
    if family is not None and family not in SMALL_FAMILIES:
        raise RenderSpecError(f"small-tile close-up family {family!r} is not one of "
                              f"{list(SMALL_FAMILIES)} (pale training families only)")
    rng = np.random.default_rng(seed)
    n = tiles if tiles is not None else int(rng.choice([1, 1, 1, 2, 3, 4]))
    kind = table if table is not None else (
        "card" if rng.random() < 0.5 else CLOSEUP_TABLES[int(rng.integers(len(CLOSEUP_TABLES)))])
    fam = family if family is not None else SMALL_FAMILIES[int(rng.integers(len(SMALL_FAMILIES)))]
    big = size * SUPERSAMPLE
    geom = GEOMETRY_BY_SET[6]
    style = tile_style(fam, rng)
    # the more tiles, the smaller they may be at most (four fit at 0.115 of the side wide)
    widest = SMALL_WIDTH[0] + (SMALL_WIDTH[1] - SMALL_WIDTH[0]) / n
    width_px = rng.uniform(SMALL_WIDTH[0], widest) * big
    px_per_mm = width_px / geom.width_mm
    half_w, half_l = width_px / 2, geom.length_mm * px_per_mm / 2
    shift = rng.uniform(-1, 1, 2) * 0.12 * width_px
    gap = float(np.abs(shift).max()) + 0.02 * big
    placed = _place_all(rng, n, big, half_l, half_w, gap)
    values = tuple(_small_halves(rng) for _ in placed)
    img = (_card(rng, big) if kind == "card" else _background(kind, rng, big)).astype(np.float32)
    shadow = np.zeros((big, big), np.float32)
    for q in placed:
        cv2.fillConvexPoly(shadow, np.round(q + shift * 2.5).astype(np.int32), 1.0)
    soft = cv2.GaussianBlur(shadow, (0, 0), 0.5 * width_px)
    img *= (1.0 - rng.uniform(0.1, 0.4) * soft)[..., None]
    for q, v in zip(placed, values):
        _draw_tile(img, q, v, style, px_per_mm, shift)
    img *= _lamp(rng, big)
    glare = bool(rng.random() < 0.5)
    if glare:
        g = _glare(rng, big)
        img = img * (1 - g) + 255.0 * g
    image = _camera_finish(img, size, rng)
    corners_out = (np.stack(placed) + 0.5) / SUPERSAMPLE - 0.5
    return SmallCloseup(image, corners_out, values, kind, fam, glare)


#: Backgrounds of phone close-ups (:func:`render_phone_closeup`): the close-up tables, pale
#: card, checked or plain cloth, a near-black surface, and stone (a held-out table look: an
#: evaluation family may draw it, a training family leaves it out with ``tables``).
PHONE_TABLES = SMALL_TABLES + ("cloth", "black", "stone")
#: Tile families of phone close-ups: ivory (the real photos' sets) and white faces.
PHONE_FAMILIES = ("ivory", "white")
#: Size classes of a phone close-up's tile: its width as a share of the picture's side. Real
#: single-tile phone photos hold tiles from about 0.09 of the side wide upwards.
PHONE_SIZES = {"small": (0.09, 0.16), "medium": (0.16, 0.26), "large": (0.26, 0.42)}
#: Kinds of halves drawn equally often: a blank double, one blank half, pips on both.
PHONE_KINDS = ("0-0", "blank half", "pips")


@dataclass(frozen=True)
class PhoneCloseup:
    """A phone close-up of one tile and its truth: the top face's corners (4, 2) in output
    pixels (shared ground-truth order), its halves (first half at corners 0-1), its size class
    (a key of :data:`PHONE_SIZES`), its kind of halves (one of :data:`PHONE_KINDS`), the
    table, the tile family and whether lamp glare was drawn."""

    image_bgr: np.ndarray
    corners: np.ndarray
    halves: tuple[int, int]
    size_class: str
    kind: str
    table: str
    family: str
    glare: bool


def _black(rng: np.random.Generator, size: int) -> np.ndarray:
    """A near-black surface (dark cloth, a black table): 12-45 grey levels, faint grain."""
    base = rng.uniform(12, 45) + rng.uniform(-4, 4, 3)
    grain = rng.normal(0, 2.5, (size, size, 1))
    return np.clip(base[None, None, :] + grain, 0, 255).astype(np.uint8)


def _phone_halves(rng: np.random.Generator, kind: str) -> tuple[int, int]:
    """Double-six halves of ``kind`` (one of :data:`PHONE_KINDS`)."""
    if kind == "0-0":
        return (0, 0)
    if kind == "blank half":
        pair = [0, int(rng.integers(1, 7))]
        rng.shuffle(pair)
        return (pair[0], pair[1])
    return (int(rng.integers(1, 7)), int(rng.integers(1, 7)))


def render_phone_closeup(seed: int, size: int = 100, size_class: str | None = None,
                         kind: str | None = None, table: str | None = None,
                         tables: tuple[str, ...] = PHONE_TABLES) -> PhoneCloseup:
    """A phone photo of one double-six tile seen from above, drawn from ``seed``: the tile of a
    ``size_class`` (:data:`PHONE_SIZES`, each a third of the time by default) at any angle,
    wholly inside the picture, its halves of a ``kind`` (:data:`PHONE_KINDS`: blank doubles and
    blank halves a third of the time each), ivory or white with a divider (the sets of real
    phone photos have one), on ``table`` (default drawn from ``tables``, a subset of
    :data:`PHONE_TABLES`), with a spot lamp, a soft shadow, side walls, lamp glare a third of
    the time, then blur, noise and JPEG as in :func:`render_closeup`. An evaluation family of
    its own (the tile finder's misses on real single-tile photos are blank doubles and small
    tiles): no other function's pictures change."""
    if not 32 <= size <= 512:
        raise RenderSpecError(f"close-up size {size!r} px is out of range 32..512")
    if size_class is not None and size_class not in PHONE_SIZES:
        raise RenderSpecError(f"size class {size_class!r} is unknown; use one of "
                              f"{list(PHONE_SIZES)}")
    if kind is not None and kind not in PHONE_KINDS:
        raise RenderSpecError(f"kind of halves {kind!r} is unknown; use one of "
                              f"{list(PHONE_KINDS)}")
    bad = [t for t in ((table,) if table is not None else tables) if t not in PHONE_TABLES]
    if bad or not tables:
        raise RenderSpecError(f"phone close-up tables {bad or list(tables)!r} are not a "
                              f"non-empty choice of {list(PHONE_TABLES)}")
    rng = np.random.default_rng(seed)
    cls = size_class if size_class is not None else list(PHONE_SIZES)[int(rng.integers(3))]
    knd = kind if kind is not None else PHONE_KINDS[int(rng.integers(3))]
    where = table if table is not None else tables[int(rng.integers(len(tables)))]
    fam = PHONE_FAMILIES[int(rng.random() < 0.3)]
    big = size * SUPERSAMPLE
    geom = GEOMETRY_BY_SET[6]
    style = replace(tile_style(fam, rng), divider=True)
    width_px = rng.uniform(*PHONE_SIZES[cls]) * big
    px_per_mm = width_px / geom.width_mm
    half_w, half_l = width_px / 2, geom.length_mm * px_per_mm / 2
    shift = rng.uniform(-1, 1, 2) * 0.12 * width_px
    (corners,) = _place_all(rng, 1, big, half_l, half_w, float(np.abs(shift).max()))
    halves = _phone_halves(rng, knd)
    if where == "card":
        img = _card(rng, big)
    elif where == "black":
        img = _black(rng, big)
    elif where in CLOSEUP_TABLES:
        img = _background(where, rng, big)
    else:
        img = table_texture(where, int(rng.integers(0, 4)), int(rng.integers(0, 2**31 - 1)),
                            (big, big), px_per_mm=px_per_mm / 2)
    img = img.astype(np.float32)
    shadow = np.zeros((big, big), np.float32)
    cv2.fillConvexPoly(shadow, np.round(corners + shift * 2.5).astype(np.int32), 1.0)
    soft = cv2.GaussianBlur(shadow, (0, 0), 0.5 * width_px)
    img *= (1.0 - rng.uniform(0.1, 0.45) * soft)[..., None]
    _draw_tile(img, corners, halves, style, px_per_mm, shift)
    img *= _lamp(rng, big)
    glare = bool(rng.random() < 1 / 3)
    if glare:
        g = _glare(rng, big)
        img = img * (1 - g) + 255.0 * g
    image = _camera_finish(img, size, rng)
    corners_out = (corners + 0.5) / SUPERSAMPLE - 0.5
    return PhoneCloseup(image, corners_out, halves, cls, knd, where, fam, glare)
