"""Who plays whom: the invitations and open tables, the running matches by player, the
players whose match is being set up, and who watches whom.

A user plays one match at a time; a built-in bot plays any number, each through a session
of its own (`Session.is_bot`), so its matches are found by session, not by name."""
from __future__ import annotations

import contextlib
from collections.abc import Callable, Collection, Iterator

from fibs_server.lobby.nodes.bus import Letter, notice
from fibs_server.lobby.play.running_match import Invitation, RunningMatch
from fibs_server.lobby.play.tables import OpenTables
from fibs_server.lobby.presence.session import Session
from fibs_server.protocol import info
from fibs_server.protocol.views import web_events
from fibs_server.protocol.wording import game_texts


class MatchTable:
    """Who plays whom, and who is about to: the running matches by player, the players whose
    match is being set up, and two facets, the invitations (`invitations`) and who watches
    whom (`watchers`)."""

    def __init__(self, changed: Callable[[Session], None],
                 withdrawn: Callable[[Invitation], None],
                 tell: Callable[[Collection[str], Letter], None],
                 watching_changed: Callable[[Session], None] = lambda session: None) -> None:
        # `changed(session)`: a user's who-line changed (they started or stopped playing or
        # watching): the lobby broadcasts it. `withdrawn(invitation)`: an invitation stands
        # no more, unaccepted: the lobby tells its invitee's page. `tell`: the lobby's.
        # `watching_changed(session)`: whom the session watches changed (the seats tell a
        # match on another node).
        self.changed = changed
        self.invitations = Invitations(withdrawn)
        self.open_tables = OpenTables()  # matches offered to whoever sits first
        self.playing: dict[str, RunningMatch] = {}  # lower-case player name -> their match
        self.bot_matches: dict[Session, RunningMatch] = {}  # a bot's session -> its match
        self._starting: set[str] = set()  # lower-case names of players whose match is being set up
        self.watchers = Watchers(self, tell, watching_changed)

    # --- matches -------------------------------------------------------------------------------

    def match_of(self, session: Session) -> RunningMatch | None:
        if session.is_bot:
            return self.bot_matches.get(session)
        running = self.playing.get(session.name.lower())
        return running if running is not None and session in running.sessions else None

    def busy(self, session: Session) -> bool:
        """Playing (here or on another node), or in a match being set up (a bot takes on
        every match it is offered)."""
        if session.is_bot:
            return session in self.bot_matches
        elsewhere = session.place.seated_elsewhere
        return (self.match_of(session) is not None
                or (elsewhere is not None and elsewhere.playing)
                or session.name.lower() in self._starting)

    # --- starts ---------------------------------------------------------------------------------

    @contextlib.contextmanager
    def starting(self, names: Collection[str]) -> Iterator[bool]:
        """Claim the users named for a match being set up, for as long as the block runs: a
        second start at the same moment finds them busy. Yields False (and claims nothing) if
        one of them is being claimed already."""
        claimed = {name.lower() for name in names}
        if claimed & self._starting:
            yield False
            return
        self._starting |= claimed
        try:
            yield True
        finally:
            self._starting -= claimed

    def opponent_name_of(self, session: Session) -> str | None:
        """Whom `session` plays. A bot's session in `who` plays through others, one a match:
        its who-line names the opponent of the latest of them, as FIBS names a player's."""
        running = self.match_of(session)
        if running is not None:
            return running.opponent_name(running.index_of(session))
        if session.is_bot:
            return self._latest_bot_opponent(session.name)
        return session.place.seated_elsewhere.opponent if session.place.seated_elsewhere else None

    def _latest_bot_opponent(self, bot_name: str) -> str | None:
        for bot, running in reversed(self.bot_matches.items()):  # in the order they began
            if bot.name.lower() == bot_name.lower():
                return running.opponent_name(running.index_of(bot))
        return None

    def running_matches(self) -> list[RunningMatch]:
        matches = [*self.playing.values(), *self.bot_matches.values()]
        return list({id(r): r for r in matches}.values())

    def running_games(self) -> list[info.RunningGame]:
        return [info.RunningGame(*r.names, r.match.length, r.match.score[0], r.match.score[1],
                                 r.terms)
                for r in self.running_matches()]

    def begin(self, running: RunningMatch) -> None:
        """Both players are in the match: neither invites nor watches anyone any more."""
        for session in running.players():
            if session.is_bot:
                self.bot_matches[session] = running
                continue
            self.playing[session.name.lower()] = running
            self.invitations.withdraw(session.name,
                                      accepted_by=running.opponent_name(running.index_of(session)))
            self.open_tables.close(session.name)  # a creator who plays elsewhere left it
            if session.place.watching is not None:
                self.watchers.stop_watching(session)
        for session in running.players():
            self.changed(session)

    def forget(self, running: RunningMatch) -> None:
        """The match is over, or its players have parted: it runs no more."""
        if running.timer is not None:
            running.timer.stop()
        for session in running.players():
            if session.is_bot:
                self.bot_matches.pop(session, None)
            elif self.playing.get(session.name.lower()) is running:
                del self.playing[session.name.lower()]
        for session in running.players():
            self.changed(session)

    def take_over(self, previous: Session, session: Session) -> RunningMatch | None:
        """A new login of a user who was online: the new session takes the old one's place in
        its running match (the opponent and watchers go on as before); what the old one
        watched it watches no more. Returns the match taken over."""
        watchers = self.watchers
        watchers.set_watching(previous, None)
        running = self.match_of(previous)
        if running is None:
            return None
        running.sessions[running.index_of(previous)] = session
        for watcher in watchers.of(previous):
            watchers.set_watching(watcher, session)
        return running


