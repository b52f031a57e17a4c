"""The printed marker sheet (PNG and PDF) and the set-up checks."""

from __future__ import annotations

import re
import struct
import zlib

import cv2
import numpy as np
import pytest

from calibration.checks import (Limits, Problem, check_exposure, check_framing, check_pose,
                                check_setup)
from calibration.markers import (MarkerSheetError, PAPER_MM, draw_sheet, max_marker_mm,
                                 write_sheet)
from calibration.plane import MarkerLayout, detect_markers, plane_from_corners, plane_from_markers
from calibration.synth import SynthCamera, synth_view

LAYOUT = MarkerLayout(600, 450, 40)
CAM = SynthCamera(900, 20, 0, target_mm=(300, 225))


@pytest.mark.parametrize("paper", sorted(PAPER_MM))
def test_sheet_markers_are_detected_at_the_stated_size(paper):
    sheet = draw_sheet(paper, 40.0)
    h, w = sheet.image_gray.shape
    pw, ph = PAPER_MM[paper]
    assert (w, h) == (round(pw / 25.4 * 300), round(ph / 25.4 * 300))
    small = cv2.resize(sheet.image_gray, None, fx=0.4, fy=0.4, interpolation=cv2.INTER_AREA)
    det = detect_markers(cv2.cvtColor(small, cv2.COLOR_GRAY2BGR))
    assert det.found == [0, 1, 2, 3]
    for i, corners in det.corners_px.items():
        side_mm = np.linalg.norm(corners[1] - corners[0]) / 0.4 / 300 * 25.4
        assert side_mm == pytest.approx(40.0, abs=0.3)
        assert np.abs(corners / 0.4 - sheet.marker_corners_px[i]).max() < 4
    # layout on paper: 0 top-left, 1 top-right, 2 bottom-right, 3 bottom-left
    c = {i: v.mean(0) for i, v in det.corners_px.items()}
    assert c[0][0] < c[1][0] and c[0][1] < c[3][1] and c[2][0] > c[3][0] and c[2][1] > c[1][1]


def test_png_records_300_dpi_and_pdf_holds_the_sheet(tmp_path):
    png = tmp_path / "m.png"
    write_sheet(png, "a4", 50)
    data = png.read_bytes()
    at = data.index(b"pHYs")
    ppm_x, ppm_y, unit = struct.unpack(">IIB", data[at + 4:at + 13])
    assert unit == 1 and round(ppm_x * 0.0254) == 300 == round(ppm_y * 0.0254)
    assert detect_markers(cv2.imread(str(png))).found == [0, 1, 2, 3]

    pdf = tmp_path / "m.pdf"
    write_sheet(pdf, "letter", 40)
    raw = pdf.read_bytes()
    assert raw.startswith(b"%PDF-1.4") and raw.rstrip().endswith(b"%%EOF")
    # the page is US Letter in points, and every xref offset points at its object
    assert b"/MediaBox [0 0 612.00 792.00]" in raw
    xref_at = int(re.search(rb"startxref\n(\d+)", raw).group(1))
    entries = re.findall(rb"(\d{10}) 00000 n", raw[xref_at:])
    for k, off in enumerate(entries, start=1):
        assert raw[int(off):].startswith(f"{k} 0 obj".encode())
    w = int(re.search(rb"/Width (\d+)", raw).group(1))
    h = int(re.search(rb"/Height (\d+)", raw).group(1))
    length = int(re.search(rb"/Filter /FlateDecode /Length (\d+)", raw).group(1))
    start = raw.index(b"stream\n", raw.index(b"/Subtype /Image")) + len(b"stream\n")
    img = np.frombuffer(zlib.decompress(raw[start:start + length]), np.uint8).reshape(h, w)
    det = detect_markers(cv2.cvtColor(cv2.resize(img, None, fx=0.4, fy=0.4,
                                                 interpolation=cv2.INTER_AREA), cv2.COLOR_GRAY2BGR))
    assert det.found == [0, 1, 2, 3]


def test_sheet_errors(tmp_path):
    with pytest.raises(MarkerSheetError, match=r"use 15 to 58 mm \(four to a page\) or up to 124"):
        draw_sheet("a4", 200)
    with pytest.raises(MarkerSheetError, match=r"one page each: write a \.pdf"):
        write_sheet(tmp_path / "big.png", "a4", 100)
    with pytest.raises(MarkerSheetError, match="paper 'a3' is not known"):
        draw_sheet("a3", 40)
    with pytest.raises(MarkerSheetError, match=r"\.pdf or \.png"):
        write_sheet(tmp_path / "m.jpg")
    assert max_marker_mm("a4") >= 50


def test_markers_command(tmp_path, capsys):
    from companion.cli import main
    assert main(["markers", "--out", str(tmp_path / "s.pdf"), "--size", "letter"]) == 0
    assert "LETTER at 300 dpi" in capsys.readouterr().out
    assert main(["markers", "--out", str(tmp_path / "s.pdf"), "--marker-mm", "500"]) == 2
    assert "use 15 to" in capsys.readouterr().err
    assert main(["markers", "--out", str(tmp_path / "c.pdf"), "--charuco", "--marker-mm", "3"]) == 2
    assert "the ChArUco lens board has fixed sizes" in capsys.readouterr().err
    assert not (tmp_path / "c.pdf").exists()


