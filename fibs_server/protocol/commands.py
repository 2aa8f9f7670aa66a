"""Turning a typed line into a command name and its arguments, FIBS style, and what each
command is declared to be.

FIBS accepts any unique prefix of a command, plus a few fixed short forms that win over
ambiguity (`b` = board, `m` = move, `to` = toggle, ...). A line that starts with a number or
the bar is a move (`8 5 6 5`, `bar-5 12-16`): `help move` says `move` may be left out (but `b 22`
alone is `board`, as on FIBS).

Each command is declared once, where its handler is registered (lobby/command_table.py):
`CommandFacts` holds its name, its short forms and aliases, and how the lobby treats it
(visitors, forwarding to the node hosting a match, `!!`, pacing); `CommandWords` is the
vocabulary the declarations make.
"""
from __future__ import annotations

import dataclasses
import enum
import re
from collections.abc import Callable, Collection, Iterable, Iterator

from fibs_server.protocol.wording.coded_texts import refusal

# The first word of a move typed without `move`: a point, or the bar as `bar` or `b-`.
_BARE_MOVE = re.compile(r"\d|bar(?:$|-)|b-")


@dataclasses.dataclass(frozen=True)
class Command:
    name: str  # canonical command name
    word: str  # what the user typed for it
    args: list[str]
    rest: str  # everything after the command word, inner spacing kept (for chat texts)


class Forwarding(enum.Enum):
    """Where a command of a user whose match runs on another node is answered (the match's
    host; lobby/play/seats.py)."""
    HOME = "home"  # where they are, as anyone's
    HOST = "host"  # at their seat on the host: it acts on, or reads, the running match
    HOST_WITHOUT_ARGUMENTS = "host without arguments"  # `join`: the next game; with a name, home's
    COPIED = "copied"  # at home, then copied to the seat: the match reads the same toggles


def always(command: Command) -> bool:
    return True


@dataclasses.dataclass(frozen=True)
class HeavyRead:
    """A command that reads the store at length: besides the command rate every line pays
    (net/pacing.py), each use takes a token of the heavy reads' bucket per user
    (lobby/limits/read_limits.py, shared with the JSON API's per address); without one it is refused
    with `too_often(seconds to wait)` before anything is read."""
    too_often: Callable[[int], str]
    uses: Callable[[Command], bool] = always  # which uses read (the others are not paced)


@dataclasses.dataclass(frozen=True)
class CommandFacts:
    """One command as its registration declares it."""
    name: str
    short_forms: tuple[str, ...] = ()  # FIBS's fixed abbreviations: they win over ambiguity
    aliases: tuple[str, ...] = ()  # other whole words for it (reserved: no one's user name)
    visitors: bool = True  # whether a visitor (no account) may use it: nothing of theirs is kept
    forwarded: Forwarding = Forwarding.HOME
    repeatable: bool = True  # whether `!!` repeats it (chat: a repeat would resend the words)
    pacing: HeavyRead | None = None  # None: the command rate only
    # Administrators' only, under its whole name alone: no abbreviation of a user's command
    # changes meaning for them.
    admin: bool = False
    # An extension reached by its whole name alone: no abbreviation a classic client types
    # (`sa`, `sal`) changes meaning or starts it.
    whole_word_only: bool = False
    # Ours, beyond the commands a classic session has always been listed: `commands` names
    # it only to a session that sees our extensions (the web page).
    extension: bool = False

    def at_host(self, command: Command) -> bool:
        """Whether `command`, of a user seated at a match on another node, goes to the seat."""
        return self.forwarded is Forwarding.HOST or (
            self.forwarded is Forwarding.HOST_WITHOUT_ARGUMENTS and not command.args)

    def paced(self, command: Command) -> HeavyRead | None:
        return self.pacing if self.pacing is not None and self.pacing.uses(command) else None


class CommandWords(Collection[str]):
    """The words that name the users' commands, as the declarations make them: the names
    (what the collection holds), the short forms and the aliases."""

    def __init__(self, declared: Iterable[CommandFacts] = ()) -> None:
        facts = [fact for fact in declared if not fact.admin]
        self.names = frozenset(fact.name for fact in facts)
        self.short_forms = {word: fact.name for fact in facts for word in fact.short_forms}
        self.aliases = {word: fact.name for fact in facts for word in fact.aliases}
        self.whole_words_only = frozenset(fact.name for fact in facts if fact.whole_word_only)

    def __contains__(self, name: object) -> bool:
        return name in self.names

    def __iter__(self) -> Iterator[str]:
        return iter(self.names)

    def __len__(self) -> int:
        return len(self.names)

    def other_words(self, name: str) -> list[str]:
        """The short forms and aliases of the command `name`."""
        return [word for word, named in {**self.short_forms, **self.aliases}.items()
                if named == name]


class UnknownCommand(Exception):
    pass


def split_line(line: str) -> tuple[str, str]:
    """The first word and the rest (leading blanks of the rest removed)."""
    stripped = line.strip()
    word, _, rest = stripped.partition(" ")
    return word, rest.lstrip(" ")


def resolve(line: str, words: CommandWords) -> Command:
    """Resolve a line against the commands' words; UnknownCommand if none or several."""
    word, rest = split_line(line)
    lowered = word.lower()
    if _BARE_MOVE.match(lowered) and lowered not in words:
        return Command("move", "", line.split(), line.strip())
    name = words.aliases.get(lowered)
    if name is None and lowered in words:
        name = lowered
    if name is None:
        name = words.short_forms.get(lowered)
    if name is None and lowered:
        matches = [c for c in words
                   if c.startswith(lowered) and c not in words.whole_words_only]
        if len(matches) == 1:
            name = matches[0]
    if name is None or name not in words:
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
