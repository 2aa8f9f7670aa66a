"""Match commands: invite, join, leave, the in-game commands, and watching."""
from __future__ import annotations

import logging
from collections.abc import Callable

from fibs_server.lobby.accounts import PER_GAME_TOGGLES
from fibs_server.lobby.chat_commands import rings
from fibs_server.lobby.games import (ROLL_OR_DOUBLE, Invitation, Narrator, RunningMatch,
                                     automatic_play, match_kind, new_match, remind)
from fibs_server.lobby.lobby import CommandTable, Lobby
from fibs_server.lobby.session import Session
from fibs_server.protocol import chat, match_texts, texts
from fibs_server.protocol.commands import Command
from fibs_server.protocol.texts import plural
from fibs_server.rules import events as ev
from fibs_server.rules.events import WinKind
from fibs_server.rules.greedy import greedy_bearoff
from fibs_server.rules.match import IllegalAction, Match, Moment, Phase
from fibs_server.rules.notation import MoveError, format_play, parse_move

log = logging.getLogger(__name__)
table = CommandTable()

MAX_MATCH_LENGTH = 99
LONG_MATCH = 9  # longer matches need a rating-list player (experience above 50)
RATED_EXPERIENCE = 50
NOT_PLAYING = "** You're not playing."
RESIGN_KINDS = {"n": WinKind.SINGLE, "normal": WinKind.SINGLE, "g": WinKind.GAMMON,
                "gammon": WinKind.GAMMON, "b": WinKind.BACKGAMMON,
                "backgammon": WinKind.BACKGAMMON}


def named_user(lobby: Lobby, session: Session, command: Command, who_text: str,
               self_text: str | None = None) -> Session | None:
    """The online user a command names (name completion), or None after saying why not:
    `who_text` without a name, `self_text` (if given) when it names the user themselves."""
    if not command.args:
        session.send_line(who_text)
        return None
    target = lobby.find_online(command.args[0])
    if target is None:
        session.send_line(texts.no_one_called(command.args[0]))
        return None
    if target is session and self_text is not None:
        session.send_line(self_text)
        return None
    return target


# --- invitations -------------------------------------------------------------------------------

@table.command("invite")
async def invite(lobby: Lobby, session: Session, command: Command) -> None:
    target = named_user(lobby, session, command, "** invite who?", "** You can't invite yourself.")
    if target is None:
        return
    if lobby.busy(session):
        session.send_line("** You can't play two games at once")
        return
    if not session.toggle("ready"):
        session.send_line("** Use 'toggle ready' first.")
        return
    if lobby.busy(target):
        session.send_line(f"** Error: {target.name} is already playing with someone else.")
        return
    if not target.toggle("ready"):
        session.send_line(f"** {target.name} is refusing games.")
        return
    saved = await lobby.matches.running_match(session.name, target.name)
    if len(command.args) < 2:
        if saved is None:
            session.send_line(f"** There's no saved match with {target.name}. "
                              "Please give a match length.")
            return
        lobby.invitations[session.name.lower()] = Invitation(session, target.name, saved.length,
                                                             resume=True)
        session.send_line(f"** You invited {target.name} to resume a saved match.")
        _tell_invited(session, target, [
            chat.with_bell(f"{session.name} wants to resume a saved match with you.",
                           rings(target)),
            f"Type 'join {session.name}' to accept."])
        return
    length = parse_length(command.args[1])
    if length is None:
        session.send_line(f"** The match length must be a number from 1 to {MAX_MATCH_LENGTH}"
                          " or 'unlimited'.")
        return
    if length != "unlimited" and length > LONG_MATCH and any(
            s.account.experience <= RATED_EXPERIENCE for s in (session, target)):
        session.send_line("** You're not experienced enough to play a match of that length."
                          if session.account.experience <= RATED_EXPERIENCE else
                          f"** {target.name} is not experienced enough to play a match of "
                          "that length.")
        return
    points = None if length == "unlimited" else length
    lobby.invitations[session.name.lower()] = Invitation(session, target.name, points)
    kind = match_kind(points)
    session.send_line(f"** You invited {target.name} to {kind}.")
    lines = [chat.with_bell(f"{session.name} wants to play {kind} with you.", rings(target)),
             f"Type 'join {session.name}' to accept."]
    if saved is not None:
        lines.insert(1, "WARNING: Don't accept if you want to continue your saved match!")
    _tell_invited(session, target, lines)


