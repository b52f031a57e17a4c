"""Set enrollment: lay a set out face up, take one picture, and learn what that set looks like.

From the tiles of one photo (found by the reader's detector, :func:`vision.detect.detect_tiles`,
or given as pixel corners), :func:`enroll_set` measures:

- the tile size: long and short side in image pixels (median) and, with a table plane, in
  millimetres on the table (the top face, corrected for the tile's thickness with the camera
  pose);
- the face and pip colours (medians in CIE Lab, OpenCV's 8-bit scaling: L 0..255, a and b
  offset by 128) and the polarity (``"light"``: face brighter than pips; ``"dark"``: darker),
  with the face/pip contrast (Lab distance);
- the colour of each player's set (Build Up and other games where every player has a set of
  another colour): the tile face colours clustered into ``n_sets`` groups by deterministic
  k-means.

The result is a :class:`SetProfile`, stored as a versioned JSON file (:func:`save_profile`).

The reader uses it through :meth:`SetProfile.reading_hints` (``vision.read.Reader(hints=...)``,
``domino-companion read --profile``, and the live companion when the calibration folder holds a
profile): tiles are also looked for on the frame redrawn light-face / dark-pips from the enrolled
colours (:func:`normalise_to_profile`), every found tile must have a face near an enrolled face
colour (:func:`face_distance`, or :func:`lit_face_distance` for another light), a tile found only
on the redrawn frame must also show pips or a divider (:func:`pip_fraction`), and where both
pictures found a tile the more confident reading is kept. Measured with ``python -m
calibration.bench --reading-only`` (docs/benchmarks.md): with the 24-epoch tile finder the plain
reading already reads 98 % of the bench's scenes and the profile adds a little in every family
(1378 -> 1385 of 1405, fewer false tiles) at about three times the read time; it can still lose
a tile the plain reading had right (a glint-white tile dropped by the colour check, a surer
misreading on the redrawn frame; a strict xfail in the tests).
:meth:`SetProfile.expected_tile_px` is a tile-size prior at any table position and
:meth:`SetProfile.nearest_set` says whose set a tile belongs to.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping, Sequence

import cv2
import numpy as np

from calibration.files import calibration_dir
from calibration.plane import CalibrationError, TablePlane
from calibration.store import load_versioned, previous_path, save_versioned

PROFILE_KIND, PROFILE_VERSION = "set-profile", 1
PROFILE_FILE = "set_profile.json"
#: Thickness of a tile as a fraction of its width when not given (standard double-six tiles are
#: about 48 x 24 x 7.5 mm: 0.31).
THICKNESS_PER_WIDTH = 0.31
#: Smallest face/pip Lab distance that counts as pips on a tile (below it the tile is taken as
#: blank or unreadable and gives only its face colour).
MIN_PIP_CONTRAST = 18.0
#: Canonical size (pixels) a tile's top face is warped to for colour measurement.
CANON = (96, 48)
#: Tile widths (short side, mm) an enrollment accepts: domino tiles are about 20 to 35 mm wide;
#: outside this the tiles found are something else (pips taken for tiles, a board's squares).
TILE_WIDTH_MM = (12.0, 45.0)


class EnrollmentError(CalibrationError):
    """A photo or tile list that cannot teach the companion a set."""


@dataclass(frozen=True)
class SetColour:
    """One player's set: its face colour (Lab and BGR), how many enrolled tiles had it, and the
    nearest plain colour name."""

    lab: tuple[float, float, float]
    bgr: tuple[int, int, int]
    tiles: int
    name: str


@dataclass(frozen=True)
class SetProfile:
    """What a set looks like (see the module docstring)."""

    n_tiles: int
    tile_px: tuple[float, float]  # (long, short) median in the enrollment photo
    tile_mm: tuple[float, float] | None  # (long, short) on the table, None without a plane
    face_lab: tuple[float, float, float]
    pip_lab: tuple[float, float, float] | None
    polarity: str  # "light", "dark" or "unknown"
    contrast: float
    sets: tuple[SetColour, ...]
    tile_labs: tuple[tuple[float, float, float], ...] = field(default=(), compare=False)

    def expected_tile_px(self, plane: TablePlane, point_mm: Sequence[float]) -> tuple[float, float]:
        """The tile's (long, short) size in pixels at a table position, from its size in mm and
        the plane: a size prior for the detector."""
        if self.tile_mm is None:
            raise EnrollmentError("this profile has no tile size in mm (it was enrolled without "
                                  "a table calibration); enroll again after `calibrate`")
        s = plane.px_per_mm_at(point_mm)
        return (self.tile_mm[0] * s, self.tile_mm[1] * s)

    def reading_hints(self) -> "ProfileHints":
        """The reader's hints from this profile (see the module docstring)."""
        return ProfileHints(self)

    def nearest_set(self, face_lab: Sequence[float]) -> int:
        """Index into :attr:`sets` of the set whose face colour is nearest to ``face_lab``."""
        lab = np.asarray(face_lab, np.float64).reshape(3)
        d = [float(np.linalg.norm(lab - np.asarray(s.lab))) for s in self.sets]
        return int(np.argmin(d))

    def to_dict(self) -> dict[str, Any]:
        return {
            "n_tiles": self.n_tiles, "tile_px": list(self.tile_px),
            "tile_mm": None if self.tile_mm is None else list(self.tile_mm),
            "face_lab": list(self.face_lab),
            "pip_lab": None if self.pip_lab is None else list(self.pip_lab),
            "polarity": self.polarity, "contrast": self.contrast,
            "sets": [{"lab": list(s.lab), "bgr": list(s.bgr), "tiles": s.tiles, "name": s.name}
                     for s in self.sets],
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "SetProfile":
        def trip(v: Any) -> tuple[float, float, float]:
            t = tuple(float(x) for x in v)
            if len(t) != 3:
                raise EnrollmentError(f"a Lab colour needs 3 numbers, got {v!r}")
            return t  # type: ignore[return-value]

        polarity = str(d["polarity"])
        if polarity not in ("light", "dark", "unknown"):
            raise EnrollmentError(f"polarity {polarity!r} must be light, dark or unknown")
        sets = tuple(SetColour(trip(s["lab"]), tuple(int(x) for x in s["bgr"]),  # type: ignore[arg-type]
                               int(s["tiles"]), str(s["name"])) for s in d["sets"])
        if not sets:
            raise EnrollmentError("a set profile needs at least one set colour")
        return cls(int(d["n_tiles"]), (float(d["tile_px"][0]), float(d["tile_px"][1])),
                   None if d.get("tile_mm") is None else
                   (float(d["tile_mm"][0]), float(d["tile_mm"][1])),
                   trip(d["face_lab"]), None if d.get("pip_lab") is None else trip(d["pip_lab"]),
                   polarity, float(d["contrast"]), sets)


_NAMED_BGR = {
    "white": (235, 235, 235), "ivory": (200, 235, 245), "black": (30, 30, 30),
    "grey": (128, 128, 128), "red": (40, 40, 190), "orange": (30, 120, 230),
    "yellow": (40, 200, 230), "green": (50, 130, 40), "teal": (130, 130, 20),
    "blue": (160, 80, 30), "purple": (120, 50, 110), "pink": (170, 120, 230),
    "brown": (40, 70, 120),
}


def _bgr_to_lab(bgr: np.ndarray) -> np.ndarray:
    px = np.asarray(bgr, np.uint8).reshape(-1, 1, 3)
    return cv2.cvtColor(px, cv2.COLOR_BGR2LAB).reshape(-1, 3).astype(np.float64)


def _lab_to_bgr(lab: Sequence[float]) -> tuple[int, int, int]:
    px = np.clip(np.round(np.asarray(lab, np.float64)), 0, 255).astype(np.uint8).reshape(1, 1, 3)
    b, g, r = cv2.cvtColor(px, cv2.COLOR_LAB2BGR).reshape(3)
    return int(b), int(g), int(r)


def colour_name(lab: Sequence[float]) -> str:
    """The nearest plain colour name of a Lab colour."""
    names = list(_NAMED_BGR)
    labs = _bgr_to_lab(np.array([_NAMED_BGR[n] for n in names]))
    d = np.linalg.norm(labs - np.asarray(lab, np.float64), axis=1)
    return names[int(np.argmin(d))]


def tile_colours(frame_bgr: np.ndarray, corners_px: np.ndarray
                 ) -> tuple[np.ndarray, np.ndarray | None]:
    """Face and pip colour (Lab medians) of one tile; pips ``None`` when the tile shows none.

    The top face is warped to a 2:1 rectangle, its rim and the divider band are left out, and the
    pixels are split in two by Otsu's threshold along their main colour direction; the larger
    part is the face, the smaller the pips."""
    c = np.asarray(corners_px, np.float32).reshape(4, 2)
    w, h = CANON
    # corners go around the outline with 0-1 a short edge; make the long side horizontal
    if np.linalg.norm(c[1] - c[0]) > np.linalg.norm(c[2] - c[1]):
        c = np.roll(c, -1, axis=0)
    dst = np.array([[0, 0], [0, h - 1], [w - 1, h - 1], [w - 1, 0]], np.float32)
    M = cv2.getPerspectiveTransform(c, dst)
    face = cv2.warpPerspective(frame_bgr, M, (w, h), flags=cv2.INTER_AREA)
    lab = cv2.cvtColor(face, cv2.COLOR_BGR2LAB).astype(np.float64)
    mx, my = int(0.12 * w), int(0.16 * h)
    keep = np.zeros((h, w), bool)
    keep[my:h - my, mx:w - mx] = True
    keep[:, int(0.46 * w):int(0.54 * w) + 1] = False  # the divider
    pix = lab[keep]
    mean = pix.mean(axis=0)
    centred = pix - mean
    _, _, vt = np.linalg.svd(centred, full_matrices=False)
    proj = centred @ vt[0]
    lo, hi = float(proj.min()), float(proj.max())
    if hi - lo < 1e-6:
        return np.median(pix, axis=0), None
    scaled = np.round((proj - lo) / (hi - lo) * 255).astype(np.uint8).reshape(-1, 1)
    t, _ = cv2.threshold(scaled, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    upper = scaled.ravel() > t
    a, b = pix[upper], pix[~upper]
    face_pix, pip_pix = (a, b) if len(a) >= len(b) else (b, a)
    face_lab = np.median(face_pix, axis=0)
    if len(pip_pix) < 0.02 * len(pix):
        return face_lab, None
    pip_lab = np.median(pip_pix, axis=0)
    if float(np.linalg.norm(face_lab - pip_lab)) < MIN_PIP_CONTRAST:
        return np.median(pix, axis=0), None
    return face_lab, pip_lab


def _kmeans(points: np.ndarray, k: int, iters: int = 50) -> np.ndarray:
    """Deterministic k-means (farthest-point start): the label of every point."""
    centres = [points[int(np.argmax(np.linalg.norm(points - points.mean(0), axis=1)))]]
    while len(centres) < k:
        d = np.min([np.linalg.norm(points - c, axis=1) for c in centres], axis=0)
        centres.append(points[int(np.argmax(d))])
    C = np.array(centres)
    labels = np.zeros(len(points), int)
    for _ in range(iters):
        new = np.argmin(np.linalg.norm(points[:, None, :] - C[None], axis=2), axis=1)
        if _ > 0 and np.array_equal(new, labels):
            break
        labels = new
        for j in range(k):
            if np.any(labels == j):
                C[j] = points[labels == j].mean(axis=0)
    return labels


def enroll_set(frame_bgr: np.ndarray, tiles_corners_px: Sequence[Any],
               plane: TablePlane | None = None, n_sets: int = 1,
               tile_thickness_mm: float | None = None) -> SetProfile:
    """Learn a set from one photo and the pixel corners of its face-up tiles (see the module
    docstring). ``n_sets`` is how many differently coloured sets lie in the photo."""
    if not isinstance(frame_bgr, np.ndarray) or frame_bgr.dtype != np.uint8 or \
            frame_bgr.ndim != 3 or frame_bgr.shape[2] != 3:
        raise EnrollmentError("frame_bgr must be an HxWx3 uint8 BGR image")
    quads = [np.asarray(c, np.float64).reshape(4, 2) for c in tiles_corners_px]
    if not quads:
        raise EnrollmentError("no tiles to learn from: lay the set out face up, not touching, "
                              "in good light, and take the picture again")
    if not isinstance(n_sets, int) or not 1 <= n_sets <= 8:
        raise EnrollmentError(f"n_sets {n_sets!r} must be 1..8")
    if n_sets > 1 and len(quads) < 2 * n_sets:
        raise EnrollmentError(f"{len(quads)} tiles found, too few to tell {n_sets} sets apart; "
                              f"lay out at least {2 * n_sets} tiles, some of every set")
    sides = np.array([[np.linalg.norm(q[(i + 1) % 4] - q[i]) for i in range(4)] for q in quads])
    longs = np.maximum(sides[:, 0] + sides[:, 2], sides[:, 1] + sides[:, 3]) / 2
    shorts = np.minimum(sides[:, 0] + sides[:, 2], sides[:, 1] + sides[:, 3]) / 2
    tile_px = (float(np.median(longs)), float(np.median(shorts)))

    tile_mm: tuple[float, float] | None = None
    if plane is not None:
        def size_at(z: float) -> tuple[float, float]:
            ls, ss = [], []
            for q in quads:
                m = plane.to_table(q, z_mm=z)
                s = [float(np.linalg.norm(m[(i + 1) % 4] - m[i])) for i in range(4)]
                a, b = (s[0] + s[2]) / 2, (s[1] + s[3]) / 2
                ls.append(max(a, b))
                ss.append(min(a, b))
            return float(np.median(ls)), float(np.median(ss))

        tile_mm = size_at(0.0)
        if plane.pose is not None:
            thick = tile_thickness_mm if tile_thickness_mm is not None else \
                THICKNESS_PER_WIDTH * tile_mm[1]
            for _ in range(3):  # the thickness guess depends on the width it corrects
                tile_mm = size_at(thick)
                if tile_thickness_mm is None:
                    thick = THICKNESS_PER_WIDTH * tile_mm[1]
        if not TILE_WIDTH_MM[0] <= tile_mm[1] <= TILE_WIDTH_MM[1]:
            raise EnrollmentError(
                f"the {len(quads)} tiles found are {tile_mm[0]:.0f} x {tile_mm[1]:.0f} mm on the "
                f"table: not domino tiles (they are {TILE_WIDTH_MM[0]:g} to {TILE_WIDTH_MM[1]:g} mm "
                "wide), perhaps pips or a pattern; lay the set out face up, not touching, on a "
                "plain part of the table, check the table calibration, and take the picture again")

    faces, pips = [], []
    for q in quads:
        f, p = tile_colours(frame_bgr, q)
        faces.append(f)
        if p is not None:
            pips.append(p)
    faces_arr = np.array(faces)
    face_lab = np.median(faces_arr, axis=0)
    pip_lab = np.median(np.array(pips), axis=0) if pips else None
    if pip_lab is None:
        polarity, contrast = "unknown", 0.0
    else:
        polarity = "light" if face_lab[0] >= pip_lab[0] else "dark"
        contrast = float(np.linalg.norm(face_lab - pip_lab))

    labels = _kmeans(faces_arr, n_sets) if n_sets > 1 else np.zeros(len(faces_arr), int)
    groups = []
    for j in range(n_sets):
        members = faces_arr[labels == j]
        if len(members) == 0:
            raise EnrollmentError(f"the tile colours do not split into {n_sets} sets; "
                                  "check --sets or lay out tiles of every set")
        lab = np.median(members, axis=0)
        groups.append(SetColour(tuple(float(round(v, 2)) for v in lab),  # type: ignore[arg-type]
                                _lab_to_bgr(lab), int(len(members)), colour_name(lab)))
    groups.sort(key=lambda s: (-s.tiles, -s.lab[0]))
    r3 = lambda v: tuple(float(round(x, 2)) for x in v)  # noqa: E731
    return SetProfile(len(quads), (round(tile_px[0], 2), round(tile_px[1], 2)),
                      None if tile_mm is None else (round(tile_mm[0], 2), round(tile_mm[1], 2)),
                      r3(face_lab), None if pip_lab is None else r3(pip_lab),  # type: ignore[arg-type]
                      polarity, round(contrast, 2), tuple(groups),
                      tuple(r3(f) for f in faces_arr))  # type: ignore[misc]


#: Lab distance from a tile's own face colour within which a pixel counts as face when a found
#: tile's outline is tightened to its top face (:func:`refine_to_face`).
FACE_TOLERANCE = 25.0


def refine_to_face(frame_bgr: np.ndarray, corners_px: Any,
                   tolerance: float = FACE_TOLERANCE) -> np.ndarray:
    """Tighten a found tile's quadrilateral to its top face: the pixels near the face colour
    (the median of the quad's middle half), holes of pips and divider closed, the connected part
    under the quad's centre, its minimum-area rectangle. A tile finder's outline may take in the
    side walls and the shadow of a tilted view; the enrolled size must be the top face's."""
    q = np.asarray(corners_px, np.float64).reshape(4, 2)
    h_img, w_img = frame_bgr.shape[:2]
    x0, y0 = (max(int(v), 0) for v in np.floor(q.min(axis=0) - 6))
    x1, y1 = int(min(np.ceil(q[:, 0].max() + 6), w_img)), int(min(np.ceil(q[:, 1].max() + 6), h_img))
    if x1 - x0 < 4 or y1 - y0 < 4:
        return q
    crop = frame_bgr[y0:y1, x0:x1]
    lab = cv2.cvtColor(crop, cv2.COLOR_BGR2LAB).astype(np.float32)
    centre = q.mean(axis=0)
    inner = (q - centre) * 0.5 + centre - [x0, y0]
    middle = np.zeros(crop.shape[:2], np.uint8)
    cv2.fillConvexPoly(middle, np.round(inner).astype(np.int32), 1)
    if not middle.any():
        return q
    face = np.median(lab[middle > 0], axis=0)
    mask = (np.linalg.norm(lab - face, axis=2) < tolerance).astype(np.uint8)
    k = max(3, int(0.15 * min(np.linalg.norm(q[1] - q[0]), np.linalg.norm(q[2] - q[1]))) | 1)
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE,
                            cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    n, labels, stats, _ = cv2.connectedComponentsWithStats(mask)
    if n < 2:
        return q
    cx, cy = int(round(centre[0] - x0)), int(round(centre[1] - y0))
    j = labels[min(max(cy, 0), labels.shape[0] - 1), min(max(cx, 0), labels.shape[1] - 1)]
    if j == 0:
        j = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
    pts = np.column_stack(np.nonzero(labels == j)[::-1]).astype(np.float32)
    box = cv2.boxPoints(cv2.minAreaRect(pts)).astype(np.float64) + [x0, y0]
    # keep the finder's answer when the face region is implausible: not about 2:1, much
    # smaller than the finder's outline, or larger than it (the face colour leaks out)
    sides = sorted(np.linalg.norm(box - np.roll(box, -1, axis=0), axis=1))
    area, q_area = (cv2.contourArea(v.astype(np.float32)) for v in (box, q))
    if sides[0] <= 0 or not 1.5 <= sides[2] / sides[0] <= 2.6 or \
            not 0.4 * q_area <= area <= 1.05 * q_area:
        return q
    return box


def find_tiles(frame_bgr: np.ndarray, refine: bool = True) -> list[np.ndarray]:
    """Face-up, whole tiles in a photo with the reader's detector (``vision.detect``), each
    tightened to its top face (:func:`refine_to_face`) unless ``refine`` is False."""
    from vision.detect import detect_tiles

    quads = [np.asarray(t.corners, np.float64) for t in detect_tiles(frame_bgr).tiles if not t.cut]
    return [refine_to_face(frame_bgr, q) for q in quads] if refine else quads


def enroll_photo(frame_bgr: np.ndarray, plane: TablePlane | None = None,
                 n_sets: int = 1) -> SetProfile:
    """:func:`enroll_set` on the tiles the reader's detector finds in the photo."""
    return enroll_set(frame_bgr, find_tiles(frame_bgr), plane, n_sets)


def save_profile(profile: SetProfile, folder: str | os.PathLike[str] | None = None) -> Path:
    """Write ``set_profile.json`` (keeping ``set_profile.prev.json``)."""
    return save_versioned(calibration_dir(folder) / PROFILE_FILE, PROFILE_KIND, PROFILE_VERSION,
                          profile.to_dict())


def load_profile(folder: str | os.PathLike[str] | None = None
                 ) -> tuple[SetProfile | None, list[str]]:
    """The stored set profile (falling back to the previous file) and the problems met."""
    loaded = load_versioned(calibration_dir(folder) / PROFILE_FILE, PROFILE_KIND, PROFILE_VERSION,
                            validate=_check_profile)
    if loaded.data is None:
        return None, loaded.problems
    return SetProfile.from_dict(loaded.data), loaded.problems


def load_profile_file(path: str | os.PathLike[str]) -> tuple[SetProfile | None, list[str]]:
    """A set profile from a ``set_profile.json`` file or a folder holding one (falling back to
    the previous version), and the problems met."""
    p = Path(path)
    if p.is_dir():
        return load_profile(p)
    loaded = load_versioned(p, PROFILE_KIND, PROFILE_VERSION, validate=_check_profile)
    if loaded.data is None:
        return None, loaded.problems
    return SetProfile.from_dict(loaded.data), loaded.problems


def _check_profile(data: dict[str, Any]) -> None:
    """Raise (ValueError, KeyError, TypeError) for a payload that is not a set profile."""
    SetProfile.from_dict(data)


def hints_from(path: str | os.PathLike[str] | None = None, required: bool = False
               ) -> tuple[ProfileHints | None, list[str]]:
    """The reader's hints from a stored set profile, and the problems met: ``path`` is a
    ``set_profile.json`` or the folder holding one (None: the calibration folder,
    :func:`calibration.files.calibration_dir`). No profile there gives (None, []) unless
    ``required`` (then :class:`EnrollmentError` saying how to make one); a damaged file is
    reported and its previous version used when good."""
    p = calibration_dir(None) if path is None else Path(path)
    file = p / PROFILE_FILE if path is None or p.is_dir() else p
    if not file.exists() and not previous_path(file).exists():
        if required:
            raise EnrollmentError(f"{file}: no set profile there; make one with `domino-companion "
                                  "calibrate --enroll set.jpg` (a photo of the set face up)")
        return None, []
    profile, problems = load_profile_file(file)
    if profile is None and required:
        # (the store's "falling back to defaults" is not what happens here: nothing is read)
        said = [p for p in problems if p != "falling back to defaults"]
        raise EnrollmentError(f"{file}: the set profile cannot be used: {'; '.join(said)}; give "
                              "the set_profile.json that `domino-companion calibrate --enroll` "
                              "wrote, or leave --profile out to read without one")
    return (None if profile is None else profile.reading_hints()), problems


#: A tile found on the plain frame is kept when its face is within this Lab distance of an
#: enrolled face colour; one found only on the profile-normalised frame must be within
#: :data:`KEEP_VIEW_DISTANCE`. Chosen on rendered seeds 300-319 of the reading bench (profiles
#: from truth corners) among 45/60/80/100 (plain) and 20/30/45/60 (view) for the most tiles read
#: right, then the fewest false tiles; checked on seeds 400-419 (docs/benchmarks.md).
KEEP_FACE_DISTANCE = 80.0
KEEP_VIEW_DISTANCE = 45.0
#: Weight of the lightness difference in :func:`lit_face_distance`: a lamp, a shadow or a glint
#: changes a face's lightness several times more than its hue and saturation (a red tile under
#: the lamp of scene 309 is 80 L brighter than enrolled but within 10 in a and b).
LIT_LIGHTNESS_WEIGHT = 0.25
#: A tile found on the plain frame is also kept when its lightness-discounted distance
#: (:func:`lit_face_distance`) to an enrolled face is below this, so a tile of the set that the
#: light made much brighter or darker than the enrollment photo is not dropped (with the plain
#: rule alone, the profile cost tiles the reader had right: coloured seeds 309, 310 (lit 22-30),
#: black 306 (lit 46)); another set's tile (white against red: about 80) still is. Chosen
#: between 45 and 50 on the tuning seeds 300-319 (45 drops the black tile of 306).
KEEP_LIT_DISTANCE = 50.0
#: A tile found only on the profile-normalised frame must show pips or a divider: at least this
#: fraction of its middle pixels pip-coloured (:func:`pip_fraction`). A face-down tile (its
#: back is the face colour) or a patch of table drawn light in the normalised frame shows none:
#: on the tuning seeds 300-319 (coloured, white, black) face-down tiles measure at most 0.003,
#: a 0-0 with its divider 0.04 to 0.07 (one without a divider 0: it cannot be told from a
#: face-down tile by colour and is left to the frame's own finds).
MIN_VIEW_PIP_FRACTION = 0.02


def _middle_lab(frame_bgr: np.ndarray, corners_px: Any) -> np.ndarray | None:
    """Lab pixels (N, 3) of a found tile's middle half, None when that lies outside the frame
    or holds no pixel."""
    q = np.asarray(corners_px, np.float64).reshape(4, 2)
    centre = q.mean(axis=0)
    inner = np.round((q - centre) * 0.5 + centre).astype(np.int32)
    h, w = frame_bgr.shape[:2]
    x0, y0 = np.maximum(inner.min(axis=0), 0)
    x1, y1 = np.minimum(inner.max(axis=0) + 1, [w, h])
    if x1 <= x0 or y1 <= y0:
        return None
    mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
    cv2.fillConvexPoly(mask, inner - [x0, y0], 1)
    pix = frame_bgr[y0:y1, x0:x1][mask > 0]
    return _bgr_to_lab(pix) if len(pix) else None


def face_distance(frame_bgr: np.ndarray, corners_px: Any, profile: SetProfile,
                  lightness_weight: float = 1.0) -> float:
    """Lab distance from the median colour of a found tile's middle half (its face, with a few
    pips) to the nearest enrolled set face colour, the lightness difference weighted by
    ``lightness_weight``; ``inf`` for a tile too small to measure."""
    lab = _middle_lab(frame_bgr, corners_px)
    if lab is None:
        return float("inf")
    face = np.median(lab, axis=0)
    w = np.array([lightness_weight, 1.0, 1.0])
    return min(float(np.linalg.norm((face - np.asarray(s.lab)) * w)) for s in profile.sets)


def lit_face_distance(frame_bgr: np.ndarray, corners_px: Any, profile: SetProfile) -> float:
    """:func:`face_distance` with the lightness difference weighted by
    :data:`LIT_LIGHTNESS_WEIGHT`: how far a tile's face is from the set's colour once a brighter
    or darker light is allowed for."""
    return face_distance(frame_bgr, corners_px, profile, LIT_LIGHTNESS_WEIGHT)


def pip_fraction(frame_bgr: np.ndarray, corners_px: Any, profile: SetProfile) -> float:
    """Fraction of a found tile's middle-half pixels that are pip-coloured: from the tile's own
    median colour (its face under this light) more than half the enrolled face-to-pip contrast
    towards the enrolled pip colour. Pips and the divider count; a plain face or a face-down
    tile gives about 0. 1.0 (nothing can be said) for a profile without a pip colour, 0.0 for a
    tile too small to measure."""
    if profile.pip_lab is None:
        return 1.0
    lab = _middle_lab(frame_bgr, corners_px)
    if lab is None:
        return 0.0
    own = np.median(lab, axis=0)
    pip = np.asarray(profile.pip_lab, np.float64)
    axis = pip - np.asarray(profile.sets[profile.nearest_set(own)].lab, np.float64)
    length = float(np.linalg.norm(axis))
    if length < 1.0:
        return 1.0
    along = (lab - own) @ (axis / length)
    return float(np.mean(along > 0.5 * length))


@dataclass(frozen=True)
class ProfileHints:
    """A set profile as the reader's hints (:class:`vision.read.ReadHints`): the frame redrawn
    from the enrolled colours as a second picture to find tiles on (none when the profile has no
    pip colour), and found tiles kept only when their face looks like the set's."""

    profile: SetProfile
    keep_distance: float = KEEP_FACE_DISTANCE
    view_distance: float = KEEP_VIEW_DISTANCE

    def extra_view(self, work_bgr: np.ndarray) -> np.ndarray | None:
        if self.profile.pip_lab is None:
            return None
        return normalise_to_profile(work_bgr, self.profile)

    lit_distance: float = KEEP_LIT_DISTANCE
    view_pips: float = MIN_VIEW_PIP_FRACTION

    def keep(self, frame_bgr: np.ndarray, corners: np.ndarray, from_view: bool) -> bool:
        """A tile of the frame: its face near a set colour (:data:`KEEP_FACE_DISTANCE`), or so
        once the light is allowed for (:data:`KEEP_LIT_DISTANCE`). A tile of the normalised
        view only: nearer (:data:`KEEP_VIEW_DISTANCE`) and showing pips or a divider
        (:data:`MIN_VIEW_PIP_FRACTION`)."""
        if from_view:
            return (face_distance(frame_bgr, corners, self.profile) < self.view_distance
                    and pip_fraction(frame_bgr, corners, self.profile) >= self.view_pips)
        return (face_distance(frame_bgr, corners, self.profile) < self.keep_distance
                or lit_face_distance(frame_bgr, corners, self.profile) < self.lit_distance)


def normalise_to_profile(frame_bgr: np.ndarray, profile: SetProfile) -> np.ndarray:
    """The frame redrawn in the colours the reader knows best: pixels near an enrolled tile face
    colour become light grey, pixels near the pip colour (and between) darker in proportion, and
    everything far from the face-to-pip colour segment (table, hands, markers' white borders
    unless they match the face) a dark background. Pure; returns a BGR uint8 image.

    With several sets, each set's face colour is tried and the most face-like answer kept.

    Read on its own instead of the frame it loses tiles of light sets (pips and table lose their
    colour); the reader uses it only as a second picture to find tiles on
    (:class:`ProfileHints`)."""
    if profile.pip_lab is None:
        raise EnrollmentError("this profile has no pip colour (no pips were seen when it was "
                              "enrolled); enroll again with tiles that show pips")
    lab = cv2.cvtColor(frame_bgr, cv2.COLOR_BGR2LAB).astype(np.float32)
    pip = np.asarray(profile.pip_lab, np.float32)
    best = np.full(lab.shape[:2], 50.0, np.float32)
    best_dist = np.full(lab.shape[:2], np.inf, np.float32)
    for s in profile.sets:
        face = np.asarray(s.lab, np.float32)
        axis = pip - face
        length2 = float(axis @ axis)
        if length2 < 1.0:
            continue
        rel = lab - face
        t = np.clip((rel @ axis) / length2, 0.0, 1.0)
        dist = np.linalg.norm(rel - t[..., None] * axis, axis=2)
        tol = 0.35 * np.sqrt(length2) + 10.0
        grey = np.where(dist <= tol, 235.0 - 215.0 * t, 50.0)
        take = dist < best_dist
        best = np.where(take, grey, best)
        best_dist = np.where(take, dist, best_dist)
    out = np.clip(best, 0, 255).astype(np.uint8)
    return cv2.cvtColor(out, cv2.COLOR_GRAY2BGR)
