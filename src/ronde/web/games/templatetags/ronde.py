"""Template filters: character names in the active language, plain rendering of values."""

from __future__ import annotations

from typing import Any

from django import template
from django.utils.html import escape, format_html
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext as gettext_now

from ronde.engine.names import BY_ID

register = template.Library()


@register.filter
def character(cid: object) -> str:
    """The French name of a character id."""
    if cid is None:
        return ""
    row = BY_ID.get(str(cid))
    if row is None:
        return str(cid)
    return row.fr


@register.filter
def status(code: object) -> str:
    """A trial's status in French."""
    from ..labels import trial_status

    return trial_status(code)


@register.filter
def fr(text: object) -> str:
    """An engine text with any identifier it quotes put in French (game masters' to-do)."""
    from ..labels import humanize_all

    return humanize_all(str(text))


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


def _options(choices: list[tuple[Any, Any]], selected: Any, empty: str) -> str:
    chosen = "" if selected is None else str(selected)
    parts = [f'<option value="">{escape(empty)}</option>']
    for value, label in choices:
        mark = " selected" if str(value) == chosen else ""
        parts.append(f'<option value="{escape(value)}"{mark}>{escape(label)}</option>')
    return "".join(parts)


@register.simple_tag
def arg_field(f: dict[str, Any], prefix: str, values: Any) -> SafeString:
    """One argument of an action form (see ``vocabulary.Arg``): a checkbox, one or two
    ``<select>``, a text area or a text input, with its label."""
    a = f["arg"]
    ident = f"{prefix}-{a.name}"
    value = values.get(a.name) if hasattr(values, "get") else None
    required = " required" if a.required else ""
    label = format_html('<label for="{}">{}</label>', ident, a.label)
    choices = f.get("choices")
    if a.kind == "bool":
        checked = " checked" if value else ""
        return format_html(
            '<label class="check"><input type="checkbox" name="{}" id="{}"{}> {}</label><br>',
            a.name,
            ident,
            mark_safe(checked),
            a.label,
        )
    if a.kind == "accused":
        second = gettext_now("Second accusé (Décorateurs)")
        return mark_safe(
            f'{label}<select name="{escape(a.name)}" id="{escape(ident)}"{required}>'
            f"{_options(choices or [], value, '—')}</select> "
            f'<select name="{escape(a.name)}2" aria-label="{escape(second)}">'
            f"{_options(choices or [], None, gettext_now('(second accusé)'))}</select>"
        )
    if choices is not None:
        return mark_safe(
            f'{label}<select name="{escape(a.name)}" id="{escape(ident)}"{required}>'
            f"{_options(choices, value, '—')}</select>"
        )
    if a.kind in ("textarea", "characters"):
        return mark_safe(
            f'{label}<textarea name="{escape(a.name)}" id="{escape(ident)}"{required}>'
            f"{escape(value or '')}</textarea>"
        )
    kind = "number" if a.kind == "int" else "text"
    return mark_safe(
        f'{label}<input type="{kind}" name="{escape(a.name)}" id="{escape(ident)}" '
        f'value="{escape(value or "")}"{required}>'
    )


@register.simple_tag
def csrf_slot() -> SafeString:
    """A CSRF hidden input that may sit in a cached fragment (filled in per response by
    :class:`~ronde.web.games.middleware.CsrfSlotMiddleware`)."""
    from ..middleware import CSRF_SLOTS

    return mark_safe(CSRF_SLOTS[0].decode())


@register.filter
def template_name(name: object) -> str:
    """A forum template's French name (never its file name)."""
    from ..labels import template_name as french  # labels imports the vocabulary: lazily

    return french(name)
