"""Writing rendered scenes: ``NAME.png`` and its ground truth ``NAME.json`` side by side."""

from __future__ import annotations

import json
from pathlib import Path

import cv2

from companion.atomic import atomic_write
from vision.render.errors import RenderSpecError
from vision.render.scene import RenderedScene


def write_scene(scene: RenderedScene, out_dir: str | Path, name: str) -> tuple[Path, Path]:
    """Write ``out_dir/name.png`` and ``out_dir/name.json`` (atomically); returns both paths."""
    if not name or "/" in name or name.startswith("."):
        raise RenderSpecError(f"scene name {name!r} must be a plain file stem like 'scene_000001'")
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    ok, buf = cv2.imencode(".png", scene.image_bgr, [cv2.IMWRITE_PNG_COMPRESSION, 1])
    if not ok:
        raise RenderSpecError(f"could not encode scene {name!r} as PNG")
    png, js = out / f"{name}.png", out / f"{name}.json"
    truth = dict(scene.truth)
    truth["image"] = png.name
    atomic_write(png, buf.tobytes())
    atomic_write(js, (json.dumps(truth, indent=1) + "\n").encode())
    return png, js
