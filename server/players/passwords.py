"""Passwords: argon2id hashes, made and checked in threads (never on the event loop), a few at once.

The parameters are OWASP's first choice for argon2id (19 MiB, 2 passes, 1 lane): about 35 ms a
hash on one core. At most ``CONCURRENT`` hashes run at once, so a burst of sign-ins costs at most
that many times 19 MiB and leaves the event loop's core to the races. A check against an unknown
handle is made against a dummy hash all the same, so the time of a refusal does not tell whether
the handle exists.
"""

from __future__ import annotations

import asyncio
from typing import Final

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError

CONCURRENT: Final = 2


class Passwords:
    def __init__(self, hasher: PasswordHasher | None = None) -> None:
        self.hasher = hasher if hasher is not None else PasswordHasher(time_cost=2, memory_cost=19456, parallelism=1)
        self.slots = asyncio.Semaphore(CONCURRENT)
        self._dummy: str | None = None

    async def hash(self, password: str) -> str:
        async with self.slots:
            return await asyncio.to_thread(self.hasher.hash, password)

    async def check(self, stored: str | None, password: str) -> bool:
        """Whether ``password`` is the one ``stored`` was made of; ``stored`` None (no such
        handle, or no password set) checks against a dummy hash, and is False."""
        if self._dummy is None:
            self._dummy = await self.hash("not the password of anyone")
        async with self.slots:
            return await asyncio.to_thread(self._verify, stored or self._dummy, password) and stored is not None

    def _verify(self, stored: str, password: str) -> bool:
        try:
            return self.hasher.verify(stored, password)
        except (VerifyMismatchError, VerificationError, InvalidHashError):
            return False
