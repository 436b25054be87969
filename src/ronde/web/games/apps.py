"""App configuration."""

from __future__ import annotations

from django.apps import AppConfig


class GamesConfig(AppConfig):
    name = "ronde.web.games"
    label = "games"
    verbose_name = "Ronde"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from pathlib import Path

        from django.conf import settings

        from .i18n import ensure_compiled

        ensure_compiled(Path(p) for p in settings.LOCALE_PATHS)
