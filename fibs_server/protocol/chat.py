"""Texts of talking, presence and moderation (CLIP 9–19; docs/PROTOCOL.md).

CLIP clients get numbered lines, telnet users sentences; chat text goes out verbatim. Texts
FIBS's sources do not give are ours and are listed in docs/PROTOCOL.md.
"""
from __future__ import annotations

import datetime

from fibs_server.protocol import clip
from fibs_server.protocol.texts import plural, utc_time
from fibs_server.protocol.wording.coded_texts import notice, refusal

BELL = "\a"

TELL_WHOM = refusal("tell_whom", "** Tell whom?")
MESSAGE_USAGE = refusal("message_usage", "** usage: message <user> <text>")
SAY_WHAT = refusal("say_what", "** Say what?")
SHOUT_WHAT = refusal("shout_what", "** Shout what?")
KIBITZ_WHAT = refusal("kibitz_what", "** Kibitz what?")
WHISPER_WHAT = refusal("whisper_what", "** Whisper what?")
NOT_WATCHING_OR_PLAYING = refusal("not_watching_or_playing", "** You're not watching or playing.")
SILENT_SHOUT = refusal("silent_shout", "** Please type 'toggle silent' again before you shout.")
YOU_GAG_THEM = refusal("you_gag_them", "** You can't talk if you won't listen.")
GAG_YOURSELF = refusal("gag_yourself", "** You talk too much, don't you?")
BLIND_YOURSELF = refusal("blind_yourself", "** You can't read this message now, can you?")
MESSAGES_HEADER = "There are messages for you:"
NOT_WAITING = refusal("not_waiting", "** You're not waiting for anyone.")


def with_bell(line: str, ring: bool) -> str:
    return BELL + line if ring else line


def heard(count: int) -> str:
    return notice(f"** {plural(count, 'user')} heard you.")


def tell_what(name: str) -> str:
    return refusal("tell_what", f"** Tell {name} what?", name=name)


def dont_know_user(name: str) -> str:
    return refusal("no_such_account", f"** Don't know user {name}", name=name)


def message_too_long(most: int) -> str:
    return refusal("message_too_long",
                   f"** Your message is too long: at most {most} characters, please.", most=most)


def too_many_messages_from_you(count: int, name: str) -> str:
    return refusal("too_many_messages_from_you", f"** You already left {count} messages for {name}. "
                   f"Please wait until {name} has read them.", count=count, name=name)


def too_many_messages_waiting(name: str, count: int) -> str:
    return refusal("too_many_messages_waiting",
                   f"** {name} has {count} messages waiting already. Please try again later.",
                   name=name, count=count)


def wont_listen(name: str) -> str:
    return refusal("wont_listen", f"** {name} won't listen to you.", name=name)


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
    return clip.chat(clip.YOU_SAY, recipient, text) if as_clip else notice(
        f"** You tell {recipient}: {text}")


def you_shout(as_clip: bool, text: str) -> str:
    return clip.chat(clip.YOU_SHOUT, text) if as_clip else notice(f"** You shout: {text}")


def you_whisper(as_clip: bool, text: str) -> str:
    return clip.chat(clip.YOU_WHISPER, text) if as_clip else notice(f"** You whisper: {text}")


def you_kibitz(as_clip: bool, text: str) -> str:
    return clip.chat(clip.YOU_KIBITZ, text) if as_clip else notice(f"** You kibitz: {text}")


def shouting_too_often(wait_seconds: int) -> str:
    return refusal("shouting_too_often", f"** You are shouting too often. Please wait "
                   f"{plural(wait_seconds, 'second')} before you shout again.",
                   seconds=wait_seconds)


# --- messages ----------------------------------------------------------------------------------

def message(as_clip: bool, sender: str, sent_at: int, text: str) -> str:
    """A message left with `message`, as its recipient gets it."""
    if as_clip:
        return clip.chat(clip.MESSAGE, sender, sent_at, text)
    when = datetime.datetime.fromtimestamp(sent_at, datetime.timezone.utc)
    return f"Message from {sender} at {utc_time(when)}: {text}"


def message_delivered(as_clip: bool, recipient: str) -> str:
    return (clip.line(clip.MESSAGE_DELIVERED, recipient) if as_clip
            else notice(f"** Your message was delivered to {recipient}."))


def message_saved(as_clip: bool, recipient: str) -> str:
    return (clip.line(clip.MESSAGE_SAVED, recipient) if as_clip
            else notice(f"** {recipient} is not logged in. Your message was saved."))


# --- waitfor -----------------------------------------------------------------------------------

def waiting_for_you(waiter: str) -> str:
    return f"{waiter} is waiting for you to log in."


def finally_logs_in(name: str) -> str:
    return notice(f"** FINALLY!!! {name} logs in.")


def will_notify(name: str) -> str:
    return notice(f"** You'll be notified when {name} logs in.")


def already_logged_in(name: str) -> str:
    return refusal("already_logged_in", f"** {name} is already logged in.", name=name)


def waiting_list(names: list[str]) -> str:
    return notice(f"** You're waiting for: {' '.join(names)}")


# --- gag and blind -----------------------------------------------------------------------------

def gag_reply(name: str, gagged: bool) -> str:
    return notice(f"** You {'gag' if gagged else 'ungag'} {name}.")


def blind_reply(name: str, blinded: bool) -> str:
    return notice(f"** You {'blind' if blinded else 'unblind'} {name}.")


def ignore_list(kind: str, names: list[str]) -> str:
    """`kind` is `gag` or `blind`: the answer to `gag`/`blind` without a name."""
    return notice(f"** You {kind}: {' '.join(names)}" if names else f"** You {kind} nobody.")


def doesnt_want_you_to_watch(name: str) -> str:
    return refusal("watch_refused", f"** {name} doesn't want you to watch.", name=name)
