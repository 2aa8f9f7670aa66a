"""Telnet (RFC 854) as a server that speaks one option, ECHO: a pure state machine, no I/O.

`receive` separates the peer's data from its telnet commands and returns the replies to send.
Every option the peer offers or asks for is refused once (RFC 1143's rule against negotiation
loops: no reply to a request for the state an option is already in); subnegotiations and
other commands (NOP, AYT, IP, ...) are consumed. FIBS users type lines; nothing more is needed.

A read is decoded by a few regular-expression passes, whatever it holds: a flood of
commands costs about what the same number of plain bytes does, never a Python step per command.
"""
from __future__ import annotations

import re

IAC, DONT, DO, WONT, WILL, SB, SE = 255, 254, 253, 252, 251, 250, 240
ECHO = 1

# What a subnegotiation holds before its IAC SE: IAC IAC is data inside it, IAC and any other
# byte is consumed with it.
_SUBNEGOTIATION_BODY = rb"(?:[^\xff]++|\xff[^\xf0])*+"
_REST_OF_SUBNEGOTIATION = re.compile(_SUBNEGOTIATION_BODY)
# One C pass cuts a read into runs: [nothing, data (IAC IAC still escaped) or None,
# negotiations (IAC, verb, option each) or None, command cut by the read's end or None, ...].
# Other commands (whole subnegotiations among them) are dropped, a run of them at once.
_RUNS = re.compile(rb"((?:[^\xff]++|\xff\xff)++)|((?:\xff[\xfb-\xfe][\x00-\xff])++)"
                   rb"|(?:\xff(?:[\x00-\xf9]|\xfa" + _SUBNEGOTIATION_BODY + rb"\xff\xf0))++"
                   rb"|(\xff(?:[\xfb-\xfe]|\xfa" + _SUBNEGOTIATION_BODY + rb"\xff?)?)\Z")
_DONT_ECHO = bytes((IAC, DONT, ECHO))


class TelnetCodec:
    __slots__ = ("_in_subnegotiation", "_pending", "echoing", "_refused")

    def __init__(self) -> None:
        self._in_subnegotiation = False  # between IAC SB and IAC SE
        self._pending = b""  # the start of a command cut by the end of the last read
        self.echoing = False  # we said WILL ECHO: the peer should not echo (password prompts)
        self._refused = 0  # bit (verb - WONT) * 256 + option: each refusal is sent once

    def receive(self, data: bytes) -> tuple[bytes, bytes]:
        """The data bytes in `data` (IAC IAC unescaped) and the telnet replies owed."""
        if self._pending:
            data, self._pending = self._pending + data, b""
        elif not self._in_subnegotiation and IAC not in data:
            return data, b""  # the usual case, one scan in C
        if self._in_subnegotiation:
            data = data[self._skip_subnegotiation(data, 0):]
        runs = _RUNS.split(data)
        cut = runs[-2] if len(runs) > 1 else None
        if cut and cut.startswith(b"\xff\xfa"):
            self._in_subnegotiation = True
            self._skip_subnegotiation(cut, 2)
        elif cut:
            self._pending = cut  # IAC, or IAC and a verb
        # Data bytes are never 0xFF: what is left of it are the IAC IAC pairs, in step.
        text = b"".join(filter(None, runs[1::4])).replace(b"\xff\xff", b"\xff")
        negotiations = b"".join(filter(None, runs[2::4]))
        return text, self._negotiate_all(negotiations) if negotiations else b""

    def _skip_subnegotiation(self, data: bytes, start: int) -> int:
        """Where data after IAC SE starts, leaving the subnegotiation; len(data) if it goes
        on past this read."""
        rest = _REST_OF_SUBNEGOTIATION.match(data, start)
        assert rest is not None  # the pattern matches nothing too
        end = rest.end()
        if data.startswith(b"\xff\xf0", end):
            self._in_subnegotiation = False
            return end + 2
        self._pending = data[end:]  # empty, or an IAC whose next byte is still to come
        return len(data)

    def _negotiate_all(self, negotiations: bytes) -> bytes:
        """The replies to `negotiations` (IAC, verb, option each) in order. An answer depends
        only on whether it was given before and on `echoing`, which only DONT ECHO changes:
        each distinct (verb, option) is answered once on either side of the first DONT ECHO
        (found in step: a verb is never 0xFF, and an option of 0xFF is followed by IAC)."""
        first_dont_echo = negotiations.find(_DONT_ECHO)
        if first_dont_echo < 0:
            return self._negotiate_distinct(negotiations)
        before = self._negotiate_distinct(negotiations[:first_dont_echo])
        self.echoing = False
        return before + self._negotiate_distinct(negotiations[first_dont_echo + 3:])

    def _negotiate_distinct(self, negotiations: bytes) -> bytes:
        pairs = dict.fromkeys(zip(negotiations[1::3], negotiations[2::3]))
        return b"".join(self._negotiate(verb, option) for verb, option in pairs)

    def _negotiate(self, verb: int, option: int) -> bytes:
        if option == ECHO and verb in (DO, DONT):
            if verb == DONT:
                self.echoing = False  # refused or switched off: we stop asking
                return b""
            # DO ECHO acknowledges our WILL ECHO; asked for unprompted, it is refused.
            return b"" if self.echoing else self._refuse(WONT, option)
        if verb == WILL:
            return self._refuse(DONT, option)
        if verb == DO:
            return self._refuse(WONT, option)
        return b""  # WONT and DONT: every option but ECHO is off already

    def _refuse(self, verb: int, option: int) -> bytes:
        bit = 1 << ((verb - WONT) * 256 + option)
        if self._refused & bit:
            return b""
        self._refused |= bit
        return bytes((IAC, verb, option))

    def echo(self, server_echoes: bool) -> bytes:
        """The command that asks the peer to stop (WILL ECHO) or resume (WONT ECHO) echoing."""
        self.echoing = server_echoes
        return bytes((IAC, WILL if server_echoes else WONT, ECHO))
