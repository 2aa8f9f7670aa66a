"""The analysis queue and results in the store: bounded, per match and level once, queued
by the transaction that finishes a match, and taken up again after a restart."""
from __future__ import annotations

from fibs_server.lobby.ports.accounts import Account
from fibs_server.lobby.ports.analysis_records import Outcome, QueueLimits, Status
from fibs_server.store import SqlStore, upgrade_database_async
from tests.store.test_matches import STATE

LIMITS = QueueLimits(waiting=3, waiting_per_user=2)
RESULT = {"plies": 2, "decisions": [], "players": [{"player": 0}, {"player": 1}]}


async def finished_match(store, a="alice", b="bob") -> int:
    match_id = await store.create_match(a, b, 3, STATE)
    await store.finish_match(match_id, STATE, a, [])
    return match_id


async def test_a_request_is_queued_once_and_run_in_order_users_first(store, players):
    automatic, asked = await finished_match(store), await finished_match(store)
    assert await store.request_analysis(automatic, 2, None, LIMITS) is Outcome.QUEUED
    assert await store.request_analysis(asked, 2, "carol", LIMITS) is Outcome.QUEUED
    assert await store.request_analysis(asked, 2, "alice", LIMITS) is Outcome.WAITING_ALREADY

    first = await store.next_analysis()
    assert (first.match_id, first.status, first.requested_by) == (asked, Status.RUNNING, "carol")
    assert (await store.next_analysis()).match_id == automatic
    assert await store.next_analysis() is None
    assert (await store.analysis_request(asked)).status is Status.RUNNING


async def test_a_result_is_kept_once_per_match_and_level(store, players):
    match_id = await finished_match(store)
    await store.request_analysis(match_id, 2, None, LIMITS)
    await store.next_analysis()
    await store.store_analysis(match_id, 2, RESULT)
    await store.store_analysis(match_id, 2, {**RESULT, "plies": 99})  # kept: the first

    stored = await store.analysis_of(match_id)
    assert (stored.plies, stored.analysis) == (2, RESULT)
    assert (await store.analysis_request(match_id)).status is Status.DONE
    assert await store.request_analysis(match_id, 2, "alice", LIMITS) is Outcome.DONE_ALREADY
    assert await store.request_analysis(match_id, 1, "alice", LIMITS) is Outcome.DONE_ALREADY
    assert await store.request_analysis(match_id, 3, "alice", LIMITS) is Outcome.QUEUED
    assert await store.analysed_among([match_id, match_id + 1]) == {match_id}
    assert await store.analysed_among([]) == set()


async def test_the_queue_is_bounded_in_all_and_per_user(store, players):
    matches = [await finished_match(store) for _ in range(4)]
    assert await store.request_analysis(matches[0], 2, "carol", LIMITS) is Outcome.QUEUED
    assert await store.request_analysis(matches[1], 2, "carol", LIMITS) is Outcome.QUEUED
    assert (await store.request_analysis(matches[2], 2, "carol", LIMITS)
            is Outcome.TOO_MANY_OF_YOURS)
    assert await store.request_analysis(matches[2], 2, "alice", LIMITS) is Outcome.QUEUED
    assert await store.request_analysis(matches[3], 2, "bob", LIMITS) is Outcome.QUEUE_FULL
    # A request run and done leaves room.
    taken = await store.next_analysis()
    await store.store_analysis(taken.match_id, 2, RESULT)
    assert await store.request_analysis(matches[3], 2, "bob", LIMITS) is Outcome.QUEUED


async def test_a_failed_request_may_be_asked_again(store, players):
    match_id = await finished_match(store)
    await store.request_analysis(match_id, 2, "alice", LIMITS)
    await store.next_analysis()
    await store.fail_analysis(match_id, "x" * 1000)
    failed = await store.analysis_request(match_id)
    assert failed.status is Status.FAILED and len(failed.failure) == 200
    assert await store.request_analysis(match_id, 2, "alice", LIMITS) is Outcome.QUEUED
    assert (await store.analysis_request(match_id)).failure is None


async def test_finishing_a_match_queues_it_in_the_same_transaction(store, players):
    store.queue_finished_matches(2, QueueLimits(waiting=1))
    first, second = await finished_match(store), await finished_match(store)
    assert (await store.analysis_request(first)).status is Status.QUEUED
    assert await store.analysis_request(second) is None  # the queue was full: not queued
    running = await store.create_match("alice", "carol", 3, STATE)
    assert await store.analysis_request(running) is None


async def test_requests_survive_a_restart_and_running_ones_are_queued_again(database_url):
    await upgrade_database_async(database_url)
    before = await SqlStore.open(database_url)
    try:
        for name in ("alice", "bob"):
            await before.create_account(Account(name=name, password_hash=b"-"))
        queued, running = await finished_match(before), await finished_match(before)
        await before.request_analysis(running, 2, "alice", LIMITS)
        await before.request_analysis(queued, 2, None, LIMITS)
        assert (await before.next_analysis()).match_id == running
    finally:
        await before.close()

    again = await SqlStore.open(database_url)
    try:
        assert await again.requeue_running_analyses() == 1
        taken = [(await again.next_analysis()).match_id, (await again.next_analysis()).match_id]
        assert taken == [running, queued]
    finally:
        await again.close()


async def test_an_erased_account_takes_its_matches_analyses_with_it(store, players):
    match_id = await finished_match(store)
    await store.request_analysis(match_id, 2, "carol", LIMITS)
    await store.next_analysis()
    await store.store_analysis(match_id, 2, RESULT)
    await store.erase_account("alice", "admin")
    assert await store.analysis_request(match_id) is None
    assert await store.analysis_of(match_id) is None
