"""The ONNX pip classifier: how many pips (0..15) each half-tile square shows.

Input squares come from :func:`vision.halves.half_crops` / :func:`vision.halves.tile_crops`
(``(N, 48, 48)`` float32, pips bright on a dark tile body). One ``onnxruntime`` session is made
when the classifier is made, on the CPU with a fixed small thread count, and every call runs all
the halves of a frame in one batch. The model ships in ``models/`` (the package
``domino_models``); nothing is ever downloaded. Its card is ``models/pip_classifier.md``.

Run ``python -m vision.classifier --bench [--crops]`` to time 60 halves (and cutting the halves
of a rendered 30-tile frame) on this machine.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

from domino_models import model_path as _shipped_model_path
from vision.halves import HALF_SIZE
from vision.onnx_session import INFERENCE_THREADS, open_session

MODEL_NAME = "pip_classifier.onnx"
"""File name of the shipped pip classifier in ``models/``."""

NUM_CLASSES = 16
"""Pip values the classifier knows: 0..15 (class ``k`` is ``k`` pips)."""


class ClassifierError(ValueError):
    """A pip-classifier model or input that cannot be used."""


class ModelMissingError(ClassifierError, FileNotFoundError):
    """The ONNX model file is not there."""


def default_model_path() -> Path:
    """Path of the shipped pip classifier, or :class:`ModelMissingError`."""
    try:
        return _shipped_model_path(MODEL_NAME)
    except FileNotFoundError as exc:
        raise ModelMissingError(f"{exc}; rebuild it with the command in "
                                "models/pip_classifier.md") from exc


class PipClassifier:
    """Pip counts of half-tile squares, from the shipped ONNX model (or ``model_path``).

    ``threads`` is onnxruntime's ``intra_op_num_threads`` (default
    :data:`vision.onnx_session.INFERENCE_THREADS`; its idle threads sleep, leaving the cores to
    the camera and the other stages).
    """

    def __init__(self, model_path: str | Path | None = None,
                 threads: int = INFERENCE_THREADS) -> None:
        path = default_model_path() if model_path is None else Path(model_path)
        if not path.is_file():
            raise ModelMissingError(f"no pip classifier model at {path}; pass the path of an "
                                    f".onnx file or None for the shipped {MODEL_NAME}")
        self._session = open_session(path, threads, ClassifierError,
                                     "the command in models/pip_classifier.md")
        inputs = self._session.get_inputs()
        outputs = self._session.get_outputs()
        if len(inputs) != 1 or len(outputs) != 1:
            raise ClassifierError(f"{path} must have one input and one output, has "
                                  f"{len(inputs)} and {len(outputs)}")
        shape = inputs[0].shape
        if len(shape) != 3 or list(shape[1:]) != [HALF_SIZE, HALF_SIZE]:
            raise ClassifierError(f"{path} takes input of shape {shape}; expected "
                                  f"(N, {HALF_SIZE}, {HALF_SIZE})")
        self._input_name = inputs[0].name
        self.path = path
        self.threads = threads

    def predict(self, crops: np.ndarray) -> np.ndarray:
        """Class probabilities ``(N, 16)`` (rows sum to 1) of ``(N, 48, 48)`` float32 squares.

        Row ``i``, column ``k`` is the probability that square ``i`` shows ``k`` pips. An empty
        batch gives an empty ``(0, 16)`` array.
        """
        if not isinstance(crops, np.ndarray):
            raise ClassifierError(f"crops must be a numpy array, got {type(crops).__name__}")
        if crops.ndim != 3 or crops.shape[1:] != (HALF_SIZE, HALF_SIZE):
            raise ClassifierError(f"crops must have shape (N, {HALF_SIZE}, {HALF_SIZE}) as "
                                  f"vision.halves.tile_crops gives, got {crops.shape}")
        if crops.dtype != np.float32:
            raise ClassifierError(f"crops must be float32 as vision.halves gives them, "
                                  f"got {crops.dtype}")
        if len(crops) == 0:
            return np.zeros((0, NUM_CLASSES), dtype=np.float32)
        (probabilities,) = self._session.run(None, {self._input_name: np.ascontiguousarray(crops)})
        return probabilities

    def classify(self, crops: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Most likely pip count and its probability for each square: ``(values, confidences)``."""
        probabilities = self.predict(crops)
        values = probabilities.argmax(axis=1)
        return values, probabilities[np.arange(len(values)), values]


def benchmark(halves: int = 60, repeats: int = 200, threads: int = INFERENCE_THREADS,
              seed: int = 0) -> dict:
    """Median and 90th-percentile seconds of one batched ``predict`` of ``halves`` squares."""
    classifier = PipClassifier(threads=threads)
    rng = np.random.default_rng(seed)
    crops = rng.uniform(-0.5, 1.5, size=(halves, HALF_SIZE, HALF_SIZE)).astype(np.float32)
    for _ in range(10):
        classifier.predict(crops)
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        classifier.predict(crops)
        times.append(time.perf_counter() - start)
    return {"halves": halves, "threads": threads, "repeats": repeats,
            "median_ms": round(float(np.median(times)) * 1e3, 2),
            "p90_ms": round(float(np.percentile(times, 90)) * 1e3, 2)}


def benchmark_crops(tiles: int = 30, repeats: int = 100, seed: int = 0) -> dict:
    """Median seconds of :func:`vision.halves.tile_crops` on the tiles of one rendered
    1280x720 held-out scene of about ``tiles`` tiles (the renderer is imported only here)."""
    from vision.halves import tile_crops
    from vision.render import HELD_OUT_SEED_MIN, random_scene_spec, render_scene

    scene = render_scene(random_scene_spec(HELD_OUT_SEED_MIN + seed, held_out=True, set_max=9,
                                           n_tiles=tiles))
    corners = [t["corners"] for t in scene.truth["tiles"] if not t["cut"]]
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        tile_crops(scene.image_bgr, corners)
        times.append(time.perf_counter() - start)
    return {"tiles": len(corners), "frame": list(scene.image_bgr.shape[1::-1]),
            "repeats": repeats, "median_ms": round(float(np.median(times)) * 1e3, 2),
            "p90_ms": round(float(np.percentile(times, 90)) * 1e3, 2)}


def main(argv: list[str] | None = None) -> None:
    """``python -m vision.classifier --bench``: time the shipped model on this machine."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bench", action="store_true", help="time one batch of halves")
    parser.add_argument("--crops", action="store_true",
                        help="also time cutting the halves of a rendered 30-tile frame")
    parser.add_argument("--halves", type=int, default=60, help="halves per batch (default 60)")
    parser.add_argument("--threads", type=int, default=INFERENCE_THREADS,
                        help="onnxruntime threads")
    parser.add_argument("--repeats", type=int, default=200, help="timed runs")
    args = parser.parse_args(argv)
    if not args.bench:
        parser.error("nothing to do: pass --bench")
    print(json.dumps({"predict": benchmark(args.halves, args.repeats, args.threads)}))
    if args.crops:
        print(json.dumps({"tile_crops": benchmark_crops(repeats=args.repeats)}))


if __name__ == "__main__":
    main()
