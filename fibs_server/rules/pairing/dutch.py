"""Swiss pairing by the Dutch system (FIDE Handbook C.04.3), without its colour rules, which
backgammon has no use for (docs/TOURNAMENTS.md, "Swiss"). Pure.

The players are ranked by score, then seed. Each score group, with the players left unpaired
above it (moved down, "floaters"), is a bracket, paired from the top: the floaters first,
each against the highest resident they can meet, then the rest of the bracket's residents,
its top half against its bottom half (1 v 5, 2 v 6, 3 v 7, 4 v 8 of eight). When that pairs
two who have met, the bottom half is permuted (transpositions, in lexicographic order), then
players are exchanged between the halves (fewest first, then those nearest in rank, by the
handbook's order of exchanges), and only then does the bracket pair fewer players, the
lowest floating down. A bracket's pairing is taken only if the players below it can still
be paired without a rematch. The bye, in an odd field, goes to the lowest-ranked player who
has not had one, provided the others can be paired without a rematch.
"""
from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Iterator, Mapping, Sequence

# The pairing search gives up on the Dutch order after this many steps (fields far larger
# than the entry cap never reach it); then each player from the top meets the
# highest-ranked player not met yet.
SEARCH_STEPS = 200_000

Pairs = list[tuple[str, str]]


class _Exhausted(Exception):
    pass


class _Search:
    """The step budget and what is known of which sets of players (bit masks over the round's
    ranking) can be paired without a rematch, shared by every bracket of a round: a pair is
    tried only if everyone still unpaired can then be paired, so a bracket's candidates that
    would strand the players below are never built."""

    def __init__(self, ranked: Sequence[str], met: Mapping[str, set[str]], steps: int) -> None:
        self.bit = {name: 1 << index for index, name in enumerate(ranked)}
        everyone = (1 << len(ranked)) - 1
        self.allowed = {self.bit[name]: everyone & ~self.mask([name, *met[name]])
                        for name in ranked}
        self.steps = steps
        self.known: dict[int, bool] = {0: True}

    def mask(self, players: Iterable[str]) -> int:
        return sum(self.bit[name] for name in players if name in self.bit)

    def step(self) -> None:
        self.steps -= 1
        if self.steps < 0:
            raise _Exhausted

    def pairable(self, players: int) -> bool:
        known = self.known.get(players)
        if known is None:
            self.step()
            known = False
            if players.bit_count() % 2 == 0:
                top = players & -players
                rest = players ^ top
                options = rest & self.allowed[top]
                while options and not known:
                    partner = options & -options
                    known = self.pairable(rest ^ partner)
                    options ^= partner
            self.known[players] = known
        return known


def swiss_pairs(ranked: Sequence[str], points: Mapping[str, int], met: Mapping[str, set[str]],
                had_bye: set[str], steps: int = SEARCH_STEPS) -> list[tuple[str, str | None]]:
    """The pairs of one round for players in rank order (score, then seed), the higher
    ranked first in each pair and the bye, if any, last as `(name, None)`."""
    search = _Search(ranked, met, steps)
    if len(ranked) % 2 == 0:
        candidates: list[str | None] = [None]
    else:
        lowest_first = list(reversed(ranked))
        candidates = list([name for name in lowest_first if name not in had_bye]
                          or lowest_first[:1])
    try:
        for candidate in candidates:
            rest = [name for name in ranked if name != candidate]
            if search.pairable(search.mask(rest)):
                bye = [(candidate, None)] if candidate is not None else []
                return [*_dutch(rest, points, search), *bye]
    except _Exhausted:
        pass
    # Every pairing has a rematch (more rounds than the field allows), or the search ran
    # out: the first candidate has the bye and each meets the best not yet met, if any.
    candidate = candidates[0]
    rest = [name for name in ranked if name != candidate]
    return [*_fewest_rematches(rest, met), *([(candidate, None)] if candidate is not None else [])]


def _dutch(ranked: list[str], points: Mapping[str, int], search: _Search) -> Pairs:
    """The Dutch pairing of players who can all be paired without a rematch."""
    rank = {name: index for index, name in enumerate(ranked)}
    groups = [list(group) for _, group in itertools.groupby(ranked, key=points.__getitem__)]
    pairs: Pairs = []
    floaters: list[str] = []
    unpaired = search.mask(ranked)
    for group in groups:
        # The candidate that pairs nobody leaves everyone to the brackets below, which
        # could pair them all before: the loop always finds one.
        for bracket_pairs, left, unpaired_after in _bracket(floaters, group, unpaired, search):
            if search.pairable(unpaired_after):
                break
        pairs += [(a, b) if rank[a] < rank[b] else (b, a) for a, b in bracket_pairs]
        floaters = sorted(left, key=rank.__getitem__)
        unpaired = unpaired_after
    return pairs


