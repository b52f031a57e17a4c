"""Calibration on the project renderer's scenes with markers (vision.render): table mm round
trip, camera height and tilt, tile centres in mm, tracker recovery, set enrollment.

Clean pictures (``degrade=False``: no lens distortion, blur or noise) so the bounds are tight;
docs/benchmarks.md has the figures on degraded scenes (``python -m calibration.bench``)."""

from __future__ import annotations

import functools

import numpy as np
import pytest

from calibration.bench import (case_tiles, cluster_purity, enroll_case, grid_error_mm, moved,
                               renderer_case, tile_centre_errors_mm)
from calibration.enroll import (EnrollmentError, SetProfile, enroll_set, load_profile,
                                save_profile)
from calibration.plane import TablePlaneTracker, plane_from_markers

#: (seed, tilt range): from above and tilted
SCENES = [(101, (0.0, 2.0)), (102, (12.0, 20.0)), (103, (25.0, 35.0))]


@functools.lru_cache(maxsize=8)
def _case(seed: int, tilt: tuple[float, float]):
    return renderer_case(seed, degrade=False, hands=0, tilt_range=tilt)


@pytest.mark.parametrize("seed, tilt", SCENES)
def test_table_mm_round_trip_and_tile_centres(seed, tilt):
    case = _case(seed, tilt)
    plane = plane_from_markers(case.image_bgr, case.layout)
    assert plane.reprojection_px < 1.0
    assert grid_error_mm(case, plane).max() < 1.5  # bench: median 0.25 mm on degraded scenes
    with_lens = plane_from_markers(case.image_bgr, case.layout, case.true_camera())
    errs = tile_centre_errors_mm(case, with_lens)
    assert len(errs) >= 3 and errs.max() < 1.5


@pytest.mark.parametrize("seed, tilt", SCENES)
def test_camera_height_and_tilt(seed, tilt):
    case = _case(seed, tilt)
    true_h = case.truth["camera"]["height_mm"]
    true_tilt = case.truth["camera"]["tilt_deg"]
    plane = plane_from_markers(case.image_bgr, case.layout)
    assert plane.pose.tilt_deg == pytest.approx(true_tilt, abs=1.0)
    if plane.camera.source == "homography":  # tilted: the focal length shows in the homography
        assert plane.pose.height_mm == pytest.approx(true_h, rel=0.06)
    else:  # straight down: lens assumed (65 degrees); the renderer draws 55-78 degrees
        assert plane.camera.source == "assumed-fov"
        assert plane.pose.height_mm == pytest.approx(true_h, rel=0.30)
    lens = plane_from_markers(case.image_bgr, case.layout, case.true_camera())
    assert lens.pose.height_mm == pytest.approx(true_h, rel=0.01)
    assert lens.pose.tilt_deg == pytest.approx(true_tilt, abs=0.3)


def test_tracker_follows_a_bumped_camera():
    base = _case(102, (12.0, 20.0))
    bumped = moved(base)
    tracker = TablePlaneTracker(base.layout, every_n=5)
    first = tracker.update(base.image_bgr)
    assert first.status == "found"
    for _ in range(6):
        tracker.update(base.image_bgr)
    updates = [tracker.update(bumped.image_bgr) for _ in range(5)]
    statuses = [u.status for u in updates]
    assert "moved" in statuses and statuses.index("moved") < 5
    plane = updates[statuses.index("moved")].plane
    assert grid_error_mm(bumped, plane).max() < 1.5


@pytest.mark.parametrize("seed, family, colours", [
    (1, ["ivory"], None),
    (2, ["black"], None),
    (4, ["coloured"], ["red", "blue"]),
    (5, ["coloured"], ["green", "yellow", "purple"]),
])
def test_enrollment_learns_size_colours_and_sets(seed, family, colours, tmp_path):
    case = enroll_case(seed, family, colours)
    corners, groups = case_tiles(case, colours)
    plane = plane_from_markers(case.image_bgr, case.layout)
    profile = enroll_set(case.image_bgr, corners, plane, n_sets=len(colours) if colours else 1)
    true_len, true_wid = case.truth["style"]["tile_mm"][:2]
    assert profile.tile_mm[0] == pytest.approx(true_len, abs=1.0)  # bench: within 0.3 mm
    assert profile.tile_mm[1] == pytest.approx(true_wid, abs=1.0)
    assert profile.polarity == ("dark" if family[0] in ("black", "coloured") else "light")
    assert profile.contrast > 40
    assert len(profile.sets) == (len(colours) if colours else 1)
    assert cluster_purity(profile, groups) == 1.0
    # a tile-size prior at the table centre agrees with the tiles in the photo
    w, h = case.layout.size_mm
    long_px, _ = profile.expected_tile_px(plane, (w / 2, h / 2))
    assert long_px == pytest.approx(profile.tile_px[0], rel=0.25)
    save_profile(profile, tmp_path)
    again, problems = load_profile(tmp_path)
    assert problems == [] and isinstance(again, SetProfile)
    assert again.to_dict() == profile.to_dict()


def test_enrollment_errors():
    img = np.zeros((100, 100, 3), np.uint8)
    with pytest.raises(EnrollmentError, match="no tiles"):
        enroll_set(img, [])
    quad = [[10, 10], [50, 10], [50, 30], [10, 30]]
    with pytest.raises(EnrollmentError, match="too few to tell 2 sets apart"):
        enroll_set(img, [quad, quad, quad], n_sets=2)
    with pytest.raises(EnrollmentError, match="uint8 BGR"):
        enroll_set(img.astype(float), [quad])
    profile = enroll_set(img, [quad])
    assert profile.tile_mm is None and profile.polarity == "unknown"
    from calibration.plane import plane_from_corners
    plane = plane_from_corners([[0, 0], [99, 0], [99, 99], [0, 99]], (600, 600), (100, 100))
    with pytest.raises(EnrollmentError, match="enroll again after `calibrate`"):
        profile.expected_tile_px(plane, (300, 300))


def test_refine_to_face_drops_side_wall_and_shadow():
    import cv2
    from calibration.enroll import refine_to_face
    img = np.full((200, 300, 3), (60, 90, 120), np.uint8)  # wood-ish table
    cv2.rectangle(img, (100, 80), (200, 130), (150, 160, 165), -1)  # shaded side wall + shadow
    cv2.rectangle(img, (100, 70), (200, 120), (225, 235, 240), -1)  # the lit top face, 2:1
    cv2.circle(img, (125, 95), 6, (20, 20, 20), -1)
    cv2.line(img, (150, 72), (150, 118), (20, 20, 20), 2)
    loose = np.array([[98, 68], [202, 68], [202, 132], [98, 132]], np.float64)
    face = refine_to_face(img, loose)
    xs, ys = face[:, 0], face[:, 1]
    assert xs.min() == pytest.approx(100, abs=1.5) and xs.max() == pytest.approx(200, abs=1.5)
    assert ys.min() == pytest.approx(70, abs=1.5) and ys.max() == pytest.approx(120, abs=1.5)
    # nothing face-like under the quad: the finder's quad is kept
    blank = np.full((200, 300, 3), 128, np.uint8)
    blank[::2] = 0
    assert np.allclose(refine_to_face(blank, loose), loose)
