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

import gc
import threading
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import orjson
from django.db import connections

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


@dataclass(slots=True)
class Planned:
    """An action to (re)play: a recorded one (its row's ``pk``, who recorded it, its
    fate in the current generation) or a new one not saved yet (``stored`` once saved).
    ``at`` is its instant in any zone (a recorded one's is read in UTC)."""

    action: str
    by: str
    at: datetime
    args: dict[str, Any]
    stored: Action | None = None
    order: int = 0
    pk: int | None = None
    recorder: int | None = None
    outcome: str = "applied"
    message: str = ""
    #: its instant in UTC, when read so (saves a conversion per action of a busy day)
    utc: datetime | None = None

    def row(self, game: Game) -> Action:
        """Its :class:`Action` (made from what was read: no query)."""
        if self.stored is not None:
            return self.stored
        return Action(
            id=self.pk,
            game_id=game.pk,
            action=self.action,
            by=self.by,
            at=self.at,
            args=self.args,
            recorded_by_id=self.recorder,
            outcome=self.outcome,
            message=self.message,
        )

    def command(self) -> Command:
        """Its command, at its UTC instant when known (the engine records UTC: no
        conversion there and back for each action of a busy day)."""
        return Command(self.action, self.by, self.utc or self.at, dict(self.args))

    def key(self) -> tuple[datetime, int]:
        """Its place among the actions replayed: its UTC instant (never Paris wall time,
        which repeats an hour in autumn), then the order it was recorded in."""
        return (self.utc if self.utc is not None else self.at.astimezone(UTC)), self.order


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
    #: how many events after the kept ones it shares with the log it was rebuilt from,
    #: at the start and at the end (:meth:`common`)
    shared: tuple[int, int] | None = None
    #: once written (:func:`write_generation`): the recorded action of each event of
    #: its log, if those of the log it was rebuilt from were known
    actions: list[int | None] | None = None

    def common(self, base: EngineGame) -> tuple[int, int]:
        """How many events after the kept ones this and ``base``'s log share at their
        start, then at their end (computed once: the diff and the writing both read it)."""
        if self.shared is None:
            self.shared = _common(base.log[self.kept :], [e for e, _p in self.events])
        return self.shared


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
    planned.order = planned.pk = saved.pk
    planned.recorder = saved.recorded_by_id
    return saved


def planned_actions(game: Game, *, since: datetime, without: Action | None = None) -> list[Planned]:
    """The recorded actions not struck out at or after ``since`` (:func:`rebuild` puts
    them in the order they are replayed)."""
    skip = None if without is None else without.pk
    out = []
    parse, loads = datetime.fromisoformat, orjson.loads
    for pk, action, by, at, args, recorder, outcome, message in _action_rows(game, since):
        if pk == skip:
            continue
        if isinstance(at, str):
            at = parse(at)
        if at.tzinfo is None:
            at = at.replace(tzinfo=UTC)
        if isinstance(args, str | bytes):  # (the ORM's JSONField decodes it too)
            args = loads(args)
        out.append(Planned(action, by, at, args, None, pk, pk, recorder, outcome, message, at))
    return out


def _action_rows(game: Game, since: datetime) -> list[tuple[Any, ...]]:
    """(id, action, by, at, args, recorded_by_id, outcome, message) of the game's
    recorded actions not struck out at or after ``since``: read by one plain query (a
    correction early in a busy day reads thousands; the ORM's converters cost more than
    the query). ``at`` is UTC (text on SQLite, with its zone), ``args`` JSON: the caller
    converts them as the ORM would."""
    conn = connections[Action.objects.db]
    qn = conn.ops.quote_name
    cols = [qn(c) for c in ("id", "action", "by", "at", "args", "recorded_by_id")]
    cols += [qn("outcome"), qn("message")]
    if conn.vendor == "sqlite":
        # its text, UTC without a zone: the zone appended, read by ``fromisoformat``
        # (not by the driver's slower converter of the column's declared type)
        cols[3] = f"{qn('at')} || '+00:00'"
    sql = (
        f"SELECT {', '.join(cols)} FROM {qn(Action._meta.db_table)} "
        f"WHERE {qn('game_id')} = %s AND {qn('struck')} = %s AND {qn('at')} >= %s"
    )
    with conn.cursor() as cursor:
        cursor.execute(sql, [game.pk, False, conn.ops.adapt_datetimefield_value(since)])
        rows: list[tuple[Any, ...]] = cursor.fetchall()
    return rows


def cut(base: EngineGame, t: datetime) -> int:
    """How many events of ``base``'s log come before ``t``: the first event at or after
    ``t`` and everything after it are rebuilt (``GameCreated`` is always kept)."""
    t = t.astimezone(UTC)
    log = base.log
    for i in range(1, len(log)):
        if log[i].at >= t:
            return i
    return len(log)


# -- the collector paused while a game is rebuilt ------------------------------------------
_paused = 0
_paused_lock = threading.Lock()
_collector_was_on = False