def _tell_invited(inviter: Session, target: Session, lines: list[str]) -> None:
    # Gagging someone silences their invitations too; the inviter is not told (as for tell).
    if inviter.name.lower() not in target.gagged:
        target.send_lines(lines)


def parse_length(word: str) -> int | str | None:
    """A match length: a number 1..MAX_MATCH_LENGTH or 'unlimited'; None if neither."""
    if "unlimited".startswith(word.lower()) and len(word) >= 2:
        return "unlimited"
    if word.isdigit() and 1 <= int(word) <= MAX_MATCH_LENGTH:
        return int(word)
    return None


@table.command("join")
async def join(lobby: Lobby, session: Session, command: Command) -> None:
    running = lobby.match_of(session)
    if not command.args:
        if running is None:
            session.send_line("** Error: Join who?")
            return
        await act(lobby, session, lambda m, p: m.join(p))
        return
    inviter = lobby.find_online(command.args[0])
    if inviter is None:
        session.send_line(f"** Error: can't find player {command.args[0]}")
        return
    if lobby.busy(session):
        session.send_line("** You can't play two games at once")
        return
    invitation = lobby.invitations.get(inviter.name.lower())
    if invitation is None or invitation.invitee.lower() != session.name.lower() \
            or inviter is session:
        session.send_line(f"** {inviter.name} didn't invite you.")
        return
    if lobby.busy(inviter):
        session.send_line(f"** Error: {inviter.name} is already playing with someone else.")
        return
    if not inviter.toggle("ready"):
        session.send_line(f"** {inviter.name} is refusing games.")
        return
    del lobby.invitations[inviter.name.lower()]
    lobby.invitations.pop(session.name.lower(), None)
    # Both are taken from here on (before the first await): a second `join` at the same
    # moment must not put either of them in a second match.
    names = {inviter.name.lower(), session.name.lower()}
    lobby.starting |= names
    try:
        if invitation.resume:
            await resume_match(lobby, inviter, session)
        else:
            await start_match(lobby, inviter, session, invitation.length)
    finally:
        lobby.starting -= names


def left_meanwhile(lobby: Lobby, inviter: Session, joiner: Session) -> bool:
    """Whether a player went away while their match was being set up: then it stays stored
    as saved, as if they had dropped right after the start, and the other one is told so."""
    for player, other in ((inviter, joiner), (joiner, inviter)):
        if not lobby.is_online(player):
            other.send_line(f"{player.name} drops connection. The game was saved.")
            return True
    return False


async def start_match(lobby: Lobby, inviter: Session, joiner: Session,
                      length: int | None) -> None:
    saved = await lobby.matches.running_match(inviter.name, joiner.name)
    if saved is not None:
        await lobby.matches.delete_match(saved.match_id)
    match = new_match(length, lobby.config.new_dice(), inviter, joiner,
                      lobby.config.choose_first_x())
    events = told(match, match.start())
    stored = match.to_dict()
    match_id = await lobby.matches.create_match(inviter.name, joiner.name, length, stored)
    if left_meanwhile(lobby, inviter, joiner):
        return
    running = RunningMatch(match_id, match, (inviter.name, joiner.name), (inviter, joiner))
    kind = match_kind(length)
    if length is None:
        joiner.send_line(f"** You are now playing an unlimited match with {inviter.name}")
        inviter.send_line(f"Player {joiner.name} has joined you for an unlimited match.")
    else:
        joiner.send_line(f"** You are now playing a {length} point match with {inviter.name}")
        inviter.send_line(f"** Player {joiner.name} has joined you for {kind}.")
    lobby.report(f"{inviter.name} and {joiner.name} start {kind}.", exclude=(inviter, joiner))
    lobby.begin_playing(running)
    async with running.lock:
        items = follow_ups(running, events)
        if not await stored_or_undone(lobby, running, stored, inviter):
            items = events  # what is stored: the start, without the server's follow-ups
        narrate(lobby, running, items)


