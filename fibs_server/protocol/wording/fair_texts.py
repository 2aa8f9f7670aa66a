"""The texts of fair play: the dice commitment at a match's start, `fairdice` (the
commitment, and the seed of a finished match), `dicetest` (the statistics of the rolls).
docs/FAIRNESS.md tells how to check the dice."""
from __future__ import annotations

from collections.abc import Sequence

from fibs_server.protocol.wording.coded_texts import refusal
from fibs_server.rules.dice import PlayerSalt, Roll, Salts
from fibs_server.rules.dice_stats import FEWEST_FOR_CHI_SQUARE, ROLLS, DiceStatistics, chance

PAIRS_PER_LINE = 20  # rolls in a line of `fairdice`'s list


def commitment_line(commitment: str) -> str:
    """To both players when a match starts, before the opening roll is told."""
    return f"Dice commitment for this match: {commitment}. Type 'help fairdice'."


def running_match_dice(match_id: int, names: tuple[str, str], commitment: str,
                       drawn: int, salts: Salts) -> list[str]:
    """`fairdice` by a player or watcher of a running match: the salts' values are shown
    with the seed, at the end."""
    entered = [f"{name}'s from roll {salt.from_pair + 1}" if salt is not None
               else f"none from {name}" for name, salt in zip(names, salts, strict=True)]
    return [f"Dice of match {match_id}, {names[0]} - {names[1]}:",
            f"  commitment (SHA-256 of the seed): {commitment}",
            f"  salts: {entered[0]}, {entered[1]} ('salt <word>' adds yours).",
            f"  {drawn} rolls drawn so far. The seed is shown when the match ends:",
            f"  then type 'fairdice {match_id}'."]


def salt_line(name: str, salt: PlayerSalt | None) -> str:
    """A finished match's salt of player `name` (read by docs/FAIRNESS.md's script)."""
    if salt is None:
        return f"  salt of {name}: none"
    return f"  salt of {name}: {salt.text}, from roll {salt.from_pair + 1}"


def finished_match_dice(match_id: int, names: tuple[str, str], seed: str, commitment: str,
                        salts: Salts, pairs: Sequence[Roll], wrong_pair: int | None
                        ) -> list[str]:
    """`fairdice <id>` of a finished match: its seed and salts, and every roll in the order
    drawn."""
    listed = [" ".join(f"{first}{second}" for first, second in pairs[start:start + PAIRS_PER_LINE])
              for start in range(0, len(pairs), PAIRS_PER_LINE)]
    checked = (f"  All {len(pairs)} rolls are the seed's and salts'." if wrong_pair is None
               else f"  Roll {wrong_pair + 1} is not the seed's and salts'!")
    return [f"Dice of match {match_id}, {names[0]} - {names[1]}:",
            f"  seed:       {seed}",
            f"  commitment: {commitment}",
            *(salt_line(name, salt) for name, salt in zip(names, salts, strict=True)),
            "  rolls in the order drawn (openings: the first die is "
            f"{names[0]}'s):",
            *(f"    {line}" for line in listed),
            checked,
            "  Check them yourself: docs/FAIRNESS.md, or 'help fairdice'."]


def seed_still_secret(match_id: int, commitment: str) -> str:
    return refusal("seed_still_secret",
                   f"** Match {match_id} is still being played: its seed is shown when it ends. "
                   f"Commitment: {commitment}", match=match_id, commitment=commitment)


def no_match(match_id: str) -> str:
    return refusal("no_such_match", f"** There is no match {match_id}.", match=match_id)


def not_verifiable(match_id: int) -> str:
    return refusal("dice_not_verifiable",
                   f"** The dice of match {match_id} cannot be verified: they were not drawn "
                   "from a committed seed.", match=match_id)


def salt_taken(salt: PlayerSalt) -> str:
    """The player's salt is stored: it enters every roll from this one on."""
    return (f"Your salt {salt.text} enters the dice from roll {salt.from_pair + 1} of this "
            "match on. Type 'help salt'.")


def salted_already(salt: PlayerSalt) -> str:
    return refusal("salted_already",
                   f"** You gave this match your salt already: {salt.text}, from roll "
                   f"{salt.from_pair + 1}.", salt=salt.text, roll=salt.from_pair + 1)


SALT_USAGE = refusal("salt_usage", "** usage: salt <1 to 64 letters, digits or ._:+/=->")
NO_FINISHED_MATCH = refusal("no_dice_to_show",
                            "** You're not playing or watching, and have no finished match. "
                            "Type 'fairdice <match>' (numbers: 'history').")
FAIRDICE_USAGE = refusal("fairdice_usage", "** usage: fairdice [<match number>]")


def dicetest(name: str, server: DiceStatistics, own: DiceStatistics) -> list[str]:
    """The rolls of the whole server and of `name`: each of the 21 rolls, the faces and the
    doubles against fair dice, and the chi-square figure with what it means."""
    lines = [f"Dice rolled on this server: {server.rolls} rolls; by you: {own.rolls}.",
             f"  roll {'server':>16}  {'you':>16}  {'fair dice':>10}"]
    for index, roll in enumerate(ROLLS):
        # Indented like FIBS's `ratings` rows: a line that starts with a digit is a CLIP
        # message to Gibbon, which then misreads the rest of the session.
        lines.append(f"  {roll[0]}-{roll[1]}  {_count(server.by_roll[index], server.rolls)}  "
                     f"{_count(own.by_roll[index], own.rolls)}  {chance(roll):>10.2%}")
    lines.append("faces 1 to 6, of all dice:")
    lines.append(f"  server: {_faces(server)}")
    lines.append(f"  you:    {_faces(own)}")
    lines.append(f"  fair dice: {1 / 6:.2%} each")
    lines.append(f"doubles: server {_share(server.doubles, server.rolls)}, you "
                 f"{_share(own.doubles, own.rolls)}, fair dice {1 / 6:.2%}")
    lines += _meaning("Server", server)
    lines += _meaning("You", own)
    return lines


def _count(count: int, total: int) -> str:
    return f"{count:8d} {_share(count, total):>7}"


def _share(count: int, total: int) -> str:
    return f"{count / total:.2%}" if total else "-"


def _faces(statistics: DiceStatistics) -> str:
    return " ".join(f"{_share(count, 2 * statistics.rolls):>6}" for count in statistics.faces)


def _meaning(who: str, statistics: DiceStatistics) -> list[str]:
    """The chi-square figure of the 21 rolls, and what it means in one sentence."""
    if not statistics.enough_rolls:
        return [f"{who}: {statistics.rolls} rolls are too few for the chi-square test to mean",
                f"  much: it needs {FEWEST_FOR_CHI_SQUARE}."]
    verdict = ("unusual: worth a closer look" if statistics.unusual
               else "nothing unusual")
    return [f"{who}: chi-square {statistics.chi_square:.2f} over the 21 rolls (20 degrees of "
            "freedom).",
            f"  Fair dice spread this far or further {statistics.p_value:.0%} of the time: "
            f"{verdict}."]


def dicetest_too_often(seconds: int) -> str:
    """A user's `dicetest`s beyond lobby.read_limits' limit."""
    unit = "second" if seconds == 1 else "seconds"
    return refusal("dicetests_too_often", f"** Too many dicetests: try again in {seconds} {unit}.",
                   seconds=seconds)
