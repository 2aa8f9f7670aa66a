"""A tournament across SIGKILLs of the server process: a knockout of four, 3-point matches
between e2e bots (tests/e2e/bot.py) on real sockets, the server a subprocess on SQLite. The
server is killed once in the middle of round 1, while both its matches are being played, and
once between rounds: round 1 over, its results read and the final paired, its players
away (they left, so that it could not begin). After each restart the
players log in again and nothing is lost: the director resumes the running matches as saved
matches resume (each where its players last saw it, or one stored action later: the rule of
test_crash.py), the pairings and results reload, the next round is paired from them, and
the tournament ends with a winner. See docs/DURABILITY.md."""
from __future__ import annotations

import asyncio
import re
import signal

from fibs_server.lobby.ports.tournament_records import Status
from fibs_server.protocol.wording import tournament_texts
from fibs_server.store import SqlStore
from tests.durability.test_crash import (
    board_key,
    free_port,
    register,
    start_server,
    stop_all,
)
from tests.e2e.bot import Bot
from tests.e2e.client import FibsClient
from tests.e2e.test_tournament_commands import create
from tests.e2e.tournament_players import Entrant
from tests.waiting import DEADLINE, until

SEED = 20261215
NAMES = ("alice", "bob", "carol", "dave")  # unrated: seeded by name; alice v dave, bob v carol
ROUND_TIMEOUT = 3 * DEADLINE  # seconds: the director passes every 5 s of the server's own clock


async def log_in(port: int, name: str) -> tuple[FibsClient, list[str]]:
    """The client logged in, and the lines that came after its login (a saved match of its
    resumed by itself: the entrant must answer them)."""
    client = FibsClient(name)
    await client.connect(port)
    await client.skip_until("  One account per person only!")
    await client.send(f"login tourneybot 1008 {name} secret")
    await client.skip_until("6")
    await client.send("set boardstyle 3")
    return client, await client.skip_until("Value of 'boardstyle' set to 3.")


async def stored(database_url: str, tournament_id: int):
    store = await SqlStore.open(database_url)
    try:
        return await store.tournament(tournament_id)
    finally:
        await store.close()


def assert_resumed_where_it_stood(pair: list[Entrant], before: dict[str, list[str]]) -> None:
    """The first board of the resumed match, as both players see it, is the last either
    saw before the kill, or one neither saw (one stored action whose telling the kill cut
    off); never an older one."""
    first, second = pair
    resumed = {board_key(entrant.resumed_board, entrant.name, other.name)
               for entrant, other in ((first, second), (second, first))
               if entrant.resumed_board is not None}
    assert len(resumed) == 1, f"{first.name} and {second.name} resumed differently: {resumed}"
    (key,) = resumed
    seen = {entrant.name: [board_key(line, entrant.name, other.name)
                           for line in before[entrant.name]]
            for entrant, other in ((first, second), (second, first))}
    lasts = {boards[-1] for boards in seen.values() if boards}
    older = {board for boards in seen.values() for board in boards[:-1]} - lasts
    assert key not in older, f"{first.name} v {second.name} resumed to an older state"


