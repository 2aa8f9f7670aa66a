"""The open record over HTTP (docs/WEB-API.md): a finished rated match's record (with its
dice and the analysis's summary) and its `.mat` file, the months the server wrote and their
files, and the dice page showing a test archive's real figures in a browser. A server with
a records folder writes the month just ended by itself."""
from __future__ import annotations

import dataclasses
import gzip
import json
import random

import aiohttp
from playwright.async_api import expect

from fibs_server.bots import INTERMEDIATE
from fibs_server.lobby.commands.archive_commands import match_file
from fibs_server.lobby.limits.throttle import AbuseLimits
from fibs_server.lobby.ports.accounts import Account
from fibs_server.lobby.ports.match_records import MatchDice
from fibs_server.net.http import NO_SUCH_MATCH, NO_SUCH_RECORD_FILE
from fibs_server.open_record import RECORDS, write_month
from fibs_server.protocol.views.record_files import README, Month
from fibs_server.rules.dice import PlayerSalt, VerifiableDice, salts_to_lists
from fibs_server.rules.dice_stats import RollTally
from fibs_server.rules.match import Match
from tests.bots.helpers import play_bots
from tests.waiting import until
from tests.web.conftest import WebHarness
from tests.web.test_browser import TIMEOUT

ANALYSIS = {"plies": 2, "move_filter": "filter", "variant": "standard",
            "decisions": [{"player": 0}], "players": [{"player": 0}, {"player": 1}]}


async def finish_match(harness: WebHarness, seed: int, rated: bool = True) -> int:
    dice = VerifiableDice(seed.to_bytes(32, "big"), salts=(None, PlayerSalt("bobs", 1)))
    match = Match(3, dice)
    play_bots(match, (INTERMEDIATE, INTERMEDIATE), random.Random(seed))
    state = match.to_dict()
    if rated:
        state["ratings"] = {"alice": [1500.0, 1490.0], "bob": [1510.0, 1520.0]}
    store = harness.server.store
    match_id = await store.create_match("alice", "bob", 3, {})
    await store.finish_match(match_id, state, "bob", [], MatchDice(
        dice.seed.hex(), dice.drawn, RollTally().of(state["history"]),
        salts_to_lists(dice.salts)))
    return match_id


async def open_archive(tmp_path) -> WebHarness:
    """A server keeping its open record in tmp_path/records, with two rated matches (the
    first analysed) and an unrated one, their month written."""
    harness = WebHarness(f"sqlite:///{tmp_path / 'record.db'}")
    harness.config = dataclasses.replace(
        harness.config, records_folder=tmp_path / "records",
        abuse_limits=AbuseLimits(heavy_read_burst=100, heavy_reads_per_second=0.01))
    await harness.start()
    store = harness.server.store
    for name in ("alice", "bob"):
        await store.create_account(Account(name=name, password_hash=b"x"))
    harness.rated = [await finish_match(harness, 1), await finish_match(harness, 2)]
    harness.unrated = await finish_match(harness, 3, rated=False)
    await store.store_analysis(harness.rated[0], 2, ANALYSIS)
    record = await store.match_by_id(harness.rated[0])
    harness.month = Month.of(record.finished_at)
    harness.summary = await write_month(store, harness.month, tmp_path / "records")
    return harness


async def test_a_match_its_mat_file_and_the_months_files_are_served(tmp_path):
    harness = await open_archive(tmp_path)
    try:
        async with aiohttp.ClientSession(auto_decompress=False) as http:
            async def get(path: str) -> tuple[int, aiohttp.ClientResponse, bytes]:
                async with http.get(harness.url + path) as answer:
                    return answer.status, answer, await answer.read()

            first = harness.rated[0]
            status, answer, body = await get(f"api/matches/{first}/record")
            record = json.loads(body)
            assert status == 200 and record["match_id"] == first
            assert record["dice"]["salts"] == [None, {"text": "bobs", "from_pair": 1}]
            assert record["ratings"]["bob"] == [1510.0, 1520.0]
            assert record["analysis"]["players"] == ANALYSIS["players"]
            assert "decisions" not in record["analysis"]
            status, _, body = await get(f"api/matches/{harness.rated[1]}/record")
            assert status == 200 and json.loads(body)["analysis"] is None

            status, answer, body = await get(f"api/matches/{first}/mat")
            assert status == 200 and answer.content_type == "text/plain"
            assert answer.headers["Content-Disposition"] == \
                f'attachment; filename="fibs-{first}.mat"'
            assert body.decode() == match_file(await harness.server.store.match_by_id(first))
            for path in (f"api/matches/{harness.unrated}/record",
                         f"api/matches/{harness.unrated}/mat", "api/matches/x/mat"):
                status, _, body = await get(path)
                assert (status, json.loads(body)) == (404, {"error": NO_SUCH_MATCH}), path

            # The server wrote the month before this one by itself (the records lease).
            await until(lambda: (harness.config.records_folder
                                 / harness.month.previous.dice_file).exists(),
                        "the server writes the month just ended")
            status, _, body = await get("api/records")
            months = json.loads(body)["months"]
            assert status == 200 and [month["month"] for month in months] == [
                str(harness.month), str(harness.month.previous)]
            assert months[0] == harness.summary and months[0]["matches"] == 2

            status, answer, body = await get(f"records/{harness.month.matches_file}")
            assert status == 200 and answer.content_type == "application/gzip"
            assert "Content-Encoding" not in answer.headers  # the file itself, gzipped
            lines = gzip.decompress(body).decode().splitlines()
            assert [json.loads(line)["match_id"] for line in lines] == harness.rated
            status, _, body = await get(f"records/{README}")
            assert status == 200 and b"public domain" in body
            for missing in ("records/fibs.db", "records/..%2Frecord.db",
                            "records/fibs-1999-01.jsonl.gz"):
                status, _, body = await get(missing)
                assert status == 404, missing
            assert json.loads((await get("records/fibs.db"))[2]) == {
                "error": NO_SUCH_RECORD_FILE}
        figures = await harness.server.metrics()
        assert f'lease="{RECORDS}"' in figures
    finally:
        await harness.stop()


async def test_the_dice_page_shows_the_months_figures(tmp_path, browser):
    harness = await open_archive(tmp_path)
    try:
        context = await browser.new_context()
        page = await context.new_page()
        page.set_default_timeout(TIMEOUT)
        await page.goto(harness.url + "dice")
        row = page.locator(f'tr[data-month="{harness.month}"]')
        dice = harness.summary["dice"]
        await expect(row.locator("td").nth(1)).to_have_text("2")
        await expect(row.locator("td").nth(2)).to_have_text(str(dice["rolls"]))
        share = 100 * dice["doubles"] / dice["rolls"]
        await expect(row.locator("td").nth(3)).to_have_text(
            f"{dice['doubles']} ({share:.1f}%, fair 16.7%)")
        await expect(row.locator("td").nth(4)).to_have_text(
            f"{dice['pips'] / dice['rolls']:.2f} (fair 8.17)")
        figure = (f"{dice['chi_square']:.1f}" if dice["enough_rolls"] else "too few rolls")
        await expect(row.locator("td").nth(5)).to_have_text(figure)
        link = row.get_by_role("link", name="JSON")
        await expect(link).to_have_attribute("href", f"/records/{harness.month.matches_file}")
        await context.close()
    finally:
        await harness.stop()
