"""The layer cue's training script (``models/train_layer_cue.py``): its ordinal outputs and its
cache of rendered scenes."""

from __future__ import annotations

import json

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from models import train_layer_cue as tlc  # noqa: E402


def test_ordinal_logits_give_probabilities_of_each_count() -> None:
    """P(>=1), P(>=2), P(>=3) become P(0), P(1), P(2), P(3+): rows sum to 1, none negative
    even where the network's "at least" probabilities are not in order."""
    logits = torch.tensor([[4.0, 0.0, -4.0], [-4.0, -4.0, -4.0], [0.0, 3.0, 5.0]])
    p = tlc.class_probs(logits, ordinal=True).numpy()
    assert p.shape == (3, 4) and np.allclose(p.sum(1), 1.0, atol=1e-6) and (p >= 0).all()
    s = 1 / (1 + np.exp(-4.0))
    assert p[0] == pytest.approx([1 - s, s - 0.5, 0.5 - (1 - s), 1 - s], abs=1e-6)
    assert p[1].argmax() == 0
    # out of order (P(>=3) > P(>=1)): capped by the lower counts
    assert p[2] == pytest.approx([0.5, 0.0, 0.0, 0.5], abs=1e-6)
    soft = tlc.class_probs(torch.zeros(2, 4), ordinal=False).numpy()
    assert np.allclose(soft, 0.25)


def test_cache_shards_are_refused_when_they_hold_other_scenes(tmp_path) -> None:  # type: ignore[no-untyped-def]
    scenes = [{"kind": "stacked", "seed": s, "png": np.zeros(3, np.uint8),
               "quads": np.zeros((0, 4, 2), np.float32), "labels": np.zeros(0, np.int64),
               "cut": np.zeros(0, bool)} for s in (10, 11)]
    path = tmp_path / "stacked_10.npz"
    tlc.save_shard(path, scenes)
    back = tlc.load_shard(path, "stacked", range(10, 12))
    assert [d["seed"] for d in back] == [10, 11] and back[0]["quads"].shape == (0, 4, 2)
    with pytest.raises(SystemExit, match="not flat 10-11"):
        tlc.load_shard(path, "flat", range(10, 12))
    with pytest.raises(SystemExit, match="not stacked 10-12"):
        tlc.load_shard(path, "stacked", range(10, 13))
    meta = json.loads(bytes(np.load(path)["meta"]).decode())
    assert meta == [{"kind": "stacked", "seed": 10}, {"kind": "stacked", "seed": 11}]


def test_split_keeps_the_last_share_of_each_range_for_tuning() -> None:
    scenes = [{"kind": "stacked", "seed": s} for s in range(100, 120)] + \
             [{"kind": "flat", "seed": s} for s in range(500, 510)]
    train, tune = tlc.split(scenes, 0.15, (100, 20), (500, 10))
    assert [d["seed"] for d in tune] == [117, 118, 119, 508, 509]
    assert len(train) == 25


def test_decode_gives_the_crops_tile_crops_makes() -> None:
    """uint8-coded crops decode to the picture less 0.5 and masks of 0 or 1."""
    x = np.zeros((1, 5, 2, 2), np.uint8)
    x[0, :3] = 255
    x[0, 3:, 0, 0] = 255  # mask 1 is coded 255, mask 0 is coded 128
    x[0, 3:, 1, 1] = 128
    f = tlc._decode(torch.from_numpy(x)).numpy()
    assert f.dtype == np.float32 and np.allclose(f[0, :3], 0.5)
    assert f[0, 3, 0, 0] == 1.0 and f[0, 3, 1, 1] == 0.0 and f[0, 4, 0, 0] == 1.0


def test_a_wider_network_trains_and_exports_on_the_cpu(  # type: ignore[no-untyped-def]
        tmp_path) -> None:
    """``width`` multiplies the channels; the trained network comes back on the CPU in eval
    mode, gives one row of 4 probabilities per crop, and exports to ONNX at its crop size."""
    rng = np.random.default_rng(0)
    x = rng.integers(0, 256, (24, 5, 32, 32), dtype=np.uint8)
    y = np.arange(24) % 4
    net = tlc.train(x, y, epochs=1, seed=3, ordinal=True, spatial=True, log=lambda _: None,
                    width=2, batch=8, device="cpu")
    assert not net.training and next(net.parameters()).device.type == "cpu"
    assert net.features[0][0].out_channels == 32
    p = tlc.predict(net, x, ordinal=True)
    assert p.shape == (24, 4) and np.allclose(p.sum(1), 1.0, atol=1e-5)
    pytest.importorskip("onnx")
    tlc.export(net, tmp_path / "cue.onnx", 32, ordinal=True)
    from vision.layer_cue import LayerCue

    cue = LayerCue(tmp_path / "cue.onnx")
    assert cue.crop == 32
    got = cue.predict(tlc._decode(torch.from_numpy(x[:3])).numpy())
    assert np.allclose(got, p[:3], atol=1e-4)


def test_the_smoothing_augmentation_is_the_readers_smoothed_view() -> None:
    """``median5`` on the GPU-side tensors gives exactly what ``vision.layer_cue.smoothed_view``
    gives with OpenCV (the second view the reader asks about), border included."""
    from vision.layer_cue import smoothed_view

    rng = np.random.default_rng(3)
    crops = rng.random((2, 5, 23, 23)).astype(np.float32) - 0.5
    want = smoothed_view(crops)[:, :3]
    got = tlc.median5(torch.from_numpy(crops[:, :3])).numpy()
    assert np.array_equal(got, want)


def test_the_table_augmentations_are_seeded_and_off_by_default() -> None:
    """With ``smooth`` and ``noise`` at 0 the batches (and so the weights) are those of before;
    with them on, two runs of one seed give the same weights, and other weights than off."""
    rng = np.random.default_rng(4)
    x = rng.integers(0, 256, (48, 5, 32, 32)).astype(np.uint8)
    y = rng.integers(0, 4, 48)

    def weights(**aug: float) -> np.ndarray:
        net = tlc.train(x, y, 1, 5, ordinal=True, spatial=True, log=lambda _: None, batch=16,
                        **aug)
        return np.concatenate([p.detach().numpy().ravel() for p in net.parameters()])

    off = weights()
    assert np.array_equal(off, weights(smooth=0.0, noise=0.0))
    on = weights(smooth=0.5, noise=0.06)
    assert np.array_equal(on, weights(smooth=0.5, noise=0.06))
    assert not np.allclose(on, off)
    grain = tlc.grain(3, 9, 0.05, torch.Generator().manual_seed(1), "cpu")
    assert grain.shape == (3, 1, 9, 9) and float(grain.abs().max()) <= 0.05 * 6
