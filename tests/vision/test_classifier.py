"""vision.classifier: the shipped ONNX pip classifier loads, checks its input and reads
rendered held-out tiles; its metadata matches the file. No torch needed."""

from __future__ import annotations

import hashlib
import json

import numpy as np
import pytest

from domino_models import model_path
from vision.classifier import (NUM_CLASSES, ClassifierError, ModelMissingError, PipClassifier)
from vision.halves import HALF_SIZE, tile_crops
from vision.render import HELD_OUT_SEED_MIN, random_scene_spec, render_scene


@pytest.fixture(scope="module")
def classifier() -> PipClassifier:
    return PipClassifier()


def test_probabilities_have_one_row_per_half_and_sum_to_one(classifier):
    crops = np.random.default_rng(3).uniform(-0.5, 1.5, (7, HALF_SIZE, HALF_SIZE))
    probabilities = classifier.predict(crops.astype(np.float32))
    assert probabilities.shape == (7, NUM_CLASSES) and probabilities.dtype == np.float32
    np.testing.assert_allclose(probabilities.sum(axis=1), 1.0, atol=1e-5)
    assert classifier.predict(np.zeros((0, HALF_SIZE, HALF_SIZE), np.float32)).shape == (0, 16)


def test_a_blank_square_reads_zero(classifier):
    values, confidences = classifier.classify(np.zeros((1, HALF_SIZE, HALF_SIZE), np.float32))
    assert values.tolist() == [0] and confidences[0] > 0.5


@pytest.mark.parametrize("crops, message", [
    (np.zeros((2, 1, HALF_SIZE, HALF_SIZE), np.float32), "shape"),
    (np.zeros((2, 32, 32), np.float32), "shape"),
    (np.zeros((2, HALF_SIZE, HALF_SIZE), np.float64), "float32"),
    ([[0.0]], "numpy array"),
])
def test_bad_input_raises_a_clear_error(classifier, crops, message):
    with pytest.raises(ClassifierError, match=message):
        classifier.predict(crops)


def test_a_missing_model_file_says_so(tmp_path):
    with pytest.raises(ModelMissingError, match="no pip classifier model"):
        PipClassifier(tmp_path / "nothing.onnx")
    with pytest.raises(ClassifierError, match="threads"):
        PipClassifier(threads=0)


def test_a_file_that_is_not_a_model_is_refused(tmp_path):
    bad = tmp_path / "bad.onnx"
    bad.write_bytes(b"not a model")
    with pytest.raises(ClassifierError, match="not a loadable ONNX model"):
        PipClassifier(bad)


def test_reads_the_halves_of_held_out_rendered_scenes(classifier):
    right = total = 0
    for seed in (HELD_OUT_SEED_MIN + 3, HELD_OUT_SEED_MIN + 11, HELD_OUT_SEED_MIN + 27):
        scene = render_scene(random_scene_spec(seed, held_out=True))
        tiles = [t for t in scene.truth["tiles"]
                 if t["face_up"] and t["visible"] >= 0.9 and not t["cut"]]
        crops = tile_crops(scene.image_bgr, [t["corners"] for t in tiles])
        values, _ = classifier.classify(crops)
        truth = np.array([h for t in tiles for h in t["halves"]])
        right += int((values == truth).sum())
        total += len(truth)
    assert total >= 40
    assert right / total >= 0.98, f"{right} of {total} halves read right"


def test_metadata_matches_the_shipped_model():
    meta = json.loads(model_path("pip_classifier.json").read_text())
    onnx_bytes = model_path("pip_classifier.onnx").read_bytes()
    assert meta["sha256"] == hashlib.sha256(onnx_bytes).hexdigest()
    assert meta["bytes"] == len(onnx_bytes) < 5_000_000
    assert meta["classes"] == list(range(NUM_CLASSES))
    assert meta["input"]["shape"] == ["N", HALF_SIZE, HALF_SIZE]
    assert "train_pip_classifier.py" in meta["training_command"]
