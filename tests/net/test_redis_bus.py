"""The bus between nodes over real Redis (net/redis_bus.py, docs/NODES.md): nodes hear each
other's letters in the order told and their own once; bad envelopes, a killed Redis, killed
subscriptions and a full outgoing queue cost letters, never the bus; a flood from another
node leaves the receiving node's loop free."""
from __future__ import annotations

import asyncio
import contextlib
import multiprocessing
import multiprocessing.synchronize
import statistics
import time
import types
from collections.abc import Collection

import orjson
import pytest
import redis.asyncio

from fibs_server.lobby.nodes.bus import Letter, Relayed, Said, decode_letter, encode_letter, notice
from fibs_server.net import redis_bus
from fibs_server.net.redis_bus import (
    Envelope,
    RedisBus,
    decode_envelope,
    encode_envelope,
)
from tests.redis_server import prefix, private_redis, redis_url  # noqa: F401 (fixtures)
from tests.waiting import DEADLINE, until, until_async

Got = tuple[list[str] | None, Letter]


class Node:
    """A bus and what it delivered to its node's users, in order."""

    def __init__(self, url: str, name: str, prefix: str, **options) -> None:
        self.got: list[Got] = []
        self.resyncs = 0
        self.refuse: str | None = None  # a Said text whose delivery raises
        options.setdefault("backoff_cap", 0.1)
        self.bus = RedisBus(url, name, self.deliver, self.resynced, prefix=prefix, **options)

    def deliver(self, names: Collection[str] | None, letter: Letter) -> None:
        if isinstance(letter, Said) and letter.text == self.refuse:
            raise RuntimeError("a user's connection broke")
        self.got.append((None if names is None else list(names), letter))

    async def resynced(self) -> None:
        self.resyncs += 1


@pytest.fixture
async def make_nodes():
    made: list[Node] = []

    async def make(url: str, prefix: str, *names: str, subscribed: bool = True,
                   **options) -> list[Node]:
        nodes = [Node(url, name, prefix, **options) for name in names]
        for node in nodes:
            await node.bus.start()
            made.append(node)
        if subscribed:
            await until(lambda: all(node.bus.subscribed for node in nodes), "subscribed")
        return nodes

    yield make
    for node in made:
        await node.bus.stop(flush_timeout=0)


def shout(number: int, speaker: str = "alice") -> Said:
    return Said("shout", speaker, f"shout {number}")


def test_an_envelope_is_what_it_was_after_the_wire():
    envelope = Envelope("node-1", "run", 7, 1234.5, ((["bob", "Carol"], notice(
        ["two", "lines\nwith a newline"], excluded=["Dave"])),))
    assert decode_envelope(encode_envelope(envelope)) == envelope
    everyone = Envelope("node-1", "run", 8, 1, ((None, Said("tell", "a", "b\n", to="c")),))
    assert decode_envelope(encode_envelope(everyone)) == everyone
    batch = Envelope("node-1", "run", 9, 1.5, ((None, shout(1)), (["bob"], shout(2)),
                                               ([], notice(["x\ny"]))))
    assert decode_envelope(encode_envelope(batch)) == batch



def old_envelope(node: str, run: str, seq: int, names: list[str] | None, letter: Letter,
                 **more: object) -> bytes:
    """An envelope as a node older than batches writes it: one letter, no `batches`."""
    header = {"node": node, "run": run, "seq": seq, "names": names, "sent": time.time(), **more}
    return orjson.dumps(header) + b"\n" + encode_letter(letter)


def read_as_an_older_node(data: bytes) -> tuple[int, list[str] | None, Letter]:
    """What a node older than batches reads of an envelope (its `decode_envelope`): a header
    with one letter's names, then that letter; anything else is refused (ValueError)."""
    head, _, body = data.partition(b"\n")
    header = orjson.loads(head)
    names = header.get("names")
    if not (names is None or isinstance(names, list)
            and all(isinstance(name, str) for name in names)):
        raise ValueError("not an envelope header")
    return header["seq"], names, decode_letter(body)


