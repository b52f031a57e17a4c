"""The game log survives the process being killed at any instant.

A child process plays a seeded game into a Session (SQLite store) and prints the sequence
number of each entry once ``submit`` has returned (the moment the dashboard would show it). The
test kills it with SIGKILL after a varying number of entries, reopens the store and checks that
every acknowledged entry is there, nothing is half-written, and the stored log replays to a
consistent game that a resumed Session continues.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from companion.session import Session
from companion.store import LogStore

CHILD = r'''
import random, sys
from companion.session import Session
from companion.store import LogStore
from companion.simulate import play_random_game

db = sys.argv[1]
sim = play_random_game("allfives", 3, seed=int(sys.argv[2]))
store = LogStore(db)
session = Session.start(store, "allfives", list(sim.header.players), dict(sim.header.options))
for move in sim.moves:
    result = session.submit(move.to_json(), source="hand")
    assert result.status == "accepted", result.to_json()
    print(result.seq, flush=True)
print("done", flush=True)
'''


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL (POSIX)")
@pytest.mark.parametrize("kill_after", [1, 7, 40])
def test_nothing_acknowledged_is_lost_when_killed(tmp_path: Path, kill_after: int) -> None:
    db = tmp_path / "games.sqlite"
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    proc = subprocess.Popen([sys.executable, "-c", CHILD, str(db), "5"], stdout=subprocess.PIPE,
                            text=True, env=env)
    acknowledged: list[int] = []
    deadline = time.monotonic() + 60
    assert proc.stdout is not None
    while len(acknowledged) < kill_after and time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line or line.startswith("done"):
            break
        acknowledged.append(int(line))
    os.kill(proc.pid, signal.SIGKILL)  # mid-game: the child is busy submitting the next entries
    proc.wait(timeout=10)
    proc.stdout.close()
    assert len(acknowledged) == kill_after

    store = LogStore(db)
    stored = [seq for seq, _ in store.effective(store.latest_game())]
    assert stored[:len(acknowledged)] == acknowledged  # every acknowledged entry, in order
    resumed = Session.resume(store)
    assert resumed is not None and len(resumed.history) == len(stored)
    # the game goes on where it was: the next entry of the same seeded game is accepted
    from companion.simulate import play_random_game

    sim = play_random_game("allfives", 3, seed=5)
    nxt = sim.moves[len(stored)]
    assert resumed.submit(nxt.to_json()).status == "accepted"
    store.close()


CHILD_ALERTS = r'''
import sys
from companion.session import Session
from companion.store import LogStore
from companion.simulate import play_random_game

db, n = sys.argv[1], int(sys.argv[2])
sim = play_random_game("allfives", 3, seed=5)
store = LogStore(db)
session = Session.start(store, "allfives", list(sim.header.players), dict(sim.header.options))
for move in sim.moves[:n]:
    assert session.submit(move.to_json(), source="hand").status == "accepted"
nxt = sim.moves[n].to_json()
# the camera reads the next play unsure: a question waits for a tap
r = session.submit(dict(nxt, confidence=0.55, alternatives=[{"tile": "6-6", "p": 0.2}]),
                   source="camera")
assert r.status == "confirm", r.to_json()
print("confirm", r.alert.id, flush=True)
# a tile laid where it does not fit: an alert waits for confirm / correct / dismiss
bad = {"player": nxt["player"], "play": "9-9", "confidence": 0.95}
r = session.submit(bad, source="camera")
assert r.status == "illegal", r.to_json()
print("illegal", r.alert.id, flush=True)
k = 0
while True:  # notices keep coming until the process is killed
    k += 1
    print("notice", session.notice(f"notice {k}").id, flush=True)
'''


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL (POSIX)")
@pytest.mark.parametrize("kill_after", [2, 9])
def test_open_alerts_are_not_lost_when_killed(tmp_path: Path, kill_after: int) -> None:
    """A kill while questions wait for a person (an uncertain reading, an illegal placement,
    notices) loses none of them: the resumed session shows each acknowledged one with the same
    id and content, and answering the uncertain reading continues the game."""
    db = tmp_path / "games.sqlite"
    played = 6
    proc = subprocess.Popen([sys.executable, "-c", CHILD_ALERTS, str(db), str(played)],
                            stdout=subprocess.PIPE, text=True,
                            env=dict(os.environ, PYTHONUNBUFFERED="1"))
    acknowledged: list[tuple[str, int]] = []
    deadline = time.monotonic() + 60
    assert proc.stdout is not None
    while len(acknowledged) < kill_after and time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        kind, alert_id = line.split()
        acknowledged.append((kind, int(alert_id)))
    os.kill(proc.pid, signal.SIGKILL)  # while it raises the next notice
    proc.wait(timeout=10)
    proc.stdout.close()
    assert len(acknowledged) == kill_after

    store = LogStore(db)
    resumed = Session.resume(store)
    assert resumed is not None and len(resumed.history) == played
    open_alerts = {a.id: a for a in resumed.alerts}
    for kind, alert_id in acknowledged:  # every acknowledged question is there, as raised
        assert alert_id in open_alerts and open_alerts[alert_id].kind == kind
    confirm_id = acknowledged[0][1]
    # the other reading, a whole entry the dashboard's "It was ..." button posts
    assert [a["play"] for a in open_alerts[confirm_id].alternatives] == ["6-6"]
    assert "9-9" in open_alerts[acknowledged[1][1]].entry["play"]
    # a tap on the restored question logs the play, and the game goes on from there
    from companion.simulate import play_random_game

    sim = play_random_game("allfives", 3, seed=5)
    assert resumed.confirm(confirm_id).status == "accepted"
    assert resumed.history[-1]["entry"]["play"] == sim.moves[played].to_json()["play"]
    assert resumed.submit(sim.moves[played + 1].to_json()).status == "accepted"
    store.close()
