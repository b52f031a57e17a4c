"""Build Up (``buildup``). Seed: 001_4e1c8c62b6287594.txt.

The rules in prose
------------------
Two or more players, each with a double-six set of their own colour. In the first round each
player draws six tiles from their own set and lays them face up in a row in front of them (their
layout: six stacks of one tile). Each then draws one more tile; the highest of these starts. Each
draws five more, for a hand of six. In turn, a player puts one tile from hand on top of a face-up
stack top in any layout (their own or another's), following the covering rules below. A player
who cannot play passes. The round ends when a player has played their last tile (dominoes) or
when nobody can play (every player passes in turn). Each player then scores the pips of every
stack top of their own colour, in any layout. Layouts stay on the table; rounds 2 and 3 start with
each player drawing six, then four more tiles into the hand (unplayed tiles are kept). The highest
total after three rounds wins.

Covering rules (tile ``t`` on stack top ``s``)
----------------------------------------------
* ``t`` non-double on ``s`` non-double: only when their pip totals are equal;
* ``t`` double on ``s`` non-double: always;
* ``t`` double on ``s`` double: only when ``t`` has the higher total;
* any ``t`` on ``s`` double: only when ``t`` has the higher total.

Decisions (each with the seed sentence it settles; see ``shared/docs/rules-decisions.md``)
-------------------------------------------------------------------------------------------
* "Non-doubles can be placed on any face-up tile that has the same total of pips" and "Any tile
  may cover any double as long as it has a higher pip total" disagree for a non-double on a double
  of equal total: the higher-total rule holds (a non-double never covers a double of equal total).
* "the player drawing the tile with the highest number of pips goes first in the first round" ->
  the tile drawn to decide is the first tile of the hand. The seed is silent on ties; this module
  breaks them by the higher half, then by seating order (first in the header wins).
* The seed does not say who starts rounds 2 and 3: the start passes clockwise (round 2 starts
  with the seat after the round-1 starter, round 3 with the next).
* "A player who cannot play a tile, must pass on their turn." -> with the hand known a pass is
  refused while a play exists (must play if able).
* "the game is blocked with no player able to set a tile" -> the round ends after every player
  has passed in a row.
* "points are scored by totalling all their face-up tiles on top of their layout's stacks" with
  "Players should try and cover other players tiles" -> a player scores the stack tops of their
  own colour in every layout.
* "Two more rounds are played, as before, with players drawing another six tiles, then four
  tiles." -> round 2 adds six tiles to each hand, round 3 four; unplayed tiles are kept.
* Colours: option ``colours`` lists one colour per seat (lower-case words); by default the seats
  take red, blue, green, yellow, black, white, purple, orange in order.
* The designer's rules as posted on domino-games.com differ from the seed in two ways, kept as
  options (the seed wins by default): ``cover: "equal_or_more"`` lets a non-double cover a
  non-double whose total is equal or lower ("as long as the total number of pips on the tile
  played is equal to or greater than the tile being covered"), and ``rounds: 4`` plays four
  rounds drawing 6, 6, 6, then 4 tiles, which empties the boneyards. Their other differences
  (two players only, a hand ending only when both hands are empty) are not adopted.

Log entries (see ``docs/game-log.md``)
--------------------------------------
* Round 1 deal: ``{"deal": {"Ann": [6 tiles], ...}, "layouts": {"Ann": [6 tiles], ...},
  "first": {"Ann": "red:6-5", ...}}``. ``layouts`` and ``first`` are seen by the camera and always
  required; ``deal`` (the hands, ``first`` among them) may be ``{}`` when the hands are not known.
* Rounds 2 and 3: ``{"deal": {"Ann": [the 6 (then 4) tiles drawn], ...}}`` or ``{"deal": {}}``.
* Play: ``{"player": "Ann", "play": "red:4-4", "on": "blue:2-5"}``: ``on`` names the current top
  of the stack covered; the tile must be of the player's colour.
* Pass: ``{"player": "Ann", "pass": true}``; end of round: ``{"end_round": {}}``.

With the hands known, "must play if able" is enforced and a play must come from the hand. Without,
any tile of the player's colour not yet on the table may be played and a pass is always taken;
the table rules (covering, colour, turn order, hand counts for dominoing) are always enforced.

Scoring
-------
round score(p) = sum of pips of the stack tops of p's colour, over all layouts;
match score(p) = sum of p's round scores over the 3 (option ``rounds``: 4) rounds; the highest
total wins (ties share the win).
"""

