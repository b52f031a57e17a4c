"""The camera from the four corners given by hand (:mod:`calibration.cornercam`): synthetic
cameras of the renderer's camera model (:class:`vision.render.camera.Camera`), their play-area
corners projected and moved as taps are, the focal length and pose recovered; a straight-down
view falls back to the assumed field of view and says so."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from calibration.calibrate import manual_plane
from calibration.cornercam import (MAX_FOCAL_REL_SPREAD, camera_from_corners, focal_spread,
                                   pose_from_homography)
from calibration.files import load_plane, save_plane, tracker_from_store
from calibration.plane import (DEFAULT_HFOV_DEG, CalibrationError, FixedPlaneTracker,
                               estimate_pose)
from vision.render.camera import Camera
from vision.render.sampling import fit_camera

SIZE = (1280, 720)


def _camera(tilt: float, rotation: float, hfov: float, table_mm=(600.0, 450.0),
            fill: float = 0.85) -> tuple[Camera, np.ndarray]:
    """A renderer camera that frames a ``table_mm`` play area, and the table's corners (mm)."""
    w, h = table_mm
    table = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float64)
    spec = fit_camera(table, tilt, rotation, hfov, (w / 2, h / 2), (0.0,) * 5, *SIZE, fill)
    return Camera(spec, *SIZE), table


def _corners(cam: Camera, table: np.ndarray) -> np.ndarray:
    return cam.project(np.column_stack([table, np.zeros(len(table))]))


def _errors(found, cam: Camera) -> tuple[float, float, float]:
    """(focal length error %, rotation error degrees, camera height error %)."""
    f_err = 100 * abs(found.camera.K[0, 0] / cam.K[0, 0] - 1)
    angle = float(np.degrees(np.linalg.norm(cv2.Rodrigues(found.pose.R @ cam.R.T)[0])))
    h_err = 100 * abs(found.pose.height_mm / cam.spec.height_mm - 1)
    return f_err, angle, h_err


@pytest.mark.parametrize("tilt", [15.0, 25.0, 40.0])
@pytest.mark.parametrize("rotation", [0.0, 110.0, 250.0])
@pytest.mark.parametrize("hfov", [50.0, 85.0])
def test_exact_corners_of_a_tilted_view_give_the_camera(tilt, rotation, hfov) -> None:
    cam, table = _camera(tilt, rotation, hfov)
    found = camera_from_corners(_corners(cam, table), (600, 450), SIZE)
    assert found.measured and found.camera.source == "corners"
    f_err, angle, h_err = _errors(found, cam)
    assert f_err < 0.01 and angle < 0.01 and h_err < 0.01
    assert found.pose.tilt_deg == pytest.approx(tilt, abs=0.01)
    assert "from the four corners" in found.message


def test_noisy_taps_on_views_tilted_10_to_40_degrees() -> None:
    """200 seeded cameras (tilt 10-40 degrees, any turn, field of view 50-85 degrees, tables
    400-900 mm, each corner off by 0-2 px per axis). Measured (seed 12): focal length median
    2.0%, 90th percentile 13.1%, worst 34.1%; rotation median 0.42 degrees, 90th percentile
    1.48, worst 4.34; camera height median 1.8%, 90th percentile 12.1%, worst 32.3%; 13 of the
    200 fell back to the assumed field of view (their errors are counted: the assumed 65
    degrees against the true 50-85). The bounds leave room for another draw (exp3 in the
    helper's scratch: 90th percentiles up to 29% on the noisiest 10-20 degree views)."""
    rng = np.random.default_rng(12)
    rows = []
    for _ in range(200):
        cam, table = _camera(rng.uniform(10, 40), rng.uniform(0, 360), rng.uniform(50, 85),
                             (rng.uniform(400, 900), rng.uniform(300, 700)), rng.uniform(0.7, 0.95))
        taps = _corners(cam, table) + rng.normal(0, 1, (4, 2)) * rng.uniform(0, 2)
        found = camera_from_corners(taps, tuple(table[2]), SIZE)
        rows.append(_errors(found, cam) + (found.measured,))
    e = np.array(rows)
    med, p90, worst = np.median(e, 0), np.percentile(e, 90, 0), e.max(0)
    print(f"focal % median {med[0]:.1f} p90 {p90[0]:.1f} max {worst[0]:.1f}; angle deg "
          f"{med[1]:.2f} {p90[1]:.2f} {worst[1]:.2f}; height % {med[2]:.1f} {p90[2]:.1f} "
          f"{worst[2]:.1f}; fell back {int((e[:, 3] == 0).sum())}")
    assert med[0] < 6 and p90[0] < 25 and worst[0] < 50
    assert med[1] < 1.0 and p90[1] < 3.0 and worst[1] < 7.0
    assert med[2] < 6 and p90[2] < 25 and worst[2] < 50
    assert 0 < (e[:, 3] == 0).sum() < 60  # some low, noisy views fall back; most do not
    # measured ones are better than the fallback: the spread it keeps to is met on average
    measured = e[e[:, 3] == 1]
    assert np.median(measured[:, 0]) < 100 * MAX_FOCAL_REL_SPREAD / 3


