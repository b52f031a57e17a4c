"""Super Dominoes (``super``); seed ``004_72ca040cf6b5c366.txt``.

Rules
=====
Two to eight players, a double-fifteen set (136 tiles), nine tiles each; the rest is the
boneyard. The first player sets a double; it is a *fat spinner* with six trains (one on each long
side, one from each corner). Tiles are matched end to end on the trains. A double may also be
played on a 13 end whatever its number; a double lies across the line and the train goes on from
it with the double's number, no new branch. A player who cannot play draws two tiles (fewer if
the boneyard holds fewer) and may play one of them. Every play whose new open end shows one of
the numbers 15, 14, 13 or 3, and every double, has an effect:

* 15 at the open end: every other player takes a tile from the boneyard;
* 14: the player takes another turn at once (anywhere, not necessarily on the 14);
* 13: a spell - the next tile must be played on that 13 end and must be a 13 or a double; a
  player who cannot draws two and plays one of them if able; the spell holds until someone
  plays on that end; 13-13 played there breaks it and casts a new one; the caster is immune;
* 3: the direction of play reverses;
* a double, except the opening double and 13-13: the next player misses a turn.

The effects of the opening double apply too. The hand ends when a player dominoes (plays his
last tile) or when nobody can play (blocked). The winner scores the pips left in the other hands.

Decisions (each with the seed sentence it settles)
==================================================
* Who starts. "The first player in the first hand is determined by drawing for high tile.
  Afterwards, the first player is the player sitting to left of the winner of the previous hand."
  The header's first player starts hand 1; later hands start left (clockwise next) of the last
  winner, or left of the last starter when the last hand had no winner.
* Opening. "The first player sets a double, if he has one. If he has no double in his hand, the
  option of first play goes to the next player, and so on ... If nobody has a double in their
  hand, each player in turns draws a tile from the boneyard until someone draws a double." With
  the deal known: the first player from the starter clockwise who holds a double must set one
  (any of his doubles; no entries for the players who have none); if no hand holds a double,
  players draw one tile each in turn from the starter (``{"player": "Ann", "draw": "3-4"}``) and
  the first to draw a double sets it. Without the deal: the first play must be a double and
  whoever plays it leads; draws before it are taken as they come.
* Drawing. "A player who cannot play draws two tiles from the boneyard and may then play one of
  them." With hands known, drawing while able to play is illegal; after drawing, the player may
  play one drawn tile that fits or pass ("may"), except under a spell: "he draws two tiles from
  the boneyard and plays one of them if able to", so there a fitting drawn tile must be played.
  One draw per turn; an empty boneyard means pass.
* Doubles. "You may play a double on its own suit or on a tile in the 13 suit": a double goes on
  an open end of its own number or on any open 13 end (the spinner included when it is 13-13);
  the train continues with the double's number. "When a double (other than the initial double
  or the [13-13]) is played, the next player misses a turn": a skipped player makes no entry.
* 15. "all the other players must immediately take a tile from the boneyard". With the deal
  known, each other player, from the next in the direction of play onwards, logs his draw
  (``{"player": "Bob", "draw": "7-9"}``) before anything else happens; with fewer tiles left,
  the last ones go without. Without the deal these draws need no entries: the next play
  assumes them taken.
* 13. "the next tile has to be played on that end ... This next tile can either be a 13 or any
  double"; "The caster of the spell is immune from the spell: if the spell is still in force
  when the turn comes back to him he can play normally." The spell holds until a tile is played
  on its end; a newer 13 end replaces an older spell (one spell at a time).
* Order of effects (rules decision): "Several effects from one play resolve in this fixed order:
  15, 13, 3, double-skip, 14. An extra turn is taken at once; a pending skip applies to the next
  player after it."
* Dominoing ends the hand at once: the effects of the last tile are not applied.
* Blocked. "If the game blocks, the winner is the player with the fewest tile in his hand ...
  tie for the lowest number of tiles ... the winner is the player with the fewest pips." The seed
  breaks off at a tie on both: then nobody scores that hand. A blocked winner also gets the
  others' pips. Blocked means as many consecutive passes without a draw as there are players.
* Match. The seed names no game score: option ``target`` (default 250); after a hand, the player
  who has reached it wins (ties on the highest score share). Measured on seeded random play
  (40 seeds x 3 hands), a hand scores 58 points on average with 2 players and 151 with 4, so
  250 is a match of about two to five hands.

Scoring formula
===============
``hand score(winner) = sum of pips in every other player's hand`` (dominoed or blocked winner);
no score for a blocked hand tied on tile count and pips.
"""

from __future__ import annotations

from typing import Any

from companion.errors import MoveFormatError
from companion.games import register
from companion.games.base import Event, Option
from companion.games.lines import LineGame
from companion.moves import Move
from companion.tiles import Tile, full_set, pip_total