from __future__ import annotations

import random
import re
from typing import Any, ClassVar, Mapping

from companion.errors import IllegalMoveError, MoveFormatError, OptionError, TileParseError
from companion.games import register
from companion.games.base import Event, Game, Option, require_kind
from companion.games.grid import fast_copy
from companion.moves import Move
from companion.tiles import Tile, full_set

#: Seat colours when the ``colours`` option is not given.
DEFAULT_COLOURS = ("red", "blue", "green", "yellow", "black", "white", "purple", "orange")

#: Tiles each player draws into the hand at the start of each round, by the ``rounds`` option.
DRAWS = {3: (6, 6, 4), 4: (6, 6, 6, 4)}
LAYOUT = 6

_COLOUR_RE = re.compile(r"^[a-z][a-z0-9_]*$")


def covers(tile: Tile, top: Tile, or_more: bool = False) -> bool:
    """Whether ``tile`` may be placed on the face-up stack top ``top``; ``or_more``: a
    non-double may also cover a non-double of lower total (option ``cover: "equal_or_more"``)."""
    if top.is_double:
        return tile.pips > top.pips
    if tile.is_double:
        return True
    return tile.pips >= top.pips if or_more else tile.pips == top.pips


def why_not(tile: Tile, top: Tile, or_more: bool = False) -> str:
    """Why ``tile`` may not cover ``top`` (for error messages)."""
    if top.is_double:
        return (f"a tile covers the double {top} only with a higher total "
                f"({tile.pips} is not more than {top.pips})")
    rule = "of equal or lower total" if or_more else "only of equal total"
    return (f"a non-double covers a non-double {rule} ({tile.pips} vs {top.pips}); a double "
            "covers any non-double")


