"""The `.mat` match text format (Jellyfish's, as GNU Backgammon and other analysis programs
import and export it).

Pure: plain data in, text out. The layout follows gnubg's own `export match mat`:

```
 5 point match

 Game 1
 alice : 0                      bob : 0
  1) 31: 8/5 6/5                 64: 24/18 13/9
  2) 52: 13/8 13/11               Doubles => 2
  3)  Takes                      43: 24/20 13/10
      Wins 1 point
```

Player 0 is the left column. Every play is written in the mover's own numbering (24 down to
1, 25 = bar, 0 = off), one `from/to` per die, `*` after a step that hits. An unlimited match
is written as gnubg writes a money session: ` 0 point match`. A variant gnubg has a name for
(its `gnubg_name`) is named in a header line before it, as gnubg exports one: `; [Variation
"NackGammon"]`. gnubg knows no Portes: such a match is written as standard backgammon (its
results say the points each game was won with).
"""
from __future__ import annotations

import dataclasses
from typing import assert_never

from fibs_server.protocol.texts import plural
from fibs_server.rules import events as ev
from fibs_server.rules.board.position import Position
from fibs_server.rules.match import Match
from fibs_server.rules.replay import played_rolls
from fibs_server.rules.variants import Variant

_NUMBER_WIDTH = 5  # "  1) "
_COLUMN_WIDTH = 28  # the left player's entry, padded
_NAME_COLUMN_WIDTH = 31  # " alice : 0", padded


@dataclasses.dataclass(frozen=True)
class MatRoll:
    """A roll and the play made with it; `steps` empty when the roll could not be played.
    `hits` are the steps (by index) that hit a blot."""
    player: int
    dice: tuple[int, int]
    steps: tuple[tuple[int, int], ...] = ()
    hits: frozenset[int] = frozenset()


@dataclasses.dataclass(frozen=True)
class MatDouble:
    player: int
    cube: int  # the value offered


@dataclasses.dataclass(frozen=True)
class MatTake:
    player: int


@dataclasses.dataclass(frozen=True)
class MatDrop:
    player: int


@dataclasses.dataclass(frozen=True)
class MatWin:
    player: int
    points: int


MatAction = MatRoll | MatDouble | MatTake | MatDrop | MatWin


@dataclasses.dataclass(frozen=True)
class MatGame:
    score: tuple[int, int]  # before the game, player 0 first
    actions: tuple[MatAction, ...]


def mat_games(match: Match) -> list[MatGame]:
    """The match's games as `.mat` data: every roll and play, cube action and result."""
    games = []
    for game in match.history:
        started = game[0]
        assert isinstance(started, ev.GameStarted)
        plays = {id(r.moved): r for r in played_rolls(game, Position.initial(match.variant))}
        actions: list[MatAction] = []
        dice: dict[int, tuple[int, int]] = {}
        for event in game:
            match event:
                case ev.OpeningRoll(die_0=d0, die_1=d1, starter=s) if s is not None:
                    dice[s] = (d0, d1)
                case ev.Rolled(player=p, dice=rolled):
                    dice[p] = rolled
                case ev.CannotMove(player=p):
                    actions.append(MatRoll(p, dice.pop(p)))
                case ev.Moved(player=p, steps=steps):
                    hit_points = set(plays[id(event)].play.hits)
                    hits = frozenset(i for i, (_, to) in enumerate(steps) if to in hit_points)
                    actions.append(MatRoll(p, dice.pop(p), steps, hits))
                case ev.Doubled(player=p, cube=cube) | ev.Redoubled(player=p, cube=cube):
                    actions.append(MatDouble(p, cube))
                case ev.DoubleAccepted(player=p):
                    actions.append(MatTake(p))
                case ev.DoubleRejected(player=p):
                    actions.append(MatDrop(p))
                case ev.GameOver(winner=w, points=points):
                    actions.append(MatWin(w, points))
                case ev.Forfeited(player=p, points=points):
                    actions.append(MatWin(1 - p, points))
                case (ev.GameStarted() | ev.OpeningRoll() | ev.CubeAutoDoubled()
                      | ev.ResignOffered() | ev.ResignAccepted() | ev.ResignRejected()
                      | ev.MatchOver() | ev.JoinedNextGame()):
                    pass  # not in `.mat`: a resignation shows as the game it wins
                case _:
                    assert_never(event)
        games.append(MatGame(started.score, tuple(actions)))  # events hold tuples
    return games


def write_mat(names: tuple[str, str], length: int | None, games: list[MatGame],
              variant: Variant = Variant.STANDARD) -> str:
    """The whole match as `.mat` text (LF line ends, as gnubg writes it)."""
    variation = variant.facts.gnubg_name
    header = [f'; [Variation "{variation}"]'] if variation else []
    lines = [*header, "", f" {0 if length is None else length} point match", ""]
    for number, game in enumerate(games, 1):
        lines += [f" Game {number}",
                  f" {names[0]} : {game.score[0]}".ljust(_NAME_COLUMN_WIDTH)
                  + f" {names[1]} : {game.score[1]}",
                  *_game_lines(game.actions), ""]
    return "\n".join(lines) + "\n"


def _game_lines(actions: tuple[MatAction, ...]) -> list[str]:
    """One numbered line per pair of turns: the left player's action, then the right's. A left
    action always opens a new line; a right action closes the line it is on. A game's result
    gets a line of its own in the winner's column, except after the left player's drop."""
    lines: list[str] = []
    left: str | None = None
    for action in actions:
        if isinstance(action, MatWin):
            wins = f" Wins {plural(action.points, 'point')}"
            if left is not None and action.player == 1:
                # The right player wins on the line the left player's drop opened.
                lines.append(_numbered(len(lines) + 1, left, wins))
            else:
                if left is not None:
                    lines.append(_numbered(len(lines) + 1, left, ""))
                indent = " " * (_NUMBER_WIDTH + (_COLUMN_WIDTH if action.player else 0))
                lines.append(indent + wins)
            left = None
            continue
        text = _action_text(action)
        if action.player == 0:
            if left is not None:
                lines.append(_numbered(len(lines) + 1, left, ""))
            left = text
        else:
            lines.append(_numbered(len(lines) + 1, left or "", text))
            left = None
    if left is not None:
        lines.append(_numbered(len(lines) + 1, left, ""))
    return lines


def _numbered(number: int, left: str, right: str) -> str:
    return f"{number:3d}) {left.ljust(_COLUMN_WIDTH)}{right}".rstrip()


def _action_text(action: MatAction) -> str:
    match action:
        case MatRoll(dice=dice, steps=steps, hits=hits):
            high, low = max(dice), min(dice)
            moves = "".join(f"{start}/{end}{'*' if index in hits else ''} "
                            for index, (start, end) in enumerate(steps))
            return f"{high}{low}: {moves}"
        case MatDouble(cube=cube):
            return f" Doubles => {cube}"
        case MatTake():
            return " Takes"
        case MatDrop():
            return " Drops"
    raise TypeError(f"not a .mat action: {action!r}")
