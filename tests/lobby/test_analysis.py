"""Match analysis through the lobby, without sockets: a finished match is queued by the
store, analysed, stored and only then told to whoever opted in; who may ask and read; the
bounds; a restart loses no request."""
from __future__ import annotations

import asyncio
import dataclasses
import random
import time

from fibs_server import command_tables
from fibs_server.bots.analysis import CHEAPEST_PLIES
from fibs_server.bots.pool import analyse_stored
from fibs_server.lobby.limits.read_limits import HeavyReadLimits
from fibs_server.lobby.limits.throttle import AbuseLimits
from fibs_server.lobby.ports.analysis_records import QueueLimits, Status
from fibs_server.lobby.services import analysis_queue
from fibs_server.lobby.services.analysis_queue import AnalysisConfig, AnalysisQueue
from fibs_server.protocol.wording import analysis_texts
from fibs_server.rules.dice import VerifiableDice
from fibs_server.store import SqlStore
from tests.lobby.recording import logged_in, recording_lobby
from tests.lobby.test_fair_play import SEED, randomly
from tests.lobby.test_web_events import split
from tests.waiting import until

LIMITS = QueueLimits(waiting=4, waiting_per_user=2)


async def status_becomes(store, match_id: int, status: Status, timeout: float = 120.0) -> None:
    """Poll the store with a deadline (the analysis runs in another thread or process)."""
    deadline = time.monotonic() + timeout
    while (await store.analysis_request(match_id)).status is not status:
        assert time.monotonic() < deadline, f"match {match_id} not {status} in {timeout} s"
        await asyncio.sleep(0.02)


async def in_a_thread(state, plies):
    return await asyncio.to_thread(analyse_stored, state, plies)


async def analysing_lobby(tmp_path, compute=in_a_thread, limits=LIMITS, queue_finished=True):
    lobby, store = await recording_lobby(tmp_path, analysed=True)
    lobby.config.new_dice = lambda: VerifiableDice(SEED)
    config = AnalysisConfig(plies=CHEAPEST_PLIES, limits=limits, queue_finished=queue_finished)
    queue = AnalysisQueue(lobby.attendance, lobby.match_store, store, compute, config)
    if queue_finished:
        store.queue_finished_matches(config.plies, limits)
    lobby.dispatcher.add_commands(command_tables.analysis(lobby.owners, store, queue))
    lobby.dispatcher.add_commands(command_tables.archive(lobby.owners))
    return lobby, store, queue


async def play_out(lobby, first, second, unrated=None, seed=1) -> int:
    await lobby.matches.start_match(first, second, 1, unrated=unrated)
    running = lobby.match_table.match_of(first)
    rng = random.Random(seed)
    while not running.match.is_over:
        await lobby.matches.act(first, randomly(rng))
    return running.match_id


async def typed(lobby, session, connection, line: str) -> list[str]:
    connection.lines()
    await lobby.dispatch(session, line)
    return connection.lines()


async def test_a_players_page_is_told_the_error_rates_once_the_analysis_is_stored(tmp_path):
    """Every page of a player hears `analysis_ready` (its end of the match shows the figures);
    a classic session only with `analyse notify on` (bob: nothing)."""
    lobby, store, queue = await analysing_lobby(tmp_path)
    alice, alice_out = await logged_in(lobby, "alice", ready=True, web_events=True)
    bob, bob_out = await logged_in(lobby, "bob", ready=True)
    match_id = await play_out(lobby, alice, bob)
    split(alice_out), bob_out.lines()

    assert await queue.run_one()
    lines, messages = split(alice_out)
    stored = (await store.analysis_of(match_id)).analysis
    assert lines == [] and bob_out.lines() == []
    assert messages == [{"type": "analysis_ready", "match_id": match_id, "players": [
        {"name": name, "error_rate": round(summary["error_rate"], 1),
         "pr": round(summary["pr"], 1), "rating": summary["rating"]}
        for name, summary in zip(("alice", "bob"), stored["players"], strict=True)]}]


