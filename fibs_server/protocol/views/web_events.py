"""The web page's typed messages (docs/WEB-PROTOCOL.md): the second renderer of what the
server tells.

match_views.py turns a match's events and the `Moment` each left the match in into FIBS
lines; this module turns the same events, moments and `BoardView`s into JSON-able messages,
so that a page reads facts, not English. Nothing here decides anything the match views or
the rules do not: a board message is `match_views.board_view` plus the moment's own facts
(cube owner, offers, pip counts) and the rules' legal plays of its roll.

Every message is for one viewer side: a player, or the watchers of one player, who see the
match as that player does. "player" is that side, "opponent" the other; points are numbered
from the player's side: the player moves 24 -> 1 (its bar 25, off 0), the opponent 1 -> 24
(its bar 0, off 25), so one number names one point for both sides.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Sequence
from typing import Any, assert_never

import orjson

from fibs_server.protocol.clip import WhoInfo
from fibs_server.protocol.info import SavedMatch
from fibs_server.protocol.match_rules import MatchTerms
from fibs_server.protocol.tournament_options import REPEAT_WORDS
from fibs_server.protocol.views import match_views
from fibs_server.protocol.views.board import BAR, UNLIMITED
from fibs_server.protocol.views.match_views import WATCHERS, Say
from fibs_server.protocol.wording import coded_texts
from fibs_server.protocol.wording.clock_texts import ClockReading
from fibs_server.protocol.wording.table_texts import TableRow
from fibs_server.protocol.wording.tournament_texts import Listed, Shown, forfeit_wins
from fibs_server.rules import events as ev
from fibs_server.rules import tournament as tournament_rules
from fibs_server.rules.match import Match, Moment, Phase
from fibs_server.rules.ratings import RatingCalculation
from fibs_server.rules.variants import Variant

VERSION = 1  # the schema's version (fibs_server/web/static/events.schema.json)
POINTS = 24

Message = dict[str, Any]  # JSON-able: str, int, float, bool, None, lists and dicts of them
# A viewer side: (to, viewer): player 0, player 1, the watchers of each (as Post addresses).
Side = tuple[int | None, int]
ALL_SIDES: tuple[Side, ...] = ((0, 0), (1, 1), (WATCHERS, 0), (WATCHERS, 1))
CHAT_KINDS = ("tell", "say", "shout", "kibitz", "whisper")


@dataclasses.dataclass(frozen=True)
class Post:
    """`message` for player `to` (0 or 1), or for the watchers of player `watching` (`to`
    WATCHERS), as match_views.Say addresses its lines."""
    to: int | None
    message: Message
    watching: int | None = None


def encode(message: Message) -> str:
    """One message as it goes on the wire: compact JSON on one line (no line end)."""
    return orjson.dumps(message).decode()


@dataclasses.dataclass(frozen=True)
class PagePace:
    """How a page keeps its connection (docs/WEB-PROTOCOL.md, "Heartbeats" and
    "Reconnecting"): a heartbeat every `heartbeat_seconds`, the connection given up after
    `silent_heartbeats` of them with nothing heard, and a lost one tried again after
    `retry_first_seconds`, doubling to `retry_most_seconds`, each wait drawn between half and
    all of that. The server's own settings (net/limits.py), told in the `hello`."""
    heartbeat_seconds: float = 2.5
    silent_heartbeats: int = 3
    retry_first_seconds: float = 0.5
    retry_most_seconds: float = 10.0


def hello(pace: PagePace = PagePace()) -> Message:
    """The first message of a connection that asked for events: the schema's version, the
    variants the server plays, with their facts (the page offers them from this list), and
    how the page is to keep its connection."""
    return {"type": "hello", "version": VERSION,
            "variants": [variant_facts(variant) for variant in Variant],
            "connection": dataclasses.asdict(pace)}


def variant_facts(variant: Variant) -> Message:
    facts = variant.facts
    return {"name": facts.name, "word": facts.word, "checkers_per_side": facts.checkers_per_side,
            "cube": facts.cube, "backgammons": facts.backgammons,
            "opening_dice_played": facts.opening_dice_played}


