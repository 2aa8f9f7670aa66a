"""Fair play over the wire: the dice commitment before the first roll, the seed and rolls
revealed when the match ends, `fibs-server verify-dice` on the record (and on a tampered
one), `dicetest`, and abandoned matches in `whois`."""
from __future__ import annotations

import asyncio
import hashlib
import pathlib
import re
import sys
import time

import pytest
from sqlalchemy import select, update
from sqlalchemy.pool import NullPool

from fibs_server.rules.dice import PlayerSalt, VerifiableDice, verifiable_pair
from fibs_server.store import create_database_engine
from fibs_server.store.models import MatchRow
from tests.e2e.bot import Bot
from tests.e2e.test_lobby_commands import ask
from tests.e2e.test_match_play import join_match, play_out, players, start  # noqa: F401

SEED = bytes(range(32))
COMMITMENT = hashlib.sha256(SEED).hexdigest()
COMMITMENT_LINE = f"Dice commitment for this match: {COMMITMENT}. Type 'help fairdice'."


async def verify_dice(database_url: str, match_id: int) -> tuple[int, str]:
    """`python -m fibs_server verify-dice <match_id>`: its exit status and output."""
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "fibs_server", "verify-dice", str(match_id),
        "--database-url", database_url,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT)
    output, _ = await process.communicate()
    return process.returncode, output.decode()


async def fairness_script(tmp_path, reply: str, commitment: str) -> str:
    """The script of docs/FAIRNESS.md, as a player would save and run it."""
    document = (pathlib.Path(__file__).parents[2] / "docs" / "FAIRNESS.md").read_text()
    script = tmp_path / "check_dice.py"
    script.write_text(re.search(r"```python\n(.*?)```", document, re.DOTALL).group(1))
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-I", str(script), commitment, stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT)
    output, _ = await process.communicate(reply.encode())
    return output.decode().strip()


async def change_the_record(database_url: str, match_id: int, change) -> None:
    engine = create_database_engine(database_url, poolclass=NullPool)
    try:
        async with engine.begin() as connection:
            state = (await connection.execute(
                select(MatchRow.state).where(MatchRow.id == match_id))).scalar_one()
            change(state)
            await connection.execute(
                update(MatchRow).where(MatchRow.id == match_id).values(state=state))
    finally:
        await engine.dispose()


