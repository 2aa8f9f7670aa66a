"""Tournaments as pure values (docs/TOURNAMENTS.md): who entered, the rounds and their
pairings, the results, the standings and the winner. Two formats:

- **knockout**: single elimination. The field is seeded by rating; a field that is not a
  power of two is filled with byes, which go to the top seeds (seed 1 meets the last seed, the
  bracket laid out so that seeds 1 and 2 can only meet in the final). Each round's winners
  meet in bracket order.
- **Swiss**: a stated number of rounds; every player plays every round (one bye when the
  field is odd), paired by the Dutch system (`rules/pairing/dutch.py`): score groups, top
  half against bottom half, no rematch while one is avoidable, the bye to the lowest-ranked
  player without one.
- **arena**: for a stated time, every free player is paired at once with a free player of
  the nearest score (`rules/pairing/arena.py`); a win scores 2, 4 on a streak. Each pairing
  made at once is a round of its own, and several are played at the same time; once the
  time is up (`close`) nobody is paired, and the matches under way finish and count.

A knockout may add side flights, each a knockout of its own among the players who lose their
first match of the flight before it (`Flight`): a consolation flight after the main one, a
last-chance flight after the consolation. The flights are played side by side in the
tournament's rounds: a round holds the next round of every flight whose players are known.

A tournament changes only by new values (`start`, `record`, `next_round`), so the lobby can
store a value before anyone hears of it.
"""
from __future__ import annotations

import dataclasses
import enum
from collections.abc import Iterable

from fibs_server.rules.clocks.time_bank import BankTerms
from fibs_server.rules.pairing.arena import ArenaScore, arena_pairs, arena_scores
from fibs_server.rules.pairing.dutch import swiss_pairs
from fibs_server.rules.variants import Variant

WIN_POINTS = 1  # a won match and a bye each score one point; a lost or doubly forfeited one none


class Format(enum.Enum):
    KNOCKOUT = "knockout"
    SWISS = "swiss"
    ARENA = "arena"


class Flight(enum.Enum):
    MAIN = "main"
    CONSOLATION = "consolation"
    LAST_CHANCE = "lastchance"


# A side flight's players: those who lose their first match of the flight before it.
FEEDER = {Flight.CONSOLATION: Flight.MAIN, Flight.LAST_CHANCE: Flight.CONSOLATION}


@dataclasses.dataclass(frozen=True)
class Entrant:
    name: str
    rating: float


@dataclasses.dataclass(frozen=True)
class RoundTerms:
    """What every match of the tournament is played by: a round's length (the last round's
    `final_length`, or each round's from `lengths`), the variant, the Crawford rule, the turn
    clock and whether it is rated."""

    length: int = 3
    final_length: int = 3
    # The lengths of the last rounds, the final's last (5, 5, 7, 9, 11): counted from the
    # end, since a knockout's number of rounds is known only when it starts; the rounds
    # before the first of them are played to it.
    lengths: tuple[int, ...] = ()
    variant: Variant = Variant.STANDARD
    crawford: bool = True
    # Every tournament match is timed, so that a player who drops out loses by the timed
    # matches' grace period instead of holding the round up.
    turn_seconds: int = 60
    rated: bool = True
    bank: BankTerms | None = None  # a time bank instead of the turn timer (`bank 12 60`)

    def length_of(self, round_number: int, round_count: int) -> int:
        if self.lengths:
            from_the_end = round_count - round_number
            return self.lengths[max(0, len(self.lengths) - 1 - from_the_end)]
        return self.final_length if round_number == round_count else self.length


@dataclasses.dataclass(frozen=True)
class Pairing:
    """Two players of a round, or one with a bye (`second` None, won at once). `winner` None
    with `decided` True: neither showed up (Swiss only: nobody scores)."""

    first: str
    second: str | None
    winner: str | None = None
    decided: bool = False
    forfeit: bool = False  # decided by a no-show, not by play
    flight: Flight = Flight.MAIN

    @property
    def is_bye(self) -> bool:
        return self.second is None

    @property
    def players(self) -> tuple[str, ...]:
        return (self.first,) if self.second is None else (self.first, self.second)

    def opponent_of(self, name: str) -> str | None:
        return self.second if name == self.first else self.first


