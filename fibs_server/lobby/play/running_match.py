"""A match being played between two users: the engine's match, its players' names and the
sessions connected to it, and the invitations that start one."""
from __future__ import annotations

import asyncio
import collections
import dataclasses
from typing import Any, Protocol

from fibs_server.lobby.ports.match_records import FIRST_OWNER_EPOCH, MatchRecord
from fibs_server.lobby.presence.session import Session
from fibs_server.protocol.match_rules import MatchTerms
from fibs_server.protocol.settings import redoubles_limit
from fibs_server.protocol.views import web_events
from fibs_server.protocol.views.match_views import Script
from fibs_server.protocol.wording.clock_texts import ClockReading
from fibs_server.rules.board.greedy import greedy_bearoff
from fibs_server.rules.board.position import Play
from fibs_server.rules.clocks.time_bank import TimeBank
from fibs_server.rules.dice import Dice
from fibs_server.rules.dice_stats import RollTally
from fibs_server.rules.match import Match
from fibs_server.rules.variants import MatchRules

UNDO_DEPTH = 20  # decisions a player can take back, one `undo` at a time
# A state to go back to: the match's dict and how many pairs its dice had drawn then.
UndoPoint = tuple[dict[str, Any], int]


@dataclasses.dataclass
class Invitation:
    inviter: str  # the inviting user's name
    invitee: str  # the invited user's name
    length: int | None  # None = unlimited
    resume: bool = False  # an invitation to resume the saved match between the two
    terms: MatchTerms = MatchTerms()  # of a new match; a resumed one keeps its saved terms
    # Made by the server in the inviter's name (a tournament's pairing): joined whatever the
    # inviter's `ready` says.
    arranged: bool = False


class MatchTimer(Protocol):
    """The clock of a timed match (lobby/play/turn_clock.py), told what happens to the match."""

    def charge(self) -> None:
        """The match changed and is about to be stored: a time bank's reserves pay for the
        decisions just taken (stored with the match)."""

    def changed(self) -> None:
        """The match changed (and is stored): time the decisions due now."""

    def stop(self) -> None:
        """The match runs no more here: no decision is timed."""

    def hold(self, held: bool) -> None:
        """A player is out of reach (the bus between the nodes is down): no decision is timed
        until released, when each decision due is timed afresh."""

    def left(self, player: int) -> tuple[Script, web_events.Message | None]:
        """`player` left or dropped the match: what the players are told of its grace period
        (nothing, if it has none), and its countdown for the pages (None: none)."""

    def reading(self) -> ClockReading | None:
        """The clock as shown with a board (None: no decision is being timed)."""


@dataclasses.dataclass(frozen=True)
class Snapshot:
    """A running match as it was before an action (Keeping.snapshot): the engine's state
    and its dice, and the server's own facts of the match that are stored with it."""
    state: dict[str, Any]
    drawn: int
    unrated: str | None
    expiries: list[int]
    played_for: list[dict[str, Any]]
    undo_points: list[UndoPoint] | None
    bank: TimeBank | None


@dataclasses.dataclass
class Timing:
    """A running match's clock as its stored state keeps it (`Keeping.clock_state`), so
    that a resume keeps it: the terms' seconds (None: no such clock), each player's expired
    turns, the decisions the server took for a player (the match record marks them) and a time
    bank's reserves, as of the last decision."""
    turn_seconds: int | None = None
    takeover_seconds: int | None = None
    expiries: list[int] = dataclasses.field(default_factory=lambda: [0, 0])
    played_for: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    bank: TimeBank | None = None


def clocked_state(state: dict[str, Any]) -> bool:
    """Whether a stored match's state has a clock it can be lost by (a turn timer or a time
    bank): only such a match can be lost by absence too."""
    return state.get("turn_seconds") is not None or state.get("bank") is not None


class RunningMatch:
    """A match between two users, with the sessions that are connected to it (None: a player
    who has gone; only the archive's matches have no sessions at all). Its facets: its clock
    (`timing`, `timer`) and what the store keeps of it (`keeping`)."""

    def __init__(self, match_id: int, match: Match, names: tuple[str, str],
                 sessions: tuple[Session | None, Session | None],
                 owner_epoch: int = FIRST_OWNER_EPOCH) -> None:
        self.match_id = match_id
        self.match = match
        self.names = names  # [0] = inviter, [1] = joiner
        self.sessions: list[Session | None] = list(sessions)
        # Against a bot: the states before the player's last decisions, with how many dice
        # had been drawn then (`undo`); None: no undo in this match.
        self.undo_points: collections.deque[UndoPoint] | None = None
        self.timing = Timing()  # the match's clock (MatchTerms) and what happened on it
        self.timer: MatchTimer | None = None
        self.keeping = Keeping(self, owner_epoch)  # what the store writes of it, and when

    @classmethod
    def from_record(cls, record: MatchRecord, dice: Dice,
                    sessions: tuple[Session | None, Session | None],
                    owner_epoch: int) -> RunningMatch:
        """A stored match running again (resumed, or forfeited from its stored state), its
        dice going on from `dice`: everything its record keeps, as it was stored. The record
        is read after this node claimed the match (`owner_epoch`): no other node's store of
        it succeeds from then on, so it holds the last state stored."""
        running = cls(record.match_id, Match.from_dict(record.state, dice),
                      (record.player_a, record.player_b), sessions, owner_epoch)
        running.keeping.unrated = record.state.get("unrated")
        running.restore_clock(record.state)
        running.allow_undo()
        return running

    def allow_undo(self) -> None:
        """Against a bot, a player may take decisions back (`undo`)."""
        if any(session is not None and session.is_bot for session in self.sessions):
            self.undo_points = collections.deque(maxlen=UNDO_DEPTH)

    def rewind(self, point: UndoPoint) -> None:
        """The engine's match as in `point`, its dice rewound to the pairs drawn then, so that
        every roll of the match stays its seed's."""
        state, drawn = point
        dice = self.match.dice_source
        dice.rewind(drawn)
        self.match = Match.from_dict(state, dice)

    def restore_clock(self, state: dict) -> None:
        """The clock as `clock_state` stored it."""
        bank = state.get("bank")
        self.timing = Timing(state.get("turn_seconds"), state.get("takeover_seconds"),
                             list(state.get("expiries", (0, 0))),
                             list(state.get("played_for", ())),
                             None if bank is None else TimeBank.from_fields(bank))

    @property
    def terms(self) -> MatchTerms:
        timing = self.timing
        return MatchTerms(self.match.rules, timing.turn_seconds, timing.takeover_seconds,
                          bank=None if timing.bank is None else timing.bank.terms)

    def index_of(self, session: Session) -> int:
        return self.sessions.index(session)

    def opponent_of(self, session: Session) -> Session | None:
        return self.sessions[1 - self.index_of(session)]

    def opponent_name(self, player: int) -> str:
        return self.names[1 - player]

    def players(self) -> list[Session]:
        """The players still connected."""
        return [session for session in self.sessions if session is not None]


