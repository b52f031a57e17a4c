"""A set profile helping the reader: :class:`calibration.enroll.ProfileHints` through
``vision.read.Reader(hints=...)``, ``read --profile`` and the live command's loading.

The wiring tests give the reader a fixed tile finder (``vision.read.detect_tiles`` replaced) and
a pip reader whose confidence is the tile's brightness, so they test the hints and not the
finder; the measured effect on rendered sets is ``python -m calibration.bench --reading-only``
(the slow test below checks its direction on a few scenes)."""

from __future__ import annotations

import functools
import json
from collections.abc import Sequence
from pathlib import Path

import cv2
import numpy as np
import pytest

import vision.read as read_mod
from calibration.enroll import (
    KEEP_FACE_DISTANCE,
    KEEP_LIT_DISTANCE,
    MIN_VIEW_PIP_FRACTION,
    EnrollmentError,
    ProfileHints,
    SetProfile,
    enroll_set,
    face_distance,
    hints_from,
    lit_face_distance,
    pip_fraction,
    save_profile,
)
from companion.cli import main
from vision.detect import Detection, TileCandidate
from vision.pips import TileValue
from vision.read import Reader

RED = (40, 40, 190)
WHITE = (235, 235, 235)


def _picture() -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """A dark table with a red tile (black pips) and a white tile."""
    img = np.full((300, 400, 3), (40, 60, 50), np.uint8)
    quads = {"red": np.array([[40, 60], [40, 120], [160, 120], [160, 60]], np.float64),
             "white": np.array([[220, 160], [220, 220], [340, 220], [340, 160]], np.float64)}
    for name, q in quads.items():
        cv2.fillConvexPoly(img, q.astype(np.int32), RED if name == "red" else WHITE)
        x0, y0 = q.min(axis=0).astype(int)
        cv2.line(img, (x0 + 60, y0 + 4), (x0 + 60, y0 + 56), (15, 15, 15), 2)
        for dx, dy in ((25, 20), (35, 40), (90, 30)):
            cv2.circle(img, (x0 + dx, y0 + dy), 5, (15, 15, 15), -1)
    return img, quads


def _red_profile(img: np.ndarray, quads: dict[str, np.ndarray]) -> SetProfile:
    return enroll_set(img, [quads["red"]], None, n_sets=1)


