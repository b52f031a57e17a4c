"""Measure the shipped pip classifier on real photos (evaluation only, never training).

Reads ``../shared/real/bjorkwall-dev/`` (1,400 100x100 photos of one ivory double-six tile each;
folder ``6x4`` is the tile 4-6), finds the tile in each photo as the reader does
(:class:`vision.read.Reader`: the photo enlarged, the detector, the fitted outline; the found
tile nearest the centre; ``--detector-only``: :func:`vision.detect.detect_tiles` on the photo
as it is) or, where that finds nothing, a simple method of its own (:func:`locate_tile`: the
most tile-shaped blob of a few threshold masks), cuts the halves with
:func:`vision.halves.half_crops` and reads them with :class:`vision.classifier.PipClassifier`.
A photo counts as found when a tile-shaped blob was found, and as read right when the two
predicted values are the tile's two values (in either order). Nothing from the photos is written
anywhere; with ``--update`` the figures go into ``pip_classifier.json`` and the model card.

    python models/eval_pip_classifier_real.py [--real ../shared/real/bjorkwall-dev] [--update]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

import cv2
import numpy as np

from domino_models.card import write_card
from vision.classifier import PipClassifier
from vision.detect import detect_tiles
from vision.halves import CornersError, tile_crops
from vision.pips import PipReader
from vision.read import Reader

HERE = Path(__file__).resolve().parent
DEFAULT_REAL = HERE.parent.parent / "shared" / "real" / "bjorkwall-dev"


def _order_corners(box: np.ndarray) -> np.ndarray:
    """Rotated-rectangle points reordered so that corners[0]-corners[1] is a short edge."""
    first = np.linalg.norm(box[1] - box[0])
    second = np.linalg.norm(box[2] - box[1])
    return box if first <= second else np.roll(box, -1, axis=0)


def _candidates(image_bgr: np.ndarray) -> list[np.ndarray]:
    """Binary masks that may hold the tile's top face: bright and low-saturation pixels."""
    hsv = cv2.cvtColor(image_bgr, cv2.COLOR_BGR2HSV)
    value = hsv[..., 2].astype(np.int16)
    whiteness = np.clip(value - hsv[..., 1].astype(np.int16), 0, 255).astype(np.uint8)
    gray = cv2.cvtColor(image_bgr, cv2.COLOR_BGR2GRAY)
    lab = cv2.cvtColor(image_bgr, cv2.COLOR_BGR2LAB).astype(np.float32)
    border = np.concatenate([lab[:4].reshape(-1, 3), lab[-4:].reshape(-1, 3),
                             lab[:, :4].reshape(-1, 3), lab[:, -4:].reshape(-1, 3)])
    distance = np.linalg.norm((lab - np.median(border, axis=0)) * [0.5, 1.0, 1.0], axis=2)
    distance = np.clip(distance * (255.0 / max(float(distance.max()), 1.0)), 0, 255)
    masks = []
    for channel in (distance.astype(np.uint8), whiteness, gray):
        blurred = cv2.GaussianBlur(channel, (3, 3), 0)
        _, mask = cv2.threshold(blurred, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
        masks.append(mask)
        for quantile in (90, 80):
            level = np.percentile(blurred, quantile)
            masks.append(((blurred >= level) * 255).astype(np.uint8))
    return masks


def locate_tile(image_bgr: np.ndarray) -> np.ndarray | None:
    """Corners (4x2, short edge first) of the one tile in a small photo, or None.

    Each candidate mask is closed (to fill the dark pips and the divider), and its connected
    blobs are scored by how rectangular they are and how close their long/short ratio is to 2.
    """
    height, width = image_bgr.shape[:2]
    best, best_score = None, 0.0
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (5, 5))
    for mask in _candidates(image_bgr):
        closed = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, kernel)
        contours, _ = cv2.findContours(closed, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        for contour in contours:
            area = cv2.contourArea(contour)
            if area < 0.01 * width * height or area > 0.6 * width * height:
                continue
            (cx, cy), (w, h), _ = rect = cv2.minAreaRect(contour)
            if min(w, h) < 6:
                continue
            fill = area / (w * h)
            ratio = max(w, h) / min(w, h)
            score = fill * np.exp(-abs(np.log(ratio / 2.0)) * 3.0)
            if score > best_score:
                best_score, best = score, cv2.boxPoints(rect)
    if best is None or best_score < 0.45:
        return None
    corners = _order_corners(best.astype(np.float64))
    corners[:, 0] = np.clip(corners[:, 0], -0.5, width - 0.5)
    corners[:, 1] = np.clip(corners[:, 1], -0.5, height - 0.5)
    return corners


def find_tile(image_bgr: np.ndarray, reader: Reader | None = None
              ) -> tuple[np.ndarray | None, str]:
    """Corners of the photo's tile and which finder found them ("detector", "fallback", "").

    With a ``reader`` the tile is found as the reader finds it (the small photo enlarged, the
    detector, the fitted outline: :meth:`vision.read.Reader.read`), the read tile nearest the
    centre; without one, :func:`vision.detect.detect_tiles` on the photo as it is. Where
    neither finds a tile, :func:`locate_tile`."""
    height, width = image_bgr.shape[:2]
    centre = np.array([width / 2, height / 2])
    if reader is not None:
        found = [np.asarray(t.corners, dtype=np.float64) for t in reader.read(image_bgr).tiles
                 if not t.cut]
    else:
        found = [np.asarray(t.corners, dtype=np.float64) for t in detect_tiles(image_bgr).tiles
                 if not t.cut]
    if found:
        return min(found, key=lambda q: float(np.linalg.norm(q.mean(axis=0) - centre))), "detector"
    corners = locate_tile(image_bgr)
    return (corners, "fallback") if corners is not None else (None, "")


def evaluate(folder: Path, classifier: PipClassifier, reader: Reader | None = None) -> dict:
    """Found rate and read accuracy over every photo under ``folder`` (tiles found as
    :func:`find_tile` finds them with ``reader``)."""
    photos = sorted(folder.glob("*/*.jpg"))
    if not photos:
        raise FileNotFoundError(f"no photos under {folder}; expected folders like 6x4/*.jpg")
    found, right_tiles, right_halves = 0, 0, 0
    by_finder = {"detector": 0, "fallback": 0}
    confusions: dict[str, int] = {}
    for photo in photos:
        match = re.fullmatch(r"(\d+)x(\d+)", photo.parent.name)
        if match is None:
            continue
        truth = sorted((int(match.group(1)), int(match.group(2))))
        image_bgr = cv2.imread(str(photo), cv2.IMREAD_COLOR)
        corners, finder = find_tile(image_bgr, reader)
        if corners is None:
            continue
        try:
            crops = tile_crops(image_bgr, [corners])
        except CornersError:
            continue  # a found quad that is no tile (degenerate or outside): not found
        found += 1
        by_finder[finder] += 1
        values, _ = classifier.classify(crops)
        guess = sorted(int(v) for v in values)
        right_halves += max(sum(a == b for a, b in zip(values, truth)),
                            sum(a == b for a, b in zip(values, truth[::-1])))
        if guess == truth:
            right_tiles += 1
        else:
            key = f"{truth[0]}-{truth[1]} read {guess[0]}-{guess[1]}"
            confusions[key] = confusions.get(key, 0) + 1
    total = len(photos)
    return {"photos": total, "found": found, "found_rate": found / total,
            "found_by": by_finder,
            "tiles_right": right_tiles, "tile_accuracy_of_found": right_tiles / max(found, 1),
            "tile_accuracy_of_all": right_tiles / total,
            "half_accuracy_of_found": right_halves / max(2 * found, 1),
            "top_confusions": dict(sorted(confusions.items(), key=lambda kv: -kv[1])[:10])}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--real", type=Path, default=DEFAULT_REAL, help="bjorkwall-dev folder")
    parser.add_argument("--model", type=Path, default=None, help="onnx file (default: shipped)")
    parser.add_argument("--detector-only", action="store_true",
                        help="find the tile with the detector on the photo as it is (the way "
                             "of the figures before 2026-11-22), not as the reader finds it")
    parser.add_argument("--update", action="store_true",
                        help="write the figures into pip_classifier.json next to the model")
    args = parser.parse_args(argv)
    if not args.real.is_dir():
        sys.exit(f"no real photos at {args.real}; pass --real FOLDER")
    classifier = PipClassifier(args.model)
    reader = None if args.detector_only else Reader(pip_reader=PipReader(classifier=None))
    figures = evaluate(args.real, classifier, reader)
    figures["finder"] = ("vision.detect.detect_tiles on the photo" if reader is None else
                         "vision.read.Reader (enlarged, detected, outline fitted)")
    print(json.dumps(figures, indent=2))
    if args.update:
        meta_path = classifier.path.with_suffix(".json")
        meta = json.loads(meta_path.read_text())
        meta.setdefault("accuracy", {})["real_bjorkwall_dev"] = figures
        meta_path.write_text(json.dumps(meta, indent=2) + "\n")
        write_card(meta, meta_path.with_suffix(".md"))
        print(f"updated {meta_path}", file=sys.stderr)


if __name__ == "__main__":
    main()