class Spy:
    """A subscriber of its own to a channel: the envelopes published on it, as they are."""

    def __init__(self, url: str) -> None:
        self.client = redis.asyncio.Redis.from_url(url)
        self.pubsub = self.client.pubsub()
        self.seen: list[bytes] = []
        self.task: asyncio.Task[None] | None = None

    async def start(self, channel: str) -> Spy:
        await self.pubsub.subscribe(channel)
        # Its confirmation: from then on nothing published is missed.
        deadline = time.monotonic() + DEADLINE
        while (await self.pubsub.get_message(timeout=1.0)) is None:
            assert time.monotonic() < deadline, "not subscribed"
        self.task = asyncio.create_task(self._reading())
        return self

    async def _reading(self) -> None:
        while True:
            message = await self.pubsub.get_message(timeout=1.0)
            if message is not None and message["type"] == "message":
                self.seen.append(message["data"])

    async def stop(self) -> None:
        if self.task is not None:
            self.task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.task
        await self.pubsub.aclose()
        await self.client.aclose()


@pytest.fixture
async def spy(redis_url):
    spies: list[Spy] = []

    async def make(channel: str) -> Spy:
        spies.append(Spy(redis_url))
        return await spies[-1].start(channel)

    yield make
    for made in spies:
        await made.stop()


async def test_a_turns_letters_for_a_node_go_in_one_envelope(redis_url, prefix, make_nodes,
                                                             spy):
    """What one turn tells a node that reads batches goes in one envelope, cut where a letter
    on the shared channel comes between (every node reads it: its place among the others is
    kept); the numbers of each channel run on without gaps."""
    a, b, c = await make_nodes(redis_url, prefix, "a", "b", "c",
                               locate={"bob": "b", "carol": "c"}.get)
    b.bus.tell_all(shout(0, "bob"))  # b's envelopes say that it reads batches
    c.bus.tell_all(shout(0, "carol"))
    await until(lambda: len(a.got) == 2, "a hears b and c")
    wire = await spy(b.bus.own_channel)
    told: list[Got] = []
    for number in range(1, 6):
        a.bus.tell(["bob"], shout(number))
        told.append((["bob"], shout(number)))
        a.bus.tell(["carol"], shout(number))  # interleaved, on c's channel
    relayed = Relayed("a", "b", "bob", "lines", ("You roll 3 and 1.",), number=1)
    a.bus.tell_others(relayed)
    a.bus.tell_all(shout(6))  # on the shared channel
    a.bus.tell(["bob"], shout(7))
    a.bus.tell(["bob"], shout(8))
    told += [(None, relayed), (None, shout(6)), (["bob"], shout(7)), (["bob"], shout(8))]
    await until(lambda: len(b.got) == 2 + len(told) and len(c.got) == 2 + 6, "delivered")
    assert b.got[2:] == told
    assert c.got[2:] == [*((["carol"], shout(number)) for number in range(1, 6)),
                         (None, shout(6))]
    await until(lambda: len(wire.seen) == 2, "b's channel seen")
    envelopes = [decode_envelope(data) for data in wire.seen]
    assert [(envelope.seq, len(envelope.letters)) for envelope in envelopes] == [(1, 6), (7, 2)]
    assert [letter for envelope in envelopes for letter in envelope.letters] == \
        [got for got in told if got[1] != shout(6)]
    assert all(envelope.batches for envelope in envelopes)
    assert (a.bus.figures.published, a.bus.figures.envelopes_published) == (14, 4)
    assert (b.bus.figures.received, b.bus.figures.envelopes_received) == (1 + 9, 1 + 3)
    assert not (b.bus.figures.gaps or c.bus.figures.gaps or b.bus.figures.bad)


