"""A game's "now": the wall clock, or the game's own clock (``manual`` games).

The engine never reads a clock; this module is where the web app and the command
line get the instant of a write. A ``wall`` game lives in real time: an action
later than now is refused. A ``manual`` game (rehearsals, the demo, tutorials,
tests) has its own clock, stored in ``Game.clock_at``: ``ronde advance`` moves it,
and an action recorded later than it advances it.

Whatever the clock, an instant before the game's creation or more than
:data:`GRACE` after the end of play is refused with a clear message (a typo in
the year must not end a game for ever).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta

from django.utils import timezone

from ronde.engine.clock import PARIS, format_time
from ronde.engine.errors import RuleViolation
from ronde.engine.game import Game as EngineGame

from .models import Game

#: how long after the end of play an instant is still accepted
GRACE = timedelta(days=3)

_frozen: datetime | None = None


def now() -> datetime:
    """The wall clock in Europe/Paris (or the frozen one, for tests)."""
    t = _frozen if _frozen is not None else timezone.now()
    return t.astimezone(PARIS)


@contextmanager
def frozen_clock(t: datetime) -> Iterator[None]:
    """Freeze :func:`now` at ``t`` inside the block."""
    global _frozen
    before = _frozen
    _frozen = t
    try:
        yield
    finally:
        _frozen = before


def set_clock(t: datetime | None) -> None:
    """Freeze :func:`now` at ``t`` (``None``: the real clock again)."""
    global _frozen
    _frozen = t


def is_manual(game: Game) -> bool:
    return game.clock == Game.MANUAL


def game_now(game: Game) -> datetime:
    """The game's now: its own clock for a ``manual`` game, else the wall clock."""
    if is_manual(game):
        if game.clock_at is not None:
            return game.clock_at.astimezone(PARIS)
        return now()
    return now()


def describe(game: Game) -> str:
    """Which kind of clock, in French (shown in the console): ``Game.CLOCKS``'s label."""
    return str(dict(Game.CLOCKS)[Game.MANUAL if is_manual(game) else Game.WALL])


def bounds(eng: EngineGame) -> tuple[datetime, datetime]:
    """The earliest and latest instants a game accepts."""
    g = eng.state
    return eng.log[0].at, g.end_of_play() + GRACE


def check(game: Game, eng: EngineGame, t: datetime) -> None:
    """Refuse an instant outside the game (``invalid_argument``, French message).

    A ``wall`` game also refuses an instant later than now (a ``manual`` game
    advances its clock instead: see :func:`advance_to`).
    """
    g = eng.state
    first, last = bounds(eng)
    if t < first:
        raise RuleViolation(
            "invalid_argument",
            f"Heure antérieure à la création de la partie ({format_time(g.start, first)}).",
        )
    if t > last:
        raise RuleViolation(
            "invalid_argument",
            f"Heure trop tardive : plus de 3 jours après la fin du jeu "
            f"({format_time(g.start, g.end_of_play())}).",
        )
    if not is_manual(game) and t > now():
        raise RuleViolation(
            "invalid_argument",
            f"Heure dans le futur ({format_time(g.start, t)}) : il est "
            f"{format_time(g.start, now())}.",
        )


def advance_to(game: Game, t: datetime) -> bool:
    """Move a ``manual`` game's clock to ``t`` if it is later (not saved); return
    whether it moved."""
    if not is_manual(game):
        return False
    if game.clock_at is None or t > game.clock_at:
        game.clock_at = t
        return True
    return False
