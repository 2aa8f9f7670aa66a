"""`fibs-gnubg-bot` (fibs_server/gnubg_bot/): its pure parts, its gnubg player's resignations,
and whole bots run as the console script against our server: two of them finish a match,
every decision of theirs accepted."""
from __future__ import annotations

import asyncio
import re
import signal
import sys
from pathlib import Path

import pytest

from fibs_server.gnubg_bot.client import ClipConnection, LoginFailed, log_in, register, strip_telnet
from fibs_server.gnubg_bot.clip_lines import (
    OWN_INFO_FIELDS,
    Invitation,
    MatchLengths,
    WhoLine,
    parse_invitation,
    parse_own_toggles,
    parse_who_line,
    toggles_to_send,
)
from fibs_server.gnubg_bot.external import (
    GNUBG,
    Evaluation,
    GnubgConnection,
    GnubgEngine,
    GnubgError,
    command_for,
    fibs_move,
    for_gnubg,
    hopeless_resignation,
    parse_evaluation,
)
from fibs_server.gnubg_bot.player import GnubgPlayer, board_problems
from fibs_server.rules.dice import SeededDice
from tests.conftest import skip_unless_ci
from tests.waiting import DEADLINE

# The opening example of docs/BOARDS.md: O (you) won it with 6-2; and the same moment seen by X.
O_BOARD = ("board:You:someplayer:3:0:0:0:-2:0:0:0:0:5:0:3:0:0:0:-5:5:0:0:0:-3:0:-5:0:0:0:0:2:0:"
           "1:6:2:0:0:1:1:1:0:1:-1:0:25:0:0:0:0:2:0:0:0")
X_BOARD = ("board:You:alice:3:0:0:0:-2:0:0:0:0:5:0:3:0:0:0:-5:5:0:0:0:-3:0:-5:0:0:0:0:2:0:"
           "1:0:0:6:2:1:1:1:0:-1:1:25:0:0:0:0:0:0:0:0:0")
O_TO_ROLL = O_BOARD.replace(":1:6:2:0:0:", ":1:0:0:0:0:")  # O before its roll: dice 0:0
MATCH_REPORT = re.compile(r"(alice|bob) wins a 3 point match against (alice|bob)  \d-\d \.")
BOT_LOG_TROUBLE = re.compile(r"refused:|board problem:|ERROR|Traceback")
# Seconds a whole match between gnubg processes may take on a loaded 2-core machine.
WHOLE_MATCH = 5 * DEADLINE
MATCH_END = re.compile(r"(You win|\S+ wins) the 3 point match \d-\d \.")


# --- pure parts -------------------------------------------------------------------------------

def test_gnubg_gets_the_score_of_the_side_on_turn_second():
    board = O_BOARD.replace(":3:0:0:", ":3:2:1:", 1)
    assert for_gnubg(board).startswith("board:You:someplayer:3:1:2:")
    assert for_gnubg(board).split(":")[32] == "1"  # not doubled: the turn as FIBS shows it


def test_a_pending_double_goes_to_gnubg_with_the_doubler_on_turn():
    fields = O_TO_ROLL.replace(":3:0:0:", ":3:2:1:", 1).split(":")
    fields[38:41] = ["0", "0", "1"]  # may double 0:0, and O (you) was doubled
    sent = for_gnubg(":".join(fields)).split(":")
    assert sent[32] == "-1"  # X's turn: the doubler's
    assert sent[4:6] == ["2", "1"]  # the doubler is on turn: the scores as they were


@pytest.mark.parametrize(("play", "colour", "command"), [
    ("24/18 13/11 ", 1, "move 24-18 13-11"),  # O: its own numbering is absolute
    ("24/18 13/11 ", -1, "move 1-7 12-14"),  # X: point p is 25 - p
    ("25/20* 6/5", -1, "move bar-5 19-20"),
    ("6/0 6/0 5/0 5/0", 1, "move 6-off 6-off 5-off 5-off"),
    ("3/0 2/1*", -1, "move 22-off 23-24"),
])
def test_a_gnubg_play_becomes_a_fibs_move(play, colour, command):
    assert fibs_move(play, colour) == command
    assert command_for(play, colour) == command