async def test_an_older_node_and_a_newer_one_read_each_other(redis_url, prefix, make_nodes,
                                                             spy):
    """A rolling restart: a node reads an older node's envelopes (one letter each, nothing
    said of batches), and sends it one letter an envelope, as it reads them, until the
    older node comes back newer."""
    (a,) = await make_nodes(redis_url, prefix, "a", locate={"olga": "old"}.get)
    wire = await spy(a.bus.node_channel("old"))
    publisher = redis.asyncio.Redis.from_url(redis_url)
    try:
        await publisher.publish(a.bus.channel, old_envelope("old", "r1", 1, None,
                                                            shout(0, "olga")))
        await publisher.publish(a.bus.own_channel, old_envelope("old", "r1", 1, ["alice"],
                                                                shout(1, "olga")))
        await until(lambda: len(a.got) == 2, "a reads the older node")
        assert a.got == [(None, shout(0, "olga")), (["alice"], shout(1, "olga"))]
        for number in range(3):
            a.bus.tell(["olga"], shout(number))
        await until(lambda: len(wire.seen) == 3, "the older node's channel")
        assert [read_as_an_older_node(data) for data in wire.seen] == \
            [(number + 1, ["olga"], shout(number)) for number in range(3)]
        # Restarted newer: its envelopes say that it reads batches.
        await publisher.publish(a.bus.channel, old_envelope("old", "r2", 1, None,
                                                            shout(2, "olga"), batches=True))
        await until(lambda: a.got[-1] == (None, shout(2, "olga")), "a reads the newer node")
        for number in range(3, 6):
            a.bus.tell(["olga"], shout(number))
        await until(lambda: len(wire.seen) == 4, "the newer node's channel")
        batch = decode_envelope(wire.seen[3])
        assert (batch.seq, batch.letters) == (4, tuple((["olga"], shout(number))
                                                       for number in range(3, 6)))
        with pytest.raises(ValueError):
            read_as_an_older_node(wire.seen[3])  # why the older node is not sent batches
    finally:
        await publisher.aclose()
    assert (a.bus.figures.received, a.bus.figures.bad, a.bus.figures.gaps) == (3, 0, 0)


async def test_letters_missed_between_batches_are_counted(redis_url, prefix, make_nodes):
    (b,) = await make_nodes(redis_url, prefix, "b")
    batches = [((1, 2, 3), "r1"), ((6, 7), "r1"), ((8,), "r1"), ((12, 13), "r1"),
               ((1, 2), "r2")]  # the sender restarted: its numbers start again
    publisher = redis.asyncio.Redis.from_url(redis_url)
    try:
        for numbers, run in batches:
            await publisher.publish(b.bus.own_channel, encode_envelope(Envelope(
                "x", run, numbers[0], time.time(),
                tuple((None, shout(number, "x")) for number in numbers))))
    finally:
        await publisher.aclose()
    await until(lambda: len(b.got) == 10, "b hears x")
    assert [letter for _, letter in b.got] == [shout(number, "x") for number in
                                                (1, 2, 3, 6, 7, 8, 12, 13, 1, 2)]
    assert (b.bus.figures.gaps, b.bus.figures.received, b.bus.figures.envelopes_received) \
        == (2 + 3, 10, 5)


async def test_a_letter_for_one_node_goes_to_that_node_alone(redis_url, prefix, make_nodes):
    """Addressed channels: a match's letter and a tell to users the directory places go to
    their nodes only; unknown users and broadcasts to all; each channel's numbers have no
    gaps, and one node's letters keep their order across its channels."""
    where = {"bob": "b", "carol": "c", "alice": "a"}
    a, b, c = await make_nodes(redis_url, prefix, "a", "b", "c", locate=where.get)
    relayed = Relayed("a", "b", "bob", "lines", ("You roll 3 and 1.",), number=1)
    told = Said("tell", "alice", "hi", to="bob")
    a.bus.tell_others(relayed)
    a.bus.tell(["bob", "alice"], told)  # alice is a's own: delivered there, sent nowhere
    a.bus.tell(["dave"], told)  # not placed: every node hears it
    a.bus.tell_all(shout(1))
    await until(lambda: len(b.got) == 4 and len(c.got) == 2, "delivered")
    assert b.got == [(None, relayed), (["bob"], told), (["dave"], told), (None, shout(1))]
    assert c.got == [(["dave"], told), (None, shout(1))]
    assert a.bus.figures.published == 4 and not b.bus.figures.gaps and not c.bus.figures.gaps


