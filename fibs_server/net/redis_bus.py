"""The lobby's bus between nodes over Redis pub/sub (docs/NODES.md): `RedisBus` implements
`lobby.nodes.bus.Bus`.

A letter told on this node is delivered to this node's users at once, as `LocalBus` does,
then queued for the other nodes: on the node's own channel when it is for one node (a
match's letters, a tell to a user the directory places there), else on the lobby's shared
channel. One task publishes the queue in order, in *envelopes* (what a turn told one node
in one envelope, where that node reads batches), one task receives the
envelopes of the shared channel and this node's own, and delivers them here. Pub/sub is
at-most-once: what is lost to an outage is counted, not retried, and every (re)subscription
calls `resynced`, after which the lobby asks for what it missed of the other nodes.
"""
from __future__ import annotations

import asyncio
import collections
import contextlib
import dataclasses
import logging
import random
import secrets
import time
import urllib.parse
from collections.abc import Awaitable, Callable, Collection
from typing import Any

import hiredis
import orjson
import redis.asyncio
from redis.asyncio.client import PubSub
from redis.asyncio.connection import AbstractConnection
from redis.asyncio.retry import Retry
from redis.asyncio.sentinel import Sentinel
from redis.backoff import NoBackoff

from fibs_server.lobby.nodes.bus import (
    Deliver,
    Letter,
    Moderated,
    NodeLetter,
    decode_letter,
    encode_letter,
    letter_of,
)

log = logging.getLogger(__name__)

Resynced = Callable[[], Awaitable[None]]
# The node a user is online on, as this node knows it (its own id for its own users; None:
# unknown, so every node hears of it).
Locate = Callable[[str], str | None]

PUBLISH_BATCH = 256  # letters a round: one write and one round trip for a burst, not one each
SLICE_SECONDS = 0.002  # the subscriber gives the loop a turn at least this often



def unretried_client(url: str, *, connect_timeout: float, timeout: float) -> redis.asyncio.Redis:
    """A client that never retries inside redis-py (every error reaches its caller, who
    knows what a retry would cost) and waits at most `timeout` for an answer. `url` is a
    Redis's (`redis://host:port/db`) or Redis Sentinel's (`SENTINEL_SCHEME`)."""
    options: dict[str, Any] = dict(retry=Retry(NoBackoff(), 0),
                                   socket_connect_timeout=connect_timeout,
                                   socket_timeout=timeout, health_check_interval=0)
    if url.startswith(SENTINEL_SCHEME):
        sentinels, service, db, password = sentinel_address(url)
        return Sentinel(sentinels, sentinel_kwargs=dict(socket_connect_timeout=connect_timeout,
                                                        socket_timeout=timeout),
                        ).master_for(service, redis_class=redis.asyncio.Redis, db=db,
                                     password=password, **options)
    return redis.asyncio.Redis.from_url(url, **options)


# `redis+sentinel://[:password@]host:port,host:port/service[/db]`: the sentinels to ask for
# the master of `service` (their `sentinel monitor` name). Each connection asks them where
# the master is now, so a connection lost to a failover comes back to the new master.
SENTINEL_SCHEME = "redis+sentinel://"


def sentinel_address(url: str) -> tuple[list[tuple[str, int]], str, int, str | None]:
    """The sentinels, the service, the database number and the password of a sentinel URL."""
    parsed = urllib.parse.urlsplit(url)
    password = urllib.parse.unquote(parsed.password) if parsed.password else None
    hosts = parsed.netloc.rpartition("@")[2]
    sentinels = []
    for host in hosts.split(","):
        name, _, port = host.rpartition(":")
        sentinels.append((name.strip("[]"), int(port)))
    service, _, db = parsed.path.strip("/").partition("/")
    if not sentinels or not service:
        raise ValueError(f"a sentinel URL names sentinels and a service: {url}")
    return sentinels, service, int(db or 0), password

