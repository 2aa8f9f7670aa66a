"""The web page's typed messages (protocol/views/web_events.py): every message of whole matches
validates against the published schema, and the board message says what the rules say."""
from __future__ import annotations

import dataclasses
import functools
import json
import random
from collections.abc import Callable
from pathlib import Path

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fibs_server
from fibs_server.bots import BEGINNER
from fibs_server.protocol import chat, texts
from fibs_server.protocol.clip import WhoInfo
from fibs_server.protocol.info import SavedMatch
from fibs_server.protocol.match_rules import MatchTerms, parse_match_terms
from fibs_server.protocol.refusals import refusal_text
from fibs_server.protocol.settings import toggle_reply
from fibs_server.protocol.views import web_events
from fibs_server.protocol.views.match_views import WATCHERS, say
from fibs_server.protocol.wording import game_texts
from fibs_server.protocol.wording.clock_texts import ClockReading
from fibs_server.protocol.wording.table_texts import TableRow
from fibs_server.protocol.wording.tournament_texts import (
    Listed,
    Shown,
    list_lines,
    on_your_return,
    show_lines,
)
from fibs_server.rules import events as ev
from fibs_server.rules import tournament as tournament_rules
from fibs_server.rules.dice import SeededDice
from fibs_server.rules.match import Match, Moment, Phase
from fibs_server.rules.ratings import PlayerRating, rate_match
from fibs_server.rules.refusals import Refusal, Refused
from fibs_server.rules.tournament import Entrant, Format, RoundTerms
from fibs_server.rules.variants import MatchRules, Variant
from tests.bots.helpers import MAX_ACTIONS, bot_turn, finished, random_action

SCHEMA_PATH = Path(fibs_server.__file__).parent / "web" / "static" / "events.schema.json"
SCHEMA = json.loads(SCHEMA_PATH.read_text())


class MessageValidator:
    """The schema's check of one message, through the branch its `type` names: the same verdict
    as the whole schema's `oneOf` (each branch is the definition named as its type, and
    `test_each_branch_of_the_schema_is_the_definition_of_its_type` keeps it so), without trying
    every branch on every message, which made the whole-match tests minutes long."""

    def __init__(self, schema: dict) -> None:
        self._by_type = {
            reference["$ref"].rpartition("/")[2]: jsonschema.Draft202012Validator(
                {**schema, "oneOf": [reference]})
            for reference in schema["oneOf"]}

    def validate(self, message: object) -> None:
        kind = message.get("type") if isinstance(message, dict) else None
        if kind not in self._by_type:
            raise jsonschema.ValidationError(f"no message type {kind!r} in the schema")
        self._by_type[kind].validate(message)


VALIDATOR = MessageValidator(SCHEMA)
NAMES = ("alice", "bob")
ACTIONS = ("start", "join", "roll", "move", "double", "redouble", "resign", "accept", "reject",
           "forfeit")

Told = list[tuple[ev.Event, Moment | None]]


def valid(message: web_events.Message) -> web_events.Message:
    """`message` as the page gets it (through JSON), checked against the schema."""
    decoded = json.loads(web_events.encode(message))
    VALIDATOR.validate(decoded)
    return decoded


def test_each_branch_of_the_schema_is_the_definition_of_its_type():
    whole = jsonschema.Draft202012Validator(SCHEMA)
    for reference in SCHEMA["oneOf"]:
        kind = reference["$ref"].rpartition("/")[2]
        definition = SCHEMA["$defs"][kind]
        for branch in definition.get("oneOf", [definition]):
            assert branch["properties"]["type"] == {"const": kind}
    assert not whole.is_valid({"type": "no_such_type"})
    with pytest.raises(jsonschema.ValidationError):
        VALIDATOR.validate({"type": "no_such_type"})
    with pytest.raises(jsonschema.ValidationError):
        VALIDATOR.validate({"type": "board"})


