"""Train the tile finder on rendered scenes and export ``models/tile_finder.onnx``.

The tile finder (:mod:`vision.tile_finder`) is a small fully convolutional network that marks,
for a picture scaled to the finder's working size, the shrunk centre ("kernel") and the whole
visible top face of every face-up tile. Everything it learns from is drawn by the project's own
renderer (:mod:`models.tile_finder_data`): training seeds and training looks only; validation
on held-out seeds and looks (seeds 1,500,000 and up, not used by ``domino-companion evaluate``);
no photograph is ever read.

Rebuild (torch is not a dependency of the project; install the CPU build first)::

    pip install torch==2.13.0 && pip install -e '.[train]'
    python models/train_tile_finder.py --seed 7

Writes ``tile_finder.onnx``, ``tile_finder.json`` (metadata, figures, sha256) and
``tile_finder.md`` (the model card) into ``--out`` (default: this folder); ``--name
tile_finder_closeup`` names them for the close-up network (``vision.tile_finder``: small
pictures worked at close-up sizes), which is fine-tuned from the table network (``--init``,
see ``models/tile_finder_closeup.md`` for its command). ``--cache DIR`` keeps
the rendered samples between runs (they depend only on the data arguments and the renderer).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))  # the data module sits beside this script

from devices import pick_device  # noqa: E402
from tile_finder_data import (BLANK_DOUBLE, BLANK_HALF, BLANK_SEED0, CROP,  # noqa: E402
                              EXTRA_SEED0, FOCUS_SEED0, HELD_OUT_DECOR_SEED0,
                              MIN_VISIBLE, PHONE_CLOSEUP_SEED0, PHONE_DRAWN, SMALL_CLOSEUP_SEED0,
                              SMALL_DRAWN, Samples, make_samples)
from vision.render import HELD_OUT_SEED_MIN  # noqa: E402
from vision.render.version import renderer_version  # noqa: E402
from vision.tile_finder import CLOSE_UP_SIDE, KERNEL_SHRINK, WORK_SIDE  # noqa: E402

#: Channels of the encoder levels (1/2, 1/4, 1/8, 1/16 of the input).
CHANNELS = (12, 24, 40, 64)
#: What the extra training scenes are (``tile_finder_data.extra_constraints``), for the card.
EXTRA_MIX = ("in every 8: 4 with printed board art (`vision.render.decor`: 2 any layout, 1 a "
             "chickenfoot game, 1 with a face-down boneyard and a hand), 1 more chickenfoot "
             "game, 1 hub layout (chickenfoot or spinner), 1 long chain (line or trains of "
             "18-30 tiles), 1 checked cloth with a face-down boneyard and hands")
#: Mean and spread the network's first layer takes off its BGR 0..255 input.
MEAN, STD = 128.0, 64.0


# ----------------------------------------------------------------------------- model


def _conv(c_in: int, c_out: int, stride: int = 1) -> nn.Sequential:
    return nn.Sequential(nn.Conv2d(c_in, c_out, 3, stride=stride, padding=1, bias=False),
                         nn.BatchNorm2d(c_out), nn.ReLU(inplace=True))


class TileFinderNet(nn.Module):
    """A small U-Net: a stride-2 3x3 stem, three stride-2 stages (each a strided 3x3 conv and a
    3x3 conv), and a decoder that brings each coarser level up (bilinear x2 after a 1x1 conv) and
    adds it to the skip of the finer level before a 3x3 conv. Output: two logit maps (kernel,
    face) at half the input resolution. Input height and width must be multiples of 16."""

    def __init__(self, channels: tuple[int, ...] = CHANNELS) -> None:
        super().__init__()
        c1, c2, c3, c4 = channels
        self.stem = _conv(3, c1, 2)
        self.down2 = nn.Sequential(_conv(c1, c2, 2), _conv(c2, c2))
        self.down3 = nn.Sequential(_conv(c2, c3, 2), _conv(c3, c3))
        self.down4 = nn.Sequential(_conv(c3, c4, 2), _conv(c4, c4))
        self.lat3 = nn.Conv2d(c4, c3, 1)
        self.up3 = _conv(c3, c3)
        self.lat2 = nn.Conv2d(c3, c2, 1)
        self.up2 = _conv(c2, c2)
        self.lat1 = nn.Conv2d(c2, c1, 1)
        self.up1 = _conv(c1, c1)
        self.head = nn.Conv2d(c1, 2, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        s1 = self.stem(x)
        s2 = self.down2(s1)
        s3 = self.down3(s2)
        s4 = self.down4(s3)
        u = self.up3(s3 + F.interpolate(self.lat3(s4), scale_factor=2.0, mode="bilinear",
                                        align_corners=False))
        u = self.up2(s2 + F.interpolate(self.lat2(u), scale_factor=2.0, mode="bilinear",
                                        align_corners=False))
        u = self.up1(s1 + F.interpolate(self.lat1(u), scale_factor=2.0, mode="bilinear",
                                        align_corners=False))
        return self.head(u)


def _conv_slots(net: TileFinderNet) -> list[tuple[nn.Conv2d, nn.BatchNorm2d | None]]:
    """The network's convolutions (each with the batch norm after it, if any) in the order the
    ONNX export writes them (the order of :meth:`TileFinderNet.forward`)."""
    slots: list[tuple[nn.Conv2d, nn.BatchNorm2d | None]] = []

    def block(seq: nn.Sequential) -> None:
        slots.append((seq[0], seq[1]))

    block(net.stem)
    for stage in (net.down2, net.down3, net.down4):
        block(stage[0])
        block(stage[1])
    for lat, up in ((net.lat3, net.up3), (net.lat2, net.up2), (net.lat1, net.up1)):
        slots.append((lat, None))
        block(up)
    slots.append((net.head, None))
    return slots


def load_onnx_weights(net: TileFinderNet, path: Path) -> str:
    """Start ``net`` from an exported tile finder (``tile_finder.onnx``; returns its sha256).
    The export folds each batch norm into the convolution before it, so every such batch norm
    becomes the identity plus the folded bias (weight 1, running mean 0, running variance
    ``1 - eps``): in eval mode the network computes exactly what the ONNX file does. Train such a
    network with its batch norms in eval mode (``train(..., freeze_bn=True)``)."""
    import onnx
    from onnx import numpy_helper

    if not path.is_file():
        raise FileNotFoundError(f"--init {path}: no such file; give an exported tile_finder.onnx")
    model = onnx.load(str(path))
    weights = {i.name: numpy_helper.to_array(i) for i in model.graph.initializer}
    convs = [n for n in model.graph.node if n.op_type == "Conv"]
    slots = _conv_slots(net)
    if len(convs) != len(slots):
        raise ValueError(f"--init {path}: {len(convs)} convolutions, this network has "
                         f"{len(slots)}; give a tile finder exported by this script")
    with torch.no_grad():
        for node, (conv, bn) in zip(convs, slots):
            w = np.array(weights[node.input[1]], np.float32)
            b = (np.array(weights[node.input[2]], np.float32) if len(node.input) > 2
                 else np.zeros(w.shape[0], np.float32))
            if tuple(w.shape) != tuple(conv.weight.shape):
                raise ValueError(f"--init {path}: convolution {node.name} has weights "
                                 f"{tuple(w.shape)}, the network wants {tuple(conv.weight.shape)}")
            conv.weight.copy_(torch.from_numpy(w))
            if bn is None:
                conv.bias.copy_(torch.from_numpy(b))
            else:
                bn.weight.fill_(1.0)
                bn.bias.copy_(torch.from_numpy(b))
                bn.running_mean.zero_()
                bn.running_var.fill_(1.0 - bn.eps)
    return hashlib.sha256(path.read_bytes()).hexdigest()


class Exported(nn.Module):
    """What ships: ``(1, 3, H, W)`` float32 BGR 0..255 in, ``(1, 2, H/2, W/2)`` probabilities
    (kernel, face) out."""

    def __init__(self, net: TileFinderNet) -> None:
        super().__init__()
        self.net = net

    def forward(self, image: torch.Tensor) -> torch.Tensor:
        return torch.sigmoid(self.net((image - MEAN) / STD))


# ----------------------------------------------------------------------------- training


def _augment(x: torch.Tensor, y: torch.Tensor, g: torch.Generator) -> tuple[torch.Tensor, torch.Tensor]:
    """Quarter turns and mirrors (images and targets alike), and per-image brightness, contrast
    and colour gains (images only). The random draws come from the CPU generator ``g`` whatever
    device ``x`` is on (the same draws, so the same augmentation, on every device)."""
    k = int(torch.randint(0, 4, (1,), generator=g))
    x, y = torch.rot90(x, k, (2, 3)), torch.rot90(y, k, (2, 3))
    if float(torch.rand(1, generator=g)) < 0.5:
        x, y = x.flip(3), y.flip(3)
    n = len(x)
    gain = 1.0 + 0.25 * (torch.rand(n, 1, 1, 1, generator=g) * 2 - 1)
    colour = 1.0 + 0.08 * (torch.rand(n, 3, 1, 1, generator=g) * 2 - 1)
    offset = 30.0 * (torch.rand(n, 1, 1, 1, generator=g) * 2 - 1)
    gain, colour, offset = (t.to(x.device) for t in (gain, colour, offset))
    mean = x.mean(dim=(1, 2, 3), keepdim=True)
    x = ((x - mean) * gain + mean + offset) * colour
    return x.clamp(0, 255), y


def _loss(logits: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    """Weighted BCE plus soft dice, kernel counted twice as much as face."""
    t = target[:, :2]
    w = target[:, 2:3]
    bce = F.binary_cross_entropy_with_logits(logits, t, reduction="none") * w
    bce = bce.sum(dim=(0, 2, 3)) / w.sum().clamp(min=1.0)
    p = torch.sigmoid(logits) * w
    inter = (p * t).sum(dim=(0, 2, 3))
    dice = 1 - (2 * inter + 1) / (p.sum(dim=(0, 2, 3)) + (t * w).sum(dim=(0, 2, 3)) + 1)
    per = bce + dice
    return 2.0 * per[0] + per[1]


def _held(data: Samples, device: torch.device) -> tuple[torch.Tensor, torch.Tensor]:
    """The samples' images and targets as uint8 tensors on ``device`` (on the CPU the arrays
    themselves, not copied; on a GPU held there whole, so batches never leave it)."""
    return torch.from_numpy(data.images).to(device), torch.from_numpy(data.targets).to(device)


def _batch(held: tuple[torch.Tensor, torch.Tensor], index: torch.Tensor
           ) -> tuple[torch.Tensor, torch.Tensor]:
    """Images (N, 3, H, W) float in channels-last memory (the layout the CPU convolutions are
    fastest in: about 1.3-1.8x per training step on this machine) and targets (N, 3, h, w)
    in 0..1, on the device the held samples (:func:`_held`) are on."""
    images, targets = held
    idx = index.to(images.device)
    x = images[idx].permute(0, 3, 1, 2).float()
    x = x.contiguous(memory_format=torch.channels_last)
    y = targets[idx].float() / 255.0
    return x, y


def train(net: TileFinderNet, data: Samples, epochs: int, seed: int, batch: int,
          lr: float, budget_s: float, snapshots: tuple[Path, int] | None = None,
          freeze_bn: bool = False, device: torch.device = torch.device("cpu")) -> dict:
    """AdamW with a one-cycle learning rate over ``epochs``; stops early at ``budget_s``.
    ``snapshots`` = (folder, first epoch): from that epoch on, each epoch's network is exported
    to ``folder/epoch_<n>.onnx`` (to measure while training goes on). ``freeze_bn``: the batch
    norms keep their statistics (eval mode; their scale and shift still learn), as a network
    started from an export (:func:`load_onnx_weights`) needs. ``device``: where the network and
    the samples are held (the random draws stay on the CPU generator, so every device shuffles
    and augments alike); the network is left there."""
    g = torch.Generator().manual_seed(seed)
    held = _held(data, device)
    net.to(device)
    net.to(memory_format=torch.channels_last)
    steps = epochs * ((len(data) + batch - 1) // batch)
    opt = torch.optim.AdamW(net.parameters(), lr=lr, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=steps, pct_start=0.1)
    start = time.perf_counter()
    done = 0
    history = []
    for epoch in range(epochs):
        net.train()
        if freeze_bn:
            for m in net.modules():
                if isinstance(m, nn.BatchNorm2d):
                    m.eval()
        order = torch.randperm(len(data), generator=g)
        total, n = torch.zeros((), dtype=torch.float64, device=device), 0
        for first in range(0, len(order), batch):
            x, y = _batch(held, order[first:first + batch])
            x, y = _augment(x, y, g)
            x = x.contiguous(memory_format=torch.channels_last)
            loss = _loss(net((x - MEAN) / STD), y)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            sched.step()
            done += 1
            total += loss.detach().double() * len(x)  # no wait for the GPU every step
            n += len(x)
            if done % 100 == 0:
                print(f"  step {done}/{steps}: loss {total / n:.4f}, "
                      f"{time.perf_counter() - start:.0f} s", file=sys.stderr, flush=True)
        mean_loss = float(total) / n
        elapsed = time.perf_counter() - start
        history.append(round(mean_loss, 4))
        print(f"epoch {epoch + 1}/{epochs}: loss {mean_loss:.4f}, {elapsed:.0f} s",
              file=sys.stderr, flush=True)
        if snapshots is not None and epoch + 1 >= snapshots[1]:
            snapshots[0].mkdir(parents=True, exist_ok=True)
            export(net, snapshots[0] / f"epoch_{epoch + 1}.onnx")
            net.to(device)
            net.to(memory_format=torch.channels_last)
        if elapsed > budget_s and epoch + 1 < epochs:
            print(f"time budget {budget_s:.0f} s reached after epoch {epoch + 1}", file=sys.stderr)
            break
    return {"epochs_run": len(history), "steps": done, "loss_per_epoch": history,
            "seconds": round(time.perf_counter() - start), "device": _device_name(device)}


def _device_name(device: torch.device) -> str:
    """``cpu`` or the GPU's name, for the card."""
    return torch.cuda.get_device_name(device) if device.type == "cuda" else "cpu"


