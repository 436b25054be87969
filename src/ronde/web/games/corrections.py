"""Corrections by replay: rebuild a game from its recorded actions, diff, strike.

Striking a recorded action, or recording one before the last event, rebuilds the
game from ``GameCreated`` and the recorded actions in time order (timers fire
again in between) and compares the result with the current log; confirmed, the
rebuilt log becomes a new generation that shares its unchanged beginning with the
previous one (only the rest is appended). Nothing is ever deleted.

Every function here runs inside the caller's transaction, the game row locked.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from ronde.engine.clock import PARIS
from ronde.engine.commands import Command
from ronde.engine.errors import RuleViolation
from ronde.engine.events import Event as EngineEvent
from ronde.engine.game import Game as EngineGame

from . import eventstore
from .eventstore import User, canonical, replay
from .models import Action, Game, Generation, Request


@dataclass
class Diff:
    """The difference a correction makes: events removed and added, actions now refused."""

    removed: list[EngineEvent] = field(default_factory=list)
    added: list[EngineEvent] = field(default_factory=list)
    newly_refused: list[tuple[Action, str]] = field(default_factory=list)
    newly_applied: list[Action] = field(default_factory=list)

    @property
    def destructive(self) -> bool:
        """Whether something already recorded changes (not just additions)."""
        return bool(self.removed or self.newly_refused)


@dataclass
class Outcome:
    """What a write did."""

    ok: bool
    code: str = ""
    message: str = ""
    events: list[EngineEvent] = field(default_factory=list)
    action: Action | None = None
    #: how many events others recorded between what the writer saw and his write
    moved: int = 0
    #: a correction that needs confirmation (nothing was written)
    preview: Diff | None = None
    token: str = ""


@dataclass
class Planned:
    """An action to (re)play: a stored one or a new one not saved yet."""

    action: str
    by: str
    at: datetime
    args: dict[str, Any]
    stored: Action | None = None
    order: int = 0

    def command(self) -> Command:
        return Command(self.action, self.by, self.at.astimezone(PARIS), dict(self.args))


@dataclass
class Rebuilt:
    eng: EngineGame
    #: (event, planned action or None for creation and timers)
    events: list[tuple[EngineEvent, Planned | None]]
    refused: dict[int, RuleViolation]  # id(planned) -> refusal


def save_action(
    game: Game,
    planned: Planned,
    user: User | None,
    note: str,
    request: Request | None,
    t: datetime,
) -> Action:
    saved = Action.objects.create(
        game=game,
        action=planned.action,
        by=planned.by,
        at=planned.at,
        args=eventstore.args_json(planned.args),
        note=note,
        recorded_by=eventstore.user_or_none(user),
        recorded_at=t,
        request=request,
    )
    planned.stored = saved
    return saved


def planned_actions(game: Game, *, without: Action | None = None) -> list[Planned]:
    """The recorded actions not struck out, in the order they are replayed."""
    out = []
    rows = Action.objects.filter(game=game, struck=False).select_related("recorded_by")
    for a in rows.order_by("at", "id"):
        if without is not None and a.pk == without.pk:
            continue
        out.append(Planned(a.action, a.by, a.at.astimezone(PARIS), dict(a.args), a, a.pk))
    return out


def rebuild(base: EngineGame, planned: list[Planned], until: datetime) -> Rebuilt:
    """Replay ``GameCreated`` and ``planned`` in time order, timers in between, then
    the timers due by ``until``."""
    created = base.log[0]
    eng = replay([created])
    out: list[tuple[EngineEvent, Planned | None]] = [(created, None)]
    refused: dict[int, RuleViolation] = {}
    for p in sorted(planned, key=lambda p: (p.at, p.order)):
        for e in eng.advance(p.at):
            out.append((e, None))
        try:
            own = eng.execute(p.command())
        except RuleViolation as rv:
            refused[id(p)] = rv
            continue
        out.extend((e, p) for e in own)
    for e in eng.advance(until):
        out.append((e, None))
    return Rebuilt(eng, out, refused)


def diff(old: EngineGame, new: Rebuilt, planned: list[Planned]) -> Diff:
    before = Counter(canonical(e) for e in old.log)
    after = Counter(canonical(e) for e, _ in new.events)
    removed_keys = before - after
    added_keys = after - before
    d = Diff()
    for e in old.log:
        k = canonical(e)
        if removed_keys[k] > 0:
            removed_keys[k] -= 1
            d.removed.append(e)
    for e, _ in new.events:
        k = canonical(e)
        if added_keys[k] > 0:
            added_keys[k] -= 1
            d.added.append(e)
    for p in planned:
        a = p.stored
        if a is None:
            continue
        rv = new.refused.get(id(p))
        if rv is not None and a.outcome == "applied":
            d.newly_refused.append((a, rv.message))
        elif rv is None and a.outcome == "refused":
            d.newly_applied.append(a)
    return d


def write_generation(
    row: Game,
    base: EngineGame,
    rebuilt: Rebuilt,
    planned: list[Planned],
    t: datetime,
) -> list[Any]:
    """Store the rebuilt log as the next generation: only what follows the longest
    prefix it shares with the current log is written. Returns the appended rows."""
    shared = 0
    for old, (new, _p) in zip(base.log, rebuilt.events, strict=False):
        if canonical(old) != canonical(new):
            break
        shared += 1
    row.generation += 1
    Generation.objects.create(game=row, number=row.generation, shared=shared, created_at=t)
    items = []
    for e, p in rebuilt.events[shared:]:
        a = p.stored if p is not None else None
        items.append((e, a, a.recorded_by if a is not None else None))
    rows = eventstore.append(row, items, at=t)
    for p in planned:
        if p.stored is None:
            continue
        rv = rebuilt.refused.get(id(p))
        outcome, message = ("refused", rv.message) if rv else ("applied", "")
        if (p.stored.outcome, p.stored.message) != (outcome, message):
            p.stored.outcome, p.stored.message = outcome, message
            p.stored.save(update_fields=["outcome", "message"])
    return rows


def insert_past(
    row: Game,
    base: EngineGame,
    planned: Planned,
    t: datetime,
    *,
    confirm: str | None,
) -> tuple[Outcome, Rebuilt | None, list[Planned]]:
    """Rebuild the game with ``planned`` inserted before the last event (nothing is
    written). Returns the outcome (refused, or a preview to confirm) and, when it may
    be written, the rebuilt game and every planned action.

    Raises:
        eventstore.Conflict: the game changed since the preview being confirmed.
    """
    others = planned_actions(row)
    planned.order = (max((p.order for p in others), default=0)) + 1
    everything = [*others, planned]
    rebuilt = rebuild(base, everything, t)
    rv = rebuilt.refused.get(id(planned))
    if rv is not None:
        return Outcome(False, rv.code, rv.message), None, everything
    d = diff(base, rebuilt, everything)
    if d.destructive and confirm != row.version:
        if confirm is not None:
            raise eventstore.Conflict()
        return Outcome(False, preview=d, token=row.version), None, everything
    own = [e for e, p in rebuilt.events if p is planned]
    return Outcome(True, events=own, preview=d), rebuilt, everything


def preview_strike(game: Game, base: EngineGame, action: Action, t: datetime) -> Outcome:
    """What striking ``action`` would change (nothing is written)."""
    planned = planned_actions(game, without=action)
    rebuilt = rebuild(base, planned, t)
    return Outcome(True, preview=diff(base, rebuilt, planned), token=game.version)


def strike_rebuild(
    row: Game, base: EngineGame, target: Action, t: datetime
) -> tuple[Diff, Rebuilt, list[Planned]]:
    """The game rebuilt without ``target`` and the difference it makes."""
    planned = planned_actions(row, without=target)
    rebuilt = rebuild(base, planned, t)
    return diff(base, rebuilt, planned), rebuilt, planned