def player_connection(name: str, connected: bool) -> Message:
    """To the opponent of `name` and the watchers of their match: `name`'s page lost its
    connection (false: the server holds their session for them to come back) or came back
    (true)."""
    return {"type": "player_connection", "name": name, "connected": connected}


def player_reach(name: str, reachable: bool) -> Message:
    """To the opponent of `name` in a match across nodes: `name`'s node is out of reach (false:
    the nodes lost touch; the match waits, nobody's clock runs) or heard from again (true)."""
    return {"type": "player_reach", "name": name, "reachable": reachable}


def session(token: str | None) -> Message:
    """After a login: the token that brings a page back to its session (`resume <token>`);
    None: the token presented is refused (wrong, expired, or its session is over)."""
    return {"type": "session", "token": token}


def refusal_of(line: str) -> Message | None:
    """The `refusal` message of a line that refuses a command or a login dialogue's answer
    (coded_texts), None for any other line."""
    coded = coded_texts.refusal_of(line)
    if coded is None:
        return None
    code, params = coded
    return {"type": "refusal", "code": code, "params": params,
            "text": coded_texts.refusal_words(line)}


# --- the viewer's side -----------------------------------------------------------------------------

def side(player: int, viewer: int) -> str:
    """A match player (0 or 1) as the viewer's side names it: "player" or "opponent"."""
    return "player" if player == viewer else "opponent"


def side_or_none(player: int | None, viewer: int) -> str | None:
    return None if player is None else side(player, viewer)


def pair(values: Sequence[int], viewer: int) -> dict[str, int]:
    """A per-player pair (score, dice of the opening roll) from the viewer's side."""
    return {"player": values[viewer], "opponent": values[1 - viewer]}


def seen_point(own_point: int, mover: int, viewer: int) -> int:
    """A point in the mover's own numbering (25 bar, 0 off) in the viewer's numbering."""
    return own_point if mover == viewer else 25 - own_point


def for_viewers(make: Callable[[int, bool], Message | None],
                sides: Iterable[Side] = ALL_SIDES) -> list[Post]:
    """`make(viewer, as_player)` for each of `sides` (both players and the watchers of each)."""
    posts = []
    for to, viewer in sides:
        message = make(viewer, to is not WATCHERS)
        if message is not None:
            posts.append(Post(to, message, viewer if to is WATCHERS else None))
    return posts


# --- boards ----------------------------------------------------------------------------------------

def legal_plays(moment: Moment) -> list[list[list[int]]]:
    """The rules' legal plays of the moment's roll, each as its steps [from, to] in the
    mover's own numbering; empty when no roll waits to be played."""
    if moment.phase is not Phase.MOVE or moment.dice is None or moment.resignation is not None:
        return []
    return [[list(step) for step in play.steps] for play in moment.position.legal_plays(moment.dice)]


