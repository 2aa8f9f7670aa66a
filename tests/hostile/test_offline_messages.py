"""Messages kept for offline users are bounded: per recipient, per sender and
recipient, and in length, each refused with a `** ` text naming the limit."""
from __future__ import annotations

from fibs_server.lobby.limits.throttle import AbuseLimits


async def test_messages_waiting_are_capped_per_sender_and_per_recipient(make_harness, tracebacks):
    harness = await make_harness(abuse=AbuseLimits(messages_per_recipient=5,
                                                   messages_per_sender=3))
    for name in ("alice", "bob", "carol"):
        await harness.register(name)
    bob = await harness.login_clip("bob")
    carol = await harness.login_clip("carol")
    await bob.skip_until("7 carol carol logs in.")
    await bob.skip_until("6")
    for number in range(3):
        await bob.send(f"message alice from bob {number}")
        await bob.expect_lines("11 alice")
    await bob.send("message alice one too many")
    await bob.expect_lines("** You already left 3 messages for alice. Please wait until "
                           "alice has read them.")
    for number in range(2):
        await carol.send(f"message alice from carol {number}")
        await carol.expect_lines("11 alice")
    await carol.send("message alice the box is full")
    await carol.expect_lines("** alice has 5 messages waiting already. Please try again later.")
    alice = await harness.connect("alice")
    await alice.send("login testclient 1008 alice secret")
    await alice.skip_until("6")
    received = [(await alice.read_line()).split(" ", 3) for _ in range(5)]
    assert [(sender, text) for _, sender, _, text in received] == [
        ("bob", "from bob 0"), ("bob", "from bob 1"), ("bob", "from bob 2"),
        ("carol", "from carol 0"), ("carol", "from carol 1")]
    await alice.expect_silence()
    # Read, they no longer count: bob may leave messages again.
    await alice.send("bye")
    await alice.expect_closed()
    harness.clients.remove(alice)
    await bob.send("message alice again")
    await bob.skip_until("11 alice")


async def test_a_message_over_the_length_limit_is_refused_online_or_not(make_harness, tracebacks):
    harness = await make_harness(abuse=AbuseLimits(max_message_length=500))
    for name in ("alice", "bob", "carol"):
        await harness.register(name)
    bob = await harness.login_clip("bob")
    await bob.send("message alice " + "x" * 501)
    await bob.expect_lines("** Your message is too long: at most 500 characters, please.")
    await bob.send("message alice " + "x" * 500)
    await bob.expect_lines("11 alice")
    carol = await harness.login_clip("carol")
    await bob.skip_until("7 carol carol logs in.")
    await bob.skip_until("6")
    await bob.send("message carol " + "y" * 501)
    await bob.expect_lines("** Your message is too long: at most 500 characters, please.")
    await carol.expect_silence()


def test_the_default_message_limits():
    limits = AbuseLimits()
    assert (limits.messages_per_recipient, limits.messages_per_sender,
            limits.max_message_length) == (50, 10, 500)
