"""The local-memory cache that keeps sessions for a short while (``SESSION_ENGINE`` is
``cached_db``: a session is read from the database once, then from this process's
memory for :data:`SESSION_MEMORY_SECONDS`).

Every session write still goes to the database first, so nothing is lost on a restart.
A local-memory cache belongs to one process: ``ronde serve`` (waitress) is one process,
where a logout or a password change is seen at once. Behind several processes a
session ended in one of them is still accepted by the others until their copy
expires; the cap below bounds that delay (the user row, read on every request by
Django's authentication, still ends the session at once after a password change).
"""

from __future__ import annotations

import time
from typing import Any

from django.core.cache.backends.base import DEFAULT_TIMEOUT
from django.core.cache.backends.locmem import LocMemCache

#: the longest a session is served from memory before the database is read again
SESSION_MEMORY_SECONDS = 60


class ShortLocMemCache(LocMemCache):
    """Django's local-memory cache, whose entries never live longer than
    ``OPTIONS["MAX_AGE"]`` seconds (default :data:`SESSION_MEMORY_SECONDS`)."""

    def __init__(self, name: str, params: dict[str, Any]) -> None:
        options = dict(params.get("OPTIONS") or {})
        self.max_age = float(options.pop("MAX_AGE", SESSION_MEMORY_SECONDS))
        super().__init__(name, {**params, "OPTIONS": options})

    def get_backend_timeout(self, timeout: Any = DEFAULT_TIMEOUT) -> float | None:
        until = super().get_backend_timeout(timeout)
        cap = time.time() + self.max_age
        return cap if until is None else min(until, cap)
