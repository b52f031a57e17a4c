"""Camera sources without a camera: video files, image folders, clear errors."""

from __future__ import annotations

import time

import cv2
import numpy as np
import pytest

from vision.sources import (CameraError, Frame, ImageFolderSource, list_cameras, open_source,
                            read_image)


def _frames(n: int, w: int = 160, h: int = 120) -> list[np.ndarray]:
    out = []
    for k in range(n):
        img = np.zeros((h, w, 3), np.uint8)
        img[:, :, 1] = 40 * k  # each frame a different green level
        cv2.putText(img, str(k), (50, 80), cv2.FONT_HERSHEY_SIMPLEX, 2, (255, 255, 255), 3)
        out.append(img)
    return out


def test_video_file_reads_all_frames_then_none(tmp_path):
    path = tmp_path / "clip.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 10.0, (160, 120))
    assert writer.isOpened()
    for img in _frames(5):
        writer.write(img)
    writer.release()
    with open_source(str(path)) as src:
        assert src.kind == "file" and src.size == (160, 120)
        frames = list(src)
        assert src.read() is None
    assert [f.index for f in frames] == [0, 1, 2, 3, 4]
    assert all(isinstance(f, Frame) and f.frame_bgr.shape == (120, 160, 3) for f in frames)
    stamps = [f.timestamp for f in frames]
    assert stamps == sorted(stamps) and stamps[1] == pytest.approx(0.1, abs=0.02)
    greens = [int(np.median(f.frame_bgr[:, :, 1])) for f in frames]
    assert greens == sorted(greens) and greens[-1] - greens[0] > 120


def test_image_folder_sorted_and_looped(tmp_path):
    for k, img in enumerate(_frames(3)):
        cv2.imwrite(str(tmp_path / f"img_{2 - k}.png"), img)  # names in reverse of content
    (tmp_path / "notes.txt").write_text("ignored")
    src = open_source(tmp_path, loop=True, fps=2.0)
    assert isinstance(src, ImageFolderSource)
    got = [src.read() for _ in range(5)]
    assert all(f is not None for f in got)
    greens = [int(f.frame_bgr[0, 0, 1]) for f in got]  # type: ignore[union-attr]
    assert greens == [80, 40, 0, 80, 40]  # img_0 (k=2), img_1, img_2, then again
    assert [f.timestamp for f in got] == [0.0, 0.5, 1.0, 1.5, 2.0]  # type: ignore[union-attr]
    once = open_source(str(tmp_path))
    assert len(list(once)) == 3 and once.read() is None


def test_image_folder_resizes_and_reports_corrupt_file(tmp_path):
    cv2.imwrite(str(tmp_path / "a.png"), _frames(1)[0])
    (tmp_path / "b.png").write_bytes(b"not a png")
    src = open_source(tmp_path, width=80, height=60)
    assert src.read().frame_bgr.shape == (60, 80, 3)  # type: ignore[union-attr]
    with pytest.raises(CameraError, match=r"b\.png cannot be read.*remove or replace"):
        src.read()
    assert src.read() is None  # the folder goes on after it (to its end here), not from a.png


def test_a_corrupt_image_in_a_played_folder_is_skipped_not_rewound(tmp_path):
    """Played by the capture thread, a folder with an unreadable image in the middle goes on
    with the next image (reopening it used to start the folder again, for ever)."""
    from companion.capture import CaptureThread

    for k, frame in enumerate(_frames(3)):
        cv2.imwrite(str(tmp_path / f"{2 * k}.png"), frame)
    (tmp_path / "1.png").write_bytes(b"not a png")
    cap = CaptureThread(lambda: open_source(tmp_path, fps=1000.0), reconnect_s=0.01).start()
    got = []
    deadline = time.monotonic() + 10
    while cap.status().state != "ended" and time.monotonic() < deadline:
        frame = cap.get(timeout=0.05)
        if frame is not None:
            got.append(frame.index)
    cap.stop()
    assert cap.status().state == "ended" and cap.reconnects == 0
    assert sorted(set(got)) == got and 1 not in got


@pytest.mark.parametrize("spec, match", [
    (0, "no camera at index 0: plug one in or pass --camera with another index; found: none"),
    ("3", "no camera at index 3"),
    ("/dev/video7", "no camera at /dev/video7"),
    ("/no/such/file.mp4", "no such file or folder"),
    ("", "empty camera spec"),
    (True, "is not a source"),
])
def test_missing_sources_are_clear_camera_errors(spec, match):
    import glob
    if glob.glob("/dev/video*"):
        pytest.skip("this machine has video devices; the messages name them")
    with pytest.raises(CameraError, match=match):
        open_source(spec)


def test_empty_folder_single_image_and_corrupt_video(tmp_path):
    with pytest.raises(CameraError, match="no images in folder"):
        open_source(tmp_path)
    img = tmp_path / "one.png"
    cv2.imwrite(str(img), _frames(1)[0])
    with pytest.raises(CameraError, match="single image"):
        open_source(img)
    bad = tmp_path / "bad.mp4"
    bad.write_bytes(b"\x00" * 1000)
    with pytest.raises(CameraError, match="cannot be opened"):
        open_source(bad)


def test_unreachable_stream_fails_fast():
    start = time.perf_counter()
    with pytest.raises(CameraError, match="did not open"):
        open_source("rtsp://127.0.0.1:9/none", timeout_ms=1500)
    assert time.perf_counter() - start < 10


def test_list_cameras_is_empty_without_cameras():
    import glob
    if glob.glob("/dev/video*"):
        pytest.skip("this machine has video devices")
    assert list_cameras() == []


def test_read_image_errors(tmp_path):
    with pytest.raises(CameraError, match="no such photo"):
        read_image(tmp_path / "x.png")
    (tmp_path / "x.png").write_bytes(b"junk")
    with pytest.raises(CameraError, match="cannot be read"):
        read_image(tmp_path / "x.png")
