"""Wiring: the store, the lobby with its command tables, and the telnet front end."""
from __future__ import annotations

import asyncio
import dataclasses
import gc
import logging
import pathlib
import random
import signal
import time
from collections.abc import Callable
from typing import TypedDict, Unpack

from aiohttp import web

from fibs_server import command_tables, json_logs
from fibs_server.bots import EXPERT, BotPool, Decision, Situation
from fibs_server.bots.pool import AnalysisLane, WorkerPriority
from fibs_server.lobby.clock import Clock, LoopClock
from fibs_server.lobby.command_table import CommandTable
from fibs_server.lobby.limits.busy_hold import BusyHold
from fibs_server.lobby.limits.passwords import PasswordHasher
from fibs_server.lobby.limits.throttle import AbuseLimits
from fibs_server.lobby.lobby import Lobby, LobbyConfig, Owners
from fibs_server.lobby.metrics import (
    BOT_DECISION_SECONDS,
    COMMAND_SECONDS,
    STORE_SECONDS,
    exposition,
    family,
)
from fibs_server.lobby.nodes.bus import Deliver, LocalBus
from fibs_server.lobby.nodes.directory import NodeTimes
from fibs_server.lobby.nodes.leases import (
    BOTS,
    DEFAULT_LEASE_SECONDS,
    QUICK_PLAY,
    SWEEPS,
    TOURNAMENTS,
    AlwaysHeld,
    CallbackDuty,
    LeaseKeeper,
    Leases,
    lease_families,
)
from fibs_server.lobby.play import arranged_matches
from fibs_server.lobby.play.match_play import Matches, MatchTimers, no_chances
from fibs_server.lobby.play.turn_clock import MatchClocks, rules_of_thumb
from fibs_server.lobby.presence.reconnect import DEFAULT_RECONNECT_SECONDS
from fibs_server.lobby.services.analysis_queue import AnalysisConfig, AnalysisQueue
from fibs_server.lobby.services.bot_players import BotConfig, BotPlayers
from fibs_server.lobby.services.sweeps import DatabaseSweeps
from fibs_server.lobby.services.tournaments import TournamentDirector
from fibs_server.net.http import (
    LOOPBACK,
    Network,
    Operations,
    WebReads,
    bound_port,
    start_http_server,
    stop_listening,
)
from fibs_server.net.limits import NetLimits
from fibs_server.net.listening import (
    listening_socket,
    quiet_accept_failures,
    raise_descriptor_limit,
)
from fibs_server.net.redis_bus import BusFigures, RedisBus
from fibs_server.net.redis_counts import RedisConnections, RedisCounts
from fibs_server.net.redis_lease import RedisLeases
from fibs_server.net.telnet import FrontEnd, start_telnet_server
from fibs_server.net.websocket import Origin, origin_of
from fibs_server.open_record import RECORDS, MonthlyRecord
from fibs_server.protocol.login_dialogue import WEB_PAGE
from fibs_server.readiness import LINKS, Link, Readiness, RedisWitness, Witness
from fibs_server.rules.dice import SEED_BYTES, Dice, VerifiableDice
from fibs_server.store import DEFAULT_DATABASE_URL, SqlStore, upgrade_database_async