async def test_nodes_hear_each_others_letters_in_the_order_told(redis_url, prefix, make_nodes):
    a, b, c = await make_nodes(redis_url, prefix, "a", "b", "c")
    told: list[Got] = []
    for number in range(60):
        if number % 3 == 0:
            letter: Letter = notice([f"line {number}"], excluded=["alice"])
            a.bus.tell_all(letter)
            told.append((None, letter))
        else:
            letter = Said("tell", "alice", f"words {number}", to="bob")
            a.bus.tell(["bob", "Carol"], letter)
            told.append((["bob", "Carol"], letter))
        assert a.got == told  # here, before tell returns, as on one node
    a.bus.tell([], shout(-1))  # nobody: nothing anywhere
    await until(lambda: len(b.got) >= 60 and len(c.got) >= 60, "b and c hear a")
    assert b.got == told and c.got == told
    # Redis sends a's own letters back to a before b's answer to them: none came through.
    reply = Said("tell", "bob", "back", to="alice")
    b.bus.tell(["alice"], reply)
    await until(lambda: len(a.got) > 60 and len(c.got) > 60, "a and c hear b")
    assert a.got == [*told, (["alice"], reply)]
    assert c.got == a.got
    assert b.got == [*told, (["alice"], reply)]  # b's own, once
    await until(lambda: a.bus.figures.published == 60, "a's letters counted")
    for node, heard in ((b, 60), (c, 61)):
        figures = node.bus.figures
        assert (figures.received, figures.gaps, figures.bad, figures.dropped) == (heard, 0, 0, 0)
        # Each letter's lag is at most the largest (floating sums: a hair of slack).
        assert 0 <= figures.lag_sum <= heard * figures.lag_max + 1e-9
    assert (a.bus.figures.received, a.bus.figures.reconnects) == (1, 0)
    assert a.resyncs == b.resyncs == c.resyncs == 1  # the first subscription
    assert a.bus.healthy


async def test_a_redis_py_of_other_insides_is_read_a_message_a_call(redis_url, prefix,
                                                                     make_nodes, monkeypatch):
    """The subscriber parses what it reads with redis-py's hiredis reader, and the publisher
    its replies; a redis-py without one is read through `get_message` and `read_response`,
    with the same letters in the same order."""
    monkeypatch.setattr(redis_bus, "hiredis", types.SimpleNamespace(Reader=type("Other", (), {})))
    a, b = await make_nodes(redis_url, prefix, "a", "b", locate={"bob": "b"}.get)
    b.bus.tell_all(shout(0, "bob"))
    await until(lambda: a.got, "a hears b")
    for number in range(1, 4):
        a.bus.tell(["bob"], shout(number))
    a.bus.tell_all(shout(4))
    await until(lambda: len(b.got) == 5, "b hears a")
    assert b.got[1:] == [*((["bob"], shout(number)) for number in range(1, 4)), (None, shout(4))]
    assert b.bus.figures.envelopes_received == 2 and not b.bus.figures.gaps
    await until(lambda: a.bus.figures.published == 4, "a's publishes answered")
    assert a.bus.healthy and not a.bus.figures.dropped


@pytest.mark.parametrize("reader", ["hiredis", "read_response"])
async def test_an_error_among_a_turns_replies_fails_its_publish(redis_url, monkeypatch, reader):
    """The publisher reads one reply per PUBLISH it sent, and an error among them raises (the
    bus then counts the turn's letters lost and reconnects)."""
    if reader == "read_response":
        monkeypatch.setattr(redis_bus, "hiredis",
                            types.SimpleNamespace(Reader=type("Other", (), {})))
    client = redis.asyncio.Redis.from_url(redis_url)
    connection = await client.connection_pool.get_connection()
    try:
        publish = redis_bus._publish_command
        await connection.send_packed_command(publish("test:x", b"1") + publish("test:x", b"2"))
        await redis_bus._read_replies(connection, 2)
        await connection.send_packed_command(
            publish("test:x", b"1") + b"*1\r\n$7\r\nPUBLISH\r\n" + publish("test:x", b"3"))
        with pytest.raises(redis.ResponseError):
            await redis_bus._read_replies(connection, 3)
    finally:
        await connection.disconnect()
        await client.connection_pool.release(connection)
        await client.aclose()


