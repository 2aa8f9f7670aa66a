"""One player's side of a match, every decision gnubg's: the server's lines come in one at a
time (`react`); every `board:` line goes to gnubg, and when that board asks this player
something (a move, roll or double, take or drop, a resignation's answer), gnubg's answer goes
back to the server as the FIBS command it means. Boards are read by gnubg's own parser; the
few fields read here are to know whose question a board is."""
from __future__ import annotations

import logging
import re
import secrets
from typing import Protocol

from fibs_server.gnubg_bot.external import (
    GnubgConnection,
    GnubgError,
    command_for,
    hopeless_resignation,
)

log = logging.getLogger(__name__)

ROLL_PROMPT = "It's your turn to roll or double."
PLEASE_MOVE = re.compile(r"Please move [1-4] pieces?\.")
JOIN_OR_LEAVE = "Type 'join' if you want to play the next game, type 'leave' if you don't."
GAME_START = re.compile(r"Starting a new game with \S+\.")
MOVE_LINE = re.compile(r"(\S+) moves .* \.")
DOUBLED = re.compile(r"(\S+) doubles\. Type 'accept' or 'reject'\.")
RESIGNS = re.compile(r"(\S+) wants to resign\. You will win (\d+) points?\. "
                     r"Type 'accept' or 'reject'\.")
# The opponent's answer to this player's resignation (its own answers start with `You`).
RESIGNATION_ANSWERED = re.compile(r"\S+ (accepts and wins \d+ points?|rejects)\. ?.*")
# The `** ` lines that refuse nothing: a match starting or ending, `join` waiting for the other.
NOT_REFUSALS = re.compile(r"\*\* (You invited \S+ to .*|Player \S+ has joined you for .*|"
                          r"You are now playing .*|Please wait for \S+ to join too\.|"
                          r"Player \S+ has left the game\. The game was saved\.|"
                          r"You terminated the .*|Player \S+ has ended the unlimited match\.)")
# A match starting or resumed: the bot sends its salt, a share in the dice the server could
# not know when it fixed the match's seed (docs/FAIRNESS.md).
MATCH_START = re.compile(r"\*\* (You are now playing .*|Player \S+ has joined you for .*)")
# The server's answers to it, which say nothing of the game (a match whose dice a test
# scripts has no seed to salt).
SALT_ANSWER = re.compile(r"Your salt \S+ enters the dice .*|"
                         r"\*\* You gave this match your salt already: .*|"
                         r"\*\* The dice of match \d+ cannot be verified: .*")
AUTOBOARD = {"** The board will be refreshed after every move.": True,
             "** The board won't be refreshed after every move.": False}


class LineSender(Protocol):
    async def send(self, line: str) -> None: ...


def board_problems(line: str) -> list[str]:
    """What is wrong with a boardstyle-3 line: 52 fields after `board:` (2 names, 50
    integers); 15 checkers per side on points 1-24, the bars (index 0 for X, 25 for O) and
    borne off; bar fields 47/48 agreeing with the board. A server that gets these wrong makes
    gnubg play illegal moves (docs/PROTOCOL.md)."""
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


