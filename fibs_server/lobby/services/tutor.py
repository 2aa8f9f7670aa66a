"""The tutor (`tutor on`, an extension): before a player's checker play or cube decision in
an unrated match is applied, it is judged in the bots' worker (`BotPool.judge`); one that
loses more than the player's threshold is held back with the better decision, and `tutor
play` sends it anyway (docs/PROTOCOL.md, "The tutor").

Rated matches never have it: `tutor on` is refused in one, and a decision in one is never
held (a tutor left on from an unrated match stays silent there). Each judgement takes a token
of the player's bucket (`AbuseLimits.tutor_burst`, `tutor_per_second`): a player cannot make
the workers judge without end, and a decision over the limit is refused, not played unjudged.
"""
from __future__ import annotations

import dataclasses
import weakref
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from fibs_server.bots.situation import Decision, Situation, situation_for
from fibs_server.bots.tutor import Verdict, judged
from fibs_server.lobby.limits.read_limits import KeyedRateLimit
from fibs_server.lobby.presence.session import Session
from fibs_server.protocol.views import web_events
from fibs_server.protocol.wording import analysis_texts
from fibs_server.rules.board.notation import format_play
from fibs_server.rules.match import Match

if TYPE_CHECKING:  # types only: the match's life is not the tutor's
    from fibs_server.lobby.play.running_match import RunningMatch

Judge = Callable[[Situation, Decision], Awaitable[Verdict | None]]
# What a command proposes in the match as it stands, as `player`; None: nothing the tutor
# judges (the rules will refuse it, or it is no play or cube decision).
Proposal = Callable[[Match, int], Decision | None]

DEFAULT_THRESHOLD = 0.08  # EMG: the analysis's "bad" (docs/ANALYSIS.md)
MIN_THRESHOLD, MAX_THRESHOLD = 0.01, 1.0


@dataclasses.dataclass
class TutorState:
    threshold: float
    # The decision held back, and the moment of the match it was proposed in.
    held: tuple[tuple[object, ...], Decision] | None = None


def moment_key(running: RunningMatch) -> tuple[object, ...]:
    """What tells one decision's moment from another's in a running match."""
    match = running.match
    return (running.match_id, match.phase, match.turn, match.dice, match.cube,
            match.position_seen_by(0).position_id(), tuple(match.score))


def rated(running: RunningMatch) -> bool:
    return running.keeping.unrated is None


class Tutor:
    """The players' tutors on this node; `judge` None: the server has no engine (bots off)."""

    def __init__(self, judge: Judge | None, limit: KeyedRateLimit) -> None:
        self.judge = judge
        self.limit = limit
        self._states: weakref.WeakKeyDictionary[Session, TutorState] = \
            weakref.WeakKeyDictionary()

    def threshold_of(self, session: Session) -> float | None:
        state = self._states.get(session)
        return None if state is None else state.threshold

    def switch_on(self, session: Session, running: RunningMatch | None,
                  threshold: float) -> str:
        """`tutor on`: its answer (a refusal in a rated match, or without an engine)."""
        if self.judge is None:
            return analysis_texts.TUTOR_UNAVAILABLE
        if running is not None and rated(running):
            return analysis_texts.TUTOR_RATED
        self._states[session] = TutorState(threshold)
        session.out.event(web_events.tutor(True, threshold))
        return analysis_texts.tutor_switched_on(threshold)

    def switch_off(self, session: Session) -> str:
        self._states.pop(session, None)
        session.out.event(web_events.tutor(False, None))
        return analysis_texts.TUTOR_SWITCHED_OFF

    def held(self, session: Session, running: RunningMatch | None) -> Decision | None:
        """`tutor play`: the decision held back in the match as it stands, given up by the
        tutor (the command then applies it); None if there is none."""
        state = self._states.get(session)
        if state is None or state.held is None or running is None:
            return None
        key, decision = state.held
        state.held = None
        return decision if key == moment_key(running) else None

    async def holds_back(self, session: Session, running: RunningMatch | None,
                         proposal: Proposal) -> bool:
        """Whether the tutor keeps the player's decision from being applied (they were told
        why: a warning, a refusal over the limit, or no answer); False: apply it."""
        state = self._states.get(session)
        if state is None or running is None or rated(running) or self.judge is None:
            return False
        player = running.index_of(session)
        situation = situation_for(running.match, player)
        decision = None if situation is None else proposal(running.match, player)
        if situation is None or decision is None or not judged(situation, decision):
            return False
        key = moment_key(running)
        held, state.held = state.held, None  # the warning holds for the next decision only
        if held == (key, decision):  # sent again as it was warned of: play it
            return False
        wait = self.limit.wait_before(session.name.lower())
        if wait > 0:
            session.out.line(analysis_texts.tutor_asked_too_often(wait))
            return True
        verdict = await self.judge(situation, decision)
        if running.match.is_over or moment_key(running) != key:
            return True  # the match moved on meanwhile (a timeout, a takeover): nothing to do
        if verdict is None:
            session.out.line(analysis_texts.TUTOR_NO_ANSWER)
            return True
        if verdict.loss <= state.threshold:
            return False
        state.held = (key, decision)
        colour = running.match.colour(player)
        session.out.line(analysis_texts.tutor_warning(in_words(decision, colour),
                                                      in_words(verdict.best, colour),
                                                      verdict.loss))
        session.out.event(web_events.tutor_warning(
            described(decision), described(verdict.best), verdict.loss, state.threshold))
        return True


def in_words(decision: Decision, colour: str) -> str:
    """A play in FIBS's notation for its player's colour, else the cube action's word."""
    if decision.play is not None:
        return format_play(decision.play, colour)
    return decision.action.value


def described(decision: Decision) -> web_events.TutorChoice:
    """The decision as the typed messages give it: its kind, and a play's steps in the
    player's numbering (docs/WEB-PROTOCOL.md, "Sides and numbering")."""
    if decision.play is None:
        return web_events.TutorChoice(decision.action.value, None)
    return web_events.TutorChoice("move", [list(step) for step in decision.play.steps])
