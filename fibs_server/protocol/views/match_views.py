"""What each viewer of a match sees: boards, the lines each event gives the two players and
the watchers, move lists, and the reminders of what a player must do.

Pure functions of the match (and the moment an event left it in) and the viewer. They
return a script of `Say` and `ShowBoard` items; the lobby only routes them to sessions,
checking the recipient's toggles the items name (FIBS sends a board only to those with
`autoboard`, a move list only to those with `moves`...).
"""
from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Iterator
from typing import assert_never

from fibs_server.protocol.texts import plural
from fibs_server.protocol.views.board import UNLIMITED, BoardView
from fibs_server.protocol.wording import coded_texts, match_texts
from fibs_server.rules import events as ev
from fibs_server.rules.board.notation import format_steps
from fibs_server.rules.match import REDOUBLE_NAMES, Match, Moment, Phase
from fibs_server.rules.ratings import RatingCalculation

JOIN_OR_LEAVE = "Type 'join' if you want to play the next game, type 'leave' if you don't."
ROLL_OR_DOUBLE = "It's your turn to roll or double."
WATCHERS = None  # `Say.to`/`ShowBoard.to` for the watchers of either player


@dataclasses.dataclass(frozen=True)
class Say:
    """Lines for player `to` (0 or 1), or for the watchers (WATCHERS); `watching`: only the
    watchers of that player. `only_with`/`unless`: a toggle the recipient must have on/off."""
    to: int | None
    lines: tuple[str, ...]
    watching: int | None = None
    only_with: str | None = None
    unless: str | None = None


@dataclasses.dataclass(frozen=True)
class ShowBoard:
    """The board of `moment` for player `to`, or for each watcher (WATCHERS) as the player
    they watch sees it, to those with the toggle `only_with` on."""
    to: int | None
    moment: Moment
    only_with: str | None = None


Script = list[Say | ShowBoard]


def say(to: int | None, *lines: str, **conditions: str | int | None) -> Say:
    return Say(to, lines, **conditions)  # type: ignore[arg-type]


def to_all(actor: int, you: str, opponent: str, watchers: str) -> Script:
    """One event told three ways: to the player who acted, the other one, and the watchers."""
    return [say(actor, you), say(1 - actor, opponent), say(WATCHERS, watchers)]


# --- boards ----------------------------------------------------------------------------------------

def may_double_field(moment: Moment, index: int) -> bool:
    """A board's `may double` field. FIBS keeps both at 1 while the cube is centred, even where
    no one may double (a 1-point match, the Crawford game), and 0 for both only while a double
    is pending: gnubg reads 0:0 as a pending double and answers `take` (docs/BOARDS.md)."""
    return moment.double_offer is None and moment.cube_owner in (None, index)


def board_view(match: Match, names: tuple[str, str], moment: Moment, index: int,
               as_you: bool) -> BoardView:
    """The board of `moment` as player `index` (or a watcher of that player) sees it."""
    position = moment.position_seen_by(index)
    to_act = moment.to_act
    dice = moment.dice if moment.phase is Phase.MOVE and moment.dice else (0, 0)
    offer = moment.double_offer
    return BoardView(
        player_name="You" if as_you else names[index],
        opponent_name=names[1 - index],
        match_length=match.length,
        player_score=moment.score[index], opponent_score=moment.score[1 - index],
        player_colour=moment.colour(index),
        player_checkers=position.checkers[0], opponent_checkers=position.checkers[1],
        turn=None if to_act is None else ("player" if to_act == index else "opponent"),
        player_dice=dice if moment.turn == index else (0, 0),
        opponent_dice=dice if moment.turn != index else (0, 0),
        cube=moment.cube,
        player_may_double=may_double_field(moment, index),
        opponent_may_double=may_double_field(moment, 1 - index),
        was_doubled=offer is not None and offer.offered_by != index,
        pieces_to_move=moment.pieces_to_move if moment.turn == index else 0,
        crawford_rule=match.crawford_rule, post_crawford=moment.is_post_crawford,
        max_redoubles=(0 if match.length is not None else
                       UNLIMITED if match.max_redoubles is None else match.max_redoubles),
        checkers_per_side=position.checkers_per_side)


