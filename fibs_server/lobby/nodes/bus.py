"""Users addressed by name: the one seam through which a handler tells other users anything
(lila-ws's `TellUsers` and `TellAll`).

A handler says what to tell as a *letter*: a small value that names no session and holds only
JSON-able fields, so that it can travel to another node. The letter is rendered where it is
delivered, for each listener as that listener reads (CLIP numbers or sentences, a bell,
gags), exactly as the handler rendered it itself before. A `Bus` carries letters:
`LocalBus`, in-process, delivers at once, which is all one node needs; a bus between nodes
delivers here at once too and carries the letter to the other nodes, each delivering to its
own users.
"""
from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Collection, Iterable, Mapping
from typing import Any, Literal, Protocol, get_args

import orjson

from fibs_server.lobby.presence.chat_state import NO_ONE
from fibs_server.lobby.presence.session import Session, wire_bytes, wire_text
from fibs_server.protocol import chat
from fibs_server.protocol.views import web_events

SaidKind = Literal["tell", "say", "shout", "kibitz", "whisper", "message"]
Audience = Literal["named", "clip", "report", "tournaments", "tournament_pages", "extensions"]
# In Account.settings: "on" (`tournament notify on`) hears of every tournament (default off).
TOURNAMENT_NOTICE_SETTING = "tournament_notice"


def rings(session: Session) -> bool:
    """Whether `session` wants a bell with what is said to it or an invitation (telnet only)."""
    return not session.out.clip and session.prefs.toggle("bell")


# Lower-case name -> the lower-case names that user gags (lobby/presence/chat_state.py).
Gags = Mapping[str, Collection[str]]


@dataclasses.dataclass(frozen=True)
class Said:
    """`speaker`'s words to the letter's listeners. `to`: the one listener of a tell or a
    say (the typed message names them); `sent_at`: a message's time, in seconds."""
    kind: SaidKind
    speaker: str
    text: str
    to: str | None = None
    sent_at: int = 0

    def reaches(self, listener: Session, gags: Gags) -> bool:
        """A shout goes to everyone but the silent and those who gag the speaker; the other
        kinds to the listeners the handler named, but a tell or a message not to one who
        gags the speaker (the handler checks that too, for its reply, where it can)."""
        speaker, name = self.speaker.lower(), listener.name.lower()
        if self.kind in ("tell", "message"):  # checked by the speaker's node if it knew
            return speaker not in gags.get(name, NO_ONE)
        if self.kind != "shout":
            return True
        return (name != speaker and not listener.prefs.toggle("silent")
                and speaker not in gags.get(name, NO_ONE))

    def deliver(self, listeners: Iterable[Session]) -> None:
        if self.kind == "shout":
            # One text for each kind of client, as a broadcast: there may be thousands.
            texts = {clip: wire_bytes(wire_text([chat.shouts(clip, self.speaker, self.text)]))
                     for clip in (False, True)}
            shouted = web_events.encode(web_events.chat("shout", self.speaker, self.text))
            for listener in listeners:
                listener.out.broadcast(texts[listener.out.clip])
                listener.out.event_broadcast(shouted)
            return
        for listener in listeners:
            line = self._line(listener.out.clip)
            if self.kind in ("tell", "say", "message"):  # words to the listener alone ring
                line = chat.with_bell(line, rings(listener))
            listener.out.line(line)
            if self.kind != "message":  # the page reads a message as FIBS's line (its Console)
                listener.out.event(web_events.chat(self.kind, self.speaker, self.text, self.to))

    def _line(self, clip: bool) -> str:
        if self.kind == "message":
            return chat.message(clip, self.speaker, self.sent_at, self.text)
        if self.kind in ("tell", "say"):
            return chat.says(clip, self.speaker, self.text)
        render = chat.kibitzes if self.kind == "kibitz" else chat.whispers
        return render(clip, self.speaker, self.text)


