"""The printable sheet of the four table-corner markers (``domino-companion markers``).

Four ArUco markers (dictionary ``DICT_4X4_50``, ids 0..3) go at the four corners of the play area,
id 0 top-left and then clockwise (1 top-right, 2 bottom-right, 3 bottom-left), as seen from the
camera's usual side. By default the *centre* of each marker sits on the play-area corner (the
sheet has tick marks on the cut box that line up with the marker's centre), so the table size
to enter is the centre-to-centre distance between markers 0 and 1 (width) and markers 1 and 2
(height).

The sheet is drawn at 300 dpi on A4 or US Letter with a 100 mm check ruler, and written as a PNG
(with its DPI recorded in the file) or as a PDF of the true paper size (a minimal PDF written
here: one Flate-compressed greyscale image per page). Markers up to 58 mm (A4) fit four to a
page; bigger ones (for big tables or a high camera) come one per page, in a four-page PDF.
"""

from __future__ import annotations

import argparse
import os
import struct
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import cv2
import numpy as np

from calibration.store import write_atomic
from companion.errors import DominoError

DICTIONARY_ID = cv2.aruco.DICT_4X4_50
MARKER_IDS = (0, 1, 2, 3)
CORNER_NAMES = {0: "top-left", 1: "top-right", 2: "bottom-right", 3: "bottom-left"}
PAPER_MM = {"a4": (210.0, 297.0), "letter": (215.9, 279.4)}
DPI = 300
#: White border kept around each marker inside its cut box, in marker modules (cells).
QUIET_CELLS = 1.5


class MarkerSheetError(DominoError):
    """A marker sheet that cannot be made as asked (size, paper, output file)."""


def aruco_dictionary() -> cv2.aruco.Dictionary:
    """The dictionary every part of the companion uses for the table markers."""
    return cv2.aruco.getPredefinedDictionary(DICTIONARY_ID)


def marker_image(marker_id: int, side_px: int) -> np.ndarray:
    """One marker (black border included) as a ``side_px`` square greyscale image."""
    if marker_id not in range(50):
        raise MarkerSheetError(f"marker id {marker_id} is not in DICT_4X4_50; use 0..49")
    return cv2.aruco.generateImageMarker(aruco_dictionary(), int(marker_id), int(side_px))


@dataclass(frozen=True)
class Sheet:
    """A drawn sheet: ``image_gray`` at ``dpi``, the paper size, and where each marker's black
    square is on the page (pixel corners TL, TR, BR, BL) for checking."""

    image_gray: np.ndarray
    dpi: int
    paper: str
    paper_mm: tuple[float, float]
    marker_mm: float
    marker_corners_px: dict[int, np.ndarray]
    #: every page (one for markers up to :func:`max_marker_mm`, else one marker per page);
    #: ``marker_corners_px`` of a one-per-page sheet are on the marker's own page
    pages: tuple[np.ndarray, ...] = ()


def _mm(v: float, dpi: int = DPI) -> int:
    return int(round(v * dpi / 25.4))


def _text(img: np.ndarray, text: str, org: tuple[int, int], scale: float = 1.4,
          thickness: int = 3) -> None:
    cv2.putText(img, text, org, cv2.FONT_HERSHEY_SIMPLEX, scale, 0, thickness, cv2.LINE_AA)


def _dashed_rect(img: np.ndarray, x0: int, y0: int, x1: int, y1: int, dash: int = 30) -> None:
    for (ax, ay, bx, by) in ((x0, y0, x1, y0), (x1, y0, x1, y1), (x1, y1, x0, y1), (x0, y1, x0, y0)):
        length = int(np.hypot(bx - ax, by - ay))
        for s in range(0, length, 2 * dash):
            e = min(s + dash, length)
            p = (int(ax + (bx - ax) * s / length), int(ay + (by - ay) * s / length))
            q = (int(ax + (bx - ax) * e / length), int(ay + (by - ay) * e / length))
            cv2.line(img, p, q, 0, 2)


