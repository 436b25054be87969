"""The only code that reads and writes a game's log: replay, record, correct.

Reading: the game's current-generation log is replayed (or taken from an
in-process cache keyed by the game's ``version``, which changes on every write)
and, if an engine timer is due (a trial's deadline, the end of a day ...),
those timers are applied and stored first, so nothing depends on a scheduler.

Writing a command: in one transaction with the game row locked (PostgreSQL:
``SELECT ... FOR UPDATE``; SQLite: ``BEGIN IMMEDIATE``), a private copy of the
game is advanced to the command's time and the command executed; its events
are appended with ``seq`` after the last one. ``(game, seq)`` is unique, so a
writer that did not see the last event cannot append: it gets :class:`Conflict`.

Correcting: striking a recorded action, or recording one before the last event,
rebuilds the game from ``GameCreated`` and the recorded actions in time order
(timers fire again in between) and shows the difference with the current log;
confirmed, the rebuilt log becomes a new generation (sharing its unchanged
beginning with the previous one, so only what changed is appended). Nothing is
deleted.
"""

from __future__ import annotations

import threading
import uuid
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import orjson
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db import IntegrityError, transaction
from django.utils import timezone

from ronde.catalog import default_catalog
from ronde.engine.clock import PARIS
from ronde.engine.commands import Command
from ronde.engine.errors import RuleViolation
from ronde.engine.events import Event as EngineEvent
from ronde.engine.events import from_json, to_json
from ronde.engine.game import Game as EngineGame
from ronde.engine.views import View, view

from .models import Action, Event, Game, Generation, Request, Strike

User = AbstractBaseUser | AnonymousUser

# -- the clock (the web layer may read it; the engine never does) ------------------------
_frozen: datetime | None = None


def now() -> datetime:
    """The current instant in Europe/Paris (or the frozen one, for tests and demos)."""
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


# -- the cache of replayed games -----------------------------------------------------------
_cache: dict[int, tuple[str, EngineGame]] = {}
_cache_lock = threading.Lock()


def _cached(game: Game) -> EngineGame | None:
    hit = _cache.get(game.pk)
    if hit is not None and hit[0] == game.version:
        return hit[1]
    return None


def _remember(game_id: int, version: str, eng: EngineGame) -> None:
    with _cache_lock:
        _cache[game_id] = (version, eng)


def clear_cache() -> None:
    with _cache_lock:
        _cache.clear()


def _json(e: EngineEvent) -> dict[str, Any]:
    """The stored JSON of an event: exactly what the JSON Lines store writes."""
    data: dict[str, Any] = orjson.loads(orjson.dumps(to_json(e)))
    return data


def _json_args(args: Any) -> dict[str, Any]:
    """Command arguments as stored (JSON types only)."""
    data: dict[str, Any] = orjson.loads(orjson.dumps(dict(args)))
    return data


def _canonical(e: EngineEvent) -> bytes:
    return orjson.dumps(to_json(e), option=orjson.OPT_SORT_KEYS)


def log_rows(game: Game, generation: int | None = None) -> list[Event]:
    """The stored rows of a generation's log, in order: the events it shares with the
    previous generation (:class:`Generation`), then its own."""
    gen = game.generation if generation is None else generation
    chain: list[tuple[int, int]] = []  # (generation, events shared with the one before)
    forks = dict(Generation.objects.filter(game=game).values_list("number", "shared"))
    g = gen
    while g >= 1:
        shared = forks.get(g, 0)
        chain.append((g, shared))
        if shared == 0:
            break
        g -= 1
    rows: list[Event] = []
    for g, shared in reversed(chain):
        own = list(Event.objects.filter(game=game, generation=g).order_by("seq"))
        rows = rows[:shared] + own
    return rows


def stored_events(game: Game, generation: int | None = None) -> list[EngineEvent]:
    return [from_json(r.data) for r in log_rows(game, generation)]


def _replay(events: Sequence[EngineEvent]) -> EngineGame:
    return EngineGame.replay(events, default_catalog())


def load(game: Game) -> EngineGame:
    """The replayed game as stored (shared: never mutate it; copy with :func:`_copy`)."""
    game.refresh_from_db(fields=["version", "generation", "last_seq", "started_at"])
    if not game.started:
        raise ValueError("la partie n'a pas commencé")
    eng = _cached(game)
    if eng is None:
        eng = _replay(stored_events(game))
        _remember(game.pk, game.version, eng)
    return eng


def _copy(eng: EngineGame) -> EngineGame:
    """A private copy to mutate (replayed from the same immutable events)."""
    return _replay(eng.log)


def next_timer(eng: EngineGame) -> datetime | None:
    """When the engine's next timer fires (read-only; ``None`` once the game is over)."""
    if eng.state.game_ended:
        return None
    nxt = eng._next_timer()
    return nxt[0] if nxt else None


def current(game: Game, user: User | None = None) -> EngineGame:
    """The game now: timers due by now are applied (and stored) first."""
    eng = load(game)
    due = next_timer(eng)
    if due is not None and due <= now():
        tick(game, user)
        game.refresh_from_db()
        eng = load(game)
    return eng


