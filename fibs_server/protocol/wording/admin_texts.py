"""Texts of moderation: the administrators' kick, ban/unban, mute/unmute, erase and `motd set`,
and what their targets read. (Not in FIBS, whose administrators had no commands on the wire:
ours, listed in docs/PROTOCOL.md. The shutdown's texts are in server_texts.)"""
from __future__ import annotations

import datetime

from fibs_server.protocol.texts import utc_time
from fibs_server.protocol.wording.coded_texts import notice, refusal

NOT_YOURSELF = refusal("not_to_yourself", "** You can't do that to yourself.")
BAN_USAGE = refusal("ban_usage", "** Usage: ban <name> [<number>m|h|d|w]")
MOTD_SET_USAGE = refusal("motd_set_usage", "** Usage: motd set <text>")
MOTD_WAS_SET = notice("** The message of the day was set.")
# To the user thrown out, before the connection closes.
KICKED = notice("** You were kicked out by an administrator.")
ERASED = notice("** Your account was erased by an administrator.")


def _utc(timestamp: int) -> str:
    return utc_time(datetime.datetime.fromtimestamp(timestamp, datetime.timezone.utc))


def name_usage(command: str) -> str:
    """The usage of a command whose one argument is a user's name."""
    return refusal("name_usage", f"** Usage: {command} <name>", command=command)


def banned(until: int | None) -> str:
    """To a banned user, thrown out or at login; `until`: a Unix time, None for good."""
    if until is None:
        return refusal("banned", "** You are banned from this server.")
    return refusal("banned_until", f"** You are banned from this server until {_utc(until)}.",
                   until=until)


def was_kicked(name: str) -> str:
    return notice(f"** {name} was kicked out.")


def ban_reply(name: str, address: str | None, until: int | None) -> str:
    """`address`: the banned user's last address, banned with them."""
    who = f"{name} and the address {address} are" if address else f"{name} is"
    return notice(f"** {who} " + ("banned for good." if until is None
                                  else f"banned until {_utc(until)}."))


_SANCTIONED = {"ban": "banned", "mute": "muted"}


def lifted_reply(name: str, sanction: str, lifted: bool) -> str:
    """`unban`/`unmute`; `sanction`: `ban` or `mute`; `lifted`: there was one to lift."""
    state = _SANCTIONED[sanction]
    if lifted:
        return notice(f"** {name} is no longer {state}.")
    text = f"** {name} is not {state}."
    return refusal("not_banned", text, name=name) if sanction == "ban" \
        else refusal("not_muted", text, name=name)


def muted(name: str) -> str:
    return notice(f"** {name} is muted: nobody hears their shouts.")


def erased(name: str) -> str:
    return notice(f"** The account {name} was erased.")