def board(match: Match, names: tuple[str, str], moment: Moment, viewer: int, as_player: bool,
          plays: list[list[list[int]]], clock: ClockReading | None) -> Message:
    """The board of `moment` from `viewer`'s side; `plays`: `legal_plays(moment)`, made once
    for every viewer; `clock`: a timed match's clock."""
    view = match_views.board_view(match, names, moment, viewer, as_player)
    position = moment.position_seen_by(viewer)
    cube_in_game = match.cube_in_game_of(moment.is_crawford_game)
    opponent_points = [view.opponent_checkers[POINTS - 1 - index] for index in range(POINTS)]

    def half(name: str, colour: str, score: int, points: Sequence[int], on_bar: int, off: int,
             pips: int, dice: tuple[int, int], may_double: bool) -> Message:
        return {"name": name, "colour": colour, "score": score, "points": list(points),
                "bar": on_bar, "off": off, "pips": pips,
                "dice": None if dice == (0, 0) else list(dice),
                "may_double": may_double and cube_in_game}

    offer: Message | None = None
    if moment.resignation is not None:
        resignation = moment.resignation
        offer = {"kind": "resignation", "by": side(resignation.player, viewer),
                 "points": resignation.points, "size": resignation.kind.name.lower()}
    elif moment.double_offer is not None:
        double = moment.double_offer
        offer = {"kind": "double", "by": side(double.offered_by, viewer), "cube": double.cube,
                 "redouble": double.redoubles}
    return {
        "type": "board",
        "as_player": as_player,
        "phase": phase_name(moment.phase),
        "turn": view.turn,
        # The name itself, not FIBS's "You": `as_player` says whose board it is.
        "player": half(names[viewer], view.player_colour, view.player_score,
                       view.player_checkers[:POINTS], view.player_checkers[BAR],
                       view.player_borne_off, position.pip_count(0), view.player_dice,
                       view.player_may_double),
        "opponent": half(view.opponent_name, view.opponent_colour, view.opponent_score,
                         opponent_points, view.opponent_checkers[BAR], view.opponent_borne_off,
                         position.pip_count(1), view.opponent_dice, view.opponent_may_double),
        "match_length": view.match_length,
        "cube": {"value": view.cube, "owner": side_or_none(moment.cube_owner, viewer),
                 "in_game": cube_in_game},
        "offer": offer,
        "pieces_to_move": view.pieces_to_move,
        "legal_plays": plays if moment.turn == viewer else [],
        "crawford": {"rule": view.crawford_rule, "crawford_game": moment.is_crawford_game,
                     "post_crawford": view.post_crawford},
        "max_redoubles": None if view.max_redoubles == UNLIMITED else view.max_redoubles,
        "checkers_per_side": view.checkers_per_side,
        "clock": None if clock is None else clock_of(clock, viewer),
    }


def phase_name(phase: Phase) -> str:
    return phase.value.replace(" ", "_")


def clock_of(reading: ClockReading, viewer: int) -> Message:
    clock: Message = {"side": side(reading.player, viewer), "seconds": reading.seconds,
                      "decision": phase_name(reading.phase)}
    if reading.reserves is not None:
        clock["reserves"] = {side(index, viewer): seconds
                             for index, seconds in enumerate(reading.reserves)}
    return clock


def boards(match: Match, names: tuple[str, str], moment: Moment,
           clock: ClockReading | None, sides: Sequence[Side] = ALL_SIDES) -> list[Post]:
    """The board of `moment` for each of `sides`."""
    plays = legal_plays(moment) if any(viewer == moment.turn for _, viewer in sides) else []
    return for_viewers(lambda viewer, as_player: board(match, names, moment, viewer, as_player,
                                                      plays, clock), sides)


# --- events ----------------------------------------------------------------------------------------

def narration(match: Match, names: tuple[str, str],
              told: Iterable[tuple[ev.Event, Moment | None] | Say],
              rating: RatingCalculation | None = None,
              clock: ClockReading | None = None,
              sides: Sequence[Side] = ALL_SIDES, match_id: int | None = None) -> list[Post]:
    """match_views.narration's events as messages for `sides` (those with someone to read
    them): each event, then the board of its moment (a roll the server plays itself has
    none, as in FIBS). The lines the server says between events (`Say`) are FIBS's alone:
    what they prompt for, the boards show. `match_id`: the match's in the archive (None:
    nothing keeps it)."""
    posts: list[Post] = []
    for item in told:
        if isinstance(item, Say):
            continue
        event, moment = item
        posts += for_viewers(
            lambda viewer, _: event_message(match, event, viewer, rating, match_id), sides)
        if moment is not None:
            posts += boards(match, names, moment, clock, sides)
    return posts


