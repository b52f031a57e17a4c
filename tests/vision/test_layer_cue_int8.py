"""The layer cue is served as its 8-bit conversion (``models/quantize_layer_cue.py``): the file
the reader opens is the one the card names, made from the trained float network, and it answers
as that network does within the quantization's error."""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from vision.layer_cue import FLOAT_MODEL_NAME, MODEL_NAME, LayerCue, default_model_path, tile_crops

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "models" / "quantize_layer_cue.py"


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_the_reader_serves_the_8_bit_file_the_card_names_made_from_the_trained_one() -> None:
    served = LayerCue().path
    assert served.name == MODEL_NAME == "layer_cue_int8.onnx"
    trained = served.with_name(FLOAT_MODEL_NAME)
    meta = json.loads(served.with_name("layer_cue.json").read_text())
    assert meta["sha256"] == _sha(trained)          # the trained network the card describes
    assert meta["int8"]["sha256"] == _sha(served)   # the file served is the one the card names
    assert meta["int8"]["from_sha256"] == _sha(trained)
    card = served.with_name("layer_cue.md").read_text()
    assert meta["int8"]["sha256"] in card and "## Served as 8-bit integers" in card


def test_the_8_bit_cue_answers_as_the_trained_one_on_stacked_scenes() -> None:
    """On the rendered tiles of training-seed stacked scenes (not calibration scenes): P(raised)
    within 0.1 of the float network's for every tile, the same likeliest count for nearly all."""
    from vision.render.scene import render_scene
    from vision.render.stacking import stacked_scene_spec

    crops = []
    for seed in range(321, 325):
        scene = render_scene(stacked_scene_spec(seed))
        quads = [np.array(t["corners"]) for t in scene.truth["tiles"]
                 if t["face_up"] and t["visible"] > 0.5]
        crops.append(tile_crops(scene.image_bgr, quads))
    crops = np.concatenate(crops)
    p8 = LayerCue().predict(crops)
    pf = LayerCue(default_model_path().with_name(FLOAT_MODEL_NAME)).predict(crops)
    assert len(crops) >= 12
    assert np.abs(p8[:, 0] - pf[:, 0]).max() <= 0.1
    assert (p8.argmax(1) == pf.argmax(1)).mean() >= 0.85
    assert not np.array_equal(p8, pf)  # it is not the float file under another name


def test_the_quantize_script_rebuilds_the_served_file_and_its_card_entry(tmp_path) -> None:  # type: ignore[no-untyped-def]
    models = ROOT / "models"
    for name in (FLOAT_MODEL_NAME, "layer_cue.json"):
        shutil.copy(models / name, tmp_path / name)
    done = subprocess.run([sys.executable, str(SCRIPT), "--out", str(tmp_path), "--scenes", "4",
                           "--check-scenes", "2"], capture_output=True, text=True, cwd=tmp_path,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    made = tmp_path / MODEL_NAME
    meta = json.loads((tmp_path / "layer_cue.json").read_text())["int8"]
    assert meta["sha256"] == _sha(made) and meta["from_sha256"] == _sha(tmp_path / FLOAT_MODEL_NAME)
    assert meta["command"].endswith("--check-scenes 2") and meta["crops"] > 0
    assert LayerCue(made).crop == LayerCue().crop
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        [FLOAT_MODEL_NAME, MODEL_NAME, "layer_cue.json", "layer_cue.md"])  # no helper files left


@pytest.mark.parametrize("args, message", [
    (["--seed", "1000000"], "training seeds"),
    (["--seed", "190", "--scenes", "20", "--check-seed", "200"], "overlap"),
])
def test_the_quantize_script_refuses_held_out_or_shared_seeds(tmp_path, args, message) -> None:  # type: ignore[no-untyped-def]
    shutil.copy(ROOT / "models" / FLOAT_MODEL_NAME, tmp_path / FLOAT_MODEL_NAME)
    done = subprocess.run([sys.executable, str(SCRIPT), "--out", str(tmp_path), *args],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and message in done.stderr
    assert not (tmp_path / MODEL_NAME).exists()


def test_without_the_quantization_tool_the_script_says_what_to_install(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import importlib.util

    spec = importlib.util.spec_from_file_location("quantize_layer_cue", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    monkeypatch.setitem(sys.modules, "onnxruntime.quantization", None)  # import fails
    with pytest.raises(ValueError, match=r"pip install -e '\.\[train\]'"):
        module.quantize(Path("in.onnx"), Path("out.onnx"), np.zeros((1, 5, 8, 8), np.float32))
