"""Texts of the commands about the server itself and who is on it: version, about, stat,
last, where, names, hostnames, commands, the answers for FIBS commands that have nothing to do
here (docs/PROTOCOL.md), and the server's shutdown."""
from __future__ import annotations

import datetime

from fibs_server.protocol.texts import date_line, plural
from fibs_server.protocol.wording.coded_texts import notice, refusal

SCREEN_WIDTH = 79  # what a line may use in an 80-column terminal
SCREEN_HEIGHT = 24  # what `cls` scrolls away when no pagelength is set

ABOUT = (
    "fibs_server: a backgammon server that speaks FIBS, the First Internet Backgammon",
    "Server's protocol. Play by telnet, with a FIBS client program, or as a bot (CLIP).",
    "Matches are rated with FIBS's formula and stored as they are played: a dropped",
    "connection saves the match, 'invite <name>' resumes it.",
    "Type 'help' for the commands, 'help beginner' to get started.",
)
NO_AVERAGE = refusal("no_hourly_statistics", "** This server keeps no hourly statistics of users. "
                     "Type 'stat' for the numbers.")
NOTHING_TO_SAVE = notice("** There is nothing to save: your settings and matches are stored "
                         "as they change.")
PANIC = notice("** Don't panic. A strange screen? Try 'set boardstyle 2', 'set linelength 0', "
               "'set pagelength 0' or 'cls'.")


def version_line(version: str) -> str:
    return f"fibs_server version {version}, speaking FIBS's client protocol CLIP 1008."


def stat_lines(online: int, most_online: int, matches: int, started: datetime.datetime,
               timezone: str) -> list[str]:
    return [f"Users logged in:          {online}",
            f"Most logged in at once:   {most_online}",
            f"Matches being played:     {matches}",
            f"Server running since:     {date_line(started, timezone)}"]


def last_lines(name: str, login: datetime.datetime | None, host: str | None,
               logout: datetime.datetime | None, online: bool, timezone: str) -> list[str]:
    if login is None:
        return [f"{name} has never logged in."]
    lines = [f"Last login of {name}:  {date_line(login, timezone)} from {host or '-'}"]
    if online:
        lines.append(f"{name} is still logged in.")
    elif logout is not None:
        lines.append(f"Last logout of {name}: {date_line(logout, timezone)}")
    return lines


WHERE_WHOM = refusal("where_whom", "** Where is who?")


def where_line(name: str, host: str) -> str:
    return f"{name} is logged in from {host}."


def in_columns(words: list[str], width: int = SCREEN_WIDTH) -> list[str]:
    """Words in columns as wide as the longest, as many to a line as fit in `width`."""
    if not words:
        return []
    column = max(len(word) for word in words) + 2
    per_line = max(1, (width + 2) // column)
    return ["".join(f"{word:<{column}}" for word in words[start:start + per_line]).rstrip()
            for start in range(0, len(words), per_line)]


def hostnames_table(rows: list[tuple[str, str]]) -> list[str]:
    return [f"{name:<20} {host}" for name, host in rows]

# --- shutdown ------------------------------------------------------------------------------

SHUTDOWN_USAGE = refusal("shutdown_usage", "** Usage: shutdown <minutes>|cancel")
NO_SHUTDOWN_UNDER_WAY = refusal("no_shutdown_under_way", "** No shutdown is under way.")
SHUTDOWN_ALREADY_UNDER_WAY = refusal("shutdown_already_under_way", "** A shutdown is already under "
                                     "way. 'shutdown cancel' stops it.")
SHUTDOWN_CANCELLED = notice("** The shutdown was cancelled.")
# A login in the last minutes before a shutdown.
SHUTTING_DOWN_TRY_LATER = refusal("shutting_down_try_later",
                                  "** The server is shutting down. Please try again later.")
# When the server stops: to the players and watchers of a running match, and to the others.
SHUTTING_DOWN_GAME_SAVED = notice("** The server is shutting down. The game was saved.")
SHUTTING_DOWN = notice("** The server is shutting down.")


def shutdown_in(minutes: int) -> str:
    return notice(f"** The server will shut down in {plural(minutes, 'minute')}. "
                  "Running matches will be saved.")