@dataclasses.dataclass(frozen=True)
class Notice:
    """Lines the same for every listener, and the typed message of the same to the pages
    that asked for them. `audience`: who of those addressed hear it, decided where they are
    (`clip`: CLIP clients; `extensions`: the sessions that see our own lines unasked, the
    web pages' (docs/PROTOCOL.md, "Classic sessions"); `report`: those whose `report` toggle is on; `tournaments`: those
    who asked to hear of tournaments; `tournament_pages`: the pages that follow the
    tournament of the `tournament` message, `follows_tournament`); `excluded`: names
    that do not; `broadcast`: formatted once and sent as a broadcast (no pager, no bot looks),
    else each listener's own lines; `ring`: the first line rings the bell of a listener who
    wants one (an invitation)."""
    lines: tuple[str, ...]
    event: web_events.Message | None = None
    audience: Audience = "named"
    excluded: tuple[str, ...] = ()
    broadcast: bool = False
    ring: bool = False

    def reaches(self, listener: Session, gags: Gags) -> bool:
        if self.excluded and listener.name.lower() in self.excluded:
            return False
        if self.audience == "clip":
            return listener.out.clip
        if self.audience == "extensions":
            return listener.out.sees_extensions
        if self.audience == "tournaments":
            return hears_of_tournaments(listener)
        if self.audience == "tournament_pages":
            return self.event is not None and follows_tournament(listener, self.event)
        return self.audience != "report" or listener.prefs.toggle("report")

    def deliver(self, listeners: Collection[Session]) -> None:
        if not self.broadcast:
            for listener in listeners:
                if self.ring and self.lines and rings(listener):
                    listener.out.lines((chat.with_bell(self.lines[0], True), *self.lines[1:]))
                else:
                    listener.out.lines(self.lines)
                if self.event is not None:
                    listener.out.event(self.event)
            return
        # Everyone online may be listening: each loop does no more per listener than it must
        # (a listener still gets the lines before the typed message).
        text = wire_bytes(wire_text(list(self.lines)))
        if text:
            for listener in listeners:
                listener.out.broadcast(text)
        if self.event is not None:
            event_line = web_events.encode(self.event)
            for listener in listeners:
                listener.out.event_broadcast(event_line)


def hears_of_tournaments(listener: Session) -> bool:
    """Whether `listener` asked to hear of every tournament (`tournament notify on`)."""
    return listener.account is not None \
        and listener.account.settings.get(TOURNAMENT_NOTICE_SETTING) == "on"


def follows_tournament(listener: Session, shown: web_events.Message) -> bool:
    """Whether the page of `listener` is sent the changes of the tournament of a `tournament`
    message: the one it follows (its last shown), one it entered or created, or any when
    its user asked to hear of tournaments. Never a classic session: it has no page."""
    if not listener.out.wants_events:
        return False
    name = listener.name.lower()
    return (listener.place.followed_tournament == shown["id"] or hears_of_tournaments(listener)
            or name == shown["creator"].lower()
            or any(name == entrant["name"].lower() for entrant in shown["entrants"]))


def notice(lines: Iterable[str], event: web_events.Message | None = None, *,
           audience: Audience = "named", excluded: Iterable[str] = (),
           broadcast: bool = False, ring: bool = False) -> Notice:
    return Notice(tuple(lines), event, audience, tuple(name.lower() for name in excluded),
                  broadcast, ring)


# Each node numbers the changes of its roster (who is online there, and their who-lines):
# `run` (a token per start) and `version` (the change's number in that run; 0: unnumbered)
# let a node that missed some ask for the changes since the last it has (docs/NODES.md,
# "Rosters as changes").

@dataclasses.dataclass(frozen=True)
class Presence:
    """A user of `node` as the who-list shows them (`clip.WhoInfo`'s fields), and their away
    message. `arrival`: the login's notice (None: a change, or an answer to a roll call)."""
    node: str
    info: dict[str, Any]
    away_message: str | None = None
    arrival: str | None = None
    run: str = ""
    version: int = 0