@pytest.mark.stored
async def test_the_commitment_shown_before_the_first_roll_is_the_seed_revealed_at_the_end(
        harness, players, database_url, tmp_path):
    alice, bob, carol = players
    harness.dice.append(VerifiableDice(SEED))
    await ask(carol, "watch alice", "You're now watching alice.",
              "alice is not doing anything interesting.")
    await start(alice, bob, "1")
    # A CLIP or telnet session sees FIBS's start only: the commitment is there on request
    # (`fairdice`); the web page gets COMMITMENT_LINE unasked (tests/web/test_websocket.py).
    for client, opponent in ((alice, "bob"), (bob, "alice")):
        before = await client.skip_until(f"Starting a new game with {opponent}.")
        assert all(line.startswith(("5 ", "6")) for line in before)  # who-lines only
        assert COMMITMENT_LINE not in before
    await bob.send("fairdice")
    await bob.skip_until(f"  commitment (SHA-256 of the seed): {COMMITMENT}")
    await carol.skip_until(re.compile(r"alice rolled \d, bob rolled \d.*"))
    await carol.send("fairdice")
    shown = await carol.skip_until("  then type 'fairdice 1'.")
    assert shown[-4:] == ["Dice of match 1, alice - bob:",
                          f"  commitment (SHA-256 of the seed): {COMMITMENT}",
                          "  salts: none from alice, none from bob ('salt <word>' adds yours).",
                          shown[-1]]
    assert re.fullmatch(r"  \d+ rolls drawn so far\. The seed is shown when the match ends:",
                        shown[-1])
    await carol.expect_prompt()
    await ask(carol, "fairdice 1", "** Match 1 is still being played: its seed is shown when it "
              f"ends. Commitment: {COMMITMENT}")

    alice_bot, bob_bot = Bot(alice, "alice", seed=1), Bot(bob, "bob", seed=2)
    await play_out(alice_bot, bob_bot)
    assert not alice_bot.refusals and not bob_bot.refusals  # the line did not confuse them
    reply, listed = await finished_dice_reply(alice, [
        f"  seed:       {SEED.hex()}", f"  commitment: {COMMITMENT}",
        "  salt of alice: none", "  salt of bob: none",
        "  rolls in the order drawn (openings: the first die is alice's):"])
    assert listed == [f"{a}{b}" for a, b in (verifiable_pair(SEED, n)
                                             for n in range(len(listed)))]
    rolled_by_alice = {line.removeprefix("You roll ") for line in alice_bot.lines
                       if line.startswith("You roll ")}
    assert len(listed) > 10 and rolled_by_alice

    # docs/FAIRNESS.md's script, with nothing but the reply and the commitment seen at the start.
    text = "\r\n".join(reply) + "\r\n"
    assert await fairness_script(tmp_path, text, COMMITMENT) == (
        f"OK: the seed is the one committed to, and all {len(listed)} rolls are its and the "
        "salts'")
    assert await fairness_script(tmp_path, text, hashlib.sha256(b"other").hexdigest()) == \
        "WRONG: this seed is not the one the server committed to"
    first = listed[0]
    other = first[::-1] if first[0] != first[1] else f"{first[0]}{int(first[1]) % 6 + 1}"
    changed = text.replace(f"    {first} ", f"    {other} ", 1)
    assert await fairness_script(tmp_path, changed, COMMITMENT) == \
        f"WRONG: roll 1 ({other}) is not the seed's and salts'"

    status, output = await verify_dice(database_url, 1)
    assert status == 0, output
    assert output.splitlines() == [f"match 1: seed {SEED.hex()}",
                                   f"commitment (SHA-256 of the seed): {COMMITMENT}",
                                   "salt of alice: none", "salt of bob: none",
                                   f"all {len(listed)} rolls recompute from the seed and salts"]

    def tamper(state):
        # One roll of the last game, its dice turned around (or a double made another).
        rolled = next(event for event in reversed(state["history"][-1])
                      if event["event"] == "Rolled")
        first, second = rolled["dice"]
        rolled["dice"] = [second, first] if first != second else [first % 6 + 1, second]
    await change_the_record(database_url, 1, tamper)
    status, output = await verify_dice(database_url, 1)
    assert status == 2
    assert re.search(r"roll \d+ of \d+ is \(\d, \d\), but the seed and salts give "
                     r"\(\d, \d\): the record does not match them", output), output
    await alice.send("fairdice 1")
    await alice.skip_until(re.compile(r"  Roll \d+ is not the seed's and salts'!"))


async def finished_dice_reply(client, head: list[str]) -> tuple[list[str], list[str]]:
    """`fairdice` of the client's finished match: the whole reply (from its first line to
    the last), and its rolls; `head`: the lines expected after the first, to the rolls."""
    await client.send("fairdice")
    await client.skip_until("Dice of match 1, alice - bob:")  # after the match's who-lines
    reply = ["Dice of match 1, alice - bob:", *await client.expect_lines(*head)]
    listed = []
    while (line := await client.read_line()).startswith("    "):
        listed += line.split()
        reply.append(line)
    assert line == f"  All {len(listed)} rolls are the seed's and salts'."
    reply += [line, await client.read_line()]
    return reply, listed


