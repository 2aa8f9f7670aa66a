"""Open tables: a match offered to whoever sits first (`table 5`, then `sit <code>`), each
found by a short code its creator passes on.

The codes come from `secrets`, never from a counter: a private table is reachable only by its
code, so a code must not be guessable from another one. Eight letters of an alphabet
without the look-alikes I, L and O (1, 1 and 0) are easy to read out and type, and make
23**8, about 78 billion, codes; wrong guesses are limited per account and per address
(`CodeGuesses`), so that finding a private table by guessing takes years (docs/SECURITY.md)."""
from __future__ import annotations

import dataclasses
import secrets
from collections import OrderedDict, deque
from collections.abc import Callable, Container

from fibs_server.protocol.match_rules import MatchTerms

CODE_LETTERS = "ABCDEFGHJKMNPQRSTUVWXYZ"
CODE_LENGTH = 8
# Draws of a code before giving up: with one table per user online, a clash is already about
# one in a million per draw.
CODE_DRAWS = 100
GUESS_WINDOW = 3600.0  # seconds over which wrong codes are counted


def new_code(taken: Container[str]) -> str:
    """A fresh random code, none of `taken` (the open tables' codes)."""
    for _ in range(CODE_DRAWS):
        code = "".join(secrets.choice(CODE_LETTERS) for _ in range(CODE_LENGTH))
        if code not in taken:
            return code
    raise RuntimeError(f"no free table code after {CODE_DRAWS} draws")


class CodeGuesses:
    """Wrong table codes per account and per address over the last `GUESS_WINDOW` seconds.
    Past its limit a key may not try any code (a right one neither: a refusal must not tell
    whether the code was right) until its oldest counted wrong code is an hour old."""

    MAX_KEYS = 100_000  # beyond this the least recently wrong keys are forgotten first

    def __init__(self, per_account: int, per_address: int, clock: Callable[[], float]) -> None:
        self.limits = {"account": per_account, "address": per_address}
        self.clock = clock
        self._wrong: OrderedDict[tuple[str, str], deque[float]] = OrderedDict()

    def wait(self, account: str, address: str) -> float:
        """Seconds until the account and the address may try a code again (0: now)."""
        now = self.clock()
        waits = [0.0]
        for key in self._keys(account, address):
            times = self._wrong.get(key)
            if times is None:
                continue
            while times and times[0] <= now - GUESS_WINDOW:
                times.popleft()
            if len(times) >= self.limits[key[0]]:
                waits.append(times[0] + GUESS_WINDOW - now)
        return max(waits)

    def wrong(self, account: str, address: str) -> None:
        for key in self._keys(account, address):
            times = self._wrong.pop(key, None) or deque(maxlen=self.limits[key[0]])
            times.append(self.clock())
            self._wrong[key] = times  # now the most recent
        while len(self._wrong) > self.MAX_KEYS:
            self._wrong.popitem(last=False)

    @staticmethod
    def _keys(account: str, address: str) -> tuple[tuple[str, str], tuple[str, str]]:
        return ("account", account.lower()), ("address", address)


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
