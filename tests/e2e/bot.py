"""A CLIP bot for end-to-end tests: it reads the server's lines and boards like a real FIBS
bot does, picks its plays with the rules engine (a chooser decides which legal play), and
checks every board line it sees (52 fields, 15 checkers per side, 3 in hypergammon)."""
from __future__ import annotations

import random
from collections.abc import Callable

from fibs_server.protocol.views.board import BoardView, parse_board_line
from fibs_server.rules import Play, Position
from fibs_server.rules.board.notation import format_play
from tests.e2e.client import FibsClient
from tests.protocol.board_checks import assert_checker_counts

Chooser = Callable[[list[Play]], Play]


class Bot:
    def __init__(self, client: FibsClient, name: str, chooser: Chooser | None = None,
                 doubles: bool = False, seed: int = 0, checkers_per_side: int = 15) -> None:
        self.client = client
        self.name = name
        self.random = random.Random(seed)
        self.chooser = chooser or self.random.choice
        self.doubles = doubles  # double whenever asked to roll or double
        self.checkers_per_side = checkers_per_side
        self.board: BoardView | None = None
        self.boards_seen = 0
        self.lines: list[str] = []
        self.refusals: list[str] = []
        self.move_after_board = False  # the opening: `It's your turn to move.` precedes the board
        self.sent: str | None = None  # the last command, until the server's first answer to it

    async def play_until(self, done: Callable[[str], bool], max_lines: int = 20000) -> str:
        """Answer the server until a line satisfies `done`; return that line."""
        for _ in range(max_lines):
            line = await self.client.read_line()
            self.lines.append(line)
            if done(line):
                return line
            await self.react(line)
        raise AssertionError(f"{self.name}: no end after {max_lines} lines")

    async def send(self, command: str) -> None:
        self.sent = command
        await self.client.send(command)

    async def react(self, line: str) -> None:
        if self.sent is not None:
            # The first line after a command answers it: a `** ` line there is a refusal.
            if line.startswith("** ") and not line.startswith("** Please wait for"):
                self.refusals.append(f"{self.sent!r}: {line}")
            self.sent = None
        if line.startswith("board:"):
            assert_checker_counts(line, self.checkers_per_side)
            self.board = parse_board_line(line, self.checkers_per_side)
            self.boards_seen += 1
            if self.move_after_board:
                self.move_after_board = False
                await self.send("move " + self.choose_play())
        elif line == "It's your turn to roll or double.":
            await self.send("double" if self.doubles else "roll")
        elif line == "It's your turn to move.":
            self.move_after_board = True
        elif line.startswith("Please move "):  # after the board that `moreboards` sends
            await self.send("move " + self.choose_play())
        elif line.endswith("doubles. Type 'accept' or 'reject'."):
            await self.send("accept")
        elif "wants to resign. You will win" in line:
            await self.send("accept")
        elif line.startswith("Type 'join' if you want to play the next game"):
            await self.send("join")

    def choose_play(self) -> str:
        board = self.board
        assert board is not None and board.turn == "player"
        dice = board.player_dice
        position = Position((board.player_checkers, board.opponent_checkers),
                            self.checkers_per_side)
        plays = position.legal_plays(dice)
        assert plays, f"{self.name} was asked to move without a legal play"
        return format_play(self.chooser(plays), board.player_colour)
