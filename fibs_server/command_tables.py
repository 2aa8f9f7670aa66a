"""Who gets what: each command module's table made from the owners the lobby makes (`Owners`),
given only those its module uses. `lobby_tables` are the lobby's own; `service_tables` those
of the services the app makes with the lobby, from the same owners (the bots, the analysis
queue, the tournaments): the app's `tables` given to the lobby makes both."""
from __future__ import annotations

from fibs_server.lobby.command_table import CommandTable
from fibs_server.lobby.commands import (
    admin_commands,
    analysis_commands,
    archive_commands,
    bot_commands,
    chat_commands,
    fair_commands,
    game_commands,
    server_commands,
    table_commands,
    tournament_commands,
    user_commands,
)
from fibs_server.lobby.lobby import Owners
from fibs_server.lobby.ports.analysis_records import AnalysisRecords
from fibs_server.lobby.ports.tournament_records import TournamentRecords
from fibs_server.lobby.services.analysis_queue import AnalysisQueue
from fibs_server.lobby.services.bot_players import BotPlayers


def user(owners: Owners) -> CommandTable:
    play, doings = owners.play, owners.doings
    return user_commands.command_table(
        owners.attendance, play.match_table, play.matches, owners.stores.match_store,
        owners.accounts, owners.gatekeeper, owners.dispatcher, owners.bot_strengths,
        doings.motd, doings.now, doings.log_out)


def game(owners: Owners) -> CommandTable:
    play, doings = owners.play, owners.doings
    return game_commands.command_table(
        owners.attendance, owners.chat_state, play.match_table, play.matches,
        owners.stores.match_store, play.seats, play.tutor, doings.tell_whose_page_is_away,
        doings.resume_waiting)


def archive(owners: Owners) -> CommandTable:
    stores = owners.stores
    return archive_commands.command_table(owners.attendance, owners.play.match_table,
                                          stores.match_store, stores.analyses)


def chat(owners: Owners) -> CommandTable:
    config = owners.config
    return chat_commands.command_table(owners.attendance, owners.chat_state,
                                       owners.play.match_table, owners.stores.chat_records,
                                       config.abuse_limits, config.shout_limit,
                                       config.shout_window, config.shout_clock)


def admin(owners: Owners) -> CommandTable:
    doings = owners.doings
    return admin_commands.command_table(owners.attendance, owners.chat_state,
                                        owners.stores.chat_records, owners.countdown,
                                        doings.motd, doings.set_motd)


def server(owners: Owners) -> CommandTable:
    return server_commands.command_table(owners.attendance, owners.play.match_table,
                                         owners.dispatcher, owners.started_at)


def tables(owners: Owners) -> CommandTable:
    play = owners.play
    return table_commands.command_table(owners.attendance, play.match_table, play.matches,
                                        owners.stores.match_store, play.code_guesses,
                                        play.quick_play)


def fair(owners: Owners) -> CommandTable:
    play = owners.play
    return fair_commands.command_table(play.match_table, play.matches, owners.stores.match_store)


def lobby_tables(owners: Owners) -> list[CommandTable]:
    """The lobby's own tables: every command but the services'."""
    return [user(owners), game(owners), archive(owners), chat(owners), admin(owners),
            server(owners), tables(owners), fair(owners)]


def bots(owners: Owners, players: BotPlayers) -> CommandTable:
    play = owners.play
    return bot_commands.command_table(players, owners.attendance, play.match_table, play.matches)


def analysis(owners: Owners, records: AnalysisRecords, queue: AnalysisQueue | None
             ) -> CommandTable:
    return analysis_commands.command_table(records, queue, owners.stores.match_store,
                                           owners.accounts, owners.doings.now)


def tournaments(owners: Owners, records: TournamentRecords, players: BotPlayers | None
                ) -> CommandTable:
    return tournament_commands.command_table(records, players, owners)


def service_tables(owners: Owners, analyses: AnalysisRecords, queue: AnalysisQueue | None,
                   records: TournamentRecords, players: BotPlayers | None
                   ) -> list[CommandTable]:
    """The tables of the services made with the lobby: the analyses', the bots' (where the
    server has bots) and the tournaments'."""
    return [analysis(owners, analyses, queue),
            *([] if players is None else [bots(owners, players)]),
            tournaments(owners, records, players)]