def event_message(match: Match, event: ev.Event, viewer: int,
                  rating: RatingCalculation | None, match_id: int | None = None) -> Message | None:
    """One rules event from `viewer`'s side."""
    match event:
        case ev.GameStarted(game_number=number, score=score, crawford=crawford):
            return {"type": "game_started", "game": number, "score": pair(score, viewer),
                    "crawford_game": crawford}
        case ev.OpeningRoll(die_0=die_0, die_1=die_1, starter=starter):
            return {"type": "opening_roll", "dice": pair((die_0, die_1), viewer),
                    "starter": side_or_none(starter, viewer)}
        case ev.CubeAutoDoubled(cube=cube):
            return {"type": "cube_auto_doubled", "cube": cube}
        case ev.Rolled(player=p, dice=dice):
            return {"type": "rolled", "by": side(p, viewer), "dice": list(dice)}
        case ev.CannotMove(player=p):
            return {"type": "cannot_move", "by": side(p, viewer)}
        case ev.Moved(player=p, steps=steps):
            return {"type": "moved", "by": side(p, viewer),
                    "steps": [[seen_point(start, p, viewer), seen_point(end, p, viewer)]
                              for start, end in steps]}
        case ev.Doubled(player=p, cube=cube):
            return {"type": "offer", "kind": "double", "by": side(p, viewer), "cube": cube,
                    "redouble": 0}
        case ev.Redoubled(player=p, cube=cube, number=number):
            return {"type": "offer", "kind": "double", "by": side(p, viewer), "cube": cube,
                    "redouble": number}
        case ev.ResignOffered(player=p, kind=kind, points=points):
            return {"type": "offer", "kind": "resignation", "by": side(p, viewer),
                    "points": points, "size": kind.name.lower()}
        case ev.DoubleAccepted(player=p, cube=cube):
            return {"type": "answer", "kind": "double", "by": side(p, viewer), "accepted": True,
                    "cube": cube}
        case ev.DoubleRejected(player=p, points=points):
            return {"type": "answer", "kind": "double", "by": side(p, viewer), "accepted": False,
                    "points": points}
        case ev.ResignAccepted(player=p, points=points):
            return {"type": "answer", "kind": "resignation", "by": side(p, viewer),
                    "accepted": True, "points": points}
        case ev.ResignRejected(player=p):
            return {"type": "answer", "kind": "resignation", "by": side(p, viewer),
                    "accepted": False}
        case ev.GameOver(winner=w, points=points, kind=kind, score=score):
            return {"type": "game_over", "winner": side(w, viewer), "points": points,
                    "size": kind.name.lower(), "score": pair(score, viewer)}
        case ev.Forfeited(player=p, points=points, score=score):
            return {"type": "forfeited", "by": side(p, viewer), "points": points,
                    "score": pair(score, viewer)}
        case ev.MatchOver(winner=w, score=score):
            return {"type": "match_over", "winner": side(w, viewer), "length": match.length,
                    "score": pair(score, viewer),
                    "ratings": None if rating is None else ratings_of(rating, w, viewer),
                    "match_id": match_id}
        case ev.JoinedNextGame(player=p):
            return {"type": "joined_next_game", "by": side(p, viewer)}
        case _:
            assert_never(event)


def ratings_of(rating: RatingCalculation, winner: int, viewer: int) -> Message:
    """Both players' ratings after a rated match, and their changes."""
    results = {winner: (rating.winner_after, rating.winner_change),
               1 - winner: (rating.loser_after, rating.loser_change)}
    return {side(player, viewer): {"rating": round(after.rating, 2),
                                   "experience": after.experience, "change": round(change, 2)}
            for player, (after, change) in results.items()}


# --- the room: invitations, chat, presence, the clock's warning ------------------------------------

def invitation(inviter: str, length: int | None, *, resume: bool = False,
               replaces_saved_match: bool = False, terms: MatchTerms | None = None) -> Message:
    """An invitation to the invited user; `terms` None for a resume (the saved match keeps
    its own)."""
    return {"type": "invitation", "from": inviter, "length": length, "resume": resume,
            "replaces_saved_match": replaces_saved_match,
            "terms": None if terms is None else terms_of(terms)}


def terms_of(terms: MatchTerms) -> Message:
    rules = terms.rules
    return {"variant": rules.variant.value, "lower_die_starts": rules.lower_die_starts,
            "cube": rules.cube, "turn_seconds": terms.turn_seconds,
            "takeover_seconds": terms.takeover_seconds, "rated": terms.rated,
            "bank": None if terms.bank is None else terms.bank.fields()}


