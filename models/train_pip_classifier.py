"""Train the pip classifier on rendered half-tiles and export ``models/pip_classifier.onnx``.

Everything the model learns from is made here by the project's own scene renderer
(:mod:`vision.render`): training scenes use the renderer's training seeds and styles only, the
held-out scenes its held-out seeds (and held-out styles) only, and no photograph is ever read.
Each eligible tile (face up, at least 90 % visible, not cut by the frame edge) is cut into its two
halves by :func:`vision.halves.half_crops` on its ground-truth corners, after augmentations that
mimic a real camera and a real detector: a smaller picture, brightness, contrast and gamma,
blur, sensor noise, JPEG compression, and corner jitter. Each half is one sample; its label is
its pip count (0..15).

Rebuild (torch is not a dependency of the project; install the CPU build first)::

    pip install torch==2.13.0 && pip install -e '.[train]'
    python models/train_pip_classifier.py --seed 7 --scenes 700 --epochs 12

Writes ``pip_classifier.onnx``, ``pip_classifier.json`` (metadata, figures, sha256) and
``pip_classifier.md`` (the model card) into ``--out`` (default: this folder). The real-photo
figure in the card comes from ``models/eval_pip_classifier_real.py`` (evaluation only).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import multiprocessing
import sys
import time
import warnings
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
import torch
from torch import nn

from domino_models.card import write_card
from vision.halves import CLIP_HIGH, CLIP_LOW, HALF_SIZE, INSET, CornersError, half_crops
from vision.render import HELD_OUT_SEED_MIN, random_scene_spec, render_scene
from vision.render.version import renderer_version

NUM_CLASSES = 16
HERE = Path(__file__).resolve().parent


# ----------------------------------------------------------------------------- data


@dataclass(frozen=True)
class Crops:
    """Half-tile squares and their pip counts."""

    images: np.ndarray  # (N, 48, 48) float16
    labels: np.ndarray  # (N,) int64

    def __len__(self) -> int:
        return len(self.labels)


def eligible_tiles(truth: dict) -> list[tuple[tuple[int, int], np.ndarray]]:
    """``(halves, corners)`` of the tiles of a ground truth that a training crop may use."""
    out = []
    for tile in truth["tiles"]:
        if tile.get("face_up") and float(tile.get("visible", 0.0)) >= 0.9 and not tile.get("cut"):
            halves = (int(tile["halves"][0]), int(tile["halves"][1]))
            out.append((halves, np.asarray(tile["corners"], dtype=np.float64)))
    return out


def render(seed: int, held_out: bool) -> tuple[np.ndarray, dict]:
    """Scene number ``seed`` of the renderer's training split, or of its held-out split (seed
    ``HELD_OUT_SEED_MIN + seed``: held-out seeds and, for part of them, held-out looks).

    Every third training scene is pinned to a double-fifteen set so that 10..15 pips are not
    rare (left to itself the renderer draws double-six sets half of the time).
    """
    if held_out:
        spec = random_scene_spec(HELD_OUT_SEED_MIN + seed, held_out=True)
    else:
        spec = random_scene_spec(seed, **({"set_max": 15} if seed % 3 == 2 else {}))
    scene = render_scene(spec)
    return scene.image_bgr, scene.truth


def _photometric(frame_bgr: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A camera's look: contrast, brightness, gamma, blur, noise and JPEG, drawn from ``rng``."""
    out = frame_bgr.astype(np.float32)
    out = out * rng.uniform(0.6, 1.25) + rng.uniform(-35, 35)
    out = np.clip(out, 0, 255)
    gamma = rng.uniform(0.7, 1.4)
    out = 255.0 * (out / 255.0) ** gamma
    if rng.random() < 0.6:
        out = cv2.GaussianBlur(out, (0, 0), rng.uniform(0.4, 1.6))
    if rng.random() < 0.7:
        out = out + rng.normal(0.0, rng.uniform(1.0, 9.0), out.shape).astype(np.float32)
    frame = np.clip(out, 0, 255).astype(np.uint8)
    if rng.random() < 0.5:
        ok, buf = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(35, 95))])
        if ok:
            frame = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    return frame