async def resume_match(lobby: Lobby, inviter: Session, joiner: Session) -> None:
    record = await lobby.matches.running_match(inviter.name, joiner.name)
    if record is None:
        joiner.send_line(f"** There's no saved match with {inviter.name}.")
        return
    if left_meanwhile(lobby, inviter, joiner):
        return
    match = Match.from_dict(record.state, lobby.config.new_dice())
    sessions = {inviter.name.lower(): inviter, joiner.name.lower(): joiner}
    running = RunningMatch(record.match_id, match, (record.player_a, record.player_b),
                           (sessions[record.player_a.lower()], sessions[record.player_b.lower()]))
    joiner.send_line(f"You are now playing with {inviter.name}. Your running match was loaded.")
    inviter.send_line(f"{joiner.name} has joined you. Your running match was loaded.")
    what = ("their unlimited match" if match.length is None
            else f"their {match.length}-point match")
    lobby.report(f"{inviter.name} and {joiner.name} are resuming {what}.",
                 exclude=(inviter, joiner))
    lobby.begin_playing(running)
    narrator = Narrator(running, lobby.watchers_of)
    moment = match.moment()
    to_act = moment.to_act
    turn_name = running.names[match.turn if to_act is None else to_act]
    for index, session in enumerate(running.sessions):
        session.send_lines([
            f"turn: {turn_name}",
            "unlimited match" if match.length is None else f"match length: {match.length}",
            f"points for user {running.names[0]}: {match.score[0]}",
            f"points for user {running.names[1]}: {match.score[1]}"])
        narrator.board_to(session, moment, index, as_you=True)
    async with running.lock:
        items = follow_ups(running, [])
        if await stored_or_undone(lobby, running, record.state, inviter):
            narrate(lobby, running, items)
        remind(running, (0, 1))


# --- acting on the running match -----------------------------------------------------------------

Action = Callable[[Match, int], list[ev.Event]]


async def act(lobby: Lobby, session: Session, action: Action) -> None:
    """Apply a player's action, then the server's automatic follow-ups; store; narrate."""
    running = lobby.match_of(session)
    if running is None:
        session.send_line(NOT_PLAYING)
        return
    async with running.lock:
        player = running.index_of(session)
        before = running.match.to_dict()
        try:
            events = action(running.match, player)
        except IllegalAction as refused:
            session.send_line(refused.fibs_text(running.opponent_name(player)))
            return
        items = follow_ups(running, told(running.match, events))
        if await stored_or_undone(lobby, running, before, session):
            narrate(lobby, running, items)


async def stored_or_undone(lobby: Lobby, running: RunningMatch, before: dict,
                           actor: Session) -> bool:
    """Store the match's new state. If that fails, the match goes back to `before` (its
    stored state): an action counts only once stored, and memory is never ahead of the
    database. `actor` is told to try again; the match goes on."""
    try:
        await lobby.save_match(running)
    except Exception:
        log.exception("storing match %s failed; the action is undone", running.match_id)
        running.match = Match.from_dict(before, running.match.dice_source)
        actor.send_line(texts.NOT_STORED)
        return False
    return True


def told(match: Match, events: list[ev.Event]) -> list[tuple[ev.Event, Moment]]:
    """The events of the match's last action, each with the moment right after it."""
    return list(zip(events, match.moments, strict=True))


class Prompt:
    """A line for one player that belongs between engine events (not an engine event)."""

    def __init__(self, player: int, text: str) -> None:
        self.player, self.text = player, text


