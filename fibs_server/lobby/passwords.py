"""bcrypt hashing, run in worker threads: a hash at cost 12 takes ~250 ms, far too long to
block the event loop that serves every other user."""
from __future__ import annotations

import asyncio
import concurrent.futures
import os
import threading

import bcrypt


# bcrypt reads at most 72 bytes; newer releases raise instead of cutting silently.
BCRYPT_MAX_BYTES = 72
# bcrypt releases the GIL and keeps a core busy per hash: a burst of logins on more threads
# than cores - 1 would take the event loop's core too (docs/PERFORMANCE.md, "Load").
BCRYPT_THREADS = max(1, (os.cpu_count() or 2) - 1)
# And they run at the lowest CPU priority: when a login burst meets other work (the event
# loop, the database thread, other processes), the hashes wait, not the users already in.
BCRYPT_NICENESS = 19


def _lower_priority() -> None:
    """Runs in each bcrypt thread: Linux gives every thread its own nice value."""
    try:
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), BCRYPT_NICENESS)
    except (AttributeError, OSError):  # not Linux: threads share the process's priority
        pass


def _secret(password: str) -> bytes:
    return password.encode()[:BCRYPT_MAX_BYTES]


class PasswordHasher:
    def __init__(self, rounds: int = 12) -> None:
        self.rounds = rounds
        # Checked against when the account does not exist, so that a wrong name costs the
        # same time as a wrong password and does not reveal which names exist.
        self._decoy = bcrypt.hashpw(b"decoy", bcrypt.gensalt(rounds))
        self._threads = concurrent.futures.ThreadPoolExecutor(
            BCRYPT_THREADS, "bcrypt", initializer=_lower_priority)

    async def hash(self, password: str) -> bytes:
        return await asyncio.get_running_loop().run_in_executor(
            self._threads, bcrypt.hashpw, _secret(password), bcrypt.gensalt(self.rounds))

    async def check(self, password: str, hashed: bytes | None) -> bool:
        ok = await asyncio.get_running_loop().run_in_executor(
            self._threads, bcrypt.checkpw, _secret(password), hashed or self._decoy)
        return ok and hashed is not None

    def close(self) -> None:
        """Drop the hashes still waiting for a thread: at shutdown after a login burst, those
        would otherwise run one after another before the process could exit."""
        self._threads.shutdown(wait=False, cancel_futures=True)
