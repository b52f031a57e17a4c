"""Pip reading: the classical reader, the pooled PipReader (with a fake classifier)."""

from __future__ import annotations

import numpy as np
import pytest
import reader_synth as synth

from vision.halves import half_crops, tile_crops_washed
from vision.pips import (PipReader, PipReadError, TileValue, best_of_outlines, hidden_pips,
                         layout_squares, pool, tile_values)
from vision.virtual_camera import add_glare
from vision.pips_classical import CropError, read_halves


@pytest.mark.parametrize("a,b", [(0, 1), (2, 3), (4, 5), (6, 6), (7, 8), (9, 0)])
@pytest.mark.parametrize("angle", [0, 63, 200])
def test_classical_reads_drawn_halves(a, b, angle):
    img = synth.table(200, 200, seed=a * 10 + b)
    corners = synth.draw_tile(img, (100, 100), angle, 40, (a, b))
    probs = read_halves(half_crops(img, corners))
    assert probs.shape == (2, 16)
    np.testing.assert_allclose(probs.sum(axis=1), 1.0, rtol=1e-6)
    assert list(probs.argmax(axis=1)) == [a, b]


def test_classical_rejects_what_is_not_crops():
    with pytest.raises(CropError, match="expected a \\(N, S, S\\)"):
        read_halves(np.zeros((48, 48)))


def test_classical_batch_matches_one_half_at_a_time_and_numpys_median():
    from vision.pips_classical import _median, read_half
    img = synth.table(300, 200, seed=5)
    corners = [synth.draw_tile(img, (80, 100), 30, 40, (5, 9)),
               synth.draw_tile(img, (220, 100), 110, 40, (0, 8))]
    crops = np.concatenate([half_crops(img, c) for c in corners])
    batch = read_halves(crops)
    assert np.array_equal(batch, np.stack([read_half(c) for c in crops]))
    assert list(batch.argmax(axis=1)) == [5, 9, 0, 8]
    rng = np.random.default_rng(0)
    for n in range(1, 9):
        values = rng.integers(5, 60, n).astype(float).tolist()
        assert _median(values) == float(np.median(values))


class FakeClassifier:
    """Says every half shows ``value`` with probability ``p``; counts its calls."""

    def __init__(self, value: int, p: float = 0.9) -> None:
        self.value, self.p, self.calls = value, p, []

    def predict(self, crops: np.ndarray) -> np.ndarray:
        self.calls.append(len(crops))
        out = np.full((len(crops), 16), (1 - self.p) / 15)
        out[:, self.value] = self.p
        return out


def _crops(values):
    img = synth.table(100 * len(values), 120, seed=1)
    out = []
    for i, (a, b) in enumerate(values):
        out.append(half_crops(img, synth.draw_tile(img, (50 + 100 * i, 60), 0, 30, (a, b))))
    return img, np.concatenate(out)


def test_all_halves_go_to_the_classifier_in_one_batch():
    fake = FakeClassifier(3)
    _, crops = _crops([(3, 3), (3, 3), (3, 3)])
    values = PipReader(classifier=fake).read_tiles(crops)
    assert fake.calls == [6]
    assert [v.halves for v in values] == [(3, 3)] * 3
    # both agree: the pooled confidence beats either reader alone (the fake says 0.9 a half)
    alone = PipReader(classifier=None).read_tiles(crops)
    assert values[0].confidence > max(alone[0].confidence, 0.9 * 0.9)


def test_disagreement_lowers_confidence_and_ranks_alternatives():
    _, crops = _crops([(2, 5)])
    agree = PipReader(classifier=FakeClassifier(5, 0.6)).read_tiles(crops)[0]
    fake = FakeClassifier(4, 0.6)
    mixed = PipReader(classifier=fake).read_tiles(crops)[0]
    assert mixed.confidence < PipReader(classifier=None).read_tiles(crops)[0].confidence
    probs = [p for _, p in mixed.alternatives]
    assert probs == sorted(probs, reverse=True)
    assert agree.halves[1] == 5


def test_pool_is_a_normalised_log_linear_mix():
    p = np.full((1, 16), 1 / 16)
    q = np.zeros((1, 16))
    q[0, 7] = 1.0
    out = pool(p, q, 1.0, 0.5)
    assert out.argmax() == 7 and out.sum() == pytest.approx(1.0)
    assert pool(p, None) is p
    with pytest.raises(PipReadError, match="expected shape"):
        pool(p, np.zeros((2, 16)))