def _draw_marker_box(img: np.ndarray, marker_id: int, bx: int, by: int, box: int, quiet: int,
                     side: int, t: int) -> np.ndarray:
    """Draw one marker with its white quiet zone, a dashed cut line and centre ticks at the
    box's top-left ``(bx, by)``; returns the marker's four corners in sheet pixels."""
    mx, my = bx + quiet, by + quiet
    img[my:my + side, mx:mx + side] = marker_image(marker_id, side)
    _dashed_rect(img, bx, by, bx + box, by + box)
    cx, cy = mx + side // 2, my + side // 2
    tick = max(quiet // 2, 4)
    for (p, q) in (((cx, by), (cx, by + tick)), ((cx, by + box - tick), (cx, by + box)),
                   ((bx, cy), (bx + tick, cy)), ((bx + box - tick, cy), (bx + box, cy))):
        cv2.line(img, p, q, 0, t)
    return np.array([[mx, my], [mx + side, my], [mx + side, my + side], [mx, my + side]],
                    np.float32)


def max_marker_mm(paper: str = "a4") -> float:
    """The largest marker that fits four to a sheet of ``paper`` with its cut box and labels."""
    w, h = PAPER_MM[paper]
    # two columns: margins 12 mm each side, 10 mm gutter; a box is marker * (1 + 2*quiet/6)
    box_factor = 1 + 2 * QUIET_CELLS / 6
    by_width = (w - 24 - 10) / 2 / box_factor
    by_height = (h - 70 - 2 * 22) / 2 / box_factor  # instructions at the top, labels per box
    return float(np.floor(min(by_width, by_height)))


def max_single_marker_mm(paper: str = "a4") -> float:
    """The largest marker that fits one to a page of ``paper`` with its cut box and label."""
    w, h = PAPER_MM[paper]
    box_factor = 1 + 2 * QUIET_CELLS / 6
    return float(np.floor(min((w - 24) / box_factor, (h - 60 - 30) / box_factor)))


def _single_pages(paper: str, marker_mm: float, dpi: int) -> Sheet:
    """Four pages, one big marker each, with short instructions."""
    pw, ph = PAPER_MM[paper]
    W, H = _mm(pw, dpi), _mm(ph, dpi)
    side = _mm(marker_mm, dpi)
    quiet = int(round(side / 6 * QUIET_CELLS))
    box = side + 2 * quiet
    s = 1.6 * dpi / 300
    t = max(1, int(round(3 * dpi / 300)))
    pages, corners = [], {}
    for marker_id in MARKER_IDS:
        img = np.full((H, W), 255, np.uint8)
        _text(img, f"Table corner marker id {marker_id}: {CORNER_NAMES[marker_id]}",
              (_mm(12, dpi), _mm(16, dpi)), scale=1.25 * s, thickness=t + 1)
        for k, line in enumerate((
                f"Print at 100%: the black square must be {marker_mm:g} mm. Cut along the "
                "dashed line.",
                "Ids 0-3 go clockwise from top-left; the tick marks show the centre, which goes "
                "on the corner.",
                "Measure centre to centre (0-1 width, 1-2 height) and enter it as --table-mm "
                "WIDTHxHEIGHT.")):
            _text(img, line, (_mm(12, dpi), _mm(24 + 6 * k, dpi)), scale=0.75 * s,
                  thickness=max(1, t - 1))
        bx, by = (W - box) // 2, _mm(50, dpi)
        corners[marker_id] = _draw_marker_box(img, marker_id, bx, by, box, quiet, side, t)
        _text(img, f"id {marker_id}: {CORNER_NAMES[marker_id]} ({marker_mm:g} mm) - this side up",
              (bx, by + box + _mm(9, dpi)), scale=0.9 * s, thickness=t)
        pages.append(img)
    return Sheet(pages[0], dpi, paper, (pw, ph), float(marker_mm), corners, tuple(pages))


def draw_sheet(paper: str = "a4", marker_mm: float = 40.0, dpi: int = DPI) -> Sheet:
    """Draw the four-marker sheet: all four on one page up to :func:`max_marker_mm`, one per page
    (four pages) up to :func:`max_single_marker_mm`. Raises :class:`MarkerSheetError` for an
    unknown paper or a marker size that does not fit (naming the sizes that do)."""
    paper = paper.lower()
    if paper not in PAPER_MM:
        raise MarkerSheetError(f"paper {paper!r} is not known; use one of {', '.join(PAPER_MM)}")
    limit = max_marker_mm(paper)
    big = max_single_marker_mm(paper)
    if not (15.0 <= marker_mm <= big):
        raise MarkerSheetError(f"marker size {marker_mm:g} mm does not work on {paper}: "
                               f"use 15 to {limit:g} mm (four to a page) or up to {big:g} mm "
                               "(one per page, PDF) (--marker-mm)")
    if marker_mm > limit:
        return _single_pages(paper, marker_mm, dpi)
    pw, ph = PAPER_MM[paper]
    W, H = _mm(pw, dpi), _mm(ph, dpi)
    img = np.full((H, W), 255, np.uint8)
    s = 1.6 * dpi / 300
    t = max(1, int(round(3 * dpi / 300)))
    lines = [
        "Domino table companion - table corner markers",
        f"Print at 100% / actual size ({paper.upper()}). Check: each black square is "
        f"{marker_mm:g} mm, the ruler below is 100 mm.",
        "1. Cut out the four boxes along the dashed lines.",
        "2. Put them at the four corners of the play area, flat, upright as printed:",
        "   id 0 top-left, then clockwise: id 1 top-right, id 2 bottom-right, id 3 bottom-left.",
        "   The tick marks show each marker's centre: the centre goes on the corner.",
        "3. Measure centre to centre: 0 to 1 (width) and 1 to 2 (height), in mm, and enter",
        "   them:  domino-companion calibrate --table-mm WIDTHxHEIGHT",
    ]
    y = _mm(14, dpi)
    _text(img, lines[0], (_mm(12, dpi), y), scale=1.25 * s, thickness=t + 1)
    for line in lines[1:]:
        y += _mm(5.2, dpi)
        _text(img, line, (_mm(12, dpi), y), scale=0.78 * s, thickness=t - 1 if t > 1 else 1)
    # 100 mm ruler with 10 mm ticks
    y += _mm(6, dpi)
    x0 = _mm(12, dpi)
    cv2.line(img, (x0, y), (x0 + _mm(100, dpi), y), 0, t)
    for k in range(11):
        xk = x0 + _mm(10 * k, dpi)
        cv2.line(img, (xk, y - _mm(2.5 if k % 5 else 4, dpi)), (xk, y), 0, t)
    _text(img, "100 mm", (x0 + _mm(103, dpi), y), scale=0.75 * s, thickness=max(1, t - 1))

    side = _mm(marker_mm, dpi)
    quiet = int(round(side / 6 * QUIET_CELLS))
    box = side + 2 * quiet
    top = _mm(70, dpi)
    gutter_x = (W - 2 * box) // 3
    gutter_y = (H - top - 2 * box - 2 * _mm(22, dpi)) // 3
    corners: dict[int, np.ndarray] = {}
    for marker_id, (col, row) in zip(MARKER_IDS, ((0, 0), (1, 0), (1, 1), (0, 1))):
        bx = gutter_x + col * (box + gutter_x)
        by = top + gutter_y + row * (box + _mm(22, dpi) + gutter_y)
        corners[marker_id] = _draw_marker_box(img, marker_id, bx, by, box, quiet, side, t)
        label = f"id {marker_id}: {CORNER_NAMES[marker_id]}  ({marker_mm:g} mm)"
        _text(img, label, (bx, by + box + _mm(7, dpi)), scale=0.9 * s, thickness=t)
        _text(img, "this side up", (bx, by + box + _mm(13, dpi)), scale=0.7 * s,
              thickness=max(1, t - 1))
    return Sheet(img, dpi, paper, (pw, ph), float(marker_mm), corners, (img,))


def _png_with_dpi(image_gray: np.ndarray, dpi: int) -> bytes:
    ok, buf = cv2.imencode(".png", image_gray)
    if not ok:  # pragma: no cover - encoding a valid uint8 image does not fail
        raise MarkerSheetError("PNG encoding failed")
    data = buf.tobytes()
    ppm = int(round(dpi / 0.0254))
    payload = struct.pack(">IIB", ppm, ppm, 1)
    chunk = struct.pack(">I", len(payload)) + b"pHYs" + payload
    chunk += struct.pack(">I", zlib.crc32(b"pHYs" + payload) & 0xFFFFFFFF)
    at = 8 + 25  # after the signature and the IHDR chunk
    return data[:at] + chunk + data[at:]


def pdf_bytes(pages_gray: np.ndarray | Sequence[np.ndarray], paper_mm: tuple[float, float]
              ) -> bytes:
    """A PDF of the paper size with one greyscale image per page, edge to edge (Flate,
    DeviceGray). A minimal, valid PDF 1.4: catalog, page tree, per page a page object, an image
    XObject and a content stream, then the cross-reference table."""
    pages = [pages_gray] if isinstance(pages_gray, np.ndarray) else list(pages_gray)
    pw, ph = (v / 25.4 * 72 for v in paper_mm)
    n = len(pages)
    page_ids = [3 + 3 * k for k in range(n)]
    objects: list[bytes] = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        (f"<< /Type /Pages /Kids [{' '.join(f'{i} 0 R' for i in page_ids)}] /Count {n} >>"
         ).encode(),
    ]
    for k, image in enumerate(pages):
        h, w = image.shape
        pid, iid, cid = page_ids[k], page_ids[k] + 1, page_ids[k] + 2
        stream = zlib.compress(np.ascontiguousarray(image).tobytes(), 9)
        content = f"q {pw:.2f} 0 0 {ph:.2f} 0 0 cm /Im{k} Do Q".encode()
        objects += [
            (f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 {pw:.2f} {ph:.2f}] "
             f"/Resources << /XObject << /Im{k} {iid} 0 R >> >> /Contents {cid} 0 R >>").encode(),
            (f"<< /Type /XObject /Subtype /Image /Width {w} /Height {h} /ColorSpace /DeviceGray "
             f"/BitsPerComponent 8 /Filter /FlateDecode /Length {len(stream)} >>\nstream\n"
             ).encode() + stream + b"\nendstream",
            f"<< /Length {len(content)} >>\nstream\n".encode() + content + b"\nendstream",
        ]
        assert pid == len(objects) - 2
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for i, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{i} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    for off in offsets:
        out += f"{off:010d} 00000 n \n".encode()
    out += (f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n"
            ).encode()
    return bytes(out)


