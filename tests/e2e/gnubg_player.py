"""The gnubg player of `fibs-gnubg-bot` (fibs_server/gnubg_bot/player.py) driven by a test:
every decision is GNU Backgammon's, as in a real gnubg-based FIBS bot. It records every line,
every decision, every refused decision (a `** ` line answering it) and every board that fails
the checks written from docs/BOARDS.md (52 fields, 15 checkers a side; dice 0:0 after the
opponent's move), for the tests to assert on."""
from __future__ import annotations

from collections.abc import Callable

from fibs_server.gnubg_bot.external import GnubgConnection
from fibs_server.gnubg_bot.player import GnubgPlayer
from tests.e2e.client import ExpectationFailed, FibsClient
from tests.waiting import DEADLINE

STALL = DEADLINE  # seconds without a line: the game is stuck
TOGGLE_ANSWERS = {"greedy": "** Will use automatic greedy bearoffs."}


class RecordingPlayer(GnubgPlayer):
    def __init__(self, client: FibsClient, name: str, gnubg: GnubgConnection,
                 leave_after_games: int | None = None) -> None:
        super().__init__(client, name, gnubg)
        self.client: FibsClient = client
        self.leave_after_games = leave_after_games  # `leave` instead of the next `join`
        self.games_ended = 0
        self.board_requests = 0
        self.lines: list[str] = []
        self.boards: list[str] = []
        self.decisions: list[tuple[str, str, str]] = []  # (board, gnubg's answer, command)
        self.refused: list[str] = []
        self.problems: list[str] = []
        # Per-game toggles to send once game 1 has started (set earlier, they lapse then),
        # and the server's answers to them, which refuse nothing.
        self.first_game_toggles: tuple[str, ...] = ()
        self.toggle_answers: list[str] = []

    def record_decision(self, board: str, answer: str, command: str) -> None:
        self.decisions.append((board, answer, command))

    def record_refusal(self, text: str) -> None:
        if not any(text.endswith(answer) for answer in self.toggle_answers):
            self.refused.append(text)

    async def react(self, line: str) -> None:
        await super().react(line)
        if line.startswith("Starting a new game with ") and self.first_game_toggles:
            toggles, self.first_game_toggles = self.first_game_toggles, ()
            for toggle in toggles:
                self.toggle_answers.append(TOGGLE_ANSWERS[toggle])
                await self.client.send(f"toggle {toggle}")

    def record_problem(self, text: str) -> None:
        self.problems.append(text)

    def after_game(self) -> str:
        self.games_ended += 1
        return "leave" if self.games_ended == self.leave_after_games else "join"

    async def request_board(self, answer_it: bool) -> None:
        self.board_requests += 1
        await super().request_board(answer_it)

    async def on_board(self, line: str) -> None:
        self.boards.append(line)
        await super().on_board(line)

    def reconnected(self, client: FibsClient) -> None:
        """A new login after a dropped connection; gnubg's connection stays."""
        self.client = client
        self.answer_next_board = False

    async def set_up(self, *toggles: str) -> None:
        """Boardstyle 3 and the toggles the test wants (each answers with one `** ` line)."""
        await self.client.send("set boardstyle 3")
        await self.client.skip_until("Value of 'boardstyle' set to 3.")
        for toggle in toggles:
            await self.client.send(f"toggle {toggle}")
            while not (reply := await self.client.read_line()).startswith("** "):
                pass  # who-lines of the other player's `ready`
            self.observe(reply)

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