@contextmanager
def collector_paused() -> Iterator[None]:
    """Python's cyclic garbage collector paused while a correction reads, rebuilds and
    writes: a busy day's rebuild makes tens of thousands of objects that live on, and
    each burst of them made the collector walk every object of the process (the held
    games' logs: millions), which doubled a correction of a 50,000-event day. Reference
    counting frees everything else meanwhile; the collector runs again when the last
    correction under way ends (the bound: a correction's few seconds)."""
    global _paused, _collector_was_on
    with _paused_lock:
        if _paused == 0:
            _collector_was_on = gc.isenabled()
            gc.disable()
        _paused += 1
    try:
        yield
    finally:
        with _paused_lock:
            _paused -= 1
            if _paused == 0 and _collector_was_on:
                gc.enable()


# -- the game at the start of a correction's day, kept per game ---------------------------
#: per game: a replay of the first events of its log, up to the start of the day of its
#: last correction (never executed, never counted: each use takes a fork of it)
_day_starts: dict[int, EngineGame] = {}
_day_starts_lock = threading.Lock()
#: games whose replay is kept
DAY_STARTS = 8


def _from_day_start(game_id: int, log: list[EngineEvent], first: int) -> EngineGame:
    """A private game made of ``log[:first]`` replayed. Several corrections of one day
    (the game masters' usual morning) replay the days before it once: the replay is
    kept and forked (a fork costs about the same whatever the log's length). It is
    used only if its log holds the very same event objects as ``log[:first]`` (events
    are immutable; a rebuilt or reloaded log holds new ones): anything else replays."""
    with _day_starts_lock:
        kept = _day_starts.get(game_id)
    if (
        kept is not None
        and len(kept.log) == first
        and all(a is b for a, b in zip(kept.log, log, strict=False))
    ):
        return kept.fork()
    fresh = replay(log[:first])
    with _day_starts_lock:
        _day_starts.pop(game_id, None)
        _day_starts[game_id] = fresh
        while len(_day_starts) > DAY_STARTS:  # (the games corrected least recently)
            del _day_starts[next(iter(_day_starts))]
    return fresh.fork()


def snapshot(row: Game, base: EngineGame, kept: int) -> EngineGame:
    """The game after the first ``kept`` events of the current log: those events
    replayed (nothing decided or drawn again), with the commands of the last counting
    day counted as they were recorded (they key the draws of identical ones after them,
    ``Game.count_earlier``; read from the store only if one of that day draws)."""
    g = base.state
    log = base.log
    if kept <= 1:
        return replay(log[:kept])
    day = g.day(log[kept - 1].at)
    day_start = g.day_start(day)
    first = kept
    while first > 1 and log[first - 1].at >= day_start:
        first -= 1
    eng = _from_day_start(row.pk, log, first)
    eng.replay_more(log[first:kept])
    held = eventstore.actions_of(row.pk, base)
    if held is not None:  # (known: taken now, never by keeping ``base`` alive)
        known = list(dict.fromkeys(a for a in held[first:kept] if a is not None))
        eventstore.count_day(row.pk, eng, day, lambda: known)
    else:
        eventstore.count_day(row.pk, eng, day, lambda: _day_ids(row, first, kept))
    return eng


def _day_ids(row: Game, first: int, kept: int) -> list[int]:
    """The actions of the current log's events ``first`` to ``kept`` (a day's), in
    order, read from the rows. (Only what it needs is kept for it until a draw reads it:
    the rebuilt game keeps it, and a game it kept would keep the one before it, each
    correction's whole engine, to the day's end.)"""
    actions = [a for _seq, a in eventstore.rows_between(row, first, kept)]
    if len(actions) != kept - first:  # (not the stored log's shape: read it whole)
        actions = [a for _pk, _seq, a, _d in eventstore.log_data(row)][first:kept]
    return list(dict.fromkeys(a for a in actions if a is not None))


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
    log = eng.log
    for p in sorted(planned, key=Planned.key):
        before = len(log)  # (``execute`` fires the timers due first: they are no one's)
        try:
            own = eng.execute(p.command())
        except RuleViolation as rv:
            refused[id(p)] = rv
            out.extend((e, None) for e in log[before:])  # (fired timers stay)
            continue
        out.extend((e, None) for e in log[before : len(log) - len(own)])
        out.extend((e, p) for e in own)
    for e in eng.advance(until):
        out.append((e, None))
    return Rebuilt(eng, kept, out, refused, planned)


def _same(a: EngineEvent, b: EngineEvent) -> bool:
    """Whether two events are the same fact: equal as structures, or (an event read back
    from JSON, whose tuples became lists) by their canonical text."""
    return a == b or canonical(a) == canonical(b)


def _common(old: list[EngineEvent], new: list[EngineEvent]) -> tuple[int, int]:
    """How many events ``old`` and ``new`` share at their start, and then at their end."""
    head = 0
    n = min(len(old), len(new))
    while head < n and _same(old[head], new[head]):
        head += 1
    tail = 0
    while tail < n - head and _same(old[-1 - tail], new[-1 - tail]):
        tail += 1
    return head, tail


