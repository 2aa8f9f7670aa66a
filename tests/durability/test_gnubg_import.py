"""Exported `.mat` files read back by GNU Backgammon (`import mat`): every game with the same
rolls, plays, cube actions, winner and points, and the same score before each game, in
standard backgammon, Nackgammon and Hypergammon (the variant read from the header)."""
from __future__ import annotations

import json
import random
import subprocess
from pathlib import Path

import pytest

from fibs_server.lobby.commands.archive_commands import match_file
from fibs_server.lobby.ports.match_records import MatchRecord
from fibs_server.rules import events as ev
from fibs_server.rules.dice import SeededDice
from fibs_server.rules.events import WinKind
from fibs_server.rules.match import Match, Phase
from fibs_server.rules.variants import Variant
from tests.conftest import skip_unless_ci

GNUBG = Path("/usr/games/gnubg")
GNUBG_VARIATIONS = {Variant.STANDARD: "Standard", Variant.NACKGAMMON: "Nackgammon",
                    Variant.HYPERGAMMON: "Hypergammon3"}  # as gnubg's match-info names them
DUMP_SCRIPT = """
import gnubg, json, sys
games = []
for path in {paths!r}:
    gnubg.command("import mat " + path)
    match = gnubg.match(analysis=0, boards=0, statistics=0, verbose=0)
    games.append({{"variation": match["match-info"]["variation"], "games": [
        {{"info": g["info"], "actions": [
            {{k: a[k] for k in ("action", "player", "dice", "move") if k in a}} for a in g["game"]]}}
        for g in match["games"]]}})
open({out!r}, "w").write(json.dumps(games))
"""


def random_match(seed: int, length: int, variant: Variant = Variant.STANDARD) -> Match:
    """A match played to its end with random legal plays, doubles, takes, drops and the odd
    accepted resignation."""
    rng = random.Random(seed)
    match = Match(length, SeededDice(seed), first_x_player=seed % 2, variant=variant)
    match.start()
    while not match.is_over:
        turn = match.turn
        if match.phase is Phase.BETWEEN_GAMES:
            match.join(0)
            match.join(1)
        elif match.phase is Phase.DOUBLE_OFFERED:
            answerer = 1 - match.double_offer.offered_by
            (match.accept if rng.random() < 0.7 else match.reject)(answerer)
        elif match.phase is Phase.RESIGN_OFFERED:
            match.accept(1 - match.resignation.player)
        elif match.phase is Phase.ROLL_OR_DOUBLE:
            if rng.random() < 0.01:
                match.resign(turn, WinKind.SINGLE)
            elif match.may_double(turn) and rng.random() < 0.15:
                match.double(turn)
            else:
                match.roll(turn)
        else:
            match.move(turn, rng.choice(match.legal_plays()))
    return match


def expected_games(match: Match) -> list[dict]:
    """What gnubg should read: per game the score before it, the moves (player 0 = X, steps
    sorted), the cube actions, the winner and the points."""
    games = []
    for game in match.history:
        started = game[0]
        actions, dice = [], {}
        for event in game:
            match event:
                case ev.OpeningRoll(die_0=d0, die_1=d1, starter=s) if s is not None:
                    dice[s] = (d0, d1)
                case ev.Rolled(player=p, dice=rolled):
                    dice[p] = rolled
                case ev.Moved(player=p, steps=steps):
                    actions.append(["move", "XO"[p], sorted(dice.pop(p), reverse=True),
                                    sorted(list(s) for s in steps)])
                case ev.CannotMove(player=p):
                    actions.append(["move", "XO"[p], sorted(dice.pop(p), reverse=True), []])
                case ev.Doubled(player=p):
                    actions.append(["double", "XO"[p]])
                case ev.DoubleAccepted(player=p):
                    actions.append(["take", "XO"[p]])
                case ev.DoubleRejected(player=p):
                    actions.append(["drop", "XO"[p]])
                case ev.GameOver(winner=w, points=points):
                    result = ("XO"[w], points)
        games.append({"score": list(started.score), "actions": actions, "result": result})
    return games


def read_by_gnubg(game_list: list[dict]) -> dict:
    actions = []
    for action in game_list["actions"]:
        kind = action["action"]
        if kind == "move":
            actions.append(["move", action["player"], sorted(action["dice"], reverse=True),
                            sorted(list(s) for s in action["move"])])
        elif kind in ("double", "take", "drop"):
            actions.append([kind, action["player"]])
    info = game_list["info"]
    return {"score": [info["score-X"], info["score-O"]], "actions": actions,
            "result": (info["winner"], info["points-won"])}


@pytest.mark.gnubg
@pytest.mark.parametrize("variant", [Variant.STANDARD, Variant.NACKGAMMON, Variant.HYPERGAMMON])
def test_gnubg_imports_exported_matches_with_the_same_moves_and_scores(tmp_path, variant):
    if not GNUBG.exists():
        skip_unless_ci("the .mat import test needs GNU Backgammon (/usr/games/gnubg)")
    matches = {seed: random_match(seed, length, variant) for seed, length in
               ((1, 1), (2, 3), (3, 5), (4, 7), (5, 9))}
    paths = []
    for seed, match in matches.items():
        record = MatchRecord(seed, "alice", "bob", match.length, match.to_dict(), finished=True)
        path = tmp_path / f"match{seed}.mat"
        path.write_text(match_file(record))
        paths.append(str(path))
    script, out = tmp_path / "dump.py", tmp_path / "games.json"
    script.write_text(DUMP_SCRIPT.format(paths=paths, out=str(out)))
    subprocess.run([str(GNUBG), "-t", "-q", "-r", "-p", str(script)], stdin=subprocess.DEVNULL,
                   capture_output=True, timeout=120, check=True)
    read = json.loads(out.read_text())
    assert len(read) == len(matches)
    for (seed, match), dumped in zip(matches.items(), read):
        games = dumped["games"]
        assert dumped["variation"] == GNUBG_VARIATIONS[variant]
        assert [read_by_gnubg(g) for g in games] == expected_games(match), f"match {seed}"
        assert sum(1 for g in match.history) == len(games)