async def test_a_killed_publishing_connection_is_replaced(private_redis, prefix, make_nodes):
    """The publisher keeps its connection from turn to turn: killed, it costs at most the
    letters in flight, and the next turns go out on a new one, in order."""
    a, b = await make_nodes(private_redis.url, prefix, "a", "b")
    a.bus.tell_all(shout(0))
    await until(lambda: b.got, "b hears a")
    admin = redis.asyncio.Redis.from_url(private_redis.url)
    try:
        assert await admin.client_kill_filter(_type="normal", skipme=True) >= 1
    finally:
        await admin.aclose()
    number = 1
    while not any(letter == shout(number - 1) for _, letter in b.got[1:]):
        a.bus.tell_all(shout(number))
        number += 1
        await until(lambda: a.bus.queued == 0, "a's turn published or dropped")
        assert number < 1000, "a never published again"
    numbers = [int(letter.text.split()[1]) for _, letter in b.got]
    assert numbers == sorted(numbers) and numbers[-1] == number - 1
    figures = a.bus.figures
    assert figures.published + figures.dropped_unsent == number
    assert b.bus.figures.reconnects == 0


async def test_bad_envelopes_are_dropped_and_the_bus_goes_on(redis_url, prefix, make_nodes):
    a, b = await make_nodes(redis_url, prefix, "a", "b")
    good = encode_envelope(Envelope("x", "run", 1, time.time(), ((None, shout(0, "x")),)))
    header, _, letter = good.partition(b"\n")
    bad = [b"", b"junk", b"\xff\xfe\n\xff", header, b"[1]\n" + letter, b"{}\n" + letter,
           header + b"\nnot a letter", header.replace(b'"seq":1', b'"seq":"1"') + b"\n" + letter,
           header.replace(b'"names":null', b'"names":"bob"') + b"\n" + letter,
           header.replace(b'"names":null', b'"names":[1]') + b"\n" + letter,
           good.replace(b'"kind":"shout"', b'"kind":"yell"'),
           *(header.replace(b'"names":null', b'"batch":' + batch) + b"\n" + letters
             for batch, letters in (
                 (b"[null]", b"[" + letter + b"]"),  # a batch of one
                 (b"[null,null]", b"[" + letter + b"]"),  # fewer letters than in the header
                 (b"[null,null]", b"[" + letter + b"," + letter + b"," + letter + b"]"),
                 (b'[null,"bob"]', b"[" + letter + b"," + letter + b"]"),
                 (b"[null,null]", letter + b"," + letter),
                 (b"[null,null]", b"[" + letter + b',{"letter":"said"}]'),
                 (b"[null,null]", b"[" + letter + b"," + letter.replace(
                     b'"kind":"shout"', b'"kind":"yell"') + b"]"),
                 (b"{}", b"[]")))]
    publisher = redis.asyncio.Redis.from_url(redis_url)
    try:
        for data in bad:
            await publisher.publish(a.bus.channel, data)
    finally:
        await publisher.aclose()
    b.refuse = "broken"  # a delivery that fails on the receiving node
    a.bus.tell_all(shout(1))
    a.bus.tell_all(Said("shout", "alice", "broken"))
    a.bus.tell_all(shout(2))
    await until(lambda: len(b.got) == 2, "b hears a after the bad envelopes")
    assert b.got == [(None, shout(1)), (None, shout(2))]
    assert (b.bus.figures.bad, a.bus.figures.bad) == (len(bad), len(bad))
    assert b.bus.subscribed and b.bus.figures.reconnects == 0


