"""Talking and presence: tell/tellx, say, shout, kibitz, whisper, message, waitfor, gag, blind;
at login the stored messages, the waiters' notices and the user's gags and blinds.

Chat text goes out verbatim (`command.rest`); the net layer has already reduced input lines to
printable 7-bit ASCII, so no control character can reach another user.
"""
from __future__ import annotations

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

if TYPE_CHECKING:  # a type only: each handler is given the lobby
    from fibs_server.lobby.lobby import Lobby

table = CommandTable()
# What shouts are timed on (`shout_window`); tests put a fake clock here.
shout_clock: Callable[[], float] = time.monotonic


def _after_name(command: Command) -> str:
    """The text after the first word of `command.rest`, less the one blank that separates
    them: the rest is the user's words, verbatim."""
    after = command.rest[len(command.args[0]):]
    return after[1:] if after.startswith(" ") else after


def _says_to(lobby: Lobby, speaker: Session, listener: Session, text: str,
             kind: Literal["tell", "say"], *,
             gags_apply: bool = True) -> None:
    """`speaker` says `text` to `listener` (`kind` tell, or say to the opponent)."""
    if gags_apply and listener.name.lower() in speaker.gagged:
        speaker.send_line(chat.YOU_GAG_THEM)
        return
    if gags_apply and speaker.name.lower() in listener.gagged:
        speaker.send_line(chat.wont_listen(listener.name))
        return
    lobby.attendance.tell([listener.name], Said(kind, speaker.name, text, listener.name))
    speaker.send_line(chat.you_tell(speaker.clip, listener.name, text))
    speaker.send_event(web_events.chat(kind, speaker.name, text, listener.name))
    if listener.away_message is not None:
        speaker.send_line(chat.is_away(listener.name, listener.away_message))


def _says_elsewhere(lobby: Lobby, speaker: Session, listener: RemoteUser, text: str) -> None:
    """A tell to a user of another node: their gags are checked there (a gagged tell goes
    nowhere, with no reply), the speaker's here."""
    if listener.name.lower() in speaker.gagged:
        speaker.send_line(chat.YOU_GAG_THEM)
        return
    lobby.attendance.tell([listener.name], Said("tell", speaker.name, text, listener.name))
    speaker.send_line(chat.you_tell(speaker.clip, listener.name, text))
    speaker.send_event(web_events.chat("tell", speaker.name, text, listener.name))
    if listener.away_message is not None:
        speaker.send_line(chat.is_away(listener.name, listener.away_message))


# --- tell, say, shout ------------------------------------------------------------------------

@table.command("tell", short_forms=("t",), repeatable=False)
@table.command("tellx", repeatable=False)
async def tell(lobby: Lobby, session: Session, command: Command) -> None:
    if not command.args:
        session.send_line(chat.TELL_WHOM)
        return
    name, text = command.args[0], _after_name(command)
    if not text.strip():
        session.send_line(chat.tell_what(name))
        return
    # `tellx` takes the name as it is: no completion of a prefix.
    listener = lobby.attendance.find_online(name) if command.name == "tell" else lobby.attendance.online.get(name.lower())
    elsewhere = lobby.attendance.directory.get(name) if listener is None else None
    if elsewhere is not None:
        _says_elsewhere(lobby, session, elsewhere, text)
    elif listener is None:
        session.send_line(texts.no_one_called(name))
    elif listener is session:
        session.send_line(chat.to_yourself(text))
    else:
        _says_to(lobby, session, listener, text, "tell")


@table.command("say", short_forms=("s",), forwarded=Forwarding.HOST, repeatable=False)
async def say(lobby: Lobby, session: Session, command: Command) -> None:
    running = lobby.match_table.match_of(session)
    opponent = running.opponent_of(session) if running else None
    if opponent is None:
        session.send_line(game_texts.NOT_PLAYING)
    elif not command.rest:
        session.send_line(chat.SAY_WHAT)
    else:
        # FIBS: you can't gag what your opponent says to you.
        _says_to(lobby, session, opponent, command.rest, "say", gags_apply=False)


def _seconds_until_shout(lobby: Lobby, session: Session) -> float:
    """0 and the shout counted if the user may shout now, else how long they must wait."""
    now = shout_clock()
    recent = session.shout_times
    while recent and now - recent[0] >= lobby.config.shout_window:
        recent.popleft()
    if len(recent) >= lobby.config.shout_limit:
        return lobby.config.shout_window - (now - recent[0])
    recent.append(now)
    return 0.0