def recording(match: Match) -> Told:
    """Every action's events on `match` from now on, each with its moment, as the lobby tells
    them (match_play.told)."""
    told: Told = []

    def recorded(action: Callable[..., list[ev.Event]]) -> Callable[..., list[ev.Event]]:
        @functools.wraps(action)
        def act(*args: object, **kwargs: object) -> list[ev.Event]:
            events = action(*args, **kwargs)
            told.extend(zip(events, match.moments, strict=True))
            return events
        return act
    for name in ACTIONS:
        setattr(match, name, recorded(getattr(match, name)))
    return told


def bots_against_random(match: Match, seed: int) -> Told:
    """A bot against a player acting at random (doubles, redoubles and resignations of every
    size), to the end of the match."""
    told = recording(match)
    rng = random.Random(seed)
    match.start()
    for _ in range(MAX_ACTIONS):
        if finished(match):
            return told
        assert bot_turn(match, 0, BEGINNER, rng) or random_action(match, 1, rng)
    raise AssertionError("the match did not end")


def check_board(match: Match, moment: Moment, board: web_events.Message, viewer: int) -> None:
    """What the board message says against the rules' own view of the moment."""
    position = moment.position_seen_by(viewer)
    per_side = position.checkers_per_side
    player, opponent = board["player"], board["opponent"]
    for half, index in ((player, 0), (opponent, 1)):
        assert sum(half["points"]) + half["bar"] + half["off"] == per_side
        assert half["pips"] == position.pip_count(index)
        assert half["off"] == position.borne_off(index)
    # the viewer's numbering: the player's own points as they are, the opponent's mirrored
    assert player["points"] == list(position.checkers[0][:24])
    assert opponent["points"] == list(position.checkers[1][23::-1])
    assert not any(mine and theirs for mine, theirs in zip(player["points"], opponent["points"]))
    assert board["turn"] == web_events.side_or_none(moment.to_act, viewer)
    assert player["colour"] == moment.colour(viewer)
    if board["legal_plays"]:
        assert moment.turn == viewer and moment.dice is not None
        expected = {play.steps for play in position.legal_plays(moment.dice)}
        assert {tuple(map(tuple, play)) for play in board["legal_plays"]} == expected


@pytest.mark.parametrize(("options", "seed"), [
    ({"length": 5}, 1), ({"length": 3, "variant": Variant.NACKGAMMON}, 2),
    ({"length": 1}, 3), ({"length": 7, "variant": Variant.HYPERGAMMON}, 4),
    ({"length": 3, "variant": Variant.PORTES}, 5),
    ({"length": None, "max_redoubles": None, "autodouble": True}, 6),
])
def test_every_message_of_a_whole_match_validates(options, seed):
    match = Match(dice=SeededDice(seed), **options)
    told = bots_against_random(match, seed)
    rating = None
    if match.is_over and match.length is not None:
        rating = rate_match(PlayerRating(1600.0, 10), PlayerRating(1500.0, 500), match.length)
    # A time bank's (both reserves) for a length, a turn timer's for unlimited.
    clock = ClockReading(1, 25, Phase.MOVE, None if options["length"] is None else (300, 13))
    posts = web_events.narration(match, NAMES, [say(0, "Please move 2 pieces."), *told],
                                 rating, clock)
    kinds = set()
    for post in posts:
        message = valid(post.message)
        kinds.add(message["type"])
        viewer = post.to if post.to is not WATCHERS else post.watching
        assert viewer in (0, 1)
        if message["type"] == "board":
            assert message["as_player"] == (post.to is not WATCHERS)
            if clock.reserves is not None:  # each side's reserve, from the viewer's side
                assert message["clock"]["reserves"] == (
                    {"player": 300, "opponent": 13} if viewer == 0
                    else {"player": 13, "opponent": 300})
    assert {"game_started", "opening_roll", "moved", "board"} <= kinds
    if match.length is not None:
        assert "match_over" in kinds


