"""The `toggle` and `set` commands' texts and value rules (FIBS's; docs/PROTOCOL.md)."""
from __future__ import annotations

import zoneinfo
from collections.abc import Mapping

from fibs_server.protocol.commands import ambiguous, completions
from fibs_server.protocol.wording.coded_texts import RefusalText, notice, refusal

# (YES text, NO text) per toggle, in the order `toggle` lists them.
TOGGLE_TEXTS: dict[str, tuple[str, str]] = {
    # "the use the" (sic): FIBS's own words, which every FIBS message classifier matches.
    "allowpip": ("** You allow the use the server's 'pip' command.",
                 "** You don't allow the use of the server's 'pip' command."),
    "autoboard": ("** The board will be refreshed after every move.",
                  "** The board won't be refreshed after every move."),
    "autodouble": ("** You agree that doublets during opening double the cube.",
                   "** You don't agree that doublets during opening double the cube."),
    "automove": ("** Forced moves will be done automatically.",
                 "** Forced moves won't be done automatically."),
    "bell": ("** Your terminal will ring the bell if someone talks to you or invites you",
             "** Your terminal won't ring the bell if someone talks to you or invites you"),
    "crawford": ("** You insist on playing with the Crawford rule.",
                 "** You would like to play without using the Crawford rule."),
    "double": ("** You will be asked if you want to double.",
               "** You won't be asked if you want to double."),
    "greedy": ("** Will use automatic greedy bearoffs.",
               "** Won't use automatic greedy bearoffs."),
    "moreboards": ("** Will send rawboards after rolling.",
                   "** Won't send rawboards after rolling."),
    "moves": ("** You want a list of moves after this game.",
              "** You won't see a list of moves after this game."),
    "notify": ("** You'll be notified when new users log in.",
               "** You won't be notified when new users log in."),
    "ratings": ("** You'll see how the rating changes are calculated.",
                "** You won't see how the rating changes are calculated."),
    "ready": ("** You're now ready to invite or join someone.",
              "** You're now refusing to play with someone."),
    "report": ("** You will be informed about starting and ending matches.",
               "** You won't be informed about starting and ending matches."),
    "silent": ("** You won't hear what other players shout.",
               "** You will hear what other players shout."),
    "telnet": ("** You use telnet and don't need extra 'newlines'.",
               "** You use a client program and will receive extra 'newlines'."),
    # FCM's mapping (see docs/PROTOCOL.md): wrap YES = the terminal wraps.
    "wrap": ("** Your terminal knows how to wrap long lines.",
             "** The server will wrap long lines."),
}
# They answer `toggle`: no refusals.
TOGGLE_TEXTS = {name: (notice(yes), notice(no)) for name, (yes, no) in TOGGLE_TEXTS.items()}
TOGGLE_ALIASES = {"autoroll": "double"}


class ToggleError(ValueError):
    """A word that names no toggle, or several; `args[0]` is the reply (coded: `str(error)`
    would be a plain str)."""


def resolve_toggle(word: str) -> str:
    """The toggle a word names: exact name, alias, or unique prefix; ToggleError if none or
    several."""
    candidates = completions(word, [*TOGGLE_TEXTS, *TOGGLE_ALIASES])
    targets = {TOGGLE_ALIASES.get(c, c) for c in candidates}
    if not targets:
        raise ToggleError(refusal("unknown_toggle", f"** Don't know how to toggle {word}",
                                  word=word))
    if len(targets) > 1:
        raise ToggleError(ambiguous(word, candidates))
    return targets.pop()


def toggle_reply(name: str, value: bool) -> str:
    return TOGGLE_TEXTS[name][0 if value else 1]


def toggle_table(toggles: Mapping[str, bool]) -> list[str]:
    return ["The current settings are:",
            *(f"{name:<15} {'YES' if toggles[name] else 'NO'}" for name in TOGGLE_TEXTS)]


# --- set -------------------------------------------------------------------------------

INVALID_SETTING = refusal("invalid_setting", "** Invalid argument. Type 'help set'.")
SETTING_ORDER = ("boardstyle", "linelength", "pagelength", "redoubles", "sortwho", "timezone")
SORTWHO_VALUES = ("login", "name", "rating", "rrating")


class SettingError(ValueError):
    """A refused `set` value; `args[0]` is FIBS's reply (coded: `str(error)` would be a plain
    str)."""


def _number(value: str, low: int, high: int, error: RefusalText) -> str:
    if not value.isdigit() or not low <= int(value) <= high:
        raise SettingError(error)
    return str(int(value))


def normalise_setting(name: str, value: str) -> str:
    """The stored form of a `set` value, or SettingError with FIBS's text."""
    if name == "boardstyle":
        return _number(value, 1, 3, refusal("boardstyle_values",
                                            "** Valid arguments are the numbers 1 to 3."))
    if name in ("linelength", "pagelength"):
        return _number(value, 0, 999, refusal("length_setting_values",
                                              "** Valid arguments are the numbers 0 to 999. "
                                              f"Use 0 for no {name}.", setting=name))
    if name == "redoubles":
        lowered = value.lower()
        if lowered in ("none", "unlimited"):
            return lowered
        if lowered == "0":
            return "none"
        return _number(value, 1, 99, refusal("redoubles_values",
                                             "** Valid arguments are 'none', 'unlimited' "
                                             "or a number from 1 to 99."))
    if name == "sortwho":
        if value.lower() not in SORTWHO_VALUES:
            raise SettingError(refusal("sortwho_values", f"** Unknown value '{value}'. "
                                       "Try 'login', 'name', 'rating' or 'rrating'.",
                                       value=value))
        return value.lower()
    if name == "timezone":
        zones = {z.lower(): z for z in zoneinfo.available_timezones()}
        if value.lower() not in zones:
            raise SettingError(refusal("unknown_timezone", f"** Can't find timezone '{value}'. "
                                       "Try one of: UTC, Europe/London, America/New_York, "
                                       "Asia/Tokyo, ...", timezone=value))
        return zones[value.lower()]
    raise SettingError(INVALID_SETTING)


def setting_set_reply(name: str, value: str) -> str:
    # Quoted words for redoubles: the form the csells test and BGO classifier expect.
    shown = f"'{value}'" if name == "redoubles" and not value.isdigit() else value
    return f"Value of '{name}' set to {shown}."


def setting_value_reply(name: str, value: str) -> str:
    return f"Value of '{name}' is {value}"


def settings_table(settings: Mapping[str, str]) -> list[str]:
    return ["Settings of variables:",
            *(f"{name + ':':<12}{settings[name]}" for name in SETTING_ORDER)]


def redoubles_limit(value: str) -> int | None:
    """The stored `redoubles` setting as a number; None = unlimited."""
    if value == "unlimited":
        return None
    return 0 if value == "none" else int(value)