@torch.no_grad()
def pixel_figures(net: TileFinderNet, data: Samples, batch: int = 32) -> dict:
    """Kernel and face IoU (probability >= 0.5 against target >= 0.5, scored pixels only), on
    the device the network is on."""
    net.eval()
    held = _held(data, next(net.parameters()).device)
    inter = np.zeros(2)
    union = np.zeros(2)
    for first in range(0, len(data), batch):
        x, y = _batch(held, torch.arange(first, min(first + batch, len(data))))
        p = torch.sigmoid(net((x - MEAN) / STD)) >= 0.5
        t = y[:, :2] >= 0.5
        w = y[:, 2:3] >= 0.5
        inter += ((p & t) & w).sum(dim=(0, 2, 3)).cpu().numpy()
        union += ((p | t) & w).sum(dim=(0, 2, 3)).cpu().numpy()
    iou = inter / np.maximum(union, 1)
    return {"kernel_iou": round(float(iou[0]), 4), "face_iou": round(float(iou[1]), 4),
            "samples": len(data)}


def export(net: TileFinderNet, path: Path) -> None:
    """ONNX (opset 17) with dynamic height and width, normalisation and sigmoid inside."""
    net.eval()
    net.cpu()
    net.to(memory_format=torch.contiguous_format)
    wrapped = Exported(net).eval()
    dummy = torch.zeros(1, 3, 64, 96)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(wrapped, (dummy,), str(path), input_names=["image"],
                          output_names=["maps"], opset_version=17, dynamo=False,
                          dynamic_axes={"image": {2: "height", 3: "width"},
                                        "maps": {2: "height_half", 3: "width_half"}})


