"""A loop of the archive's heavy reads, `dicetest` by one user and /api/rating-history from
one address, then the rest of the JSON API (docs/WEB-API.md) from one address, while a
bystander logs in and plays: the bystander is answered as fast as ever, and the flooder gets
its few reads and then the documented refusals."""
from __future__ import annotations

import asyncio
import dataclasses
import itertools
import json
import random
import re
import time

import aiohttp

from fibs_server.lobby.limits.read_limits import KeyedRateLimit
from fibs_server.lobby.limits.throttle import AbuseLimits
from fibs_server.net.http import TOO_MANY_ARCHIVE_REQUESTS, TOO_MANY_HISTORY_REQUESTS
from fibs_server.rules.dice import SeededDice
from fibs_server.rules.match import Match
from tests.bots.helpers import random_action
from tests.e2e.test_match_play import start
from tests.hostile.bystander import assert_unhurt, time_answers_during, time_answers_quiet, timed
from tests.web.conftest import WebHarness

BURST, PER_SECOND = 3, 0.2
ROUNDS = 100  # dicetests and history requests, each as soon as the last is answered
ARCHIVE = 100  # finished rated matches of the flooder's
ANSWERED = re.compile(r"Dice rolled on this server: \d+ rolls; by you: \d+\.")
REFUSED = re.compile(r"\*\* Too many dicetests: try again in [1-5] seconds?\.")


async def dicetests(client) -> tuple[int, int]:
    answered = refused = 0
    for _ in range(ROUNDS):
        await client.send("dicetest")
        while True:
            line = await client.read_line()
            if ANSWERED.fullmatch(line) or REFUSED.fullmatch(line):
                break
        answered += ANSWERED.fullmatch(line) is not None
        refused += REFUSED.fullmatch(line) is not None
    return answered, refused


async def history_requests(url: str) -> list[tuple[int, str | None, str]]:
    """Each answer's status, Retry-After and body."""
    answers = []
    async with aiohttp.ClientSession() as http:
        for _ in range(ROUNDS):
            async with http.get(f"{url}api/rating-history", params={"name": "flooder"}) as answer:
                answers.append((answer.status, answer.headers.get("Retry-After"),
                                await answer.text()))
    return answers


async def heavy_reads_harness(tmp_path) -> WebHarness:
    """The server with the heavy reads' limits, and the flooder, its opponent, the bystander
    alice, her partner bob and a latecomer registered; its open record in tmp_path/records."""
    harness = WebHarness(f"sqlite:///{tmp_path / 'heavy.db'}")
    harness.config = dataclasses.replace(harness.config, abuse_limits=AbuseLimits(
        heavy_read_burst=BURST, heavy_reads_per_second=PER_SECOND),
        records_folder=tmp_path / "records")
    await harness.start()
    for name in ("flooder", "opponent", "alice", "bob", "latecomer"):
        await harness.register(name)
    return harness


async def bystander_playing(harness: WebHarness):
    """alice, the bystander, logged in and playing a 1-point match against bob; the seconds
    her login took."""
    bystander, login = await timed(harness.login_clip("alice"))
    partner = await harness.login_clip("bob")
    for client in (bystander, partner):
        await client.toggle_ready()
    await start(bystander, partner, "1")
    return bystander, login


async def test_a_loop_of_heavy_reads_is_refused_and_slows_nobody(tmp_path, tracebacks):
    harness = await heavy_reads_harness(tmp_path)
    try:
        store = harness.server.store
        for _ in range(ARCHIVE):
            match_id = await store.create_match("flooder", "opponent", 1, {})
            await store.finish_match(match_id, {"ratings": {"flooder": [1500.0, 1501.0],
                                                            "opponent": [1500.0, 1499.0]}},
                                     "flooder", [])
        flooder = await harness.login_clip("flooder")
        bystander, _ = await bystander_playing(harness)  # the bystander, alice, plays bob
        quiet = await time_answers_quiet(bystander)
        started = time.monotonic()
        flooding = asyncio.gather(dicetests(flooder), history_requests(harness.url))
        logging_in = asyncio.ensure_future(harness.login_clip("latecomer"))
        delays = await time_answers_during(bystander, flooding)
        seconds = time.monotonic() - started
        (answered, refused), answers = flooding.result()
        await logging_in
    finally:
        await harness.stop()

    allowed = BURST + seconds * PER_SECOND + 1
    assert 0 < answered <= allowed and refused == ROUNDS - answered
    served = [body for status, _, body in answers if status == 200]
    assert 0 < len(served) <= allowed
    refusals = [(retry_after, body) for status, retry_after, body in answers if status == 429]
    assert len(refusals) == ROUNDS - len(served)
    assert all(1 <= int(retry_after) <= 5 and json.loads(body) == {
        "error": TOO_MANY_HISTORY_REQUESTS} for retry_after, body in refusals)
    assert_unhurt(quiet, delays, "a loop of dicetests and rating-history requests")