def chat(kind: str, speaker: str, text: str, to: str | None = None) -> Message:
    """What `speaker` said (`kind`: CHAT_KINDS), to the listeners and, as its echo, to the
    speaker; `to`: the one listener of a tell or a say."""
    assert kind in CHAT_KINDS
    return {"type": "chat", "kind": kind, "from": speaker, "to": to, "text": text}


def presence(info: WhoInfo) -> Message:
    """A user's who-information, as its CLIP 5 line shows it (less the host and the email
    address, which the page does not show)."""
    return {"type": "presence", "name": info.name, "online": True, "opponent": info.opponent,
            "watching": info.watching, "ready": info.ready, "away": info.away,
            "rating": round(info.rating, 2), "experience": info.experience,
            "idle_seconds": info.idle_seconds, "login_time": info.login_time,
            "client": info.client}


def gone(name: str) -> Message:
    """A user went offline."""
    return {"type": "presence", "name": name, "online": False}


def time_warning(seconds: int, phase: Phase, whose: str = "player") -> Message:
    """To the player who must decide, `seconds` before their time is up; with a time bank,
    to their opponent too (`whose` "opponent": the opponent's time runs out)."""
    return {"type": "time_warning", "seconds": seconds, "decision": phase_name(phase),
            "side": whose}


def comeback_countdown(name: str, opponent: str, seconds: int | None) -> Message:
    """To both players of a timed match that `name` left or dropped, and to the watchers:
    `name` loses it unless they resume it within `seconds` (None: no countdown runs any more:
    resumed, or the match waits for both)."""
    return {"type": "comeback_countdown", "name": name, "opponent": opponent,
            "seconds": seconds}


# --- the user's own state: login, matches, watching, invitations ---------------------------------

def logged_in(name: str, visitor: bool, rating: float, experience: int) -> Message:
    """At a login or a resume, beside CLIP's welcome line; `visitor`: a guest_ visitor
    without an account, who plays the bots only."""
    return {"type": "logged_in", "name": name, "visitor": visitor, "rating": round(rating, 2),
            "experience": experience}


def analysis_ready(match_id: int, names: tuple[str, str],
                   players: Sequence[dict[str, Any]] | None) -> Message:
    """To the players of a finished match (and whoever asked for its analysis) once its
    analysis is stored: each player's error rate, PR and rating words as the analysis API
    gives them (`players`: the stored analysis's summaries, None for a variant the analysis
    does not judge)."""
    return {"type": "analysis_ready", "match_id": match_id, "players": None if players is None
            else [{"name": names[summary["player"]], "error_rate": round(summary["error_rate"], 1),
                   "pr": round(summary["pr"], 1), "rating": summary["rating"]}
                  for summary in players]}


@dataclasses.dataclass(frozen=True)
class TutorChoice:
    """A decision the tutor names: `kind` ("move", "roll", "double", "take", "drop") and a
    move's steps [from, to] in the player's numbering (None for the cube's decisions)."""
    kind: str
    steps: list[list[int]] | None


def tutor(on: bool, threshold: float | None) -> Message:
    """The player's tutor switched on (with its threshold, EMG) or off."""
    return {"type": "tutor", "on": on, "threshold": threshold}


def tutor_warning(proposed: TutorChoice, best: TutorChoice, loss: float,
                  threshold: float) -> Message:
    """The decision sent was held back: it loses `loss` (EMG) against `best`, more than the
    player's `threshold`; sending it again (or `tutor play`) plays it."""
    return {"type": "tutor_warning", "proposed": dataclasses.asdict(proposed),
            "best": dataclasses.asdict(best), "loss": round(loss, 3), "threshold": threshold}


def puzzle_result(puzzle_id: int, solved: bool, best: str, played: str, first: bool,
                  rating: float, change: float, puzzle_rating: float) -> Message:
    """To the player who answered a puzzle (`puzzle <id> <answer>`): whether it was the best,
    the best and what the match saw, their puzzle rating (moved only at a `first` try) and
    the puzzle's."""
    return {"type": "puzzle_result", "puzzle_id": puzzle_id, "solved": solved, "best": best,
            "played": played, "first": first, "rating": round(rating, 1),
            "change": round(change, 1), "puzzle_rating": round(puzzle_rating, 1)}