def follow_ups(running: RunningMatch, events: list[tuple[ev.Event, Moment]]) -> list:
    """`events` of an action, followed by what the server does by itself: roll for a player
    who cannot or will not double, play forced or greedy moves; plus the prompts FIBS sends
    in between. Each event comes with its moment, for the boards sent with it (None: no
    board for it)."""
    match = running.match
    items: list = list(events)
    if any(isinstance(event, ev.GameStarted) and event.game_number > 1 for event, _ in events):
        # A new game: per-game toggles set for the last one (or before the match) lapse.
        for session in running.sessions:
            if session is not None:
                session.account.toggles.update(PER_GAME_TOGGLES)
    while not match.is_over:
        session = running.sessions[match.turn]
        if match.phase is Phase.ROLL_OR_DOUBLE and match.resignation is None:
            if session is None:
                break
            if not session.toggle("double"):
                items += told(match, match.roll(match.turn))
                continue
            items.append(Prompt(match.turn, ROLL_OR_DOUBLE))
            break
        if match.phase is Phase.MOVE and match.resignation is None and session is not None:
            automatic = automatic_play(match, session)
            last = items[-1] if items else None
            rolled_now = (isinstance(last, tuple) and isinstance(last[0], ev.Rolled)
                          and last[0].player == match.turn)
            if automatic is not None:
                if rolled_now:
                    # A board is a question to a bot: no `moreboards` board asks for a move
                    # the server makes itself at once.
                    items[-1] = (last[0], None)
                reason, play = automatic
                text = format_play(play, match.colour(match.turn))
                # The mover is told what the server played for them (the opponent gets the
                # usual `<name> moves ... .`).
                items.append(Prompt(match.turn, f"The only possible move is {text} ."
                                    if reason == "only" else f"Bearing off: {text} ."))
                items += told(match, match.move(match.turn, play))
                continue
            if rolled_now:
                items.append(Prompt(match.turn,
                                    f"Please move {plural(match.pieces_to_move, 'piece')}."))
        break
    return items


def narrate(lobby: Lobby, running: RunningMatch, items: list) -> None:
    narrator = Narrator(running, lobby.watchers_of)
    batch: list[tuple[ev.Event, Moment | None]] = []
    for item in items:
        if isinstance(item, Prompt):
            narrator.narrate(batch)
            batch = []
            narrator.tell(item.player, item.text)
        else:
            batch.append(item)
    narrator.narrate(batch)
    if running.match.is_over:
        lobby.end_playing(running)


@table.command("roll")
async def roll(lobby: Lobby, session: Session, command: Command) -> None:
    await act(lobby, session, lambda m, p: m.roll(p))


@table.command("move")
async def move(lobby: Lobby, session: Session, command: Command) -> None:
    def play(match: Match, player: int) -> list[ev.Event]:
        if match.turn != player or match.phase is not Phase.MOVE:
            return match.move(player, None)  # the engine's own refusal text
        try:
            chosen = parse_move(" ".join(command.args), match.position_seen_by(player),
                                match.dice, match.colour(player), match.legal_plays())
        except MoveError as error:
            raise IllegalAction(str(error)) from None
        return match.move(player, chosen)
    await act(lobby, session, play)


@table.command("off")
async def bear_off(lobby: Lobby, session: Session, command: Command) -> None:
    def play(match: Match, player: int) -> list[ev.Event]:
        if match.turn != player or match.phase is not Phase.MOVE:
            return match.move(player, None)
        chosen = greedy_bearoff(match.position_seen_by(player), match.dice)
        if chosen is None:
            raise IllegalAction("** You can't bear off now.")
        return match.move(player, chosen)
    await act(lobby, session, play)


@table.command("double")
async def double(lobby: Lobby, session: Session, command: Command) -> None:
    await act(lobby, session, lambda m, p: m.double(p))


@table.command("accept")
async def accept(lobby: Lobby, session: Session, command: Command) -> None:
    await act(lobby, session, lambda m, p: m.accept(p))


@table.command("reject")
async def reject(lobby: Lobby, session: Session, command: Command) -> None:
    await act(lobby, session, lambda m, p: m.reject(p))


@table.command("redouble", "beaver", "raccoon", "otter")
async def redouble(lobby: Lobby, session: Session, command: Command) -> None:
    await act(lobby, session, lambda m, p: m.redouble(p, command.name))


@table.command("resign")
async def resign(lobby: Lobby, session: Session, command: Command) -> None:
    kind = RESIGN_KINDS.get(command.args[0].lower()) if command.args else None
    if kind is None:
        session.send_line("** Type 'n' (normal), 'g' (gammon) or 'b' (backgammon) after resign.")
        return
    await act(lobby, session, lambda m, p: m.resign(p, kind))


RAW_BOARD_STYLE = 3  # `rawboard`: the `board:` line whatever the boardstyle


@table.command("board", "rawboard")
async def board(lobby: Lobby, session: Session, command: Command) -> None:
    style = RAW_BOARD_STYLE if command.name == "rawboard" else None
    running = lobby.match_of(session)
    if running is not None:
        Narrator(running, lobby.watchers_of).board_to(
            session, running.match.moment(), running.index_of(session), as_you=True,
            style=style)
        return
    watched = session.watching and lobby.match_of(session.watching)
    if watched:
        Narrator(watched, lobby.watchers_of).board_to(
            session, watched.match.moment(), watched.index_of(session.watching), as_you=False,
            style=style)
        return
    session.send_line(NOT_PLAYING)


