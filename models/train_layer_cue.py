"""Train the layer cue (:mod:`vision.layer_cue`) and export ``models/layer_cue.onnx``.

Everything it learns from is drawn by the project's renderer on TRAINING seeds (below
:data:`vision.render.sampling.HELD_OUT_SEED_MIN`; the layer benches ``layers-eval`` and
``vision.render.layerlive`` use held-out seeds 1,000,100-1,005,xxx and 1,000,200-239 only):

* stacked scenes (:func:`vision.render.stacking.stacked_scene_spec`) of seeds
  ``--stacked-seed`` .. + ``--stacked`` and flat scenes
  (:func:`vision.render.sampling.random_scene_spec` with the layouts of the layerlive flat
  figure in turn) of seeds ``--flat-seed`` .. + ``--flat``;
* on each, the real reader (:class:`vision.read.Reader`) finds the tiles, as in live play; every
  found tile not cut by the frame edge that matches a rendered tile (IoU >= 0.5, the most
  visible first) is one sample: the crop :func:`vision.layer_cue.tile_crops` cuts around the
  reader's outline (the other found tiles in its second mask), labelled with the number of
  tiles under it (its true layer, 3 for 3 or more).

Scenes of the last ``--tune-share`` of each seed range are left out of training (a tuning split
for choosing how the estimator uses the cue). The network (four stride-2 3x3 convolutions with
batch norm and ReLU, 16-32-48-64 channels times ``--width``, global average pool or
(``--spatial``) the whole last feature map, one linear layer) reads crops of ``--crop`` pixels
a side and is trained with AdamW and cross-entropy
over the 4 counts, or (``--ordinal``) the binary cross-entropies of "at least 1, 2, 3 tiles
under it" (exported as the same 4 probabilities, :func:`class_probs`), mirror flips left-right
in the batches (a mirrored scene is a scene; up-down is not: the camera looks down from the
bottom edge), seeded (``--seed``) throughout.

Rebuild (torch is not a dependency of the project; install the CPU build first)::

    pip install torch==2.13.0 && pip install -e '.[train]'
    python models/train_layer_cue.py --cache runs/layer_cue_scenes  # + the options in the card

On a machine with a CUDA GPU (and a CUDA build of torch), ``--device cuda`` trains there and
``--workers N`` renders, reads and crops scenes in N processes side by side.

Writes ``layer_cue.onnx``, ``layer_cue.json`` (metadata, figures, sha256) and ``layer_cue.md``
(the model card) into ``--out`` (default: this folder). The reader serves the network's 8-bit
conversion ``layer_cue_int8.onnx``: run ``models/quantize_layer_cue.py`` after training (it
adds its entry to the JSON and the card). ``--cache`` is a folder of the rendered
and read scenes (frames as PNG, the reader's quads, labels), in shards of :data:`SHARD` scenes
named ``{kind}_{first seed}.npz``: shards already there are loaded (a shard holding other seeds
is refused), missing ones rendered and read (about 0.25-0.6 s a scene on the shared 2-core
CPU; about 33 scenes a second with 15 workers on 16 cores); crops are cut from the frames when
training, so ``--crop`` needs no new rendering. ``--card`` writes the card again from the JSON (after held-out figures were added to its
``benchmarks``).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
import warnings
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
if str(HERE.parent) not in sys.path:  # run as a script from anywhere
    sys.path.insert(0, str(HERE.parent))
if str(HERE) not in sys.path:  # the device helper sits beside this script
    sys.path.insert(0, str(HERE))

from devices import DEVICES, pick_device  # noqa: E402
from vision.layer_cue import CHANNELS, CROP, NUM_CLASSES, SPAN, tile_crops  # noqa: E402

FLAT_LAYOUTS = ("line", "spinner", "chickenfoot", "trains", "grid", "loose")


# ----------------------------------------------------------------------------- data


def _labels(truth_tiles: list[dict], quads: list[np.ndarray]) -> list[int]:
    """For each found quad, the true layer of the rendered tile it matches (IoU >= 0.5, the
    most visible rendered tile first, each once: :func:`vision.render.layerlive.match_found`),
    or -1."""
    from vision.render.layerlive import match_found

    label = [-1] * len(quads)
    shown = sorted((t for t in truth_tiles if t["visible"] > 0), key=lambda t: -t["visible"])
    for t, j in match_found(shown, quads):
        label[j] = int(t["layer"])
    return label


def scene_samples(kind: str, seed: int, reader) -> dict[str, Any]:
    """One training scene (``kind`` "stacked" or "flat") read by ``reader``: the frame (PNG
    bytes), every found quad, its label (the true layer, -1 for found tiles matching nothing)
    and cut flag; crops are cut from these when training (:func:`samples`), so the crop size
    can change without rendering again."""
    import cv2

    from vision.render.sampling import HELD_OUT_SEED_MIN, random_scene_spec
    from vision.render.scene import render_scene
    from vision.render.stacking import stacked_scene_spec

    if seed >= HELD_OUT_SEED_MIN:
        raise ValueError(f"seed {seed} is held out; the layer cue trains on seeds < "
                         f"{HELD_OUT_SEED_MIN}")
    if kind == "stacked":
        spec = stacked_scene_spec(seed)
    elif kind == "flat":
        spec = random_scene_spec(seed, layout=FLAT_LAYOUTS[seed % len(FLAT_LAYOUTS)])
    else:
        raise ValueError(f"kind: expected 'stacked' or 'flat', got {kind!r}")
    scene = render_scene(spec)
    reading = reader.read(scene.image_bgr, scene.truth["set_max"])
    quads = [np.asarray(t.corners, float) for t in reading.tiles]
    png = cv2.imencode(".png", scene.image_bgr)[1]
    return {"kind": kind, "seed": seed,
            "labels": np.array(_labels(scene.truth["tiles"], quads), np.int64),
            "cut": np.array([bool(t.cut) for t in reading.tiles], bool),
            "quads": np.array(quads, np.float32).reshape(-1, 4, 2),
            "png": np.frombuffer(png.tobytes(), np.uint8)}


#: Scenes per cache shard (``--cache`` is a folder of shards ``{kind}_{first seed}.npz``).
SHARD = 100
_ARRAYS = ("png", "quads", "labels", "cut")


def _shard_path(cache: Path, kind: str, first: int) -> Path:
    return cache / f"{kind}_{first}.npz"


def save_shard(path: Path, scenes: list[dict]) -> None:
    meta = [{"kind": d["kind"], "seed": d["seed"]} for d in scenes]
    arrays = {f"{k}_{name}": d[name] for k, d in enumerate(scenes) for name in _ARRAYS}
    np.savez(path, meta=np.frombuffer(json.dumps(meta).encode(), np.uint8), **arrays)


def load_shard(path: Path, kind: str, seeds: range) -> list[dict]:
    """The scenes of one shard, refused unless it holds exactly ``seeds`` of ``kind``."""
    z = np.load(path)
    meta = json.loads(bytes(z["meta"]).decode())
    got = [(m["kind"], int(m["seed"])) for m in meta]
    if got != [(kind, s) for s in seeds]:
        raise SystemExit(f"{path}: holds {got[:1]}..{got[-1:]} ({len(got)} scenes), not {kind} "
                         f"{seeds.start}-{seeds.stop - 1}; delete it or pass another --cache")
    return [{"kind": kind, "seed": s, **{name: z[f"{k}_{name}"] for name in _ARRAYS}}
            for k, s in enumerate(seeds)]


_WORKER_READER = None


def _one_thread() -> None:
    """A worker process's set-up: OpenCV on one thread (the workers share the cores)."""
    import cv2

    cv2.setNumThreads(1)


