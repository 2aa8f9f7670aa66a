"""The one path of every change to a running match: apply → follow-ups → store → tell.

An action runs under the match's lock: it is applied to the engine, the server adds what it
does by itself (rolls for a player who cannot or will not double, forced and greedy moves),
the new state is written to the store, and only then is anyone told, so that nothing
acknowledged can be lost; if storing fails the match goes back to its stored state. Match
starts, resumes, `leave` and the end of a match take the same path.
"""
from __future__ import annotations

import collections
import logging
from collections.abc import Callable, Iterable

from fibs_server.lobby.accounts import PER_GAME_TOGGLES
from fibs_server.lobby.lobby import Lobby
from fibs_server.lobby.match_records import MatchDice, MatchRecord, RatingUpdate
from fibs_server.lobby.running_match import RunningMatch, automatic_play, new_match
from fibs_server.lobby.session import Session
from fibs_server.protocol import fair_texts, game_texts, match_texts, match_views, texts
from fibs_server.protocol.board import render_board
from fibs_server.protocol.match_rules import MatchTerms
from fibs_server.protocol.match_views import ROLL_OR_DOUBLE, WATCHERS, Say, Script, ShowBoard
from fibs_server.protocol.refusals import refusal_text
from fibs_server.rules import events as ev
from fibs_server.rules.dice import Dice, SecureDice, VerifiableDice
from fibs_server.rules.dice_stats import RollTally
from fibs_server.rules.match import IllegalAction, Match, Moment, Phase
from fibs_server.rules.notation import format_play
from fibs_server.rules.ratings import PlayerRating, RatingCalculation, rate_match

log = logging.getLogger(__name__)

UNDO_DEPTH = 20  # decisions a player can take back, one `undo` at a time
# An action on (match, player): the events it caused, or None if it did nothing at all.
Action = Callable[[Match, int], "list[ev.Event] | None"]
# An action's events, each with the moment right after it (None: no board for it), and the
# lines for one player the server sends in between.
Told = list["tuple[ev.Event, Moment | None] | Say"]


async def act(lobby: Lobby, session: Session, action: Action) -> bool:
    """A player's action on their running match. False if it was refused (the player is told
    why), True otherwise."""
    running = lobby.match_table.match_of(session)
    if running is None:
        session.send_line(game_texts.NOT_PLAYING)
        return False
    async with running.lock:
        player = running.index_of(session)
        before, drawn_before = running.match.to_dict(), running.match.dice_source.drawn
        # Against a bot, where the player may take this back: the dice drawn so far too.
        undoable = running.undo_points is not None and not session.is_bot
        undo_point = (before, drawn_before) if undoable else None
        try:
            events = action(running.match, player)
        except IllegalAction as refused:
            session.send_line(refusal_text(refused, running.opponent_name(player)))
            return False
        if events is None:
            return True
        if undo_point is not None:
            running.undo_points.append(undo_point)
        await settle(lobby, running, told(running.match, events), session, before,
                     drawn_before=drawn_before)
        return True


def restore(running: RunningMatch, state: dict, drawn: int) -> None:
    """The match as it was in `state`, its dice rewound to the `drawn` pairs they had drawn
    then, so that the same dice come again and every roll of the match stays its seed's."""
    dice = running.match.dice_source
    dice.rewind(drawn)
    running.match = Match.from_dict(state, dice)


async def settle(lobby: Lobby, running: RunningMatch, events: Told, actor: Session | None,
                 before: dict, told_if_undone: Told = (), *, drawn_before: int) -> None:
    """After `events`: the server's follow-ups, then store, then tell. If storing fails, the
    match goes back to `before` (its stored state, in which `told_if_undone` happened, when
    its dice had drawn `drawn_before` pairs) and `actor` (None: the server itself) is told to
    try again."""
    told_now = follow_ups(running, events)
    try:
        rating = await store(lobby, running)
    except Exception:
        log.exception("storing match %s failed; the action is undone", running.match_id)
        restore(running, before, drawn_before)
        if actor is not None:
            actor.send_line(texts.NOT_STORED)
        told_now, rating = list(told_if_undone), None
    if running.timer is not None:
        running.timer.changed()  # before the boards are drawn: they show the clock
    tell(lobby, running, match_views.narration(running.match, running.names, told_now, rating))
    if running.match.is_over:
        finish(lobby, running)


def told(match: Match, events: list[ev.Event]) -> Told:
    """The events of the match's last action, each with the moment right after it."""
    return list(zip(events, match.moments, strict=True))


