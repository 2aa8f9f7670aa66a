"""Texts of timed matches (`invite bob 5 timer 30`, `bank 12 60`, `takeover 60`): the warning, the server
playing for a player whose time is up, a bot taking a decision over, the grace period after
a player left, and the clock shown with the board. FIBS has no clocks: these are ours, and a
match without one never sends any of them."""
from __future__ import annotations

import dataclasses

from fibs_server.rules.clocks.time_bank import minutes_and_seconds
from fibs_server.rules.moments import Phase

EXPIRIES_TO_LOSE = 3  # the expiry that loses the match (named "third" in the texts)
WARNING_SECONDS = 10  # a player is warned this long before their time is up

_DECISIONS = {
    Phase.ROLL_OR_DOUBLE: "roll or double",
    Phase.MOVE: "move",
    Phase.DOUBLE_OFFERED: "answer the double",
    Phase.RESIGN_OFFERED: "answer the resignation",
    Phase.BETWEEN_GAMES: "join the next game",
}


def decision_name(phase: Phase) -> str:
    """What a player must do in `phase`: `move`, `answer the double`..."""
    return _DECISIONS[phase]


def time_warning(seconds: int, phase: Phase) -> str:
    """To the player who must decide, `seconds` before their time is up: no `** `, which
    clients show as an error and bots read as the refusal of a command."""
    return f"You have {seconds} seconds left to {decision_name(phase)}."


def opponent_time_warning(name: str, seconds: int, phase: Phase) -> str:
    """To the opponent of a player whose time bank runs out in `seconds` (which loses the
    match: both see it coming)."""
    return f"{name} has {seconds} seconds left to {decision_name(phase)}, or loses on time."


def time_bank_spent(name: str, phase: Phase) -> tuple[str, str]:
    """(to the player, to the opponent and watchers): a decision took all the time a time
    bank left, which loses the match."""
    decision = decision_name(phase)
    return (f"Your time to {decision} is spent, your reserve with it: you lose the match "
            f"on time.",
            f"{name}'s time to {decision} is spent, {name}'s reserve with it: {name} loses "
            f"the match on time.")


def time_is_up(name: str, phase: Phase, expiries: int) -> tuple[str, str]:
    """(to the player, to the opponent and watchers): the server plays for `name`, whose
    time ran out for the `expiries`-th time in the match."""
    count = f"({expiries} of {EXPIRIES_TO_LOSE})"
    decision = decision_name(phase)
    return (f"Your time to {decision} is up: the server plays for you {count}.",
            f"{name}'s time to {decision} is up: the server plays for {name} {count}.")


def time_is_up_for_the_last_time(name: str, phase: Phase) -> tuple[str, str]:
    """(to the player, to the opponent and watchers): the expiry that loses the match."""
    decision = decision_name(phase)
    return (f"Your time to {decision} is up for the third time: you lose the match.",
            f"{name}'s time to {decision} is up for the third time: {name} loses the match.")


def bot_takes_over(name: str, phase: Phase) -> tuple[str, str]:
    """(to the player, to the opponent and watchers): a bot takes one decision for `name`."""
    decision = decision_name(phase)
    return (f"You took too long to {decision}: a bot decides for you.",
            f"{name} took too long to {decision}: a bot decides for {name}.")


def come_back_within(name: str, seconds: int, opponent: str) -> tuple[str, str]:
    """(to the player who left, if still online; to the opponent): a timed match left or
    dropped is lost unless it is resumed in time."""
    return (f"Resume the match within {seconds} seconds ('invite {opponent}'), "
            f"or you lose it.",
            f"{name} has {seconds} seconds to resume the match, or loses it.")


def did_not_come_back(name: str, seconds: int) -> str:
    """To the opponent and watchers: the grace period ended without a resume."""
    return f"{name} did not resume the match within {seconds} seconds and loses it."


def waits_for_both(opponent: str) -> str:
    """To a player of a saved timed match whose grace period ended without a forfeit (both
    were away at some time, or the one who left is back): nobody loses it by absence now."""
    return (f"Your saved match with {opponent} waits for you both: no countdown runs, and it "
            f"resumes when you are both online and free.")


def resumes_by_itself(opponent: str) -> str:
    """To each player of a saved timed match that resumes because both are online and free."""
    return f"You and {opponent} are both online: your saved timed match resumes."


@dataclasses.dataclass(frozen=True)
class ClockReading:
    """A timed match's clock as shown with a board: the player who must decide (0 or 1),
    the whole seconds they have left, and the decision (its phase); with a time bank, both
    players' reserves as they stand (whole seconds; the decider's counts down once the
    decision's own seconds are spent)."""
    player: int
    seconds: int
    phase: Phase
    reserves: tuple[int, int] | None = None


def clock_line(reading: ClockReading, names: tuple[str, str]) -> str:
    """The clock shown with a board: who must decide, and how long they have left; with a
    time bank, both reserves."""
    line = (f"Clock: {names[reading.player]} has {reading.seconds} seconds to "
            f"{decision_name(reading.phase)}.")
    if reading.reserves is None:
        return line
    reserves = ", ".join(f"{name} {minutes_and_seconds(seconds)}"
                         for name, seconds in zip(names, reading.reserves))
    return f"{line} Reserves: {reserves}."