@pytest.mark.stored
async def test_salts_sent_after_the_commitment_enter_the_rolls_drawn_after_them(
        harness, players, database_url, tmp_path):
    """The order the docs state: the seed is fixed and its commitment shown at the start;
    a player's salt comes after it, is stored, and enters from the next pair drawn; the
    finished match verifies with both salts, by the docs' script and by `verify-dice`."""
    alice, bob, _ = players
    harness.dice.append(VerifiableDice(SEED))
    await start(alice, bob, "1")
    await bob.skip_until("Starting a new game with alice.")
    await bob.send("fairdice")
    shown = await bob.skip_until("  then type 'fairdice 1'.")
    pending = {"bob": shown[:-4]}  # the game's lines before the reply, for bob's bot
    assert shown[-3:-1] == [f"  commitment (SHA-256 of the seed): {COMMITMENT}",
                            "  salts: none from alice, none from bob ('salt <word>' adds yours)."]
    drawn = int(shown[-1].split()[0])
    # The opening roll (and its ties): drawn as the match started, before any salt. Nobody
    # rolls again before the starter has moved, so both salts enter at the same pair.
    assert drawn >= 1
    # Only the whole word reaches the command, and a salt is one plain word.
    for line, answer in (
            ("sal bobs-salt", "** Unknown command: 'sal bobs-salt'"),
            ("salt two words", "** usage: salt <1 to 64 letters, digits or ._:+/=->"),
            ("salt bobs-salt", f"Your salt bobs-salt enters the dice from roll {drawn + 1} of "
                               "this match on. Type 'help salt'."),
            ("salt again", "** You gave this match your salt already: bobs-salt, from roll "
                           f"{drawn + 1}.")):
        await bob.send(line)
        pending["bob"] += await bob.skip_until(answer)
    await alice.skip_until("Starting a new game with bob.")
    await alice.send("salt alice:1")
    pending["alice"] = await alice.skip_until(
        f"Your salt alice:1 enters the dice from roll {drawn + 1} of this match on. Type 'help "
        "salt'.")
    alice_from = drawn + 1

    alice_bot, bob_bot = Bot(alice, "alice", seed=1), Bot(bob, "bob", seed=2)
    for bot in (alice_bot, bob_bot):  # the starter's turn was told while they salted
        for line in pending[bot.name]:
            await bot.react(line)
    await play_out(alice_bot, bob_bot)
    assert not alice_bot.refusals and not bob_bot.refusals
    salts = (PlayerSalt("alice:1", alice_from - 1), PlayerSalt("bobs-salt", drawn))
    reply, listed = await finished_dice_reply(alice, [
        f"  seed:       {SEED.hex()}", f"  commitment: {COMMITMENT}",
        f"  salt of alice: alice:1, from roll {alice_from}",
        f"  salt of bob: bobs-salt, from roll {drawn + 1}",
        "  rolls in the order drawn (openings: the first die is alice's):"])
    assert listed == [f"{a}{b}" for a, b in (verifiable_pair(SEED, n, salts)
                                             for n in range(len(listed)))]
    # The same seed without the salts gives other rolls from bob's salt on, not before.
    unsalted = [f"{a}{b}" for a, b in (verifiable_pair(SEED, n) for n in range(len(listed)))]
    assert unsalted[:drawn] == listed[:drawn] and unsalted[drawn:] != listed[drawn:]
    text = "\r\n".join(reply) + "\r\n"
    assert await fairness_script(tmp_path, text, COMMITMENT) == (
        f"OK: the seed is the one committed to, and all {len(listed)} rolls are its and the "
        "salts'")
    # A salt the record does not show as sent is caught.
    assert (await fairness_script(tmp_path, text.replace("bobs-salt", "bobs-salz"), COMMITMENT)
            ).startswith(f"WRONG: roll {drawn + 1} ")
    status, output = await verify_dice(database_url, 1)
    assert status == 0, output
    assert output.splitlines()[2:] == [
        f"salt of alice: alice:1, from roll {alice_from}",
        f"salt of bob: bobs-salt, from roll {drawn + 1}",
        f"all {len(listed)} rolls recompute from the seed and salts"]


async def test_fairdice_refusals(harness, players):
    alice, bob, carol = players
    await ask(carol, "fairdice", "** You're not playing or watching, and have no finished "
              "match. Type 'fairdice <match>' (numbers: 'history').")
    await ask(carol, "fairdice 99", "** There is no match 99.")
    await ask(carol, "fairdice 99999999999999999999",
              "** There is no match 99999999999999999999.")
    await ask(carol, "fairdice one", "** usage: fairdice [<match number>]")
    await ask(carol, "fairdice 1 2", "** usage: fairdice [<match number>]")
    # Dice a test injects without a seed (the harness's SeededDice): no commitment either.
    await start(alice, bob, "1")
    await alice.skip_until("Starting a new game with bob.")
    await alice.send("fairdice")
    await alice.skip_until("** The dice of match 1 cannot be verified: they were not drawn "
                           "from a committed seed.")


async def test_dicetest_counts_the_rolls_of_a_seeded_run(harness, players):
    alice, bob, carol = players
    harness.dice.append(VerifiableDice(SEED))
    await start(alice, bob, "1")
    alice_bot, bob_bot = Bot(alice, "alice", seed=1), Bot(bob, "bob", seed=2)
    await play_out(alice_bot, bob_bot)
    alice_rolls = sum(line.startswith("You roll ") for line in alice_bot.lines)
    bob_rolls = sum(line.startswith("You roll ") for line in bob_bot.lines)
    await alice.send("dicetest")
    heading = re.compile(r"Dice rolled on this server: (\d+) rolls; by you: (\d+)\.")
    while not (found := heading.fullmatch(await alice.read_line())):
        pass  # the who-lines of the match's end
    assert int(found[2]) == alice_rolls
    assert int(found[1]) > alice_rolls + bob_rolls  # the opening rolls count too
    table = [await alice.read_line() for _ in range(22)]
    assert table[0] == "  roll           server               you   fair dice"
    assert table[1].startswith("  1-1") and table[21].startswith("  6-6")
    assert not any(line[:1].isdigit() for line in table)  # Gibbon: a CLIP message
    assert sum(int(row.split()[1]) for row in table[1:]) == int(found[1])
    assert sum(int(row.split()[3]) for row in table[1:]) == alice_rolls
    # The server's line comes first, and may be either kind: the seeded match's length decides.
    await alice.skip_until(f"You: {alice_rolls} rolls are too few for the chi-square test to mean")
    assert await alice.read_line() == "  much: it needs 180."
    await carol.send("dicetest")
    await carol.skip_until("You: 0 rolls are too few for the chi-square test to mean")


