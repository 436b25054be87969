"""The event store: a game's events, its generations, and loading it cheaply.

Events are stored as ``ronde.engine.events.to_json`` in :class:`Event` rows where
``(game, seq)`` is unique; a generation's log is the events it shares with the
previous generation (:class:`Generation`) followed by its own rows.

Loading: each thread holds at most one replayed engine game per game, checked
out of a per-process pool (and given back when a request finishes). A held game
at version ``v`` is brought to the stored version by applying only the events
stored after ``v`` (the last event it applied is checked by row id and content,
so a rolled-back or rewritten log is never taken for a continuation). Only a
cold thread, or a new generation (a correction), replays the whole log. Because
a held game belongs to one thread, it is advanced in place: neither a reader nor
the writer copies or replays it.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

import orjson
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.core.signals import request_finished
from django.db import connections

from ronde.catalog import default_catalog
from ronde.engine.commands import Command
from ronde.engine.events import Event as EngineEvent
from ronde.engine.events import from_json, to_json
from ronde.engine.evolve import evolve
from ronde.engine.game import Game as EngineGame

from .models import Action, Event, Game, Generation

User = AbstractBaseUser | AnonymousUser


class Conflict(Exception):
    """Someone recorded first: the log moved under this writer."""

    message = "Quelqu'un a enregistré avant vous : voici le nouvel état."


# -- JSON ----------------------------------------------------------------------------------
def event_json(e: EngineEvent) -> dict[str, Any]:
    """The stored JSON of an event: exactly what the JSON Lines store writes."""
    data: dict[str, Any] = orjson.loads(orjson.dumps(to_json(e)))
    return data


def args_json(args: Any) -> dict[str, Any]:
    """Command arguments as stored (JSON types only)."""
    data: dict[str, Any] = orjson.loads(orjson.dumps(dict(args)))
    return data


#: the largest whole number stored exactly by every reader of the JSON (2**53 - 1)
MAX_EXACT_INT = 2**53 - 1


def inexact(value: Any) -> str | None:
    """Why ``value`` would not be stored and read back exactly as JSON (French: what it
    is), or ``None``: strings, booleans, ``null``, finite numbers (whole ones up to
    2**53), lists of them and maps with string keys are."""
    if value is None or isinstance(value, bool | str):
        return None
    if isinstance(value, int):
        return None if abs(value) <= MAX_EXACT_INT else "un nombre entier trop grand"
    if isinstance(value, float):
        return None if math.isfinite(value) else "un nombre infini ou indéfini"
    if isinstance(value, list | tuple):
        return next((p for v in value if (p := inexact(v)) is not None), None)
    if isinstance(value, dict):
        if any(not isinstance(k, str) for k in value):
            return "un dictionnaire dont une clé n'est pas du texte"
        return next((p for v in value.values() if (p := inexact(v)) is not None), None)
    if isinstance(value, datetime | date):
        return "une date (écrivez-la entre guillemets)"
    if isinstance(value, bytes | bytearray):
        return "des données binaires"
    return f"une valeur de type {type(value).__name__}"


def canonical(e: EngineEvent) -> bytes:
    """An event's identity for comparisons (sorted keys)."""
    return orjson.dumps(to_json(e), option=orjson.OPT_SORT_KEYS)


# -- generations ---------------------------------------------------------------------------
def _chain(game: Game, gen: int) -> list[tuple[int, int]]:
    """(generation, events shared with the one before), oldest first."""
    forks = dict(Generation.objects.filter(game=game).values_list("number", "shared"))
    chain: list[tuple[int, int]] = []
    g = gen
    while g >= 1:
        shared = forks.get(g, 0)
        chain.append((g, shared))
        if shared == 0:
            break
        g -= 1
    return list(reversed(chain))


def log_rows(game: Game, generation: int | None = None) -> list[Event]:
    """The stored rows of a generation's log, in order: the events it shares with the
    previous generation (:class:`Generation`), then its own."""
    gen = game.generation if generation is None else generation
    rows: list[Event] = []
    for g, shared in _chain(game, gen):
        own = list(Event.objects.filter(game=game, generation=g).order_by("seq"))
        rows = rows[:shared] + own
    return rows


