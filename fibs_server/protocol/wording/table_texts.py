"""Open tables (`table`, `sit`, `show tables`): the words after a table's length and the
texts (ours: FIBS has no tables). A match started at a table is told with FIBS's own texts
for a joined invitation (game_texts)."""
from __future__ import annotations

import dataclasses
from collections.abc import Iterable

from fibs_server.protocol.match_rules import (
    STANDARD_TERMS,
    VARIANT_CHOICE,
    MatchTerms,
    rules_summary,
)
from fibs_server.protocol.texts import plural
from fibs_server.protocol.wording.coded_texts import refusal
from fibs_server.protocol.wording.match_texts import match_kind, points

PRIVATE = "private"
CLOSE = "close"  # `table close`
TABLE_USAGE = refusal(
    "table_usage", f"** Type 'table <points>|unlimited [{VARIANT_CHOICE}] [lowstart] [nocube] "
    "[timer 30|60|bank <s> <r> [mode]] [takeover <seconds>] [private]' to open a table, "
    "'table close' to close yours.",
    variant_words=VARIANT_CHOICE)
NO_OPEN_TABLE = refusal("no_open_table", "** You have no open table.")
SIT_WHERE = refusal("sit_where",
                    "** Sit at which table? Type 'sit <code>'; 'show tables' lists the open ones.")
OWN_TABLE = refusal("own_table",
                    "** That is your own table: wait for someone to sit, or type 'table close'.")
TABLES_HEADER = "List of open tables:"
TABLES_COLUMNS = "code      creator              length     timer  rules"
NO_TABLES = "No table is open. Type 'table <points>' to open one."


def split_private(words: Iterable[str]) -> tuple[list[str], bool]:
    """The words after a table's length without `private`, and whether it was among them.
    `private` may be shortened to two letters or more (`p` alone is `portes`)."""
    rest, private = [], False
    for word in words:
        if len(word) >= 2 and PRIVATE.startswith(word.lower()):
            private = True
        else:
            rest.append(word)
    return rest, private


def table_opened(code: str, length: int | None, terms: MatchTerms = STANDARD_TERMS,
                 private: bool = False) -> str:
    kind = "a private table" if private else "a table"
    return (f"You opened {kind} for {match_kind(length, terms)}. Its code is {code}: "
            f"whoever types 'sit {code}' plays you.")


def your_table(code: str, length: int | None, terms: MatchTerms = STANDARD_TERMS) -> str:
    """`table` alone, or a second `table` while one is open."""
    return (f"Your table {code} is open for {match_kind(length, terms)}. "
            f"Type 'table close' to close it.")


def table_closed(code: str) -> str:
    return f"You closed your table {code}."


def no_table(typed_code: str) -> str:
    return refusal("no_table", f"** There is no open table with the code {typed_code}.",
                   code=typed_code)


def too_many_wrong_codes(seconds: float) -> str:
    minutes = max(1, round(seconds / 60))
    return refusal("too_many_wrong_table_codes", "** Too many wrong table codes. You may try "
                   f"again in {plural(minutes, 'minute')}.", minutes=minutes)


@dataclasses.dataclass(frozen=True)
class TableRow:
    code: str
    creator: str
    length: int | None
    terms: MatchTerms


def tables_list(rows: list[TableRow]) -> list[str]:
    """`show tables`: the public tables, the oldest first; the timer in a column of its own,
    the variant and the other terms after it (`nackgammon, no cube`)."""
    if not rows:
        return [TABLES_HEADER, NO_TABLES]
    return [TABLES_HEADER, TABLES_COLUMNS, *(_table_row(row) for row in rows)]


def _table_row(row: TableRow) -> str:
    length = "unlimited" if row.length is None else points(row.length)
    timer = "-" if row.terms.turn_seconds is None else f"{row.terms.turn_seconds} s"
    rest = rules_summary(dataclasses.replace(row.terms, turn_seconds=None)) or "standard"
    return f"{row.code:<9} {row.creator:<20} {length:<10} {timer:<6} {rest}"
