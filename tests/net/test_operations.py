"""The operator's side of one node over real sockets: /healthz, /readyz (ready once started,
503 while shutting down or with the store failing), /metrics in Prometheus's text format
(parsed strictly here, its numbers moving as users log in and type) and who may read it,
the JSON logs, and `fibs-server db backup` of a running server's SQLite database restored by
starting a server on the copy."""
from __future__ import annotations

import asyncio
import dataclasses
import io
import json
import logging
import math
import re
import subprocess
import sys

import aiohttp
import pytest

from fibs_server import app
from fibs_server.__main__ import parse_arguments
from fibs_server.app import FibsServer, ServerConfig
from fibs_server.json_logs import JsonFormatter
from fibs_server.lobby.metrics import (
    BOT_DECISION_SECONDS,
    COMMAND_SECONDS,
    CONTENT_TYPE,
    Histogram,
    exposition,
    family,
)
from fibs_server.lobby.services.bot_players import BotConfig
from fibs_server.net.http import LOOPBACK, networks
from tests.e2e.bot import Bot
from tests.e2e.test_match_play import join_match
from tests.waiting import until
from tests.web.conftest import WebHarness
from tests.web.test_websocket import web_login

OTHER_LOOPBACK = "127.0.0.2"
SAMPLE = re.compile(r'(?P<name>[a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(?P<labels>[^}]*)\})? '
                    r'(?P<value>\S+)')
LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\[\\"n])*)"(?:,|$)')
KINDS = {"counter", "gauge", "histogram", "summary", "untyped"}


def parse_exposition(text: str) -> dict[str, dict]:
    """Prometheus's text format 0.0.4, strictly: each family's HELP and TYPE come once, before
    its samples; a sample belongs to the family last declared; values are numbers; a
    histogram's buckets are cumulative, end with +Inf, and +Inf equals its _count.
    {name: {"type", "help", "samples": {(sample name, labels): value}}}."""
    assert text.endswith("\n")
    families: dict[str, dict] = {}
    current: str | None = None
    for line in text[:-1].split("\n"):
        if line.startswith("# HELP "):
            name, _, help_text = line[len("# HELP "):].partition(" ")
            assert name not in families, f"{name} declared twice"
            families[name] = {"help": help_text, "type": None, "samples": {}}
            current = name
        elif line.startswith("# TYPE "):
            name, _, kind = line[len("# TYPE "):].partition(" ")
            assert name == current and kind in KINDS and families[name]["type"] is None, line
            families[name]["type"] = kind
        else:
            match = SAMPLE.fullmatch(line)
            assert match and current is not None, f"not a sample line: {line!r}"
            family_of = families[current]
            suffixes = ("_bucket", "_sum", "_count") if family_of["type"] == "histogram" else ("",)
            assert any(match["name"] == current + suffix for suffix in suffixes), line
            labels_text = match["labels"] or ""
            labels = tuple(LABEL.findall(labels_text))
            assert "".join(f'{k}="{v}",' for k, v in labels).rstrip(",") == labels_text, line
            value = float(match["value"])  # +Inf, NaN and numbers only
            key = (match["name"], labels)
            assert key not in family_of["samples"], f"{line!r} twice"
            family_of["samples"][key] = value
    for name, found in families.items():
        assert found["type"] is not None, f"{name} has no TYPE"
        if found["type"] == "histogram":
            buckets = [(dict(labels)["le"], value) for (sample, labels), value
                       in found["samples"].items() if sample == name + "_bucket"]
            assert buckets[-1][0] == "+Inf"
            bounds = [float(bound) for bound, _ in buckets]
            assert bounds == sorted(bounds)
            counts = [count for _, count in buckets]
            assert counts == sorted(counts), f"{name}: buckets not cumulative"
            assert counts[-1] == found["samples"][(name + "_count", ())]
            assert (name + "_sum", ()) in found["samples"]
    return families


def value(families: dict[str, dict], sample: str, **labels: str) -> float:
    for found in families.values():
        if (sample, tuple(labels.items())) in found["samples"]:
            return found["samples"][(sample, tuple(labels.items()))]
    raise KeyError(sample)


@pytest.fixture
async def make_web(tmp_path):
    """`await make_web(**ServerConfig fields)`: a started server with its web client."""
    started: list[WebHarness] = []

    async def make(database: str = "operations.db", **config) -> WebHarness:
        harness = WebHarness(f"sqlite:///{tmp_path / database}")
        harness.config = dataclasses.replace(harness.config, **config)
        started.append(await harness.start())
        return harness

    yield make
    for harness in started:
        await harness.stop()


async def get(harness: WebHarness, path: str, source: str | None = None
              ) -> tuple[int, dict[str, str], str]:
    connector = aiohttp.TCPConnector(local_addr=(source, 0)) if source else None
    async with aiohttp.ClientSession(connector=connector) as http:
        async with http.get(harness.url + path.lstrip("/")) as response:
            return response.status, dict(response.headers), await response.text()


async def scrape(harness: WebHarness) -> dict[str, dict]:
    status, headers, text = await get(harness, "/metrics")
    assert status == 200 and headers["Content-Type"] == CONTENT_TYPE
    assert headers["Cache-Control"] == "no-store"
    return parse_exposition(text)


async def test_healthz_and_readyz_answer_once_started(make_web):
    harness = await make_web()
    for path, text in (("/healthz", "ok\n"), ("/readyz", "ready\n")):
        status, headers, body = await get(harness, path)
        assert (status, body) == (200, text)
        assert headers["Cache-Control"] == "no-store"
        assert headers["Content-Type"].startswith("text/plain")


async def test_readyz_is_503_while_shutting_down_and_healthz_stays_ok(make_web):
    harness = await make_web()
    assert harness.server is not None and harness.server.lobby is not None
    harness.server.lobby.stop_requested.set()  # what SIGTERM and an admin's shutdown set
    assert (await get(harness, "/readyz"))[::2] == (503, "shutting down\n")
    assert (await get(harness, "/healthz"))[::2] == (200, "ok\n")


async def test_readyz_is_503_when_the_store_fails_or_does_not_answer(make_web, monkeypatch):
    harness = await make_web()
    assert harness.server is not None and harness.server.store is not None
    store = harness.server.store

    async def failing() -> None:
        raise OSError("disk gone")
    monkeypatch.setattr(store, "answers", failing)
    assert (await get(harness, "/readyz"))[::2] == (503, "the store failed: OSError\n")

    async def silent() -> None:
        await asyncio.get_running_loop().create_future()  # never answers
    monkeypatch.setattr(store, "answers", silent)
    monkeypatch.setattr(app, "READY_TIMEOUT", 0.05)
    assert (await get(harness, "/readyz"))[::2] == (
        503, "the store did not answer within 0.05 s\n")
    monkeypatch.undo()
    assert (await get(harness, "/readyz"))[0] == 200


async def test_a_server_not_started_is_not_ready():
    assert await FibsServer(ServerConfig()).readiness() == "starting"


async def test_metrics_parse_and_move_as_users_log_in_and_type(make_web):
    harness = await make_web()
    for name in ("alice", "bob"):
        await harness.register(name)
    before = await scrape(harness)
    commands_before = sum(COMMAND_SECONDS.counts)
    assert value(before, "fibs_command_duration_seconds_count") == commands_before
    assert value(before, "fibs_sessions_online", transport="telnet") == 0
    assert value(before, "fibs_sessions_online", transport="websocket") == 0
    assert value(before, "fibs_visitors_online") == 0
    assert value(before, "fibs_matches_running") == 0
    alice = await harness.login_clip("alice")
    clients: list = []
    try:
        bob = await web_login(harness, clients, "bob")
        await alice_moves_first(harness, alice, bob)
        # alice's set boardstyle, toggle and invite, bob's toggle and join: each is counted
        # once its handler is done, which may be a store's trip after its reply went out.
        await until(lambda: sum(COMMAND_SECONDS.counts) >= commands_before + 5)
        after = await scrape(harness)
    finally:
        for client in clients:
            await client.close()
    assert value(after, "fibs_sessions_online", transport="telnet") == 1
    assert value(after, "fibs_sessions_online", transport="websocket") == 1
    assert value(after, "fibs_connections") == 2
    assert value(after, "fibs_matches_running") == 1
    commands = "fibs_command_duration_seconds_count"
    assert value(after, commands) >= value(before, commands) + 5
    stored = "fibs_store_transaction_duration_seconds_count"
    assert value(after, stored) > value(before, stored)
    assert value(after, "fibs_command_duration_seconds_sum") > value(
        before, "fibs_command_duration_seconds_sum")
    # Neither the bots nor the analyses are on in this server: their metrics are absent.
    assert "fibs_bot_decisions_total" not in after and "fibs_analyses_waiting" not in after
    assert "fibs_bot_decision_duration_seconds" not in after


async def test_metrics_show_the_bots_and_the_analysis_queue_when_they_run(make_web):
    from fibs_server.lobby.services.analysis_queue import AnalysisConfig
    harness = await make_web(bots=BotConfig(think_time=0, workers=1, time_budget=30),
                             analysis=AnalysisConfig())
    families = await scrape(harness)
    for outcome in ("decided", "late", "refused", "failed"):
        assert value(families, "fibs_bot_decisions_total", outcome=outcome) == 0
    assert families["fibs_bot_decisions_total"]["type"] == "counter"
    assert families["fibs_bot_decision_duration_seconds"]["type"] == "histogram"
    assert value(families, "fibs_analyses_waiting") == 0


async def test_a_bot_decision_shows_in_the_decision_latency_histogram(make_web):
    harness = await make_web(bots=BotConfig(think_time=0, workers=1, time_budget=30))
    count, seconds = ("fibs_bot_decision_duration_seconds_count",
                      "fibs_bot_decision_duration_seconds_sum")
    before = await scrape(harness)
    assert value(before, count) == sum(BOT_DECISION_SECONDS.counts)
    await harness.register("alice")
    client = await harness.login_clip("alice")
    alice = Bot(client, "alice", seed=1)
    await alice.send("bot beginner 1")
    # alice plays until the bot has decided something (its opening move or a roll): each
    # decision is counted before it is applied, so before alice hears of it.
    while sum(BOT_DECISION_SECONDS.counts) == value(before, count):
        await alice.react(await client.read_line())
    after = await scrape(harness)
    assert value(after, count) > value(before, count)
    assert value(after, seconds) > value(before, seconds)
    assert value(after, "fibs_bot_decisions_total", outcome="decided") >= (
        value(after, count) - value(before, count))


async def test_metrics_answer_loopback_by_default_and_only_the_configured_addresses(make_web):
    harness = await make_web()
    assert (await get(harness, "/metrics", OTHER_LOOPBACK))[0] == 200
    narrow = await make_web("narrow.db", metrics_from=networks("127.0.0.1"))
    status, headers, text = await get(narrow, "/metrics", OTHER_LOOPBACK)
    assert status == 403 and "fibs_" not in text
    assert headers["X-Content-Type-Options"] == "nosniff"
    assert (await get(narrow, "/metrics"))[0] == 200
    # The other endpoints are anyone's.
    assert (await get(narrow, "/healthz", OTHER_LOOPBACK))[0] == 200


def test_metrics_from_takes_addresses_and_networks():
    assert parse_arguments([]).metrics_from == LOOPBACK
    given = parse_arguments(["--metrics-from", "127.0.0.1, 10.1.0.0/16,::1"]).metrics_from
    assert [str(network) for network in given] == ["127.0.0.1/32", "10.1.0.0/16", "::1/128"]
    with pytest.raises(SystemExit):
        parse_arguments(["--metrics-from", "10.1.0.1/16"])  # host bits set: a typo


def test_the_exposition_of_a_histogram_and_of_labels():
    histogram = Histogram("x_seconds", "X.", bounds=(0.1, 1.0))
    for seconds in (0.05, 0.1, 0.5, 3.0):
        histogram.observe(seconds)
    text = exposition([histogram.exposition(),
                       family("y", "gauge", "Y\nsecond line.", [({"k": 'a"b\\c\nd'}, 2)])])
    assert text == (
        "# HELP x_seconds X.\n# TYPE x_seconds histogram\n"
        'x_seconds_bucket{le="0.1"} 2\nx_seconds_bucket{le="1"} 3\n'
        'x_seconds_bucket{le="+Inf"} 4\nx_seconds_sum 3.65\nx_seconds_count 4\n'
        "# HELP y Y\\nsecond line.\n# TYPE y gauge\n"
        'y{k="a\\"b\\\\c\\nd"} 2\n')
    families = parse_exposition(text)
    assert math.isclose(value(families, "x_seconds_sum"), 3.65)


def test_json_logs_are_one_object_a_line_with_the_exception():
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(JsonFormatter())
    logger = logging.getLogger("fibs_server.test_operations")
    logger.addHandler(handler)
    logger.propagate = False
    try:
        logger.warning("plain %s", "line")
        try:
            raise ValueError("bad\nthing")
        except ValueError:
            logger.exception("failed")
    finally:
        logger.removeHandler(handler)
        logger.propagate = True
    lines = stream.getvalue().splitlines()
    assert len(lines) == 2
    plain, failed = (json.loads(line) for line in lines)
    assert plain["level"] == "WARNING" and plain["message"] == "plain line"
    assert plain["logger"] == "fibs_server.test_operations" and "exception" not in plain
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00", plain["time"])
    assert failed["message"] == "failed"
    assert "ValueError: bad\nthing" in failed["exception"]


def test_the_command_line_logs_json_when_asked(tmp_path):
    done = subprocess.run([sys.executable, "-m", "fibs_server", "db", "upgrade",
                           "--log-format", "json", "--database-url",
                           f"sqlite:///{tmp_path / 'logs.db'}"],
                          capture_output=True, text=True, timeout=60, check=True)
    entries = [json.loads(line) for line in done.stderr.splitlines()]
    assert entries and {"time", "level", "logger", "message"} <= set(entries[0])


def back_up(database_url: str, target) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "fibs_server", "db", "backup",
                           "--database-url", database_url, str(target)],
                          capture_output=True, text=True, timeout=60)


