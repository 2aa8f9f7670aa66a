"""`fibs-server` / `python -m fibs_server`: run the server, `db upgrade` to migrate only,
`db backup <file>` to copy a SQLite database while the server runs,
`admin grant|revoke <name>` to make an account an administrator (or not), `export-match`,
`verify-dice <match-id>` to recompute a finished match's rolls from its revealed seed, or
`dump-month [YYYY-MM]` to write a month's open record."""
from __future__ import annotations

import argparse
import asyncio
import dataclasses
import faulthandler
import logging
import os
import pathlib
import socket
import sqlite3
import sys
import time
from typing import Any, TypedDict

from fibs_server.app import ServerConfig, serve
from fibs_server.bots.pool import WorkerPriority
from fibs_server.json_logs import JsonFormatter
from fibs_server.lobby.commands.archive_commands import match_file
from fibs_server.lobby.limits.throttle import AbuseLimits
from fibs_server.lobby.nodes.leases import DEFAULT_LEASE_SECONDS
from fibs_server.lobby.ports.analysis_records import QueueLimits
from fibs_server.lobby.ports.match_records import MatchRecord
from fibs_server.lobby.presence.reconnect import DEFAULT_RECONNECT_SECONDS
from fibs_server.lobby.services.analysis_queue import AnalysisConfig
from fibs_server.lobby.services.bot_players import BotConfig
from fibs_server.net.http import LOOPBACK, Network, networks
from fibs_server.net.limits import NetLimits
from fibs_server.open_record import write_month
from fibs_server.protocol.views.record_files import Month
from fibs_server.protocol.wording import fair_texts
from fibs_server.rules.dice import (
    commitment_of,
    drawn_pairs,
    first_wrong_pair,
    salts_from_lists,
    verifiable_pair,
)
from fibs_server.store import DEFAULT_DATABASE_URL, SqlStore, upgrade_database
from fibs_server.store.backup import back_up_sqlite, sqlite_file_of


def add_limit_arguments(parser: argparse.ArgumentParser) -> None:
    """`--max-line-bytes` etc. for every field of NetLimits and AbuseLimits, each defaulting to
    its FIBS_* variable (FIBS_MAX_LINE_BYTES) or the built-in default."""
    for limits in (NetLimits, AbuseLimits):
        for field in dataclasses.fields(limits):
            variable = "FIBS_" + field.name.upper()
            kind: type[Any] = type(field.default)  # int or float: every field has a default
            parser.add_argument("--" + field.name.replace("_", "-"), type=kind,
                                dest=field.name,
                                default=kind(os.environ.get(variable, field.default)),
                                help=f"default {field.default}, or ${variable}")


class Limits(TypedDict):
    net_limits: NetLimits
    abuse_limits: AbuseLimits


def limits_from_arguments(arguments: argparse.Namespace) -> Limits:
    """The ServerConfig fields `net_limits` and `abuse_limits` from parsed flags."""
    def fields_of(limits: type[NetLimits | AbuseLimits]) -> dict[str, Any]:
        return {field.name: getattr(arguments, field.name)
                for field in dataclasses.fields(limits)}
    return {"net_limits": NetLimits(**fields_of(NetLimits)),
            "abuse_limits": AbuseLimits(**fields_of(AbuseLimits))}