def write_sheet(out: str | os.PathLike[str], paper: str = "a4", marker_mm: float = 40.0) -> Sheet:
    """Draw the sheet and write it as .pdf or .png (chosen by the file's suffix), atomically."""
    path = Path(out)
    suffix = path.suffix.lower()
    if suffix not in (".pdf", ".png"):
        raise MarkerSheetError(f"output {path} must end in .pdf or .png")
    sheet = draw_sheet(paper, marker_mm)
    if suffix == ".png" and len(sheet.pages) > 1:
        raise MarkerSheetError(f"{marker_mm:g} mm markers take one page each: write a .pdf "
                               f"(or use --marker-mm {max_marker_mm(paper.lower()):g} or less "
                               "for one PNG page)")
    data = (pdf_bytes(sheet.pages, sheet.paper_mm) if suffix == ".pdf"
            else _png_with_dpi(sheet.image_gray, sheet.dpi))
    write_atomic(path, data, keep_previous=False)
    return sheet


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--out", required=True, help="file to write: .pdf (best) or .png")
    parser.add_argument("--size", choices=sorted(PAPER_MM), default="a4", help="paper size")
    parser.add_argument("--marker-mm", type=float, default=None,
                        help="side of each black marker square in mm (default 40; not with "
                             "--charuco, whose board has fixed sizes)")
    parser.add_argument("--charuco", action="store_true",
                        help="write the ChArUco board for the optional lens calibration instead")