@dataclasses.dataclass
class ServerConfig:
    host: str = "0.0.0.0"
    port: int = 4321
    http_port: int | None = None  # the web client's (None: none; 0: any free port)
    # Where browsers load the page from (scheme://host:port): only those pages may open a
    # WebSocket. None: what the server serves at (`page_origins`).
    web_origins: tuple[str, ...] | None = None
    database_url: str = DEFAULT_DATABASE_URL
    bcrypt_rounds: int = 12
    idle_timeout: float = 3600.0
    net_limits: NetLimits = NetLimits()
    abuse_limits: AbuseLimits = AbuseLimits()
    dice_seed: int | None = None  # seeded dice, for reproducible test and benchmark runs
    abandon_after: float = 14 * 24 * 3600.0  # seconds: see LobbyConfig
    forfeit_abandoned: bool = False  # see LobbyConfig
    settle_by_chances: bool = False  # see LobbyConfig; needs the bots' workers (`bots`)
    bots: BotConfig | None = None  # the built-in bots (None: no bots)
    grace_seconds: int = 60  # to resume a timed match left or dropped, before it is lost
    takeover_seconds: int | None = None  # a bot decides this late in every match (None: off)
    # Match analysis (None: none is computed; stored ones are still read).
    analysis: AnalysisConfig | None = None
    reconnect_seconds: float = DEFAULT_RECONNECT_SECONDS  # see LobbyConfig
    metrics_from: tuple[Network, ...] = LOOPBACK  # who may read /metrics
    # The load balancers whose connections, on both ports, begin with a PROXY header.
    proxy_from: tuple[Network, ...] = ()
    # Several nodes, one lobby: the Redis between them (None: this node is the lobby) and
    # this node's name among them (docs/NODES.md).
    bus_url: str | None = None
    node_id: str = "main"
    bus_prefix: str = "fibs"  # the lobby's channel's: Redis's channels are shared by all
    # With a bus: how long a lease (the bots', the sweeps') outlives a node that died.
    lease_seconds: float = DEFAULT_LEASE_SECONDS
    # The bots' and the analyses' processes: idle priority, or normal (WorkerPriority).
    worker_priority: WorkerPriority = WorkerPriority.IDLE
    # The open record's folder: each month's files written there once it ends, and served
    # (None: neither; `fibs-server dump-month` still writes them).
    records_folder: pathlib.Path | None = None


class LobbyOptions(TypedDict, total=False):
    """The LobbyConfig fields a FibsServer takes besides its ServerConfig (tests script the
    dice, the first X and the clocks; the others come from the ServerConfig)."""
    motd: tuple[str, ...]
    new_dice: Callable[[], Dice]
    choose_first_x: Callable[[], int]
    shout_limit: int
    shout_window: float
    shout_clock: Callable[[], float]
    shutdown_minute: float
    clock: Clock
    wall_clock: Callable[[], float]
    node_times: NodeTimes


# Seconds the store has to answer /readyz's query: a probe must not hang with the store.
READY_TIMEOUT = 2.0