def _jitter_corners(corners: np.ndarray, rng: np.random.Generator, amount: float) -> np.ndarray:
    """Corners moved as a detector would get them wrong: a shift, a turn, a scale and a bit
    of each corner, all in proportion to the tile's short edge."""
    short = min(np.linalg.norm(corners[1] - corners[0]), np.linalg.norm(corners[3] - corners[2]))
    centre = corners.mean(axis=0)
    angle = np.deg2rad(rng.normal(0.0, 3.0 * amount / 0.05))
    rot = np.array([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]])
    scale = 1.0 + rng.normal(0.0, amount)
    moved = (corners - centre) @ rot.T * scale + centre
    moved += rng.normal(0.0, amount * short, 2)
    moved += rng.normal(0.0, amount * 0.6 * short, (4, 2))
    return moved


_READER = None  # the reader of detected outlines, made once per worker process


def detected_tiles(frame_bgr: np.ndarray, truth: dict, factor: float
                   ) -> list[tuple[tuple[int, int], np.ndarray]]:
    """``(halves, corners)`` at the outlines the reader finds in ``frame_bgr`` (the rendered
    frame scaled by ``factor``), each matched to an eligible true tile as ``domino-companion
    evaluate`` matches them, the halves in the order of the found corners. These are the
    outlines the classifier is shown when the product reads: slid along a chain, a little long
    or short, turned. The reader runs with the classical pip reading alone, so the crops do not
    depend on the classifier being rebuilt (only on the shipped tile finder)."""
    global _READER
    from vision.evaluate import halves_in_order, match_truth
    from vision.pips import PipReader
    from vision.read import Reader

    if _READER is None:
        _READER = Reader(PipReader(classifier=None))
    tiles = [dict(t, corners=((np.asarray(t["corners"], np.float64) + 0.5) * factor - 0.5))
             for t in truth["tiles"]]
    used: set[int] = set()
    out = []
    for found in _READER.read(frame_bgr).tiles:
        corners = np.asarray(found.corners, np.float64)
        best = match_truth(corners, tiles, used)
        if best is None or found.cut:
            continue
        used.add(best)
        g = tiles[best]
        if not (g.get("face_up") and float(g.get("visible", 0.0)) >= 0.9 and not g.get("cut")):
            continue
        out.append((halves_in_order(corners, g), corners))
    return out


def scene_crops(image_bgr: np.ndarray, truth: dict, rng: np.random.Generator, variants: int,
                jitter: float, detected_looks: int = 0) -> tuple[list[np.ndarray], list[int]]:
    """Half squares of one scene: ``variants`` looks of the frame, every eligible tile cut from
    each. The first look is the rendered frame itself, the others get a random smaller size and
    :func:`_photometric`; every cut gets corner jitter of ``jitter`` (none when 0). The first
    ``detected_looks`` looks are also cut at the outlines the reader finds there
    (:func:`detected_tiles`, no jitter)."""
    images: list[np.ndarray] = []
    labels: list[int] = []
    tiles = eligible_tiles(truth)
    if not tiles:
        return images, labels
    for variant in range(variants):
        frame = image_bgr
        factor = 1.0
        if variant > 0:
            if rng.random() < 0.5:
                factor = rng.uniform(0.3, 1.0)
                frame = cv2.resize(frame, None, fx=factor, fy=factor, interpolation=cv2.INTER_AREA)
            frame = _photometric(frame, rng)
        if variant < detected_looks:
            for halves, corners in detected_tiles(frame, truth, factor):
                try:
                    pair = half_crops(frame, corners)
                except CornersError:
                    continue
                images.extend(pair)
                labels.extend(halves)
        height, width = frame.shape[:2]
        for halves, corners in tiles:
            scaled = (corners + 0.5) * factor - 0.5
            if jitter > 0:
                scaled = _jitter_corners(scaled, rng, jitter)
            scaled[:, 0] = np.clip(scaled[:, 0], -0.5, width - 0.5)
            scaled[:, 1] = np.clip(scaled[:, 1], -0.5, height - 0.5)
            try:
                pair = half_crops(frame, scaled)
            except CornersError:
                continue  # a tile shrunk below readable size
            if np.linalg.norm(scaled[1] - scaled[0]) < 7.0:
                continue
            images.extend(pair)
            labels.extend(halves)
    return images, labels


