"""Match analysis: every decision of both players judged by bgsage, as gnubg analyses a match.

`analyse_match(match, plies)` replays each game from its history and evaluates, from the
decider's side, every checker play (a roll with one legal play, or none, is forced), every
cube decision (no double when the player could double and rolled, double, take, drop,
beaver) and every resignation offered and answered; and the luck of every roll. Pure: no
I/O, no clock; it blocks for as long as bgsage thinks, so the server runs it in a worker
process like the bots' decisions (docs/ANALYSIS.md).

Equities are cubeful and in EMG: for money, points per unit of the cube in play; for a match,
gnubg's normalised match equity at the cube in play (bgsage's own scale: winning the cube's
points is +1, losing them -1), so an error of 0.1 costs as much as a tenth of the cube's
points would, whatever the score. Figures per player follow gnubg's `show statistics`: the
error rate is the error per unforced decision (unforced checker plays and close cube
decisions), in mEMG.
"""
from __future__ import annotations

import dataclasses
import enum
import math
from collections.abc import Iterator
from typing import Any, assert_never

import bgbot_cpp
from bgsage import can_double_match

from fibs_server.rules import events as ev
from fibs_server.rules.board.notation import Colour, format_play
from fibs_server.rules.board.position import Board, Position
from fibs_server.rules.match import Match, Phase

from . import engine
from .situation import CubeOwner, Situation

# bgsage's plies (1-ply: the bare network, gnubg's 0-ply); 2-ply is gnubg's 1-ply. 3-ply
# (gnubg's 2-ply, OpenGammon's level) takes 0.4-4 s for one opening move: too slow to analyse
# every match of a busy server.
DEFAULT_PLIES = 2
CHEAPEST_PLIES = 1
LUCK_PLIES = 1  # gnubg judges luck with its 0-ply network, bgsage's 1-ply
# Instant redoubles weighed as an answer to a double (beaver, raccoon, otter): unlimited ones
# would make the value of each answer an endless chain.
_REDOUBLES_WEIGHED = 3

# How much equity a decision loses before it is marked (EMG, strictly more than the bound).
DOUBTFUL = 0.04
BAD = 0.08
VERY_BAD = 0.16
# gnubg counts a decision not to double in its error rate only when it was close: doubling
# (taking the cube's take value at most +1) would have lost less than this.
CLOSE_CUBE = 0.16


@dataclasses.dataclass(frozen=True)
class Search:
    """Which decisions are looked at in full depth, as gnubg's analysis filters them: the
    others are judged on the bare network (1-ply) alone, at a small part of the cost."""

    plays: int | None  # at most this many of the plays the bare network ranks best...
    window: float  # ...within this much of its best (EMG); the play made is always added
    # Of those, one whose bare-network value is more than this below the best full-depth
    # value found so far (the play made first, then best first) is not looked at in full.
    beaten_by: float | None
    # A no double settled on the bare network when it beats doubling there by more than
    # this: far enough from CLOSE_CUBE that it is neither an error nor close in full either.
    settled_no_double: float | None


# gnubg's default filter ("normal") keeps 8 plays within 0.16 at its 0-ply; this keeps the 5
# best of those: on 2,837 unforced decisions of 28 bot matches (3-7 points, beginner to
# expert; every play of the 8 also in full depth as the reference) 20 % fewer plays in full
# depth, 30 errors smaller by at most 0.028, one mark changed (0.089 to 0.078). Of those, the
# ones already beaten by 0.12 (on 361 decisions: 14 % fewer, no error other; by 0.08 or 0.10
# an error of 0.087 read 0.071, a mark changed). No double: the bare network's margin and
# the full depth's differ by up to 0.13 near the window (and more far from it, always
# towards a clearer no double), so 0.12 more than CLOSE_CUBE.
GNUBG_FILTER = Search(plays=5, window=0.16, beaten_by=0.12,
                      settled_no_double=CLOSE_CUBE + 0.12)
