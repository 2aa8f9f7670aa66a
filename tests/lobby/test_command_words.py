"""Every word that names a command (a whole name, a fixed short form, an alias, a unique
prefix) names the command it named when this fixture was taken: a new command may take only
words that named nothing (`ping` once took `pi` from `pip`, and every other test passed).
The fixture, command_words.txt, is the server's full vocabulary (its bots and analysis on):
one `word command` a line. A new command adds its own lines; regenerate them with
`.venv/bin/python -m tests.lobby.test_command_words` and read the diff: a changed line is
an abbreviation taken from a command that answered it."""
from __future__ import annotations

from pathlib import Path

from fibs_server.lobby import (
    admin_commands,
    analysis_commands,
    archive_commands,
    bot_commands,
    chat_commands,
    fair_commands,
    game_commands,
    server_commands,
    table_commands,
    tournament_commands,
    user_commands,
)
from fibs_server.protocol import commands

FIXTURE = Path(__file__).with_name("command_words.txt")


def all_commands() -> commands.CommandWords:
    """The user commands of a server with every table (app.py's, bots and analysis on)."""
    tables = [user_commands.table, game_commands.table, archive_commands.table,
              chat_commands.table, admin_commands.table, server_commands.table,
              table_commands.table, fair_commands.table,
              analysis_commands.command_table(None, None),  # type: ignore[arg-type]
              bot_commands.command_table(None),  # type: ignore[arg-type]
              tournament_commands.command_table(None, None)]  # type: ignore[arg-type]
    return commands.CommandWords(declared.facts for table in tables
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