def follow_ups(running: RunningMatch, events: Told) -> Told:
    """`events` of an action, followed by what the server does by itself: roll for a player
    who cannot or will not double, play forced or greedy moves; plus the prompts FIBS sends
    in between."""
    match = running.match
    items = list(events)
    if any(isinstance(item, tuple) and isinstance(item[0], ev.GameStarted)
           and item[0].game_number > 1 for item in events):
        # A new game: per-game toggles set for the last one (or before the match) lapse.
        for session in running.players():
            session.account.toggles.update(PER_GAME_TOGGLES)
    while not match.is_over and match.resignation is None:
        session = running.sessions[match.turn]
        if session is None:
            break
        if match.phase is Phase.ROLL_OR_DOUBLE:
            if not session.toggle("double"):
                items += told(match, match.roll(match.turn))
                continue
            items.append(match_views.say(match.turn, ROLL_OR_DOUBLE))
        elif match.phase is Phase.MOVE:
            last = items[-1] if items else None
            rolled_now = (isinstance(last, tuple) and isinstance(last[0], ev.Rolled)
                          and last[0].player == match.turn)
            automatic = automatic_play(match, session)
            if automatic is not None:
                if rolled_now:
                    # A board is a question to a bot: no `moreboards` board asks for a move
                    # the server makes itself at once.
                    items[-1] = (last[0], None)
                reason, play = automatic
                text = format_play(play, match.colour(match.turn))
                # The mover is told what the server played for them (the opponent gets the
                # usual `<name> moves ... .`).
                played_for_them = (match_texts.only_possible_move(text) if reason == "only"
                                   else match_texts.bearing_off(text))
                items.append(match_views.say(match.turn, played_for_them))
                items += told(match, match.move(match.turn, play))
                continue
            if rolled_now:
                items.append(match_views.say(match.turn,
                                             match_views.please_move(match.pieces_to_move)))
        break
    return items


# --- store -----------------------------------------------------------------------------------------

async def store(lobby: Lobby, running: RunningMatch, ended: bool = False,
                abandoned: bool = False) -> RatingCalculation | None:
    """Write the match's state. A finished match goes with its rating changes in the same
    transaction, and the rating calculation is returned; `ended`: an unlimited match that
    ends unrated (`leave` between games); `abandoned`: one forfeited by the player who left
    it (docs/FAIRNESS.md)."""
    match = running.match
    if not running.stored:
        return None
    state = match.to_dict()
    if running.unrated is not None:
        state["unrated"] = running.unrated
    state.update(running.clock_state())
    dice = dice_record(match.dice_source, state, running.roll_tally)
    if ended:
        await lobby.matches.finish_match(running.match_id, state, None, [], dice)
        return None
    if not match.is_over:
        await lobby.matches.save_match_state(running.match_id, state, dice)
        return None
    winner = match.winner
    assert winner is not None
    if running.unrated is not None:
        await lobby.matches.finish_match(running.match_id, state, running.names[winner], [],
                                         dice, abandoned)
        return None
    accounts = [(await lobby.user_named(name))[1] for name in running.names]
    assert match.length is not None and accounts[0] is not None and accounts[1] is not None
    calculation = rate_match(PlayerRating(accounts[winner].rating, accounts[winner].experience),
                             PlayerRating(accounts[1 - winner].rating,
                                          accounts[1 - winner].experience), match.length)
    updates = [RatingUpdate(running.names[winner], calculation.winner_after.rating,
                            calculation.winner_after.experience),
               RatingUpdate(running.names[1 - winner], calculation.loser_after.rating,
                            calculation.loser_after.experience)]
    # The archive keeps each player's rating before and after (`history`).
    before = {a.name: a.rating for a in accounts}
    state["ratings"] = {u.name: [before[u.name], u.rating] for u in updates}
    await lobby.matches.finish_match(running.match_id, state, running.names[winner], updates,
                                     dice, abandoned)
    for account, update in zip((accounts[winner], accounts[1 - winner]), updates):
        account.rating, account.experience = update.rating, update.experience
    return calculation


# --- tell ------------------------------------------------------------------------------------------

def tell(lobby: Lobby, running: RunningMatch, script: Script) -> None:
    """Route each line and board of `script` to its recipients, by their toggles."""
    for item in script:
        if item.to is WATCHERS:
            watched = item.watching if isinstance(item, Say) else None  # boards: either
            recipients = [(watcher, index) for index, player in enumerate(running.sessions)
                          if player is not None and watched in (None, index)
                          for watcher in lobby.match_table.watchers_of(player)]
        else:
            player = running.sessions[item.to]
            recipients = [(player, item.to)] if player is not None else []
        for session, index in recipients:
            if item.only_with is not None and not session.toggle(item.only_with):
                continue
            if isinstance(item, ShowBoard):
                board_to(session, running, item.moment, index, as_you=item.to is not WATCHERS)
            elif item.unless is None or not session.toggle(item.unless):
                session.send_lines(item.lines)


