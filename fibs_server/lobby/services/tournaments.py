"""The tournament director (docs/TOURNAMENTS.md, "Life cycle"): it starts a tournament when
its sign-up closes, and at each round invites both players of every pairing, starts their
match as soon as both are online and free (on whichever nodes: lobby/play/arranged_matches.py),
gives a no-show's match to the one who came, reads the results of the finished matches,
pairs the next round and announces the winner. An arena has no rounds to wait for: at each
pass, until its time is up, whoever of it is free is paired at once (`_direct_arena`).

It runs on one node, the holder of the `tournaments` lease, as a `leases.Duty`: a pass over
the open tournaments when the lease is gained, then one every `period` seconds of the
lobby's clock. The store is its memory (`TournamentRecords`): each change is stored before
anyone is told, so a restart (or another node taking the lease over) goes on where the last
pass stopped; between passes it keeps the running tournaments as it stored them. A match
links to its pairing by the store: the pair's running match, or one they finished, begun
since the round began, is the pairing's; a match begun on another node or through `join` is
found the same way.
"""
from __future__ import annotations

import asyncio
import dataclasses
import logging
from typing import TYPE_CHECKING

from fibs_server.lobby.clock import Alarm, Clock
from fibs_server.lobby.nodes.bus import notice
from fibs_server.lobby.nodes.leases import stop_task
from fibs_server.lobby.play import arranged_matches
from fibs_server.lobby.play.running_match import Invitation
from fibs_server.lobby.ports.match_records import MatchRecord
from fibs_server.lobby.ports.tournament_records import (
    OpenTournament,
    Status,
    TournamentRecord,
    TournamentRecords,
)
from fibs_server.lobby.services.bot_players import BotPlayers
from fibs_server.lobby.services.tournament_news import (
    Hall,
    next_of_series,
    tell_next_of_series,
    tell_pages,
)
from fibs_server.protocol.match_rules import MatchTerms
from fibs_server.protocol.wording import game_texts, tournament_texts
from fibs_server.rules import tournament as rules
from fibs_server.rules.variants import MatchRules

if TYPE_CHECKING:  # a type only: made by the lobby, given in the constructor
    from fibs_server.lobby.play.arranged_matches import Arranging

log = logging.getLogger(__name__)

PASS_SECONDS = 5.0  # how often the director looks at the open tournaments
REMINDER_SECONDS = 300  # the entrants of a tournament with a start time are reminded then
RECENT_MATCHES = 5  # a pair's finished matches looked at for one that played their pairing
ARENA_WARNINGS = (300, 60)  # an arena's entrants are told this many seconds before its end


def match_terms(terms: rules.RoundTerms) -> MatchTerms:
    return MatchTerms(rules=MatchRules(variant=terms.variant),
                      turn_seconds=terms.turn_seconds if terms.bank is None else None,
                      rated=terms.rated, crawford=terms.crawford, bank=terms.bank)


