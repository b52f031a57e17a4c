"""Chickenfoot (``chickenfoot``); seed ``003_8d1b9facc97c9e65.txt``.

Rules
=====
Two to eight players, a double-nine set, ten rounds. Round ``r`` (1..10) opens with the double
``10-r`` (9-9 first, 0-0 last) set in the centre before the deal; the rest is shuffled and each
player draws a hand: 20, 14, 11, 9, 7, 5, 5 tiles for 2..8 players; the rest is the bone pile.
The round's first player (seat 0 in round 1, one seat further clockwise each round) and then each
player in turn plays one tile. The centre double first takes six *toes* (tiles matching it), and
nothing else may be played until it has them all. After that a tile goes on the open end of any
toe, matching it. A double played on an open end lies crosswise and becomes a *chickenfoot*: the
next three tiles must be its toes (matching it) before play anywhere else resumes. A player must
play if able; a player who cannot draws one tile, plays it at once if it fits, and otherwise
passes. The round ends when a player plays his last tile (dominoes), or when the bone pile is
empty and every player has passed in turn (blocked). Each player then scores the pips left in
his hand, and holding the 0-0 adds 50. After ten rounds the lowest total wins.

Decisions (each with the seed sentence it settles)
==================================================
* Centre double. "Each new round begins with the next-lowest double tile ... the last round
  beginning with a Double 0 tile"; "Place the highest double domino, Double 9 at the center of
  the table" before "Each player draws". The companion places it itself at the start of each
  round (no log entry); a deal never contains it.
* Starting player. "Designate a player to start the game. Thereafter, rotate the starter of each
  round in clockwise order." The header's first player starts round 1; round ``r`` is started by
  seat ``(r-1) mod n``. Turn order is a table rule and is checked with or without a deal.
* Toes of the centre. "the next 6 plays must be made on that initial tile": option ``hub_toes``
  (6, default; 4 for the four-toed table variant). Toes of a later double: "The next 3 plays must
  be made on the double tile". The log names the double in ``"on"`` for a toe.
* Drawing. "that player must draw a single tile from the bone pile. If the player draws a tile
  with a 9 end, it is played at once ... If the player does not draw a tile from the 9 suit, play
  must pass". With hands known, a player who can play may not draw or pass; after drawing, the
  only legal play is the drawn tile (if it fits), else a pass. One draw per turn. With the bone
  pile empty a player who cannot play passes without drawing.
* Blocked. "the bone pile is depleted and all players have passed on their turn": as many
  consecutive passes without a draw as there are players. A chickenfoot that nobody can finish
  ends the round in that block.
* Double blank. "50 points are added to a player's score for any player left holding the
  Double 0 (or blank) tile." Option ``double_blank`` (whole number, default 50; 0 disables it).
  In round 10 the 0-0 is the centre double, so nobody can hold it.
* Winning. "After the last round, the player with the lowest total score wins the game." Ties
  share the win (``winner`` lists them all).
* Without a deal (the live camera never sees hands) the must-play and dominoing rules are not
  checked; the centre, toes-first and matching ends still are, and ``end_round`` must carry the
  hands as the players count them.

Scoring formula
===============
Per round: ``score(p) = sum of pips in p's hand + double_blank if 0-0 in p's hand``; totals add
up over ten rounds; the winners are the players with the lowest total.
"""

from __future__ import annotations

from typing import Any

from companion.errors import MoveFormatError
from companion.games import register
from companion.games.base import Event, Option
from companion.games.lines import LineGame
from companion.moves import Move
from companion.tiles import Tile, full_set, pip_total

_HANDS = {2: 20, 3: 14, 4: 11, 5: 9, 6: 7, 7: 5, 8: 5}
ROUNDS = 10
DOUBLE_BLANK = Tile.of(0, 0)


