"""Trick taking with dominoes, written once for Forty-Two and Moon.

Suits and trump (seed 003, Forty-Two section; Moon plays "like 42"):

* Each number 0..6 is a suit. A tile belongs to the suits of both its ends, except that
  "A trump domino only belongs to the trump suit and not also to the other suit represented on
  its face." With ``doubles`` as trump the seven doubles form the trump suit and belong to no
  other; with ``follow-me`` (42) or ``none`` (Moon) there is no trump.
* The suit of a trick is set by its lead: a trump lead calls trump, any other lead calls its
  higher end ("the same suit as the highest end of the first tile played in that trick").
* Follow suit if able, otherwise play anything, a trump included.
* Ranking inside a suit: "The double is the highest domino of each suit, followed in order by the
  6, 5, 4, 3, 2, 1 and blank" (the other end decides). Doubles as trump rank 6-6 down to 0-0.
* The trick goes to the highest trump played, else to the highest tile of the suit led.

:class:`TrickGame` is the shared rules engine of a bid-and-trick domino game: a hand is a deal
(optional in the log), one round of bidding, trump naming, seven tricks, and an ``end_round``
entry that scores it. Forty-Two and Moon subclass it and declare only what differs: the bids,
the trump choices, the points of a trick, the sides, the scoring and the match end.

Hands are private. With a ``deal`` in the log, follow-suit is enforced at the play. Without one
(the live camera) it cannot be; instead a player who did not follow suit is remembered as void
in that suit, and if the same player later shows a tile of that suit in the same hand the
table has proved a renege: an Event of kind ``renege`` says who, where and with what, and
``result()["reneges"]`` keeps every one of the match. The
companion only flags it; the players decide (custom: the reneging side loses the hand, which
they settle by entering ``end_round`` with the agreed ``taken``). In a hand with a renege
flagged, ``taken`` is the table's ruling: it may give a side less than its tricks won, even
after the last trick (names and the hand's total are still checked; a ``note`` says what the
ruling changed). Without one, ``taken`` may only add to what each side has won.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from companion.errors import IllegalMoveError, MoveFormatError
from companion.games.base import Event, Game, require_kind
from companion.moves import Move
from companion.tiles import Tile

#: The suit of a trick whose lead was a trump.
TRUMP = "trump"

#: What may be named as trump: a pip value 0..6 or one of these words.
Trump = int | str
Suit = int | str


def is_trump(tile: Tile, trump: Trump | None) -> bool:
    """Whether ``tile`` belongs to the trump suit (doubles: every double; a number: any tile
    showing it; ``follow-me``/``none``/None: no tile)."""
    if isinstance(trump, int):
        return tile.has(trump)
    if trump == "doubles":
        return tile.is_double
    return False


def suit_led(lead: Tile, trump: Trump | None) -> Suit:
    """The suit a lead calls: :data:`TRUMP` for a trump, else its higher end."""
    return TRUMP if is_trump(lead, trump) else lead.high


def follows(tile: Tile, suit: Suit, trump: Trump | None) -> bool:
    """Whether ``tile`` belongs to ``suit`` (a trump belongs only to trump)."""
    if suit == TRUMP:
        return is_trump(tile, trump)
    return tile.has(int(suit)) and not is_trump(tile, trump)


def rank_in(tile: Tile, suit: Suit, trump: Trump | None) -> int:
    """Rank of ``tile`` inside ``suit`` (higher wins); ``tile`` must belong to it.

    The double ranks 7, above every other end; other tiles rank by their other end. Doubles as
    trump rank by their pip value.
    """
    if suit == TRUMP and trump == "doubles":
        return tile.high
    number = int(trump) if suit == TRUMP else int(suit)  # type: ignore[arg-type]
    return 7 if tile.is_double else tile.other(number)


def trick_winner(tiles: Sequence[Tile], trump: Trump | None) -> int:
    """Index (in play order) of the tile that wins a trick: the highest trump, else the
    highest tile of the suit led."""
    if not tiles:
        raise ValueError("trick_winner needs the tiles of a trick, got none")
    suit = suit_led(tiles[0], trump)
    trumps = [i for i, t in enumerate(tiles) if is_trump(t, trump)]
    if trumps:
        return max(trumps, key=lambda i: rank_in(tiles[i], TRUMP, trump))
    same = [i for i, t in enumerate(tiles) if follows(t, suit, trump)]
    return max(same, key=lambda i: rank_in(tiles[i], suit, trump))


def suit_name(suit: Suit, trump: Trump | None) -> str:
    """``suit 4``, ``trump (4s)``, ``trump (doubles)``."""
    if suit == TRUMP:
        return "trump (doubles)" if trump == "doubles" else f"trump ({trump}s)"
    return f"suit {suit}"


def _tiles_text(tiles: Sequence[Tile]) -> str:
    return ", ".join(map(str, tiles)) or "nothing"


class TrickGame(Game):
    """A bid-and-trick hand game. Subclasses declare the hooks marked *hook*.

    Phases of a hand: ``bid`` (the deal, when logged, comes first), ``trump``, ``discard``
    (Moon's widow), ``play``, ``over`` (all tricks played; only ``end_round`` may follow).
    Seats are the order of ``players``, clockwise; ``players[0]`` shuffles first.
    """

    hand_tricks: ClassVar[int] = 7
    #: points of a whole hand (42: 42; Moon: 7 tricks)
    hand_total: ClassVar[int] = 7
    move_kinds: ClassVar[tuple[str, ...]] = ("deal", "bid", "trump", "play", "end_round")

    # ---- hooks --------------------------------------------------------------------------
    def bid_values(self, high: int | None) -> list[int]:
        """*hook*: the bids that beat ``high`` (None: no bid yet), in increasing order."""
        raise NotImplementedError

    def bid_rule(self) -> str:
        """*hook*: the bidding rule in words, for error messages."""
        raise NotImplementedError

    def may_pass(self) -> bool:
        """Whether the player to bid may pass (42 ``force_dealer_30`` says no for the shuffler)."""
        return True

    def trump_choices(self) -> list[Trump]:
        """*hook*: what the bidder may name as trump."""
        raise NotImplementedError

    def trick_points(self, tiles: Sequence[Tile]) -> int:
        """Points a trick is worth to its winner (1 per trick unless overridden)."""
        return 1

    def sides(self) -> list[list[str]]:
        """The scoring sides: teams, or each player alone."""
        return [[p] for p in self.players]

    def score_hand(self, taken: list[int]) -> tuple[dict[str, int], list[Event]]:
        """*hook*: score changes per player for a hand whose sides took ``taken``."""
        raise NotImplementedError

    def match_winners(self) -> list[str] | None:
        """*hook*: the winners once the match is over after this hand's scoring, else None."""
        raise NotImplementedError

    # ---- state --------------------------------------------------------------------------
    def setup(self) -> None:
        self.shuffler: int = 0  # index of this hand's shuffler (players[0] shuffles first)
        #: every renege the table proved this match: {"hand", "player", "trick", "facts",
        #: "detail"} (``trick``: the number of the trick the player did not follow; ``facts``:
        #: what the table showed, for the dashboard's warning line; ``detail``: the flag's
        #: words, with who and the advice; :meth:`result` leaves ``facts`` out)
        self.reneges: list[dict[str, Any]] = []
        self._new_hand()

    def result(self) -> dict[str, Any]:
        """The base result, plus ``reneges`` (flagged, never scored) when there were any."""
        out = super().result()
        if self.reneges:
            out["reneges"] = [{k: r[k] for k in ("hand", "player", "trick", "detail")}
                              for r in self.reneges]
        return out

    def _new_hand(self) -> None:
        """Reset the per-hand state; the hand is not dealt yet."""
        n = len(self.players)
        self.phase: str = "bid"
        self.bids: list[list[Any]] = []  # [player, value or "pass"]
        self.bidder: str | None = None
        self.bid: int | None = None
        self.trump: Trump | None = None
        self.trick: list[list[Any]] = []  # [player, Tile] of the trick being played
        self.played: list[Tile] = []  # tiles of finished tricks
        self.tricks_won: dict[str, int] = {p: 0 for p in self.players}
        self.points_won: dict[str, int] = {p: 0 for p in self.players}
        self.voids: list[list[Any]] = []  # [player, suit, trick no, led tile, tile played]
        #: the trick won last this hand: {"number", "winner", "tile", "points", "trick"}
        self.last_trick: dict[str, Any] | None = None
        self.hands = None
        self.boneyard = None
        self.unknown_in_hand = {p: 0 for p in self.players}
        self.turn = (self.shuffler + 1) % n

    def hand_size(self) -> int:
        return 7

    @property
    def needs_deal(self) -> bool:
        return (not self.finished and self.phase == "bid" and not self.bids
                and self.hands is None)

    @property
    def round_over(self) -> bool:
        return self.phase == "over"

    @property
    def tricks_played(self) -> int:
        return sum(self.tricks_won.values())

    def high_bid(self) -> int | None:
        values = [v for _, v in self.bids if v != "pass"]
        return max(values) if values else None

    def table_tiles(self) -> list[Tile]:
        return list(self.played) + [t for _, t in self.trick]

    def unseen_tiles(self) -> list[Tile]:
        """Tiles of the round's set not shown on the table this hand."""
        shown = set(self.table_tiles())
        return [t for t in self.round_set() if t not in shown]

    def side_index(self, player: str) -> int:
        for i, side in enumerate(self.sides()):
            if player in side:
                return i
        raise ValueError(f"{player!r} is not playing; players: {', '.join(self.players)}")

    def side_name(self, side: Sequence[str]) -> str:
        return " and ".join(side)

    # ---- legal moves ----------------------------------------------------------------------
    def legal_moves(self) -> list[Move]:
        if self.finished or self.phase == "over":
            return []
        player = self.players[self.turn]
        if self.phase == "bid":
            out = [Move.bid(player, "pass")] if self.may_pass() else []
            return out + [Move.bid(player, v) for v in self.bid_values(self.high_bid())]
        if self.phase == "trump":
            return [Move.trump(player, v) for v in self.trump_choices()]
        if self.phase == "play":
            return [Move.play(player, t) for t in self.playable(player)]
        return self.phase_moves(player)

    def phase_moves(self, player: str) -> list[Move]:
        """Legal moves in a subclass's own phase (Moon: ``discard``)."""
        return []

    def playable(self, player: str) -> list[Tile]:
        """Tiles ``player`` may play now: from the known hand, following suit if able; without
        a deal every tile not yet shown (the table cannot know the hand)."""
        if self.hands is None:
            return sorted(self.unseen_tiles())
        hand = sorted(self.hands[player])
        if not self.trick:
            return hand
        suit = suit_led(self.trick[0][1], self.trump)
        same = [t for t in hand if follows(t, suit, self.trump)]
        return same or hand

    def _illegal(self, move: Move, reason: str) -> IllegalMoveError:
        return IllegalMoveError(str(move), reason, [str(m) for m in self.legal_moves()])

    def _phase_text(self) -> str:
        cur = self.players[self.turn]
        if self.phase == "bid":
            return f"the bidding is on ({cur} bids next)"
        if self.phase == "trump":
            return f"{self.bidder} won the bid and names trump next"
        if self.phase == "discard":
            return f"{self.bidder} discards next"
        if self.phase == "play":
            return f"trick {self.tricks_played + 1} is being played ({cur} plays next)"
        return "all tricks are played; the hand ends with an end_round entry"

    # ---- dashboard ------------------------------------------------------------------------
    def view(self) -> dict[str, Any]:
        """What the dashboard draws: ``kind`` ("tricks"), ``phase`` (bid, trump, discard, play,
        over), ``shuffler``, ``to_act`` (who bids, names trump or plays next; None when the
        hand is over), ``bids`` (``[{"player", "bid"}]`` in order, ``"pass"`` for a pass),
        ``bidder``/``bid`` (None until the bidding is won), ``trump`` (as text, None until
        named), ``trick`` (the trick in play: ``[{"player", "tile"}]`` in playing order),
        ``led_suit`` (its suit in words, None before a lead), ``trick_no`` (1-based number of
        the trick in play), ``tricks_played``, ``hand_tricks``, ``tricks_won`` and
        ``points_won`` per player, and ``sides``: per scoring side (teams, or each player
        alone) its ``players``, ``tricks`` and ``points`` this hand, and ``bidding`` (the
        bidder's side). ``last_trick`` is the trick won last (``number``, ``winner``, the
        winning ``tile``, its ``points`` and ``trick`` as above) until the next lead, else
        None; ``reneges`` the reneges flagged this hand (``player``, ``trick``: the trick not
        followed, ``facts``: what the table showed, ``detail``: the flag's words);
        ``hand_total`` what a hand is worth and ``taken_unit`` ("points" or "tricks") what an
        ``end_round`` ``taken`` counts."""
        led = None
        if self.trick:
            led = suit_name(suit_led(self.trick[0][1], self.trump), self.trump)
        sides = []
        for side in self.sides():
            sides.append({"players": list(side),
                          "tricks": sum(self.tricks_won[p] for p in side),
                          "points": sum(self.points_won[p] for p in side),
                          "bidding": self.bidder is not None and self.bidder in side})
        return {
            "kind": "tricks",
            "phase": self.phase,
            "shuffler": self.players[self.shuffler],
            "to_act": None if self.finished or self.phase == "over" else self.players[self.turn],
            "bids": [{"player": p, "bid": v} for p, v in self.bids],
            "bidder": self.bidder,
            "bid": self.bid,
            "trump": None if self.trump is None else str(self.trump),
            "trick": [{"player": p, "tile": str(t)} for p, t in self.trick],
            "led_suit": led,
            "trick_no": self.tricks_played + 1 if self.phase == "play" else None,
            "tricks_played": self.tricks_played,
            "hand_tricks": self.hand_tricks,
            "tricks_won": dict(self.tricks_won),
            "points_won": dict(self.points_won),
            "sides": sides,
            "last_trick": None if self.trick or self.last_trick is None else dict(
                self.last_trick),
            "reneges": [{k: r[k] for k in ("player", "trick", "facts", "detail")}
                        for r in self.hand_reneges()],
            "hand_total": self.hand_total,
            "taken_unit": self.taken_unit(),
        }

    # ---- applying moves -------------------------------------------------------------------
    def _apply(self, move: Move) -> list[Event]:
        require_kind(move, self.move_kinds, self)
        kind = move.kind
        if kind == "deal":
            return self._deal(move)
        if kind == "end_round":
            return self._end_round(move)
        handler = {"bid": self._bid, "trump": self._trump, "play": self._play,
                   "discard": self._discard}[kind]
        return handler(move)

    def _deal(self, move: Move) -> list[Event]:
        if not self.needs_deal:
            raise self._illegal(move, f"the hand is already under way: {self._phase_text()}")
        self.take_deal(move)
        return [Event("note", None, 0, f"hand {self.round}: {self.players[self.shuffler]} "
                                       f"shuffled, {self.players[self.turn]} bids first")]

    def take_deal(self, move: Move) -> None:
        """Take a deal entry (hands known from now on). Moon adds the widow."""
        extra = sorted(set(move.data or {}) - {"hands"})
        if extra:
            raise MoveFormatError(f"a {self.title} deal carries only the hands, not {extra}")
        self.apply_deal(move)

    def _bid(self, move: Move) -> list[Event]:
        if self.phase != "bid":
            raise self._illegal(move, f"the bidding is over: {self._phase_text()}")
        self.require_turn(move)
        value = move.value
        high = self.high_bid()
        if value == "pass":
            if not self.may_pass():
                raise self._illegal(move, "everyone else passed and the shuffler must bid "
                                          "(option all_pass=force_dealer_30)")
        elif value not in self.bid_values(high):
            beat = "" if high is None else f" and beat the high bid {high}"
            raise self._illegal(move, f"{self.bid_rule()}{beat}")
        self.bids.append([move.player, value])
        events: list[Event] = []
        n = len(self.players)
        done = len(self.bids) == n or (value != "pass" and not self.bid_values(int(value)))
        if not done:
            self.next_player()
            return events
        high = self.high_bid()
        if high is None:
            old = self.players[self.shuffler]
            self.shuffler = (self.shuffler + 1) % n
            self._new_hand()
            events.append(Event("note", None, 0, f"all passed: the tiles are reshuffled; "
                                                 f"{self.players[self.shuffler]} shuffles "
                                                 f"(after {old})"))
            return events
        bidder = next(p for p, v in self.bids if v == high)
        self.bidder, self.bid = bidder, high
        self.phase = "trump"
        self.turn = self.players.index(bidder)
        events.append(Event("bid_won", bidder, 0, f"{bidder} wins the bid with {high}"))
        return events

    def _trump(self, move: Move) -> list[Event]:
        if self.phase != "trump":
            raise self._illegal(move, f"trump is named by the winning bidder after the bidding; "
                                      f"now {self._phase_text()}")
        if move.player != self.bidder:
            raise self._illegal(move, f"only {self.bidder}, who won the bid, names trump")
        choices = self.trump_choices()
        if move.value not in choices or isinstance(move.value, bool):
            raise self._illegal(move, "trump is one of " + ", ".join(map(str, choices)))
        self.trump = move.value
        events = [Event("note", move.player, 0, f"{move.player} names trump {move.value}")]
        events += self.after_trump()
        return events

    def after_trump(self) -> list[Event]:
        """What follows naming trump: the bidder leads (Moon first takes the widow)."""
        self.phase = "play"
        return []

    def _discard(self, move: Move) -> list[Event]:
        raise self._illegal(move, f"{self.title} has no discards")

    def _play(self, move: Move) -> list[Event]:
        if self.phase != "play":
            raise self._illegal(move, f"no trick is being played: {self._phase_text()}")
        self.require_turn(move)
        player, tile = move.player, move.tile
        assert player is not None and tile is not None  # Move.from_json guarantees both
        if move.on is not None or move.extra:
            raise MoveFormatError(f"a {self.title} play names only the tile, not where it goes: "
                                  f"{move.to_json()}")
        if tile not in set(self.round_set()):
            raise self._illegal(move, f"{tile} is not in the {self.title} set")
        if tile in set(self.table_tiles()):
            raise self._illegal(move, f"{tile} was already played this hand")
        events: list[Event] = []
        lead = self.trick[0][1] if self.trick else None
        suit = suit_led(lead, self.trump) if lead is not None else None
        if self.hands is not None:
            hand = self.hands[player]
            if tile not in hand:
                raise self._illegal(move, f"{player} does not hold {tile} (holds "
                                          f"{_tiles_text(sorted(hand))})")
            if suit is not None and not follows(tile, suit, self.trump):
                holding = sorted(t for t in hand if follows(t, suit, self.trump))
                if holding:
                    raise self._illegal(move, f"must follow {suit_name(suit, self.trump)} "
                                              f"(led {lead}), {player} holds "
                                              f"{_tiles_text(holding)}")
            hand.remove(tile)
        else:
            events += self._check_renege(player, tile)
            if suit is not None and not follows(tile, suit, self.trump):
                self.voids.append([player, suit, self.tricks_played + 1, lead, tile])
        self.trick.append([player, tile])
        if len(self.trick) < len(self.players):
            self.next_player()
            return events
        return events + self._close_trick()

    def _check_renege(self, player: str, tile: Tile) -> list[Event]:
        """Flag a renege the table has just proved: ``player`` shows a tile of a suit they
        earlier did not follow."""
        events = []
        keep = []
        for void in self.voids:
            who, suit, trick_no, lead, shown = void
            if who == player and follows(tile, suit, self.trump):
                facts = (f"{lead} led {suit_name(suit, self.trump)} and {player} played "
                         f"{shown}, but now plays {tile}, which is "
                         f"{suit_name(suit, self.trump)}")
                detail = (f"{player} reneged in trick {trick_no}: {facts}; the table decides "
                          f"(custom: the reneging side loses the hand; settle it with "
                          f"end_round \"taken\")")
                events.append(Event("renege", player, 0, detail))
                self.reneges.append({"hand": self.round, "player": player, "trick": trick_no,
                                     "facts": facts, "detail": detail})
            else:
                keep.append(void)
        self.voids = keep
        return events

    def _close_trick(self) -> list[Event]:
        tiles = [t for _, t in self.trick]
        i = trick_winner(tiles, self.trump)
        winner = self.trick[i][0]
        points = self.trick_points(tiles)
        number = self.tricks_played + 1
        self.tricks_won[winner] += 1
        self.points_won[winner] += points
        self.played.extend(tiles)
        self.last_trick = {"number": number, "winner": winner, "tile": str(tiles[i]),
                           "points": points,
                           "trick": [{"player": p, "tile": str(t)} for p, t in self.trick]}
        self.trick = []
        self.turn = self.players.index(winner)
        events = [Event("trick", winner, points,
                        f"{winner} wins trick {number} ({_tiles_text(tiles)}) with {tiles[i]}")]
        if self.tricks_played == self.hand_tricks:
            self.phase = "over"
            events.append(Event("note", None, 0, "all tricks are played: enter end_round"))
        return events

    # ---- end of hand ----------------------------------------------------------------------
    def taken_unit(self) -> str:
        """What ``taken`` counts: "points" (42: tricks and count) or "tricks" (Moon)."""
        return "points" if self.hand_total != self.hand_tricks else "tricks"

    def taken_now(self) -> list[int]:
        """Points (42) or tricks (Moon) each side has taken so far this hand."""
        return [sum(self.points_won[p] for p in side) for side in self.sides()]

    def end_round_move(self) -> Move:
        """``{"end_round": {"taken": {...}}}``: what each side took, by its first member."""
        taken = self.taken_now()
        return Move("end_round", data={"taken": {side[0]: taken[i]
                                                 for i, side in enumerate(self.sides())}})

    def _taken_from(self, move: Move) -> list[int]:
        data = move.data or {}
        unknown = sorted(set(data) - {"taken", "hands"})
        if unknown:
            raise MoveFormatError(f"a {self.title} end_round carries \"taken\" (and optionally "
                                  f"\"hands\"), not {unknown}")
        if "hands" in data:
            self.end_round_hands(move)  # checks them against the known hands
        now = self.taken_now()
        given = data.get("taken")
        what = self.taken_unit()
        if given is None:
            if self.phase != "over":
                example = {side[0]: 0 for side in self.sides()}
                raise MoveFormatError(
                    f"end_round before the last trick needs \"taken\": the {what} each side "
                    f"ends the hand with (summing to {self.hand_total}), e.g. "
                    f"{{\"taken\": {example}}}")
            return now
        if not isinstance(given, Mapping):
            raise MoveFormatError(f"end_round \"taken\" maps a player to {what}, got {given!r}")
        sides = self.sides()
        final: list[int | None] = [None] * len(sides)
        for name, value in given.items():
            if name not in self.players:
                raise MoveFormatError(f"end_round \"taken\" names {name!r}, who is not playing; "
                                      f"players: {', '.join(self.players)}")
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise MoveFormatError(f"end_round \"taken\" for {name} must be a whole number "
                                      f">= 0, got {value!r}")
            i = self.side_index(name)
            if final[i] is not None and final[i] != value:
                raise MoveFormatError(f"end_round \"taken\" gives {self.side_name(sides[i])} "
                                      f"both {final[i]} and {value}")
            final[i] = value
        missing = [self.side_name(sides[i]) for i, v in enumerate(final) if v is None]
        if missing:
            raise MoveFormatError(f"end_round \"taken\" must give every side; missing: "
                                  f"{'; '.join(missing)}")
        values = [int(v) for v in final if v is not None]
        shown = ", ".join(f"{self.side_name(s)} {now[i]}" for i, s in enumerate(sides))
        if sum(values) != self.hand_total:
            raise self._illegal(move, f"the {what} taken must sum to {self.hand_total}, they sum "
                                      f"to {sum(values)}")
        if self.hand_reneges():
            return values  # the table's ruling on a renege: it may differ from the tricks
        for i, side in enumerate(sides):
            if values[i] < now[i]:
                unit = what if now[i] != 1 else what[:-1]  # "1 point", "1 trick"
                raise self._illegal(move, f"{self.side_name(side)} already took {now[i]} {unit}, "
                                          f"not {values[i]} (taken so far: {shown}; only a "
                                          f"ruling on a renege flagged this hand may differ "
                                          f"from the tricks, and none was)")
        return values

    def hand_reneges(self) -> list[dict[str, Any]]:
        """The reneges flagged in the hand being played (see :attr:`reneges`). While there is
        one, an ``end_round`` ``taken`` is the table's ruling and may differ from the tricks."""
        return [r for r in self.reneges if r["hand"] == self.round]

    def _ruling_note(self, taken: list[int]) -> list[Event]:
        """A note when ``taken`` (the table's ruling on a renege) differs from the tricks."""
        now = self.taken_now()
        if taken == now:
            return []
        what = self.taken_unit()
        sides = self.sides()
        ruled = ", ".join(f"{self.side_name(s)} {taken[i]}" for i, s in enumerate(sides))
        tricks = ", ".join(f"{self.side_name(s)} {now[i]}" for i, s in enumerate(sides))
        who = " and ".join(sorted({r["player"] for r in self.hand_reneges()}))
        return [Event("note", None, 0, f"the table's ruling on the renege by {who}: {what} "
                                       f"taken {ruled} (the tricks gave {tricks})")]

    def _end_round(self, move: Move) -> list[Event]:
        if self.phase not in ("play", "discard", "over"):
            raise self._illegal(move, f"no hand is being played: {self._phase_text()}")
        taken = self._taken_from(move)
        ruling = self._ruling_note(taken)
        deltas, events = self.score_hand(taken)
        events = ruling + events
        for p, d in deltas.items():
            self.scores[p] += d
        self.round_scores.append({p: deltas.get(p, 0) for p in self.players})
        events.append(Event("round_end", None, 0,
                            f"hand {self.round} over: " + ", ".join(
                                f"{p} {self.scores[p]}" for p in self.players)))
        winners = self.match_winners()
        self.shuffler = (self.shuffler + 1) % len(self.players)
        self._new_hand()
        if winners:
            events.append(self.finish(winners))
        else:
            self.round += 1
        return events