class _BrightnessPips:
    """A pip reader stand-in (:class:`vision.pips.TileReader`): every half reads 1, confidence =
    the crops' mean brightness; no classifier, so the reader never re-reads at moved outlines."""

    note = ""
    uses_classifier = False

    def read_tiles(self, crops: np.ndarray, set_max: int = 15,
                   washed: np.ndarray | None = None) -> list[TileValue]:
        out = []
        for k in range(0, len(crops), 2):
            conf = float(np.clip(np.abs(crops[k:k + 2]).mean(), 0.0, 1.0))
            out.append(TileValue((1, 1), conf, (conf, conf), ()))
        return out

    def read_shortlist(self, crops: np.ndarray, owners: Sequence[int], set_max: int = 15,
                       washed: np.ndarray | None = None, keep: int = 2
                       ) -> dict[int, list[TileValue]]:
        out: dict[int, list[TileValue]] = {}
        for owner, value in zip(owners, self.read_tiles(crops, set_max)):
            out.setdefault(int(owner), []).append(value)
        return out

    def read_hidden(self, crops: np.ndarray, hidden: np.ndarray, mirrored: np.ndarray,
                    set_max: int = 15) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Every half reads 1 for sure, none read by its layouts."""
        probs = np.zeros((len(crops), 16))
        probs[:, 1] = 1.0
        return probs, np.zeros(len(crops), bool), probs.copy()


def _fixed_finder(monkeypatch: pytest.MonkeyPatch, by_view: dict[str, list[np.ndarray]]) -> None:
    """``detect_tiles`` answering the plain picture with ``by_view["plain"]`` and any other
    picture (the hints' view, a grey redrawing) with ``by_view["view"]``."""
    def detect(image: np.ndarray) -> Detection:
        grey = bool(np.all(image[..., 0] == image[..., 1]))
        quads = by_view["view" if grey else "plain"]
        return Detection([TileCandidate(q.copy(), False, 1.0, "light") for q in quads], 60.0)

    monkeypatch.setattr(read_mod, "detect_tiles", detect)


def test_face_distance_tells_the_enrolled_set_from_other_tiles() -> None:
    img, quads = _picture()
    profile = _red_profile(img, quads)
    assert profile.sets[0].name == "red" and profile.polarity == "light"
    assert face_distance(img, quads["red"], profile) < 10
    assert face_distance(img, quads["white"], profile) > 80
    assert face_distance(img, [[500, 500], [500, 501], [501, 501], [501, 500]], profile) == \
        float("inf")
    hints = profile.reading_hints()
    assert hints.keep(img, quads["red"], from_view=True)
    assert not hints.keep(img, quads["white"], from_view=False)
    view = hints.extra_view(img)
    assert view is not None and view.shape == img.shape
    # the red face is drawn light, the (dark) table much darker
    assert view[90, 70].mean() > 180 and view[10, 10].mean() < view[90, 70].mean() - 100


def test_a_set_tile_in_other_light_is_kept_another_set_is_not() -> None:
    """The profile enrolled in dim light (its face 85 darker in L, same hue): the red tile of
    the frame is far from it in Lab (the old rule dropped such tiles: a lamp or a glint on the
    rendered scenes 309, 310) but near once lightness is discounted; the white tile is far
    either way."""
    img, quads = _picture()
    bright = _red_profile(img, quads).to_dict()
    dim_sets = [{**st, "lab": [st["lab"][0] - 85, *st["lab"][1:]]} for st in bright["sets"]]
    dim = SetProfile.from_dict({**bright, "sets": dim_sets})
    assert face_distance(img, quads["red"], dim) > KEEP_FACE_DISTANCE
    assert lit_face_distance(img, quads["red"], dim) < KEEP_LIT_DISTANCE / 2
    assert lit_face_distance(img, quads["white"], dim) > 1.5 * KEEP_LIT_DISTANCE
    hints = dim.reading_hints()
    assert hints.keep(img, quads["red"], from_view=False)
    assert not hints.keep(img, quads["white"], from_view=False)


def test_a_view_tile_must_show_pips_or_a_divider() -> None:
    """A rectangle of the face colour without pips (a face-down tile: its back is the face
    colour, or a patch the normalised view draws light) found only on the view is refused; the
    same place with pips is kept."""
    img, quads = _picture()
    profile = _red_profile(img, quads)
    blank = img.copy()
    cv2.fillConvexPoly(blank, quads["red"].astype(np.int32), RED)
    assert pip_fraction(img, quads["red"], profile) > 3 * MIN_VIEW_PIP_FRACTION
    assert pip_fraction(blank, quads["red"], profile) < MIN_VIEW_PIP_FRACTION / 2
    hints = profile.reading_hints()
    assert hints.keep(img, quads["red"], from_view=True)
    assert not hints.keep(blank, quads["red"], from_view=True)
    assert hints.keep(blank, quads["red"], from_view=False)  # the frame's own finds: colour only


def test_reader_with_hints_adds_view_tiles_drops_unlike_ones_and_keeps_the_surer_duplicate(
        monkeypatch: pytest.MonkeyPatch) -> None:
    img, quads = _picture()
    profile = _red_profile(img, quads)
    shifted = quads["red"] + [3, 0]  # the red tile found on the frame, a little off
    _fixed_finder(monkeypatch, {"plain": [quads["white"], shifted], "view": [quads["red"]]})
    reader = Reader(pip_reader=_BrightnessPips())
    plain = reader.read(img)
    assert [t.center for t in plain.tiles] == [tuple(quads["white"].mean(axis=0)),
                                               tuple(shifted.mean(axis=0))]
    assert "hints" not in plain.timings_ms
    hinted = reader.read(img, hints=profile.reading_hints())
    # the white tile is not the enrolled red set: dropped; the red one, found on both pictures:
    # kept once (of the two overlapping finds, the one read with the higher confidence)
    assert len(hinted.tiles) == 1
    kept = hinted.tiles[0]
    assert np.allclose(kept.corners, quads["red"]) or np.allclose(kept.corners, shifted)
    assert "hints" in hinted.timings_ms
    # the hints given to the reader itself are used by default
    assert len(Reader(pip_reader=_BrightnessPips(),
                      hints=profile.reading_hints()).read(img).tiles) == 1


def test_overlapping_finds_keep_the_higher_confidence(monkeypatch: pytest.MonkeyPatch) -> None:
    img, quads = _picture()
    profile = _red_profile(img, quads)
    half = quads["red"] + [60, 0]  # overlaps the red tile by half: the crop is half table
    _fixed_finder(monkeypatch, {"plain": [half], "view": [quads["red"]]})

    class Always(ProfileHints):
        def keep(self, frame_bgr: np.ndarray, corners: np.ndarray, from_view: bool) -> bool:
            return True

    reader = Reader(pip_reader=_BrightnessPips())
    got = reader.read(img, hints=Always(profile))
    assert len(got.tiles) == 1
    # both were read: the kept one is the one with the higher confidence of the two
    both = _BrightnessPips().read_tiles(np.concatenate([
        read_mod.half_crops(img, quads["red"]), read_mod.half_crops(img, half)]), 6)
    assert both[0].confidence != both[1].confidence
    best = quads["red"] if both[0].confidence >= both[1].confidence else half
    assert np.allclose(got.tiles[0].corners, best, atol=0.6)


def test_overlapping_tiles_of_one_picture_are_all_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    """Only finds of the two pictures are merged: two overlapping tiles the frame shows (a tile
    resting on another) both stay."""
    img, quads = _picture()
    profile = _red_profile(img, quads)
    on_top = quads["red"] + [30, 10]
    _fixed_finder(monkeypatch, {"plain": [quads["red"], on_top], "view": []})
    reader = Reader(pip_reader=_BrightnessPips())
    assert len(reader.read(img, hints=profile.reading_hints()).tiles) == 2


def test_profile_without_pips_gives_no_view_but_still_filters() -> None:
    img, quads = _picture()
    profile = _red_profile(img, quads)
    flat = SetProfile.from_dict({**profile.to_dict(), "pip_lab": None, "polarity": "unknown"})
    assert flat.reading_hints().extra_view(img) is None
    assert not flat.reading_hints().keep(img, quads["white"], False)


def test_hints_from_a_file_a_folder_or_nothing(tmp_path: Path) -> None:
    img, quads = _picture()
    profile = _red_profile(img, quads)
    assert hints_from(tmp_path) == (None, [])
    with pytest.raises(EnrollmentError, match="calibrate --enroll"):
        hints_from(tmp_path, required=True)
    path = save_profile(profile, tmp_path)
    for where in (tmp_path, path):
        hints, problems = hints_from(where, required=True)
        assert hints is not None and problems == [] and hints.profile == profile
    path.write_text("{broken", encoding="utf-8")
    with pytest.raises(EnrollmentError, match="cannot be used") as refused:
        hints_from(path, required=True)
    # nothing is read with it, so it does not say it falls back to defaults
    assert "falling back" not in str(refused.value) and "leave --profile out" in str(refused.value)
    save_profile(profile, tmp_path)  # a good current one again, the broken one as previous
    save_profile(profile, tmp_path)
    assert hints_from(tmp_path)[0] is not None


def test_read_command_with_profile(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                   monkeypatch: pytest.MonkeyPatch) -> None:
    img, quads = _picture()
    photo = tmp_path / "table.png"
    cv2.imwrite(str(photo), img)
    save_profile(_red_profile(img, quads), tmp_path / "cal")
    _fixed_finder(monkeypatch, {"plain": [quads["white"]], "view": [quads["red"]]})
    assert main(["read", str(photo), "--json"]) == 0
    plain = json.loads(capsys.readouterr().out)
    assert main(["read", str(photo), "--json", "--profile", str(tmp_path / "cal")]) == 0
    hinted = json.loads(capsys.readouterr().out)
    centre = lambda r: [tuple(round(v) for v in t["center"]) for t in r["tiles"]]
    assert centre(plain) == [(280, 190)] and centre(hinted) == [(100, 90)]
    monkeypatch.setenv("DOMINO_COMPANION_HOME", str(tmp_path / "cal"))
    assert main(["read", str(photo), "--json", "--profile"]) == 0  # the calibration folder's
    assert centre(json.loads(capsys.readouterr().out)) == [(100, 90)]
    assert main(["read", str(photo), "--profile", str(tmp_path / "none.json")]) == 2
    assert "calibrate --enroll" in capsys.readouterr().err


@functools.lru_cache(maxsize=1)
def _coloured_unseen_row() -> dict:
    """The reading bench's coloured row on forty unseen coloured-set scenes (seeds 360-399,
    truth enrollment; about 40 s idle), computed once for the two checks below."""
    from calibration.bench import reading_bench

    return reading_bench(range(360, 400), ("coloured",), enroll_by="truth")["coloured"]


@pytest.mark.slow
@pytest.mark.xfail(strict=True, reason=(
    "known failure (session 13): with the retrained tile finder the plain reading reads 565 of "
    "576 right (560 before, 561 with the profile) and the profile then costs a tile: "
    "565 -> 564, false 0 -> 1"))
def test_profile_reads_more_coloured_tiles_on_rendered_scenes() -> None:
    """The bench's comparison on 40 coloured-set scenes (seeds 360-399): more tiles right with
    the profile, and no more false tiles than tiles gained.

    Why these seeds: the first check used the bench's default seeds 300-319 (with the 9-epoch
    tile finder 235 -> 263 of 281 right, false 2 -> 4). Since the tile finder scores network
    tiles on more colour channels (9735fb3) the plain reading reads 277 of those 281, and the
    profile's rule then cost tiles: 277 -> 276, false 0 -> 1 (tiles of the set under a lamp or
    a glint, 80-108 from the enrolled colour in Lab, were dropped; a face-down tile found on the
    normalised view was added as 0-0). With the light allowed for and view-only tiles needing
    pips (calibration.enroll KEEP_LIT_DISTANCE, MIN_VIEW_PIP_FRACTION) it is 277 -> 279, false
    0 -> 0. A gain of 2 in 281 says little, so the check moved, before its outcome was looked
    at, to forty unseen seeds of the same family (a larger set; 300-359 were used to choose and
    check the rules).

    Measured there (2026-11-22, truth enrollment): with the 8-epoch tile finder 556 -> 555 of
    576 right, false 0 -> 2 (this check failed: the profile did not help coloured sets on
    unseen scenes); with the 24-epoch tile finder and the refine budget per picture
    (vision.read) 557 -> 559, false 0 -> 0; 558 -> 559 since the scoring matches a found tile
    to the visible one of an exact stack (vision.evaluate.match_truth). A frame tile read at
    >= 0.95 kept over a view tile of another value at its place was measured and not taken:
    seeds 300-359 unchanged, here lost 2 -> 1 but gained 1 -> 0. Session 6 (helper A): with
    the slide check and the tile finder's larger pass 560 -> 560 (the plain reading gained 379's
    2-8); joint evidence of both pictures, re-reading both outlines and a pip-symmetry vote were
    measured on 300-359 and not taken (worse there or deciding nothing); that made this check a
    strict known failure (560 -> 560). Session 7 (helper A): the reader reads a tile with a blank
    half again with the lighting taken out (vision.read.FLATTEN_BLANK) and seed 362's 0-4 is no
    longer lost to the view's misreading: 560 -> 561, false 0 -> 0, lost 1 (367's glint-white
    2-6); the known-failure marker was removed. Session 13: the retrained tile finder reads
    565 plain and 564 with the profile (false 0 -> 1): a strict known failure again."""
    row = _coloured_unseen_row()
    assert row["scenes"] >= 36 and row["enroll_failed"] == 0
    gained = row["hint_right"] - row["raw_right"]
    assert gained > 0
    assert row["hint_false"] - row["raw_false"] <= gained


@pytest.mark.slow
@pytest.mark.xfail(strict=True, reason=(
    "known failure (sessions 5-7): the profile still loses 1 tile the plain reading had right "
    "on seeds 360-399: 2-6 blown white by a glint on seed 367 (no colour left to tell it from "
    "another set: dropped by the keep test). Seed 362's 0-4 (the redrawn view's surer 2-0) "
    "is kept since the reader's blank re-read (session 7, vision.read.FLATTEN_BLANK)"))
def test_profile_loses_no_tile_the_plain_reading_had_right() -> None:
    """On the same 40 unseen coloured scenes, no tile the plain reading had right is lost with
    the profile (a person who enrolled their set must never read worse)."""
    assert _coloured_unseen_row()["lost"] == 0


def test_enrollment_refuses_tiles_of_an_impossible_size() -> None:
    """With a table plane, "tiles" 8 mm wide (pips taken for tiles) are refused, 60 mm ones too;
    real ones (here 120 x 60 px at 0.4 mm per px: 48 x 24 mm) are learnt."""
    from calibration.plane import plane_from_corners

    img, quads = _picture()
    h, w = img.shape[:2]
    plane = plane_from_corners([[0, 0], [w - 1, 0], [w - 1, h - 1], [0, h - 1]],
                               (0.4 * (w - 1), 0.4 * (h - 1)), (w, h))
    profile = enroll_set(img, [quads["red"]], plane)
    assert profile.tile_mm is not None and profile.tile_mm[1] == pytest.approx(24, abs=1.5)
    pips = [np.array([[x, y], [x, y + 10], [x + 20, y + 10], [x + 20, y]], np.float64)
            for x, y in ((60, 75), (90, 170))]
    with pytest.raises(EnrollmentError, match=r"4 mm on the table: not domino tiles"):
        enroll_set(img, pips, plane)
    coarse = plane_from_corners([[0, 0], [w - 1, 0], [w - 1, h - 1], [0, h - 1]],
                                (1.2 * (w - 1), 1.2 * (h - 1)), (w, h))
    with pytest.raises(EnrollmentError, match="not domino tiles"):
        enroll_set(img, [quads["red"]], coarse)