Row = tuple[int, int, int | None, dict[str, Any]]


def _log_data(game: Game, gen: int) -> list[Row]:
    """(pk, seq, action id, data) of a generation's log (the fast path of
    :func:`log_rows`)."""
    rows: list[Row] = []
    for g, shared in _chain(game, gen):
        own: list[Row] = list(
            Event.objects.filter(game=game, generation=g)
            .order_by("seq")
            .values_list("pk", "seq", "action_id", "data")
        )
        rows = rows[:shared] + own
    return rows


def log_data(game: Game) -> list[Row]:
    """(pk, seq, action id, data) of the current log's events, in order."""
    return _log_data(game, game.generation)


def stored_events(game: Game, generation: int | None = None) -> list[EngineEvent]:
    gen = game.generation if generation is None else generation
    return [from_json(d) for _pk, _seq, _a, d in _log_data(game, gen)]


def _segments(game: Game) -> list[tuple[int, int, int | None, int]]:
    """(generation, the positions its own rows hold in the current log: first and end
    (``None``: to the end of the log), the ``seq`` of its first own row), oldest first,
    for the generations whose own rows are in the current log. A generation's own rows
    have consecutive ``seq`` (nothing else is appended to a game while it is its
    current generation), so a position is found without reading the log."""
    out: list[tuple[int, int, int | None, int]] = []
    limit: int | None = None  # (a later generation's shared part ends every earlier one)
    for g, shared in reversed(_chain(game, game.generation)):
        if limit is None or shared < limit:
            # (one index seek each: a grouped minimum would read every row of the chain,
            # which grows by a busy day's rows with each correction of it)
            first = (
                Event.objects.filter(game=game, generation=g)
                .order_by("seq")
                .values_list("seq", flat=True)
                .first()
            )
            if first is not None:
                out.append((g, shared, limit, first))
        limit = shared if limit is None else min(limit, shared)
    out.reverse()
    return out


def rows_between(
    game: Game, lo: int, hi: int, actions: Sequence[int | None] | None = None
) -> list[tuple[int, int | None]]:
    """(seq, action id) of the current log's events at positions ``lo`` to ``hi``
    (excluded), in order: a few indexed queries, whatever the log's length. Given
    ``actions`` (the action id of each event of the current log, as held:
    :func:`actions_of`), no row is read: the positions' ``seq`` follow from the
    generations' segments."""
    out: list[tuple[int, int | None]] = []
    conn = connections[Event.objects.db]
    qn = conn.ops.quote_name
    sql = (  # (one plain query a segment: a correction reads a whole busy day of them)
        f"SELECT {qn('seq')}, {qn('action_id')} FROM {qn(Event._meta.db_table)} "
        f"WHERE {qn('game_id')} = %s AND {qn('generation')} = %s AND {qn('seq')} >= %s "
        f"AND {qn('seq')} < %s ORDER BY {qn('seq')}"
    )
    for g, begin, end, first in _segments(game):
        a = max(lo, begin)
        b = hi if end is None else min(hi, end)
        if a >= b:
            continue
        if actions is not None:  # (held: nothing read)
            out += zip(range(first + a - begin, first + b - begin), actions[a:b], strict=True)
            continue
        with conn.cursor() as cursor:
            cursor.execute(sql, [game.pk, g, first + a - begin, first + b - begin])
            out += [(seq, action) for seq, action in cursor.fetchall()]
    return out


def commands_of(game_id: int, ids: list[int]) -> list[Command]:
    """The commands of the recorded actions ``ids`` of a game, in that order (read by
    a range of row ids: a day may hold more actions than a query may name)."""
    if not ids:
        return []
    wanted = set(ids)
    found = {
        pk: Command(action, by, at, dict(args))
        for pk, action, by, at, args in Action.objects.filter(
            game_id=game_id, pk__gte=min(ids), pk__lte=max(ids)
        ).values_list("pk", "action", "by", "at", "args")
        if pk in wanted
    }
    return [found[i] for i in ids if i in found]


