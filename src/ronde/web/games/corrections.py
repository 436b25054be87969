"""Corrections by replay: rebuild a game from the corrected instant, diff, strike.

Striking a recorded action, or recording one before the last event, rebuilds the
game from that instant only: the recorded events before it are kept as they are
(replayed into a snapshot of the game at that instant, never decided again by
today's code), and only the recorded actions at or after it are executed again,
in the order of their UTC instants (the autumn's repeated hour included), timers
in between. The result is compared with the current log; confirmed, it becomes a
new generation that shares its unchanged beginning with the previous one (only
the rest is appended). Nothing is ever deleted.

Every function here runs inside the caller's transaction, the game row locked.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime
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


#: the order of an action not saved yet among those recorded at the same instant: after
#: them all (a saved action's order is its row id)
LAST = 1 << 62


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

    def key(self) -> tuple[datetime, int]:
        """Its place among the actions replayed: its UTC instant (never Paris wall time,
        which repeats an hour in autumn), then the order it was recorded in."""
        return self.at.astimezone(UTC), self.order


@dataclass
class Rebuilt:
    """The game rebuilt from an instant: the current log's first ``kept`` events as
    they were, then ``events``."""

    eng: EngineGame
    kept: int
    #: (event, planned action or None for timers) after the kept ones
    events: list[tuple[EngineEvent, Planned | None]]
    refused: dict[int, RuleViolation]  # id(planned) -> refusal
    #: the actions executed again (their outcome may change)
    planned: list[Planned]


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
    planned.order = saved.pk
    return saved


def planned_actions(game: Game, *, since: datetime, without: Action | None = None) -> list[Planned]:
    """The recorded actions not struck out at or after ``since``, in the order they are
    replayed."""
    out = []
    rows = Action.objects.filter(game=game, struck=False, at__gte=since)
    for a in rows.select_related("recorded_by"):
        if without is not None and a.pk == without.pk:
            continue
        out.append(Planned(a.action, a.by, a.at.astimezone(PARIS), dict(a.args), a, a.pk))
    out.sort(key=Planned.key)
    return out


def cut(base: EngineGame, t: datetime) -> int:
    """How many events of ``base``'s log come before ``t``: the first event at or after
    ``t`` and everything after it are rebuilt (``GameCreated`` is always kept)."""
    t = t.astimezone(UTC)
    log = base.log
    for i in range(1, len(log)):
        if log[i].at >= t:
            return i
    return len(log)


def snapshot(row: Game, base: EngineGame, kept: int) -> EngineGame:
    """The game after the first ``kept`` events of the current log: those events
    replayed (nothing decided or drawn again), with the commands of the last counting
    day counted as they were recorded (they key the draws of identical ones after them,
    ``Game.count_command``)."""
    g = base.state
    log = base.log
    first = kept
    if kept > 1:
        day_start = g.day_start(g.day(log[kept - 1].at))
        while first > 1 and log[first - 1].at >= day_start:
            first -= 1
    actions: list[int | None] = [None] * first
    actions += [a for _seq, a in eventstore.rows_between(row, first, kept)]
    if len(actions) != kept:  # (not the stored log's shape: read it whole)
        actions = [a for _pk, _seq, a, _d in eventstore.log_data(row)][:kept]
    ids = eventstore.day_actions(base, actions, kept)
    return replay(log[:kept], eventstore.commands_of(row, ids))


def rebuild(
    row: Game, base: EngineGame, t: datetime, planned: list[Planned], until: datetime
) -> Rebuilt:
    """The game rebuilt from ``t``: the events before ``t`` kept, then ``planned`` (the
    actions at or after ``t``) executed in UTC order, timers in between, then the
    timers due by ``until``."""
    kept = cut(base, t)
    eng = snapshot(row, base, kept)
    out: list[tuple[EngineEvent, Planned | None]] = []
    refused: dict[int, RuleViolation] = {}
    for p in sorted(planned, key=Planned.key):
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
    return Rebuilt(eng, kept, out, refused, planned)


def diff(old: EngineGame, new: Rebuilt) -> Diff:
    """What the rebuilt game changes: events removed and added after the kept ones,
    actions executed again that change fate."""
    tail = old.log[new.kept :]
    before = Counter(canonical(e) for e in tail)
    after = Counter(canonical(e) for e, _ in new.events)
    removed_keys = before - after
    added_keys = after - before
    d = Diff()
    for e in tail:
        k = canonical(e)
        if removed_keys[k] > 0:
            removed_keys[k] -= 1
            d.removed.append(e)
    for e, _ in new.events:
        k = canonical(e)
        if added_keys[k] > 0:
            added_keys[k] -= 1
            d.added.append(e)
    for p in new.planned:
        a = p.stored
        if a is None:
            continue
        rv = new.refused.get(id(p))
        if rv is not None and a.outcome == "applied":
            d.newly_refused.append((a, rv.message))
        elif rv is None and a.outcome == "refused":
            d.newly_applied.append(a)
    return d


def write_generation(row: Game, base: EngineGame, rebuilt: Rebuilt, t: datetime) -> list[Any]:
    """Store the rebuilt log as the next generation: only what follows the longest
    prefix it shares with the current log is written. Returns the appended rows."""
    shared = rebuilt.kept
    for old, (new, _p) in zip(base.log[rebuilt.kept :], rebuilt.events, strict=False):
        if canonical(old) != canonical(new):
            break
        shared += 1
    row.generation += 1
    Generation.objects.create(game=row, number=row.generation, shared=shared, created_at=t)
    items = []
    for e, p in rebuilt.events[shared - rebuilt.kept :]:
        a = p.stored if p is not None else None
        items.append((e, a, a.recorded_by if a is not None else None))
    rows = eventstore.append(row, items, at=t)
    for p in rebuilt.planned:
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
) -> tuple[Outcome, Rebuilt | None]:
    """Rebuild the game with ``planned`` inserted before the last event (nothing is
    written), from its instant. Returns the outcome (refused, or a preview to confirm)
    and, when it may be written, the rebuilt game.

    Raises:
        eventstore.Conflict: the game changed since the preview being confirmed.
    """
    planned.order = LAST  # (after the actions recorded at the same instant)
    everything = [*planned_actions(row, since=planned.at), planned]
    rebuilt = rebuild(row, base, planned.at, everything, t)
    rv = rebuilt.refused.get(id(planned))
    if rv is not None:
        return Outcome(False, rv.code, rv.message), None
    d = diff(base, rebuilt)
    if d.destructive and confirm != row.version:
        if confirm is not None:
            raise eventstore.Conflict()
        return Outcome(False, preview=d, token=row.version), None
    own = [e for e, p in rebuilt.events if p is planned]
    return Outcome(True, events=own, preview=d), rebuilt


def preview_strike(game: Game, base: EngineGame, action: Action, t: datetime) -> Outcome:
    """What striking ``action`` would change (nothing is written)."""
    planned = planned_actions(game, since=action.at, without=action)
    rebuilt = rebuild(game, base, action.at, planned, t)
    return Outcome(True, preview=diff(base, rebuilt), token=game.version)


def strike_rebuild(
    row: Game, base: EngineGame, target: Action, t: datetime
) -> tuple[Diff, Rebuilt]:
    """The game rebuilt without ``target`` (from its instant) and the difference it
    makes."""
    planned = planned_actions(row, since=target.at, without=target)
    rebuilt = rebuild(row, base, target.at, planned, t)
    return diff(base, rebuilt), rebuilt
