"""`tournament create|join|leave|withdraw|reinstate|list|show|cancel|notify` (docs/TOURNAMENTS.md, "Commands").

The store is the truth (lobby/ports/tournament_records.py): each command reads or writes it, on
any node; the director (lobby/services/tournaments.py) acts on what it finds there. The limits are
AbuseLimits' (docs/SECURITY.md, "Tournaments")."""
from __future__ import annotations

from collections.abc import Collection

from fibs_server.lobby.command_table import CommandTable
from fibs_server.lobby.commands.common import LARGEST_ID, store_setting
from fibs_server.lobby.nodes.bus import TOURNAMENT_NOTICE_SETTING, notice
from fibs_server.lobby.ports.tournament_records import (
    JoinRefused,
    Status,
    TournamentRecord,
    TournamentRecords,
    TournamentSpec,
)
from fibs_server.lobby.presence.session import Session
from fibs_server.lobby.services.bot_players import BotPlayers
from fibs_server.lobby.services.tournament_news import (
    Hall,
    SignUpNews,
    listed,
    next_of_series,
    shown,
    tell_next_of_series,
    tell_pages,
)
from fibs_server.protocol import texts
from fibs_server.protocol.commands import Command, HeavyRead
from fibs_server.protocol.tournament_options import OptionError, parse_create, start_time
from fibs_server.protocol.views import web_events
from fibs_server.protocol.wording import tournament_texts
from fibs_server.rules.tournament import Entrant

LISTED = 20  # tournaments `tournament list` shows: the open ones first, then the latest
READERS = ("list", "show")
# Each reads a running tournament whole before its write: paced with the reads.
PACED = (*READERS, "withdraw", "reinstate")


def reads(command: Command) -> bool:
    """Whether a `tournament` command reads the store (it is paced as a heavy read)."""
    return bool(command.args) and command.args[0].lower() in PACED


def _entrant_named(record: TournamentRecord, typed: str) -> str | None:
    """The entrant of a running tournament whose name is `typed` (any case), as entered."""
    if record.played is None:
        return None
    return next((entrant.name for entrant in record.played.entrants
                 if entrant.name.lower() == typed.lower()), None)


