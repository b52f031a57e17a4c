"""All Fives, the Walnut Studiolo way (``allfives``); seed ``002_f9093d6ae5bbe4fb.txt``.

Rules
=====
Two to eight players. Each draws a hand from the shuffled set: 7 tiles with 2 players, 6 with 3,
5 with 4 (seed: "For 2 players, draw 7, for 3 players, draw 6, or for 4 players, draw 5"); the
rest is the boneyard. The player with the highest double leads it; that double is the *spinner*
and can be played on from all four sides. Play goes clockwise (the order of ``players``). A tile
is played against an open end whose number it matches. Whenever the open ends of the layout add
up to a positive multiple of 5 after a play, the player who made it scores that sum. A player who
cannot play draws from the boneyard until able; with the boneyard empty, passes. The hand ends
when a player plays his last tile or when nobody can play (blocked); its winner gets a bonus.
The first player to reach the target (default 100) wins the match at once.

Decisions (each with the seed sentence it settles)
==================================================
* Set. "if it gets larger than 4, then you'll need a set of double-twelve dominoes." Option
  ``set``: ``"auto"`` (default: double-six for 2-4 players, double-twelve for 5-8),
  ``"double-six"`` (2-4 players only) or ``"double-twelve"``. The seed gives no hand size beyond
  4 players: 5 to 8 players take 5 tiles each (as 4 players do).
* Opening, option ``opening``. ``"double"`` (default): "the player with the highest double places
  that tile down. If no player has a double, each player draws an additional tile from the
  boneyard. Repeat until one player can start." With the deal known, the holder of the highest
  double must lead it; if no hand holds a double, every player in turn (from the round's starting
  seat: seat 0 in round 1, one seat further each round) draws one tile (``{"player": "Ann",
  "draw": "3-4"}``), and after each full turn of draws the highest double held leads. Without
  the deal, the first play must be a double and whoever plays it leads. ``"any"`` (pagat): the
  round's starting seat leads any tile (without the deal: whoever plays first); the first double
  played becomes the spinner.
* Spinner sides. "At any time there may be 2, 3, or 4 open ends on the spinner." Option
  ``spinner_sides_first``: ``false`` (default, the seed's example: "At this point three sides of
  the 5-5 are available for play") - once one tile is on the spinner all three other sides are
  open; ``true`` (pagat) - both long sides (the line through the spinner) before the two short
  ends. A play on the spinner names it in ``"on"`` and may say which kind of side it took with
  the optional key ``"spinner_side": "long"`` or ``"end"`` (the camera sees it); with
  ``spinner_sides_first`` an ``"end"`` before both long sides are taken is illegal. Without the
  key the companion fills long sides first, then ends. The side never changes a count (every
  arm's outer end counts the same) and, without the key, never changes which tiles are legal
  (one tile goes on per play and a side is free while fewer than four arms touch the spinner),
  so the option matters only to logs that carry ``"spinner_side"``. With ``opening: "any"`` the
  line into a later spinner takes one of its long sides.
* Count. "When the spinner has only been played off only one edge ... all of its dots count";
  "As play proceeds on at least 2 sides of the spinner, the totals are counted only on the pips
  on the ends"; "a double 3 played mid-way through game play would be counted as 6". The count
  is the sum of the outer end of every arm, a crosswise double at an arm's end counting both
  halves, plus both halves of the spinner while at most one arm touches it. With ``opening:
  "any"`` a lone first tile counts both its ends.
* Drawing. "If a player is unable to make a move, he must draw dominoes from the boneyard, until
  s/he can play. If there are no dominoes left, then the player must pass." One draw entry per
  tile; the player keeps the turn after drawing. With hands known, drawing while able to play and
  passing while able to play or draw are illegal.
* End of hand. "the player who has no tiles left, or the player with the "lightest" hand ...
  wins the total of his opponents points added together (minus any points in his/her own hand if
  it's a blocked game), rounded to the nearest 5, and divided by 5." Rounding is
  ``5*floor((n+2)/5)`` (26 -> 25; 27 -> 25; 28 -> 30). Blocked and tied for the lightest hand:
  nobody gets a bonus. Option ``bonus_divide_by_5`` (default ``true``); ``false`` adds the rounded
  total itself (pagat's Muggins).
* Winning. "A game is won when the first player reaches the agreed-upon game score (such as
  100)." Option ``target`` (default 100); the match ends the moment a score reaches it, mid-hand
  included.

Scoring formula
===============
``count = sum(outer end of each arm, x2 if that end is a crosswise double) + (2 x spinner value
if the spinner touches at most one arm)``; a play scores ``count`` when ``count % 5 == 0 and
count > 0``. Hand bonus: ``n = sum(opponents' pips) - (own pips if blocked)``;
``bonus = 5*floor((n+2)/5) // 5`` (or without ``// 5`` when ``bonus_divide_by_5`` is false).
"""