class FibsServer:
    """One running server: `await start()`, then `port` is bound; `await stop()` shuts down.

    `lobby_options` override LobbyConfig fields: tests inject dice (`new_dice`) and colours."""

    def __init__(self, config: ServerConfig, **lobby_options: Unpack[LobbyOptions]) -> None:
        self.config = config
        if config.dice_seed is not None and "new_dice" not in lobby_options:
            match_seeds = random.Random(config.dice_seed)
            # Each match's seed derives from the one given: reproducible, yet verifiable.
            lobby_options["new_dice"] = lambda: VerifiableDice(match_seeds.randbytes(SEED_BYTES))
        self.lobby_options = lobby_options
        self.store: SqlStore | None = None
        self.lobby: Lobby | None = None
        self._telnet: asyncio.Server | None = None
        self._front: FrontEnd | None = None
        self._http: web.AppRunner | None = None
        self._background: list[asyncio.Task] = []
        self._restore_exception_handler: Callable[[], None] | None = None
        self.bots: BotPlayers | None = None
        self.clocks: MatchClocks | None = None
        self.analysis_lane: AnalysisLane | None = None
        self.busy_hold: BusyHold | None = None  # the analysis steps aside for a busy server
        self.analysis_queue: AnalysisQueue | None = None
        self.bus: RedisBus | None = None
        # What one node of several runs: the bots (`bots`), the sweeps over the database
        # (`sweeps`); on one node both leases are always held.
        self.redis_leases: RedisLeases | None = None
        self.redis_counts: RedisCounts | None = None  # the abuse limits' (None: this node's)
        self.redis_connections: RedisConnections | None = None
        self.bots_lease: LeaseKeeper | None = None
        self.sweeps_lease: LeaseKeeper | None = None
        self.tournaments_lease: LeaseKeeper | None = None
        self.records_lease: LeaseKeeper | None = None
        self.director: TournamentDirector | None = None
        self.quick_play_lease: LeaseKeeper | None = None
        self.links: Readiness | None = None  # the store's and the bus's, judged (`/readyz`)
        self._redis_witness: RedisWitness | None = None
        self._started = False
        self._stopping = False

    async def start(self) -> None:
        if self.config.bus_url is not None and self.config.database_url.startswith("sqlite"):
            # Each node would have its own accounts and matches: one lobby in name only.
            raise ValueError("several nodes share one PostgreSQL database; a SQLite file "
                             "is one node's (run without --bus, or with a postgresql:// URL)")
        if self.config.settle_by_chances and self.config.bots is None:
            raise ValueError("settling abandoned matches by their chances needs the engine, "
                             "which runs in the bots' workers (--bots on)")
        await upgrade_database_async(self.config.database_url)
        # One time for the store's stamps and the lobby's: a tournament compares them.
        self.store = await SqlStore.open(self.config.database_url,
                                         self.lobby_options.get("wall_clock", time.time))
        if self.config.bus_url is not None:  # the abuse limits count across nodes
            self.redis_counts = RedisCounts(self.config.bus_url, prefix=self.config.bus_prefix)
        limits = self.config.abuse_limits
        hasher = await asyncio.to_thread(PasswordHasher, self.config.bcrypt_rounds,
                                         limits.hash_checks_per_address,
                                         limits.hash_checks_waiting,
                                         limits.known_good_checks_per_address)
        lobby_config = LobbyConfig(idle_timeout=self.config.idle_timeout,
                                   abandon_after=self.config.abandon_after,
                                   forfeit_abandoned=self.config.forfeit_abandoned,
                                   settle_by_chances=self.config.settle_by_chances,
                                   abuse_limits=self.config.abuse_limits,
                                   grace_seconds=self.config.grace_seconds,
                                   takeover_seconds=self.config.takeover_seconds,
                                   reconnect_seconds=self.config.reconnect_seconds,
                                   node_id=self.config.node_id,
                                   shared_counts=self.redis_counts,
                                   **self.lobby_options)

        def match_clocks(matches: Matches) -> MatchTimers:
            # Kept for the sweeps, and to be closed when the server stops.
            self.clocks = MatchClocks(matches, lobby_config.clock, lobby_config.grace_seconds,
                                      self._decide_expired)
            return self.clocks.timer_for
        analysis = self.config.analysis
        if analysis is not None:
            self.analysis_lane = AnalysisLane(self.config.worker_priority, json_logs.for_workers())
        # The bots' workers: the bots' decisions, the tutor's judgements and the winning
        # chances abandoned matches are settled by.
        pool = None if self.config.bots is None else BotPool(
            workers=self.config.bots.workers, time_budget=self.config.bots.time_budget,
            cpu_share=self.config.bots.cpu_share, analyses=self.analysis_lane,
            priority=self.config.worker_priority, logs=json_logs.for_workers())
        store = self.store

        def tables(owners: Owners) -> list[CommandTable]:
            # The services are made with the lobby, from its owners, as the command tables are:
            # their tables go in with the lobby's.
            if analysis is not None:
                assert self.analysis_lane is not None  # made before the lobby
                self.analysis_queue = AnalysisQueue(owners.attendance, store, store,
                                                    self.analysis_lane.analyse, analysis)
            if self.config.bots is not None:
                assert pool is not None  # made with the bots' configuration
                self.bots = BotPlayers(owners.attendance, owners.play.match_table,
                                       owners.play.matches, owners.accounts,
                                       owners.gatekeeper.hasher, owners.sessions,
                                       owners.doings.log_out, owners.bot_strengths,
                                       owners.config.abuse_limits, self.config.bots, pool)
            return [*command_tables.lobby_tables(owners),
                    *command_tables.service_tables(owners, store, self.analysis_queue, store,
                                                   self.bots)]
        self.lobby = Lobby(store, store, hasher, lobby_config, tables, chat_records=store,
                           match_clocks=match_clocks,
                           # The analysis queue, if analyses run: the store queued the match.
                           match_finished=lambda match_id: self._wake_analyses(),
                           analyses=self.store, arranged=arranged_matches.receive,
                           arrange=arranged_matches.arrange,
                           resume_waiting=arranged_matches.resume_waiting_matches,
                           paired_after=self.store.paired_after,
                           bots_here=lambda: (self.bots is not None
                                              and bool(self.bots.roster.residents)),
                           bus=LocalBus if self.config.bus_url is None else self._redis_bus,
                           tutor_judge=None if pool is None else pool.judge,
                           match_chances=no_chances if pool is None else pool.chances)
        await self.lobby.restore_motd()
        owners = self.lobby.owners  # what the services were made from, as the command tables
        if self.config.bus_url is not None:
            assert self.bus is not None  # made with the lobby (`_redis_bus`)
            await self.bus.start()
            self._background.append(asyncio.create_task(owners.attendance.keep_in_touch()))
            self.redis_leases = RedisLeases(self.config.bus_url, self.config.node_id,
                                            self.config.lease_seconds,
                                            prefix=self.config.bus_prefix)
        leases: Leases = AlwaysHeld if self.redis_leases is None else self.redis_leases
        # The bots' names stay theirs while the bots are off: whoever registered one then
        # would own the bot's account once they are on.
        owners.gatekeeper.reserve(BotConfig().names.values())
        if analysis is not None:
            assert self.analysis_lane is not None  # made before the lobby
            if analysis.busy_share > 0 or analysis.least_share > 0:
                self.busy_hold = BusyHold(self.analysis_lane, LoopClock(),
                                          busy_share=analysis.busy_share,
                                          least_share=analysis.least_share)
                self.busy_hold.start()
            if analysis.queue_finished:
                self.store.queue_finished_matches(analysis.plies, analysis.limits)
        if self.config.bots is not None:
            assert self.bots is not None  # made with the lobby
            owners.gatekeeper.reserve(self.config.bots.names.values())
            await self.bots.start(log_in=False)
            roster = self.bots.roster
            self.bots_lease = LeaseKeeper(leases(BOTS), CallbackDuty(roster.log_in, roster.log_out),
                                          self.config.lease_seconds, LoopClock())
            await self.bots_lease.start()
        assert self.clocks is not None  # made with the lobby's matches
        self.sweeps_lease = LeaseKeeper(leases(SWEEPS), DatabaseSweeps(owners.play.matches,
                                                                       self.clocks),
                                        self.config.lease_seconds, LoopClock())
        await self.sweeps_lease.start()
        if self.config.records_folder is not None:
            self.records_lease = LeaseKeeper(leases(RECORDS), MonthlyRecord(
                self.store, self.config.records_folder,
                self.lobby_options.get("wall_clock", time.time)),
                self.config.lease_seconds, LoopClock())
            await self.records_lease.start()
        # On the lobby's clock (a test's fake one) it passes over the open tournaments.
        self.director = TournamentDirector(owners, owners.play.arranging, self.store,
                                           owners.config.clock, bots=self.bots)
        self.tournaments_lease = LeaseKeeper(leases(TOURNAMENTS), self.director,
                                             self.config.lease_seconds, LoopClock())
        await self.tournaments_lease.start()
        # Quick play's seeks are every node's; one node pairs them.
        self.quick_play_lease = LeaseKeeper(leases(QUICK_PLAY), owners.play.quick_play,
                                            self.config.lease_seconds, LoopClock())
        await self.quick_play_lease.start()
        if self.analysis_queue is not None:
            await self.analysis_queue.start()
        self._restore_exception_handler = quiet_accept_failures(asyncio.get_running_loop())
        if self.redis_counts is not None:  # connections per address capped over the nodes
            self.redis_connections = RedisConnections(self.redis_counts, self.config.node_id)
        self._telnet, self._front = await start_telnet_server(
            self.lobby, listening_socket(self.config.host, self.config.port),
            self.config.net_limits, self.config.proxy_from, self.redis_connections)
        if self.redis_connections is not None:
            self.redis_connections.start(self._front.addresses.open_here)
        if self.config.http_port is not None:
            listening = listening_socket(self.config.host, self.config.http_port)
            reads = WebReads(owners.accounts, owners.stores.match_store, owners.stores.analyses,
                             owners.attendance.users.online, owners.dispatcher.heavy_reads)
            self._http = await start_http_server(self._front, reads, listening, page_origins(
                self.config.host, listening.getsockname()[1], self.config.web_origins),
                Operations(self.readiness, self.metrics, self.health, self.config.metrics_from),
                self.config.records_folder)
        self._background.append(asyncio.create_task(self.lobby.run_idle_timeouts()))
        witnesses: dict[Link, Witness] = {}
        if self.config.bus_url is not None:  # several nodes: each service witnesses the other
            self._redis_witness = RedisWitness(self.config.bus_url, self.config.bus_prefix)
            witnesses = {"store": self._redis_witness, "bus": self.store}
        self.links = Readiness(self.config.node_id, self._store_fault, self._bus_fault, witnesses)
        self._background.append(asyncio.create_task(self.links.run()))
        self._started = True

    async def readiness(self) -> str | None:
        """None when the server is ready for new users; else why not (`/readyz`)."""
        if not self._started or self.lobby is None or self.store is None:
            return "starting"
        if (self._stopping or self.lobby.stop_requested.is_set()
                or self.lobby.owners.countdown.started):
            return "shutting down"
        assert self.links is not None  # made at the start
        return await self.links.check()

    async def _store_fault(self) -> str | None:
        assert self.store is not None
        try:
            await asyncio.wait_for(self.store.answers(), READY_TIMEOUT)
        except TimeoutError:
            return f"the store did not answer within {READY_TIMEOUT:g} s"
        except Exception as error:
            return f"the store failed: {type(error).__name__}"
        return None

    def _bus_fault(self) -> str | None:
        if self.bus is not None and not self.bus.subscribed:
            return "not connected to the other nodes (the bus)"
        return None

    def health(self) -> list[str]:
        """`/healthz`'s lines after `ok`: the links found down at the last check."""
        return [] if self.links is None else self.links.health_lines()

    async def metrics(self) -> str:
        """`/metrics`: the lobby counted now, the process's histograms, the bots' pool's
        counts and the analyses waiting (one count of an index, when analyses run)."""
        assert self.lobby is not None and self.store is not None
        owners = self.lobby.owners
        people = [session for session in owners.attendance.users.online.values() if not session.is_bot]
        on_the_web = sum(1 for session in people
                         if session.incoming.dialogue.transport_client is WEB_PAGE)
        families = [
            family("fibs_sessions_online", "gauge", "Users logged in (visitors included, the "
                   "built-in bots not), by transport.",
                   [({"transport": "telnet"}, len(people) - on_the_web),
                    ({"transport": "websocket"}, on_the_web)]),
            family("fibs_visitors_online", "gauge", "Visitors playing a bot without an "
                   "account.", [({}, len(owners.accounts.visitors))]),
            family("fibs_connections", "gauge", "Telnet and WebSocket connections of the "
                   "lobby, logged in or not (a web session held for its page included).",
                   [({}, len(owners.attendance.users.connections))]),
            family("fibs_matches_running", "gauge", "Matches under way (bot matches included).",
                   [({}, len(owners.play.match_table.running_matches()))]),
            COMMAND_SECONDS.exposition(),
            STORE_SECONDS.exposition(),
        ]
        if self.bots is not None:
            counts = self.bots.pool.counts
            families.append(family(
                "fibs_bot_decisions_total", "counter", "Bot decisions by outcome: decided (in "
                "time), late (over the time budget), refused (queue full), failed (the worker "
                "raised or died); all but decided were made by the rules of thumb.",
                [({"outcome": outcome}, getattr(counts, outcome))
                 for outcome in ("decided", "late", "refused", "failed")]))
            families.append(BOT_DECISION_SECONDS.exposition())
        families += lease_families(keeper for keeper in (self.bots_lease, self.sweeps_lease,
                                                          self.tournaments_lease,
                                                          self.quick_play_lease,
                                                          self.records_lease)
                                   if keeper is not None)
        if self.bus is not None:
            families += bus_families(self.bus.figures, self.bus.queued, len(owners.attendance.users.directory))
        if self.redis_counts is not None:
            families += count_families(self.redis_counts)
        if self.links is not None:
            outages = self.links.outages
            families.append(family(
                "fibs_link_down", "gauge", "1 for a shared service this node found down at its "
                "last check (every WITNESS_EVERY s), by scope: this node alone (not ready) or "
                "every node (a shared outage: still ready).",
                [({"link": link, "scope": scope}, float(outages.get(link) == scope))
                 for link in LINKS for scope in ("node", "shared")]))
        if self.analysis_queue is not None:
            families.append(family("fibs_analyses_waiting", "gauge", "Match analyses queued "
                                   "or running.", [({}, await self.store.analyses_waiting())]))
        return exposition(families)

    def _redis_bus(self, deliver: Deliver) -> RedisBus:
        """The bus between nodes (kept to start, count and close it), delivering here with
        `deliver`; when it (re)connects, the lobby asks the other nodes for their users."""
        assert self.config.bus_url is not None

        async def rejoined() -> None:
            assert self.lobby is not None
            self.lobby.owners.attendance.rejoined()
        # The subscriber pings after a heartbeat's silence: a stalled Redis is seen as soon.
        heartbeat = self.lobby_options.get("node_times", NodeTimes()).heartbeat
        def locate(name: str) -> str | None:
            return None if self.lobby is None else self.lobby.owners.attendance.users.node_of(name)
        self.bus = RedisBus(self.config.bus_url, self.config.node_id, deliver, rejoined,
                            prefix=self.config.bus_prefix, locate=locate,
                            ping_interval=heartbeat)
        return self.bus

    async def _decide_expired(self, situation: Situation) -> Decision:
        """An expired turn is played as the best bot would play it, or by our rules of
        thumb (without bots, or before they are made)."""
        if self.bots is None:
            return await rules_of_thumb(situation)
        return await self.bots.decide(situation, level=EXPERT)

    def _wake_analyses(self) -> None:
        if self.analysis_queue is not None:
            self.analysis_queue.wake()

    @property
    def port(self) -> int:
        assert self._telnet is not None
        return self._telnet.sockets[0].getsockname()[1]

    @property
    def http_port(self) -> int | None:
        """The web client's port, None when it is off."""
        return None if self._http is None else bound_port(self._http)

    async def stop(self) -> None:
        self._stopping = True
        for task in self._background:
            task.cancel()
        if self.sweeps_lease is not None:
            await self.sweeps_lease.stop()  # released: another node sweeps from now
        if self.tournaments_lease is not None:
            await self.tournaments_lease.stop()  # and directs the tournaments
        if self.quick_play_lease is not None:
            await self.quick_play_lease.stop()  # and pairs the seeks
        if self.records_lease is not None:
            await self.records_lease.stop()  # and writes the open record
        if self._telnet is not None:
            self._telnet.close()  # no new connections; the open ones are the lobby's to close
        if self.clocks is not None:
            await self.clocks.close()  # timed matches stay stored as they are
        if self._http is not None:
            await stop_listening(self._http)
        if self.lobby is not None:
            self.lobby.owners.countdown.cancel()
            await self.lobby.shut_down()
            self.lobby.owners.gatekeeper.close()
        if self.bots_lease is not None:
            # After the lobby's roster of nobody: the bots leave without a notice, and
            # another node takes them at once.
            await self.bots_lease.stop()
        if self.analysis_queue is not None:
            await self.analysis_queue.close()  # the request running is taken up at next start
        if self.busy_hold is not None:
            self.busy_hold.stop()
        if self.analysis_lane is not None:
            await self.analysis_lane.close()
        if self.bots is not None:
            await self.bots.close()
        if self._front is not None:
            await self._front.stop_serving()
        if self._telnet is not None:
            await self._telnet.wait_closed()
        if self._http is not None:
            await self._http.cleanup()
        if self.bus is not None:
            await self.bus.stop()  # after the logouts, which it tells the other nodes
        if self.redis_leases is not None:
            await self.redis_leases.close()
        if self.redis_connections is not None:
            await self.redis_connections.stop()
        if self.redis_counts is not None:
            await self.redis_counts.close()
        if self._redis_witness is not None:
            await self._redis_witness.close()
        if self.store is not None:
            await self.store.close()
        if self._restore_exception_handler is not None:
            self._restore_exception_handler()


