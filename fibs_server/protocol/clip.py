"""CLIP (FIBS Client Protocol) lines: numbered messages for client programs and bots.

Field order and formats follow docs/PROTOCOL.md ("CLIP lines"): single spaces between fields,
`-` for an empty field, ratings with two decimals, times in Unix seconds.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Mapping

CLIP_VERSION = 1008
WELCOME, OWN_INFO, MOTD_START, MOTD_END, WHO_INFO, WHO_END = 1, 2, 3, 4, 5, 6
LOGIN, LOGOUT, MESSAGE, MESSAGE_DELIVERED, MESSAGE_SAVED = 7, 8, 9, 10, 11
SAYS, SHOUTS, WHISPERS, KIBITZES, YOU_SAY, YOU_SHOUT, YOU_WHISPER, YOU_KIBITZ = range(12, 20)

# The toggles of CLIP 2, in field order (`away` is a state, not a toggle, but sits among them).
OWN_INFO_FIELDS = ("allowpip", "autoboard", "autodouble", "automove", "away", "bell",
                   "crawford", "double", "experience", "greedy", "moreboards", "moves",
                   "notify", "rating", "ratings", "ready", "redoubles", "report", "silent",
                   "timezone")


@dataclasses.dataclass(frozen=True)
class WhoInfo:
    """One user as CLIP 5 and the `who` table show them."""
    name: str
    opponent: str | None
    watching: str | None
    ready: bool
    away: bool
    rating: float
    experience: int
    idle_seconds: int
    login_time: int
    host: str
    client: str | None
    email: str | None


def field(value: object) -> str:
    """A CLIP field: `-` when empty, 0/1 for flags, two decimals for ratings."""
    if value is None or value == "":
        return "-"
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, float):
        return f"{value:.2f}"
    text = str(value)
    # A space would shift every later field for the client's parser.
    return text.replace(" ", "_")


def line(number: int, *fields: object) -> str:
    return " ".join([str(number), *(field(f) for f in fields)])


def welcome(name: str, last_login: int, last_host: str) -> str:
    return line(WELCOME, name, last_login, last_host)


def own_info(name: str, toggles: Mapping[str, bool], *, away: bool, experience: int,
             rating: float, redoubles: str, timezone: str) -> str:
    """CLIP 2. Its `redoubles` field is a number or `unlimited`: strict clients drop the whole
    line on the `none` that `set` shows, so `none` goes out as 0, as on FIBS."""
    values = {**toggles, "away": away, "experience": experience, "rating": rating,
              "redoubles": "0" if redoubles == "none" else redoubles, "timezone": timezone}
    return line(OWN_INFO, name, *(values[f] for f in OWN_INFO_FIELDS))


def who_info_around_idle(info: WhoInfo) -> tuple[str, str]:
    """A CLIP 5 line's text before and after the idle seconds, the one field that changes by
    itself, so that a session can keep them and format only the idle time for each who-list."""
    before_idle = line(WHO_INFO, info.name, info.opponent, info.watching, info.ready, info.away,
                       info.rating, info.experience)
    after_idle = " ".join(field(f) for f in (info.login_time, info.host, info.client, info.email))
    return before_idle, after_idle


def who_info_with_idle(before_idle: str, idle_seconds: int, after_idle: str) -> str:
    return f"{before_idle} {idle_seconds} {after_idle}"


def who_block(who_lines: list[str]) -> list[str]:
    """CLIP 5 lines (`who_info_with_idle`) and the 6 that ends the block."""
    return [*who_lines, str(WHO_END)]


def motd_block(motd: list[str] | tuple[str, ...]) -> list[str]:
    return [str(MOTD_START), *motd, str(MOTD_END)]


def chat(number: int, *parts: object) -> str:
    """A chat-style CLIP line whose last part is free text kept verbatim (spaces included)."""
    *fields, text = parts
    return " ".join([str(number), *(field(f) for f in fields), str(text)])