# Requests in flight at once, each loop asking again as soon as it is answered; in all no more
# than the HTTP port's own burst (100), so every refusal is the heavy reads'.
API_LOOPS, API_ROUNDS = 4, 25


def long_match(length: int, seed: int, events: int = 500) -> Match:
    """A finished match of random decisions with more than `events` events for the replay to
    read: the first from `seed` on that has them (how long random play lasts depends on the
    order the generator lists plays in)."""
    while True:
        match, rng = Match(length, SeededDice(seed)), random.Random(seed)
        match.start()
        while not match.is_over:
            for player in (0, 1):
                random_action(match, player, rng)
        if sum(len(game) for game in match.history) > events:
            return match
        seed += 1


async def a_long_rated_match(store) -> tuple[int, Match]:
    """A finished rated 25-point match of 500 events, flooder against opponent, stored: its
    id, and the match."""
    match = long_match(25, seed=3)
    match_id = await store.create_match("flooder", "opponent", 25, {})
    await store.finish_match(match_id, {**match.to_dict(), "ratings": {
        "flooder": [1500.0, 1501.0], "opponent": [1500.0, 1499.0]}}, "flooder", [])
    return match_id, match


async def api_requests(url: str, paths: list[str]) -> list[tuple[int, str | None, str]]:
    async with aiohttp.ClientSession() as http:
        async def loop(start: int) -> list[tuple[int, str | None, str]]:
            answers = []
            for path in itertools.islice(itertools.cycle(paths), start, start + API_ROUNDS):
                async with http.get(url + path) as answer:
                    answers.append((answer.status, answer.headers.get("Retry-After"),
                                    await answer.text(errors="replace")))
            return answers
        loops = await asyncio.gather(*(loop(start) for start in range(API_LOOPS)))
    return [answer for answers in loops for answer in answers]


async def test_a_flood_of_the_json_api_is_refused_and_slows_nobody(tmp_path, tracebacks):
    harness = await heavy_reads_harness(tmp_path)
    try:
        match_id, match = await a_long_rated_match(harness.server.store)
        paths = [f"api/matches/{match_id}", "api/players/flooder/matches", "api/ratings",
                 "api/players/flooder", "api/dice?name=flooder"]
        bystander, _ = await bystander_playing(harness)
        quiet = await time_answers_quiet(bystander)
        started = time.monotonic()
        flooding = asyncio.ensure_future(api_requests(harness.url, paths))
        logging_in = asyncio.ensure_future(harness.login_clip("latecomer"))
        delays = await time_answers_during(bystander, flooding)
        seconds = time.monotonic() - started
        answers = flooding.result()
        await logging_in
    finally:
        await harness.stop()

    assert sum(len(game) for game in match.history) > 500
    assert_heavy_reads_paced(answers, seconds)
    assert_unhurt(quiet, delays, "a flood of the JSON API")


def assert_heavy_reads_paced(answers: list[tuple[int, str | None, str]], seconds: float) -> None:
    """`api_requests`'s answers over `seconds`: the heavy reads' burst and rate served, the
    rest refused with a Retry-After and the reason."""
    served = [status for status, _, _ in answers if status == 200]
    assert 0 < len(served) <= BURST + seconds * PER_SECOND + 1
    refusals = [(retry_after, body) for status, retry_after, body in answers if status != 200]
    assert len(refusals) == API_LOOPS * API_ROUNDS - len(served)
    unpaced = [(status, body[:200]) for status, retry_after, body in answers
               if status != 200 and retry_after is None]
    assert not unpaced, unpaced
    assert all(1 <= int(retry_after) <= 5
               and json.loads(body) == {"error": TOO_MANY_ARCHIVE_REQUESTS}
               for retry_after, body in refusals)


def test_a_rate_limit_gives_a_burst_then_a_token_per_interval_and_forgets_full_keys():
    now = [0.0]
    limit = KeyedRateLimit(2, 0.5, clock=lambda: now[0])
    assert [limit.wait_before("alice") for _ in range(3)] == [0.0, 0.0, 2.0]
    assert limit.wait_before("bob") == 0.0  # every key has its own bucket
    now[0] = 1.5
    assert limit.wait_before("alice") == 0.5  # a refusal takes no token
    now[0] = 2.0
    assert limit.wait_before("alice") == 0.0
    now[0] = 100.0  # both full again: forgotten as the next request comes
    assert limit.wait_before("carol") == 0.0 and len(limit) == 1
