"""Login and logout notices coalesced per user (lobby/presence/notices.py, fan_out.py): each
user gets exactly the lines, and typed messages, that one notice at a time gave them, in the
same order, in fewer sends."""
from __future__ import annotations

import asyncio

from hypothesis import given
from hypothesis import strategies as st

from fibs_server.lobby.nodes.bus import notice as letter
from fibs_server.lobby.presence.notices import Chunk, Notice, NoticeRound, Recipient
from fibs_server.protocol.texts import Departure
from tests.lobby.recording import logged_in, recording_lobby

NAMES = ("ann", "bo", "cy", "di")


def one_at_a_time(notices: list[Notice], recipient: Recipient) -> list[tuple[bytes | str, bool]]:
    """What the per-notice pass sent `recipient` before notices were coalesced (the loop of
    Attendance.tell_everyone_else then): for each notice its text if any, then its event."""
    sent: list[tuple[bytes | str, bool]] = []
    for notice in notices:
        if recipient.key == notice.about:
            continue
        if recipient.clip:
            text = notice.clip_text if recipient.notified else notice.who_block
        else:
            text = notice.sentence if recipient.notified and recipient.key not in notice.spared \
                else b""
        if text:
            sent.append((text, False))
        if notice.event_line is not None and recipient.wants_events:
            sent.append((notice.event_line, True))
    return sent


def as_sent(chunks: list[Chunk]) -> list[tuple[bytes | str, bool]]:
    return [(chunk.wire, False) if chunk.event_line is None else (chunk.event_line, True)
            for chunk in chunks]


def merged(sent: list[tuple[bytes | str, bool]]) -> list[tuple[bytes | str, bool]]:
    """Adjacent texts as one (the same bytes on the connection, in one send)."""
    out: list[tuple[bytes | str, bool]] = []
    for text, event in sent:
        if out and not event and not out[-1][1]:
            out[-1] = (out[-1][0] + text, False)  # type: ignore[operator]
        else:
            out.append((text, event))
    return out


@st.composite
def notices(draw) -> Notice:
    about = draw(st.sampled_from(NAMES))
    sentence = draw(st.sampled_from(["", f"{about} logs in.", f"{about} drops connection."]))
    who_block = draw(st.sampled_from([b"", f"5 {about} - - 0 0 1500.00 0 0 1 h - -\r\n6\r\n".encode()]))
    line = f"{sentence}\r\n".encode() if sentence else b""
    return Notice(about=about, clip_text=(b"7 " + about.encode() + b" " + line if line else b"") + who_block,
                  who_block=who_block, sentence=line,
                  spared=frozenset(draw(st.sets(st.sampled_from(NAMES), max_size=2))),
                  event_line=draw(st.sampled_from([None, f'{{"type":"x","name":"{about}"}}'])))


recipients = st.builds(Recipient, st.sampled_from(NAMES), st.booleans(), st.booleans(),
                       st.booleans())


@given(st.lists(notices(), max_size=12), recipients, st.data())
def test_a_user_is_owed_exactly_what_one_notice_at_a_time_sent_in_order(batch, recipient, data):
    round_ = NoticeRound()
    told_before = data.draw(st.integers(0, len(batch)))
    for notice in batch[:told_before]:
        round_.add(notice)
    round_.told_up_to(round_.last)  # an earlier round, told: the numbers go on
    seen = round_.last
    for notice in batch[told_before:]:
        round_.add(notice)
    rest = batch[told_before:]
    # Owed in one go, or up to a point and then the rest: the same lines, in order.
    assert as_sent(round_.owed(recipient, seen)) == merged(one_at_a_time(rest, recipient))
    split = data.draw(st.integers(0, len(rest)))
    first = round_.owed(recipient, seen, seen + split)
    then = round_.owed(recipient, seen + split)
    assert merged(as_sent(first) + as_sent(then)) == merged(one_at_a_time(rest, recipient))


@given(st.lists(notices(), min_size=1, max_size=12), recipients, st.sampled_from(NAMES))
def test_users_alike_but_for_their_name_are_owed_the_same_unless_a_notice_is_about_them(
        batch, recipient, other_name):
    round_ = NoticeRound()
    for notice in batch:
        round_.add(notice)
    other = Recipient(other_name, *recipient.kind)
    for user in (recipient, other):
        if round_.like_their_kind(user.key, 0):
            assert all(user.key != n.about and user.key not in n.spared for n in batch)
    if round_.like_their_kind(recipient.key, 0) and round_.like_their_kind(other.key, 0):
        assert round_.owed(recipient, 0) == round_.owed(other, 0)
    assert not round_.like_their_kind(recipient.key, 1)  # had some of the round already


async def clip_user(lobby, name: str, **toggles: bool):
    """A CLIP client without typed messages, logged in (recording.py's are telnet users)."""
    session, hears = await logged_in(lobby, name, **toggles)
    session.out.clip = True
    return session, hears


async def test_a_storm_of_drops_reaches_everyone_as_before_in_fewer_sends(tmp_path):
    lobby, store = await recording_lobby(tmp_path)
    try:
        _, clip_hears = await clip_user(lobby, "watcher")
        _, telnet_hears = await logged_in(lobby, "reader")
        _, quiet_hears = await clip_user(lobby, "quiet", notify=False)
        _, page_hears = await logged_in(lobby, "page", web_events=True)
        droppers = [(await logged_in(lobby, f"drop{n}"))[0] for n in range(30)]
        for hears in (clip_hears, telnet_hears, quiet_hears, page_hears):
            hears.take()
        await asyncio.gather(*(lobby.log_out(s, Departure.DROPPED) for s in droppers))
        names = [s.name for s in droppers]
        sends = len(telnet_hears.events)
        assert clip_hears.lines() == [f"8 {name} {name} drops connection." for name in names]
        assert telnet_hears.lines() == [f"{name} drops connection." for name in names]
        assert quiet_hears.lines() == []
        # A page: each line, then its typed message, in turn.
        assert page_hears.lines() == [line for name in names for line in (
            f"8 {name} {name} drops connection.", f'{{"type":"presence","name":"{name}","online":false}}')]
        # 30 logouts at once, told in a pass or a few, not a send each.
        assert sends <= 5
    finally:
        await store.close()


async def test_a_login_is_told_with_its_who_block_byte_for_byte(tmp_path):
    lobby, store = await recording_lobby(tmp_path)
    try:
        _, clip_hears = await clip_user(lobby, "watcher")
        _, quiet_hears = await clip_user(lobby, "quiet", notify=False)
        clip_hears.take(), quiet_hears.take()
        newcomer, _ = await logged_in(lobby, "newcomer")
        who = newcomer.who.line()
        assert clip_hears.take() == f"7 newcomer newcomer logs in.\r\n{who}\r\n6\r\n"
        assert quiet_hears.take() == f"{who}\r\n6\r\n"
    finally:
        await store.close()


async def test_what_a_user_is_sent_after_a_notice_comes_after_it(tmp_path):
    lobby, store = await recording_lobby(tmp_path)
    try:
        reader, hears = await logged_in(lobby, "reader")
        hears.take()
        notices = lobby.attendance.messenger.notices
        notices.tell(Notice("leaver", b"", b"", b"leaver logs out.\r\n"))  # for the next pass
        lobby.attendance.deliver([reader.name], letter(["A tell that came after it."]))
        assert hears.lines() == ["leaver logs out.", "A tell that came after it."]
        # The pass finds the reader told already; the next notice is theirs as usual.
        await notices.tell_and_wait(Notice("late", b"", b"", b"late logs in.\r\n"))
        assert hears.lines() == ["late logs in."]
    finally:
        await store.close()