def parse_arguments(argv: list[str] | None = None) -> argparse.Namespace:
    env = os.environ.get
    dice_seed, takeover_seconds = env("FIBS_DICE_SEED"), env("FIBS_TAKEOVER_SECONDS")
    parser = argparse.ArgumentParser(prog="fibs-server", description="A FIBS-compatible "
                                     "backgammon server. Options default to FIBS_* variables.")
    parser.add_argument("--host", default=env("FIBS_HOST", "0.0.0.0"))
    parser.add_argument("--port", type=int, default=int(env("FIBS_PORT", "4321")))
    parser.add_argument("--http-port", type=int, default=int(env("FIBS_HTTP_PORT", "8080")),
                        help="the web client's port, on the same host (0: no web client)")
    parser.add_argument("--web-origins", default=env("FIBS_WEB_ORIGINS"),
                        help="where browsers load the page from, comma-separated (say "
                             "https://fibs.example.org); only those pages may open a WebSocket "
                             "(default: the server's own address, http://localhost:PORT etc.)")
    add_shared_options(parser, env("FIBS_DATABASE_URL", DEFAULT_DATABASE_URL),
                       env("FIBS_LOG_LEVEL", "INFO"), env("FIBS_LOG_FORMAT", "text"))
    parser.add_argument("--metrics-from", type=address_list,
                        default=address_list(env("FIBS_METRICS_FROM", "")) or LOOPBACK,
                        help="the addresses and networks that may read /metrics, "
                             "comma-separated (default: loopback, 127.0.0.0/8 and ::1)")
    parser.add_argument("--proxy-from", type=address_list,
                        default=address_list(env("FIBS_PROXY_FROM", "")),
                        help="the load balancers (addresses and networks, comma-separated) "
                             "whose connections begin with a PROXY header (v1 or v2) naming "
                             "the player's address (default: none)")
    parser.add_argument("--bus", default=env("FIBS_BUS"),
                        help="several nodes, one lobby: the Redis between them (redis://host:"
                             "port/db, or its sentinels: redis+sentinel://host:port,host:port/"
                             "service/db); the nodes share one PostgreSQL database "
                             "(docs/NODES.md). Default: none, this node is the lobby")
    parser.add_argument("--node-id", default=env("FIBS_NODE_ID", socket.gethostname()),
                        help="this node's name among the nodes, distinct for each "
                             "(default: the host's name)")
    parser.add_argument("--bus-prefix", default=env("FIBS_BUS_PREFIX", "fibs"),
                        help="the lobby's channel on the bus: distinct for each lobby sharing "
                             "one Redis (its pub/sub channels ignore the database number)")
    parser.add_argument("--lease-seconds", type=float,
                        default=float(env("FIBS_LEASE_SECONDS", str(DEFAULT_LEASE_SECONDS))),
                        help="with --bus: how long the leases of the jobs one node runs (the "
                             "bots, the sweeps) outlive a node that died (docs/NODES.md)")
    parser.add_argument("--bcrypt-rounds", type=int, default=int(env("FIBS_BCRYPT_ROUNDS", "12")))
    parser.add_argument("--idle-timeout", type=float,
                        default=float(env("FIBS_IDLE_TIMEOUT", "3600")),
                        help="seconds without input before a connection is closed")
    parser.add_argument("--dice-seed", type=int,
                        default=int(dice_seed) if dice_seed else None,
                        help="reproducible dice for test and benchmark runs; never in production")
    parser.add_argument("--abandon-after-days", type=float,
                        default=float(env("FIBS_ABANDON_AFTER_DAYS", "14")),
                        help="a saved match nobody plays for this long is closed as abandoned")
    parser.add_argument("--forfeit-abandoned", choices=["on", "off", "chances"],
                        default=env("FIBS_FORFEIT_ABANDONED", "off"),
                        help="on: an abandoned match of some length is won by the player who "
                        "stayed, and rated; chances: the same, but a rated one is settled by "
                        "both players' winning chances where it stands, from the engine, each "
                        "rated with their chance as their share (docs/FAIRNESS.md)")
    parser.add_argument("--records-folder", default=env("FIBS_RECORDS_FOLDER"),
                        help="the open record: each month's finished rated matches and dice "
                             "statistics written there once it ends, and served at /records/ "
                             "(default: none)")
    parser.add_argument("--bots", default=env("FIBS_BOTS", "on"), choices=["on", "off"],
                        help="the built-in bots bot_beginner, bot_intermediate, bot_expert")
    parser.add_argument("--bot-think-time", type=float,
                        default=float(env("FIBS_BOT_THINK_TIME", "1.0")),
                        help="seconds a bot waits before each decision, so people can follow")
    parser.add_argument("--bot-cpu-share", type=float,
                        default=float(env("FIBS_BOT_CPU_SHARE", str(BotConfig.cpu_share))),
                        help="the most of one core each bot worker may use (0-1]: bots think "
                             "less under load instead of taking the cores' idle time")
    parser.add_argument("--bot-time-budget", type=float,
                        default=float(env("FIBS_BOT_TIME_BUDGET", str(BotConfig.time_budget))),
                        help="seconds a bot's engine decision may take, queueing included, "
                             "before the bot's rules of thumb decide instead")
    parser.add_argument("--worker-priority", default=env("FIBS_WORKER_PRIORITY", "idle"),
                        choices=[priority.value for priority in WorkerPriority],
                        help="the bots' and the analyses' processes: idle (only the time no "
                             "other process wants) or normal (where other programs keep the "
                             "cores busy and the bots must still think)")
    parser.add_argument("--analysis", default=env("FIBS_ANALYSIS", "on"), choices=["on", "off"],
                        help="every finished match analysed, and 'analyse <match>' (off: nothing is "
                             "computed; stored analyses are still read)")
    parser.add_argument("--analysis-queue", type=int,
                        default=int(env("FIBS_ANALYSIS_QUEUE", str(QueueLimits.waiting))),
                        help="the most match analyses waiting at a time; beyond it finished "
                             "matches are not queued and 'analyse' is refused")
    parser.add_argument("--analysis-busy-share", type=float,
                        default=float(env("FIBS_ANALYSIS_BUSY_SHARE",
                                          str(AnalysisConfig.busy_share))),
                        help="the analysis waits while the server's process used more than this "
                             "share of a core over the last second (0: never waits)")
    parser.add_argument("--analysis-least-share", type=float,
                        default=float(env("FIBS_ANALYSIS_LEAST_SHARE",
                                          str(AnalysisConfig.least_share))),
                        help="however busy the server and its bots, an analysis under way runs "
                             "at least this share of the time (0: it waits while they are busy)")
    parser.add_argument("--grace-seconds", type=seconds,
                        default=seconds(env("FIBS_GRACE_SECONDS", "60")),
                        help="seconds to resume a timed match left or dropped before it is lost")
    parser.add_argument("--reconnect-seconds", type=int,
                        default=int(env("FIBS_RECONNECT_SECONDS",
                                        str(int(DEFAULT_RECONNECT_SECONDS)))),
                        help="seconds a web page's session (and match) waits for the page "
                             "after its connection dropped, for a reload to resume it; 0: off")
    parser.add_argument("--takeover-seconds", type=seconds,
                        default=seconds(takeover_seconds) if takeover_seconds else None,
                        help="a bot takes a decision over after this many seconds, in every "
                             "match (default off; 'takeover <seconds>' on an invitation)")
    add_limit_arguments(parser)
    commands = parser.add_subparsers(dest="command")
    database = commands.add_parser("db", help="database maintenance")
    actions = database.add_subparsers(dest="action", required=True)
    upgrade = actions.add_parser("upgrade", help="apply the migrations")
    backup = actions.add_parser("backup", help="copy the SQLite database, safe while the "
                                "server runs (PostgreSQL: pg_dump)")
    backup.add_argument("file", help="the copy to write (replaced when complete)")
    export = commands.add_parser("export-match", help="write a stored match as a .mat file")
    export.add_argument("match_id", type=int)
    export.add_argument("-o", "--output", help="the file to write (default: standard output)")
    admin = commands.add_parser("admin", help="administrator accounts (they may moderate)")
    admin.add_argument("action", choices=["grant", "revoke"])
    admin.add_argument("name")
    verify = commands.add_parser("verify-dice", help="recompute a finished match's rolls from "
                                 "its revealed seed and check them against its record")
    verify.add_argument("match_id", type=int)
    dump = commands.add_parser("dump-month", help="write a month's open record: its finished "
                               "rated matches as JSON lines and .mat files, and its dice "
                               "statistics (docs/FAIRNESS.md)")
    dump.add_argument("month", nargs="?", type=month_argument,
                      help="YYYY-MM, UTC (default: the month just ended)")
    dump.add_argument("--folder", default=env("FIBS_RECORDS_FOLDER", "records"),
                      help="where to write it (default: $FIBS_RECORDS_FOLDER, or ./records)")
    for command in (database, upgrade, backup, export, admin, verify, dump):
        # No defaults after the sub-command: one there would overwrite the value given before it.
        add_shared_options(command, argparse.SUPPRESS, argparse.SUPPRESS, argparse.SUPPRESS)
    return parser.parse_args(argv)