@dataclasses.dataclass(frozen=True)
class Absence:
    """A user of `node` went; `departure`: the logout's notice."""
    node: str
    name: str
    departure: str | None = None
    run: str = ""
    version: int = 0


ModerationAction = Literal["throw_out", "mute", "unmute"]


@dataclasses.dataclass(frozen=True)
class Moderated:
    """An administrator on `node` acted on `name`, who may be online on another node:
    `throw_out` (kicked, banned or erased: told `text`, then logged out), `mute`, `unmute`."""
    node: str
    name: str
    action: ModerationAction
    text: str = ""


@dataclasses.dataclass(frozen=True)
class RollCall:
    """`node` (re)joined the bus, or missed changes: the nodes asked (`to_node`, or every
    node) answer with their rosters, as changes since what `known` says `node` has of them
    (node -> [run, version]) when they can, else whole. Sent again every few seconds as the
    node's heartbeat (`answer`: False) with its roster's `run` and `version`, so that a node
    that stops sending (killed) is forgotten with its users, and one that missed a change
    asks for it."""
    node: str
    answer: bool = True
    run: str = ""
    version: int = 0
    known: dict[str, list[Any]] = dataclasses.field(default_factory=dict)
    to_node: str | None = None


@dataclasses.dataclass(frozen=True)
class Roster:
    """Users of `node` (each `{"info": ..., "away_message": ...}`, as in a `Presence`), as of
    its roster's `version` in `run`: every one (`since` None), which replaces what the asking
    node knew of them, or those changed after version `since`, with the names of those
    `gone` since. `to_node`: the node that asked (None: every node)."""
    node: str
    users: list[dict[str, Any]]
    run: str = ""
    version: int = 0
    since: int | None = None
    gone: list[str] = dataclasses.field(default_factory=list)
    to_node: str | None = None


# A player at a match that runs on another node (lobby/play/seats.py): the match's node is the
# host, the player's own node (where their connection is) their home. Each of these letters
# is for one node, `to_node`; the others ignore it.

@dataclasses.dataclass(frozen=True)
class JoinAsked:
    """`name`, at home on `node`, joins the invitation of `inviter`, who is on `to_node`;
    or (`takeover`) logged in on `node` while playing on `to_node`, and takes their match
    over from there as a new login does. `client`: how the player's program reads
    (`seats.SeatClient`'s fields)."""
    node: str
    to_node: str
    name: str
    inviter: str
    client: dict[str, Any]
    takeover: bool = False
    watch: bool = False


@dataclasses.dataclass(frozen=True)
class Seated:
    """From the host: `name`'s seat there plays `opponent` now, or watches `watching` (both
    None: it does neither any more, or never did: the join was refused), has sent `relayed` letters home so far and received
    `received` lines from there (a home that heard fewer, or sent more, knows that some were
    lost on the way, and asks for the board). A seat that goes counts only the lines it
    served in `received`: the home answers the later ones itself."""
    node: str
    to_node: str
    name: str
    opponent: str | None
    relayed: int = 0
    received: int = 0
    watching: str | None = None


@dataclasses.dataclass(frozen=True)
class Forwarded:
    """From the home: a command line of `name` for their seat at the host. `quiet`: a
    setting the home carried out and answered already, copied to the seat; `resync`: the
    home's bus came back and asks how many letters the seat sent and received (a `Seated`
    answers; the line is ignored); `number`: the home's count of lines sent to the seat,
    this one included; `heard` (not -1): a `board` asked for because letters were lost, the
    home having heard the seat's letters up to that number."""
    node: str
    to_node: str
    name: str
    line: str
    quiet: bool = False
    resync: bool = False
    number: int = 0
    heard: int = -1


RelayKind = Literal["lines", "text", "event"]


