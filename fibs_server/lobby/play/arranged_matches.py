"""Matches the server arranges between two players, wherever each is online: a tournament's
pairings (lobby/services/tournaments.py), whose director runs on one node while its players may be at
home on any (docs/NODES.md).

A match runs on its inviter's node (lobby/play/seats.py), so the arrangement is carried out
there. That node makes the invitation, as the inviter would have with `invite`, and then
either starts the match at once (the invitee is free there too) or asks the invitee's home
to `join` it for them (`JoinArranged`), as the player would have; the match then runs as
every match across nodes does. An arrangement for a node that is not the arranger's goes in
a `MatchArranged` letter. A player found busy on the way is left alone: the arranger tries
again later.

An arranged invitation is joined whatever the inviter's `ready` says (the server made it,
not the player). Built-in bots are never arranged here: they take the invitations they are
sent, from players on their own node (lobby/services/bot_players.py)."""
from __future__ import annotations

import dataclasses
import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from fibs_server.lobby.nodes.bus import ArrangedLetter, JoinArranged, MatchArranged, notice
from fibs_server.lobby.nodes.directory import RemoteUser
from fibs_server.lobby.play.running_match import Invitation, RunningMatch, clocked_state
from fibs_server.lobby.presence.session import Session
from fibs_server.protocol.login_dialogue import BOT_CLIENT
from fibs_server.protocol.match_rules import terms_fields, terms_from_fields
from fibs_server.protocol.wording import clock_texts

if TYPE_CHECKING:  # types only: the lobby's owners, given in `Arranging`
    from fibs_server.lobby.play.match_play import Matches
    from fibs_server.lobby.play.match_table import MatchTable
    from fibs_server.lobby.play.seats import Seats, SeatSettings
    from fibs_server.lobby.ports.match_records import MatchStore
    from fibs_server.lobby.presence.attendance import Attendance

log = logging.getLogger(__name__)


@dataclasses.dataclass(frozen=True)
class Arranging:
    """What arranging a match uses, made by the lobby (lobby.Lobby) and given to these
    functions: who is online, who plays whom, the matches and their store, the seats for a
    join elsewhere, this node's name, and whether a tournament's later pairing holds a user
    (`TournamentRecords.paired_after`)."""
    attendance: Attendance
    match_table: MatchTable
    matches: Matches
    match_store: MatchStore
    seats: Seats
    settings: SeatSettings  # read when used: a test names the node of a lobby it made
    paired_after: Callable[[str, int], Awaitable[bool]]


def free_here(arranging: Arranging, name: str) -> Session | None:
    """`name`'s session if they are online here (that very name) and in no match."""
    session = arranging.attendance.users.online.get(name.lower())
    if session is None or arranging.match_table.busy(session):
        return None
    return session


def free_elsewhere(arranging: Arranging, name: str) -> RemoteUser | None:
    """`name` as another node last told of them, if they play nobody there and are not one
    of the server's bots."""
    user = arranging.attendance.users.directory.get(name)
    if user is None or user.info.opponent is not None or user.info.client == BOT_CLIENT:
        return None
    return user


async def arrange(arranging: Arranging, invitation: Invitation) -> RunningMatch | None:
    """`invitation`, made by the server, carried out on its inviter's node: the match that
    started here at once, if it did."""
    invitation = dataclasses.replace(invitation, arranged=True)
    inviter = free_here(arranging, invitation.inviter)
    if inviter is not None:
        return await _host(arranging, inviter, invitation)
    home = free_elsewhere(arranging, invitation.inviter)
    if home is not None:
        arranging.attendance.messenger.tell_node(MatchArranged(
            arranging.settings.node_id, home.node, invitation.invitee, invitation.inviter,
            invitation.length, terms_fields(invitation.terms), invitation.resume))
    return None


async def _host(arranging: Arranging, inviter: Session, invitation: Invitation) -> RunningMatch | None:
    invitee = free_here(arranging, invitation.invitee)
    if invitee is not None:
        if inviter.is_bot or invitee.is_bot:
            return None
        arranging.match_table.invitations.withdraw(inviter.name, accepted_by=invitee.name)
        arranging.match_table.invitations.withdraw(invitee.name)
        await arranging.matches.play_invitation(invitation, inviter, invitee)
        return arranging.match_table.match_of(inviter)
    home = free_elsewhere(arranging, invitation.invitee)
    if home is not None and not inviter.is_bot:
        arranging.match_table.invitations.invite(invitation)
        arranging.attendance.messenger.tell_node(JoinArranged(arranging.settings.node_id, home.node, invitation.invitee,
                                               inviter.name))
    return None


async def resume_waiting_matches(arranging: Arranging, name: str) -> None:
    """`name` came online here or is free again: their first saved timed match whose
    opponent is online and free too resumes by itself, wherever the opponent is (as an
    arrangement of the server's: a saved timed match never waits for a resume while both
    could play it, docs/FAIRNESS.md). Both are told why first (the pages and the sessions
    that see our own lines; the others see FIBS's lines of a resume)."""
    player = free_here(arranging, name)
    if player is None or player.is_bot or arranging.attendance.users.is_visitor(player):
        return
    for record in await arranging.match_store.running_matches(name):
        if record.length is None or not clocked_state(record.state):
            continue  # only a timed match can be lost by absence: the others wait for `invite`
        opponent = record.player_b if record.player_a.lower() == name.lower() else record.player_a
        here = free_here(arranging, opponent)
        if free_here(arranging, name) is not player or arranging.matches.saved.is_live(name, opponent) or (
                here is None and free_elsewhere(arranging, opponent) is None):
            continue
        if here is not None and here.is_bot:
            continue  # a bot resumes when invited (lobby/services/bot_players.py)
        # A tournament's pairing made since this match began comes first: its director
        # starts it, and this match resumes by itself once it is decided
        # (docs/TOURNAMENTS.md).
        if await arranging.paired_after(player.name, record.started_at):
            return
        if await arranging.paired_after(opponent, record.started_at):
            continue
        for one, other in ((player.name, opponent), (opponent, player.name)):
            arranging.attendance.messenger.tell([one], notice([clock_texts.resumes_by_itself(other)],
                                                          audience="extensions"))
        await arrange(arranging, Invitation(player.name, opponent, record.length, resume=True))
        return


def receive(arranging: Arranging, letter: ArrangedLetter) -> None:
    """An arrangement another node sent this one (the lobby's `arranged`: whichever node
    directs a tournament, its arrangements come here)."""
    if isinstance(letter, JoinArranged):
        player = free_here(arranging, letter.name)
        home = arranging.attendance.users.directory.get(letter.inviter)
        if player is not None and not player.is_bot and home is not None \
                and home.node == letter.node:
            arranging.seats.join_elsewhere(player, home)
        return
    try:
        terms = terms_from_fields(letter.terms)
    except (KeyError, TypeError, ValueError):
        log.exception("an arranged match from node %s was not understood", letter.node)
        return
    host = free_here(arranging, letter.inviter)
    if host is not None:
        arranging.attendance.start_job(_host(arranging, host, Invitation(
            letter.inviter, letter.name, letter.length, letter.resume, terms, arranged=True)))