def address_list(text: str) -> tuple[Network, ...]:
    """`127.0.0.1,10.0.0.0/8`: addresses and CIDR networks."""
    try:
        return networks(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def month_argument(text: str) -> Month:
    try:
        return Month.parse(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def seconds(text: str) -> int:
    """A positive number of seconds (a clock of 0 would take every decision at once)."""
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"{value} is not a positive number of seconds")
    return value


def add_shared_options(parser: argparse.ArgumentParser, database_url: str,
                       log_level: str, log_format: str) -> None:
    """The options the sub-commands use too, so that they may come before or after one."""
    parser.add_argument("--database-url", default=database_url,
                        help="sqlite:///fibs.db (default) or postgresql://user@host:port/db")
    parser.add_argument("--log-level", default=log_level)
    parser.add_argument("--log-format", default=log_format, choices=["text", "json"],
                        help="json: one object a line (time, level, logger, message, "
                             "exception)")


LEAKED_SEMAPHORES = "resource_tracker"  # the start of its message (-W splits on colons)


def configure_logging(level: str, log_format: str) -> None:
    handler = logging.StreamHandler()
    handler.setFormatter(JsonFormatter() if log_format == "json" else logging.Formatter(
        "%(asctime)s %(levelname)s %(name)s: %(message)s"))
    logging.basicConfig(level=level.upper(), handlers=[handler])
    logging.captureWarnings(True)  # a warning is a log line like any other
    if log_format == "json":
        # The one process of multiprocessing's that runs none of our code, its resource
        # tracker, warns in plain text of the semaphores it cleans up after a server killed
        # outright; it takes the interpreter's -W options from this process's.
        sys.warnoptions.append(f"ignore:{LEAKED_SEMAPHORES}:UserWarning")


def main(argv: list[str] | None = None) -> None:
    arguments = parse_arguments(argv)
    configure_logging(arguments.log_level, arguments.log_format)
    # aiosqlite's debug lines carry query parameters: password hashes among them.
    logging.getLogger("aiosqlite").setLevel(logging.INFO)
    # A fatal signal (SIGSEGV, SIGBUS from a database file that cannot be mapped, ...) would
    # otherwise end the process with nothing in the log: write every thread's traceback there.
    faulthandler.enable(sys.stderr)
    if arguments.command == "db":
        if arguments.action == "backup":
            raise SystemExit(back_up(arguments.database_url, pathlib.Path(arguments.file)))
        upgrade_database(arguments.database_url)
        return
    if arguments.command == "admin":
        upgrade_database(arguments.database_url)
        raise SystemExit(asyncio.run(set_admin(arguments.database_url, arguments.name,
                                               arguments.action == "grant")))
    if arguments.command == "export-match":
        raise SystemExit(asyncio.run(export_match(arguments.database_url, arguments.match_id,
                                                  arguments.output)))
    if arguments.command == "verify-dice":
        raise SystemExit(asyncio.run(verify_dice(arguments.database_url, arguments.match_id)))
    if arguments.command == "dump-month":
        month = arguments.month or Month.of(time.time()).previous
        asyncio.run(dump_month(arguments.database_url, month, pathlib.Path(arguments.folder)))
        return
    asyncio.run(serve(ServerConfig(
        host=arguments.host, port=arguments.port, http_port=arguments.http_port or None,
        web_origins=None if arguments.web_origins is None else tuple(
            origin.strip() for origin in arguments.web_origins.split(",") if origin.strip()),
        database_url=arguments.database_url,
        bcrypt_rounds=arguments.bcrypt_rounds, idle_timeout=arguments.idle_timeout,
        dice_seed=arguments.dice_seed, grace_seconds=arguments.grace_seconds,
        takeover_seconds=arguments.takeover_seconds,
        reconnect_seconds=max(0, arguments.reconnect_seconds),
        abandon_after=arguments.abandon_after_days * 24 * 3600,
        forfeit_abandoned=arguments.forfeit_abandoned != "off",
        settle_by_chances=arguments.forfeit_abandoned == "chances",
        bots=BotConfig(think_time=arguments.bot_think_time, cpu_share=arguments.bot_cpu_share,
                       time_budget=arguments.bot_time_budget) if arguments.bots == "on" else None,
        analysis=AnalysisConfig(limits=QueueLimits(waiting=arguments.analysis_queue),
                                busy_share=arguments.analysis_busy_share,
                                least_share=arguments.analysis_least_share)
        if arguments.analysis == "on" else None,
        metrics_from=arguments.metrics_from, proxy_from=arguments.proxy_from,
        bus_url=arguments.bus, node_id=arguments.node_id, bus_prefix=arguments.bus_prefix,
        lease_seconds=arguments.lease_seconds,
        worker_priority=WorkerPriority(arguments.worker_priority),
        records_folder=None if arguments.records_folder is None
        else pathlib.Path(arguments.records_folder),
        **limits_from_arguments(arguments))))


def back_up(database_url: str, target: pathlib.Path) -> int:
    """`db backup`: the exit status (1: the copy failed; 2: not a SQLite database)."""
    database = sqlite_file_of(database_url)
    if database is None:
        print("fibs-server: db backup copies a SQLite database; back up PostgreSQL with "
              "pg_dump -Fc (and restore with pg_restore): docs/OPERATIONS.md", file=sys.stderr)
        return 2
    try:
        back_up_sqlite(database, target)
    except (sqlite3.Error, OSError) as error:
        print(f"fibs-server: could not back up {database} to {target}: {error}",
              file=sys.stderr)
        return 1
    print(f"backed up {database} to {target}")
    return 0


async def set_admin(database_url: str, name: str, is_admin: bool) -> int:
    """Grant or revoke administrator rights; the exit status (1: no such account)."""
    store = await SqlStore.open(database_url)
    try:
        account = await store.find_account(name)
        if account is None:
            print(f"fibs-server: there is no account called {name}")
            return 1
        await store.update_account(account.name, is_admin=is_admin)
        print(f"{account.name} is {'now' if is_admin else 'no longer'} an administrator.")
        return 0
    finally:
        await store.close()


async def stored_match(database_url: str, match_id: int) -> MatchRecord | None:
    """Match `match_id` as stored, or None (said on standard error)."""
    store = await SqlStore.open(database_url)
    try:
        record = await store.match_by_id(match_id)
    finally:
        await store.close()
    if record is None:
        print(f"fibs-server: there is no match {match_id}", file=sys.stderr)
    return record


async def export_match(database_url: str, match_id: int, output: str | None) -> int:
    """Write match `match_id` as `.mat` text; the exit status (1: no such match)."""
    record = await stored_match(database_url, match_id)
    if record is None:
        return 1
    text = match_file(record)
    if output is None:
        sys.stdout.write(text)
    else:
        pathlib.Path(output).write_text(text)
    return 0


async def dump_month(database_url: str, month: Month, folder: pathlib.Path) -> None:
    """Write `month`'s open record in `folder` (again, if it is there: the same bytes)."""
    store = await SqlStore.open(database_url)
    try:
        summary = await write_month(store, month, folder)
    finally:
        await store.close()
    print(f"wrote the open record of {month} in {folder}: {summary['matches']} matches, "
          f"{summary['dice']['rolls']} rolls")


async def verify_dice(database_url: str, match_id: int) -> int:
    """Check a finished match's rolls against its seed and the seed against the commitment
    (printed); the exit status (1: no such match, not finished or not verifiable; 2: a roll
    or the commitment is wrong)."""
    record = await stored_match(database_url, match_id)
    if record is None:
        return 1
    if record.dice is None or record.dice.seed is None:
        print(f"fibs-server: the dice of match {match_id} were not drawn from a committed seed",
              file=sys.stderr)
        return 1
    if not record.finished:
        print(f"fibs-server: match {match_id} is still running: its seed is secret",
              file=sys.stderr)
        return 1
    seed = bytes.fromhex(record.dice.seed)
    salts = salts_from_lists(record.dice.salts)
    pairs = [pair for _, pair in drawn_pairs(record.state["history"])]
    print(f"match {match_id}: seed {record.dice.seed}")
    print(f"commitment (SHA-256 of the seed): {commitment_of(seed)}")
    for name, salt in zip((record.player_a, record.player_b), salts, strict=True):
        print(fair_texts.salt_line(name, salt).strip())
    wrong = first_wrong_pair(seed, pairs, salts)
    if wrong is not None:
        print(f"roll {wrong + 1} of {len(pairs)} is {pairs[wrong]}, but the seed and salts give "
              f"{verifiable_pair(seed, wrong, salts)}: the record does not match them")
        return 2
    if record.dice.drawn != len(pairs):
        print(f"the record holds {len(pairs)} rolls, but {record.dice.drawn} were drawn")
        return 2
    print(f"all {len(pairs)} rolls recompute from the seed and salts")
    return 0


if __name__ == "__main__":
    main()
