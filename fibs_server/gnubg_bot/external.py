"""The gnubg side of the bot: one `gnubg -t` process listening with `external PATH` (a Unix socket),
the one-request-one-reply conversation with it, and the translation between what a FIBS server
sends or takes and what gnubg 1.07's external interface reads and answers (docs/GNUBG-BOT.md)."""
from __future__ import annotations

import asyncio
import re
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import NamedTuple

# Debian installs it in /usr/games, which is not on every PATH.
GNUBG = Path(shutil.which("gnubg") or "/usr/games/gnubg")
ANSWER_TIMEOUT = 60.0  # seconds; 0-ply answers in under a millisecond, 2-ply in about 0.1 s
# gnubg's cube and resignation answers, as FIBS commands. gnubg answers `beaver` to a double
# it would take gladly, beavers off or not; FIBS plays that as a take.
COMMANDS = {"roll": "roll", "double": "double", "take": "accept", "beaver": "accept",
            "drop": "reject", "accept": "accept", "reject": "reject"}
PLAY_STEP = re.compile(r"(\d+)/(\d+)\*?")  # `*` marks a hit
# `evaluation` prints six numbers; below this a probability is printed as 0.000000.
CERTAIN = 1e-6


class GnubgError(Exception):
    """gnubg did not start, or answered something that is no decision."""


class GnubgGone(GnubgError):
    """The connection to gnubg failed: no answer, or closed."""


def setup_commands(plies: int, socket_path: str) -> str:
    """What gnubg runs at start. 1.07 ignores a per-request `beavers no`, so beavers are off
    for the whole process; `external` names a Unix socket (an address without a colon), which
    only this machine reaches and no other program can hold."""
    return (f"set beavers 0\n"
            f"set evaluation chequerplay evaluation plies {plies}\n"
            f"set evaluation cubedecision evaluation plies {plies}\n"
            f"external {socket_path}\n")


class GnubgEngine:
    """One gnubg process listening on `external PATH`, a Unix socket in a directory of its
    own. Not a TCP port picked free: another program could take the port before gnubg, slow
    to start, binds it, and the bot would talk to that program (an HTTP server's headers
    taken for gnubg's play, once, on a loaded machine)."""

    def __init__(self, executable: Path = GNUBG, plies: int = 0) -> None:
        self.plies = plies
        self._directory = tempfile.TemporaryDirectory(prefix="gnubg-bot-")
        self.socket_path = str(Path(self._directory.name) / "external.sock")
        commands = Path(self._directory.name) / "commands.txt"
        commands.write_text(setup_commands(plies, self.socket_path))
        try:
            self.process = subprocess.Popen([executable, "-t", "-q", "-r", "-c", commands],
                                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                            stderr=subprocess.DEVNULL)
        except OSError as error:
            self._directory.cleanup()
            raise GnubgError(f"cannot start {executable}: {error}") from error

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self._directory.cleanup()


class Evaluation(NamedTuple):
    """gnubg's `evaluation` of a board for the player it is written for, before the roll:
    probabilities (a gammon counts as a backgammon too) and the equity."""
    win: float
    win_gammon: float
    win_backgammon: float
    lose_gammon: float
    lose_backgammon: float
    equity: float