class Invitations:
    """The standing invitations, one an inviter."""

    def __init__(self, withdrawn: Callable[[Invitation], None]) -> None:
        self.withdrawn = withdrawn
        self._by_inviter: dict[str, Invitation] = {}  # lower-case inviter name -> invitation

    def invite(self, invitation: Invitation) -> None:
        """The inviter's invitation, in place of any earlier one of theirs."""
        earlier = self._by_inviter.get(invitation.inviter.lower())
        self._by_inviter[invitation.inviter.lower()] = invitation
        if earlier is not None and earlier.invitee.lower() != invitation.invitee.lower():
            self.withdrawn(earlier)

    def withdraw(self, inviter_name: str, accepted_by: str | None = None) -> None:
        """The user's invitation, if any, is no more (they left, or play elsewhere: with
        `accepted_by`, who may be its invitee, who joined it)."""
        invitation = self._by_inviter.pop(inviter_name.lower(), None)
        if invitation is not None and invitation.invitee.lower() != (accepted_by or "").lower():
            self.withdrawn(invitation)

    def invitation_from(self, inviter_name: str) -> Invitation | None:
        return self._by_inviter.get(inviter_name.lower())


class Watchers:
    """Who watches whom. Every move is told to the players' watchers, and a scan of everyone
    online per move would make 1,000 matches among 10,000 users cost 20 million checks a
    second: the watchers are kept by player, in the order they came in."""

    def __init__(self, table: MatchTable, tell: Callable[[Collection[str], Letter], None],
                 watching_changed: Callable[[Session], None]) -> None:
        self.table = table
        self.tell = tell
        self.watching_changed = watching_changed
        self.by_player: dict[Session, dict[Session, None]] = {}

    def of(self, player: Session) -> list[Session]:
        return list(self.by_player.get(player, ()))

    def set_watching(self, session: Session, player: Session | None) -> None:
        """`session` watches `player` now (None: nobody), quietly."""
        if session.place.watching is not None:
            theirs = self.by_player[session.place.watching]
            del theirs[session]
            if not theirs:
                del self.by_player[session.place.watching]
        session.place.watching = player
        if player is not None:
            self.by_player.setdefault(player, {})[session] = None
        self.watching_changed(session)

    def stop_watching(self, session: Session) -> None:
        """`session` stops watching, and the player (and their opponent) are told."""
        watched = session.place.watching
        if watched is None:
            return
        self.set_watching(session, None)
        session.out.event(web_events.watch_ended(watched.name))
        self.tell([watched.name], notice([game_texts.stops_watching_you(session.name)]))
        running = self.table.match_of(watched)
        opponent = running.opponent_of(watched) if running is not None else None
        if opponent is not None:
            self.tell([opponent.name],
                      notice([game_texts.stops_watching(session.name, watched.name)]))
