"""Match commands: invite, join, leave, the in-game commands, and watching."""
from __future__ import annotations

import dataclasses
from collections.abc import Awaitable, Callable, Collection

from fibs_server.bots import situation as decisions
from fibs_server.bots.situation import Decision
from fibs_server.lobby.command_table import CommandTable
from fibs_server.lobby.commands.common import (
    MAX_MATCH_LENGTH,
    not_free_to_play,
    parse_length,
    too_long_for,
    too_long_with,
)
from fibs_server.lobby.nodes.bus import notice
from fibs_server.lobby.nodes.directory import RemoteUser
from fibs_server.lobby.play import match_play
from fibs_server.lobby.play.match_play import Matches
from fibs_server.lobby.play.match_table import MatchTable
from fibs_server.lobby.play.running_match import Invitation, RunningMatch
from fibs_server.lobby.play.seats import Seats
from fibs_server.lobby.ports.match_records import MatchStore
from fibs_server.lobby.presence.attendance import Attendance
from fibs_server.lobby.presence.chat_state import ChatState
from fibs_server.lobby.presence.session import Session
from fibs_server.lobby.services.tutor import (
    DEFAULT_THRESHOLD,
    MAX_THRESHOLD,
    MIN_THRESHOLD,
    Proposal,
    Tutor,
)
from fibs_server.protocol import chat, texts
from fibs_server.protocol.commands import Command, Forwarding
from fibs_server.protocol.login_dialogue import BOT_CLIENT
from fibs_server.protocol.match_rules import RulesWordError, needs_length, parse_match_terms
from fibs_server.protocol.texts import Departure
from fibs_server.protocol.views import web_events
from fibs_server.protocol.wording import analysis_texts, game_texts, match_texts
from fibs_server.rules import events as ev
from fibs_server.rules.board.greedy import greedy_bearoff
from fibs_server.rules.board.notation import MoveError, parse_move
from fibs_server.rules.board.position import Play
from fibs_server.rules.events import WinKind
from fibs_server.rules.match import IllegalAction, Match, Phase
from fibs_server.rules.refusals import Refusal

RESIGN_KINDS = {"n": WinKind.SINGLE, "normal": WinKind.SINGLE, "g": WinKind.GAMMON,
                "gammon": WinKind.GAMMON, "b": WinKind.BACKGAMMON,
                "backgammon": WinKind.BACKGAMMON}


@dataclasses.dataclass(frozen=True)
class Invitee:
    """The user an invitation names, here or on another node (as the directory knows them)."""
    name: str
    visitor: bool
    busy: bool
    ready: bool
    experience: int
    gagged: Collection[str]  # lower-case names whose invitations they do not hear
    # A built-in bot online on another node: it plays users of its own node only (its match
    # would run here, where its decisions are not made).
    bot_elsewhere: bool = False

    @classmethod
    def here(cls, session: Session, visitor: bool, busy: bool, gagged: Collection[str]
             ) -> Invitee:
        assert session.account is not None
        return cls(session.name, visitor, busy, session.prefs.toggle("ready"),
                   session.account.experience, gagged)

    @classmethod
    def elsewhere(cls, user: RemoteUser) -> Invitee:
        # Their gags are theirs to check where they are: an invitation is a notice there.
        return cls(user.name, user.name.startswith(texts.VISITOR_PREFIX),
                   user.info.opponent is not None, user.info.ready, user.info.experience, (),
                   bot_elsewhere=user.info.client == BOT_CLIENT)


def named_user(attendance: Attendance, session: Session, command: Command, who_text: str,
               self_text: str | None = None) -> Session | None:
    """The online user a command names (name completion), or None after saying why not:
    `who_text` without a name, `self_text` (if given) when it names the user themselves."""
    target = user_here_or_elsewhere(attendance, session, command, who_text, self_text,
                                    elsewhere=False)
    assert not isinstance(target, RemoteUser)
    return target


def user_here_or_elsewhere(attendance: Attendance, session: Session, command: Command,
                           who_text: str,
                           self_text: str | None = None, *, elsewhere: bool = True
                           ) -> Session | RemoteUser | None:
    """`named_user`, or (`elsewhere`) a user of another node by their whole name."""
    if not command.args:
        session.out.line(who_text)
        return None
    target: Session | RemoteUser | None = attendance.users.find_online(command.args[0])
    if target is None and elsewhere:
        target = attendance.users.directory.get(command.args[0])
    if target is None:
        session.out.line(texts.no_one_called(command.args[0]))
        return None
    if target is session and self_text is not None:
        session.out.line(self_text)
        return None
    return target


