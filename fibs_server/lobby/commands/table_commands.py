"""Matches offered to whoever comes. Open tables: `table <n> [rules] [clock] [private]` offers
a match to whoever sits first, `sit <code>` takes the free seat, `table close`; `show tables`
(user_commands, with `common.show_tables`) lists them. A match started at a table is a joined
invitation of its creator's: the same path, texts, boards and CLIP lines
(`Matches.play_invitation`). Quick play: `quickplay <n> [rules] [clock] [range <points>|any]`
seeks the same match as someone else, paired by the server (`QuickPlay`,
lobby/services/quick_play.py), `quickplay cancel`; an extension under its whole word only."""
from __future__ import annotations

import math
from typing import TYPE_CHECKING

from fibs_server.lobby.command_table import CommandTable
from fibs_server.lobby.commands.common import (
    MAX_MATCH_LENGTH,
    not_free_to_play,
    parse_length,
    too_long_for,
)
from fibs_server.lobby.play.running_match import Invitation
from fibs_server.lobby.play.tables import OpenTable
from fibs_server.lobby.presence.session import Session
from fibs_server.protocol import texts
from fibs_server.protocol.commands import Command
from fibs_server.protocol.match_rules import RulesWordError, needs_length, parse_match_terms
from fibs_server.protocol.texts import Departure
from fibs_server.protocol.views import web_events
from fibs_server.protocol.wording import game_texts, quick_play_texts, table_texts

if TYPE_CHECKING:  # types only: the owners are given to the factory
    from fibs_server.lobby.play.match_play import Matches
    from fibs_server.lobby.play.match_table import MatchTable
    from fibs_server.lobby.play.tables import CodeGuesses
    from fibs_server.lobby.ports.match_records import MatchStore
    from fibs_server.lobby.presence.attendance import Attendance
    from fibs_server.lobby.services.quick_play import QuickPlay


