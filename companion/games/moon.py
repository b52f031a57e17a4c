"""Moon (``moon``), after seed 003 (Moon section): three players, each for themself.

The game
--------
A double-six set without the blanks except 0-0: 22 tiles. Each of the 3 players draws 7; the
22nd tile is the widow, face down. ``players`` are in clockwise order; ``players[0]`` shuffles
first and the shuffle rotates left (clockwise) after every hand.

One round of bidding starts left of the shuffler and ends with the shuffler: each player passes
or bids more tricks than the high bid: 4, 5, 6, 7, or 21 ("shooting the moon": all 7 tricks for
21 points). A bid of 21 ends the bidding. If all pass, the tiles are reshuffled by the next
player. The bidder names trump (a number 0..6, or ``"none"`` for no trump), takes the widow into
the hand, discards one of the eight tiles face down, and leads. Play is as in Forty-Two (see
:mod:`companion.games.tricks`): follow suit if able; a trump belongs only to trump; the double is
the highest of its suit; the highest trump, else the highest of the suit led, wins the trick.

Scoring formula, bidder took ``t`` tricks, each opponent ``t_i`` (``t + sum t_i = 7``)::

    need = 7 if bid == 21 else bid
    made (t >= need):  bidder += (21 if bid == 21 else t)
    set  (t <  need):  bidder -= bid                      (21 for a moon)
    always:            each opponent += t_i

Scores can go below zero. The first player to 21 (option ``target``) wins; when more than one
reaches it on the same hand, the bidder wins if among them, otherwise the higher score (equal:
the win is shared).

Option ``max_hands`` (not from the seed; default 0 = no limit, the seed's rule): the match also
ends after that many hands, the highest score winning (equal: shared). Why it exists: a set bidder
loses the bid, so scores can fall without limit and a match need not ever reach 21; uniformly
random self-play, which bids 7 and 21 far more than people do, reached 21 in only 3 of 20 seeded
matches within 300 hands (docs/games/moon.md). Seeded random self-play (``simulate``, ``bench``,
the conformance test) therefore plays Moon with ``max_hands: 50`` (the class's
``simulation_options``); a table can set it too.

Decisions (docs/rules-decisions.md) with the seed sentence each settles
------------------------------------------------------------------------
* Set: "All tiles with blanks, except the double blank, are removed from a Double 6 set, leaving
  22 tiles." -> :meth:`Moon.round_set`, checked to hold 22 tiles.
* Bids: "bidding starts at 4 tricks and goes as high as 7 ... each bids or passes once. They can
  bid 7 or 21: 21 being the game." -> pass, 4..7 or 21, each above the high bid; 21 needs all 7
  tricks and ends the bidding (no higher bid exists). All pass: redeal by the next shuffler.
* Widow: "The extra is the "widow" for the bidder's hand. If the tile is used, the bidder
  discards another tile." -> after naming trump the bidder takes the widow and discards any one
  of the eight tiles (the widow itself included) face down; order as in the decisions: trump,
  widow and discard, lead.
* Scoring: "Failing costs the bidder the points/tricks he/she bid. The opponents get points for
  the tricks they captured. Tricks are 1 point." -> formula above; a made bid scores the tricks
  taken (21 for a made moon).
* Suits: "Pips are used as suits, with the double being highest."
* Target: "21 being the game" -> first to 21; "bidder wins ties on the final hand" is read as
  "bidder goes out" (pagat.com): when several reach 21 on one hand, the bidder wins if among
  them, as Forty-Two's both-cross rule.

Log entries: ``{"deal": {"Ann": [...7], "Bob": [...], "Cy": [...]}, "widow": "3-4"}`` (optional;
``widow`` may be left out, it is the tile not dealt), ``{"player": "Ann", "bid": 5}`` /
``"bid": "pass"``, ``{"player": "Ann", "trump": 4}`` (or ``"none"``), ``{"player": "Ann",
"discard": "3-4"}``, ``{"player": "Ann", "play": "6-4"}``, ``{"end_round": {"taken": {"Ann": 5,
"Bob": 1, "Cy": 1}}}`` (tricks each player took; optional once all 7 tricks are played).
With the deal logged, the discard entry is required and names a tile of the bidder's eight.
Without a deal (live camera) the discard is face down and may be left out: the bidder's lead
then closes the widow exchange unseen.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any, ClassVar

from companion.errors import MoveFormatError
from companion.games import register
from companion.games.base import Event, Option
from companion.games.tricks import TrickGame, Trump
from companion.moves import Move
from companion.tiles import Tile, full_set

#: Moon's bids in increasing order (21: shoot the moon).
BIDS = (4, 5, 6, 7, 21)
MOON = 21
#: The 22 tiles: double-six without the blanks except 0-0 (tests check the count).
MOON_SET: tuple[Tile, ...] = tuple(t for t in full_set(6) if t.low != 0 or t.is_double)
#: Hand limit used for random self-play (option ``max_hands``): far above a table's evening, low
#: enough that any match ends.
SIMULATION_MAX_HANDS = 50


@register
class Moon(TrickGame):
    """Moon: 3 players, 22 tiles, bid 4..7 or 21 tricks, widow and discard, 7 tricks."""

    name: ClassVar[str] = "moon"
    aliases: ClassVar[tuple[str, ...]] = ("texas-moon",)
    title: ClassVar[str] = "Moon"
    seed: ClassVar[str] = "003_8d1b9facc97c9e65.txt"
    set_max: ClassVar[int] = 6
    min_players: ClassVar[int] = 3
    max_players: ClassVar[int] = 3
    hand_total: ClassVar[int] = 7
    move_kinds: ClassVar[tuple[str, ...]] = ("deal", "bid", "trump", "discard", "play",
                                             "end_round")
    options_spec: ClassVar[Mapping[str, Option]] = {
        "target": Option(21, "points that win the game", minimum=1),
        "max_hands": Option(0, "not from the seed: the match also ends after this many "
                               "hands, the highest score winning (0: no limit, the seed's rule)",
                            minimum=0),
    }
    simulation_options: ClassVar[Mapping[str, Any]] = {"max_hands": SIMULATION_MAX_HANDS}

    # ---- declarations -------------------------------------------------------------------
    def round_set(self) -> list[Tile]:
        return list(MOON_SET)

    def score_bounds(self) -> tuple[int, int]:
        # A hand adds at most 21 to a score below the target and takes at most 21 away. With
        # no hand limit the rules set no floor; -21_000 (1000 failed moons) is then a declared
        # sanity bound, not a rule.
        limit = self.options["max_hands"] or 1000
        return (-MOON * limit, self.options["target"] - 1 + MOON)

    def trump_choices(self) -> list[Trump]:
        return [*range(7), "none"]

    def bid_values(self, high: int | None) -> list[int]:
        return [b for b in BIDS if high is None or b > high]

    def bid_rule(self) -> str:
        return "bids are 4, 5, 6, 7 tricks or 21 (shoot the moon)"

    # ---- hand state ---------------------------------------------------------------------
    def _new_hand(self) -> None:
        super()._new_hand()
        self.widow: Tile | None = None  # known with a logged deal
        self.widow_taken: bool = False
        self.discarded: Tile | None = None  # known when the discard entry names it

    def table_tiles(self) -> list[Tile]:
        out = super().table_tiles()
        if self.widow is not None and not self.widow_taken:
            out.append(self.widow)
        if self.discarded is not None:
            out.append(self.discarded)
        return out

    def deal_round(self, rng: random.Random) -> Move:
        pool = self.round_set()
        rng.shuffle(pool)
        size = self.hand_size()
        hands = {p: sorted(pool[i * size:(i + 1) * size]) for i, p in enumerate(self.players)}
        return Move.deal(hands, widow=pool[size * len(self.players)])

    def take_deal(self, move: Move) -> None:
        data = move.data or {}
        extra = sorted(set(data) - {"hands", "widow"})
        if extra:
            raise MoveFormatError(f"a Moon deal carries the hands and the widow, not {extra}")
        dealt = {Tile.parse(t) for ts in data.get("hands", {}).values() for t in ts}
        left = [t for t in self.round_set() if t not in dealt]
        if "widow" in data:
            try:
                widow = Tile.parse(data["widow"])
            except ValueError as exc:
                raise MoveFormatError(f"deal \"widow\": {exc}") from None
            if widow not in set(self.round_set()):
                raise MoveFormatError(f"deal \"widow\": {widow} is not in the Moon set (no blanks "
                                      f"but 0-0)")
            self._check_widow_not_dealt(widow, data.get("hands", {}), left)
        elif len(left) == 1:
            widow = left[0]
        else:
            raise MoveFormatError(f"a Moon deal gives 7 tiles to each player and leaves one widow; "
                                  f"this one leaves {len(left)} tiles "
                                  f"({', '.join(map(str, left)) or 'none'}); name it with \"widow\"")
        self.apply_deal(move, pool=[t for t in self.round_set() if t != widow])
        self.widow = widow

    @staticmethod
    def _check_widow_not_dealt(widow: Tile, hands: Mapping[str, Any], left: list[Tile]) -> None:
        """Refuse a deal whose ``widow`` is also in a hand (each tile is dealt once), naming the
        hand and the tile not dealt that the widow would be."""
        for player, tiles in hands.items():
            if widow in {Tile.parse(t) for t in tiles}:
                rest = (f"the one tile not dealt is {left[0]}" if len(left) == 1 else
                        f"the tiles not dealt are {', '.join(map(str, left)) or 'none'}")
                raise MoveFormatError(f"deal \"widow\": {widow} is both the widow and in "
                                      f"{player}'s hand; the widow is a tile not dealt to a "
                                      f"player ({rest})")

    # ---- widow and discard --------------------------------------------------------------
    def after_trump(self) -> list[Event]:
        assert self.bidder is not None
        self.phase = "discard"
        if self.hands is not None and self.widow is not None:
            self.hands[self.bidder].append(self.widow)
            self.widow_taken = True
            return [Event("note", self.bidder, 0,
                          f"{self.bidder} takes the widow ({self.widow}) and discards one")]
        self.widow_taken = True
        return [Event("note", self.bidder, 0, f"{self.bidder} takes the widow and discards one")]

    def view(self) -> dict[str, Any]:
        """The trick view (see :meth:`TrickGame.view`; ``sides`` are the three players alone)
        plus ``moon_bid`` (the bid is 21, shooting the moon: all 7 tricks), ``widow_taken``,
        ``discarded`` (the discard when the log names it, else None), ``needs`` (tricks the
        bidder must take: 7 for a moon, else the bid; None before the bidding is won) and
        ``target`` (the score that wins)."""
        out = super().view()
        out.update({
            "moon_bid": self.bid == 21,
            "widow_taken": self.widow_taken,
            "discarded": None if self.discarded is None else str(self.discarded),
            "needs": None if self.bid is None else (7 if self.bid == 21 else self.bid),
            "target": self.options["target"],
        })
        return out

    def phase_moves(self, player: str) -> list[Move]:
        if self.phase != "discard":
            return []
        if self.hands is not None:
            return [Move("discard", player, tile=t) for t in sorted(self.hands[player])]
        # live: the discard may be entered (any tile) or left face down by leading at once
        tiles = self.unseen_tiles()
        return ([Move("discard", player, tile=t) for t in tiles]
                + [Move.play(player, t) for t in tiles])

    def _discard(self, move: Move) -> list[Event]:
        if self.phase != "discard":
            raise self._illegal(move, f"the bidder discards once, after naming trump; now "
                                      f"{self._phase_text()}")
        if move.player != self.bidder:
            raise self._illegal(move, f"only {self.bidder}, who won the bid, discards")
        tile, bidder = move.tile, move.player
        assert tile is not None and bidder is not None  # Move.from_json guarantees both
        if tile not in set(self.round_set()):
            raise self._illegal(move, f"{tile} is not in the Moon set (no blanks but 0-0)")
        if self.hands is not None:
            hand = self.hands[bidder]
            if tile not in hand:
                raise self._illegal(move, f"{self.bidder} holds {', '.join(map(str, sorted(hand)))}"
                                          f" with the widow, not {tile}")
            hand.remove(tile)
        self.discarded = tile
        self.phase = "play"
        return [Event("note", self.bidder, 0, f"{self.bidder} discards face down")]

    def _play(self, move: Move) -> list[Event]:
        if self.phase == "discard" and self.hands is None and move.player == self.bidder:
            self.phase = "play"  # the bidder leads: the unseen discard is made
        if move.tile is not None and move.tile == self.discarded:
            raise self._illegal(move, f"{move.tile} was discarded by {self.bidder} this hand")
        return super()._play(move)

    def _phase_text(self) -> str:
        if self.phase == "discard":
            return f"{self.bidder} took the widow and discards one tile next"
        return super()._phase_text()

    # ---- scoring ------------------------------------------------------------------------
    def score_hand(self, taken: list[int]) -> tuple[dict[str, int], list[Event]]:
        assert self.bidder is not None and self.bid is not None
        bid = self.bid
        need = self.hand_tricks if bid == MOON else bid
        deltas: dict[str, int] = {}
        events = []
        for i, p in enumerate(self.players):
            if p == self.bidder:
                made = taken[i] >= need
                deltas[p] = (MOON if bid == MOON else taken[i]) if made else -bid
                what = f"bid {bid}, took {taken[i]}: {'made' if made else 'set'}"
            else:
                deltas[p] = taken[i]
                what = f"took {taken[i]} tricks"
            events.append(Event("score", p, deltas[p], f"{p} {deltas[p]:+d} ({what})"))
        return deltas, events

    def match_winners(self) -> list[str] | None:
        target = self.options["target"]
        crossed = [p for p in self.players if self.scores[p] >= target]
        if not crossed:
            limit = self.options["max_hands"]
            if limit and self.round >= limit:
                best = max(self.scores.values())
                return [p for p in self.players if self.scores[p] == best]
            return None
        if self.bidder in crossed:
            return [self.bidder]
        best = max(self.scores[p] for p in crossed)
        return [p for p in crossed if self.scores[p] == best]