def bye(name: str, flight: Flight = Flight.MAIN) -> Pairing:
    return Pairing(name, None, winner=name, decided=True, flight=flight)


@dataclasses.dataclass(frozen=True)
class Round:
    number: int  # from 1
    pairings: tuple[Pairing, ...]

    @property
    def done(self) -> bool:
        return all(pairing.decided for pairing in self.pairings)

    def pairing_of(self, name: str) -> Pairing | None:
        return next((pairing for pairing in self.pairings if name in pairing.players), None)


@dataclasses.dataclass(frozen=True)
class Standing:
    place: int
    name: str
    score: int  # Swiss, arena: points; knockout: rounds won (a bye counts)
    buchholz: int  # Swiss: the sum of the opponents' scores
    sonneborn_berger: int  # Swiss: the sum of the scores of the opponents beaten
    rating: float
    streak: int = 0  # arena: wins in a row up to now (on fire from two)
    games: int = 0  # arena: matches decided


@dataclasses.dataclass(frozen=True)
class Tournament:
    format: Format
    entrants: tuple[Entrant, ...]  # in seed order: rating, highest first, then name
    round_count: int
    rounds: tuple[Round, ...] = ()
    # Out of the rounds paired from now on (they withdrew, or forfeited by not showing up);
    # what they played stays.
    withdrawn: frozenset[str] = frozenset()
    # A knockout's flights, the main one first (`round_count` is the main flight's rounds).
    flights: tuple[Flight, ...] = (Flight.MAIN,)
    closed: bool = False  # an arena whose time is up: nobody is paired any more

    @property
    def current(self) -> Round | None:
        return self.rounds[-1] if self.rounds else None

    @property
    def finished(self) -> bool:
        if self.format is Format.ARENA:
            return self.closed and all(played.done for played in self.rounds)
        current = self.current
        if current is None or not current.done:
            return False
        if len(self.flights) > 1:
            return not _next_pairings(self)
        return current.number == self.round_count

    def rating_of(self, name: str) -> float:
        return next(entrant.rating for entrant in self.entrants if entrant.name == name)

    def seed_of(self, name: str) -> int:
        return next(seed for seed, entrant in enumerate(self.entrants, 1) if entrant.name == name)


def seeded(entrants: Iterable[Entrant]) -> tuple[Entrant, ...]:
    return tuple(sorted(entrants, key=lambda entrant: (-entrant.rating, entrant.name.lower())))


def knockout_round_count(field: int) -> int:
    return max(1, (field - 1).bit_length())


def bracket_order(size: int) -> list[int]:
    """Seeds 1..size (a power of two) in bracket order: neighbours meet in the first round,
    and the top seeds meet as late as possible (1, 8, 4, 5, 2, 7, 3, 6 for eight)."""
    order = [1]
    while len(order) < size:
        total = 2 * len(order) + 1
        order = [seed for top in order for seed in (top, total - top)]
    return order


def start(format: Format, entrants: Iterable[Entrant], swiss_rounds: int = 0,
          flights: tuple[Flight, ...] = (Flight.MAIN,)) -> Tournament:
    """The tournament with its first round paired. A Swiss needs its number of rounds; a
    knockout may have side flights (`flights`, the main one first); an arena starts with no
    round (`arena_round` pairs who is free)."""
    field = seeded(entrants)
    if len(field) < 2:
        raise ValueError("a tournament needs two players at least")
    if len({entrant.name for entrant in field}) != len(field):
        raise ValueError("an entrant entered twice")
    if flights[0] is not Flight.MAIN or len(set(flights)) != len(flights) or any(
            FEEDER[flight] not in flights[:index] for index, flight in enumerate(flights[1:], 1)):
        raise ValueError("a side flight needs the flight before it")
    if format is Format.KNOCKOUT:
        tournament = Tournament(format, field, knockout_round_count(len(field)), flights=flights)
        names = tuple(entrant.name for entrant in field)
        return dataclasses.replace(tournament, rounds=(
            Round(1, _first_knockout_pairings(names, Flight.MAIN)),))
    if len(flights) > 1:
        raise ValueError("only a knockout has side flights")
    if format is Format.ARENA:
        return Tournament(format, field, 0)
    if swiss_rounds < 1:
        raise ValueError("a Swiss tournament needs one round at least")
    tournament = Tournament(format, field, swiss_rounds)
    return dataclasses.replace(tournament, rounds=(_swiss_round(tournament),))