def _shard_job(job: tuple[str, int, int, str | None]) -> list[dict]:
    """One shard rendered and read in a worker process (its own reader, one onnxruntime
    thread), saved to its cache path when one is given."""
    from vision.read import Reader

    global _WORKER_READER
    kind, lo, hi, path = job
    if _WORKER_READER is None:
        _WORKER_READER = Reader()
    shard = [scene_samples(kind, s, _WORKER_READER) for s in range(lo, hi)]
    if path is not None:
        save_shard(Path(path), shard)
    return shard


def build_data(stacked: tuple[int, int], flat: tuple[int, int], cache: Path | None = None,
               log=print, workers: int = 1) -> list[dict]:
    """Every scene of the two seed ranges ``(first, count)``, in seed order; with ``cache``
    (a folder), shards of :data:`SHARD` scenes already there are loaded, the others rendered,
    read and saved there; ``workers`` processes render and read shards side by side (each
    scene is drawn from its own seed, so the result does not depend on how many)."""
    jobs: list[tuple[str, int, int, str | None]] = []
    for kind, (first, count) in (("stacked", stacked), ("flat", flat)):
        for lo in range(first, first + count, SHARD):
            path = _shard_path(cache, kind, lo) if cache is not None else None
            jobs.append((kind, lo, min(lo + SHARD, first + count),
                         None if path is None else str(path)))
    if cache is not None:
        cache.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    done: dict[int, list[dict]] = {}
    todo = []
    for k, (kind, lo, hi, path) in enumerate(jobs):
        if path is not None and Path(path).is_file():
            done[k] = load_shard(Path(path), kind, range(lo, hi))
        else:
            todo.append(k)

    def note(k: int) -> None:
        kind, lo, hi, _ = jobs[k]
        log(f"{kind} {lo}-{hi - 1} rendered and read, {time.perf_counter() - t0:.0f} s")

    if workers > 1 and len(todo) > 1:
        import multiprocessing as mp

        with mp.get_context("spawn").Pool(workers, initializer=_one_thread) as pool:
            for k, shard in zip(todo, pool.imap(_shard_job, [jobs[k] for k in todo])):
                done[k] = shard
                note(k)
    else:
        for k in todo:
            done[k] = _shard_job(jobs[k])
            note(k)
    return [d for k in range(len(jobs)) for d in done[k]]


