"""Forty-Two (``fortytwo``, alias ``42``, ``texas42``), after seed 003 (Forty-Two section).

The game
--------
Four players in two teams, partners opposite: seats 0+2 against 1+3 (``players`` in clockwise
order; ``players[0]`` shuffles first). A double-six set; each player draws 7 tiles.

One round of bidding starts left of the shuffler and ends with the shuffler; each player passes
or bids more than the high bid, at least 30 and at most 42 (the points the bidding side promises
to take). The high bidder names trump (a number 0..6; options add ``doubles`` and
``follow-me``) and leads the first trick. Players follow suit if able, otherwise play anything;
the highest trump wins the trick, else the highest tile of the suit led; the winner leads next.
See :mod:`companion.games.tricks` for suits and ranking.

A hand is worth 42 points: 1 per trick (7) and the count dominoes 5-5 and 4-6 (10 each), 5-0,
4-1 and 3-2 (5 each), scored by the side that wins them in a trick.

Scoring formula (points mode, the default), bidding side B took ``b`` points, the others ``o``
(``b + o = 42``)::

    made (b >= bid):  B += b,  others += o
    set  (b <  bid):  B += 0,  others += bid + o

The first team to 250 wins (option ``target``). Scores are kept per player: both partners carry
their team's score, so ``scores`` by player name is meaningful and ``result()`` lists the teams.

Option ``marks: true`` (pagat.com/Texas 42 custom): bids 30..42 are worth 1 mark, then 84 (2
marks), 126 (3 marks), ...; made -> the bidding side gets the bid's marks, set -> the
opponents get them; first team to 7 marks (option ``marks_to_win``) wins::

    marks(bid) = 1 if bid <= 42 else bid // 42;   made iff b >= min(bid, 42)

Decisions (docs/rules-decisions.md) with the seed sentence each settles
------------------------------------------------------------------------
* First shuffler: "Each player draws 1 domino, the highest total shuffles first." -> the log
  header lists the players clockwise starting with that player (``players[0]`` shuffles first).
* Bidding order: "The person to the shuffler's left has the first option to bid." and "the
  shuffler always having the last option to bid. Each player has only one opportunity to bid."
  -> one round from seat shuffler+1 to the shuffler. The bidding ends early when no higher bid
  exists (after a 42 in points mode).
* Minimum: "The minimum bid is 30: A player must pass if he/she is unable to bid at least 30 or
  raise a previous bid." -> bids 30..42, each above the high bid.
* All pass: "If all 4 players pass, all tiles are returned to the deck and then reshuffled by the
  player to the left of the last player to shuffle." -> redeal, the next player shuffles
  (``all_pass: "redeal"``). Option ``all_pass: "force_dealer_30"``: when the first three pass,
  the shuffler may not pass and must bid (30 or more).
* Marks: "To be the first team to reach 250 points or win 7 hands." -> points to 250 by default;
  option ``marks`` plays to 7 marks. The first mark bid is at most 2 marks (84); above 84 each
  bid is exactly one mark more than the high bid (pagat). A mark bid (42 or more) must take
  every trick (42 points means every trick).
* Trump: "A trump domino only belongs to the trump suit and not also to the other suit
  represented on its face." Options ``doubles_trump`` (the seven doubles are the trump suit, 6-6
  high) and ``follow_me`` (no trump) add ``"doubles"`` and ``"follow-me"`` to what may be named.
* Suit of a lead: "the same suit as the highest end of the first tile played in that trick,
  unless the first player plays a tile with at least one end from the same suit as what was
  declared "trumps"".
* Doubles: "The double is the highest domino of each suit".
* Made/set, seed examples: "If a team bids 30 and then takes 35 points ... scores 35 points. The
  opponents receive credit for its 7 points." and "bid of 37 but took only 35 ... your team
  would score 0, and the opponents would score 44 points".
* Both cross: "If both teams reach 250 points on the same hand, the team that made the bid on
  the final hand is the winner of the game, regardless of the score."
* Shuffler: "After each hand, the player to shuffle the tiles rotates to the left (clockwise)."
* Reneging is flagged, never scored: the table decides (see :mod:`companion.games.tricks`).

Log entries: ``deal`` (optional), ``{"player": "Bob", "bid": 30}`` / ``"bid": "pass"``,
``{"player": "Bob", "trump": 4}``, ``{"player": "Bob", "play": "4-4"}``, and
``{"end_round": {"taken": {"Ann": 12, "Bob": 30}}}`` (points each team took, by either partner;
optional once all seven tricks are played, required to end a hand early; after a renege
flagged this hand it is the table's ruling and may differ from the tricks).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from companion.games import register
from companion.games.base import Event, Option
from companion.games.tricks import TrickGame, Trump
from companion.tiles import Tile, full_set

#: The count dominoes and their points.
COUNT: dict[Tile, int] = {Tile.of(5, 5): 10, Tile.of(4, 6): 10, Tile.of(5, 0): 5,
                          Tile.of(4, 1): 5, Tile.of(3, 2): 5}

#: The double-six set, built (and checked) once.
SET_42: tuple[Tile, ...] = tuple(full_set(6))

MIN_BID = 30
MAX_POINTS_BID = 42


def count_points(tiles: Sequence[Tile]) -> int:
    """Count points among ``tiles``."""
    return sum(COUNT.get(t, 0) for t in tiles)


def bid_marks(bid: int) -> int:
    """Marks a bid is worth: 1 for 30..42, else bid // 42."""
    return 1 if bid <= MAX_POINTS_BID else bid // MAX_POINTS_BID


