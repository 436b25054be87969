"""Template helpers of the game masters' console: game times (J5 14:04, the full date
on hover) and the French label of an action."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django import template
from django.utils import formats
from django.utils.html import format_html
from django.utils.safestring import SafeString

from ronde.engine.clock import PARIS

from .. import labels, service, vocabulary

register = template.Library()


def _time(game: Any, t: datetime) -> SafeString:
    local = t.astimezone(PARIS)
    full = formats.date_format(local, "l j F Y, H:i")
    return format_html(
        '<time datetime="{}" title="{}">{}</time>',
        local.isoformat(),
        full,
        vocabulary.game_time_label(game.start, t),
    )


@register.filter
def gametime(t: datetime | None, game: Any) -> SafeString | str:
    """``J5 14:04`` for an instant of ``game``, with the full date on hover."""
    if t is None:
        return ""
    return _time(game, t)


@register.simple_tag
def game_now(game: Any) -> SafeString:
    """The game's time now (the header of the console)."""
    return _time(game, service.game_now(game))


@register.filter
def action_label(name: str) -> str:
    """The French label of a vocabulary action (never its id)."""
    return labels.action_label(name)


@register.simple_tag(takes_context=True)
def to_post_left(context: Any, game: Any) -> dict[str, int]:
    """What is left in "À poster" (the navigation's count): today's and earlier days'."""
    if not getattr(game, "started", False):
        return {"today": 0, "earlier": 0}
    from .. import posting  # (posting reads the forum's rendering: only where shown)

    request = context.get("request")
    mine, earlier = posting.left(game, getattr(request, "user", None))
    return {"today": mine, "earlier": earlier}
