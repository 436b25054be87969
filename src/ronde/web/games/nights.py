"""What fired at the last day change ("Cette nuit") and what will fire at the next one
if nothing else is recorded ("À minuit"), for the game masters' dashboard.

The forecast advances a private copy of the game (``Game.fork``: its state copied,
its immutable events shared) to the next midnight: nothing is written, the stored game
is not touched. Both reads cost about the same whatever the log's length.
"""

from __future__ import annotations

import bisect
import threading
from dataclasses import dataclass
from datetime import date, datetime
from typing import TYPE_CHECKING

from ronde.engine import events as ev
from ronde.engine.clock import LAST_DAY, day_start, format_time
from ronde.engine.names import french_name

from . import labels, service
from .describe import describe

if TYPE_CHECKING:  # (the type only: the web reaches the engine's game through the service)
    from ronde.engine.game import Game as EngineGame


@dataclass(frozen=True)
class Line:
    """One thing that fired: its game time, its kind (``unmasked``, ``trial``,
    ``message``, ``points``, ``other``) and French text."""

    time: str
    kind: str
    text: str


_QUIET = (ev.DayClosed, ev.CutoffPassed, ev.CharacterFact)


def _line(start: date, e: ev.Event) -> Line | None:
    when = format_time(start, e.at)
    match e:
        case ev.PlayerUnmasked():
            return Line(when, "unmasked", describe(e))
        case ev.TrialEnded():
            status = labels.trial_status(e.status)
            return Line(when, "trial", f"Procès n°{e.trial} : {status}.")
        case ev.MessageSent():
            if e.kind == "role_reveal":
                return None
            if e.public or not e.to:
                return Line(when, "message", f"Annonce publique : {e.text}")
            return Line(when, "message", f"À envoyer à {', '.join(e.to)} : {e.text}")
        case ev.PointsAwarded():
            return Line(when, "points", describe(e))
        case ev.IdentityLearned():
            text = f"{e.player} apprend que {e.other} est {french_name(e.character)}."
            return Line(when, "message", text)
    if isinstance(e, _QUIET):
        return None
    return Line(when, "other", describe(e))


def last_night(eng: EngineGame) -> tuple[int, list[Line]]:
    """The day that began last (0 before J2) and what fired at its midnight."""
    g = eng.state
    day = g.day()
    if day < 2 or g.clock is None:
        return 0, []
    midnight = day_start(g.start, day)
    log = eng.log
    # (the log is in time order: its midnight found by bisection, whatever its length)
    i = bisect.bisect_left(log, midnight, lo=1, key=lambda e: e.at)
    out = []
    while i < len(log) and log[i].at == midnight:
        if (line := _line(g.start, log[i])) is not None:
            out.append(line)
        i += 1
    return day, _ordered(out)


_ORDER = {"unmasked": 0, "trial": 1, "points": 2, "message": 3, "other": 4}


def _ordered(lines: list[Line]) -> list[Line]:
    """Unmaskings first, then trials, points and messages (each in time order)."""
    return sorted(lines, key=lambda x: (x.time, _ORDER.get(x.kind, 9)))


_cache: dict[tuple[int, str], tuple[datetime | None, list[Line]]] = {}
_lock = threading.Lock()


def next_midnight(eng: EngineGame, key: tuple[int, str] | None = None) -> tuple[int, list[Line]]:
    """The day that ends at the next midnight, and what the engine would record until
    then (that midnight included) if nothing else is recorded. ``key`` (game id and
    version) caches the forecast."""
    g = eng.state
    if g.game_ended or g.clock is None:
        return 0, []
    day = max(g.day(), 0)
    if day > LAST_DAY:
        return 0, []
    midnight = day_start(g.start, max(day, 1) if day < 1 else day + 1)
    if key is not None:
        with _lock:
            hit = _cache.get(key)
        if hit is not None and hit[0] == midnight:
            return day, hit[1]
    copy = service.replayed(eng)
    fired = copy.advance(midnight)
    lines = _ordered([line for e in fired if (line := _line(g.start, e)) is not None])
    if key is not None:
        with _lock:
            if len(_cache) > 64:
                _cache.clear()
            _cache[key] = (midnight, lines)
    return day, lines