def day_actions(eng: EngineGame, actions: Sequence[int | None], end: int) -> tuple[int, list[int]]:
    """The recorded actions whose events are in ``eng.log`` before position ``end`` on
    the counting day of the last of them, in the order they were recorded, and that day
    (what keys the draws of an identical command after them: ``Game.count_earlier``).
    ``actions[i]`` is the action of event ``i`` (``None``: the creation or a timer)."""
    g = eng.state
    log = eng.log
    day: int | None = None
    out: list[int] = []
    seen: set[int] = set()
    i = end - 1
    while i > 0:
        aid = actions[i]
        if aid is not None and aid not in seen:
            d = g.day(log[i].at)
            if day is None:
                day = d
            elif d != day:
                break
            out.append(aid)
            seen.add(aid)
        i -= 1
    out.reverse()
    return (day or 0), out


def count_day(game_id: int, eng: EngineGame, day: int, ids: Callable[[], list[int]]) -> None:
    """Count, in ``eng``, the recorded actions ``ids()`` of counting day ``day`` (read
    from the store only if a command of that day draws)."""
    eng.count_earlier(day, lambda: commands_of(game_id, ids()))


def replay(events: Iterable[EngineEvent], commands: Iterable[Command] = ()) -> EngineGame:
    return EngineGame.replay(events, default_catalog(), commands=commands)


# -- the held games --------------------------------------------------------------------------
@dataclass
class Held:
    """A replayed game and the stored event it stops at."""

    eng: EngineGame
    generation: int
    seq: int  # seq of its last event
    pk: int  # row id of its last event
    version: str
    epoch: int
    #: the recorded action of each event of ``eng.log`` (``None``: the creation, a
    #: timer), kept as the log grows; ``None`` if not known
    actions: list[int | None] | None = None


_pool: dict[int, list[Held]] = {}
_pool_lock = threading.Lock()
_local = threading.local()
_epoch = 0
#: games kept per game in the pool (one per concurrently reading thread)
POOL_SIZE = 32


def _held() -> dict[int, Held]:
    h: dict[int, Held] | None = getattr(_local, "held", None)
    if h is None:
        h = {}
        _local.held = h
    return h


def release(**_kwargs: Any) -> None:
    """Give this thread's games back to the pool (at the end of each request)."""
    held = _held()
    if not held:
        return
    with _pool_lock:
        for gid, h in held.items():
            if h.epoch != _epoch:
                continue
            lst = _pool.setdefault(gid, [])
            lst.append(h)
            del lst[:-POOL_SIZE]
    held.clear()


request_finished.connect(release, dispatch_uid="ronde-eventstore-release")


def clear_cache() -> None:
    """Forget every replayed game (this thread's, the pool's; others' become stale)."""
    global _epoch
    with _pool_lock:
        _epoch += 1
        _pool.clear()
    _held().clear()


def drop(game_id: int) -> None:
    """Forget this thread's game (its engine no longer matches the store)."""
    _held().pop(game_id, None)


def held_version(game_id: int) -> str | None:
    """The version of this thread's game ``game_id`` (``None``: none held)."""
    h = _held().get(game_id)
    return None if h is None else h.version


def _checkout(game_id: int) -> Held | None:
    held = _held()
    h = held.get(game_id)
    if h is not None and h.epoch == _epoch:
        return h
    with _pool_lock:
        lst = _pool.get(game_id) or []
        while lst:
            h = lst.pop()
            if h.epoch == _epoch:
                held[game_id] = h
                return h
    return None


