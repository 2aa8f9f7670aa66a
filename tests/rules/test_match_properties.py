"""Properties of whole matches played at random with seeded dice."""
from __future__ import annotations

import copy
import json
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from fibs_server.rules.board.position import Position
from fibs_server.rules.dice import SeededDice
from fibs_server.rules.events import GameOver, MatchOver, WinKind
from fibs_server.rules.match import IllegalAction, Match, Phase
from fibs_server.rules.variants import Variant

UNLIMITED_GAMES = 3  # an unlimited match is never won; stop it after this many games
MAX_ACTIONS = 20_000

match_options = st.fixed_dictionaries({
    "length": st.sampled_from([1, 2, 3, 5, None]),
    "variant": st.sampled_from(list(Variant)),
    "crawford": st.booleans(),
    "autodouble": st.booleans(),
    "max_redoubles": st.sampled_from([0, 1, 3, None]),
    "first_x_player": st.sampled_from([0, 1]),
    "lower_die_starts": st.booleans(),
    "cube": st.booleans(),
})


def random_action(match: Match, rng: random.Random) -> list:
    """One random action that the rules allow in the current phase."""
    phase, turn, other = match.phase, match.turn, 1 - match.turn
    if phase is Phase.BETWEEN_GAMES:
        waiting = [player for player in rng.sample([0, 1], 2) if player not in match.joined]
        return [event for player in waiting for event in match.join(player)]
    if phase is Phase.RESIGN_OFFERED:
        answer = 1 - match.resignation.player
        return match.accept(answer) if rng.random() < 0.5 else match.reject(answer)
    if phase is Phase.DOUBLE_OFFERED:
        answer = 1 - match.double_offer.offered_by
        choice = rng.random()
        if choice < 0.15 and match.length is None and (
                match.max_redoubles is None or match.double_offer.redoubles < match.max_redoubles):
            return match.redouble(answer)
        return match.accept(answer) if choice < 0.7 else match.reject(answer)
    if rng.random() < 0.003:
        return match.resign(rng.choice([turn, other]), rng.choice(list(WinKind)))
    if phase is Phase.ROLL_OR_DOUBLE:
        return match.double(turn) if rng.random() < 0.03 else match.roll(turn)
    return match.move(turn, rng.choice(match.legal_plays()))


def finished(match: Match) -> bool:
    if match.length is None:
        return match.game_number >= UNLIMITED_GAMES and match.phase is Phase.BETWEEN_GAMES
    return match.is_over


def check_invariants(match: Match, previous_score: list[int]) -> None:
    assert all(now >= before for now, before in zip(match.score, previous_score))
    for player in (0, 1):
        seen = match.position_seen_by(player)
        Position(seen.checkers, seen.checkers_per_side)  # validates counts and overlaps
        assert seen.checkers_per_side == match.variant.checkers_per_side
        assert seen == match.position_seen_by(1 - player).swap()
    assert match.cube >= 1 and match.cube & (match.cube - 1) == 0
    if match.phase is Phase.MOVE:
        assert match.legal_plays() and 1 <= match.pieces_to_move <= 4
        assert all(1 <= die <= 6 for die in match.dice)
    if not match.cube_in_game:
        assert not match.may_double(0) and not match.may_double(1)


@settings(max_examples=40)
@given(options=match_options, seed=st.integers(0, 2**32))
def test_random_matches_end_with_growing_scores_and_conserved_checkers(options, seed):
    rng = random.Random(seed)
    match = Match(dice=SeededDice(seed), **options)
    events = match.start()
    for _ in range(MAX_ACTIONS):
        if finished(match):
            break
        previous_score = list(match.score)
        events += random_action(match, rng)
        check_invariants(match, previous_score)
    else:
        raise AssertionError("the match did not end")
    results = [event for event in events if isinstance(event, GameOver)]
    assert tuple(match.score) == results[-1].score
    assert sum(result.points for result in results) == sum(match.score)
    if match.length is not None:
        assert events[-1] == MatchOver(results[-1].winner, tuple(match.score))
        assert match.winner == results[-1].winner == match.outcome().winner
        assert max(match.score) >= match.length
        assert sorted(match.score)[0] < match.length


@settings(max_examples=30)
@given(options=match_options, seed=st.integers(0, 2**32), stop=st.integers(0, 400))
def test_a_saved_match_plays_on_exactly_like_the_original(options, seed, stop):
    rng = random.Random(seed)
    original = Match(dice=SeededDice(seed), **options)
    original.start()
    for _ in range(stop):
        if finished(original):
            break
        random_action(original, rng)

    saved = json.loads(json.dumps(original.to_dict()))
    restored = Match.from_dict(saved, copy.deepcopy(original.dice_source))
    assert restored.to_dict() == original.to_dict()
    assert restored.history == original.history
    assert restored.legal_plays() == original.legal_plays()

    restored_rng = random.Random()
    restored_rng.setstate(rng.getstate())
    for _ in range(300):
        if finished(original):
            break
        assert random_action(restored, restored_rng) == random_action(original, rng)
    assert restored.to_dict() == original.to_dict()


@settings(max_examples=20)
@given(options=match_options, seed=st.integers(0, 2**32))
def test_refused_actions_change_nothing(options, seed):
    """Any action by any player at random moments: the rules either apply it or refuse it
    without a trace."""
    rng = random.Random(seed)
    match = Match(dice=SeededDice(seed), **options)
    match.start()
    for _ in range(150):
        if finished(match):
            break
        before = match.to_dict()
        action = rng.choice(["roll", "double", "accept", "reject", "redouble", "join"])
        try:
            getattr(match, action)(rng.choice([0, 1]))
        except IllegalAction:
            assert match.to_dict() == before
        if not finished(match):
            random_action(match, rng)