def _scene_job(job: tuple[int, bool, int, int, float, int]) -> tuple[int, list[np.ndarray],
                                                                 list[int], str]:
    """Crops of one scene; its own generator, seeded by (run seed, split, scene), keeps a run
    repeatable whatever the worker order. A scene the renderer cannot draw is skipped, with
    the reason."""
    seed, held_out, run_seed, variants, jitter, detected_looks = job
    rng = np.random.default_rng([run_seed, int(held_out), seed, variants])
    try:
        image_bgr, truth = render(seed, held_out)
    except ValueError as exc:  # a renderer bug must not end a run; it is counted and reported
        return seed, [], [], f"{type(exc).__name__}: {exc}"
    images, labels = scene_crops(image_bgr, truth, rng, variants, jitter, detected_looks)
    return seed, images, labels, ""


def make_crops(seeds: range, held_out: bool, run_seed: int, variants: int, jitter: float,
               label: str, workers: int, skipped: dict[str, str], detected_looks: int = 0
               ) -> Crops:
    """Crops of the scenes ``seeds`` of one split, in seed order, with progress on stderr
    (``detected_looks``: see :func:`scene_crops`). Scenes the renderer failed on go into
    ``skipped`` (``"split seed" -> reason``)."""
    images: list[np.ndarray] = []
    labels: list[int] = []
    start = time.perf_counter()
    jobs = [(seed, held_out, run_seed, variants, jitter, detected_looks) for seed in seeds]
    with multiprocessing.get_context("fork").Pool(workers) as pool:
        for k, (seed, got_images, got_labels, error) in enumerate(pool.imap(_scene_job, jobs)):
            if error:
                skipped[f"{label} {seed}"] = error
                print(f"{label}: scene {seed} skipped: {error}", file=sys.stderr)
            images.extend(got_images)
            labels.extend(got_labels)
            if (k + 1) % 50 == 0 or k + 1 == len(jobs):
                print(f"{label}: {k + 1}/{len(jobs)} scenes, {len(labels)} halves, "
                      f"{time.perf_counter() - start:.0f} s", file=sys.stderr)
    return Crops(np.stack(images).astype(np.float16), np.asarray(labels, dtype=np.int64))


# ----------------------------------------------------------------------------- model


