"""Entrants of a tournament played over the wire: each a CLIP client that answers every line
of its matches for the whole tournament, as a gnubg process (tests/e2e/gnubg_player.py) or
an e2e bot (tests/e2e/bot.py) decides, and keeps every line for the test to read. The
director starts their matches itself; an entrant only plays them (and a dropout leaves one
in the middle)."""
from __future__ import annotations

import re
from typing import Protocol

from tests.e2e.client import ExpectationFailed, FibsClient

QUIET = 600.0  # seconds an entrant waits for a line: its opponent may think, or it may wait
MATCH_BEGINS = re.compile(r"\*\* (You are now playing an? .*|Player \S+ has joined you for .*)")
MATCH_RESUMED = re.compile(r"(You are now playing with \S+|\S+ has joined you)\. "
                           r"Your running match was loaded\.")
MATCH_END = re.compile(r"(You win|\S+ wins) the \d+ point match \d+-\d+ \.")


class Decider(Protocol):
    async def react(self, line: str) -> None: ...


class Entrant:
    """One entrant's connection for the tournament (in the durability tests, for one run of
    the server)."""

    def __init__(self, name: str, client: FibsClient, decider: Decider,
                 drop_after_boards: int | None = None, backlog: list[str] | None = None
                 ) -> None:
        self.name = name
        self.client = client
        # Lines the server sent before the entrant ran (a match resumed as it logged in),
        # answered first: skipped, its turn would wait for the turn clock.
        self.backlog = list(backlog or [])
        self.decider = decider
        self.drop_after_boards = drop_after_boards  # leave the first match after this many
        self.dropped = False
        self.boards_of_match = 0
        self.boards: list[str] = []  # this match's, oldest first
        self.resumed_board: str | None = None  # the first board of the match resumed last
        self.resuming = False
        self.lines: list[str] = []
        self.matches_begun = 0
        self.matches_ended = 0

    async def run(self) -> None:
        """Answer the server until the connection ends (or this entrant drops out)."""
        while True:
            try:
                line = (self.backlog.pop(0) if self.backlog
                        else await self.client.read_line(timeout=QUIET))
            except (ExpectationFailed, ConnectionError):
                return
            self.lines.append(line)
            if MATCH_BEGINS.fullmatch(line):
                self.matches_begun += 1
                self.boards_of_match, self.boards = 0, []
            elif MATCH_RESUMED.fullmatch(line):
                self.resuming = True
            elif MATCH_END.fullmatch(line):
                self.matches_ended += 1
            elif line.startswith("board:"):
                self.boards_of_match += 1
                self.boards.append(line)
                if self.resuming:
                    self.resuming, self.resumed_board = False, line
                if self.boards_of_match == self.drop_after_boards and not self.dropped:
                    self.dropped = True
                    await self.client.close()
                    return
            try:
                await self.decider.react(line)
            except (ConnectionError, OSError):
                return  # the server went away while we answered


async def join_with_rawboards(clients: dict[str, FibsClient], tournament_id: int) -> None:
    """Each client joins the tournament, and asks for a raw board after every roll (what an
    entrant reads its turns from)."""
    for name, client in clients.items():
        await client.send(f"tournament join {tournament_id}")
        await client.skip_until(f"Tournament {tournament_id}: {name} has joined.")
        await client.send("toggle moreboards")
        await client.skip_until("** Will send rawboards after rolling.")


MATCH_WITH = re.compile(r"\*\* (?:You are now playing an? .* match with (\S+?)\.?"
                        r"|Player (\S+) has joined you for .*)")


def opponent_named(line: str) -> str | None:
    """The opponent a match's first line names (as inviter or as invitee), else None."""
    begun = MATCH_WITH.fullmatch(line)
    return None if begun is None else begun[1] or begun[2]