def boards_to_all(moment: Moment) -> Script:
    """The new moment to both players and the watchers who want boards (`autoboard`)."""
    return [ShowBoard(0, moment, "autoboard"), ShowBoard(1, moment, "autoboard"),
            ShowBoard(WATCHERS, moment, "autoboard")]


# --- events ----------------------------------------------------------------------------------------

def narration(match: Match, names: tuple[str, str],
              told: Iterable[tuple[ev.Event, Moment | None] | Say],
              rating: RatingCalculation | None = None) -> Script:
    """Each event's texts and the boards of its moment, in FIBS's order, with the lines the
    server says between events (`Say`) in their places. A roll's moment is None when the
    server plays that roll itself: no board asks for the move. `rating`: the calculation of
    a rated match that ended here."""
    script: Script = []
    previous: ev.Event | None = None
    for item in told:
        if isinstance(item, Say):
            script.append(item)
            continue
        event, moment = item
        script += event_script(match, names, event, moment, previous, rating)
        previous = event
    return script


def event_script(match: Match, names: tuple[str, str], event: ev.Event, moment: Moment | None,
                 previous: ev.Event | None, rating: RatingCalculation | None) -> Script:
    match event:
        case ev.GameStarted():
            return [*(say(i, f"Starting a new game with {names[1 - i]}.") for i in (0, 1)),
                    *(say(WATCHERS, f"Starting a new game with {names[1 - i]}.", watching=i)
                      for i in (0, 1))]
        case ev.OpeningRoll(die_0=die_0, die_1=die_1, starter=starter):
            script: Script = [say(0, f"You rolled {die_0}, {names[1]} rolled {die_1}"),
                      say(1, f"You rolled {die_1}, {names[0]} rolled {die_0}"),
                      say(WATCHERS, f"{names[0]} rolled {die_0}, {names[1]} rolled {die_1}")]
            if starter is not None:
                assert moment is not None
                first = f"{names[starter]} makes the first move."
                # In Portes the starter rolls afresh: the roll that follows asks for the move.
                starter_told = first if moment.dice is None else "It's your turn to move."
                script += [say(starter, starter_told), say(1 - starter, first),
                           say(WATCHERS, first), ShowBoard(0, moment), ShowBoard(1, moment),
                           ShowBoard(WATCHERS, moment, "autoboard")]
            return script
        case ev.CubeAutoDoubled(cube=cube):
            text = f"The number on the doubling cube is now {cube}"
            return [say(0, text), say(1, text), say(WATCHERS, text)]
        case ev.Rolled(player=p, dice=(a, b)):
            script = to_all(p, f"You roll {a} and {b}.", f"{names[p]} rolls {a} and {b}.",
                            f"{names[p]} rolls {a} and {b}.")
            if moment is not None:
                script.append(ShowBoard(p, moment, "moreboards"))
            return script
        case ev.CannotMove(player=p):
            assert moment is not None
            return [*to_all(p, "You can't move.", f"{names[p]} can't move.",
                            f"{names[p]} can't move."), *boards_to_all(moment)]
        case ev.Moved(player=p, steps=steps):
            assert moment is not None
            text = f"{names[p]} moves {format_steps(steps, match.colour(p))} ."
            return [say(p, "Done.", unless="autoboard"), ShowBoard(p, moment, "autoboard"),
                    say(1 - p, text), ShowBoard(1 - p, moment, "autoboard"),
                    say(WATCHERS, text), ShowBoard(WATCHERS, moment, "autoboard")]
        case ev.Doubled(player=p):
            assert moment is not None
            notice = match_texts.doubled_notice(names[p])
            return [*to_all(p, f"You double. Please wait for {names[1 - p]} to accept or reject.",
                            notice, notice),
                    ShowBoard(1 - p, moment, "autoboard"),
                    ShowBoard(WATCHERS, moment, "autoboard")]
        case ev.Redoubled(player=p, cube=cube, number=number):
            assert moment is not None
            animal = REDOUBLE_NAMES.get(number, "redouble")
            notice = (f"{names[p]} {animal}s the double. The cube would show {cube}. "
                      "Type 'accept' or 'reject'.")
            return [*to_all(p, f"You {animal} the double. The cube would show {cube}. "
                               f"Please wait for {names[1 - p]} to accept or reject.",
                            notice, notice),
                    ShowBoard(1 - p, moment, "autoboard"),
                    ShowBoard(WATCHERS, moment, "autoboard")]
        case ev.DoubleAccepted(player=p, cube=cube):
            accepted = f"{names[p]} accepts the double. The cube shows {cube}."
            return to_all(p, f"You accept the double. The cube shows {cube}.", accepted,
                          accepted)
        case ev.DoubleRejected(player=p, points=points):
            won = plural(points, "point")
            return to_all(p, f"You give up. {names[1 - p]} wins {won}.",
                          f"{names[p]} gives up. You win {won}.",
                          f"{names[p]} gives up. {names[1 - p]} wins {won}.")
        case ev.ResignOffered(player=p, points=points):
            won = plural(points, "point")
            return to_all(p, f"You want to resign. {names[1 - p]} will win {won}.",
                          match_texts.resignation_notice(names[p], points),
                          f"{names[p]} wants to resign. {names[1 - p]} will win {won}.")
        case ev.ResignAccepted(player=p, points=points):
            won = plural(points, "point")
            return to_all(p, f"You accept and win {won}.", f"{names[p]} accepts and wins {won}.",
                          f"{names[p]} accepts and wins {won}.")
        case ev.ResignRejected(player=p):
            return to_all(p, "You reject. The game continues.",
                          f"{names[p]} rejects. The game continues.",
                          f"{names[p]} rejects. The game continues.")
        case ev.GameOver(winner=w, points=points):
            assert moment is not None
            script = []
            if isinstance(previous, ev.Moved):
                gets = plural(points, "point")
                script += to_all(w, f"You win the game and get {gets}. Congratulations!",
                                 f"{names[w]} wins the game and gets {gets}. Sorry.",
                                 f"{names[w]} wins the game and gets {gets}.")
            if moment.phase is Phase.BETWEEN_GAMES:
                return script + game_between(match, names, moment)
            # the game that ended the match
            return script + [move_list_to(match, names, i) for i in (0, 1)]
        case ev.Forfeited(player=p, points=points):
            won = plural(points, "point")
            return to_all(p, f"You forfeit the match. {names[1 - p]} wins {won}.",
                          f"{names[p]} forfeits the match. You win {won}.",
                          f"{names[p]} forfeits the match. {names[1 - p]} wins {won}.")
        case ev.MatchOver(winner=w, score=score):
            return match_over(match, names, w, score, rating)
        case ev.JoinedNextGame(player=p):
            # FIBS tells the other player nothing: they have their `Type 'join'` line.
            return [say(p, coded_texts.notice(f"** Please wait for {names[1 - p]} to join too."))]
        case _:
            assert_never(event)