def _catch_up(game: Game, h: Held) -> bool:
    """Apply the events stored after ``h`` in place; ``False`` if ``h`` is not a
    prefix of the stored log (then it must be replayed)."""
    if h.generation != game.generation:
        return False
    # two indexed queries (an OR of both would scan the whole log)
    cols = ("pk", "seq", "action_id", "data")
    rows = list(Event.objects.filter(game=game, seq=h.seq).values_list(*cols))
    rows += list(
        Event.objects.filter(game=game, generation=game.generation, seq__gt=h.seq)
        .order_by("seq")
        .values_list(*cols)
    )
    if not rows or rows[0][0] != h.pk or rows[0][1] != h.seq:
        return False
    last = h.eng.log[-1]
    if orjson.dumps(rows[0][3], option=orjson.OPT_SORT_KEYS) != canonical(last):
        return False
    eng = h.eng
    if h.actions is not None and len(h.actions) != len(eng.log):
        h.actions = None
    ids: list[int] = []
    for _pk, _seq, aid, data in rows[1:]:
        e = from_json(data)
        evolve(eng.state, e)
        eng.log.append(e)
        if h.actions is not None:
            h.actions.append(aid)
        if aid is not None and aid not in ids and aid != rows[0][2]:
            ids.append(aid)
    for cmd in commands_of(game.pk, ids):
        eng.count_command(cmd)  # (recorded by another worker: they key later draws)
    h.pk, h.seq = rows[-1][0], rows[-1][1]
    h.version = game.version
    return True


def load(game: Game, *, fresh: bool = False) -> EngineGame:
    """This thread's replayed game at the stored version.

    ``fresh``: ``game`` was just read from the database by this request (not re-read).
    The engine game belongs to the calling thread until its request finishes: read
    it, never keep it; only this service advances it.
    """
    if not fresh:
        game.refresh_from_db(
            fields=["version", "generation", "last_seq", "started_at", "clock", "clock_at"]
        )
    if not game.started:
        raise ValueError("la partie n'a pas commencé")
    h = _checkout(game.pk)
    if h is not None and (h.version == game.version or _catch_up(game, h)):
        return h.eng
    rows = _log_data(game, game.generation)
    eng = replay(from_json(d) for _pk, _seq, _a, d in rows)
    actions = [a for _pk, _seq, a, _d in rows]
    day, ids = day_actions(eng, actions, len(rows))
    if ids:  # (the last day's: they key the draws of identical ones)
        count_day(game.pk, eng, day, lambda: ids)
    pk, seq, _a, _d = rows[-1]
    _held()[game.pk] = Held(eng, game.generation, seq, pk, game.version, _epoch, actions)
    return eng


def actions_of(game_id: int, eng: EngineGame) -> list[int | None] | None:
    """The recorded action of each event of ``eng.log`` (``None``: the creation, a
    timer), if ``eng`` is this thread's held game and they are known (read them
    only, never keep them)."""
    h = _held().get(game_id)
    if h is None or h.eng is not eng or h.actions is None or len(h.actions) != len(eng.log):
        return None
    return h.actions


def adopt(
    game: Game, eng: EngineGame, rows: list[Appended], actions: list[int | None] | None = None
) -> None:
    """Hold ``eng`` as the game at its just written version, whose log ends with the
    appended ``rows`` (without rows, the next load replays). ``actions``: the
    recorded action of each event of ``eng.log``; without them, those of the held
    game ``eng`` advanced in place, followed by those of the rows just appended."""
    if not rows:
        drop(game.pk)
        return
    last = rows[-1]
    if actions is None:
        prev = _held().get(game.pk)
        known = [] if prev is None else prev.actions if prev.eng is eng else None
        if known is not None:
            known.extend(a for r in rows for a in r.actions)
            actions = known if len(known) == len(eng.log) else None
    held = Held(eng, game.generation, last.seq, last.pk, game.version, _epoch, actions)
    _held()[game.pk] = held


# -- writing -------------------------------------------------------------------------------
def user_or_none(user: User | None) -> Any:
    if user is None or not user.is_authenticated:
        return None
    return user


@dataclass(frozen=True)
class Appended:
    """The last row :func:`append` wrote, and the action of each row it wrote."""

    pk: int
    seq: int
    actions: tuple[int | None, ...] = ()


