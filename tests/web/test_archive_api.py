"""The web's read-only JSON API of the archive (docs/WEB-API.md): the ratings list, a player's
profile and finished rated matches, a public match's moves and the dice statistics. Real
data made through the store; a finished rated match is public, an unrated one is not served;
bad parameters are 400, refusals JSON, and the heavy reads' per-address limit holds."""
from __future__ import annotations

import dataclasses
import json
import pathlib
import random

import aiohttp
import pytest
import pytest_asyncio

from fibs_server.bots import INTERMEDIATE
from fibs_server.lobby.limits.throttle import AbuseLimits
from fibs_server.lobby.ports.accounts import Account
from fibs_server.lobby.ports.match_records import MatchDice
from fibs_server.net.http import NO_SUCH_MATCH, NO_SUCH_PLAYER, TOO_MANY_ARCHIVE_REQUESTS
from fibs_server.rules.dice import (
    PlayerSalt,
    SeededDice,
    VerifiableDice,
    first_wrong_pair,
    salts_from_lists,
    salts_to_lists,
    verifiable_pair,
)
from fibs_server.rules.dice_stats import RollTally
from fibs_server.rules.match import Match
from tests.bots.helpers import play_bots
from tests.web.conftest import WebHarness

ANALYSIS = {"plies": 2, "decisions": [], "players": [{"player": 0}, {"player": 1}]}


def bot_match() -> Match:
    """Two games (cube actions, a resignation, a roll that cannot be played): bob wins 5-0."""
    match = Match(3, SeededDice(13))
    play_bots(match, (INTERMEDIATE, INTERMEDIATE), random.Random(13))
    return match


async def open_harness(tmp_path, burst: int) -> WebHarness:
    harness = WebHarness(f"sqlite:///{tmp_path / 'archive.db'}")
    harness.config = dataclasses.replace(harness.config, abuse_limits=AbuseLimits(
        heavy_read_burst=burst, heavy_reads_per_second=0.01))
    return await harness.start()


@pytest_asyncio.fixture(loop_scope="session")
async def archive(tmp_path):
    """alice and bob's rated bot match (analysed, its rolls counted), an unrated one, carol
    unrated."""
    harness = await open_harness(tmp_path, burst=100)
    store = harness.server.store
    await harness.register("carol")  # to log in
    for name, rating, experience in (("alice", 1510.0, 60), ("bob", 1620.0, 80)):
        await store.create_account(Account(name=name, password_hash=b"x", rating=rating,
                                           experience=experience, last_login_at=1_700_000_000,
                                           last_login_host="10.1.2.3", email="a@b.example"))
    match = bot_match()
    state = match.to_dict()
    dice = MatchDice(None, 0, RollTally().of(state["history"]))
    harness.rated = await store.create_match("alice", "bob", 3, {})
    await store.finish_match(harness.rated, {**state, "ratings": {
        "alice": [1500.0, 1490.0], "bob": [1610.0, 1620.0]}}, "bob", [], dice)
    await store.store_analysis(harness.rated, 2, ANALYSIS)
    harness.unrated = await store.create_match("alice", "bob", 3, {})
    await store.finish_match(harness.unrated, state, "bob", [])
    harness.http = aiohttp.ClientSession()
    yield harness
    await harness.http.close()
    await harness.stop()


async def get(harness: WebHarness, path: str, **params: str):
    async with harness.http.get(harness.url + path, params=params) as answer:
        assert answer.content_type == "application/json"
        return answer.status, await answer.json()


async def test_the_ratings_list_is_paged_and_bounded(archive):
    assert await get(archive, "api/ratings") == (200, {"total": 2, "offset": 0, "ratings": [
        {"rank": 1, "name": "bob", "rating": 1620.0, "experience": 80},
        {"rank": 2, "name": "alice", "rating": 1510.0, "experience": 60}]})
    status, page = await get(archive, "api/ratings", offset="1", limit="1")
    assert status == 200 and [row["rank"] for row in page["ratings"]] == [2]
    for bad in ({"limit": "101"}, {"limit": "-1"}, {"offset": "x"}, {"offset": "9" * 40}):
        status, body = await get(archive, "api/ratings", **bad)
        assert status == 400 and "must be a whole number" in body["error"], bad


async def test_a_profile_has_no_address_or_host(archive):
    status, alice = await get(archive, "api/players/ALICE")
    assert status == 200 and alice == {
        "name": "alice", "rating": 1510.0, "experience": 60, "online": False,
        "last_login_at": 1_700_000_000, "rated_matches": 1, "rated_matches_won": 0}
    await archive.login_clip("carol")
    assert (await get(archive, "api/players/carol"))[1]["online"] is True
    assert await get(archive, "api/players/nobody") == (404, {"error": NO_SUCH_PLAYER})


async def test_a_players_matches_are_the_rated_ones_newest_first(archive):
    status, bob = await get(archive, "api/players/bob/matches")
    assert status == 200
    assert bob["name"] == "bob" and bob["next_before"] is None
    [row] = bob["matches"]  # the unrated match is not listed
    assert row == {"match_id": archive.rated, "opponent": "alice", "length": 3,
                   "winner": "bob", "score": [5, 0], "finished_at": row["finished_at"],
                   "rating_before": 1610.0, "rating_after": 1620.0, "analysed": True}
    status, page = await get(archive, "api/players/bob/matches", limit="1")
    assert page["next_before"] == archive.rated
    status, page = await get(archive, "api/players/bob/matches", before=str(archive.rated))
    assert status == 200 and page["matches"] == []
    assert (await get(archive, "api/players/bob/matches", before="2147483648"))[0] == 400
    assert (await get(archive, "api/players/bob/matches", limit="0x10"))[0] == 400
    assert (await get(archive, "api/players/nobody/matches"))[0] == 404