def match_over(match: Match, names: tuple[str, str], winner: int, score: tuple[int, int],
               rating: RatingCalculation | None) -> Script:
    length = match.length
    assert length is not None
    won, lost = score[winner], score[1 - winner]
    script: Script = []
    if rating is not None:
        lines = tuple(match_texts.rating_calculation_lines(
            names[winner], names[1 - winner], rating.winner_after.experience - length,
            rating.loser_after.experience - length, rating))
        script += [Say(i, lines, only_with="ratings") for i in (0, 1)]
    wins = match_texts.wins_match_line(names[winner], length, won, lost)
    return script + [say(winner, match_texts.you_win_match_line(length, won, lost)),
                     say(1 - winner, wins), say(WATCHERS, wins)]


def game_between(match: Match, names: tuple[str, str], moment: Moment) -> Script:
    """After a game that did not end the match: scores, moves, the join-or-leave line."""
    def score(index: int) -> str:
        return match_texts.score_line(match.length, names[index], moment.score[index],
                                      names[1 - index], moment.score[1 - index])
    script: Script = []
    for index in (0, 1):
        script += [say(index, score(index)), move_list_to(match, names, index),
                   say(index, JOIN_OR_LEAVE)]
    return script + [say(WATCHERS, score(index), watching=index) for index in (0, 1)]