def bus_families(figures: BusFigures, queued: int, elsewhere: int) -> list[list[str]]:
    """/metrics of the bus between nodes (docs/OPERATIONS.md)."""
    return [
        family("fibs_bus_envelopes_total", "counter", "Letters between nodes (an envelope may "
               "carry several): published by "
               "this node, received from the others, dropped (the outgoing queue full, or "
               "lost to an outage), bad (not understood), missed (gaps in another node's "
               "numbering).",
               [({"outcome": "published"}, figures.published),
                ({"outcome": "received"}, figures.received),
                ({"outcome": "dropped"}, figures.dropped), ({"outcome": "bad"}, figures.bad),
                ({"outcome": "missed"}, figures.gaps)]),
        family("fibs_bus_reconnects_total", "counter", "Reconnections to Redis after a lost "
               "connection (each followed by a roll call).", [({}, figures.reconnects)]),
        family("fibs_bus_lag_seconds_total", "counter", "Sum over received envelopes of the "
               "time from their sending (on their node's clock) to their delivery here.",
               [({}, figures.lag_sum)]),
        family("fibs_bus_lag_seconds_max", "gauge", "The longest such time yet.",
               [({}, figures.lag_max)]),
        family("fibs_bus_queued", "gauge", "Envelopes waiting to be published.",
               [({}, queued)]),
        family("fibs_users_elsewhere", "gauge", "Users online on the other nodes, as this "
               "node knows them.", [({}, elsewhere)]),
    ]


