"""Shipped model files (installed as the package ``domino_models``).

Use :func:`model_path` to locate a model; nothing is ever downloaded.
"""

from __future__ import annotations

from pathlib import Path

MODEL_DIR = Path(__file__).resolve().parent


def model_path(name: str) -> Path:
    """Path of the shipped file ``name`` (for example ``"pip_classifier.onnx"``)."""
    path = MODEL_DIR / name
    if not path.is_file():
        known = sorted(p.name for p in MODEL_DIR.glob("*.onnx"))
        raise FileNotFoundError(f"no model file {name!r} in {MODEL_DIR}; shipped models: "
                                f"{', '.join(known) or 'none'}")
    return path