def board_to(session: Session, running: RunningMatch, moment: Moment, index: int, as_you: bool,
             style: int | None = None) -> None:
    """The board of `moment` as player `index` sees it, in `style` or the session's
    `boardstyle`."""
    view = match_views.board_view(running.match, running.names, moment, index, as_you)
    clock = running.timer.clock_text() if running.timer is not None else None
    session.send_lines(render_board(view, style or int(session.setting("boardstyle")), clock))


def remind(running: RunningMatch, players: Iterable[int]) -> None:
    """Tell those of `players` who must act on a match just loaded or taken over what is
    expected of them."""
    for index, text in match_views.reminders(running.match, running.names):
        session = running.sessions[index]
        if session is not None and index in players:
            session.send_line(text)


def finish(lobby: Lobby, running: RunningMatch) -> None:
    """The match runs no more; a finished match is reported to everyone who wants reports."""
    match = running.match
    lobby.match_table.forget(running)
    winner = match.winner
    if winner is not None and match.length is not None:
        lobby.report(match_texts.match_report_line(
            running.names[winner], running.names[1 - winner], match.length,
            match.score[winner], match.score[1 - winner]), exclude=tuple(running.players()))


# --- starting, resuming, leaving -------------------------------------------------------------------

def left_meanwhile(lobby: Lobby, inviter: Session, joiner: Session) -> bool:
    """Whether a player went away while their match was being set up: then it stays stored
    as saved, as if they had dropped right after the start, and the other one is told so."""
    for player, other in ((inviter, joiner), (joiner, inviter)):
        if not lobby.is_online(player):
            other.send_line(texts.game_saved_after(player.name, texts.Departure.DROPPED))
            return True
    return False


async def start_match(lobby: Lobby, inviter: Session, joiner: Session,
                      length: int | None, unrated: str | None = None,
                      terms: MatchTerms = MatchTerms()) -> None:
    """A new match played by `terms`; `unrated`: why it is not rated (a visitor's is not
    stored either)."""
    stored = unrated != "visitor"
    match = new_match(length, lobby.config.new_dice(), inviter, joiner,
                      lobby.config.choose_first_x(), terms.rules)
    events = told(match, match.start())
    state = match.to_dict()
    # Replaces the pair's saved match, if any.
    match_id = (await lobby.matches.create_match(inviter.name, joiner.name, length, state,
                                                 dice_record(match.dice_source, state,
                                                             RollTally()))
                if stored else 0)
    if left_meanwhile(lobby, inviter, joiner):
        return
    running = RunningMatch(match_id, match, (inviter.name, joiner.name), (inviter, joiner))
    running.unrated, running.stored = unrated, stored
    running.turn_seconds = terms.turn_seconds
    # The server's `--takeover-seconds` for every match whose invitation names none.
    running.takeover_seconds = terms.takeover_seconds or lobby.config.takeover_seconds
    running.timer = lobby.match_timers(running)
    if inviter.is_bot or joiner.is_bot:
        running.undo_points = collections.deque(maxlen=UNDO_DEPTH)
    joiner.send_line(game_texts.you_are_now_playing(inviter.name, length))
    inviter.send_line(game_texts.has_joined_you(joiner.name, length))
    if isinstance(match.dice_source, VerifiableDice):
        # Before anyone sees a die: the dice of the opening roll are drawn, not told yet.
        for session in (joiner, inviter):
            session.send_line(fair_texts.commitment_line(match.dice_source.commitment))
    lobby.report(game_texts.match_starts(inviter.name, joiner.name, length),
                 exclude=(inviter, joiner))
    lobby.match_table.begin(running)
    async with running.lock:
        # The start itself is stored already: told even if the follow-ups cannot be.
        await settle(lobby, running, events, inviter, state, told_if_undone=events,
                     drawn_before=match.dice_source.drawn)


async def resume_match(lobby: Lobby, inviter: Session, joiner: Session) -> None:
    record = await lobby.matches.running_match(inviter.name, joiner.name)
    if record is None:
        joiner.send_line(game_texts.no_saved_match(inviter.name))
        return
    if left_meanwhile(lobby, inviter, joiner):
        return
    match = Match.from_dict(record.state, resumed_dice(lobby, record))
    sessions = {inviter.name.lower(): inviter, joiner.name.lower(): joiner}
    running = RunningMatch(record.match_id, match, (record.player_a, record.player_b),
                           (sessions[record.player_a.lower()], sessions[record.player_b.lower()]))
    running.unrated = record.state.get("unrated")
    running.restore_clock(record.state)
    running.timer = lobby.match_timers(running)
    if inviter.is_bot or joiner.is_bot:
        running.undo_points = collections.deque(maxlen=UNDO_DEPTH)
    joiner.send_line(game_texts.match_loaded_for_joiner(inviter.name))
    inviter.send_line(game_texts.match_loaded_for_inviter(joiner.name))
    lobby.report(game_texts.match_resumes(inviter.name, joiner.name, match.length),
                 exclude=(inviter, joiner))
    lobby.match_table.begin(running)
    if running.timer is not None:
        running.timer.changed()  # the boards below show the clock
    moment = match.moment()
    for index, session in enumerate(running.players()):  # both: index is the player's
        session.send_lines(match_views.resume_header(match, running.names))
        board_to(session, running, moment, index, as_you=True)
    async with running.lock:
        await lobby.matches.mark_left(running.match_id, None)  # both are back
        await settle(lobby, running, [], inviter, record.state,
                     drawn_before=match.dice_source.drawn)
        remind(running, (0, 1))