def test_the_boards_of_whole_matches_show_what_the_rules_say():
    match = Match(5, SeededDice(11))
    told = bots_against_random(match, 11)
    checked = 0
    for _, moment in told:
        if moment is None:
            continue
        for viewer in (0, 1):
            plays = web_events.legal_plays(moment)
            board = valid(web_events.board(match, NAMES, moment, viewer, True, plays, None))
            check_board(match, moment, board, viewer)
            checked += bool(board["legal_plays"])
    assert checked > 10


@settings(max_examples=30)
@given(seed=st.integers(0, 2**32), variant=st.sampled_from(list(Variant)),
       length=st.sampled_from([1, 3, None]), actions=st.integers(0, 120),
       viewer=st.sampled_from([0, 1]))
def test_a_board_at_any_moment_counts_every_checker_and_offers_the_rules_plays(
        seed, variant, length, actions, viewer):
    rng = random.Random(seed)
    match = Match(length, SeededDice(seed), variant=variant, max_redoubles=None)
    match.start()
    for _ in range(actions):
        if match.is_over:
            break
        random_action(match, match.to_act if match.to_act is not None else rng.choice((0, 1)),
                      rng)
    moment = match.moment()
    board = valid(web_events.board(match, NAMES, moment, viewer, False,
                                   web_events.legal_plays(moment), None))
    check_board(match, moment, board, viewer)
    mover_sees = web_events.board(match, NAMES, moment, match.turn, True,
                                  web_events.legal_plays(moment), None)
    if match.phase is Phase.MOVE:
        assert sorted(map(str, mover_sees["legal_plays"])) == sorted(
            str([list(step) for step in play.steps]) for play in match.legal_plays())


def test_a_move_is_numbered_from_each_viewer_side():
    moved = ev.Moved(player=0, steps=((25, 20), (6, 0)))
    match = Match(3, SeededDice(1))
    mover = web_events.event_message(match, moved, 0, None)
    other = web_events.event_message(match, moved, 1, None)
    assert mover == {"type": "moved", "by": "player", "steps": [[25, 20], [6, 0]]}
    assert other == {"type": "moved", "by": "opponent", "steps": [[0, 5], [19, 25]]}


def test_the_room_messages_validate():
    terms = parse_match_terms(["nack", "timer", "30"])
    for message in (
            web_events.hello(),
            web_events.invitation("alice", 5, terms=terms),
            web_events.invitation("alice", None, replaces_saved_match=True,
                                  terms=parse_match_terms([])),
            web_events.invitation("alice", 3, resume=True),
            *(web_events.chat(kind, "alice", "hello {there}", "bob")
              for kind in web_events.CHAT_KINDS),
            web_events.chat("shout", "guest_1234", ""),
            web_events.presence(WhoInfo("bob", "alice", None, True, False, 1523.4567, 12, 3,
                                        1_700_000_000, "10.0.0.1", "web", "bob@example.org")),
            web_events.gone("bob"),
            web_events.time_warning(10, Phase.DOUBLE_OFFERED),
            web_events.time_warning(10, Phase.MOVE, "opponent"),
            web_events.invitation("alice", 5, terms=parse_match_terms(
                ["bank", "12", "60", "fischer"])),
            web_events.comeback_countdown("bob", "alice", 60),
            web_events.comeback_countdown("bob", "alice", None)):
        valid(message)
    assert valid(web_events.invitation("alice", 5, terms=terms))["terms"] == {
        "variant": "nackgammon", "lower_die_starts": False, "cube": True, "turn_seconds": 30,
        "takeover_seconds": None, "rated": True, "bank": None}