def test_tile_values_merge_orders_and_respect_the_set():
    probs = np.zeros((2, 16))
    probs[0, [3, 12]] = [0.6, 0.4]
    probs[1, [5]] = [1.0]
    (v,) = tile_values(probs, set_max=15)
    assert v.halves == (3, 5) and v.confidence == pytest.approx(0.6)
    assert v.alternatives[0][0] == "5-12"
    (v6,) = tile_values(probs, set_max=6)
    assert v6.confidence == pytest.approx(1.0)
    with pytest.raises(PipReadError, match="expected shape"):
        tile_values(np.zeros((3, 16)))


def test_reader_options_are_checked():
    with pytest.raises(PipReadError, match="cnn_weight"):
        PipReader(classifier=None, cnn_weight=5.0)
    with pytest.raises(PipReadError, match="classifier"):
        PipReader(classifier="cnn")
    with pytest.raises(PipReadError, match="even number"):
        PipReader(classifier=None).read_tiles(np.zeros((3, 48, 48), np.float32))


def test_a_washed_half_may_hide_pips_but_never_shows_fewer():
    probs = np.zeros((2, 7))
    probs[:, 2] = 1.0
    out = hidden_pips(probs, np.array([0.4, 0.0]))
    np.testing.assert_allclose(out.sum(axis=1), 1.0)
    assert out[0, :2].sum() == 0.0 and out[0, 3:].min() > 0.05  # 2 seen: 2..6 possible
    assert out[0].argmax() == 2 and out[0, 2] < 0.9  # a sure half under glare is not sure
    np.testing.assert_array_equal(out[1], probs[1])
    # the more of the half is blown out, the less sure it is
    kept = [hidden_pips(probs[:1], np.array([w]))[0, 2] for w in (0.03, 0.1, 0.3, 0.8)]
    assert all(a > b for a, b in zip(kept, kept[1:])), kept
    with pytest.raises(PipReadError, match="one per half"):
        hidden_pips(probs, np.array([0.4]))


def test_a_tile_under_glare_is_doubted_and_its_true_value_is_offered():
    """A lamp's glare blows out most of the 6 of a 5-6 (the live bench's case): whatever the
    reader makes of that half, the tile must be doubtful and 5-6 offered."""
    img = synth.table(300, 200, seed=3)
    corners = synth.draw_tile(img, (150, 100), 20, 50, (5, 6), face=(175, 205, 215))
    spot = corners[2:].mean(axis=0) * 0.5 + corners.mean(axis=0) * 0.5
    glared = add_glare(img, (spot[0] / 300, spot[1] / 200), 0.07)
    reader = PipReader()
    crops, washed = tile_crops_washed(glared, [corners])
    assert washed[1] > 0.1 and washed[0] < 0.03
    (value,) = reader.read_tiles(crops, set_max=6, washed=washed)
    offered = {str(value.tile)} | {t for t, _ in value.alternatives}
    assert "5-6" in offered
    if str(value.tile) != "5-6":
        assert value.confidence < 0.9  # the live companion asks below 0.9
    clean, clean_washed = tile_crops_washed(img, [corners])
    (plain,) = reader.read_tiles(clean, set_max=6, washed=clean_washed)
    assert str(plain.tile) == "5-6" and plain.confidence > 0.95


def test_best_of_outlines_keeps_the_most_confident_and_counts_agreement():
    first = TileValue((4, 6), 0.7, (0.8, 0.9), (("3-6", 0.2),))
    moved = [TileValue((3, 6), 0.95, (0.97, 0.98), (("4-6", 0.03),)),
             TileValue((3, 6), 0.9, (0.95, 0.95), ()),
             TileValue((6, 7), 0.2, (0.5, 0.4), ())]
    best = best_of_outlines(first, moved)
    assert best.halves == (3, 6)
    total = 0.7 + 0.95 + 0.9 + 0.2
    assert best.confidence == pytest.approx(0.95 * (0.95 + 0.9) / total)
    assert [t for t, _ in best.alternatives] == ["4-6", "6-7"]
    assert best.alternatives[0][1] == pytest.approx(0.95 * 0.7 / total)  # 4-6 by its share
    probs = [p for _, p in best.alternatives]
    assert probs == sorted(probs, reverse=True)
    agreeing = best_of_outlines(TileValue((3, 6), 0.9, (0.9, 1.0), ()),
                                [TileValue((3, 6), 0.8, (0.9, 0.9), ())])
    assert agreeing.confidence == pytest.approx(0.9) and agreeing.alternatives == ()


