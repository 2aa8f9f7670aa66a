"""Fixed FIBS texts and the small formatters around them: banner, date line, login and
registration, goodbye, MOTD.

Every function returns lines without line endings; the connection layer adds CR LF. Texts that
clients match on are FIBS's own (see docs/PROTOCOL.md); the banner art and help are ours.
"""
from __future__ import annotations

import datetime
import enum
import zoneinfo

from fibs_server.protocol.wording.coded_texts import RefusalText, notice, refusal

PROMPT = "> "
LOGIN_PROMPT = "login: "
PASSWORD_PROMPT = "password: "
NEW_PASSWORD_PROMPT = "Please give your password: "
RETYPE_PASSWORD_PROMPT = "Please retype your password: "
PASSWORDS_DIFFER_PROMPT = refusal(
    "passwords_differ", "** The two passwords were not identical. Please give them again. Password: ")

BANNER_ART = (
    r"                 _____  _  ____   ____                               ",
    r"                |  ___|| || __ ) / ___|   ___   ___  _ __ __   __  ",
    r"                | |_   | ||  _ \ \___ \  / __| / _ \| '__|\ \ / /  ",
    r"                |  _|  | || |_) | ___) | \__ \|  __/| |    \ V /   ",
    r"                |_|    |_||____/ |____/  |___/ \___||_|     \_/    ",
    "",
    "        A backgammon server that speaks FIBS: telnet, CLIP clients and bots welcome.",
    "",
    "  Log in with your name, or as 'guest' to register a new account.",
    "  Be polite, finish your matches, and don't use bots under a person's name.",
    "  One account per person only!",
)

GUEST_WELCOME = (
    "Welcome to FIBS. You just logged in as guest.",
    "Please register before using this server:",
    "",
    "Type 'name username' where name is the word 'name' and ",
    "username is the login name you want to use.",
    "The username may not contain blanks ' ' or colons ':'.",
    "The system will then ask you for your password twice.",
    "Please make sure that you don't forget your password. All",
    "passwords are encrypted before they are saved. If you forget",
    "your password there is no way to find out what it was.",
    "Please type 'bye' if you don't want to register now.",
    "",
    "ONE USERNAME PER PERSON ONLY!!!",
)

DEFAULT_MOTD = (
    "+--------------------------------------------------------------------+",
    "| Welcome to fibs_server.                                            |",
    "| Type 'help' for the commands, 'help beginner' to get started.      |",
    "| Matches are saved when a connection drops: 'invite' to resume.     |",
    "+--------------------------------------------------------------------+",
)

GOODBYE = (
    "           Goodbye.",
    "",
    "If you enjoyed using this server please send picture postcards,",
    "of your home town or of wherever you like, to the people who run it:",
    "they like to know who plays here. Thanks, and see you soon.",
)

MIN_NAME_LENGTH = 3
MAX_NAME_LENGTH = 20
MIN_PASSWORD_LENGTH = 4
# bcrypt reads no further (lobby/limits/passwords.py): longer passwords would match on their start.
MAX_PASSWORD_LENGTH = 72
# Names that would pass for the server or a command in a chat line or a who-list; the command
# names are added by the lobby, which knows them.
RESERVED_NAMES = frozenset({"guest", "system", "admin", "administrator", "root", "server",
                            "fibs", "sysop", "nobody"})
# Visitors who play a bot without an account are `guest_` and five letters (`guest_qhzmt`):
# names are letters and `_` only (docs/PROTOCOL.md), so the prefix, which no account may
# have, keeps them apart from registered names.
VISITOR_PREFIX = "guest_"
VISITOR_LETTERS = 5


def user_zone(timezone: str) -> zoneinfo.ZoneInfo:
    """The zone a user's `timezone` setting names; UTC for an unknown name, so that a stale
    setting never breaks a line."""
    try:
        return zoneinfo.ZoneInfo(timezone)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return zoneinfo.ZoneInfo("UTC")


def utc_time(moment: datetime.datetime) -> str:
    """`Mon Nov 30 10:31:52 2026 UTC`; `moment` is aware."""
    return f"{moment.astimezone(datetime.timezone.utc):%a %b %d %H:%M:%S %Y} UTC"