def count_families(counts: RedisCounts) -> list[list[str]]:
    """/metrics of the abuse limits' counts across nodes (docs/OPERATIONS.md)."""
    return [
        family("fibs_limit_checks_total", "counter", "Checks and writes of the abuse limits' "
               "counts (login failures, registrations, connections): answered with every node's counts in Redis "
               "(shared), or with this node's alone while Redis did not answer (local).",
               [({"counts": "shared"}, counts.figures.shared),
                ({"counts": "local"}, counts.figures.local)]),
        family("fibs_limit_counts_shared", "gauge", "1 while the abuse limits count across "
               "nodes, 0 while they count on this node alone (Redis did not answer).",
               [({}, int(counts.reachable))]),
    ]


# CPython's cyclic garbage collector pauses the event loop for as long as it walks. A young
# collection every 10,000 allocations (default 700) stays at a few milliseconds with 1,000
# matches running; full collections, which walk every session's objects, become rare
# (docs/PERFORMANCE.md, "Garbage collection"). Long-lived match data is kept out of its
# sight altogether (`Match._plain_history`, `LegalResults`).
GC_THRESHOLDS = (10_000, 10, 100)


def tune_garbage_collector() -> None:
    """For the server process only (not for tests that run it in-process)."""
    gc.freeze()  # what start-up built lives as long as the process: never walk it again
    gc.set_threshold(*GC_THRESHOLDS)