async def test_a_knockout_survives_a_kill_in_a_round_and_one_between_rounds(tmp_path):
    port, database = free_port(), tmp_path / "tournament.db"
    database_url = f"sqlite:///{database}"
    log_file = open(tmp_path / "server.log", "wb")
    process = await start_server(port, database, log_file, dice_seed=SEED)
    tasks: list[asyncio.Task] = []
    everyone: list[Entrant] = []  # of every run of the server
    seeds = iter(range(1000))

    async def enter_all() -> dict[str, Entrant]:
        entrants = {}
        for name in NAMES:
            client, backlog = await log_in(port, name)
            entrants[name] = Entrant(name, client, Bot(client, name, seed=next(seeds)),
                                     backlog=backlog)
        tasks[:] = [asyncio.create_task(entrant.run()) for entrant in entrants.values()]
        everyone.extend(entrants.values())
        return entrants

    async def kill() -> None:
        nonlocal process
        process.send_signal(signal.SIGKILL)
        await process.wait()
        await asyncio.wait_for(asyncio.gather(*tasks), DEADLINE)  # each reads up to the end
        process = await start_server(port, database, log_file, dice_seed=SEED + 1)

    try:
        for name in NAMES:
            await register(port, name)
        creator, _ = await log_in(port, "alice")
        tid = await create(creator, "knockout length 3 when 4")
        await creator.close()
        entrants = await enter_all()
        for entrant in entrants.values():
            await entrant.client.send(f"tournament join {tid}")
        # The director's next pass starts the tournament and both matches of round 1.
        await until(lambda: all(e.boards_of_match >= 3 for e in entrants.values()),
                    "both matches of round 1 under way", timeout=ROUND_TIMEOUT)
        await kill()  # in the middle of round 1
        before = {name: list(entrant.boards) for name, entrant in entrants.items()}
        linked = (await stored(database_url, tid)).match_ids
        assert sorted(linked) == [(1, 0), (1, 1)]

        entrants = await enter_all()
        back = asyncio.get_running_loop().time()
        await until(lambda: all(entrants[first].resumed_board or entrants[second].resumed_board
                                for first, second in (("alice", "dave"), ("bob", "carol"))),
                    "round 1's matches resumed", timeout=ROUND_TIMEOUT)
        resumed_after = asyncio.get_running_loop().time() - back
        await until(lambda: all(e.matches_ended for e in entrants.values()),
                    "round 1 resumed and played to its end", timeout=ROUND_TIMEOUT)
        round_one_after = asyncio.get_running_loop().time() - back
        for pair in (("alice", "dave"), ("bob", "carol")):
            assert_resumed_where_it_stood([entrants[name] for name in pair], before)
        assert not any(e.matches_begun for e in entrants.values())  # resumed, not begun anew
        # Everyone leaves, so that the final cannot begin: the kill comes once the director
        # has read round 1's results and paired the final, between the rounds.
        for entrant in entrants.values():
            await entrant.client.send("bye")
        await asyncio.wait_for(asyncio.gather(*tasks), DEADLINE)
        for _ in range(int(ROUND_TIMEOUT / 0.05)):
            if len((reloaded := await stored(database_url, tid)).played.rounds) == 2:
                break
            await asyncio.sleep(0.05)  # polling the server's store, as a bystander would
        assert len(reloaded.played.rounds) == 2, "the final was never paired"
        assert reloaded.match_ids == linked  # the same two matches played round 1
        await kill()  # between rounds
        assert (await stored(database_url, tid)).played == reloaded.played

        entrants = await enter_all()
        won = re.compile(rf"Tournament {tid}: the tournament is over\. (\S+) wins it!")
        await until(lambda: any(won.fullmatch(line) for e in entrants.values()
                                for line in e.lines),
                    "the final played and the winner announced", timeout=2 * ROUND_TIMEOUT)
        ended = await stored(database_url, tid)
        assert ended.status is Status.FINISHED
        round_one, final = ended.played.rounds
        assert all(not pairing.forfeit for pairing in (*round_one.pairings, *final.pairings))
        assert [(final.pairings[0].first, final.pairings[0].second)] == [
            (round_one.pairings[0].winner, round_one.pairings[1].winner)]
        assert ended.winner == final.pairings[0].winner
        assert ended.match_ids[(1, 0)] == linked[(1, 0)] and len(ended.match_ids) == 3
        won_line = tournament_texts.tournament_won(tid, ended.winner)
        await until(lambda: all(won_line in e.lines for e in entrants.values()),
                    "every entrant told the winner")
        print(f"round 1's matches resumed {resumed_after:.1f} s after the entrants were back, "
              f"over {round_one_after:.1f} s after; "
              f"killed in round 1 ({len(before['alice'])}, {len(before['bob'])} boards seen) "
              f"and between rounds; {ended.winner} won")
        refused = [refusal for e in everyone for refusal in e.decider.refusals]
        assert not refused, refused
    finally:
        await stop_all(tasks, process, log_file)
