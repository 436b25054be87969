"""A game busy for too long: writers wait for the lock, then get a clear refusal.

A write waits for the game's lock: SQLite's busy wait (``PRAGMA busy_timeout``, the
connection's ``timeout``) and PostgreSQL's ``lock_timeout`` (set by
:func:`limit_lock_wait` in each write's transaction) are both :data:`WAIT_SECONDS`.
Past that wait, the database says so (SQLite: « database is locked »; PostgreSQL:
``lock_not_available``) and the web answers a French "busy, retry" page (HTTP 503),
the command line one French line: never an error page or a traceback.
"""

from __future__ import annotations

from django.db import OperationalError, connection

#: how long a write waits for a game's lock before it is told to retry (seconds)
WAIT_SECONDS = 70

#: what a writer is told past that wait (French)
MESSAGE = (
    "La partie est occupée depuis plus d'une minute (une correction longue ou un autre "
    "enregistrement est en cours) : rien n'a été enregistré, réessayez dans un instant."
)

#: what a page of a game stored with dates out of bounds says (French)
OUT_OF_BOUNDS = (
    "Cette partie a été créée avec une date hors limites (le J1 se place entre 2000 et "
    "2100) : son calendrier ne peut pas être lu. Rien n'a été enregistré."
)


def limit_lock_wait() -> None:
    """Inside a transaction, on PostgreSQL: wait at most :data:`WAIT_SECONDS` for a
    row lock (SQLite waits as its connection says)."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute(f"SET LOCAL lock_timeout = '{WAIT_SECONDS}s'")


def is_busy(exc: BaseException) -> bool:
    """Whether ``exc`` is the database's "waited too long for a lock"."""
    if not isinstance(exc, OperationalError):
        return False
    cause = exc.__cause__ or exc
    if getattr(cause, "sqlstate", None) in ("55P03", "40P01"):  # lock_not_available, deadlock
        return True
    text = str(exc).lower()
    return "database is locked" in text or "lock timeout" in text