def date_line(now: datetime.datetime, timezone: str = "UTC") -> str:
    """`Monday, November 30 10:31:52 UTC   ( Mon Nov 30 10:31:52 2026 UTC )`; `now` is aware."""
    local = now.astimezone(user_zone(timezone))
    return f"{local:%A, %B %d %H:%M:%S} {local.tzname()}   ( {utc_time(now)} )"


def wrong_login_prompt(clip: bool) -> str:
    """A name and password that match no account: FIBS asks for the login again, without a
    word. A CLIP client's line was not echoed: the prompt starts on a line of its own."""
    return refusal("wrong_login", ("\r\n" if clip else "") + LOGIN_PROMPT)


def banner(now: datetime.datetime) -> list[str]:
    return [*BANNER_ART, "", date_line(now)]


def name_error(name: str) -> str | None:
    """FIBS's complaint about a wanted user name, or None if the name is acceptable."""
    if not name or not all(c.isascii() and (c.isalpha() or c == "_") for c in name):
        return refusal("name_letters",
                       "** Your name may only contain letters and the underscore character _ .")
    if len(name) > MAX_NAME_LENGTH:
        return refusal("name_too_long",
                       f"** Please use a name with at most {MAX_NAME_LENGTH} characters.",
                       most=MAX_NAME_LENGTH)
    if len(name) < MIN_NAME_LENGTH:
        return refusal("name_too_short",
                       f"** Please use a name with at least {MIN_NAME_LENGTH} characters.",
                       least=MIN_NAME_LENGTH)
    return None


def name_taken(name: str) -> str:
    return refusal("name_taken",
                   f"** Please use another name. '{name}' is already used by someone else.",
                   name=name)


def name_accepted(name: str) -> list[str]:
    return [f"Your name will be {name}",
            "Type in no password and hit Enter/Return if you want to change it now."]


def password_error(password: str) -> RefusalText | None:
    """The complaint about a new password, or None. (`:` separates `password` arguments.)"""
    if len(password) < MIN_PASSWORD_LENGTH:
        return refusal("password_too_short",
                       f"Minimal password length is {MIN_PASSWORD_LENGTH} characters.",
                       least=MIN_PASSWORD_LENGTH)
    if len(password) > MAX_PASSWORD_LENGTH:  # lines are 7-bit: a character is a byte
        return refusal("password_too_long",
                       f"Please use a password of at most {MAX_PASSWORD_LENGTH} characters.",
                       most=MAX_PASSWORD_LENGTH)
    if " " in password:  # `login` and `connect` take the password as one word
        return refusal("password_blank", "Your password may not contain blanks.")
    if ":" in password:
        return refusal("password_colon", "Your password may not contain ':'")
    return None


LINE_TOO_LONG = refusal("line_too_long", "** Your line was too long and has been ignored.")
NO_PASSWORD_GIVEN = refusal("no_password_given", "** No password given. Please choose a new name")
# A password that could not be checked now (too many checks waiting): not called wrong.
# Ours (FIBS has none); a `** ` line, which no classifier takes for the login's success.
PASSWORD_CHECKS_BUSY = refusal("password_checks_busy", "** Too many logins are being checked "
                               "right now. Please log in again in a moment.")
TOO_MANY_REGISTRATIONS = refusal("too_many_registrations",
                                 "** Too many new accounts from your address. Please try again later.")
REGISTERED = ("You are registered.", "Type 'help beginner' to get started.")
# A login or registration that failed inside the server (the connection is closed next).
LOGIN_FAILED = refusal("login_failed",
                       "** Sorry, the server could not log you in. Please try again later.")
# An action on a match that could not be stored, and so did not happen.
NOT_STORED = refusal("not_stored", "** The server could not store that. Please try again.")
ALREADY_LOGGED_IN = notice("** Warning: You are already logged in.")


def logged_in_again(host: str) -> str:
    """To the old connection of a user who logged in again (it is closed next)."""
    return notice(f"** You logged in again from {host}. This connection is closed.")


def no_one_called(name: str) -> str:
    """The reply when a name matches nobody online."""
    return refusal("no_such_user", f"** There is no one called {name}.", name=name)


def authenticated(name: str) -> str:
    return notice(f"** User {name} authenticated.")