@pytest.mark.parametrize("tilt", [0.0, 2.0])
def test_a_straight_down_view_falls_back_to_the_assumed_lens_and_says_so(tilt) -> None:
    cam, table = _camera(tilt, 30.0, 80.0)
    found = camera_from_corners(_corners(cam, table), (600, 450), SIZE)
    assert not found.measured and found.camera.source == "assumed-fov"
    f_assumed = SIZE[0] / 2 / np.tan(np.radians(DEFAULT_HFOV_DEG) / 2)
    assert found.camera.K[0, 0] == pytest.approx(f_assumed)
    for words in ("straight down", f"{DEFAULT_HFOV_DEG:g}-degree field of view is assumed",
                  "tilt the camera", "--lens-photos"):
        assert words in found.message
    # the pose still looks the right way; the height scales with the assumed focal length
    f_err, angle, h_err = _errors(found, cam)
    assert angle < 1.0  # measured 0.62 degrees at 2 degrees of tilt
    assert found.pose.height_mm == pytest.approx(
        cam.spec.height_mm * f_assumed / cam.K[0, 0], rel=0.01)
    # through manual_plane: a warning with the same words
    frame = np.full((SIZE[1], SIZE[0], 3), 120, np.uint8)
    plane, problems = manual_plane(frame, _corners(cam, table), (600, 450))
    warned = [p for p in problems if p.code == "focal-assumed"]
    assert len(warned) == 1 and warned[0].severity == "warning"
    assert "straight down" in warned[0].message


def test_the_spread_grows_as_the_view_straightens() -> None:
    spreads = []
    for tilt in (5.0, 10.0, 20.0, 35.0):
        cam, table = _camera(tilt, 45.0, 65.0)
        f, spread = focal_spread(table, _corners(cam, table), SIZE)
        assert f == pytest.approx(cam.K[0, 0], rel=1e-4)
        spreads.append(spread)
    assert spreads == sorted(spreads, reverse=True)
    assert spreads[0] > MAX_FOCAL_REL_SPREAD > spreads[2]


def test_the_pose_from_the_homography_is_the_solvepnp_pose() -> None:
    rng = np.random.default_rng(3)
    cam, table = _camera(28.0, 200.0, 70.0)
    taps = _corners(cam, table) + rng.normal(0, 1.5, (4, 2))
    found = camera_from_corners(taps, (600, 450), SIZE)
    pnp = estimate_pose(table, taps, found.camera)
    assert np.degrees(np.linalg.norm(cv2.Rodrigues(found.pose.R @ pnp.R.T)[0])) < 0.01
    assert found.pose.height_mm == pytest.approx(pnp.height_mm, rel=1e-4)