def test_cube_and_resignation_answers_become_fibs_commands():
    assert [command_for(answer, 1) for answer in ("roll", "double", "take", "beaver",
                                                  "drop")] == \
        ["roll", "double", "accept", "accept", "reject"]
    assert [command_for(answer, -1) for answer in ("accept", "reject")] == ["accept", "reject"]
    for not_a_play in ("Error: badly formed board", "redouble", ""):
        with pytest.raises(GnubgError):
            command_for(not_a_play, 1)


def test_an_evaluation_reply_is_read():
    assert parse_evaluation("0.521483 0.153909 0.007563 0.129867 0.007548 0.507915") == \
        Evaluation(0.521483, 0.153909, 0.007563, 0.129867, 0.007548, 0.507915)
    for reply in ("Error: badly formed board", "0.5 0.1"):
        with pytest.raises(GnubgError):
            parse_evaluation(reply)


@pytest.mark.parametrize(("probabilities", "resignation"), [
    ((0.0, 0.0, 0.0, 0.0, 0.0), "n"),
    ((0.0, 0.0, 0.0, 1.0, 0.0), "g"),
    ((0.0, 0.0, 0.0, 1.0, 1.0), "b"),
    ((0.000002, 0.0, 0.0, 0.0, 0.0), None),  # a chance to win is left
    ((0.0, 0.0, 0.0, 0.527779, 0.0), None),  # a gammon, maybe
    ((0.0, 0.0, 0.0, 1.0, 0.3), None),  # a backgammon, maybe
])
def test_only_a_game_lost_for_certain_is_resigned(probabilities, resignation):
    assert hopeless_resignation(Evaluation(*probabilities, equity=-1.0)) == resignation


def test_board_checks():
    assert board_problems(O_BOARD) == []
    assert board_problems(X_BOARD) == []
    one_checker_less = O_BOARD.replace(":0:-2:0:", ":0:-1:0:", 1)
    assert board_problems(one_checker_less) == ["O has 15 checkers, X has 14"]
    x_on_the_wrong_bar = O_BOARD.replace(":0:-2:0:", ":-1:-1:0:", 1)
    assert "bar fields 0:0 but O bar 0, X bar 1" in board_problems(x_on_the_wrong_bar)
    assert board_problems("board:You:someplayer:3") == ["3 fields"]


def test_telnet_commands_are_dropped_even_when_split_across_reads():
    will_echo, wont_echo = bytes([255, 251, 1]), bytes([255, 252, 1])
    assert strip_telnet(b"Please give your password: " + will_echo) == \
        (b"Please give your password: ", b"")
    assert strip_telnet(wont_echo + b"\r\nok" + bytes([255, 255])) == (b"\r\nok\xff", b"")
    text, rest = strip_telnet(b"abc" + will_echo[:2])
    assert (text, rest) == (b"abc", will_echo[:2])
    assert strip_telnet(rest + will_echo[2:] + b"def") == (b"def", b"")


@pytest.mark.parametrize(("line", "invitation"), [
    ("alice wants to play a 5 point match with you.", Invitation("alice", 5)),
    ("alice wants to play an unlimited match with you.", Invitation("alice", "unlimited")),
    ("\x07alice wants to resume a saved match with you.", Invitation("alice", None)),
    ("Type 'join alice' to accept.", None),
    ("12 alice alice wants to play a 5 point match with you.", None),
])
def test_invitations_are_read(line, invitation):
    assert parse_invitation(line) == invitation


def test_who_lines_and_own_toggles_are_read():
    assert parse_who_line("5 bob alice - 1 0 1500.00 3 0 1796092212 127.0.0.1 bot -") == \
        WhoLine("bob", "alice", True)
    assert parse_who_line("5 bob - - 0 0 1500.00 3 0 1796092212 127.0.0.1 bot -") == \
        WhoLine("bob", None, False)
    assert parse_who_line("6") is None
    # As in a real FIBS login (docs/PROTOCOL.md): ready and moreboards are off.
    own = parse_own_toggles("2 someuser 1 1 0 0 0 0 1 1 0 0 0 0 1 1500.00 0 0 0 1 0 UTC")
    assert own is not None and toggles_to_send(own) == ["ready", "moreboards"]
    assert len(OWN_INFO_FIELDS) == 20 and parse_own_toggles("2 someuser 1 1") is None