class RankingClassifier:
    """Says each half shows ``value`` with the probability written in the crop's top-left
    pixel (so a test sets how confident each outline reads); counts the halves it is given."""

    def __init__(self, value: int) -> None:
        self.value, self.calls = value, []

    def predict(self, crops: np.ndarray) -> np.ndarray:
        self.calls.append(len(crops))
        p = np.clip(crops[:, 0, 0].astype(np.float64), 0.07, 0.99)
        out = np.repeat(((1 - p) / 15)[:, None], 16, axis=1)
        out[:, self.value] = p
        return out


def test_read_shortlist_reads_in_full_only_the_likeliest_outlines_of_each_tile():
    crops = np.zeros((10, 48, 48), np.float32)  # 5 outlines: 3 of tile 0, 2 of tile 4
    for m, p in enumerate([0.3, 0.9, 0.6, 0.2, 0.8]):
        crops[2 * m:2 * m + 2, 0, 0] = p
    fake = RankingClassifier(3)
    out = PipReader(classifier=fake).read_shortlist(crops, [0, 0, 0, 4, 4], 6, keep=2)
    assert sorted(out) == [0, 4] and [len(out[0]), len(out[4])] == [2, 2]
    # all 5 outlines ranked in one call; the 4 read in full (2 a tile) reuse its rows
    assert fake.calls == [10]
    ranked = PipReader(classifier=fake).read_shortlist(crops, [0, 0, 0, 4, 4], 6, keep=1)
    assert [len(ranked[0]), len(ranked[4])] == [1, 1]
    reader = PipReader(classifier=RankingClassifier(3))
    assert ranked[0] == reader.read_tiles(crops[2:4], 6)  # outline 1: 0.9, tile 0's likeliest
    assert ranked[4] == reader.read_tiles(crops[8:10], 6)  # outline 4: 0.8
    with pytest.raises(PipReadError, match="2 halves for each"):
        PipReader(classifier=fake).read_shortlist(crops, [0, 0], 6)


def test_a_sure_wrong_count_does_not_outvote_a_fairly_sure_classifier():
    """The classical counter sure of 1 pip (a blurred or textured half), the classifier giving
    14 pips 0.6 and 1 pip 0.008: the pool keeps 14 (with the old floor 1e-4, 1 won)."""
    p_classical = np.full((1, 16), 1e-9)
    p_classical[0, 1] = 1.0
    p_cnn = np.full((1, 16), (1.0 - 0.6 - 0.008) / 14)
    p_cnn[0, 14], p_cnn[0, 1] = 0.6, 0.008
    assert int(pool(p_classical / p_classical.sum(), p_cnn).argmax()) == 14
    # agreeing readers still give one sharp value
    sharp = pool(p_cnn, p_cnn)
    assert int(sharp.argmax()) == 14 and sharp[0, 14] > p_cnn[0, 14]


def _blob_count(square: np.ndarray) -> int:
    import cv2
    return cv2.connectedComponents((square > 0.5).astype(np.uint8))[0] - 1


def test_layout_squares_show_every_values_pips():
    for value in range(16):
        squares = layout_squares(value)
        assert 1 <= len(squares) <= 3
        for square in squares:
            assert square.shape == (48, 48) and square.dtype == np.float32
            assert _blob_count(square) == value
            # point-symmetric about the square's centre, as every layout is
            np.testing.assert_allclose(square, square[::-1, ::-1], atol=1e-5)
    assert len(layout_squares(2)) == 2  # the diagonal either way
    assert layout_squares(5) is layout_squares(5)  # cached
    with pytest.raises(PipReadError, match="0..15"):
        layout_squares(16)


def test_read_hidden_checks_its_inputs():
    reader = PipReader(classifier=None)
    squares = np.zeros((2, 48, 48), np.float32)
    with pytest.raises(PipReadError, match="one \\(N, S, S\\) shape"):
        reader.read_hidden(squares, np.zeros((2, 48, 48), bool), squares[:1])
    with pytest.raises(PipReadError, match="set_max"):
        reader.read_hidden(squares, np.zeros((2, 48, 48), bool), squares, 16)
    probs, used, _ = reader.read_hidden(squares, np.zeros((2, 48, 48), bool), squares, 6)
    assert not used.any()  # nothing hidden: the mirrored squares' reading
    np.testing.assert_allclose(probs, reader.half_probabilities(squares))
