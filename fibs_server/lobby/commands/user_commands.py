"""Lobby commands about users and their own settings: who, whois, toggle, set, ratings, show,
time, motd, help, away/back, address, password, bye, wave."""
from __future__ import annotations

import datetime
import re
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any

from fibs_server.lobby.command_table import CommandTable
from fibs_server.lobby.commands.common import (
    aware_time,
    match_counts,
    send_motd,
    show_tables,
    undone_unless_stored,
)
from fibs_server.lobby.nodes.bus import notice
from fibs_server.lobby.nodes.directory import RemoteUser
from fibs_server.lobby.presence.session import Session
from fibs_server.protocol import clip, commands, info, settings, texts
from fibs_server.protocol import help as help_texts
from fibs_server.protocol.commands import Command, Forwarding
from fibs_server.protocol.texts import Departure
from fibs_server.protocol.wording import user_texts

if TYPE_CHECKING:  # types only: the owners are given to the factory
    from fibs_server.lobby.dispatcher import Dispatcher
    from fibs_server.lobby.limits.gatekeeper import Gatekeeper
    from fibs_server.lobby.play.match_play import Matches
    from fibs_server.lobby.play.match_table import MatchTable
    from fibs_server.lobby.ports.accounts import AccountStore
    from fibs_server.lobby.ports.match_records import MatchStore
    from fibs_server.lobby.presence.attendance import Attendance


RATED_MIN_EXPERIENCE = 51  # FIBS lists players with experience above 50
RATINGS_DEFAULT_ROWS = 20
RATINGS_MAX_ROWS = 100
EMAIL_PATTERN = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")


# Who `who` lists: this node's sessions and the other nodes' users (lobby/nodes/directory.py).
Listed = Session | RemoteUser


def _rating(person: Listed) -> float:
    if isinstance(person, RemoteUser):
        return person.info.rating
    assert person.account is not None
    return person.account.rating


def _login_time(person: Listed) -> int:
    return person.login_time if isinstance(person, RemoteUser) else person.who.login_time


def _sorted(people: list[Listed], order: str) -> list[Listed]:
    keys: dict[str, Callable[[Listed], Any]] = {
        "login": _login_time,
        "name": lambda p: p.name.lower(),
        "rating": lambda p: -_rating(p),
        "rrating": _rating,
    }
    return sorted(people, key=keys.get(order, keys["login"]))


def _rank_range(args: list[str]) -> tuple[str | None, int, int] | str:
    name, first, last = None, 1, RATINGS_DEFAULT_ROWS
    words = iter(args)
    for word in words:
        if word in ("from", "to"):
            number = next(words, "")
            if not number.isdigit() or int(number) < 1:
                return info.RATINGS_USAGE
            if word == "from":
                first = int(number)
                last = max(last, first + RATINGS_DEFAULT_ROWS - 1) if "to" not in args else last
            else:
                last = int(number)
        elif name is None:
            name = word
        else:
            return info.RATINGS_USAGE
    return name, first, min(last, first + RATINGS_MAX_ROWS - 1)