def load_or_make(args: argparse.Namespace, held_out: bool, skipped: list[str],
                 kind: str = "scene") -> Samples:
    """The samples of one split, from ``--cache`` when they are there (else made and kept);
    ``kind`` ``extra``: the extra training scenes, ``decor``: the decorated validation scenes,
    ``small``: the close-ups of small pale tiles of the split, ``phone``: the phone close-ups of
    one tile of the split, ``focus``: the focus training
    scenes, ``blank``: the blank-heavy training scenes (see
    :func:`tile_finder_data.make_samples`)."""
    if kind == "extra":
        scenes, closeups, crops, prefix = args.extra_scenes, 0, args.crops, "extra"
    elif kind == "focus":
        scenes, closeups, crops, prefix = args.focus_scenes, 0, args.crops, "focus"
    elif kind == "blank":
        scenes, closeups, crops, prefix = args.blank_scenes, 0, args.crops, "blank"
    elif kind == "phone":
        scenes = args.heldout_phone if held_out else args.phone_closeups
        closeups, crops = 0, 1
        prefix = "heldout_phone" if held_out else "phone"
    elif kind == "small":
        scenes = args.heldout_small if held_out else args.small_closeups
        closeups, crops = 0, 1
        prefix = "heldout_small" if held_out else "small"
    elif kind == "decor":
        scenes, closeups, crops, prefix = args.heldout_decor, 0, 2, "heldout_decor"
    else:
        scenes = args.heldout_scenes if held_out else args.scenes
        closeups = args.heldout_closeups if held_out else args.closeups
        crops = 2 if held_out else args.crops
        prefix = "heldout" if held_out else "train"
    name = f"{prefix}_s{scenes}_c{closeups}_k{crops}_seed{args.seed}.npz"
    path = args.cache / name if args.cache is not None else None
    if path is not None and path.is_file():
        with np.load(path) as z:
            skipped.extend(json.loads(str(z["skipped"])))
            print(f"samples from {path}", file=sys.stderr)
            return Samples(z["images"], z["targets"])
    mine: list[str] = []
    data = make_samples(scenes, closeups, crops, held_out, args.seed, args.workers,
                        prefix, mine, kind)
    skipped.extend(mine)
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        np.savez(path, images=data.images, targets=data.targets, skipped=json.dumps(mine))
    return data


