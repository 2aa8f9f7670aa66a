"""The open record's monthly files (fibs_server/open_record.py), on both databases: written by
`fibs-server dump-month` and by the server's monthly duty, read back and checked against
the store: every finished rated match of the month and no other, as JSON and as `.mat`, the
month's dice statistics summed from the matches' own tallies; written again, the same bytes;
the duty writes the month just ended once, across restarts."""
from __future__ import annotations

import asyncio
import gzip
import json
import random
import sys
import tarfile

import pytest

from fibs_server.bots import INTERMEDIATE
from fibs_server.lobby.commands.archive_commands import match_file
from fibs_server.lobby.play.public_reads import dice_statistics
from fibs_server.lobby.ports.accounts import Account
from fibs_server.lobby.ports.match_records import MatchDice
from fibs_server.open_record import MonthlyRecord, write_month
from fibs_server.protocol.views.record_files import README, Month, is_record_file
from fibs_server.rules.dice import PlayerSalt, VerifiableDice, first_wrong_pair, salts_to_lists
from fibs_server.rules.dice_stats import FAIR_PIPS_PER_ROLL, RollTally
from fibs_server.rules.match import Match
from fibs_server.store import SqlStore, upgrade_database_async
from tests.bots.helpers import play_bots
from tests.waiting import until

NOVEMBER = Month(2026, 11)
ANALYSIS = {"plies": 2, "move_filter": "filter", "variant": "standard",
            "decisions": [{"player": 0}], "players": [{"player": 0, "error_rate": 4.5},
                                                      {"player": 1, "error_rate": 7.25}]}


class Archive:
    """A store on a clock the test sets, and what it holds."""

    def __init__(self, store: SqlStore, now: list[float]) -> None:
        self.store = store
        self.now = now
        self.tallies: dict[int, list[list[int]]] = {}  # by match, as stored

    async def finish(self, seed: int, at: float, rated: bool = True) -> int:
        """A 3-point bot match on verifiable dice (bob's salt from pair 1), finished at `at`."""
        dice = VerifiableDice(seed.to_bytes(32, "big"),
                              salts=(None, PlayerSalt(f"salt-{seed}", 1)))
        match = Match(3, dice)
        play_bots(match, (INTERMEDIATE, INTERMEDIATE), random.Random(seed))
        state = match.to_dict()
        if rated:
            state["ratings"] = {"alice": [1500.0, 1490.0], "bob": [1510.0, 1520.0]}
        tally = RollTally().of(state["history"])
        self.now[0] = at
        match_id = await self.store.create_match("alice", "bob", 3, {})
        await self.store.finish_match(match_id, state, ("alice", "bob")[match.winner or 0],
                                      [], MatchDice(dice.seed.hex(), dice.drawn, tally,
                                                    salts_to_lists(dice.salts)))
        self.tallies[match_id] = tally
        return match_id


@pytest.fixture
async def archive(database_url):
    """Two rated matches in November 2026 (the first analysed), an unrated one in November,
    a rated one on the first second of December and one on October's last."""
    await upgrade_database_async(database_url)
    now = [float(NOVEMBER.start)]
    store = await SqlStore.open(database_url, clock=lambda: now[0])
    for name in ("alice", "bob"):
        await store.create_account(Account(name=name, password_hash=b"x"))
    archive = Archive(store, now)
    archive.november = [await archive.finish(1, NOVEMBER.start + 10),
                        await archive.finish(2, NOVEMBER.end - 1)]
    await store.store_analysis(archive.november[0], 2, ANALYSIS)
    archive.unrated = await archive.finish(3, NOVEMBER.start + 20, rated=False)
    archive.december = await archive.finish(4, NOVEMBER.end)
    archive.october = await archive.finish(5, NOVEMBER.start - 1)
    yield archive
    await store.close()


def read_month(folder, month: Month):
    """The month's files read back: the JSON lines, the .mat files by name, the statistics."""
    with gzip.open(folder / month.matches_file, "rt") as lines:
        matches = [json.loads(line) for line in lines]
    with tarfile.open(folder / month.mat_file) as mats:
        texts = {member.name: mats.extractfile(member).read().decode()  # type: ignore[union-attr]
                 for member in mats.getmembers()}
    return matches, texts, json.loads((folder / month.dice_file).read_text())


