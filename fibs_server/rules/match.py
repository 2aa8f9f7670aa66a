"""The game and match state machine: whose turn, dice, cube, resignations, score, Crawford.

Pure, in the style of h11: no I/O, no clock, no randomness of its own (dice are injected).
Each action names the acting player (0 = inviter, 1 = joiner) and returns the list of events
it caused, which the server turns into FIBS text. An action that the rules forbid raises
`IllegalAction` with its reason (`refusals.Refusal`) and changes nothing.

FIBS behaviour built in: the opening roll's dice are the first mover's roll; a player who
cannot double (no cube in this game, or the opponent owns it) is rolled for automatically,
and so is the doubler after a take.
"""
from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Concatenate, ParamSpec

from .board.position import Play, Position
from .dice import Roll
from .events import (
    CannotMove,
    CubeAutoDoubled,
    DoubleAccepted,
    Doubled,
    DoubleRejected,
    Event,
    Forfeited,
    GameOver,
    GameStarted,
    JoinedNextGame,
    MatchOver,
    Moved,
    OpeningRoll,
    Redoubled,
    ResignAccepted,
    ResignOffered,
    ResignRejected,
    Rolled,
    WinKind,
    event_to_dict,
)
from .match_state import MatchState, check_player
from .moments import DoubleOffer, Moment, Outcome, Phase, Resignation
from .refusals import IllegalAction, Refusal

# What other modules import from here, whichever module of the engine defines it.
__all__ = ["REDOUBLE_NAMES", "DoubleOffer", "IllegalAction", "Match", "Moment", "Outcome",
           "Phase", "Resignation"]

REDOUBLE_NAMES = {1: "beaver", 2: "raccoon", 3: "otter"}

_HOME_AND_BAR_OF_OPPONENT = slice(18, 25)  # the loser's own points 19..24 and its bar


_Arguments = ParamSpec("_Arguments")


def _action(method: Callable[Concatenate[Match, _Arguments], list[Event]]
            ) -> Callable[Concatenate[Match, _Arguments], list[Event]]:
    """A public action: `Match.moments` then holds the moment after each event it returns."""
    @functools.wraps(method)
    def act(self: Match, /, *args: _Arguments.args, **kwargs: _Arguments.kwargs) -> list[Event]:
        self.moments = []
        events = method(self, *args, **kwargs)
        self._reach_moment()
        return events
    return act


