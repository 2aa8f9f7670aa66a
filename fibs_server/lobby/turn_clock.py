"""Turn timers and bot takeover: the clock of a timed match (`invite bob 5 timer 30`,
`takeover 60`, the server's `--takeover-seconds`).

Each decision a player must take (roll or double, move, answer a double or a resignation,
join the next game) is timed from the moment it is due. Ten seconds before the end the
player is warned; at the end the server takes the decision for them with the bot's choice
(`bots.situation_for`, the bots' `decide`, applied through `match_play.act` like a bot's
own decision), tells both players and the watchers, and counts it; the third expiry loses
the match (`Match.forfeit`). With `takeover` a bot takes the decision over without counting
it, and the player plays on. A timed match left or dropped is lost unless it is resumed
within the grace period. Untimed matches get no clock at all.
"""
from __future__ import annotations

import asyncio
import dataclasses
import logging
import math
from collections.abc import Awaitable, Callable, Coroutine

from fibs_server.bots import Action, Decision, Situation, fallback, situation_for
from fibs_server.bots.situation import ROLL
from fibs_server.lobby import match_play
from fibs_server.lobby.clock import Alarm, Clock
from fibs_server.lobby.lobby import Lobby
from fibs_server.lobby.running_match import RunningMatch
from fibs_server.protocol import clock_texts
from fibs_server.protocol.clock_texts import EXPIRIES_TO_LOSE, WARNING_SECONDS
from fibs_server.protocol.match_views import WATCHERS, say
from fibs_server.rules import events as ev
from fibs_server.rules.match import Match

log = logging.getLogger(__name__)

# The decision a bot would take for a player: the built-in bots' pool, or our rules of thumb.
Decide = Callable[[Situation], Awaitable[Decision]]


async def rules_of_thumb(situation: Situation) -> Decision:
    """The decision on a server without its bots (`--bots off`): computed at once."""
    return fallback(situation)


@dataclasses.dataclass
class Countdown:
    """One decision being timed: the situation it is due in, when time is up, and whether a
    bot then takes it over (uncounted) rather than the turn timer (counted)."""

    situation: Situation
    deadline: float
    takeover: bool
    alarms: list[Alarm]

    def cancel(self) -> None:
        for alarm in self.alarms:
            alarm.cancel()


class MatchClocks:
    """Every timed match's clock (`timer_for`, the lobby's `match_timers`), and the grace
    periods of the timed matches their players left."""

    def __init__(self, lobby: Lobby, decide: Decide) -> None:
        self.lobby = lobby
        self.decide = decide
        self.graces: dict[int, Alarm] = {}  # match id -> its forfeit, if not resumed in time
        self._tasks: set[asyncio.Task] = set()
        self._closed = False

    def timer_for(self, running: RunningMatch) -> TurnClock | None:
        """The clock of a match that starts or resumes: a resume ends its grace period."""
        grace = self.graces.pop(running.match_id, None)
        if grace is not None:
            grace.cancel()
        if not running.terms.timed:
            return None
        return TurnClock(self, running)

    def start_task(self, work: Coroutine[object, object, None]) -> None:
        if self._closed:  # an alarm that rang while the server stops: the match stays stored
            work.close()
            return
        task = asyncio.ensure_future(work)
        self._tasks.add(task)
        task.add_done_callback(self._finished)

    def _finished(self, task: asyncio.Task) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("a match clock failed", exc_info=task.exception())

    def start_grace(self, running: RunningMatch, leaver: int) -> None:
        config = self.lobby.config
        when = config.clock.time() + config.grace_seconds
        self.graces[running.match_id] = config.clock.call_at(
            when, lambda: self.start_task(self._forfeit_abandoned(running, leaver)))

    async def _forfeit_abandoned(self, running: RunningMatch, leaver: int) -> None:
        """The grace period ended and the match was not resumed: the leaver loses it, from
        its stored state, as any won match is scored, rated and reported."""
        self.graces.pop(running.match_id, None)
        lobby = self.lobby
        record = await lobby.matches.running_match(*running.names)
        if record is None or record.match_id != running.match_id:
            return  # replaced by a new match between the two meanwhile
        async with running.lock:
            if any(other.match_id == running.match_id
                   for other in lobby.match_table.running_matches()):
                return  # resumed while the record was being read
            running.match = Match.from_dict(record.state, running.match.dice_source)
            running.unrated = record.state.get("unrated")
            running.restore_clock(record.state)
            running.sessions = [lobby.online.get(name.lower()) for name in running.names]
            leaver_name = running.names[leaver]
            for session in running.players():
                session.send_line(clock_texts.did_not_come_back(leaver_name,
                                                                lobby.config.grace_seconds))
            events = match_play.told(running.match, running.match.forfeit(leaver))
            await match_play.settle(lobby, running, events, None, record.state,
                                    drawn_before=running.match.dice_source.drawn)

    async def close(self) -> None:
        """The server stops: timed matches stay stored as they are (nothing is forfeited)."""
        self._closed = True
        for alarm in self.graces.values():
            alarm.cancel()
        self.graces.clear()
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)