async def test_a_month_holds_its_rated_matches_as_json_and_mat_and_its_dice(archive, tmp_path):
    folder = tmp_path / "records"
    summary = await write_month(archive.store, NOVEMBER, folder)
    matches, texts, statistics = read_month(folder, NOVEMBER)
    assert statistics == summary

    assert [match["match_id"] for match in matches] == archive.november
    assert sorted(texts) == sorted(f"{match_id}.mat" for match_id in archive.november)
    for match in matches:
        record = await archive.store.match_by_id(match["match_id"])
        assert texts[f"{record.match_id}.mat"] == match_file(record)
        assert match["players"] == ["alice", "bob"] and match["winner"] == record.winner
        assert match["finished_at"] == record.finished_at and match["started_at"]
        assert match["ratings"] == {"alice": [1500.0, 1490.0], "bob": [1510.0, 1520.0]}
        dice = match["dice"]
        assert dice["salts"] == [None, {"text": f"salt-{match['match_id'] - archive.november[0] + 1}",
                                        "from_pair": 1}]
        # Anyone can recompute the rolls from the published seed and salts.
        assert first_wrong_pair(bytes.fromhex(dice["seed"]),
                                [tuple(roll) for roll in dice["rolls"]],
                                (None, PlayerSalt(dice["salts"][1]["text"], 1))) is None
        assert sum(len(game["actions"]) for game in match["games"]) > 0
    first, second = matches
    assert first["analysis"] == {"analysed_at": first["analysis"]["analysed_at"], "plies": 2,
                                 "move_filter": "filter", "variant": "standard",
                                 "players": ANALYSIS["players"]}  # without the decisions
    assert second["analysis"] is None

    tally = [sum(column) for column in zip(*(rolls for match_id in archive.november
                                             for rolls in archive.tallies[match_id]))]
    assert statistics["month"] == "2026-11" and statistics["matches"] == 2
    assert statistics["files"] == [NOVEMBER.matches_file, NOVEMBER.mat_file]
    assert statistics["dice"] == json.loads(json.dumps(dice_statistics(tally)))
    dice = statistics["dice"]
    assert dice["rolls"] == sum(len(match["dice"]["rolls"]) for match in matches) > 20
    assert dice["pips"] == sum((a + b) * (2 if a == b else 1)
                               for match in matches for a, b in match["dice"]["rolls"])
    assert dice["fair_pips_per_roll"] == FAIR_PIPS_PER_ROLL
    assert "public domain" in (folder / README).read_text()
    assert sorted(path.name for path in folder.iterdir()) == sorted(
        [README, NOVEMBER.matches_file, NOVEMBER.mat_file, NOVEMBER.dice_file])
    assert all(is_record_file(path.name) for path in folder.iterdir())

    # Written again: the same bytes.
    before = {path.name: path.read_bytes() for path in folder.iterdir()}
    await write_month(archive.store, NOVEMBER, folder)
    assert {path.name: path.read_bytes() for path in folder.iterdir()} == before


async def dump_month(*arguments: str) -> tuple[int, str]:
    """`python -m fibs_server dump-month ...`: its exit status and output."""
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "fibs_server", "dump-month", *arguments,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT)
    output, _ = await process.communicate()
    return process.returncode or 0, output.decode()


async def test_the_command_writes_the_month_it_is_given(archive, database_url, tmp_path):
    folder = tmp_path / "by-hand"
    status, output = await dump_month("2026-10", "--folder", str(folder),
                                      "--database-url", database_url)
    assert status == 0 and "2026-10" in output and "1 matches" in output, output
    matches, texts, statistics = read_month(folder, Month(2026, 10))
    assert [match["match_id"] for match in matches] == [archive.october]
    assert list(texts) == [f"{archive.october}.mat"] and statistics["matches"] == 1
    status, output = await dump_month("2026-13", "--folder", str(folder))
    assert status == 2 and "not a month" in output


async def test_the_server_writes_the_month_just_ended_once_across_restarts(archive, tmp_path):
    folder = tmp_path / "served"
    december = float(NOVEMBER.end + 3 * 24 * 3600)
    duty = MonthlyRecord(archive.store, folder, lambda: december)
    await duty.write_ended_month()
    assert duty.written == [NOVEMBER]
    assert [match["match_id"] for match in read_month(folder, NOVEMBER)[0]] == archive.november
    again = MonthlyRecord(archive.store, folder, lambda: december)  # after a restart
    await again.write_ended_month()
    assert again.written == []
    # A month is written only once it has ended: in January, December.
    january = MonthlyRecord(archive.store, folder, lambda: float(Month(2027, 1).start))
    await january.write_ended_month()
    assert january.written == [Month(2026, 12)]
    assert [match["match_id"]
            for match in read_month(folder, Month(2026, 12))[0]] == [archive.december]


async def test_the_duty_writes_when_its_lease_is_gained(archive, tmp_path):
    folder = tmp_path / "leased"
    duty = MonthlyRecord(archive.store, folder, lambda: float(NOVEMBER.end + 60))
    await duty.begin()
    try:
        await until(lambda: duty.written,
                    "the duty writes November once its lease is gained")
    finally:
        await duty.end()
    assert duty.written == [NOVEMBER]


async def test_the_duty_writes_a_month_that_ends_while_it_runs(archive, tmp_path):
    """The schedule: begun in November it writes October; once the clock passes into
    December its next look (every `period` seconds) writes November, read back."""
    folder = tmp_path / "scheduled"
    now = [float(NOVEMBER.start + 3600)]
    duty = MonthlyRecord(archive.store, folder, lambda: now[0], period=0.01)
    await duty.begin()
    try:
        await until(lambda: duty.written == [Month(2026, 10)], "October written at the start")
        now[0] = float(NOVEMBER.end + 60)
        await until(lambda: duty.written == [Month(2026, 10), NOVEMBER],
                    "November written at the first look after it ended")
    finally:
        await duty.end()
    assert [match["match_id"] for match in read_month(folder, NOVEMBER)[0]] == archive.november
    assert [match["match_id"]
            for match in read_month(folder, Month(2026, 10))[0]] == [archive.october]


def test_months_are_calendar_months_in_utc():
    assert str(Month.parse("2026-01")) == "2026-01" and Month(2026, 1).previous == Month(2025, 12)
    assert Month(2026, 12).end == Month(2027, 1).start == 1798761600
    assert Month.of(Month(2026, 3).start - 1) == Month(2026, 2)
    for wrong in ("2026-00", "2026-13", "26-01", "2026-1", "x"):
        with pytest.raises(ValueError):
            Month.parse(wrong)
    for outside in ("fibs.db", "records/fibs-2026-11.dice.json", "fibs-2026-11.db"):
        assert not is_record_file(outside), outside
