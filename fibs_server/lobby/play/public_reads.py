"""What the web's JSON API (net/http.py, docs/WEB-API.md) says of stored matches and players,
as plain data: a finished public match's games, action by action, and the dice statistics.
The moves come from the `.mat` export's reading of the history (protocol/views/matfile.py), written
in the notation of the match analysis (`Decision.played`), so a review can pair the two."""
from __future__ import annotations

from typing import Any

from fibs_server.lobby.ports.analysis_records import StoredAnalysis
from fibs_server.lobby.ports.match_records import MatchRecord
from fibs_server.protocol.views.matfile import (
    MatAction,
    MatDouble,
    MatDrop,
    MatRoll,
    MatTake,
    MatWin,
    mat_games,
)
from fibs_server.rules import events as ev
from fibs_server.rules.board.notation import Colour, format_steps
from fibs_server.rules.dice import ScriptedDice, commitment_of, drawn_pairs, salts_from_lists
from fibs_server.rules.dice_stats import FAIR_PIPS_PER_ROLL, ROLLS, DiceStatistics, chance
from fibs_server.rules.match import Match


def match_games(record: MatchRecord) -> dict[str, Any]:
    """A finished match: its players, terms, result and every game's actions; `settled`, for
    an abandoned match settled by its players' winning chances, what settled it (the chances,
    their FIBS expectations, the engine, who left: docs/FAIRNESS.md), else None."""
    # Only read: it never rolls, so it needs no real dice.
    match = Match.from_dict(record.state, ScriptedDice([]))
    games = []
    for events, game in zip(match.history, mat_games(match), strict=True):
        started = events[0]
        assert isinstance(started, ev.GameStarted)
        colours = (Colour.X, Colour.O) if started.x_player == 0 else (Colour.O, Colour.X)
        games.append({"score": list(game.score), "x_player": started.x_player,
                      "actions": [_action(action, colours) for action in game.actions]})
    return {"match_id": record.match_id, "players": [record.player_a, record.player_b],
            "length": record.length, "variant": match.variant.value,
            "score": list(match.score), "winner": record.winner,
            "finished_at": record.finished_at, "games": games, "dice": match_dice(record),
            "settled": record.state.get("settled")}


def open_record(record: MatchRecord, analysis: StoredAnalysis | None) -> dict[str, Any]:
    """A finished rated match as the open record publishes it (docs/FAIRNESS.md, "The open
    record"): `match_games` with its start, both ratings before and after, and the analysis's
    summary (its figures per player, without the decisions), None before it is analysed."""
    summary = None if analysis is None else {
        "analysed_at": analysis.analysed_at,
        **{key: value for key, value in analysis.analysis.items() if key != "decisions"}}
    return {**match_games(record), "started_at": record.started_at,
            "ratings": record.state.get("ratings"), "analysis": summary}


def match_dice(record: MatchRecord) -> dict[str, Any] | None:
    """A finished match's dice, for anyone to recompute (docs/FAIRNESS.md): the seed, its
    commitment, the players' salts (`from_pair`: the number, from 0, of the first pair each
    entered) and every pair in the order drawn; None for dice not drawn from a seed."""
    if record.dice is None or record.dice.seed is None:
        return None
    salts = [None if salt is None else {"text": salt.text, "from_pair": salt.from_pair}
             for salt in salts_from_lists(record.dice.salts)]
    return {"seed": record.dice.seed,
            "commitment": commitment_of(bytes.fromhex(record.dice.seed)), "salts": salts,
            "rolls": [list(pair) for _, pair in drawn_pairs(record.state["history"])]}


def _action(action: MatAction, colours: tuple[Colour, Colour]) -> dict[str, Any]:
    match action:
        case MatRoll(player=p, dice=dice, steps=steps):
            return {"player": p, "kind": "move", "dice": list(dice),
                    "play": format_steps(steps, colours[p])}
        case MatDouble(player=p, cube=cube):
            return {"player": p, "kind": "double", "cube": cube}
        case MatTake(player=p):
            return {"player": p, "kind": "take"}
        case MatDrop(player=p):
            return {"player": p, "kind": "drop"}
        case MatWin(player=p, points=points):
            return {"player": p, "kind": "win", "points": points}
    raise TypeError(f"not a .mat action: {action!r}")


def dice_statistics(tally: list[int]) -> dict[str, Any]:
    """What `dicetest` shows of one tally: each of the 21 rolls against fair dice, the faces,
    the doubles, the pips and the chi-square figure."""
    statistics = DiceStatistics.of(tally)
    return {"rolls": statistics.rolls,
            "by_roll": [{"roll": list(roll), "count": count, "fair": chance(roll)}
                        for roll, count in zip(ROLLS, statistics.by_roll)],
            "faces": list(statistics.faces), "doubles": statistics.doubles,
            "pips": statistics.pips, "fair_pips_per_roll": FAIR_PIPS_PER_ROLL,
            "chi_square": statistics.chi_square, "p_value": statistics.p_value,
            "enough_rolls": statistics.enough_rolls, "unusual": statistics.unusual}
