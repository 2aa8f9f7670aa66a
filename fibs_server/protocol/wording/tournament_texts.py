"""What the tournament director tells entrants (docs/TOURNAMENTS.md). The invitation to a
round's match is FIBS's own (`game_texts.invitation`); these lines come beside it, each
beginning with `Tournament <id>:` so that a program can tell them apart."""
from __future__ import annotations

import dataclasses
import datetime
from collections.abc import Sequence

from fibs_server.protocol.match_rules import bank_words, shown_variant
from fibs_server.protocol.texts import plural
from fibs_server.protocol.tournament_options import REPEAT_WORDS
from fibs_server.protocol.wording.coded_texts import refusal
from fibs_server.rules.tournament import (
    Entrant,
    Flight,
    Format,
    Pairing,
    RoundTerms,
    Tournament,
    flight_field,
    flight_round_of,
    flight_rounds,
    flight_winner,
    standings,
)


def _about(tournament_id: int, text: str) -> str:
    return f"Tournament {tournament_id}: {text}"


FLIGHT_NAMES = {Flight.MAIN: "main", Flight.CONSOLATION: "consolation",
                Flight.LAST_CHANCE: "last-chance"}
# Who plays a side flight, as its players are told when it begins.
FLIGHT_PLAYERS = {Flight.CONSOLATION: "lost their first match",
                  Flight.LAST_CHANCE: "lost their first consolation match"}


def round_name(number: int, flight: Flight = Flight.MAIN) -> str:
    """`round 2`, or a side flight's own round: `consolation round 1`."""
    return (f"round {number}" if flight is Flight.MAIN
            else f"{FLIGHT_NAMES[flight]} round {number}")


def round_begins(tournament_id: int, number: int, count: int,
                 flight: Flight = Flight.MAIN) -> str:
    return _about(tournament_id, f"{round_name(number, flight)} of {count} begins.")


def flight_begins(tournament_id: int, flight: Flight, players: int) -> str:
    return _about(tournament_id, f"you play in the {FLIGHT_NAMES[flight]} flight, a knockout "
                  f"of {plural(players, 'player')} who {FLIGHT_PLAYERS[flight]}.")


def flight_won(tournament_id: int, flight: Flight, winner: str) -> str:
    return _about(tournament_id, f"{winner} wins the {FLIGHT_NAMES[flight]} flight.")


def flights_words(flights: Sequence[Flight]) -> str:
    """`with a consolation flight`, `with consolation and last-chance flights`; "" for none."""
    side = [FLIGHT_NAMES[flight] for flight in flights[1:]]
    if not side:
        return ""
    return (f"with a {side[0]} flight" if len(side) == 1
            else f"with {', '.join(side[:-1])} and {side[-1]} flights")


def your_match(tournament_id: int, opponent: str, length: int, no_show_minutes: int) -> str:
    return _about(tournament_id, f"you play {opponent}, {plural(length, 'point')}. The server "
                  "starts the match as soon as you are both online and free (no need to "
                  f"join); whoever is not there within {plural(no_show_minutes, 'minute')} of "
                  "the round's start loses it by forfeit and plays no later round.")


def arena_match(tournament_id: int, opponent: str, length: int) -> str:
    return _about(tournament_id, f"you play {opponent}, {plural(length, 'point')}. The server "
                  "starts the match at once (no need to join).")


def arena_ends_in(tournament_id: int, seconds: int) -> str:
    return _about(tournament_id, f"the arena ends in {_minutes(seconds)}.")


def arena_time_up(tournament_id: int) -> str:
    return _about(tournament_id, "time is up: no new match starts; the matches under way "
                  "finish and count.")


def arena_standing(tournament_id: int, place: int, field: int, points: int) -> str:
    return _about(tournament_id, f"the arena is over: you are {_ordinal(place)} of {field}, "
                  f"with {plural(points, 'point')}.")