from __future__ import annotations

from typing import Any

from companion.errors import DominoError, MoveFormatError, OptionError
from companion.games import register
from companion.games.base import Event, Option
from companion.games.lines import LineGame
from companion.moves import Move
from companion.tiles import Tile, full_set, pip_total

_HANDS = {2: 7, 3: 6, 4: 5}
_SETS = {"double-six": 6, "double-twelve": 12}


def round_bonus(n: int, divide_by_5: bool = True) -> int:
    """The hand bonus for a pip difference ``n``: round to the nearest 5, then divide by 5."""
    if n < 0:
        raise ValueError(f"a hand bonus is computed from a pip total of at least 0, got {n}")
    rounded = 5 * ((n + 2) // 5)
    return rounded // 5 if divide_by_5 else rounded


def houses_tally(score: int) -> dict[str, Any]:
    """``score`` as the seed's houses: "Each line represents 5 points ... Scoring goes in order:
    one line diagonally, one line crossing it, then X's and O's filling in the four corners.
    Once filled in, each house is always 50 points."

    Returns ``houses`` (full houses of 50), ``strokes`` (5-point lines in the house being
    drawn, 0..9), ``marks`` (that house's marks in drawing order: ``"line"``, ``"cross"``, then
    per corner ``"X"`` or ``"O"`` (10 each; the corners alternate X, O, X, O since only the
    total is known, not how it was made) and ``"half"`` for a corner holding one 5-point line)
    and ``rest`` (points below 5, which All Fives never scores)."""
    if score < 0:
        raise DominoError(f"a houses tally needs a score of 0 or more, got {score}")
    houses, left = divmod(score, 50)
    strokes, rest = divmod(left, 5)
    marks: list[str] = ["line", "cross"][:strokes]
    corners, half = divmod(max(0, strokes - 2), 2)
    marks += ["X" if i % 2 == 0 else "O" for i in range(corners)]
    if half:
        marks.append("half")
    return {"houses": houses, "strokes": strokes, "marks": marks, "rest": rest}


@register
class AllFives(LineGame):
    """All Fives with a spinner, Walnut Studiolo scoring (see the module docstring)."""

    name = "allfives"
    aliases = ("all-fives", "fives", "muggins")
    title = "All Fives"
    seed = "002_f9093d6ae5bbe4fb.txt"
    set_max = 6
    min_players = 2
    max_players = 8
    options_spec = {
        "opening": Option("double", "double: the highest double leads and is the spinner; any: "
                          "any tile leads, the first double played is the spinner",
                          choices=("double", "any")),
        "spinner_sides_first": Option(False, "true: both long sides of the spinner must be "
                                      "played on before its two ends"),
        "bonus_divide_by_5": Option(True, "divide the rounded end-of-hand bonus by 5"),
        "target": Option(100, "the score that wins the match", minimum=5),
        "set": Option("auto", "auto: double-six for 2-4 players, double-twelve for 5-8",
                      choices=("auto", "double-six", "double-twelve")),
    }

    def setup(self) -> None:
        n = len(self.players)
        chosen = self.options["set"]
        if chosen == "auto":
            chosen = "double-six" if n <= 4 else "double-twelve"
        if chosen == "double-six" and n > 4:
            raise OptionError(f"set='double-six' is for 2 to 4 players, got {n}: the seed says "
                              "more than 4 players need a double-twelve set; use "
                              "set='double-twelve' or 'auto'")
        self.set_max = _SETS[chosen]
        super().setup()

    def reset_layout(self) -> None:
        super().reset_layout()
        self.spinner: Tile | None = None
        self.spinner_long: int = 0  # long sides of the spinner taken (the line through it)
        self.spinner_ends: int = 0  # short ends of the spinner taken
        self.open_draws: int = 0  # draws in the current turn of opening draws
        self.turn = self.round_starter

    def hand_size(self) -> int:
        return _HANDS.get(len(self.players), 5)

    def score_bounds(self) -> tuple[int, int]:
        total = pip_total(full_set(self.set_max))
        best = max(8 * self.set_max, round_bonus(total, self.options["bonus_divide_by_5"]))
        return (0, self.options["target"] - 1 + best)

    # ---- layout ---------------------------------------------------------------------------
    @property
    def all_known(self) -> bool:
        return self.hands is not None and not any(self.unknown_in_hand.values())

    @property
    def spinner_arms(self) -> int:
        """Arms touching the spinner (its long sides and ends taken)."""
        return self.spinner_long + self.spinner_ends

    def spinner_sides_open(self) -> list[str]:
        """The kinds of spinner side that may take a tile now: ``"long"`` and/or ``"end"``."""
        if self.spinner is None:
            return []
        out = []
        if self.spinner_long < 2:
            out.append("long")
        if self.spinner_ends < 2 and not (self.options["spinner_sides_first"]
                                          and self.spinner_long < 2):
            out.append("end")
        return out

    def spinner_free(self) -> int:
        """Sides of the spinner that may take a tile now."""
        kinds = self.spinner_sides_open()
        return (2 - self.spinner_long if "long" in kinds else 0) + (
            2 - self.spinner_ends if "end" in kinds else 0)

    def count(self) -> int:
        """The sum of the open ends (see the scoring formula)."""
        total = sum(2 * v if t.is_double else v for t, v in self.ends)
        if self.spinner is not None and self.spinner_arms <= 1:
            total += 2 * self.spinner.low
        return total

    def placements(self, tile: Tile, player: str) -> list[Tile | None]:
        if not self.table:
            if self.options["opening"] == "double" and not tile.is_double:
                return []
            return [None]
        out: list[Tile | None] = []
        for t, v in self.ends:
            if tile.has(v) and t not in out:
                out.append(t)
        if self.spinner is not None and self.spinner_free() > 0 and tile.has(self.spinner.low):
            out.append(self.spinner)
        return out

    def why_not(self, tile: Tile, on: Tile | None, player: str) -> str:
        if not self.table:
            if on is not None:
                return f"the table is empty: the first tile goes on nothing, not on {on}"
            return "the first tile of a hand must be a double (opening: double)"
        if on is not None and on == self.spinner:
            v = self.spinner.low
            if not tile.has(v):
                return f"the spinner {on}'s open sides are {v}"
            return f"the spinner {on} has no free side: four arms touch it"
        return self.not_open_reason(tile, on)

    def place(self, tile: Tile, on: Tile | None, side: str | None = None) -> None:
        """Put ``tile`` on the table against ``on`` (``None``: the first tile); ``side`` is the
        spinner side (``"long"``/``"end"``) for a play on the spinner, chosen long-first when
        not given."""
        self.table.append(tile)
        if on is None:
            if tile.is_double:
                self.spinner = tile
            else:
                self.ends = [[tile, tile.low], [tile, tile.high]]
            return
        if on == self.spinner:
            self.ends.append([tile, tile.other(self.spinner.low)])
            if (side or self.spinner_sides_open()[0]) == "long":
                self.spinner_long += 1
            else:
                self.spinner_ends += 1
            return
        i = next(i for i in self.end_indexes(on) if tile.has(self.ends[i][1]))
        v = self.ends[i][1]
        if tile.is_double and self.spinner is None:
            del self.ends[i]
            self.spinner, self.spinner_long = tile, 1  # the line comes in on a long side
        else:
            self.ends[i] = [tile, v if tile.is_double else tile.other(v)]

    # ---- dashboard ---------------------------------------------------------------------------
    def view(self) -> dict[str, Any]:
        """What the dashboard draws: the line view (``arms``, ``open_ends``, ``table``...) plus
        ``spinner`` (text or None), ``spinner_arms`` (arms touching it), ``spinner_open``
        (the number its free sides show, once per side that may take a tile now),
        ``count`` (the open-end count by the scoring formula), ``scores_now`` (whether that
        count is a positive multiple of 5) and ``houses``: per player the score as the seed's
        houses tally (see :func:`houses_tally`)."""
        out = self.line_view()
        sp = self.spinner
        count = self.count()
        out.update({
            "spinner": None if sp is None else str(sp),
            "spinner_arms": self.spinner_arms,
            "spinner_open": [] if sp is None else [sp.low] * self.spinner_free(),
            "count": count,
            "scores_now": count > 0 and count % 5 == 0,
            "target": self.options["target"],
            "houses": {p: houses_tally(self.scores[p]) for p in self.players},
        })
        return out

    # ---- opening ---------------------------------------------------------------------------
    def opening_leader(self) -> tuple[str, Tile | None] | None:
        """With every hand known and the table empty: who must lead what (None: draw first)."""
        if self.options["opening"] == "any":
            return (self.players[self.round_starter], None)
        best: tuple[Tile, str] | None = None
        for p in self.players:
            for t in self.hands[p]:
                if t.is_double and (best is None or t.high > best[0].high):
                    best = (t, p)
        if best is not None and (self.open_draws == 0 or not self.boneyard):
            return (best[1], best[0])
        return None

    # ---- the interface -------------------------------------------------------------------
    def legal_moves(self) -> list[Move]:
        if self.finished or self.round_over:
            return []
        if not self.table and self.all_known:
            lead = self.opening_leader()
            if lead is None:
                return [Move.draw(self.players[self.turn], 1)]
            p, tile = lead
            if tile is None:
                return self.plays_for(p)
            return [Move.play(p, tile)]
        if not self.table:
            return [m for p in self.players for m in self.plays_for(p)]
        p = self.players[self.turn]
        known = self.hands is not None and self.hand_known(p)
        return self.play_or_draw(p, self.plays_for(p), known, 1 if self.boneyard_size() else 0, 1)

    def _apply(self, move: Move) -> list[Event]:
        self.require_kind_in(move, ("deal", "play", "draw", "pass", "end_round"))
        if move.kind == "deal":
            self.take_deal(move)
            lead = self.opening_leader()
            if lead is not None:
                self.turn = self.players.index(lead[0])
            return []
        if move.kind == "end_round":
            return self._check_target(self._end_round(move))
        if self.round_over:
            self.reject(move, "the round is over: only an end_round entry may follow")
        self.fresh = False
        if move.kind == "draw":
            return self._draw(move)
        if move.kind == "pass":
            return self._pass(move)
        return self._check_target(self._play(move))

    def _check_target(self, events: list[Event]) -> list[Event]:
        """End the match the moment a score reaches the target."""
        reached = [p for p in self.players if self.scores[p] >= self.options["target"]]
        if reached:
            events.append(self.finish(reached))
        return events

    def _draw(self, move: Move) -> list[Event]:
        if not self.table:
            if self.all_known:
                if self.opening_leader() is not None:
                    self.reject(move, "a double is held: the highest double leads, no one draws")
                self.require_turn(move)
                self.draw_count_check(move, 1)
                self.apply_draw(move)
                self.open_draws = (self.open_draws + 1) % len(self.players)
                self.next_player()
                return []
            self.apply_draw(move)
            return []
        self.require_turn(move)
        if self.hands is not None and self.hand_known(move.player):
            if self.can_play(move.player):
                self.reject(move, f"{move.player} can play, so may not draw")
            self.draw_count_check(move, 1)
        self.apply_draw(move)
        return []

    def _pass(self, move: Move) -> list[Event]:
        if not self.table:
            self.reject(move, "nobody passes before the first tile: the leader must lead")
        self.require_turn(move)
        if self.hands is not None and self.hand_known(move.player):
            if self.can_play(move.player):
                self.reject(move, f"{move.player} can play, so may not pass")
            if self.boneyard_size():
                self.reject(move, f"{move.player} cannot play and must draw: the boneyard holds "
                            f"{self.boneyard_size()} tiles")
        self.passes += 1
        self.next_player()
        return []

    def _play(self, move: Move) -> list[Event]:
        tile = move.tile
        if not self.table:
            self.check_in_set(move)
            if self.all_known:
                lead = self.opening_leader()
                if lead is None:
                    self.reject(move, "no hand holds a double: the players draw until one can "
                                "lead")
                p, need = lead
                if move.player != p:
                    what = f"{p} holds the highest double, {need}" if need else f"{p} leads"
                    self.reject(move, f"{what}, so {p} leads this hand")
                if need is not None and tile != need:
                    self.reject(move, f"the highest double, {need}, must lead")
            if move.on is not None:
                self.reject(move, self.why_not(tile, move.on, move.player))
            if not self.placements(tile, move.player):
                self.reject(move, self.why_not(tile, None, move.player))
            self.turn = self.players.index(move.player)
            on = None
        else:
            self.require_turn(move)
            on = self.resolve_play(move)
        side = self._spinner_side(move, on)
        self.take_tile(move)
        self.place(tile, on, side)
        self.passes = 0
        self.next_player()
        count = self.count()
        events: list[Event] = []
        if count > 0 and count % 5 == 0:
            events.append(self._score(move.player, count, f"the open ends count {count}"))
        return events

    def _spinner_side(self, move: Move, on: Tile | None) -> str | None:
        """The optional ``"spinner_side"`` key of a play on the spinner, checked."""
        extra = dict(move.extra)
        side = extra.pop("spinner_side", None)
        if extra:
            raise MoveFormatError(f"unexpected keys {sorted(extra)} in an All Fives play; it "
                                  'takes "play", "on" and, on the spinner, "spinner_side"')
        if side is None:
            return None
        if on is None or on != self.spinner:
            self.reject(move, '"spinner_side" is only for a tile played on the spinner')
        if side not in ("long", "end"):
            raise MoveFormatError(f'"spinner_side" is "long" or "end", got {side!r}')
        if side not in self.spinner_sides_open():
            why = ("both long sides must be played on first (spinner_sides_first)"
                   if side == "end" and self.spinner_ends < 2 else f"both {side} sides are taken")
            self.reject(move, f"the spinner {on} takes no tile on an {side} side now: {why}"
                        if side == "end" else f"the spinner {on} has no free long side")
        return str(side)

    def _score(self, player: str, points: int, why: str) -> Event:
        self.scores[player] += points
        self.round_points[player] += points
        return Event("score", player, points, why)

    def _end_round(self, move: Move) -> list[Event]:
        if self.hands is not None and not any(self.unknown_in_hand.values()):
            if not self.round_over:
                self.reject(move, "the round is not over: nobody has gone out and play is not "
                            "blocked")
        elif not self.table:
            self.reject(move, "no tile has been played this round")
        hands = self.end_hands(move)
        pips = self.hand_pips(hands)
        empty = [p for p in self.players if not hands[p]]
        if len(empty) > 1:
            raise MoveFormatError(f"end_round: only one player can go out, but {', '.join(empty)}"
                                  " hold no tiles")
        events: list[Event] = []
        winner: str | None = None
        if empty:
            winner = empty[0]
            n = sum(pips.values())
            how = f"{winner} went out; opponents hold {n} pips"
        else:
            low = min(pips.values())
            lightest = [p for p in self.players if pips[p] == low]
            if len(lightest) == 1:
                winner = lightest[0]
                n = sum(pips.values()) - 2 * low
                how = f"blocked; {winner} has the lightest hand ({low}); difference {n}"
            else:
                how = f"blocked; {', '.join(lightest)} tie for the lightest hand: no bonus"
        if winner is not None:
            bonus = round_bonus(n, self.options["bonus_divide_by_5"])
            if bonus:
                events.append(self._score(winner, bonus, how))
        events.append(Event("round_end", winner, 0, how))
        self.finish_round({})
        self.round_starter = (self.round_starter + 1) % len(self.players)
        self.turn = self.round_starter
        return events