def _tune_from(first: int, count: int, tune_share: float) -> int:
    return first + round(count * (1 - tune_share))


def split(scenes: list[dict], tune_share: float, stacked: tuple[int, int],
          flat: tuple[int, int]) -> tuple[list[dict], list[dict]]:
    """Training and tuning scenes: the last ``tune_share`` of each seed range tunes."""
    cut = {"stacked": _tune_from(*stacked, tune_share), "flat": _tune_from(*flat, tune_share)}
    train = [d for d in scenes if d["seed"] < cut[d["kind"]]]
    tune = [d for d in scenes if d["seed"] >= cut[d["kind"]]]
    return train, tune


def _scene_crops(job: tuple[dict, int]) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """Crops (uint8-coded), labels and kinds of one scene's matched, uncut found tiles."""
    import cv2

    d, size = job
    keep = np.nonzero((d["labels"] >= 0) & ~d["cut"])[0]
    if not len(keep):
        return (np.zeros((0, CHANNELS, size, size), np.uint8), np.zeros(0, np.int64), [])
    frame = cv2.imdecode(d["png"], cv2.IMREAD_COLOR)
    crops = tile_crops(frame, list(d["quads"].astype(np.float64)), keep.tolist(), size)
    return (np.clip(np.round((crops + 0.5) * 255), 0, 255).astype(np.uint8),
            np.minimum(d["labels"][keep], NUM_CLASSES - 1), [d["kind"]] * len(keep))


