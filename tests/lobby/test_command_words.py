"""Every word that names a command (a whole name, a fixed short form, an alias, a unique
prefix) names the command it named when this fixture was taken: a new command may take only
words that named nothing (`ping` once took `pi` from `pip`, and every other test passed).
The fixture, command_words.txt, is the server's full vocabulary (its bots and analysis on):
one `word command` a line. A new command adds its own lines; regenerate them with
`.venv/bin/python -m tests.lobby.test_command_words` and read the diff: a changed line is
an abbreviation taken from a command that answered it."""
from __future__ import annotations

import importlib
import inspect
import pkgutil
from pathlib import Path

import fibs_server.lobby.commands
from fibs_server.lobby.command_table import CommandTable
from fibs_server.protocol import commands

FIXTURE = Path(__file__).with_name("command_words.txt")


def command_tables() -> list[CommandTable]:
    """Every command module's table (`*_commands`), as its `command_table` makes it (given
    nothing: its handlers are not called here)."""
    tables = []
    for module_info in pkgutil.iter_modules(fibs_server.lobby.commands.__path__):
        if module_info.name.endswith("_commands"):
            module = importlib.import_module(f"fibs_server.lobby.commands.{module_info.name}")
            make = module.command_table
            tables.append(make(*(None for _ in inspect.signature(make).parameters)))
    return tables


def all_commands() -> commands.CommandWords:
    """The user commands of a server with every table (app.py's, bots and analysis on)."""
    return commands.CommandWords(declared.facts for table in command_tables()
                                 for declared in table.commands.values())


def resolutions() -> dict[str, str]:
    """word -> the command it names, for every word that names one."""
    words = all_commands()
    typed = {name[:length] for name in words for length in range(1, len(name) + 1)}
    typed |= {*words.short_forms, *words.aliases}
    found = {}
    for word in sorted(typed):
        try:
            found[word] = commands.resolve(word, words).name
        except commands.UnknownCommand:
            continue
    return found


def fixture() -> dict[str, str]:
    return dict(line.split() for line in FIXTURE.read_text().splitlines())


def test_no_word_names_another_command_than_it_did():
    now = resolutions()
    changed = {word: (then, now.get(word, "nothing")) for word, then in fixture().items()
               if now.get(word) != then}
    assert not changed, f"words that named one command name another now (then, now): {changed}"


def test_the_fixture_lists_every_word():
    added = sorted(f"{word} {name}" for word, name in resolutions().items()
                   if word not in fixture())
    assert not added, f"new words, to add to {FIXTURE.name} once checked: {added}"


if __name__ == "__main__":
    FIXTURE.write_text("".join(f"{word} {name}\n" for word, name in resolutions().items()))