class PipNet(nn.Module):
    """A stride-2 3x3 conv (8 channels, 48 -> 24), three 3x3 conv blocks (16, 32, 32 channels,
    each followed by a 2x2 max pool: 24 -> 12 -> 6 -> 3) and one linear layer: about 15 k
    weights and 1.7 M multiply-adds per half."""

    def __init__(self) -> None:
        super().__init__()
        layers: list[nn.Module] = [nn.Conv2d(1, 8, 3, stride=2, padding=1, bias=False),
                                   nn.BatchNorm2d(8), nn.ReLU(inplace=True)]
        channels = [8, 16, 32, 32]
        for c_in, c_out in zip(channels, channels[1:]):
            layers += [nn.Conv2d(c_in, c_out, 3, padding=1, bias=False), nn.BatchNorm2d(c_out),
                       nn.ReLU(inplace=True), nn.MaxPool2d(2)]
        self.features = nn.Sequential(*layers)
        side = HALF_SIZE // 16
        self.head = nn.Sequential(nn.Flatten(), nn.Dropout(0.1),
                                  nn.Linear(channels[-1] * side * side, NUM_CLASSES))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Logits ``(N, 16)`` of ``(N, 1, 48, 48)`` squares."""
        return self.head(self.features(x))


class Exported(nn.Module):
    """What ships: ``(N, 48, 48)`` squares in, class probabilities ``(N, 16)`` out."""

    def __init__(self, net: PipNet) -> None:
        super().__init__()
        self.net = net

    def forward(self, crops: torch.Tensor) -> torch.Tensor:
        return torch.softmax(self.net(crops.unsqueeze(1)), dim=1)


def _batch_augment(x: torch.Tensor, generator: torch.Generator) -> torch.Tensor:
    """Mirror images (a pip count does not change under a mirror) on a random half of a batch."""
    flip_w = torch.rand(len(x), generator=generator) < 0.5
    flip_h = torch.rand(len(x), generator=generator) < 0.5
    x = torch.where(flip_w[:, None, None], x.flip(2), x)
    return torch.where(flip_h[:, None, None], x.flip(1), x)


def train(net: PipNet, data: Crops, epochs: int, seed: int, batch: int = 256) -> None:
    """AdamW with a one-cycle learning rate, cross entropy, seeded shuffles."""
    generator = torch.Generator().manual_seed(seed)
    images = torch.from_numpy(data.images)
    labels = torch.from_numpy(data.labels)
    steps = epochs * ((len(data) + batch - 1) // batch)
    optimiser = torch.optim.AdamW(net.parameters(), lr=4e-3, weight_decay=1e-4)
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimiser, max_lr=4e-3, total_steps=steps,
                                                   pct_start=0.15)
    loss_fn = nn.CrossEntropyLoss()
    for epoch in range(epochs):
        net.train()
        order = torch.randperm(len(data), generator=generator)
        total, right, loss_sum = 0, 0, 0.0
        start = time.perf_counter()
        for first in range(0, len(order), batch):
            index = order[first:first + batch]
            x = _batch_augment(images[index].float(), generator).unsqueeze(1)
            y = labels[index]
            logits = net(x)
            loss = loss_fn(logits, y)
            optimiser.zero_grad(set_to_none=True)
            loss.backward()
            optimiser.step()
            schedule.step()
            loss_sum += float(loss.detach()) * len(y)
            right += int((logits.argmax(1) == y).sum())
            total += len(y)
        print(f"epoch {epoch + 1}/{epochs}: loss {loss_sum / total:.4f}, train accuracy "
              f"{right / total:.4%}, {time.perf_counter() - start:.0f} s", file=sys.stderr)


@torch.no_grad()
def predict(net: PipNet, data: Crops, batch: int = 1024) -> np.ndarray:
    """Predicted classes of ``data`` in evaluation mode."""
    net.eval()
    images = torch.from_numpy(data.images)
    out = [net(images[i:i + batch].float().unsqueeze(1)).argmax(1) for i in
           range(0, len(data), batch)]
    return torch.cat(out).numpy()


def evaluate(predicted: np.ndarray, data: Crops) -> dict:
    """Half accuracy, tile accuracy (both halves of a tile right), counts and the confusions."""
    right = predicted == data.labels
    tiles_right = right[0::2] & right[1::2]  # crops come in tile pairs
    confusions: dict[str, int] = {}
    for truth, guess in zip(data.labels[~right], predicted[~right]):
        key = f"{int(truth)}->{int(guess)}"
        confusions[key] = confusions.get(key, 0) + 1
    per_class = {str(k): int((data.labels == k).sum()) for k in range(NUM_CLASSES)}
    return {"halves": int(len(right)), "half_errors": int((~right).sum()),
            "half_accuracy": float(right.mean()), "tiles": int(len(tiles_right)),
            "tile_accuracy": float(tiles_right.mean()),
            "confusions": dict(sorted(confusions.items(), key=lambda kv: -kv[1])),
            "halves_per_class": per_class}


def export(net: PipNet, path: Path) -> None:
    """Write the ONNX model (dynamic batch, opset 17) with its softmax inside."""
    net.eval()
    wrapped = Exported(net).eval()
    dummy = torch.zeros(2, HALF_SIZE, HALF_SIZE)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the TorchScript exporter announces its deprecation
        torch.onnx.export(wrapped, (dummy,), str(path), input_names=["crops"],
                          output_names=["probabilities"], opset_version=17, dynamo=False,
                          dynamic_axes={"crops": {0: "n"}, "probabilities": {0: "n"}})


def sha256(path: Path) -> str:
    """Hex sha256 of a file."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def recheck(folder: Path, seed: int, heldout_scenes: int, jitter: float, workers: int) -> dict:
    """Measure the shipped ``pip_classifier.onnx`` (through onnxruntime, as the reader runs it)
    on the held-out scenes of the renderer as it is now, and record the figures in
    ``pip_classifier.json`` under ``rechecks`` (one entry per renderer commit) and in the card.

    The renderer keeps changing after a model is trained; this says how the shipped weights do
    on today's pictures without retraining them.
    """
    from vision.classifier import PipClassifier

    meta_path = folder / "pip_classifier.json"
    meta = json.loads(meta_path.read_text())
    classifier = PipClassifier(folder / "pip_classifier.onnx")
    skipped: dict[str, str] = {}
    started = time.perf_counter()
    sets = {"heldout_exact_corners": make_crops(range(heldout_scenes), True, seed, 1, 0.0,
                                                "held-out", workers, skipped),
            "heldout_augmented": make_crops(range(heldout_scenes), True, seed, 2, jitter,
                                            "held-out augmented", workers, skipped)}
    figures = {}
    for name, data in sets.items():
        predicted = np.concatenate([
            classifier.predict(data.images[i:i + 1024].astype(np.float32)).argmax(1)
            for i in range(0, len(data), 1024)])
        figures[name] = evaluate(predicted, data)
        fig = figures[name]
        print(f"{name}: half accuracy {fig['half_accuracy']:.4%} ({fig['half_errors']} wrong of "
              f"{fig['halves']}), tile accuracy {fig['tile_accuracy']:.4%}")
    entry = {"renderer_commit": renderer_version(), "date": time.strftime("%Y-%m-%d"),
             "heldout_seeds": f"{HELD_OUT_SEED_MIN}..{HELD_OUT_SEED_MIN + heldout_scenes - 1}",
             "skipped_scenes": skipped, "accuracy": figures,
             "seconds": round(time.perf_counter() - started)}
    rechecks = [r for r in meta.get("rechecks", [])
                if r.get("renderer_commit") != entry["renderer_commit"]]
    meta["rechecks"] = rechecks + [entry]
    meta_path.write_text(json.dumps(meta, indent=2) + "\n")
    write_card(meta, folder / "pip_classifier.md")
    return entry


