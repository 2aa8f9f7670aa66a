"""What the command modules share: match lengths and who may offer a match (invitations,
tables, bots), settings stored with the account, the counts of a player's saved matches, the
list of open tables, the message of the day, and the largest match number the store can
hold."""
from __future__ import annotations

import datetime
from collections.abc import Awaitable
from typing import TYPE_CHECKING, Literal

from fibs_server.lobby.presence.session import Session
from fibs_server.protocol import clip
from fibs_server.protocol.views import web_events
from fibs_server.protocol.wording import game_texts, table_texts

if TYPE_CHECKING:  # types only: the owners come from the command modules' factories
    from fibs_server.lobby.play.match_table import MatchTable
    from fibs_server.lobby.ports.accounts import AccountStore
    from fibs_server.lobby.ports.match_records import MatchStore
    from fibs_server.lobby.presence.attendance import Attendance

LARGEST_ID = 2**31 - 1  # of matches.id (an INTEGER)

MAX_MATCH_LENGTH = 99
LONG_MATCH = 9  # longer matches need a rating-list player (experience above 50)
RATED_EXPERIENCE = 50


# --- offering a match --------------------------------------------------------------------------

def too_long_for(session: Session, length: int | None) -> bool:
    """Whether the match is over LONG_MATCH points and the user has no rating-list
    experience (invitations and tables)."""
    assert session.account is not None
    return too_long_with(session.account.experience, length)


def too_long_with(experience: int, length: int | None) -> bool:
    return length is not None and length > LONG_MATCH and experience <= RATED_EXPERIENCE


def not_free_to_play(match_table: MatchTable, session: Session) -> str | None:
    """Why the user may not offer a match now (an invitation, a table); None: they may."""
    if match_table.busy(session):
        return game_texts.TWO_GAMES_AT_ONCE
    if not session.prefs.toggle("ready"):
        return game_texts.TOGGLE_READY_FIRST
    return None


# A match length as typed: a number of points, or an unlimited match.
MatchLength = int | Literal["unlimited"]


def parse_length(word: str) -> MatchLength | None:
    """A match length: a number 1..MAX_MATCH_LENGTH or 'unlimited'; None if neither."""
    if "unlimited".startswith(word.lower()) and len(word) >= 2:
        return "unlimited"
    if word.isdigit() and 1 <= int(word) <= MAX_MATCH_LENGTH:
        return int(word)
    return None


# --- settings and saved matches ---------------------------------------------------------------

def aware_time(timestamp: int | None) -> datetime.datetime | None:
    """A stored Unix time as an aware UTC datetime (None stays None)."""
    if timestamp is None:
        return None
    return datetime.datetime.fromtimestamp(timestamp, datetime.timezone.utc)


async def undone_unless_stored(values: dict, before: dict, storing: Awaitable[None]) -> None:
    """Await `storing` the new `values`; if it fails, put `values` back as they were `before`
    (and let the failure be answered), so that memory never keeps what the store refused."""
    try:
        await storing
    except Exception:
        values.clear()
        values.update(before)
        raise


async def store_setting(accounts: AccountStore, session: Session, key: str, value: str
                        ) -> None:
    """One of the session's account settings changed and stored (put back if it cannot be)."""
    account = session.account
    assert account is not None
    before = dict(account.settings)
    account.settings[key] = value
    await undone_unless_stored(account.settings, before, accounts.update_account(
        account.name, settings=dict(account.settings)))


async def match_counts(match_store: MatchStore, attendance: Attendance, match_table: MatchTable,
                       name: str) -> tuple[int, int]:
    """(saved matches waiting, matches abandoned) of the player `name`: an unfinished match
    being played now is not waiting."""
    unfinished, abandoned = await match_store.match_counts(name)
    online = attendance.users.online.get(name.lower())
    if online is None:
        # Online on another node and playing: a match of a user with an account, stored.
        remote = attendance.users.directory.get(name)
        being_played = remote is not None and remote.info.opponent is not None
        return unfinished - int(being_played), abandoned
    elsewhere = online.place.seated_elsewhere
    if elsewhere is not None:  # their match runs on another node, stored unless a visitor's
        being_played = elsewhere.playing and not attendance.users.is_visitor(online)
    else:
        running = match_table.match_of(online)
        being_played = running is not None and running.keeping.stored
    return unfinished - int(being_played), abandoned


# --- open tables -------------------------------------------------------------------------------

def show_tables(match_table: MatchTable, session: Session) -> None:
    """`show tables`: the public tables, the oldest first."""
    rows = [table_texts.TableRow(t.code, t.creator, t.length, t.terms)
            for t in match_table.open_tables.public()]
    session.out.lines(table_texts.tables_list(rows))
    session.out.event(web_events.tables(rows))


# --- the message of the day --------------------------------------------------------------------

def send_motd(session: Session, motd: tuple[str, ...]) -> None:
    """`motd` (an administrator's without words too): as CLIP's block, or as it is."""
    session.out.lines(clip.motd_block(motd) if session.out.clip else motd)
