"""Migrations are a step of their own: ``ronde manage migrate``, once per release.

``ronde serve`` and ``ronde tick`` never migrate: on a database that is not up to date
they stop with a French line saying so (:func:`require_migrated`), so two servers
started together never race on the schema. Every ``migrate`` (``ronde manage migrate``,
the demo, the command line's first use of a fresh database, the tests) holds a lock for
its whole run (:func:`migration_lock`): PostgreSQL's advisory lock, or a file lock beside
a SQLite database, so two of them never apply the same migration twice.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

#: the PostgreSQL advisory lock's key (any constant of Ronde's own)
LOCK_KEY = 0x526F6E6465  # "Ronde"


class NotMigrated(Exception):
    """The database lacks migrations (French message)."""


@contextlib.contextmanager
def migration_lock(connection: Any) -> Iterator[None]:
    """Hold Ronde's migration lock on ``connection``'s database until the block ends."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_lock(%s)", [LOCK_KEY])
        try:
            yield
        finally:
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_advisory_unlock(%s)", [LOCK_KEY])
        return
    name = str(connection.settings_dict.get("NAME") or "")
    if connection.vendor != "sqlite" or not name or name == ":memory:" or "mode=memory" in name:
        yield
        return
    path = Path(name.removeprefix("file:").split("?", 1)[0])
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(f"{path}.migration-lock", os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # (closing releases the lock)


def pending(connection: Any) -> list[str]:
    """The migrations not applied yet to ``connection``'s database."""
    # (lazy: Django's migration machinery is loaded only by the commands that check)
    from django.db.migrations.executor import MigrationExecutor

    executor = MigrationExecutor(connection)
    plan = executor.migration_plan(executor.loader.graph.leaf_nodes())
    return [f"{migration.app_label}.{migration.name}" for migration, _backwards in plan]


def require_migrated() -> None:
    """Raise :class:`NotMigrated` unless the default database is up to date."""
    from django.conf import settings
    from django.db import connection

    db = settings.DATABASES["default"]
    if str(db["ENGINE"]).endswith("sqlite3") and not Path(str(db["NAME"])).exists():
        raise NotMigrated(
            f"base introuvable : {db['NAME']}. Créez-la avec « ronde manage migrate » (même "
            "environnement : RONDE_DATA_DIR ou DATABASE_URL), puis relancez."
        )
    missing = pending(connection)
    if missing:
        raise NotMigrated(
            f"la base n'est pas à jour ({len(missing)} migration(s) à appliquer, dont "
            f"{missing[0]}). Lancez « ronde manage migrate » une fois (un seul serveur à la "
            "fois suffit), puis relancez."
        )


def migrate(**options: Any) -> None:
    """``migrate`` under the lock (Ronde's own ``migrate`` command takes it)."""
    from django.core.management import call_command

    call_command("migrate", **options)


def migrate_if_needed() -> None:
    """Migrate the default database if it lacks migrations (the command line's first use of
    a fresh database), under the lock; nothing when it is up to date."""
    from django.db import connection

    if pending(connection):
        migrate(verbosity=0)
