"""``python -m companion.unansweredbench``: what becomes of a game nobody answers for a while.

At a real table the tablet's questions are not always answered at once: the players go on
laying tiles. This bench renders a seeded game played on one table frame by frame
(:func:`vision.render.game_sequence`: a hand on each new tile, then the table at rest), shows
every frame ``--repeat`` times to a :class:`companion.live.LiveLoop` with the real reader, and
nobody answers the camera's questions. The players enter what the camera cannot see (a draw
from the boneyard, a pass) on the tablet when it happens, as the game's design asks of them
(their draws by count); the rules take such an entry at once, hold it behind a question (it
follows a play still in question) or refuse it. Then a scripted person answers the first open
question, again and again, as a player who saw who laid each tile: the entry as the camera
proposed it, by the player who really laid that tile (by the player whose turn it is where the
rules refuse that); a tile never laid (a misreading) is corrected to the next tile really
laid, at the place proposed; a tile laid only later, to the next tile really laid where the
question offers that one (a guess for a half running out of the picture); an answer the rules
refuse has its alert dismissed, a held tablet entry is logged, a notice dismissed; until none
is left or ``--cap`` answers were given. Per sequence it prints:

* ``logged_unanswered`` and ``open_unanswered``: the plays in the log and the questions open
  before anyone answered;
* ``answers``: the taps the person needed;
* ``logged``: the plays in the log in the end, of ``truth`` plays laid (the simulated game's,
  `companion.simulate.play_random_game`, the same seed: who really laid each tile);
* ``tile_order_right`` and ``player_right``: how many logged plays are, position by position,
  the true tile in the true order, and also by the true player (true plays the log never got
  are left out of the comparison).

The person takes an answer the question (or the refusal of an answer) offers that names what
happened before the play (a pass the camera missed, another tile first:
``companion.session.BEFORE``) when it is true, the whole account that goes on from the end of
the log before one that leaves out a play before it (started mid-game, ``Ann 0-4`` then ``Bob
2-4`` is true but leaves out the ``Dee 0-0`` laid first); else the player who really laid the
tile, then the player whose turn it is. A draw or pass entered out of turn (the passes before
it were forgotten) is answered with the refusal's offer that names those passes when it is
true, else dismissed.

``--start`` skips the first frames of each sequence: the companion is started mid-game.
``--prompt``: the person answers each question as soon as it shows, not at the end;
``--forget-passes``: nobody enters a pass on the tablet (a hand from another seat than the
turn's then asks; the renderer's hands reach in from the side of the player who laid the tile).
Sequences: All Fives, Chickenfoot, Super Dominoes and Stackernoes (the games the renderer plays
frame by frame), seed 0, from the start and from the fifth frame. The figures go into
``docs/benchmarks.md`` (Live companion).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

#: The sequences measured by default: (game, frames skipped at the start).
DEFAULT_CASES = (("allfives", 0), ("allfives", 4), ("chickenfoot", 0), ("chickenfoot", 6),
                 ("super", 0), ("super", 4), ("stackernoes", 0), ("stackernoes", 4))

def _truth(game_truth: dict[str, Any]
           ) -> tuple[list[tuple[str, str]], list[list[dict[str, Any]]], Any,
                      list[tuple[str, str]]]:
    """The simulated game's plays on the table, ``(player, tile)`` in the order laid; for each
    tile laid, the tablet entries of the moves the camera cannot see made since the tile
    before it (draws, passes); the game's header (players and options); and the passes and
    plays one after another, ``(player, tile or "pass")`` (draws left out). A player enters a
    draw by count (the drawn tile is theirs to know), and a pass where the drawn tile ended
    their turn but the rules, not knowing the tile, leave it open. A tile the game sets out
    itself (Chickenfoot's centre double, part of the deal) is no play and is left out."""
    from companion.games import find_game
    from companion.moves import Move
    from companion.simulate import play_random_game

    sim = play_random_game(game_truth["name"], len(game_truth["players"]),
                           int(game_truth["seed"]), max_moves=3000)
    told = find_game(game_truth["name"])(list(sim.header.players), dict(sim.header.options))
    plays: list[tuple[str, str]] = []
    events: list[tuple[str, str]] = []
    unseen: list[list[dict[str, Any]]] = []
    # the laid out round starts at its deal (a later round when the first was short): the
    # companion, started for it, knows nothing before it
    first = int(game_truth["play_moves"][0]) - 1
    last = max((i for i in range(first) if sim.moves[i].kind == "deal"), default=-1) + 1
    for tile_text, applied in zip(game_truth["plays"], game_truth["play_moves"]):
        entries: list[dict[str, Any]] = []
        for i in range(last, int(applied)):
            move = sim.moves[i]
            if move.kind in ("draw", "pass"):
                entry = {"player": move.player, "pass": True} if move.kind == "pass" else \
                    {"player": move.player, "draw": len(move.tiles) or int(move.count or 1)}
                told.apply(Move.from_json(entry))
                entries.append(entry)
                after = sim.moves[i + 1]
                if move.kind == "draw" and told.current_player == move.player and \
                        after.player != move.player:
                    entries.append({"player": move.player, "pass": True})
                    told.apply(Move.from_json(entries[-1]))
            elif move.kind == "play":
                told.apply(move)
        unseen.append(entries)
        move = sim.moves[int(applied) - 1]
        last = int(applied)
        tile = tile_text.split()[0]
        if move.kind == "deal":
            continue
        if move.kind != "play" or str(move.tile) != str(_tile(tile)):
            raise RuntimeError(f"the simulated game's move {applied} is {move}, not the play of "
                               f"{tile} the sequence laid")
        plays.append((str(move.player), str(move.tile)))
        events.extend((str(e["player"]), "pass") for e in entries if e.get("pass"))
        events.append(plays[-1])
    return plays, unseen, sim.header, events


def _answer_first(session: Any, truth: list[tuple[str, str]],
                  events: list[tuple[str, str]]) -> int:
    """The scripted person answers the first open alert (see the module docstring); returns
    the taps it took."""
    from companion.errors import DominoError
    from companion.moves import META_KEYS

    alert = session.alerts[0]
    # (getattr: the bench also runs against older trees, whose alerts have no ``held``)
    if alert.kind not in ("confirm", "illegal") or "play" not in alert.entry:
        logged = _events_logged(session)
        told = next((a for a in alert.alternatives if _passes_happened(a, events, logged)),
                    None) if alert.kind == "illegal" else None
        if told is not None:  # a draw or pass refused for the turn: the passes missed before it
            try:
                if session.correct(alert.id, told).status == "accepted":
                    return 1
            except DominoError:
                pass
            if not any(a.id == alert.id for a in session.alerts):
                return 1
        if getattr(alert, "held", False):
            session.confirm(alert.id)  # a tablet entry held: logged now, as entered
        else:
            session.dismiss(alert.id)
        return 1
    who = {tile: player for player, tile in truth}
    entry = {k: v for k, v in alert.entry.items()
             if k not in META_KEYS and k not in ("alternatives", "player")}
    # (everything before this first question is in the log)
    done = {str(_tile(h["entry"]["play"])) for h in session.history if "play" in h["entry"]}
    laid = next((t for _, t in truth if t not in done), None)  # the next tile really laid
    if str(_tile(entry["play"])) not in who:
        # a misreading: the tile there is the next one really laid
        entry["play"] = laid or entry["play"]
    elif laid is not None and _tile(entry["play"]) != _tile(laid):
        # a tile laid later, where the question offers the next one really laid (a guess
        # for a half out of the picture): that one, where the question puts it
        offer = next((a for a in alert.alternatives if "before" not in a and "play" in a
                      and _tile(a["play"]) == _tile(laid)), None)
        if offer is not None:
            entry = {k: v for k, v in offer.items()
                     if k not in META_KEYS and k not in ("alternatives", "player")}
    now = session.game.current_player
    entry["player"] = who.get(str(_tile(entry["play"])), now)
    # the player who really laid it; refused, what the refusal offers that really happened
    # before it (a pass the camera missed, another tile first); else the player whose turn
    # it is; still refused, the person takes the tile's alert off the list
    taps, open_id = 0, alert.id

    def offered() -> dict[str, Any] | None:
        """What the open question (or the refusal of an answer) offers that happened: the
        whole account that goes on from the end of the log first (a part of it, which leaves
        out a play before, only where none does)."""
        asked = next((a for a in session.alerts if a.id == open_id), None)
        offers = asked.alternatives if asked else []
        logged = _events_logged(session)
        # a refusal of the answer that offers the same play on places nearby the rules take
        # (the camera's cells kept with the value put right): the person takes the first, when
        # the tile is the one laid next (sure of the tile, not of its cells)
        moved = next((a for a in offers if asked is not None and asked.kind == "illegal"
                      and laid is not None and _tile(entry["play"]) == _tile(laid)
                      and "before" not in a and a.get("player") == entry["player"]
                      and "play" in a and _tile(a["play"]) == _tile(entry["play"])), None)
        return next((a for a in offers if _happened(a, events, logged)),
                    next((a for a in offers if _happened(a, events)), moved))

    turn = None if now == entry["player"] else dict(entry, player=now)
    for take in (offered, lambda: entry, offered, lambda: turn):
        answer = take()
        if answer is None:
            continue
        taps += 1
        try:
            result = session.correct(open_id, answer)
        except DominoError:
            continue  # refused outright: the question is still open as it was
        if result.status == "accepted":
            return taps
        open_id = result.alert.id if result.alert else open_id
    session.dismiss(open_id)
    return taps + 1


def _happened(answer: dict[str, Any], events: list[tuple[str, str]],
              after: int | None = None) -> bool:
    """Whether an answer that names what came before it (``before``) tells what really
    happened: its passes and plays, then the play, one after another in the true game
    (``events``: ``(player, tile or "pass")``, draws left out); with ``after``, right after
    the first ``after`` events (the ones logged)."""
    told = answer.get("before")
    if not told:
        return False
    said = [(str(e.get("player")), "pass" if e.get("pass") else str(_tile(e["play"])))
            for e in told if "draw" not in e]
    said.append((str(answer["player"]), str(_tile(answer["play"]))))
    starts = range(len(events)) if after is None else [after]
    return any(events[i:i + len(said)] == said for i in starts)


def _events_logged(session: Any) -> int:
    """How many of the true game's events (passes and plays, draws left out) the log holds."""
    return sum(1 for h in session.history if "draw" not in h["entry"])


def _passes_happened(answer: dict[str, Any], events: list[tuple[str, str]], after: int) -> bool:
    """Whether an answer to a draw or pass entered out of turn, naming the passes before it
    (``before``), tells what really happened right after the first ``after`` events: those
    passes (draws left out), then, for a pass, the pass itself."""
    told = answer.get("before")
    if not told or "play" in answer or any("play" in e for e in told):
        return False
    said = [(str(e.get("player")), "pass") for e in told if e.get("pass")]
    if answer.get("pass"):
        said.append((str(answer.get("player")), "pass"))
    return bool(said) and events[after:after + len(said)] == said


def _tile(text: str) -> Any:
    from companion.tiles import Tile

    return Tile.parse(text)


def run_case(game: str, start: int, seed: int = 0, repeat: int = 15, cap: int = 40,
             prompt: bool = False, forget_passes: bool = False) -> dict:
    """One sequence, nobody answering, then the scripted person (see the module docstring);
    ``prompt``: the person answers each question as soon as it shows instead (``cap``
    answers in all); ``forget_passes``: nobody enters a pass on the tablet."""
    from companion.live import LiveLoop
    from companion.session import Session
    from companion.store import LogStore
    from vision.read import Reader
    from vision.render import game_sequence, render_scene

    frames = game_sequence(seed, game)
    truth_game = frames[-1].spec.game or {}
    truth, unseen, header, events = _truth(truth_game)
    with tempfile.TemporaryDirectory() as tmp:
        store = LogStore(Path(tmp) / "bench.sqlite")
        session = Session.start(store, game, list(header.players), dict(header.options))
        loop = LiveLoop(session, Reader())
        k = 0
        entered = frames[start].placed if start else 0  # the tiles down before it started
        tablet = {"logged": 0, "held": 0, "refused": 0}
        answers = 0
        for fr in frames[start:]:
            image = render_scene(fr.spec).image_bgr
            if fr.placed > entered:  # a tile is laid now: first what happened before it
                entered = fr.placed
                for entry in unseen[fr.placed - 1]:
                    if forget_passes and entry.get("pass"):
                        continue
                    result = session.submit(entry, source="hand")
                    # (getattr: older trees' alerts have no ``held``)
                    held = result.alert is not None and getattr(result.alert, "held", False)
                    tablet["logged" if result.status == "accepted" else
                           "held" if held else "refused"] += 1
            for _ in range(repeat):
                loop.process(image, k)
                k += 1
                while prompt and session.alerts and answers < cap:
                    answers += _answer_first(session, truth, events)
        before = {"tablet": tablet, "logged_unanswered": len(session.history),
                  "open_unanswered": len(session.alerts)}
        while session.alerts and answers < cap:
            answers += _answer_first(session, truth, events)
        logged = [(str(h["entry"].get("player")), str(_tile(h["entry"]["play"])))
                  for h in session.history if "play" in h["entry"]]
        still_open = len(session.alerts)
        store.close()
    tiles_logged = {t for _, t in logged}
    compared = [p for p in truth if p[1] in tiles_logged]
    return {"game": game, "start": start, "seed": seed, **before, "answers": answers,
            "open_after": still_open, "logged": len(logged), "truth": len(truth),
            "tile_order_right": sum(a[1] == b[1] for a, b in zip(logged, compared)),
            "player_right": sum(a == b for a, b in zip(logged, compared)),
            "log": [f"{p} {t}" for p, t in logged]}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m companion.unansweredbench",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", action="append", default=None,
                        help="GAME or GAME:START (default: the eight sequences of the docstring)")
    parser.add_argument("--seed", type=int, default=0, help="sequence seed (default 0)")
    parser.add_argument("--repeat", type=int, default=15,
                        help="times each frame is shown (default 15: half a second at 30 fps)")
    parser.add_argument("--cap", type=int, default=40, help="most answers given (default 40)")
    parser.add_argument("--log", action="store_true", help="also print each final log")
    parser.add_argument("--prompt", action="store_true",
                        help="the person answers each question as soon as it shows")
    parser.add_argument("--forget-passes", action="store_true",
                        help="nobody enters a pass on the tablet (the camera cannot see one)")
    args = parser.parse_args(argv)
    cases: list[tuple[str, int]] = []
    for text in args.game or []:
        name, _, start = text.partition(":")
        try:
            cases.append((name, int(start or 0)))
        except ValueError:
            parser.error(f"--game {text!r}: expected GAME or GAME:START, START a frame count")
    from vision.render.sequence import SEQUENCE_GAMES

    for name, _ in cases:
        if name not in SEQUENCE_GAMES:
            parser.error(f"--game {name!r}: the renderer plays {', '.join(SEQUENCE_GAMES)}")
    rows = [run_case(g, s, args.seed, args.repeat, args.cap, args.prompt, args.forget_passes)
            for g, s in cases or DEFAULT_CASES]
    for row in rows:
        shown = row if args.log else {k: v for k, v in row.items() if k != "log"}
        print(json.dumps(shown))
    total = {k: sum(r[k] for r in rows) for k in ("answers", "logged", "truth",
                                                  "tile_order_right", "player_right")}
    print(json.dumps({"total": total}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