TRAINS = 6
THIRTEENS = Tile.of(13, 13)


@register
class SuperDominoes(LineGame):
    """Super Dominoes on a double-fifteen set (see the module docstring)."""

    name = "super"
    aliases = ("super-dominoes", "superdominoes")
    title = "Super Dominoes"
    seed = "004_72ca040cf6b5c366.txt"
    set_max = 15
    min_players = 2
    max_players = 8
    options_spec = {
        "target": Option(250, "the score that wins the match, checked after each hand",
                         minimum=1),
    }

    def reset_layout(self) -> None:
        super().reset_layout()
        self.spinner: Tile | None = None
        self.trains: int = 0  # trains grown from the spinner
        self.direction: int = 1  # 1 clockwise (the order of players), -1 counter-clockwise
        self.skip: bool = False  # the next player misses a turn
        self.spell: list | None = None  # [tile whose 13 end is under the spell, caster]
        self.penalty: list[str] = []  # players who still take a tile for a 15 (in order)
        self.turn = self.round_starter

    def hand_size(self) -> int:
        return 9

    def score_bounds(self) -> tuple[int, int]:
        return (0, self.options["target"] - 1 + pip_total(full_set(15)))

    @property
    def current_player(self) -> str | None:
        if self.finished or self.round_over:
            return None
        return self.penalty[0] if self.penalty else self.players[self.turn]

    # ---- layout ---------------------------------------------------------------------------
    @staticmethod
    def fits(tile: Tile, value: int) -> bool:
        """Whether ``tile`` may go on an open end showing ``value``."""
        return tile.has(value) or (tile.is_double and value == 13)

    def placements(self, tile: Tile, player: str) -> list[Tile | None]:
        if not self.table:
            return [None] if tile.is_double else []
        # the spinner and every arm end are different tiles, so no placement repeats
        out: list[Tile | None] = []
        sp = self.spinner
        lo, hi, dbl = tile.low, tile.high, tile.low == tile.high
        if sp is not None and self.trains < TRAINS and (
                lo == sp.low or hi == sp.low or (dbl and sp.low == 13)):
            out.append(sp)
        for t, v in self.ends:
            if lo == v or hi == v or (dbl and v == 13):
                out.append(t)
        if self.spell is not None and player != self.spell[1]:
            out = [t for t in out if t == self.spell[0]]
        return out

    def why_not(self, tile: Tile, on: Tile | None, player: str) -> str:
        if not self.table:
            return "the first tile of a hand must be a double"
        if self.spell is not None and player != self.spell[1] and on != self.spell[0]:
            return (f"{player} is under {self.spell[1]}'s spell: the next tile goes on the 13 of "
                    f"{self.spell[0]} and is a 13 or a double")
        if on is not None and on == self.spinner:
            v = self.spinner.low
            if self.trains >= TRAINS:
                return f"the spinner {on} has all six trains"
            return f"the spinner {on}'s open ends are {v}" + (
                " (or any double)" if v == 13 else "")
        reason = self.not_open_reason(tile, on)
        if on is not None and tile.is_double and self.end_indexes(on):
            reason += ": a double goes on its own number or on a 13"
        return reason

    def place(self, tile: Tile, on: Tile | None) -> int:
        """Put ``tile`` against ``on``; returns the number now at the open end it made."""
        self.table.append(tile)
        if on is None:
            self.spinner = tile
            return tile.low
        if on == self.spinner:
            self.trains += 1
            new = tile.low if tile.is_double else tile.other(on.low)
            self.ends.append([tile, new])
            return new
        i = next(i for i in self.end_indexes(on) if self.fits(tile, self.ends[i][1]))
        new = tile.low if tile.is_double else tile.other(self.ends[i][1])
        self.ends[i] = [tile, new]
        return new

    # ---- dashboard ---------------------------------------------------------------------------
    def view(self) -> dict[str, Any]:
        """What the dashboard draws: the line view (``arms`` from the spinner out,
        ``open_ends``...) plus ``spinner`` (the opening double, text or None), ``trains``
        (trains grown from it) and ``trains_max`` (6), ``spinner_open`` (its number, while it
        takes more trains, else None), ``direction`` ("clockwise" or "counter-clockwise"),
        ``spell`` (``{"tile", "caster", "open": 13}`` while a 13 spell holds, else None),
        ``skip_pending`` (the next player misses a turn), ``penalty_draws`` (players who still
        take a tile for a 15, in order) and ``target``."""
        out = self.line_view()
        sp = self.spinner
        out.update({
            "spinner": None if sp is None else str(sp),
            "trains": self.trains,
            "trains_max": TRAINS,
            "spinner_open": sp.low if sp is not None and self.trains < TRAINS else None,
            "direction": "clockwise" if self.direction == 1 else "counter-clockwise",
            "spell": None if self.spell is None else {"tile": str(self.spell[0]),
                                                      "caster": self.spell[1], "open": 13},
            "skip_pending": self.skip,
            "penalty_draws": list(self.penalty),
            "target": self.options["target"],
        })
        return out

    # ---- opening ---------------------------------------------------------------------------
    def opener(self) -> str | None:
        """With every hand known at the deal: the first player from the starter clockwise who
        holds a double (None: nobody does, the players draw for one)."""
        n = len(self.players)
        for k in range(n):
            p = self.players[(self.round_starter + k) % n]
            if any(t.is_double for t in self.hands[p]):
                return p
        return None

    @property
    def all_known(self) -> bool:
        return self.hands is not None and not any(self.unknown_in_hand.values())

    # ---- the interface -------------------------------------------------------------------
    def draw_size(self) -> int:
        size = self.boneyard_size()
        return 2 if size is None else min(2, size)

    def legal_moves(self) -> list[Move]:
        if self.finished or self.round_over:
            return []
        if self.penalty:
            return [Move.draw(self.penalty[0], 1)]
        p = self.players[self.turn]
        if not self.table:
            if self.all_known:
                held = sorted(t for t in self.hands[p] if t.is_double)
                return [Move.play(p, t) for t in held] or [Move.draw(p, 1)]
            return [m for q in self.players for m in self.plays_for(q)]
        known = self.hands is not None and self.hand_known(p)
        if self.drew:
            pool = self.drawn if (known or self.drawn) else None
            plays = self.plays_for(p, pool)
            if plays and self.spell is not None and p != self.spell[1] and pool is not None:
                return plays
            return plays + [Move.pass_(p)]
        return self.play_or_draw(p, self.plays_for(p), known, self.draw_size() if known else 0, 2)

    def _apply(self, move: Move) -> list[Event]:
        self.require_kind_in(move, ("deal", "play", "draw", "pass", "end_round"))
        if move.kind == "deal":
            self.take_deal(move)
            first = self.opener()
            if first is not None:
                self.turn = self.players.index(first)
            return []
        if move.kind == "end_round":
            return self._end_round(move)
        if self.round_over:
            self.reject(move, "the round is over: only an end_round entry may follow")
        self.fresh = False
        if self.penalty:
            if self.hands is None and not (move.kind == "draw" and move.player == self.penalty[0]
                                           and move.count == 1):
                self.penalty = []  # without the deal the penalty draws need no entries
            else:
                return self._penalty_draw(move)
        if not self.table:
            return self._opening(move)
        self.require_turn(move)
        known = self.hands is not None and self.hand_known(move.player)
        if move.kind == "draw":
            return self._draw(move, known)
        if move.kind == "pass":
            return self._pass(move, known)
        return self._play(move)

    def _penalty_draw(self, move: Move) -> list[Event]:
        who = self.penalty[0]
        if move.kind != "draw" or move.player != who:
            self.reject(move, f"{who} must first take a tile for the 15 at the open end")
        self.draw_count_check(move, 1)
        self.apply_draw(move)
        self.penalty.pop(0)
        return []

    def _opening(self, move: Move) -> list[Event]:
        if move.kind == "pass":
            self.reject(move, "nobody passes before the first double is set")
        if self.all_known:
            must = self.players[self.turn]
            if move.player != must:
                self.reject(move, f"it is {must}'s turn to " + (
                    "set a double" if move.kind == "play" else "draw for a double"))
            if move.kind == "draw":
                if any(t.is_double for t in self.hands[must]):
                    self.reject(move, f"{must} holds a double and must set it")
                self.draw_count_check(move, 1)
                self.apply_draw(move)
                if not any(t.is_double for t in self.hands[must]):
                    self.next_player()
                return []
        elif move.kind == "draw":
            self.apply_draw(move)
            return []
        if move.on is not None or not move.tile.is_double:
            self.reject(move, "the first tile of a hand is a double, set on its own")
        self.turn = self.players.index(move.player)
        return self._play(move)

    def _draw(self, move: Move, known: bool) -> list[Event]:
        if self.drew:
            self.reject(move, f"{move.player} has drawn this turn already: play a drawn tile "
                        "or pass")
        if known and self.can_play(move.player):
            self.reject(move, f"{move.player} can play, so may not draw")
        if self.boneyard is not None:
            want = self.draw_size()
            if not want:
                self.reject(move, "the boneyard is empty")
            self.draw_count_check(move, want)
        elif (move.count or 0) > 2:
            self.reject(move, "a player who cannot play draws two tiles")
        self.drawn = self.apply_draw(move)
        self.drew = True
        return []

    def _pass(self, move: Move, known: bool) -> list[Event]:
        if known:
            if not self.drew:
                if self.can_play(move.player):
                    self.reject(move, f"{move.player} can play, so may not pass")
                if self.draw_size():
                    self.reject(move, f"{move.player} cannot play and must draw first")
            elif self.spell is not None and move.player != self.spell[1] and \
                    self.plays_for(move.player, self.drawn):
                self.reject(move, f"{move.player} is under a spell and drew a tile that breaks "
                            "it: it must be played")
        self.passes = 0 if self.drew else self.passes + 1
        self._advance()
        return []

    def _play(self, move: Move) -> list[Event]:
        p, tile = move.player, move.tile
        if move.extra:
            raise MoveFormatError(f"unexpected keys {sorted(move.extra)} in a Super Dominoes "
                                  'play; it takes "play" and "on"')
        opening = not self.table
        if opening:
            self.check_in_set(move)
            on = None
        else:
            if self.drew and self.drawn and tile not in self.drawn:
                self.reject(move, "after drawing, only a drawn tile ("
                            + ", ".join(map(str, self.drawn)) + ") may be played")
            on = self.resolve_play(move)
        self.take_tile(move)
        breaks = self.spell is not None and on == self.spell[0]
        value = self.place(tile, on)
        self.passes = 0
        events: list[Event] = []
        if self.out is not None:
            self.drew, self.drawn = False, []
            return [Event("note", p, 0, f"{p} dominoes")]
        if breaks:
            self.spell = None
            events.append(Event("note", p, 0, "the spell is broken"))
        n = len(self.players)
        if value == 15:  # 1. every other player draws one
            others = [self.players[(self.turn + self.direction * k) % n] for k in range(1, n)]
            if self.boneyard is not None:
                others = others[:max(0, self.boneyard_size() or 0)]
            self.penalty = others
            events.append(Event("draw_penalty", p, 0, "15 at the open end: "
                                + (", ".join(others) or "nobody (boneyard empty)")
                                + " take a tile"))
        if value == 13:  # 2. spell
            self.spell = [tile, p]
            events.append(Event("spell", p, 0, f"the 13 of {tile} is under {p}'s spell"))
        if value == 3:  # 3. reverse
            self.direction = -self.direction
            events.append(Event("reverse", p, 0, "the direction of play reverses"))
        if tile.is_double and not opening and tile != THIRTEENS:  # 4. skip
            self.skip = True
            nxt = self.players[(self.turn + self.direction) % n]
            events.append(Event("skip", nxt, 0, f"{nxt} misses a turn after the double {tile}"))
        if value == 14:  # 5. extra turn, at once
            self.drew, self.drawn = False, []
            events.append(Event("extra_turn", p, 0, "14 at the open end: another turn"))
            return events
        self._advance()
        return events

    def _advance(self) -> None:
        """Pass the turn on in the direction of play, skipping a player if one is pending."""
        self.drew, self.drawn = False, []
        steps = 2 if self.skip else 1
        self.skip = False
        self.turn = (self.turn + steps * self.direction) % len(self.players)

    def _end_round(self, move: Move) -> list[Event]:
        if self.all_known:
            if not self.round_over:
                self.reject(move, "the round is not over: nobody has dominoed and play is not "
                            "blocked")
        elif not self.table:
            self.reject(move, "no tile has been played this hand")
        hands = self.end_hands(move)
        pips = self.hand_pips(hands)
        empty = [p for p in self.players if not hands[p]]
        if len(empty) > 1:
            raise MoveFormatError(f"end_round: only one player can go out, but "
                                  f"{', '.join(empty)} hold no tiles")
        if empty:
            winners = empty
            how = f"{empty[0]} dominoed"
        else:
            fewest = min(len(h) for h in hands.values())
            tied = [p for p in self.players if len(hands[p]) == fewest]
            low = min(pips[p] for p in tied)
            winners = [p for p in tied if pips[p] == low]
            how = "blocked"
        events: list[Event] = []
        points = {p: 0 for p in self.players}
        if len(winners) == 1:
            w = winners[0]
            points[w] = sum(v for q, v in pips.items() if q != w)
            self.scores[w] += points[w]
            if points[w]:
                events.append(Event("score", w, points[w], f"{how}: the other hands hold "
                                    f"{points[w]} pips"))
            self.round_starter = (self.players.index(w) + 1) % len(self.players)
        else:
            how += f"; {', '.join(winners)} tie on tiles and pips: nobody scores"
            self.round_starter = (self.round_starter + 1) % len(self.players)
        events.append(Event("round_end", winners[0] if len(winners) == 1 else None, 0, how))
        self.finish_round(points)
        reached = [p for p in self.players if self.scores[p] >= self.options["target"]]
        if reached:
            top = max(self.scores[p] for p in reached)
            events.append(self.finish([p for p in reached if self.scores[p] == top]))
        return events
