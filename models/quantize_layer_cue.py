"""Make ``models/layer_cue_int8.onnx``, the layer cue the reader serves, from the trained
``models/layer_cue.onnx``: the same network with its convolutions in 8-bit integers.

The float network (written by ``models/train_layer_cue.py``) stays the trained source of truth;
this script only converts it, with onnxruntime's static quantization (QDQ format, weights signed
8-bit per output channel with the range reduced to 7 bits, activations unsigned 8-bit, their
ranges the minimum and maximum seen on calibration crops). The reduced weight range keeps every
product sum exact in 16-bit lanes, so processors with and without VNNI instructions give the same
answers.

Calibration crops come only from the project's renderer on TRAINING seeds (below
:data:`vision.render.sampling.HELD_OUT_SEED_MIN`): ``--scenes`` scenes from ``--seed``, every
other one a stacked scene (:func:`vision.render.stacking.stacked_scene_spec`) and the others a
flat line (:func:`vision.render.sampling.random_scene_spec`), up to :data:`PER_SCENE` crops each
cut by :func:`vision.layer_cue.tile_crops` around the rendered face-up tiles. Rendering is
seeded, and MinMax calibration has no randomness, so the same float model and seeds give the
same quantized weights (activation ranges can differ in their last bits between processors).

The agreement of the two networks is measured on ``--check-scenes`` other training-seed scenes
and written with the file's size and sha256 under ``int8`` in ``models/layer_cue.json``; the
card ``models/layer_cue.md`` is written again from it. ::

    python models/quantize_layer_cue.py            # the shipped file, about 15 s
"""

from __future__ import annotations

import argparse
import hashlib
import json
import logging
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
if str(HERE.parent) not in sys.path:  # run as a script from anywhere
    sys.path.insert(0, str(HERE.parent))
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

from vision.layer_cue import FLOAT_MODEL_NAME, MODEL_NAME, tile_crops  # noqa: E402

#: Crops taken from one calibration or check scene at most (evenly over its tiles).
PER_SCENE = 8
#: Calibration crops given to onnxruntime per batch.
BATCH = 8


