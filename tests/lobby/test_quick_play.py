"""Quick play in one lobby, on a fake clock (lobby/services/quick_play.py): two seeks of the same
match within their ranges pair at once and the match starts; ranges widen as the clock moves;
the oldest seek is served first; a bot is offered after `bot_after`; `quickplay cancel`, a
logout and any other match end a seek; a player in a match cannot seek; a new login of a
seeker is shown the seek; a classic session sees nothing new unless it types the command."""
from __future__ import annotations

import pytest

from fibs_server import command_tables
from fibs_server.lobby.limits.passwords import PasswordHasher
from fibs_server.lobby.lobby import Lobby, LobbyConfig
from fibs_server.lobby.play import arranged_matches
from fibs_server.lobby.presence.session import Session
from fibs_server.lobby.services.quick_play import QuickPlayConfig
from fibs_server.lobby.services.seek_pairing import Widening
from fibs_server.protocol import help as help_texts
from fibs_server.protocol.match_rules import MatchTerms
from fibs_server.protocol.texts import Departure
from fibs_server.protocol.wording import game_texts, quick_play_texts
from fibs_server.rules.dice import ScriptedDice
from fibs_server.store import SqlStore, upgrade_database_async
from tests.fake_clock import FakeClock
from tests.lobby.recording import RecordingConnection, logged_in
from tests.lobby.test_nodes import Wire
from tests.waiting import until

CONFIG = QuickPlayConfig(widening=Widening(every=10.0, points=50.0), bot_after=30.0)


class StandInBots:
    """Whether the bots are online on the node (the app's `bots_here`): quick play offers
    one only then."""

    def __init__(self) -> None:
        self.here = True


async def quick_play_node(tmp_path, node_id: str = "node", wire: Wire | None = None,
                          bots: StandInBots | None = None) -> tuple[Lobby, FakeClock, SqlStore]:
    """A node on the database in `tmp_path` (one for all nodes), on a clock of its own."""
    url = f"sqlite:///{tmp_path / 'lobby.db'}"
    await upgrade_database_async(url)
    store = await SqlStore.open(url)
    script = ScriptedDice(((3, 1), (6, 5), (2, 2)))
    clock = FakeClock()
    lobby = Lobby(store, store, PasswordHasher(rounds=4),
                  LobbyConfig(new_dice=lambda: script, choose_first_x=lambda: 1, clock=clock,
                              quick_play=CONFIG, node_id=node_id),
                  lambda owners: [command_tables.user(owners), command_tables.game(owners), command_tables.tables(owners), command_tables.server(owners)],
                  chat_records=store, arrange=arranged_matches.arrange,
                  arranged=arranged_matches.receive,
                  bots_here=lambda: bots is not None and bots.here)
    if wire is not None:
        lobby.attendance.messenger.bus = wire.bus_of(node_id, lobby.deliver)
    return lobby, clock, store


@pytest.fixture
async def lobby_and_clock(tmp_path):
    lobby, clock, store = await quick_play_node(tmp_path)
    await lobby.quick_play.begin()  # one node: it holds the lease
    yield lobby, clock
    await store.close()


@pytest.fixture
async def lobby_clock_and_bots(tmp_path):
    bots = StandInBots()
    lobby, clock, store = await quick_play_node(tmp_path, bots=bots)
    await lobby.quick_play.begin()
    yield lobby, clock, bots
    await store.close()


async def seeker(lobby: Lobby, name: str, rating: float, line: str = "",
                 ) -> tuple[Session, RecordingConnection]:
    session, connection = await logged_in(lobby, name, web_events=True)
    assert session.account is not None
    session.account.rating = rating
    if line:
        await lobby.dispatch(session, line)
    return session, connection


def opponent(lobby: Lobby, session: Session) -> str | None:
    running = lobby.match_table.match_of(session)
    return None if running is None else running.opponent_of(session).name


