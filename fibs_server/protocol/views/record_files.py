"""The open record's files (docs/FAIRNESS.md, "The open record"): their names, the calendar
month (UTC) each covers and the README that goes with them. Pure: the writing is
fibs_server/open_record.py's, the serving net/http.py's.

For each month, in the record's folder:

- `fibs-2026-11.jsonl.gz`: one JSON object a line, a finished rated match each, by number;
- `fibs-2026-11.mat.tar.gz`: the same matches as `.mat` files, `<number>.mat`;
- `fibs-2026-11.dice.json`: the month's dice statistics, with the number of matches; written
  last, so a month whose statistics are there is complete;

and `README.txt`, what they are and their licence.
"""
from __future__ import annotations

import calendar
import dataclasses
import datetime
import re

README = "README.txt"
_MONTH_FILE = re.compile(r"fibs-(\d{4})-(\d{2})\.(jsonl\.gz|mat\.tar\.gz|dice\.json)")

README_TEXT = """\
The open record of this FIBS-compatible backgammon server: every finished rated match.

Per calendar month (UTC, by the time each match finished):
  fibs-YYYY-MM.jsonl.gz    one JSON object a line per match: players, length, result, every
                           game's actions, the dice (seed, commitment, salts, every roll),
                           both ratings before and after, and the analysis's summary
  fibs-YYYY-MM.mat.tar.gz  the same matches as .mat files (Jellyfish's format, which GNU
                           Backgammon imports), named by the match's number
  fibs-YYYY-MM.dice.json   the month's dice statistics: every roll of every match, the 21
                           rolls against fair dice, doubles, pips, chi-square

How to check the dice: docs/FAIRNESS.md of the server's source.

Licence: public domain. To the extent possible under law, the operator of this server has
waived all copyright and related rights to these files (CC0 1.0,
https://creativecommons.org/publicdomain/zero/1.0/). Use them for anything.
"""


@dataclasses.dataclass(frozen=True, order=True)
class Month:
    year: int
    month: int

    @classmethod
    def parse(cls, text: str) -> Month:
        """`2026-11`; ValueError for anything else."""
        found = re.fullmatch(r"(\d{4})-(\d{2})", text)
        if found is None or not 1 <= int(found[2]) <= 12:
            raise ValueError(f"not a month (YYYY-MM): {text}")
        return cls(int(found[1]), int(found[2]))

    @classmethod
    def of(cls, timestamp: float) -> Month:
        """The month (UTC) `timestamp` (Unix seconds) falls in."""
        day = datetime.datetime.fromtimestamp(timestamp, datetime.UTC)
        return cls(day.year, day.month)

    def __str__(self) -> str:
        return f"{self.year:04d}-{self.month:02d}"

    @property
    def previous(self) -> Month:
        return Month(self.year - 1, 12) if self.month == 1 else Month(self.year, self.month - 1)

    @property
    def start(self) -> int:
        """Its first second (Unix seconds)."""
        return calendar.timegm((self.year, self.month, 1, 0, 0, 0))

    @property
    def end(self) -> int:
        """The first second of the month after."""
        following = Month(self.year + 1, 1) if self.month == 12 else Month(self.year,
                                                                            self.month + 1)
        return following.start

    @property
    def matches_file(self) -> str:
        return f"fibs-{self}.jsonl.gz"

    @property
    def mat_file(self) -> str:
        return f"fibs-{self}.mat.tar.gz"

    @property
    def dice_file(self) -> str:
        return f"fibs-{self}.dice.json"


def is_record_file(name: str) -> bool:
    """Whether `name` is one of the record's files (what the web serves of its folder)."""
    return name == README or _MONTH_FILE.fullmatch(name) is not None
