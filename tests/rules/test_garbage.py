"""What the engine leaves for CPython's cyclic garbage collector, whose pauses stall the server
(docs/PERFORMANCE.md, "Garbage collection"): no reference cycles from move generation or
parsing, and a running match that keeps the same few container objects however long it gets."""
from __future__ import annotations

import gc
import random

from fibs_server.rules.board.notation import format_play, parse_move
from fibs_server.rules.dice import SeededDice
from fibs_server.rules.match import Match, Phase

from .test_match_properties import random_action

_CONTAINERS = (list, dict, tuple, set, frozenset)


def tracked_objects_of(root: object) -> int:
    """The collector-tracked objects reachable from `root` through containers and instances
    of the engine's own classes (not through classes, modules or functions)."""
    seen: dict[int, object] = {}
    todo = [root]
    while todo:
        obj = todo.pop()
        if id(obj) in seen:
            continue
        seen[id(obj)] = obj
        todo.extend(ref for ref in gc.get_referents(obj)
                    if isinstance(ref, _CONTAINERS)
                    or type(ref).__module__.startswith("fibs_server."))
    return sum(1 for obj in seen.values() if gc.is_tracked(obj))


def collect_three_times() -> None:
    """Tuples and dicts of plain values drop out of the collector's sight when a collection
    finds everything in them untracked: one level of nesting per collection at worst, and
    the history's dicts hold tuples of tuples."""
    for _ in range(3):
        gc.collect()


def play_actions(match: Match, rng: random.Random, actions: int) -> None:
    for _ in range(actions):
        if match.is_over:
            return
        random_action(match, rng)


def test_move_generation_and_parsing_leave_no_reference_cycles():
    rng = random.Random(7)
    match = Match(None, SeededDice(7))
    match.start()
    gc.collect()
    gc.disable()
    try:
        for _ in range(400):
            if match.phase is Phase.MOVE:
                # Typed moves go through the parser's own search, as the server's `move` does.
                play = rng.choice(match.legal_plays())
                colour = match.colour(match.turn)
                typed = parse_move(format_play(play, colour), match.position_seen_by(match.turn),
                                   match.dice, colour, match.legal_results)
                match.move(match.turn, typed)
            else:
                random_action(match, rng)
        assert gc.collect() == 0
    finally:
        gc.enable()


def test_a_match_keeps_as_many_tracked_objects_after_many_games_as_after_a_few_moves():
    rng = random.Random(11)
    match = Match(None, SeededDice(11))
    match.start()
    play_actions(match, rng, 10)
    collect_three_times()
    early = tracked_objects_of(match)
    play_actions(match, rng, 1_000)
    collect_three_times()
    assert match.game_count >= 3
    assert sum(len(game) for game in match.history) > 300
    # One list per game is all the history adds.
    assert tracked_objects_of(match) <= early + match.game_count
