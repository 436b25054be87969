"""``ronde tick``: apply every engine timer due by now, in every game (for a cron)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.core.management.base import BaseCommand
from django.utils import timezone

from ronde.web.games import notify, service
from ronde.web.games.models import FormSubmission, Game


class Command(BaseCommand):
    help = "Applique les échéances dues (procès expirés, fins de journée) de chaque partie."

    def handle(self, *args: Any, **options: Any) -> None:
        total = 0
        for game in Game.objects.filter(started_at__isnull=False):
            fired = service.tick(game)
            total += len(fired)
            if fired:
                self.stdout.write(f"{game.slug} : {len(fired)} événement(s)")
        self.stdout.write(f"{total} événement(s) enregistré(s).")
        # notifications: the reminders due, then everything waiting in the outbox
        written = notify.remind()
        sent = notify.send_due(limit=10_000)
        if written or sent:
            self.stdout.write(f"{written} notification(s) écrite(s), {sent} envoyée(s).")
        # one-time form tokens older than a week cannot be re-submitted by anyone's browser
        FormSubmission.objects.filter(created_at__lt=timezone.now() - timedelta(days=7)).delete()
