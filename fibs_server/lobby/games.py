"""Running matches: the rules engine's events turned into FIBS's texts for the two players
and their watchers, in FIBS's order, after the new state is safely stored.

Every action on a match runs under the match's lock: apply it to the engine, write the state
to the store, and only then tell anyone, so that nothing acknowledged can be lost.
"""
from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Callable

from fibs_server.lobby.match_records import RatingUpdate
from fibs_server.lobby.session import Session
from fibs_server.protocol import match_texts
from fibs_server.protocol.board import UNLIMITED, BoardView, render_board
from fibs_server.protocol.settings import redoubles_limit
from fibs_server.protocol.texts import plural
from fibs_server.rules import events as ev
from fibs_server.rules.dice import Dice
from fibs_server.rules.greedy import greedy_bearoff
from fibs_server.rules.match import REDOUBLE_NAMES, Match, Moment, Phase
from fibs_server.rules.notation import format_steps
from fibs_server.rules.ratings import PlayerRating, RatingCalculation, rate_match

JOIN_OR_LEAVE = "Type 'join' if you want to play the next game, type 'leave' if you don't."
ROLL_OR_DOUBLE = "It's your turn to roll or double."


@dataclasses.dataclass
class Invitation:
    inviter: Session
    invitee: str  # the invited user's name
    length: int | None  # None = unlimited
    resume: bool = False  # an invitation to resume the saved match between the two


def match_kind(length: int | None) -> str:
    """`a 5 point match` / `an unlimited match`."""
    return "an unlimited match" if length is None else f"a {length} point match"


class RunningMatch:
    """A match between two users, with the sessions that are connected to it."""

    def __init__(self, match_id: int, match: Match, names: tuple[str, str],
                 sessions: tuple[Session, Session]) -> None:
        self.match_id = match_id
        self.match = match
        self.names = names  # [0] = inviter, [1] = joiner
        self.sessions: list[Session | None] = list(sessions)
        self.lock = asyncio.Lock()
        self.rating_calculation: RatingCalculation | None = None  # set when a rated match ends

    def index_of(self, session: Session) -> int:
        return self.sessions.index(session)

    def opponent_name(self, player: int) -> str:
        return self.names[1 - player]