class GnubgConnection:
    """The one client gnubg serves at a time; it listens again shortly after it leaves."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                 plies: int) -> None:
        self.reader, self.writer = reader, writer
        self.plies = plies

    @classmethod
    async def open(cls, engine: GnubgEngine, seconds: float = 30.0) -> GnubgConnection:
        """Connect as soon as gnubg listens: it loads its databases first, and after a client
        leaves it listens again only shortly after. Never probe it first: gnubg closes its
        listening socket once it accepts a client, which resets a connection made meanwhile."""
        deadline = asyncio.get_running_loop().time() + seconds
        while True:
            try:
                streams = await asyncio.open_unix_connection(engine.socket_path)
                return cls(*streams, plies=engine.plies)
            except (ConnectionRefusedError, FileNotFoundError):  # not listening, or not yet made
                if engine.process.poll() is not None:
                    raise GnubgError(f"gnubg exited with status {engine.process.returncode} "
                                     f"before it listened on {engine.socket_path}") from None
                if asyncio.get_running_loop().time() > deadline:
                    raise GnubgError(f"gnubg did not listen on {engine.socket_path} "
                                     f"within {seconds:.0f} s") from None
                await asyncio.sleep(0.05)

    async def ask(self, request: str) -> str:
        """One request, one reply line (gnubg drops anything after a read's first newline,
        so requests are never pipelined)."""
        self.writer.write(request.encode("ascii") + b"\n")
        try:
            async with asyncio.timeout(ANSWER_TIMEOUT):  # not wait_for: see ClipConnection
                reply = await self.reader.readline()
        except (TimeoutError, ConnectionError) as error:
            raise GnubgGone(f"no answer from gnubg to {request!r}: {error!r}") from error
        if not reply:
            raise GnubgGone(f"gnubg closed the connection after {request!r}")
        return reply.decode("ascii").strip()

    async def decision(self, board: str, resignation: int | None = None) -> str:
        """gnubg's answer to a `board:` line: a play, `roll`, `double`, `take`, `drop`, or
        with a resignation (in units of the cube) `accept` or `reject`; `Error: ...` for a
        board it cannot read."""
        request = for_gnubg(board)
        if resignation is not None:
            request += f" resignation {resignation}"
        return await self.ask(request)

    async def evaluation(self, board: str) -> Evaluation:
        reply = await self.ask(f"evaluation fibsboard {for_gnubg(board)} plies {self.plies}")
        return parse_evaluation(reply)

    def close(self) -> None:
        self.writer.close()


def for_gnubg(board: str) -> str:
    """The board as gnubg 1.07 reads it. While a double is pending, the turn must be the
    doubler's, not the doubled player's that FIBS shows, or gnubg judges the double as if it
    were its own (and takes what it should pass). And gnubg reads the score of the side on turn
    from the second score field: a board with the player on turn gets its two score fields
    swapped, one with the opponent on turn (a pending double) is sent as it is."""
    fields = board.split(":")
    if fields[40] == "1":  # this player was doubled
        fields[32] = str(-int(fields[41]))  # the turn: the opponent's colour
    if fields[32] == fields[41]:  # the player is on turn
        fields[4], fields[5] = fields[5], fields[4]
    return ":".join(fields)


def parse_evaluation(reply: str) -> Evaluation:
    try:
        return Evaluation(*(float(number) for number in reply.split()))
    except (TypeError, ValueError):
        raise GnubgError(f"gnubg answered {reply!r}, not an evaluation") from None


def hopeless_resignation(evaluation: Evaluation) -> str | None:
    """The resignation (`n`ormal, `g`ammon, `b`ackgammon) that gives up exactly what the game
    will cost anyway, or None while anything is uncertain: no chance to win, and no doubt
    about how much is lost."""
    if evaluation.win > CERTAIN:
        return None
    if evaluation.lose_gammon < CERTAIN:
        return "n"
    if evaluation.lose_gammon > 1 - CERTAIN:
        if evaluation.lose_backgammon < CERTAIN:
            return "g"
        if evaluation.lose_backgammon > 1 - CERTAIN:
            return "b"
    return None


def command_for(answer: str, colour: int) -> str:
    """gnubg's answer as the FIBS command it means, for the player of `colour` (1 = O,
    -1 = X)."""
    return COMMANDS.get(answer) or fibs_move(answer, colour)


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
    pairs = [pair for step in steps if (pair := PLAY_STEP.fullmatch(step))]
    if not steps or len(pairs) < len(steps):
        raise GnubgError(f"gnubg answered {play!r}, not a play of from/to pairs")
    return "move " + " ".join(f"{point(int(p[1]))}-{point(int(p[2]))}" for p in pairs)