# Every play and every cube decision in full: the reference the filter is measured against.
EXHAUSTIVE = Search(plays=None, window=math.inf, beaten_by=None, settled_no_double=None)
# gnubg's rating words, by the error rate in mEMG per unforced decision.
_RATINGS = ((2.0, "Supernatural"), (5.0, "World class"), (8.0, "Expert"), (12.0, "Advanced"),
            (18.0, "Intermediate"), (26.0, "Casual player"), (35.0, "Beginner"))
_AWFUL = "Awful!"


def performance_rating(error_rate: float) -> float:
    """The PR: 500 x the mean error (EMG) per unforced decision, i.e. half the error rate in
    mEMG."""
    return error_rate / 2


def rating_words(error_rate: float) -> str:
    """gnubg's words for an error rate in mEMG per decision."""
    for bound, words in _RATINGS:
        if error_rate < bound:
            return words
    return _AWFUL


class Kind(enum.Enum):
    MOVE = "move"
    NO_DOUBLE = "no double"
    DOUBLE = "double"
    TAKE = "take"
    DROP = "drop"
    BEAVER = "beaver"  # any instant redouble of a double being answered
    RESIGN = "resign"
    ACCEPT_RESIGNATION = "accept resignation"
    REJECT_RESIGNATION = "reject resignation"


CUBE_KINDS = frozenset({Kind.NO_DOUBLE, Kind.DOUBLE, Kind.TAKE, Kind.DROP, Kind.BEAVER})
RESIGNATION_KINDS = frozenset({Kind.RESIGN, Kind.ACCEPT_RESIGNATION, Kind.REJECT_RESIGNATION})


class Skill(enum.Enum):
    NONE = "none"
    DOUBTFUL = "doubtful"
    BAD = "bad"
    VERY_BAD = "very bad"


def skill_of(error: float) -> Skill:
    if error > VERY_BAD:
        return Skill.VERY_BAD
    if error > BAD:
        return Skill.BAD
    if error > DOUBTFUL:
        return Skill.DOUBTFUL
    return Skill.NONE


@dataclasses.dataclass(frozen=True)
class Decision:
    """One decision of one player, judged: what was played against the best, from the
    decider's side, in EMG."""

    game: int  # 1, 2, ...
    turn: int  # the number of the game's roll it plays, or precedes (1: the opening roll)
    player: int
    kind: Kind
    position_id: str  # gnubg's Position ID from the decider's side (its opponent's checkers first)
    dice: tuple[int, int] | None  # the roll played (moves)
    cube: int  # the cube's value when deciding
    played: str  # the play in FIBS notation (empty: no legal play), or the action
    best: str  # the best alternative, the same way
    played_equity: float
    best_equity: float
    forced: bool  # a roll with one legal play, or none
    counted: bool  # in the error rate: an unforced play, a close cube decision
    luck: float | None  # moves: how much better the roll was than the average roll

    @property
    def error(self) -> float:
        """Equity lost against the best, never negative."""
        return max(0.0, self.best_equity - self.played_equity)

    @property
    def skill(self) -> Skill:
        return skill_of(self.error)

    def to_dict(self) -> dict[str, Any]:
        data = dataclasses.asdict(self)
        data["kind"] = self.kind.value
        data["dice"] = list(self.dice) if self.dice else None
        return {**data, "error": self.error, "skill": self.skill.value}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Decision:
        fields = {field.name: data[field.name] for field in dataclasses.fields(cls)}
        fields["kind"] = Kind(fields["kind"])
        fields["dice"] = tuple(fields["dice"]) if fields["dice"] else None
        return cls(**fields)