@dataclasses.dataclass
class BusFigures:
    """What the bus counts, for /metrics. Lag is wall-clock receive time minus send time, so
    it includes the nodes' clock difference."""
    published: int = 0  # letters Redis accepted from this node
    received: int = 0  # other nodes' letters delivered here
    envelopes_published: int = 0  # the envelopes that carried them (several letters in one)
    envelopes_received: int = 0
    dropped_queue_full: int = 0  # told while the outgoing queue was full: never queued
    dropped_unsent: int = 0  # queued, then lost to a failed publish or stale after an outage
    bad: int = 0  # envelopes that did not decode, dropped
    gaps: int = 0  # other nodes' letters missed, by their sequence numbers
    subscriptions: int = 0  # successful subscriptions: the first, then one per reconnect
    reconnects: int = 0
    lag_sum: float = 0.0  # seconds, over `received` letters
    lag_max: float = 0.0

    @property
    def dropped(self) -> int:
        return self.dropped_queue_full + self.dropped_unsent


Names = list[str] | None  # to whom a letter is (None: everyone)


@dataclasses.dataclass(frozen=True)
class Envelope:
    """Letters on their way: who sent them (node, and the run of that node's bus, so that a
    restarted node's sequence starting again is not a gap), the number of the first on its
    channel (the others follow on), when (time.time()), and each to whom. `batches`: whether
    its node reads envelopes of several letters (an older node's do not say so)."""
    node: str
    run: str
    seq: int
    sent: float
    letters: tuple[tuple[Names, Letter], ...]
    batches: bool = True


def encode_envelope(envelope: Envelope) -> bytes:
    return envelope_bytes(envelope.node, envelope.run, envelope.seq, envelope.sent,
                          [names for names, _ in envelope.letters],
                          [encode_letter(letter) for _, letter in envelope.letters],
                          batches=envelope.batches)


def envelope_bytes(node: str, run: str, seq: int, sent: float, names: list[Names],
                   letters: list[bytes], *, batches: bool = True) -> bytes:
    """A JSON header line, then the letters as `encode_letter` makes them (orjson never
    writes a raw newline, so the first one ends the header). One letter: the header names
    its listeners (`names`), and the letter follows, as every version of the bus writes it.
    Several (a *batch*): the header names each letter's listeners (`batch`), and a JSON list
    of the letters follows."""
    if len(letters) == 1:
        header = {"node": node, "run": run, "seq": seq, "names": names[0], "sent": sent,
                  "batches": batches}
        return orjson.dumps(header) + b"\n" + letters[0]
    header = {"node": node, "run": run, "seq": seq, "batch": names, "sent": sent,
              "batches": batches}
    return orjson.dumps(header) + b"\n[" + b",".join(letters) + b"]"


def _header(data: Any) -> tuple[dict[str, Any], bytes]:
    if not isinstance(data, bytes):
        raise ValueError(f"not an envelope: {type(data).__name__}")
    head, newline, body = data.partition(b"\n")
    if not newline:
        raise ValueError("not an envelope: no header")
    try:
        header = orjson.loads(head)
    except orjson.JSONDecodeError as error:
        raise ValueError(f"not an envelope header: {error}") from error
    if not (isinstance(header, dict) and isinstance(header.get("node"), str)
            and isinstance(header.get("run"), str) and type(header.get("seq")) is int
            and type(header.get("sent")) in (int, float)):
        raise ValueError(f"not an envelope header: {header!r}")
    return header, body


def _names(names: Any) -> bool:
    return names is None or type(names) is list and all(type(name) is str for name in names)


def _letters(header: dict[str, Any], body: bytes) -> tuple[tuple[Names, Letter], ...]:
    batch = header.get("batch")
    if batch is None:  # one letter
        names = header.get("names")
        if not _names(names):
            raise ValueError(f"not an envelope header: {header!r}")
        return ((names, decode_letter(body)),)
    if not (type(batch) is list and len(batch) > 1 and all(_names(names) for names in batch)):
        raise ValueError(f"not an envelope header: {header!r}")
    try:
        letters = orjson.loads(body)
    except orjson.JSONDecodeError as error:
        raise ValueError(f"not a batch of letters: {error}") from error
    if type(letters) is not list or len(letters) != len(batch):
        raise ValueError("not a batch of letters: not one for each in the header")
    return tuple(zip(batch, map(letter_of, letters), strict=True))