async def test_two_seeks_of_the_same_match_pair_at_once_and_the_match_starts(lobby_and_clock):
    lobby, _ = lobby_and_clock
    ann, ann_out = await seeker(lobby, "ann", 1500, "quickplay 3")
    assert quick_play_texts.seeking(3, MatchTerms(), 200.0) in ann_out.take()
    other, _ = await seeker(lobby, "cal", 1500, "quickplay 5")  # another length: no pair
    bob, bob_out = await seeker(lobby, "bob", 1650, "quickplay 3")
    await until(lambda: opponent(lobby, ann) == "bob", "ann's match with bob")
    assert opponent(lobby, bob) == "ann" and lobby.match_table.match_of(other) is None
    told = bob_out.take()
    assert told.index(quick_play_texts.paired("ann")) < told.index(
        "You are now playing a 3 point match with ann")
    assert '"type":"quick_play","seek":null,"opponent":"ann"' in told
    assert "** Player bob has joined you for a 3 point match." in ann_out.take()
    assert lobby.quick_play.is_seeking(other) and not lobby.quick_play.is_seeking(ann)


async def test_a_pair_whose_player_is_no_longer_free_is_no_pair(lobby_and_clock):
    lobby, _ = lobby_and_clock
    ann, ann_out = await seeker(lobby, "ann", 1500, "quickplay 3")
    bob, bob_out = await seeker(lobby, "bob", 1500)
    # Paired now, its match started by a job on the next turn of the loop: ann is claimed by
    # another match's start before then.
    lobby.quick_play.seek(bob, 3, MatchTerms(), 200.0)
    with lobby.match_table.starting(["ann"]):
        await until(lambda: quick_play_texts.STOPPED_PLAYING in "".join(ann_out.events),
                    "ann's seek ended, as she plays")
    assert quick_play_texts.paired("bob") not in ann_out.take()
    assert not lobby.quick_play.is_seeking(ann) and lobby.quick_play.is_seeking(bob)
    assert "Quick play: you play" not in bob_out.take()
    cal, _ = await seeker(lobby, "cal", 1500, "quickplay 3")  # bob waited on
    await until(lambda: opponent(lobby, bob) == "cal", "bob's match with cal")


async def test_a_match_that_could_not_start_leaves_both_seeking(lobby_and_clock, monkeypatch):
    lobby, clock = lobby_and_clock
    store = lobby.matches.store
    healthy = store.create_match

    async def failing(*args, **kwargs):
        monkeypatch.setattr(store, "create_match", healthy)  # once
        raise OSError("the database is down")

    monkeypatch.setattr(store, "create_match", failing)
    ann, ann_out = await seeker(lobby, "ann", 1500, "quickplay 3")
    bob, bob_out = await seeker(lobby, "bob", 1500, "quickplay 3")
    await until(lambda: lobby.quick_play.is_seeking(ann) and lobby.quick_play.is_seeking(bob),
                "both seeking again")
    for out, other in ((ann_out, "bob"), (bob_out, "ann")):
        told = out.take()
        assert told.index(quick_play_texts.paired(other)) < told.index(
            quick_play_texts.not_started(other))
        assert told.rindex('"seek":{"length":3') > told.index(quick_play_texts.not_started(other))
    assert lobby.match_table.match_of(ann) is None
    clock.advance(CONFIG.pass_gap)  # the next pass pairs them again; the store is back
    await until(lambda: opponent(lobby, ann) == "bob", "ann's match with bob")


