"""A CLIP player whose every decision is GNU Backgammon's, as in a real gnubg-based FIBS bot.

It sends every `board:` line it receives to gnubg's `external` interface (one gnubg process
per player) and, when that board is a decision for it, sends gnubg's answer to the server:
a play (translated to FIBS's absolute points), `roll`, `double`, `accept` or `reject`.
Nothing of fibs_server's engine or board parser is used. It records every line, every
refused decision (a `** ` line answering it) and every board that fails the checks written
here from FIBS-PROTOCOL.md §7 (52 fields, 15 checkers a side; dice 0:0 after the opponent's
move).
"""
from __future__ import annotations

import asyncio
import re
import socket
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

from tests.e2e.client import ExpectationFailed, FibsClient

GNUBG = Path("/usr/games/gnubg")
# Startup commands: no beavers (1.07 ignores a per-request `beavers no`), 0-ply for speed.
GNUBG_SETUP = ("set beavers 0\n"
               "set evaluation chequerplay evaluation plies 0\n"
               "set evaluation cubedecision evaluation plies 0\n")
STALL = 5.0  # seconds without a line: the game is stuck
ROLL_PROMPT = "It's your turn to roll or double."
PLEASE_MOVE = re.compile(r"Please move [1-4] pieces?\.")
JOIN_OR_LEAVE = "Type 'join' if you want to play the next game, type 'leave' if you don't."
MOVE_LINE = re.compile(r"(\S+) moves .* \.")
DOUBLED = re.compile(r"(\S+) doubles\. Type 'accept' or 'reject'\.")
RESIGNS = re.compile(r"(\S+) wants to resign\. You will win (\d+) points?\. "
                     r"Type 'accept' or 'reject'\.")
RESIGNATION_ANSWERED = re.compile(r"\S+ (accepts and wins \d+ points?|rejects)\. ?.*")
# The `** ` lines that refuse nothing: starting a match, and `join` waiting for the other.
NOT_REFUSALS = re.compile(r"\*\* (You invited \S+ to .*|Player \S+ has joined you for .*|"
                          r"You are now playing .*|Please wait for \S+ to join too\.)")
AUTOBOARD = {"** The board will be refreshed after every move.": True,
             "** The board won't be refreshed after every move.": False}
# gnubg's cube and resignation answers, as FIBS commands.
COMMANDS = {"roll": "roll", "double": "double", "take": "accept", "drop": "reject",
            "accept": "accept", "reject": "reject"}
PLAY_STEP = re.compile(r"(\d+)/(\d+)\*?")  # `*` marks a hit


class GnubgEngine:
    """One gnubg process listening on `external 127.0.0.1:PORT`."""

    def __init__(self, directory: Path) -> None:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        commands = directory / f"gnubg-{self.port}.txt"
        commands.write_text(GNUBG_SETUP + f"external 127.0.0.1:{self.port}\n")
        self.process = subprocess.Popen([GNUBG, "-t", "-q", "-r", "-c", commands],
                                        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                        stderr=subprocess.DEVNULL)

    def wait_listening(self, seconds: float = 30.0) -> None:
        """gnubg loads its databases first; it listens again after this probe disconnects."""
        deadline = time.monotonic() + seconds
        while True:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=5).close()
                return
            except ConnectionRefusedError:
                if time.monotonic() > deadline or self.process.poll() is not None:
                    raise
                time.sleep(0.1)

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=10)


class GnubgConnection:
    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer

    @classmethod
    async def open(cls, engine: GnubgEngine) -> GnubgConnection:
        """gnubg serves one client at a time and listens again shortly after it leaves."""
        deadline = asyncio.get_running_loop().time() + STALL
        while True:
            try:
                return cls(*await asyncio.open_connection("127.0.0.1", engine.port))
            except ConnectionRefusedError:
                if asyncio.get_running_loop().time() > deadline:
                    raise
                await asyncio.sleep(0.05)

    async def ask(self, request: str) -> str:
        """One request, one reply line (gnubg drops anything after a read's first newline,
        so requests are never pipelined)."""
        self.writer.write(request.encode("ascii") + b"\n")
        reply = await asyncio.wait_for(self.reader.readline(), STALL)
        return reply.decode("ascii").strip()

    def close(self) -> None:
        self.writer.close()