class GnubgPlayer:
    """The decisions of one match. A line may come without the board it needs (autoboard or
    moreboards off, or a server that sends fewer boards): then the player asks for one with
    `board`. `moment` counts the lines that change what the player is asked, so that a board
    answers only the question of its moment and nothing is decided twice."""

    def __init__(self, client: LineSender, name: str, gnubg: GnubgConnection, *,
                 resign_hopeless: bool = False) -> None:
        self.client = client
        self.name = name
        self.gnubg = gnubg
        self.resign_hopeless = resign_hopeless  # offer to resign a game gnubg sees as lost
        self.autoboard = True
        self.moment = 0
        self.board_moment = -1  # the moment of the latest board
        self.acted_moment = -1  # the moment of the latest decision sent
        self.latest: tuple[str, str] | None = None  # (board, gnubg's answer)
        self.answer_next_board = False  # a prompt came without its board: `board` was sent
        self.resign_points: int | None = None  # the opponent offers to resign for these
        self.after_opponent_move = False
        self.last_decision: str | None = None
        self.resigning = False  # this player offered to resign: it decides nothing until answered
        self.withheld: tuple[str, str] | None = None  # the decision a resignation stands in for
        self.resignation_rejected = False  # in this game: no second offer

    # --- what a subclass may record (the tests keep everything) ----------------------------

    def record_decision(self, board: str, answer: str, command: str) -> None:
        log.info("%s: %s (gnubg: %s)", self.name, command, answer)

    def record_refusal(self, text: str) -> None:
        log.warning("%s: refused: %s", self.name, text)

    def record_problem(self, text: str) -> None:
        log.warning("%s: board problem: %s", self.name, text)

    def after_game(self) -> str:
        """The command that answers `Type 'join' ... type 'leave' ...`."""
        return "join"

    # --- the server's lines ----------------------------------------------------------------

    async def resign(self, kind: str) -> None:
        """Offer to resign (`n`, `g` or `b`); nothing is decided until the opponent answers."""
        self.resigning = True
        self.last_decision = f"resign {kind}"
        await self.client.send(self.last_decision)

    def observe(self, line: str) -> None:
        if line in AUTOBOARD:
            self.autoboard = AUTOBOARD[line]

    async def react(self, line: str) -> None:
        if SALT_ANSWER.fullmatch(line):
            return
        if MATCH_START.fullmatch(line):
            await self.client.send(f"salt {secrets.token_hex(16)}")
        if line.startswith("** ") and not NOT_REFUSALS.fullmatch(line):
            # Lines already on their way may come first, so a refusal is not always the
            # next line; each command of ours it could answer is a decision or `board`.
            self.record_refusal(f"after {self.last_decision!r}: {line}")
        if line.startswith("board:"):
            await self.on_board(line)
            return
        self.observe(line)
        if line == ROLL_PROMPT or PLEASE_MOVE.fullmatch(line):
            await self.on_prompt(line)
            return
        self.moment += 1
        moved = MOVE_LINE.fullmatch(line)
        # autoboard's board right after `<opp> moves ... .` must show the roll still to come
        self.after_opponent_move = moved is not None and moved[1] != self.name
        if GAME_START.fullmatch(line):
            self.withheld, self.resignation_rejected = None, False
        elif (answered := RESIGNATION_ANSWERED.fullmatch(line)) and self.resigning:
            await self.resignation_answered(rejected=answered[1] == "rejects")
        elif DOUBLED.fullmatch(line) and not self.autoboard:
            await self.request_board(answer_it=False)
        elif resigning := RESIGNS.fullmatch(line):
            self.resign_points = int(resigning[2])
            await self.request_board(answer_it=True)
        elif line == JOIN_OR_LEAVE:
            await self.client.send(self.after_game())

    async def resignation_answered(self, rejected: bool) -> None:
        self.resigning = False
        withheld, self.withheld = self.withheld, None
        if rejected:
            self.resignation_rejected = True
            if withheld is not None:
                await self.decide(*withheld)  # the turn is still this player's

    async def on_prompt(self, line: str) -> None:
        fresh = self.board_moment == self.moment and self.latest is not None
        if line == ROLL_PROMPT and fresh:
            assert self.latest is not None  # fresh says so
            await self.decide(*self.latest)
        elif line == ROLL_PROMPT or (self.acted_moment != self.moment and not fresh):
            await self.request_board(answer_it=line == ROLL_PROMPT)
        elif self.acted_moment != self.moment:
            self.record_problem(f"{line!r} after a board that is no move: {self.latest}")

    async def request_board(self, answer_it: bool) -> None:
        self.answer_next_board = answer_it
        await self.client.send("board")

    async def on_board(self, line: str) -> None:
        problems = board_problems(line)
        fields = line.split(":")
        if self.after_opponent_move:
            self.after_opponent_move = False
            if len(fields) == 53 and fields[33:35] != ["0", "0"]:
                problems.append("own dice after the opponent's move are not 0:0")
        if problems:
            self.record_problem(f"{'; '.join(problems)}: {line}")
            if len(fields) != 53 or "a non-integer field" in problems:
                return  # nothing gnubg could read
        resignation = None
        if self.resign_points is not None:
            resignation = self.resign_points // int(fields[37])
        answer = await self.gnubg.decision(line, resignation)
        if answer.startswith("Error"):
            if fields[32] == "0":
                return  # gnubg 1.07 rejects every game-over board (turn 0): nothing to decide
            raise GnubgError(f"{self.name}: gnubg answered {answer!r} to {line}")
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
        """Send gnubg's answer as the FIBS command it means, or, in a game gnubg sees as
        lost for certain on this player's turn, a resignation instead."""
        if self.resigning:
            return
        fields = board.split(":")
        command = command_for(answer, int(fields[41]))
        self.acted_moment = self.moment
        my_turn = fields[32] == fields[41]  # gnubg evaluates for the side whose turn it is
        if (self.resign_hopeless and not self.resignation_rejected and my_turn
                and (command in ("roll", "double") or command.startswith("move "))):
            kind = hopeless_resignation(await self.gnubg.evaluation(board))
            if kind is not None:
                self.withheld = (board, answer)
                self.record_decision(board, "evaluation: lost", f"resign {kind}")
                await self.resign(kind)
                return
        self.record_decision(board, answer, command)
        self.last_decision = command
        await self.client.send(command)
