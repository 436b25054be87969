"""``{% etwin_enabled as etwin %}``: whether « Se connecter avec Eternaltwin » is offered
(its origin, key and secret are set)."""

from __future__ import annotations

from django import template

from .. import eternaltwin

register = template.Library()


@register.simple_tag
def etwin_enabled() -> bool:
    return eternaltwin.enabled()