def test_match_lengths():
    lengths = MatchLengths.parse("1,3,5-7,unlimited")
    assert [length for length in (1, 2, 3, 5, 6, 7, 9) if lengths.accept(length)] == [1, 3, 5, 6, 7]
    assert lengths.accept("unlimited") and not MatchLengths.parse("1").accept("unlimited")
    assert MatchLengths.parse("any").accept(99) and MatchLengths.parse("any").accept("unlimited")
    with pytest.raises(ValueError):
        MatchLengths.parse("3,five")


# --- login and registration against a scripted server ----------------------------------------

class ScriptedServer:
    """Sends `steps[0]`, reads a line, sends `steps[1]`, and so on, then reads a last line;
    `received()`: the lines it read, once it has read them all."""

    def __init__(self, *steps: str) -> None:
        self.steps = steps
        self.lines: list[str] = []
        self.done = asyncio.Event()
        self.server: asyncio.Server | None = None

    async def start(self) -> int:
        self.server = await asyncio.start_server(self.serve, "127.0.0.1", 0)
        return self.server.sockets[0].getsockname()[1]

    async def serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        for number, text in enumerate(self.steps):
            if number:
                self.lines.append((await reader.readline()).decode().rstrip("\r\n"))
            writer.write(text.encode("latin-1"))
            await writer.drain()
        self.lines.append((await reader.readline()).decode().rstrip("\r\n"))
        writer.close()
        self.done.set()

    async def received(self) -> list[str]:
        await asyncio.wait_for(self.done.wait(), DEADLINE)
        assert self.server is not None
        self.server.close()
        return self.lines


async def test_the_login_block_ends_at_the_6_after_the_welcome():
    """Another user's login notice may overtake the welcome; the MOTD may hold a `6`."""
    server = ScriptedServer(
        "banner\r\nlogin: ",
        "\r\n7 alice alice logs in.\r\n5 alice - - 0 0 1500.00 0 0 1 h c -\r\n6\r\n"
        "1 bob 1796093695 127.0.0.1\r\n2 bob 1 1 0 0 0 0 1 1 0 0 0 0 1 1500.00 0 0 0 1 0 UTC\r\n"
        "3\r\n6\r\n4\r\n\r\n5 bob - - 0 0 1500.00 0 0 1 h c -\r\n6\r\nlater\r\n")
    connection = await ClipConnection.open("127.0.0.1", await server.start())
    lines = await log_in(connection, "bob", "secret", "fibs-gnubg-bot")
    assert lines[1] == "7 alice alice logs in." and lines[-1].startswith("5 bob ")
    assert await connection.read_line(DEADLINE) == "later"
    await connection.send("bye")
    assert await server.received() == ["login fibs-gnubg-bot 1008 bob secret", "bye"]
    connection.close()


async def test_a_refused_login_is_an_error():
    server = ScriptedServer("login: ", "\r\nlogin: ")
    connection = await ClipConnection.open("127.0.0.1", await server.start())
    with pytest.raises(LoginFailed):
        await log_in(connection, "bob", "wrong", "fibs-gnubg-bot")
    await connection.send("bye")
    assert await server.received() == ["login fibs-gnubg-bot 1008 bob wrong", "bye"]
    connection.close()


async def test_registering_a_taken_name_goes_on_to_the_login(tmp_path):
    """The bot restarted with `--register`: its name is taken, by itself."""
    server = ScriptedServer(
        "login: ", "ONE USERNAME PER PERSON ONLY!!!\r\n> ",
        "** Please use another name. 'bob' is already used by someone else.\r\n> ")
    transcript = tmp_path / "transcript"
    port = await server.start()
    with transcript.open("w") as file:
        await register("127.0.0.1", port, "bob", "secret", file)
    assert await server.received() == ["guest", "name bob", "bye"]
    assert "> name bob" in transcript.read_text().splitlines()


async def test_an_address_out_of_registrations_goes_on_to_the_login(tmp_path):
    """`--register` for an account that exists, from an address that registered its ten
    this hour: the server refuses before it looks at the name; the bot logs in all the
    same (a login that fails then says the account is not there)."""
    server = ScriptedServer(
        "login: ", "ONE USERNAME PER PERSON ONLY!!!\r\n> ",
        "** Too many new accounts from your address. Please try again later.\r\n> ")
    port = await server.start()
    with (tmp_path / "transcript").open("w") as file:
        await register("127.0.0.1", port, "bob", "secret", file)
    assert await server.received() == ["guest", "name bob", "bye"]


# --- the player's own resignations, with gnubg's answers scripted -----------------------------

