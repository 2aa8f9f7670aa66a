"""Typed lines to commands (protocol/commands.py): `help move` says `move` may be left out."""
from __future__ import annotations

import pytest

from fibs_server.protocol.commands import CommandFacts, CommandWords, resolve

COMMANDS = CommandWords([CommandFacts("board", short_forms=("b",)), CommandFacts("move"),
                         CommandFacts("bye"), CommandFacts("roll"), CommandFacts("who"),
                         CommandFacts("whois"), CommandFacts("watch")])


@pytest.mark.parametrize("line", ["bar-5 12-16", "8-5 6-5", "8 5 6 5", "bar 22 22 16",
                                  "BAR-22", "b-5 4-o"])
def test_a_move_without_move_is_a_move(line):
    command = resolve(line, COMMANDS)
    assert (command.name, command.args) == ("move", line.split())


@pytest.mark.parametrize("line, name", [("b 22", "board"), ("b", "board"), ("bye", "bye"),
                                        ("whois alice", "whois")])
def test_b_alone_stays_board_and_commands_stay_commands(line, name):
    assert resolve(line, COMMANDS).name == name