def match_started(opponent: str, length: int | None, resumed: bool, rated: bool,
                  terms: MatchTerms | None, commitment: str | None = None,
                  salted: bool = False) -> Message:
    """To each player, before the first board of a match that starts or resumes; with the
    dice commitment (None: dice without a seed) and whether this player has given the match
    a salt (docs/FAIRNESS.md): the page sends one if not."""
    return {"type": "match_started", "opponent": opponent, "length": length,
            "resumed": resumed, "rated": rated,
            "terms": None if terms is None else terms_of(terms),
            "commitment": commitment, "salted": salted}


def watching(player: str, opponent: str | None) -> Message:
    """To a watcher when their watch starts; `opponent` None: `player` plays no match."""
    return {"type": "watching", "player": player, "opponent": opponent}


def watch_ended(player: str) -> Message:
    """To a watcher who no longer watches `player` (unwatch, another watch, a match of their
    own, or `player` went)."""
    return {"type": "watch_ended", "player": player}


def invitation_sent(invitee: str, length: int | None, *, resume: bool = False,
                    terms: MatchTerms | None = None) -> Message:
    """To the inviter, as their invitation goes out; `terms` None for a resume."""
    return {"type": "invitation_sent", "to": invitee, "length": length, "resume": resume,
            "terms": None if terms is None else terms_of(terms)}


def invitation_withdrawn(inviter: str) -> Message:
    """To the invited user: `inviter`'s invitation stands no more (they invited someone
    else, started another match, or went)."""
    return {"type": "invitation_withdrawn", "from": inviter}


def saved_matches(matches: Iterable[SavedMatch]) -> Message:
    """The user's saved matches (as `show saved` lists them), which `invite <opponent>`
    resumes."""
    return {"type": "saved_matches",
            "matches": [{"opponent": saved.opponent, "length": saved.length,
                         "score": {"player": saved.score, "opponent": saved.opponent_score},
                         "online": saved.opponent_online}
                        for saved in matches]}


def tables(rows: Iterable[TableRow]) -> Message:
    """`show tables`: the public open tables, the oldest first; `sit <code>` plays one."""
    return {"type": "tables",
            "tables": [{"code": row.code, "host": row.creator, "length": row.length,
                        "terms": terms_of(row.terms)} for row in rows]}


def my_table(code: str | None, length: int | None = None, terms: MatchTerms | None = None,
             private: bool = False) -> Message:
    """To a table's creator: the table they have open (when opened, or asked with `table`),
    or none (`code` None: closed). Private tables are in no list: this is where the page
    learns the code that its link carries."""
    if code is None:
        return {"type": "my_table", "table": None}
    assert terms is not None
    return {"type": "my_table", "table": {"code": code, "length": length,
                                          "terms": terms_of(terms), "private": private}}


def quick_play(length: int | None = None, terms: MatchTerms | None = None,
               rating_range: float | None = None, *, bot_offered: bool = False,
               opponent: str | None = None) -> Message:
    """To a seeker: the quick play match they seek (`length` None: none, or no more), and
    whether a bot is offered (nobody came in time); or the opponent it paired them with."""
    if length is None:
        return {"type": "quick_play", "seek": None, "opponent": opponent}
    assert terms is not None
    return {"type": "quick_play", "opponent": None,
            "seek": {"length": length, "terms": terms_of(terms), "rating_range": rating_range,
                     "bot_offered": bot_offered}}


# --- tournaments: the views `tournament list` and `show` are made from (tournament_texts) ------

def tournaments(listed: Iterable[Listed]) -> Message:
    """`tournament list`: the open tournaments, then the latest ended ones."""
    return {"type": "tournaments", "tournaments": [listed_entry(entry) for entry in listed]}