async def test_a_pair_across_nodes_whose_match_did_not_start_seeks_on(tmp_path):
    wire = Wire()
    (a, a_clock, a_store), (b, b_clock, b_store) = [
        await quick_play_node(tmp_path, name, wire) for name in ("a", "b")]
    await a.quick_play.begin()  # a pairs
    ann, ann_out = await seeker(a, "ann", 1500, "quickplay 3")
    bob, bob_out = await seeker(b, "bob", 1500)
    await until(lambda: a.attendance.users.directory.get("bob") is not None, "a hears of bob")
    b.quick_play.seek(bob, 3, MatchTerms(), 200.0)  # paired on a now, the match to start
    with b.match_table.starting(["bob"]):  # bob busy on b when a asks b to have him join
        await until(lambda: a.match_table.invitations.invitation_from("ann") is not None,
                    "a's arrangement, sent to b")
    for out, other in ((ann_out, "bob"), (bob_out, "ann")):
        assert quick_play_texts.paired(other) in out.take()
    for clock in (a_clock, b_clock):
        clock.advance(CONFIG.start_wait - 0.1)
    assert not a.quick_play.is_seeking(ann) and not b.quick_play.is_seeking(bob)
    for clock in (a_clock, b_clock):  # each home gives up waiting: the seeks go on
        clock.advance(0.1)
    for out, other in ((ann_out, "bob"), (bob_out, "ann")):
        assert quick_play_texts.not_started(other) in out.take()
    # Both seek again, and the next pass (bob's seek back on a) pairs them: it starts now.
    await until(lambda: opponent(a, ann) == "bob", "ann's match with bob, on a")
    await until(lambda: bob.place.seated_elsewhere is not None and bob.place.seated_elsewhere.playing,
                "bob plays from b")
    b_clock.advance(CONFIG.start_wait)  # the match started: nothing more to say
    assert quick_play_texts.not_started("ann") not in bob_out.take()
    for store in (a_store, b_store):
        await store.close()


async def test_ranges_widen_as_the_clock_moves(lobby_and_clock):
    lobby, clock = lobby_and_clock
    ann, _ = await seeker(lobby, "ann", 1500, "quickplay 1 range 100")
    bob, _ = await seeker(lobby, "bob", 1800, "quickplay 1 range 100")
    # 300 apart: each range needs four widenings of 50, the fourth at 40 s.
    clock.advance(39.9)
    assert lobby.match_table.match_of(ann) is None
    clock.advance(0.1)
    await until(lambda: opponent(lobby, ann) == "bob", "the pair once both ranges reach 300")


async def test_the_oldest_seek_is_served_first(lobby_and_clock):
    lobby, clock = lobby_and_clock
    ann, _ = await seeker(lobby, "ann", 1500, "quickplay 1 range 100")
    clock.advance(1)
    bob, _ = await seeker(lobby, "bob", 1700, "quickplay 1 range 100")  # 200 from ann
    clock.advance(19)  # ann's range 200, bob's 150: not yet
    assert lobby.match_table.match_of(ann) is None
    cal, _ = await seeker(lobby, "cal", 1600, "quickplay 1 range 100")  # 100 from each
    await until(lambda: opponent(lobby, cal) == "ann", "cal paired with the older ann")
    assert lobby.quick_play.is_seeking(bob) and lobby.match_table.match_of(bob) is None


async def test_a_bot_is_offered_after_a_while_and_the_seek_goes_on(lobby_clock_and_bots):
    lobby, clock, _ = lobby_clock_and_bots
    ann, out = await seeker(lobby, "ann", 1500, "quickplay 5 unrated")
    out.take()
    clock.advance(29.9)
    assert "nobody has come" not in out.take()
    clock.advance(0.1)
    told = out.take()
    assert quick_play_texts.bot_offer(5, MatchTerms(rated=False)) in told
    assert "Type 'bot 5 unrated' to play a bot now" in told and '"bot_offered":true' in told
    assert lobby.quick_play.is_seeking(ann)


async def test_no_bot_is_offered_by_a_server_without_bots(lobby_and_clock):
    lobby, clock = lobby_and_clock
    _, out = await seeker(lobby, "ann", 1500, "quickplay 5")
    out.take()
    clock.advance(60)
    assert "nobody has come" not in out.take()


async def test_no_bot_is_offered_once_the_bots_went_to_another_node(lobby_clock_and_bots):
    lobby, clock, bots = lobby_clock_and_bots
    _, out = await seeker(lobby, "ann", 1500, "quickplay 5")
    out.take()
    bots.here = False  # their lease went to another node, where `bot` plays them
    clock.advance(60)
    told = out.take()
    assert "nobody has come" not in told and '"bot_offered":true' not in told