# ----------------------------------------------------------------------------- model card


def card_text(meta: dict) -> str:
    """The model card (``tile_finder.md``) for the metadata ``meta`` (``tile_finder.json``)."""
    tr = meta["training"]
    rend = tr["renderer"]
    fit = tr["fit"]
    px = meta["pixel_figures"]
    name = meta.get("model", "tile_finder.onnx")
    lines = [
        f"# Tile finder (`{name}`)",
        "",
        meta.get("role") or (
            "Marks every face-up domino tile's top face in a picture, so that touching tiles "
            "come apart and each tile gets its own size. Used by the reader's detector "
            "(`vision.detect.detect_tiles`) through `vision.tile_finder.TileFinder`; the "
            "post-processing is OpenCV only."),
        "",
        "## Input and output",
        "",
        f"- Input `{meta['input']['name']}`: float32 `(1, 3, H, W)`, {meta['input']['meaning']}. "
        f"The picture is scaled so its long side is {meta['input']['work_side']} px "
        f"({meta['input']['close_up_side']} px for pictures under "
        "`vision.tile_finder.SMALL_SIDE` px, such as close-ups of one tile); the network "
        "takes off mean 128 and divides by 64 itself.",
        f"- Output `{meta['output']['name']}`: float32 `(1, 2, H/2, W/2)`, "
        f"{meta['output']['meaning']}.",
        f"- Network: a small U-Net (stride-2 stem, three stride-2 stages of 3x3 conv + batch "
        f"norm + ReLU, channels {meta['channels']}, a decoder adding 1x1-projected, bilinearly "
        f"upsampled coarse levels to the skips); {meta['weights']:,} weights; ONNX opset 17, "
        f"dynamic H and W; {meta['bytes']:,} bytes; sha256 `{meta['sha256']}`.",
        "- Post-processing (`vision.tile_finder.tiles_from_maps`): kernel map to working "
        "size (bilinear), threshold 0.5, connected blobs, minimum-area rectangle grown by "
        f"1/{meta['kernel_shrink']}, back to image pixels; a blob at the border or a grown "
        "outline leaving the picture is a cut tile. A blob that is not tile-shaped (kernels "
        "of touching tiles that ran together: a toe against its tile, a double across a "
        "tile's end, hubs, chains) is split by fitting kernel rectangles the size of the "
        "single tiles' kernels near it, one at a time at 36 directions (`_fit_kernels`, "
        "`FIT_SPLIT`, `FIT_COVER`); a long blob at the border the same way (its tiles "
        "reaching the border are cut); without a single tile in the picture, at higher "
        "thresholds as before.",
        "",
        "## Training data",
        "",
        f"- Only scenes drawn by the project's renderer `vision.render` (commit "
        f"`{rend['commit']}`{'; ' + rend['note'] if rend.get('note') else ''}): training seeds {rend['training_seeds']}, training tile and "
        "table families only (held-out looks `marbled` tiles and `stone` tables never seen), "
        f"{tr['crops_per_scene']} crops of {tr['crop']} px per scene at the working scale "
        "times 0.7..1.45, most centred near a tile; close-ups of single ivory tiles "
        f"(`vision.render.closeup`, seeds {rend['closeup_seeds']})"
        + (f"; {tr['extra_scenes']} extra scenes (seeds {rend['extra_seeds']}, "
           f"{tr['crops_per_scene']} crops each) aimed at the weak spots: {tr['extra_mix']}"
           if tr.get("extra_scenes") else "")
        + (f"; {tr['small_closeups']} close-ups of one to four small pale tiles "
           f"(`vision.render.closeup.render_small_closeup`, seeds {rend['small_seeds']}: tiles "
           "0.08-0.22 of the side wide, pale card half the time, lamp glare half the time, "
           "ivory, white and pip-colour faces only, blank halves often; drawn "
           f"{tr['small_drawn'][0]}-{tr['small_drawn'][1]} px and enlarged to the close-up "
           "side)" if tr.get("small_closeups") else "")
        + (f"; {tr['focus_scenes']} focus scenes (seeds {rend['focus_seeds']}, "
           f"{tr['crops_per_scene']} crops each; `tile_finder_data.focus_constraints`: in every "
           "4: coloured tiles on felt, a long chain of small tiles, small ivory or white tiles "
           "on paper or cloth, coloured or pip-colour tiles in a chain on felt)"
           if tr.get("focus_scenes") else "")
        + (f"; {tr['blank_scenes']} blank-heavy scenes (seeds {rend['blank_seeds']}, "
           f"{tr['crops_per_scene']} crops each; `tile_finder_data.blank_constraints` and "
           "`blank_heavy`: black, coloured, ivory or white, and black, coloured or pip-colour "
           "tiles with a hand, each with a face-down boneyard; every face-up tile made the "
           f"double blank with chance {tr['blank_double']} or given a blank half with chance "
           f"{tr['blank_half']})" if tr.get("blank_scenes") else "")
        + (f"; {tr['phone_closeups']} phone close-ups of one tile "
           f"(`vision.render.closeup.render_phone_closeup`, seeds {rend['phone_seeds']}: ivory "
           "or white tiles with a divider, 0.09-0.42 of the side wide in three size classes, "
           "blank doubles and blank halves a third of the time each, on every phone close-up "
           "table but the held-out stone; drawn "
           f"{tr['phone_drawn'][0]}-{tr['phone_drawn'][1]} px and enlarged to the close-up "
           "side)" if tr.get("phone_closeups") else "")
        + f": {tr['samples']:,} samples. No photograph was used for training or tuning.",
        f"- Targets: face-up tiles at least {tr['min_visible']} visible (or cut by the frame); "
        "face-up tiles less visible are not scored; face-down tiles, hands, markers are "
        "background. Which tile shows at a pixel comes from the ground truth (top faces "
        "painted lower layers first, far to near, hands over all).",
        *([f"- Fine-tuned, not trained from scratch: started from the model with sha256 "
           f"`{meta['init']['sha256']}` ({meta['init'].get('note', 'see Rebuild')}), whose "
           "batch norms the export had folded into its convolutions (loaded as identity batch "
           "norms carrying the folded bias; their statistics stay frozen while their scale and "
           "shift learn), on the samples below (its own training data and the additions)."]
          if meta.get("init") else []),
        f"- Training: AdamW, one-cycle learning rate {meta['lr']}, batch {meta['batch']}, "
        "weighted BCE + soft dice (kernel counted twice), quarter turns, mirrors, brightness, "
        f"contrast and colour gains; {fit['epochs_run']} epochs, {fit['steps']} steps, "
        f"{fit['seconds']} s on "
        + ("a 2-core CPU shared with other jobs" if fit.get("device", "cpu") == "cpu"
           else f"one {fit['device']} GPU (samples held and augmented there)")
        + "; losses per epoch "
        f"{fit['loss_per_epoch']}. Seed {meta['seed']} (`torch.manual_seed`, per-sample "
        "generators `np.random.default_rng((seed, split, index, kind))`).",
        "",
        "## Measured",
        "",
        f"- Pixel IoU (probability >= 0.5 vs target >= 0.5), validation split "
        f"({rend['heldout_seeds']}, {px['heldout']['samples']} crops): kernel "
        f"{px['heldout']['kernel_iou']}, face {px['heldout']['face_iou']}; first 400 training "
        f"crops: kernel {px['train_sample']['kernel_iou']}, face {px['train_sample']['face_iou']}"
        + (f"; decorated held-out scenes ({rend['heldout_decor_seeds']}, "
           f"{px['heldout_decor']['samples']} crops): kernel {px['heldout_decor']['kernel_iou']}, "
           f"face {px['heldout_decor']['face_iou']}" if "heldout_decor" in px else "")
        + (f"; small-tile close-ups ({rend['heldout_small_seeds']}, "
           f"{px['heldout_small']['samples']} pictures): kernel "
           f"{px['heldout_small']['kernel_iou']}, face {px['heldout_small']['face_iou']}"
           if "heldout_small" in px else "")
        + (f"; phone close-ups ({rend['heldout_phone_seeds']}, "
           f"{px['heldout_phone']['samples']} pictures): kernel "
           f"{px['heldout_phone']['kernel_iou']}, face {px['heldout_phone']['face_iou']}"
           if "heldout_phone" in px else "") + ".",
    ]
    for line in meta.get("reader_figures", []):
        lines.append(f"- {line}")
    lines += [
        "",
        "## Limitations",
        "",
    ]
    lines += [f"- {line}" for line in meta.get("limitations", [])]
    lines += [
        "",
        "## Rebuild",
        "",
        "```",
        ("pip install torch==2.13.0 && pip install -e '.[train]'"
         if "--device cuda" not in meta["training_command"] else
         f"# a CUDA build of torch (this model: {meta['torch']}) on a machine with a GPU\n"
         "pip install -e '.[train]'"),
        *([f"mkdir -p {Path(meta['init']['path']).parent} && git show "
           f"{meta['init']['commit']}:{meta['init'].get('file', 'models/tile_finder.onnx')} "
           f"> {meta['init']['path']}"]
          if meta.get("init", {}) and meta["init"].get("commit") else []),
        meta["training_command"] + " --cache runs/tile_finder",
        "```",
        "",
        "`--cache` keeps the rendered samples; the same seed and renderer commit give the same "
        "samples. Torch is used only here; the project serves the model with onnxruntime.",
        "",
    ]
    return "\n".join(lines)


