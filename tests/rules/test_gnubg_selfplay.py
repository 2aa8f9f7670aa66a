"""Replay of matches GNU Backgammon plays against itself, through our engine.

gnubg plays seeded short matches on both sides (`gnubg_selfplay.py`). For every move of
every game, our legal plays for (position, dice) must be exactly gnubg's (from the oracle of
the differential test), including gnubg's chosen play. Then each match is driven through
`Match` with gnubg's dice, plays, doubles, takes, drops and resignations: the board before
every move and double must be gnubg's, and every game must give the same winner, points and
Crawford flag, and the match the same final score.
"""
from __future__ import annotations

from collections import Counter

import pytest

from fibs_server.rules import Position
from fibs_server.rules.dice import ScriptedDice
from fibs_server.rules.events import CannotMove, Event, GameOver, Rolled, WinKind
from fibs_server.rules.match import Match, Phase
from tests.conftest import skip_unless_ci

from .gnubg_oracle import GNUBG, gnubg_results, result_position_id
from .gnubg_selfplay import selfplay_matches

pytestmark = pytest.mark.gnubg

# (seed, match length), picked from seeds 1-8 of 3-, 5- and 7-point matches so that together
# they have Crawford games, post-Crawford doubles, takes, drops, resignations of all three
# sizes, games borne off (also gammons) and turns without a legal play: 10 matches, 43 games,
# 1,930 moves in about 10 s.
MATCHES = [(1, 3), (6, 3), (2, 5), (3, 5), (5, 5), (7, 5), (8, 5), (1, 7), (4, 7), (6, 7)]

# gnubg's player 0 is "X", player 1 "O". Our colours differ (FIBS swaps them every game)
# and play no part in the rules, so gnubg's player n is simply our player n.
PLAYERS = {"X": 0, "O": 1}

# FIBS rolls at once for a player who may not double (the opponent owns the cube); gnubg,
# about to resign there, resigns before rolling. Our engine then uses this extra roll.
SPARE_ROLL = (2, 1)


@pytest.fixture(scope="module")
def records() -> list[dict]:
    """The gnubg records, played once for both tests (about 5 s)."""
    if not GNUBG.exists():
        skip_unless_ci(f"needs GNU Backgammon at {GNUBG} (apt-get install -y gnubg)")
    return selfplay_matches(MATCHES)


def _moves(records: list[dict]) -> list[dict]:
    return [action for record in records for game in record["games"]
            for action in game["game"] if action["action"] == "move"]


def test_legal_plays_of_every_selfplay_move_match_gnubg(records):
    moves = _moves(records)
    legal_sets = gnubg_results(sorted({(move["board"], *move["dice"]) for move in moves}))
    mismatches = []
    for move in moves:
        plays = Position.from_position_id(move["board"]).legal_plays(tuple(move["dice"]))
        ours = {play.result.position_id() for play in plays}
        theirs = legal_sets[(move["board"], *move["dice"])]
        chosen = result_position_id(move["checkers"], move["move"])
        if ours != theirs or (move["move"] and chosen not in ours):
            mismatches.append((move["board"], move["dice"], move["move"],
                               sorted(ours - theirs), sorted(theirs - ours)))
    assert not mismatches, f"{len(mismatches)} differences, e.g. {mismatches[:5]}"


def test_matches_replay_with_gnubg_results_and_crawford_games(records):
    seen: Counter[str] = Counter()
    for record in records:
        ours, theirs = _replay(record, seen)
        assert ours == theirs, (record["match-info"], ours, theirs)
    # The replays exercised every rule they are meant to prove.
    for situation in ("Crawford game", "post-Crawford double", "take", "drop", "resign 1",
                      "resign 2", "resign 3", "game borne off", "gammon borne off",
                      "no legal play"):
        assert seen[situation] >= 1, seen


def _replay(record: dict, seen: Counter[str]) -> tuple[list, list]:
    """Drive `Match` through the record: (ours, gnubg's) per-game (winner, points, Crawford)
    results followed by the final score."""
    match = Match(record["match-info"]["match-length"], ScriptedDice([]), crawford=True)
    ours, theirs = [], []
    for number, game in enumerate(record["games"], start=1):
        # Each game gets its own dice, so a spare roll never shifts the next game's rolls.
        match.dice_source = ScriptedDice([*_recorded_rolls(game), SPARE_ROLL])
        unmatched = match.start() if number == 1 else match.join(0) + match.join(1)
        for action in game["game"]:
            unmatched = _replay_action(match, action, unmatched, seen)
        started = match.history[-1][0]
        game_over = next(event for event in match.history[-1] if isinstance(event, GameOver))
        info = game["info"]
        ours.append((game_over.winner, game_over.points, started.crawford))
        theirs.append((PLAYERS[info["winner"]], info["points-won"], info.get("crawford", False)))
        seen["Crawford game"] += started.crawford
        if game["game"][-1]["action"] == "move":
            seen["game borne off"] += 1
            seen["gammon borne off"] += game_over.kind >= WinKind.GAMMON
    last = record["games"][-1]["info"]
    final = [last["score-X"], last["score-O"]]
    final[PLAYERS[last["winner"]]] += last["points-won"]
    ours.append((match.is_over, match.score))
    theirs.append((True, final))
    return ours, theirs


def _recorded_rolls(game: dict) -> list[tuple[int, int]]:
    """The game's dice in the order our engine asks for them: gnubg's first move is the
    opening roll, (die of player 0, die of player 1) with the starter's die the higher."""
    opening, *rolls = [action for action in game["game"] if action["action"] == "move"]
    high, low = sorted(opening["dice"], reverse=True)
    return [(high, low) if PLAYERS[opening["player"]] == 0 else (low, high),
            *(tuple(move["dice"]) for move in rolls)]


def _replay_action(match: Match, action: dict, unmatched: list[Event],
                   seen: Counter[str]) -> list[Event]:
    """Make gnubg's action in `match`; returns the events still to be matched by later
    actions (turns our engine passed by itself for lack of a legal play)."""
    player = PLAYERS[action["player"]]
    kind = action["action"]
    if "board" in action:  # moves and doubles: the board seen by the player acting
        assert match.position_seen_by(player).position_id() == action["board"], action
    if kind == "double":
        seen["post-Crawford double"] += match.is_post_crawford
        return match.double(player)
    if kind == "take":
        seen["take"] += 1
        return match.accept(player)
    if kind == "drop":
        seen["drop"] += 1
        return match.reject(player)
    if kind == "resign":  # gnubg records only accepted resignations
        seen[f"resign {action['points']}"] += 1
        return match.resign(player, WinKind(action["points"])) + match.accept(1 - player)
    assert kind == "move", action
    if match.turn == player and match.phase is Phase.ROLL_OR_DOUBLE:  # gnubg rolled, no double
        unmatched = match.roll(player)
    dice = tuple(action["dice"])
    if not action["move"]:  # our engine passed this turn by itself, right after the roll
        seen["no legal play"] += 1
        passed = [Rolled(player, dice), CannotMove(player)]
        starts = [i for i in range(len(unmatched)) if unmatched[i:i + 2] == passed]
        assert starts, (action, unmatched)
        return unmatched[starts[0] + 2:]
    assert (match.turn, match.phase) == (player, Phase.MOVE), action
    assert sorted(match.dice) == sorted(dice), action
    chosen = result_position_id(action["checkers"], action["move"])
    play = next(play for play in match.legal_plays() if play.result.position_id() == chosen)
    return match.move(player, play)