def diff(game: Game, old: EngineGame, new: Rebuilt) -> Diff:
    """What the rebuilt game changes: events removed and added after the kept ones
    (what both share at the start and at the end of the rebuilt part is skipped
    without encoding it), actions executed again that change fate."""
    was = old.log[new.kept :]
    now = [e for e, _p in new.events]
    head, tail = new.common(old)
    was, now = was[head : len(was) - tail], now[head : len(now) - tail]
    before = Counter(canonical(e) for e in was)
    after = Counter(canonical(e) for e in now)
    removed_keys = before - after
    added_keys = after - before
    d = Diff()
    for e in was:
        k = canonical(e)
        if removed_keys[k] > 0:
            removed_keys[k] -= 1
            d.removed.append(e)
    for e in now:
        k = canonical(e)
        if added_keys[k] > 0:
            added_keys[k] -= 1
            d.added.append(e)
    for p in new.planned:
        if p.pk is None:
            continue
        rv = new.refused.get(id(p))
        if rv is not None and p.outcome == "applied":
            d.newly_refused.append((p.row(game), rv.message))
        elif rv is None and p.outcome == "refused":
            d.newly_applied.append(p.row(game))
    return d


def write_generation(
    row: Game, base: EngineGame, rebuilt: Rebuilt, t: datetime
) -> list[eventstore.Appended]:
    """Store the rebuilt log as the next generation: what follows the longest prefix it
    shares with the current log is its own; of that, what differs is written, and the
    unchanged end (the same events of the same actions, only later in the log) is
    copied by the database from the current log's rows. Returns the last row written
    (and sets ``rebuilt.actions``)."""
    head, tail = rebuilt.common(base)
    held = eventstore.actions_of(row.pk, base)
    head = len(_same_sources(row, rebuilt.kept, rebuilt.events[:head], held, from_end=False))
    shared = rebuilt.kept + head
    own = rebuilt.events[head:]
    end = len(base.log)
    copied = _same_sources(row, end - tail, own[len(own) - tail :], held, from_end=True)
    row.generation += 1
    Generation.objects.create(game=row, number=row.generation, shared=shared, created_at=t)
    items = []
    for e, p in own[: len(own) - len(copied)]:
        items.append((e, p.pk if p else None, p.recorder if p else None))
    rows = eventstore.append(row, items, at=t)
    rows = eventstore.copy_rows(row, copied, at=t) or rows
    fates: dict[tuple[str, str], list[int]] = {}
    for p in rebuilt.planned:
        if p.pk is None:
            continue
        rv = rebuilt.refused.get(id(p))
        fate = ("refused", rv.message) if rv else ("applied", "")
        if (p.outcome, p.message) != fate:
            p.outcome, p.message = fate
            if p.stored is not None:
                p.stored.outcome, p.stored.message = fate
            fates.setdefault(fate, []).append(p.pk)
    for (outcome, message), pks in fates.items():
        Action.objects.filter(pk__in=pks).update(outcome=outcome, message=message)
    if held is not None:  # (the kept events', then each rebuilt event's own)
        rebuilt.actions = held[: rebuilt.kept] + [p.pk if p else None for _e, p in rebuilt.events]
    return rows


def _same_sources(
    row: Game,
    lo: int,
    new: list[tuple[EngineEvent, Planned | None]],
    held: list[int | None] | None,
    *,
    from_end: bool,
) -> list[int]:
    """The ``seq`` of the current log's rows ``lo`` to ``lo + len(new)`` (the same events
    as ``new``) that come from the same recorded actions as ``new``'s, counted from the
    start (or the end) up to the first that does not: an equal event of another action
    (two identical awards at one instant, one struck) is written, never shared.
    ``held``: the action of each event of the current log, if known (nothing read)."""
    if not new:
        return []
    rows = eventstore.rows_between(row, lo, lo + len(new), held)
    if len(rows) != len(new):  # (not the stored log's shape: write it all)
        return []
    pairs = list(zip(rows, new, strict=True))
    if from_end:
        pairs.reverse()
    seqs = []
    for (seq, action), (_e, p) in pairs:
        if action != (p.pk if p else None):
            break
        seqs.append(seq)
    if from_end:
        seqs.reverse()
    return seqs


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
    d = diff(row, base, rebuilt)
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
    return Outcome(True, preview=diff(game, base, rebuilt), token=game.version)


def strike_rebuild(
    row: Game, base: EngineGame, target: Action, t: datetime
) -> tuple[Diff, Rebuilt]:
    """The game rebuilt without ``target`` (from its instant) and the difference it
    makes."""
    planned = planned_actions(row, since=target.at, without=target)
    rebuilt = rebuild(row, base, target.at, planned, t)
    return diff(row, base, rebuilt), rebuilt
