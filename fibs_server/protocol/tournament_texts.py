"""What the tournament director tells entrants (docs/TOURNAMENTS.md). The invitation to a
round's match is FIBS's own (`game_texts.invitation`); these lines come beside it, each
beginning with `Tournament <id>:` so that a program can tell them apart."""
from __future__ import annotations


def _about(tournament_id: int, text: str) -> str:
    return f"Tournament {tournament_id}: {text}"


def round_begins(tournament_id: int, number: int, count: int) -> str:
    return _about(tournament_id, f"round {number} of {count} begins.")


def your_match(tournament_id: int, opponent: str, length: int, no_show_minutes: int) -> str:
    return _about(tournament_id, f"you play {opponent}, {length} points. The match starts as "
                  f"soon as you are both online; whoever is not within {no_show_minutes} "
                  "minutes of the round's start loses it.")


def your_bye(tournament_id: int, number: int) -> str:
    return _about(tournament_id, f"you have a bye in round {number}.")


def forfeited(tournament_id: int, absent: str, winner: str | None) -> str:
    if winner is None:
        return _about(tournament_id, f"{absent} did not show up; nobody wins that match.")
    return _about(tournament_id, f"{absent} did not show up; {winner} wins by forfeit.")


def result(tournament_id: int, winner: str, loser: str) -> str:
    return _about(tournament_id, f"{winner} beats {loser}.")


def tournament_won(tournament_id: int, winner: str) -> str:
    return _about(tournament_id, f"the tournament is over. {winner} wins it!")


def too_few_players(tournament_id: int) -> str:
    return _about(tournament_id, "cancelled: fewer than two players joined.")


def tournament_starts(tournament_id: int, players: int) -> str:
    return _about(tournament_id, f"the tournament starts with {players} players.")