def command_table(attendance: Attendance, match_table: MatchTable, matches: Matches,
                  match_store: MatchStore, accounts: AccountStore, gatekeeper: Gatekeeper,
                  dispatcher: Dispatcher, bot_strengths: Mapping[str, tuple[float, float, str]],
                  motd: Callable[[], tuple[str, ...]], now: Callable[[], datetime.datetime],
                  log_out: Callable[[Session, Departure], Awaitable[None]]) -> CommandTable:
    """The users' commands, on who is online (`attendance`), the matches' owners, the
    accounts, the passwords (`gatekeeper`), the commands declared (`dispatcher`), the bots'
    measured strengths and the lobby's `motd`, `now` and `log_out`."""
    table = CommandTable()

    # --- who -----------------------------------------------------------------------------------

    def _who_selection(session: Session, args: list[str]) -> list[Listed] | str:
        """The users a `who`/`rawwho` argument selects, or a reply text."""
        here, elsewhere = attendance.users.sessions_online(), list(attendance.users.directory)
        if not args:
            return [*here, *elsewhere]
        key = args[0].lower()
        if key == "ready":
            return [*(s for s in here
                      if s.prefs.toggle("ready") and match_table.opponent_name_of(s) is None),
                    *(u for u in elsewhere if u.info.ready and u.info.opponent is None)]
        if key == "away":
            return [*(s for s in here if s.prefs.away_message is not None),
                    *(u for u in elsewhere if u.info.away)]
        if key == "playing":
            return [*(s for s in here if match_table.opponent_name_of(s) is not None),
                    *(u for u in elsewhere if u.info.opponent is not None)]
        if key == "from":
            if len(args) < 2:
                return info.WHO_FROM_WHERE
            part = args[1].lower()
            return [*(s for s in here if part in s.connection.host.lower()),
                    *(u for u in elsewhere if part in u.info.host.lower())]
        found: Listed | None = attendance.users.find_online(args[0]) or attendance.users.directory.get(args[0])
        return [found] if found else texts.no_one_called(args[0])

    @table.command("who", short_forms=("w",))
    @table.command("rawwho")
    async def who(session: Session, command: Command) -> None:
        if command.args[:1] == ["count"]:
            session.out.line(info.who_count(len(attendance.users.online) + len(attendance.users.directory)))
            return
        selected = _who_selection(session, command.args)
        if isinstance(selected, str):
            session.out.line(selected)
            return
        shown = _sorted(selected, session.prefs.setting("sortwho"))
        seen_at = attendance.users.directory.clock()
        if session.out.clip or command.name == "rawwho":
            session.out.lines(clip.who_block([p.who_line(seen_at) if isinstance(p, RemoteUser)
                                              else p.who.line() for p in shown]))
        else:
            session.out.lines(info.who_table([p.who_info(seen_at) if isinstance(p, RemoteUser)
                                              else p.who.info() for p in shown],
                                             session.prefs.setting("timezone")))

    @table.command("whois")
    async def whois(session: Session, command: Command) -> None:
        if not command.args:
            session.out.line(info.WHOIS_WHOM)
            return
        online, account = await attendance.users.user_named(command.args[0], complete=True)
        if account is None:
            session.out.line(info.no_information(command.args[0]))
            return
        running = match_table.match_of(online) if online else None
        saved, abandoned = await match_counts(match_store, attendance, match_table, account.name)
        elsewhere = attendance.users.directory.get(account.name) if online is None else None
        remote = elsewhere.who_info(attendance.users.directory.clock()) if elsewhere else None
        facts = info.WhoisFacts(
            name=account.name, rating=account.rating, experience=account.experience,
            email=account.email, last_login=aware_time(account.last_login_at),
            last_host=account.last_login_host, last_logout=aware_time(account.last_logout_at),
            online_idle_seconds=(online.who.idle_seconds() if online else
                                 remote.idle_seconds if remote else None),
            playing_with=(match_table.opponent_name_of(online) if online else
                          remote.opponent if remote else None),
            watching=(online.place.watching.name if online and online.place.watching else
                      remote.watching if remote else None),
            away_message=(online.prefs.away_message if online else
                          elsewhere.away_message if elsewhere else None),
            playing_terms=running.terms if running else None,
            saved_matches=saved, abandoned_matches=abandoned,
            bot_strength=bot_strengths.get(account.name.lower()))
        session.out.lines(info.whois(facts, session.prefs.setting("timezone"),
                                     session.out.sees_extensions))

    # --- toggle and set --------------------------------------------------------------------------

    @table.command("toggle", short_forms=("to",), forwarded=Forwarding.COPIED)
    async def toggle(session: Session, command: Command) -> None:
        account = session.account
        assert account is not None
        if not command.args:
            session.out.lines(settings.toggle_table(account.toggles))
            return
        replies, before = [], dict(account.toggles)
        for word in command.args:
            try:
                name = settings.resolve_toggle(word)
            except settings.ToggleError as error:
                replies.append(error.args[0])
                continue
            account.toggles[name] = not account.toggles[name]
            replies.append(settings.toggle_reply(name, account.toggles[name]))
        changed = account.toggles != before
        if changed:
            # Stored before anyone hears of it, so the replies and the who-info broadcast
            # leave together, in the order the commands came; not stored, not changed.
            await undone_unless_stored(account.toggles, before, accounts.update_account(
                account.name, toggles=dict(account.toggles)))
        session.out.lines(replies)
        if changed:
            attendance.broadcast_who(session)

    @table.command("set", forwarded=Forwarding.COPIED)
    async def set_variable(session: Session, command: Command) -> None:
        account = session.account
        assert account is not None
        if not command.args:
            session.out.lines(settings.settings_table(account.settings))
            return
        named = [n for n in settings.SETTING_ORDER if n.startswith(command.args[0].lower())]
        if len(named) != 1:
            session.out.line(settings.INVALID_SETTING)
            return
        name = named[0]
        if len(command.args) == 1:
            session.out.line(settings.setting_value_reply(name, account.settings[name]))
            return
        try:
            value = settings.normalise_setting(name, command.args[1])
        except settings.SettingError as error:
            session.out.line(error.args[0])
            return
        before = dict(account.settings)
        account.settings[name] = value
        await undone_unless_stored(account.settings, before, accounts.update_account(
            account.name, settings=dict(account.settings)))
        session.out.line(settings.setting_set_reply(name, value))

    # --- ratings and show ------------------------------------------------------------------------

    @table.command("ratings")
    async def ratings(session: Session, command: Command) -> None:
        parsed = _rank_range(command.args)
        if isinstance(parsed, str):
            session.out.line(parsed)
            return
        name, first, last = parsed
        rated = await accounts.rated_accounts(RATED_MIN_EXPERIENCE)
        if name is not None:
            account = await accounts.find_account(name)
            if account is None:
                session.out.line(info.no_information(name))
                return
            ranks = [i for i, a in enumerate(rated, 1) if a.name == account.name]
            if not ranks:
                session.out.line(info.no_rating_rank(account.name, account.experience,
                                                     RATED_MIN_EXPERIENCE - 1))
                return
            rows = [(ranks[0], account)]
        else:
            rows = [(i, a) for i, a in enumerate(rated, 1) if first <= i <= last]
        session.out.lines([info.RATINGS_HEADER, *(
            info.ratings_row(rank, a.name, a.rating, a.experience, a.name == session.name)
            for rank, a in rows)])

    # `sh` is ours: it stays `show` now that `shout` shares the prefix.
    @table.command("show", short_forms=("sh",))
    async def show(session: Session, command: Command) -> None:
        word = command.args[0] if command.args else ""
        subjects = commands.completions(word, info.SHOW_SUBJECTS) if word else []
        if len(subjects) > 1:
            session.out.line(commands.ambiguous(word, subjects))
            return
        what = subjects[0] if subjects else ""
        if what == "games":
            session.out.lines(info.games_list(match_table.running_games()))
        elif what == "saved":
            session.out.lines(info.saved_matches(await matches.saved.of(session)))
        elif what == "savedcount":
            name = command.args[1] if len(command.args) > 1 else session.name
            count = len([r for r in await match_store.running_matches(name)
                         if not matches.saved.is_live(r.player_a, r.player_b)])
            session.out.line(info.saved_count(name, count))
        elif what == "watchers":
            session.out.lines(info.watchers_list(
                [(s.name, s.place.watching.name) for s in attendance.users.sessions_online()
                 if s.place.watching]))
        elif what == "max":
            session.out.line(info.max_logins(attendance.users.most_online))
        elif what == "tables":
            show_tables(match_table, session)
        else:
            session.out.line(info.cannot_show(word))

    # --- small things ----------------------------------------------------------------------------

    @table.command("time", aliases=("date",))
    async def time_command(session: Session, command: Command) -> None:
        session.out.line(texts.date_line(now(), session.prefs.setting("timezone")))

    @table.command("motd")
    async def motd_command(session: Session, command: Command) -> None:
        send_motd(session, motd())

    @table.command("help", aliases=("man",))
    async def help_command(session: Session, command: Command) -> None:
        session.out.lines(help_texts.topic(command.args[0] if command.args else "",
                                           dispatcher.command_words))

    @table.command("away")
    async def away(session: Session, command: Command) -> None:
        if not command.rest:
            session.out.lines(user_texts.away_list([(s.name, s.prefs.away_message)
                                                    for s in attendance.users.sessions_online()
                                                    if s.prefs.away_message is not None]))
            return
        session.prefs.away_message = command.rest
        session.out.line(user_texts.YOU_ARE_AWAY)
        attendance.broadcast_who(session)

    @table.command("back")
    async def back(session: Session, command: Command) -> None:
        if session.prefs.away_message is None:
            session.out.line(user_texts.NOT_AWAY)
            return
        session.prefs.away_message = None
        session.out.line(user_texts.WELCOME_BACK)
        attendance.broadcast_who(session)

    @table.command("address")
    async def address(session: Session, command: Command) -> None:
        account = session.account
        assert account is not None
        if not command.args:
            session.out.line(user_texts.email_address(account.email) if account.email else
                             user_texts.NO_EMAIL_ADDRESS)
            return
        if len(command.args) != 1 or not EMAIL_PATTERN.match(command.args[0]):
            session.out.line(user_texts.not_an_email_address(command.rest))
            return
        account.email = command.args[0]
        await accounts.update_account(account.name, email=account.email)
        session.out.line(user_texts.email_address(account.email))
        attendance.broadcast_who(session)

    @table.command("password", visitors=False)
    async def password(session: Session, command: Command) -> None:
        account = session.account
        assert account is not None
        # FIBS's form is `password old:new:new`; spaces are accepted too.
        parts = command.rest.replace(":", " ").split()
        if len(parts) != 3:
            session.out.line(user_texts.PASSWORD_USAGE)
            return
        old, new, again = parts
        if not await gatekeeper.confirm_password(account, old, session.connection.host):
            session.out.line(user_texts.NOT_YOUR_PASSWORD)
            return
        if new != again:
            session.out.line(user_texts.NEW_PASSWORDS_DIFFER)
            return
        error = texts.password_error(new)
        if error is not None:
            session.out.line(user_texts.new_password_refused(error))
            return
        account.password_hash = await gatekeeper.hasher.hash(new)
        await accounts.update_account(account.name, password_hash=account.password_hash)
        session.out.line(user_texts.PASSWORD_CHANGED)

    @table.command("bye", aliases=("adios", "ciao", "end", "exit", "logout", "quit",
                                   "tschoe"))
    async def bye(session: Session, command: Command) -> None:
        session.out.lines(texts.GOODBYE)
        await log_out(session, Departure.LOGGED_OUT)
        session.close()

    @table.command("wave")
    async def wave(session: Session, command: Command) -> None:
        again = session.waved
        session.waved = True
        session.out.line(user_texts.wave_reply(again))
        attendance.messenger.tell_all(notice([user_texts.waves_goodbye(session.name, again)],
                                        excluded=[session.name], broadcast=True))
        if again:
            await log_out(session, Departure.LOGGED_OUT)
            session.close()

    return table
