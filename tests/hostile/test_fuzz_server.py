"""Random and mutated command lines through real sessions of the running server (in process,
without sockets, so that hypothesis can try hundreds): every command answers with well-formed
lines, and nothing fails inside the server."""
from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fibs_server.lobby.presence.session import Stage
from tests.hostile.conftest import SERVER_FAILURE, WELL_FORMED_OUTPUT, log_in_process
from tests.hostile.test_fuzz_protocol import LINES, PRINTABLE, WORDS

NAMES = ["alice", "bob", "carol", "nobody", "ali", "b"]
ARGUMENT = st.one_of(st.sampled_from(WORDS + NAMES), st.text(PRINTABLE, max_size=8),
                     st.integers(-3, 120).map(str))


class World:
    """One server for all of hypothesis's examples (the fixture outlives them on purpose:
    state left by one example is more input for the next), with alice and bob online."""

    def __init__(self, lobby) -> None:
        self.lobby = lobby
        self.sessions: dict = {}

    async def online(self, name: str):
        session, _ = self.sessions.get(name, (None, None))
        if session is None or session.stage is not Stage.ONLINE:
            self.sessions[name] = await log_in_process(self.lobby, name)
        return self.sessions[name]


@pytest.fixture
async def world(make_harness):
    harness = await make_harness()
    for name in ("alice", "bob", "carol"):
        await harness.server.lobby.gatekeeper.register(name, "secret", "127.0.0.1")
    return World(harness.server.lobby)


@settings(max_examples=250,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(data=st.data())
async def test_every_command_with_random_arguments(world, tracebacks, data):
    lobby = world.lobby
    alice, bob = [(await world.online(name))[0] for name in ("alice", "bob")]
    if lobby.match_table.match_of(alice) is None:  # a match to act on, when the last example ended it
        for session in (alice, bob):
            if not session.prefs.toggle("ready"):
                await lobby.dispatch(session, "toggle ready")
        await lobby.dispatch(alice, "invite bob 3")
        await lobby.dispatch(bob, "join alice")
    words = lobby.dispatcher.command_words
    names = sorted({*words, *words.aliases, *words.short_forms})
    for _ in range(data.draw(st.integers(1, 6))):
        session, _ = await world.online(data.draw(st.sampled_from(["alice", "bob"])))
        line = data.draw(st.one_of(
            st.tuples(st.sampled_from(names), st.lists(ARGUMENT, max_size=4)).map(
                lambda pair: " ".join([pair[0], *pair[1]])),
            LINES))
        await session.incoming.handle_line(line)
        for name in ("alice", "bob"):
            output = world.sessions[name][1].take()
            assert SERVER_FAILURE not in output, (line, output)
            assert WELL_FORMED_OUTPUT.fullmatch(output), (line, output)
    assert not tracebacks()

