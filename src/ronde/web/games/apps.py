"""App configuration."""

from __future__ import annotations

from django.apps import AppConfig


class GamesConfig(AppConfig):
    name = "ronde.web.games"
    label = "games"
    verbose_name = "Ronde"
    default_auto_field = "django.db.models.BigAutoField"
