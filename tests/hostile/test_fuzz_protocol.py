"""Random and mutated input into every parser of the protocol and rules layers: each returns
a value or raises its own documented error (whose text is a `** ` line), never anything else."""
from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from fibs_server.lobby.commands.common import parse_length
from fibs_server.lobby.presence import session as wire
from fibs_server.lobby.presence.session import wire_bytes
from fibs_server.net.telnet import READ_CHUNK, LineSplitter, clean_line
from fibs_server.protocol import commands, texts
from fibs_server.protocol import settings as fibs_settings
from fibs_server.protocol.refusals import refusal_text
from fibs_server.rules.board.notation import MoveError, parse_move
from fibs_server.rules.board.position import LegalResults, Position
from tests.lobby.test_command_words import all_commands

PRINTABLE = st.characters(min_codepoint=32, max_codepoint=126)
WORDS = ["move", "m", "bar", "b", "off", "o", "home", "-", "/", "8-5", "24-18", "b-22", "25",
         "0", "1", "6", "13", "99999999999999999999", "unlimited", "none", "utc"]
# What the net layer can deliver: cleaned lines (printable ASCII and `?`).
LINES = st.one_of(
    st.text(PRINTABLE, max_size=40),
    st.lists(st.one_of(st.sampled_from(WORDS), st.text(PRINTABLE, max_size=6)),
             max_size=6).map(" ".join),
    st.binary(max_size=60).map(clean_line),
)
COMMANDS = all_commands()  # the server's whole vocabulary

@given(LINES)
def test_command_resolution(line):
    try:
        command = commands.resolve(line, COMMANDS)
    except commands.UnknownCommand:
        assert commands.unknown_command(line).startswith("** Unknown command: ")
        return
    assert command.name in COMMANDS
    assert command.args == command.rest.split()


@given(st.sampled_from(fibs_settings.SETTING_ORDER + ("nonsense",)), LINES)
def test_setting_values(name, value):
    try:
        stored = fibs_settings.normalise_setting(name, value)
    except fibs_settings.SettingError as error:
        assert str(error).startswith("** ")
        return
    assert fibs_settings.setting_set_reply(name, stored).startswith(f"Value of '{name}' set to ")


@given(LINES)
def test_toggles_names_lengths_and_passwords(word):
    try:
        assert fibs_settings.resolve_toggle(word) in fibs_settings.TOGGLE_TEXTS
    except fibs_settings.ToggleError as error:
        assert str(error).startswith("** ")
    assert texts.name_error(word) is None or texts.name_error(word).startswith("** ")
    assert texts.password_error(word) is None or isinstance(texts.password_error(word), str)
    assert parse_length(word) in (None, "unlimited", *range(1, 100))


def random_position(seed: int) -> Position:
    """A position reached by random legal plays from the start (the side on roll to move)."""
    chooser = random.Random(seed)
    position = Position.initial()
    for _ in range(chooser.randrange(40)):
        plays = position.legal_plays((chooser.randint(1, 6), chooser.randint(1, 6)))
        if plays:
            position = chooser.choice(plays).result.swap()
    return position


@settings(max_examples=300)
@given(st.integers(0, 10_000), st.integers(1, 6), st.integers(1, 6), st.sampled_from("XO"),
       LINES)
def test_typed_moves(seed, die1, die2, colour, text):
    position = random_position(seed)
    plays = position.legal_plays((die1, die2))
    try:
        play = parse_move(text, position, (die1, die2), colour, LegalResults.of(plays))
    except MoveError as error:
        assert refusal_text(error, "opponent").startswith("** ")
        return
    assert play.result in [p.result for p in plays]


@given(st.lists(st.binary(max_size=READ_CHUNK), max_size=30), st.integers(1, 300))
def test_line_splitting_is_bounded_and_exact(chunks, max_bytes):
    splitter = LineSplitter(max_bytes)
    got = []
    for chunk in chunks:
        got += splitter.feed(chunk)
        assert len(splitter._buffer) <= max_bytes  # never more than one line is kept
    whole = b"".join(chunks).replace(b"\r\x00", b"\n").split(b"\n")[:-1]
    if all(b"\r\x00" not in c for c in chunks) and all(not c.endswith(b"\r") for c in chunks):
        assert got == [clean_line(raw) if len(raw) <= max_bytes else None for raw in whole]
    assert all(line is None or line.isascii() and line.isprintable() for line in got)


@given(st.text())
def test_anything_sent_is_seven_bit_printable(text):
    assert all(32 <= byte < 127 or byte in b"\r\n\x07" for byte in wire_bytes(text))


@given(st.text(st.characters(max_codepoint=127)) | st.text())
def test_the_ascii_fast_path_filters_as_the_general_one(text):
    general = wire._UNSENDABLE.sub(wire._replacement, text).encode("ascii")
    assert wire_bytes(text) == general
