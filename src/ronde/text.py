"""Text from players and game masters, made safe to keep and to print.

Control characters (C0 and C1, but tab and newline) are removed when text enters Ronde:
by the web's middleware (every form and request), by the command line (its arguments
and the files it reads) and by the service before an action is recorded. A carriage
return before a newline is dropped with it (a page copied on Windows). What the command
line prints of stored text goes through :func:`printable` (Rich markup escaped, control
characters removed again, for a database written before this rule).
"""

from __future__ import annotations

import re
from typing import Any

#: C0 (but tab and newline), DEL and C1: escape sequences (window title, clipboard,
#: cursor moves) and the rest of what a terminal or a forum page does not show as text
CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def clean(text: str) -> str:
    """``text`` without control characters (``\\r\\n`` and a lone ``\\r`` become ``\\n``)."""
    if not CONTROL.search(text):
        return text
    return CONTROL.sub("", text.replace("\r\n", "\n").replace("\r", "\n"))


def clean_value(value: Any) -> Any:
    """:func:`clean` through strings, lists and dictionaries (keys too)."""
    if isinstance(value, str):
        return clean(value)
    if isinstance(value, list):
        return [clean_value(v) for v in value]
    if isinstance(value, tuple):
        return tuple(clean_value(v) for v in value)
    if isinstance(value, dict):
        return {clean_value(k): clean_value(v) for k, v in value.items()}
    return value


def printable(value: object) -> str:
    """Stored text for Rich: markup escaped (``[/quote]`` is printed, never read as a tag),
    control characters removed."""
    # (lazy: Rich is imported by the command line only)
    from rich.markup import escape

    return escape(clean(str(value)))