def test_the_user_state_messages_validate():
    terms = parse_match_terms(["hyper", "timer", "60"])
    for message in (
            web_events.logged_in("guest_qhzmt", True, 1500.0, 0),
            web_events.match_started("bob", 5, False, True, terms),
            web_events.match_started("bob", None, True, False, None),
            web_events.watching("bob", "alice"),
            web_events.watching("bob", None),
            web_events.watch_ended("bob"),
            web_events.invitation_sent("bob", 5, terms=terms),
            web_events.invitation_sent("bob", None, resume=True),
            web_events.invitation_withdrawn("bob"),
            web_events.saved_matches([]),
            web_events.tables([TableRow("ABCDEFGH", "bob", None, terms)]),
    ):
        valid(message)
    assert valid(web_events.logged_in("alice", False, 1523.4567, 12)) == {
        "type": "logged_in", "name": "alice", "visitor": False, "rating": 1523.46,
        "experience": 12}
    assert valid(web_events.saved_matches([SavedMatch("bob", True, False, 7, 3, 5)])) == {
        "type": "saved_matches",
        "matches": [{"opponent": "bob", "length": 7, "score": {"player": 3, "opponent": 5},
                     "online": True}]}


def test_a_refusal_carries_its_code_and_facts_beside_its_text():
    assert valid(web_events.refusal_of(game_texts.refusing_games("bob"))) == {
        "type": "refusal", "code": "refusing_games", "params": {"name": "bob"},
        "text": "bob is refusing games."}
    assert web_events.refusal_of(game_texts.TOGGLE_READY_FIRST)["code"] == "not_ready"
    assert web_events.refusal_of(texts.name_taken("bob"))["params"] == {"name": "bob"}
    # The dialogue's refusals that are no `**` line, and a prompt that refuses.
    assert valid(web_events.refusal_of(texts.password_error("abc")))["code"] == \
        "password_too_short"
    assert valid(web_events.refusal_of(texts.PASSWORDS_DIFFER_PROMPT))["text"] == \
        "The two passwords were not identical. Please give them again. Password:"
    assert valid(web_events.refusal_of(texts.wrong_login_prompt(True))) == {
        "type": "refusal", "code": "wrong_login", "params": {}, "text": "login:"}


def test_the_rules_refusals_are_coded_by_their_reason():
    for reason in Refusal:
        facts = {"step_number": 2, "distance": 3, "point": 7, "die": 5, "required": 2,
                 "redouble_name": "beaver"}
        line = refusal_text(Refused(reason, **facts), "bob")
        message = valid(web_events.refusal_of(line))
        assert message["code"] == reason.name.lower()
        assert message["params"]["opponent"] == "bob"
        assert message["text"] == line.removeprefix("** ")


def test_a_line_without_a_code_is_a_refusal_still_and_a_notice_none():
    assert valid(web_events.refusal_of("** Some refusal not coded yet.")) == {
        "type": "refusal", "code": None, "params": {}, "text": "Some refusal not coded yet."}
    for line in (toggle_reply("ready", True), game_texts.you_invited("bob", 5)[0],
                 game_texts.you_are_now_playing("bob", 5), texts.ALREADY_LOGGED_IN,
                 chat.heard(3), "bob rolls 6 and 5.", ""):
        assert web_events.refusal_of(line) is None, line


def test_the_schema_rejects_what_the_renderer_never_sends():
    with pytest.raises(jsonschema.ValidationError):
        VALIDATOR.validate({"type": "moved", "by": "you", "steps": []})
    with pytest.raises(jsonschema.ValidationError):
        VALIDATOR.validate({"type": "hello", "version": 2})
    assert SCHEMA["version"] == web_events.VERSION


