"""Talking and presence: tell/tellx, say, shout, kibitz, whisper, message, waitfor, gag, blind;
at login the stored messages, the waiters' notices and the user's gags and blinds.

Chat text goes out verbatim (`command.rest`); the net layer has already reduced input lines to
printable 7-bit ASCII, so no control character can reach another user.
"""
from __future__ import annotations

import asyncio
import math
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Literal

from fibs_server.lobby.command_table import CommandTable
from fibs_server.lobby.nodes.bus import Said, notice
from fibs_server.lobby.nodes.directory import RemoteUser
from fibs_server.lobby.ports.chat_records import Arrival, IgnoreKind
from fibs_server.lobby.presence.session import Session
from fibs_server.protocol import chat, texts
from fibs_server.protocol.commands import Command, Forwarding
from fibs_server.protocol.views import web_events
from fibs_server.protocol.wording import game_texts

if TYPE_CHECKING:  # types only: the owners are given to the factory
    from fibs_server.lobby.limits.throttle import AbuseLimits
    from fibs_server.lobby.play.match_table import MatchTable
    from fibs_server.lobby.ports.chat_records import ChatRecords
    from fibs_server.lobby.presence.attendance import Attendance
    from fibs_server.lobby.presence.chat_state import ChatState


def _after_name(command: Command) -> str:
    """The text after the first word of `command.rest`, less the one blank that separates
    them: the rest is the user's words, verbatim."""
    after = command.rest[len(command.args[0]):]
    return after[1:] if after.startswith(" ") else after