@register
class FortyTwo(TrickGame):
    """Forty-Two: 4 players in teams 0+2 and 1+3, bid 30..42, trumps, 7 tricks, count."""

    name: ClassVar[str] = "fortytwo"
    aliases: ClassVar[tuple[str, ...]] = ("42", "texas42", "forty-two")
    title: ClassVar[str] = "Forty-Two"
    seed: ClassVar[str] = "003_8d1b9facc97c9e65.txt"
    set_max: ClassVar[int] = 6
    min_players: ClassVar[int] = 4
    max_players: ClassVar[int] = 4
    team_game: ClassVar[bool] = True
    hand_total: ClassVar[int] = 42
    options_spec: ClassVar[Mapping[str, Option]] = {
        "marks": Option(False, "score in marks (bids 30..42 = 1 mark, 84 = 2, ...), game to "
                               "marks_to_win marks; a mark bid must take every trick"),
        "all_pass": Option("redeal", "when all four pass: 'redeal' (the next player shuffles) or "
                                     "'force_dealer_30' (the shuffler must bid)",
                           choices=("redeal", "force_dealer_30")),
        "doubles_trump": Option(False, "the bidder may name \"doubles\" as trump"),
        "follow_me": Option(False, "the bidder may name \"follow-me\" (no trump)"),
        "target": Option(250, "points mode: points that win the game", minimum=1),
        "marks_to_win": Option(7, "marks mode: marks that win the game", minimum=1),
    }

    # ---- declarations -------------------------------------------------------------------
    def round_set(self) -> list[Tile]:
        return list(SET_42)

    def teams(self) -> list[list[str]]:
        p = self.players
        return [[p[0], p[2]], [p[1], p[3]]]

    def sides(self) -> list[list[str]]:
        return self.teams()

    def score_bounds(self) -> tuple[int, int]:
        if self.options["marks"]:
            # 4 bidders: 84, 126, 168, 210 at most -> 5 marks on top of marks_to_win - 1
            return (0, self.options["marks_to_win"] - 1 + 5)
        # one hand adds at most bid 42 + 42 points taken to a score below the target
        return (0, self.options["target"] - 1 + 2 * MAX_POINTS_BID)

    def trump_choices(self) -> list[Trump]:
        out: list[Trump] = list(range(7))
        if self.options["doubles_trump"]:
            out.append("doubles")
        if self.options["follow_me"]:
            out.append("follow-me")
        return out

    def trick_points(self, tiles: Sequence[Tile]) -> int:
        return 1 + count_points(tiles)

    # ---- bidding ------------------------------------------------------------------------
    def bid_values(self, high: int | None) -> list[int]:
        low = MIN_BID if high is None else high + 1
        out = list(range(low, MAX_POINTS_BID + 1))
        if self.options["marks"]:
            if high is None or high < 2 * MAX_POINTS_BID:
                out.append(2 * MAX_POINTS_BID)
            else:
                out.append(high + MAX_POINTS_BID)
        return out

    def bid_rule(self) -> str:
        if self.options["marks"]:
            return ("bids are 30..42 points, 84 (2 marks), or one mark (42) above a mark bid of "
                    "84 or more")
        return "bids are 30..42"

    def may_pass(self) -> bool:
        n = len(self.players)
        return not (self.options["all_pass"] == "force_dealer_30"
                    and self.turn == self.shuffler and len(self.bids) == n - 1
                    and all(v == "pass" for _, v in self.bids))

    # ---- dashboard ------------------------------------------------------------------------
    def view(self) -> dict[str, Any]:
        """The trick view (see :meth:`TrickGame.view`; ``sides`` are the two teams, their
        ``points`` the points taken: 1 per trick plus the count, 5-5, 4-6 = 10 and 5-0, 4-1,
        3-2 = 5) plus ``scoring`` ("marks" or "points"), ``goal`` (marks or points that win),
        ``bid_marks`` (the marks the bid is worth, marks mode only, else None) and
        ``team_scores`` (each team's match score, in team order)."""
        out = super().view()
        marks = bool(self.options["marks"])
        out.update({
            "scoring": "marks" if marks else "points",
            "goal": self.options["marks_to_win"] if marks else self.options["target"],
            "bid_marks": bid_marks(self.bid) if marks and self.bid is not None else None,
            "team_scores": [self.team_score(t) for t in self.teams()],
        })
        return out

    # ---- scoring ------------------------------------------------------------------------
    def score_hand(self, taken: list[int]) -> tuple[dict[str, int], list[Event]]:
        assert self.bidder is not None and self.bid is not None
        teams = self.teams()
        b = self.side_index(self.bidder)
        o = 1 - b
        bid = self.bid
        made = taken[b] >= min(bid, MAX_POINTS_BID)
        gain = [0, 0]
        if self.options["marks"]:
            gain[b if made else o] = bid_marks(bid)
            unit = "marks"
        elif made:
            gain[b], gain[o] = taken[b], taken[o]
            unit = "points"
        else:
            gain[o] = bid + taken[o]
            unit = "points"
        verdict = "made" if made else "set"
        events = [Event("score", teams[i][0], gain[i],
                        f"{' and '.join(teams[i])} +{gain[i]} {unit} ("
                        f"{'bidders' if i == b else 'opponents'}, took {taken[i]}; bid {bid} "
                        f"{verdict})") for i in (0, 1)]
        deltas = {p: gain[i] for i, team in enumerate(teams) for p in team}
        return deltas, events

    def match_winners(self) -> list[str] | None:
        goal = self.options["marks_to_win"] if self.options["marks"] else self.options["target"]
        teams = self.teams()
        crossed = [i for i, t in enumerate(teams) if self.scores[t[0]] >= goal]
        if not crossed:
            return None
        if len(crossed) == 2:
            assert self.bidder is not None
            return list(teams[self.side_index(self.bidder)])
        return list(teams[crossed[0]])