@pytest.mark.stored
async def test_whois_counts_saved_and_abandoned_matches(harness, players):
    alice, bob, carol = players
    harness.dice.append(VerifiableDice(SEED))
    await start(alice, bob, "3")
    await alice.send("bye")
    await bob.skip_until("alice logs out. The game was saved.")
    await carol.skip_until("alice logs out.")
    # A telnet or CLIP session's whois is FIBS's block; `history` gives the counts.
    await carol.send("whois alice")
    await carol.skip_until("Information about alice:")
    await carol.expect_lines(re.compile(r"  Last login: .*"), re.compile(r"  Last logout: .*"),
              "  Not logged in right now.", "  Rating: 1500.00 Experience: 0",
              "  No email address.")
    await carol.expect_prompt()
    await ask(carol, "history alice", "alice has no finished matches.",
              "  Saved matches waiting: 1. Matches abandoned: 0.")
    lobby = harness.server.lobby
    assert await lobby.matches.saved.close_abandoned() == 0  # not yet
    lobby.config.wall_clock = lambda: time.time() + lobby.config.abandon_after + 60
    assert await lobby.matches.saved.close_abandoned() == 1
    await carol.send("history alice")
    await carol.skip_until("  Saved matches waiting: 0. Matches abandoned: 1.")
    await bob.send("history bob")
    await bob.skip_until("  Saved matches waiting: 0. Matches abandoned: 0.")
    # The closed match is over: its seed is out, and it resumes no more.
    await bob.send("fairdice 1")
    await bob.skip_until(f"  seed:       {SEED.hex()}")
    await bob.skip_until(re.compile(r"  All \d+ rolls are the seed's and salts'\."))
    status, output = await verify_dice(harness.config.database_url, 1)
    assert status == 0, output


@pytest.mark.stored
async def test_with_forfeits_on_the_player_who_stayed_wins_the_abandoned_match_rated(
        harness, players):
    alice, bob, carol = players
    harness.dice.append(VerifiableDice(SEED))
    await start(alice, bob, "3")
    await alice.send("leave")
    await bob.skip_until("** Player alice has left the game. The game was saved.")
    lobby = harness.server.lobby
    lobby.config.forfeit_abandoned = True
    lobby.config.wall_clock = lambda: time.time() + lobby.config.abandon_after + 60
    assert await lobby.matches.saved.close_abandoned() == 1
    record = await harness.server.store.match_by_id(1)
    assert record.finished and record.abandoned and record.winner == "bob"
    assert record.state["score"][1] == 3 and record.state["history"][-1][-1]["event"] == \
        "MatchOver"
    assert record.state["ratings"]["bob"][1] > 1500 > record.state["ratings"]["alice"][1]
    await bob.send("history alice")
    await bob.skip_until("  Saved matches waiting: 0. Matches abandoned: 1.")
    await bob.send("history")
    await bob.skip_until(re.compile(r"     1  .*  alice  +3   3-0   won     15\d\d\.\d\d \(\+.*"))
    status, output = await verify_dice(harness.config.database_url, 1)
    assert status == 0, output


@pytest.mark.stored
async def test_an_abandoned_unlimited_match_is_closed_without_a_winner_even_with_forfeits(
        harness, players):
    alice, bob, _ = players
    harness.dice.append(VerifiableDice(SEED))
    await join_match(alice, bob, "unlimited")
    await alice.skip_until("Starting a new game with bob.")
    await alice.send("leave")
    await bob.skip_until("** Player alice has left the game. The game was saved.")
    lobby = harness.server.lobby
    lobby.config.forfeit_abandoned = True
    lobby.config.wall_clock = lambda: time.time() + lobby.config.abandon_after + 60
    assert await lobby.matches.saved.close_abandoned() == 1
    record = await harness.server.store.match_by_id(1)
    assert record.finished and record.abandoned and record.winner is None
    assert "ratings" not in record.state
