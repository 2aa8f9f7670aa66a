"""The counter of names read off a lobby class (tests/structure.py) on synthetic modules: it
counts reads off what is the class and leaves out what only shares its name."""
from __future__ import annotations

import ast
import textwrap

from tests.structure import counted_reads, reads_in

LOBBY_SESSION = """
from fibs_server.lobby.presence.session import Session


class Holder:
    seat: Session | None

    def __init__(self, session: Session) -> None:
        self.session = session

    def tell(self) -> None:
        self.session.send_line("hi")
        if self.seat is not None:
            self.seat.toggle("ready")


def reply(session: Session, others: list[Session]) -> None:
    session.send_line(session.name)
    others.sort()
    for other in others:
        other.close()


def stored(engine) -> None:
    with engine.begin() as session:
        session.execute("select 1")


def typed(session: AsyncSession) -> None:
    session.scalars("select 1")


def letter(letter: Session | Presence) -> None:
    letter.away_message()
"""

UNSAID = """
from fibs_server.lobby.presence.session import Session


def bound(rows) -> None:
    session = rows.get("alice")
    session.clip()
    target = rows.get("bob")
    target.close()


def named(target: Session) -> None:
    target.waved()
"""

STORE_SESSION = """
from sqlalchemy.orm import Session


def read(session: Session) -> None:
    session.get(1)


async def run(runner) -> None:
    await runner.run(lambda session: session.scalar(1))
"""


def names_read(source: str, module: str = "fibs_server.lobby.sample") -> dict[str, int]:
    return dict(counted_reads(reads_in(module, ast.parse(textwrap.dedent(source))), "Session"))


def test_reads_off_the_class_count_and_reads_off_what_only_shares_its_name_do_not():
    assert names_read(LOBBY_SESSION) == {
        "send_line": 2,  # off a parameter and off an attribute assigned from one
        "name": 1,
        "toggle": 1,  # off an attribute annotated in the class body
        "away_message": 1,  # off a union naming the class
    }


def test_a_variable_nothing_says_anything_of_counts_by_its_name_or_by_its_namesakes():
    assert names_read(UNSAID) == {"clip": 1, "close": 1, "waved": 1}


def test_a_module_whose_session_is_another_class_reads_nothing_off_the_lobby_session():
    assert names_read(STORE_SESSION, "fibs_server.store.sample") == {}
