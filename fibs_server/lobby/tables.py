"""Open tables: a match offered to whoever sits first (`table 5`, then `sit <code>`), each
found by a short code its creator passes on.

The codes come from `secrets`, never from a counter: a private table is reachable only by its
code, so a code must not be guessable from another one. Six letters of an alphabet without
the look-alikes I, L and O (1, 1 and 0) are easy to read out and type, and make 23**6, about
148 million, codes."""
from __future__ import annotations

import dataclasses
import secrets
from collections.abc import Container

from fibs_server.protocol.match_rules import MatchTerms

CODE_LETTERS = "ABCDEFGHJKMNPQRSTUVWXYZ"
CODE_LENGTH = 6


def new_code(taken: Container[str]) -> str:
    """A fresh random code, none of `taken` (the open tables' codes)."""
    while True:
        code = "".join(secrets.choice(CODE_LETTERS) for _ in range(CODE_LENGTH))
        if code not in taken:
            return code


@dataclasses.dataclass(frozen=True)
class OpenTable:
    code: str
    creator: str  # the creator's name: a new login of theirs keeps the table
    length: int | None  # None = unlimited
    terms: MatchTerms  # the rules and the clock
    private: bool  # not listed by `show tables`: reachable by its code only


class OpenTables:
    """The tables open now, by code and by creator (one each)."""

    def __init__(self) -> None:
        self._by_code: dict[str, OpenTable] = {}  # dicts keep the order tables were opened in
        self._by_creator: dict[str, OpenTable] = {}  # lower-case creator name -> their table

    def open(self, creator: str, length: int | None, terms: MatchTerms,
             private: bool) -> OpenTable:
        assert creator.lower() not in self._by_creator, "one open table per user"
        table = OpenTable(new_code(self._by_code), creator, length, terms, private)
        self._by_code[table.code] = table
        self._by_creator[creator.lower()] = table
        return table

    def of(self, creator: str) -> OpenTable | None:
        return self._by_creator.get(creator.lower())

    def find(self, typed_code: str) -> OpenTable | None:
        """The table of a code as a user typed it (in any case)."""
        return self._by_code.get(typed_code.upper())

    def close(self, creator: str) -> OpenTable | None:
        """The creator's table is closed: someone sat, they closed it, or they left (logged
        out, or started another match) before anyone sat. Returns it, or None if there was
        none."""
        table = self._by_creator.pop(creator.lower(), None)
        if table is not None:
            del self._by_code[table.code]
        return table

    def public(self) -> list[OpenTable]:
        """The tables `show tables` lists, the oldest first."""
        return [table for table in self._by_code.values() if not table.private]
