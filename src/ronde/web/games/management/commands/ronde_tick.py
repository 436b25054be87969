"""``ronde tick``: apply every engine timer due by now, in every game (for a cron).

A game whose timers cannot be applied (a busy lock, a stored game the engine cannot
read) does not stop the others: it is named, with its problem, on the error output
(its traceback in the log, at the debug level), and the command ends in error after
ticking the rest.
"""

from __future__ import annotations

import logging
from datetime import timedelta
from typing import Any

from django.core.management.base import BaseCommand, CommandError
from django.utils import timezone

from ronde.web.games import busy, notify, service
from ronde.web.games.models import FormSubmission, Game

log = logging.getLogger("ronde.tick")


class Command(BaseCommand):
    help = "Applique les échéances dues (procès expirés, fins de journée) de chaque partie."

    def handle(self, *args: Any, **options: Any) -> None:
        total = 0
        failed: list[str] = []
        for game in Game.objects.filter(started_at__isnull=False).order_by("pk"):
            try:
                fired = service.tick(game)
            except Exception as exc:  # (one game's problem never stops the others)
                log.debug("ronde tick : la partie %s a échoué", game.slug, exc_info=True)
                problem = busy.MESSAGE if busy.is_busy(exc) else f"{type(exc).__name__} : {exc}"
                self.stderr.write(f"{game.slug} : échec, rien d'enregistré ({problem})")
                failed.append(game.slug)
                continue
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
        if failed:
            raise CommandError(
                f"{len(failed)} partie(s) en échec : {', '.join(failed)} (les autres sont à jour)."
            )
