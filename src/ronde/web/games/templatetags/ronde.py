"""Template filters: character names in the active language, plain rendering of values."""

from __future__ import annotations

from typing import Any

from django import template
from django.utils.translation import get_language
from django.utils.translation import gettext_lazy as _

from ronde.engine.names import BY_ID

register = template.Library()


@register.filter
def character(cid: object) -> str:
    """The name of a character id in the active language (French by default)."""
    if cid is None:
        return ""
    row = BY_ID.get(str(cid))
    if row is None:
        return str(cid)
    return row.en if (get_language() or "fr").startswith("en") else row.fr


STATUSES = {
    "open": _("ouvert"),
    "just": _("juste"),
    "unjust": _("injuste"),
    "lapsed": _("caduc"),
    "cancelled": _("annulé"),
    "void": _("sans objet"),
}


@register.filter
def status(code: object) -> str:
    """A trial's status in the active language."""
    return str(STATUSES.get(str(code), str(code)))


@register.filter
def plain(value: Any) -> str:
    """Lists, dicts and booleans as short French text."""
    if isinstance(value, bool):
        return "oui" if value else "non"
    if isinstance(value, dict):
        return " ; ".join(f"{k} : {plain(v)}" for k, v in value.items())
    if isinstance(value, list | tuple | set):
        return ", ".join(plain(v) for v in value) if value else "—"
    if value is None:
        return "—"
    return str(value)


@register.filter
def get(mapping: Any, key: Any) -> Any:
    """``mapping[key]`` or ``None``."""
    try:
        return mapping.get(key)
    except AttributeError:
        return None


@register.filter
def is_list(value: Any) -> bool:
    return isinstance(value, list | tuple)


@register.filter
def is_dict(value: Any) -> bool:
    return isinstance(value, dict)
