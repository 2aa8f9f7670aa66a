"""`analyse <match>` (asks for a match's analysis), `analyse notify on|off` (be told when one is
ready) and `analysis <match> [moves]` (reads it). Who may: a match's players, and anyone for
a rated match (public, as the archive is); a visitor's bot match is never stored, so it has
none."""
from __future__ import annotations

from typing import TYPE_CHECKING

from fibs_server.lobby.command_table import CommandTable
from fibs_server.lobby.commands.common import LARGEST_ID, store_setting
from fibs_server.lobby.ports.analysis_records import AnalysisRecords, Outcome
from fibs_server.lobby.ports.match_records import MatchRecord
from fibs_server.lobby.presence.session import Session
from fibs_server.lobby.services.analysis_queue import NOTICE_SETTING, AnalysisQueue, readable
from fibs_server.protocol.commands import Command, HeavyRead
from fibs_server.protocol.wording import analysis_texts

if TYPE_CHECKING:  # a type only: each handler is given the lobby
    from fibs_server.lobby.lobby import Lobby


async def readable_match(lobby: Lobby, session: Session, typed: str) -> MatchRecord | None:
    """The finished match `typed` names if the session may read its analysis; else None,
    the refusal sent."""
    record = (await lobby.match_store.match_by_id(int(typed))
              if typed.isdigit() and int(typed) <= LARGEST_ID else None)
    if record is None or not record.finished:
        session.send_line(analysis_texts.no_finished_match(typed))
        return None
    if not readable(record, session.name):
        session.send_line(analysis_texts.not_readable(record.match_id))
        return None
    return record


def command_table(records: AnalysisRecords, queue: AnalysisQueue | None) -> CommandTable:
    """`queue` None: the server analyses nothing (`--no-analysis`); stored analyses are read
    all the same."""
    table = CommandTable()

    # Asking reads the match (its whole state) and writes a queue row: paced as a heavy read
    # per user, so that a crowd of accounts asking in a loop costs the others nothing.
    @table.command("analyse", aliases=("analyze",), visitors=False,
                   pacing=HeavyRead(analysis_texts.asked_too_often))
    async def analyse(lobby: Lobby, session: Session, command: Command) -> None:
        args = [word.lower() for word in command.args]
        if args[:1] == ["notify"] and len(args) == 2 and args[1] in ("on", "off"):
            await store_setting(lobby, session, NOTICE_SETTING, args[1])
            session.send_line(analysis_texts.NOTIFY_ON if args[1] == "on"
                              else analysis_texts.NOTIFY_OFF)
            return
        if len(args) != 1:
            session.send_line(analysis_texts.ANALYSE_USAGE)
            return
        if queue is None:
            session.send_line(analysis_texts.NOT_ANALYSING)
            return
        record = await readable_match(lobby, session, args[0])
        if record is None:
            return
        outcome = await queue.ask(record.match_id, session.name)
        limits = queue.config.limits
        session.send_line({
            Outcome.QUEUED: analysis_texts.queued(record.match_id),
            Outcome.WAITING_ALREADY: analysis_texts.waiting_already(record.match_id),
            Outcome.DONE_ALREADY: analysis_texts.done_already(record.match_id),
            Outcome.QUEUE_FULL: analysis_texts.queue_full(limits.waiting),
            Outcome.TOO_MANY_OF_YOURS: analysis_texts.too_many_of_yours(limits.waiting_per_user),
        }[outcome])

    # A stored analysis is a heavy read (up to some 200 KB of JSON).
    @table.command("analysis", pacing=HeavyRead(analysis_texts.read_too_often))
    async def analysis(lobby: Lobby, session: Session, command: Command) -> None:
        args = command.args
        if not 1 <= len(args) <= 2 or (len(args) == 2 and args[1].lower() != "moves"):
            session.send_line(analysis_texts.ANALYSIS_USAGE)
            return
        record = await readable_match(lobby, session, args[0])
        if record is None:
            return
        stored = await records.analysis_of(record.match_id)
        if stored is None:
            request = await records.analysis_request(record.match_id)
            session.send_line(analysis_texts.not_analysed(
                record.match_id, None if request is None else request.status.value))
            return
        names = (record.player_a, record.player_b)
        render = analysis_texts.decisions if len(args) == 2 else analysis_texts.summary
        session.send_lines(render(record.match_id, names, stored.analysis))

    return table