# ----------------------------------------------------------------------------- main


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=7, help="seed of everything random")
    parser.add_argument("--scenes", type=int, default=1400, help="training scenes to render")
    parser.add_argument("--crops", type=int, default=4, help="crops per training scene")
    parser.add_argument("--closeups", type=int, default=800, help="training close-ups")
    parser.add_argument("--heldout-scenes", type=int, default=60, help="validation scenes")
    parser.add_argument("--heldout-closeups", type=int, default=60, help="validation close-ups")
    parser.add_argument("--extra-scenes", type=int, default=0,
                        help="extra training scenes aimed at weak spots (board art, hubs, long "
                             "chains, checked cloths; tile_finder_data.extra_constraints)")
    parser.add_argument("--heldout-decor", type=int, default=0,
                        help="held-out validation scenes with board art (measured apart)")
    parser.add_argument("--small-closeups", type=int, default=0,
                        help="training close-ups of one to four small pale tiles "
                             "(vision.render.closeup.render_small_closeup)")
    parser.add_argument("--heldout-small", type=int, default=0,
                        help="held-out small-tile close-ups (measured apart)")
    parser.add_argument("--phone-closeups", type=int, default=0,
                        help="training phone close-ups of one tile, blank-heavy, small to large "
                             "(vision.render.closeup.render_phone_closeup)")
    parser.add_argument("--heldout-phone", type=int, default=0,
                        help="held-out phone close-ups (measured apart)")
    parser.add_argument("--focus-scenes", type=int, default=0,
                        help="training scenes of the families the finder misses (coloured tiles "
                             "on felt, small tiles in chains, small pale tiles on pale tables; "
                             "tile_finder_data.focus_constraints)")
    parser.add_argument("--blank-scenes", type=int, default=0,
                        help="blank-heavy training scenes with face-down boneyards (double "
                             "blanks and blank halves; tile_finder_data.blank_constraints)")
    parser.add_argument("--init", type=Path, default=None,
                        help="fine-tune: start from this exported tile_finder.onnx (batch norm "
                             "statistics frozen) instead of random weights")
    parser.add_argument("--init-sha256", default=None,
                        help="with --init: the sha256 the starting model must have")
    parser.add_argument("--snapshot-from", type=int, default=0,
                        help="export each epoch's network from this epoch on to "
                             "--out/snapshots/epoch_<n>.onnx (0: none)")
    parser.add_argument("--epochs", type=int, default=5)
    parser.add_argument("--batch", type=int, default=16)
    parser.add_argument("--lr", type=float, default=3e-3)
    parser.add_argument("--budget", type=float, default=1800.0,
                        help="stop training after the epoch that passes this many seconds")
    parser.add_argument("--device", default="cpu",
                        help="where to train: cpu, cuda or auto (cuda when torch sees a GPU); "
                             "the samples are held and augmented on it")
    parser.add_argument("--width", type=float, default=1.0,
                        help="channel multiplier of the network (1: channels "
                             f"{list(CHANNELS)}; each level rounded to whole channels)")
    parser.add_argument("--threads", type=int, default=1,
                        help="torch CPU threads (1: on a shared 2-core machine a second thread "
                             "mostly waits)")
    parser.add_argument("--workers", type=int, default=2, help="processes rendering scenes")
    parser.add_argument("--data-only", action="store_true", help="render the samples and stop")
    parser.add_argument("--card-only", action="store_true",
                        help="rewrite NAME.md from NAME.json in --out and stop")
    parser.add_argument("--out", type=Path, default=HERE, help="folder to write the model to")
    parser.add_argument("--name", default="tile_finder",
                        help="file name (no suffix) of the model, its metadata and card: "
                             "tile_finder (the table network) or tile_finder_closeup (the "
                             "close-up network, vision.tile_finder.CLOSE_UP_MODEL_NAME)")
    parser.add_argument("--cache", type=Path, default=None, help="folder keeping the samples")
    args = parser.parse_args(argv)
    if args.card_only:
        meta = json.loads((args.out / f"{args.name}.json").read_text())
        (args.out / f"{args.name}.md").write_text(card_text(meta))
        return
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    started = time.perf_counter()
    skipped: list[str] = []
    train_data = load_or_make(args, False, skipped)
    first_train = Samples(train_data.images[:400], train_data.targets[:400])
    if args.extra_scenes:
        extra = load_or_make(args, False, skipped, "extra")
        train_data = Samples(np.concatenate([train_data.images, extra.images]),
                             np.concatenate([train_data.targets, extra.targets]))
        del extra
    if args.focus_scenes:
        focus = load_or_make(args, False, skipped, "focus")
        train_data = Samples(np.concatenate([train_data.images, focus.images]),
                             np.concatenate([train_data.targets, focus.targets]))
        del focus
    if args.blank_scenes:
        blank = load_or_make(args, False, skipped, "blank")
        train_data = Samples(np.concatenate([train_data.images, blank.images]),
                             np.concatenate([train_data.targets, blank.targets]))
        del blank
    if args.small_closeups:
        small = load_or_make(args, False, skipped, "small")
        train_data = Samples(np.concatenate([train_data.images, small.images]),
                             np.concatenate([train_data.targets, small.targets]))
        del small
    if args.phone_closeups:
        phone = load_or_make(args, False, skipped, "phone")
        train_data = Samples(np.concatenate([train_data.images, phone.images]),
                             np.concatenate([train_data.targets, phone.targets]))
        del phone
    held = load_or_make(args, True, skipped)
    held_phone = load_or_make(args, True, skipped, "phone") if args.heldout_phone else None
    held_decor = load_or_make(args, True, skipped, "decor") if args.heldout_decor else None
    held_small = load_or_make(args, True, skipped, "small") if args.heldout_small else None
    if args.data_only:
        print(f"train {len(train_data)} samples, held-out {len(held)}", file=sys.stderr)
        return
    if args.width <= 0:
        raise ValueError(f"--width {args.width}: give a positive channel multiplier (1: "
                         f"channels {list(CHANNELS)})")
    device = pick_device(args.device)
    channels = tuple(max(1, round(c * args.width)) for c in CHANNELS)
    net = TileFinderNet(channels)
    init_sha = None
    if args.init is not None:
        init_sha = load_onnx_weights(net, args.init)
        if args.init_sha256 and init_sha != args.init_sha256:
            raise ValueError(f"--init {args.init} has sha256 {init_sha}, not the "
                             f"--init-sha256 {args.init_sha256} asked for")
        base_figures = {"heldout": pixel_figures(net, held)}
        if held_small is not None:
            base_figures["heldout_small"] = pixel_figures(net, held_small)
        if held_phone is not None:
            base_figures["heldout_phone"] = pixel_figures(net, held_phone)
        print(f"starting model {init_sha}: {json.dumps(base_figures)}", file=sys.stderr)
    snaps = (args.out / "snapshots", args.snapshot_from) if args.snapshot_from else None
    fit = train(net, train_data, args.epochs, args.seed, args.batch, args.lr, args.budget, snaps,
                freeze_bn=args.init is not None, device=device)
    figures = {"heldout": pixel_figures(net, held), "train_sample": pixel_figures(
        net, first_train)}
    if held_decor is not None:
        figures["heldout_decor"] = pixel_figures(net, held_decor)
    if held_small is not None:
        figures["heldout_small"] = pixel_figures(net, held_small)
    if held_phone is not None:
        figures["heldout_phone"] = pixel_figures(net, held_phone)
    print(json.dumps(figures), file=sys.stderr)
    args.out.mkdir(parents=True, exist_ok=True)
    onnx_path = args.out / f"{args.name}.onnx"
    export(net, onnx_path)
    kept = {k: v for k, v in vars(args).items()
            if k not in ("out", "cache", "workers", "data_only", "card_only", "snapshot_from")
            and not (k in ("init", "init_sha256") and v is None)
            and not (k == "device" and v == "cpu") and not (k == "width" and v == 1.0)
            and not (k == "name" and v == "tile_finder")}
    if args.init is not None:
        kept["init_sha256"] = init_sha
    command = "python models/train_tile_finder.py " + " ".join(
        f"--{k.replace('_', '-')} {v}" for k, v in kept.items())
    meta = {
        "model": onnx_path.name,
        "sha256": hashlib.sha256(onnx_path.read_bytes()).hexdigest(),
        "bytes": onnx_path.stat().st_size,
        "weights": int(sum(p.numel() for p in net.parameters())),
        "channels": list(channels),
        "input": {"name": "image", "shape": [1, 3, "H", "W"], "dtype": "float32",
                  "meaning": "BGR 0..255, H and W multiples of 16 (pad at the bottom/right)",
                  "work_side": WORK_SIDE, "close_up_side": CLOSE_UP_SIDE},
        "output": {"name": "maps", "shape": [1, 2, "H/2", "W/2"],
                   "meaning": "sigmoid probabilities: 0 kernel (top face shrunk to "
                              f"{KERNEL_SHRINK} of its length and width), 1 visible top face"},
        "kernel_shrink": KERNEL_SHRINK,
        "seed": args.seed,
        "lr": args.lr,
        "batch": args.batch,
        "training_command": command,
        "init": ({"sha256": init_sha, "path": str(args.init)} if init_sha else None),
        "training": {"scenes": args.scenes, "crops_per_scene": args.crops,
                     "closeups": args.closeups, "extra_scenes": args.extra_scenes,
                     "extra_mix": EXTRA_MIX, "small_closeups": args.small_closeups,
                     "focus_scenes": args.focus_scenes, "blank_scenes": args.blank_scenes,
                     "blank_double": BLANK_DOUBLE, "blank_half": BLANK_HALF,
                     "small_drawn": list(SMALL_DRAWN), "phone_closeups": args.phone_closeups,
                     "phone_drawn": list(PHONE_DRAWN), "samples": len(train_data), "crop": CROP,
                     "min_visible": MIN_VISIBLE, "fit": fit,
                     "renderer": {"module": "vision.render", "commit": renderer_version(),
                                  "training_seeds": f"0..{args.scenes - 1} (every 5th a "
                                                    "stacking game, every 7th double-15)",
                                  "closeup_seeds": f"500000..{500000 + args.closeups - 1}",
                                  "extra_seeds": f"{EXTRA_SEED0}..{EXTRA_SEED0 + args.extra_scenes - 1}",
                                  "focus_seeds": f"{FOCUS_SEED0}..{FOCUS_SEED0 + args.focus_scenes - 1}",
                                  "blank_seeds": f"{BLANK_SEED0}..{BLANK_SEED0 + args.blank_scenes - 1}",
                                  "small_seeds": (f"{SMALL_CLOSEUP_SEED0}.."
                                                  f"{SMALL_CLOSEUP_SEED0 + args.small_closeups - 1}"),
                                  "phone_seeds": (f"{PHONE_CLOSEUP_SEED0}.."
                                                  f"{PHONE_CLOSEUP_SEED0 + args.phone_closeups - 1}"),
                                  "heldout_phone_seeds": (
                                      f"{HELD_OUT_SEED_MIN + PHONE_CLOSEUP_SEED0}.."
                                      f"{HELD_OUT_SEED_MIN + PHONE_CLOSEUP_SEED0 + args.heldout_phone - 1}"),
                                  "heldout_small_seeds": (
                                      f"{HELD_OUT_SEED_MIN + SMALL_CLOSEUP_SEED0}.."
                                      f"{HELD_OUT_SEED_MIN + SMALL_CLOSEUP_SEED0 + args.heldout_small - 1}"),
                                  "heldout_decor_seeds": (
                                      f"{HELD_OUT_SEED_MIN + HELD_OUT_DECOR_SEED0}.."
                                      f"{HELD_OUT_SEED_MIN + HELD_OUT_DECOR_SEED0 + args.heldout_decor - 1}"
                                      " (held-out looks and motifs, board art on every table)"),
                                  "heldout_seeds": f"1500000..{1500000 + args.heldout_scenes - 1}"
                                                   " (held-out looks), close-ups 1500000.."},
                     "seconds_total": round(time.perf_counter() - started)},
        "skipped": skipped,
        "pixel_figures": figures,
        "torch": torch.__version__,
    }
    (args.out / f"{args.name}.json").write_text(json.dumps(meta, indent=2) + "\n")
    (args.out / f"{args.name}.md").write_text(card_text(meta))
    print(f"wrote {onnx_path} ({meta['bytes']} bytes)")


if __name__ == "__main__":
    main()
