"""The tile finder's training script (models/train_tile_finder.py): fine-tuning starts from an
exported model exactly."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")
onnx = pytest.importorskip("onnx")

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "models"))
import train_tile_finder as ttf  # noqa: E402

from vision.onnx_session import open_session  # noqa: E402


def _run(path: Path, x: np.ndarray) -> np.ndarray:
    session = open_session(path, 1, RuntimeError, "test")
    return session.run(None, {"image": x})[0]


def test_a_network_loaded_from_an_export_computes_what_the_export_does(tmp_path) -> None:
    torch.manual_seed(3)
    net = ttf.TileFinderNet()
    with torch.no_grad():  # batch norms with statistics of their own, as after training
        for m in net.modules():
            if isinstance(m, torch.nn.BatchNorm2d):
                m.running_mean.uniform_(-0.5, 0.5)
                m.running_var.uniform_(0.5, 2.0)
                m.weight.uniform_(0.5, 1.5)
                m.bias.uniform_(-0.2, 0.2)
    first = tmp_path / "first.onnx"
    ttf.export(net, first)
    loaded = ttf.TileFinderNet()
    sha = ttf.load_onnx_weights(loaded, first)
    again = tmp_path / "again.onnx"
    ttf.export(loaded, again)
    x = np.random.default_rng(0).uniform(0, 255, (1, 3, 64, 96)).astype(np.float32)
    assert len(sha) == 64
    assert np.abs(_run(first, x) - _run(again, x)).max() < 1e-5
    # trained with frozen batch norms, the loaded network starts where the export is
    loaded.train()
    for m in loaded.modules():
        if isinstance(m, torch.nn.BatchNorm2d):
            m.eval()
    with torch.no_grad():
        p = torch.sigmoid(loaded((torch.from_numpy(x) - ttf.MEAN) / ttf.STD)).numpy()
    assert np.abs(p - _run(first, x)).max() < 1e-4


def test_a_model_of_another_shape_is_refused_by_name(tmp_path) -> None:
    small = ttf.TileFinderNet(channels=(8, 16, 24, 32))
    path = tmp_path / "other.onnx"
    ttf.export(small, path)
    with pytest.raises(ValueError, match="other.onnx"):
        ttf.load_onnx_weights(ttf.TileFinderNet(), path)
    with pytest.raises(FileNotFoundError, match="missing.onnx"):
        ttf.load_onnx_weights(ttf.TileFinderNet(), tmp_path / "missing.onnx")


def test_an_unknown_device_is_refused_naming_the_choices() -> None:
    with pytest.raises(ValueError, match="'cpu', 'cuda' or 'auto'"):
        ttf.pick_device("tpu")
    assert ttf.pick_device("cpu").type == "cpu"


def test_training_holds_its_samples_on_the_device_and_leaves_the_network_there() -> None:
    rng = np.random.default_rng(1)
    data = ttf.Samples(rng.integers(0, 256, (4, 32, 32, 3), dtype=np.uint8),
                       rng.integers(0, 256, (4, 3, 16, 16), dtype=np.uint8))
    torch.manual_seed(0)
    net = ttf.TileFinderNet(channels=(4, 6, 8, 10))
    fit = ttf.train(net, data, 1, 0, 2, 1e-3, 60.0, device=ttf.pick_device("cpu"))
    assert fit["steps"] == 2 and fit["device"] == "cpu" and len(fit["loss_per_epoch"]) == 1
    figures = ttf.pixel_figures(net, data)
    assert figures["samples"] == 4 and 0.0 <= figures["kernel_iou"] <= 1.0
