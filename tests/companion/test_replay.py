"""``replay``: a log folds to its scores; a bad line stops it with exit status 2 and a message
naming the line number, the line, the problem and what would be legal; ``--lenient`` lists the
bad lines and goes on."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from companion.cli import main
from companion.errors import LogError
from companion.gamelog import replay_lines

HEADER = {"game": "allfives", "players": ["Ann", "Bob"], "options": {}}
# The Walnut Studiolo seed example, as a log without a deal (the camera's view of a game).
SEED_EXAMPLE = [
    HEADER,
    {"player": "Ann", "play": "5-5"},
    {"player": "Bob", "play": "5-0", "on": "5-5"},
    {"player": "Ann", "play": "3-5", "on": "5-5"},
    {"player": "Bob", "play": "0-2", "on": "5-0"},
]


def _write(tmp_path: Path, entries: list, raw_lines: list[str] | None = None) -> Path:
    path = tmp_path / "game.jsonl"
    lines = [json.dumps(e) for e in entries] + (raw_lines or [])
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_replay_prints_scores(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _write(tmp_path, SEED_EXAMPLE)
    assert main(["replay", str(path)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["game"] == "allfives"
    assert out["players"] == ["Ann", "Bob"]
    assert out["scores"] == {"Ann": 10, "Bob": 15}
    assert out["round"] == 1 and out["finished"] is False and out["winner"] is None


def test_illegal_line_exits_2_naming_line_and_legal(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    entries = SEED_EXAMPLE + [{"player": "Ann", "play": "6-6", "on": "0-2"}]
    path = _write(tmp_path, entries)
    assert main(["replay", str(path)]) == 2
    err = capsys.readouterr().err
    assert "line 6" in err
    assert '"6-6"' in err
    assert "legal" in err


def test_malformed_json_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _write(tmp_path, SEED_EXAMPLE[:2], raw_lines=['{"player": "Bob", "play": '])
    assert main(["replay", str(path)]) == 2
    err = capsys.readouterr().err
    assert "line 3" in err and "not valid JSON" in err


def test_lenient_lists_flagged_lines(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    entries = SEED_EXAMPLE[:3] + [{"player": "Ann", "play": "6-6", "on": "0-5"}] + SEED_EXAMPLE[3:]
    path = _write(tmp_path, entries, raw_lines=["not json"])
    assert main(["replay", "--lenient", str(path)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["scores"] == {"Ann": 10, "Bob": 15}
    assert [f["line"] for f in out["flagged"]] == [4, 7]


@pytest.mark.parametrize("lines,fragment", [
    ([], "the log is empty"),
    (['{"players": ["Ann", "Bob"]}'], "header needs 'game'"),
    (['{"game": "tic-tac-toe", "players": ["Ann", "Bob"]}'], "known games: stackernoes"),
    (['{"game": "allfives", "players": ["Ann", "Ann"]}'], "must differ"),
    (['{"game": "allfives", "players": ["Ann", "Bob"], "options": {"targett": 5}}'],
     "no option targett"),
    (['[1, 2]'], "first line must be the header"),
    (['{"game": "allfives", "players": ["Ann", "Bob"], "format": 99}'],
     "not a log format this version reads"),
    (['{"game": "allfives", "players": ["Ann", "Bob"]}', "[" * 50000 + "]" * 50000],
     "nested too deeply"),
])
def test_bad_headers(lines: list[str], fragment: str) -> None:
    with pytest.raises(LogError, match=fragment):
        replay_lines(lines)


def test_missing_and_binary_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", str(tmp_path / "nope.jsonl")]) == 2
    assert "no such file" in capsys.readouterr().err
    bad = tmp_path / "bin.jsonl"
    bad.write_bytes(b"\xff\xfe\x00garbage")
    assert main(["replay", str(bad)]) == 2
    assert "not UTF-8" in capsys.readouterr().err
    # a log saved with a byte-order mark (Windows Notepad) reads as any other
    bom = tmp_path / "bom.jsonl"
    bom.write_bytes(b"\xef\xbb\xbf" + b'{"game": "allfives", "players": ["Ann", "Bob"]}\n'
                    b'{"player": "Ann", "play": "5-5"}\n')
    assert main(["replay", str(bom)]) == 0
    assert '"Ann": 10' in capsys.readouterr().out


def test_a_line_not_utf8_is_a_bad_line_named_by_its_number(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A line of bytes that are not UTF-8 is reported by its line number like any other bad
    line (stopping the replay, or left out with --lenient), the byte counted in that line."""
    path = tmp_path / "game.jsonl"
    lines = [json.dumps(e).encode() for e in SEED_EXAMPLE]
    path.write_bytes(b"\n".join(lines[:3] + [b'{"player": "Ann", \xff}'] + lines[3:]) + b"\n")
    assert main(["replay", str(path)]) == 2
    err = capsys.readouterr().err
    assert "line 4: " in err and "\\xff" in err
    assert "not UTF-8 text (invalid start byte at byte 19 of the line)" in err
    assert main(["replay", "--lenient", str(path)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["scores"] == {"Ann": 10, "Bob": 15}
    assert [(f["line"], f["text"]) for f in out["flagged"]] == [(4, '{"player": "Ann", \\xff}')]
    # lines ending in \r\n or a lone \r read as before
    path.write_bytes(b"\r".join(lines) + b"\r\n")
    assert main(["replay", str(path)]) == 0
    assert json.loads(capsys.readouterr().out)["scores"] == {"Ann": 10, "Bob": 15}


def test_simulate_and_bench_refuse_bad_numbers_and_options(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", "--game", "allfives", "--options", "[1]"]) == 2
    assert "--options must be a JSON object" in capsys.readouterr().err
    assert main(["bench", "--game", "allfives", "--games", "0"]) == 2
    assert "--games must be at least 1" in capsys.readouterr().err
    assert main(["simulate", "--game", "allfives", "--players", "0"]) == 2
    assert "All Fives is played by 2 to 8 players, got --players 0" in capsys.readouterr().err
    assert main(["simulate", "--game", "castlerock", "--players", "2"]) == 2
    assert "played by 1 player, got" in capsys.readouterr().err
    assert main(["render", "--count", "1", "--hands", "-1", "--out", str(tmp_path)]) == 2
    assert "--hands -1 must be 0 to 8" in capsys.readouterr().err
    with pytest.raises(SystemExit):  # argparse: exit 2 with the message
        main(["render", "--count", "1", "--size", "0x0", "--out", str(tmp_path)])
    assert "width and height must be 64..8192" in capsys.readouterr().err
    assert main(["calibrate", "--image", str(tmp_path / "x.png"), "--frames", "0"]) == 2
    assert "--frames must be at least 1" in capsys.readouterr().err
    assert main(["calibrate", "--enroll", str(tmp_path / "x.png"), "--sets", "0"]) == 2
    assert "--sets is how many differently coloured sets" in capsys.readouterr().err


def test_unknown_command(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["fly"]) == 2
    assert "unknown command 'fly'" in capsys.readouterr().err


def test_simulate_writes_logs_that_replay(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", "--game", "allfives", "--players", "3", "--seed", "4", "--games", "2",
                 "--out", str(tmp_path)]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["games"] == 2
    logs = sorted(tmp_path.glob("*.jsonl"))
    assert len(logs) == 2
    assert main(["replay", str(logs[0])]) == 0
    replayed = json.loads(capsys.readouterr().out)
    assert replayed["finished"] is True and replayed["winner"] is not None