class TurnClock:
    """The clock of one running timed match (RunningMatch.timer)."""

    def __init__(self, clocks: MatchClocks, running: RunningMatch) -> None:
        self.clocks = clocks
        self.running = running
        self.countdowns: dict[int, Countdown] = {}  # player -> the decision timed for them

    @property
    def _clock(self) -> Clock:
        return self.clocks.lobby.config.clock

    def changed(self) -> None:
        """Time each player's decision that is due now; a decision still due goes on with
        the time it had (a chat, a refused command or the opponent's watcher change nothing)."""
        for player in (0, 1):
            session = self.running.sessions[player]
            due = (situation_for(self.running.match, player)
                   if session is not None and not session.is_bot else None)
            countdown = self.countdowns.get(player)
            if countdown is not None and countdown.situation == due:
                continue
            if countdown is not None:
                countdown.cancel()
                del self.countdowns[player]
            if due is not None:
                self.countdowns[player] = self._count_down(player, due)

    def _count_down(self, player: int, situation: Situation) -> Countdown:
        turn, takeover = self.running.turn_seconds, self.running.takeover_seconds
        by_takeover = turn is None or (takeover is not None and takeover < turn)
        seconds = takeover if by_takeover else turn
        assert seconds is not None
        deadline = self._clock.time() + seconds
        countdown = Countdown(situation, deadline, by_takeover, [])
        countdown.alarms.append(self._clock.call_at(
            deadline, lambda: self.clocks.start_task(self._expired(player, countdown))))
        if seconds > WARNING_SECONDS:
            countdown.alarms.append(self._clock.call_at(
                deadline - WARNING_SECONDS, lambda: self._warn(player, countdown)))
        return countdown

    def _warn(self, player: int, countdown: Countdown) -> None:
        session = self.running.sessions[player]
        if self.countdowns.get(player) is countdown and session is not None:
            session.send_line(clock_texts.time_warning(WARNING_SECONDS,
                                                       countdown.situation.phase))

    async def _expired(self, player: int, countdown: Countdown) -> None:
        """Time is up: the server takes the decision (or, at the last expiry, forfeits)."""
        running, situation = self.running, countdown.situation
        # An unlimited match is never won, so never lost on time either.
        last = (not countdown.takeover and running.match.length is not None
                and running.expiries[player] + 1 >= EXPIRIES_TO_LOSE)
        decision = None if last else await self._bot_decision(situation)
        session = running.sessions[player]
        lobby = self.clocks.lobby
        if (self.countdowns.get(player) is not countdown or session is None
                or lobby.match_table.match_of(session) is not running):
            return  # decided, left or ended meanwhile
        name, phase = running.names[player], situation.phase

        def take_decision(match: Match, acting: int) -> list[ev.Event] | None:
            if situation_for(match, acting) != situation:
                return None  # the player decided just before us
            if countdown.takeover:
                you, others = clock_texts.bot_takes_over(name, phase)
            elif decision is None:
                you, others = clock_texts.time_is_up_for_the_last_time(name, phase)
            else:
                running.expiries[acting] += 1
                you, others = clock_texts.time_is_up(name, phase, running.expiries[acting])
            running.played_for.append({"player": acting, "game": match.game_count,
                                       "event": len(match.game_events(-1)),
                                       "why": "takeover" if countdown.takeover else "timer"})
            match_play.tell(lobby, running, [say(acting, you), say(1 - acting, others),
                                             say(WATCHERS, others)])
            return match.forfeit(acting) if decision is None else decision.apply(match, acting)

        await match_play.act(lobby, session, take_decision)

    async def _bot_decision(self, situation: Situation) -> Decision:
        decision = await self.clocks.decide(situation)
        # A bot may offer to resign; the server never gives up for a player out of time.
        return ROLL if decision.action is Action.RESIGN else decision

    def stop(self) -> None:
        for countdown in self.countdowns.values():
            countdown.cancel()
        self.countdowns.clear()

    def left(self, player: int) -> None:
        """A player left or dropped: with a turn timer, they lose the match unless it is
        resumed within the grace period (a takeover alone keeps FIBS's saved match)."""
        if self.running.turn_seconds is None or self.running.match.length is None:
            return
        lobby = self.clocks.lobby
        seconds = lobby.config.grace_seconds
        you, opponent = clock_texts.come_back_within(self.running.names[player], seconds,
                                                     self.running.opponent_name(player))
        for index, text in ((player, you), (1 - player, opponent)):
            session = self.running.sessions[index]
            if session is not None and lobby.is_online(session):
                session.send_line(text)
        self.clocks.start_grace(self.running, player)

    def clock_text(self) -> str | None:
        """Who must decide, and how long they have: the player to act, else (between games)
        the first still to join."""
        if not self.countdowns:
            return None
        to_act = self.running.match.to_act
        player = to_act if to_act in self.countdowns else min(self.countdowns)
        countdown = self.countdowns[player]
        seconds = max(0, math.ceil(countdown.deadline - self._clock.time()))
        return clock_texts.clock_line(self.running.names[player], seconds,
                                      countdown.situation.phase)
