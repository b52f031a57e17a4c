"""The learned layer cue (:mod:`vision.layer_cue`): its crops, its model and how
:func:`vision.layers.estimate_layers` uses it."""

from __future__ import annotations

import functools
import warnings

import numpy as np
import pytest
from layer_shapes import draw_tile, rect

from vision import layer_cue, layers
from vision.layer_cue import (
    CHANNELS,
    CROP,
    NUM_CLASSES,
    LayerCue,
    LayerCueError,
    smoothed_view,
    tile_crops,
)
from vision.layers import READER_OUTLINE_PX, estimate_layers


def test_crops_are_centred_on_the_tile_with_its_mask_and_the_others() -> None:
    frame = np.full((300, 400, 3), 60, np.uint8)
    a, b, far = rect(150, 150, 100, 50, 0), rect(260, 150, 100, 50, 90), rect(380, 30, 20, 10, 0)
    for q in (a, b, far):
        draw_tile(frame, q)
    crops = tile_crops(frame, [a, b, far])
    assert crops.shape == (3, CHANNELS, CROP, CROP) and crops.dtype == np.float32
    mine, others = crops[0, 3], crops[0, 4]
    assert set(np.unique(mine)) == {0.0, 1.0} and mine[CROP // 2, CROP // 2] == 1.0
    # the tile's long side is 1 / SPAN of the crop
    cols = np.nonzero(mine[CROP // 2])[0]
    assert abs((cols[-1] - cols[0] + 1) / CROP - 1 / layer_cue.SPAN) < 0.05
    assert others.sum() > 0 and (others * mine).sum() == 0  # b is beside a, not on it
    # the picture: the tile's face (225 grey) in the middle, the table (60) in the corner
    assert crops[0, :3, CROP // 2, CROP // 2].mean() == pytest.approx(225 / 255 - 0.5, abs=0.02)
    assert crops[0, :3, 0, 0].mean() == pytest.approx(60 / 255 - 0.5, abs=0.02)
    only = tile_crops(frame, [a, b, far], which=[1])
    assert np.array_equal(only[0], crops[1])
    assert tile_crops(frame, []).shape == (0, CHANNELS, CROP, CROP)


def test_crops_of_another_side_keep_the_same_framing() -> None:
    """``size`` changes only the crop's pixels: the tile's long side is still 1 / SPAN of it."""
    frame = np.full((300, 400, 3), 60, np.uint8)
    a = rect(150, 150, 100, 50, 0)
    draw_tile(frame, a)
    big = tile_crops(frame, [a], size=112)
    assert big.shape == (1, CHANNELS, 112, 112)
    cols = np.nonzero(big[0, 3, 56])[0]
    assert abs((cols[-1] - cols[0] + 1) / 112 - 1 / layer_cue.SPAN) < 0.05
    assert big[0, :3, 56, 56].mean() == pytest.approx(225 / 255 - 0.5, abs=0.02)
    for bad in (8, 80.0, True, 1000):
        with pytest.raises(LayerCueError, match="crop side of 16..512"):
            tile_crops(frame, [a], size=bad)  # type: ignore[arg-type]


def test_the_model_says_its_crop_side_and_is_given_crops_of_it(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """A model taking 48-pixel crops gets 48-pixel crops from :meth:`LayerCue.under`; crops of
    another side are refused naming the side it takes."""
    torch = pytest.importorskip("torch")
    pytest.importorskip("onnx")  # torch.onnx.export needs it (the `train` extra)

    class Tiny(torch.nn.Module):
        def forward(self, x):  # type: ignore[no-untyped-def]
            m = x.mean((2, 3))
            return torch.softmax(m[:, :NUM_CLASSES], 1)

    path = tmp_path / "tiny.onnx"
    with warnings.catch_warnings():  # torch's note that this exporter is the older one
        warnings.simplefilter("ignore", DeprecationWarning)
        torch.onnx.export(Tiny(), torch.zeros(1, CHANNELS, 48, 48), str(path),
                          input_names=["crops"], output_names=["probabilities"],
                          opset_version=17, dynamo=False, dynamic_axes={"crops": {0: "N"}})
    cue = LayerCue(path)
    assert cue.crop == 48
    frame = np.full((200, 300, 3), 60, np.uint8)
    q = rect(150, 100, 90, 45, 20)
    draw_tile(frame, q)
    p = cue.under(frame, [q])
    assert p.shape == (1, NUM_CLASSES) and np.allclose(p.sum(1), 1.0, atol=1e-5)
    with pytest.raises(LayerCueError, match="size=48"):
        cue.predict(np.zeros((1, CHANNELS, CROP, CROP), np.float32))


@pytest.mark.parametrize("bad, message", [
    (np.zeros((10, 10)), "HxWx3"),
    ("frame", "HxWx3"),
])
def test_crops_refuse_what_is_not_a_picture(bad: object, message: str) -> None:
    with pytest.raises(LayerCueError, match=message):
        tile_crops(bad, [rect(5, 5, 4, 2, 0)])  # type: ignore[arg-type]


def test_crops_refuse_indices_of_no_tile() -> None:
    with pytest.raises(LayerCueError, match="indices of the 1 quads"):
        tile_crops(np.zeros((20, 20, 3), np.uint8), [rect(5, 5, 4, 2, 0)], which=[3])


def test_model_takes_crops_and_gives_probabilities() -> None:
    cue = LayerCue()
    frame = np.full((200, 300, 3), 60, np.uint8)
    q = rect(150, 100, 90, 45, 20)
    draw_tile(frame, q)
    p = cue.under(frame, [q])
    assert p.shape == (1, NUM_CLASSES) and np.allclose(p.sum(1), 1.0, atol=1e-4)
    assert cue.crop == CROP  # the shipped model takes the crops tile_crops makes by default
    assert cue.predict(np.zeros((0, CHANNELS, CROP, CROP), np.float32)).shape == (0, NUM_CLASSES)
    with pytest.raises(LayerCueError, match="float32"):
        cue.predict(np.zeros((1, 3, CROP, CROP), np.float32))


def test_the_smoothed_view_takes_a_fine_speckle_and_keeps_the_tile_and_the_masks() -> None:
    """The second view the cue is asked about: the picture channels median-smoothed, so a
    granite-like speckle of the table fades while the tile's edge stays where it was; the mask
    channels and the crops given are left as they are."""
    rng = np.random.default_rng(3)
    frame = np.full((300, 400, 3), 70, np.uint8)
    speck = rng.random((300, 400)) < 0.08
    frame[speck] = 200
    q = rect(200, 150, 120, 60, 0)
    draw_tile(frame, q)
    crops = tile_crops(frame, [q])
    before = crops.copy()
    smooth = smoothed_view(crops)
    assert np.array_equal(crops, before)
    assert np.array_equal(smooth[:, 3:], crops[:, 3:])
    table = crops[0, 3] == 0
    assert smooth[0, :3][:, table].std() < 0.3 * crops[0, :3][:, table].std()
    inside = crops[0, 3] == 1
    assert abs(float(smooth[0, :3][:, inside].mean()) - float(crops[0, :3][:, inside].mean())) < 0.02
    with pytest.raises(LayerCueError, match="float32"):
        smoothed_view(crops.astype(np.float64))
    with pytest.raises(LayerCueError, match="float32"):
        smoothed_view(crops[:, :3])


def test_the_cue_averages_in_the_smoothed_view_for_tiles_that_look_raised(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A tile whose crop as cut looks raised (P(raised) >= SMOOTH_FROM) is asked about again in
    its smoothed view and gets the mean of both answers; one that looks flat keeps its answer
    and is not asked again."""
    cue = LayerCue()
    frame = np.full((200, 300, 3), 60, np.uint8)
    a, b = rect(100, 100, 90, 45, 20), rect(220, 90, 90, 45, 80)
    for q in (a, b):
        draw_tile(frame, q)
    calls: list[np.ndarray] = []

    def model(crops: np.ndarray) -> np.ndarray:
        calls.append(crops.copy())
        if len(calls) == 1:  # as cut: a looks raised, b flat
            return np.array([[0.1, 0.9, 0.0, 0.0], [0.8, 0.2, 0.0, 0.0]], np.float32)
        return np.tile(np.array([[0.7, 0.3, 0.0, 0.0]], np.float32), (len(crops), 1))

    monkeypatch.setattr(cue, "predict", model)
    p = cue.under(frame, [a, b])
    assert np.allclose(p, [[0.4, 0.6, 0.0, 0.0], [0.8, 0.2, 0.0, 0.0]])
    assert len(calls) == 2 and np.array_equal(calls[1], smoothed_view(calls[0][:1]))


def test_a_tile_asked_once_could_not_reach_any_bar_of_the_image_rule() -> None:
    """The smoothed view is skipped for tiles under SMOOTH_FROM as cut: that changes nothing
    only while the best mean they could reach stays under every P(raised) bar of the image
    rule."""
    best = (1.0 + layer_cue.SMOOTH_FROM) / 2
    assert best < min(layers.LEARNED_LIFT, layers.LEARNED_LIFT_STACKED, layers.STACKED_SURE)


def test_a_missing_or_broken_model_is_named(tmp_path) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(LayerCueError, match="no layer-cue model at"):
        LayerCue(tmp_path / "none.onnx")
    bad = tmp_path / "bad.onnx"
    bad.write_bytes(b"not onnx")
    with pytest.raises(LayerCueError, match="models/layer_cue.md"):
        LayerCue(bad)


def test_the_cue_lifts_only_tiles_nothing_found_lies_under_or_on(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A tile the chain leaves on the table that the model calls raised is put on the layer it
    gives, with cue "learned"; a tile another lies on (its crop shows that tile, not its own
    support) and a tile found on another are asked only which of the two is higher (the pair
    vote), never lifted by the cue; ``learned=False`` and a bar above the model's probability
    leave the cue out. A stub model stands in so the rule is tested, not the weights."""
    frame = np.full((300, 400, 3), 60, np.uint8)
    low, top, lone = rect(120, 150, 120, 60, 0), rect(120, 150, 120, 60, 90), \
        rect(300, 150, 120, 60, 0)
    for q in (low, top, lone):
        draw_tile(frame, q)
    asked: list[list[int]] = []
    # the stub calls the lone tile raised halfway between the shipped bar and certainty
    raised = (1.0 + layers.LEARNED_LIFT) / 2

    class Stub:
        def under(self, frame_bgr, quads, which):  # type: ignore[no-untyped-def]
            asked.append(list(which))
            rows = {0: [0.02, 0.9, 0.05, 0.03],
                    2: [1.0 - raised, raised - 0.87, 0.85, 0.02]}
            return np.array([rows.get(i, [0.5, 0.5, 0.0, 0.0]) for i in which], np.float32)

    monkeypatch.setattr(layer_cue, "shared_cue", lambda: Stub())
    est = estimate_layers(frame, [low, top, lone], outline_px=READER_OUTLINE_PX)
    assert asked == [[0, 1], [2]]  # the pair's vote (equal answers: no say), then the lift
    assert [e.layer for e in est] == [0, 1, 2]
    # the model's probability of that count, made less sure (the model is over-sure)
    assert layers.LEARNED_CONFIDENCE_POWER == 1.5
    assert est[2].cue == "learned" and est[2].confidence == pytest.approx(0.85 ** 1.5, abs=1e-4)
    assert est[1].cue != "learned" and est[1].supports == (0,)
    plain = estimate_layers(frame, [low, top, lone], outline_px=READER_OUTLINE_PX,
                            learned=False)
    assert [e.layer for e in plain] == [0, 1, 0]
    monkeypatch.setattr(layers, "LEARNED_LIFT", raised - 0.001)  # the stub's: over the bar
    assert [e.layer for e in estimate_layers(frame, [low, top, lone],
                                             outline_px=READER_OUTLINE_PX)] == [0, 1, 2]
    monkeypatch.setattr(layers, "LEARNED_LIFT", raised + 0.001)
    assert [e.layer for e in estimate_layers(frame, [low, top, lone],
                                             outline_px=READER_OUTLINE_PX)] == [0, 1, 0]


def test_a_lone_tile_is_not_lifted_by_the_cue(monkeypatch: pytest.MonkeyPatch) -> None:
    """A picture with fewer found tiles than LEARNED_MIN_TILES (the first tile of a game, which
    the live loop reads cold and then keeps) does not ask the cue, however sure it is; a
    second tile in the picture asks it again."""
    frame = np.full((300, 400, 3), 60, np.uint8)
    lone, other = rect(120, 150, 120, 60, 0), rect(300, 150, 120, 60, 0)
    for q in (lone, other):
        draw_tile(frame, q)
    asked: list[int] = []

    class Sure:
        def under(self, frame_bgr, quads, which):  # type: ignore[no-untyped-def]
            asked.extend(which)
            return np.array([[0.0, 0.0, 1.0, 0.0]] * len(which), np.float32)

    monkeypatch.setattr(layer_cue, "shared_cue", lambda: Sure())
    assert layers.LEARNED_MIN_TILES == 2
    (alone,) = estimate_layers(frame, [lone], outline_px=READER_OUTLINE_PX)
    assert (alone.layer, alone.cue) == (0, "table") and asked == []
    pair = estimate_layers(frame, [lone, other], outline_px=READER_OUTLINE_PX)
    assert asked == [0, 1] and [e.layer for e in pair] == [2, 2]


def test_a_picture_whose_candidates_look_stacked_lifts_them_from_a_lower_bar(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Where most of the cue's candidates (and at least ``STACKED_SURE_MIN``) are at
    ``STACKED_SURE`` or more, the picture is a stacked one and every candidate at
    ``LEARNED_LIFT_STACKED`` or more is lifted; one candidate more on the table keeps the
    picture's bar at ``LEARNED_LIFT`` (a flat table with two tiles the cue mistakes). A stub
    model stands in so the rule is tested, not the weights."""
    frame = np.full((300, 700, 3), 60, np.uint8)
    quads = [rect(100 + 160 * k, 150, 120, 60, 0) for k in range(4)]
    for q in quads:
        draw_tile(frame, q)
    raised = {0: 0.95, 1: 0.92, 2: 0.85, 3: 0.1}

    class Stub:
        def under(self, frame_bgr, quads, which):  # type: ignore[no-untyped-def]
            return np.array([[1.0 - raised[i], raised[i], 0.0, 0.0] for i in which],
                            np.float32)

    monkeypatch.setattr(layer_cue, "shared_cue", lambda: Stub())
    monkeypatch.setattr(layers, "LEARNED_LIFT", 0.97)
    monkeypatch.setattr(layers, "LEARNED_LIFT_STACKED", 0.8)
    monkeypatch.setattr(layers, "STACKED_SURE", 0.9)
    monkeypatch.setattr(layers, "STACKED_SURE_MIN", 2)
    three = estimate_layers(frame, quads[:3], outline_px=READER_OUTLINE_PX)
    assert [e.layer for e in three] == [1, 1, 1]
    assert all(e.cue == "learned" for e in three)
    four = estimate_layers(frame, quads, outline_px=READER_OUTLINE_PX)
    assert [e.layer for e in four] == [0, 0, 0, 0]  # 2 sure of 4: not most of them
    monkeypatch.setattr(layers, "STACKED_SURE_MIN", 3)  # 2 sure: too few
    assert [e.layer for e in estimate_layers(frame, quads[:3],
                                             outline_px=READER_OUTLINE_PX)] == [0, 0, 0]


@functools.cache
def _cue_on_unseen_training_scenes() -> dict[str, int]:
    """The shipped cue on rendered scenes of training seeds it was not trained or tuned on
    (stacked 5500-5511, flat 6000-6011), read by the real reader: among the found tiles that no
    pair puts above anything, raised tiles it lifts (``raised``), onto their true layer
    (``right``), table tiles of the stacked scenes it lifts (``table``); tiles of the flat
    scenes it lifts (``flat``)."""
    from vision.read import Reader
    from vision.render import render_scene
    from vision.render.layerlive import FLAT_LAYOUTS, _must_report, match_found
    from vision.render.sampling import random_scene_spec
    from vision.render.stacking import stacked_scene_spec

    rd = Reader()
    got = {"raised": 0, "right": 0, "table": 0, "flat": 0}
    for seed in range(5500, 5512):
        scene = render_scene(stacked_scene_spec(seed))
        reading = rd.read(scene.image_bgr, scene.truth["set_max"])
        plain = estimate_layers(scene.image_bgr, list(reading.tiles),
                                outline_px=READER_OUTLINE_PX, learned=False)
        for t, j in match_found(_must_report(scene.truth), [np.array(r.corners)
                                                       for r in reading.tiles]):
            if reading.tiles[j].layer_cue == "learned" and plain[j].layer == 0:
                got["raised"] += t["layer"] > 0
                got["table"] += t["layer"] == 0
                got["right"] += reading.tiles[j].layer == t["layer"]
    for seed in range(6000, 6012):
        scene = render_scene(random_scene_spec(seed, layout=FLAT_LAYOUTS[seed % 6]))
        reading = rd.read(scene.image_bgr, scene.truth["set_max"])
        got["flat"] += sum(t.layer_cue == "learned" for t in reading.tiles)
    return got


@pytest.mark.slow
@pytest.mark.xfail(strict=True, reason=(
    "known failure (session 13): with the session-13 tile finder and layer cue the cue lifts 47 "
    "raised tiles (25 onto their true layer) and one table tile: seed 5510, P(raised) 0.876 in "
    "a picture whose candidates look stacked (bar LEARNED_LIFT_STACKED 0.8). On the tuning "
    "scenes the rule lifts 4 + 4 stacked table tiles of 874 + 348 found tiles (stacked "
    "16900-17099, 1,600,000-079); bars 0.85-0.9 lift as many, 0.95 two fewer on one set for 9 "
    "fewer tiles right. Session 15 (the cue's smoothed second view, LEARNED_LIFT 0.97): 47 "
    "raised (23 onto their layer) and still the one table tile. Session 16 (the retrained cue, "
    "LEARNED_LIFT 0.985): 48 raised (26 onto their layer) and still one table tile"))
def test_the_shipped_cue_lifts_raised_tiles_the_reader_found_alone_and_no_stacked_table_tile(
        ) -> None:
    """On unseen training scenes (:func:`_cue_on_unseen_training_scenes`) the cue lifts raised
    tiles, some onto their true layer, and no table tile of the stacked scenes. Measured
    (2026-11-22): the session-6 model (at 0.96) lifted 26 raised (11 onto the true layer) and 0
    table tiles; the session-7 model at 0.97 21 (12) and 0; the session-13 model at 0.99 47
    (26) and 0."""
    got = _cue_on_unseen_training_scenes()
    assert got["raised"] >= 15 and got["right"] >= 10 and got["table"] == 0, got


@pytest.mark.slow
def test_the_shipped_cue_lifts_no_tile_of_a_flat_scene() -> None:
    """On the unseen flat training scenes 6000-6011 the cue lifts no tile: a flat table stays
    on the table. (The session-7 model lifted one, seed 6009's tile abutting another's side in a
    T, at P(raised) 0.981; this test was a strict known failure until the session-13 model.)"""
    assert _cue_on_unseen_training_scenes()["flat"] == 0


@pytest.mark.slow
@pytest.mark.xfail(strict=True, reason=(
    "known failure (session 16): the retrained cue (more scenes; granite still unseen) at "
    "LEARNED_LIFT 0.985 lifts one tile of seed 1,600,486 (2-3, put on layer 3, P(raised) >= "
    "0.985 after the smoothed second view); the other two scenes lift none. On the 500 tuning "
    "game scenes it lifts 16 table tiles, as session 15's cue did at its bar, and puts 507 "
    "and 200 stacked tuning tiles on their layer against 459 and 186"))
def test_the_shipped_cue_lifts_no_tile_of_flat_games_on_a_granite_table() -> None:
    """Three tuning game scenes on the held-out granite (``stone``) table, where the cue as cut
    read the speckle as stacks' walls and lifted 24, 7 and 9 table tiles (seeds 1,600,275
    (coloured tiles, a game), 1,600,486 (marbled, loose) and 1,600,389 (marbled, a grid); the
    cached readings of ``runs/lead15/bars.py``, scratch): with its smoothed second view
    (:data:`vision.layer_cue.SMOOTH_MEDIAN`) none is lifted."""
    from vision.evaluate import rendered_scenes
    from vision.read import Reader

    rd = Reader()
    lifted = {}
    for seed in (1_600_275, 1_600_486, 1_600_389):
        _, image, truth = next(rendered_scenes(1, seed))
        assert truth["style"]["table"] == "stone"
        assert all(t.get("layer", 0) == 0 for t in truth["tiles"])
        reading = rd.read(image, truth["set_max"])
        lifted[seed] = sum(t.layer > 0 for t in reading.tiles)
    assert sum(lifted.values()) == 0, lifted


def test_a_missing_cue_model_is_said_once_and_not_tried_again(monkeypatch) -> None:
    """Without a usable model the estimator goes without the cue: one RuntimeWarning naming
    why, and the model is not looked for again on every frame."""
    from vision import layer_cue

    tries: list[int] = []

    def missing(*_a, **_k):
        tries.append(1)
        raise layer_cue.LayerCueError("no layer-cue model at /nowhere/layer_cue.onnx")

    monkeypatch.setattr(layer_cue, "_shared", None)
    monkeypatch.setattr(layer_cue, "_shared_failure", None)
    monkeypatch.setattr(layer_cue, "LayerCue", missing)
    with pytest.warns(RuntimeWarning, match="without the learned cue: no layer-cue model"):
        assert layer_cue.shared_cue() is None
    assert layer_cue.shared_cue() is None and len(tries) == 1


def _pair_picture() -> tuple[np.ndarray, list[np.ndarray]]:
    """Two tiles drawn crosswise, the second over the first, and a tile apart."""
    frame = np.full((300, 400, 3), 60, np.uint8)
    low, top, apart = rect(120, 150, 120, 60, 0), rect(120, 150, 120, 60, 90), \
        rect(300, 150, 120, 60, 0)
    for q in (low, top, apart):
        draw_tile(frame, q)
    return frame, [low, top, apart]


def test_the_cue_votes_on_which_of_two_overlapping_tiles_is_higher(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Of an overlapping pair, the tile the cue calls raised gains LEARNED_PAIR_VOTE times the
    difference of their P(raised): as shipped it adds to the picture's verdict; made to
    outweigh the picture, it alone decides, with cue "learned"; equal answers change
    nothing."""
    frame, quads = _pair_picture()

    def stub(p_raised: dict[int, float]):  # type: ignore[no-untyped-def]
        class Stub:
            def under(self, frame_bgr, qs, which):  # type: ignore[no-untyped-def]
                return np.array([[1 - p_raised.get(i, 0.0), p_raised.get(i, 0.0), 0, 0]
                                 for i in which], np.float32)
        return Stub()

    assert layers.LEARNED_PAIR_VOTE == 1.0
    plain = estimate_layers(frame, quads, outline_px=READER_OUTLINE_PX, learned=False)
    assert [e.layer for e in plain] == [0, 1, 0]
    monkeypatch.setattr(layer_cue, "shared_cue", lambda: stub({0: 0.3, 1: 0.3}))
    same = estimate_layers(frame, quads, outline_px=READER_OUTLINE_PX)
    assert [(e.layer, e.cue, e.confidence) for e in same] == \
        [(e.layer, e.cue, e.confidence) for e in plain]
    monkeypatch.setattr(layer_cue, "shared_cue", lambda: stub({1: 1.0}))
    agree = estimate_layers(frame, quads, outline_px=READER_OUTLINE_PX)
    assert [e.layer for e in agree] == [0, 1, 0] and agree[1].confidence >= plain[1].confidence
    monkeypatch.setattr(layers, "LEARNED_PAIR_VOTE", 10.0)
    monkeypatch.setattr(layer_cue, "shared_cue", lambda: stub({0: 1.0}))
    flipped = estimate_layers(frame, quads, outline_px=READER_OUTLINE_PX)
    assert [e.layer for e in flipped] == [1, 0, 0]
    assert flipped[0].cue == "learned" and flipped[0].supports == (1,)
    monkeypatch.setattr(layers, "LEARNED_PAIR_VOTE", 0.0)
    assert [e.layer for e in estimate_layers(frame, quads, outline_px=READER_OUTLINE_PX)] \
        == [0, 1, 0]


def test_what_the_tracker_watched_outweighs_the_cues_pair_vote(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A tile watched being laid on another stays above it however surely the cue calls the
    lower one raised (what the tracker watched is kept, even with the pair vote made to
    outweigh its order vote); without a model the pair vote is simply absent."""
    from vision.layers import LayerTracker

    base = np.full((300, 400, 3), 60, np.uint8)
    low, top = rect(120, 150, 120, 60, 0), rect(120, 150, 120, 60, 90)
    first = base.copy()
    draw_tile(first, low)
    both = first.copy()
    draw_tile(both, top)

    class Contrary:
        def under(self, frame_bgr, quads, which):  # type: ignore[no-untyped-def]
            return np.array([[0.0, 1.0, 0, 0] if i == 0 else [1.0, 0, 0, 0] for i in which],
                            np.float32)

    monkeypatch.setattr(layer_cue, "shared_cue", lambda: Contrary())
    for weight in (layers.LEARNED_PAIR_VOTE, 5.0):
        monkeypatch.setattr(layers, "LEARNED_PAIR_VOTE", weight)
        tracker = LayerTracker()
        tracker.update(first, [low])
        watched = tracker.update(both, [low, top])
        assert [e.layer for e in watched] == [0, 1] and watched[1].cue == "order"
    cold = estimate_layers(both, [low, top], outline_px=READER_OUTLINE_PX)
    assert [e.layer for e in cold] == [1, 0]  # the same cue, unwatched, at weight 5: flipped
    monkeypatch.setattr(layer_cue, "shared_cue", lambda: None)
    plain = estimate_layers(both, [low, top], outline_px=READER_OUTLINE_PX)
    assert [e.layer for e in plain] == [0, 1]


def test_the_cue_is_asked_about_each_tile_once_an_estimate() -> None:
    """One estimate asks the learned cue about a pair's tiles and later about the tiles left on
    the table, often the same ones: with a memo each tile is asked about once, and the rows come
    back in the order asked, as the model gives them."""
    from vision.layers import _cue_under

    class Counting:
        def __init__(self) -> None:
            self.asked: list[list[int]] = []

        def under(self, frame_bgr, quads, which):
            self.asked.append(list(which))
            return np.array([[0.1 * i, 0.2, 0.3, 0.4] for i in which], np.float32)

    model = Counting()
    frame = np.zeros((40, 40, 3), np.uint8)
    quads = [np.zeros((4, 2))] * 5
    memo: dict[int, np.ndarray] = {}
    first = _cue_under(model, frame, quads, [1, 3], memo)
    second = _cue_under(model, frame, quads, [3, 0, 1, 4], memo)
    assert model.asked == [[1, 3], [0, 4]]
    np.testing.assert_allclose(first[:, 0], [0.1, 0.3])
    np.testing.assert_allclose(second[:, 0], [0.3, 0.0, 0.1, 0.4])
    model.asked.clear()
    _cue_under(model, frame, quads, [1, 3], None)  # without a memo: asked every time
    _cue_under(model, frame, quads, [1, 3], None)
    assert model.asked == [[1, 3], [1, 3]]