def test_bad_corners_are_refused_with_what_to_do() -> None:
    cam, table = _camera(25.0, 0.0, 65.0)
    px = _corners(cam, table)
    with pytest.raises(CalibrationError, match="clockwise"):
        camera_from_corners(px[::-1], (600, 450), SIZE)  # mirrored: camera under the table
    with pytest.raises(CalibrationError, match="four"):
        camera_from_corners(px[:3], (600, 450), SIZE)
    with pytest.raises(CalibrationError, match="positive"):
        camera_from_corners(px, (600, 0), SIZE)
    H = cv2.getPerspectiveTransform(table.astype(np.float32), px[::-1].astype(np.float32))
    with pytest.raises(CalibrationError, match="under the table"):
        pose_from_homography(H, camera_from_corners(px, (600, 450), SIZE).camera, table,
                             px[::-1])


def test_a_manual_calibration_is_stored_with_its_camera_and_followed_as_fixed(tmp_path) -> None:
    cam, table = _camera(25.0, 15.0, 70.0)
    frame = np.full((SIZE[1], SIZE[0], 3), 120, np.uint8)
    plane, problems = manual_plane(frame, _corners(cam, table), (600, 450))
    assert plane.camera.source == "corners" and not [p for p in problems
                                                     if p.code == "focal-assumed"]
    save_plane(plane, tmp_path)
    stored, _ = load_plane(tmp_path)
    assert stored.method == "manual" and stored.camera.source == "corners"
    assert stored.pose.height_mm == pytest.approx(cam.spec.height_mm, rel=1e-3)
    tracker, notes = tracker_from_store(tmp_path)
    assert isinstance(tracker, FixedPlaneTracker)
    assert any("by hand" in n and "not followed" in n for n in notes)
    first = tracker.update(frame)
    assert first.status == "found" and "four corners" in first.message
    assert tracker.update(frame).status == "skipped" and tracker.plane is first.plane
    # half the size, same aspect: scaled; another aspect ratio: refused as for the markers
    half = FixedPlaneTracker(stored).update(frame[::2, ::2])
    assert half.plane.image_size == (640, 360)
    with pytest.raises(CalibrationError, match="aspect"):
        FixedPlaneTracker(stored).update(np.zeros((600, 600, 3), np.uint8))
    # a stored manual plane without a pose gives no tracker, and says why
    doc = stored.to_dict()
    doc["pose"] = None
    from calibration.files import TABLE_FILE, TABLE_KIND, TABLE_VERSION
    from calibration.store import save_versioned
    save_versioned(tmp_path / TABLE_FILE, TABLE_KIND, TABLE_VERSION, doc)
    tracker, notes = tracker_from_store(tmp_path)
    assert tracker is None and "no camera pose" in notes[-1]


def test_a_manual_calibration_stored_before_gets_the_corners_camera(tmp_path) -> None:
    """A calibration by hand stored by an earlier version (the focal length taken from the
    homography however poorly the corners told it: here twice too long) is followed with the
    camera its corners give."""
    import dataclasses

    from calibration.plane import CameraModel

    cam, table = _camera(30.0, 60.0, 70.0)
    frame = np.full((SIZE[1], SIZE[0], 3), 120, np.uint8)
    plane, _ = manual_plane(frame, _corners(cam, table), (600, 450))
    K = plane.camera.K.copy()
    K[0, 0] *= 2
    K[1, 1] *= 2
    old_cam = CameraModel(K, np.zeros(5), "homography", SIZE)
    old = dataclasses.replace(plane, camera=old_cam,
                              pose=estimate_pose(table, _corners(cam, table), old_cam))
    assert old.pose.height_mm > 1.5 * cam.spec.height_mm
    save_plane(old, tmp_path)
    tracker, _ = tracker_from_store(tmp_path)
    assert tracker.plane.camera.source == "corners"
    assert tracker.plane.camera.K[0, 0] == pytest.approx(cam.K[0, 0], rel=1e-3)
    assert tracker.plane.pose.height_mm == pytest.approx(cam.spec.height_mm, rel=1e-3)
