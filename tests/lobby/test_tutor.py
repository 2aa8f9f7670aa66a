"""The tutor through the lobby, without sockets: a losing play held back with the better one
(telnet's line and the page's typed message), sent anyway; refused in a rated match; its
limit per user. The judge is bots.tutor's own, called in the test's process (the server's runs
it in the bots' worker: tests/bots/test_tutor.py)."""
from __future__ import annotations

from fibs_server.bots import tutor as bots_tutor
from fibs_server.lobby.limits.read_limits import KeyedRateLimit
from fibs_server.protocol.wording import analysis_texts
from tests.fake_clock import FakeClock
from tests.lobby.recording import logged_in, recording_lobby
from tests.lobby.test_web_events import split

# Alice (player 0, O: her typed points are her own numbering) opens with 3-1.
OPENING = (3, 1)
BAD_PLAY = "24-21 24-23"  # runs both back checkers: about a quarter of a point worse
BEST_PLAY = "8-5 6-5"


async def judge_here(situation, proposal):
    return bots_tutor.judge(situation, proposal)


async def two_players(tmp_path, *, unrated: str | None):
    lobby, _ = await recording_lobby(tmp_path, OPENING, (6, 5), tutor_judge=judge_here)
    alice, alice_out = await logged_in(lobby, "alice", web_events=True, ready=True)
    bob, bob_out = await logged_in(lobby, "bob", ready=True)
    await lobby.matches.start_match(alice, bob, 3, unrated=unrated)
    split(alice_out), bob_out.lines()
    return lobby, alice, alice_out, bob_out


def refusal_codes(messages):
    return [message["code"] for message in messages if message["type"] == "refusal"]


async def test_a_losing_play_is_held_back_with_the_better_one_and_sent_anyway(tmp_path):
    lobby, alice, alice_out, bob_out = await two_players(tmp_path, unrated="asked")
    await lobby.dispatch(alice, "tutor on 0.05")
    lines, messages = split(alice_out)
    assert lines == [analysis_texts.tutor_switched_on(0.05)]
    assert messages == [{"type": "tutor", "on": True, "threshold": 0.05}]

    await lobby.dispatch(alice, f"move {BAD_PLAY}")
    lines, messages = split(alice_out)
    running = lobby.match_table.match_of(alice)
    assert running.match.turn == 0 and running.match.dice == OPENING  # nothing was played
    assert bob_out.lines() == []  # the opponent hears nothing of it
    [warning] = [message for message in messages if message["type"] == "tutor_warning"]
    assert warning["proposed"] == {"kind": "move", "steps": [[24, 21], [24, 23]]}
    assert sorted(warning["best"]["steps"]) == [[6, 5], [8, 5]]
    assert warning["loss"] > 0.05 and warning["threshold"] == 0.05
    assert lines == [analysis_texts.tutor_warning(BAD_PLAY, BEST_PLAY, warning["loss"])] or \
        lines == [analysis_texts.tutor_warning(BAD_PLAY, "6-5 8-5", warning["loss"])]

    await lobby.dispatch(alice, "tutor play")  # as warned: played now, no second judgement
    assert running.match.turn == 1
    assert any("24-21" in line or "24-23" in line for line in bob_out.lines())


async def test_a_good_play_passes_and_sending_again_plays_a_held_one(tmp_path):
    lobby, alice, alice_out, _ = await two_players(tmp_path, unrated="asked")
    await lobby.dispatch(alice, "tutor on")
    await lobby.dispatch(alice, f"move {BAD_PLAY}")
    running = lobby.match_table.match_of(alice)
    assert running.match.turn == 0
    await lobby.dispatch(alice, f"move {BAD_PLAY}")  # the same again: played
    assert running.match.turn == 1
    assert lobby.tutor.held(alice, running) is None  # nothing is held any more


async def test_the_tutor_is_refused_in_a_rated_match_and_never_judges_there(tmp_path):
    calls = []

    async def counting(situation, proposal):
        calls.append(proposal)
        return bots_tutor.judge(situation, proposal)
    lobby, _ = await recording_lobby(tmp_path, OPENING, tutor_judge=counting)
    alice, alice_out = await logged_in(lobby, "alice", web_events=True, ready=True)
    bob, _ = await logged_in(lobby, "bob", ready=True)
    await lobby.dispatch(alice, "tutor on")  # no match yet: on, for the unrated ones
    await lobby.matches.start_match(alice, bob, 3)  # rated
    split(alice_out)
    await lobby.dispatch(alice, "tutor on 0.02")
    lines, messages = split(alice_out)
    assert lines == [analysis_texts.TUTOR_RATED] and refusal_codes(messages) == ["tutor_rated"]

    await lobby.dispatch(alice, f"move {BAD_PLAY}")  # left on from before: silent here
    assert lobby.match_table.match_of(alice).match.turn == 1 and calls == []


async def test_asking_the_tutor_too_often_is_refused_and_plays_nothing(tmp_path):
    lobby, alice, alice_out, _ = await two_players(tmp_path, unrated="asked")
    clock = FakeClock()
    lobby.tutor.limit = KeyedRateLimit(4, 0.5, clock.time)  # 4 at once, then one in 2 s
    await lobby.dispatch(alice, "tutor on")
    for _ in range(2):
        # Two losing plays by turns: each is new, so each is judged (and held).
        await lobby.dispatch(alice, f"move {BAD_PLAY}")
        await lobby.dispatch(alice, "move 24-21 21-20")
    split(alice_out)
    await lobby.dispatch(alice, f"move {BAD_PLAY}")
    lines, messages = split(alice_out)
    assert lines == [analysis_texts.tutor_asked_too_often(2.0)]
    assert refusal_codes(messages) == ["tutor_asked_too_often"]
    assert lobby.match_table.match_of(alice).match.turn == 0  # refused, not played unjudged
    clock.now += 2.0
    await lobby.dispatch(alice, f"move {BEST_PLAY}")  # judged again, and good: played
    assert lobby.match_table.match_of(alice).match.turn == 1
