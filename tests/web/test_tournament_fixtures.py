"""The tournaments the page's unit tests lay out (tests/web/js/fixtures/tournaments.json) are
the server's own `tournament` messages, valid by the schema: made here from the pure rules
and `web_events.tournament`, and compared with the file, so that the file cannot drift from
what the server sends. `python -m tests.web.test_tournament_fixtures` writes it anew."""
from __future__ import annotations

import json
import pathlib

from fibs_server.protocol.views import web_events
from fibs_server.protocol.wording.tournament_texts import Listed, Shown
from fibs_server.rules import tournament as rules
from fibs_server.rules.tournament import Entrant, Format, RoundTerms
from tests.protocol.test_web_events import valid

FIXTURE = pathlib.Path(__file__).parent / "js" / "fixtures" / "tournaments.json"
FIELD = [Entrant(name, 1700 - 25 * index) for index, name in enumerate(
    ("alice", "bob", "carol", "dave", "erin", "frank"))]
TERMS = RoundTerms(length=3, final_length=5)


def message(tournament_id: int, played: rules.Tournament, status: str,
            ends_in_seconds: int | None = None) -> dict:
    winner = rules.winner(played)
    entry = Listed(tournament_id, played.format, status, "alice", TERMS, len(played.entrants),
                   8, winner, played.round_count if played.format is Format.SWISS else 0,
                   flights=played.flights,
                   arena_minutes=10 if played.format is Format.ARENA else 0)
    return valid(web_events.tournament(Shown(entry, None, None, played.entrants, played,
                                             ends_in_seconds=ends_in_seconds)))


def arena() -> rules.Tournament:
    """An arena of four, 245 s left: alice has won three in a row (2 + 2 + 4), the third
    against dave, who had beaten bob; carol and bob play now."""
    played = rules.start(Format.ARENA, FIELD[:4])
    for wins in (("alice", "carol"), ("alice", "dave"), ("alice", None)):
        played = rules.arena_round(played, [entrant.name for entrant in FIELD[:4]])
        assert played.current is not None
        for pairing, won in zip(played.current.pairings, wins, strict=True):
            if won is not None:
                played = rules.record(played, pairing.first, won, number=played.current.number)
    return played


def fixtures() -> dict[str, dict]:
    # A knockout of six: seeds 1 and 2 have byes; 3 v 6 decided (6 wins), 4 v 5 not yet.
    knockout = rules.start(Format.KNOCKOUT, FIELD)
    knockout = rules.record(knockout, "carol", "frank")
    # ... then 4 v 5 by forfeit, and round 2: alice beats erin, bob v frank to come.
    second = rules.next_round(rules.record(knockout, "dave", "erin", forfeit=True))
    second = rules.record(second, "alice", "alice")
    # ... and to the end: bob beats frank, alice beats bob in the final.
    won = rules.record(second, "bob", "bob")
    won = rules.record(rules.next_round(won), "alice", "alice")
    # A Swiss of five, in round 3 of 3: the first of each pairing won rounds 1 and 2.
    swiss = rules.start(Format.SWISS, FIELD[:5], swiss_rounds=3)
    for _ in (1, 2):
        assert swiss.current is not None
        for pairing in swiss.current.pairings:
            swiss = rules.record(swiss, pairing.first, pairing.first)
        swiss = rules.next_round(swiss)
    # The six again, with a consolation flight, in round 3: the main final to come beside the
    # consolation's first round (bob, who lost his first match after a bye, has its bye;
    # carol beat dave).
    flights = rules.start(Format.KNOCKOUT, FIELD,
                          flights=(rules.Flight.MAIN, rules.Flight.CONSOLATION))
    flights = rules.record(rules.record(flights, "carol", "frank"), "dave", "erin")
    flights = rules.next_round(flights)
    flights = rules.record(rules.record(flights, "alice", "alice"), "bob", "frank")
    flights = rules.record(rules.next_round(flights), "carol", "carol")
    # A daily knockout in sign-up, 10 minutes before its start at 2026-12-24 20:00 UTC.
    daily = Listed(3, Format.KNOCKOUT, "signup", "alice", TERMS, 2, 8,
                   starts_at=1_798_142_400, repeat_seconds=24 * 3600)
    return {"daily_signup": valid(web_events.tournament(Shown(daily, 600, None,
                                                              tuple(FIELD[:2]), None))),
            "knockout_round_one": message(1, knockout, "running"),
            "knockout_consolation": message(4, flights, "running"),
            "knockout_round_two": message(1, second, "running"),
            "knockout_won": message(1, won, "finished"),
            "swiss_round_three": message(2, swiss, "running"),
            "arena_running": message(4, arena(), "running", ends_in_seconds=245)}


def encoded() -> str:
    return json.dumps(fixtures(), indent=1) + "\n"


def test_the_page_tests_tournaments_are_the_servers_messages():
    assert FIXTURE.read_text() == encoded(), "run python -m tests.web.test_tournament_fixtures"


if __name__ == "__main__":
    FIXTURE.write_text(encoded())