@dataclasses.dataclass(frozen=True)
class Relayed:
    """From the host: what `name`'s seat was told, for their connection at home: `lines` to
    be laid out as the home session lays out its lines, or a `text` already on the wire, or
    typed messages (`event`), in the order the seat was told them; `number`: the seat's
    count of letters sent home, this one included."""
    node: str
    to_node: str
    name: str
    kind: RelayKind
    lines: tuple[str, ...]
    broadcast: bool = False
    number: int = 0


# A match the server arranges between two players online on other nodes than its own (a
# tournament's pairing: lobby/play/arranged_matches.py). Each is for one node, `to_node`.

@dataclasses.dataclass(frozen=True)
class MatchArranged:
    """To the home of `inviter`: the server invites `name` to a match there in the inviter's
    name (`length`, `terms` as `match_rules.terms_fields` gives them; `resume`: their
    saved match), and it starts as soon as both are free."""
    node: str
    to_node: str
    name: str
    inviter: str
    length: int | None
    terms: dict[str, Any]
    resume: bool = False


@dataclasses.dataclass(frozen=True)
class JoinArranged:
    """From the host, to the home of `name`: `name` joins the invitation the server made
    there in `inviter`'s name, as if they had typed `join`."""
    node: str
    to_node: str
    name: str
    inviter: str


# Quick play (lobby/services/quick_play.py): every node keeps every node's seeks; the node
# holding the `quick_play` lease pairs them. To every other node.

@dataclasses.dataclass(frozen=True)
class Seeking:
    """`name`, at home on `node`, rated `rating`, seeks a quick match (`length`, `terms` as
    `match_rules.terms_fields` gives them) against a rating at most `rating_range` from
    theirs at first (None: any), and has waited `waited` seconds so far (each node's clock
    is its own: the receiver counts the age from its own)."""
    node: str
    name: str
    rating: float
    length: int
    terms: dict[str, Any]
    rating_range: float | None
    waited: float


@dataclasses.dataclass(frozen=True)
class SeekEnded:
    """`name`'s seek is over: paired with `opponent` by the pairing node, or (None) given up,
    or its player gone or playing."""
    node: str
    name: str
    opponent: str | None = None


@dataclasses.dataclass(frozen=True)
class SeeksAsked:
    """`node` has begun to pair and asks every node for its seekers' seeks again."""
    node: str


SeatLetter = JoinAsked | Seated | Forwarded | Relayed
ArrangedLetter = MatchArranged | JoinArranged
SeekLetter = Seeking | SeekEnded | SeeksAsked
UserLetter = Said | Notice
PresenceLetter = Presence | Absence | RollCall | Roster  # for the nodes' directories
NodeLetter = PresenceLetter | SeatLetter | ArrangedLetter | SeekLetter | Moderated  # between nodes
Letter = UserLetter | NodeLetter
LETTERS: dict[str, type[Letter]] = {"said": Said, "notice": Notice, "presence": Presence,
                                    "absence": Absence, "roll_call": RollCall, "roster": Roster,
                                    "join_asked": JoinAsked, "seated": Seated,
                                    "forwarded": Forwarded, "relayed": Relayed,
                                    "moderated": Moderated, "match_arranged": MatchArranged,
                                    "join_arranged": JoinArranged, "seeking": Seeking,
                                    "seek_ended": SeekEnded, "seeks_asked": SeeksAsked}
KIND_OF = {kind: name for name, kind in LETTERS.items()}
_FIELD_NAMES = {kind: tuple(field.name for field in dataclasses.fields(kind))
                for kind in LETTERS.values()}


def encode_letter(letter: Letter) -> bytes:
    """The letter as it travels between nodes: JSON with its kind. Its fields are read, not
    copied (`dataclasses.asdict` deep-copies each, most of a letter's cost to the bus): orjson
    writes their dicts, lists and tuples as asdict's copies would be written."""
    kind = type(letter)
    fields = {name: getattr(letter, name) for name in _FIELD_NAMES[kind]}
    return orjson.dumps({"letter": KIND_OF[kind], **fields})