def append(
    game: Game,
    items: Iterable[tuple[EngineEvent, Action | int | None, Any]],
    *,
    at: datetime,
) -> list[Appended]:
    """Append (event, action or its id, recording user or its id) rows after the game's
    last ``seq`` (the caller holds the game's lock and saves the game); returns the last
    row written (none if nothing was). One statement for every row, without model
    instances: a correction may write a whole day's events."""
    conn = connections[Event.objects.db]
    ops = conn.ops
    recorded = ops.adapt_datetimefield_value(at)
    instants: dict[datetime, Any] = {}  # (many events share an instant: adapted once)
    params = []
    actions: list[int | None] = []
    for e, action, user in items:
        game.last_seq += 1
        data = to_json(e)
        when = instants.get(e.at)
        if when is None:
            when = instants[e.at] = ops.adapt_datetimefield_value(e.at)
        aid = action if action is None or isinstance(action, int) else action.pk
        actions.append(aid)
        params.append(
            (
                game.pk,
                game.last_seq,
                game.generation,
                e.TYPE,
                when,
                orjson.dumps(data).decode(),  # (the text of ``event_json``)
                aid,
                user if user is None or isinstance(user, int) else user.pk,
                recorded,
            )
        )
    if not params:
        return []
    with conn.cursor() as cursor:
        cursor.executemany(_insert_sql(conn), params)
    pk = Event.objects.filter(game=game, seq=game.last_seq).values_list("pk", flat=True).get()
    return [Appended(pk, game.last_seq, tuple(actions))]


def copy_rows(game: Game, seqs: Sequence[int], *, at: datetime) -> list[Appended]:
    """Append copies of the game's stored rows ``seqs`` (in that order) after its last
    ``seq``, as rows of its current generation recorded at ``at``: their events,
    actions and recorders as they were, copied by the database (one statement per run
    of consecutive ``seq``), never read back. A correction's unchanged tail: an award
    inserted before 47,000 events writes one row and copies the rest. Returns the last
    row written (none if nothing was)."""
    if not seqs:
        return []
    conn = connections[Event.objects.db]
    qn = conn.ops.quote_name
    table = qn(Event._meta.db_table)
    cols = ["game_id", "seq", "generation", "type", "at", "data", "action_id"]
    cols += ["recorded_by_id", "recorded_at"]
    sql = (
        f"INSERT INTO {table} ({', '.join(qn(c) for c in cols)}) "
        f"SELECT {qn('game_id')}, {qn('seq')} + %s, %s, {qn('type')}, {qn('at')}, "
        f"{qn('data')}, {qn('action_id')}, {qn('recorded_by_id')}, %s FROM {table} "
        f"WHERE {qn('game_id')} = %s AND {qn('seq')} >= %s AND {qn('seq')} <= %s"
    )
    recorded = conn.ops.adapt_datetimefield_value(at)
    runs: list[tuple[int, int]] = []  # (first seq, last seq)
    for seq in seqs:
        if runs and seq == runs[-1][1] + 1:
            runs[-1] = (runs[-1][0], seq)
        else:
            runs.append((seq, seq))
    with conn.cursor() as cursor:
        for first, last in runs:
            shift = game.last_seq + 1 - first
            cursor.execute(sql, [shift, game.generation, recorded, game.pk, first, last])
            if cursor.rowcount != last - first + 1:  # (a row missing: nothing is kept)
                raise RuntimeError(f"copy of rows {first}..{last}: {cursor.rowcount} copied")
            game.last_seq += last - first + 1
    pk = Event.objects.filter(game=game, seq=game.last_seq).values_list("pk", flat=True).get()
    return [Appended(pk, game.last_seq)]


_INSERT: dict[str, str] = {}


def _insert_sql(conn: Any) -> str:
    sql = _INSERT.get(conn.vendor)
    if sql is None:
        qn = conn.ops.quote_name
        cols = ["game_id", "seq", "generation", "type", "at", "data", "action_id"]
        cols += ["recorded_by_id", "recorded_at"]
        values = ["%s"] * len(cols)
        if conn.vendor == "postgresql":
            values[cols.index("data")] = "CAST(%s AS jsonb)"
        sql = _INSERT[conn.vendor] = (
            f"INSERT INTO {qn(Event._meta.db_table)} ({', '.join(qn(c) for c in cols)}) "
            f"VALUES ({', '.join(values)})"
        )
    return sql
