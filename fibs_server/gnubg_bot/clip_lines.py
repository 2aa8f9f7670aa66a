"""The server's CLIP lines as the bot reads them, pure: invitations, who-lines (CLIP 5), its own
info (CLIP 2) and the toggles it wants, the lines that start a match or tell what became of it,
and the match lengths the bot accepts."""
from __future__ import annotations

import dataclasses
import re

BELL = "\x07"  # before invitations when the invited user has `bell` on

# CLIP 2 (own info): the fields after the name, docs/PROTOCOL.md ("CLIP lines").
OWN_INFO_FIELDS = ("allowpip", "autoboard", "autodouble", "automove", "away", "bell",
                   "crawford", "double", "experience", "greedy", "moreboards", "moves",
                   "notify", "rating", "ratings", "ready", "redoubles", "report", "silent",
                   "timezone")
# What the bot wants: invitations; a board after every move and roll (fewer `board`
# requests); gnubg asked about the cube; gnubg, not the server, bearing off.
WANTED_TOGGLES = {"ready": True, "autoboard": True, "moreboards": True, "double": True,
                  "greedy": False}
INVITATION = re.compile(r"(\S+) wants to (?:play (?:a (\d+) point|an (unlimited)) match|"
                        r"(resume) a saved match) with you\.")
MATCH_START = re.compile(r"(?:\*\* )?(?:You are now playing (?:a \d+ point|an unlimited) match "
                         r"with \S+|Player \S+ has joined you for (?:a \d+ point|an unlimited) "
                         r"match\.|You are now playing with \S+\. Your running match was loaded\."
                         r"|\S+ has joined you\. Your running match was loaded\.)")
# Logged as they come: what happens to the match as a whole.
MATCH_NEWS = re.compile(r"score in .*|(?:You win|\S+ wins) the \d+ point match \d+-\d+ \.|"
                        r"\S+ (?:drops connection|logs out)\. The game was saved\.|"
                        r"Connection with \S+ timed out\. The game was saved\.|"
                        r"\*\* (?:Player \S+ has left the game|You terminated the game)\. .*|"
                        r"\*\* (?:You terminated the unlimited match|Player \S+ has ended the "
                        r"unlimited match)\.")


@dataclasses.dataclass(frozen=True)
class Invitation:
    """`length`: a number, `unlimited`, or None to resume a saved match."""
    inviter: str
    length: int | str | None


def parse_invitation(line: str) -> Invitation | None:
    found = INVITATION.fullmatch(line.lstrip(BELL))
    if found is None:
        return None
    inviter, points, unlimited, _resume = found.groups()
    return Invitation(inviter, int(points) if points else unlimited)


@dataclasses.dataclass(frozen=True)
class WhoLine:
    """What the bot reads of a CLIP 5 line: `5 name opponent watching ready away ...`."""
    name: str
    opponent: str | None
    ready: bool


def parse_who_line(line: str) -> WhoLine | None:
    fields = line.split()
    if len(fields) < 5 or fields[0] != "5":
        return None
    return WhoLine(fields[1], None if fields[2] == "-" else fields[2], fields[4] == "1")


def parse_own_toggles(line: str) -> dict[str, bool] | None:
    """The toggles in a CLIP 2 line, or None if it is none."""
    fields = line.split()
    if len(fields) != 2 + len(OWN_INFO_FIELDS) or fields[0] != "2":
        return None
    values = dict(zip(OWN_INFO_FIELDS, fields[2:]))
    return {name: values[name] == "1" for name in WANTED_TOGGLES}


def toggles_to_send(own: dict[str, bool]) -> list[str]:
    """`toggle` switches: only those that differ from what the bot wants."""
    return [name for name, wanted in WANTED_TOGGLES.items() if own[name] != wanted]


@dataclasses.dataclass(frozen=True)
class MatchLengths:
    """The lengths the bot accepts: numbers and ranges (`1,3,5-7`), `unlimited`, or `any`."""
    numbers: frozenset[int]
    unlimited: bool
    any_length: bool = False

    @classmethod
    def parse(cls, text: str) -> MatchLengths:
        if text.strip() == "any":
            return cls(frozenset(), True, any_length=True)
        numbers: set[int] = set()
        unlimited = False
        for part in filter(None, (part.strip() for part in text.split(","))):
            low, dash, high = part.partition("-")
            if part == "unlimited":
                unlimited = True
            elif low.isdigit() and (not dash or high.isdigit()):
                numbers.update(range(int(low), int(high if dash else low) + 1))
            else:
                raise ValueError(f"not a match length: {part!r}")
        return cls(frozenset(numbers), unlimited)

    def accept(self, length: int | str) -> bool:
        if self.any_length:
            return True
        return self.unlimited if length == "unlimited" else length in self.numbers
