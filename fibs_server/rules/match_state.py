"""The state of a match and the questions it answers: phase, who is to act, colours, the
cube, the legal plays of the roll, the winner, history. `Match` (match.py) adds the actions, as
python-chess's `Board` adds moves to its `BaseBoard`."""
from __future__ import annotations

from typing import Any, Self

from .board.position import NO_LEGAL_PLAYS, LegalResults, Play, Position
from .dice import Dice, Roll
from .events import Event, event_from_dict
from .moments import DoubleOffer, Moment, Outcome, Phase, Resignation, player_to_act
from .serialization import match_from_dict, match_to_dict
from .variants import MatchRules, Variant

_TURN_PHASES = (Phase.ROLL_OR_DOUBLE, Phase.MOVE)


class MatchState:
    """A match between player 0 (the inviter) and player 1 (the joiner).

    `length` None is an unlimited match. `crawford` is on when either player wants the
    Crawford rule. `autodouble` (both players agreed) and `max_redoubles` (the smaller of the
    players' `redoubles` settings, None = unlimited) only apply to unlimited matches.
    `first_x_player` plays X in game 1; colours swap every game. With `lower_die_starts`
    the lower opening die moves first. `cube` False: a match without the doubling cube.
    """

    def __init__(self, length: int | None, dice: Dice, *, variant: Variant = Variant.STANDARD,
                 crawford: bool = True, autodouble: bool = False, max_redoubles: int | None = 0,
                 first_x_player: int = 0, lower_die_starts: bool = False,
                 cube: bool = True) -> None:
        if length is not None and length < 1:
            raise ValueError(f"a match is at least 1 point long, not {length}")
        check_player(first_x_player)
        self.length = length
        self.dice_source = dice
        self.variant = variant
        self.crawford_rule = crawford
        self.autodouble = autodouble
        self.max_redoubles = max_redoubles
        self.first_x_player = first_x_player
        self.lower_die_starts = lower_die_starts
        self.cube_used = cube
        self.score = [0, 0]
        self.game_number = 0
        self.turn = 0  # the player whose turn it is; after a game, the last one to act
        self.dice: Roll | None = None  # the roll being played
        self.cube = 1
        self.cube_owner: int | None = None
        self.double_offer: DoubleOffer | None = None
        self.resignation: Resignation | None = None
        self.is_crawford_game = False
        self._crawford_played = False
        self.joined: set[int] = set()  # players waiting for the next game
        # Per game, everything that happened in it, kept only as plain dicts of numbers,
        # strings and tuples: saving after every action needs this form, and such dicts are
        # invisible to CPython's cyclic garbage collector once they have survived one
        # collection, where event objects would be walked by every full collection (with
        # 1,000 matches running that stalled the server for hundreds of milliseconds).
        self._plain_history: list[list[dict[str, Any]]] = []
        self._phase = Phase.NOT_STARTED
        self._position = Position.initial(variant)  # the player on turn is checkers[0]
        self._legal_results: LegalResults | None = None  # of the roll being played
        # The moment after each event of the last action, in order (None until reached).
        self.moments: list[Moment | None] = []

    # --- what players and the server can see ---------------------------------------

    @property
    def phase(self) -> Phase:
        return Phase.RESIGN_OFFERED if self.resignation else self._phase

    @property
    def rules(self) -> MatchRules:
        return MatchRules(self.variant, self.lower_die_starts, self.cube_used)

    @property
    def x_player(self) -> int:
        """The player who plays X in the current game."""
        return self.first_x_player if self.game_number % 2 else 1 - self.first_x_player

    def colour(self, player: int) -> str:
        return "X" if player == self.x_player else "O"

    @property
    def is_post_crawford(self) -> bool:
        return self._crawford_played and not self.is_crawford_game

    @property
    def cube_in_game(self) -> bool:
        """Whether anyone may double in this game at all."""
        return self.cube_in_game_of(self.is_crawford_game)

    def cube_in_game_of(self, crawford_game: bool) -> bool:
        """Whether anyone may double in a game of this match (the Crawford game or not)."""
        return self.rules.doubling and self.length != 1 and not crawford_game

    def may_double(self, player: int) -> bool:
        """Whether the cube lets `player` double when it is their turn to roll."""
        return (self._phase in _TURN_PHASES and self.cube_in_game and self.double_offer is None
                and self.cube_owner in (None, player))

    def position_seen_by(self, player: int) -> Position:
        """The board with `player` as checkers[0], whoever's turn it is."""
        return self._position if player == self.turn else self._position.swap()

    def moment(self) -> Moment:
        """The match as it stands now."""
        return Moment(self.phase, self.turn, self.dice, self._position, self._score_pair(),
                      self.x_player, self.cube, self.cube_owner, self.double_offer,
                      self.resignation, self.is_crawford_game, self.is_post_crawford,
                      self.pieces_to_move)

    def legal_plays(self) -> list[Play]:
        """The legal plays of the roll being played; empty when no roll is being played.
        Generated on each call (see `LegalResults`)."""
        if self._phase is not Phase.MOVE:
            return []
        assert self.dice is not None  # a roll is being played
        return self._position.legal_plays(self.dice)

    @property
    def legal_play_count(self) -> int:
        return self.legal_results.count

    @property
    def pieces_to_move(self) -> int:
        """How many checker steps (dice) the roll being played uses: 0 to 4."""
        return self.legal_results.pieces_to_move

    @property
    def legal_results(self) -> LegalResults:
        """What `legal_plays()` come to, generated once per roll."""
        if self._phase is not Phase.MOVE:
            return NO_LEGAL_PLAYS
        if self._legal_results is None:
            self._legal_results = LegalResults.of(self.legal_plays())
        return self._legal_results

    def _is_legal(self, play: Play) -> bool:
        """Whether `play` is one of `legal_plays()`, compared by its result."""
        return self.legal_results.reached_by(*play.result.checkers)

    @property
    def to_act(self) -> int | None:
        """Who must act next: the player on turn, or the one who must answer an offer;
        None before the match, between games and after the match."""
        return player_to_act(self.phase, self.turn, self.double_offer, self.resignation)

    @property
    def is_over(self) -> bool:
        return self._phase is Phase.MATCH_OVER

    @property
    def winner(self) -> int | None:
        """The player who won the match; None until it is over."""
        if self._phase is not Phase.MATCH_OVER:
            return None
        # The match ends as soon as one player reaches its length, so only the winner has.
        assert self.length is not None  # an unlimited match never ends
        return 0 if self.score[0] >= self.length else 1

    def outcome(self) -> Outcome | None:
        """The winner and the final score; None until the match is over."""
        winner = self.winner
        return None if winner is None else Outcome(winner, self._score_pair())

    def _score_pair(self) -> tuple[int, int]:
        """The score as it stands, as events and moments hold it."""
        return self.score[0], self.score[1]

    @property
    def game_count(self) -> int:
        """How many games have started."""
        return len(self._plain_history)

    def game_events(self, game_index: int) -> list[Event]:
        """Everything that happened in one game (negative indexes count from the last),
        rebuilt from the saved form on each call."""
        return [event_from_dict(event) for event in self._plain_history[game_index]]

    def game_events_of(self, game_index: int, *kinds: type[Event]) -> list[Event]:
        """`game_events` of the given kinds only: far cheaper when they are rare (a bot asks
        for a game's resignations before each decision)."""
        names = {kind.__name__ for kind in kinds}
        return [event_from_dict(event) for event in self._plain_history[game_index]
                if event["event"] in names]

    @property
    def history(self) -> list[list[Event]]:
        """`game_events` of every game."""
        return [self.game_events(index) for index in range(self.game_count)]

    # --- saving -----------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """The whole match as plain JSON-able data (the dice source is not part of it)."""
        return match_to_dict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any], dice: Dice) -> Self:
        return match_from_dict(cls, data, dice)


def check_player(player: int) -> None:
    if player not in (0, 1):
        raise ValueError(f"players are 0 and 1, not {player!r}")