def decode_letter(data: bytes | str) -> Letter:
    """The letter `encode_letter` made; ValueError for anything else."""
    try:
        fields = orjson.loads(data)
    except orjson.JSONDecodeError as error:
        raise ValueError(f"not a letter: {error}") from error
    return letter_of(fields)


def letter_of(fields: Any) -> Letter:
    """The letter of what `encode_letter` made, read back as JSON (a batch of them is read
    at once); ValueError for anything else."""
    try:
        kind = LETTERS[fields.pop("letter")]
        for name in _TUPLES.get(kind, ()):  # JSON's lists, the letter's tuples
            if type(fields.get(name)) is not list:
                raise ValueError(f"not a letter: {name} not a list")
            fields[name] = tuple(fields[name])
        letter: Any = kind(**fields)  # its fields' types are checked below
    except (KeyError, TypeError, AttributeError) as error:
        raise ValueError(f"not a letter: {error}") from error
    if not _WELL_FORMED[kind](letter):
        raise ValueError(f"not a letter: {letter!r}")
    return letter  # type: ignore[no-any-return]


_TUPLES: dict[type[Letter], tuple[str, ...]] = {Notice: ("lines", "excluded"),
                                                Relayed: ("lines",)}


# Each kind's check of its fields' types, by its exact type: the JSON gave them any.

def _presence_letter(letter: Any) -> bool:
    return isinstance(letter.node, str) and isinstance(letter.run, str) \
        and type(letter.version) is int


def _presence(letter: Presence) -> bool:
    return (_presence_letter(letter) and isinstance(letter.info, dict)
            and isinstance(letter.away_message, str | None)
            and isinstance(letter.arrival, str | None))


def _absence(letter: Absence) -> bool:
    return (_presence_letter(letter) and isinstance(letter.name, str)
            and isinstance(letter.departure, str | None))


def _roll_call(letter: RollCall) -> bool:
    return (_presence_letter(letter) and isinstance(letter.answer, bool)
            and isinstance(letter.to_node, str | None) and isinstance(letter.known, dict)
            and all(isinstance(known, list) and len(known) == 2
                    and isinstance(known[0], str) and type(known[1]) is int
                    for known in letter.known.values()))


def _roster(letter: Roster) -> bool:
    return (_presence_letter(letter) and isinstance(letter.users, list)
            and all(isinstance(user, dict) and isinstance(user.get("info"), dict)
                    for user in letter.users)
            and (letter.since is None or type(letter.since) is int)
            and isinstance(letter.gone, list)
            and all(isinstance(name, str) for name in letter.gone)
            and isinstance(letter.to_node, str | None))


def _join_arranged(letter: JoinArranged) -> bool:
    return all(isinstance(field, str)
               for field in (letter.node, letter.to_node, letter.name, letter.inviter))


def _match_arranged(letter: MatchArranged) -> bool:
    return (_join_arranged(letter)  # type: ignore[arg-type]
            and isinstance(letter.terms, dict) and isinstance(letter.resume, bool)
            and (letter.length is None or type(letter.length) is int))


def _moderated(letter: Moderated) -> bool:
    return (isinstance(letter.node, str) and isinstance(letter.name, str)
            and letter.action in _MODERATION_ACTIONS and isinstance(letter.text, str))


def _said(letter: Said) -> bool:
    return (letter.kind in _SAID_KINDS and isinstance(letter.speaker, str)
            and isinstance(letter.text, str) and isinstance(letter.to, str | None)
            and type(letter.sent_at) is int)


def _notice(letter: Notice) -> bool:
    return (all(isinstance(line, str) for line in letter.lines)
            and isinstance(letter.event, dict | None)
            and letter.audience in _AUDIENCES
            and all(isinstance(name, str) for name in letter.excluded)
            and isinstance(letter.broadcast, bool) and isinstance(letter.ring, bool))


def _seeks_asked(letter: SeeksAsked) -> bool:
    return isinstance(letter.node, str)


