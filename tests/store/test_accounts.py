import asyncio

import pytest

from fibs_server.lobby.ports.accounts import (
    NOTHING_KEPT,
    SETTING_DEFAULTS,
    TOGGLE_DEFAULTS,
    Account,
    KeptForLogin,
    NameTaken,
)
from fibs_server.lobby.ports.chat_records import Sanction


def account(name: str, **fields) -> Account:
    return Account(name=name, password_hash=b"$2b$04$" + name.encode(), **fields)


async def test_a_created_account_is_found_in_any_letter_case(store):
    created = account("MarvinTheRobot", email="marvin@example.org", created_at=1_600_000_000,
                      is_admin=True)
    await store.create_account(created)

    for spelling in ["MarvinTheRobot", "marvintherobot", "MARVINTHEROBOT"]:
        assert await store.find_account(spelling) == created


async def test_a_new_account_has_fibs_defaults(store):
    await store.create_account(account("newbie"))
    found = await store.find_account("newbie")
    assert (found.rating, found.experience) == (1500.0, 0)
    assert found.toggles == TOGGLE_DEFAULTS
    assert found.settings == SETTING_DEFAULTS
    assert (found.email, found.last_login_at, found.is_admin) == (None, None, False)


async def test_an_unknown_name_finds_nothing(store):
    await store.create_account(account("alice"))
    assert await store.find_account("alicia") is None


async def test_toggles_and_settings_missing_from_a_stored_account_read_as_defaults(store):
    # As for an account saved before those toggles and settings existed.
    await store.create_account(account("oldtimer"))
    await store.update_account("oldtimer", toggles={"ready": True}, settings={"timezone": "CET"})

    found = await store.find_account("oldtimer")
    assert found.toggles == dict(TOGGLE_DEFAULTS, ready=True)
    assert found.settings == dict(SETTING_DEFAULTS, timezone="CET")


@pytest.mark.parametrize("duplicate", ["alice", "Alice", "ALICE"])
async def test_a_name_taken_in_any_letter_case_is_refused(store, duplicate):
    await store.create_account(account("alice"))
    with pytest.raises(NameTaken):
        await store.create_account(account(duplicate))
    assert (await store.find_account("alice")).name == "alice"


async def test_of_racing_registrations_of_one_name_exactly_one_wins(store):
    spellings = ["racer", "Racer", "RACER", "rAcEr", "racer"]
    results = await asyncio.gather(*(store.create_account(account(name)) for name in spellings),
                                   return_exceptions=True)
    assert results.count(None) == 1
    assert all(isinstance(result, NameTaken) for result in results if result is not None)


async def test_concurrent_registrations_of_different_names_all_succeed(store):
    names = [f"player_{number}" for number in range(10)]
    await asyncio.gather(*(store.create_account(account(name)) for name in names))
    assert [found.name for found in await store.rated_accounts(0)] == sorted(names)


async def test_updates_persist_toggles_settings_email_password_and_login_times(store):
    await store.create_account(account("alice"))
    toggles = dict(TOGGLE_DEFAULTS, ready=True, bell=True, telnet=False)
    settings = dict(SETTING_DEFAULTS, boardstyle="2", timezone="Europe/Berlin")

    await store.update_account("ALICE", toggles=toggles, settings=settings,
                               email="alice@example.org", password_hash=b"new-hash",
                               last_login_at=1_700_000_100, last_login_host="host.example")
    await store.update_account("alice", last_logout_at=1_700_000_200)

    found = await store.find_account("alice")
    assert found.toggles == toggles
    assert found.settings == settings
    assert found.email == "alice@example.org"
    assert found.password_hash == b"new-hash"
    assert (found.last_login_at, found.last_login_host, found.last_logout_at) == (
        1_700_000_100, "host.example", 1_700_000_200)


async def test_an_update_changes_only_the_named_account(store):
    await store.create_account(account("alice"))
    await store.create_account(account("bob"))
    await store.update_account("alice", rating=1612.5, experience=33, is_admin=True)

    alice, bob = await store.find_account("alice"), await store.find_account("bob")
    assert (alice.rating, alice.experience, alice.is_admin) == (1612.5, 33, True)
    assert (bob.rating, bob.experience, bob.is_admin) == (1500.0, 0, False)


# (`name` cannot even be passed: it is the first parameter.)
@pytest.mark.parametrize("field", ["created_at", "no_such_field"])
async def test_fields_outside_updatable_fields_are_rejected_and_nothing_changes(store, field):
    await store.create_account(account("alice"))
    before = await store.find_account("alice")
    with pytest.raises(ValueError, match=field):
        await store.update_account("alice", email="changed@example.org", **{field: "x"})
    assert await store.find_account("alice") == before


async def test_updating_an_unknown_account_raises_lookup_error(store):
    with pytest.raises(LookupError):
        await store.update_account("nobody", email="nobody@example.org")


async def test_rated_accounts_are_best_first_ties_by_name_and_filtered_by_experience(store):
    for name, rating, experience in [("dave", 1700.0, 50), ("Carol", 1650.25, 20),
                                     ("bob", 1650.25, 400), ("erin", 1800.0, 4),
                                     ("alice", 1500.0, 5)]:
        await store.create_account(account(name, rating=rating, experience=experience))

    assert [found.name for found in await store.rated_accounts(5)] == [
        "dave", "bob", "Carol", "alice"]
    assert [found.name for found in await store.rated_accounts(50)] == ["dave", "bob"]
    assert [found.name for found in await store.rated_accounts(0)][0] == "erin"
    assert await store.rated_accounts(1000) == []


async def test_what_a_login_reads_is_asked_for_only_where_the_store_keeps_some(store, players):
    """`kept_for_login`, one read: a kind is False only if nothing of it is kept (a mute
    counts, over or not: `arrive` tells); names as spelt, as the login has them."""
    assert await store.kept_for_login("alice") == NOTHING_KEPT
    chat_only = KeptForLogin(chat=True, tournaments=False, matches=False)
    await store.save_message("alice", "bob", "hi")
    assert await store.kept_for_login("alice") == chat_only
    await store.arrive("alice")  # handed over
    assert await store.kept_for_login("alice") == NOTHING_KEPT
    await store.set_ignored("bob", "blind", "carol", True)
    await store.add_sanction(Sanction("mute", "carol", None, 0, "root"))  # over long ago
    assert await store.kept_for_login("bob") == chat_only
    assert await store.kept_for_login("carol") == chat_only
    match_id = await store.create_match("alice", "bob", 3, {"score": [0, 0]})
    assert await store.kept_for_login("alice") == KeptForLogin(False, False, True)
    assert (await store.kept_for_login("bob")).matches
    await store.finish_match(match_id, {"score": [3, 0]}, "alice", [])
    assert await store.kept_for_login("alice") == NOTHING_KEPT