async def alice_moves_first(harness, alice, bob) -> None:
    """Both ready, alice invites bob to 3 points and he joins; alice opens with 3-1."""
    for client in (alice, bob):
        await client.toggle_ready()
    harness.script_dice((3, 1))
    await join_match(alice, bob, "3")
    await alice.skip_until("It's your turn to move.")


async def test_a_backup_of_the_running_server_is_a_server_of_its_own(make_web, tmp_path):
    harness = await make_web("live.db")
    assert harness.server is not None and harness.server.store is not None
    for name in ("alice", "bob"):
        await harness.register(name)
    alice, bob = await harness.login_clip("alice"), await harness.login_clip("bob")
    await alice_moves_first(harness, alice, bob)
    await alice.send("move 8-5 6-5")
    await bob.skip_until("It's your turn to roll or double.")
    await bob.send("leave")
    await alice.skip_until("** Player bob has left the game. The game was saved.")
    saved = await harness.server.store.running_match("alice", "bob")
    assert saved is not None
    # While the server runs, and while its users go on writing.
    await alice.send("message bob see you")
    done = await asyncio.to_thread(back_up, harness.config.database_url,
                                   tmp_path / "backup.db")
    assert done.returncode == 0, done.stderr
    assert not (tmp_path / "backup.db.partial").exists()
    restored = await make_web("backup.db")
    assert restored.server is not None and restored.server.store is not None
    account = await restored.server.store.find_account("alice")
    assert account is not None and account.name == "alice"
    copy = await restored.server.store.running_match("alice", "bob")
    assert copy is not None and copy.match_id == saved.match_id and copy.state == saved.state
    assert copy.left_by == "bob"
    # The restored server serves it: alice logs in there with her password.
    await restored.login_clip("alice")


def test_backup_of_postgresql_points_to_pg_dump(tmp_path):
    done = back_up("postgresql://fibs@db.example/fibs", tmp_path / "dump")
    assert done.returncode == 2 and "pg_dump -Fc" in done.stderr
    assert not (tmp_path / "dump").exists()


def test_backup_of_a_missing_database_fails_and_writes_nothing(tmp_path):
    done = back_up(f"sqlite:///{tmp_path / 'nothing.db'}", tmp_path / "copy.db")
    assert done.returncode == 1 and "could not back up" in done.stderr
    assert list(tmp_path.iterdir()) == []
