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