async def test_a_public_match_has_every_games_actions_an_unrated_one_is_not_served(archive):
    status, match = await get(archive, f"api/matches/{archive.rated}")
    assert status == 200
    assert {key: match[key] for key in ("match_id", "players", "length", "variant", "score",
                                        "winner")} == {
        "match_id": archive.rated, "players": ["alice", "bob"], "length": 3,
        "variant": "standard", "score": [0, 5], "winner": "bob"}
    first, second = match["games"]
    assert (first["score"], second["score"]) == ([0, 0], [0, 1])
    assert first["x_player"] in (0, 1) and second["x_player"] == 1 - first["x_player"]
    assert first["actions"][0]["kind"] == "move" and first["actions"][0]["play"]
    assert [action["kind"] for action in first["actions"][-3:]] == ["double", "drop", "win"]
    assert second["actions"][-1] == {"player": 1, "kind": "win", "points": 4}
    assert {"player": 0, "kind": "take"} in second["actions"]
    # The analysis's notation: own points written as the mover's colour numbers them.
    assert all(action["play"] == "" or "-" in action["play"]
               for game in match["games"] for action in game["actions"]
               if action["kind"] == "move")
    for missing in (archive.unrated, "x", 99999, 2**40):
        assert await get(archive, f"api/matches/{missing}") == (404, {"error": NO_SUCH_MATCH})
    assert (await get(archive, f"api/matches/{archive.unrated}/analysis"))[0] == 404


async def test_a_match_with_a_seed_comes_with_its_dice_and_salts_to_recompute(archive):
    seed = bytes(range(32))
    # bob's salt arrived after the opening roll: it entered from pair 1.
    dice = VerifiableDice(seed, salts=(None, PlayerSalt("bobs-salt", 1)))
    match = Match(3, dice)
    play_bots(match, (INTERMEDIATE, INTERMEDIATE), random.Random(5))
    state = match.to_dict()
    salts = salts_to_lists(dice.salts)
    match_id = await archive.server.store.create_match("alice", "bob", 3, {})
    await archive.server.store.finish_match(
        match_id, {**state, "ratings": {"alice": [1500.0, 1490.0], "bob": [1610.0, 1620.0]}},
        "bob" if match.winner else "alice", [],
        MatchDice(seed.hex(), dice.drawn, RollTally().of(state["history"]), salts))
    status, served = await get(archive, f"api/matches/{match_id}")
    assert status == 200
    shown = served["dice"]
    assert shown["seed"] == seed.hex() and shown["commitment"] == dice.commitment
    assert shown["salts"] == [None, {"text": "bobs-salt", "from_pair": 1}]
    assert len(shown["rolls"]) == dice.drawn > 10
    stored_salts = salts_from_lists(salts)
    assert first_wrong_pair(seed, [tuple(roll) for roll in shown["rolls"]], stored_salts) is None
    # A match without a seed has no dice to recompute.
    assert (await get(archive, f"api/matches/{archive.rated}"))[1]["dice"] is None


def test_the_pages_dice_fixture_is_the_servers_generator():
    """tests/web/js/fair_dice.test.mjs checks the page's WebCrypto generator against it."""
    fixture = json.loads((pathlib.Path(__file__).parent / "js" / "fixtures" / "dice.json")
                         .read_text())
    seed = bytes.fromhex(fixture["seed"])
    salts = tuple(PlayerSalt(salt["text"], salt["from_pair"]) for salt in fixture["salts"])
    assert fixture["rolls"] == [list(verifiable_pair(seed, n, salts))  # type: ignore[arg-type]
                                for n in range(len(fixture["rolls"]))]
    assert all(salt.from_pair > 0 for salt in salts)  # some pairs before each, some after


async def test_the_dice_statistics_of_the_server_and_of_a_player(archive):
    status, server_only = await get(archive, "api/dice")
    assert status == 200 and server_only["player"] is None and server_only["name"] is None
    server = server_only["server"]
    assert server["rolls"] > 0 and len(server["by_roll"]) == 21
    assert sum(row["count"] for row in server["by_roll"]) == server["rolls"]
    assert sum(server["faces"]) == 2 * server["rolls"]
    assert server["by_roll"][0] == {"roll": [1, 1], "count": server["by_roll"][0]["count"],
                                    "fair": pytest.approx(1 / 36)}
    assert set(server) >= {"doubles", "chi_square", "p_value", "enough_rolls", "unusual"}
    status, alice = await get(archive, "api/dice", name="Alice")
    assert status == 200 and alice["name"] == "alice"
    assert 0 < alice["player"]["rolls"] < server["rolls"]
    assert await get(archive, "api/dice", name="nobody") == (404, {"error": NO_SUCH_PLAYER})


async def test_the_heavy_reads_limit_refuses_an_address_asking_too_often(tmp_path):
    harness = await open_harness(tmp_path, burst=5)
    try:
        async with aiohttp.ClientSession() as http:
            paths = ["api/ratings", "api/players/x", "api/players/x/matches", "api/matches/1",
                     "api/dice", "api/ratings"]
            answers = []
            for path in paths:
                async with http.get(harness.url + path) as answer:
                    answers.append((answer.status, answer.headers.get("Retry-After"),
                                    await answer.json()))
    finally:
        await harness.stop()
    assert [status for status, _, _ in answers[:5]] == [200, 404, 404, 404, 200]
    status, retry_after, body = answers[5]
    assert status == 429 and int(retry_after) >= 1
    assert body == {"error": TOO_MANY_ARCHIVE_REQUESTS}
