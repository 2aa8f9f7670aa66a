"""The PROXY header's parser (net/proxy_protocol.py): v1 and v2 as HAProxy sends them, the
malformed ones refused, and its properties: every prefix of a header asks for more, and no
bytes make it raise anything but its own error."""
from __future__ import annotations

import ipaddress

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fibs_server.net.proxy_protocol import (
    V1_MAX_BYTES,
    V2_MAX_LENGTH,
    V2_SIGNATURE,
    ProxyHeader,
    ProxyHeaderError,
    parse_header,
    v1_header,
    v2_header,
)

PLAYER_BYTES = b"login alice secret\r\n"


@pytest.mark.parametrize("header, source", [
    (b"PROXY TCP4 203.0.113.7 10.0.0.1 51234 4321\r\n", "203.0.113.7"),
    (b"PROXY TCP6 2001:db8::7 2001:db8::1 51234 4321\r\n", "2001:db8::7"),
    (b"PROXY TCP6 ::ffff:203.0.113.7 ::1 0 65535\r\n", "203.0.113.7"),
    (b"PROXY UNKNOWN\r\n", None),
    (b"PROXY UNKNOWN ffff:f...f:ffff ffff:f...f:ffff 65535 65535\r\n", None),
    (v2_header("203.0.113.7", "10.0.0.1", 51234, 4321), "203.0.113.7"),
    (v2_header("2001:db8::7", "2001:db8::1"), "2001:db8::7"),
    (v2_header("203.0.113.7", tlvs=b"\x03\x00\x04abcd\x05\x00\x02xy"), "203.0.113.7"),
    (v2_header(None), None),
    (v2_header(None, tlvs=b"\x04\x00\x00"), None),
    # PROXY over an unspecified family: the balancer's own address, as for UNKNOWN.
    (V2_SIGNATURE + b"\x21\x00\x00\x00", None),
])
def test_a_header_names_the_player_and_what_follows_is_theirs(header, source):
    assert parse_header(header + PLAYER_BYTES) == ProxyHeader(source, len(header))
    assert parse_header(header) == ProxyHeader(source, len(header))


@pytest.mark.parametrize("data", [
    b"login alice\r\n",
    b"PROXY TCP4 1.2.3.4 5.6.7.8 1 2\n",  # LF alone
    b"PROXY TCP4 1.2.3.4 5.6.7.8 1\r\n",
    b"PROXY TCP4 1.2.3.4  5.6.7.8 1 2\r\n",
    b"PROXY TCP4 2001:db8::1 5.6.7.8 1 2\r\n",
    b"PROXY TCP6 1.2.3.4 ::1 1 2\r\n",
    b"PROXY TCP4 1.2.3.004 5.6.7.8 1 2\r\n",
    b"PROXY TCP6 fe80::1%eth0 ::1 1 2\r\n",
    b"PROXY TCP4 1.2.3.4 5.6.7.8 65536 2\r\n",
    b"PROXY TCP4 1.2.3.4 5.6.7.8 01 2\r\n",
    b"PROXY TCP4 1.2.3.4 5.6.7.8 -1 2\r\n",
    b"PROXY UDP4 1.2.3.4 5.6.7.8 1 2\r\n",
    b"PROXY " + b"x" * (V1_MAX_BYTES - 6),  # no line end within 107 bytes
    b"PROXY TCP4 \xff",
    V2_SIGNATURE + b"\x11\x11\x00\x0c" + bytes(12),  # version 1 in a v2 header
    V2_SIGNATURE + b"\x22\x11\x00\x0c" + bytes(12),  # command 2
    V2_SIGNATURE + b"\x21\x11\x00\x08" + bytes(8),  # too short for IPv4
    V2_SIGNATURE + b"\x21\x21\x00\x0c" + bytes(12),  # too short for IPv6
    V2_SIGNATURE + b"\x21\x12\x00\x0c" + bytes(12),  # UDP
    V2_SIGNATURE + b"\x21\x31\x00\xd8" + bytes(216),  # a Unix socket
    V2_SIGNATURE + b"\x21\x11" + (V2_MAX_LENGTH + 1).to_bytes(2, "big"),
])
def test_malformed_headers_are_refused(data):
    with pytest.raises(ProxyHeaderError):
        parse_header(data)


def test_the_longest_v1_headers_are_accepted():
    address = "ffff:" * 7 + "ffff"
    header = v1_header(address, address, 65535, 65535)
    assert parse_header(header) == ProxyHeader(address, len(header))
    # The specification's bound: an UNKNOWN line of 107 bytes, CR LF included.
    unknown = b"PROXY UNKNOWN " + b"x" * (V1_MAX_BYTES - 16) + b"\r\n"
    assert parse_header(unknown) == ProxyHeader(None, V1_MAX_BYTES)


def test_a_v2_header_at_its_length_cap_waits_for_all_of_it():
    header = v2_header("203.0.113.7", tlvs=b"\x00" * (V2_MAX_LENGTH - 12))
    assert parse_header(header[:-1]) is None
    assert parse_header(header) == ProxyHeader("203.0.113.7", len(header))


ipv4 = st.ip_addresses(v=4).map(str)
ipv6 = st.ip_addresses(v=6).map(str)
ports = st.integers(0, 65535)
tlvs = st.binary(max_size=64)
headers = st.one_of(
    st.builds(v1_header, ipv4, ipv4, ports, ports),
    st.builds(v1_header, ipv6, ipv6, ports, ports),
    st.just(b"PROXY UNKNOWN\r\n"),
    st.builds(v2_header, ipv4, st.just("127.0.0.1"), ports, ports, tlvs),
    st.builds(v2_header, ipv6, st.just("::1"), ports, ports, tlvs),
    st.builds(v2_header, st.none(), st.just("127.0.0.1"), ports, ports, tlvs),
)


@given(headers, st.data())
def test_every_prefix_of_a_header_asks_for_more(header, data):
    cut = data.draw(st.integers(0, len(header) - 1))
    assert parse_header(header[:cut]) is None
    parsed = parse_header(header + data.draw(st.binary(max_size=32)))
    assert parsed is not None and parsed.length == len(header)
    if parsed.source is not None:
        ipaddress.ip_address(parsed.source)


@given(st.one_of(st.binary(max_size=300),
                 st.binary(max_size=200).map(lambda tail: b"PROXY " + tail),
                 st.binary(max_size=200).map(lambda tail: V2_SIGNATURE + tail)))
def test_random_bytes_raise_only_the_parsers_error(data):
    try:
        parsed = parse_header(data)
    except ProxyHeaderError:
        return
    if parsed is None:
        # Waiting for more only while no header's longest has come.
        assert len(data) < V1_MAX_BYTES or data.startswith(V2_SIGNATURE)
    else:
        assert 0 < parsed.length <= len(data)