def command_table(attendance: Attendance, match_table: MatchTable, matches: Matches,
                  match_store: MatchStore, code_guesses: CodeGuesses, quick_play: QuickPlay
                  ) -> CommandTable:
    """The open tables' and quick play's commands, on who is online (`attendance`), the
    matches' owners, the wrong codes' count (`code_guesses`) and the seeks (`quick_play`)."""
    table = CommandTable()

    @table.command("table")
    async def open_or_close(session: Session, command: Command) -> None:
        if attendance.users.is_visitor(session):
            # A visitor's matches are never stored; one against a person would be lost.
            session.out.line(texts.VISITORS_PLAY_BOTS)
            return
        tables = match_table.open_tables
        if command.args and command.args[0].lower() == table_texts.CLOSE:
            closed = tables.close(session.name)
            session.out.line(table_texts.NO_OPEN_TABLE if closed is None
                             else table_texts.table_closed(closed.code))
            session.out.event(web_events.my_table(None))
            return
        mine = tables.of(session.name)
        if mine is not None:
            session.out.line(table_texts.your_table(mine.code, mine.length, mine.terms))
            session.out.event(web_events.my_table(mine.code, mine.length, mine.terms, mine.private))
            return
        if not command.args:
            session.out.line(table_texts.TABLE_USAGE)
            return
        refusal = not_free_to_play(match_table, session)
        if refusal is not None:
            session.out.line(refusal)
            return
        length = parse_length(command.args[0])
        if length is None:
            session.out.line(game_texts.match_length_usage(MAX_MATCH_LENGTH))
            return
        words, private = table_texts.split_private(command.args[1:])
        try:
            terms = parse_match_terms(words)
        except RulesWordError as error:
            session.out.lines([error.reply, table_texts.TABLE_USAGE])
            return
        points = None if length == "unlimited" else length
        if too_long_for(session, points):
            session.out.line(game_texts.YOU_ARE_NOT_EXPERIENCED_ENOUGH)
            return
        refused = needs_length(terms) if points is None else None
        if refused is not None:
            session.out.line(refused)
            return
        opened = tables.open(session.name, points, terms, private)
        session.out.line(table_texts.table_opened(opened.code, opened.length, opened.terms,
                                                  opened.private))
        session.out.event(web_events.my_table(opened.code, opened.length, opened.terms,
                                              opened.private))

    @table.command("sit")
    async def sit(session: Session, command: Command) -> None:
        if attendance.users.is_visitor(session):
            session.out.line(texts.VISITORS_PLAY_BOTS)
            return
        if not command.args:
            session.out.line(table_texts.SIT_WHERE)
            return
        tables = match_table.open_tables
        code = command.args[0]
        host = session.connection.host
        wait = code_guesses.wait(session.name, host)
        if wait > 0:
            session.out.line(table_texts.too_many_wrong_codes(wait))
            return
        chosen = tables.find(code)
        if chosen is None:
            code_guesses.wrong(session.name, host)
            session.out.line(table_texts.no_table(code))
            return
        if chosen.creator.lower() == session.name.lower():
            session.out.line(table_texts.OWN_TABLE)
            return
        if await match_store.running_match(chosen.creator, session.name) is not None:
            session.out.line(game_texts.saved_match_first(chosen.creator))
            return
        if tables.find(code) is not chosen:  # closed, or taken, while the store answered
            session.out.line(table_texts.no_table(code))
            return
        creator = attendance.users.online.get(chosen.creator.lower())
        if creator is None:  # between the two halves of the creator's new login
            session.out.line(table_texts.no_table(code))
            return
        refusal = _refusal(session, creator, chosen)
        if refusal is not None:
            session.out.line(refusal)
            return
        tables.close(creator.name)
        await matches.play_invitation(Invitation(creator.name, session.name, chosen.length,
                                                       terms=chosen.terms), creator, session)

    def _refusal(sitter: Session, creator: Session, chosen: OpenTable) -> str | None:
        """Why `sitter` may not play at the table now, as `join` would refuse (None: they may)."""
        if match_table.busy(sitter):
            return game_texts.TWO_GAMES_AT_ONCE
        if match_table.busy(creator):  # their match is being set up
            return game_texts.already_playing(creator.name)
        if not creator.prefs.toggle("ready"):
            return game_texts.refusing_games(creator.name)
        if too_long_for(sitter, chosen.length):
            return game_texts.YOU_ARE_NOT_EXPERIENCED_ENOUGH
        return None

    @table.command(quick_play_texts.COMMAND, whole_word_only=True, extension=True)
    async def quickplay(session: Session, command: Command) -> None:
        if command.args and command.args[0].lower() == quick_play_texts.CANCEL:
            if quick_play.is_seeking(session):
                quick_play.cancel(session)
            else:
                session.out.line(quick_play_texts.NOT_SEEKING)
            return
        if attendance.users.is_visitor(session):
            session.out.line(texts.VISITORS_PLAY_BOTS)  # a visitor's matches are never stored
            return
        length = parse_length(command.args[0]) if command.args else None
        if not isinstance(length, int):
            session.out.line(quick_play_texts.QUICK_PLAY_USAGE)
            return
        words, rating_range = quick_play_texts.split_range(command.args[1:])
        if isinstance(rating_range, str):
            session.out.line(rating_range)
            return
        try:
            terms = parse_match_terms(words)
        except RulesWordError as error:
            session.out.lines([error.reply, quick_play_texts.QUICK_PLAY_USAGE])
            return
        if match_table.busy(session) or session.place.seated_elsewhere is not None:
            session.out.line(game_texts.TWO_GAMES_AT_ONCE)
            return
        if terms.rated and too_long_for(session, length):
            session.out.line(game_texts.YOU_ARE_NOT_EXPERIENCED_ENOUGH)
            return
        wait = quick_play.seek_wait(session)
        if wait:
            session.out.line(quick_play_texts.too_often(math.ceil(wait)))
            return
        quick_play.seek(session, length, terms, rating_range)

    @table.on_login
    async def show_seek(session: Session) -> None:
        quick_play.show(session)  # a page reloaded, or a new login, while seeking

    @table.on_logout
    async def stop_seeking(session: Session, departure: Departure) -> tuple[Session, ...]:
        quick_play.gone(session.name)
        return ()

    return table