@table.command("pip")
async def pip(lobby: Lobby, session: Session, command: Command) -> None:
    running = lobby.match_of(session)
    if running is None:
        session.send_line(NOT_PLAYING)
        return
    player = running.index_of(session)
    opponent = running.sessions[1 - player]
    if not session.toggle("allowpip"):
        session.send_line("** Type 'toggle allowpip' first.")
        return
    if opponent is not None and not opponent.toggle("allowpip"):
        session.send_line(f"** {opponent.name} doesn't allow this. "
                          f"Ask {opponent.name} to 'toggle allowpip'")
        return
    position = running.match.position_seen_by(player)
    own, other = position.pip_count(0), position.pip_count(1)
    o_pips, x_pips = (own, other) if running.match.colour(player) == "O" else (other, own)
    session.send_line(match_texts.pip_counts_line(o_pips, x_pips))


@table.command("leave")
async def leave(lobby: Lobby, session: Session, command: Command) -> None:
    running = lobby.match_of(session)
    if running is None:
        session.send_line("** Error: No one to leave.")
        return
    async with running.lock:
        player = running.index_of(session)
        match = running.match
        if match.length is None and match.phase is Phase.BETWEEN_GAMES:
            # Unlimited matches are never won: leaving between games ends them, unrated.
            await lobby.matches.finish_match(running.match_id, match.to_dict(), None, [])
            opponent = running.sessions[1 - player]
            session.send_line("** You terminated the unlimited match.")
            if opponent is not None:
                opponent.send_line(f"** Player {session.name} has ended the unlimited match.")
            lobby.end_playing(running)
            return
        session.send_line("** You terminated the game. The game was saved.")
        opponent = running.sessions[1 - player]
        if opponent is not None:
            opponent.send_line(f"** Player {session.name} has left the game. The game was saved.")
        lobby.save_and_part(running, f"{session.name} has left the game with "
                                     f"{running.opponent_name(player)}.")


# --- watching ----------------------------------------------------------------------------------

@table.command("watch")
async def watch(lobby: Lobby, session: Session, command: Command) -> None:
    target = named_user(lobby, session, command, "** Watch who?", "** Use a mirror to do that.")
    if target is None:
        return
    if session.name.lower() in target.blinded:
        session.send_line(chat.doesnt_want_you_to_watch(target.name))
        return
    if lobby.match_of(session) is not None:
        session.send_line("** You can't watch another game while you're playing.")
        return
    if session.watching is not None:
        session.send_line(f"** You stop watching {session.watching.name}.")
        lobby.stop_watching(session)
    session.watching = target
    session.send_line(f"You're now watching {target.name}.")
    target.send_line(f"{session.name} is watching you.")
    running = lobby.match_of(target)
    if running is None:
        session.send_line(f"{target.name} is not doing anything interesting.")
    else:
        index = running.index_of(target)
        opponent = running.sessions[1 - index]
        if opponent is not None:
            opponent.send_line(f"{session.name} starts watching {target.name}.")
        Narrator(running, lobby.watchers_of).board_to(session, running.match.moment(), index,
                                                      as_you=False)
    lobby.broadcast_who(session)


@table.command("unwatch")
async def unwatch(lobby: Lobby, session: Session, command: Command) -> None:
    if session.watching is None:
        session.send_line("** You're not watching.")
        return
    session.send_line(f"You stop watching {session.watching.name}.")
    lobby.stop_watching(session)
    lobby.broadcast_who(session)


@table.command("look")
async def look(lobby: Lobby, session: Session, command: Command) -> None:
    target = named_user(lobby, session, command, "** Look at who?")
    if target is None:
        return
    if session.name.lower() in target.blinded:
        session.send_line(chat.doesnt_want_you_to_watch(target.name))
        return
    running = lobby.match_of(target)
    if running is None:
        session.send_line(f"** {target.name} is not playing.")
        return
    Narrator(running, lobby.watchers_of).board_to(session, running.match.moment(),
                                                  running.index_of(target), as_you=False)
