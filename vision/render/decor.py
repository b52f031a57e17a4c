"""Printed game-board art on the table (opt-in): :func:`draw_decor`.

Real domino game boards are printed: grid lines, borders, geometric motifs (diamonds, stars,
circles) carrying numerals, lettering, logos, coloured panels, rows of dots and tile-sized
boxes. A tile finder trained only on plain tables takes such prints for tiles. This module
draws generic board art of that kind (no copy of any photo) onto the table texture, in table
millimetres, so the art is warped, lit, blurred and compressed with the table like a print.

Decorations are off unless a scene asks for them (:attr:`vision.render.scene.SceneSpec.decor`),
and every draw comes from its own generator ``np.random.default_rng((seed, DECOR_STREAM))``:
scenes without decorations render exactly as before.

Held-out variants: the motif kinds in :data:`HELD_OUT_MOTIFS` (hexagons, script lettering)
are drawn only on held-out scenes, so validation measures decorations never seen in training.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

#: Stream number mixed into the scene seed for the decoration's generator.
DECOR_STREAM = 0xDEC0
#: Motif kinds of training scenes.
TRAIN_MOTIFS = ("diamond", "star", "circle", "square", "triangle")
#: Motif kinds drawn only on held-out scenes.
HELD_OUT_MOTIFS = ("hexagon", "script")
#: Sub-pixel bits for OpenCV drawing.
_SHIFT = 4

_FONTS = (cv2.FONT_HERSHEY_SIMPLEX, cv2.FONT_HERSHEY_DUPLEX, cv2.FONT_HERSHEY_TRIPLEX,
          cv2.FONT_HERSHEY_COMPLEX, cv2.FONT_HERSHEY_PLAIN,
          cv2.FONT_HERSHEY_SIMPLEX | cv2.FONT_ITALIC, cv2.FONT_HERSHEY_COMPLEX | cv2.FONT_ITALIC)
_SCRIPT_FONTS = (cv2.FONT_HERSHEY_SCRIPT_SIMPLEX, cv2.FONT_HERSHEY_SCRIPT_COMPLEX)
_LETTERS = "ABCDEFGHIJKLMNOPRSTUVWYZ abcdefghijklmnoprstuvwyz"

#: Board ground colours (BGR): felt greens, reds, blues, cream, black, wood-brown.
_BOARDS = ((40, 95, 25), (30, 60, 20), (35, 35, 140), (25, 25, 95), (110, 55, 15), (70, 40, 10),
           (180, 215, 225), (150, 190, 210), (25, 25, 25), (40, 70, 110))
#: Ink colours (BGR): white, cream, gold, black, red, blue, green, silver.
_INKS = ((240, 240, 240), (200, 230, 240), (60, 170, 210), (20, 20, 20), (40, 40, 190),
         (150, 70, 20), (50, 130, 40), (190, 190, 190))


class _Painter:
    """Draws on a texture whose pixel (0, 0) is table point ``origin`` mm, ``ppm`` px per mm."""

    def __init__(self, tex: np.ndarray, origin: tuple[float, float], ppm: float) -> None:
        self.tex = tex
        self.origin = np.asarray(origin, np.float64)
        self.ppm = ppm

    def px(self, pts_mm: np.ndarray) -> np.ndarray:
        """Fixed-point pixel coordinates of table points (N, 2) mm."""
        p = (np.asarray(pts_mm, np.float64).reshape(-1, 2) - self.origin) * self.ppm
        return np.round(p * (1 << _SHIFT)).astype(np.int32)

    def width(self, mm: float) -> int:
        return max(1, int(round(mm * self.ppm)))

    def poly(self, pts_mm: np.ndarray, ink: tuple[int, ...], fill: bool, line_mm: float) -> None:
        p = self.px(pts_mm).reshape(-1, 1, 2)
        if fill:
            cv2.fillPoly(self.tex, [p], ink, cv2.LINE_AA, _SHIFT)
        else:
            cv2.polylines(self.tex, [p], True, ink, self.width(line_mm), cv2.LINE_AA, _SHIFT)

    def line(self, a: np.ndarray, b: np.ndarray, ink: tuple[int, ...], line_mm: float) -> None:
        pa, pb = self.px(a)[0], self.px(b)[0]
        cv2.line(self.tex, (int(pa[0]), int(pa[1])), (int(pb[0]), int(pb[1])), ink,
                 self.width(line_mm), cv2.LINE_AA, _SHIFT)

    def circle(self, c: np.ndarray, r_mm: float, ink: tuple[int, ...], fill: bool,
               line_mm: float) -> None:
        pc = self.px(c)[0]
        r = int(round(r_mm * self.ppm * (1 << _SHIFT)))
        cv2.circle(self.tex, (int(pc[0]), int(pc[1])), max(1, r), ink,
                   -1 if fill else self.width(line_mm), cv2.LINE_AA, _SHIFT)

    def text(self, s: str, c: np.ndarray, height_mm: float, font: int, ink: tuple[int, ...],
             angle_deg: float, bold: float) -> None:
        """``s`` centred at ``c``, letters ``height_mm`` tall, turned by ``angle_deg``."""
        h_px = height_mm * self.ppm
        if h_px < 3 or not s.strip():
            return
        scale = h_px / 22.0
        thick = max(1, int(round(bold * h_px / 8)))
        (tw, th), base = cv2.getTextSize(s, font, scale, thick)
        pad = thick + 2
        patch = np.zeros((th + base + 2 * pad, tw + 2 * pad), np.uint8)
        cv2.putText(patch, s, (pad, pad + th), font, scale, 255, thick, cv2.LINE_AA)
        centre = (self.px(c)[0] / (1 << _SHIFT))
        M = cv2.getRotationMatrix2D((patch.shape[1] / 2, patch.shape[0] / 2), angle_deg, 1.0)
        M[:, 2] += centre - (patch.shape[1] / 2, patch.shape[0] / 2)
        H, W = self.tex.shape[:2]
        alpha = cv2.warpAffine(patch, M, (W, H), flags=cv2.INTER_LINEAR,
                               borderMode=cv2.BORDER_CONSTANT, borderValue=0)
        a = alpha.astype(np.float32)[..., None] / 255.0
        self.tex[:] = (self.tex * (1 - a) + np.asarray(ink, np.float32) * a).astype(self.tex.dtype)


def _rot(angle_deg: float) -> np.ndarray:
    a = math.radians(angle_deg)
    return np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])


def _shape(kind: str, size_mm: float, angle_deg: float, rng: np.random.Generator) -> np.ndarray:
    """Outline points (N, 2) mm about (0, 0) of a motif ``kind``."""
    r = size_mm / 2
    if kind == "diamond":
        p = np.array([[0, -r], [r * 0.7, 0], [0, r], [-r * 0.7, 0]])
    elif kind == "star":
        n = int(rng.choice([5, 6, 8]))
        t = np.arange(2 * n) * math.pi / n
        rad = np.where(np.arange(2 * n) % 2 == 0, r, r * float(rng.uniform(0.4, 0.6)))
        p = np.column_stack([rad * np.sin(t), -rad * np.cos(t)])
    elif kind == "square":
        p = np.array([[-r, -r], [r, -r], [r, r], [-r, r]]) * 0.8
    elif kind == "triangle":
        t = np.arange(3) * 2 * math.pi / 3
        p = np.column_stack([r * np.sin(t), -r * np.cos(t)])
    elif kind == "hexagon":
        t = np.arange(6) * math.pi / 3
        p = np.column_stack([r * np.cos(t), r * np.sin(t)])
    else:  # circle (as a polygon; drawn as a circle)
        t = np.linspace(0, 2 * math.pi, 48, endpoint=False)
        p = np.column_stack([r * np.cos(t), r * np.sin(t)])
    return p @ _rot(angle_deg).T


def _pip_offsets(n: int) -> list[tuple[float, float]]:
    """Pip positions (-1..1) of the usual layout of ``n`` (0..9) pips."""
    lay = {0: [], 1: [(0, 0)], 2: [(-1, -1), (1, 1)], 3: [(-1, -1), (0, 0), (1, 1)],
           4: [(-1, -1), (1, -1), (-1, 1), (1, 1)],
           5: [(-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)],
           6: [(-1, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (1, 1)],
           7: [(-1, -1), (1, -1), (-1, 0), (0, 0), (1, 0), (-1, 1), (1, 1)],
           8: [(-1, -1), (0, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (0, 1), (1, 1)],
           9: [(x, y) for y in (-1, 0, 1) for x in (-1, 0, 1)]}
    return lay[n]


def draw_decor(tex_bgr: np.ndarray, seed: int, origin_mm: tuple[float, float], ppm: float,
               centre_mm: tuple[float, float], tile_mm: tuple[float, float],
               held_out: bool) -> np.ndarray:
    """Board art drawn over the table texture ``tex_bgr`` (uint8 BGR; pixel (0, 0) is table
    point ``origin_mm``, ``ppm`` px per mm), centred near table point ``centre_mm`` and sized
    from the tiles (``tile_mm`` = (length, width)); returns a new uint8 texture."""
    if tex_bgr.dtype != np.uint8 or tex_bgr.ndim != 3 or tex_bgr.shape[2] != 3:
        raise ValueError(f"decor needs a uint8 BGR texture (h, w, 3), got {tex_bgr.dtype} "
                         f"{tex_bgr.shape}")
    if not ppm > 0:
        raise ValueError(f"decor needs px per mm > 0, got {ppm!r}")
    rng = np.random.default_rng((int(seed), DECOR_STREAM))
    tex = tex_bgr.copy()
    pt = _Painter(tex, origin_mm, ppm)
    L, Wt = float(tile_mm[0]), float(tile_mm[1])
    motifs = TRAIN_MOTIFS + (HELD_OUT_MOTIFS if held_out else ())
    angle = float(rng.choice([0.0, 90.0, float(rng.uniform(0, 180))]))
    R = _rot(angle)
    c0 = np.asarray(centre_mm, np.float64) + rng.normal(0, 60, 2)

    def at(local: np.ndarray) -> np.ndarray:
        return np.asarray(local, np.float64).reshape(-1, 2) @ R.T + c0

    inks = list(_INKS)
    ink = inks[int(rng.integers(len(inks)))]
    ink2 = inks[int(rng.integers(len(inks)))]

    def pick_ink() -> tuple[int, ...]:
        return ink if rng.random() < 0.6 else (ink2 if rng.random() < 0.6
                                               else inks[int(rng.integers(len(inks)))])

    # the board: a coloured panel with a border (sometimes the whole visible table)
    half = np.array([rng.uniform(180, 600), rng.uniform(150, 450)])
    if rng.random() < 0.7:
        ground = np.asarray(_BOARDS[int(rng.integers(len(_BOARDS)))], np.float32)
        h, w = tex.shape[:2]
        mottle = cv2.resize(rng.random((6, 6)).astype(np.float32), (w, h),
                            interpolation=cv2.INTER_CUBIC)
        panel = np.zeros((h, w), np.uint8)
        box = at(np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]]) * half)
        if rng.random() < 0.4:
            panel[:] = 255
        else:
            cv2.fillPoly(panel, [pt.px(box).reshape(-1, 1, 2)], 255, cv2.LINE_AA, _SHIFT)
        board = ground * (0.9 + 0.2 * mottle)[..., None]
        board += rng.normal(0, 4, (h, w, 1)).astype(np.float32)
        a = (panel.astype(np.float32) / 255.0)[..., None]
        tex[:] = np.clip(tex * (1 - a) + board * a, 0, 255).astype(np.uint8)
    for k in range(int(rng.integers(1, 4))):  # borders, one inside the other
        inset = k * float(rng.uniform(6, 20))
        box = at(np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]]) * (half - inset))
        pt.poly(box, pick_ink(), False, float(rng.uniform(0.6, 3.0)))

    # grid lines, cells of a tile's size or a multiple
    if rng.random() < 0.55:
        cell = np.array([L, Wt]) * float(rng.choice([1.0, 1.0, 1.5, 2.0]))
        if rng.random() < 0.5:
            cell = np.array([cell[0], cell[0]])
        g_ink, g_w = pick_ink(), float(rng.uniform(0.4, 1.6))
        gx = half[0] * float(rng.uniform(0.4, 1.0))
        gy = half[1] * float(rng.uniform(0.4, 1.0))
        for x in np.arange(-gx, gx + 1e-6, cell[0]):
            pt.line(at([x, -gy])[0], at([x, gy])[0], g_ink, g_w)
        for y in np.arange(-gy, gy + 1e-6, cell[1]):
            pt.line(at([-gx, y])[0], at([gx, y])[0], g_ink, g_w)

    # curved and straight lines across the board
    for _ in range(int(rng.integers(0, 5))):
        if rng.random() < 0.5:
            c = at(rng.uniform(-half, half))[0]
            r = float(rng.uniform(30, 300))
            a0 = float(rng.uniform(0, 360))
            t = np.radians(np.linspace(a0, a0 + float(rng.uniform(40, 360)), 60))
            pts = c + r * np.column_stack([np.cos(t), np.sin(t) * rng.uniform(0.5, 1.0)])
            p = pt.px(pts).reshape(-1, 1, 2)
            cv2.polylines(tex, [p], False, pick_ink(), pt.width(float(rng.uniform(0.5, 3))),
                          cv2.LINE_AA, _SHIFT)
        else:
            a, b = at(rng.uniform(-half, half)), at(rng.uniform(-half, half))
            pt.line(a[0], b[0], pick_ink(), float(rng.uniform(0.5, 3)))

    # coloured panels, some of a tile's size
    for _ in range(int(rng.integers(0, 6))):
        if rng.random() < 0.5:
            size = np.array([L, Wt]) * float(rng.uniform(0.9, 1.15)) / 2
        else:
            size = rng.uniform(10, 90, 2)
        c = rng.uniform(-half, half)
        turn = _rot(float(rng.choice([0.0, 90.0, float(rng.uniform(0, 180))])))
        box = (np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]]) * size) @ turn.T + c
        fill = rng.random() < 0.6
        colour = pick_ink() if rng.random() < 0.5 else _BOARDS[int(rng.integers(len(_BOARDS)))]
        pt.poly(at(box), colour, fill, float(rng.uniform(0.6, 2.5)))
        if rng.random() < 0.5:  # a middle line, as on a tile
            mid = (np.array([[0, -1], [0, 1]]) * size) @ turn.T + c
            pt.line(at(mid[0])[0], at(mid[1])[0], pick_ink(), float(rng.uniform(0.5, 1.5)))

    # motifs carrying numerals
    kinds = [str(k) for k in motifs if k != "script"]
    for _ in range(int(rng.integers(4, 22))):
        kind = str(rng.choice(kinds))
        size = float(rng.uniform(0.7, 3.0)) * Wt
        c = at(rng.uniform(-half, half))[0]
        m_ink = pick_ink()
        turn = float(rng.uniform(0, 360))
        fill = rng.random() < 0.5
        if kind == "circle":
            pt.circle(c, size / 2, m_ink, fill, float(rng.uniform(0.6, 2.5)))
        else:
            pt.poly(_shape(kind, size, turn, rng) + c, m_ink, fill, float(rng.uniform(0.6, 2.5)))
        if rng.random() < 0.8:
            num = str(int(rng.choice([rng.integers(0, 16), 5 * rng.integers(1, 21)])))
            t_ink = inks[int(rng.integers(len(inks)))]
            if fill and t_ink == m_ink:
                t_ink = (255 - m_ink[0], 255 - m_ink[1], 255 - m_ink[2])
            pt.text(num, c, size * float(rng.uniform(0.25, 0.5)),
                    _FONTS[int(rng.integers(len(_FONTS)))], t_ink, angle + float(rng.normal(0, 5)),
                    float(rng.uniform(0.8, 2.0)))

    # dots that look like pips: pip layouts, rows of dots
    for _ in range(int(rng.integers(1, 10))):
        c = at(rng.uniform(-half, half))[0]
        pip_r = float(rng.uniform(0.08, 0.14)) * Wt
        step = float(rng.uniform(0.25, 0.32)) * Wt
        d_ink = pick_ink()
        turn = _rot(angle + float(rng.choice([0.0, 90.0, float(rng.uniform(0, 90))])))
        if rng.random() < 0.7:
            offsets = np.asarray(_pip_offsets(int(rng.integers(1, 10))), np.float64).reshape(-1, 2)
        else:
            n = int(rng.integers(3, 15))
            offsets = np.column_stack([np.arange(n) - (n - 1) / 2, np.zeros(n)])
        for off in offsets:
            pt.circle(c + (off * step) @ turn.T, pip_r, d_ink, True, 1.0)

    # lettering: words, sometimes along an arc (a logo), sometimes in script (held-out only)
    for _ in range(int(rng.integers(1, 6))):
        n = int(rng.integers(3, 12))
        word = "".join(str(rng.choice(list(_LETTERS))) for _ in range(n))
        script = "script" in motifs and rng.random() < 0.5
        font = (_SCRIPT_FONTS[int(rng.integers(2))] if script
                else _FONTS[int(rng.integers(len(_FONTS)))])
        height = float(rng.uniform(0.3, 1.6)) * Wt
        c = at(rng.uniform(-half, half))[0]
        if rng.random() < 0.3:  # a logo: rings and letters round them
            r = float(rng.uniform(1.0, 2.5)) * Wt
            l_ink = pick_ink()
            pt.circle(c, r, l_ink, False, float(rng.uniform(0.6, 2)))
            pt.circle(c, r * 0.72, l_ink, rng.random() < 0.4, float(rng.uniform(0.6, 2)))
            for j, ch in enumerate(word):
                t = math.radians(-150 + 300 * j / max(1, len(word) - 1))
                p = c + r * 0.86 * np.array([math.sin(t), -math.cos(t)])
                pt.text(ch, p, r * 0.22, font, l_ink, -math.degrees(t), 1.0)
        else:
            pt.text(word, c, height, font, pick_ink(), angle + float(rng.normal(0, 3)),
                    float(rng.uniform(0.7, 1.8)))

    # wear: the print faded a little where the board is rubbed
    h, w = tex.shape[:2]
    wear = cv2.resize(rng.random((5, 5)).astype(np.float32), (w, h), interpolation=cv2.INTER_CUBIC)
    mix = np.clip(0.15 * wear, 0, 0.15)[..., None]
    out = tex.astype(np.float32) * (1 - mix) + tex_bgr.astype(np.float32) * mix
    return np.clip(out, 0, 255).astype(np.uint8)


__all__ = ["draw_decor", "TRAIN_MOTIFS", "HELD_OUT_MOTIFS", "DECOR_STREAM"]