def _seek_ended(letter: SeekEnded) -> bool:
    return (isinstance(letter.node, str) and isinstance(letter.name, str)
            and isinstance(letter.opponent, str | None))


def _seeking(letter: Seeking) -> bool:
    return (isinstance(letter.node, str) and isinstance(letter.name, str)
            and _is_number(letter.rating) and type(letter.length) is int
            and isinstance(letter.terms, dict)
            and (letter.rating_range is None or _is_number(letter.rating_range))
            and _is_number(letter.waited))


def _is_number(value: object) -> bool:
    """A finite JSON number (orjson reads 1 as an int, 1.5 as a float; never a bool)."""
    return type(value) in (int, float) and math.isfinite(value)  # type: ignore[arg-type]


def _seat_letter(letter: SeatLetter) -> bool:
    return type(letter.node) is str and type(letter.to_node) is str and type(letter.name) is str


def _join_asked(letter: JoinAsked) -> bool:
    return (_seat_letter(letter) and isinstance(letter.inviter, str)
            and isinstance(letter.client, dict) and isinstance(letter.takeover, bool)
            and isinstance(letter.watch, bool))


def _seated(letter: Seated) -> bool:
    return (_seat_letter(letter) and isinstance(letter.opponent, str | None)
            and type(letter.relayed) is int and type(letter.received) is int
            and isinstance(letter.watching, str | None))


def _forwarded(letter: Forwarded) -> bool:
    return (_seat_letter(letter) and isinstance(letter.line, str)
            and isinstance(letter.quiet, bool) and isinstance(letter.resync, bool)
            and type(letter.number) is int and type(letter.heard) is int)


def _relayed(letter: Relayed) -> bool:
    return (_seat_letter(letter) and letter.kind in _RELAY_KINDS
            and isinstance(letter.broadcast, bool) and type(letter.number) is int
            and all(isinstance(line, str) for line in letter.lines))


_SAID_KINDS = frozenset(get_args(SaidKind))
_AUDIENCES = frozenset(get_args(Audience))
_MODERATION_ACTIONS = frozenset(get_args(ModerationAction))
_RELAY_KINDS = frozenset(get_args(RelayKind))
_WELL_FORMED: dict[type[Letter], Callable[[Any], bool]] = {
    Said: _said, Notice: _notice, Presence: _presence, Absence: _absence,
    RollCall: _roll_call, Roster: _roster, JoinAsked: _join_asked, Seated: _seated,
    Forwarded: _forwarded, Relayed: _relayed, Moderated: _moderated,
    MatchArranged: _match_arranged, JoinArranged: _join_arranged, Seeking: _seeking,
    SeekEnded: _seek_ended, SeeksAsked: _seeks_asked}


# Where a bus hands a letter to this node's users: the names, or None for everyone online.
Deliver = Callable[[Collection[str] | None, Letter], None]


class Bus(Protocol):
    """Carries letters to users by name wherever they are; delivers to this node's users
    before it returns (so what one handler tells arrives in the order it told it)."""

    def tell(self, names: Collection[str], letter: Letter) -> None: ...

    def tell_all(self, letter: Letter) -> None: ...

    def tell_others(self, letter: NodeLetter) -> None:
        """To the other nodes only (what this node's users were told already)."""

    @property
    def carrying(self) -> bool:
        """Whether the bus carries letters between the nodes now (as far as it can tell)."""


class LocalBus:
    """One node: every user is here, so a letter is delivered at once and goes nowhere else."""

    def __init__(self, deliver: Deliver) -> None:
        self._deliver = deliver

    def tell(self, names: Collection[str], letter: Letter) -> None:
        if names:
            self._deliver(names, letter)

    def tell_all(self, letter: Letter) -> None:
        self._deliver(None, letter)

    def tell_others(self, letter: NodeLetter) -> None:
        pass  # there are none

    carrying = True  # to nobody, always
