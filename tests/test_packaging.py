"""The package list in pyproject.toml names every Python package of the project, so a
non-editable install ships all of them."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TOP = ("companion", "vision", "calibration", "web_ui")


def test_every_package_is_listed() -> None:
    conf = tomllib.loads((ROOT / "pyproject.toml").read_text())
    listed = set(conf["tool"]["setuptools"]["packages"])
    found = {".".join(p.parent.relative_to(ROOT).parts)
             for top in TOP for p in (ROOT / top).rglob("__init__.py")}
    assert found - listed == set(), f"add these to [tool.setuptools] packages: {sorted(found - listed)}"
    assert "domino_models" in listed
    assert conf["tool"]["setuptools"]["package-dir"]["domino_models"] == "models"


def test_console_script() -> None:
    conf = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert conf["project"]["scripts"]["domino-companion"] == "companion.cli:main"
