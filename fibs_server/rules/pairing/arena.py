"""An arena's pairing and scoring, pure (docs/TOURNAMENTS.md, "Arena").

*Pairing*: the free players, ranked by score (then rating), are paired each with the nearest
in that ranking: the first with the second, the third with the fourth, and so on (an odd one
out, the lowest, waits for the next pairing). Nobody meets the opponent they just played
while a pairing of as many of the free players avoids it: then the first meets the nearest
they did not just play, and the rest are paired the same way.

*Scoring*: a win scores 2 points, a loss none. After two wins in a row a player is on fire:
each further win scores double (4), until a loss (or a match nobody won) puts the streak out.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping, Sequence

WIN_POINTS = 2
FIRE_POINTS = 4  # a win after two wins in a row
FIRE_AFTER = 2  # wins in a row that set a player on fire
# The search for a pairing with no rematch of the game just played gives up after this many
# steps and pairs in plain ranking order (each player has one opponent to avoid at most, so
# a field of the entry cap never comes near).
SEARCH_STEPS = 20_000

Pairs = list[tuple[str, str]]


@dataclasses.dataclass(frozen=True)
class ArenaScore:
    points: int = 0
    streak: int = 0  # wins in a row up to now: on fire from FIRE_AFTER on
    games: int = 0
    wins: int = 0


def arena_scores(names: Iterable[str],
                 games: Iterable[tuple[str, str, str | None]]) -> dict[str, ArenaScore]:
    """Each player's score after their decided games, (first, second, winner) in the order
    they were paired (winner None: nobody won, a loss to both)."""
    # Counted in lists, not new values at each game: a long arena of 128 has thousands.
    counts = {name: [0, 0, 0, 0] for name in names}  # points, streak, games, wins
    for first, second, winner in games:
        for name in (first, second):
            count = counts[name]
            count[2] += 1
            if name == winner:
                count[0] += FIRE_POINTS if count[1] >= FIRE_AFTER else WIN_POINTS
                count[1] += 1
                count[3] += 1
            else:
                count[1] = 0
    return {name: ArenaScore(*count) for name, count in counts.items()}


def arena_pairs(ranked: Sequence[str], just_played: Mapping[str, str]) -> Pairs:
    """The free players `ranked` (best first) paired, each with the nearest in rank they did
    not just play (`just_played`: a player's latest opponent) while a pairing of as many
    avoids it; one left over when they are odd."""
    budget = [SEARCH_STEPS]

    def fresh(one: str, other: str) -> bool:
        return just_played.get(one) != other and just_played.get(other) != one

    def pair(players: Sequence[str]) -> Pairs | None:
        if len(players) < 2:
            return []
        budget[0] -= 1
        if budget[0] < 0:
            return None
        first, rest = players[0], players[1:]
        for index, other in enumerate(rest):
            if fresh(first, other):
                following = pair([*rest[:index], *rest[index + 1:]])
                if following is not None:
                    return [(first, other), *following]
        if len(players) % 2:  # the odd one out may be anyone: try the first waiting
            return pair(rest)
        return None

    found = pair(list(ranked))
    if found is not None:
        return found
    return [(ranked[index], ranked[index + 1]) for index in range(0, len(ranked) - 1, 2)]