def board_problems(line: str) -> list[str]:
    """What is wrong with a boardstyle-3 line: 52 fields after `board:` (2 names, 50
    integers); 15 checkers per side on points 1-24, the bars (index 0 for X, 25 for O) and
    borne off; bar fields 47/48 agreeing with the board."""
    fields = line.removeprefix("board:").split(":")
    if len(fields) != 52:
        return [f"{len(fields)} fields"]
    try:
        number = {index: int(fields[index - 1]) for index in range(3, 53)}
    except ValueError:
        return ["a non-integer field"]
    points = [number[index] for index in range(6, 32)]  # board[0..25]
    colour = number[41]
    own_off, other_off = number[45], number[46]
    o_off, x_off = (own_off, other_off) if colour == 1 else (other_off, own_off)
    o_bar, x_bar = points[25], -points[0]
    problems = []
    o_total = sum(count for count in points if count > 0) + o_off
    x_total = -sum(count for count in points if count < 0) + x_off
    if (o_total, x_total) != (15, 15):
        problems.append(f"O has {o_total} checkers, X has {x_total}")
    if (number[47], number[48]) != ((o_bar, x_bar) if colour == 1 else (x_bar, o_bar)):
        problems.append(f"bar fields {number[47]}:{number[48]} but O bar {o_bar}, X bar {x_bar}")
    return problems


def for_gnubg(line: str, resignation: int | None = None) -> str:
    """The board as gnubg 1.07 reads it: it takes the two score fields swapped."""
    fields = line.split(":")
    fields[4], fields[5] = fields[5], fields[4]
    request = ":".join(fields)
    return request if resignation is None else f"{request} resignation {resignation}"


def fibs_move(play: str, colour: int) -> str:
    """gnubg's `8/5 6/3* ` (mover's own numbering, 25 = bar, 0 = off, one pair per die) as a
    FIBS `move` in absolute points: O's own numbering is absolute, X's point p is 25 - p."""
    def point(own: int) -> str:
        if own == 25:
            return "bar"
        if own == 0:
            return "off"
        return str(own if colour == 1 else 25 - own)

    steps = play.split()
    pairs = [PLAY_STEP.fullmatch(step) for step in steps]
    if not steps or not all(pairs):
        raise AssertionError(f"gnubg answered {play!r}, not a play of from/to pairs")
    return "move " + " ".join(f"{point(int(p[1]))}-{point(int(p[2]))}" for p in pairs)


