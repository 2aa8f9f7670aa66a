"""Every in-match command answers the same on one node and across two: the same match, with
the same dice and the same lines typed, is played once with both players on node a, and once
with the joiner at home on node b (the match runs on a, the inviter's node); what each
player reads is compared line for line (names and the match's number aside). Each command
declared forwarded to the match's node (protocol/commands.py `Forwarding`) is typed at least
once. Without PostgreSQL or Redis: skipped with the reason (in CI they always run)."""
from __future__ import annotations

import re

from fibs_server.protocol.commands import Forwarding
from fibs_server.rules.board.notation import format_play
from tests.e2e.client import FibsClient
from tests.e2e.conftest import ServerHarness
from tests.e2e.test_nodes import running_nodes
from tests.redis_server import prefix, redis_url  # noqa: F401 (fixtures)

# What `pip` answers, the mark after each line typed: in a match, out of one, or without
# `allowpip`. Whatever came before it is that line's doing.
PIP_ANSWER = re.compile(r"Pipcounts: O-\d+ X-\d+|\*\* You're not playing\.|"
                        r"\*\* Type 'toggle allowpip' first\.")
# Who-lines, logins and logouts come whenever someone's state changes, not in turn.
UNORDERED = re.compile(r"[5678]( .*)?")
# What others say comes through the bus between nodes, in its own order: compared apart.
SAID = re.compile(r"1[2-5] .*")
OPENING, REPLY, SECOND_OPENING = (3, 1), (6, 5), (4, 2)  # (inviter's die, joiner's die)
# Typed by the joiner (J) or the inviter (I) once the match runs; PLAY: a legal play of the
# dice just rolled, as the server lists it.
PLAY = "<play>"
SCRIPT = [
    ("I", "move 8-5 6-5"), ("J", "roll"), ("J", PLAY), ("I", "double"), ("J", "accept"),
    ("I", "look bob"), ("I", "oldboard"),
    *(("J", line) for line in (
        "board", "rawboard", "pip", "oldboard", "oldmoves", "look alice", "look bob",
        "fairdice", "salt pepper", "tutor on", "undo", "unwatch", "off", "redouble", "beaver", "raccoon", "otter",
        "reject", "say good luck", "kibitz nice", "whisper hm", "join", "move 1-2", "double",
        "roll")),
    ("I", "resign n"), ("J", "reject"), ("I", "resign n"), ("J", "accept"),
    ("J", "oldmoves"), ("J", "oldboard"), ("J", "board"), ("I", "look bob"), ("J", "leave"),
    ("J", "board"),  # typed as the match stops on its node: answered all the same
]
# What the inviter hears said (whispers reach watchers only, and there are none).
INVITER_HEARS_SAID = ["12 bob good luck", "15 bob nice"]


async def marked(client: FibsClient, said: list[str], answers: int = 1) -> list[str]:
    """The lines up to the answer to a `pip` typed now (the `answers`th answer of `pip`'s
    kind: `pip` typed before gives one too), but the unordered ones and what others said
    (added to `said`)."""
    await client.send("pip")
    lines: list[str] = []
    while answers:
        line = await client.read_line()
        answers -= bool(PIP_ANSWER.fullmatch(line))
        if SAID.fullmatch(line):
            said.append(line)
        elif not UNORDERED.fullmatch(line):
            lines.append(line)
    return lines


async def all_said(client: FibsClient, said: list[str], count: int) -> None:
    """What is said to `client` read into `said` until it holds `count` lines."""
    while len(said) < count:
        if SAID.fullmatch(line := await client.read_line()):
            said.append(line)


async def transcript(host: ServerHarness, inviter: FibsClient, joiner: FibsClient,
                     names: tuple[str, str]) -> list[tuple[str, list[str], list[str]]]:
    """The script played by `inviter` and `joiner` (called `names`) on `host`'s match: each
    line typed, with what the inviter and the joiner read after it, in alice's and bob's
    names and the match's number as `#`."""
    host.script_dice(OPENING, REPLY, SECOND_OPENING)
    for client in (inviter, joiner):
        await client.send("toggle ready")
    await inviter.skip_until(re.compile(rf"5 {names[1]} - - 1 .*"))
    await inviter.send(f"invite {names[1]} 3")
    await joiner.skip_until(f"Type 'join {names[0]}' to accept.")
    await joiner.send(f"join {names[0]}")
    said: dict[FibsClient, list[str]] = {inviter: [], joiner: []}
    for client in (inviter, joiner):
        await marked(client, said[client])
    assert host.server is not None and host.server.lobby is not None
    lobby = host.server.lobby
    match_id = lobby.match_table.playing[names[0]].match_id

    def ours(line: str) -> str:
        for name, our_name in zip(names, ("alice", "bob")):
            line = line.replace(name, our_name)
        return re.sub(rf"\bmatch {match_id}\b", "match #", line)

    heard = []
    for who, line in SCRIPT:
        typist = inviter if who == "I" else joiner
        if line == PLAY:
            running = lobby.match_table.playing[names[1]]
            line = "move " + format_play(running.match.legal_plays()[0],
                                         running.match.colour(1))
        await typist.send(line.replace("alice", names[0]).replace("bob", names[1]))
        # The typist's mark first: what the line told the other was told before it.
        typed = await marked(typist, said[typist], 2 if line == "pip" else 1)
        other_client = joiner if typist is inviter else inviter
        other = await marked(other_client, said[other_client])
        inviter_read, joiner_read = (typed, other) if typist is inviter else (other, typed)
        heard.append((f"{who}: {line}", [ours(text) for text in inviter_read],
                      [ours(text) for text in joiner_read]))
    await all_said(inviter, said[inviter], len(INVITER_HEARS_SAID))
    assert [ours(line) for line in said[inviter]] == INVITER_HEARS_SAID and not said[joiner]
    return heard


async def test_every_in_match_command_answers_the_same_across_two_nodes(
        postgresql_url, redis_url, prefix):  # noqa: F811 (fixtures)
    async with running_nodes(postgresql_url, redis_url, prefix) as (a, b):
        for name in ("alice", "bob", "carol", "dave"):
            await a.register(name)
        alice, bob = await a.login_clip("alice"), await a.login_clip("bob")
        on_one_node = await transcript(a, alice, bob, ("alice", "bob"))
        carol, dave = await a.login_clip("carol"), await b.login_clip("dave")
        across_two = await transcript(a, carol, dave, ("carol", "dave"))
        assert a.server is not None
        declared = a.server.lobby.dispatcher.commands
    for one, two in zip(on_one_node, across_two):
        assert one == two
    typed = {line.split()[1] for line, _, _ in on_one_node}
    forwarded = {name for name, command in declared.items()
                 if command.facts.forwarded is not Forwarding.HOME}
    assert forwarded - {"toggle", "set"} <= typed, forwarded - typed
    # The script did what it says.
    steps = dict((line, (inviter, joiner)) for line, inviter, joiner in on_one_node)
    assert steps["J: oldboard"][1][0].startswith("board:You:alice:3:2:0:")  # the last one
    assert steps["J: oldmoves"][1][-2] == "X: wins"
    assert steps["I: look bob"][0][0].startswith("board:bob:alice:3:2:")
    assert steps["J: leave"][0][0] == "** Player bob has left the game. The game was saved."