def _minutes(seconds: int) -> str:
    """Seconds left as whole minutes, rounded up (a minute and a half is `2 minutes`)."""
    return plural(max(0, -(-seconds // 60)), "minute")


def match_begins(tournament_id: int, number: int, opponent: str,
                 flight: Flight = Flight.MAIN) -> str:
    return _about(tournament_id, f"your {round_name(number, flight)} match with {opponent} "
                  "begins.")


def your_bye(tournament_id: int, number: int, flight: Flight = Flight.MAIN) -> str:
    return _about(tournament_id, f"you have a bye in {round_name(number, flight)}.")


def forfeited(tournament_id: int, absent: str, winner: str | None) -> str:
    if winner is None:
        return _about(tournament_id, f"{absent} did not show up; nobody wins that match.")
    return _about(tournament_id, f"{absent} did not show up; {winner} wins by forfeit.")


def no_show_withdrawn(tournament_id: int, name: str) -> str:
    return _about(tournament_id, f"{name} did not show up and plays no later round (an "
                  f"administrator may reinstate them: 'tournament reinstate {tournament_id} "
                  f"{name}').")


def withdrawn_forfeit(tournament_id: int, withdrawn: str, winner: str | None) -> str:
    if winner is None:
        return _about(tournament_id, f"{withdrawn} has withdrawn; nobody wins that match.")
    return _about(tournament_id, f"{withdrawn} has withdrawn; {winner} wins by forfeit.")


def withdraws(tournament_id: int, name: str) -> str:
    return _about(tournament_id, f"{name} withdraws and plays no later round.")


def reinstated(tournament_id: int, name: str, by: str) -> str:
    return _about(tournament_id, f"{name} is reinstated by {by} and plays from the next round on.")


def your_standing(tournament_id: int, number: int, place: int, field: int, score: int) -> str:
    return _about(tournament_id, f"after round {number} you are {_ordinal(place)} of {field}, "
                  f"with {plural(score, 'point')}.")


def on_your_return(tournament_id: int, played: Tournament, name: str) -> list[str]:
    """What an entrant of a running tournament hears as they log in: their latest decided
    match (decided while they were away, perhaps), their place, and whether they play on."""
    lines = []
    latest = next((pairing for played_round in reversed(played.rounds)
                   if (pairing := played_round.pairing_of(name)) is not None
                   and pairing.decided and not pairing.is_bye), None)
    if latest is not None and played.format is Format.ARENA:  # its rounds are no rounds
        lines.append(_about(tournament_id, f"your last match: {pairing_words(latest)}."))
    elif latest is not None:
        number = next(r.number for r in played.rounds if latest in r.pairings)
        own, _count = flight_round_of(played, number, latest.flight)
        lines.append(_about(tournament_id, f"{round_name(own, latest.flight)}: "
                            f"{pairing_words(latest)}."))
    rows = standings(played)
    row = next(row for row in rows if row.name == name)
    lines.append(_about(tournament_id, f"you are {_ordinal(row.place)} of {len(rows)}, with "
                        f"{plural(row.score, 'point')}."))
    if name in played.withdrawn:
        lines.append(_about(tournament_id, "you play no later round (an administrator may "
                            f"reinstate you: 'tournament reinstate {tournament_id} {name}')."))
    return lines


def _a(kind: str) -> str:
    return f"{'an' if kind[0] in 'aeiou' else 'a'} {kind}"


def _ordinal(place: int) -> str:
    suffix = "th" if 10 <= place % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(place % 10, "th")
    return f"{place}{suffix}"


def result(tournament_id: int, winner: str, loser: str, flight: Flight = Flight.MAIN) -> str:
    return _about(tournament_id, f"{winner} beats {loser}" + (
        "." if flight is Flight.MAIN else f" in the {FLIGHT_NAMES[flight]} flight."))


def tournament_won(tournament_id: int, winner: str) -> str:
    return _about(tournament_id, f"the tournament is over. {winner} wins it!")


def too_few_players(tournament_id: int) -> str:
    return _about(tournament_id, "cancelled: fewer than two players joined.")


def tournament_starts(tournament_id: int, players: int, arena_minutes: int = 0) -> str:
    if arena_minutes:
        return _about(tournament_id, f"the arena starts with {players} players and ends in "
                      f"{plural(arena_minutes, 'minute')}.")
    return _about(tournament_id, f"the tournament starts with {players} players.")


def utc_words(moment: int) -> str:
    """A start time as the texts give it: `2026-12-24 20:00 UTC`."""
    return datetime.datetime.fromtimestamp(moment, datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")


def starts_soon(tournament_id: int, starts_at: int, in_seconds: int) -> str:
    """The reminder to the entrants of a tournament with a start time, a few minutes before."""
    minutes = plural(max(1, -(-in_seconds // 60)), "minute")
    return _about(tournament_id, f"starts in {minutes}, at {utc_words(starts_at)}. You have "
                  f"entered it: be online and free then.")


def next_opens(tournament_id: int, previous: int, starts_at: int, repeat_seconds: int) -> str:
    """A recurring tournament's next one, made as the one before starts or is cancelled."""
    return _about(tournament_id, f"the next of tournament {previous}'s series "
                  f"({repeat_words(repeat_seconds)}) opens; it starts at {utc_words(starts_at)}. "
                  f"Type 'tournament join {tournament_id}' to enter it.")


def repeat_words(repeat_seconds: int) -> str:
    return f"every {REPEAT_WORDS[repeat_seconds]}"


# --- the commands' answers (docs/TOURNAMENTS.md, "Commands") --------------------------------

USAGE = refusal("tournament_usage", "** usage: tournament create|join|leave|withdraw|reinstate"
                "|list|show|cancel|notify ... (type 'help tournament')")
NOTIFY_ON = "You will be told when a tournament opens, starts or ends."
NOTIFY_OFF = "You won't be told of tournaments you have not entered."
NOT_ALLOWED_TO_CREATE = refusal("tournament_create_not_allowed",
                                "** Only administrators and experienced players may create "
                                "tournaments here.")
NO_TOURNAMENTS = "There are no tournaments."
NO_BOTS_ON_THIS_SERVER = refusal("tournament_bots_off", "** This server has no bots to enter.")
ONLY_ADMINS_REPEAT = refusal("tournament_repeat_not_allowed",
                             "** Only an administrator may create a recurring tournament.")


def read_too_often(seconds: int) -> str:
    return refusal("tournaments_read_too_often", f"** Too many tournaments read: try again in "
                   f"{seconds} second{'s' if seconds != 1 else ''}.", seconds=seconds)


def no_such(typed: str) -> str:
    return refusal("no_such_tournament", f"** There is no tournament {typed}.", tournament=typed)


def created(tournament_id: int) -> str:
    return _about(tournament_id, f"created. Type 'tournament join {tournament_id}' to enter it.")


def opened(tournament_id: int, creator: str, kind: str, length: int, cap: int) -> str:
    """The line to those who asked to hear of tournaments (`tournament notify on`)."""
    return _about(tournament_id, f"{creator} opens {_a(kind)} of {length} point matches for up "
                  f"to {plural(cap, 'player')}. Type 'tournament join {tournament_id}' to enter it.")


def joined(tournament_id: int, name: str) -> str:
    return _about(tournament_id, f"{name} has joined.")


def left(tournament_id: int, name: str) -> str:
    return _about(tournament_id, f"{name} has left.")


NAMED = 5  # names a summary of sign-ups lists of each kind, the rest counted


def signed_up(tournament_id: int, joiners: Sequence[str], leavers: Sequence[str]) -> str:
    """The sign-ups and withdrawals since the last told, in one line: `joined` or `left`
    when one changed, else `Tournament 1: bob, carol and 7 others have joined; dave has
    left.`"""
    if len(joiners) + len(leavers) == 1:
        return (joined(tournament_id, joiners[0]) if joiners
                else left(tournament_id, leavers[0]))
    parts = [f"{_listed(names)} {'has' if len(names) == 1 else 'have'} {verb}"
             for names, verb in ((joiners, "joined"), (leavers, "left")) if names]
    return _about(tournament_id, "; ".join(parts) + ".")


def _listed(names: Sequence[str]) -> str:
    if len(names) > NAMED:
        return f"{', '.join(names[:NAMED])} and {plural(len(names) - NAMED, 'other')}"
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def cancelled(tournament_id: int, by: str, series_ends: bool = False) -> str:
    return _about(tournament_id, f"cancelled by {by}" + (
        "; its series ends (no next one is made)." if series_ends else "."))


def too_many_open(limit: int) -> str:
    return refusal("tournament_too_many_open", f"** You have {plural(limit, 'open tournament')} already: "
                   "cancel one, or wait until one ends.", limit=limit)


def server_full(limit: int) -> str:
    return refusal("tournament_server_full", f"** There {'is' if limit == 1 else 'are'} {plural(limit, 'open tournament')} already: "
                   "try again when one ends.", limit=limit)


def cap_too_large(limit: int) -> str:
    return refusal("tournament_cap_too_large", f"** A tournament may have {plural(limit, 'player')} at "
                   "most.", limit=limit)


def not_in_signup(tournament_id: int) -> str:
    return refusal("tournament_not_in_signup", f"** Tournament {tournament_id} is not open for "
                   "sign-up.", tournament=tournament_id)


def full(tournament_id: int) -> str:
    return refusal("tournament_full", f"** Tournament {tournament_id} is full.",
                   tournament=tournament_id)


def entered_already(tournament_id: int, name: str) -> str:
    return refusal("tournament_entered_already", f"** {name} has entered tournament "
                   f"{tournament_id} already.", tournament=tournament_id, name=name)


def not_entered(tournament_id: int) -> str:
    return refusal("tournament_not_entered", f"** You have not entered tournament "
                   f"{tournament_id}, or it has begun.", tournament=tournament_id)


def not_playing(tournament_id: int) -> str:
    return refusal("tournament_not_playing", f"** You play no later round of tournament "
                   f"{tournament_id}.", tournament=tournament_id)


def only_admins_reinstate(tournament_id: int) -> str:
    return refusal("tournament_reinstate_admins", f"** Only an administrator may reinstate a "
                   f"player of tournament {tournament_id}.", tournament=tournament_id)


def not_withdrawn(tournament_id: int, name: str) -> str:
    return refusal("tournament_not_withdrawn", f"** {name} has not withdrawn from running "
                   f"tournament {tournament_id}.", tournament=tournament_id, name=name)


def not_yours(tournament_id: int) -> str:
    return refusal("tournament_not_yours", f"** Only its creator or an administrator may "
                   f"cancel tournament {tournament_id}.", tournament=tournament_id)


def not_open(tournament_id: int) -> str:
    return refusal("tournament_over", f"** Tournament {tournament_id} is over.",
                   tournament=tournament_id)


def no_bots(tournament_id: int) -> str:
    return refusal("tournament_no_bots", f"** Tournament {tournament_id} takes no bots, or "
                   "only its creator may enter one.", tournament=tournament_id)


def no_such_bot(word: str) -> str:
    return refusal("tournament_no_such_bot", f"** There is no bot '{word}' online here.",
                   word=word)


# --- list and show ---------------------------------------------------------------------------

def terms_words(terms: RoundTerms) -> str:
    """`5 points (final 7), nackgammon, no Crawford, 60 s a turn, unrated`; with each round's
    length, `5-5-7-9-11 points by round`."""
    words = [f"{'-'.join(map(str, terms.lengths))} points by round" if terms.lengths
             else plural(terms.length, "point")
             + (f" (final {terms.final_length})" if terms.final_length != terms.length else "")]
    words += shown_variant(terms.variant)
    if not terms.crawford:
        words.append("no Crawford")
    words.append(f"{terms.turn_seconds} s a turn" if terms.bank is None
                 else bank_words(terms.bank))
    if not terms.rated:
        words.append("unrated")
    return ", ".join(words)


@dataclasses.dataclass(frozen=True)
class Listed:
    """One tournament as `tournament list` and `show` name it (and the page's list)."""

    tournament_id: int
    kind: Format
    status: str  # signup, running, finished, cancelled
    creator: str
    terms: RoundTerms
    entered: int
    cap: int
    winner: str | None = None
    swiss_rounds: int = 0  # a Swiss's rounds, as asked; a knockout's depend on its field
    starts_at: int | None = None  # the start time (Unix seconds), if it has one
    repeat_seconds: int | None = None  # a recurring tournament's period
    flights: tuple[Flight, ...] = (Flight.MAIN,)  # a knockout's, the main one first
    arena_minutes: int = 0  # an arena's time


@dataclasses.dataclass(frozen=True)
class Shown:
    """One tournament as a whole, as `tournament show` tells it and the page's `tournament`
    message shows it: the one view both are made from. `played` None: still in sign-up."""

    entry: Listed
    start_in_seconds: int | None  # the sign-up closes this many seconds from now ...
    start_when: int | None  # ... or when this many have joined
    entrants: tuple[Entrant, ...]  # in the order they joined; seeded once it started
    played: Tournament | None
    bots_allowed: bool = False
    ends_in_seconds: int | None = None  # a running arena's time left

    @property
    def running_round(self) -> int | None:
        """The number of the round being played, while the tournament runs."""
        played = self.played
        if played is None or played.current is None or self.entry.status != "running" \
                or played.format is Format.ARENA:
            return None
        return played.current.number


def list_lines(listed: Sequence[Listed]) -> list[str]:
    if not listed:
        return [NO_TOURNAMENTS]
    return ["Tournaments (type 'tournament show <id>'):", *(
        f"  {entry.tournament_id:>4}  {entry.kind.value:<8}  {entry.status:<9}  "
        f"{entry.entered:>3}/{entry.cap:<3}  by {entry.creator}: "
        + (f"{plural(entry.arena_minutes, 'minute')} of " if entry.arena_minutes else "")
        + terms_words(entry.terms)
        + (f"; {flights_words(entry.flights)}" if len(entry.flights) > 1 else "")
        + "".join(f"; {words}" for words in [schedule_words(entry)] if words)
        + (f"; won by {entry.winner}" if entry.winner else "")
        for entry in listed)]


def schedule_words(entry: Listed) -> str:
    """`starts 2026-12-24 20:00 UTC, every day`: the start time while in sign-up, and the
    recurrence; empty for neither."""
    words = []
    if entry.starts_at is not None and entry.status == "signup":
        words.append(f"starts {utc_words(entry.starts_at)}")
    if entry.repeat_seconds:
        words.append(repeat_words(entry.repeat_seconds))
    return ", ".join(words)


def show_lines(shown: Shown) -> list[str]:
    """The tournament as a whole: its terms, its entrants, every round's pairings with
    their results, and the standings."""
    entry, played, entrants = shown.entry, shown.played, shown.entrants
    number = shown.running_round
    side_flights = len(entry.flights) > 1
    lines = [_about(entry.tournament_id, f"{_a(entry.kind.value)} "
                    + (f"{flights_words(entry.flights)} " if side_flights else "")
                    + f"by {entry.creator}, "
                    + (f"{plural(entry.arena_minutes, 'minute')} of " if entry.arena_minutes
                       else "")
                    + f"{terms_words(entry.terms)}; {entry.status}" + (
                        # A side flight's rounds may follow the main flight's last.
                        (f", round {number}" if side_flights
                         else f", round {number} of {played.round_count}")
                        if played is not None and number is not None else "")
                    + ("" if shown.ends_in_seconds is None else ", time is up"
                       if shown.ends_in_seconds <= 0
                       else f", {_minutes(shown.ends_in_seconds)} left")
                    + (f"; won by {entry.winner}" if entry.winner else "") + "."),
             f"  Start: {starts_words(shown.start_in_seconds, shown.start_when, entry.starts_at)}"
             + (f"; {repeat_words(entry.repeat_seconds)}" if entry.repeat_seconds else "")
             + ".",
             f"  Entrants ({len(entrants)} of {entry.cap}): " + (", ".join(
                 f"{e.name} ({e.rating:.0f})" for e in entrants) or "none yet")]
    if played is None:
        return lines
    arena = played.format is Format.ARENA
    if arena and played.rounds:  # its rounds are the pairings made at once: one list
        lines.append("  Matches: " + "; ".join(pairing_words(pairing) for played_round
                                               in played.rounds
                                               for pairing in played_round.pairings))
    for number, pairings in () if arena else flight_rounds(played, Flight.MAIN):
        lines.append(f"  Round {number}: " + "; ".join(map(pairing_words, pairings)))
    for flight in played.flights[1:]:
        lines += flight_lines(played, flight)
    swiss = played.format is Format.SWISS
    forfeits = forfeit_wins(played)
    lines.append("  Standings: " + "; ".join(
        f"{row.place}. {row.name} {row.score}"
        + (f" (Buchholz {row.buchholz}, SB {row.sonneborn_berger})" if swiss else "")
        + (f" ({plural(row.games, 'match', 'matches')}"
           + (f", {row.streak} wins in a row" if row.streak >= 2 else "") + ")"
           if arena else "")
        + (f" ({forfeits[row.name]} by forfeit)" if forfeits.get(row.name) else "")
        + (" withdrawn" if row.name in played.withdrawn else "")
        for row in standings(played)))
    return lines


def flight_lines(played: Tournament, flight: Flight) -> list[str]:
    """A side flight as `show` tells it: its players, its rounds (its own numbers, the
    tournament's round after each) and its winner."""
    name = FLIGHT_NAMES[flight]
    field = flight_field(played, flight)
    if field is None:
        return [f"  {name.capitalize()} flight: its players are not known yet."]
    if len(field) < 2:
        return [f"  {name.capitalize()} flight: not played (fewer than two players)."]
    won = flight_winner(played, flight)
    lines = [f"  {name.capitalize()} flight ({plural(len(field), 'player')}): "
             + ", ".join(field) + (f"; won by {won}" if won else "") + "."]
    for number, pairings in flight_rounds(played, flight):
        own, _count = flight_round_of(played, number, flight)
        lines.append(f"  {round_name(own, flight).capitalize()} (round {number}): "
                     + "; ".join(map(pairing_words, pairings)))
    return lines


def forfeit_wins(played: Tournament) -> dict[str, int]:
    """The points each player scored by an opponent's forfeit (a no-show, a withdrawal)."""
    counted: dict[str, int] = {}
    for played_round in played.rounds:
        for pairing in played_round.pairings:
            if pairing.forfeit and pairing.winner is not None and pairing.second is not None \
                    and pairing.flight is Flight.MAIN:
                counted[pairing.winner] = counted.get(pairing.winner, 0) + 1
    return counted


def pairing_words(pairing: Pairing) -> str:
    if pairing.second is None:
        return f"{pairing.first} has a bye"
    if not pairing.decided:
        return f"{pairing.first} v {pairing.second}"
    if pairing.winner is None:
        return f"{pairing.first} v {pairing.second}, neither showed"
    loser = pairing.opponent_of(pairing.winner)
    return f"{pairing.winner} beats {loser}" + (" by forfeit" if pairing.forfeit else "")


def starts_words(start_in_seconds: int | None, start_when: int | None,
                 starts_at: int | None = None) -> str:
    """When the sign-up closes, as `show` tells it."""
    words = []
    if start_in_seconds is not None:
        words.append(f"in {plural(max(0, start_in_seconds) // 60, 'minute')}" + (
            f" (at {utc_words(starts_at)})" if starts_at is not None else ""))
    if start_when is not None:
        words.append(f"when {start_when} have joined")
    return " or ".join(words)