def command_table(attendance: Attendance, chat_state: ChatState, match_table: MatchTable,
                  chat_records: ChatRecords, limits: AbuseLimits, shout_limit: int,
                  shout_window: float, shout_clock: Callable[[], float]) -> CommandTable:
    """The chat commands, on who is online (`attendance`) and what each of them gags, blinds,
    waits for and shouted (`chat_state`), the matches (`match_table`) and the stored
    messages and gags (`chat_records`); messages kept within `limits`, shouts `shout_limit`
    in `shout_window` seconds of `shout_clock`."""
    table = CommandTable()
    message_lock = asyncio.Lock()  # messages' limits: count and store as one step

    def _says_to(speaker: Session, listener: Session, text: str,
                 kind: Literal["tell", "say"], *,
                 gags_apply: bool = True) -> None:
        """`speaker` says `text` to `listener` (`kind` tell, or say to the opponent)."""
        if gags_apply and listener.name.lower() in chat_state.gags(speaker.name):
            speaker.out.line(chat.YOU_GAG_THEM)
            return
        if gags_apply and speaker.name.lower() in chat_state.gags(listener.name):
            speaker.out.line(chat.wont_listen(listener.name))
            return
        attendance.messenger.tell([listener.name], Said(kind, speaker.name, text, listener.name))
        speaker.out.line(chat.you_tell(speaker.out.clip, listener.name, text))
        speaker.out.event(web_events.chat(kind, speaker.name, text, listener.name))
        if listener.prefs.away_message is not None:
            speaker.out.line(chat.is_away(listener.name, listener.prefs.away_message))

    def _says_elsewhere(speaker: Session, listener: RemoteUser, text: str) -> None:
        """A tell to a user of another node: their gags are checked there (a gagged tell goes
        nowhere, with no reply), the speaker's here."""
        if listener.name.lower() in chat_state.gags(speaker.name):
            speaker.out.line(chat.YOU_GAG_THEM)
            return
        attendance.messenger.tell([listener.name], Said("tell", speaker.name, text, listener.name))
        speaker.out.line(chat.you_tell(speaker.out.clip, listener.name, text))
        speaker.out.event(web_events.chat("tell", speaker.name, text, listener.name))
        if listener.away_message is not None:
            speaker.out.line(chat.is_away(listener.name, listener.away_message))

    # --- tell, say, shout ------------------------------------------------------------------------

    @table.command("tell", short_forms=("t",), repeatable=False)
    @table.command("tellx", repeatable=False)
    async def tell(session: Session, command: Command) -> None:
        if not command.args:
            session.out.line(chat.TELL_WHOM)
            return
        name, text = command.args[0], _after_name(command)
        if not text.strip():
            session.out.line(chat.tell_what(name))
            return
        # `tellx` takes the name as it is: no completion of a prefix.
        listener = attendance.users.find_online(name) if command.name == "tell" else attendance.users.online.get(name.lower())
        elsewhere = attendance.users.directory.get(name) if listener is None else None
        if elsewhere is not None:
            _says_elsewhere(session, elsewhere, text)
        elif listener is None:
            session.out.line(texts.no_one_called(name))
        elif listener is session:
            session.out.line(chat.to_yourself(text))
        else:
            _says_to(session, listener, text, "tell")

    @table.command("say", short_forms=("s",), forwarded=Forwarding.HOST, repeatable=False)
    async def say(session: Session, command: Command) -> None:
        running = match_table.match_of(session)
        opponent = running.opponent_of(session) if running else None
        if opponent is None:
            session.out.line(game_texts.NOT_PLAYING)
        elif not command.rest:
            session.out.line(chat.SAY_WHAT)
        else:
            # FIBS: you can't gag what your opponent says to you.
            _says_to(session, opponent, command.rest, "say", gags_apply=False)

    def _seconds_until_shout(session: Session) -> float:
        """0 and the shout counted if the user may shout now, else how long they must wait."""
        now = shout_clock()
        recent = chat_state.of(session.name).shout_times
        while recent and now - recent[0] >= shout_window:
            recent.popleft()
        if len(recent) >= shout_limit:
            return shout_window - (now - recent[0])
        recent.append(now)
        return 0.0

    @table.command("shout", repeatable=False)
    async def shout(session: Session, command: Command) -> None:
        if not command.rest:
            session.out.line(chat.SHOUT_WHAT)
            return
        if session.prefs.toggle("silent"):
            session.out.line(chat.SILENT_SHOUT)
            return
        wait = _seconds_until_shout(session)
        if wait > 0:
            session.out.line(chat.shouting_too_often(max(1, math.ceil(wait))))
            return
        shouted = Said("shout", session.name, command.rest)
        # The other nodes' users counted as hearing it: their toggles and gags are theirs.
        heard = sum(1 for listener in attendance.users.sessions_online() if shouted.reaches(listener, chat_state.gagging)) \
            + len(attendance.users.directory)
        # A muted user is not told: their shouts look sent and reach nobody.
        if not chat_state.muted(session.name):
            attendance.messenger.tell_all(shouted)
        session.out.lines([chat.you_shout(session.out.clip, command.rest), chat.heard(heard)])
        session.out.event(web_events.chat("shout", session.name, command.rest))

    # --- kibitz and whisper ----------------------------------------------------------------------

    def _table_of(session: Session) -> tuple[list[Session], list[Session]] | None:
        """The players and the watchers of the game `session` plays or watches (a watched user
        who is not playing stands for the players), or None."""
        running = match_table.match_of(session)
        if running is None and session.place.watching is not None:
            running = match_table.match_of(session.place.watching)
            players = running.players() if running else [session.place.watching]
        elif running is not None:
            players = running.players()
        else:
            return None
        return players, [w for p in players for w in match_table.watchers.of(p)]

    async def _talk_at_table(session: Session, command: Command, *,
                             to_players: bool) -> None:
        seated = _table_of(session)
        if seated is None:
            session.out.line(chat.NOT_WATCHING_OR_PLAYING)
            return
        if not command.rest:
            session.out.line(chat.KIBITZ_WHAT if to_players else chat.WHISPER_WHAT)
            return
        players, watchers = seated
        # FIBS: what the players of a game say can't be gagged by those who watch it.
        gags_apply = session not in players
        listeners = [s.name for s in (players + watchers if to_players else watchers)
                     if s is not session
                     and not (gags_apply and session.name.lower() in chat_state.gags(s.name))]
        kind: Literal["kibitz", "whisper"] = "kibitz" if to_players else "whisper"
        attendance.messenger.tell(listeners, Said(kind, session.name, command.rest))
        echo = chat.you_kibitz if to_players else chat.you_whisper
        session.out.lines([echo(session.out.clip, command.rest), chat.heard(len(listeners))])
        session.out.event(web_events.chat(kind, session.name, command.rest))

    @table.command("kibitz", short_forms=("k",), forwarded=Forwarding.HOST, repeatable=False)
    async def kibitz(session: Session, command: Command) -> None:
        await _talk_at_table(session, command, to_players=True)

    @table.command("whisper", short_forms=("wh",), forwarded=Forwarding.HOST, repeatable=False)
    async def whisper(session: Session, command: Command) -> None:
        await _talk_at_table(session, command, to_players=False)

    # --- message and waitfor ---------------------------------------------------------------------

    @table.command("message", visitors=False, repeatable=False)
    async def message(session: Session, command: Command) -> None:
        text = _after_name(command) if command.args else ""
        if not text.strip():
            session.out.line(chat.MESSAGE_USAGE)
            return
        most = limits.max_message_length
        if len(text) > most:
            session.out.line(chat.message_too_long(most))
            return
        # No name completion for `message` (FIBS): the recipient may be anyone registered.
        online, account = await attendance.users.user_named(command.args[0])
        if account is None:
            session.out.line(chat.dont_know_user(command.args[0]))
            return
        if account.name.lower() in chat_state.gags(session.name):
            session.out.line(chat.YOU_GAG_THEM)
            return
        gagging = (chat_state.gags(online.name) if online else
                   {n.lower() for n in await chat_records.ignored_names(account.name, "gag")})
        if session.name.lower() in gagging:
            session.out.line(chat.wont_listen(account.name))
            return
        if online is None and attendance.users.directory.get(account.name) is not None:
            online_elsewhere = True  # on another node: told there (their gags checked there)
        else:
            online_elsewhere = online is not None
        if online_elsewhere:
            attendance.messenger.tell([account.name], Said("message", session.name, text, sent_at=int(time.time())))
            session.out.line(chat.message_delivered(session.out.clip, account.name))
        else:
            await _keep_message(session, account.name, text)

    async def _keep_message(session: Session, recipient: str, text: str) -> None:
        """Store a message for an offline user within the limits: each kept message is memory at
        the recipient's login and a row until then."""
        async with message_lock:
            waiting, from_sender = await chat_records.waiting_messages(recipient, session.name)
            if from_sender >= limits.messages_per_sender:
                session.out.line(chat.too_many_messages_from_you(from_sender, recipient))
            elif waiting >= limits.messages_per_recipient:
                session.out.line(chat.too_many_messages_waiting(recipient, waiting))
            else:
                await chat_records.save_message(recipient, session.name, text)
                session.out.line(chat.message_saved(session.out.clip, recipient))

    @table.command("waitfor")
    async def waitfor(session: Session, command: Command) -> None:
        waiting_for = chat_state.of(session.name).waiting_for
        if not command.args:
            session.out.line(chat.waiting_list(sorted(waiting_for, key=str.lower))
                             if waiting_for else chat.NOT_WAITING)
            return
        for name in command.args:
            online, account = await attendance.users.user_named(name)
            if account is None:
                session.out.line(chat.dont_know_user(name))
            elif online is not None or attendance.users.directory.get(account.name) is not None:
                session.out.line(chat.already_logged_in(account.name))
            else:
                chat_state.wait_for(session.name, account.name)
                session.out.line(chat.will_notify(account.name))

    # --- gag and blind ---------------------------------------------------------------------------

    async def _ignore(session: Session, command: Command, kind: IgnoreKind) -> None:
        if not command.args:
            ignored = await chat_records.ignored_names(session.name, kind)
            session.out.line(chat.ignore_list(kind, ignored))
            return
        online, account = await attendance.users.user_named(command.args[0], complete=True)
        if account is None:
            session.out.line(texts.no_one_called(command.args[0]))
            return
        if account.name.lower() == session.name.lower():
            session.out.line(chat.GAG_YOURSELF if kind == "gag" else chat.BLIND_YOURSELF)
            return
        chatter = chat_state.of(session.name)
        names = chatter.gagged if kind == "gag" else chatter.blinded
        on = account.name.lower() not in names
        await chat_records.set_ignored(session.name, kind, account.name, on)
        if on:
            names.add(account.name.lower())
        else:
            names.discard(account.name.lower())
        session.out.line(chat.gag_reply(account.name, on) if kind == "gag"
                         else chat.blind_reply(account.name, on))
        if kind == "blind" and on and online is not None and online.place.watching is session:
            match_table.watchers.stop_watching(online)
            attendance.messenger.tell([online.name], notice([chat.doesnt_want_you_to_watch(session.name)]))
            attendance.broadcast_who(online)

    @table.command("gag", visitors=False)
    async def gag(session: Session, command: Command) -> None:
        await _ignore(session, command, "gag")

    @table.command("blind", visitors=False)
    async def blind(session: Session, command: Command) -> None:
        await _ignore(session, command, "blind")

    # --- login -----------------------------------------------------------------------------------

    @table.on_login
    async def welcome_listener(session: Session) -> None:
        """Load the user's gags, blinds and mute; tell those waiting for them; hand over the
        messages kept for them (each exactly once)."""
        name = session.name
        if attendance.users.is_visitor(session):
            return  # nothing is kept for a visitor, who has no account
        arrival = await chat_records.arrive(name) if session.kept.chat else \
            Arrival([], [], False, [])
        if attendance.users.is_online(session):  # (not gone meanwhile: its chat is forgotten)
            chatter = chat_state.of(name)
            chatter.gagged.clear()
            chatter.gagged.update(n.lower() for n in arrival.gagged)
            chatter.blinded.clear()
            chatter.blinded.update(n.lower() for n in arrival.blinded)
            if chatter.muted is None:
                chatter.muted = arrival.muted
        lines = [chat.waiting_for_you(waiter) for waiter in attendance.messenger.tell_waiters(name)]
        if arrival.messages and not session.out.clip:
            lines.append(chat.MESSAGES_HEADER)
        lines += [chat.message(session.out.clip, m.sender, m.sent_at, m.text)
                  for m in arrival.messages]
        if lines:
            session.out.lines(lines)
            if session.out.prompts:
                session.out.prompt()

    return table