async def test_a_finished_match_is_analysed_stored_and_then_told_to_who_opted_in(tmp_path):
    lobby, store, queue = await analysing_lobby(tmp_path)
    alice, alice_out = await logged_in(lobby, "alice", ready=True)
    bob, bob_out = await logged_in(lobby, "bob", ready=True)
    assert await typed(lobby, alice, alice_out, "analyse notify on") == [analysis_texts.NOTIFY_ON]
    match_id = await play_out(lobby, alice, bob)
    assert (await store.analysis_request(match_id)).status is Status.QUEUED
    assert await typed(lobby, bob, bob_out, f"analysis {match_id}") == [
        f"Match {match_id} is queued for analysis."]
    alice_out.lines()

    assert await queue.run_one()
    assert alice_out.lines() == [analysis_texts.ready(match_id)]
    assert bob_out.lines() == []  # bob did not opt in
    assert (await store.analysis_request(match_id)).status is Status.DONE
    assert not await queue.run_one()  # nothing left, and nothing computed twice

    summary = await typed(lobby, bob, bob_out, f"analysis {match_id}")
    assert summary[0] == f"Analysis of match {match_id}: alice - bob, 1 point match."
    assert summary[1].startswith("Level: bgsage 1-ply")
    rows = {line[:25].strip(): line[25:].split() for line in summary[3:-2]}
    assert set(rows) >= {"Decisions", "Error total EMG", "Error rate mEMG", "PR", "Luck EMG",
                         "Checker error EMG", "Cube error EMG", "Doubtful", "Bad", "Very bad",
                         "Rating"}
    assert int(rows["Decisions"][0]) > 0
    moves = await typed(lobby, bob, bob_out, f"analysis {match_id} moves")
    assert moves[2] == analysis_texts.MARKS_LEGEND and moves[3] == "Game 1:"
    assert len(moves) > int(rows["Decisions"][0])
    history = await typed(lobby, alice, alice_out, "history")
    assert any(line.startswith(f"  {match_id:4d}* ") for line in history)
    assert "  * analysed: type 'analysis <match>' to read it." in history
    assert await typed(lobby, alice, alice_out, f"analyse {match_id}") == [
        analysis_texts.done_already(match_id)]


async def test_who_may_ask_and_read(tmp_path):
    lobby, store, queue = await analysing_lobby(tmp_path, queue_finished=False)
    alice, _ = await logged_in(lobby, "alice", ready=True)
    bob, _ = await logged_in(lobby, "bob", ready=True)
    carol, carol_out = await logged_in(lobby, "carol", ready=True)
    unrated = await play_out(lobby, alice, bob, unrated="asked")
    rated = await play_out(lobby, alice, bob, seed=2)
    await lobby.matches.start_match(alice, bob, 3)  # running: not analysable
    running = lobby.match_table.match_of(alice).match_id
    # More than a burst of heavy reads (paced: the next test).
    lobby.dispatcher.heavy_reads = HeavyReadLimits(AbuseLimits(heavy_read_burst=100))

    assert await typed(lobby, carol, carol_out, f"analyse {unrated}") == [
        analysis_texts.not_readable(unrated)]
    assert await typed(lobby, carol, carol_out, f"analysis {unrated}") == [
        analysis_texts.not_readable(unrated)]
    assert await typed(lobby, carol, carol_out, f"analyse {running}") == [
        analysis_texts.no_finished_match(str(running))]
    for nonsense in ("99999", "x", str(2**40)):
        assert await typed(lobby, carol, carol_out, f"analyse {nonsense}") == [
            analysis_texts.no_finished_match(nonsense)]
    assert await typed(lobby, carol, carol_out, f"analysis {rated}") == [
        analysis_texts.not_analysed(rated, None)]
    assert await typed(lobby, carol, carol_out, f"analyse {rated}") == [
        analysis_texts.queued(rated)]  # rated: public
    assert (await store.analysis_request(rated)).requested_by == "carol"
    assert await typed(lobby, carol, carol_out, f"analyze {rated}") == [
        analysis_texts.waiting_already(rated)]
    assert await typed(lobby, carol, carol_out, "analyse") == [analysis_texts.ANALYSE_USAGE]
    assert await typed(lobby, carol, carol_out, f"analysis {rated} x") == [
        analysis_texts.ANALYSIS_USAGE]


async def test_the_queue_refuses_beyond_its_bounds(tmp_path):
    lobby, store, queue = await analysing_lobby(
        tmp_path, queue_finished=False, limits=QueueLimits(waiting=3, waiting_per_user=2))
    alice, alice_out = await logged_in(lobby, "alice", ready=True)
    bob, bob_out = await logged_in(lobby, "bob", ready=True)
    matches = [await play_out(lobby, alice, bob, seed=seed) for seed in range(4)]
    answers = [await typed(lobby, alice, alice_out, f"analyse {match_id}")
               for match_id in matches[:3]]
    assert answers == [[analysis_texts.queued(matches[0])], [analysis_texts.queued(matches[1])],
                       [analysis_texts.too_many_of_yours(2)]]
    assert await typed(lobby, bob, bob_out, f"analyse {matches[0]}") == [
        analysis_texts.waiting_already(matches[0])]
    assert await typed(lobby, bob, bob_out, f"analyse {matches[2]}") == [
        analysis_texts.queued(matches[2])]
    assert await typed(lobby, bob, bob_out, f"analyse {matches[3]}") == [
        analysis_texts.queue_full(3)]


