"""Texts of talking, presence and moderation (CLIP 9–19; docs/PROTOCOL.md).

CLIP clients get numbered lines, telnet users sentences; chat text goes out verbatim. Texts
FIBS's sources do not give are ours and are listed in docs/PROTOCOL.md.
"""
from __future__ import annotations

import datetime

from fibs_server.protocol import clip
from fibs_server.protocol.texts import plural, utc_time

BELL = "\a"

TELL_WHOM = "** Tell whom?"
MESSAGE_USAGE = "** usage: message <user> <text>"
SAY_WHAT = "** Say what?"
SHOUT_WHAT = "** Shout what?"
KIBITZ_WHAT = "** Kibitz what?"
WHISPER_WHAT = "** Whisper what?"
NOT_WATCHING_OR_PLAYING = "** You're not watching or playing."
SILENT_SHOUT = "** Please type 'toggle silent' again before you shout."
YOU_GAG_THEM = "** You can't talk if you won't listen."
GAG_YOURSELF = "** You talk too much, don't you?"
BLIND_YOURSELF = "** You can't read this message now, can you?"
MESSAGES_HEADER = "There are messages for you:"
NOT_WAITING = "** You're not waiting for anyone."


def with_bell(line: str, ring: bool) -> str:
    return BELL + line if ring else line


def heard(count: int) -> str:
    return f"** {plural(count, 'user')} heard you."


def tell_what(name: str) -> str:
    return f"** Tell {name} what?"


def dont_know_user(name: str) -> str:
    return f"** Don't know user {name}"


def message_too_long(most: int) -> str:
    return f"** Your message is too long: at most {most} characters, please."


def too_many_messages_from_you(count: int, name: str) -> str:
    return f"** You already left {count} messages for {name}. Please wait until {name} has read them."


def too_many_messages_waiting(name: str, count: int) -> str:
    return f"** {name} has {count} messages waiting already. Please try again later."


def wont_listen(name: str) -> str:
    return f"** {name} won't listen to you."


def is_away(name: str, message: str) -> str:
    return f"{name} is away: {message}"


def to_yourself(text: str) -> str:
    return f"You say to yourself: {text}"


# --- what the audience hears -------------------------------------------------------------------

def says(as_clip: bool, sender: str, text: str) -> str:
    return clip.chat(clip.SAYS, sender, text) if as_clip else f"{sender} says: {text}"


def shouts(as_clip: bool, sender: str, text: str) -> str:
    return clip.chat(clip.SHOUTS, sender, text) if as_clip else f"{sender} shouts: {text}"


def whispers(as_clip: bool, sender: str, text: str) -> str:
    return clip.chat(clip.WHISPERS, sender, text) if as_clip else f"{sender} whispers: {text}"


def kibitzes(as_clip: bool, sender: str, text: str) -> str:
    return clip.chat(clip.KIBITZES, sender, text) if as_clip else f"{sender} kibitzes: {text}"


# --- what the speaker is told ------------------------------------------------------------------

def you_tell(as_clip: bool, recipient: str, text: str) -> str:
    return clip.chat(clip.YOU_SAY, recipient, text) if as_clip else f"** You tell {recipient}: {text}"


def you_shout(as_clip: bool, text: str) -> str:
    return clip.chat(clip.YOU_SHOUT, text) if as_clip else f"** You shout: {text}"


def you_whisper(as_clip: bool, text: str) -> str:
    return clip.chat(clip.YOU_WHISPER, text) if as_clip else f"** You whisper: {text}"


def you_kibitz(as_clip: bool, text: str) -> str:
    return clip.chat(clip.YOU_KIBITZ, text) if as_clip else f"** You kibitz: {text}"


def shouting_too_often(wait_seconds: int) -> str:
    return (f"** You are shouting too often. Please wait {plural(wait_seconds, 'second')} "
            "before you shout again.")


# --- messages ----------------------------------------------------------------------------------

def message(as_clip: bool, sender: str, sent_at: int, text: str) -> str:
    """A message left with `message`, as its recipient gets it."""
    if as_clip:
        return clip.chat(clip.MESSAGE, sender, sent_at, text)
    when = datetime.datetime.fromtimestamp(sent_at, datetime.timezone.utc)
    return f"Message from {sender} at {utc_time(when)}: {text}"


def message_delivered(as_clip: bool, recipient: str) -> str:
    return (clip.line(clip.MESSAGE_DELIVERED, recipient) if as_clip
            else f"** Your message was delivered to {recipient}.")


def message_saved(as_clip: bool, recipient: str) -> str:
    return (clip.line(clip.MESSAGE_SAVED, recipient) if as_clip
            else f"** {recipient} is not logged in. Your message was saved.")


# --- waitfor -----------------------------------------------------------------------------------

def waiting_for_you(waiter: str) -> str:
    return f"{waiter} is waiting for you to log in."


def finally_logs_in(name: str) -> str:
    return f"** FINALLY!!! {name} logs in."


def will_notify(name: str) -> str:
    return f"** You'll be notified when {name} logs in."


def already_logged_in(name: str) -> str:
    return f"** {name} is already logged in."


def waiting_list(names: list[str]) -> str:
    return f"** You're waiting for: {' '.join(names)}"


# --- gag and blind -----------------------------------------------------------------------------

def gag_reply(name: str, gagged: bool) -> str:
    return f"** You {'gag' if gagged else 'ungag'} {name}."


def blind_reply(name: str, blinded: bool) -> str:
    return f"** You {'blind' if blinded else 'unblind'} {name}."


def ignore_list(kind: str, names: list[str]) -> str:
    """`kind` is `gag` or `blind`: the answer to `gag`/`blind` without a name."""
    return f"** You {kind}: {' '.join(names)}" if names else f"** You {kind} nobody."


def doesnt_want_you_to_watch(name: str) -> str:
    return f"** {name} doesn't want you to watch."