class ScriptedGnubg:
    def __init__(self, lost: Evaluation) -> None:
        self.lost = lost

    async def decision(self, board: str, resignation: int | None = None) -> str:
        return "roll"

    async def evaluation(self, board: str) -> Evaluation:
        return self.lost


class SentLines:
    def __init__(self) -> None:
        self.lines: list[str] = []

    async def send(self, line: str) -> None:
        self.lines.append(line)


async def player_with_a_lost_game() -> tuple[GnubgPlayer, SentLines]:
    sent = SentLines()
    player = GnubgPlayer(sent, "You", ScriptedGnubg(Evaluation(0, 0, 0, 0, 0, -1.0)),
                         resign_hopeless=True)
    for line in ("Starting a new game with someplayer.", O_TO_ROLL,
                 "It's your turn to roll or double."):
        await player.react(line)
    return player, sent


async def test_a_rejected_resignation_is_followed_by_the_decision_it_stood_for():
    player, sent = await player_with_a_lost_game()
    await player.react("You want to resign. someplayer will win 1 point.")
    await player.react("someplayer rejects. The game continues.")
    assert sent.lines == ["resign n", "roll"]
    for line in ("someplayer moves 8-5 6-5 .", O_TO_ROLL, "It's your turn to roll or double."):
        await player.react(line)
    assert sent.lines == ["resign n", "roll", "roll"]  # no second offer in this game


async def test_an_accepted_resignation_ends_the_game_without_another_command():
    player, sent = await player_with_a_lost_game()
    await player.react("someplayer accepts and wins 1 point.")
    assert sent.lines == ["resign n"] and not player.resigning


async def test_a_match_start_is_answered_with_a_random_salt_and_its_answer_is_no_refusal():
    sent = SentLines()
    player = GnubgPlayer(sent, "You", ScriptedGnubg(Evaluation(0, 0, 0, 0, 0, 0.0)))
    refused: list[str] = []
    player.record_refusal = refused.append  # type: ignore[method-assign]
    await player.react("** Player someplayer has joined you for a 3 point match.")
    await player.react("** You are now playing a 3 point match with someplayer.")
    first, second = sent.lines
    assert re.fullmatch(r"salt [0-9a-f]{32}", first) and re.fullmatch(r"salt [0-9a-f]{32}",
                                                                       second)
    assert first != second
    for answer in ("Your salt 00ff enters the dice from roll 2 of this match on. Type 'help "
                   "salt'.", "** You gave this match your salt already: 00ff, from roll 2.",
                   "** The dice of match 4 cannot be verified: they were not drawn from a "
                   "committed seed."):
        await player.react(answer)
    assert not refused and len(sent.lines) == 2


# --- whole bots against our server ------------------------------------------------------------

@pytest.fixture
def gnubg_installed():
    if not GNUBG.exists():
        skip_unless_ci(f"needs GNU Backgammon at {GNUBG} (apt-get install -y gnubg)")


class BotProcess:
    """`python -m fibs_server.gnubg_bot` with its log (stderr) and transcript in files."""

    def __init__(self, name: str, directory: Path) -> None:
        self.name = name
        self.log = directory / f"{name}.log"
        self.transcript = directory / f"{name}.transcript"
        self.process: asyncio.subprocess.Process | None = None

    async def start(self, port: int, *options: str, password: str = "secret") -> BotProcess:
        with self.log.open("w") as log:
            self.process = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "fibs_server.gnubg_bot", "--host", "127.0.0.1",
                "--port", str(port), "--name", self.name, "--password", password,
                "--transcript", str(self.transcript), *options,
                stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.DEVNULL,
                stderr=log)
        return self

    async def stop(self) -> int:
        """SIGTERM, as a service manager stops it; its exit status."""
        assert self.process is not None
        if self.process.returncode is None:
            self.process.send_signal(signal.SIGTERM)
        try:
            return await asyncio.wait_for(self.process.wait(), DEADLINE)
        except TimeoutError:
            self.process.kill()
            return await self.process.wait()

    def logged(self) -> str:
        return self.log.read_text()

    async def wait_until_logged(self, pattern: re.Pattern, seconds: float = DEADLINE) -> None:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + seconds
        while not pattern.search(self.logged()):
            assert loop.time() < deadline, f"{self.name} never logged {pattern.pattern!r}"
            await asyncio.sleep(0.05)

    def transcript_lines(self, direction: str) -> list[str]:
        """What the bot received (`<`) or sent (`>`)."""
        lines = self.transcript.read_text().splitlines() if self.transcript.exists() else []
        return [line[2:] for line in lines if line.startswith(f"{direction} ")]

    def sent(self) -> list[str]:
        return self.transcript_lines(">")


