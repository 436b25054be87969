"""What the game masters must do: to-do items as data (kind, player, deadline, what
happens if it is missed, the action that settles it with its arguments prefilled).

Pure data, no rules: character modules and :mod:`ronde.engine.views` build them; the
console renders them (each with its form) and the command line prints their
French ``text``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any

from .clock import day_start

#: kinds of items, in the order a game master's day takes them when deadlines tie
KINDS: tuple[str, ...] = (
    "announce",  # publish a verdict
    "setup",  # something the game needs (a theme, a model, a secret constraint)
    "send",  # a private message to send
    "ruling",  # the game masters decide (a constraint, an order obeyed)
    "watch",  # a player's duty the engine checks; the game masters keep an eye on it
    "note",  # information
)


@dataclass(frozen=True)
class Todo:
    """One thing to do. ``text`` is French and complete on its own."""

    text: str
    kind: str = "note"
    #: the seat it is about (the view shows the pseudo)
    player: str | None = None
    deadline: datetime | None = None
    #: what happens if nothing is recorded by the deadline (French), "" if nothing
    consequence: str = ""
    #: the vocabulary action that settles it, and its arguments (seats as pseudos)
    action: str | None = None
    args: Mapping[str, Any] = field(default_factory=dict)
    #: for a player's action: who acts (a pseudo)
    by: str | None = None


def day_end(start: date, day: int) -> datetime:
    """The end of day ``day`` (midnight, the start of the next one)."""
    return day_start(start, day + 1)


__all__ = ["KINDS", "Todo", "day_end"]
