"""Versioned atomic store: round trip, previous version kept, corrupt/old files fall back."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest

from calibration.files import load_plane, save_plane
from calibration.plane import MarkerLayout, TablePlane, plane_from_markers
from calibration.store import (HOME_ENV, StoreError, default_home, load_versioned, previous_path,
                               save_versioned, write_atomic)
from calibration.synth import SynthCamera, synth_view


def test_round_trip_and_previous_kept(tmp_path):
    p = tmp_path / "settings.json"
    save_versioned(p, "settings", 2, {"a": 1})
    save_versioned(p, "settings", 2, {"a": 2})
    assert previous_path(p) == tmp_path / "settings.prev.json"
    assert json.loads(previous_path(p).read_text())["a"] == 1
    got = load_versioned(p, "settings", 2)
    assert got.source == "current" and got.data == {"a": 2} and got.problems == []
    # no temporary files are left behind
    assert sorted(f.name for f in tmp_path.iterdir()) == ["settings.json", "settings.prev.json"]


@pytest.mark.parametrize("content, expect", [
    (b"{not json", "corrupt"),
    (b"[1, 2]", "expected a JSON object"),
    (json.dumps({"kind": "other", "version": 2}).encode(),
     "holds a file of kind 'other'; expected kind 'settings'"),
    (json.dumps({"version": 2}).encode(), "holds no 'kind' field; expected kind 'settings'"),
    (json.dumps({"kind": "settings", "version": 9}).encode(), "version 9 (newer"),
    (json.dumps({"kind": "settings"}).encode(), "no integer 'version'"),
    (b"\xff\xfe\x00", "corrupt"),
])
def test_bad_current_falls_back_to_previous(tmp_path, content, expect):
    p = tmp_path / "settings.json"
    save_versioned(p, "settings", 2, {"a": 1})
    save_versioned(p, "settings", 2, {"a": 2})
    p.write_bytes(content)
    got = load_versioned(p, "settings", 2)
    assert got.source == "previous" and got.data == {"a": 1}
    assert expect in got.problems[0]
    assert "using the previous version" in got.problems[-1]


def test_both_bad_gives_defaults_not_crash(tmp_path):
    p = tmp_path / "settings.json"
    p.write_bytes(b"garbage")
    previous_path(p).write_bytes(b"more garbage")
    got = load_versioned(p, "settings", 1)
    assert got.data is None and got.source == "none" and not got.ok
    assert len(got.problems) == 3 and got.problems[-1] == "falling back to defaults"


def test_missing_file_reports_and_gives_none(tmp_path):
    got = load_versioned(tmp_path / "nothing.json", "settings", 1)
    assert got.data is None and "does not exist" in got.problems[0]


def test_old_version_is_migrated(tmp_path):
    p = tmp_path / "s.json"
    p.write_text(json.dumps({"kind": "s", "version": 1, "old": 5}))
    got = load_versioned(p, "s", 2, migrate={1: lambda d: {"kind": "s", "version": 2,
                                                           "new": d["old"] * 2}})
    assert got.data == {"new": 10}


def test_old_version_without_migration_is_explained(tmp_path):
    p = tmp_path / "s.json"
    p.write_text(json.dumps({"kind": "s", "version": 1}))
    got = load_versioned(p, "s", 2)
    assert got.data is None and "version 1 (older than this program's 2)" in got.problems[0]


def test_failed_write_leaves_old_file_intact(tmp_path, monkeypatch):
    p = tmp_path / "s.json"
    save_versioned(p, "s", 1, {"a": 1})

    def boom(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", boom)
    with pytest.raises(StoreError, match="cannot write"):
        save_versioned(p, "s", 1, {"a": 2})
    monkeypatch.undo()
    assert load_versioned(p, "s", 1).data == {"a": 1}
    assert [f.name for f in tmp_path.iterdir() if f.name.endswith(".tmp")] == []


def test_unwritable_folder_is_a_store_error(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(StoreError, match="choose a folder"):
        write_atomic(blocker / "sub" / "a.json", b"{}")


def test_default_home_honours_env(tmp_path, monkeypatch):
    monkeypatch.setenv(HOME_ENV, str(tmp_path / "home"))
    assert default_home() == tmp_path / "home"
    monkeypatch.delenv(HOME_ENV)
    assert "domino-companion" in str(default_home())


def test_table_plane_file_round_trip_and_fallback(tmp_path):
    layout = MarkerLayout(600, 450)
    view = synth_view(layout, SynthCamera(800, 20, 0, target_mm=(300, 225)), seed=4)
    plane = plane_from_markers(view.image_bgr, layout)
    save_plane(plane, tmp_path)
    got, problems = load_plane(tmp_path)
    assert problems == [] and isinstance(got, TablePlane)
    assert np.allclose(got.table_to_image, plane.table_to_image)
    assert got.pose is not None and got.pose.height_mm == pytest.approx(plane.pose.height_mm)
    assert got.layout == layout
    pts = [[10.0, 20.0], [590.0, 430.0]]
    assert np.allclose(got.to_image(pts), plane.to_image(pts))
    # a second calibration, then the current file gets a bad matrix: fall back to the first
    save_plane(plane, tmp_path)
    doc = json.loads((tmp_path / "table.json").read_text())
    doc["table_to_image"] = [[0, 0, 0], [0, 0, 0], [0, 0, 0]]
    (tmp_path / "table.json").write_text(json.dumps(doc))
    got, problems = load_plane(tmp_path)
    assert got is not None and "invertible" in problems[0]


def test_tracker_from_store_and_missing_calibration(tmp_path):
    from calibration.files import tracker_from_store
    tracker, problems = tracker_from_store(tmp_path)
    assert tracker is None and "run `domino-companion calibrate`" in problems[0]
    layout = MarkerLayout(600, 450)
    view = synth_view(layout, SynthCamera(800, 20, 0, target_mm=(300, 225)), seed=4)
    save_plane(plane_from_markers(view.image_bgr, layout), tmp_path)
    tracker, problems = tracker_from_store(tmp_path, every_n=3)
    assert problems == [] and tracker is not None and tracker.every_n == 3
    assert tracker.update(view.image_bgr).status == "steady"
    (tmp_path / "table.json").write_text("{broken")
    (tmp_path / "table.prev.json").unlink(missing_ok=True)
    tracker, problems = tracker_from_store(tmp_path)
    assert tracker is None and "corrupt" in problems[0] and "again" in problems[-1]
