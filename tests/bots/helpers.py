"""Playing matches with bots for the bot tests."""
from __future__ import annotations

import random

from fibs_server.bots import Decision, Level, decide, situation_for
from fibs_server.rules.board.position import Position
from fibs_server.rules.events import WinKind
from fibs_server.rules.match import Match, Phase

UNLIMITED_GAMES = 3  # an unlimited match is never won: stop it after this many games
MAX_ACTIONS = 5_000


def finished(match: Match) -> bool:
    if match.length is None:
        return match.game_count >= UNLIMITED_GAMES and match.phase is Phase.BETWEEN_GAMES
    return match.is_over


def bot_turn(match: Match, player: int, level: Level, rng: random.Random) -> Decision | None:
    """The bot's decision if it has one, carried out on the match (the engine refuses an
    illegal one with IllegalAction, which fails the test)."""
    situation = situation_for(match, player)
    if situation is None:
        return None
    decision = decide(situation, level, rng)
    if situation.phase is Phase.MOVE:
        legal = {play.result for play in match.legal_plays()}
        assert decision.play is None or decision.play.result in legal
    decision.apply(match, player)
    return decision


def play_bots(match: Match, levels: tuple[Level, Level], rng: random.Random) -> list[Decision]:
    """Bot against bot until the match is over; every decision, in order."""
    match.start()
    decisions = []
    for _ in range(MAX_ACTIONS):
        if finished(match):
            return decisions
        acted = [decision for player in (0, 1)
                 if (decision := bot_turn(match, player, levels[player], rng))]
        assert acted, f"nobody acts in phase {match.phase}"
        decisions += acted
    raise AssertionError("the match did not end")


def random_action(match: Match, player: int, rng: random.Random) -> bool:
    """Something `player` may do now, chosen at random (doubles, redoubles and resignations
    included, so that a bot meets them all); False when it is not its decision."""
    phase = match.phase
    if phase is Phase.BETWEEN_GAMES:
        if player in match.joined:
            return False
        match.join(player)
    elif match.to_act != player:
        return False
    elif phase is Phase.RESIGN_OFFERED:
        (match.accept if rng.random() < 0.5 else match.reject)(player)
    elif phase is Phase.DOUBLE_OFFERED:
        offer, choice = match.double_offer, rng.random()
        if choice < 0.3 and match.length is None and (
                match.max_redoubles is None or offer.redoubles < match.max_redoubles):
            match.redouble(player)
        else:
            (match.accept if choice < 0.7 else match.reject)(player)
    elif rng.random() < 0.02:
        match.resign(player, rng.choice(list(WinKind)))
    elif phase is Phase.ROLL_OR_DOUBLE:
        (match.double if match.may_double(player) and rng.random() < 0.2 else match.roll)(player)
    else:
        match.move(player, rng.choice(match.legal_plays()))
    return True


def self_play_positions(count: int, seed: int) -> list[Position]:
    """Positions met in random games, the side on roll first, restarting after each game."""
    rng = random.Random(seed)
    positions = []
    position = Position.initial()
    while len(positions) < count:
        plays = position.legal_plays((rng.randint(1, 6), rng.randint(1, 6)))
        if plays:
            position = rng.choice(plays).result
        position = Position.initial() if position.borne_off(0) == 15 else position.swap()
        positions.append(position)
    return positions