def _first_knockout_pairings(names: tuple[str, ...], flight: Flight) -> tuple[Pairing, ...]:
    """A knockout's first round over `names` in seed order."""
    field = len(names)
    order = bracket_order(2 ** knockout_round_count(field))
    pairings = []
    for top, bottom in zip(order[::2], order[1::2], strict=True):
        # The bracket pairs a bye only with a seed better than every bye: byes to the top.
        pairings.append(bye(names[top - 1], flight) if bottom > field
                        else Pairing(names[top - 1], names[bottom - 1], flight=flight))
    return tuple(pairings)


def record(tournament: Tournament, name: str, winner: str | None,
           forfeit: bool = False, number: int | None = None) -> Tournament:
    """The current round's (or round `number`'s) pairing of `name` decided: `winner` won
    (None: neither showed, which in a knockout sends the higher seed through). A decided
    pairing stays as it is."""
    current = tournament.current if number is None else tournament.rounds[number - 1]
    pairing = current.pairing_of(name) if current is not None else None
    if current is None or pairing is None:
        raise ValueError(f"{name} plays no match in this round")
    if pairing.decided:
        return tournament
    if winner is not None and winner not in pairing.players:
        raise ValueError(f"{winner} does not play in this pairing")
    if winner is None and tournament.format is Format.KNOCKOUT:
        winner = min(pairing.players, key=tournament.seed_of)
    decided = dataclasses.replace(pairing, winner=winner, decided=True, forfeit=forfeit)
    pairings = tuple(decided if entry is pairing else entry for entry in current.pairings)
    rounds = list(tournament.rounds)
    rounds[current.number - 1] = Round(current.number, pairings)
    return dataclasses.replace(tournament, rounds=tuple(rounds))


def withdraw(tournament: Tournament, name: str) -> Tournament:
    """`name` paired no more (from the next round on)."""
    return dataclasses.replace(tournament, withdrawn=tournament.withdrawn | {name})


def reinstate(tournament: Tournament, name: str) -> Tournament:
    """`name` paired again from the next round on."""
    return dataclasses.replace(tournament, withdrawn=tournament.withdrawn - {name})


def next_round(tournament: Tournament) -> Tournament:
    """The next round paired, once the current one is done (unless it was the last)."""
    current = tournament.current
    if current is None or not current.done or tournament.finished:
        raise ValueError("the current round is not over, or it was the last")
    if tournament.format is Format.KNOCKOUT:
        following = Round(current.number + 1, _next_pairings(tournament))
    else:
        following = _swiss_round(tournament)
    return dataclasses.replace(tournament, rounds=(*tournament.rounds, following))


def busy(tournament: Tournament) -> set[str]:
    """The players of a pairing not yet decided (in an arena, of any round)."""
    return {name for played in tournament.rounds for pairing in played.pairings
            if not pairing.decided for name in pairing.players}


def arena_round(tournament: Tournament, free: Iterable[str]) -> Tournament:
    """An arena's new round: of the players `free` (online and in no match), those not
    withdrawn nor busy in a pairing paired by score (`rules/pairing/arena.py`). Unchanged
    when nobody could be paired, or the time is up."""
    if tournament.format is not Format.ARENA:
        raise ValueError("only an arena pairs whoever is free")
    taken = busy(tournament) | tournament.withdrawn
    seeds = {entrant.name: seed for seed, entrant in enumerate(tournament.entrants)}
    points = arena_standing(tournament)
    ranked = sorted({name for name in free if name in seeds and name not in taken},
                    key=lambda name: (-points[name].points, seeds[name]))
    just_played: dict[str, str] = {}
    for played in tournament.rounds:
        for pairing in played.pairings:
            if pairing.second is not None:
                just_played[pairing.first] = pairing.second
                just_played[pairing.second] = pairing.first
    pairs = arena_pairs(ranked, just_played)
    if tournament.closed or not pairs:
        return tournament
    paired = Round(len(tournament.rounds) + 1, tuple(Pairing(*pair) for pair in pairs))
    return dataclasses.replace(tournament, rounds=(*tournament.rounds, paired))