def write_charuco_sheet(out: str | os.PathLike[str], paper: str = "a4") -> Sheet:
    """The ChArUco lens-calibration board (see :mod:`calibration.lens`) centred on a landscape
    page at 300 dpi, with its square size printed, as .pdf or .png."""
    from calibration.lens import DEFAULT_SQUARE_MM, board_image, charuco_board

    path = Path(out)
    if path.suffix.lower() not in (".pdf", ".png"):
        raise MarkerSheetError(f"output {path} must end in .pdf or .png")
    ph, pw = PAPER_MM[paper.lower()]  # landscape
    W, H = _mm(pw), _mm(ph)
    page = np.full((H, W), 255, np.uint8)
    board = board_image(charuco_board(), px_per_mm=DPI / 25.4, margin_mm=0)
    y0, x0 = (H - board.shape[0]) // 2, (W - board.shape[1]) // 2
    page[y0:y0 + board.shape[0], x0:x0 + board.shape[1]] = board
    _text(page, f"Lens calibration board: squares {DEFAULT_SQUARE_MM:g} mm - print at 100%, "
                "glue flat, take 10+ photos from different angles",
          (_mm(12), _mm(12)), scale=1.1, thickness=3)
    data = pdf_bytes(page, (pw, ph)) if path.suffix.lower() == ".pdf" else _png_with_dpi(page, DPI)
    write_atomic(path, data, keep_previous=False)
    return Sheet(page, DPI, paper, (pw, ph), 0.0, {})


def run(args: argparse.Namespace) -> int:
    if args.charuco:
        if args.marker_mm is not None:
            from calibration.lens import DEFAULT_MARKER_MM, DEFAULT_SQUARE_MM

            raise MarkerSheetError(
                f"--marker-mm is for the table markers: the ChArUco lens board has fixed sizes "
                f"({DEFAULT_SQUARE_MM:g} mm squares, {DEFAULT_MARKER_MM:g} mm markers, which "
                "the lens calibration expects); leave --marker-mm out")
        write_charuco_sheet(args.out, args.size)
        print(f"wrote {args.out}: ChArUco lens board on {args.size.upper()} landscape at {DPI} "
              "dpi. Print at 100%, then: domino-companion calibrate --lens-photos FOLDER")
        return 0
    sheet = write_sheet(args.out, args.size, 40.0 if args.marker_mm is None else args.marker_mm)
    where = "one page" if len(sheet.pages) == 1 else f"{len(sheet.pages)} pages, one marker each"
    print(f"wrote {args.out}: {sheet.paper.upper()} at {sheet.dpi} dpi, {where}, four "
          f"{sheet.marker_mm:g} mm markers (DICT_4X4_50 ids 0-3). Print at 100% and check the "
          "size of a black square with a ruler.")
    return 0
