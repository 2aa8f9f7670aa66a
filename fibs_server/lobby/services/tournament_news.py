"""A tournament as its views show it (`tournament_texts.Listed` and `Shown`: one source for
the FIBS texts and the page's messages), and the pages told of each change of it: sign-up,
the start, each result, the end (docs/WEB-PROTOCOL.md, "Tournaments").

A change is told as a `tournament` message to every page that follows the tournament
(`bus.follows_tournament`), wherever it is online: a letter to all nodes, the message made
once. Classic sessions get nothing from here: their lines are the commands' and the
director's."""
from __future__ import annotations

from fibs_server.lobby.lobby import Lobby
from fibs_server.lobby.nodes.bus import notice
from fibs_server.lobby.ports.tournament_records import TournamentRecord
from fibs_server.protocol.views import web_events
from fibs_server.protocol.wording import tournament_texts


def listed(record: TournamentRecord) -> tournament_texts.Listed:
    spec = record.spec
    return tournament_texts.Listed(record.tournament_id, spec.format, record.status.value,
                                   spec.creator, spec.terms, len(record.entrants),
                                   spec.entry_cap, record.winner, spec.swiss_rounds)


def shown(record: TournamentRecord, now: int) -> tournament_texts.Shown:
    spec = record.spec
    entrants = record.played.entrants if record.played is not None else record.entrants
    return tournament_texts.Shown(
        listed(record), None if spec.starts_at is None else spec.starts_at - now,
        spec.start_when, tuple(entrants), record.played, spec.bots_allowed)


def tell_pages(lobby: Lobby, record: TournamentRecord) -> None:
    """The tournament as it stands now, to the pages that follow it."""
    message = web_events.tournament(shown(record, int(lobby.config.wall_clock())))
    lobby.tell_all(notice([], message, audience="tournament_pages", broadcast=True))