@register
class Chickenfoot(LineGame):
    """Chickenfoot on a double-nine set (see the module docstring)."""

    name = "chickenfoot"
    aliases = ("chicken-foot", "chicken_foot")
    title = "Chickenfoot"
    seed = "003_8d1b9facc97c9e65.txt"
    set_max = 9
    min_players = 2
    max_players = 8
    options_spec = {
        "hub_toes": Option(6, "toes the centre double takes before any other play",
                           choices=(6, 4)),
        "double_blank": Option(50, "points added for holding the 0-0 at the end of a round "
                               "(0: none)", minimum=0),
    }

    def reset_layout(self) -> None:
        super().reset_layout()
        self.round_starter = (self.round - 1) % len(self.players)
        self.turn = self.round_starter
        if self.round > ROUNDS:
            self.hub = None
            self.pending = None
            return
        d = ROUNDS - self.round
        self.hub: Tile | None = Tile.of(d, d)
        self.table.append(self.hub)
        self.pending: list | None = [self.hub, self.options["hub_toes"]]  # [double, toes left]

    def hand_size(self) -> int:
        return _HANDS[len(self.players)]

    def score_bounds(self) -> tuple[int, int]:
        per_round = pip_total(full_set(9)) + self.options["double_blank"]
        return (0, ROUNDS * per_round)

    # ---- layout ---------------------------------------------------------------------------
    def placements(self, tile: Tile, player: str) -> list[Tile | None]:
        # every arm ends in a different tile, so no placement repeats
        if self.pending is not None:
            double = self.pending[0]
            return [double] if tile.has(double.low) else []
        return [t for t, v in self.ends if tile.low == v or tile.high == v]

    def why_not(self, tile: Tile, on: Tile | None, player: str) -> str:
        if self.pending is not None:
            double, left = self.pending
            what = "centre double" if double == self.hub else "chickenfoot"
            if on is not None and on != double:
                return (f"the {what} {double} still needs {left} toe{'s' if left != 1 else ''} "
                        "before any other play")
            return f"a toe of the {what} {double} must carry a {double.low}"
        return self.not_open_reason(tile, on)

    def place(self, tile: Tile, on: Tile) -> None:
        self.table.append(tile)
        if self.pending is not None and on == self.pending[0]:
            self.ends.append([tile, tile.other(on.low)])
            self.pending[1] -= 1
            if self.pending[1] == 0:
                self.pending = None
            return
        i = next(i for i in self.end_indexes(on) if tile.has(self.ends[i][1]))
        if tile.is_double:
            del self.ends[i]
            self.pending = [tile, 3]
        else:
            self.ends[i] = [tile, tile.other(self.ends[i][1])]

    # ---- dashboard ---------------------------------------------------------------------------
    def view(self) -> dict[str, Any]:
        """What the dashboard draws: the line view (``arms`` from the centre double out,
        ``open_ends``, ``table``...) plus ``hub`` (the centre double, text), ``toes`` (per
        double with toes, centre first: ``{"double", "toes": [toe tiles], "centre"}``),
        ``must_complete`` (``{"double", "toes_left", "centre"}`` while a double still needs
        toes before any other play, else None), ``rounds`` (10), ``lower_is_better`` (true:
        round scores are penalty pips) and ``round_penalties`` (the penalty grid so far).

        A chickenfoot double still without a toe ends no open arm (its end waits for its
        toes), so its arm would not be drawn at all: it is added to ``arms`` with ``open`` the
        number its toes must carry and ``toes_left``; it is not in ``open_ends``."""
        out = self.line_view()
        if self.pending is not None and self.pending[0] != self.hub:
            double, left = self.pending
            if not any(double in self.chain_to(t) for t, _ in self.ends):
                out["arms"].append({"tiles": [str(t) for t in self.chain_to(double)],
                                    "end": str(double), "open": double.low,
                                    "double_end": True, "toes_left": left})
        toes: dict[Tile, list[str]] = {}
        for child, parent in self.parents.items():
            if parent.is_double and (parent == self.hub or parent in self.parents):
                toes.setdefault(parent, []).append(str(child))
        order = [t for t in self.table if t in toes or t == self.hub]
        pending = None
        if self.pending is not None:
            pending = {"double": str(self.pending[0]), "toes_left": self.pending[1],
                       "centre": self.pending[0] == self.hub}
        out.update({
            "hub": None if self.hub is None else str(self.hub),
            "toes": [{"double": str(d), "toes": toes.get(d, []), "centre": d == self.hub}
                     for d in order],
            "must_complete": pending,
            "rounds": ROUNDS,
            "lower_is_better": True,
            "round_penalties": [dict(r) for r in self.round_scores],
        })
        return out

    # ---- the interface -------------------------------------------------------------------
    def legal_moves(self) -> list[Move]:
        if self.finished or self.round_over:
            return []
        p = self.players[self.turn]
        known = self.hands is not None and self.hand_known(p)
        if self.drew:
            if known or self.drawn:
                return self.plays_for(p, self.drawn) or [Move.pass_(p)]
            return self.plays_for(p) + [Move.pass_(p)]
        return self.play_or_draw(p, self.plays_for(p), known, 1 if self.boneyard_size() else 0, 1)

    def _apply(self, move: Move) -> list[Event]:
        self.require_kind_in(move, ("deal", "play", "draw", "pass", "end_round"))
        if move.kind == "deal":
            self.take_deal(move)
            return []
        if move.kind == "end_round":
            return self._end_round(move)
        if self.round_over:
            self.reject(move, "the round is over: only an end_round entry may follow")
        self.require_turn(move)
        self.fresh = False
        known = self.hands is not None and self.hand_known(move.player)
        if move.kind == "draw":
            if self.drew:
                self.reject(move, f"{move.player} has drawn this turn already: play the drawn "
                            "tile if it fits, else pass")
            if known and self.can_play(move.player):
                self.reject(move, f"{move.player} can play, so may not draw")
            if self.boneyard is not None and not self.boneyard_size():
                self.reject(move, "the bone pile is empty")
            self.draw_count_check(move, 1)  # "draw one", known pile or not
            self.drawn = self.apply_draw(move)
            self.drew = True
            return []
        if move.kind == "pass":
            if known:
                fits = self.plays_for(move.player, self.drawn if self.drew else None)
                if fits:
                    self.reject(move, f"{move.player} can play, so may not pass")
                if not self.drew and self.boneyard_size():
                    self.reject(move, f"{move.player} cannot play and must draw one tile first")
            self.passes = 0 if self.drew else self.passes + 1
            self._next_turn()
            return []
        # play
        if self.drew and self.drawn and move.tile not in self.drawn:
            self.reject(move, f"after drawing, only the drawn tile "
                        f"{', '.join(map(str, self.drawn))} may be played")
        on = self.resolve_play(move)
        if move.extra:
            raise MoveFormatError(f"unexpected keys {sorted(move.extra)} in a Chickenfoot play; "
                                  'it takes "play" and "on"')
        self.take_tile(move)
        self.place(move.tile, on)
        self.passes = 0
        self._next_turn()
        return []

    def _next_turn(self) -> None:
        self.drew = False
        self.drawn = []
        self.next_player()

    def _end_round(self, move: Move) -> list[Event]:
        if self.hands is not None and not any(self.unknown_in_hand.values()):
            if not self.round_over:
                self.reject(move, "the round is not over: nobody has dominoed and play is not "
                            "blocked")
        hands = self.end_hands(move)
        points = {p: pip_total(h) + (self.options["double_blank"] if DOUBLE_BLANK in h else 0)
                  for p, h in hands.items()}
        events = []
        for p in self.players:
            self.scores[p] += points[p]
            if points[p]:
                events.append(Event("score", p, points[p], f"{len(hands[p])} tiles left"))
        out = [p for p in self.players if not hands[p]]
        how = f"{out[0]} dominoed" if out else "blocked"
        events.append(Event("round_end", out[0] if out else None, 0, f"round {self.round}: {how}"))
        self.round_scores.append(dict(points))
        self.round += 1
        self.reset_layout()
        if self.round > ROUNDS:
            self.round = ROUNDS  # the match ends in its tenth round
            low = min(self.scores.values())
            events.append(self.finish([p for p in self.players if self.scores[p] == low]))
        return events

    @property
    def needs_deal(self) -> bool:
        return self.hands is None and not self.finished