def last_login(when: datetime.datetime, host: str | None, timezone: str) -> str:
    return notice(f"** Last login: {date_line(when, timezone)} from {host or '-'}")


# --- logging in and out ------------------------------------------------------------------------

def logs_in(name: str) -> str:
    """To everyone with `notify`."""
    return f"{name} logs in."


class Departure(enum.Enum):
    """How a user went, as the notices to the others say it."""
    LOGGED_OUT = "logs out"
    DROPPED = "drops connection"
    TIMED_OUT = "timed out"


def departed(name: str, departure: Departure) -> str:
    """To everyone with `notify`: a timeout reads as a dropped connection."""
    verb = Departure.DROPPED if departure is Departure.TIMED_OUT else departure
    return f"{name} {verb.value}."


def game_saved_after(name: str, departure: Departure) -> str:
    """To the opponent and the watchers of a player who went during a match."""
    if departure is Departure.TIMED_OUT:
        return f"Connection with {name} timed out. The game was saved."
    return f"{name} {departure.value}. The game was saved."


def match_goes_on_elsewhere(opponent: str) -> str:
    """To a player whose match another server node took over (its players resumed it there):
    it stops here, and goes on from what that node stored."""
    return notice(f"** Your match with {opponent} goes on elsewhere. "
                  f"Invite {opponent} again to resume it.")


CONNECTION_TIMED_OUT = "Connection timed out."
# A command that failed inside the server (the failure is logged).
COMMAND_FAILED = refusal("command_failed",
                         "** Sorry, the server could not do that. It has been logged.")


def plural(count: int, singular: str, plural_form: str | None = None) -> str:
    """`1 point`, `2 points`: FIBS uses the singular only for exactly one."""
    return f"{count} {singular if count == 1 else plural_form or singular + 's'}"

# `undo` against a bot (not in FIBS).
UNDO_ONLY_AGAINST_BOTS = refusal("undo_only_against_bots", "** You can only undo in a match against a bot.")
NOTHING_TO_UNDO = refusal("nothing_to_undo", "** There is nothing to undo.")
UNDONE = "You take back your last decision. This match is not rated any more."


def bot_usage(levels: list[str]) -> str:
    """A refusal in FIBS's usage form (`** usage: message <user> <text>`)."""
    return refusal("bot_usage", f"** usage: bot [{'|'.join(levels)}] [1|3|5|7|...|unlimited] [unrated]")

# `bot` on a node of several where the bots are not online (another node holds them).
BOTS_ELSEWHERE = refusal("bots_elsewhere", "** The bots are not on this server just now. "
                         "Please try again shortly.")

# Visitors: `bot` at the login prompt, without an account.
VISITORS_PLAY_BOTS = refusal("visitors_play_bots", "** Visitors without an account play the bots "
                             "only. Log in as 'guest' to register.")
NOT_FOR_VISITORS = refusal("not_for_visitors", "** Visitors without an account can't do that. "
                           "Log in as 'guest' to register.")
# A visitor refused at the login prompt (its connection is closed after the line).
TOO_MANY_VISITORS = refusal("too_many_visitors", "** Too many visitors are playing now. Please try "
                            "again later, or log in as 'guest' to register.")
TOO_MANY_VISITORS_FROM_ADDRESS = refusal(
    "too_many_visitors_from_address", "** Too many visitors from your address. Please try again "
    "later, or log in as 'guest' to register.")
NO_VISITOR_NAME_FREE = refusal("no_visitor_name_free",
                               "** No visitor name is free just now. Please try again later.")
# A bot match refused (`bot`, or a bot's answer to `invite`).
TOO_MANY_BOT_MATCHES = refusal("too_many_bot_matches", "** The bots are playing as many matches "
                               "as they may. Please try again later.")
TOO_MANY_BOT_MATCHES_FROM_ADDRESS = refusal(
    "too_many_bot_matches_from_address", "** Too many bot matches from your address. Please try "
    "again when one of them has ended.")


def same_answer_refused(times: int) -> str:
    """Before the connection closes: a login-dialogue prompt got one refused answer `times`
    times in a row (a program re-sending it would be answered for ever)."""
    return refusal("same_answer_refused",
                   f"** The same answer was refused {times} times in a row. Goodbye.", times=times)