class Match(MatchState):
    """A match between player 0 (the inviter) and player 1 (the joiner), and what they do
    in it; its state and the questions it answers are `MatchState`'s."""

    # --- actions --------------------------------------------------------------------

    @_action
    def start(self) -> list[Event]:
        """Start game 1."""
        if self._phase is not Phase.NOT_STARTED:
            raise IllegalAction(Refusal.MATCH_ALREADY_STARTED)
        return self._start_game()

    @_action
    def join(self, player: int) -> list[Event]:
        """Between games: `player` is ready; the next game starts when both are."""
        check_player(player)
        if self._phase is not Phase.BETWEEN_GAMES:
            raise IllegalAction(Refusal.NO_NEXT_GAME)
        if player in self.joined:
            raise IllegalAction(Refusal.ALREADY_JOINED)
        self.joined.add(player)
        if len(self.joined) < 2:
            return [self._note(JoinedNextGame(player))]  # not part of the game's history
        return self._start_game()

    @_action
    def roll(self, player: int) -> list[Event]:
        self._check_can_act(player)
        if self.turn == player and self._phase is Phase.MOVE:
            raise IllegalAction(Refusal.ALREADY_ROLLED)
        if self.turn != player:
            raise IllegalAction(Refusal.NOT_YOUR_TURN_TO_ROLL)
        return self._roll()

    @_action
    def move(self, player: int, play: Play | None) -> list[Event]:
        """Play `play`, which must be one of `legal_plays()` (compared by its result); None
        only asks why `player` may not move now (the server's `move` when it is not time)."""
        self._check_can_act(player)
        if self.turn != player:
            raise IllegalAction(Refusal.NOT_YOUR_TURN_TO_MOVE)
        if self._phase is Phase.ROLL_OR_DOUBLE:
            raise IllegalAction(Refusal.ROLL_BEFORE_MOVING)
        if play is None or not self._is_legal(play):
            raise IllegalAction(Refusal.ILLEGAL_MOVE)
        self._position = play.result
        events = [self._log(Moved(player, play.steps))]
        if self._position.borne_off(0) == self._position.checkers_per_side:
            return events + self._end_game(player, self._win_kind())
        return events + self._pass_turn()

    @_action
    def double(self, player: int) -> list[Event]:
        self._check_can_act(player)
        if self.turn != player:
            if self._phase is Phase.MOVE:
                raise IllegalAction(Refusal.WAIT_FOR_OPPONENT_TO_MOVE)
            raise IllegalAction(Refusal.NOT_YOUR_TURN_TO_DOUBLE)
        # The server rolled for a player who cannot double; say why instead of "too late".
        if self.is_crawford_game:
            raise IllegalAction(Refusal.CRAWFORD_GAME)
        if not self.cube_in_game:
            raise IllegalAction(Refusal.CUBE_NOT_USED)
        if self.cube_owner not in (None, player):
            raise IllegalAction(Refusal.OPPONENT_OWNS_CUBE)
        if self._phase is Phase.MOVE:
            raise IllegalAction(Refusal.DOUBLE_BEFORE_ROLLING)
        # On turn before rolling means the cube is available: otherwise FIBS rolled already.
        self.double_offer = DoubleOffer(offered_by=player, cube=2 * self.cube, redoubles=0)
        self._phase = Phase.DOUBLE_OFFERED
        return [self._log(Doubled(player, self.double_offer.cube))]

    @_action
    def redouble(self, player: int, name: str = "redouble") -> list[Event]:
        """An instant redouble by the doubled player: `name` is "redouble" (any of them) or
        the animal of this one (`REDOUBLE_NAMES`: beaver, raccoon, otter)."""
        offer = self._offer_answered_by(player)
        if offer is None:
            raise IllegalAction(Refusal.OPPONENT_DID_NOT_DOUBLE)
        number = offer.redoubles + 1
        if self.length is not None:
            raise IllegalAction(Refusal.REDOUBLES_ONLY_UNLIMITED)
        if self.max_redoubles is not None and number > self.max_redoubles:
            raise IllegalAction(Refusal.NO_MORE_REDOUBLES)
        if name != "redouble" and name != REDOUBLE_NAMES.get(number):
            raise IllegalAction(Refusal.WRONG_REDOUBLE_NAME, redouble_name=name)
        self.double_offer = DoubleOffer(offered_by=player, cube=2 * offer.cube, redoubles=number)
        return [self._log(Redoubled(player, self.double_offer.cube, number))]

    @_action
    def resign(self, player: int, kind: WinKind) -> list[Event]:
        """Offer to resign, at any time of a game while no double or resignation is pending.
        In a variant without backgammons a backgammon resignation counts as a gammon."""
        self._check_can_act(player)
        kind = WinKind(kind)
        if not self.variant.facts.backgammons:
            kind = min(kind, WinKind.GAMMON)
        self.resignation = Resignation(player, kind, kind * self.cube)
        return [self._log(ResignOffered(player, kind, self.resignation.points))]

    @_action
    def accept(self, player: int) -> list[Event]:
        """Accept the opponent's resignation or double."""
        check_player(player)
        if self.resignation and self.resignation.player != player:
            resignation, self.resignation = self.resignation, None
            events = [self._log(ResignAccepted(player, resignation.points))]
            return events + self._end_game(player, resignation.kind, resignation.points)
        offer = self._offer_answered_by(player)
        if offer:
            self.cube = offer.cube
            # The doubled side owns the cube; instant redoubles do not move it (see RULES.md).
            self.cube_owner = 1 - self.turn
            self.double_offer = None
            events = [self._log(DoubleAccepted(player, self.cube))]
            self._reach_moment()
            return events + self._roll()
        raise IllegalAction(Refusal.NOTHING_TO_ANSWER)

    @_action
    def reject(self, player: int) -> list[Event]:
        """Reject the opponent's resignation (the game goes on) or double (and lose)."""
        check_player(player)
        if self.resignation and self.resignation.player != player:
            self.resignation = None
            return [self._log(ResignRejected(player))]
        offer = self._offer_answered_by(player)
        if offer:
            points = offer.cube // 2  # what the refused double or redouble would have doubled
            self.double_offer = None
            events = [self._log(DoubleRejected(player, offer.offered_by, points))]
            return events + self._end_game(offer.offered_by, WinKind.SINGLE, points)
        raise IllegalAction(Refusal.NOTHING_TO_ANSWER)

    @_action
    def forfeit(self, player: int) -> list[Event]:
        """`player` loses the match, whatever the position (a third expired clock, a match
        abandoned): the opponent gets the points they lack, as if `player` had resigned the
        game in play for that many, so the match ends like any won match (scored, rated).
        Pending offers lapse. An unlimited match is never won: it cannot be forfeited."""
        check_player(player)
        if self.length is None:
            raise ValueError("an unlimited match cannot be forfeited")
        if self._phase is Phase.NOT_STARTED:
            raise IllegalAction(Refusal.MATCH_NOT_STARTED)
        if self._phase is Phase.MATCH_OVER:
            raise IllegalAction(Refusal.MATCH_OVER)
        winner = 1 - player
        points = self.length - self.score[winner]
        self.score[winner] = self.length
        self.double_offer = self.resignation = self.dice = None
        self._legal_results = None
        self._phase = Phase.MATCH_OVER
        return [self._log(Forfeited(player, points, self._score_pair())),
                self._log(MatchOver(winner, self._score_pair()))]

    # --- the turn cycle ----------------------------------------------------------------

    def _start_game(self) -> list[Event]:
        self.game_number += 1
        # The first game after someone reaches match point; a 1-point match has none.
        self.is_crawford_game = (self.crawford_rule and self.length is not None
                                 and self.length > 1 and not self._crawford_played
                                 and self.length - 1 in self.score)
        self._crawford_played |= self.is_crawford_game
        self.cube, self.cube_owner = 1, None
        self.joined = set()
        self._plain_history.append([])
        started = GameStarted(self.game_number, self.x_player, self._score_pair(),
                              self.is_crawford_game)
        return [self._log(started)] + self._opening_roll()

    def _opening_roll(self) -> list[Event]:
        events = []
        die_0, die_1 = self.dice_source.opening()
        while die_0 == die_1:
            events.append(self._log(OpeningRoll(die_0, die_1, starter=None)))
            if self.autodouble and self.length is None and self.cube_in_game:
                self.cube *= 2
                events.append(self._log(CubeAutoDoubled(self.cube)))
            die_0, die_1 = self.dice_source.opening()
        higher = 0 if die_0 > die_1 else 1
        starter = 1 - higher if self.lower_die_starts else higher
        events.append(self._log(OpeningRoll(die_0, die_1, starter)))
        self.turn = starter
        self._position = Position.initial(self.variant)
        if not self.variant.facts.opening_dice_played:
            # The starter rolls afresh (Portes); the opening's moment shows no dice yet.
            self._phase = Phase.ROLL_OR_DOUBLE
            self._reach_moment()
            return events + self._begin_turn()
        starter_die, other_die = (die_0, die_1) if starter == 0 else (die_1, die_0)
        return events + self._begin_move((starter_die, other_die))

    def _begin_turn(self) -> list[Event]:
        self.dice = None
        self._phase = Phase.ROLL_OR_DOUBLE
        if self.may_double(self.turn):
            return []
        return self._roll()

    def _roll(self) -> list[Event]:
        dice = self.dice_source.roll()
        return [self._log(Rolled(self.turn, dice))] + self._begin_move(dice)

    def _begin_move(self, dice: Roll) -> list[Event]:
        self.dice = dice
        self._phase = Phase.MOVE
        self._legal_results = None
        self._reach_moment()
        if self.legal_results.count:
            return []
        return [self._log(CannotMove(self.turn))] + self._pass_turn()

    def _pass_turn(self) -> list[Event]:
        self.turn = 1 - self.turn
        self._position = self._position.swap()
        self.dice = None
        self._phase = Phase.ROLL_OR_DOUBLE
        self._legal_results = None
        self._reach_moment()  # the next player to roll or double, before any roll for them
        return self._begin_turn()

    def _win_kind(self) -> WinKind:
        """The size of the win of the player on turn, who has just borne off the last checker."""
        if self._position.borne_off(1):
            return WinKind.SINGLE
        if (self.variant.facts.backgammons
                and any(self._position.checkers[1][_HOME_AND_BAR_OF_OPPONENT])):
            return WinKind.BACKGAMMON
        return WinKind.GAMMON

    def _end_game(self, winner: int, kind: WinKind, points: int | None = None) -> list[Event]:
        points = kind * self.cube if points is None else points
        self.score[winner] += points
        self.dice = None
        self._legal_results = None
        events = [self._log(GameOver(winner, points, kind, self._score_pair()))]
        if self.length is not None and self.score[winner] >= self.length:
            self._phase = Phase.MATCH_OVER
            events.append(self._log(MatchOver(winner, self._score_pair())))
        else:
            self._phase = Phase.BETWEEN_GAMES
        return events

    # --- checks ---------------------------------------------------------------------

    def _check_can_act(self, player: int) -> None:
        """The checks common to rolling, moving, doubling and resigning."""
        check_player(player)
        if self._phase is Phase.NOT_STARTED:
            raise IllegalAction(Refusal.MATCH_NOT_STARTED)
        if self._phase is Phase.BETWEEN_GAMES:
            raise IllegalAction(Refusal.GAME_OVER)
        if self._phase is Phase.MATCH_OVER:
            raise IllegalAction(Refusal.MATCH_OVER)
        if self.resignation:
            if self.resignation.player == player:
                raise IllegalAction(Refusal.AWAITING_ANSWER_TO_RESIGNATION)
            raise IllegalAction(Refusal.ANSWER_RESIGNATION_FIRST)
        if self.double_offer:
            if self.double_offer.offered_by == player:
                raise IllegalAction(Refusal.AWAITING_ANSWER_TO_DOUBLE)
            raise IllegalAction(Refusal.ANSWER_DOUBLE_FIRST)

    def _offer_answered_by(self, player: int) -> DoubleOffer | None:
        """The pending double or redouble if `player` is the one to answer it."""
        check_player(player)
        offer = self.double_offer
        return offer if offer and offer.offered_by != player else None

    def _log(self, event: Event) -> Event:
        self._plain_history[-1].append(event_to_dict(event))
        return self._note(event)

    def _note(self, event: Event) -> Event:
        """An event of this action: its moment is the state once it has taken effect."""
        self.moments.append(None)
        return event

    def _reach_moment(self) -> None:
        """The events logged since the last moment have all taken effect: note the state."""
        if self.moments and self.moments[-1] is None:
            moment = self.moment()
            for index in range(len(self.moments) - 1, -1, -1):
                if self.moments[index] is not None:
                    break
                self.moments[index] = moment