def typed_play(command: Command, match: Match, player: int) -> Play:
    """The play the command's move text names in the roll being played (MoveError if none)."""
    assert match.dice is not None  # the roll being played
    return parse_move(" ".join(command.args), match.position_seen_by(player), match.dice,
                      match.colour(player), match.legal_results)


def bear_off_play(match: Match, player: int) -> Play | None:
    assert match.dice is not None
    return greedy_bearoff(match.position_seen_by(player), match.dice)


def moving(match: Match, player: int) -> bool:
    return match.turn == player and match.phase is Phase.MOVE


def parse_threshold(word: str) -> float | None:
    try:
        threshold = float(word)
    except ValueError:
        return None
    return threshold if MIN_THRESHOLD <= threshold <= MAX_THRESHOLD else None


RAW_BOARD_STYLE = 3  # `rawboard`: the `board:` line whatever the boardstyle


def command_table(attendance: Attendance, chat_state: ChatState, match_table: MatchTable,
                  matches: Matches, match_store: MatchStore, seats: Seats, tutor: Tutor,
                  tell_whose_page_is_away: Callable[[Session, RunningMatch | None], None],
                  resume_waiting: Callable[[str], Awaitable[None]]) -> CommandTable:
    """The match commands, on the matches' owners (`match_table`, `matches`, the store's
    `match_store`, the `seats` of matches across nodes, the players' `tutor`) and who is
    online (`attendance`) and whom they gag and blind (`chat_state`); `tell_whose_page_is_away`
    and `resume_waiting` are the lobby's."""
    table = CommandTable()

    # --- invitations ------------------------------------------------------------------------------

    @table.command("invite", short_forms=("i",))
    async def invite(session: Session, command: Command) -> None:
        target = invitee(session, command)
        if target is None:
            return
        if attendance.users.is_visitor(session) or target.visitor:
            # A visitor's matches are never stored; one against a person would be lost.
            session.out.line(texts.VISITORS_PLAY_BOTS)
            return
        refusal = not_free_to_play(match_table, session)
        if refusal is not None:
            session.out.line(refusal)
            return
        if target.bot_elsewhere:
            # FIBS's words for a classic session; the others are told why (docs/NODES.md).
            session.out.line(texts.BOTS_ELSEWHERE if session.out.sees_extensions
                             else game_texts.refusing_games(target.name))
            return
        if target.busy:
            session.out.line(game_texts.already_playing(target.name))
            return
        if not target.ready:
            session.out.line(game_texts.refusing_games(target.name))
            return
        saved = await match_store.running_match(session.name, target.name)
        if len(command.args) < 2:
            if saved is None:
                session.out.line(game_texts.give_a_match_length(target.name))
                return
            match_table.invitations.invite(Invitation(session.name, target.name, saved.length,
                                                      resume=True))
            session.out.line(game_texts.you_invited_to_resume(target.name))
            session.out.event(web_events.invitation_sent(target.name, saved.length, resume=True))
            _tell_invited(session, target,
                          game_texts.invitation_to_resume(session.name, False),
                          web_events.invitation(session.name, saved.length, resume=True))
            return
        length = parse_length(command.args[1])
        if length is None:
            session.out.line(game_texts.match_length_usage(MAX_MATCH_LENGTH))
            return
        try:
            terms = parse_match_terms(command.args[2:])
        except RulesWordError as error:
            session.out.line(error.reply)
            return
        points = None if length == "unlimited" else length
        if too_long_for(session, points) or too_long_with(target.experience, points):
            session.out.line(game_texts.YOU_ARE_NOT_EXPERIENCED_ENOUGH
                             if too_long_for(session, points) else
                             game_texts.not_experienced_enough(target.name))
            return
        refused = needs_length(terms) if points is None else None
        if refused is not None:
            session.out.line(refused)
            return
        match_table.invitations.invite(Invitation(session.name, target.name, points, terms=terms))
        session.out.lines(game_texts.you_invited(target.name, points, terms))
        session.out.event(web_events.invitation_sent(target.name, points, terms=terms))
        _tell_invited(session, target,
                      game_texts.invitation(session.name, points, saved is not None, False, terms),
                      web_events.invitation(session.name, points,
                                            replaces_saved_match=saved is not None, terms=terms))

    def invitee(session: Session, command: Command) -> Invitee | None:
        """The user `invite` names, online here (name completion) or on another node (their
        whole name), or None after saying why not."""
        target = user_here_or_elsewhere(attendance, session, command, game_texts.INVITE_WHOM,
                                        game_texts.INVITE_YOURSELF)
        if isinstance(target, RemoteUser):
            return Invitee.elsewhere(target)
        return None if target is None else Invitee.here(
            target, attendance.users.is_visitor(target), match_table.busy(target),
            chat_state.gags(target.name))

    def _tell_invited(inviter: Session, target: Invitee, lines: list[str],
                      message: web_events.Message) -> None:
        # Gagging someone silences their invitations too; the inviter is not told (as for tell).
        if inviter.name.lower() not in target.gagged:
            attendance.messenger.tell([target.name], notice(lines, message, ring=True))

    @table.command("join", forwarded=Forwarding.HOST_WITHOUT_ARGUMENTS)
    async def join(session: Session, command: Command) -> None:
        if not command.args:
            if match_table.match_of(session) is None:
                session.out.line(game_texts.JOIN_WHOM)
                return
            await matches.act(session, lambda m, p: m.join(p))
            return
        inviter = attendance.users.find_online(command.args[0])
        elsewhere = attendance.users.directory.get(command.args[0]) if inviter is None else None
        if inviter is None and elsewhere is None:
            session.out.line(game_texts.cannot_find_player(command.args[0]))
            return
        if match_table.busy(session):
            session.out.line(game_texts.TWO_GAMES_AT_ONCE)
            return
        if elsewhere is not None:
            # The match runs where the invitation was made; the host checks it there.
            seats.join_elsewhere(session, elsewhere)
            return
        assert inviter is not None
        invitation = match_table.invitations.invitation_from(inviter.name)
        if invitation is None or invitation.invitee.lower() != session.name.lower():
            invitation = await saved_match_to_resume(session, inviter)
        if invitation is None or inviter is session:
            session.out.line(game_texts.didnt_invite_you(inviter.name))
            return
        if match_table.busy(session):  # (meanwhile)
            session.out.line(game_texts.TWO_GAMES_AT_ONCE)
            return
        if match_table.busy(inviter):
            session.out.line(game_texts.already_playing(inviter.name))
            return
        # An invitation the server made in the inviter's name (a tournament's pairing, or one
        # to a bot from an entrant) is joined whether or not the inviter is ready.
        if not inviter.prefs.toggle("ready") and not invitation.arranged:
            session.out.line(game_texts.refusing_games(inviter.name))
            return
        match_table.invitations.withdraw(inviter.name, accepted_by=session.name)
        match_table.invitations.withdraw(session.name)
        await matches.play_invitation(invitation, inviter, session)

    async def saved_match_to_resume(session: Session, other: Session
                                    ) -> Invitation | None:
        """`join <other>` without their invitation: the resume of the pair's saved match, if they
        have one, as if `other` had invited `session` to it (either player may resume it; made by
        the server, it is joined whatever `other`'s `ready` says). None if they have none, and
        for a bot (which resumes when invited: lobby/services/bot_players.py)."""
        if other is session or other.is_bot or attendance.users.is_visitor(session):
            return None
        saved = await match_store.running_match(session.name, other.name)
        if saved is None:
            return None
        return Invitation(other.name, session.name, saved.length, resume=True, arranged=True)

    @table.command("roll", short_forms=("r",), forwarded=Forwarding.HOST)
    async def roll(session: Session, command: Command) -> None:
        # A roll where the player may double is the tutor's "no double".
        if not await tutored(session, lambda m, p: decisions.ROLL):
            await matches.act(session, lambda m, p: m.roll(p))

    async def tutored(session: Session, proposal: Proposal) -> bool:
        """Whether the player's tutor holds this decision back (they were told why)."""
        return await tutor.holds_back(session, match_table.match_of(session), proposal)

    @table.command("move", short_forms=("m",), forwarded=Forwarding.HOST)
    async def move(session: Session, command: Command) -> None:
        def proposed(match: Match, player: int) -> Decision | None:
            try:
                return decisions.move(typed_play(command, match, player)) if moving(match, player) else None
            except MoveError:
                return None  # the rules refuse it below

        def play(match: Match, player: int) -> list[ev.Event]:
            if not moving(match, player):
                return match.move(player, None)  # the engine's own refusal
            try:
                chosen = typed_play(command, match, player)
            except MoveError as error:
                raise IllegalAction(error.reason, **error.facts) from None
            return match.move(player, chosen)
        if not await tutored(session, proposed):
            await matches.act(session, play)

    @table.command("off", forwarded=Forwarding.HOST)
    async def bear_off(session: Session, command: Command) -> None:
        def proposed(match: Match, player: int) -> Decision | None:
            chosen = bear_off_play(match, player) if moving(match, player) else None
            return None if chosen is None else decisions.move(chosen)

        def play(match: Match, player: int) -> list[ev.Event]:
            if not moving(match, player):
                return match.move(player, None)
            chosen = bear_off_play(match, player)
            if chosen is None:
                raise IllegalAction(Refusal.CANNOT_BEAR_OFF)
            return match.move(player, chosen)
        if not await tutored(session, proposed):
            await matches.act(session, play)

    @table.command("double", forwarded=Forwarding.HOST)
    async def double(session: Session, command: Command) -> None:
        if not await tutored(session, lambda m, p: decisions.DOUBLE):
            await matches.act(session, lambda m, p: m.double(p))

    # The tutor judges `accept` and `reject` as a take and a drop (and only where they answer a
    # double: `tutor.judged`).
    @table.command("accept", forwarded=Forwarding.HOST)
    async def accept(session: Session, command: Command) -> None:
        if not await tutored(session, lambda m, p: decisions.TAKE):
            await matches.act(session, lambda m, p: m.accept(p))

    @table.command("reject", forwarded=Forwarding.HOST)
    async def reject(session: Session, command: Command) -> None:
        if not await tutored(session, lambda m, p: decisions.DROP):
            await matches.act(session, lambda m, p: m.reject(p))

    @table.command("tutor", forwarded=Forwarding.HOST, whole_word_only=True)
    async def tutor_command(session: Session, command: Command) -> None:
        """`tutor on [threshold]`, `tutor off`, `tutor play` (the decision held back), `tutor`:
        whether it is on (services/tutor.py)."""
        words = [word.lower() for word in command.args]
        running = match_table.match_of(session)
        if not words:
            session.out.line(analysis_texts.tutor_status(tutor.threshold_of(session)))
        elif words[0] == "on" and len(words) <= 2:
            threshold = parse_threshold(words[1]) if len(words) == 2 else DEFAULT_THRESHOLD
            session.out.line(analysis_texts.TUTOR_USAGE if threshold is None
                             else tutor.switch_on(session, running, threshold))
        elif words == ["off"]:
            session.out.line(tutor.switch_off(session))
        elif words == ["play"]:
            held = tutor.held(session, running)
            if held is None:
                session.out.line(analysis_texts.TUTOR_NOTHING_HELD)
            else:
                await matches.act(session, held.apply)
        else:
            session.out.line(analysis_texts.TUTOR_USAGE)

    @table.command("redouble", forwarded=Forwarding.HOST)
    @table.command("beaver", forwarded=Forwarding.HOST)
    @table.command("raccoon", forwarded=Forwarding.HOST)
    @table.command("otter", forwarded=Forwarding.HOST)
    async def redouble(session: Session, command: Command) -> None:
        await matches.act(session, lambda m, p: m.redouble(p, command.name))

    @table.command("resign", short_forms=("res",), forwarded=Forwarding.HOST)
    async def resign(session: Session, command: Command) -> None:
        kind = RESIGN_KINDS.get(command.args[0].lower()) if command.args else None
        if kind is None:
            session.out.line(game_texts.RESIGN_USAGE)
            return
        await matches.act(session, lambda m, p: m.resign(p, kind))

    @table.command("board", short_forms=("b",), forwarded=Forwarding.HOST)
    @table.command("rawboard", forwarded=Forwarding.HOST)
    async def board(session: Session, command: Command) -> None:
        style = RAW_BOARD_STYLE if command.name == "rawboard" else None
        running = match_table.match_of(session)
        if running is not None:
            match_play.board_to(session, running, running.match.moment(),
                                running.index_of(session), as_you=True, style=style)
            return
        watching = session.place.watching
        watched = watching and match_table.match_of(watching)
        if watching and watched:
            match_play.board_to(session, watched, watched.match.moment(),
                                watched.index_of(watching), as_you=False, style=style)
            return
        session.out.line(game_texts.NOT_PLAYING)

    @table.command("pip", forwarded=Forwarding.HOST)
    async def pip(session: Session, command: Command) -> None:
        running = match_table.match_of(session)
        if running is None:
            session.out.line(game_texts.NOT_PLAYING)
            return
        player = running.index_of(session)
        opponent = running.opponent_of(session)
        if not session.prefs.toggle("allowpip"):
            session.out.line(game_texts.TOGGLE_ALLOWPIP_FIRST)
            return
        if opponent is not None and not opponent.prefs.toggle("allowpip"):
            session.out.line(game_texts.pip_not_allowed(opponent.name))
            return
        position = running.match.position_seen_by(player)
        own, other = position.pip_count(0), position.pip_count(1)
        o_pips, x_pips = (own, other) if running.match.colour(player) == "O" else (other, own)
        session.out.line(match_texts.pip_counts_line(o_pips, x_pips))

    @table.command("leave", forwarded=Forwarding.HOST)
    async def leave(session: Session, command: Command) -> None:
        await matches.leave(session)

    @table.command("undo", forwarded=Forwarding.HOST)
    async def undo(session: Session, command: Command) -> None:
        await matches.undo(session)

    @table.on_logout
    async def part_running_match(session: Session, departure: Departure
                                 ) -> list[Session]:
        """A player who logs out or drops leaves their match saved (`Matches.log_out`)."""
        return await matches.log_out(session, departure)

    @table.on_shutdown
    async def part_running_matches() -> list[Session]:
        return await matches.shut_down()

    @table.on_login
    @table.on_resync
    async def show_taken_over_match(session: Session) -> None:
        """A new login that took a running match over (`Lobby.log_in`), or a player whose
        letters between nodes were lost (lobby/play/seats.py), is shown the match where it stands."""
        running = match_table.match_of(session)
        if running is not None:
            match_play.show_taken_over_match(running, session)

    @table.on_login
    async def send_saved_matches(session: Session) -> None:
        """A page's Resume buttons: the saved matches, after the welcome."""
        await matches.saved.send_to([session])

    @table.on_login
    async def resume_waiting_matches(session: Session) -> None:
        """A saved timed match whose opponent is online and free resumes by itself."""
        if session.kept.matches:
            await resume_waiting(session.name)

    # --- watching ---------------------------------------------------------------------------------

    @table.command("watch")
    async def watch(session: Session, command: Command) -> None:
        found = user_here_or_elsewhere(attendance, session, command, game_texts.WATCH_WHOM,
                                       game_texts.WATCH_YOURSELF)
        if found is None:
            return
        elsewhere, target = (found, None) if isinstance(found, RemoteUser) else (None, found)
        if target is not None and session.name.lower() in chat_state.blinds(target.name):
            session.out.line(chat.doesnt_want_you_to_watch(target.name))
            return
        if match_table.busy(session):
            session.out.line(game_texts.WATCH_WHILE_PLAYING)
            return
        if session.place.watching is not None:
            session.out.line(game_texts.you_stop_watching(session.place.watching.name,
                                                          for_another=True))
            match_table.watchers.stop_watching(session)
        if elsewhere is not None:
            # A seat on their node watches for this user (its blind list is checked there).
            seats.watch_elsewhere(session, elsewhere)
            return
        seats.leave_watch(session)
        assert target is not None
        match_table.watchers.set_watching(session, target)
        session.out.line(game_texts.you_are_now_watching(target.name))
        attendance.messenger.tell([target.name], notice([game_texts.is_watching_you(session.name)]))
        running = match_table.match_of(target)
        session.out.event(web_events.watching(
            target.name, None if running is None else running.opponent_name(running.index_of(target))))
        if running is None:
            session.out.line(game_texts.nothing_interesting(target.name))
        else:
            opponent = running.opponent_of(target)
            if opponent is not None:
                attendance.messenger.tell([opponent.name],
                           notice([game_texts.starts_watching(session.name, target.name)]))
            match_play.board_to(session, running, running.match.moment(), running.index_of(target),
                                as_you=False)
            tell_whose_page_is_away(session, running)
        attendance.broadcast_who(session)

    @table.command("unwatch", forwarded=Forwarding.HOST)
    async def unwatch(session: Session, command: Command) -> None:
        if session.place.watching is None:
            session.out.line(game_texts.NOT_WATCHING)
            return
        session.out.line(game_texts.you_stop_watching(session.place.watching.name,
                                                      for_another=False))
        match_table.watchers.stop_watching(session)
        attendance.broadcast_who(session)

    @table.command("look", forwarded=Forwarding.HOST)
    async def look(session: Session, command: Command) -> None:
        # A player here from another node is a seat, looked at by their whole name.
        seat = seats.seat_of(command.args[0]) if command.args else None
        target = seat or named_user(attendance, session, command, game_texts.LOOK_AT_WHOM)
        if target is None:
            return
        if session.name.lower() in chat_state.blinds(target.name):
            session.out.line(chat.doesnt_want_you_to_watch(target.name))
            return
        running = match_table.match_of(target)
        if running is None:
            session.out.line(game_texts.is_not_playing(target.name))
            return
        match_play.board_to(session, running, running.match.moment(), running.index_of(target),
                            as_you=False)

    return table