async def test_a_cancelled_seek_is_paired_with_nobody(lobby_and_clock):
    lobby, _ = lobby_and_clock
    ann, out = await seeker(lobby, "ann", 1500, "quickplay 3")
    await lobby.dispatch(ann, "quickplay cancel")
    told = out.take()
    assert quick_play_texts.CANCELLED in told and '"seek":null,"opponent":null' in told
    await lobby.dispatch(ann, "quickplay cancel")
    assert quick_play_texts.NOT_SEEKING in out.take()
    bob, _ = await seeker(lobby, "bob", 1500, "quickplay 3")
    assert lobby.match_table.match_of(bob) is None and lobby.quick_play.is_seeking(bob)


async def test_a_logout_ends_the_seek(lobby_and_clock):
    lobby, _ = lobby_and_clock
    ann, _ = await seeker(lobby, "ann", 1500, "quickplay 3")
    await lobby.log_out(ann, Departure.LOGGED_OUT)
    bob, _ = await seeker(lobby, "bob", 1500, "quickplay 3")
    assert lobby.match_table.match_of(bob) is None and lobby.quick_play.is_seeking(bob)


async def test_a_player_in_a_match_cannot_seek_and_another_match_ends_a_seek(lobby_and_clock):
    lobby, _ = lobby_and_clock
    ann, ann_out = await seeker(lobby, "ann", 1500, "quickplay 3")
    bob, _ = await seeker(lobby, "bob", 1500)
    cal, _ = await seeker(lobby, "cal", 1500)
    ann_out.take()
    await lobby.matches.start_match(bob, ann, 1)  # ann plays a match found otherwise
    told = ann_out.take()
    assert quick_play_texts.STOPPED_PLAYING in told
    assert not lobby.quick_play.is_seeking(ann)
    await lobby.dispatch(ann, "quickplay 3")
    assert game_texts.TWO_GAMES_AT_ONCE in ann_out.take()
    await lobby.dispatch(cal, "quickplay 3")
    assert lobby.match_table.match_of(cal) is None  # nobody to pair with: ann is busy


async def test_usage_ranges_visitors_and_the_seek_rate(lobby_and_clock):
    lobby, _ = lobby_and_clock
    ann, out = await seeker(lobby, "ann", 1500)
    for line in ("quickplay", "quickplay unlimited", "quickplay 5 range 5",
                 "quickplay 5 range", "quickplay 5 sideways"):
        await lobby.dispatch(ann, line)
        assert "** " in out.take(), line
    for _ in range(int(CONFIG.seek_burst)):
        await lobby.dispatch(ann, "quickplay 5 range any")
    assert "against anyone" in out.take()
    await lobby.dispatch(ann, "quickplay 5")
    assert "Too many quick play seeks" in out.take()


async def test_a_classic_session_sees_nothing_new(lobby_and_clock):
    lobby, _ = lobby_and_clock
    ann, out = await logged_in(lobby, "ann")
    await lobby.dispatch(ann, "commands")
    assert "quickplay" not in out.take()
    await lobby.dispatch(ann, "help")
    assert out.lines() == [line for line in help_texts.INDEX if line != help_texts.BOTS_LINE]
    for prefix in ("q", "qu", "qui", "quick"):
        await lobby.dispatch(ann, f"{prefix} 5")
        assert quick_play_texts.COMMAND not in out.take()
    assert not lobby.quick_play.is_seeking(ann)


async def test_a_new_login_of_a_seeker_is_shown_the_seek(lobby_clock_and_bots):
    lobby, clock, _ = lobby_clock_and_bots
    ann, _ = await seeker(lobby, "ann", 1500, "quickplay 5")
    clock.advance(CONFIG.bot_after)  # the bot offered
    connection = RecordingConnection()
    again = lobby.connect(connection)
    again.out.clip, again.out.prompts = True, False
    again.out.event_sink = lambda line, broadcast: connection.send(line + "\r\n", broadcast)
    assert ann.account is not None
    await lobby.log_in(again, ann.account)  # a reload's new login takes the session over
    told = connection.take()
    assert '"type":"quick_play"' in told and '"bot_offered":true' in told
    assert lobby.quick_play.is_seeking(again)