def test_good_setup_has_no_problems():
    report = check_setup(synth_view(LAYOUT, CAM, seed=1).image_bgr, LAYOUT)
    assert report.ok and report.problems == []


def test_missing_markers_in_view_and_out_of_frame():
    hidden = synth_view(LAYOUT, CAM, seed=1, markers=(0, 1, 3)).image_bgr
    report = check_setup(hidden, LAYOUT)
    codes = [p.code for p in report.problems]
    assert not report.ok and codes == ["markers-missing", "marker-hidden"]
    assert "found markers 0, 1, 3; missing 2 (bottom-right)" in report.problems[0].message
    assert "covered" in report.problems[1].message
    # the camera pointed too far right: marker 0 and 3 drop out of the picture
    off = synth_view(LAYOUT, SynthCamera(700, 15, 0, target_mm=(480, 225)), seed=1).image_bgr
    report = check_setup(off, LAYOUT)
    assert not report.ok
    assert any(p.code in ("table-out-of-frame", "markers-missing") for p in report.problems)


def test_too_dark_and_glare():
    dark = synth_view(LAYOUT, CAM, seed=1, brightness=0.25).image_bgr
    problems = check_exposure(dark)
    assert [p.code for p in problems] == ["too-dark"]
    assert "turn on a light" in problems[0].message
    img = synth_view(LAYOUT, CAM, seed=1).image_bgr
    plane = plane_from_markers(img, LAYOUT)
    glare = img.copy()
    centre = np.round(plane.to_image([[300, 225]])[0]).astype(int)
    cv2.circle(glare, tuple(centre), 60, (255, 255, 255), -1)
    problems = check_exposure(glare, plane)
    assert [p.code for p in problems] == ["glare"] and "lamp" in problems[0].message
    assert check_exposure(img, plane) == []


def test_pose_limits_and_framing():
    img = synth_view(LAYOUT, SynthCamera(1000, 40, 0, target_mm=(300, 225)), seed=1).image_bgr
    plane = plane_from_markers(img, LAYOUT)
    problems = check_pose(plane)
    assert [p.code for p in problems] == ["camera-too-tilted"]
    assert "tilted 40 degrees" in problems[0].message
    low = check_pose(plane, Limits(min_height_mm=1200))
    assert "camera-too-low" in [p.code for p in low]
    corners = [[-50, 10], [600, 20], [590, 470], [5, 460]]
    manual = plane_from_corners(corners, (600, 450), (640, 480))
    framing = check_framing(manual)
    assert [p.code for p in framing] == ["table-out-of-frame"]
    assert "top-left corner is outside" in framing[0].message
    assert str(Problem("x", "warning", "msg")) == "warning: msg"


def test_wrong_marker_size_is_reported():
    img = synth_view(LAYOUT, CAM, seed=1).image_bgr
    wrong = MarkerLayout(600, 450, 50)  # the markers are 40 mm
    report = check_setup(img, wrong)
    codes = [p.code for p in report.problems]
    assert "sizes-do-not-fit" in codes
    msg = next(p.message for p in report.problems if p.code == "sizes-do-not-fit")
    assert "--marker-mm" in msg
    assert "sizes-do-not-fit" not in [p.code for p in check_setup(img, LAYOUT).problems]


def test_charuco_sheet_is_detectable(tmp_path, capsys):
    from companion.cli import main
    from calibration.lens import charuco_board
    out = tmp_path / "board.png"
    assert main(["markers", "--charuco", "--out", str(out)]) == 0
    assert "ChArUco" in capsys.readouterr().out
    img = cv2.resize(cv2.imread(str(out)), None, fx=0.3, fy=0.3, interpolation=cv2.INTER_AREA)
    _c, ids, _mc, _mi = cv2.aruco.CharucoDetector(charuco_board()).detectBoard(img)
    assert ids is not None and len(ids) == 24  # every inner corner of the 7x5 board


def test_big_markers_one_per_page_in_a_pdf(tmp_path):
    raw = (tmp_path / "big.pdf")
    sheet = write_sheet(raw, "a4", 100)
    assert len(sheet.pages) == 4
    data = raw.read_bytes()
    assert b"/Count 4" in data
    xref_at = int(re.search(rb"startxref\n(\d+)", data).group(1))
    offsets = [int(o) for o in re.findall(rb"(\d{10}) 00000 n", data[xref_at:])]
    assert len(offsets) == 2 + 3 * 4
    for k, off in enumerate(offsets, start=1):
        assert data[off:].startswith(f"{k} 0 obj".encode())
    found = []
    for m in re.finditer(rb"/Width (\d+) /Height (\d+) .*?/Length (\d+) >>\nstream\n", data):
        w, h, n = (int(v) for v in m.groups())
        img = np.frombuffer(zlib.decompress(data[m.end():m.end() + n]), np.uint8).reshape(h, w)
        small = cv2.resize(img, None, fx=0.25, fy=0.25, interpolation=cv2.INTER_AREA)
        det = detect_markers(cv2.cvtColor(small, cv2.COLOR_GRAY2BGR))
        assert len(det.found) == 1
        side_mm = np.linalg.norm(det.corners_px[det.found[0]][1] - det.corners_px[det.found[0]][0]) \
            / 0.25 / 300 * 25.4
        assert side_mm == pytest.approx(100, abs=0.5)
        found += det.found
    assert found == [0, 1, 2, 3]
