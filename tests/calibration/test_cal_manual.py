"""The manual four-corner fallback shared by ``calibrate --corners`` and the Table setup page
(:func:`calibration.calibrate.manual_plane`)."""

from __future__ import annotations

import io

import numpy as np
import pytest

from calibration.calibrate import check_corner_order, manual_plane
from calibration.checks import Problem
from calibration.plane import CalibrationError, MarkerLayout
from calibration.synth import SynthCamera, synth_view
from companion.cli import main

LAYOUT = MarkerLayout(600, 450)


def _view_and_corners(seed: int = 2) -> tuple[np.ndarray, np.ndarray, SynthCamera]:
    cam = SynthCamera(900, 25, 0, target_mm=(300, 225))
    view = synth_view(LAYOUT, cam, seed=seed, markers=(0, 1))
    H = cam.table_to_image()
    q = np.column_stack([LAYOUT.table_corners_mm(), np.ones(4)]) @ H.T
    return view.image_bgr, q[:, :2] / q[:, 2:], cam


def test_manual_plane_matches_the_true_table_and_drops_marker_problems() -> None:
    frame, corners, cam = _view_and_corners()
    missing = Problem("markers-missing", "error", "markers not found: missing 2, 3")
    dark = Problem("too-dark", "warning", "kept: not about the markers")
    plane, problems = manual_plane(frame, corners, (600, 450), None, [missing, dark])
    assert plane.method == "manual" and plane.table_size_mm == (600, 450)
    grid = np.array([[x, y] for x in (0, 150, 300, 600) for y in (0, 225, 450)], np.float64)
    H = cam.table_to_image()
    q = np.column_stack([grid, np.ones(len(grid))]) @ H.T
    assert np.abs(plane.to_table(q[:, :2] / q[:, 2:]) - grid).max() < 0.5
    assert missing not in problems and dark in problems
    assert plane.pose is not None
    assert plane.pose.tilt_deg == pytest.approx(25, abs=3)


@pytest.mark.parametrize("order, words", [
    ((0, 2, 1, 3), ("the line from the 1st (top-left) to the 2nd (top-right) corner crosses "
                    "the line from the 3rd (bottom-right) to the 4th (bottom-left)")),
    ((1, 0, 2, 3), ("the line from the 2nd (top-right) to the 3rd (bottom-right) corner crosses "
                    "the line from the 4th (bottom-left) to the 1st (top-left)")),
    ((3, 2, 1, 0), "anticlockwise"),
    ((0, 3, 2, 1), "anticlockwise"),
])
def test_swapped_or_mirrored_corners_are_refused_with_the_order_to_use(order, words) -> None:
    _, corners, _ = _view_and_corners()
    with pytest.raises(CalibrationError) as err:
        check_corner_order(corners[list(order)])
    assert words in str(err.value)
    assert "top-left, top-right, bottom-right, bottom-left" in str(err.value)
    check_corner_order(corners)  # the right order passes


def test_manual_plane_refuses_bad_point_lists() -> None:
    frame, corners, _ = _view_and_corners()
    with pytest.raises(CalibrationError, match="4 corners"):
        manual_plane(frame, corners[:3], (600, 450))
    with pytest.raises(CalibrationError, match="4 corners"):
        manual_plane(frame, np.vstack([corners[:3], [[np.nan, 1.0]]]), (600, 450))
    with pytest.raises(CalibrationError, match="convex"):
        manual_plane(frame, [[10, 10], [200, 10], [30, 30], [10, 200]], (600, 450))


def test_terminal_fallback_refuses_crossed_corners(tmp_path, capsys, monkeypatch) -> None:
    import cv2

    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    frame, corners, _ = _view_and_corners()
    photo = tmp_path / "t.png"
    cv2.imwrite(str(photo), frame)
    crossed = ",".join(f"{v:.1f}" for v in corners[[0, 2, 1, 3]].ravel())
    assert main(["calibrate", "--image", str(photo), "--table-mm", "600x450",
                 "--corners", crossed, "--out", str(tmp_path / "cal")]) == 2
    assert "edges cross" in capsys.readouterr().err
    assert not (tmp_path / "cal" / "table.json").exists()


def test_a_calibration_with_an_error_is_not_saved_and_keeps_the_good_one(
        tmp_path, capsys, monkeypatch) -> None:
    """A problem of severity "error" means calibration cannot go on: a picture too dark, or
    sizes that put the camera nowhere a camera can be (a 5 m square play area on these
    corners) are reported and nothing is saved, so the good calibration stays."""
    import cv2

    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    frame, corners, _ = _view_and_corners()
    photo, dark = tmp_path / "t.png", tmp_path / "dark.png"
    cv2.imwrite(str(photo), frame)
    cv2.imwrite(str(dark), np.zeros_like(frame))
    text = ",".join(f"{v:.1f}" for v in corners.ravel())
    out = tmp_path / "cal"
    assert main(["calibrate", "--image", str(photo), "--table-mm", "600x450",
                 "--corners", text, "--out", str(out)]) == 0
    good = (out / "table.json").read_bytes()
    capsys.readouterr()
    assert main(["calibrate", "--image", str(dark), "--table-mm", "600x450",
                 "--corners", text, "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "error: the picture is too dark" in err and "NOT saved" in err, err
    plane, found = manual_plane(frame, corners, (5000, 5000))
    assert "pose-impossible" in [p.code for p in found], found
    assert main(["calibrate", "--image", str(photo), "--table-mm", "5000x5000",
                 "--corners", text, "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "no camera over a table sees it so" in err and "NOT saved" in err, err
    assert (out / "table.json").read_bytes() == good


def test_a_lens_folder_without_a_lens_calibration_is_refused(tmp_path, capsys) -> None:
    import cv2

    frame, corners, _ = _view_and_corners()
    photo = tmp_path / "t.png"
    cv2.imwrite(str(photo), frame)
    text = ",".join(f"{v:.1f}" for v in corners.ravel())
    assert main(["calibrate", "--image", str(photo), "--table-mm", "600x450", "--corners", text,
                 "--lens", str(tmp_path / "nolens"), "--out", str(tmp_path / "cal")]) == 2
    assert "no lens.json there" in capsys.readouterr().err
    assert not (tmp_path / "cal" / "table.json").exists()


def test_corners_are_checked_before_the_markers_and_said_unused_when_markers_are_found(
        tmp_path, capsys, monkeypatch) -> None:
    """``--corners`` is the fallback when the markers are not found: a malformed one is refused
    (exit 2) even where the markers are found, before anything is saved, and well-formed corners
    the markers made moot are said not to be used."""
    import cv2

    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    cam = SynthCamera(900, 25, 5, target_mm=(300, 225))
    photo, out = tmp_path / "table.png", tmp_path / "cal"
    cv2.imwrite(str(photo), synth_view(LAYOUT, cam, seed=2).image_bgr)  # every marker shows
    for bad in ("a,b,c,d,e,f,g,h", "1,2,3", ""):
        assert main(["calibrate", "--image", str(photo), "--table-mm", "600x450",
                     "--corners", bad, "--out", str(out)]) == 2
        assert "must be 8 numbers" in capsys.readouterr().err
        assert not (out / "table.json").exists()
    _, corners, _ = _view_and_corners()
    text = ",".join(f"{v:.1f}" for v in corners.ravel())
    assert main(["calibrate", "--image", str(photo), "--table-mm", "600x450",
                 "--corners", text, "--out", str(out)]) == 0
    captured = capsys.readouterr()
    assert "--corners not used: the markers were found" in captured.err
    assert "found by markers" in captured.out