@dataclasses.dataclass(frozen=True)
class PlayerSummary:
    """One player's figures, summed over their decisions as gnubg sums them."""

    player: int
    decisions: int  # every decision judged: plays (forced too), cube, resignations
    moves: int  # checker plays, forced ones included
    unforced_moves: int
    cube_decisions: int
    close_cube_decisions: int  # every double, take, drop, beaver; a no double when close
    checker_error: float  # EMG, over the unforced plays
    cube_error: float
    resignation_error: float  # shown apart, as gnubg does: not in the error rate
    doubtful: int  # checker and cube decisions by their mark
    bad: int
    very_bad: int
    luck: float  # EMG, the sum of the luck of the player's rolls

    @property
    def unforced_decisions(self) -> int:
        """The error rate's denominator: unforced plays and close cube decisions."""
        return self.unforced_moves + self.close_cube_decisions

    @property
    def total_error(self) -> float:
        return self.checker_error + self.cube_error

    @property
    def error_rate(self) -> float:
        """mEMG per unforced decision (gnubg's overall error rate)."""
        return _per_thousand(self.total_error, self.unforced_decisions)

    @property
    def checker_error_rate(self) -> float:
        return _per_thousand(self.checker_error, self.unforced_moves)

    @property
    def cube_error_rate(self) -> float:
        return _per_thousand(self.cube_error, self.close_cube_decisions)

    @property
    def pr(self) -> float:
        return performance_rating(self.error_rate)

    @property
    def rating(self) -> str:
        return rating_words(self.error_rate)

    def to_dict(self) -> dict[str, Any]:
        derived = {name: getattr(self, name) for name in (
            "unforced_decisions", "total_error", "error_rate", "checker_error_rate",
            "cube_error_rate", "pr", "rating")}
        return {**dataclasses.asdict(self), **derived}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> PlayerSummary:
        return cls(**{field.name: data[field.name] for field in dataclasses.fields(cls)})


def _per_thousand(error: float, count: int) -> float:
    return 1000 * error / count if count else 0.0


def summarise(player: int, decisions: tuple[Decision, ...] | list[Decision]) -> PlayerSummary:
    """`player`'s figures from the decisions (everyone's may be given)."""
    own = [decision for decision in decisions if decision.player == player]
    moves = [decision for decision in own if decision.kind is Kind.MOVE]
    cube = [decision for decision in own if decision.kind in CUBE_KINDS]
    judged = moves + cube
    return PlayerSummary(
        player=player, decisions=len(own), moves=len(moves),
        unforced_moves=sum(not decision.forced for decision in moves),
        cube_decisions=len(cube),
        close_cube_decisions=sum(decision.counted for decision in cube),
        checker_error=sum((decision.error for decision in moves if decision.counted), 0.0),
        cube_error=sum((decision.error for decision in cube), 0.0),
        resignation_error=sum((decision.error for decision in own
                               if decision.kind in RESIGNATION_KINDS), 0.0),
        doubtful=sum(decision.skill is Skill.DOUBTFUL for decision in judged),
        bad=sum(decision.skill is Skill.BAD for decision in judged),
        very_bad=sum(decision.skill is Skill.VERY_BAD for decision in judged),
        luck=sum((decision.luck or 0.0 for decision in moves), 0.0))


@dataclasses.dataclass(frozen=True)
class MatchAnalysis:
    plies: int  # bgsage's (1: the bare network)
    move_filter: str  # which plays were evaluated at full depth
    variant: str
    length: int | None
    evaluated: bool  # False: a variant bgsage cannot judge (hypergammon)
    decisions: tuple[Decision, ...]
    players: tuple[PlayerSummary, PlayerSummary]

    def to_dict(self) -> dict[str, Any]:
        return {"plies": self.plies, "move_filter": self.move_filter, "variant": self.variant,
                "length": self.length, "evaluated": self.evaluated,
                "decisions": [decision.to_dict() for decision in self.decisions],
                "players": [summary.to_dict() for summary in self.players]}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> MatchAnalysis:
        zero, one = (PlayerSummary.from_dict(summary) for summary in data["players"])
        return cls(plies=data["plies"], move_filter=data["move_filter"],
                   variant=data["variant"], length=data["length"],
                   evaluated=data["evaluated"],
                   decisions=tuple(Decision.from_dict(item) for item in data["decisions"]),
                   players=(zero, one))


def move_filter(plies: int, search: Search = GNUBG_FILTER) -> str:
    if plies == CHEAPEST_PLIES:
        return f"every legal play at {plies}-ply"
    if search.plays is None:
        return f"every legal play at {plies}-ply (cubeful)"
    text = (f"every legal play at {CHEAPEST_PLIES}-ply, the best {search.plays} within "
            f"{search.window:g} and the play made at {plies}-ply (cubeful)")
    if search.beaten_by is not None:
        text += (f", but for those more than {search.beaten_by:g} below the best "
                 f"{plies}-ply value found")
    if search.settled_no_double is not None:
        text += (f"; a no double better than doubling by more than "
                 f"{search.settled_no_double:g} at {CHEAPEST_PLIES}-ply settled there")
    return text


