"""The PROXY protocol's header (HAProxy's, versions 1 and 2), as a load balancer puts it
before a player's bytes: who the player is. Pure: bytes in, a `ProxyHeader`, None ("need
more") or `ProxyHeaderError` out; no I/O. `net/proxied.py` reads it off a connection.

Version 1 is one text line, `PROXY TCP4 src dst sport dport\\r\\n` (TCP6 likewise, or
`PROXY UNKNOWN ...\\r\\n`), 107 bytes at most. Version 2 is binary: a 12-byte signature, the
version and command, the family and transport, the length of what follows (addresses, then
TLVs, which are skipped). LOCAL (v2) and UNKNOWN (v1) name no player: the connection is the
balancer's own (a health check), and `source` is None.
"""
from __future__ import annotations

import dataclasses
import ipaddress

V1_PREFIX = b"PROXY "
V1_MAX_BYTES = 107  # the specification's longest line, CR LF included
V2_SIGNATURE = b"\r\n\r\n\x00\r\nQUIT\n"
V2_FIXED_BYTES = 16
# What a v2 header may carry after its 16 bytes: the addresses (36 bytes for IPv6) and TLVs
# (a TLS balancer's certificate names, a cloud's endpoint id). Beyond that it is not a
# balancer's header we want to buffer.
V2_MAX_LENGTH = 2048
_V2_PROXY, _V2_LOCAL = 0x21, 0x20  # version 2 in the high nibble, the command in the low
_V2_INET_STREAM, _V2_INET6_STREAM, _V2_UNSPEC = 0x11, 0x21, 0x00
_V1_FAMILIES: dict[bytes, type[ipaddress.IPv4Address] | type[ipaddress.IPv6Address]] = {
    b"TCP4": ipaddress.IPv4Address, b"TCP6": ipaddress.IPv6Address}


class ProxyHeaderError(ValueError):
    """Not a PROXY header: the connection is to be closed."""


@dataclasses.dataclass(frozen=True)
class ProxyHeader:
    source: str | None  # the player's address; None: the balancer's own connection
    length: int  # bytes of the header: what follows is the player's


def parse_header(data: bytes) -> ProxyHeader | None:
    """The header at the start of `data`, or None while `data` is a prefix of one."""
    if data.startswith(V2_SIGNATURE):
        return _parse_v2(data)
    if data.startswith(V1_PREFIX):
        return _parse_v1(data)
    if V2_SIGNATURE.startswith(data) or V1_PREFIX.startswith(data):
        return None
    raise ProxyHeaderError("no PROXY signature")


def _parse_v1(data: bytes) -> ProxyHeader | None:
    end = data.find(b"\r\n", 0, V1_MAX_BYTES)
    if end < 0:
        if len(data) >= V1_MAX_BYTES:
            raise ProxyHeaderError("a v1 header over 107 bytes")
        if b"\n" in data or not data.isascii():
            raise ProxyHeaderError("a v1 header with a stray byte")
        return None
    fields = data[:end].split(b" ")
    if fields[1:2] == [b"UNKNOWN"]:  # the rest, if any, is to be ignored
        return ProxyHeader(None, end + 2)
    if len(fields) != 6 or fields[1] not in _V1_FAMILIES:
        raise ProxyHeaderError("a v1 header of the wrong shape")
    family = _V1_FAMILIES[fields[1]]
    try:
        if b"%" in fields[2] + fields[3]:  # a scope id names no player's address
            raise ValueError
        source = family(fields[2].decode("ascii"))
        family(fields[3].decode("ascii"))
    except ValueError:
        raise ProxyHeaderError("a v1 header with a bad address") from None
    for port in fields[4:]:
        if not (port.isdigit() and len(port) <= 5 and int(port) <= 65535
                and (port == b"0" or not port.startswith(b"0"))):
            raise ProxyHeaderError("a v1 header with a bad port")
    return ProxyHeader(_plain(source), end + 2)


def _parse_v2(data: bytes) -> ProxyHeader | None:
    if len(data) < V2_FIXED_BYTES:
        if len(data) > 12 and data[12] not in (_V2_PROXY, _V2_LOCAL):
            raise ProxyHeaderError("a v2 header of another version or command")
        return None
    command, family = data[12], data[13]
    length = int.from_bytes(data[14:16], "big")
    if command not in (_V2_PROXY, _V2_LOCAL):
        raise ProxyHeaderError("a v2 header of another version or command")
    if length > V2_MAX_LENGTH:
        raise ProxyHeaderError("a v2 header over its length cap")
    total = V2_FIXED_BYTES + length
    if len(data) < total:
        return None
    if command == _V2_LOCAL or family == _V2_UNSPEC:
        return ProxyHeader(None, total)
    body = data[V2_FIXED_BYTES:total]
    source: ipaddress.IPv4Address | ipaddress.IPv6Address
    if family == _V2_INET_STREAM and length >= 12:
        source = ipaddress.IPv4Address(body[:4])
    elif family == _V2_INET6_STREAM and length >= 36:
        source = ipaddress.IPv6Address(body[:16])
    else:
        raise ProxyHeaderError("a v2 header of another family or too short for it")
    return ProxyHeader(_plain(source), total)


def _plain(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> str:
    """An IPv4 player behind an IPv6 balancer is counted as the IPv4 address it is."""
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return str(address.ipv4_mapped)
    return str(address)


def v1_header(source: str, destination: str, source_port: int, destination_port: int) -> bytes:
    """A v1 header, as a balancer sends it (for tests and tools)."""
    family = "TCP6" if ":" in source else "TCP4"
    return (f"PROXY {family} {source} {destination} {source_port} {destination_port}\r\n"
            ).encode("ascii")


def v2_header(source: str | None, destination: str = "127.0.0.1", source_port: int = 1,
              destination_port: int = 1, tlvs: bytes = b"") -> bytes:
    """A v2 header: PROXY over TCP for `source`, LOCAL for None (for tests and tools)."""
    if source is None:
        return V2_SIGNATURE + bytes([_V2_LOCAL, _V2_UNSPEC]) + len(tlvs).to_bytes(2, "big") + tlvs
    player, balancer = ipaddress.ip_address(source), ipaddress.ip_address(destination)
    family = _V2_INET_STREAM if player.version == 4 else _V2_INET6_STREAM
    body = (player.packed + balancer.packed + source_port.to_bytes(2, "big")
            + destination_port.to_bytes(2, "big") + tlvs)
    return V2_SIGNATURE + bytes([_V2_PROXY, family]) + len(body).to_bytes(2, "big") + body