def move_list_to(match: Match, names: tuple[str, str], index: int) -> Say:
    """The moves of the game just ended, for a player who asked for them (`toggle moves`)."""
    return Say(index, tuple(move_list(match, names, match.game_count - 1)), only_with="moves")


def move_list(match: Match, names: tuple[str, str], game_index: int) -> list[str]:
    """The `moves` list of one game of a match."""
    history = match.game_events(game_index)
    started = history[0]
    assert isinstance(started, ev.GameStarted)
    x = started.x_player
    colour = {x: "X", 1 - x: "O"}
    return match_texts.move_list_lines(names[x], names[1 - x], match.length, started.score[x],
                                       started.score[1 - x], list(_actions(history, colour)))


def _actions(history: list[ev.Event], colour: dict[int, str]
             ) -> Iterator[tuple[str, match_texts.Roll | str]]:
    for event, dice in ev.with_dice(history):
        match event:
            case ev.CannotMove(player=p):
                assert dice is not None  # with_dice pairs each with its roll
                yield colour[p], match_texts.Roll(dice, "")
            case ev.Moved(player=p, steps=steps):
                assert dice is not None
                yield colour[p], match_texts.Roll(dice, format_steps(steps, colour[p]))
            case ev.Doubled(player=p) | ev.Redoubled(player=p):
                yield colour[p], "doubles"
            case ev.DoubleAccepted(player=p) | ev.ResignAccepted(player=p):
                yield colour[p], "accepts"
            case ev.DoubleRejected(player=p) | ev.ResignRejected(player=p):
                yield colour[p], "rejects"
            case ev.ResignOffered(player=p):
                yield colour[p], "wants to resign"
            case ev.GameOver(winner=w):
                yield colour[w], "wins"
            case ev.Forfeited(player=p):
                yield colour[p], "forfeits the match"
            case (ev.GameStarted() | ev.OpeningRoll() | ev.CubeAutoDoubled() | ev.Rolled()
                  | ev.MatchOver() | ev.JoinedNextGame()):
                pass  # not in a move list: a roll shows with its move
            case _:
                assert_never(event)


# --- what a player must do -------------------------------------------------------------------------

def please_move(pieces: int) -> str:
    return f"Please move {plural(pieces, 'piece')}."


def reminders(match: Match, names: tuple[str, str]) -> list[tuple[int, str]]:
    """(player, text) for each player who must act on a match just loaded or taken over."""
    if match.phase is Phase.BETWEEN_GAMES:
        return [(index, JOIN_OR_LEAVE) for index in (0, 1) if index not in match.joined]
    if match.resignation is not None:
        resigner = match.resignation.player
        return [(1 - resigner, match_texts.resignation_notice(names[resigner],
                                                              match.resignation.points))]
    if match.double_offer is not None:
        doubler = match.double_offer.offered_by
        return [(1 - doubler, match_texts.doubled_notice(names[doubler]))]
    if match.phase is Phase.MOVE:
        return [(match.turn, please_move(match.pieces_to_move))]
    return []


def resume_header(match: Match, names: tuple[str, str]) -> list[str]:
    """The lines before the board when a saved match is loaded."""
    to_act = match.moment().to_act
    return [f"turn: {names[match.turn if to_act is None else to_act]}",
            "unlimited match" if match.length is None else f"match length: {match.length}",
            f"points for user {names[0]}: {match.score[0]}",
            f"points for user {names[1]}: {match.score[1]}"]
