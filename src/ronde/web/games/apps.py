"""App configuration."""

from __future__ import annotations

import contextlib
import os
from typing import Any

from django.apps import AppConfig
from django.db.backends.signals import connection_created

#: the SQLite files already made private by this process
_PRIVATE: set[str] = set()


def private_sqlite(sender: Any, connection: Any, **kwargs: Any) -> None:
    """An SQLite database holds every secret of every game, the password hashes and the
    sessions: readable by its owner only (0600), whatever the umask, as the secret key
    is. SQLite gives its WAL and shared-memory files the database's own mode."""
    if connection.vendor != "sqlite":
        return
    name = str(connection.settings_dict.get("NAME") or "")
    if not name or name in _PRIVATE or name == ":memory:" or name.startswith("file:"):
        return
    for suffix in ("", "-wal", "-shm"):
        with contextlib.suppress(OSError):  # absent yet, or not ours: nothing to do
            os.chmod(f"{name}{suffix}", 0o600)
    if os.path.exists(name):
        _PRIVATE.add(name)


class GamesConfig(AppConfig):
    name = "ronde.web.games"
    label = "games"
    verbose_name = "Ronde"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        connection_created.connect(private_sqlite, dispatch_uid="ronde-private-sqlite")
        from django.contrib.auth.signals import user_logged_out

        from .views_notify import retire_on_logout

        user_logged_out.connect(retire_on_logout, dispatch_uid="ronde-push-on-logout")
