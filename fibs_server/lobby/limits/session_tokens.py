"""Web pages' session tokens (lobby/presence/reconnect.py says what they are for).

Tokens are 256 random bits, one per user (a new login replaces it), kept only as their
SHA-256 (so a look-up takes the same time whatever bytes are guessed), renewed at each resume,
revoked at every logout and expired at the end of a hold.
"""
from __future__ import annotations

import dataclasses
import hashlib
import secrets
from collections.abc import Callable

TOKEN_BYTES = 32  # 256 bits: guessing is hopeless, and each guess is throttled besides


def _digest(token: str) -> bytes:
    return hashlib.sha256(token.encode("utf-8", "replace")).digest()


@dataclasses.dataclass
class _Issued:
    digest: bytes
    expires_at: float | None  # None while the page is connected: it lasts as its session


class SessionTokens:
    """The token of each web user online: issued at login, expiring at the end of a hold."""

    def __init__(self, clock: Callable[[], float]) -> None:
        self._clock = clock
        self._names: dict[bytes, str] = {}  # digest -> lower-case name
        self._issued: dict[str, _Issued] = {}  # lower-case name -> its token

    def issue(self, name: str) -> str:
        """A new token for `name`, in place of any earlier one."""
        self.revoke(name)
        token = secrets.token_urlsafe(TOKEN_BYTES)
        digest = _digest(token)
        self._names[digest] = name.lower()
        self._issued[name.lower()] = _Issued(digest, None)
        return token

    def name_for(self, token: str) -> str | None:
        """The lower-case name whose token this is, None for a wrong or expired one."""
        name = self._names.get(_digest(token))
        if name is None:
            return None
        expires_at = self._issued[name].expires_at
        if expires_at is not None and self._clock() >= expires_at:
            self.revoke(name)
            return None
        return name

    def has_token(self, name: str) -> bool:
        return name.lower() in self._issued

    def expire_in(self, name: str, seconds: float) -> None:
        issued = self._issued.get(name.lower())
        if issued is not None:
            issued.expires_at = self._clock() + seconds

    def revoke(self, name: str) -> None:
        issued = self._issued.pop(name.lower(), None)
        if issued is not None:
            del self._names[issued.digest]

    def __len__(self) -> int:
        return len(self._issued)