def test_an_arena_is_one_view_for_show_list_the_page_and_a_return():
    """An arena of three, 125 s left: alice beat bob, then carol; bob waits. Its time left,
    its matches, points, streaks and matches played; no rounds to speak of."""
    arena = tournament_rules.start(Format.ARENA, [Entrant(name, 1500.0) for name in (
        "alice", "bob", "carol")])
    arena = tournament_rules.arena_round(arena, ["alice", "bob", "carol"])
    arena = tournament_rules.record(arena, "alice", "alice", number=1)
    arena = tournament_rules.arena_round(arena, ["alice", "bob", "carol"])
    arena = tournament_rules.record(arena, "alice", "alice", number=2)
    entry = Listed(6, Format.ARENA, "running", "alice", RoundTerms(1, 1), 3, 8,
                   arena_minutes=20)
    shown = Shown(entry, None, None, arena.entrants, arena, ends_in_seconds=125)
    message = valid(web_events.tournament(shown))
    assert (message["format"], message["arena_minutes"], message["ends_in_seconds"]) == (
        "arena", 20, 125)
    assert (message["round_count"], message["current_round"]) == (None, None)
    assert [(row["name"], row["score"], row["streak"], row["games"])
            for row in message["standings"]] == [
        ("alice", 4, 2, 2), ("bob", 0, 0, 1), ("carol", 0, 0, 1)]
    assert show_lines(shown)[0] == ("Tournament 6: an arena by alice, 20 minutes of 1 point, "
                                    "60 s a turn; running, 3 minutes left.")
    assert show_lines(shown)[3:] == [
        "  Matches: alice beats bob; alice beats carol",
        "  Standings: 1. alice 4 (2 matches, 2 wins in a row); 2. bob 0 (1 match); "
        "3. carol 0 (1 match)"]
    assert list_lines([entry])[1].endswith("by alice: 20 minutes of 1 point, 60 s a turn")
    assert on_your_return(6, arena, "carol") == [
        "Tournament 6: your last match: alice beats carol.",
        "Tournament 6: you are 3rd of 3, with 0 points."]