class Keeping:
    """What the store keeps of a running match and how it is written: the owner epoch it is
    stored under, the lock its actions take turns by, whether it is stored at all, the facts
    of it stored besides the engine's state, and the snapshot an action that fails to be
    stored goes back to."""

    def __init__(self, running: RunningMatch, owner_epoch: int) -> None:
        self.running = running
        # The owner epoch this node holds (lobby.match_records): every store passes it, and
        # fails with StaleMatchOwner once another node has claimed the match.
        self.owner_epoch = owner_epoch
        self.lock = asyncio.Lock()
        self.stored = True  # False: a visitor's match, which nothing is written of
        # Why the match is not rated, kept in its record: "asked" (`bot ... unrated`),
        # "visitor" (never stored either), "undo"; None: rated.
        self.unrated: str | None = None
        self.roll_tally = RollTally()  # its rolls for `dicetest`, finished games counted once

    def snapshot(self) -> Snapshot:
        """Everything of the match that the store writes or an action changes, to go back to
        if the store fails."""
        running = self.running
        undo = None if running.undo_points is None else list(running.undo_points)
        return Snapshot(running.match.to_dict(), running.match.dice_source.drawn, self.unrated,
                        list(running.timing.expiries), list(running.timing.played_for), undo,
                        running.timing.bank)

    def restore(self, snapshot: Snapshot) -> None:
        """The match as it was at `snapshot`, its dice rewound, so the same dice come again."""
        running = self.running
        running.rewind((snapshot.state, snapshot.drawn))
        self.unrated = snapshot.unrated
        timing = running.timing
        timing.expiries, timing.played_for = list(snapshot.expiries), list(snapshot.played_for)
        timing.bank = snapshot.bank
        if snapshot.undo_points is not None:
            running.undo_points = collections.deque(snapshot.undo_points, maxlen=UNDO_DEPTH)

    def clock_state(self) -> dict:
        """The clock in the stored state (nothing for an untimed match, as before)."""
        if not self.running.terms.timed:
            return {}
        timing = self.running.timing
        state: dict[str, Any] = {"turn_seconds": timing.turn_seconds,
                                 "takeover_seconds": timing.takeover_seconds,
                                 "expiries": list(timing.expiries),
                                 "played_for": list(timing.played_for)}
        if timing.bank is not None:
            state["bank"] = timing.bank.fields()
        return state


def new_match(length: int | None, dice: Dice, inviter: Session, joiner: Session,
              first_x_player: int, rules: MatchRules, crawford: bool | None = None) -> Match:
    """A match by the invitation's `rules` and what both players' toggles and settings ask
    for (`crawford`, when not None, whatever their toggles say)."""
    inviters, joiners = inviter.account, joiner.account
    assert inviters is not None and joiners is not None
    both = (inviters, joiners)
    numbers = [redoubles_limit(a.settings["redoubles"]) for a in both]
    finite = [n for n in numbers if n is not None]
    return Match(length, dice, variant=rules.variant,
                 lower_die_starts=rules.lower_die_starts, cube=rules.cube,
                 crawford=(any(a.toggles["crawford"] for a in both) if crawford is None
                           else crawford),
                 autodouble=all(a.toggles["autodouble"] for a in both),
                 max_redoubles=min(finite) if finite else None,
                 first_x_player=first_x_player)


def automatic_play(match: Match, session: Session) -> tuple[str, Play] | None:
    """A play the server makes for the player on turn by their toggles: the only legal play
    (`automove`) or a greedy bear-off (`greedy`). Returns (reason, play) or None."""
    if match.legal_play_count == 1 and session.prefs.toggle("automove"):
        return "only", match.legal_plays()[0]
    if session.prefs.toggle("greedy") and match.dice is not None:
        play = greedy_bearoff(match.position_seen_by(match.turn), match.dice)
        if play is not None and all(to == 0 for _, to in play.steps):
            return "greedy", play
    return None
