"""Choose the detector's gates on rendered tuning scenes, never on the real photos.

``python -m vision.tune [--scores 0.7,0.75,0.8] [--size-low 0.6] [--size-high 1.6] [--residual 0.6]
[--pips-alone 2] [--face-min 0.6] [--residual-face 0,0.66] [--large-split-only 0,1]
[--inner-score 0.86,1.01] [--fit-split 0,1] [--fit-cover 0.6,0.7] [--zoom-width 0,18]
[--zoom-target 20] [--face-rescue 0,1] [--decor] [--scenes 30]
[--seed 1600000] [--model PATH]`` reads held-out rendered scenes of a seed range that
``domino-companion evaluate`` does not use (its default seeds start at 1,000,000; ``--decor``: with
printed board art on the table, e.g. ``--seed 1650000``) once per combination of the values given
for :data:`vision.detect.NET_LOW_SCORE` (a kept network tile's least kernel score),
:data:`vision.detect.SIZE_LOW` and :data:`vision.detect.SIZE_HIGH` (its size against its
neighbours'), :data:`vision.detect.RESIDUAL_AREA` (unexplained face, in tile areas, that is split
again), :data:`vision.detect.PIPS_ALONE` (pips it must show without a divider) and
:data:`vision.detect.FACE_MIN` (network face probability over it),
:data:`vision.detect.RESIDUAL_FACE_MIN` (the same over a tile split from the face map),
:data:`vision.detect.LARGE_SPLIT_ONLY` (1: only tiles cut from merged kernels are set aside as too
large) and :data:`vision.detect.INNER_SCORE` (the least kernel score of a tile showing no ink that
is looked at again on its inner part; above 1: never), and of the tile finder's
:data:`vision.tile_finder.FIT_SPLIT` (1: blobs of tiles touching at angles are split by fitted
kernel rectangles, 0: by thresholds only) and :data:`vision.tile_finder.FIT_COVER` (how much of a
fitted kernel rectangle must be blob), :data:`vision.tile_finder.ZOOM_WIDTH` (0: no larger pass
over pictures of small tiles) and :data:`vision.tile_finder.ZOOM_TARGET` (the tile width that
pass scales to) and :data:`vision.tile_finder.FACE_RESCUE` (1: a kernel blob too short for a tile
takes the outline of its face), and prints tiles right, precision, recall and frames
entirely right for each, so the gates are set from the project's own pictures. ``--model`` tries
another tile-finder ONNX file (for example a longer training run under ``runs/``). The scenes are
rendered once and read for every setting.
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
#: The detector constants swept, in the order of a row's settings.
GATES = ("NET_LOW_SCORE", "SIZE_LOW", "SIZE_HIGH", "RESIDUAL_AREA", "PIPS_ALONE", "FACE_MIN",
         "RESIDUAL_FACE_MIN", "LARGE_SPLIT_ONLY", "INNER_SCORE")
#: The tile finder's post-processing constants swept, after the detector's in a row.
FINDER_GATES = ("FIT_SPLIT", "FIT_COVER", "ZOOM_WIDTH", "ZOOM_TARGET", "FACE_RESCUE")


def _module(name: str) -> object:
    return tile_finder if name in FINDER_GATES else detect


def _floats(text: str) -> list[float]:
    try:
        values = [float(x) for x in text.split(",") if x.strip()]
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"expected numbers separated by commas, e.g. "
                                         f"0.7,0.75, got {text!r}") from exc
    if not values:
        raise argparse.ArgumentTypeError(f"expected at least one number, got {text!r}")
    return values


def sweep(settings: dict[str, Sequence[float]], scenes: int, seed: int, decor: bool = False
          ) -> list[dict[str, float]]:
    """One summary row per combination of ``settings`` (detector constant name -> values; names
    from :data:`GATES` or :data:`FINDER_GATES`, a name left out keeps its value) on ``scenes``
    held-out scenes from ``seed`` (with printed board art on the table when ``decor``); the
    module constants are restored."""
    every = GATES + FINDER_GATES
    unknown = sorted(set(settings) - set(every))
    if unknown:
        raise ValueError(f"cannot sweep {unknown}: the gates are {list(every)}")
    names = [n for n in every if n in settings]
    pictures = list(rendered_scenes(scenes, seed, decor=True) if decor
                    else rendered_scenes(scenes, seed))
    reader = Reader()
    saved = {n: getattr(_module(n), n) for n in every}
    rows = []
    try:
        for values in itertools.product(*(settings[n] for n in names)):
            for n, v in zip(names, values):
                setattr(_module(n), n, type(saved[n])(v))
            scored = [score_rendered(reader.read(img), truth, name) for name, img, truth in pictures]
            summary = next(iter(summarise(scored).values()))
            row = {n: float(getattr(_module(n), n)) for n in every}
            row.update({k: summary[k] for k in ("tiles_right", "precision", "recall",
                                                "frames_right")})
            rows.append(row)
    finally:
        for n, v in saved.items():
            setattr(_module(n), n, v)
    return rows


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scores", type=_floats, default=[0.7, 0.75, 0.8],
                        help="values of NET_LOW_SCORE")
    parser.add_argument("--size-low", type=_floats, default=[detect.SIZE_LOW])
    parser.add_argument("--size-high", type=_floats, default=[detect.SIZE_HIGH])
    parser.add_argument("--residual", type=_floats, default=[detect.RESIDUAL_AREA],
                        help="values of RESIDUAL_AREA")
    parser.add_argument("--pips-alone", type=_floats, default=[detect.PIPS_ALONE],
                        help="values of PIPS_ALONE (whole numbers)")
    parser.add_argument("--face-min", type=_floats, default=[detect.FACE_MIN],
                        help="values of FACE_MIN")
    parser.add_argument("--residual-face", type=_floats, default=[detect.RESIDUAL_FACE_MIN],
                        help="values of RESIDUAL_FACE_MIN (0: no face check of tiles split "
                             "from the face map)")
    parser.add_argument("--large-split-only", type=_floats,
                        default=[float(detect.LARGE_SPLIT_ONLY)],
                        help="values of LARGE_SPLIT_ONLY (1: only split tiles are set aside as "
                             "too large, 0: every tile)")
    parser.add_argument("--inner-score", type=_floats, default=[detect.INNER_SCORE],
                        help="values of INNER_SCORE (above 1: no second look at a tile's "
                             "inner part)")
    parser.add_argument("--fit-split", type=_floats, default=[float(tile_finder.FIT_SPLIT)],
                        help="values of FIT_SPLIT (1 fitted split of merged kernel blobs, 0 off)")
    parser.add_argument("--fit-cover", type=_floats, default=[tile_finder.FIT_COVER],
                        help="values of FIT_COVER")
    parser.add_argument("--zoom-width", type=_floats, default=[tile_finder.ZOOM_WIDTH],
                        help="values of ZOOM_WIDTH (0: no larger pass over small tiles)")
    parser.add_argument("--zoom-target", type=_floats, default=[tile_finder.ZOOM_TARGET],
                        help="values of ZOOM_TARGET")
    parser.add_argument("--face-rescue", type=_floats, default=[float(tile_finder.FACE_RESCUE)],
                        help="values of FACE_RESCUE (1: a kernel blob too short for a tile takes "
                             "the outline of its face, 0: it is dropped)")
    parser.add_argument("--decor", action="store_true",
                        help="scenes with printed board art on the table (decor=True)")
    parser.add_argument("--scenes", type=int, default=30)
    parser.add_argument("--seed", type=int, default=TUNING_SEED)
    parser.add_argument("--model", type=Path, default=None,
                        help="a tile-finder .onnx to try instead of the shipped one")
    args = parser.parse_args(argv)
    if args.scenes < 1:
        parser.error(f"--scenes must be at least 1, got {args.scenes}")
    if args.model is not None:
        tile_finder._SHARED[tile_finder.default_model_path()] = tile_finder.TileFinder(args.model)
    settings = {"NET_LOW_SCORE": args.scores, "SIZE_LOW": args.size_low,
                "SIZE_HIGH": args.size_high, "RESIDUAL_AREA": args.residual,
                "PIPS_ALONE": args.pips_alone, "FACE_MIN": args.face_min,
                "RESIDUAL_FACE_MIN": args.residual_face,
                "LARGE_SPLIT_ONLY": args.large_split_only, "INNER_SCORE": args.inner_score,
                "FIT_SPLIT": args.fit_split, "FIT_COVER": args.fit_cover,
                "ZOOM_WIDTH": args.zoom_width, "ZOOM_TARGET": args.zoom_target,
                "FACE_RESCUE": args.face_rescue}
    names = GATES + FINDER_GATES
    print(" ".join(n.lower() for n in names) + " tiles_right precision recall frames_right")
    for row in sweep(settings, args.scenes, args.seed, args.decor):
        print(" ".join(f"{row[n]:.2f}" for n in names) + " " + " ".join(
            f"{row[k]:.4f}" for k in ("tiles_right", "precision", "recall", "frames_right")))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