def listed_entry(entry: Listed) -> Message:
    terms = entry.terms
    return {"id": entry.tournament_id, "format": entry.kind.value, "status": entry.status,
            "creator": entry.creator, "entered": entry.entered, "cap": entry.cap,
            "winner": entry.winner, "starts_at": entry.starts_at,
            "every": None if entry.repeat_seconds is None else REPEAT_WORDS[entry.repeat_seconds],
            "side_flights": [flight.value for flight in entry.flights[1:]],
            "swiss_rounds": entry.swiss_rounds if entry.kind is tournament_rules.Format.SWISS
            else None,
            "arena_minutes": entry.arena_minutes if entry.kind is tournament_rules.Format.ARENA
            else None,
            "terms": {"length": terms.length, "final_length": terms.final_length,
                      "lengths": list(terms.lengths),
                      "variant": terms.variant.value, "crawford": terms.crawford,
                      "turn_seconds": terms.turn_seconds, "rated": terms.rated,
                      # A time bank, when the tournament has one instead of its timer.
                      **({} if terms.bank is None else {"bank": terms.bank.fields()})}}


def _flight_rounds(shown: Shown, played: tournament_rules.Tournament,
                   flight: tournament_rules.Flight) -> list[Message]:
    """A flight's rounds, numbered as the flight's own (`round`: the tournament's round that
    plays it), each with its matches' length."""
    rounds = []
    for played_round, pairings in tournament_rules.flight_rounds(played, flight):
        number, count = tournament_rules.flight_round_of(played, played_round, flight)
        rounds.append({"number": number, "round": played_round,
                       "length": shown.entry.terms.length_of(number, count),
                       "pairings": [{"first": pairing.first, "second": pairing.second,
                                     "decided": pairing.decided, "winner": pairing.winner,
                                     "forfeit": pairing.forfeit} for pairing in pairings]})
    return rounds


def tournament(shown: Shown) -> Message:
    """One tournament as a whole (`tournament show`), and again at each change of it to the
    pages that follow it: its entrants, every round's pairings and results, the standings."""
    played = shown.played
    seeds = ({entrant.name: seed for seed, entrant in enumerate(played.entrants, 1)}
             if played is not None else {})
    swiss = shown.entry.kind is tournament_rules.Format.SWISS
    arena = shown.entry.kind is tournament_rules.Format.ARENA
    withdrawn = played.withdrawn if played is not None else frozenset()
    forfeits = forfeit_wins(played) if played is not None else {}
    return {
        "type": "tournament", **listed_entry(shown.entry),
        "start": {"in_seconds": None if shown.start_in_seconds is None
                  else max(0, shown.start_in_seconds), "when": shown.start_when},
        "bots_allowed": shown.bots_allowed,
        "ends_in_seconds": shown.ends_in_seconds,
        "entrants": [{"name": entrant.name, "rating": round(entrant.rating, 2),
                      "seed": seeds.get(entrant.name), "withdrawn": entrant.name in withdrawn}
                     for entrant in shown.entrants],
        "round_count": None if played is None or arena else played.round_count,
        "current_round": shown.running_round,
        "rounds": [] if played is None else _flight_rounds(shown, played,
                                                           tournament_rules.Flight.MAIN),
        "flights": [] if played is None else [
            {"flight": flight.value,
             "players": None if (field := tournament_rules.flight_field(played, flight)) is None
             else list(field),
             "round_count": tournament_rules.flight_round_count(played, flight),
             "winner": tournament_rules.flight_winner(played, flight),
             "rounds": _flight_rounds(shown, played, flight)}
            for flight in played.flights[1:]],
        "standings": [] if played is None else [
            {"place": row.place, "name": row.name, "score": row.score,
             "buchholz": row.buchholz if swiss else None,
             "sonneborn_berger": row.sonneborn_berger if swiss else None,
             "rating": round(row.rating, 2), "withdrawn": row.name in withdrawn,
             "forfeit_wins": forfeits.get(row.name, 0),
             **({"streak": row.streak, "games": row.games} if arena else {})}
            for row in tournament_rules.standings(played)],
    }