# ----------------------------------------------------------------------------- main


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=7, help="seed of everything random")
    parser.add_argument("--scenes", type=int, default=700, help="training scenes to render")
    parser.add_argument("--heldout-scenes", type=int, default=120, help="held-out scenes")
    parser.add_argument("--variants", type=int, default=3, help="augmented looks per scene")
    parser.add_argument("--jitter", type=float, default=0.04,
                        help="corner jitter, as a fraction of the tile's short edge")
    parser.add_argument("--detected-looks", type=int, default=0,
                        help="looks of each training scene also cut at the outlines the reader "
                             "finds (classical pips, shipped tile finder; 0: ground-truth "
                             "corners only)")
    parser.add_argument("--epochs", type=int, default=12)
    parser.add_argument("--threads", type=int, default=2, help="torch CPU threads")
    parser.add_argument("--workers", type=int, default=2, help="processes rendering scenes")
    parser.add_argument("--out", type=Path, default=HERE, help="folder to write the model to")
    parser.add_argument("--cache", type=Path, default=None,
                        help="npz file keeping the generated crops between runs (optional)")
    parser.add_argument("--recheck", action="store_true",
                        help="train nothing: measure the shipped ONNX model on the held-out "
                             "scenes of the current renderer and add the figures to its card")
    args = parser.parse_args(argv)
    if args.recheck:
        recheck(args.out, args.seed, args.heldout_scenes, args.jitter, args.workers)
        return
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    torch.use_deterministic_algorithms(True)
    started = time.perf_counter()

    skipped: dict[str, str] = {}
    if args.cache is not None and args.cache.is_file():
        with np.load(args.cache) as cached:
            train_data, held_exact, held_jitter = (
                Crops(cached[f"{name}_images"], cached[f"{name}_labels"])
                for name in ("train", "exact", "jitter"))
            skipped = json.loads(str(cached["skipped"]))
        print(f"crops from {args.cache}", file=sys.stderr)
    else:
        if not 0 <= args.detected_looks <= args.variants:
            parser.error(f"--detected-looks must be 0..--variants ({args.variants}), got "
                         f"{args.detected_looks}")
        train_data = make_crops(range(args.scenes), False, args.seed, args.variants,
                                args.jitter, "train", args.workers, skipped,
                                args.detected_looks)
        held_exact = make_crops(range(args.heldout_scenes), True, args.seed, 1, 0.0,
                                "held-out", args.workers, skipped)
        held_jitter = make_crops(range(args.heldout_scenes), True, args.seed, 2, args.jitter,
                                 "held-out augmented", args.workers, skipped)
        if args.cache is not None:
            np.savez(args.cache, **{f"{name}_{part}": getattr(data, part) for name, data in
                                    (("train", train_data), ("exact", held_exact),
                                     ("jitter", held_jitter)) for part in ("images", "labels")},
                     skipped=json.dumps(skipped))
    net = PipNet()
    train(net, train_data, args.epochs, args.seed)
    figures = {"heldout_exact_corners": evaluate(predict(net, held_exact), held_exact),
               "heldout_augmented": evaluate(predict(net, held_jitter), held_jitter)}
    for name, fig in figures.items():
        print(f"{name}: half accuracy {fig['half_accuracy']:.4%} "
              f"({fig['half_errors']} wrong of {fig['halves']}), tile accuracy "
              f"{fig['tile_accuracy']:.4%}; confusions {fig['confusions']}")

    args.out.mkdir(parents=True, exist_ok=True)
    onnx_path = args.out / "pip_classifier.onnx"
    export(net, onnx_path)
    kept = {k: v for k, v in vars(args).items() if k not in ("out", "cache", "workers", "recheck")}
    command = "python models/train_pip_classifier.py " + " ".join(
        f"--{k.replace('_', '-')} {v}" for k, v in kept.items())
    last_heldout = HELD_OUT_SEED_MIN + args.heldout_scenes - 1
    meta = {
        "model": "pip_classifier.onnx",
        "sha256": sha256(onnx_path),
        "bytes": onnx_path.stat().st_size,
        "input": {"name": "crops", "shape": ["N", HALF_SIZE, HALF_SIZE], "dtype": "float32",
                  "normalisation": (f"vision.halves.half_crops: one half warped to a "
                                    f"{HALF_SIZE}x{HALF_SIZE} square (inset {INSET}), outer edge "
                                    f"on top, colour axis of most variance, pips bright, body "
                                    f"~0, pips ~1, clipped to [{CLIP_LOW}, {CLIP_HIGH}]")},
        "output": {"name": "probabilities", "shape": ["N", NUM_CLASSES],
                   "meaning": "softmax over pip counts"},
        "classes": list(range(NUM_CLASSES)),
        "seed": args.seed,
        "training_command": command,
        "training": {"scenes": args.scenes, "variants": args.variants, "jitter": args.jitter,
                     "detected_looks": args.detected_looks,
                     "halves": len(train_data), "epochs": args.epochs,
                     "halves_per_class": {str(k): int((train_data.labels == k).sum())
                                          for k in range(NUM_CLASSES)},
                     "renderer": {"module": "vision.render", "commit": renderer_version(),
                                  "training_seeds": f"0..{args.scenes - 1}",
                                  "heldout_seeds": f"{HELD_OUT_SEED_MIN}..{last_heldout}"},
                     "seconds": round(time.perf_counter() - started)},
        "heldout_scenes": args.heldout_scenes,
        "skipped_scenes": skipped,
        "accuracy": figures,
        "torch": torch.__version__,
    }
    (args.out / "pip_classifier.json").write_text(json.dumps(meta, indent=2) + "\n")
    write_card(meta, args.out / "pip_classifier.md")
    print(f"wrote {onnx_path} ({meta['bytes']} bytes, sha256 {meta['sha256'][:12]}...)")


if __name__ == "__main__":
    main()