def decode_envelope(data: Any) -> Envelope:
    """The envelope `encode_envelope` made, or an older node's (one letter, no `batches`);
    ValueError for anything else."""
    header, body = _header(data)
    return Envelope(header["node"], header["run"], header["seq"], float(header["sent"]),
                    _letters(header, body), header.get("batches") is True)


@dataclasses.dataclass(frozen=True, slots=True)
class Queued:
    """A letter to publish: `seq` its number on `channel`, which is `to_node`'s own (None:
    the shared channel)."""
    channel: str
    to_node: str | None
    seq: int
    names: Names
    letter: bytes
    sent: float  # time.time()
    queued_at: float  # time.monotonic(), for staleness


def _publish_command(channel: str, data: bytes) -> bytes:
    """`PUBLISH channel data` as Redis reads it (RESP)."""
    name = channel.encode()
    return b"*3\r\n$7\r\nPUBLISH\r\n$%d\r\n%b\r\n$%d\r\n%b\r\n" % (len(name), name,
                                                                       len(data), data)


async def _read_replies(connection: AbstractConnection, count: int) -> None:
    """Read `count` replies on `connection`, raising the first error among them. They are
    parsed by redis-py's hiredis reader as the socket brings them, under one timeout (the
    connection's), not a `read_response` each: its layers and its timeout per reply were
    most of a turn's reading."""
    parser = getattr(connection, "_parser", None)
    replies = getattr(parser, "_reader", None)
    if not isinstance(replies, hiredis.Reader):  # a redis-py of other insides
        for _ in range(count):
            await connection.read_response()
        return
    assert parser is not None
    async with asyncio.timeout(connection.socket_timeout):
        while count:
            reply = replies.gets()
            if type(reply) is int:  # PUBLISH's: how many heard it
                count -= 1
            elif isinstance(reply, Exception):
                raise reply
            else:  # the reader's marker: all that was read is parsed
                await parser.read_from_socket()


async def _nothing_to_resync() -> None:
    return None


def _nowhere(name: str) -> str | None:
    return None