def test_a_tournament_is_one_view_for_show_and_for_the_page():
    """A Swiss of five after two rounds and a knockout of three in sign-up and won: the
    `tournament` message says what `tournament show` says, from the same view."""
    field = [Entrant(name, rating) for name, rating in
             (("alice", 1700), ("bob", 1650), ("carol", 1600), ("dave", 1550), ("erin", 1500))]
    swiss = tournament_rules.start(Format.SWISS, field, swiss_rounds=3)
    for _ in range(2):
        assert swiss.current is not None
        for pairing in swiss.current.pairings:
            if not pairing.decided:
                swiss = tournament_rules.record(swiss, pairing.first, pairing.first)
        if swiss.current is not None and swiss.current.number == 1:
            swiss = tournament_rules.next_round(swiss)
    terms = RoundTerms(length=5, final_length=7, variant=Variant.NACKGAMMON, crawford=False)
    shown = Shown(Listed(4, Format.SWISS, "running", "alice", terms, 5, 8, swiss_rounds=3),
                  None, 5, tuple(swiss.entrants), swiss)
    message = valid(web_events.tournament(shown))
    lines = show_lines(shown)
    assert lines[0] == ("Tournament 4: a swiss by alice, 5 points (final 7), nackgammon, "
                        "no Crawford, 60 s a turn; running, round 2 of 3.")
    assert message["current_round"] == 2 and message["round_count"] == 3
    assert message["terms"] == {"length": 5, "final_length": 7, "lengths": [],
                                "variant": "nackgammon", "crawford": False,
                                "turn_seconds": 60, "rated": True}
    assert [r["length"] for r in message["rounds"]] == [5, 5]
    assert [(e["name"], e["seed"]) for e in message["entrants"]][:2] == [("alice", 1), ("bob", 2)]
    first_round = message["rounds"][0]["pairings"]
    assert {"first": "erin", "second": None, "decided": True, "winner": "erin",
            "forfeit": False} in first_round
    standings_line = lines[-1].removeprefix("  Standings: ").split("; ")
    assert standings_line == [
        f"{row['place']}. {row['name']} {row['score']} (Buchholz {row['buchholz']}, "
        f"SB {row['sonneborn_berger']})" for row in message["standings"]]

    signup = Shown(Listed(5, Format.KNOCKOUT, "signup", "bob", RoundTerms(), 1, 4), 600, None,
                   (Entrant("bob", 1500.0),), None, bots_allowed=True)
    assert valid(web_events.tournament(signup)) | {"entrants": []} == {
        "type": "tournament", "id": 5, "format": "knockout", "status": "signup",
        "creator": "bob", "entered": 1, "cap": 4, "winner": None, "side_flights": [],
        "swiss_rounds": None, "starts_at": None, "every": None, "arena_minutes": None,
        "terms": {"length": 3, "final_length": 3, "lengths": [], "variant": "standard",
                  "crawford": True, "turn_seconds": 60, "rated": True},
        "start": {"in_seconds": 600, "when": None}, "bots_allowed": True,
        "ends_in_seconds": None, "entrants": [],
        "round_count": None, "current_round": None, "rounds": [], "flights": [],
        "standings": []}
    assert show_lines(signup)[1:] == ["  Start: in 10 minutes.", "  Entrants (1 of 4): bob (1500)"]
    # A daily one, at 2026-12-24 20:00 UTC: its start time and recurrence in both.
    daily = dataclasses.replace(signup, entry=dataclasses.replace(
        signup.entry, starts_at=1_798_142_400, repeat_seconds=24 * 3600))
    assert {key: valid(web_events.tournament(daily))[key] for key in ("starts_at", "every")} \
        == {"starts_at": 1_798_142_400, "every": "day"}
    assert show_lines(daily)[1] == "  Start: in 10 minutes (at 2026-12-24 20:00 UTC); every day."
    assert list_lines([daily.entry])[1].endswith(
        "by bob: 3 points, 60 s a turn; starts 2026-12-24 20:00 UTC, every day")
    by_round = RoundTerms(length=5, final_length=11, lengths=(5, 7, 9, 11))
    signup = dataclasses.replace(signup, entry=dataclasses.replace(signup.entry, terms=by_round))
    assert valid(web_events.tournament(signup))["terms"]["lengths"] == [5, 7, 9, 11]
    assert show_lines(signup)[0].startswith(
        "Tournament 5: a knockout by bob, 5-7-9-11 points by round, 60 s a turn;")

    knockout = tournament_rules.start(Format.KNOCKOUT, field[:3])
    knockout = tournament_rules.record(knockout, "bob", "carol")
    knockout = tournament_rules.record(tournament_rules.next_round(knockout), "alice", "alice")
    won = valid(web_events.tournament(Shown(
        Listed(6, Format.KNOCKOUT, "finished", "bob", RoundTerms(), 3, 4, "alice"), None, 3,
        tuple(knockout.entrants), knockout)))
    assert won["winner"] == "alice" and won["current_round"] is None
    assert [[(p["first"], p["second"], p["winner"]) for p in r["pairings"]]
            for r in won["rounds"]] == [[("alice", None, "alice"), ("bob", "carol", "carol")],
                                        [("alice", "carol", "alice")]]
    assert [(row["name"], row["buchholz"]) for row in won["standings"]] == [
        ("alice", None), ("carol", None), ("bob", None)]
    assert valid(web_events.tournaments([Listed(6, Format.KNOCKOUT, "finished", "bob",
                                                RoundTerms(), 3, 4, "alice")]))[
        "tournaments"][0]["winner"] == "alice"
    with pytest.raises(jsonschema.ValidationError):
        VALIDATOR.validate({**won, "unknown": 1})


def test_the_quick_play_messages_validate():
    nack = MatchTerms(MatchRules(Variant.NACKGAMMON), turn_seconds=30, rated=False)
    assert valid(web_events.quick_play(5, nack, 200.0)) == {
        "type": "quick_play", "opponent": None,
        "seek": {"length": 5, "terms": web_events.terms_of(nack), "rating_range": 200.0,
                 "bot_offered": False}}
    assert valid(web_events.quick_play(1, MatchTerms(), None, bot_offered=True))["seek"][
        "bot_offered"]
    assert valid(web_events.quick_play()) == {"type": "quick_play", "seek": None,
                                              "opponent": None}
    assert valid(web_events.quick_play(opponent="bob"))["opponent"] == "bob"
    with pytest.raises(jsonschema.ValidationError):
        VALIDATOR.validate({"type": "quick_play", "seek": None})
