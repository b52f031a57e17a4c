"""The entry point's shared option checks (:mod:`companion.cli`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from companion.cli import main


@pytest.mark.parametrize("argv, option", [
    (["render", "--out", "", "--count", "1"], "--out"),
    (["simulate", "--game", "allfives", "--out", ""], "--out"),
    (["calibrate", "--image", "photo.png", "--table-mm", "600x450", "--out", ""], "--out"),
    (["serve", "--data-dir", ""], "--data-dir"),
    (["serve", "--db", ""], "--db"),
    (["run", "--data-dir", ""], "--data-dir"),
])
def test_an_empty_path_is_refused_not_taken_as_the_current_folder(
        argv: list[str], option: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """``--out ""`` (an unset shell variable) is refused, exit 2, naming the option; nothing is
    written into the current folder."""
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as exit_:
        main(argv)
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert f"argument {option}: an empty path; give a file or folder name" in err
    assert "Traceback" not in err
    assert list(tmp_path.iterdir()) == []