@table.command("shout", repeatable=False)
async def shout(lobby: Lobby, session: Session, command: Command) -> None:
    if not command.rest:
        session.send_line(chat.SHOUT_WHAT)
        return
    if session.toggle("silent"):
        session.send_line(chat.SILENT_SHOUT)
        return
    wait = _seconds_until_shout(lobby, session)
    if wait > 0:
        session.send_line(chat.shouting_too_often(max(1, math.ceil(wait))))
        return
    shouted = Said("shout", session.name, command.rest)
    # The other nodes' users counted as hearing it: their toggles and gags are theirs.
    heard = sum(1 for listener in lobby.attendance.sessions_online() if shouted.reaches(listener)) \
        + len(lobby.attendance.directory)
    # A muted user is not told: their shouts look sent and reach nobody.
    if not session.muted:
        lobby.attendance.tell_all(shouted)
    session.send_lines([chat.you_shout(session.clip, command.rest), chat.heard(heard)])
    session.send_event(web_events.chat("shout", session.name, command.rest))


# --- kibitz and whisper ----------------------------------------------------------------------

def _table_of(lobby: Lobby, session: Session) -> tuple[list[Session], list[Session]] | None:
    """The players and the watchers of the game `session` plays or watches (a watched user
    who is not playing stands for the players), or None."""
    table = lobby.match_table
    running = table.match_of(session)
    if running is None and session.watching is not None:
        running = table.match_of(session.watching)
        players = running.players() if running else [session.watching]
    elif running is not None:
        players = running.players()
    else:
        return None
    return players, [w for p in players for w in table.watchers_of(p)]


async def _talk_at_table(lobby: Lobby, session: Session, command: Command, *,
                         to_players: bool) -> None:
    seated = _table_of(lobby, session)
    if seated is None:
        session.send_line(chat.NOT_WATCHING_OR_PLAYING)
        return
    if not command.rest:
        session.send_line(chat.KIBITZ_WHAT if to_players else chat.WHISPER_WHAT)
        return
    players, watchers = seated
    # FIBS: what the players of a game say can't be gagged by those who watch it.
    gags_apply = session not in players
    listeners = [s.name for s in (players + watchers if to_players else watchers)
                 if s is not session and not (gags_apply and session.name.lower() in s.gagged)]
    kind: Literal["kibitz", "whisper"] = "kibitz" if to_players else "whisper"
    lobby.attendance.tell(listeners, Said(kind, session.name, command.rest))
    echo = chat.you_kibitz if to_players else chat.you_whisper
    session.send_lines([echo(session.clip, command.rest), chat.heard(len(listeners))])
    session.send_event(web_events.chat(kind, session.name, command.rest))


@table.command("kibitz", short_forms=("k",), forwarded=Forwarding.HOST, repeatable=False)
async def kibitz(lobby: Lobby, session: Session, command: Command) -> None:
    await _talk_at_table(lobby, session, command, to_players=True)


@table.command("whisper", short_forms=("wh",), forwarded=Forwarding.HOST, repeatable=False)
async def whisper(lobby: Lobby, session: Session, command: Command) -> None:
    await _talk_at_table(lobby, session, command, to_players=False)


# --- message and waitfor ---------------------------------------------------------------------

@table.command("message", visitors=False, repeatable=False)
async def message(lobby: Lobby, session: Session, command: Command) -> None:
    text = _after_name(command) if command.args else ""
    if not text.strip():
        session.send_line(chat.MESSAGE_USAGE)
        return
    most = lobby.config.abuse_limits.max_message_length
    if len(text) > most:
        session.send_line(chat.message_too_long(most))
        return
    # No name completion for `message` (FIBS): the recipient may be anyone registered.
    online, account = await lobby.attendance.user_named(command.args[0])
    if account is None:
        session.send_line(chat.dont_know_user(command.args[0]))
        return
    if account.name.lower() in session.gagged:
        session.send_line(chat.YOU_GAG_THEM)
        return
    gagging = (online.gagged if online else
               {n.lower() for n in await lobby.chat_records.ignored_names(account.name, "gag")})
    if session.name.lower() in gagging:
        session.send_line(chat.wont_listen(account.name))
        return
    if online is None and lobby.attendance.directory.get(account.name) is not None:
        online_elsewhere = True  # on another node: told there (their gags checked there)
    else:
        online_elsewhere = online is not None
    if online_elsewhere:
        lobby.attendance.tell([account.name], Said("message", session.name, text, sent_at=int(time.time())))
        session.send_line(chat.message_delivered(session.clip, account.name))
    else:
        await _keep_message(lobby, session, account.name, text)


