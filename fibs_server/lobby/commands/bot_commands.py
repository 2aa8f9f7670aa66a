"""`bot [level] [length] [unrated]`: a match against a built-in bot, at once."""
from __future__ import annotations

from fibs_server.lobby.command_table import CommandTable
from fibs_server.lobby.commands.common import MatchLength, parse_length, too_long_for
from fibs_server.lobby.play.match_play import Matches
from fibs_server.lobby.play.match_table import MatchTable
from fibs_server.lobby.presence.attendance import Attendance
from fibs_server.lobby.presence.session import Session
from fibs_server.lobby.services.bot_players import BotPlayers
from fibs_server.protocol import texts
from fibs_server.protocol.commands import Command
from fibs_server.protocol.wording import game_texts

DEFAULT_LEVEL = "intermediate"
DEFAULT_LENGTH = 1


def command_table(bots: BotPlayers, attendance: Attendance, match_table: MatchTable,
                  matches: Matches) -> CommandTable:
    table = CommandTable()

    @table.command("bot")
    async def bot(session: Session, command: Command) -> None:
        level, unrated = DEFAULT_LEVEL, False
        length: MatchLength = DEFAULT_LENGTH
        for word in command.args:
            if word.lower() == "unrated":
                unrated = True
            elif (asked_length := parse_length(word)) is not None:
                length = asked_length
            elif (asked_level := bots.roster.level_named(word)) is not None:
                level = asked_level
            else:
                session.out.line(texts.bot_usage(list(bots.roster.residents)))
                return
        if match_table.busy(session):
            session.out.line(game_texts.TWO_GAMES_AT_ONCE)
            return
        visitor = attendance.users.is_visitor(session)
        points = None if length == "unlimited" else length
        # The experience rule of `invite` and tables, for the same reason: a rated long
        # match only for players on the rating list.
        if not (visitor or unrated) and too_long_for(session, points):
            session.out.line(game_texts.YOU_ARE_NOT_EXPERIENCED_ENOUGH)
            return
        resident = bots.roster.residents.get(level)
        if resident is None:  # online on another node (docs/NODES.md, "Leases")
            session.out.line(texts.BOTS_ELSEWHERE)
            return
        opponent = bots.roster.player_for(resident)
        with bots.match_slot(session) as refusal, \
                match_table.starting([session.name]) as claimed:
            if refusal is not None:
                session.out.line(refusal)
            elif not claimed:
                session.out.line(game_texts.TWO_GAMES_AT_ONCE)
            else:
                await matches.start_match(
                    session, opponent, points,
                    unrated="visitor" if visitor else "asked" if unrated else None)

    return table