def view_for(game: Game, viewer: str, user: User | None = None) -> View:
    """``view(state, viewer)`` of the game now (``"public"``, ``"game_master"`` or a pseudo).

    Raises:
        KeyError: ``viewer`` is not a player of this game.
    """
    return view(current(game, user).state, viewer)


# -- writing -----------------------------------------------------------------------------


class Conflict(Exception):
    """Someone recorded first: the log moved under this writer."""

    message = "Quelqu'un a enregistré avant vous : voici le nouvel état."


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
class _Planned:
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
class _Rebuilt:
    eng: EngineGame
    #: (event, planned action or None for creation and timers)
    events: list[tuple[EngineEvent, _Planned | None]]
    refused: dict[int, RuleViolation]  # id(planned) -> refusal


def _locked(game_id: int) -> Game:
    return Game.objects.select_for_update().get(pk=game_id)


def _append(
    game: Game,
    events: Iterable[EngineEvent],
    *,
    action: Action | None,
    user: User | None,
    at: datetime,
) -> int:
    return _append_many(game, [(e, action, _user(user)) for e in events], at=at)


def _append_many(
    game: Game, items: Iterable[tuple[EngineEvent, Action | None, Any]], *, at: datetime
) -> int:
    rows = []
    for e, action, user in items:
        game.last_seq += 1
        rows.append(
            Event(
                game=game,
                seq=game.last_seq,
                generation=game.generation,
                type=e.TYPE,
                at=e.at,
                data=_json(e),
                action=action,
                recorded_by=user,
                recorded_at=at,
            )
        )
    Event.objects.bulk_create(rows, batch_size=500)
    return len(rows)


def _user(user: User | None) -> Any:
    if user is None or not user.is_authenticated:
        return None
    return user


def _commit(game: Game, eng: EngineGame) -> None:
    game.version = uuid.uuid4().hex
    game.save(update_fields=["last_seq", "generation", "version"])
    version, gid = game.version, game.pk
    transaction.on_commit(lambda: _remember(gid, version, eng))


def start(game: Game, eng: EngineGame, user: User | None) -> None:
    """Store a new game's first event (``GameCreated``)."""
    with transaction.atomic():
        row = _locked(game.pk)
        if row.started:
            raise RuleViolation("not_allowed", "La partie a déjà commencé.")
        row.started_at = now()
        row.generation = 1
        _append(row, eng.log, action=None, user=user, at=row.started_at)
        row.save(update_fields=["started_at"])
        _commit(row, eng)
    game.refresh_from_db()


def tick(game: Game, user: User | None = None) -> list[EngineEvent]:
    """Apply and store every timer due by now; return the new events."""
    try:
        with transaction.atomic():
            row = _locked(game.pk)
            if not row.started:
                return []
            eng = load(row)
            due = next_timer(eng)
            t = now()
            if due is None or due > t:
                return []
            eng = _copy(eng)
            fired = eng.advance(t)
            if fired:
                _append(row, fired, action=None, user=None, at=t)
                _commit(row, eng)
            return fired
    except IntegrityError:
        return []  # another request applied them first


def record(
    game: Game,
    user: User | None,
    action: str,
    by: str,
    args: dict[str, Any],
    *,
    at: datetime | None = None,
    note: str = "",
    request: Request | None = None,
    seen: int | None = None,
    confirm: str | None = None,
) -> Outcome:
    """Record ``by`` doing ``action`` with ``args`` at ``at`` (default: now).

    An instant before the last recorded event rebuilds the game with the action
    inserted: purely additive, it is written at once; if it changes what was
    already recorded, the :class:`Outcome` carries the ``preview`` and a ``token``
    to pass back as ``confirm``. ``seen`` is the last ``seq`` the user saw.

    Raises:
        Conflict: another writer appended between our read and our write, or the
            game changed since the preview being confirmed.
    """
    t = now()
    when = (at or t).astimezone(PARIS)
    if when > t:
        return Outcome(False, "invalid_argument", "Heure dans le futur.")
    planned = _Planned(action, by, when, dict(args))
    try:
        with transaction.atomic():
            row = _locked(game.pk)
            if not row.started:
                return Outcome(False, "game_not_running", "La partie n'a pas commencé.")
            moved = 0 if seen is None else max(0, row.last_seq - seen)
            base = load(row)
            clock = base.state.clock
            if clock is not None and when < clock:
                return _insert_past(row, base, planned, user, note, request, confirm, moved)
            eng = _copy(base)
            fired = eng.advance(when)
            if fired:
                _append(row, fired, action=None, user=None, at=t)
            try:
                own = eng.execute(planned.command())
            except RuleViolation as rv:
                if fired:
                    _commit(row, eng)
                return Outcome(False, rv.code, rv.message, moved=moved)
            saved = _save_action(row, planned, user, note, request, t)
            _append(row, own, action=saved, user=user, at=t)
            _commit(row, eng)
            return Outcome(True, events=list(own), action=saved, moved=moved)
    except IntegrityError:
        raise Conflict() from None


