"""Django's ``migrate``, holding Ronde's migration lock for its whole run
(:mod:`ronde.web.migrating`): two of them at once never apply a migration twice. With
``RONDE_CACHE_URL=db://TABLE`` it also makes the cache's table."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.management import call_command
from django.core.management.commands.migrate import Command as DjangoMigrate
from django.db import connections

from ronde.web.migrating import migration_lock


class Command(DjangoMigrate):
    def handle(self, *args: Any, **options: Any) -> None:
        database = options.get("database") or "default"
        with migration_lock(connections[database]):
            super().handle(*args, **options)
            if any(
                str(c.get("BACKEND", "")).endswith("DatabaseCache")
                for c in settings.CACHES.values()
            ):
                call_command("createcachetable", database=database, verbosity=0)
