"""Fair play: `fairdice` (the dice commitment of a running match, the seed and rolls of a
finished one), `salt` (a player's share in the dice), `dicetest` (the statistics of the rolls) and the closing of matches left
unfinished too long, forfeited if the server says so (docs/FAIRNESS.md)."""
from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from fibs_server.lobby.command_table import CommandTable
from fibs_server.lobby.commands.common import LARGEST_ID
from fibs_server.lobby.play.running_match import RunningMatch
from fibs_server.lobby.ports.match_records import MatchRecord
from fibs_server.lobby.presence.session import Session
from fibs_server.protocol.commands import Command, Forwarding, HeavyRead
from fibs_server.protocol.wording import fair_texts, game_texts
from fibs_server.rules.dice import (
    VerifiableDice,
    commitment_of,
    drawn_pairs,
    first_wrong_pair,
    salts_from_lists,
    valid_salt,
)
from fibs_server.rules.dice_stats import DiceStatistics

if TYPE_CHECKING:  # types only: the owners are given to the factory
    from fibs_server.lobby.play.match_play import Matches
    from fibs_server.lobby.play.match_table import MatchTable
    from fibs_server.lobby.ports.match_records import MatchStore

log = logging.getLogger(__name__)


def _running_dice(running: RunningMatch) -> list[str]:
    dice = running.match.dice_source
    if not isinstance(dice, VerifiableDice):
        return [fair_texts.not_verifiable(running.match_id)]
    return fair_texts.running_match_dice(running.match_id, running.names, dice.commitment,
                                         dice.drawn, dice.salts)


def _record_dice(record: MatchRecord) -> list[str]:
    """A stored match's dice: the seed and every roll once it is finished, else only the
    commitment."""
    if record.dice is None or record.dice.seed is None:
        return [fair_texts.not_verifiable(record.match_id)]
    seed = bytes.fromhex(record.dice.seed)
    if not record.finished:
        return [fair_texts.seed_still_secret(record.match_id, commitment_of(seed))]
    salts = salts_from_lists(record.dice.salts)
    pairs = [pair for _, pair in drawn_pairs(record.state["history"])]
    return fair_texts.finished_match_dice(
        record.match_id, (record.player_a, record.player_b), record.dice.seed,
        commitment_of(seed), salts, pairs, first_wrong_pair(seed, pairs, salts))


def command_table(match_table: MatchTable, matches: Matches, match_store: MatchStore
                  ) -> CommandTable:
    """The fair-play commands, on the running matches (`match_table`, `matches`) and the
    stored ones (`match_store`)."""
    table = CommandTable()

    # --- fairdice ---------------------------------------------------------------------------------

    @table.command("fairdice", forwarded=Forwarding.HOST)
    async def fairdice(session: Session, command: Command) -> None:
        """Without a number: the match the user plays or watches, else their last finished one;
        with one: that match."""
        if len(command.args) > 1 or (command.args and not command.args[0].isdigit()):
            session.out.line(fair_texts.FAIRDICE_USAGE)
            return
        if command.args:
            match_id = int(command.args[0])
            # Beyond the column's range PostgreSQL would refuse the query: no such match either.
            record = await match_store.match_by_id(match_id) if match_id <= LARGEST_ID else None
            if record is None:
                session.out.line(fair_texts.no_match(command.args[0]))
            else:
                session.out.lines(_record_dice(record))
            return
        watched = session.place.watching
        running = match_table.match_of(session if watched is None else watched)
        if running is not None:
            session.out.lines(_running_dice(running))
            return
        records = await match_store.finished_matches(session.name, 1)
        if not records:
            session.out.line(fair_texts.NO_FINISHED_MATCH)
            return
        session.out.lines(_record_dice(records[0]))

    # --- salt -------------------------------------------------------------------------------------

    @table.command("salt", forwarded=Forwarding.HOST, whole_word_only=True)
    async def salt(session: Session, command: Command) -> None:
        """A player's salt for their running match: it enters every pair drawn from now on, so
        that a seed the server chose before it cannot have been chosen for those rolls. Stored
        before the player is told, as any change of a match."""
        if len(command.args) != 1 or not valid_salt(command.args[0]):
            session.out.line(fair_texts.SALT_USAGE)
            return
        async with matches.playing(session) as running:
            if running is None:
                session.out.line(game_texts.NOT_PLAYING)
                return
            dice = running.match.dice_source
            if not isinstance(dice, VerifiableDice):
                session.out.line(fair_texts.not_verifiable(running.match_id))
                return
            player = running.index_of(session)
            earlier = dice.salts[player]
            if earlier is not None:
                session.out.line(fair_texts.salted_already(earlier))
                return
            before = running.keeping.snapshot()
            taken = dice.add_salt(player, command.args[0])
            stored, _ = await matches.commit(running, before, session)
            if not stored:
                dice.remove_salt(player)  # the snapshot keeps no salts: they change only here
                return
            session.out.line(fair_texts.salt_taken(taken))

    # --- dicetest ---------------------------------------------------------------------------------

    @table.command("dicetest", pacing=HeavyRead(fair_texts.dicetest_too_often))
    async def dicetest(session: Session, command: Command) -> None:
        server = DiceStatistics.of(await match_store.roll_tally(None))
        own = DiceStatistics.of(await match_store.roll_tally(session.name))
        session.out.lines(fair_texts.dicetest(session.name, server, own))

    return table
