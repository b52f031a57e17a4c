"""Choose the detector's pooling gate on rendered tuning scenes, never on the real photos.

``python -m vision.tune [--scores 0.82,0.88,0.94] [--size-match 0.15] [--scenes 30]
[--seed 1600000] [--model PATH]`` reads held-out rendered scenes of a seed range that
``domino-companion evaluate`` does not use (its default seeds start at 1,000,000) once per value
of :data:`vision.detect.NET_MIN_SCORE` and prints tiles right, precision, recall and frames
entirely right for each, so the gate is set from the project's own pictures. ``--model`` tries
another tile-finder ONNX file (for example a longer training run under ``runs/``).
"""

from __future__ import annotations

import argparse
import itertools
from collections.abc import Sequence
from pathlib import Path

import vision.detect as detect
import vision.tile_finder as tile_finder
from vision.evaluate import rendered_scenes, score_rendered, summarise
from vision.read import Reader

#: First seed of the tuning scenes (held-out looks, never used for training or ``evaluate``).
TUNING_SEED = 1_600_000


def _floats(text: str) -> list[float]:
    try:
        return [float(x) for x in text.split(",") if x.strip()]
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"expected numbers separated by commas, e.g. "
                                         f"0.82,0.88, got {text!r}") from exc


def sweep(scores: Sequence[float], size_matches: Sequence[float], scenes: int, seed: int
          ) -> list[dict[str, float]]:
    """One summary row per (NET_MIN_SCORE, SIZE_MATCH); the module constants are restored."""
    pictures = list(rendered_scenes(scenes, seed))
    reader = Reader()
    saved = detect.NET_MIN_SCORE, detect.SIZE_MATCH
    rows = []
    try:
        for score, size in itertools.product(scores, size_matches):
            detect.NET_MIN_SCORE, detect.SIZE_MATCH = score, size
            scored = [score_rendered(reader.read(img), truth, name) for name, img, truth in pictures]
            summary = next(iter(summarise(scored).values()))
            rows.append({"net_min_score": score, "size_match": size,
                         "tiles_right": summary["tiles_right"], "precision": summary["precision"],
                         "recall": summary["recall"], "frames_right": summary["frames_right"]})
    finally:
        detect.NET_MIN_SCORE, detect.SIZE_MATCH = saved
    return rows


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scores", type=_floats, default=[0.82, 0.88, 0.94])
    parser.add_argument("--size-match", type=_floats, default=[detect.SIZE_MATCH])
    parser.add_argument("--scenes", type=int, default=30)
    parser.add_argument("--seed", type=int, default=TUNING_SEED)
    parser.add_argument("--model", type=Path, default=None,
                        help="a tile-finder .onnx to try instead of the shipped one")
    args = parser.parse_args(argv)
    if args.scenes < 1:
        parser.error(f"--scenes must be at least 1, got {args.scenes}")
    if args.model is not None:
        tile_finder._SHARED[tile_finder.default_model_path()] = tile_finder.TileFinder(args.model)
    print("net_min_score size_match tiles_right precision recall frames_right")
    for row in sweep(args.scores, args.size_match, args.scenes, args.seed):
        print(f"{row['net_min_score']:.2f} {row['size_match']:.2f} {row['tiles_right']:.4f} "
              f"{row['precision']:.4f} {row['recall']:.4f} {row['frames_right']:.4f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