@pytest.fixture
async def bots(tmp_path):
    started: list[BotProcess] = []

    async def start_bot(name: str, port: int, *options: str, **keywords) -> BotProcess:
        started.append(await BotProcess(name, tmp_path).start(port, *options, **keywords))
        return started[-1]

    yield start_bot
    for bot in started:
        await bot.stop()


def report(*bots: BotProcess) -> str:
    return "\n".join(f"--- {bot.name}'s log:\n{bot.logged()[-3000:]}" for bot in bots)


@pytest.mark.gnubg
async def test_two_bots_finish_a_three_point_match(gnubg_installed, harness, bots):
    """bob registers by himself; alice has an account and invites bob once he is ready. A
    third user sees the match end; neither bot had a decision refused."""
    await harness.register("alice")
    await harness.register("carol")
    carol = await harness.login_clip("carol")
    harness.dice.append(SeededDice(16))
    port = harness.server.port
    bob = await bots("bob", port, "--register", "--lengths", "1-5")
    alice = await bots("alice", port, "--invite", "bob", "3")
    try:
        await carol.skip_until(MATCH_REPORT, timeout=WHOLE_MATCH)
        for bot in (alice, bob):
            await bot.wait_until_logged(MATCH_END)
    except AssertionError as error:
        raise AssertionError(f"{error}\n{report(alice, bob)}") from None
    assert [await bot.stop() for bot in (alice, bob)] == [0, 0], report(alice, bob)
    for bot in (alice, bob):
        assert not BOT_LOG_TROUBLE.search(bot.logged()), report(bot)
        assert any(command.startswith("move ") for command in bot.sent())
        assert bot.sent()[-1] == "bye"
    assert "registered bob" in bob.logged()
    assert "join alice" in bob.sent() and "invite bob 3" in alice.sent()
    # Each bot resigned exactly where gnubg sees its game as lost, for what the game costs
    # (which games those are is gnubg's play: it is not fixed by the dice alone), and the
    # other's gnubg accepted each offer; there are doubles, taken and dropped, too.
    engine = GnubgEngine()
    try:
        for bot in (alice, bob):
            offers = await resignations_checked_against_gnubg(bot, engine)
            accepted = [line for line in bot.transcript_lines("<")
                        if re.fullmatch(r"\S+ accepts and wins \d+ points?\.", line)]
            assert len(accepted) == offers, report(bot)
    finally:
        engine.stop()
    cube = [command for bot in (alice, bob) for command in bot.sent()
            if command in ("double", "accept", "reject")]
    assert {"double", "accept", "reject"} <= set(cube)


async def resignations_checked_against_gnubg(bot: BotProcess, engine: GnubgEngine) -> int:
    """Every turn decision of `bot` (a roll, a double, a move, or a resignation instead) checked
    against gnubg's evaluation of the board it was made on, asked anew: a resignation exactly
    where `hopeless_resignation` gives one, and of that kind; none missed. The offers counted."""
    decisions: list[tuple[str, str]] = []  # (the latest board, the command sent on it)
    board = None
    for line in bot.transcript.read_text().splitlines():
        if line.startswith("< board:"):
            board = line[2:]
        elif line.startswith("> ") and board is not None and (
                line[2:] in ("roll", "double") or line[2:].startswith(("move ", "resign "))):
            decisions.append((board, line[2:]))
    assert len(decisions) > 20, report(bot)  # a whole match of them
    connection = await GnubgConnection.open(engine)
    try:
        for board, command in decisions:
            due = hopeless_resignation(await connection.evaluation(board))
            expected = f"resign {due}" if due is not None else "no resignation"
            made = command if command.startswith("resign ") else "no resignation"
            assert made == expected, f"{command!r} on {board}\n{report(bot)}"
    finally:
        connection.close()
    return sum(command.startswith("resign ") for _, command in decisions)