def samples(scenes: list[dict], size: int,
            workers: int = 1) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Crops (uint8-coded: every channel stored as ``(value + 0.5) * 255`` clipped to 0..255,
    :func:`_decode` decodes them; ``size`` pixels a side), labels
    (0..3) and scene kinds of the matched, uncut found tiles of ``scenes`` (cut by
    ``workers`` processes side by side; the same result for any number)."""
    jobs = [(d, size) for d in scenes]
    if workers > 1 and len(jobs) > 1:
        import multiprocessing as mp

        with mp.get_context("spawn").Pool(workers, initializer=_one_thread) as pool:
            parts = pool.map(_scene_crops, jobs, chunksize=16)
    else:
        parts = [_scene_crops(j) for j in jobs]
    xs = [p[0] for p in parts]
    ys = [p[1] for p in parts]
    ks = [k for p in parts for k in p[2]]
    return np.concatenate(xs), np.concatenate(ys), np.array(ks)


# ----------------------------------------------------------------------------- model


def make_net(ordinal: bool = False, spatial: bool = False, crop: int = CROP, width: int = 1):
    """The network: ``NUM_CLASSES`` logits, or with ``ordinal`` ``NUM_CLASSES - 1`` logits of
    "at least 1, 2, 3 tiles under it" (:func:`class_probs` turns either into probabilities).
    Its head reads the last feature map averaged over the crop, or (``spatial``) all of it
    (where in the crop a wall band or an edge lies: below the tile's face, or beside it).
    ``width`` multiplies the channels of every convolution (16, 32, 48, 64 at 1)."""
    import torch
    from torch import nn

    def block(a: int, b: int) -> nn.Sequential:
        return nn.Sequential(nn.Conv2d(a, b, 3, stride=2, padding=1, bias=False),
                             nn.BatchNorm2d(b), nn.ReLU(inplace=True))

    outputs = NUM_CLASSES - 1 if ordinal else NUM_CLASSES
    side = crop
    for _ in range(4):
        side = (side + 1) // 2
    ch = [c * width for c in (16, 32, 48, 64)]

    class Net(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.features = nn.Sequential(
                block(CHANNELS, ch[0]), block(ch[0], ch[1]), block(ch[1], ch[2]),
                block(ch[2], ch[3]), *([] if spatial else [nn.AdaptiveAvgPool2d(1)]))
            features = ch[3] * side * side if spatial else ch[3]
            self.head = nn.Sequential(nn.Flatten(), nn.Dropout(0.2 if spatial else 0.1),
                                      nn.Linear(features, outputs))

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return self.head(self.features(x))

    return Net()


def class_probs(logits, ordinal: bool):
    """``(N, 4)`` probabilities of 0, 1, 2, 3+ tiles under a tile from the network's logits:
    a softmax, or (``ordinal``) the differences of the made-monotone probabilities of at least
    1, 2, 3 (P(0) = 1 - P(>=1), P(1) = P(>=1) - P(>=2), ..., P(3+) = P(>=3))."""
    import torch

    if not ordinal:
        return torch.softmax(logits, 1)
    s = torch.sigmoid(logits)
    cols = [s[:, :1]]
    for k in range(1, s.shape[1]):
        cols.append(torch.minimum(cols[-1], s[:, k:k + 1]))
    at_least = torch.cat([torch.ones_like(cols[0])] + cols + [torch.zeros_like(cols[0])], 1)
    return at_least[:, :-1] - at_least[:, 1:]


def _decode(xb):
    """uint8-coded crops (a torch tensor) back to the float32 :func:`tile_crops` gives, on the
    same device: the picture channels ``/ 255 - 0.5``, the masks 1 where coded above 191."""
    f = xb.float() / 255.0
    f[:, :3] -= 0.5
    f[:, 3:] = (xb[:, 3:] > 191).float()
    return f


def median5(pictures):
    """Each channel of ``pictures`` (a torch tensor ``(N, C, H, W)``) smoothed by a median of 5
    x 5 pixels, the border repeated: what :func:`vision.layer_cue.smoothed_view` does with
    ``cv2.medianBlur`` (:data:`vision.layer_cue.SMOOTH_MEDIAN`), on the tensor's device."""
    import torch.nn.functional as F

    padded = F.pad(pictures, (2, 2, 2, 2), mode="replicate")
    windows = padded.unfold(2, 5, 1).unfold(3, 5, 1)  # N, C, H, W, 5, 5
    return windows.reshape(*windows.shape[:4], 25).median(-1).values


def grain(n: int, side: int, sigma: float, gen, device):
    """Grey grain to add to ``n`` crop pictures of ``side`` pixels: per crop a strength drawn
    from 0..``sigma`` and a grain of 1 or 2 pixels (a speckled table, a noisy sensor), one value
    for the three colour channels; drawn from ``gen`` (a generator on ``device``)."""
    import torch
    import torch.nn.functional as F

    strength = sigma * torch.rand(n, 1, 1, 1, generator=gen, device=device)
    fine = torch.randn(n, 1, side, side, generator=gen, device=device)
    half = (side + 1) // 2
    coarse = F.interpolate(torch.randn(n, 1, half, half, generator=gen, device=device),
                           scale_factor=2, mode="nearest")[:, :, :side, :side]
    two_px = torch.rand(n, 1, 1, 1, generator=gen, device=device) < 0.5
    return strength * torch.where(two_px, coarse, fine)


def train(x: np.ndarray, y: np.ndarray, epochs: int, seed: int, ordinal: bool = False,
          spatial: bool = False, log=print, width: int = 1, batch: int = 64,
          lr: float = 3e-3, device: str = "cpu", smooth: float = 0.0, noise: float = 0.0,
          noise_share: float = 0.5):
    """The trained network (eval mode, on the CPU) on uint8-coded crops ``x`` and labels
    ``y``: AdamW, one-cycle up to ``lr``, batches of ``batch``, class weights
    1/sqrt(frequency), left-right mirror, brightness and contrast; cross-entropy, or
    (``ordinal``) the binary cross-entropies of "at least k"; ``spatial``: the head reads the
    whole last feature map, ``width`` widens it (:func:`make_net`). On ``device`` ("cpu",
    "cuda" or "auto") the crops are held there whole and every batch is drawn and varied there;
    the batches come from a torch generator seeded with ``seed``.

    Table looks it never saw (session 15: a speckled granite read as stacks): ``smooth`` is the
    share of crops whose picture is median-smoothed (:func:`median5`, the second view that
    :meth:`vision.layer_cue.LayerCue.under` asks about), ``noise`` the largest strength of the
    grey grain (:func:`grain`) added to ``noise_share`` of the crops; both drawn from a second
    generator on ``device`` seeded with ``seed + 1`` (0 and 0: the batches of before)."""
    import torch
    from torch import nn

    dev = pick_device(device)
    torch.manual_seed(seed)
    gen = torch.Generator(device="cpu").manual_seed(seed)
    dgen = torch.Generator(device=dev).manual_seed(seed + 1)
    if dev.type == "cpu":
        torch.set_num_threads(2)
    net = make_net(ordinal, spatial, x.shape[-1], width).to(dev)
    opt = torch.optim.AdamW(net.parameters(), lr=lr, weight_decay=1e-4)
    steps = epochs * int(np.ceil(len(y) / batch))
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=steps)
    counts = np.bincount(y, minlength=NUM_CLASSES).astype(float)
    weight = torch.tensor((counts.sum() / np.maximum(counts, 1) / NUM_CLASSES) ** 0.5,
                          dtype=torch.float32, device=dev)
    ce = nn.CrossEntropyLoss(weight=weight)
    bce = nn.BCEWithLogitsLoss(reduction="none")
    ks = torch.arange(1, NUM_CLASSES, dtype=torch.float32, device=dev)
    xd = torch.from_numpy(x).to(dev)
    yd = torch.from_numpy(y.astype(np.int64)).to(dev)
    for ep in range(epochs):
        net.train()
        order = torch.randperm(len(y), generator=gen)
        total = torch.zeros((), device=dev)
        for b in range(0, len(order), batch):
            idx = order[b:b + batch].to(dev)
            n = len(idx)
            xb = _decode(xd[idx])
            flip = (torch.rand(n, generator=gen) < 0.5).to(dev)
            xb = torch.where(flip[:, None, None, None], xb.flip(-1), xb)
            # brightness and contrast of the picture channels
            g = (0.8 + 0.4 * torch.rand(n, 1, 1, 1, generator=gen)).to(dev)
            o = (-0.08 + 0.16 * torch.rand(n, 1, 1, 1, generator=gen)).to(dev)
            xb[:, :3] = xb[:, :3] * g + o
            if smooth > 0:
                pick = torch.rand(n, generator=dgen, device=dev) < smooth
                if bool(pick.any()):
                    xb[pick, :3] = median5(xb[pick, :3])
            if noise > 0:
                pick = torch.rand(n, generator=dgen, device=dev) < noise_share
                if bool(pick.any()):
                    k = int(pick.sum())
                    xb[pick, :3] = xb[pick, :3] + grain(k, xb.shape[-1], noise, dgen, dev)
            out = net(xb)
            yb = yd[idx]
            if ordinal:
                target = (yb[:, None].float() >= ks[None]).float()
                loss = (bce(out, target).sum(1) * weight[yb]).sum() / weight[yb].sum()
            else:
                loss = ce(out, yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            total += loss.detach() * n
        log(f"epoch {ep + 1}/{epochs}: loss {float(total) / len(y):.4f}")
    net.eval()
    return net.cpu()


def predict(net, x: np.ndarray, ordinal: bool = False, device: str = "cpu") -> np.ndarray:
    import torch

    dev = pick_device(device)
    net = net.to(dev)
    with torch.no_grad():
        out = [class_probs(net(_decode(torch.from_numpy(x[b:b + 1024]).to(dev))),
                           ordinal).cpu().numpy()
               for b in range(0, len(x), 1024)]
    net.cpu()
    return np.concatenate(out) if out else np.zeros((0, NUM_CLASSES), np.float32)


def figures(p: np.ndarray, y: np.ndarray, kinds: np.ndarray) -> dict:
    """Accuracy of the 4 classes, and of raised vs on the table at a few thresholds."""
    raised = 1.0 - p[:, 0]
    out = {"samples": len(y), "accuracy": round(float((p.argmax(1) == y).mean()), 4),
           "per_class": {str(c): f"{int(((p.argmax(1) == y) & (y == c)).sum())}/"
                                 f"{int((y == c).sum())}" for c in range(NUM_CLASSES)}}
    for thr in (0.5, 0.8, 0.9, 0.95):
        lift = raised >= thr
        layer = 1 + p[:, 1:].argmax(1)
        out[f"raised>={thr}"] = {
            "lifted_raised": int((lift & (y > 0)).sum()), "raised": int((y > 0).sum()),
            "lifted_right_layer": int((lift & (y > 0) & (layer == y)).sum()),
            "lifted_table_stacked": int((lift & (y == 0) & (kinds == "stacked")).sum()),
            "lifted_table_flat": int((lift & (y == 0) & (kinds == "flat")).sum()),
            "table_flat": int(((y == 0) & (kinds == "flat")).sum())}
    return out


def export(net, path: Path, size: int, ordinal: bool = False) -> None:
    import torch

    class WithProbs(torch.nn.Module):
        def __init__(self, inner) -> None:
            super().__init__()
            self.inner = inner

        def forward(self, x):
            return class_probs(self.inner(x), ordinal)

    dummy = torch.zeros(2, CHANNELS, size, size)
    with warnings.catch_warnings():  # the TorchScript exporter is chosen on purpose
        warnings.simplefilter("ignore", DeprecationWarning)
        torch.onnx.export(WithProbs(net), dummy, str(path), input_names=["crops"],
                          output_names=["probabilities"], opset_version=17, dynamo=False,
                          dynamic_axes={"crops": {0: "N"}, "probabilities": {0: "N"}})


def card_text(meta: dict) -> str:
    """The model card (``layer_cue.md``) for the metadata ``meta`` (``layer_cue.json``)."""
    tr, tune = meta["training"], meta["tuning"]
    crop = int(tr.get("crop", CROP))
    lines = [
        ("# Layer cue (`layer_cue.onnx`" + (f", served as `{meta['int8']['model']}`"
                                            if meta.get("int8") else "") + ")"),
        "",
        ("How many tiles lie under a tile (0, 1, 2, 3 or more), from the picture around it: the "
        "wall bands of a stack below the tile's face, its shadow on a tile rather than on the "
        "table, a lower tile's edge peeking out. Used by `vision.layers.estimate_layers` "
        "(through `vision.layer_cue.LayerCue`) for tiles that no other cue puts above the table: "
        "a tile whose probability of lying on something is at least "
        "`vision.layers.LEARNED_LIFT`, and on which no found tile lies, is put on the layer the "
        "model gives (cue `learned`)."),
        "",
        "## Input and output",
        "",
        (f"- Input `{meta['input']['name']}`: float32 `(N, {CHANNELS}, {crop}, {crop})`, exactly "
        f"as `vision.layer_cue.tile_crops(..., size={crop})` makes them: "
        f"{meta['input']['normalisation']}."),
        *([f"- {meta['input']['in_use']}"] if meta["input"].get("in_use") else []),
        (f"- Output `{meta['output']['name']}`: float32 `(N, {NUM_CLASSES})`, "
        f"{meta['output']['meaning']}."),
        (f"- Dynamic batch axis, ONNX opset 17, {meta['bytes']:,} bytes, sha256 "
        f"`{meta['sha256']}`."),
        ("- Network: four stride-2 3x3 convolutions with batch norm and ReLU ("
        + ", ".join(str(c * int(tr.get("width", 1))) for c in (16, 32, 48, 64))
        + " channels), then " + ("the whole last feature map (where in the crop a band or an "
                              "edge lies), dropout 0.2" if tr.get("spatial") else
                              "global average pool, dropout 0.1")
        + ", one linear layer" + (" giving P(at least 1, 2, 3 tiles under it) (ordinal "
                                  "targets)" if tr.get("ordinal") else "") + "."),
        "",
        "## Training data",
        "",
        ("- Only scenes drawn by the project's renderer, TRAINING seeds (below 1,000,000; the "
        "layer benches use held-out seeds and looks only): stacked scenes "
        f"(`vision.render.stacking.stacked_scene_spec`) {tr['stacked_seeds']}, flat scenes "
        "(`random_scene_spec`, layouts line, spinner, chickenfoot, trains, grid, loose in turn) "
        f"{tr['flat_seeds']}; the last {tr['tune_share']:.0%} of each range held back for "
        "tuning."),
        ("- Each scene is read by the real reader (`vision.read.Reader`), as in live play; every "
        "found tile not cut by the frame edge that matches a rendered tile (IoU >= 0.5) is one "
        "sample, cut around the reader's outline, labelled with its true layer (3 for 3+)."),
        (f"- {tr['train_samples']:,} training samples (per class "
        f"{', '.join(str(v) for v in tr['train_per_class'])}); rendering and reading took "
        f"{tr['data_seconds']:.0f} s, training {tr['epochs']} epochs {tr['seconds']:.0f} s "
        f"(AdamW, one-cycle, class weights 1/sqrt(frequency), "
        + ("binary cross-entropy of each 'at least' target, " if tr.get("ordinal") else "")
        + "left-right mirror, brightness and contrast"
        + (f", {tr['smooth_aug']:.0%} of the crops median-smoothed over 5 pixels"
           if tr.get("smooth_aug") else "")
        + (f", grey grain of strength up to {tr['noise_aug']} on half of them"
           if tr.get("noise_aug") else "")
        + f"; batches of {tr.get('batch', 64)}, peak "
        f"learning rate {tr.get('lr', 0.003)}; seed {tr['seed']}) "
        + (tr["where"] if tr.get("where") else "on a shared 2-core CPU") + "."),
        f"- Rebuild: `{tr['command']}`." + (f" {tr['samples_read']}" if tr.get("samples_read")
                                            else ""),
        "",
        "## Figures on the tuning scenes (training seeds not trained on)",
        "",
        (f"{tune['samples']} found tiles; 4-class accuracy {tune['accuracy']:.4f} (per class "
        f"right/all: {', '.join(f'{k}: {v}' for k, v in tune['per_class'].items())})."),
        "",
        ("| P(raised) >= | raised tiles lifted | onto the true layer | table tiles lifted "
        "(stacked scenes) | table tiles lifted (flat scenes) |"),
        "|---|---|---|---|---|",
    ]
    for thr in (0.5, 0.8, 0.9, 0.95):
        f = tune[f"raised>={thr}"]
        lines.append(f"| {thr} | {f['lifted_raised']}/{f['raised']} | "
                     f"{f['lifted_right_layer']} | {f['lifted_table_stacked']} | "
                     f"{f['lifted_table_flat']}/{f['table_flat']} |")
    lines += int8_lines(meta.get("int8"))
    lines += ["", "## Limitations", ""] + [f"- {x}" for x in meta.get("limitations", [])]
    if meta.get("benchmarks"):
        lines += ["", "## Choice and benches", ""] + [f"- {x}" for x in meta["benchmarks"]]
    return "\n".join(lines) + "\n"


def int8_lines(q: dict | None) -> list[str]:
    """The card's section on the served 8-bit network (``int8`` of ``layer_cue.json``, written
    by ``models/quantize_layer_cue.py``); none before it was made."""
    if not q:
        return []
    t = q["ms_30_crops"]
    return ["", "## Served as 8-bit integers", "",
            (f"- `{q['model']}` ({q['bytes']:,} bytes, sha256 `{q['sha256']}`) is this network "
             f"(sha256 `{q['from_sha256'][:16]}...`) with its convolutions in 8-bit integers: "
             "onnxruntime static quantization, QDQ format, weights signed per output channel "
             "with the range reduced to 7 bits (the same sums with and without VNNI "
             "instructions), activations unsigned, ranges the minimum and maximum over "
             f"{q['calibration']}. `vision.layer_cue.LayerCue` serves it; the float file "
             "stays the trained source."),
            (f"- Against the float network on {q['crops']} crops of {q['check']} (not "
             f"calibrated on): P(raised) differs by at most {q['raised_diff_max']} (99th "
             f"percentile {q['raised_diff_p99']}); the likeliest count is the same for "
             f"{q['count_agree']} of {q['crops']}. 30 crops: {t['float']} -> {t['int8']} ms "
             "median at the served thread count, on the machine that made it."),
            f"- Rebuild: `{q['command'].strip()}` (after training; no torch needed).",
            *[f"- {x}" for x in q.get("benchmarks", [])]]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=7, help="seed of the weights and batches")
    ap.add_argument("--stacked-seed", type=int, default=3000)
    ap.add_argument("--stacked", type=int, default=2000, help="stacked training scenes")
    ap.add_argument("--flat-seed", type=int, default=5000)
    ap.add_argument("--flat", type=int, default=200, help="flat training scenes")
    ap.add_argument("--tune-share", type=float, default=0.15)
    ap.add_argument("--epochs", type=int, default=10)
    ap.add_argument("--crop", type=int, default=CROP, help="crop side in pixels")
    ap.add_argument("--ordinal", action="store_true",
                    help='learn "at least 1, 2, 3 tiles under it" instead of 4 classes')
    ap.add_argument("--spatial", action="store_true",
                    help="the head reads the whole last feature map, not its average")
    ap.add_argument("--width", type=int, default=1,
                    help="channel multiplier of the network (1: 16-32-48-64)")
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--lr", type=float, default=3e-3, help="peak learning rate (one-cycle)")
    ap.add_argument("--smooth-aug", type=float, default=0.0,
                    help="share of training crops median-smoothed (0..1)")
    ap.add_argument("--noise-aug", type=float, default=0.0,
                    help="largest strength of the grey grain added to half the crops (0..0.2)")
    ap.add_argument("--device", default="cpu", choices=DEVICES,
                    help="where to train (the crops are held there whole)")
    ap.add_argument("--workers", type=int, default=1,
                    help="processes rendering, reading and cropping scenes side by side")
    ap.add_argument("--cache", type=Path, default=None,
                    help="folder of rendered and read scenes (shards of 100), made when missing")
    ap.add_argument("--data-only", action="store_true", help="make the cache and stop")
    ap.add_argument("--out", type=Path, default=HERE)
    ap.add_argument("--card", action="store_true",
                    help="only write layer_cue.md again from layer_cue.json in --out")
    a = ap.parse_args(argv)
    if a.card:
        meta = json.loads((a.out / "layer_cue.json").read_text())
        (a.out / "layer_cue.md").write_text(card_text(meta))
        return 0
    from vision.render.sampling import HELD_OUT_SEED_MIN

    stacked, flat = (a.stacked_seed, a.stacked), (a.flat_seed, a.flat)
    for name, (s0, n) in (("stacked", stacked), ("flat", flat)):
        if s0 < 0 or n < 1 or s0 + n > HELD_OUT_SEED_MIN:
            ap.error(f"--{name}-seed {s0} / --{name} {n}: expected training seeds in "
                     f"0..{HELD_OUT_SEED_MIN - 1}")
    if not 0.0 <= a.smooth_aug <= 1.0:
        ap.error(f"--smooth-aug {a.smooth_aug}: expected a share in 0..1")
    if not 0.0 <= a.noise_aug <= 0.2:
        ap.error(f"--noise-aug {a.noise_aug}: expected a strength in 0..0.2")
    if not 16 <= a.crop <= 512:
        ap.error(f"--crop {a.crop}: expected 16..512 pixels")
    t0 = time.perf_counter()
    scenes = build_data(stacked, flat, a.cache, workers=a.workers)
    data_seconds = round(time.perf_counter() - t0, 1)
    if a.data_only:
        return 0
    train_sc, tune_sc = split(scenes, a.tune_share, stacked, flat)
    x, y, _ = samples(train_sc, a.crop, a.workers)
    xt, yt, kinds_t = samples(tune_sc, a.crop, a.workers)
    print(f"training samples {len(y)} (per class {np.bincount(y).tolist()}), tuning {len(yt)}",
          flush=True)
    t0 = time.perf_counter()
    net = train(x, y, a.epochs, a.seed, a.ordinal, a.spatial, width=a.width, batch=a.batch,
                lr=a.lr, device=a.device, smooth=a.smooth_aug, noise=a.noise_aug)
    seconds = round(time.perf_counter() - t0, 1)
    fig = figures(predict(net, xt, a.ordinal, a.device), yt, kinds_t)
    print(json.dumps(fig, indent=1))
    a.out.mkdir(parents=True, exist_ok=True)
    onnx_path = a.out / "layer_cue.onnx"
    export(net, onnx_path, a.crop, a.ordinal)
    blob = onnx_path.read_bytes()
    meaning = ("0, 1, 2, 3+ tiles under the tile: differences of the made-monotone "
               "probabilities of at least 1, 2, 3 (ordinal)" if a.ordinal
               else "softmax over 0, 1, 2, 3+ tiles under the tile")
    meta = {
        "model": onnx_path.name, "sha256": hashlib.sha256(blob).hexdigest(), "bytes": len(blob),
        "input": {"name": "crops", "shape": ["N", CHANNELS, a.crop, a.crop], "dtype": "float32",
                  "normalisation": f"vision.layer_cue.tile_crops: BGR / 255 - 0.5 axis-aligned "
                                   f"around the tile, {SPAN} tile lengths wide; tile mask; "
                                   "other found tiles' mask"},
        "output": {"name": "probabilities", "shape": ["N", NUM_CLASSES], "meaning": meaning},
        "training": {"seed": a.seed, "epochs": a.epochs, "seconds": seconds,
                     "data_seconds": data_seconds, "crop": a.crop, "ordinal": a.ordinal,
                     "spatial": a.spatial, "width": a.width, "batch": a.batch, "lr": a.lr,
                     "device": a.device, "smooth_aug": a.smooth_aug, "noise_aug": a.noise_aug,
                     "stacked_seeds": f"{stacked[0]}-{stacked[0] + stacked[1] - 1}",
                     "flat_seeds": f"{flat[0]}-{flat[0] + flat[1] - 1}",
                     "tune_share": a.tune_share, "train_samples": len(y),
                     "train_per_class": np.bincount(y, minlength=NUM_CLASSES).tolist(),
                     "command": "python models/train_layer_cue.py " + " ".join(
                         sys.argv[1:] if argv is None else argv)},
        "tuning": fig,
    }
    meta["limitations"] = [
        ("Trained and tuned on rendered scenes only; never measured on photographs of stacks "
        "(none exist in the project)."),
        ("Sees only the reader's outline and the picture around it: a raised tile whose crop "
        "shows no wall band or support (camera straight above) looks like a table tile."),
        ("The number of tiles under a lifted tile is often wrong by one (see the per-class "
        "figures); where the support is found, the pair cues decide instead.")]
    (a.out / "layer_cue.json").write_text(json.dumps(meta, indent=1) + "\n")
    (a.out / "layer_cue.md").write_text(card_text(meta))
    print(f"wrote {onnx_path} ({len(blob)} bytes), trained {seconds} s; the reader serves its "
          "8-bit conversion: run models/quantize_layer_cue.py next")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
