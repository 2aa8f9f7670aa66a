"""Match-play texts that need formatting logic: points, scores, match results, the rating
calculation block, the move list (docs/BOARDS.md) and the `pip` reply.

Pure functions of plain values; each returns lines without line endings.
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from fibs_server.protocol.match_rules import STANDARD_TERMS, MatchTerms, house_rules, variant_word
from fibs_server.protocol.texts import plural
from fibs_server.rules.ratings import RatingCalculation


def points(count: int) -> str:
    """`1 point`, `2 points`."""
    return plural(count, "point")


def match_kind(length: int | None, terms: MatchTerms = STANDARD_TERMS) -> str:
    """`a 5 point match` / `an unlimited match`; with other terms `a 5 point nackgammon match
    (no cube, lower die starts, 30 s a turn)`."""
    kind = "an unlimited " if length is None else f"a {length} point "
    notes = house_rules(terms)
    return (f"{kind}{variant_word(terms.rules)}match"
            + (f" ({', '.join(notes)})" if notes else ""))


def doubled_notice(doubler: str) -> str:
    """What the doubled player reads (again, when a saved match is resumed)."""
    return f"{doubler} doubles. Type 'accept' or 'reject'."


def resignation_notice(resigner: str, points_won: int) -> str:
    """What the player offered a resignation reads (again, when a saved match is resumed)."""
    return (f"{resigner} wants to resign. You will win {points(points_won)}. "
            "Type 'accept' or 'reject'.")


def score_line(match_length: int | None, first_name: str, first_score: int,
               second_name: str, second_score: int) -> str:
    """`score in 5 point match: A-1 B-0`, `score in unlimited match: A-3 B-5`."""
    match = "unlimited match" if match_length is None else f"{match_length} point match"
    return f"score in {match}: {first_name}-{first_score} {second_name}-{second_score}"


def _the_match(match_length: int, winner_score: int, loser_score: int) -> str:
    # FIBS puts a space before the final period (FCM, BaldLies, gfibs).
    return f"the {match_length} point match {winner_score}-{loser_score} ."


def you_win_match_line(match_length: int, your_score: int, opponent_score: int) -> str:
    """`You win the 5 point match 5-2 .` for the winner."""
    return f"You win {_the_match(match_length, your_score, opponent_score)}"


def wins_match_line(winner: str, match_length: int, winner_score: int, loser_score: int) -> str:
    """`alice wins the 5 point match 5-2 .` for the loser and the watchers."""
    return f"{winner} wins {_the_match(match_length, winner_score, loser_score)}"


def match_report_line(winner: str, loser: str, match_length: int, winner_score: int,
                      loser_score: int) -> str:
    """The `report` broadcast: `alice wins a 5 point match against bob  5-2 .` (two spaces)."""
    return (f"{winner} wins a {match_length} point match against {loser}"
            f"  {winner_score}-{loser_score} .")


def rating_calculation_lines(winner: str, loser: str, winner_experience: int,
                             loser_experience: int, calculation: RatingCalculation) -> list[str]:
    """The block `toggle ratings` shows before the match result, winner first; experience is
    the players' before the match, as the formula uses it."""
    k_formula = "K=max(1 , -Experience/100+5) for"
    return [
        "rating calculation:",
        f"rating difference D={calculation.difference:.6f}",
        f"match length      N={calculation.match_length}",
        f"Experience: {winner} {winner_experience} - {loser} {loser_experience}",
        "Probability that underdog wins: Pu=1/(10^(D*sqrt(N)/2000)+1)="
        f"{calculation.upset_probability:.6f}",
        f"P={calculation.probability:.6f} is 1-Pu if underdog wins and Pu if favorite wins",
        f"{k_formula} {winner}: {calculation.winner_k:.6f}",
        f"change for {winner}: 4*K*sqrt(N)*P={calculation.winner_change:.6f}",
        f"{k_formula} {loser}: {calculation.loser_k:.6f}",
        # The loser's line carries the minus sign, as in BaldLies' reproduction.
        f"change for {loser}: -4*K*sqrt(N)*P={calculation.loser_change:.6f}",
    ]


@dataclass(frozen=True)
class Roll:
    """A roll in the move list and the play made with it, in absolute point numbers as in
    `moves` lines (`24-18 13-11`, `bar-22`, `6-off`); empty when the roll could not be played."""
    dice: tuple[int, int]
    moves: str


# The cube and resignation events of the move list, as `X: doubles`.
MOVE_LIST_EVENTS = frozenset({"doubles", "accepts", "rejects", "wants to resign", "wins"})


def move_list_lines(x_name: str, o_name: str, match_length: int | None, x_score: int,
                    o_score: int, actions: Iterable[tuple[str, Roll | str]]) -> list[str]:
    """The game's move list (`toggle moves`, `oldmoves`): a header, then one line per action.

    `actions` are (colour, action) pairs in playing order: colour 'X' or 'O', action a `Roll`
    or one of MOVE_LIST_EVENTS. Scores are those before the game, X's first.
    """
    lines = [f"{x_name} is X - {o_name} is O",
             f"Score is {x_score}-{o_score} in {match_kind(match_length)}."]
    for colour, action in actions:
        if colour not in ("X", "O"):
            raise ValueError(f"move list colour must be 'X' or 'O', not {colour!r}")
        if isinstance(action, Roll):
            play = action.moves or "can't move"
            lines.append(f"{colour}: ({action.dice[0]} {action.dice[1]}) {play}")
        elif action in MOVE_LIST_EVENTS:
            lines.append(f"{colour}: {action}")
        else:
            raise ValueError(f"unknown move list action {action!r}")
    return lines


def only_possible_move(play: str) -> str:
    """To a player with `automove` whose forced move the server made."""
    return f"The only possible move is {play} ."


def bearing_off(play: str) -> str:
    """To a player with `greedy` whose bear-off the server made."""
    return f"Bearing off: {play} ."


def pip_counts_line(o_pips: int, x_pips: int) -> str:
    """The `pip` reply, `Pipcounts: O-167 X-160`, in the colours and order of the board's
    `BAR: O-0 X-0   OFF: O-0 X-0` line."""
    return f"Pipcounts: O-{o_pips} X-{x_pips}"


def out_of_reach(opponent: str) -> str:
    """To a player of a match across nodes whose opponent's node is out of reach (the bus
    between the nodes is down, or that node is): the match waits, nobody's clock runs."""
    return (f"{opponent} is out of reach for now (the server's nodes lost touch). Your match "
            f"waits, and goes on by itself when they are back.")


def back_in_reach(opponent: str) -> str:
    """To both players once the opponent's node is heard from again."""
    return f"{opponent} is back in reach: your match goes on."