class RedisBus:
    """`lobby.nodes.bus.Bus` across nodes sharing one Redis. `url`: redis://...; `node_id`: this
    node's name, distinct among the nodes; `deliver`: hands a letter to this node's users;
    `resynced`: awaited (in a task of its own, beside delivery) after every subscription,
    the first included, since a node that was not subscribed may have missed anything.

    `prefix` names the lobby's channels (`<prefix>:lobby`, shared, and `<prefix>:node:<id>`,
    each node's own), so that several lobbies (and tests) share one Redis. `locate`: where
    a user is online (the lobby's directory), so that a letter to named users goes to their
    nodes alone. `queue_limit` bounds the envelopes waiting to be published: a
    letter told while it is full is delivered here but not queued (counted), and the bus
    reports itself unhealthy. `stale_after`: a queued envelope older than this when its turn
    comes (after an outage) is dropped instead of published late. `backoff_cap`: the longest
    wait between reconnection attempts. `ping_interval`: after half to all of this long without a
    word from Redis the subscriber pings, and without an answer this long after it reconnects
    (a connection can die without an error: a partition, a suspended server)."""

    def __init__(self, url: str, node_id: str, deliver: Deliver,
                 resynced: Resynced = _nothing_to_resync, *, prefix: str = "fibs",
                 locate: Locate = _nowhere, queue_limit: int = 10_000,
                 stale_after: float = 10.0, backoff_cap: float = 2.0,
                 ping_interval: float = 5.0) -> None:
        self.node_id = node_id
        self.prefix = prefix
        self.channel = f"{prefix}:lobby"
        self.own_channel = self.node_channel(node_id)
        self.figures = BusFigures()
        self.queue_limit = queue_limit
        self.stale_after = stale_after
        self.backoff_cap = backoff_cap
        self.ping_interval = ping_interval
        self._url = url
        self._deliver = deliver
        self._resynced = resynced
        self._locate = locate
        self._run = secrets.token_hex(8)
        self._seqs: dict[str, int] = {}  # channel -> the number of its last envelope
        self._queue: collections.deque[Queued] = collections.deque()
        self._pending = asyncio.Event()
        self._subscribed = asyncio.Event()
        self._publisher_up = True  # until a publish fails: then until a ping answers
        self._last_word = time.monotonic()  # when the subscriber last heard anything from Redis
        # (node, channel as Redis names it) -> (its run, last number seen on that channel)
        self._heard: dict[tuple[str, bytes], tuple[str, int]] = {}
        self._reads_batches: dict[str, bool] = {}  # node -> as its last envelope said
        self._client: redis.asyncio.Redis | None = None
        self._publishing_on: AbstractConnection | None = None  # the publisher's, from the pool
        self._tasks: list[asyncio.Task[None]] = []
        self._resync: asyncio.Task[None] | None = None
        self._last_bad_log = -1e9
        self._stopping = False

    def node_channel(self, node: str) -> str:
        return f"{self.prefix}:node:{node}"

    # The Bus protocol: synchronous, for handlers.

    def tell(self, names: Collection[str], letter: Letter) -> None:
        if names:
            self._tell(list(names), letter)

    def tell_all(self, letter: Letter) -> None:
        self._tell(None, letter)

    def tell_others(self, letter: NodeLetter) -> None:
        self._route(None, letter)

    def _tell(self, names: list[str] | None, letter: Letter) -> None:
        try:
            self._deliver(names, letter)
        finally:  # a failing delivery here is the handler's error; the other nodes still hear
            self._route(names, letter)

    def _route(self, names: list[str] | None, letter: Letter) -> None:
        """To the one node a letter is for, on its channel; to the nodes of the users named
        (none for those here), each on its own; the rest on the shared channel."""
        to_node = getattr(letter, "to_node", None)
        if to_node is None and isinstance(letter, Moderated):
            to_node = self._locate(letter.name)
        if isinstance(to_node, str):
            if to_node != self.node_id:
                self._enqueue(to_node, names, letter)
            return
        if names is None:
            self._enqueue(None, None, letter)
            return
        by_node: dict[str | None, list[str]] = {}
        for name in names:
            by_node.setdefault(self._locate(name), []).append(name)
        for node, named in by_node.items():
            if node != self.node_id:
                self._enqueue(node, named, letter)

    def _enqueue(self, to_node: str | None, names: Names, letter: Letter) -> None:
        """Queue `letter` for the channel of `to_node` (None: the shared channel)."""
        channel = self.channel if to_node is None else self.node_channel(to_node)
        # Numbered even when dropped: receivers see the loss as a gap.
        seq = self._seqs[channel] = self._seqs.get(channel, 0) + 1
        if len(self._queue) >= self.queue_limit:
            self.figures.dropped_queue_full += 1
            return
        try:
            data = encode_letter(letter)
        except (TypeError, orjson.JSONEncodeError):
            log.exception("bus: letter not encodable, not sent to the other nodes")
            self.figures.dropped_unsent += 1
            return
        self._queue.append(Queued(channel, to_node, seq, names, data, time.time(),
                                  time.monotonic()))
        self._pending.set()

    # State.

    @property
    def subscribed(self) -> bool:
        return self._subscribed.is_set()

    @property
    def carrying(self) -> bool:
        """Whether letters go both ways now, as far as this node can tell: subscribed,
        publishing, and Redis heard from lately (a stalled Redis is silent, and is taken for
        gone well before the subscriber's second ping fails)."""
        return (self.subscribed and self._publisher_up
                and time.monotonic() - self._last_word < 1.5 * self.ping_interval)

    @property
    def queued(self) -> int:
        return len(self._queue)

    @property
    def healthy(self) -> bool:
        """Subscribed, publishing, and with room in the outgoing queue."""
        return self.subscribed and self._publisher_up and len(self._queue) < self.queue_limit

    async def until_subscribed(self) -> None:
        await self._subscribed.wait()

    # Life.

    async def start(self) -> None:
        """Start the publishing and subscribing tasks; returns at once. Redis may be down:
        letters are delivered here meanwhile, and the bus subscribes when it can."""
        # No retries inside redis-py: a pub/sub connection it quietly re-established would
        # have missed letters without our knowing. Every error reaches the loops below.
        self._client = unretried_client(self._url, connect_timeout=2.0, timeout=5.0)
        self._tasks = [asyncio.create_task(self._subscribing(), name="redis-bus subscriber"),
                       asyncio.create_task(self._publishing(), name="redis-bus publisher")]

    async def stop(self, flush_timeout: float = 1.0) -> None:
        """Publish what is queued (for `flush_timeout` seconds at most), then stop."""
        if self._stopping:
            return
        self._stopping = True
        deadline = time.monotonic() + flush_timeout
        while self._queue and self._publisher_up and self._tasks \
                and time.monotonic() < deadline:
            await asyncio.sleep(0.005)
        tasks = {*self._tasks, *([self._resync] if self._resync else [])}
        self._pending.set()  # the publisher, waiting, sees `_stopping`
        # redis-py may swallow a cancellation that lands inside a connection's teardown; the
        # loops also stop on `_stopping`, and a task still running is cancelled again.
        while tasks:
            for task in tasks:
                task.cancel()
            _, tasks = await asyncio.wait(tasks, timeout=0.5)
        self._tasks = []
        self._subscribed.clear()
        if self._publishing_on is not None and self._client is not None:
            with contextlib.suppress(Exception):
                await self._client.connection_pool.release(self._publishing_on)
            self._publishing_on = None
        if self._client is not None:
            with contextlib.suppress(Exception):
                await self._client.aclose()

    def _backoff(self, failures: int) -> float:
        # Capped exponential with jitter, so that the nodes do not all come back at once.
        return random.uniform(0.5, 1.0) * min(self.backoff_cap, 0.05 * 2 ** min(failures, 16))

    # Publishing.

    async def _publishing(self) -> None:
        assert self._client is not None
        failures = 0
        while not self._stopping:
            # Down, it tries again whether or not anything waits, so that it is soon healthy.
            if not self._publisher_up:
                try:
                    await self._client.ping()
                except Exception as error:
                    failures += 1
                    log.debug("bus: Redis still unreachable for publishing: %s", error)
                    await asyncio.sleep(self._backoff(failures))
                    continue
                failures = 0
                self._publisher_up = True
                log.warning("bus: publishing again")
            if not self._queue:
                self._pending.clear()
                await self._pending.wait()
                continue  # stopping, perhaps
            batch = self._fresh_batch()
            if not batch:
                continue
            envelopes = self._envelopes(batch)
            try:
                await self._publish(envelopes)
            except Exception as error:
                # At-most-once: what was in flight is lost; the receivers' resync repairs.
                self.figures.dropped_unsent += len(batch)
                self._publisher_up = False
                failures = 1
                log.warning("bus: publishing failed, %d letters dropped: %s", len(batch), error)
                await asyncio.sleep(self._backoff(failures))
                continue
            self.figures.published += len(batch)
            self.figures.envelopes_published += len(envelopes)

    async def _publish(self, envelopes: list[tuple[str, bytes]]) -> None:
        """The turn's PUBLISH commands in one write, packed here, then their replies: one round
        trip, as a pipeline's, without its packing and reading each command in Python. On a
        connection of its own, kept from turn to turn (taking one from the pool and giving it
        back each turn cost as much as reading the replies) until it fails, and checked
        before each turn as the pool checks those it hands out."""
        assert self._client is not None
        pool = self._client.connection_pool
        connection = self._publishing_on
        if connection is None:
            connection = self._publishing_on = await pool.get_connection()
        try:
            # As the pool does when it hands one out: one Redis closed meanwhile (a restart)
            # is connected again before the turn is written to it, not found dead after.
            await pool.ensure_connection(connection)
            await connection.send_packed_command(
                b"".join(_publish_command(channel, data) for channel, data in envelopes),
                check_health=False)
            await _read_replies(connection, len(envelopes))
        except BaseException:
            self._publishing_on = None
            try:
                await connection.disconnect()  # replies may be left unread on it
            finally:
                await pool.release(connection)
            raise

    def _fresh_batch(self) -> list[Queued]:
        oldest = time.monotonic() - self.stale_after
        batch: list[Queued] = []
        while self._queue and len(batch) < PUBLISH_BATCH:
            queued = self._queue.popleft()
            if queued.queued_at < oldest:
                self.figures.dropped_unsent += 1
            else:
                batch.append(queued)
        return batch

    def _envelopes(self, batch: list[Queued]) -> list[tuple[str, bytes]]:
        """The letters of `batch` as envelopes, in the order to publish them. The letters for
        one node that reads batches go in one envelope as long as their numbers follow on and
        no letter on the shared channel came between (every node reads that channel too: its
        letters keep their place among the others). The shared channel's go one an envelope:
        an older node reads it too (and a turn tells few of them)."""
        groups: list[list[Queued]] = []
        open_: dict[str, list[Queued]] = {}
        for queued in batch:
            if queued.to_node is None:
                open_.clear()
                groups.append([queued])
                continue
            group = open_.get(queued.channel)
            if group is not None and group[-1].seq + 1 == queued.seq:
                group.append(queued)
                continue
            group = [queued]
            groups.append(group)
            if self._reads_batches.get(queued.to_node):
                open_[queued.channel] = group
        return [(group[0].channel,
                 envelope_bytes(self.node_id, self._run, group[0].seq, group[0].sent,
                                [queued.names for queued in group],
                                [queued.letter for queued in group]))
                for group in groups]

    # Subscribing.

    async def _subscribing(self) -> None:
        assert self._client is not None
        failures = 0
        while not self._stopping:
            pubsub = self._client.pubsub()
            try:
                await pubsub.subscribe(self.channel, self.own_channel)
                await self._confirmed(pubsub)
                failures = 0
                self._last_word = time.monotonic()
                self._now_subscribed()
                await self._receiving(pubsub)
            except Exception as error:
                if self._subscribed.is_set():
                    log.warning("bus: subscription lost, reconnecting: %s", error)
                else:
                    log.debug("bus: cannot subscribe yet: %s", error)
            finally:
                self._subscribed.clear()
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(pubsub.aclose(), 2.0)
            failures += 1
            await asyncio.sleep(self._backoff(failures))

    async def _confirmed(self, pubsub: PubSub) -> None:
        """Wait for Redis to confirm both subscriptions: only then is nothing published after
        them missed, so only then may the lobby resync."""
        deadline = asyncio.get_running_loop().time() + self.ping_interval
        unconfirmed = 2
        while unconfirmed:
            left = deadline - asyncio.get_running_loop().time()
            if left <= 0:
                raise redis.ConnectionError("no subscription confirmed")
            message = await pubsub.get_message(timeout=left)
            if message is not None and message["type"] == "subscribe":
                unconfirmed -= 1

    def _now_subscribed(self) -> None:
        self.figures.subscriptions += 1
        if self.figures.subscriptions > 1:
            self.figures.reconnects += 1
            log.warning("bus: subscribed again; resyncing")
        # Whatever was missed is repaired by the resync, not counted as gaps.
        self._heard.clear()
        self._subscribed.set()
        if self._resync is not None and not self._resync.done():
            self._resync.cancel()  # its picture is already out of date
        self._resync = asyncio.create_task(self._resyncing(), name="redis-bus resync")

    async def _resyncing(self) -> None:
        try:
            await self._resynced()
        except Exception:
            log.exception("bus: resync failed")

    async def _receiving(self, pubsub: PubSub) -> None:
        """Deliver what Redis sends until the connection fails or goes silent. What one read
        from the socket brings is parsed at once, in C, not a `get_message` each: most of a
        message's cost to redis-py was its layers, not its parsing."""
        parser = getattr(pubsub.connection, "_parser", None)
        replies = getattr(parser, "_reader", None)
        if not isinstance(replies, hiredis.Reader):  # a redis-py of other insides
            await self._receiving_each(pubsub)
            return
        assert parser is not None
        pinged_at: float | None = None
        while not self._stopping:
            try:
                async with asyncio.timeout(self.ping_interval) as silence:
                    await self._draining(parser, replies, silence)
            except TimeoutError:
                if not silence.expired():
                    raise
                if pinged_at is not None and self._last_word <= pinged_at:
                    raise redis.ConnectionError("Redis silent: no answer to a ping") from None
                pinged_at = time.monotonic()
                await pubsub.ping()

    async def _draining(self, parser: Any, replies: hiredis.Reader,
                        silence: asyncio.Timeout) -> None:
        """`_receiving`'s reading, until the bus stops or `silence` expires. `silence` is put
        off only once half its time is gone, not at every read (a timer each read was a
        tenth of the subscriber's CPU): it expires after half to all of `ping_interval`
        without a word from Redis."""
        loop = asyncio.get_running_loop()
        slice_started = loop.time()
        while not self._stopping:
            reply = replies.gets()
            if isinstance(reply, list):  # subscribed, Redis sends nothing else but errors
                if reply[0] == b"message":
                    self._received(reply[2], reply[1])
                # Messages already read arrive without the loop getting a turn: give it one.
                if loop.time() - slice_started > SLICE_SECONDS:
                    await asyncio.sleep(0)
                    slice_started = loop.time()
                continue
            if isinstance(reply, Exception):
                raise reply
            # All that was read is delivered (the reader says so with its own marker).
            reading = loop.time()
            await parser.read_from_socket()
            self._last_word = time.monotonic()
            now = loop.time()
            if now - reading > SLICE_SECONDS:  # it waited: the loop had its turns meanwhile
                slice_started = now
            deadline = silence.when()
            if deadline is not None and deadline - now < self.ping_interval / 2:
                silence.reschedule(now + self.ping_interval)

    async def _receiving_each(self, pubsub: PubSub) -> None:
        """`_receiving` through redis-py's `get_message`, one message a call."""
        loop = asyncio.get_running_loop()
        pinged = False
        slice_started = loop.time()
        while not self._stopping:
            message = await pubsub.get_message(timeout=self.ping_interval)
            if message is None:
                if pinged:
                    raise redis.ConnectionError("Redis silent: no answer to a ping")
                await pubsub.ping()
                pinged = True
                continue
            pinged = False
            self._last_word = time.monotonic()
            if message["type"] == "message":
                self._received(message["data"], message["channel"])
            if loop.time() - slice_started > SLICE_SECONDS:
                await asyncio.sleep(0)
                slice_started = loop.time()

    def _received(self, data: Any, channel: bytes) -> None:
        try:
            header, body = _header(data)
            node = header["node"]
            if node == self.node_id:
                if header["run"] != self._run:
                    log.error("bus: another node uses this node's id %r", self.node_id)
                return
            letters = _letters(header, body)
        except ValueError as error:
            self._bad(error)
            return
        self._reads_batches[node] = header.get("batches") is True
        self._count_gap(node, header["run"], header["seq"], len(letters), channel)
        self.figures.envelopes_received += 1
        self.figures.received += len(letters)
        lag = max(0.0, time.time() - header["sent"])
        self.figures.lag_sum += lag * len(letters)
        self.figures.lag_max = max(self.figures.lag_max, lag)
        for names, letter in letters:
            try:
                self._deliver(names, letter)
            except Exception:
                log.exception("bus: delivering a letter from %s failed", node)

    def _bad(self, error: ValueError) -> None:
        self.figures.bad += 1
        now = time.monotonic()
        if now - self._last_bad_log > 1.0:  # a flood of them must not flood the log
            self._last_bad_log = now
            log.warning("bus: bad envelope dropped (%d so far): %s", self.figures.bad, error)

    def _count_gap(self, node: str, run: str, seq: int, letters: int, channel: bytes) -> None:
        """`letters` numbered from `seq` on, from `node`'s `run` on `channel`."""
        key = (node, channel)
        heard = self._heard.get(key)
        if heard is not None and heard[0] == run and seq > heard[1] + 1:
            self.figures.gaps += seq - heard[1] - 1
        if heard is None or heard[0] != run or seq + letters - 1 > heard[1]:
            self._heard[key] = (run, seq + letters - 1)
