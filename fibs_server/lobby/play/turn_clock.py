"""Turn timers and bot takeover: the clock of a timed match (`invite bob 5 timer 30`,
`takeover 60`, the server's `--takeover-seconds`).

Each decision a player must take (roll or double, move, answer a double or a resignation,
join the next game) is timed from the moment it is due. Ten seconds before the end the
player is warned; at the end the server takes the decision for them with the bot's choice
(`bots.situation_for`, the bots' `decide`, applied through `Matches.act` like a bot's
own decision, which tells both players and the watchers once it is stored), and counts it; the third expiry loses
the match (`Match.forfeit`). With a time bank (`bank 12 60`, rules/clocks/time_bank.py) each
decision has its seconds and the player's reserve: the reserve pays for what the decision
took once it is taken (stored with it), and a decision that takes them all loses the match
at once; both players are warned. With `takeover` a bot takes the decision over without
counting it, and the player plays on. A timed match left or dropped is lost unless it is
resumed within the grace period. Untimed matches get no clock at all.
"""
from __future__ import annotations

import asyncio
import dataclasses
import logging
import math
from collections.abc import Awaitable, Callable, Coroutine

from fibs_server.bots import Action, Decision, Situation, fallback, situation_for
from fibs_server.bots.situation import ROLL
from fibs_server.lobby.clock import Alarm, Clock
from fibs_server.lobby.play import match_play
from fibs_server.lobby.play.match_play import Matches
from fibs_server.lobby.play.running_match import RunningMatch, clocked_state
from fibs_server.lobby.presence.session import Stay
from fibs_server.protocol.views import web_events
from fibs_server.protocol.views.match_views import WATCHERS, Script, say
from fibs_server.protocol.wording import clock_texts
from fibs_server.protocol.wording.clock_texts import EXPIRIES_TO_LOSE, WARNING_SECONDS, ClockReading
from fibs_server.rules.match import Match

log = logging.getLogger(__name__)

RETRY_SECONDS = 1.0  # a grace forfeit that could not be done now (see forfeit_saved) tries again

# The decision a bot would take for a player: the built-in bots' pool, or our rules of thumb.
Decide = Callable[[Situation], Awaitable[Decision]]


async def rules_of_thumb(situation: Situation) -> Decision:
    """The decision on a server without its bots (`--bots off`): computed at once."""
    return fallback(situation)


@dataclasses.dataclass(frozen=True)
class AbsenceRule:
    """The rule a grace period decides by: who was where when it began (each a stay online,
    `Users.stay_of`). `waiting`: the opponent's (None: not known, a sweep's grace after
    a restart: whoever is online when it ends); `left_here`: the leaver's, if they left with
    `leave` and stayed online, told their deadline (None: they went offline)."""

    waiting: Stay | None
    left_here: Stay | None

    def lost(self, people: match_play.People, names: tuple[str, str], leaver: int) -> bool:
        """Whether the leaver loses the match now: they have not come back (or, having left
        with `leave`, have not resumed it) and the opponent has waited online all along.
        Never when the opponent went away too (both dropped at once: the match waits for
        both) or when the one who dropped is back online."""
        waiting_now = people.stay_of(names[1 - leaver])
        if waiting_now is None or self.waiting is not None and waiting_now != self.waiting:
            return False
        leaver_now = people.stay_of(names[leaver])
        return leaver_now is None or leaver_now == self.left_here


@dataclasses.dataclass
class Countdown:
    """One decision being timed: the situation it is due in, when time is up, and whether a
    bot then takes it over (uncounted) rather than the turn timer (counted)."""

    situation: Situation
    started: float
    deadline: float
    takeover: bool
    alarms: list[Alarm]
    # The server took the decision: if that cannot be stored, the decision is timed again.
    fired: bool = False

    def cancel(self) -> None:
        for alarm in self.alarms:
            alarm.cancel()