def close(tournament: Tournament) -> Tournament:
    """An arena's time up: the matches under way finish and count; nobody is paired."""
    return dataclasses.replace(tournament, closed=True)


def arena_standing(tournament: Tournament) -> dict[str, ArenaScore]:
    return arena_scores((entrant.name for entrant in tournament.entrants), (
        (pairing.first, pairing.second, pairing.winner) for played in tournament.rounds
        for pairing in played.pairings if pairing.decided and pairing.second is not None))


def winner(tournament: Tournament) -> str | None:
    if not tournament.finished:
        return None
    return standings(tournament)[0].name


# --- scores and standings -------------------------------------------------------------------

def scores(tournament: Tournament) -> dict[str, int]:
    """The main flight's points (a side flight has its own winner, not points)."""
    if tournament.format is Format.ARENA:
        return {name: score.points for name, score in arena_standing(tournament).items()}
    points = {entrant.name: 0 for entrant in tournament.entrants}
    for played in tournament.rounds:
        for pairing in played.pairings:
            if pairing.decided and pairing.winner is not None and pairing.flight is Flight.MAIN:
                points[pairing.winner] += WIN_POINTS
    return points


def opponents(tournament: Tournament) -> dict[str, list[str]]:
    met: dict[str, list[str]] = {entrant.name: [] for entrant in tournament.entrants}
    for played in tournament.rounds:
        for pairing in played.pairings:
            if pairing.second is not None:
                met[pairing.first].append(pairing.second)
                met[pairing.second].append(pairing.first)
    return met


def byes(tournament: Tournament) -> set[str]:
    return {pairing.first for played in tournament.rounds for pairing in played.pairings
            if pairing.is_bye}


def standings(tournament: Tournament) -> list[Standing]:
    """Swiss: score, then Buchholz, then Sonneborn-Berger, then rating. Knockout: rounds won
    (the winner first, then the final's loser, ...), then seed. Arena: points, then fewer
    games (the same points in fewer), then seed."""
    if tournament.format is Format.ARENA:
        arena = arena_standing(tournament)
        ranked = sorted(enumerate(tournament.entrants), key=lambda seeded: (
            -arena[seeded[1].name].points, arena[seeded[1].name].games, seeded[0]))
        return [Standing(place, entrant.name, arena[entrant.name].points, 0, 0, entrant.rating,
                         arena[entrant.name].streak, arena[entrant.name].games)
                for place, (_seed, entrant) in enumerate(ranked, 1)]
    points = scores(tournament)
    met = opponents(tournament)
    beaten: dict[str, list[str]] = {entrant.name: [] for entrant in tournament.entrants}
    for played in tournament.rounds:
        for pairing in played.pairings:
            loser = pairing.opponent_of(pairing.winner) if pairing.winner else None
            if pairing.winner is not None and loser is not None and pairing.flight is Flight.MAIN:
                beaten[pairing.winner].append(loser)
    rows = [(entrant.name, points[entrant.name],
             sum(points[opponent] for opponent in met[entrant.name]),
             sum(points[opponent] for opponent in beaten[entrant.name]), entrant.rating, seed)
            for seed, entrant in enumerate(tournament.entrants)]
    if tournament.format is Format.SWISS:
        rows.sort(key=lambda row: (-row[1], -row[2], -row[3], row[5]))
    else:
        rows.sort(key=lambda row: (-row[1], row[5]))
    return [Standing(place, name, score, buchholz, berger, rating)
            for place, (name, score, buchholz, berger, rating, _seed) in enumerate(rows, 1)]


# --- Swiss pairing --------------------------------------------------------------------------

def _swiss_round(tournament: Tournament) -> Round:
    points = scores(tournament)
    # Seed order is rating order: ranked by score, then rating.
    ranked = sorted((entrant.name for entrant in tournament.entrants
                     if entrant.name not in tournament.withdrawn), key=lambda name: (
        -points[name], tournament.seed_of(name)))
    met = {name: set(names) for name, names in opponents(tournament).items()}
    pairs = swiss_pairs(ranked, points, met, byes(tournament))
    return Round(len(tournament.rounds) + 1, tuple(
        Pairing(top, bottom) if bottom is not None else bye(top) for top, bottom in pairs))