class GnubgPlayer:
    def __init__(self, client: FibsClient, name: str, engine: GnubgEngine,
                 leave_after_games: int | None = None) -> None:
        self.client = client
        self.name = name
        self.engine = engine
        self.gnubg: GnubgConnection | None = None
        self.leave_after_games = leave_after_games  # `leave` instead of the next `join`
        self.lines: list[str] = []
        self.boards: list[str] = []
        self.decisions: list[tuple[str, str, str]] = []  # (board, gnubg's answer, command)
        self.refused: list[str] = []
        self.problems: list[str] = []
        self.games_ended = 0
        self.board_requests = 0
        self.autoboard = True
        self.moment = 0  # counts the lines that change what the player is asked
        self.board_moment = -1  # the moment of the latest board
        self.acted_moment = -1  # the moment of the latest decision sent
        self.latest: tuple[str, str] | None = None  # (board, gnubg's answer)
        self.answer_next_board = False  # a prompt came without its board: `board` was sent
        self.resign_points: int | None = None
        self.after_opponent_move = False
        self.last_decision: str | None = None
        self.resigning = False  # this player offered to resign: it decides nothing until answered

    async def start(self) -> GnubgPlayer:
        self.gnubg = await GnubgConnection.open(self.engine)
        return self

    def reconnected(self, client: FibsClient) -> None:
        """A new login after a dropped connection; gnubg's connection stays."""
        self.client = client
        self.answer_next_board = False

    def close(self) -> None:
        if self.gnubg is not None:
            self.gnubg.close()

    async def set_up(self, *toggles: str) -> None:
        """Boardstyle 3 and the toggles the test wants (each answers with one `** ` line)."""
        await self.client.send("set boardstyle 3")
        await self.client.skip_until("Value of 'boardstyle' set to 3.")
        for toggle in toggles:
            await self.client.send(f"toggle {toggle}")
            while not (reply := await self.client.read_line()).startswith("** "):
                pass  # who-lines of the other player's `ready`
            self.observe(reply)

    async def resign(self, kind: str) -> None:
        """Offer to resign by hand (gnubg never resigns through `external`)."""
        self.resigning = True
        self.last_decision = f"resign {kind}"
        await self.client.send(self.last_decision)

    def observe(self, line: str) -> None:
        if line in AUTOBOARD:
            self.autoboard = AUTOBOARD[line]

    async def play_until(self, done: Callable[[str], bool]) -> str:
        """Answer the server until a line satisfies `done`; return that line."""
        while True:
            try:
                line = await self.client.read_line(timeout=STALL)
            except ExpectationFailed as stalled:
                raise AssertionError(f"{self.name} stalled: {stalled}\n" + self.report()) from None
            self.lines.append(line)
            if done(line):
                return line
            await self.react(line)

    def report(self) -> str:
        return "\n".join([f"refused: {self.refused}", f"problems: {self.problems[:10]}",
                          "last lines:", *self.lines[-25:]])

    async def react(self, line: str) -> None:
        if line.startswith("** ") and not NOT_REFUSALS.fullmatch(line):
            # Lines already on their way may come first, so a refusal is not always the
            # next line; each command of ours it could answer is a decision or `board`.
            self.refused.append(f"after {self.last_decision!r}: {line}")
        if line.startswith("board:"):
            await self.on_board(line)
            return
        self.observe(line)
        if RESIGNATION_ANSWERED.fullmatch(line):
            self.resigning = False
        if line == ROLL_PROMPT or PLEASE_MOVE.fullmatch(line):
            await self.on_prompt(line)
            return
        self.moment += 1
        moved = MOVE_LINE.fullmatch(line)
        # autoboard's board right after `<opp> moves ... .` must show the roll still to come
        self.after_opponent_move = moved is not None and moved[1] != self.name
        if DOUBLED.fullmatch(line) and not self.autoboard:
            await self.request_board(answer_it=False)
        elif resigning := RESIGNS.fullmatch(line):
            self.resign_points = int(resigning[2])
            await self.request_board(answer_it=True)
        elif line == JOIN_OR_LEAVE:
            self.games_ended += 1
            await self.client.send("leave" if self.games_ended == self.leave_after_games else "join")

    async def on_prompt(self, line: str) -> None:
        fresh = self.board_moment == self.moment and self.latest is not None
        if line == ROLL_PROMPT and fresh:
            await self.decide(*self.latest)
        elif line == ROLL_PROMPT or (self.acted_moment != self.moment and not fresh):
            await self.request_board(answer_it=line == ROLL_PROMPT)
        elif self.acted_moment != self.moment:
            self.problems.append(f"{line!r} after a board that is no move: {self.latest}")

    async def request_board(self, answer_it: bool) -> None:
        self.answer_next_board = answer_it
        self.board_requests += 1
        await self.client.send("board")

    async def on_board(self, line: str) -> None:
        self.boards.append(line)
        problems = board_problems(line)
        fields = line.split(":")
        if self.after_opponent_move:
            self.after_opponent_move = False
            if len(fields) == 53 and fields[33:35] != ["0", "0"]:
                problems.append("own dice after the opponent's move are not 0:0")
        if problems:
            self.problems.append(f"{'; '.join(problems)}: {line}")
            if len(fields) != 53 or "a non-integer field" in problems:
                return  # nothing gnubg could read
        assert self.gnubg is not None
        resignation = None
        if self.resign_points is not None:
            resignation = self.resign_points // int(fields[37])
        answer = await self.gnubg.ask(for_gnubg(line, resignation))
        if answer.startswith("Error") and fields[32] != "0":
            # gnubg 1.07 rejects every game-over board (turn 0); any other is a real error
            raise AssertionError(f"{self.name}: gnubg answered {answer!r} to {line}")
        self.latest = (line, answer)
        self.board_moment = self.moment
        was_doubled = fields[40] == "1"
        my_turn = fields[32] == fields[41]
        can_move = my_turn and fields[33:35] != ["0", "0"] and int(fields[49]) > 0
        if self.answer_next_board:
            self.answer_next_board = False
            self.resign_points = None
            await self.decide(line, answer)
        elif (was_doubled or can_move) and self.acted_moment != self.moment:
            await self.decide(line, answer)

    async def decide(self, board: str, answer: str) -> None:
        """Send gnubg's answer as the FIBS command it means."""
        if self.resigning:
            return
        command = COMMANDS.get(answer) or fibs_move(answer, int(board.split(":")[41]))
        self.decisions.append((board, answer, command))
        self.acted_moment = self.moment
        self.last_decision = command
        await self.client.send(command)
