"""Looking back: `oldboard` (the board before the last move), `oldmoves` (the move list of the
previous game), `history [name]` (a player's finished matches), and a stored match as `.mat`
text for `fibs-server export-match`."""
from __future__ import annotations

import dataclasses
import datetime
from typing import TYPE_CHECKING

from fibs_server.lobby.command_table import CommandTable
from fibs_server.lobby.commands.common import match_counts
from fibs_server.lobby.ports.match_records import MatchRecord
from fibs_server.lobby.presence.session import Session
from fibs_server.protocol import info
from fibs_server.protocol.commands import Command, Forwarding
from fibs_server.protocol.match_rules import MatchTerms
from fibs_server.protocol.views import match_views
from fibs_server.protocol.views.board import render_board
from fibs_server.protocol.views.matfile import mat_games, write_mat
from fibs_server.protocol.wording import game_texts
from fibs_server.rules import events as ev
from fibs_server.rules.board.position import Position
from fibs_server.rules.clocks.time_bank import BankTerms
from fibs_server.rules.dice import ScriptedDice
from fibs_server.rules.match import Match
from fibs_server.rules.replay import played_rolls

if TYPE_CHECKING:  # types only: the owners are given to the factory
    from fibs_server.lobby.play.match_table import MatchTable
    from fibs_server.lobby.ports.analysis_records import AnalysisRecords
    from fibs_server.lobby.ports.match_records import MatchStore
    from fibs_server.lobby.presence.attendance import Attendance

HISTORY_ROWS = 20


def _start_position(match: Match) -> Position:
    return Position.initial(match.variant)


def _stored_match(record: MatchRecord) -> Match:
    # A stored match is only read here: it never rolls, so it needs no real dice.
    return Match.from_dict(record.state, ScriptedDice([]))


def match_file(record: MatchRecord) -> str:
    """A stored match (finished or not) as `.mat` text."""
    match = _stored_match(record)
    return write_mat((record.player_a, record.player_b), record.length, mat_games(match),
                     match.variant)


def _game_over(game: list[ev.Event]) -> bool:
    return any(isinstance(event, ev.GameOver) for event in game)


def _finished_match(record: MatchRecord, name: str, analysed: bool) -> info.FinishedMatch:
    """A finished match as the player `name` played it."""
    mine = 0 if record.player_a == name else 1
    score = record.state["score"]
    rating = record.state.get("ratings", {}).get(name)  # [before, after] if rated
    return info.FinishedMatch(
        match_id=record.match_id,
        finished=datetime.datetime.fromtimestamp(record.finished_at or 0, datetime.timezone.utc),
        opponent=(record.player_a, record.player_b)[1 - mine], length=record.length,
        score=score[mine], opponent_score=score[1 - mine],
        won=None if record.winner is None else record.winner == name,
        rating=None if rating is None else (rating[0], rating[1]),
        terms=MatchTerms(_stored_match(record).rules, record.state.get("turn_seconds"),
                         record.state.get("takeover_seconds"),
                         bank=None if (bank := record.state.get("bank")) is None
                         else BankTerms.from_fields(bank)),
        analysed=analysed)


def command_table(attendance: Attendance, match_table: MatchTable, match_store: MatchStore,
                  analyses: AnalysisRecords | None) -> CommandTable:
    """The archive's commands, on the running matches (`match_table`), the stored ones
    (`match_store`) and their `analyses` (None: none stored), and who is online."""
    table = CommandTable()

    # --- .mat export ------------------------------------------------------------------------------

    # --- oldboard, oldmoves -----------------------------------------------------------------------

    @table.command("oldboard", forwarded=Forwarding.HOST)
    async def oldboard(session: Session, command: Command) -> None:
        """The board as it was before the last move of the game being played (or just ended)."""
        running = match_table.match_of(session)
        if running is None:
            session.out.line(game_texts.NOT_PLAYING)
            return
        match = running.match
        rolls = list(played_rolls(match.game_events(-1), _start_position(match)))
        if not rolls:
            session.out.line(info.NO_PREVIOUS_BOARD)
            return
        last = rolls[-1]
        viewer = running.index_of(session)
        mover = last.moved.player
        before = last.before if viewer == mover else last.before.swap()
        now = match_views.board_view(match, running.names, match.moment(), viewer, as_you=True)
        view = dataclasses.replace(
            now, player_checkers=before.checkers[0], opponent_checkers=before.checkers[1],
            turn="player" if viewer == mover else "opponent",
            player_dice=last.dice if viewer == mover else (0, 0),
            opponent_dice=(0, 0) if viewer == mover else last.dice,
            cube=last.cube, was_doubled=False,
            player_may_double=last.cube_owner in (None, viewer),  # as `may_double_field`
            opponent_may_double=last.cube_owner in (None, 1 - viewer),
            pieces_to_move=len(last.moved.steps) if viewer == mover else 0)
        session.out.lines(render_board(view, int(session.prefs.setting("boardstyle"))))

    @table.command("oldmoves", forwarded=Forwarding.HOST)
    async def oldmoves(session: Session, command: Command) -> None:
        """The move list of the last finished game: of the running match, else of the player's
        most recently finished match."""
        running = match_table.match_of(session)
        if running is not None and running.match.game_count:
            match = running.match
            finished = match.game_count - (0 if _game_over(match.game_events(-1)) else 1)
            if finished > 0:
                session.out.lines(match_views.move_list(match, running.names, finished - 1))
                return
        records = await match_store.finished_matches(session.name, 1)
        if not records:
            session.out.line(info.NO_PREVIOUS_GAME)
            return
        record = records[0]
        archived = _stored_match(record)
        session.out.lines(match_views.move_list(archived, (record.player_a, record.player_b),
                                                archived.game_count - 1))

    # --- history ----------------------------------------------------------------------------------

    @table.command("history")
    async def history(session: Session, command: Command) -> None:
        """A player's most recent finished matches, newest first."""
        name = session.name
        if command.args:
            _, account = await attendance.users.user_named(command.args[0], complete=True)
            if account is None:
                session.out.line(info.no_information(command.args[0]))
                return
            name = account.name
        records = await match_store.finished_matches(name, HISTORY_ROWS)
        saved, abandoned = await match_counts(match_store, attendance, match_table, name)
        analysed = (set() if analyses is None else
                    await analyses.analysed_among([record.match_id for record in records]))
        session.out.lines(info.history(
            name, [_finished_match(record, name, record.match_id in analysed) for record in records],
            saved, abandoned))

    return table