@register
class BuildUp(Game):
    """Build Up: layouts of stacks, one coloured double-six set per player, three rounds."""

    name = "buildup"
    aliases = ("build-up", "build_up")
    title = "Build Up"
    seed = "001_4e1c8c62b6287594.txt"
    set_max = 6
    min_players = 2
    max_players = len(DEFAULT_COLOURS)
    options_spec: ClassVar[Mapping[str, Option]] = {
        "colours": Option(None, "one set colour per seat, in seating order (lower-case words); "
                                "default red, blue, green, yellow, black, white, purple, orange"),
        "cover": Option("equal", "a non-double covers a non-double of equal total ('equal', the "
                                 "seed) or of equal or lower total ('equal_or_more', the designer's "
                                 "rules)", choices=("equal", "equal_or_more")),
        "rounds": Option(3, "3 rounds drawing 6, 6, 4 (the seed) or 4 rounds drawing 6, 6, 6, 4 "
                            "(the designer's rules)", choices=(3, 4)),
    }

    def setup(self) -> None:
        given = self.options["colours"]
        if given is None:
            colours = list(DEFAULT_COLOURS[:len(self.players)])
        else:
            if (not isinstance(given, (list, tuple)) or len(given) != len(self.players)
                    or not all(isinstance(c, str) and _COLOUR_RE.match(c) for c in given)
                    or len(set(given)) != len(given)):
                raise OptionError(
                    f"option colours={given!r} must list {len(self.players)} different lower-case "
                    f"colour words, one per player in seating order, like "
                    f"{list(DEFAULT_COLOURS[:len(self.players)])}")
            colours = list(given)
            self.options["colours"] = colours
        self.colour: dict[str, str] = dict(zip(self.players, colours))
        self.layouts: dict[str, list[list[Tile]]] = {p: [] for p in self.players}
        self.held: dict[str, int] = {p: 0 for p in self.players}
        self.dealt = False
        self.passes = 0
        self.starter = 0


    def _save(self) -> dict[str, Any]:
        return {k: fast_copy(v) for k, v in self.__dict__.items()}
    # ---- declarations ---------------------------------------------------------------------
    @property
    def _or_more(self) -> bool:
        return self.options["cover"] == "equal_or_more"

    def round_set(self) -> list[Tile]:
        return [t for p in self.players for t in full_set(self.set_max, self.colour[p])]

    def score_bounds(self) -> tuple[int, int]:
        return (0, self.options["rounds"] * LAYOUT * len(self.players) * 2 * self.set_max)

    # ---- queries --------------------------------------------------------------------------
    @property
    def needs_deal(self) -> bool:
        return not self.dealt and not self.finished

    @property
    def round_over(self) -> bool:
        if self.finished or not self.dealt:
            return False
        return self.passes >= len(self.players) or any(n == 0 for n in self.held.values())

    def table_tiles(self) -> list[Tile]:
        return [t for p in self.players for stack in self.layouts[p] for t in stack]

    def tops(self) -> list[Tile]:
        """Every face-up stack top, layout by layout in seating order."""
        return [stack[-1] for p in self.players for stack in self.layouts[p]]

    def view(self) -> dict[str, Any]:
        """What the dashboard draws: ``kind`` ("layouts"), ``colours`` (player -> set colour),
        ``layouts``: per player (seating order) a list of stacks, each ``{"tiles": [bottom ..
        top] as text, "top", "top_colour", "top_owner" (the player of the top's colour),
        "level" (tiles under the top), "top_pips"}``; ``totals``: per player the round score
        standing now (the pips of every stack top of their colour, in any layout), ``held``
        (tiles in each hand by the counts the rules keep) and ``dealt`` (the round is dealt)."""
        owner = {c: p for p, c in self.colour.items()}
        layouts: dict[str, list[dict[str, Any]]] = {}
        totals = {p: 0 for p in self.players}
        for p in self.players:
            stacks = []
            for stack in self.layouts[p]:
                top = stack[-1]
                who = owner.get(top.colour or "")
                if who is not None:
                    totals[who] += top.pips
                stacks.append({"tiles": [str(t) for t in stack], "top": str(top),
                               "top_colour": top.colour, "top_owner": who,
                               "level": len(stack) - 1, "top_pips": top.pips})
            layouts[p] = stacks
        return {"kind": "layouts", "colours": dict(self.colour), "layouts": layouts,
                "totals": totals, "held": dict(self.held), "dealt": self.dealt}

    def _candidates(self, player: str) -> list[Tile]:
        """Tiles ``player`` may hold: the hand when known, else unseen tiles of their colour."""
        if self.hands is not None and self.unknown_in_hand[player] == 0:
            return sorted(self.hands[player])
        on_table = set(self.table_tiles())
        return [t for t in full_set(self.set_max, self.colour[player]) if t not in on_table]

    def plays(self, player: str) -> list[Move]:
        tops = self.tops()
        return [Move.play(player, t, top) for t in self._candidates(player) for top in tops
                if covers(t, top, self._or_more)]

    def legal_moves(self) -> list[Move]:
        if self.finished or not self.dealt or self.round_over:
            return []
        me = self.players[self.turn]
        plays = self.plays(me)
        if self.hand_known(me):
            return plays or [Move.pass_(me)]
        return plays + [Move.pass_(me)]

    def _legal_text(self) -> list[str]:
        return [str(m) for m in self.legal_moves()]

    # ---- moves ----------------------------------------------------------------------------
    def _apply(self, move: Move) -> list[Event]:
        require_kind(move, ("deal", "play", "pass", "end_round"), self)
        if move.kind == "deal":
            return self._deal(move)
        if not self.dealt:
            raise IllegalMoveError(str(move), f"round {self.round} has not been dealt yet: a deal "
                                   "entry comes first", [])
        if move.kind == "end_round":
            return self._end(move)
        if self.round_over:
            raise IllegalMoveError(str(move), "the round is over: only end_round may follow",
                                   ["end of round"])
        self.require_turn(move)
        if move.kind == "pass":
            me = move.player or ""
            if self.hand_known(me):
                plays = self.plays(me)
                if plays:
                    raise IllegalMoveError(str(move), f"{me} can play, so may not pass",
                                           [str(m) for m in plays])
            self.passes += 1
            self.next_player()
            return []
        return self._play(move)

    def _play(self, move: Move) -> list[Event]:
        me, tile, top = move.player or "", move.tile, move.on
        if tile is None:
            raise MoveFormatError(f"{move}: a play must name its tile")
        if move.extra:
            raise MoveFormatError(f"{move}: Build Up plays take only \"play\" and \"on\", not "
                                  f"{sorted(move.extra)}")
        if tile.colour != self.colour[me]:
            raise IllegalMoveError(str(move), f"{me} plays the {self.colour[me]} set; {tile} is "
                                   f"{'uncoloured' if not tile.colour else 'of the ' + tile.colour + ' set'}"
                                   f" (write tiles like {self.colour[me]}:2-5)", self._legal_text())
        if tile.high > self.set_max:
            raise IllegalMoveError(str(move), f"{tile} is not in a double-six set", self._legal_text())
        if tile in set(self.table_tiles()):
            raise IllegalMoveError(str(move), f"{tile} is already on the table", self._legal_text())
        if top is None:
            raise MoveFormatError(f'{move}: a Build Up play must say which stack top it covers, '
                                  f'like {{"player": "{me}", "play": "{tile}", "on": "blue:2-5"}}')
        stack = next((s for p in self.players for s in self.layouts[p] if s[-1] == top), None)
        if stack is None:
            where = "is covered" if top in set(self.table_tiles()) else "is not on the table"
            raise IllegalMoveError(str(move), f"{top} {where}; stack tops: "
                                   + ", ".join(map(str, self.tops())), self._legal_text())
        if not covers(tile, top, self._or_more):
            raise IllegalMoveError(str(move), f"{tile} cannot cover {top}: "
                                   f"{why_not(tile, top, self._or_more)}",
                                   self._legal_text())
        self.take_from_hand(move, tile)
        stack.append(tile)
        self.held[me] -= 1
        self.passes = 0
        self.next_player()
        return []

    # ---- deals ----------------------------------------------------------------------------
    def _tiles_of(self, move: Move, raw: Any, player: str, what: str, size: int) -> list[Tile]:
        if not isinstance(raw, list):
            raise MoveFormatError(f"{move}: {what} of {player} must be a list of {size} tiles")
        try:
            tiles = [Tile.parse(t) for t in raw]
        except TileParseError as exc:
            raise MoveFormatError(f"{move}: {what} of {player}: {exc}") from None
        if len(tiles) != size:
            raise MoveFormatError(f"{what} of {player} must have {size} tiles, got {len(tiles)}")
        colour = self.colour[player]
        for t in tiles:
            if t.colour != colour or t.high > self.set_max:
                raise MoveFormatError(f"{what} of {player}: {t} is not a tile of the {colour} "
                                      f"double-six set (write tiles like {colour}:2-5)")
        return tiles

    def _deal(self, move: Move) -> list[Event]:
        if self.dealt:
            raise IllegalMoveError(str(move), f"round {self.round} is already dealt", self._legal_text())
        data = dict(move.data or {})
        hands_raw = data.pop("hands", {})
        layouts_raw = data.pop("layouts", None)
        first_raw = data.pop("first", None)
        if data:
            raise MoveFormatError(f"a Build Up deal takes deal, layouts and first; not {sorted(data)}")
        if hands_raw and set(hands_raw) != set(self.players):
            raise MoveFormatError(f"the deal must give a hand to each of {', '.join(self.players)} "
                                  f"or be {{}}; it names {', '.join(hands_raw)}")
        first_round = self.round == 1
        size = DRAWS[self.options["rounds"]][self.round - 1]
        on_table = set(self.table_tiles())
        seen: set[Tile] = set()

        def fresh(tiles: list[Tile], what: str) -> None:
            for t in tiles:
                if t in on_table or t in seen or (self.hands is not None and t not in set(self.boneyard or [])):
                    raise MoveFormatError(f"{what}: {t} is already dealt or on the table")
                seen.add(t)

        if first_round:
            if not isinstance(layouts_raw, Mapping) or set(layouts_raw) != set(self.players):
                raise MoveFormatError(
                    'the round-1 deal needs "layouts": the 6 face-up tiles of each of '
                    + ", ".join(self.players))
            if not isinstance(first_raw, Mapping) or set(first_raw) != set(self.players):
                raise MoveFormatError('the round-1 deal needs "first": the tile each of '
                                      + ", ".join(self.players) + " drew to decide who starts")
            layouts = {p: self._tiles_of(move, layouts_raw[p], p, "layout", LAYOUT) for p in self.players}
            firsts = {p: self._tiles_of(move, [first_raw[p]], p, "first tile", 1)[0] for p in self.players}
            for p in self.players:
                fresh(layouts[p], f"layout of {p}")
        elif layouts_raw is not None or first_raw is not None:
            raise MoveFormatError(f"round {self.round} deal takes no layouts or first tile: "
                                  "the layouts stay from round 1")
        hands = {p: self._tiles_of(move, hands_raw[p], p, "hand" if first_round else "draw", size)
                 for p in self.players} if hands_raw else None
        if hands is not None:
            for p in self.players:
                fresh(hands[p], f"deal of {p}")
        if first_round:
            if hands is not None:
                for p in self.players:
                    if firsts[p] not in hands[p]:
                        raise MoveFormatError(f"first tile {firsts[p]} of {p} must be in their hand "
                                              f"({', '.join(map(str, hands[p]))})")
            elif any(firsts[p] in set(layouts[q]) for p in self.players for q in self.players):
                raise MoveFormatError("a first tile is also in a layout")
            self.layouts = {p: [[t] for t in layouts[p]] for p in self.players}
            best = max(range(len(self.players)), key=lambda i: (
                firsts[self.players[i]].pips, firsts[self.players[i]].high, -i))
            self.starter = best
            if hands is not None:
                self.hands = {p: sorted(hands[p]) for p in self.players}
                self.unknown_in_hand = {p: 0 for p in self.players}
                used = set(self.table_tiles()) | {t for h in hands.values() for t in h}
                self.boneyard = sorted(t for t in self.round_set() if t not in used)
        else:
            if hands is not None and self.hands is not None:
                for p in self.players:
                    self.hands[p] = sorted(self.hands[p] + hands[p])
                    for t in hands[p]:
                        if self.boneyard is not None:
                            self.boneyard.remove(t)
            elif hands is None and self.hands is not None:
                raise MoveFormatError(f"the hands are known from round 1, so the round-{self.round} "
                                      f"deal must name the {size} tiles each player draws")
        for p in self.players:
            self.held[p] += size
        self.dealt = True
        self.passes = 0
        self.turn = (self.starter + self.round - 1) % len(self.players)
        return []

    def deal_round(self, rng: random.Random) -> Move:
        size = DRAWS[self.options["rounds"]][self.round - 1]
        if self.round == 1:
            hands, layouts, firsts = {}, {}, {}
            for p in self.players:
                pool = full_set(self.set_max, self.colour[p])
                rng.shuffle(pool)
                layouts[p] = pool[:LAYOUT]
                firsts[p] = pool[LAYOUT]
                hands[p] = sorted(pool[LAYOUT:LAYOUT + size])
            return Move.deal(hands, layouts=layouts, first=firsts)
        bone = sorted(self.boneyard or [])
        draws = {p: sorted(rng.sample([t for t in bone if t.colour == self.colour[p]], size))
                 for p in self.players}
        return Move.deal(draws)

    # ---- end of round -------------------------------------------------------------------
    def round_points(self) -> dict[str, int]:
        """Each player's score now: pips of the stack tops of their colour."""
        tops = self.tops()
        return {p: sum(t.pips for t in tops if t.colour == self.colour[p]) for p in self.players}

    def end_round_move(self) -> Move:
        if self.hands is None:
            return Move.end_round()
        return Move.end_round({p: sorted(h) for p, h in self.hands.items()})

    def _end(self, move: Move) -> list[Event]:
        if not self.round_over:
            raise IllegalMoveError(str(move), "the round is not over: nobody has dominoed and not "
                                   "every player has passed in a row", self._legal_text())
        given = (move.data or {}).get("hands")
        if given is not None and self.hands is not None:
            self.end_round_hands(move)  # checks the given hands against the known ones
        elif given is not None:
            for p, ts in given.items():
                if p in self.held and len(ts) != self.held[p]:
                    raise IllegalMoveError(str(move), f"{p} holds {self.held[p]} tiles by the log, "
                                           f"not {len(ts)}", [])
        points = self.round_points()
        self.round_scores.append(points)
        events = []
        for p in self.players:
            self.scores[p] += points[p]
            events.append(Event("score", p, points[p], f"round {self.round}: tops of "
                                f"{self.colour[p]}"))
        events.append(Event("round_end", None, 0, f"round {self.round} over"))
        if self.round == self.options["rounds"]:
            best = max(self.scores.values())
            events.append(self.finish([p for p in self.players if self.scores[p] == best]))
        else:
            self.round += 1
            self.dealt = False
            self.passes = 0
        return events
