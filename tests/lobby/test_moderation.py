"""Moderation meeting a login in the lobby: what an admin does to a user while that user's
login is still loading their stored state is not undone by the login."""
from __future__ import annotations

import asyncio

from fibs_server import command_tables
from fibs_server.lobby.ports.accounts import Account
from fibs_server.protocol import chat
from tests.lobby.recording import RecordingConnection, logged_in, recording_lobby


async def test_a_mute_given_while_the_login_reads_the_stored_one_stays(tmp_path):
    lobby, store = await recording_lobby(tmp_path)
    lobby.dispatcher.add_commands(command_tables.chat(lobby.owners))
    lobby.dispatcher.add_commands(command_tables.admin(lobby.owners))
    await lobby.accounts.create_account(Account(name="warden", password_hash=b"-", is_admin=True))
    warden = lobby.connect(RecordingConnection())
    warden.out.prompts = False
    await lobby.log_in(warden, await lobby.accounts.find_account("warden"))
    await lobby.accounts.create_account(Account(name="bob", password_hash=b"-"))
    # A message kept for bob: his login reads his stored chat (a login with nothing kept
    # reads none, and has no read for a mute to meet).
    await lobby.chat_records.save_message("bob", "warden", "welcome back")

    # bob's login reads his stored chat state (not muted) and is held there.
    reading, release = asyncio.Event(), asyncio.Event()
    arrive = lobby.chat_records.arrive

    async def held_arrive(name: str):
        arrival = await arrive(name)
        reading.set()
        await release.wait()
        return arrival
    lobby.chat_records.arrive = held_arrive  # type: ignore[method-assign]
    bob = lobby.connect(RecordingConnection())
    bob.out.prompts = False
    logging_in = asyncio.ensure_future(lobby.log_in(bob, await lobby.accounts.find_account("bob")))
    await reading.wait()
    await lobby.dispatch(warden, "mute bob")
    release.set()
    await logging_in
    assert lobby.chat_state.muted("bob")
    # Nobody hears his shouts: the mute holds.
    listener, heard = await logged_in(lobby, "carol")
    await lobby.dispatch(bob, "shout hello?")
    assert not any("hello?" in line for line in heard.lines())
    assert chat.you_shout(bob.out.clip, "hello?") in bob.connection.lines()  # type: ignore[attr-defined]
    await store.close()