def scene_crops(first: int, count: int) -> np.ndarray:
    """``(N, 5, S, S)`` crops of ``count`` training-seed scenes from ``first`` (stacked and flat
    in turn), at most :data:`PER_SCENE` from each, cut around the rendered face-up tiles that
    are at least half visible."""
    from vision.render.sampling import HELD_OUT_SEED_MIN, random_scene_spec
    from vision.render.scene import render_scene
    from vision.render.stacking import stacked_scene_spec

    if first < 0 or count < 1 or first + count > HELD_OUT_SEED_MIN:
        raise ValueError(f"scenes {first}..{first + count - 1}: expected training seeds in "
                         f"0..{HELD_OUT_SEED_MIN - 1} (held-out seeds are for measuring only)")
    out = []
    for k, seed in enumerate(range(first, first + count)):
        spec = stacked_scene_spec(seed) if k % 2 == 0 else random_scene_spec(seed, layout="line")
        scene = render_scene(spec)
        quads = [np.array(t["corners"]) for t in scene.truth["tiles"]
                 if t["face_up"] and t["visible"] > 0.5]
        if not quads:
            continue
        crops = tile_crops(scene.image_bgr, quads)
        out.append(crops[:: max(1, len(crops) // PER_SCENE)][:PER_SCENE])
    return np.concatenate(out)


def quantize(source: Path, target: Path, crops: np.ndarray) -> None:
    """Write the 8-bit network of ``source`` to ``target``, calibrated on ``crops``."""
    try:
        from onnxruntime.quantization import (CalibrationDataReader, CalibrationMethod,
                                              QuantFormat, QuantType, quantize_static)
    except ImportError as exc:  # onnxruntime's quantization tool needs the onnx package
        raise ValueError(f"onnxruntime's quantization tool cannot be loaded ({exc}); install "
                         "the training extras: pip install -e '.[train]'") from exc

    class Batches(CalibrationDataReader):
        def __init__(self) -> None:
            self._it = iter(range(0, len(crops), BATCH))

        def get_next(self) -> dict[str, np.ndarray] | None:
            i = next(self._it, None)
            return None if i is None else {"crops": crops[i:i + BATCH]}

    # onnxruntime logs advice to pre-process the graph as a warning (measured: the same
    # network either way); quiet for this call only
    root = logging.getLogger()
    level = root.level
    root.setLevel(logging.ERROR)
    try:
        quantize_static(str(source), str(target), Batches(), quant_format=QuantFormat.QDQ,
                        activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8,
                        per_channel=True, reduce_range=True,
                        calibrate_method=CalibrationMethod.MinMax)
    finally:
        root.setLevel(level)


def agreement(float_path: Path, int8_path: Path, crops: np.ndarray) -> dict[str, Any]:
    """How the two networks' answers differ on ``crops``: P(raised) (1 - P(0 under)) and the
    likeliest count, and the time of 30 crops at the served thread count."""
    from vision.layer_cue import LayerCue

    a, b = LayerCue(float_path), LayerCue(int8_path)
    pa, pb = a.predict(crops), b.predict(crops)
    raised = np.abs((1 - pa[:, 0]) - (1 - pb[:, 0]))
    batch = crops[:30]
    times = {}
    for name, cue in (("float", a), ("int8", b)):
        for _ in range(3):
            cue.predict(batch)
        ts = []
        for _ in range(20):
            t0 = time.perf_counter()
            cue.predict(batch)
            ts.append(time.perf_counter() - t0)
        times[name] = round(float(np.median(ts)) * 1000, 2)
    return {"crops": int(len(crops)),
            "raised_diff_max": round(float(raised.max()), 4),
            "raised_diff_p99": round(float(np.percentile(raised, 99)), 4),
            "count_agree": int((pa.argmax(1) == pb.argmax(1)).sum()),
            "ms_30_crops": times}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, default=100, help="first calibration scene seed")
    ap.add_argument("--scenes", type=int, default=48, help="calibration scenes")
    ap.add_argument("--check-seed", type=int, default=200, help="first check scene seed")
    ap.add_argument("--check-scenes", type=int, default=40, help="check scenes")
    ap.add_argument("--out", type=Path, default=HERE,
                    help=f"folder holding {FLOAT_MODEL_NAME} and layer_cue.json (default: "
                         "this one); the 8-bit file is written there")
    a = ap.parse_args(argv)
    cal = range(a.seed, a.seed + a.scenes)
    check = range(a.check_seed, a.check_seed + a.check_scenes)
    if set(cal) & set(check):
        ap.error(f"calibration seeds {cal.start}..{cal.stop - 1} and check seeds "
                 f"{check.start}..{check.stop - 1} overlap; the check must use other scenes")
    source, target = a.out / FLOAT_MODEL_NAME, a.out / MODEL_NAME
    if not source.is_file():
        ap.error(f"no {source}: train it first (models/train_layer_cue.py)")
    try:
        crops = scene_crops(a.seed, a.scenes)
        quantize(source, target, crops)
        fig = agreement(source, target, scene_crops(a.check_seed, a.check_scenes))
    except ValueError as exc:
        ap.error(str(exc))
    blob = target.read_bytes()
    meta_path = a.out / "layer_cue.json"
    meta = json.loads(meta_path.read_text())
    meta["int8"] = {
        "model": target.name, "sha256": hashlib.sha256(blob).hexdigest(), "bytes": len(blob),
        "from_sha256": hashlib.sha256(source.read_bytes()).hexdigest(),
        "calibration": f"{len(crops)} crops of training scenes {cal.start}-{cal.stop - 1}",
        "check": f"training scenes {check.start}-{check.stop - 1}", **fig,
        "command": " ".join(["python models/quantize_layer_cue.py",
                             *(sys.argv[1:] if argv is None else argv)]),
        "benchmarks": meta.get("int8", {}).get("benchmarks", [])}
    meta_path.write_text(json.dumps(meta, indent=1) + "\n")
    from train_layer_cue import card_text

    (a.out / "layer_cue.md").write_text(card_text(meta))
    print(json.dumps(meta["int8"], indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