async def test_a_restarted_redis_is_resubscribed_and_resynced(private_redis, prefix,
                                                              make_nodes):
    a, b = await make_nodes(private_redis.url, prefix, "a", "b")
    await until(lambda: a.resyncs == b.resyncs == 1, "the first resync")
    talking = True

    async def traffic() -> None:
        number = 0
        while talking:
            a.bus.tell_all(shout(number))
            number += 1
            await asyncio.sleep(0.001)

    talker = asyncio.create_task(traffic())
    try:
        await until(lambda: len(b.got) > 20, "b hears a")
        private_redis.kill()
        # The subscriptions may see Redis gone before the publisher tries again (it sends
        # a letter a millisecond): then it drops at least the letters in flight.
        await until(lambda: not (a.bus.subscribed or b.bus.subscribed or a.bus.healthy)
                    and a.bus.figures.dropped_unsent > 0, "the buses see Redis gone")
        private_redis.start()  # the same port
        await until(lambda: a.resyncs == b.resyncs == 2, "both resync")
        assert a.bus.subscribed and b.bus.subscribed
        heard = len(b.got)
        await until(lambda: len(b.got) > heard + 20, "letters flow again")
    finally:
        talking = False
        await talker
    for node in (a, b):
        assert (node.bus.figures.subscriptions, node.bus.figures.reconnects) == (2, 1)
    await until(lambda: a.bus.healthy, "a publishes again")
    numbers = [int(letter.text.split()[1]) for _, letter in b.got if isinstance(letter, Said)]
    assert numbers == sorted(numbers)  # lost letters, never reordered ones


async def test_killed_subscriptions_are_resubscribed(private_redis, prefix, make_nodes):
    a, b = await make_nodes(private_redis.url, prefix, "a", "b")
    await until(lambda: a.resyncs == b.resyncs == 1, "the first resync")
    admin = redis.asyncio.Redis.from_url(private_redis.url)
    try:
        assert await admin.client_kill_filter(_type="pubsub") == 2
    finally:
        await admin.aclose()
    await until(lambda: a.resyncs == b.resyncs == 2, "both resync")
    a.bus.tell(["bob"], shout(1))
    await until(lambda: b.got, "b hears a again")
    b.bus.tell(["alice"], shout(2, "bob"))
    await until(lambda: len(a.got) == 2, "a hears b again")
    assert a.got == b.got == [(["bob"], shout(1)), (["alice"], shout(2, "bob"))]
    assert a.bus.figures.reconnects == b.bus.figures.reconnects == 1


async def test_a_quiet_redis_that_answers_pings_keeps_the_subscription(private_redis,
                                                                       prefix, make_nodes):
    """Silence makes the subscriber ping; Redis's answers keep it subscribed, however long
    nothing else comes, and a letter after the quiet arrives as before."""
    a, b = await make_nodes(private_redis.url, prefix, "a", "b", ping_interval=0.1)
    admin = redis.asyncio.Redis.from_url(private_redis.url)

    async def pings() -> int:
        stats = await admin.info("commandstats")
        return int(stats.get("cmdstat_ping", {}).get("calls", 0))

    try:
        first = await pings()

        async def pinged_often() -> bool:
            return await pings() >= first + 12  # a few silences each

        await until_async(pinged_often, "the subscribers ping through the quiet")
    finally:
        await admin.aclose()
    for node in (a, b):
        figures = node.bus.figures
        assert node.bus.subscribed and node.bus.carrying
        assert (figures.subscriptions, figures.reconnects) == (1, 0)
    a.bus.tell_all(shout(1))
    await until(lambda: b.got, "b hears a")
    assert b.got == [(None, shout(1))]


async def test_the_outgoing_queue_stays_bounded_while_redis_is_gone(private_redis, prefix,
                                                                    make_nodes):
    (a,) = await make_nodes(private_redis.url, prefix, "a", queue_limit=50)
    private_redis.kill()
    (late,) = await make_nodes(private_redis.url, prefix, "late", subscribed=False)
    for number in range(5000):  # no turn for the publisher: the queue fills
        a.bus.tell_all(shout(number))
    assert len(a.got) == 5000  # this node's users hear everything
    assert (a.bus.queued, a.bus.figures.dropped_queue_full) == (50, 4950)
    assert not a.bus.healthy
    for number in range(50):  # the publisher's turns: it finds Redis gone
        for _ in range(20):
            a.bus.tell_all(shout(number))
        await asyncio.sleep(0.002)
        assert a.bus.queued <= 50
    late.bus.tell_all(shout(0, "late"))  # a node started without Redis serves its users
    assert late.got == [(None, shout(0, "late"))] and late.resyncs == 0
    private_redis.start()
    await until(lambda: a.bus.healthy and a.bus.queued == 0 and late.resyncs == 1,
                "back to normal")
    assert late.bus.subscribed and late.bus.figures.reconnects == 0
    after = Said("shout", "alice", "after the outage")
    a.bus.tell_all(after)
    await until(lambda: late.got[-1] == (None, after), "late hears a")


