"""The telnet codec: data passes through, commands are consumed, every option but ECHO is
refused once, whatever the chunking."""
from __future__ import annotations

import sys

from hypothesis import given
from hypothesis import strategies as st

from fibs_server.net.telnet_codec import DO, DONT, ECHO, IAC, SB, SE, WILL, WONT, TelnetCodec

NAWS, TTYPE, NOP, AYT = 31, 24, 241, 246


def receive_all(codec: TelnetCodec, chunks: list[bytes]) -> tuple[bytes, bytes]:
    text, replies = b"", b""
    for chunk in chunks:
        got_text, got_replies = codec.receive(chunk)
        text, replies = text + got_text, replies + got_replies
    return text, replies


def split(data: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({0, len(data), *(c % (len(data) + 1) for c in cuts)})
    return [data[a:b] for a, b in zip(points, points[1:])]


TELNET_ELEMENT = st.one_of(
    st.binary(max_size=20).map(lambda b: b.replace(b"\xff", b"")),  # plain data
    st.just(bytes([IAC, IAC])),
    st.tuples(st.sampled_from([WILL, WONT, DO, DONT]), st.integers(0, 255)).map(
        lambda vo: bytes([IAC, *vo])),
    st.binary(max_size=10).map(lambda b: bytes([IAC, SB]) + b.replace(b"\xff", b"\xff\xff")
                               + bytes([IAC, SE])),
    st.sampled_from([NOP, AYT, 243, 244, 249]).map(lambda c: bytes([IAC, c])),
)


def test_plain_data_passes_unchanged():
    assert TelnetCodec().receive(b"login\r\n") == (b"login\r\n", b"")


@given(st.binary(max_size=200), st.lists(st.integers(0, 200), max_size=6))
def test_escaped_data_comes_back_whatever_the_chunks(data, cuts):
    escaped = data.replace(b"\xff", b"\xff\xff")
    assert receive_all(TelnetCodec(), split(escaped, cuts)) == (data, b"")


@given(st.lists(TELNET_ELEMENT, max_size=20), st.lists(st.integers(0, 500), max_size=8))
def test_chunking_changes_nothing(elements, cuts):
    stream = b"".join(elements)
    whole = TelnetCodec().receive(stream)
    assert receive_all(TelnetCodec(), split(stream, cuts)) == whole
    # What is left is exactly the data elements, IAC IAC as one 0xFF byte.
    expected = b"".join(b"\xff" if e == b"\xff\xff" else e for e in elements
                        if not e.startswith(b"\xff") or e == b"\xff\xff")
    assert whole[0] == expected


def test_offers_and_requests_are_refused_once():
    codec = TelnetCodec()
    offer = bytes([IAC, WILL, NAWS, IAC, DO, TTYPE])
    assert codec.receive(b"a" + offer + b"b") == (b"ab", bytes([IAC, DONT, NAWS, IAC, WONT, TTYPE]))
    assert codec.receive(offer) == (b"", b"")  # no negotiation loop
    assert codec.receive(bytes([IAC, WONT, NAWS, IAC, DONT, TTYPE])) == (b"", b"")


def test_echo_is_offered_and_withdrawn():
    codec = TelnetCodec()
    assert codec.echo(True) == bytes([IAC, WILL, ECHO])
    assert codec.receive(bytes([IAC, DO, ECHO])) == (b"", b"")  # the peer agrees
    assert codec.echo(False) == bytes([IAC, WONT, ECHO])
    assert codec.receive(bytes([IAC, DONT, ECHO])) == (b"", b"")
    # Asked to echo unprompted: refused.
    assert codec.receive(bytes([IAC, DO, ECHO])) == (b"", bytes([IAC, WONT, ECHO]))


def test_a_peer_refusing_echo_turns_it_off():
    codec = TelnetCodec()
    codec.echo(True)
    assert codec.receive(bytes([IAC, DONT, ECHO])) == (b"", b"")
    assert not codec.echoing


def test_subnegotiations_and_other_commands_are_consumed():
    codec = TelnetCodec()
    data = (b"ti" + bytes([IAC, SB, TTYPE, 0]) + b"xterm\xff\xff" + bytes([IAC, SE])
            + bytes([IAC, NOP, IAC, AYT]) + b"me\r\n")
    assert codec.receive(data) == (b"time\r\n", b"")


def test_an_endless_subnegotiation_swallows_everything_until_it_ends():
    codec = TelnetCodec()
    assert codec.receive(bytes([IAC, SB, TTYPE]) + b"x" * 100_000) == (b"", b"")
    assert codec.receive(b"y" * 10 + bytes([IAC, SE]) + b"who\r\n") == (b"who\r\n", b"")


class ByteAtATimeCodec:
    """The codec as first written: a state machine stepping through every byte of a command
    in Python. The fast codec must agree with it on everything, replies included."""

    def __init__(self) -> None:
        self.codec = TelnetCodec()  # only for its option refusals (_negotiate)
        self.state = "data"
        self.verb = 0

    def receive(self, data: bytes) -> tuple[bytes, bytes]:
        text, replies = bytearray(), bytearray()
        for byte in data:
            if self.state == "data":
                if byte == IAC:
                    self.state = "command"
                else:
                    text.append(byte)
            elif self.state == "command":
                if byte == IAC:
                    text.append(IAC)
                    self.state = "data"
                elif WILL <= byte <= DONT:
                    self.verb, self.state = byte, "option"
                else:
                    self.state = "subnegotiation" if byte == SB else "data"
            elif self.state == "option":
                replies += self.codec._negotiate(self.verb, byte)
                self.state = "data"
            elif self.state == "subnegotiation":
                if byte == IAC:
                    self.state = "subnegotiation IAC"
            else:
                self.state = "data" if byte == SE else "subnegotiation"
        return bytes(text), bytes(replies)


DENSE_STREAM = st.lists(st.one_of(TELNET_ELEMENT, st.binary(max_size=4)), max_size=300)


@given(DENSE_STREAM, st.lists(st.integers(0, 3000), max_size=10), st.booleans())
def test_a_stream_of_many_commands_decodes_as_byte_at_a_time(elements, cuts, echoing):
    stream = b"".join(elements)  # raw bytes mixed in: stray IACs, broken commands
    reference, codec = ByteAtATimeCodec(), TelnetCodec()
    reference.codec.echoing = codec.echoing = echoing
    assert receive_all(codec, split(stream, cuts)) == reference.receive(stream)
    assert codec.echoing == reference.codec.echoing


def python_calls_while(action) -> int:
    """How many Python and C function calls `action` makes (its own not counted)."""
    calls = 0

    def count(frame, event, arg):
        nonlocal calls
        calls += event in ("call", "c_call")

    sys.setprofile(count)
    try:
        action()
    finally:
        sys.setprofile(None)
    return calls


def test_dense_commands_cost_like_plain_bytes():
    """However many commands a read holds, decoding it makes the same few calls: the work is
    done in C, not in a Python step per command."""
    dense = {
        "NOP": bytes([IAC, NOP]),
        "escaped 0xFF": bytes([IAC, IAC]),
        "option offers": bytes([IAC, WILL, NAWS]),
        "data between commands": b"x" + bytes([IAC, AYT]) + b"y" + bytes([IAC, DO, TTYPE]),
        "subnegotiations": bytes([IAC, SB, TTYPE, 0, IAC, SE]),
        "0xFF before an SB byte": bytes([IAC, IAC, SB]),
    }
    for name, unit in dense.items():
        few = python_calls_while(lambda: TelnetCodec().receive(unit * 10))
        many = python_calls_while(lambda: TelnetCodec().receive(unit * 10_000))
        assert many == few, f"{name}: {few} calls for 10 commands, {many} for 10,000"