# --- flights --------------------------------------------------------------------------------

def flight_rounds(tournament: Tournament, flight: Flight) -> list[tuple[int, tuple[Pairing, ...]]]:
    """The flight's rounds so far: (the tournament's round, the flight's pairings in it)."""
    return [(played.number, pairings) for played in tournament.rounds
            if (pairings := tuple(pairing for pairing in played.pairings
                                  if pairing.flight is flight))]


def flight_field(tournament: Tournament, flight: Flight) -> tuple[str, ...] | None:
    """The flight's players in seed order (the main flight's seeds), None while they are not
    known: a side flight's are those who lose their first match of the flight before it (a
    bye is no match: a player with a bye in its first round joins if they lose in its second),
    but for those withdrawn when it is paired."""
    if flight is Flight.MAIN:
        return tuple(entrant.name for entrant in tournament.entrants)
    rounds = flight_rounds(tournament, flight)
    if rounds:
        return tuple(sorted((name for pairing in rounds[0][1] for name in pairing.players),
                            key=tournament.seed_of))
    feeder = flight_rounds(tournament, FEEDER[flight])
    if not feeder:  # the flight before not begun, or not played: then neither is this one
        before = flight_field(tournament, FEEDER[flight])
        return None if before is None or len(before) >= 2 else ()
    if not all(pairing.decided for pairing in feeder[0][1]):
        return None
    had_bye = {pairing.first for pairing in feeder[0][1] if pairing.is_bye}
    losers = [_loser(pairing) for pairing in feeder[0][1] if not pairing.is_bye]
    if had_bye:
        if len(feeder) < 2 or not all(pairing.decided for pairing in feeder[1][1]):
            return None
        losers += [loser for pairing in feeder[1][1] if (loser := _loser(pairing)) in had_bye]
    return tuple(sorted((name for name in losers
                         if name is not None and name not in tournament.withdrawn),
                        key=tournament.seed_of))


def _loser(pairing: Pairing) -> str | None:
    return pairing.opponent_of(pairing.winner) if pairing.winner is not None else None


def flight_round_count(tournament: Tournament, flight: Flight) -> int | None:
    """How many rounds the flight has (None while its players are not known; 0: it has fewer
    than two and is not played)."""
    if flight is Flight.MAIN:
        return tournament.round_count
    field = flight_field(tournament, flight)
    if field is None:
        return None
    return knockout_round_count(len(field)) if len(field) >= 2 else 0


def flight_round_of(tournament: Tournament, number: int, flight: Flight) -> tuple[int, int]:
    """The flight's round that the tournament's round `number` plays, and the flight's number
    of rounds (a side flight's lengths are counted back from its own final)."""
    if flight is Flight.MAIN:
        return number, tournament.round_count
    numbers = [played for played, _pairings in flight_rounds(tournament, flight)]
    count = flight_round_count(tournament, flight)
    assert count is not None and number in numbers
    return numbers.index(number) + 1, count


def flight_winner(tournament: Tournament, flight: Flight) -> str | None:
    """The winner of the flight's final, once it is played."""
    rounds = flight_rounds(tournament, flight)
    count = flight_round_count(tournament, flight)
    if not rounds or len(rounds) != count:
        return None
    final = rounds[-1][1]
    return final[0].winner if len(final) == 1 and final[0].decided else None


def _next_pairings(tournament: Tournament) -> tuple[Pairing, ...]:
    """The next round of a knockout: each flight's next round, once its players are known
    (a flight that has begun pairs its last round's winners, neighbours meeting)."""
    pairings: list[Pairing] = []
    for flight in tournament.flights:
        rounds = flight_rounds(tournament, flight)
        if not rounds:
            field = flight_field(tournament, flight)
            if field is not None and len(field) >= 2:
                pairings += _first_knockout_pairings(field, flight)
            continue
        last = rounds[-1][1]
        if len(rounds) == flight_round_count(tournament, flight) or not all(
                pairing.decided for pairing in last):
            continue
        winners = [pairing.winner for pairing in last]
        pairings += [Pairing(top, bottom, flight=flight) for top, bottom
                     in zip(winners[::2], winners[1::2], strict=True)
                     if top is not None and bottom is not None]
    return tuple(pairings)