WILDCARD_HOSTS = ("0.0.0.0", "::", "")
LOOPBACK_HOSTS = ("localhost", "127.0.0.1", "::1")


def browser_host(host: str) -> str:
    """Where a browser on this machine finds a server listening on `host`."""
    return "localhost" if host in WILDCARD_HOSTS else host


def page_origins(host: str, port: int, configured: tuple[str, ...] | None) -> frozenset[Origin]:
    """The origins whose pages may open a WebSocket: those configured, else the server's own
    page as served on `host` (on every address, or on loopback: the loopback names; another
    address or name must be configured)."""
    if configured is None:
        hosts = LOOPBACK_HOSTS if host in WILDCARD_HOSTS + LOOPBACK_HOSTS else (host,)
        configured = tuple(f"http://[{name}]:{port}" if ":" in name else f"http://{name}:{port}"
                           for name in hosts)
    origins = {origin_of(url) for url in configured}
    if None in origins:
        raise ValueError(f"not an http(s) origin in {configured}")
    return frozenset(origin for origin in origins if origin is not None)


async def serve(config: ServerConfig) -> None:
    """Run until SIGTERM or SIGINT, then shut down gracefully."""
    soft, _ = raise_descriptor_limit()
    logging.getLogger(__name__).info("open files: at most %d", soft)
    server = FibsServer(config)
    await server.start()
    tune_garbage_collector()
    print(f"fibs_server listening on {config.host}:{server.port}", flush=True)
    if server.http_port is not None:
        print(f"fibs_server web client on http://{browser_host(config.host)}:{server.http_port}/",
              flush=True)
    # An administrator's `shutdown` sets the same event when its countdown ends.
    assert server.lobby is not None
    stopping = server.lobby.stop_requested
    loop = asyncio.get_running_loop()
    for signal_number in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signal_number, stopping.set)
    await stopping.wait()
    await server.stop()
