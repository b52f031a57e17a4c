"""Synthetic webcam scenes of a domino table, with ground truth.

Public API (stable):

* :func:`render_scene` (``SceneSpec -> RenderedScene``): the picture (``image_bgr``, uint8) and
  its ground-truth dict (the shared JSON layout, see ``docs/render.md``).
* :func:`random_scene_spec` (``rng_seed, **constraints -> SceneSpec``): every knob from a seed.
* :class:`SceneSpec`, :class:`RenderedScene`, :class:`Placement`, :class:`CameraSpec`,
  :class:`LightSpec`, :class:`DegradeSpec`, :class:`HandSpec`, :class:`TileStyle`.
* :func:`write_scene` writes ``NAME.png`` + ``NAME.json``; :func:`draw_truth` draws the truth
  over a picture.
* :func:`game_sequence` (``-> list[SequenceFrame]``): one table through a simulated game.
* :data:`HELD_OUT_SEED_MIN`: held-out scenes use seeds at or above it.
"""

from vision.render.camera import Camera, CameraSpec
from vision.render.errors import RenderSpecError
from vision.render.layouts import LAYOUT_KINDS, Placement
from vision.render.sampling import HELD_OUT_SEED_MIN, random_scene_spec
from vision.render.scene import (DegradeSpec, HandSpec, LightSpec, RenderedScene, SceneSpec,
                                 render_scene)
from vision.render.tiles import TileGeometry, TileStyle, geometry_for_set, pip_layout
from vision.render.io import write_scene
from vision.render.overlay import draw_truth
from vision.render.sequence import SequenceFrame, game_sequence

__all__ = [
    "Camera", "CameraSpec", "DegradeSpec", "HandSpec", "HELD_OUT_SEED_MIN", "LAYOUT_KINDS",
    "LightSpec", "Placement", "RenderSpecError", "RenderedScene", "SceneSpec", "SequenceFrame",
    "TileGeometry", "TileStyle", "draw_truth", "game_sequence", "geometry_for_set", "pip_layout",
    "random_scene_spec", "render_scene", "write_scene",
]