def _save_action(
    game: Game,
    planned: _Planned,
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
        args=_json_args(planned.args),
        note=note,
        recorded_by=_user(user),
        recorded_at=t,
        request=request,
    )
    planned.stored = saved
    return saved


def _planned_actions(game: Game, *, without: Action | None = None) -> list[_Planned]:
    out = []
    rows = Action.objects.filter(game=game, struck=False).select_related("recorded_by")
    for a in rows.order_by("at", "id"):
        if without is not None and a.pk == without.pk:
            continue
        out.append(_Planned(a.action, a.by, a.at.astimezone(PARIS), dict(a.args), a, a.pk))
    return out


def _rebuild(base: EngineGame, planned: list[_Planned], until: datetime) -> _Rebuilt:
    created = base.log[0]
    eng = _replay([created])
    out: list[tuple[EngineEvent, _Planned | None]] = [(created, None)]
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
    return _Rebuilt(eng, out, refused)


def _diff(game: Game, old: EngineGame, new: _Rebuilt, planned: list[_Planned]) -> Diff:
    before = Counter(_canonical(e) for e in old.log)
    after = Counter(_canonical(e) for e, _ in new.events)
    removed_keys = before - after
    added_keys = after - before
    d = Diff()
    for e in old.log:
        k = _canonical(e)
        if removed_keys[k] > 0:
            removed_keys[k] -= 1
            d.removed.append(e)
    for e, _ in new.events:
        k = _canonical(e)
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


def _write_generation(
    row: Game,
    base: EngineGame,
    rebuilt: _Rebuilt,
    planned: list[_Planned],
    user: User | None,
    t: datetime,
) -> None:
    """Store the rebuilt log as the next generation: only what follows the longest
    prefix it shares with the current log is written."""
    shared = 0
    for old, (new, _p) in zip(base.log, rebuilt.events, strict=False):
        if _canonical(old) != _canonical(new):
            break
        shared += 1
    row.generation += 1
    Generation.objects.create(game=row, number=row.generation, shared=shared, created_at=t)
    items = []
    for e, p in rebuilt.events[shared:]:
        a = p.stored if p is not None else None
        items.append((e, a, a.recorded_by if a is not None else None))
    _append_many(row, items, at=t)
    for p in planned:
        if p.stored is None:
            continue
        rv = rebuilt.refused.get(id(p))
        outcome, message = ("refused", rv.message) if rv else ("applied", "")
        if (p.stored.outcome, p.stored.message) != (outcome, message):
            p.stored.outcome, p.stored.message = outcome, message
            p.stored.save(update_fields=["outcome", "message"])
    _commit(row, rebuilt.eng)


def _insert_past(
    row: Game,
    base: EngineGame,
    planned: _Planned,
    user: User | None,
    note: str,
    request: Request | None,
    confirm: str | None,
    moved: int,
) -> Outcome:
    t = now()
    others = _planned_actions(row)
    planned.order = (max((p.order for p in others), default=0)) + 1
    everything = [*others, planned]
    rebuilt = _rebuild(base, everything, t)
    rv = rebuilt.refused.get(id(planned))
    if rv is not None:
        return Outcome(False, rv.code, rv.message, moved=moved)
    diff = _diff(row, base, rebuilt, everything)
    if diff.destructive and confirm != row.version:
        if confirm is not None:
            raise Conflict()
        return Outcome(False, preview=diff, token=row.version, moved=moved)
    _save_action(row, planned, user, note, request, t)
    _write_generation(row, base, rebuilt, everything, user, t)
    own = [e for e, p in rebuilt.events if p is planned]
    return Outcome(True, events=own, action=planned.stored, moved=moved, preview=diff)


def preview_strike(game: Game, action: Action) -> Outcome:
    """What striking ``action`` would change (nothing is written)."""
    base = load(game)
    planned = _planned_actions(game, without=action)
    rebuilt = _rebuild(base, planned, now())
    diff = _diff(game, base, rebuilt, planned)
    return Outcome(True, preview=diff, token=game.version)


def strike(game: Game, action: Action, reason: str, user: User | None, token: str) -> Outcome:
    """Strike ``action`` out (with ``reason``) and rebuild the game without it.

    Raises:
        Conflict: the game changed since the preview (``token``).
    """
    reason = reason.strip()
    if not reason:
        return Outcome(False, "invalid_argument", "Donnez la raison de la correction.")
    try:
        with transaction.atomic():
            row = _locked(game.pk)
            if row.version != token:
                raise Conflict()
            target = Action.objects.select_for_update().get(pk=action.pk, game=row)
            if target.struck:
                return Outcome(False, "not_allowed", "Cette action est déjà rayée.")
            base = load(row)
            planned = _planned_actions(row, without=target)
            t = now()
            rebuilt = _rebuild(base, planned, t)
            diff = _diff(row, base, rebuilt, planned)
            target.struck = True
            target.save(update_fields=["struck"])
            _write_generation(row, base, rebuilt, planned, user, t)
            Strike.objects.create(
                game=row,
                action=target,
                reason=reason,
                by=_user(user),
                at=t,
                generation=row.generation,
            )
            return Outcome(True, preview=diff)
    except IntegrityError:
        raise Conflict() from None