async def test_stale_letters_are_dropped_not_published_late(private_redis, prefix,
                                                            make_nodes):
    a, b = await make_nodes(private_redis.url, prefix, "a", "b", stale_after=0.05)
    private_redis.kill()
    await until(lambda: not a.bus.subscribed, "a sees Redis gone")
    a.bus.tell_all(shout(1))
    queued_at = time.monotonic()
    await until(lambda: time.monotonic() - queued_at > 0.1, "the letter goes stale")
    private_redis.start()
    await until(lambda: a.bus.healthy and b.bus.subscribed, "back")
    a.bus.tell_all(shout(2))
    await until(lambda: b.got, "b hears a")
    assert b.got == [(None, shout(2))]
    assert a.bus.figures.dropped_unsent >= 1


NAPS = 150  # measured while the flood goes on (1.5 s on a quiet machine)
NAP = 0.01


def flood(url: str, prefix: str, stop: multiprocessing.synchronize.Event,
          addressed: bool) -> None:
    """Another node telling everyone (or, `addressed`, a user of node b, on b's own channel)
    as fast as it can until `stop` (in a process of its own, so that its work is not the
    receiving node's)."""
    async def flooding() -> None:
        bus = RedisBus(url, "flooder", lambda names, letter: None, prefix=prefix,
                       locate=lambda name: "b")
        await bus.start()
        await bus.until_subscribed()
        letter = Said("shout", "flooder", "x" * 60)
        while not stop.is_set():
            for _ in range(200):
                if addressed:
                    bus.tell(["bob"], letter)
                else:
                    bus.tell_all(letter)
            await asyncio.sleep(0)
        await bus.stop(flush_timeout=0)

    asyncio.run(flooding())


@pytest.mark.parametrize("addressed", [False, True], ids=["shared channel", "own channel"])
async def test_a_flood_from_another_node_leaves_the_loop_free(redis_url, prefix, make_nodes,
                                                              addressed):
    (b,) = await make_nodes(redis_url, prefix, "b")
    context = multiprocessing.get_context("spawn")
    # Until the naps are measured, not for a set time: a busy machine may take long to start it.
    stop = context.Event()
    flooder = context.Process(target=flood, args=(redis_url, prefix, stop, addressed))
    flooder.start()
    flooding = asyncio.ensure_future(asyncio.to_thread(flooder.join))
    try:
        await until(lambda: len(b.got) > 100 or flooding.done(), "the flood arrives")
        heard = len(b.got)
        # The loop thread's CPU time over each nap: what the loop did before it woke the
        # napper. Unlike the wall clock, it does not grow when the machine (three test workers,
        # the flooder and Redis on two cores) gives this process no core for a while; it grows
        # only if the loop works on through the nap's end instead of giving the napper its turn.
        worked: list[float] = []
        while len(worked) < NAPS and not flooding.done():
            asleep = time.thread_time()
            await asyncio.sleep(NAP)
            worked.append(time.thread_time() - asleep)
        during = len(b.got) - heard
    finally:
        stop.set()
        await flooding
    assert flooder.exitcode == 0
    assert len(worked) == NAPS, f"the flooder stopped early: {len(worked)} naps"
    assert during > 1000, f"only {during} letters arrived while measuring"
    # The nap's 10 ms of work and a few milliseconds more (the slice under way and redis-py's
    # parsing: 15 ms on the 2-core machine); a loop that served whole reads of the flood
    # without a turn between would show here.
    assert statistics.median(worked) < 2 * NAP, \
        f"median {statistics.median(worked) * 1000:.1f} ms of work a nap"
    long_naps = sum(work > 0.05 for work in worked) / len(worked)
    assert long_naps < 0.1, f"{long_naps:.0%} of the naps held the loop over 50 ms"