def resumed_dice(lobby: Lobby, record: MatchRecord) -> Dice:
    """A saved match's dice go on where they were: the same seed, past the pairs drawn. A
    match stored without a seed (before dice were verifiable, or by a test) gets new dice, but
    never a seed: its earlier rolls were not drawn from one."""
    if record.dice is not None and record.dice.seed is not None:
        return VerifiableDice(bytes.fromhex(record.dice.seed), record.dice.drawn)
    dice = lobby.config.new_dice()
    return SecureDice() if isinstance(dice, VerifiableDice) else dice


def dice_record(dice: Dice, state: dict, tally: RollTally) -> MatchDice:
    """The match's dice as stored with its `state`, its rolls counted by `tally`."""
    seed = dice.seed.hex() if isinstance(dice, VerifiableDice) else None
    return MatchDice(seed, dice.drawn, tally.of(state["history"]))


async def undo(lobby: Lobby, session: Session) -> None:
    """Against a bot: take back the player's last decision and the bot's turns after it. The
    dice are rewound too, so the same dice come again. The match is unrated from then on."""
    running = lobby.match_table.match_of(session)
    if running is None:
        session.send_line(game_texts.NOT_PLAYING)
        return
    if running.undo_points is None:
        session.send_line(texts.UNDO_ONLY_AGAINST_BOTS)
        return
    async with running.lock:
        if not running.undo_points:
            session.send_line(texts.NOTHING_TO_UNDO)
            return
        now, drawn_now, unrated_now = (running.match.to_dict(), running.match.dice_source.drawn,
                                       running.unrated)
        restore(running, *running.undo_points[-1])
        running.unrated = running.unrated or "undo"
        try:
            await store(lobby, running)
        except Exception:
            # As for any action: it counts only once stored; the match stays as it was.
            log.exception("storing match %s failed; the undo is undone", running.match_id)
            restore(running, now, drawn_now)
            running.unrated = unrated_now
            session.send_line(texts.NOT_STORED)
            return
        running.undo_points.pop()
        if running.timer is not None:
            running.timer.changed()
        index = running.index_of(session)
        session.send_line(texts.UNDONE)
        board_to(session, running, running.match.moment(), index, as_you=True)
        if running.match.phase is Phase.ROLL_OR_DOUBLE and running.match.turn == index:
            session.send_line(ROLL_OR_DOUBLE)
        remind(running, (index,))


def show_taken_over_match(running: RunningMatch, session: Session) -> None:
    """The match a new login took over: its board, and what the player must do."""
    index = running.index_of(session)
    match = running.match
    board_to(session, running, match.moment(), index, as_you=True)
    if match.phase is Phase.ROLL_OR_DOUBLE and match.turn == index \
            and match.resignation is None:
        session.send_line(ROLL_OR_DOUBLE)
    remind(running, (index,))


async def leave(lobby: Lobby, session: Session) -> None:
    running = lobby.match_table.match_of(session)
    if running is None:
        session.send_line(game_texts.NO_ONE_TO_LEAVE)
        return
    async with running.lock:
        player = running.index_of(session)
        match = running.match
        if match.length is None and match.phase is Phase.BETWEEN_GAMES:
            # Unlimited matches are never won: leaving between games ends them, unrated.
            await store(lobby, running, ended=True)
            tell(lobby, running, [
                match_views.say(player, game_texts.YOU_ENDED_THE_UNLIMITED_MATCH),
                match_views.say(1 - player, game_texts.ended_the_unlimited_match(session.name))])
            finish(lobby, running)
            return
        if running.stored:  # stored before anyone is told, as every change
            await lobby.matches.mark_left(running.match_id, session.name)
        tell(lobby, running, [
            match_views.say(player, game_texts.YOU_LEFT_THE_GAME),
            match_views.say(1 - player, game_texts.left_the_game(session.name))])
        if running.timer is not None:
            running.timer.left(player)
        lobby.match_table.part(running, game_texts.left_the_game_with(
            session.name, running.opponent_name(player)))
