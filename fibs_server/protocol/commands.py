"""Turning a typed line into a command name and its arguments, FIBS style.

FIBS accepts any unique prefix of a command, plus a few fixed short forms that win over
ambiguity (`b` = board, `m` = move, `to` = toggle, ...). A line that starts with a number or
the bar is a move (`8 5 6 5`, `bar-5 12-16`): `help move` says `move` may be left out (but `b 22`
alone is `board`, as on FIBS).
"""
from __future__ import annotations

import dataclasses
import re
from collections.abc import Collection, Iterable

from fibs_server.protocol.coded_texts import refusal

# Short forms FIBS fixes regardless of what else a prefix could mean (docs/PROTOCOL.md).
SHORT_FORMS = {"b": "board", "i": "invite", "k": "kibitz", "m": "move", "r": "roll",
               "s": "say", "t": "tell", "w": "who", "wh": "whisper", "res": "resign",
               "to": "toggle",
               "sh": "show"}  # ours: `sh` stays `show` now that `shout` shares the prefix
# Words that are whole commands of their own rather than prefixes.
ALIASES = {"date": "time", "man": "help", "adios": "bye", "ciao": "bye", "end": "bye", "exit": "bye",
           "logout": "bye", "quit": "bye", "tschoe": "bye", "analyze": "analyse"}
# Our extension commands that only their whole word reaches: no abbreviation a classic client
# types (`sa`, `sal`) changes meaning or starts one.
WHOLE_WORD_ONLY = frozenset({"salt"})
# Chat lines are never repeated by `!!` (a repeat would resend someone's words).
NOT_REPEATABLE = frozenset({"shout", "tell", "tellx", "say", "kibitz", "whisper", "message"})
# The first word of a move typed without `move`: a point, or the bar as `bar` or `b-`.
_BARE_MOVE = re.compile(r"\d|bar(?:$|-)|b-")


@dataclasses.dataclass(frozen=True)
class Command:
    name: str  # canonical command name
    word: str  # what the user typed for it
    args: list[str]
    rest: str  # everything after the command word, inner spacing kept (for chat texts)


class UnknownCommand(Exception):
    pass


def split_line(line: str) -> tuple[str, str]:
    """The first word and the rest (leading blanks of the rest removed)."""
    stripped = line.strip()
    word, _, rest = stripped.partition(" ")
    return word, rest.lstrip(" ")


def resolve(line: str, commands: Collection[str]) -> Command:
    """Resolve a line against the available command names; UnknownCommand if none or several."""
    word, rest = split_line(line)
    lowered = word.lower()
    if _BARE_MOVE.match(lowered) and lowered not in commands:
        return Command("move", "", line.split(), line.strip())
    name = ALIASES.get(lowered) if lowered in ALIASES else None
    if name is None and lowered in commands:
        name = lowered
    if name is None and lowered in SHORT_FORMS and SHORT_FORMS[lowered] in commands:
        name = SHORT_FORMS[lowered]
    if name is None and lowered:
        matches = [c for c in commands if c.startswith(lowered) and c not in WHOLE_WORD_ONLY]
        if len(matches) == 1:
            name = matches[0]
    if name is None or name not in commands:
        raise UnknownCommand(line.strip())
    return Command(name, word, rest.split(), rest)


def completions(word: str, names: Iterable[str]) -> list[str]:
    """The names `word` may stand for: itself alone when it is one, else each name it begins
    (for the sub-words of `toggle` and `show`)."""
    word, names = word.lower(), list(names)
    return [word] if word in names else [name for name in names if name.startswith(word)]


def ambiguous(word: str, names: list[str]) -> str:
    return refusal("ambiguous_command",
                   f"** '{word}' could mean {', '.join(names[:-1])} or {names[-1]}.", word=word)


# `!!` before any command.
NO_PREVIOUS_COMMAND = refusal("no_previous_command", "** No previous command.")


def unknown_command(text: str) -> str:
    return refusal("unknown_command", f"** Unknown command: '{text}'", command=text)