class MatchClocks:
    """Every timed match's clock (`timer_for`, the clocks of `matches`), and the grace
    periods of the timed matches their players left, on `clock`."""

    def __init__(self, matches: Matches, clock: Clock, grace_seconds: int,
                 decide: Decide) -> None:
        self.matches = matches
        self.clock = clock
        self.grace_seconds = grace_seconds  # a timed match left is lost unless resumed so soon
        self.decide = decide
        self.graces: dict[int, Alarm] = {}  # match id -> its forfeit, if not resumed in time
        # The graces armed by a sweep over the database (`resume_graces`), not by a player
        # leaving here: the `sweeps` lease's, dropped with it (`drop_swept_graces`). Match
        # id -> its owner epoch as the sweep read it (None: not to be compared).
        self.swept: dict[int, int | None] = {}
        self._tasks: set[asyncio.Task] = set()
        self._closed = False

    def timer_for(self, running: RunningMatch) -> TurnClock | None:
        """The clock of a match that starts or resumes: a resume ends its grace period."""
        grace = self.graces.pop(running.match_id, None)
        if grace is not None:
            grace.cancel()
        self.swept.pop(running.match_id, None)
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

    def start_grace(self, match_id: int, names: tuple[str, str], leaver: int,
                    seconds: float | None = None, swept: bool = False,
                    epoch: int | None = None, absence: AbsenceRule | None = None) -> None:
        """The leaver of match `match_id` between `names` loses it unless it is resumed
        within `seconds` (the server's grace period), by the rule of `absence` (None: a
        sweep's, whoever is online when it ends). `swept`: armed by a sweep over the
        database, not by the leaving here, which read the match's owner `epoch`."""
        when = self.clock.time() + (self.grace_seconds if seconds is None else seconds)
        earlier = self.graces.pop(match_id, None)
        if earlier is not None:
            earlier.cancel()
        if swept:
            self.swept[match_id] = epoch
        else:
            self.swept.pop(match_id, None)
        rule = absence or AbsenceRule(None, None)
        self.graces[match_id] = self.clock.call_at(
            when, lambda: self.start_task(self._forfeit_abandoned(match_id, names, leaver, rule)))

    async def resume_graces(self) -> None:
        """A sweep over the database (the `sweeps` lease's holder's; on one node, at its
        start): each timed match a player left whose grace period does not run here gets it,
        counted from now (nobody could come back to a stopped node, and a node that died
        took its alarms with it). Not a match whose grace period ended already, here or on
        any node: it waits for both (`waits_for_both`, stored)."""
        for record in await self.matches.store.left_matches():
            names = (record.player_a, record.player_b)
            if (record.length is not None and clocked_state(record.state)
                    and record.left_by in names and record.match_id not in self.graces
                    and not record.waits_for_both):
                self.start_grace(record.match_id, names, names.index(record.left_by),
                                 swept=True, epoch=record.owner_epoch)

    def drop_swept_graces(self) -> None:
        """The `sweeps` lease is lost: the node that takes it arms these graces again."""
        for match_id in self.swept:
            alarm = self.graces.pop(match_id, None)
            if alarm is not None:
                alarm.cancel()
        self.swept.clear()

    async def _forfeit_abandoned(self, match_id: int, names: tuple[str, str],
                                 leaver: int, absence: AbsenceRule) -> None:
        """The grace period ended and the match was not resumed: the leaver loses it if they
        were absent for the whole of it while the opponent waited (`AbsenceRule.lost`); else the
        match waits, saved, for both."""
        self.graces.pop(match_id, None)
        swept = match_id in self.swept
        epoch = self.swept.pop(match_id, None)
        if swept:
            # Armed from the database: it may have been resumed on another node since
            # (resuming claims it and forgets who left; left again, its new host times it),
            # which this node cannot see in its own matches.
            record = await self.matches.store.match_by_id(match_id)
            if (record is None or record.finished or record.left_by is None
                    or epoch is not None and record.owner_epoch != epoch):
                return
        if not absence.lost(self.matches.people, names, leaver):
            await self._wait_for_both(match_id, names, leaver)
            return
        back = clock_texts.did_not_come_back(names[leaver], self.grace_seconds)
        forfeited = await self.matches.saved.forfeit_saved(match_id, names, leaver,
                                                     [say(0, back), say(1, back)])
        if forfeited is None:  # being set up (resumed?) or not stored: try again shortly
            # (Not compared again: the failed forfeit may have claimed the match itself.)
            self.start_grace(match_id, names, leaver, RETRY_SECONDS, swept=swept,
                             absence=absence)

    async def _wait_for_both(self, match_id: int, names: tuple[str, str], leaver: int) -> None:
        """The match waits for both: stored, where every node's sweep sees it, then told.
        A store that fails is asked again shortly (the rule is not judged again: whoever it
        spared stays spared)."""
        try:
            marked = await self.matches.store.mark_waiting(match_id, names[leaver])
        except Exception:
            log.exception("match %s could not be stored as waiting for both", match_id)
            self.clock.call_at(self.clock.time() + RETRY_SECONDS, lambda: self.start_task(
                self._wait_for_both(match_id, names, leaver)))
            return
        if marked:  # not resumed (nor left again by the other) meanwhile
            self.matches.saved.waits_for_both(names, leaver)

    async def quiet(self) -> None:
        """Until the work of every alarm that has rung is done (what a test waits for after
        moving a fake clock on)."""
        while self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)

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
        self.held = False  # a player out of reach: nothing is timed (never lost to a bus fault)

    @property
    def _clock(self) -> Clock:
        return self.clocks.clock

    def _due(self, player: int) -> Situation | None:
        session = self.running.sessions[player]
        return (situation_for(self.running.match, player)
                if session is not None and not session.is_bot else None)

    def charge(self) -> None:
        """Each timed decision that is taken (no longer due as it was) is paid for from its
        player's reserve, by the time it took."""
        bank = self.running.timing.bank
        if bank is None:
            return
        now = self._clock.time()
        for player, countdown in self.countdowns.items():
            if self._due(player) != countdown.situation:
                elapsed = min(now - countdown.started, bank.available(player))
                bank = bank.after_decision(player, elapsed)
        self.running.timing.bank = bank

    def changed(self) -> None:
        """Time each player's decision that is due now; a decision still due goes on with
        the time it had (a chat, a refused command or the opponent's watcher change nothing)."""
        if self.held:
            return
        for player in (0, 1):
            due = self._due(player)
            countdown = self.countdowns.get(player)
            if countdown is not None and countdown.situation == due and not countdown.fired:
                continue
            if countdown is not None:
                countdown.cancel()
                del self.countdowns[player]
            if due is not None:
                self.countdowns[player] = self._count_down(player, due)

    def _count_down(self, player: int, situation: Situation) -> Countdown:
        takeover = self.running.timing.takeover_seconds
        turn: float | None = (self.running.timing.turn_seconds if self.running.timing.bank is None
                              else self.running.timing.bank.available(player))
        by_takeover = turn is None or (takeover is not None and takeover < turn)
        seconds = takeover if by_takeover else turn
        assert seconds is not None
        now = self._clock.time()
        deadline = now + seconds
        countdown = Countdown(situation, now, deadline, by_takeover, [])
        countdown.alarms.append(self._clock.call_at(
            deadline, lambda: self.clocks.start_task(self._expired(player, countdown))))
        if seconds > WARNING_SECONDS:
            countdown.alarms.append(self._clock.call_at(
                deadline - WARNING_SECONDS, lambda: self._warn(player, countdown)))
        return countdown

    def _warn(self, player: int, countdown: Countdown) -> None:
        session = self.running.sessions[player]
        if self.countdowns.get(player) is not countdown or session is None:
            return
        phase = countdown.situation.phase
        session.out.line(clock_texts.time_warning(WARNING_SECONDS, phase))
        session.out.event(web_events.time_warning(WARNING_SECONDS, phase))
        opponent = self.running.sessions[1 - player]
        if self.running.timing.bank is not None and not countdown.takeover and opponent is not None:
            # Time that runs out loses the match: the opponent sees it coming too.
            opponent.out.line(clock_texts.opponent_time_warning(
                self.running.names[player], WARNING_SECONDS, phase))
            opponent.out.event(web_events.time_warning(WARNING_SECONDS, phase, "opponent"))

    async def _expired(self, player: int, countdown: Countdown) -> None:
        """Time is up: the server takes the decision (or, at the last expiry, forfeits)."""
        running, situation = self.running, countdown.situation
        # An unlimited match is never won, so never lost on time either; a time bank spent
        # loses at once.
        last = (not countdown.takeover and running.match.length is not None
                and (running.timing.bank is not None
                     or running.timing.expiries[player] + 1 >= EXPIRIES_TO_LOSE))
        decision = None if last else await self._bot_decision(situation)
        session = running.sessions[player]
        matches = self.clocks.matches
        if (self.countdowns.get(player) is not countdown or session is None
                or matches.table.match_of(session) is not running):
            return  # decided, left or ended meanwhile
        name, phase = running.names[player], situation.phase

        def take_decision(match: Match, acting: int) -> match_play.Change | None:
            if situation_for(match, acting) != situation:
                return None  # the player decided just before us
            countdown.fired = True  # a decision refused or not stored is timed again
            if countdown.takeover:
                you, others = clock_texts.bot_takes_over(name, phase)
            elif decision is None and running.timing.bank is not None:
                you, others = clock_texts.time_bank_spent(name, phase)
            elif decision is None:
                you, others = clock_texts.time_is_up_for_the_last_time(name, phase)
            else:
                running.timing.expiries[acting] += 1
                you, others = clock_texts.time_is_up(name, phase, running.timing.expiries[acting])
            running.timing.played_for.append({"player": acting, "game": match.game_count,
                                              "event": len(match.game_events(-1)),
                                              "why": "takeover" if countdown.takeover else "timer"})
            events = match.forfeit(acting) if decision is None else decision.apply(match, acting)
            return match_play.Change(events, [say(acting, you), say(1 - acting, others),
                                              say(WATCHERS, others)])

        await matches.act(session, take_decision, by_server=True)

    async def _bot_decision(self, situation: Situation) -> Decision:
        decision = await self.clocks.decide(situation)
        # A bot may offer to resign; the server never gives up for a player out of time.
        return ROLL if decision.action is Action.RESIGN else decision

    def hold(self, held: bool) -> None:
        self.held = held
        if held:
            self.stop()
        else:
            self.changed()

    def stop(self) -> None:
        for countdown in self.countdowns.values():
            countdown.cancel()
        self.countdowns.clear()

    def left(self, player: int) -> tuple[Script, web_events.Message | None]:
        """A player left or dropped: with a turn timer, they lose the match unless it is
        resumed within the grace period while the opponent waits online (a takeover alone
        keeps FIBS's saved match). What the players still online are told of it, and the
        countdown's message for their pages and the watchers' (None: none runs)."""
        running = self.running
        if not running.terms.clocked or running.match.length is None:
            return [], None
        people = self.clocks.matches.people
        seconds = self.clocks.grace_seconds
        you, opponent = clock_texts.come_back_within(running.names[player], seconds,
                                                     running.opponent_name(player))
        leaver = running.sessions[player]
        still_here = leaver is not None and people.is_online(leaver)
        absence = AbsenceRule(people.stay_of(running.opponent_name(player)),
                          people.stay_of(running.names[player]) if still_here else None)
        self.clocks.start_grace(running.match_id, running.names, player, absence=absence)
        return ([say(index, text) for index, text in ((player, you), (1 - player, opponent))
                 if (session := running.sessions[index]) is not None
                 and people.is_online(session)],
                web_events.comeback_countdown(running.names[player],
                                              running.opponent_name(player), seconds))

    def reading(self) -> ClockReading | None:
        """Who must decide, and how long they have: the player to act, else (between games)
        the first still to join."""
        if not self.countdowns:
            return None
        to_act = self.running.match.to_act
        player = to_act if to_act in self.countdowns else min(self.countdowns)
        countdown = self.countdowns[player]
        now = self._clock.time()
        seconds = max(0, math.ceil(countdown.deadline - now))
        bank = self.running.timing.bank
        if bank is None:
            return ClockReading(player, seconds, countdown.situation.phase)
        # Both reserves as they stand now: a decision being timed runs its own.
        shown = [bank.shown_reserve(index, now - self.countdowns[index].started)
                 if index in self.countdowns else bank.reserves[index] for index in (0, 1)]
        return ClockReading(player, seconds, countdown.situation.phase,
                            (math.ceil(shown[0]), math.ceil(shown[1])))