async def test_reading_analyses_is_paced_per_user(tmp_path):
    lobby, store, queue = await analysing_lobby(tmp_path, queue_finished=False)
    alice, alice_out = await logged_in(lobby, "alice", ready=True)
    lobby.dispatcher.heavy_reads = HeavyReadLimits(lobby.config.abuse_limits, clock=lambda: 0.0)  # stopped
    burst = lobby.config.abuse_limits.heavy_read_burst
    answers = [await typed(lobby, alice, alice_out, "analysis 1") for _ in range(burst + 1)]
    assert answers[:burst] == [[analysis_texts.no_finished_match("1")]] * burst
    assert answers[-1][0].startswith("** Too many analyses read: try again in ")
    # Asking for one shares the bucket: it reads the match and writes a queue row.
    assert await typed(lobby, alice, alice_out, "analyse 1") == [
        analysis_texts.asked_too_often(1)]


async def test_a_restart_loses_no_request_and_takes_up_the_one_running(tmp_path):
    entered, never = asyncio.Event(), asyncio.Event()

    async def stuck(state, plies):
        entered.set()
        await never.wait()
        raise AssertionError("unreachable")

    lobby, store, queue = await analysing_lobby(tmp_path, compute=stuck)
    alice, _ = await logged_in(lobby, "alice", ready=True)
    bob, _ = await logged_in(lobby, "bob", ready=True)
    first = await play_out(lobby, alice, bob, seed=1)
    second = await play_out(lobby, alice, bob, seed=2)
    await queue.start()
    await entered.wait()  # the first is running
    assert (await store.analysis_request(first)).status is Status.RUNNING
    await queue.close()
    url = store._writes.engine.url.render_as_string()
    await store.close()

    again = await SqlStore.open(url.replace("sqlite+pysqlite", "sqlite"))
    try:
        lobby.match_store = again
        restarted = AnalysisQueue(lobby.attendance, lobby.match_store, again, in_a_thread,
                                  queue.config)
        assert await again.requeue_running_analyses() == 1
        assert await restarted.run_one() and await restarted.run_one()
        assert {(await again.analysis_of(match_id)).match_id for match_id in (first, second)} \
            == {first, second}
        assert not await restarted.run_one()
    finally:
        await again.close()


async def test_a_result_the_store_refused_is_computed_again(tmp_path, monkeypatch, caplog):
    monkeypatch.setattr(analysis_queue, "RETRY_SECONDS", 0.0)
    lobby, store, queue = await analysing_lobby(tmp_path)
    alice, _ = await logged_in(lobby, "alice", ready=True)
    bob, _ = await logged_in(lobby, "bob", ready=True)
    match_id = await play_out(lobby, alice, bob)
    storing = store.store_analysis
    refusals = []

    async def refuse_once(*arguments):
        if not refusals:
            refusals.append(arguments)
            raise ConnectionError("the database went away")
        await storing(*arguments)

    monkeypatch.setattr(store, "store_analysis", refuse_once)
    await queue.start()
    try:
        await until(lambda: len(refusals) == 1, "the refusal")
        await status_becomes(store, match_id, Status.DONE)
    finally:
        await queue.close()
    assert (await store.analysis_of(match_id)).plies == CHEAPEST_PLIES
    assert "the analysis queue failed" in caplog.text


async def test_a_failed_analysis_is_marked_and_may_be_asked_again(tmp_path):
    async def failing(state, plies):
        raise ValueError("no")

    lobby, store, queue = await analysing_lobby(tmp_path, compute=failing)
    alice, alice_out = await logged_in(lobby, "alice", ready=True)
    bob, _ = await logged_in(lobby, "bob", ready=True)
    match_id = await play_out(lobby, alice, bob)
    assert await queue.run_one()
    assert (await store.analysis_request(match_id)).status is Status.FAILED
    assert await typed(lobby, alice, alice_out, f"analysis {match_id}") == [
        analysis_texts.not_analysed(match_id, "failed")]
    assert await typed(lobby, alice, alice_out, f"analyse {match_id}") == [
        analysis_texts.queued(match_id)]


async def test_a_match_of_more_games_than_the_cap_is_not_analysed(tmp_path):
    computed = []

    async def recording(state, plies):
        computed.append(state)
        return await in_a_thread(state, plies)

    lobby, store, queue = await analysing_lobby(tmp_path, compute=recording)
    queue.config = dataclasses.replace(queue.config, max_games=0)
    alice, _ = await logged_in(lobby, "alice", ready=True)
    bob, _ = await logged_in(lobby, "bob", ready=True)
    match_id = await play_out(lobby, alice, bob)
    assert await queue.run_one()
    request = await store.analysis_request(match_id)
    assert request.status is Status.FAILED and computed == []
    assert "more than the 0 analysed" in request.failure
