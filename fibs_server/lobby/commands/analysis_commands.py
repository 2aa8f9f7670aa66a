"""`analyse <match>` (asks for a match's analysis), `analyse notify on|off` (be told when one is
ready) and `analysis <match> [moves]` (reads it). Who may: a match's players, and anyone for
a rated match (public, as the archive is); a visitor's bot match is never stored, so it has
none. `puzzle`: the blunders of analysed rated matches to solve (docs/ANALYSIS.md,
"Puzzles")."""
from __future__ import annotations

import datetime
from collections.abc import Callable

from fibs_server.bots.puzzles import solves
from fibs_server.lobby.command_table import CommandTable
from fibs_server.lobby.commands.common import LARGEST_ID, store_setting
from fibs_server.lobby.ports.accounts import AccountStore
from fibs_server.lobby.ports.analysis_records import AnalysisRecords, Outcome, StoredPuzzle
from fibs_server.lobby.ports.match_records import MatchRecord, MatchStore
from fibs_server.lobby.presence.session import Session
from fibs_server.lobby.services.analysis_queue import NOTICE_SETTING, AnalysisQueue, readable
from fibs_server.protocol.commands import Command, HeavyRead
from fibs_server.protocol.views import web_events
from fibs_server.protocol.wording import analysis_texts


async def readable_match(match_store: MatchStore, session: Session, typed: str
                         ) -> MatchRecord | None:
    """The finished match `typed` names if the session may read its analysis; else None,
    the refusal sent."""
    record = (await match_store.match_by_id(int(typed))
              if typed.isdigit() and int(typed) <= LARGEST_ID else None)
    if record is None or not record.finished:
        session.out.line(analysis_texts.no_finished_match(typed))
        return None
    if not readable(record, session.name):
        session.out.line(analysis_texts.not_readable(record.match_id))
        return None
    return record


def command_table(records: AnalysisRecords, queue: AnalysisQueue | None, match_store: MatchStore,
                  accounts: AccountStore, now: Callable[[], datetime.datetime]) -> CommandTable:
    """`queue` None: the server analyses nothing (`--no-analysis`); stored analyses are read
    all the same. The matches come from `match_store`, the notify setting is stored with
    the `accounts`, and the day's puzzle is `now`'s."""
    table = CommandTable()

    # Asking reads the match (its whole state) and writes a queue row: paced as a heavy read
    # per user, so that a crowd of accounts asking in a loop costs the others nothing.
    @table.command("analyse", aliases=("analyze",), visitors=False,
                   pacing=HeavyRead(analysis_texts.asked_too_often))
    async def analyse(session: Session, command: Command) -> None:
        args = [word.lower() for word in command.args]
        if args[:1] == ["notify"] and len(args) == 2 and args[1] in ("on", "off"):
            await store_setting(accounts, session, NOTICE_SETTING, args[1])
            session.out.line(analysis_texts.NOTIFY_ON if args[1] == "on"
                             else analysis_texts.NOTIFY_OFF)
            return
        if len(args) != 1:
            session.out.line(analysis_texts.ANALYSE_USAGE)
            return
        if queue is None:
            session.out.line(analysis_texts.NOT_ANALYSING)
            return
        record = await readable_match(match_store, session, args[0])
        if record is None:
            return
        outcome = await queue.ask(record.match_id, session.name)
        limits = queue.config.limits
        session.out.line({
            Outcome.QUEUED: analysis_texts.queued(record.match_id),
            Outcome.WAITING_ALREADY: analysis_texts.waiting_already(record.match_id),
            Outcome.DONE_ALREADY: analysis_texts.done_already(record.match_id),
            Outcome.QUEUE_FULL: analysis_texts.queue_full(limits.waiting),
            Outcome.TOO_MANY_OF_YOURS: analysis_texts.too_many_of_yours(limits.waiting_per_user),
        }[outcome])

    # A stored analysis is a heavy read (up to some 200 KB of JSON).
    @table.command("analysis", pacing=HeavyRead(analysis_texts.read_too_often))
    async def analysis(session: Session, command: Command) -> None:
        args = command.args
        if not 1 <= len(args) <= 2 or (len(args) == 2 and args[1].lower() != "moves"):
            session.out.line(analysis_texts.ANALYSIS_USAGE)
            return
        record = await readable_match(match_store, session, args[0])
        if record is None:
            return
        stored = await records.analysis_of(record.match_id)
        if stored is None:
            request = await records.analysis_request(record.match_id)
            session.out.line(analysis_texts.not_analysed(
                record.match_id, None if request is None else request.status.value))
            return
        names = (record.player_a, record.player_b)
        render = analysis_texts.decisions if len(args) == 2 else analysis_texts.summary
        session.out.lines(render(record.match_id, names, stored.analysis))

    # A puzzle is a few rows of an index, and an answer one short transaction: paced with
    # the heavy reads per user all the same, as each costs the store a round trip.
    @table.command("puzzle", visitors=False, whole_word_only=True,
                   pacing=HeavyRead(analysis_texts.puzzles_too_often))
    async def puzzle(session: Session, command: Command) -> None:
        args = command.args
        if not args:
            rating = await records.puzzle_rating(session.name)
            shown = await records.next_puzzle(session.name, rating.rating)
        elif args == ["daily"]:
            shown = await records.daily_puzzle(now().date())
        elif args == ["rating"]:
            rating = await records.puzzle_rating(session.name)
            session.out.line(analysis_texts.puzzle_rating(rating.rating, rating.attempts,
                                                          rating.solved))
            return
        elif args[0].isdigit() and int(args[0]) <= LARGEST_ID:
            shown = await records.puzzle(int(args[0]))
            if shown is None:
                session.out.line(analysis_texts.no_puzzle(args[0]))
                return
            if len(args) > 1:
                await answer(session, shown, " ".join(args[1:]))
                return
        else:
            session.out.line(analysis_texts.PUZZLE_USAGE)
            return
        if shown is None:
            session.out.line(analysis_texts.NO_PUZZLE_LEFT)
            return
        asked = shown.puzzle
        decider = asked.player
        session.out.lines(analysis_texts.puzzle(
            shown.puzzle_id, shown.rating, shown.match_id, shown.players, asked.game,
            asked.question, asked.position_id, asked.dice, asked.cube,
            cube_side(asked.cube_owner, decider),
            (asked.score[decider], asked.score[1 - decider]), shown.length))

    async def answer(session: Session, shown: StoredPuzzle, typed: str) -> None:
        asked = shown.puzzle
        solved = solves(asked.question, asked.position_id, asked.dice, asked.best, typed)
        attempt = await records.attempt_puzzle(session.name, shown.puzzle_id, solved)
        session.out.lines(analysis_texts.puzzle_answered(
            solved, asked.best, asked.played, attempt.first, attempt.rating, attempt.change))
        session.out.event(web_events.puzzle_result(
            shown.puzzle_id, solved, asked.best, asked.played, attempt.first, attempt.rating,
            attempt.change, attempt.puzzle_rating))

    return table


def cube_side(owner: int | None, decider: int) -> str:
    return "centred" if owner is None else "yours" if owner == decider else "theirs"

