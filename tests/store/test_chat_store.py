"""The ChatRecords part of SqlStore: messages, gags and blinds, bans and mutes, the moderation
log and the message of the day, on SQLite and PostgreSQL."""
import pytest

from fibs_server.lobby.ports.chat_records import Arrival, ModerationEntry, Sanction, StoredMessage
from fibs_server.store import downgrade_database_async
from tests.store.conftest import START_TIME
from tests.store.test_migrations import table_names

CHAT_TABLES = {"messages", "ignores", "sanctions", "moderation_log", "server_texts"}


async def test_messages_are_kept_in_order_and_handed_over_once(store, players):
    await store.save_message("BOB", "alice", "first")
    await store.save_message("bob", "carol", "  second,  spaced")
    await store.save_message("carol", "alice", "for carol")

    assert (await store.arrive("Bob")).messages == [
        StoredMessage("alice", START_TIME, "first"),
        StoredMessage("carol", START_TIME + 1, "  second,  spaced")]
    assert (await store.arrive("bob")).messages == []
    assert [m.text for m in (await store.arrive("carol")).messages] == ["for carol"]


async def test_arriving_brings_gags_blinds_mute_and_messages(store, players):
    await store.set_ignored("alice", "gag", "carol", True)
    await store.set_ignored("alice", "gag", "bob", True)
    await store.set_ignored("alice", "blind", "bob", True)
    await store.set_ignored("bob", "blind", "carol", True)
    await store.add_sanction(Sanction("mute", "alice", None, None, "root"))
    await store.save_message("alice", "bob", "hi")

    assert await store.arrive("ALICE") == Arrival(
        gagged=["bob", "carol"], blinded=["bob"], muted=True,
        messages=[StoredMessage("bob", START_TIME + 1, "hi")])
    assert await store.arrive("bob") == Arrival([], ["carol"], False, [])


async def test_a_message_for_an_unknown_account_is_refused(store, players):
    with pytest.raises(LookupError):
        await store.save_message("nobody", "alice", "hello")


async def test_gags_and_blinds_are_kept_per_kind_and_lifted(store, players):
    await store.set_ignored("alice", "gag", "CAROL", True)
    await store.set_ignored("alice", "gag", "bob", True)
    await store.set_ignored("alice", "gag", "bob", True)  # twice is once
    await store.set_ignored("alice", "blind", "bob", True)

    assert await store.ignored_names("Alice", "gag") == ["bob", "carol"]
    assert await store.ignored_names("alice", "blind") == ["bob"]
    assert await store.ignored_names("bob", "gag") == []

    await store.set_ignored("alice", "gag", "bob", False)
    await store.set_ignored("alice", "gag", "bob", False)
    assert await store.ignored_names("alice", "gag") == ["carol"]
    with pytest.raises(LookupError):
        await store.set_ignored("alice", "gag", "nobody", True)


async def test_bans_match_name_or_address_until_they_end(store, players):
    # The store's clock reads START_TIME + n on its n-th reading: an end 1000 s ahead is in force.
    await store.add_sanction(Sanction("ban", "Bob", "10.0.0.7", START_TIME + 1000, "alice"))
    await store.add_sanction(Sanction("ban", "carol", None, START_TIME, "alice"))  # over

    by_name = await store.active_sanction("ban", "bob", None)
    assert by_name == Sanction("ban", "Bob", "10.0.0.7", START_TIME + 1000, "alice")
    assert await store.active_sanction("ban", "dave", "10.0.0.7") == by_name
    assert await store.active_sanction("ban", "dave", "10.0.0.8") is None
    assert await store.active_sanction("ban", "carol", None) is None
    assert await store.active_sanction("mute", "bob", None) is None

    await store.add_sanction(Sanction("ban", "bob", None, None, "alice"))
    assert (await store.active_sanction("ban", "bob", None)).until is None  # for good wins

    assert await store.lift_sanctions("ban", "BOB", "alice") == 2
    assert await store.active_sanction("ban", "bob", "10.0.0.7") is None


async def test_mutes_are_sanctions_of_their_own_kind(store, players):
    await store.add_sanction(Sanction("mute", "bob", None, None, "alice"))
    assert (await store.active_sanction("mute", "bob", None)).kind == "mute"
    assert await store.active_sanction("ban", "bob", None) is None
    assert await store.lift_sanctions("mute", "bob", "alice") == 1


async def test_erasing_an_account_takes_its_matches_messages_and_ignores(store, players):
    match_id = await store.create_match("alice", "bob", 5, {"score": [0, 0]})
    await store.finish_match(match_id, {"score": [5, 0]}, "alice", [])
    await store.create_match("bob", "carol", 3, {"score": [0, 0]})
    await store.save_message("bob", "carol", "hi")
    await store.save_message("carol", "bob", "hi")
    await store.set_ignored("bob", "gag", "carol", True)
    await store.set_ignored("carol", "blind", "bob", True)

    assert await store.erase_account("Bob", "alice") is True
    assert await store.find_account("bob") is None
    assert await store.running_matches("carol") == []
    assert await store.finished_matches("alice", 10) == []
    assert await store.ignored_names("carol", "blind") == []
    assert [m.text for m in (await store.arrive("carol")).messages] == ["hi"]  # bob's words stay
    assert await store.erase_account("bob", "alice") is False


async def test_every_moderation_action_is_logged_with_its_admin(store, players):
    await store.add_sanction(Sanction("ban", "bob", "10.0.0.7", None, "alice"))
    await store.lift_sanctions("ban", "bob", "alice")
    await store.add_sanction(Sanction("mute", "carol", None, START_TIME + 99, "alice"))
    await store.log_moderation("alice", "kick", "carol", "")
    await store.set_motd(("Welcome", "Be nice"), "alice")
    await store.erase_account("carol", "alice")

    log = await store.moderation_log(10)
    assert [(e.action, e.target, e.detail) for e in log] == [
        ("erase", "carol", ""),
        ("motd", "-", "Welcome | Be nice"),
        ("kick", "carol", ""),
        ("mute", "carol", f"until {START_TIME + 99}"),
        ("unban", "bob", "1 lifted"),
        ("ban", "bob", "address 10.0.0.7 for good"),
    ]
    assert all(e.admin == "alice" for e in log)
    assert log[-1] == ModerationEntry(START_TIME, "alice", "ban", "bob",
                                      "address 10.0.0.7 for good")
    assert len(await store.moderation_log(2)) == 2


async def test_the_motd_is_none_until_set_and_then_replaced(store):
    assert await store.stored_motd() is None
    await store.set_motd(("one",), "root")
    await store.set_motd(("two", "lines"), "root")
    assert await store.stored_motd() == ("two", "lines")


async def test_downgrading_to_0001_drops_only_the_chat_tables(database_url):
    from fibs_server.store import upgrade_database_async

    await upgrade_database_async(database_url)
    assert CHAT_TABLES <= await table_names(database_url)
    await downgrade_database_async(database_url, "0001")
    tables = await table_names(database_url)
    assert tables & CHAT_TABLES == set() and {"accounts", "matches"} <= tables