Candidate = tuple[Pairs, list[str], int]  # the pairs, who is left unpaired, all still unpaired


def _bracket(floaters: list[str], residents: list[str], unpaired: int,
             search: _Search) -> Iterator[Candidate]:
    """Every pairing of a bracket, in the Dutch system's order of preference, with the
    players it leaves unpaired: the most pairs; of those, the most floaters paired (the
    highest first), each against the first resident the transpositions allow; then the
    remaining residents as a homogeneous bracket."""
    size = len(floaters) + len(residents)
    for total in range(size // 2, -1, -1):
        for paired in range(min(len(floaters), len(residents), total), -1, -1):
            rest = total - paired
            if len(residents) - paired < 2 * rest:
                continue
            for chosen in itertools.combinations(floaters, paired):
                search.step()
                limbo = [name for name in floaters if name not in chosen]
                for floater_pairs, free, after in _transpositions(
                        list(chosen), residents, unpaired, search):
                    for rest_pairs, left, remaining in homogeneous(free, rest, after, search):
                        yield floater_pairs + rest_pairs, limbo + left, remaining


def homogeneous(players: list[str], count: int, unpaired: int,
                search: _Search) -> Iterator[Candidate]:
    """Pairings of `count` pairs among players of one score (rank order): the top `count`
    (S1) against the rest (S2), S2 transposed, then after each exchange in turn."""
    top, bottom = players[:count], players[count:]
    rank = {name: index for index, name in enumerate(players)}
    yield from _transpositions(top, bottom, unpaired, search)
    for moved_up, moved_down in exchanges(len(top), len(bottom), search.steps):
        search.step()
        s1 = sorted([name for index, name in enumerate(top) if index not in moved_down]
                    + [bottom[index] for index in moved_up], key=rank.__getitem__)
        s2 = sorted([name for index, name in enumerate(bottom) if index not in moved_up]
                    + [top[index] for index in moved_down], key=rank.__getitem__)
        yield from _transpositions(s1, s2, unpaired, search)


def _transpositions(s1: list[str], s2: list[str], unpaired: int,
                    search: _Search) -> Iterator[Candidate]:
    """S1's players each against an S2 player not met, S2's order taken in lexicographic
    order (first S1[0] against S2[0], S1[1] against S2[1], ...), with S2's players left.
    A pair is skipped when the players still unpaired after it could not all be paired."""
    if not s1:
        yield [], list(s2), unpaired
        return
    head, tail = s1[0], s1[1:]
    head_bit = search.bit[head]
    for index, partner in enumerate(s2):
        search.step()
        partner_bit = search.bit[partner]
        after = unpaired & ~(head_bit | partner_bit)
        if not search.allowed[head_bit] & partner_bit or not search.pairable(after):
            continue
        for pairs, left, remaining in _transpositions(
                tail, s2[:index] + s2[index + 1:], after, search):
            yield [(head, partner), *pairs], left, remaining


def exchanges(s1_size: int, s2_size: int,
              most: int = SEARCH_STEPS) -> Iterator[tuple[tuple[int, ...], tuple[int, ...]]]:
    """The exchanges between S1 and S2 of a homogeneous bracket in the handbook's order, each
    as (indices in S2 moved up, indices in S1 moved down), counted from 0: the fewest
    players; then the smallest difference between the sums of the ranks moved up and moved
    down; then the one moving down the lowest-ranked player of S1 that differs; then the
    one moving up the highest-ranked player of S2 that differs. Gives up (`_Exhausted`)
    rather than list more than `most` exchanges of one size."""
    for count in range(1, min(s1_size, s2_size) + 1):
        if math.comb(s1_size, count) * math.comb(s2_size, count) > most:
            raise _Exhausted
        options = [(up, down) for down in itertools.combinations(range(s1_size), count)
                   for up in itertools.combinations(range(s2_size), count)]
        options.sort(key=lambda option: (
            sum(s1_size + index for index in option[0]) - sum(option[1]),
            [-index for index in reversed(option[1])], option[0]))
        yield from options


def _fewest_rematches(ranked: list[str], met: Mapping[str, set[str]]) -> Pairs:
    remaining = list(ranked)
    pairs: Pairs = []
    while remaining:
        top = remaining.pop(0)
        partner = next((name for name in remaining if name not in met[top]), remaining[0])
        remaining.remove(partner)
        pairs.append((top, partner))
    return pairs