class Narrator:
    """Sends the texts for a batch of engine events to the players and watchers of a match."""

    def __init__(self, running: RunningMatch, watchers_of: Callable[[Session], list[Session]]):
        self.running = running
        self.match = running.match
        self.watchers_of = watchers_of

    # --- recipients --------------------------------------------------------------------

    def player(self, index: int) -> Session | None:
        return self.running.sessions[index]

    def watchers(self) -> list[tuple[Session, int]]:
        """(watcher, index of the watched player)."""
        return [(w, i) for i, s in enumerate(self.running.sessions) if s is not None
                for w in self.watchers_of(s)]

    def tell(self, index: int, text: str) -> None:
        session = self.player(index)
        if session is not None:
            session.send_line(text)

    def tell_watchers(self, text: str) -> None:
        for watcher, _ in self.watchers():
            watcher.send_line(text)

    def tell_all(self, you: str, opponent: str, watchers: str, actor: int) -> None:
        self.tell(actor, you)
        self.tell(1 - actor, opponent)
        self.tell_watchers(watchers)

    # --- boards ------------------------------------------------------------------------

    def board_view(self, moment: Moment, index: int, as_you: bool) -> BoardView:
        """The board of `moment` as player `index` (or a watcher of that player) sees it."""
        match = self.match
        position = moment.position_seen_by(index)
        to_act = moment.to_act
        dice = moment.dice if moment.phase is Phase.MOVE and moment.dice else (0, 0)
        offer = moment.double_offer
        return BoardView(
            player_name="You" if as_you else self.running.names[index],
            opponent_name=self.running.opponent_name(index),
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

    def board_to(self, session: Session, moment: Moment, index: int, as_you: bool,
                 style: int | None = None) -> None:
        """The board in `style`, or else in the session's `boardstyle`."""
        session.send_lines(render_board(self.board_view(moment, index, as_you),
                                        style or int(session.setting("boardstyle"))))

    def board_to_player(self, moment: Moment, index: int, only_with: str | None = None) -> None:
        session = self.player(index)
        if session is not None and (only_with is None or session.toggle(only_with)):
            self.board_to(session, moment, index, as_you=True)

    def board_to_watchers(self, moment: Moment) -> None:
        for watcher, index in self.watchers():
            if watcher.toggle("autoboard"):
                self.board_to(watcher, moment, index, as_you=False)

    def boards_to_all(self, moment: Moment) -> None:
        """The new moment to both players and the watchers who want boards (`autoboard`)."""
        for index in (0, 1):
            self.board_to_player(moment, index, only_with="autoboard")
        self.board_to_watchers(moment)

    # --- events --------------------------------------------------------------------------

    def narrate(self, told: list[tuple[ev.Event, Moment | None]]) -> None:
        """Each event's texts, and the boards of its moment, in FIBS's order (a roll's moment
        is None when the server plays that roll itself: no board asks for the move)."""
        names = self.running.names
        previous: ev.Event | None = None
        for event, moment in told:
            match event:
                case ev.GameStarted():
                    for index in (0, 1):
                        self.tell(index, f"Starting a new game with {names[1 - index]}.")
                    for watcher, index in self.watchers():
                        watcher.send_line(f"Starting a new game with {names[1 - index]}.")
                case ev.OpeningRoll(die_0=die_0, die_1=die_1, starter=starter):
                    self.tell(0, f"You rolled {die_0}, {names[1]} rolled {die_1}")
                    self.tell(1, f"You rolled {die_1}, {names[0]} rolled {die_0}")
                    self.tell_watchers(f"{names[0]} rolled {die_0}, {names[1]} rolled {die_1}")
                    if starter is not None:
                        self.tell(starter, "It's your turn to move.")
                        self.tell(1 - starter, f"{names[starter]} makes the first move.")
                        self.tell_watchers(f"{names[starter]} makes the first move.")
                        for index in (0, 1):
                            self.board_to_player(moment, index)
                        self.board_to_watchers(moment)
                case ev.CubeAutoDoubled(cube=cube):
                    for index in (0, 1):
                        self.tell(index, f"The number on the doubling cube is now {cube}")
                    self.tell_watchers(f"The number on the doubling cube is now {cube}")
                case ev.Rolled(player=p, dice=(a, b)):
                    self.tell_all(f"You roll {a} and {b}.", f"{names[p]} rolls {a} and {b}.",
                                  f"{names[p]} rolls {a} and {b}.", p)
                    if moment is not None:
                        self.board_to_player(moment, p, only_with="moreboards")
                case ev.CannotMove(player=p):
                    self.tell_all("You can't move.", f"{names[p]} can't move.",
                                  f"{names[p]} can't move.", p)
                    self.boards_to_all(moment)
                case ev.Moved(player=p, steps=steps):
                    text = f"{names[p]} moves {self.play_text(p, steps)} ."
                    mover = self.player(p)
                    if mover is not None and not mover.toggle("autoboard"):
                        mover.send_line("Done.")
                    self.board_to_player(moment, p, only_with="autoboard")
                    self.tell(1 - p, text)
                    self.board_to_player(moment, 1 - p, only_with="autoboard")
                    self.tell_watchers(text)
                    self.board_to_watchers(moment)
                case ev.Doubled(player=p):
                    opp = names[1 - p]
                    notice = match_texts.doubled_notice(names[p])
                    self.tell_all(f"You double. Please wait for {opp} to accept or reject.",
                                  notice, notice, p)
                    self.board_to_player(moment, 1 - p, only_with="autoboard")
                    self.board_to_watchers(moment)
                case ev.Redoubled(player=p, cube=cube, number=number):
                    animal = REDOUBLE_NAMES.get(number, "redouble")
                    opp = names[1 - p]
                    notice = (f"{names[p]} {animal}s the double. The cube would show {cube}. "
                              "Type 'accept' or 'reject'.")
                    self.tell_all(
                        f"You {animal} the double. The cube would show {cube}. "
                        f"Please wait for {opp} to accept or reject.", notice, notice, p)
                    self.board_to_player(moment, 1 - p, only_with="autoboard")
                    self.board_to_watchers(moment)
                case ev.DoubleAccepted(player=p, cube=cube):
                    accepted = f"{names[p]} accepts the double. The cube shows {cube}."
                    self.tell_all(f"You accept the double. The cube shows {cube}.",
                                  accepted, accepted, p)
                case ev.DoubleRejected(player=p, points=points):
                    won = plural(points, "point")
                    self.tell_all(f"You give up. {names[1 - p]} wins {won}.",
                                  f"{names[p]} gives up. You win {won}.",
                                  f"{names[p]} gives up. {names[1 - p]} wins {won}.", p)
                case ev.ResignOffered(player=p, points=points):
                    won = plural(points, "point")
                    self.tell_all(
                        f"You want to resign. {names[1 - p]} will win {won}.",
                        match_texts.resignation_notice(names[p], points),
                        f"{names[p]} wants to resign. {names[1 - p]} will win {won}.", p)
                case ev.ResignAccepted(player=p, points=points):
                    won = plural(points, "point")
                    self.tell_all(f"You accept and win {won}.",
                                  f"{names[p]} accepts and wins {won}.",
                                  f"{names[p]} accepts and wins {won}.", p)
                case ev.ResignRejected(player=p):
                    self.tell_all("You reject. The game continues.",
                                  f"{names[p]} rejects. The game continues.",
                                  f"{names[p]} rejects. The game continues.", p)
                case ev.GameOver(winner=w, points=points):
                    if isinstance(previous, ev.Moved):
                        gets = plural(points, "point")
                        self.tell_all(f"You win the game and get {gets}. Congratulations!",
                                      f"{names[w]} wins the game and gets {gets}. Sorry.",
                                      f"{names[w]} wins the game and gets {gets}.", w)
                    if moment.phase is Phase.BETWEEN_GAMES:
                        self.game_between(moment)
                    else:  # the game that ended the match
                        for index in (0, 1):
                            self.move_list_to(index)
                case ev.MatchOver(winner=w, score=score):
                    self.match_over(w, score)
                case ev.JoinedNextGame(player=p):
                    # FIBS tells the other player nothing: they have their `Type 'join'` line.
                    self.tell(p, f"** Please wait for {names[1 - p]} to join too.")
            previous = event

    def match_over(self, winner: int, score: tuple[int, int]) -> None:
        names, length = self.running.names, self.match.length
        assert length is not None
        won, lost = score[winner], score[1 - winner]
        calculation = self.running.rating_calculation
        for index in (0, 1):
            session = self.player(index)
            if session is not None and calculation is not None and session.toggle("ratings"):
                session.send_lines(match_texts.rating_calculation_lines(
                    names[winner], names[1 - winner], calculation.winner_after.experience - length,
                    calculation.loser_after.experience - length, calculation))
        self.tell(winner, match_texts.you_win_match_line(length, won, lost))
        self.tell(1 - winner, match_texts.wins_match_line(names[winner], length, won, lost))
        self.tell_watchers(match_texts.wins_match_line(names[winner], length, won, lost))

    def game_between(self, moment: Moment) -> None:
        """After a game that did not end the match: scores, moves, the join-or-leave line."""
        names, length = self.running.names, self.match.length
        for index in (0, 1):
            own, other = moment.score[index], moment.score[1 - index]
            self.tell(index, match_texts.score_line(length, names[index], own,
                                                    names[1 - index], other))
            self.move_list_to(index)
            self.tell(index, JOIN_OR_LEAVE)
        for watcher, index in self.watchers():
            own, other = moment.score[index], moment.score[1 - index]
            watcher.send_line(match_texts.score_line(length, names[index], own,
                                                     names[1 - index], other))

    def move_list_to(self, index: int) -> None:
        """The moves of the game just ended, to a player who asked for them (`toggle moves`)."""
        session = self.player(index)
        if session is not None and session.toggle("moves"):
            session.send_lines(self.move_list(self.match.game_count - 1))

    def play_text(self, player: int, steps: ev.Steps) -> str:
        return format_steps(steps, self.match.colour(player))

    def move_list(self, game_index: int) -> list[str]:
        """The `moves` list of one game of this match."""
        history = self.match.game_events(game_index)
        started = history[0]
        assert isinstance(started, ev.GameStarted)
        x = started.x_player
        colour = {x: "X", 1 - x: "O"}
        actions: list[tuple[str, match_texts.Roll | str]] = []
        for event, dice in ev.with_dice(history):
            match event:
                case ev.CannotMove(player=p):
                    actions.append((colour[p], match_texts.Roll(dice, "")))
                case ev.Moved(player=p, steps=steps):
                    actions.append((colour[p], match_texts.Roll(
                        dice, format_steps(steps, colour[p]))))
                case ev.Doubled(player=p) | ev.Redoubled(player=p):
                    actions.append((colour[p], "doubles"))
                case ev.DoubleAccepted(player=p) | ev.ResignAccepted(player=p):
                    actions.append((colour[p], "accepts"))
                case ev.DoubleRejected(player=p) | ev.ResignRejected(player=p):
                    actions.append((colour[p], "rejects"))
                case ev.ResignOffered(player=p):
                    actions.append((colour[p], "wants to resign"))
                case ev.GameOver(winner=w):
                    actions.append((colour[w], "wins"))
        names = self.running.names
        return match_texts.move_list_lines(names[x], names[1 - x], self.match.length,
                                           started.score[x], started.score[1 - x], actions)


def show_taken_over_match(running: RunningMatch, session: Session) -> None:
    """The match a new login took over: its board, and what the player must do."""
    index = running.index_of(session)
    match = running.match
    Narrator(running, lambda _: []).board_to(session, match.moment(), index, as_you=True)
    if match.phase is Phase.ROLL_OR_DOUBLE and match.turn == index \
            and match.resignation is None:
        session.send_line(ROLL_OR_DOUBLE)
    remind(running, (index,))


def remind(running: RunningMatch, players: tuple[int, ...]) -> None:
    """After a match is loaded or a player's new login took it over: tell those of `players`
    who must act what is expected of them."""
    match, names = running.match, running.names
    if match.phase is Phase.BETWEEN_GAMES:
        reminders = [(index, JOIN_OR_LEAVE) for index in (0, 1) if index not in match.joined]
    elif match.resignation is not None:
        resigner = match.resignation.player
        reminders = [(1 - resigner, match_texts.resignation_notice(names[resigner],
                                                                   match.resignation.points))]
    elif match.double_offer is not None:
        doubler = match.double_offer.offered_by
        reminders = [(1 - doubler, match_texts.doubled_notice(names[doubler]))]
    elif match.phase is Phase.MOVE:
        reminders = [(match.turn, f"Please move {plural(match.pieces_to_move, 'piece')}.")]
    else:
        reminders = []
    for index, text in reminders:
        session = running.sessions[index]
        if session is not None and index in players:
            session.send_line(text)


def may_double_field(moment: Moment, index: int) -> bool:
    """A board's `may double` field. FIBS keeps both at 1 while the cube is centred, even where
    no one may double (a 1-point match, the Crawford game), and 0 for both only while a double
    is pending: gnubg reads 0:0 as a pending double and answers `take` (docs/BOARDS.md)."""
    return moment.double_offer is None and moment.cube_owner in (None, index)


def rating_updates(running: RunningMatch, winner: int, before: tuple[PlayerRating, PlayerRating]
                   ) -> list[RatingUpdate]:
    """The new ratings of both players of a finished fixed-length match (`before` indexed by
    player); keeps the calculation on `running` for the `ratings` toggle's block."""
    assert running.match.length is not None
    calculation = rate_match(before[winner], before[1 - winner], running.match.length)
    running.rating_calculation = calculation
    names = running.names
    return [RatingUpdate(names[winner], calculation.winner_after.rating,
                         calculation.winner_after.experience),
            RatingUpdate(names[1 - winner], calculation.loser_after.rating,
                         calculation.loser_after.experience)]


def automatic_play(match: Match, session: Session) -> tuple[str, object] | None:
    """A play the server makes for the player on turn by their toggles: the only legal play
    (`automove`) or a greedy bear-off (`greedy`). Returns (reason, play) or None."""
    if match.legal_play_count == 1 and session.toggle("automove"):
        return "only", match.legal_plays()[0]
    if session.toggle("greedy") and match.dice is not None:
        play = greedy_bearoff(match.position_seen_by(match.turn), match.dice)
        if play is not None and all(to == 0 for _, to in play.steps):
            return "greedy", play
    return None


def new_match(length: int | None, dice: Dice, inviter: Session, joiner: Session,
              first_x_player: int) -> Match:
    both = (inviter.account, joiner.account)
    assert both[0] is not None and both[1] is not None
    numbers = [redoubles_limit(a.settings["redoubles"]) for a in both]
    finite = [n for n in numbers if n is not None]
    return Match(length, dice,
                 crawford=any(a.toggles["crawford"] for a in both),
                 autodouble=all(a.toggles["autodouble"] for a in both),
                 max_redoubles=min(finite) if finite else None,
                 first_x_player=first_x_player)
