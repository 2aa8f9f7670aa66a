"""Telnet (RFC 854) as a server that speaks one option, ECHO: a pure state machine, no I/O.

`receive` separates the peer's data from its telnet commands and returns the replies to send.
Every option the peer offers or asks for is refused once (RFC 1143's rule against negotiation
loops: no reply to a request for the state an option is already in); subnegotiations and
other commands (NOP, AYT, IP, ...) are consumed. FIBS users type lines; nothing more is needed.
"""
from __future__ import annotations

IAC, DONT, DO, WONT, WILL, SB, SE = 255, 254, 253, 252, 251, 250, 240
ECHO = 1

_DATA, _COMMAND, _OPTION, _SUBNEGOTIATION, _SUBNEGOTIATION_IAC = range(5)


class TelnetCodec:
    __slots__ = ("_state", "_verb", "echoing", "_refused")

    def __init__(self) -> None:
        self._state = _DATA
        self._verb = 0  # WILL/WONT/DO/DONT waiting for its option byte
        self.echoing = False  # we said WILL ECHO: the peer should not echo (password prompts)
        self._refused = 0  # bit (verb - WONT) * 256 + option: each refusal is sent once

    def receive(self, data: bytes) -> tuple[bytes, bytes]:
        """The data bytes in `data` (IAC IAC unescaped) and the telnet replies owed."""
        if self._state == _DATA and IAC not in data:
            return data, b""  # the usual case, one scan in C
        text = bytearray()
        replies = bytearray()
        position, end = 0, len(data)
        while position < end:
            state = self._state
            if state == _DATA:
                found = data.find(IAC, position)
                if found < 0:
                    text += data[position:]
                    break
                text += data[position:found]
                self._state = _COMMAND
                position = found + 1
                continue
            if state == _SUBNEGOTIATION:
                # Skipped with find: an endless subnegotiation costs one scan per read.
                found = data.find(IAC, position)
                if found < 0:
                    break
                self._state = _SUBNEGOTIATION_IAC
                position = found + 1
                continue
            byte = data[position]
            position += 1
            if state == _COMMAND:
                if byte == IAC:
                    text.append(IAC)
                    self._state = _DATA
                elif WILL <= byte <= DONT:
                    self._verb, self._state = byte, _OPTION
                elif byte == SB:
                    self._state = _SUBNEGOTIATION
                else:
                    self._state = _DATA  # NOP, AYT, IP, GA, a stray SE: nothing to do
            elif state == _OPTION:
                replies += self._negotiate(self._verb, byte)
                self._state = _DATA
            else:  # _SUBNEGOTIATION_IAC: IAC SE ends it, IAC IAC is data inside it
                self._state = _DATA if byte == SE else _SUBNEGOTIATION
        return bytes(text), bytes(replies)

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