@pytest.mark.gnubg
async def test_a_bot_joins_only_the_lengths_it_plays(gnubg_installed, harness, bots):
    await harness.register("bob")
    await harness.register("carol")
    carol = await harness.login_clip("carol")
    await carol.toggle_ready()
    bob = await bots("bob", harness.server.port, "--lengths", "1")
    await carol.skip_until(re.compile(r"5 bob - - 1 .*"))  # bob is ready
    await carol.send("invite bob 3")
    await carol.skip_until("** You invited bob to a 3 point match.")
    await carol.send("invite bob 1")
    await carol.skip_until("** Player bob has joined you for a 1 point match.")
    assert re.search(r"carol invites to a match of length 3, which the bot does not play",
                     bob.logged()), report(bob)
    assert [command for command in bob.sent() if command.startswith("join")] == ["join carol"]


@pytest.mark.gnubg
async def test_a_refused_login_stops_the_bot_with_status_1(gnubg_installed, harness, bots):
    await harness.register("bob")
    bob = await bots("bob", harness.server.port, password="wrong")
    assert await asyncio.wait_for(bob.process.wait(), DEADLINE) == 1, report(bob)
    assert "the server refused the login of bob" in bob.logged()


@pytest.mark.gnubg
async def test_a_refused_invitation_stops_the_bot_with_status_1(gnubg_installed, harness, bots):
    """A new account may not invite to 49 points: the bot says why and stops, instead of
    waiting for an answer that never comes."""
    await harness.register("bob")
    await harness.register("carol")
    carol = await harness.login_clip("carol")
    await carol.send("toggle ready")
    gnu = await bots("gnu", harness.server.port, "--register", "--invite", "carol", "49")
    assert await asyncio.wait_for(gnu.process.wait(), DEADLINE) == 1, report(gnu)
    assert ("the server refused the invitation: ** You're not experienced enough to play a "
            "match of that length.") in gnu.logged()


@pytest.mark.gnubg
async def test_a_gnubg_bot_finishes_a_match_against_a_built_in_bot(gnubg_installed, bot_harness,
                                                                    bots):
    await bot_harness.register("carol")
    carol = await bot_harness.login_clip("carol")
    gnu = await bots("gnu", bot_harness.server.port, "--register", "--invite", "bot_expert", "1")
    try:
        await carol.skip_until(re.compile(
            r"(gnu|bot_expert) wins a 1 point match against (gnu|bot_expert)  \d-0 \."),
            timeout=WHOLE_MATCH)
    except AssertionError as error:
        raise AssertionError(f"{error}\n{report(gnu)}") from None
    assert await gnu.stop() == 0, report(gnu)
    assert not BOT_LOG_TROUBLE.search(gnu.logged()), report(gnu)
    assert "invite bot_expert 1" in gnu.sent()


def doubled_board(mine: dict[int, int], theirs: dict[int, int]) -> str:
    """A board where `You` (O, colour 1, moving down from 24) was just doubled to 2 in a
    7-point match at 0-0: FIBS shows the doubled player on turn, no dice. `mine`/`theirs`: checkers
    per point in each side's own numbering (1 is the home point)."""
    points = [0] * 26
    for point, count in mine.items():
        points[point] = count
    for point, count in theirs.items():
        points[25 - point] = -count
    off = (15 - sum(mine.values()), 15 - sum(theirs.values()))
    fields = ["board", "You", "someplayer", "7", "0", "0", *map(str, points),
              "1", "0", "0", "0", "0", "2", "0", "1", "1", "1", "-1", "0", "25",
              str(off[0]), str(off[1]), "0", "0", "0", "0", "0", "0"]
    return ":".join(fields)


@pytest.mark.gnubg
@pytest.mark.parametrize(("mine", "theirs", "answer"), [
    # Far ahead in the race, doubled by a player who is far behind: take (gnubg would pass
    # if it judged the double as its own).
    ({1: 2, 2: 2, 3: 2}, {20: 5, 22: 5, 24: 5}, "take"),
    # Far behind, all back against a nearly finished race: pass.
    ({20: 5, 22: 5, 24: 5}, {1: 2, 2: 2, 3: 2}, "drop"),
])
async def test_a_double_is_answered_as_the_doubled_player(gnubg_installed, mine, theirs, answer):
    engine = GnubgEngine()
    try:
        connection = await GnubgConnection.open(engine)
        try:
            assert await connection.decision(doubled_board(mine, theirs)) == answer
        finally:
            connection.close()
    finally:
        engine.stop()