async def _keep_message(lobby: Lobby, session: Session, recipient: str, text: str) -> None:
    """Store a message for an offline user within the limits: each kept message is memory at
    the recipient's login and a row until then."""
    limits = lobby.config.abuse_limits
    async with lobby.message_lock:
        waiting, from_sender = await lobby.chat_records.waiting_messages(recipient, session.name)
        if from_sender >= limits.messages_per_sender:
            session.send_line(chat.too_many_messages_from_you(from_sender, recipient))
        elif waiting >= limits.messages_per_recipient:
            session.send_line(chat.too_many_messages_waiting(recipient, waiting))
        else:
            await lobby.chat_records.save_message(recipient, session.name, text)
            session.send_line(chat.message_saved(session.clip, recipient))


@table.command("waitfor")
async def waitfor(lobby: Lobby, session: Session, command: Command) -> None:
    if not command.args:
        session.send_line(chat.waiting_list(sorted(session.waiting_for, key=str.lower))
                          if session.waiting_for else chat.NOT_WAITING)
        return
    for name in command.args:
        online, account = await lobby.attendance.user_named(name)
        if account is None:
            session.send_line(chat.dont_know_user(name))
        elif online is not None or lobby.attendance.directory.get(account.name) is not None:
            session.send_line(chat.already_logged_in(account.name))
        else:
            lobby.attendance.wait_for(session, account.name)
            session.send_line(chat.will_notify(account.name))


# --- gag and blind ---------------------------------------------------------------------------

async def _ignore(lobby: Lobby, session: Session, command: Command, kind: IgnoreKind) -> None:
    records = lobby.chat_records
    if not command.args:
        session.send_line(chat.ignore_list(kind, await records.ignored_names(session.name, kind)))
        return
    online, account = await lobby.attendance.user_named(command.args[0], complete=True)
    if account is None:
        session.send_line(texts.no_one_called(command.args[0]))
        return
    if account.name.lower() == session.name.lower():
        session.send_line(chat.GAG_YOURSELF if kind == "gag" else chat.BLIND_YOURSELF)
        return
    names = session.gagged if kind == "gag" else session.blinded
    on = account.name.lower() not in names
    await records.set_ignored(session.name, kind, account.name, on)
    if on:
        names.add(account.name.lower())
    else:
        names.discard(account.name.lower())
    session.send_line(chat.gag_reply(account.name, on) if kind == "gag"
                      else chat.blind_reply(account.name, on))
    if kind == "blind" and on and online is not None and online.watching is session:
        lobby.match_table.stop_watching(online)
        lobby.attendance.tell([online.name], notice([chat.doesnt_want_you_to_watch(session.name)]))
        lobby.attendance.broadcast_who(online)


@table.command("gag", visitors=False)
async def gag(lobby: Lobby, session: Session, command: Command) -> None:
    await _ignore(lobby, session, command, "gag")


@table.command("blind", visitors=False)
async def blind(lobby: Lobby, session: Session, command: Command) -> None:
    await _ignore(lobby, session, command, "blind")


# --- login -----------------------------------------------------------------------------------

@table.on_login
async def welcome_listener(lobby: Lobby, session: Session) -> None:
    """Load the user's gags, blinds and mute; tell those waiting for them; hand over the
    messages kept for them (each exactly once)."""
    name = session.name
    if lobby.attendance.is_visitor(session):
        return  # nothing is kept for a visitor, who has no account
    arrival = await lobby.chat_records.arrive(name) if session.kept.chat else \
        Arrival([], [], False, [])
    session.gagged = {n.lower() for n in arrival.gagged}
    session.blinded = {n.lower() for n in arrival.blinded}
    if session.muted is None:
        session.muted = arrival.muted
    lines = [chat.waiting_for_you(waiter) for waiter in lobby.attendance.tell_waiters(name)]
    if arrival.messages and not session.clip:
        lines.append(chat.MESSAGES_HEADER)
    lines += [chat.message(session.clip, m.sender, m.sent_at, m.text) for m in arrival.messages]
    if lines:
        session.send_lines(lines)
        if session.prompts:
            session.send_prompt()