class TournamentDirector:
    def __init__(self, hall: Hall, arranging: Arranging, records: TournamentRecords,
                 clock: Clock, period: float = PASS_SECONDS, bots: BotPlayers | None = None
                 ) -> None:
        self.hall = hall  # who is online, the accounts, the lobby's configuration
        self.arranging = arranging  # the matches, their table and store; starting them
        self.records = records
        self.bots = bots  # the server's bots, which play each other's pairings here
        self.clock = clock
        self.period = period
        self._alarm: Alarm | None = None
        self._passing: asyncio.Task[None] | None = None
        self._lock = asyncio.Lock()  # one pass at a time
        # The running tournaments as this director last stored them: while it holds the
        # lease nobody else writes their rounds, so a pass reads only which are still open
        # (a 128-player Swiss read whole took the store's reader 4-13 ms every pass).
        self._running: dict[int, TournamentRecord] = {}
        # The tournaments whose entrants were reminded of the start (a restart in the last
        # minutes before it reminds them again).
        self._reminded: set[int] = set()
        # An arena's warning of its end last told (seconds left; 0: its time is up), so that
        # each is told once.
        self._warned: dict[int, int] = {}

    # --- the lease's duty ------------------------------------------------------------------

    async def begin(self) -> None:
        self._running.clear()  # another node may have directed them meanwhile
        await self.run_pass()
        self._arm()

    async def end(self) -> None:
        if self._alarm is not None:
            self._alarm.cancel()
            self._alarm = None
        await stop_task(self._passing)
        self._passing = None

    def _arm(self) -> None:
        self._alarm = self.clock.call_at(self.clock.time() + self.period, self._due)

    def _due(self) -> None:
        self._passing = asyncio.ensure_future(self._pass_and_arm())

    async def _pass_and_arm(self) -> None:
        await self.run_pass()
        self._arm()

    async def settled(self) -> None:
        """Until the pass an alarm started is over (what a test waits for)."""
        if self._passing is not None:
            await self._passing

    # --- a pass ----------------------------------------------------------------------------

    async def run_pass(self) -> None:
        async with self._lock:
            try:
                open_now = await self.records.open_tournaments()
            except Exception:
                log.exception("the tournament director could not read the open tournaments; "
                              "trying again later")
                return
            still_open = {entry.tournament_id for entry in open_now}
            for tournament_id in set(self._running) - still_open:  # ended, or cancelled
                del self._running[tournament_id]
            self._reminded &= still_open
            self._warned = {tid: told for tid, told in self._warned.items() if tid in still_open}
            for entry in open_now:
                try:
                    await self._pass_over(entry)
                except Exception:
                    # What it holds may be ahead of the store: read it again next time.
                    self._running.pop(entry.tournament_id, None)
                    log.exception("the tournament director's pass over tournament %d "
                                  "failed; trying again later", entry.tournament_id)

    async def _pass_over(self, entry: OpenTournament) -> None:
        record = self._running.get(entry.tournament_id)
        if record is None or record.revision != entry.revision:  # a command changed it
            record = await self.records.tournament(entry.tournament_id)
            if record is None or not record.status.open:
                return
        if record.status is Status.SIGNUP:
            await self._maybe_start(record)
        elif record.spec.format is rules.Format.ARENA:
            await self._direct_arena(record)
        else:
            await self._direct(record)
        if record.status is Status.RUNNING:
            self._running[entry.tournament_id] = record

    def _now(self) -> int:
        # The store's time: what the rounds' starts, the no-show times and the matches'
        # starts are compared in (the lobby's clock is the event loop's, not the same on
        # two machines or after a reboot).
        return int(self.hall.config.wall_clock())

    async def _maybe_start(self, record: TournamentRecord) -> None:
        spec = record.spec
        now = self._now()
        due = ((spec.starts_at is not None and now >= spec.starts_at)
               or (spec.start_when is not None and len(record.entrants) >= spec.start_when))
        if not due:
            self._maybe_remind(record, now)
            return
        self._reminded.discard(record.tournament_id)
        names = [entrant.name for entrant in record.entrants]
        successor = next_of_series(record, now)
        if len(record.entrants) < 2:
            if await self.records.end_tournament(record.tournament_id, Status.CANCELLED, None,
                                                 successor):
                record.status = Status.CANCELLED
                self._announce([*names, spec.creator],
                               tournament_texts.too_few_players(record.tournament_id))
                tell_pages(self.hall, record)
                if successor is not None:
                    await tell_next_of_series(self.hall, self.records, record)
            return
        played = rules.start(spec.format, await self._rated_now(record.entrants),
                             spec.swiss_rounds, spec.flights)
        now = self._now()
        if not await self.records.start_tournament(record.tournament_id, played, now,
                                                   successor):
            return  # cancelled meanwhile
        record.played, record.status, record.started_at = played, Status.RUNNING, now
        self._announce(names, tournament_texts.tournament_starts(
            record.tournament_id, len(names), spec.arena_minutes))
        arena = spec.format is rules.Format.ARENA
        if not arena:  # an arena has no rounds: it pairs whoever is free as it goes
            record.round_started_at[1] = now
            self._announce_round(record)
        tell_pages(self.hall, record)
        if successor is not None:
            await tell_next_of_series(self.hall, self.records, record)
        await (self._direct_arena(record) if arena else self._direct(record, fresh=True))

    def _maybe_remind(self, record: TournamentRecord, now: int) -> None:
        """The entrants told, once, that the start time is near (unless the tournament was
        made that near it), on telnet and on the page (its line, and the tournament
        again, with the time left)."""
        starts_at = record.spec.starts_at
        if (starts_at is None or record.tournament_id in self._reminded
                or not now >= starts_at - REMINDER_SECONDS > record.created_at):
            return
        self._reminded.add(record.tournament_id)
        self.hall.attendance.messenger.tell([entrant.name for entrant in record.entrants], notice(
            [tournament_texts.starts_soon(record.tournament_id, starts_at, starts_at - now)],
            ring=True))
        tell_pages(self.hall, record)

    async def _rated_now(self, entrants: list[rules.Entrant]) -> list[rules.Entrant]:
        """The field with the ratings its players have at the start (not when they joined):
        the seeds and the Swiss ranking go by them."""
        rated = []
        for entrant in entrants:
            account = await self.hall.accounts.find_account(entrant.name)
            rated.append(entrant if account is None
                         else rules.Entrant(entrant.name, account.rating))
        return rated

    async def _direct(self, record: TournamentRecord, fresh: bool = False) -> None:
        """The current round's undecided pairings looked at; the round, if now done, followed
        by the next one or the end. `fresh`: the round was paired in this pass, so no match
        plays any of its pairings yet (the store is not asked)."""
        played = record.played
        assert played is not None and played.current is not None
        decided = await self._decide(record, played.current.number, fresh)
        played = record.played
        assert played is not None and played.current is not None
        current = played.current
        # A round done already when read: the server stopped before what follows it was
        # stored, and it follows now.
        if not current.done:
            if decided:
                tell_pages(self.hall, record)
            return
        if decided:  # the round ended in this pass, not before a restart
            self._tell_standings(record)
        if played.finished:
            winner = rules.winner(played)
            if await self.records.end_tournament(record.tournament_id, Status.FINISHED, winner):
                assert winner is not None
                record.status, record.winner = Status.FINISHED, winner
                self._announce([entrant.name for entrant in played.entrants],
                               tournament_texts.tournament_won(record.tournament_id, winner))
                tell_pages(self.hall, record)
            return
        played = rules.next_round(played)
        now = self._now()
        assert played.current is not None
        await self.records.save_round(record.tournament_id, played.current, now)
        record.played = played
        record.round_started_at[played.current.number] = now
        self._announce_round(record)
        tell_pages(self.hall, record)
        await self._direct(record, fresh=True)

    async def _decide(self, record: TournamentRecord, number: int, fresh: bool) -> list[int]:
        """Round `number`'s undecided pairings looked at (a match started for those whose
        players are both there): the positions decided now, stored and told. `fresh`: the
        round was paired in this pass, so no match plays any of its pairings yet (the store
        is not asked)."""
        played = record.played
        assert played is not None
        current = played.rounds[number - 1]
        started_at = record.round_started_at[number]
        decided = []
        links: dict[int, int] = {}  # position -> the match found or started for it
        for position, pairing in enumerate(current.pairings):
            if pairing.decided:
                continue
            outcome = await self._outcome(record, number, position, pairing, started_at,
                                          links, fresh)
            if outcome is not None:
                played = rules.record(played, pairing.first, outcome[0], forfeit=outcome[1],
                                      number=number)
                decided.append(position)
        assert record.played is not None  # with the no-shows the outcomes withdrew
        played = dataclasses.replace(played, withdrawn=record.played.withdrawn)
        if links:  # one write for the round's matches, not one each
            await self.records.link_matches(record.tournament_id, number, links)
            record.match_ids.update(((number, position), match_id)
                                    for position, match_id in links.items())
            for position in set(links) - set(decided):  # a match found over is no news
                pairing = current.pairings[position]
                flight_round, _count = rules.flight_round_of(played, number, pairing.flight)
                for name in pairing.players:
                    opponent = pairing.opponent_of(name)
                    assert opponent is not None
                    self._tell([name], tournament_texts.match_begins(
                        record.tournament_id, flight_round, opponent, pairing.flight))
        if decided:
            current = played.rounds[number - 1]
            await self.records.save_results(record.tournament_id, current, decided)
            record.played = played
            self._tell_results(record, [current.pairings[position] for position in decided])
            self._tell_flights_won(record, [current.pairings[position] for position in decided])
            for position in decided:  # a saved match of theirs waited for the pairing
                for name in current.pairings[position].players:
                    self.hall.attendance.start_job(
                        arranged_matches.resume_waiting_matches(self.arranging, name))
        return decided

    async def _outcome(self, record: TournamentRecord, number: int, position: int,
                       pairing: rules.Pairing, started_at: int, links: dict[int, int],
                       fresh: bool) -> tuple[str | None, bool] | None:
        """(winner, by forfeit) if the pairing is decided now, else None (after starting its
        match if both players are online and free). A match found or started for it goes in
        `links`."""
        assert pairing.second is not None  # a bye is decided from the start
        first, second = pairing.first, pairing.second
        played = record.played
        assert played is not None
        tid = record.tournament_id
        linked = record.match_ids.get((number, position))
        if linked is not None and linked == self.arranging.matches.saved.live_match_id(first, second):
            return None  # its match is being played here: nothing to read from the store
        match = None if fresh else await self._match_of(record, number, position, first,
                                                        second, started_at, links)
        if match is not None and match.finished:
            if match.winner is None:  # closed unfinished: as if neither had come
                return None, True
            return next(name for name in (first, second)
                        if name.lower() == match.winner.lower()), False
        if match is not None and self.arranging.matches.saved.is_live(first, second):
            return None  # played now; a dropout is the timed match's grace period's
        out = [name for name in (first, second) if name in played.withdrawn]
        if out:
            # Nothing to wait for: a withdrawn player's pairing not being played goes to
            # the other at once (a saved match of theirs stays saved).
            winner = next((name for name in (first, second) if name not in out), None)
            self._tell([first, second], tournament_texts.withdrawn_forfeit(tid, out[0], winner))
            return winner, True
        here = {name: arranged_matches.free_here(self.arranging, name) for name in (first, second)}
        bots = [name for name, session in here.items() if session is not None and session.is_bot]
        present = [name for name in (first, second) if here[name] is not None
                   or arranged_matches.free_elsewhere(self.arranging, name) is not None]
        if len(bots) == 2 and self.bots is not None:
            # Two of the server's bots play each other like anyone (through the bots' pool).
            running = await self.bots.play_each_other(Invitation(
                first, second, _length(record, number, pairing),
                resume=match is not None, terms=match_terms(record.spec.terms),
                arranged=True))
            if running is not None and running.keeping.stored and (number, position) not in \
                    record.match_ids:
                links[position] = running.match_id
            return None
        if len(present) == 2 and bots:
            if all(here.values()):
                # The bot accepts the invitation as it accepts any (lobby/services/bot_players.py).
                human = next(name for name in present if name not in bots)
                self._invite_bot(record, _length(record, number, pairing), human, bots[0],
                                 resume=match is not None)
                return None
            # A bot takes invitations from players on its own node only: it cannot be
            # brought to this match, and loses it at the no-show time.
            present = [name for name in present if name not in bots]
        elif len(present) == 2:
            await self._arrange(record, number, position, pairing, links,
                                resume=match is not None)
            return None
        spec = record.spec
        if self._now() < started_at + spec.no_show_seconds:
            return None
        if match is not None:
            # A saved match that one player did not come back to: lost by that player like
            # any forfeited match; the next pass reads the result. One that a player left
            # is its grace period's (turn_clock.MatchClocks) alone, so that the two never
            # both claim it, each for another winner. Nobody back: it waits for them.
            if len(present) == 1 and match.left_by is None:
                names = (match.player_a, match.player_b)
                leaver = next(index for index, name in enumerate(names)
                              if name.lower() != present[0].lower())
                await self.arranging.matches.saved.forfeit_saved(match.match_id, names, leaver, [])
            return None
        absent = [name for name in (first, second) if name not in present]
        winner = present[0] if present else None
        for name in absent:
            self._tell([first, second], tournament_texts.forfeited(tid, name, winner))
            if record.spec.format is not rules.Format.ARENA:  # an arena pairs only who is there
                await self._withdraw_no_show(record, name)
        return winner, True

    async def _withdraw_no_show(self, record: TournamentRecord, name: str) -> None:
        """A player who forfeited by not showing up plays no later round (stored first; an
        administrator may reinstate them: `tournament reinstate`)."""
        revision = await self.records.set_withdrawn(record.tournament_id, name, True)
        played = record.played
        assert played is not None
        if revision == record.revision + 1:  # else a command changed it too: read it again
            record.revision = revision
        record.played = rules.withdraw(played, name)
        self._announce_to_entrants(record, tournament_texts.no_show_withdrawn(
            record.tournament_id, name))

    async def _match_of(self, record: TournamentRecord, number: int, position: int,
                        first: str, second: str, started_at: int, links: dict[int, int]
                        ) -> MatchRecord | None:
        """The stored match playing the pairing: the one linked, else the pair's match begun
        since the round began (running, or finished already), which is then to be linked."""
        match_id = record.match_ids.get((number, position))
        if match_id is not None:
            return await self.arranging.match_store.match_by_id(match_id)
        # A match another pairing played is not this one's (an arena's pair may meet again
        # within the second their last match began).
        taken = set(record.match_ids.values())
        found = await self.arranging.match_store.running_match(first, second)
        if found is None or found.started_at < started_at or found.match_id in taken:
            finished = await self.arranging.match_store.finished_matches(first, RECENT_MATCHES)
            found = next((match for match in finished if match.started_at >= started_at
                          and match.match_id not in taken
                          and second.lower() in (match.player_a.lower(),
                                                 match.player_b.lower())), None)
        if found is None or found.started_at < started_at:
            return None
        links[position] = found.match_id
        return found

    async def _arrange(self, record: TournamentRecord, number: int, position: int,
                       pairing: rules.Pairing, links: dict[int, int], resume: bool) -> None:
        """The pairing's match started (or its saved one resumed) where `first` is online:
        here at once if both are here (the new match then goes in `links`), else through
        their nodes (lobby/play/arranged_matches.py; the store then links the match to the
        pairing, as one begun with `join`)."""
        assert pairing.second is not None
        running = await arranged_matches.arrange(self.arranging, Invitation(
            pairing.first, pairing.second, _length(record, number, pairing), resume=resume,
            terms=match_terms(record.spec.terms)))
        if running is not None and running.keeping.stored and \
                (number, position) not in record.match_ids:
            links[position] = running.match_id

    def _invite_bot(self, record: TournamentRecord, length: int, human: str, bot: str,
                    resume: bool) -> None:
        """The human's invitation to the bot, unless it stands already (the bot is about to
        accept it)."""
        terms = match_terms(record.spec.terms)
        invitation = Invitation(human, bot, length, resume=resume, terms=terms, arranged=True)
        if self.arranging.match_table.invitations.invitation_from(human) == invitation:
            return
        self.arranging.match_table.invitations.invite(invitation)
        self._tell_lines([bot], game_texts.invitation_to_resume(human, False) if resume
                         else game_texts.invitation(human, length, False, False, terms))

    # --- an arena ---------------------------------------------------------------------------

    async def _direct_arena(self, record: TournamentRecord) -> None:
        """The arena's pairings under way looked at; until its time is up, whoever of it is
        free paired at once and their matches started; once it is up and every match is
        over, the standings and the winner."""
        played = record.played
        assert played is not None and record.started_at is not None
        tid = record.tournament_id
        now = self._now()
        left = record.started_at + 60 * record.spec.arena_minutes - now
        changed = False
        if not played.closed and left <= 0:
            record.played = played = rules.close(played)
            changed = True
            if self._warned.get(tid) != 0:  # told once: a running arena read again is open
                self._warned[tid] = 0
                self._announce_to_entrants(record, tournament_texts.arena_time_up(tid))
        for played_round in played.rounds:
            if not played_round.done:
                changed = bool(await self._decide(record, played_round.number, False)) or changed
        played = record.played
        assert played is not None
        if played.finished:
            await self._end_arena(record)
            return
        if not played.closed:
            self._warn(record, left)
            free = [entrant.name for entrant in played.entrants if self._free(entrant.name)]
            paired = rules.arena_round(played, free)
            if paired is not played:
                assert paired.current is not None
                await self.records.save_round(tid, paired.current, now)
                record.played = paired
                record.round_started_at[paired.current.number] = now
                length = record.spec.terms.length
                for pairing in paired.current.pairings:
                    assert pairing.second is not None  # an arena has no byes
                    for player, opponent in ((pairing.first, pairing.second),
                                             (pairing.second, pairing.first)):
                        self.hall.attendance.messenger.tell([player], notice(
                            [tournament_texts.arena_match(tid, opponent, length)], ring=True))
                await self._decide(record, paired.current.number, True)
                changed = True
        if changed:
            tell_pages(self.hall, record)

    def _free(self, name: str) -> bool:
        """Online and in no match: here, or (not a bot, which plays only on its own node)
        on another node."""
        return (arranged_matches.free_here(self.arranging, name) is not None
                or arranged_matches.free_elsewhere(self.arranging, name) is not None)

    def _warn(self, record: TournamentRecord, left: int) -> None:
        """The entrants told of the arena's end as it nears (each warning once)."""
        tid = record.tournament_id
        due = [warning for warning in ARENA_WARNINGS
               if left <= warning < min(60 * record.spec.arena_minutes,
                                        self._warned.get(tid, warning + 1))]
        if due:
            self._warned[tid] = min(due)
            self._announce_to_entrants(record, tournament_texts.arena_ends_in(tid, left))

    async def _end_arena(self, record: TournamentRecord) -> None:
        played = record.played
        assert played is not None
        tid = record.tournament_id
        winner = rules.winner(played)
        if not await self.records.end_tournament(tid, Status.FINISHED, winner):
            return
        assert winner is not None
        record.status, record.winner = Status.FINISHED, winner
        rows = rules.standings(played)
        for row in rows:
            self._tell([row.name], tournament_texts.arena_standing(
                tid, row.place, len(rows), row.score))
        self._announce([entrant.name for entrant in played.entrants],
                       tournament_texts.tournament_won(tid, winner))
        tell_pages(self.hall, record)

    # --- telling ---------------------------------------------------------------------------

    def _tell(self, names: list[str], line: str) -> None:
        self._tell_lines(names, [line])

    def _tell_lines(self, names: list[str], lines: list[str]) -> None:
        self.hall.attendance.messenger.tell(names, notice(lines))

    def _announce(self, names: list[str], line: str) -> None:
        """`line` to those named, and to everyone who asked to hear of tournaments."""
        self._tell(names, line)
        self.hall.attendance.messenger.tell_all(notice([line], audience="tournaments", excluded=names))

    def _announce_to_entrants(self, record: TournamentRecord, line: str) -> None:
        played = record.played
        assert played is not None
        self._tell([entrant.name for entrant in played.entrants], line)

    def _announce_round(self, record: TournamentRecord) -> None:
        """Each player of the round hears of it, and of their match, which the server starts
        (nobody is asked to `join` it: docs/TOURNAMENTS.md)."""
        played = record.played
        assert played is not None and played.current is not None
        current = played.current
        tid = record.tournament_id
        minutes = max(1, record.spec.no_show_seconds // 60)
        for pairing in current.pairings:
            number, count = rules.flight_round_of(played, current.number, pairing.flight)
            if number == 1 and pairing.flight is not rules.Flight.MAIN:
                self._tell(list(pairing.players), tournament_texts.flight_begins(
                    tid, pairing.flight, len(rules.flight_field(played, pairing.flight) or ())))
            self._tell(list(pairing.players),
                       tournament_texts.round_begins(tid, number, count, pairing.flight))
            if pairing.second is None:
                self._tell([pairing.first], tournament_texts.your_bye(tid, number,
                                                                      pairing.flight))
                continue
            length = record.spec.terms.length_of(number, count)
            for player, opponent in ((pairing.first, pairing.second),
                                     (pairing.second, pairing.first)):
                self.hall.attendance.messenger.tell([player], notice(
                    [tournament_texts.your_match(tid, opponent, length, minutes)], ring=True))

    def _tell_results(self, record: TournamentRecord, decided: list[rules.Pairing]) -> None:
        """Each result played to its end, to both players (a forfeit was told as it was
        decided)."""
        for pairing in decided:
            loser = pairing.opponent_of(pairing.winner) if pairing.winner else None
            if not pairing.forfeit and pairing.winner and loser:
                self._tell(list(pairing.players), tournament_texts.result(
                    record.tournament_id, pairing.winner, loser, pairing.flight))

    def _tell_flights_won(self, record: TournamentRecord, decided: list[rules.Pairing]) -> None:
        """A side flight's final decided: its winner, to every entrant (the main flight's is
        the tournament's, told at its end)."""
        played = record.played
        assert played is not None
        ended = {pairing.flight for pairing in decided}
        for flight in (flight for flight in played.flights[1:] if flight in ended):
            winner = rules.flight_winner(played, flight)
            if winner is not None:
                self._announce_to_entrants(record, tournament_texts.flight_won(
                    record.tournament_id, flight, winner))

    def _tell_standings(self, record: TournamentRecord) -> None:
        """At a round's end, each player still in it hears their place (in the main flight:
        a round only of side flights changes no place)."""
        played = record.played
        assert played is not None and played.current is not None
        if all(pairing.flight is not rules.Flight.MAIN for pairing in played.current.pairings):
            return
        rows = rules.standings(played)
        for row in rows:
            if row.name not in played.withdrawn:
                self._tell([row.name], tournament_texts.your_standing(
                    record.tournament_id, played.current.number, row.place, len(rows),
                    row.score))


def _length(record: TournamentRecord, number: int, pairing: rules.Pairing) -> int:
    """The length of the pairing's match: its flight's round's, by the tournament's terms."""
    assert record.played is not None
    return record.spec.terms.length_of(*rules.flight_round_of(record.played, number,
                                                               pairing.flight))
