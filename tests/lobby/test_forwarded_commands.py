"""Every command that reads or changes a running match is declared forwarded to the node
hosting the match (protocol/commands.py `Forwarding`): bob, at home on node b, plays alice on
node a; each command answered at home, typed by him, must not look for his match there (it
runs elsewhere: `oldboard` once answered `** You're not playing.` so)."""
from __future__ import annotations

import contextlib
import copy
from collections.abc import Iterator

from fibs_server import command_tables
from fibs_server.lobby.lobby import Lobby
from fibs_server.lobby.presence.session import Session
from fibs_server.protocol.commands import Forwarding, resolve
from tests.lobby.test_nodes import Wire
from tests.lobby.test_seats import lobby_on, settled, two_players

# Not typed: they log out (`wave` the second time), and a logout's hooks look for a match
# here to save (one on another node is saved by its host, told of the logout).
LEAVING = ("bye", "wave")


def every_table(lobby: Lobby) -> None:
    """The commands the lobby lacks of every command module's, made from its owners (the
    analyses and tournaments on its store; no bots: `bot` fails, answered as any handler's
    failure), without their login hooks."""
    owners, store = lobby.owners, lobby.match_store
    for table in [*command_tables.lobby_tables(owners), command_tables.bots(owners, None),
                  command_tables.analysis(owners, store, None),
                  command_tables.tournaments(owners, store, None)]:
        if not table.commands.keys() <= lobby.dispatcher.commands.keys():
            commands_only = copy.copy(table)
            commands_only.login_hooks = []
            lobby.dispatcher.add_commands(commands_only)


@contextlib.contextmanager
def looks_for_the_match_of(lobby: Lobby, player: Session) -> Iterator[list[int]]:
    """Counts how often the lobby's match table is asked for `player`'s match, but by the
    table's own answers that know of matches on other nodes: `busy` (a seated player plays,
    and is refused as a player) and `opponent_name_of` (whom they play, for who-lines)."""
    table, asked = lobby.match_table, [0]
    match_of, busy, opponent_name_of = table.match_of, table.busy, table.opponent_name_of

    def counted_match_of(session: Session):  # type: ignore[no-untyped-def]
        asked[0] += session is player
        return match_of(session)

    def uncounted(answer):  # type: ignore[no-untyped-def]
        def without_counting(session: Session):  # type: ignore[no-untyped-def]
            before = asked[0]
            try:
                return answer(session)
            finally:
                asked[0] = before
        return without_counting

    table.match_of = counted_match_of  # type: ignore[method-assign]
    table.busy, table.opponent_name_of = uncounted(busy), uncounted(opponent_name_of)  # type: ignore[method-assign]
    try:
        yield asked
    finally:
        table.match_of, table.busy, table.opponent_name_of = (  # type: ignore[method-assign]
            match_of, busy, opponent_name_of)


async def test_every_command_that_reads_or_changes_a_match_is_forwarded(tmp_path):
    wire = Wire()
    a, b = await lobby_on(tmp_path, wire, "a"), await lobby_on(tmp_path, wire, "b")
    for lobby in (a, b):
        every_table(lobby)
    alice, _, bob, _ = await two_players(a, b)
    await a.dispatch(alice, "invite bob 3")
    await b.dispatch(bob, "join alice")
    await settled(a, b)
    assert bob.place.seated_elsewhere is not None and a.match_table.match_of(alice) is not None

    with looks_for_the_match_of(b, bob) as asked:  # what it looks for, were one answered here
        await b.dispatcher.commands["oldboard"].handler(bob, resolve("oldboard", b.dispatcher.command_words))
    assert asked[0]

    answered_at_home = []
    for name in sorted(set(b.dispatcher.commands) - set(LEAVING)):
        facts = b.dispatcher.commands[name].facts
        for line in (name, f"{name} alice"):
            if facts.at_host(resolve(line, b.dispatcher.command_words)):
                continue
            with looks_for_the_match_of(b, bob) as asked:
                await b.dispatch(bob, line)
                await settled(a, b)
            if asked[0] and facts.forwarded is not Forwarding.COPIED:
                answered_at_home.append(line)
    assert not answered_at_home, f"look for a match at home, where it does not run: " \
                                 f"{answered_at_home}"
    assert a.match_table.match_of(alice) is not None  # nothing typed at home changed it