def command_table(records: TournamentRecords, bots: BotPlayers | None, hall: Hall) -> CommandTable:
    """`bots` None: the server has no built-in bots, so none may enter; `hall`: who is
    online, the accounts and the configuration."""
    table = CommandTable()
    news = SignUpNews(records)

    @table.on_shutdown
    async def stop_news() -> Collection[Session]:
        news.stop()
        return ()

    @table.on_login
    async def tell_the_returning(session: Session) -> None:
        """An entrant of a running tournament hears where they stand as they log in: a
        result decided while they were away (a forfeit, a match lost by the grace period)
        was told to those online then."""
        if hall.attendance.users.is_visitor(session) or not session.kept.tournaments:
            return
        for tournament_id in await records.running_entered(session.name):
            record = await records.tournament(tournament_id)
            played = record.played if record is not None else None
            name = next((entrant.name for entrant in played.entrants
                         if entrant.name.lower() == session.name.lower()), None) \
                if played is not None else None
            if played is not None and name is not None:
                session.out.lines(tournament_texts.on_your_return(tournament_id, played, name))

    # `list` and `show` read the store, up to some hundred rows: heavy reads.
    @table.command("tournament", pacing=HeavyRead(tournament_texts.read_too_often, reads))
    async def tournament(session: Session, command: Command) -> None:
        args = command.args
        verb = args[0].lower() if args else ""
        if verb in READERS:
            if verb == "list":
                entries = [listed(record) for record in await records.recent_tournaments(LISTED)]
                session.out.lines(tournament_texts.list_lines(entries))
                session.out.event(web_events.tournaments(entries))
            else:
                await _show(session, args[1:])
            return
        if verb not in WRITERS:
            session.out.line(tournament_texts.USAGE)
            return
        if hall.attendance.users.is_visitor(session):
            session.out.line(texts.NOT_FOR_VISITORS)
            return
        await WRITERS[verb](session, args[1:])

    async def _show(session: Session, args: list[str]) -> None:
        record = await _named(session, args)
        if record is None:
            return
        view = shown(record, int(hall.config.wall_clock()))
        session.out.lines(tournament_texts.show_lines(view))
        session.out.event(web_events.tournament(view))
        session.place.followed_tournament = record.tournament_id

    async def _named(session: Session, args: list[str]) -> TournamentRecord | None:
        """The tournament the first word names, or None (the refusal sent)."""
        typed = args[0] if args else ""
        found = (await records.tournament(int(typed))
                 if typed.isascii() and typed.isdigit() and int(typed) <= LARGEST_ID else None)
        if found is None:
            session.out.line(tournament_texts.no_such(typed) if typed
                             else tournament_texts.USAGE)
        return found

    async def changed(session: Session, tournament_id: int) -> None:
        """The pages told of the tournament as `session` changed it; theirs follows it."""
        session.place.followed_tournament = tournament_id
        record = await records.tournament(tournament_id)
        if record is not None:
            tell_pages(hall, record)

    async def told_and_changed(session: Session, record: TournamentRecord,
                               line: str) -> None:
        """`line` to the tournament's entrants, its creator and the user who typed the
        command; then the pages."""
        named = [*(entrant.name for entrant in record.entrants), record.spec.creator,
                 session.name]
        # Once each: the one who typed it may be an entrant, or the creator, too.
        hall.attendance.messenger.tell(list({name.lower(): name for name in named}.values()),
                                        notice([line]))
        await changed(session, record.tournament_id)

    async def create(session: Session, args: list[str]) -> None:
        account = session.account
        assert account is not None
        limits = hall.config.abuse_limits
        if not account.is_admin and account.experience < limits.tournament_creator_experience:
            session.out.line(tournament_texts.NOT_ALLOWED_TO_CREATE)
            return
        now = int(hall.config.wall_clock())
        try:
            order = parse_create(args)
            starts_at = start_time(order, now)
        except OptionError as error:
            session.out.line(error.reply)
            return
        if order.repeat_seconds is not None and not account.is_admin:
            session.out.line(tournament_texts.ONLY_ADMINS_REPEAT)
            return
        if order.entry_cap > limits.max_tournament_entrants:
            session.out.line(tournament_texts.cap_too_large(limits.max_tournament_entrants))
            return
        if order.bots_allowed and bots is None:
            session.out.line(tournament_texts.NO_BOTS_ON_THIS_SERVER)
            return
        open_now = await records.open_tournaments()
        if len(open_now) >= limits.max_open_tournaments:
            session.out.line(tournament_texts.server_full(limits.max_open_tournaments))
            return
        mine = sum(entry.creator.lower() == session.name.lower() for entry in open_now)
        if mine >= limits.open_tournaments_per_creator and not account.is_admin:
            session.out.line(tournament_texts.too_many_open(limits.open_tournaments_per_creator))
            return
        start_when = order.start_when
        if starts_at is None and start_when is None:
            start_when = order.entry_cap
        spec = TournamentSpec(
            creator=session.name, format=order.format, terms=order.terms,
            swiss_rounds=order.swiss_rounds, entry_cap=order.entry_cap, starts_at=starts_at,
            start_when=start_when, bots_allowed=order.bots_allowed,
            repeat_seconds=order.repeat_seconds, flights=order.flights,
            arena_minutes=order.arena_minutes)
        record = await records.create_tournament(spec)
        session.out.line(tournament_texts.created(record.tournament_id))
        await changed(session, record.tournament_id)
        hall.attendance.messenger.tell_all(notice([tournament_texts.opened(
            record.tournament_id, session.name, order.format.value, order.terms.length,
            order.entry_cap)], audience="tournaments", excluded=[session.name]))

    async def join(session: Session, args: list[str]) -> None:
        record = await _named(session, args)
        if record is None:
            return
        name = session.name
        if len(args) > 1:  # the creator enters a built-in bot
            name_typed = args[1]
            level = bots.roster.level_named(name_typed) if bots is not None else None
            if not (record.spec.bots_allowed and session.name.lower()
                    == record.spec.creator.lower()):
                session.out.line(tournament_texts.no_bots(record.tournament_id))
                return
            if bots is None or level is None:
                session.out.line(tournament_texts.no_such_bot(name_typed))
                return
            name = bots.config.names[level]
        account = await hall.accounts.find_account(name)
        if account is None:
            session.out.line(tournament_texts.no_such_bot(name))
            return
        refused = await records.add_entrant(record.tournament_id,
                                            Entrant(account.name, account.rating))
        tid = record.tournament_id
        if refused is not None:
            session.out.line({
                JoinRefused.NOT_OPEN: tournament_texts.not_in_signup(tid),
                JoinRefused.FULL: tournament_texts.full(tid),
                JoinRefused.ALREADY: tournament_texts.entered_already(tid, account.name),
            }[refused])
            return
        session.place.followed_tournament = tid
        await news.signed_up(hall, record, account.name, True, session.name)

    async def leave(session: Session, args: list[str]) -> None:
        record = await _named(session, args)
        if record is None:
            return
        tid = record.tournament_id
        if not await records.remove_entrant(tid, session.name):
            session.out.line(tournament_texts.not_entered(tid))
            return
        session.place.followed_tournament = tid
        await news.signed_up(hall, record, session.name, False, session.name)

    async def withdraw(session: Session, args: list[str]) -> None:
        """In sign-up, as `leave`; running, out of the later rounds (an undecided pairing of
        theirs goes to the opponent at the director's next pass)."""
        record = await _named(session, args)
        if record is None:
            return
        if record.status is Status.SIGNUP:
            await leave(session, args)
            return
        tid = record.tournament_id
        name = _entrant_named(record, session.name)
        if name is None or await records.set_withdrawn(tid, name, True) is None:
            session.out.line(tournament_texts.not_playing(tid))
            return
        await told_and_changed(session, record, tournament_texts.withdraws(tid, name))

    async def reinstate(session: Session, args: list[str]) -> None:
        """An administrator puts a withdrawn player back into the later rounds."""
        record = await _named(session, args)
        if record is None:
            return
        account = session.account
        assert account is not None
        tid = record.tournament_id
        if not account.is_admin:
            session.out.line(tournament_texts.only_admins_reinstate(tid))
            return
        typed = args[1] if len(args) > 1 else ""
        name = _entrant_named(record, typed)
        if name is None or await records.set_withdrawn(tid, name, False) is None:
            session.out.line(tournament_texts.not_withdrawn(tid, typed or "?"))
            return
        await told_and_changed(session, record,
                               tournament_texts.reinstated(tid, name, session.name))

    async def cancel(session: Session, args: list[str]) -> None:
        record = await _named(session, args)
        if record is None:
            return
        account = session.account
        assert account is not None
        tid = record.tournament_id
        if record.spec.creator.lower() != session.name.lower() and not account.is_admin:
            session.out.line(tournament_texts.not_yours(tid))
            return
        # `cancel <id> series`: a recurring tournament in sign-up makes no next one (its
        # series ends); one running made its next at its start.
        series_ends = [word.lower() for word in args[1:2]] == ["series"]
        in_signup = record.status is Status.SIGNUP
        successor = (next_of_series(record, int(hall.config.wall_clock()))
                     if in_signup and not series_ends else None)
        if not await records.end_tournament(tid, Status.CANCELLED, None, successor):
            session.out.line(tournament_texts.not_open(tid))
            return
        await told_and_changed(session, record, tournament_texts.cancelled(
            tid, session.name, series_ends and in_signup and record.spec.repeat_seconds is not None))
        if successor is not None:
            await tell_next_of_series(hall, records, record)

    async def notify(session: Session, args: list[str]) -> None:
        value = args[0].lower() if len(args) == 1 else ""
        if value not in ("on", "off"):
            session.out.line(tournament_texts.USAGE)
            return
        await store_setting(hall.accounts, session, TOURNAMENT_NOTICE_SETTING, value)
        session.out.line(tournament_texts.NOTIFY_ON if value == "on"
                         else tournament_texts.NOTIFY_OFF)

    WRITERS = {"create": create, "join": join, "leave": leave, "withdraw": withdraw,
               "reinstate": reinstate, "cancel": cancel, "notify": notify}
    return table