def analyse_match(match: Match, plies: int = DEFAULT_PLIES,
                  search: Search = GNUBG_FILTER) -> MatchAnalysis:
    """Every decision of every game of `match` (finished or not) at `plies`, the plays and
    cube decisions filtered by `search`."""
    evaluated = match.variant.facts.bgsage
    decisions = tuple(_Replay(match, plies, search).decisions()) if evaluated else ()
    return MatchAnalysis(plies=plies, move_filter=move_filter(plies, search),
                         variant=match.variant.value, length=match.length,
                         evaluated=evaluated, decisions=decisions,
                         players=(summarise(0, decisions), summarise(1, decisions)))


# --- replaying and judging ----------------------------------------------------------------


@dataclasses.dataclass
class _Offer:
    """A double being answered: its cube equities, from the doubler's side."""
    doubler: int
    no_double: float
    take: float  # double/take: the doubled cube with the taker
    drop: float  # double/pass
    level: int = 0  # instant redoubles so far


class _Replay:
    """One pass over the match's history, keeping the state each decision is judged in."""

    def __init__(self, match: Match, plies: int, search: Search) -> None:
        self.match, self.plies, self.search = match, plies, search
        self.network, self.bearoff = engine.bare_network(CHEAPEST_PLIES)
        # Each player's last 21-roll batch and what it was of (board and cube): when both
        # sides dance, the same position comes back to the same player.
        self.last_batch: dict[int, tuple[tuple[tuple[int, ...], engine.Cube],
                                         dict[tuple[int, int], list[dict[str, Any]]]]] = {}

    def decisions(self) -> Iterator[Decision]:
        crawford_played = False
        for number, game in enumerate(self.match.history, start=1):
            started = game[0]
            assert isinstance(started, ev.GameStarted)
            yield from self._game(number, game, started, crawford_played)
            crawford_played |= started.crawford

    def _game(self, number: int, game: list[ev.Event], started: ev.GameStarted,
              crawford_played: bool) -> Iterator[Decision]:
        match = self.match
        self.score, self.crawford = started.score, started.crawford
        self.post_crawford = crawford_played and not started.crawford
        self.x_player = started.x_player
        self.position, self.seen_by = Position.initial(match.variant), 0
        self.cube, self.owner = 1, None
        self.on_roll: int | None = None
        self.dice: tuple[int, int] | None = None  # rolled, not played yet
        self.turn = 0
        offer: _Offer | None = None
        resignation: ev.ResignOffered | None = None
        rolled_for_doubler = False  # after a take the server rolls for the doubler
        opening = match.variant.facts.opening_dice_played  # the opening dice are the first roll
        for event, dice in ev.with_dice(game):
            match event:
                case ev.OpeningRoll(die_0=d0, die_1=d1, starter=starter) if (
                        starter is not None and opening):
                    self.on_roll, self.dice = starter, (d0, d1) if starter == 0 else (d1, d0)
                case ev.CubeAutoDoubled(cube=value):
                    self.cube = value
                case ev.Rolled(player=p):
                    if not rolled_for_doubler and self._may_double(p):
                        yield self._no_double(number, p)
                    rolled_for_doubler = False
                    self.on_roll, self.dice = p, event.dice
                case ev.Moved(player=p) | ev.CannotMove(player=p):
                    assert dice is not None  # with_dice pairs each roll with its play
                    steps = event.steps if isinstance(event, ev.Moved) else None
                    yield self._move(number, p, dice, steps, first=opening and self.turn == 0)
                    self.on_roll, self.dice = 1 - p, None
                case ev.Doubled(player=p):
                    offer = self._offer(p, self.plies, doubled=True)
                    yield self._double(number, p, offer)
                case ev.Redoubled(player=p) if offer is not None:
                    yield self._answer(number, p, offer, Kind.BEAVER)
                    offer.level += 1
                case ev.DoubleAccepted(player=p, cube=value) if offer is not None:
                    yield self._answer(number, p, offer, Kind.TAKE)
                    # The first taker keeps the cube whoever took the last redouble.
                    self.cube, self.owner, offer = value, 1 - offer.doubler, None
                    rolled_for_doubler = True
                case ev.DoubleRejected(player=p) if offer is not None:
                    yield self._answer(number, p, offer, Kind.DROP)
                case ev.ResignOffered() as offered:
                    resignation = offered
                    yield self._resignation(number, offered.player, offered, Kind.RESIGN)
                case ev.ResignAccepted(player=p) if resignation is not None:
                    yield self._resignation(number, p, resignation, Kind.ACCEPT_RESIGNATION)
                case ev.ResignRejected(player=p) if resignation is not None:
                    yield self._resignation(number, p, resignation, Kind.REJECT_RESIGNATION)
                    resignation = None
                case (ev.GameStarted() | ev.OpeningRoll() | ev.Redoubled() | ev.DoubleAccepted()
                      | ev.DoubleRejected() | ev.ResignAccepted() | ev.ResignRejected()
                      | ev.GameOver() | ev.Forfeited() | ev.MatchOver() | ev.JoinedNextGame()):
                    pass  # no decision (an answer to no offer: none was judged either)
                case _:
                    assert_never(event)

    # --- the state, from one side ---

    def _seen_by(self, player: int) -> Position:
        return self.position if self.seen_by == player else self.position.swap()

    def _away(self, player: int) -> tuple[int, int]:
        assert self.match.length is not None
        return self.match.length - self.score[player], self.match.length - self.score[1 - player]

    def _as_money(self) -> bool:
        length = self.match.length
        return length is None or length - min(self.score) > engine.MATCH_TABLE_AWAY

    def _cube(self, player: int) -> engine.Cube:
        owner = ("centered" if self.owner is None
                 else "player" if self.owner == player else "opponent")
        return engine.Cube(self.cube, owner, (0, 0) if self._as_money() else self._away(player),
                           self.crawford)

    def _may_double(self, player: int) -> bool:
        """Whether `player` could double before this roll, with the cube alive."""
        match = self.match
        if (not match.rules.doubling or match.length == 1 or self.crawford
                or self.owner not in (None, player)):
            return False
        cube = self._cube(player)
        return self._as_money() or bool(can_double_match(*cube.away, cube.value, cube.owner,
                                                         cube.is_crawford))

    def _decision(self, number: int, player: int, kind: Kind, position: Position, *,
                  played: str, best: str, played_equity: float, best_equity: float,
                  dice: tuple[int, int] | None = None, forced: bool = False,
                  counted: bool = True, luck: float | None = None) -> Decision:
        return Decision(game=number, turn=self.turn + (0 if kind is Kind.MOVE else 1),
                        player=player, kind=kind, position_id=position.position_id(),
                        dice=dice, cube=self.cube, played=played, best=best,
                        played_equity=played_equity, best_equity=best_equity, forced=forced,
                        counted=counted, luck=luck)

    # --- checker play ---

    def _move(self, number: int, player: int, dice: tuple[int, int],
              steps: ev.Steps | None, first: bool) -> Decision:
        self.turn += 1
        before = self._seen_by(player)
        board, cube = engine.board_of(before), self._cube(player)
        evaluated = (tuple(board), cube)
        last = self.last_batch.get(player)
        per_roll = last[1] if last and last[0] == evaluated else self._plays_per_roll(board, cube)
        self.last_batch[player] = evaluated, per_roll
        luck = self._luck(per_roll, board, cube, dice, first)
        colour = Colour.X if player == self.x_player else Colour.O
        if steps is None:  # no legal play: the position stands, the turn passes
            equity = self._standing(board, cube)
            return self._decision(number, player, Kind.MOVE, before, played="", best="",
                                  played_equity=equity, best_equity=equity, dice=dice,
                                  forced=True, counted=False, luck=luck)
        plays = {play.result_board: play for play in before.legal_plays(dice)}
        played = before.apply(steps)
        self.position, self.seen_by = played.result, player
        # Only our legal plays count (bgsage also offers bearing off with one die of two).
        ranked = [(play, equity) for play, equity in _ranked(per_roll[_roll_key(dice)])
                  if play in plays]
        forced = len(plays) == 1
        # A forced play is judged without a search: it has no error, whatever its value.
        judged = dict(ranked[:1]) if forced else self._judged(board, cube, ranked,
                                                               played.result_board)
        best = max(judged, key=lambda play: judged[play])
        return self._decision(
            number, player, Kind.MOVE, before, played=format_play(played, colour),
            best=format_play(plays[best], colour), played_equity=judged[played.result_board],
            best_equity=judged[best], dice=dice, forced=forced, counted=not forced, luck=luck)

    def _judged(self, board: list[int], cube: engine.Cube, ranked: list[tuple[Board, float]],
                played: Board) -> dict[Board, float]:
        """The equity of each play the search keeps, in full depth: the play made, and those
        the bare network ranks best (`ranked`, best first) not already beaten."""
        if self.plies == CHEAPEST_PLIES:
            return dict(ranked)
        best = ranked[0][1]
        kept = [(play, equity) for play, equity in ranked
                if best - equity < self.search.window][:self.search.plays]
        if [play for play, _ in kept] == [played]:
            # The only play the filter keeps was made: no error to find, so no search (as a
            # forced play), its value the bare network's.
            return dict(kept)
        other = cube.other_side()
        owner = engine._CPP_OWNER[other.owner]

        def in_full(play: Board) -> float:
            # bgsage's own full-depth value of a play (its `checker_play`): the opponent's
            # cubeful equity before its roll, in the cube-aware look-ahead, turned round.
            after = bgbot_cpp.cubeful_probs_and_equity_nply(
                bgbot_cpp.flip_board(list(play)), owner, self.network, self.plies,
                n_threads=1, cube_value=cube.value, away1=other.away[0], away2=other.away[1],
                is_crawford=cube.is_crawford, jacoby=False, beaver=False,
                bearoff_db=self.bearoff, root_board=board)
            return float(-after["equity"])

        judged = {played: in_full(played)}
        beaten_by = self.search.beaten_by
        for play, equity in kept:
            if play not in judged and (beaten_by is None
                                       or equity + beaten_by >= max(judged.values())):
                judged[play] = in_full(play)
        return judged

    def _luck(self, per_roll: dict[tuple[int, int], list[dict[str, Any]]],
              board: list[int], cube: engine.Cube, dice: tuple[int, int], first: bool) -> float:
        """The roll's best equity less the average roll's (gnubg's luck, at LUCK_PLIES). The
        opening roll is judged as gnubg does: against the 30 opening rolls of either side."""
        mine = self._best_per_roll(per_roll, board, cube)
        if not first:
            return mine[_roll_key(dice)] - sum(
                equity * (1 if high == low else 2) for (high, low), equity in mine.items()) / 36
        flipped, other = bgbot_cpp.flip_board(board), cube.other_side()
        # The starting position is the same from either side: at an equal score the other
        # side's 21 rolls are this side's, already evaluated.
        theirs = mine if (flipped, other) == (board, cube) else self._best_per_roll(
            self._plays_per_roll(flipped, other), flipped, other)
        openings = [mine[roll] for roll in mine if roll[0] != roll[1]] + [
            -theirs[roll] for roll in theirs if roll[0] != roll[1]]
        return mine[_roll_key(dice)] - sum(openings) / len(openings)

    def _best_per_roll(self, per_roll: dict[tuple[int, int], list[dict[str, Any]]],
                       board: list[int], cube: engine.Cube) -> dict[tuple[int, int], float]:
        """For each of the 21 rolls, the equity after its best play; with none, of the board
        as it stands."""
        standing = None
        best: dict[tuple[int, int], float] = {}
        for roll, plays in per_roll.items():
            if plays:
                best[roll] = plays[0]["equity"]
            else:
                standing = self._standing(board, cube) if standing is None else standing
                best[roll] = standing
        return best

    def _plays_per_roll(self, board: list[int],
                        cube: engine.Cube) -> dict[tuple[int, int], list[dict[str, Any]]]:
        """For each of the 21 rolls, bgsage's plays (`board`, `equity`: cubeful at LUCK_PLIES,
        the bare network), best first: the luck's and the search's first pass, in one
        batch (only the roll played needs its plays' boards: `_ranked`)."""
        rolls = [(high, low) for high in range(1, 7) for low in range(1, high + 1)]
        inputs = [{"board": board, "die1": high, "die2": low, "cube_value": cube.value,
                   "cube_owner": engine._CPP_OWNER[cube.owner], "away1": cube.away[0],
                   "away2": cube.away[1], "is_crawford": cube.is_crawford}
                  for high, low in rolls]
        results = bgbot_cpp.batch_checker_play(inputs, self.network, n_threads=1,
                                               jacoby=False, beaver=False)
        return {roll: result["moves"] for roll, result in zip(rolls, results, strict=True)}

    def _standing(self, board: list[int], cube: engine.Cube) -> float:
        """The equity of the board as it stands, the opponent to roll (no legal play), at
        LUCK_PLIES: a forced decision, judged without a search."""
        equity: float = engine.analyzer(LUCK_PLIES).post_move_analytics(
            board, cube.owner, cube.value, **_jacoby_off(cube)).cubeful_equity
        return equity

    # --- the cube ---

    def _offer(self, doubler: int, plies: int, doubled: bool = False) -> _Offer:
        """The cube's equities for `doubler`; `doubled`: a double made, whose no double
        counts only where it is the best (engine.cube_equities_in_depth)."""
        cube = self._cube(doubler)
        board = engine.board_of(self._seen_by(doubler))
        if plies > CHEAPEST_PLIES:
            equities = engine.cube_equities_in_depth(board, cube, plies,
                                                     no_double_needed=not doubled)
            return _Offer(doubler, equities.no_double, equities.take, equities.drop)
        if self.post_crawford:
            action = engine.analyzer(plies).cube_action(board, cube.value, cube.owner,
                                                        beaver=False, **cube.options)
        else:
            # cube_action's 1-ply formula, without its reloading the networks (25 ms a call).
            action = engine.cube_equities(board, cube, plies)
        return _Offer(doubler, action.equity_nd, action.equity_dt, action.equity_dp)

    def _settled_offer(self, player: int) -> _Offer | None:
        """The cube on the bare network when it settles a no double (the search's margin),
        else None. Not post-Crawford, where the trailer's double is never clear there."""
        margin = self.search.settled_no_double
        if self.plies == CHEAPEST_PLIES or margin is None or self.post_crawford:
            return None
        offer = self._offer(player, CHEAPEST_PLIES)
        return offer if offer.no_double - self._answered(offer, 0) > margin else None

    def _no_double(self, number: int, player: int) -> Decision:
        offer = self._settled_offer(player) or self._offer(player, self.plies)
        doubled = self._answered(offer, 0)
        optimal = max(offer.no_double, doubled)
        return self._decision(
            number, player, Kind.NO_DOUBLE, self._seen_by(player), played="no double",
            best="no double" if offer.no_double >= doubled else "double",
            played_equity=offer.no_double, best_equity=optimal,
            counted=optimal - min(offer.take, 1.0) < CLOSE_CUBE)

    def _double(self, number: int, player: int, offer: _Offer) -> Decision:
        doubled = self._answered(offer, 0)
        return self._decision(
            number, player, Kind.DOUBLE, self._seen_by(player), played="double",
            best="double" if doubled >= offer.no_double else "no double",
            played_equity=doubled, best_equity=max(offer.no_double, doubled))

    def _redoubles_allowed(self, level: int) -> bool:
        """Whether the answer to an offer after `level` redoubles may be one more."""
        limit = self.match.max_redoubles
        limit = _REDOUBLES_WEIGHED if limit is None else min(limit, _REDOUBLES_WEIGHED)
        return self.match.length is None and level + 1 <= limit

    def _options(self, offer: _Offer, level: int, redoubled: bool = False) -> dict[Kind, float]:
        """What each answer to the offer after `level` redoubles is worth to the doubler, in
        units of the cube before the double. The cube stays with the first taker, doubled
        with each redouble; a drop loses half the cube offered."""
        stake = 2 ** level
        taker_answers = level % 2 == 0
        options = {Kind.TAKE: stake * offer.take,
                   Kind.DROP: offer.drop if level == 0 else stake * (1 if taker_answers else -1)}
        if redoubled or self._redoubles_allowed(level):  # redoubled: it was allowed
            options[Kind.BEAVER] = self._answered(offer, level + 1)
        return options

    def _answered(self, offer: _Offer, level: int) -> float:
        """The doubler's equity when the offer after `level` redoubles is answered best."""
        values = self._options(offer, level).values()
        return min(values) if level % 2 == 0 else max(values)

    def _answer(self, number: int, player: int, offer: _Offer, kind: Kind) -> Decision:
        sign = -1 if player != offer.doubler else 1  # the answerer's side
        options = {option: sign * value
                   for option, value in self._options(offer, offer.level,
                                                      kind is Kind.BEAVER).items()}
        best = max(options, key=lambda option: options[option])
        return self._decision(number, player, kind, self._seen_by(player),
                              played=kind.value, best=best.value,
                              played_equity=options[kind], best_equity=options[best])

    # --- resignations ---

    def _resignation(self, number: int, player: int, offered: ev.ResignOffered,
                     kind: Kind) -> Decision:
        """Resigning against playing on, as the bots weigh them (engine): the 1-ply chances of
        each result, those the position rules out removed; in EMG of the cube in play."""
        situation = self._situation(player, offered.kind if kind is not Kind.RESIGN else None)
        playing_on = engine._playing_on_value(situation, engine._bots_probabilities(situation))
        points = offered.points if kind is not Kind.RESIGN else -offered.points
        resigned = engine._outcome_value(situation, points)
        win = engine._outcome_value(situation, self.cube)
        loss = engine._outcome_value(situation, -self.cube)

        def emg(value: float) -> float:
            return (2 * value - win - loss) / (win - loss)

        giving_up = "resign" if kind is Kind.RESIGN else "accept"
        playing = "play on" if kind is Kind.RESIGN else "reject"
        values = {giving_up: emg(resigned), playing: emg(playing_on)}
        chosen = playing if kind is Kind.REJECT_RESIGNATION else giving_up
        best = max(values, key=lambda option: values[option])
        return self._decision(number, player, kind, self._seen_by(player), played=chosen,
                              best=best, played_equity=values[chosen], best_equity=values[best])

    def _situation(self, player: int, offered: ev.WinKind | None) -> Situation:
        """The match as `player` sees it now, as the bots' engine reads it."""
        match, on_roll = self.match, self.on_roll if self.on_roll is not None else player
        owner = (CubeOwner.CENTRED if self.owner is None
                 else CubeOwner.BOT if self.owner == player else CubeOwner.OPPONENT)
        return Situation(
            phase=Phase.RESIGN_OFFERED if offered else Phase.MOVE if self.dice
            else Phase.ROLL_OR_DOUBLE,
            position=self._seen_by(player), bot_on_roll=on_roll == player, dice=self.dice,
            cube=self.cube, cube_owner=owner, may_double=False, offered_cube=None,
            offered_resignation=offered, score=(self.score[player], self.score[1 - player]),
            length=match.length, is_crawford_game=self.crawford,
            is_post_crawford=self.post_crawford, variant=match.variant,
            refused_resignation=None)


def _ranked(moves: list[dict[str, Any]]) -> list[tuple[Board, float]]:
    """bgsage's plays of a roll as (the board after, its equity), best first."""
    return [(tuple(move["board"]), move["equity"]) for move in moves]


def _roll_key(dice: tuple[int, int]) -> tuple[int, int]:
    return max(dice), min(dice)


def _jacoby_off(cube: engine.Cube) -> dict[str, Any]:
    options = cube.options
    return {"away1": options["away1"], "away2": options["away2"],
            "is_crawford": options["is_crawford"], "jacoby": False}

