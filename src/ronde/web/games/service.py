"""The one way anything reads or writes a game (web pages and command line alike).

The work is split in modules with one job each; this facade keeps callers simple:

- :mod:`.eventstore`: events, generations, loading a game cheaply (each thread
  holds a replayed game and applies only the events stored after it);
- :mod:`.corrections`: replay from the recorded actions, the difference a
  correction makes, striking out;
- :mod:`.clocks`: a game's now (the wall clock, or a ``manual`` game's own clock)
  and the instants a game accepts.

Reading: the game as stored is brought up to date and, if an engine timer is due
by the game's now (a trial's deadline, the end of a day ...), those timers are
applied and stored first, so nothing depends on a scheduler.

Writing a command: in one transaction with the game row locked (PostgreSQL:
``SELECT ... FOR UPDATE``; SQLite: ``BEGIN IMMEDIATE``), "now" is read once the
lock is held, the game is advanced to the command's time and the command
executed; its events are appended with ``seq`` after the last one. A write at
now is never a correction. A refused command writes nothing at all (not even the
timers that would have fired before it). ``(game, seq)`` is unique, so a writer
that did not see the last event cannot append: it gets :class:`Conflict`.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import UTC, date, datetime
from typing import Any

from django.db import IntegrityError, transaction

from ronde.catalog import default_catalog
from ronde.engine.clock import PARIS
from ronde.engine.commands import Command
from ronde.engine.errors import RuleViolation
from ronde.engine.events import Event as EngineEvent
from ronde.engine.events import PlayerReplaced
from ronde.engine.game import Game as EngineGame
from ronde.engine.views import View, view
from ronde.text import clean, clean_value

from . import accounts, busy, clocks, corrections, eventstore
from .clocks import frozen_clock, now, set_clock
from .corrections import Diff, Outcome, Planned
from .eventstore import (
    Conflict,
    User,
    args_json,
    clear_cache,
    event_json,
    load,
    log_rows,
    stored_events,
)
from .models import Action, Game, GameMaster, Membership, Request, Strike

__all__ = [
    "Conflict",
    "Diff",
    "Outcome",
    "User",
    "advance_clock",
    "args_json",
    "clear_cache",
    "current",
    "event_json",
    "frozen_clock",
    "game_now",
    "load",
    "log_rows",
    "next_timer",
    "now",
    "preview",
    "preview_strike",
    "record",
    "record_many",
    "set_clock",
    "start",
    "stored_events",
    "strike",
    "tick",
    "view_for",
]

game_now = clocks.game_now

#: the longest pseudo or game master's name the store keeps (a seat's pseudo, a game
#: master's name, an action's author: PostgreSQL refuses one character more)
NAME_MAX = min(
    Membership._meta.get_field("pseudo").max_length or 60,
    GameMaster._meta.get_field("name").max_length or 60,
    Action._meta.get_field("by").max_length or 60,
)
#: the longest action name the store keeps
ACTION_MAX = Action._meta.get_field("action").max_length or 40


def check_names(names: Iterable[str], what: str = "Pseudo") -> None:
    """Refuse a pseudo or a game master's name longer than the store keeps.

    Raises:
        RuleViolation: ``invalid_argument`` (French message naming it).
    """
    for name in names:
        if len(name) > NAME_MAX:
            raise RuleViolation(
                "invalid_argument",
                f"{what} trop long : « {name[:NAME_MAX]}… » ({len(name)} caractères, "
                f"{NAME_MAX} au plus).",
            )


def check_command(action: str, by: str, args: Mapping[str, Any]) -> None:
    """What the store could not keep of a command, refused before the engine sees it."""
    if len(action) > ACTION_MAX:
        raise RuleViolation("invalid_argument", f"Action inconnue : {action[:ACTION_MAX]}….")
    check_names([by], "Nom")
    for key, value in args.items():
        problem = eventstore.inexact(value)
        if problem is not None:
            raise RuleViolation(
                "invalid_argument",
                f"Valeur de « {key} » impossible à enregistrer telle quelle : {problem}.",
            )
    if action == "replace_player" and isinstance(args.get("new"), str):
        check_names([args["new"].strip()], "Pseudo du remplaçant")


def new_engine(
    *,
    start: date,
    cast: Mapping[str, str],
    ronde: list[str],
    seed: int,
    players: list[str],
    game_masters: list[str],
    options: Mapping[str, object],
    at: datetime,
) -> EngineGame:
    """A new engine game, not stored yet (:func:`start` stores it).

    Raises:
        RuleViolation: an invalid setup or option, a name longer than the store keeps.
    """
    check_names(players)
    check_names(game_masters, "Nom de MJ")
    return EngineGame.create(
        start=start,
        cast=cast,
        ronde=ronde,
        catalog=default_catalog(),
        seed=seed,
        players=players,
        game_masters=game_masters,
        options=options,
        at=at,
    )


def replayed(eng: EngineGame) -> EngineGame:
    """A private copy of ``eng`` (nothing is stored; e.g. to forecast what the next
    timers would record): forked, not replayed, so that it costs about the same
    whatever the log's length (``Game.fork``)."""
    return eng.fork()


def next_timer(eng: EngineGame) -> datetime | None:
    """When the engine's next timer fires (read-only; ``None`` once the game is over)."""
    if eng.state.game_ended:
        return None
    nxt = eng._next_timer()
    return nxt[0] if nxt else None


def current(game: Game, user: User | None = None, *, fresh: bool = False) -> EngineGame:
    """The game now: timers due by the game's now are applied (and stored) first.

    ``fresh``: ``game`` was just read from the database by this request (saves a query).
    """
    eng = load(game, fresh=fresh)
    due = next_timer(eng)
    if due is not None and due <= _timer_limit(game, eng):
        tick(game, user)
        eng = load(game)
    return eng


def view_for(game: Game, viewer: str, user: User | None = None) -> View:
    """``view(state, viewer)`` of the game now (``"public"``, ``"game_master"`` or a pseudo).

    Raises:
        KeyError: ``viewer`` is not a player of this game.
    """
    return view(current(game, user).state, viewer)


def preview(game: Game, at: datetime) -> EngineGame:
    """The game as it will be at ``at`` if nothing else is recorded (nothing is
    written): who is unmasked at the next midnight, which trials lapse.

    Raises:
        RuleViolation: ``at`` is before the game's now, or outside the game.
    """
    eng = current(game)
    _first, last = clocks.bounds(eng)
    if at > last:
        clocks.check(game, eng, at)
    clock = eng.state.clock
    if clock is not None and at < clock:
        raise RuleViolation(
            "invalid_argument", "L'aperçu montre l'avenir : choisissez une heure après maintenant."
        )
    copy = replayed(eng)
    copy.advance(at)
    return copy


def _timer_limit(game: Game, eng: EngineGame) -> datetime:
    """Timers fire up to the game's now, never past the latest accepted instant."""
    t = clocks.game_now(game)
    return min(t, clocks.bounds(eng)[1])


# -- writing -----------------------------------------------------------------------------
def _locked(game_id: int) -> Game:
    busy.limit_lock_wait()  # (PostgreSQL; SQLite waits as its connection says)
    return Game.objects.select_for_update().get(pk=game_id)


@contextmanager
def _written(game_id: int) -> Iterator[None]:
    """A locked write's transaction (``transaction.atomic``). If it does not commit once
    this thread holds the game at the version it wrote (its COMMIT failed: a full disk, a
    lost connection), that game is forgotten: another write may store other events under
    the same row numbers (SQLite gives back those of rolled-back rows), and the next read
    would take them for the ones it holds."""
    before = eventstore.held_version(game_id)
    try:
        with transaction.atomic():
            yield
    except BaseException:
        if eventstore.held_version(game_id) != before:
            eventstore.drop(game_id)
        raise


def _commit(
    game: Game,
    eng: EngineGame,
    rows: list[Any],
    *,
    fields: tuple[str, ...] = (),
    actions: list[int | None] | None = None,
) -> None:
    game.version = uuid.uuid4().hex
    game.save(update_fields=["last_seq", "generation", "version", *fields])
    eventstore.adopt(game, eng, rows, actions)
    from . import notify  # (it reads pages through this service)

    notify.written(game, eng)  # the outbox, in this transaction; sent after the commit


def _seats(row: Game, events: Iterable[EngineEvent], rebuilt: EngineGame | None = None) -> None:
    """The seats follow what a write records, in its transaction (before the outbox is
    written: a replaced player's account is told nothing more): a replaced player's
    account loses access and the new pseudo gets a seat with its invitation; after a
    correction (``rebuilt``: the game rebuilt) an account plays iff the engine knows
    its pseudo (a struck ``replace_player`` gives the old account back its access)."""
    for e in events:
        if isinstance(e, PlayerReplaced):
            accounts.replaced(row, e.old, e.new)
    if rebuilt is not None:
        accounts.reconcile(row, [p.pseudo for p in rebuilt.state.players.values()])


def start(game: Game, eng: EngineGame, user: User | None) -> None:
    """Store a new game's first event (``GameCreated``)."""
    with _written(game.pk):
        row = _locked(game.pk)
        if row.started:
            raise RuleViolation("not_allowed", "La partie a déjà commencé.")
        row.started_at = now()
        row.generation = 1
        if clocks.is_manual(row) and row.clock_at is None:
            row.clock_at = eng.log[0].at  # a manual game's clock starts with the game
        items = [(e, None, eventstore.user_or_none(user)) for e in eng.log]
        rows = eventstore.append(row, items, at=row.started_at)
        _commit(row, eng, rows, fields=("started_at", "clock_at"))
    game.refresh_from_db()


def tick(game: Game, user: User | None = None) -> list[EngineEvent]:
    """Apply and store every timer due by the game's now; return the new events."""
    try:
        with _written(game.pk):
            row = _locked(game.pk)
            if not row.started:
                return []
            eng = load(row)
            due = next_timer(eng)
            t = _timer_limit(row, eng)
            if due is None or due > t:
                return []
            try:
                fired = eng.advance(t)
                if fired:
                    rows = eventstore.append(row, [(e, None, None) for e in fired], at=now())
                    _commit(row, eng, rows)
            except BaseException:
                eventstore.drop(row.pk)
                raise
            return fired
    except IntegrityError:
        return []  # another request applied them first


def advance_clock(game: Game, to: datetime) -> list[EngineEvent]:
    """Move a ``manual`` game's clock to ``to`` and apply the timers due by then.

    Raises:
        RuleViolation: a ``wall`` game, an instant before the game's clock, or
            outside the game.
    """
    with transaction.atomic():
        row = _locked(game.pk)
        if not clocks.is_manual(row):
            raise RuleViolation(
                "not_allowed", "Cette partie suit l'horloge réelle : son heure ne se règle pas."
            )
        eng = load(row)
        clocks.check(row, eng, to)
        if row.clock_at is not None and to < row.clock_at:
            raise RuleViolation(
                "invalid_argument",
                "L'horloge d'une partie ne recule pas (pour corriger, enregistrez l'action "
                "à son heure).",
            )
        row.clock_at = to
        row.save(update_fields=["clock_at"])
    game.refresh_from_db()
    return tick(game)


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
    deciding: bool = False,
) -> Outcome:
    """Record ``by`` doing ``action`` with ``args`` at ``at`` (default: the game's now,
    read once the game is locked).

    ``deciding``: a game master accepts the player's ``request``: refused
    (:data:`REQUEST_DECIDED`, nothing written) unless it is still pending, read under the
    lock (two game masters accepting it at once record it once).

    An instant before the last recorded event rebuilds the game with the action
    inserted, from that instant (an instant in the same minute as the last event is
    not earlier: the forum's minute typed for it is recorded just after it): purely
    additive, it is written at once; if it changes what was
    already recorded, the :class:`Outcome` carries the ``preview`` and a ``token``
    to pass back as ``confirm``. ``seen`` is the last ``seq`` the user saw. A
    refusal writes nothing.

    Raises:
        Conflict: another writer appended between our read and our write, or the
            game changed since the preview being confirmed.
    """
    # control characters never enter a game, whichever way the action came (ronde.text)
    by, note, args = clean(by), clean(note), clean_value(args)
    try:
        with _written(game.pk):
            row = _locked(game.pk)
            if not row.started:
                return Outcome(False, "game_not_running", "La partie n'a pas commencé.")
            try:
                check_command(action, by, args)
            except RuleViolation as rv:
                return Outcome(False, rv.code, rv.message)
            if deciding and request is not None and not _still_pending(request):
                return Outcome(False, REQUEST_DECIDED, "Cette demande a déjà été traitée.")
            t = clocks.game_now(row)
            moved = 0 if seen is None else max(0, row.last_seq - seen)
            base = load(row)
            clock = base.state.clock
            if at is None:
                when = t if clock is None or t >= clock else clock  # now is never a correction
            else:
                try:
                    clocks.check(row, base, at)  # before any conversion: no year 9999
                except RuleViolation as rv:
                    return Outcome(False, rv.code, rv.message, moved=moved)
                when = at.astimezone(PARIS)
                if clock is not None and when < clock and _minute(when) == _minute(clock):
                    # typed to the forum's minute, that of the last event: not earlier
                    # (a burst of complaints at one minute is never a correction)
                    when = clock.astimezone(PARIS)
            clock_moved = clocks.advance_to(row, when)
            fields = ("clock_at",) if clock_moved else ()
            planned = Planned(action, by, when, dict(args))
            if clock is not None and when < clock:
                with corrections.collector_paused():
                    return _insert_past(row, base, planned, user, note, request, confirm, moved, t)
            due = next_timer(base)
            changed = due is not None and due <= when
            try:
                fired = base.advance(when)
                own = base.execute(planned.command())
            except RuleViolation as rv:
                if changed:
                    eventstore.drop(row.pk)  # timers fired in memory only: forget them
                return Outcome(False, rv.code, rv.message, moved=moved)
            except BaseException:
                eventstore.drop(row.pk)
                raise
            try:
                saved = corrections.save_action(row, planned, user, note, request, t)
                u = eventstore.user_or_none(user)
                items = [(e, None, None) for e in fired] + [(e, saved, u) for e in own]
                rows = eventstore.append(row, items, at=t)
                _seats(row, own)
                _commit(row, base, rows, fields=fields)
            except BaseException:
                eventstore.drop(row.pk)
                raise
            return Outcome(True, events=list(own), action=saved, moved=moved)
    except IntegrityError:
        raise Conflict() from None


def _minute(t: datetime) -> datetime:
    """``t``'s minute (UTC: Paris is a whole number of hours away)."""
    return t.astimezone(UTC).replace(second=0, microsecond=0)


#: the code of a request already decided by another game master (nothing recorded)
REQUEST_DECIDED = "request_decided"

#: the code of a command of a batch left out by its ``skip`` (nothing recorded for it)
SKIPPED = "skipped"


def record_many(
    game: Game,
    user: User | None,
    commands: Sequence[tuple[str, str, dict[str, Any]]],
    *,
    note: str = "",
    skip: Callable[[int], str] | None = None,
) -> list[Outcome]:
    """Record several ``(action, by, args)`` at the game's now in ONE locked write (a
    day's list of verdicts): the timers due first, then each command in order; one
    :class:`Outcome` per command. A command the engine refuses writes nothing and the
    others still record; ``skip(i)``, asked under the lock, gives a reason (French) to
    leave command ``i`` out (already recorded by another game master …), "" to record
    it. Nothing recorded at all writes nothing.

    Raises:
        Conflict: another writer appended between our read and our write.
    """
    # as :func:`record`: no control character enters a game, every argument is checked
    note = clean(note)
    commands = [(action, clean(by), clean_value(args)) for action, by, args in commands]
    try:
        with _written(game.pk):
            row = _locked(game.pk)
            if not row.started:
                return [
                    Outcome(False, "game_not_running", "La partie n'a pas commencé.")
                    for _c in commands
                ]
            t = clocks.game_now(row)
            base = load(row)
            clock = base.state.clock
            when = t if clock is None or t >= clock else clock  # now is never a correction
            fields = ("clock_at",) if clocks.advance_to(row, when) else ()
            outcomes: list[Outcome] = []
            items: list[tuple[EngineEvent, Action | None, Any]] = []
            u = eventstore.user_or_none(user)
            try:
                fired = base.advance(when)
                items.extend((e, None, None) for e in fired)
                for i, (action, by, args) in enumerate(commands):
                    why = skip(i) if skip is not None else ""
                    if why:
                        outcomes.append(Outcome(False, SKIPPED, why))
                        continue
                    planned = Planned(action, by, when, dict(args))
                    try:
                        check_command(action, by, args)
                        own = base.execute(planned.command())
                    except RuleViolation as rv:
                        outcomes.append(Outcome(False, rv.code, rv.message))
                        continue
                    saved = corrections.save_action(row, planned, user, note, None, t)
                    items.extend((e, saved, u) for e in own)
                    outcomes.append(Outcome(True, events=list(own), action=saved))
                if any(o.ok for o in outcomes):
                    rows = eventstore.append(row, items, at=t)
                    _seats(row, [e for o in outcomes for e in o.events])
                    _commit(row, base, rows, fields=fields)
                elif fired:
                    eventstore.drop(row.pk)  # timers fired in memory only: forget them
            except BaseException:
                eventstore.drop(row.pk)
                raise
            return outcomes
    except IntegrityError:
        raise Conflict() from None


def _still_pending(request: Request) -> bool:
    """Whether a player's request may still be accepted, read under the game's lock: two
    game masters who both saw it pending record it once (the second is told)."""
    return (
        Request.objects.filter(pk=request.pk, status=Request.PENDING).exists()
        and not Action.objects.filter(request_id=request.pk).exists()
    )


def _insert_past(
    row: Game,
    base: EngineGame,
    planned: Planned,
    user: User | None,
    note: str,
    request: Request | None,
    confirm: str | None,
    moved: int,
    t: datetime,
) -> Outcome:
    until = max(t, base.state.clock or t)
    out, rebuilt = corrections.insert_past(row, base, planned, until, confirm=confirm)
    out.moved = moved
    if rebuilt is None:
        return out
    try:
        out.action = corrections.save_action(row, planned, user, note, request, t)
        rows = corrections.write_generation(row, base, rebuilt, t)
        _seats(row, out.events, rebuilt.eng)
        _commit(row, rebuilt.eng, rows, actions=rebuilt.actions)
    except BaseException:
        eventstore.drop(row.pk)
        raise
    return out


def preview_strike(game: Game, action: Action) -> Outcome:
    """What striking ``action`` would change (nothing is written)."""
    base = load(game)
    until = max(clocks.game_now(game), base.state.clock or clocks.game_now(game))
    with corrections.collector_paused():
        return corrections.preview_strike(game, base, action, until)


def strike(game: Game, action: Action, reason: str, user: User | None, token: str) -> Outcome:
    """Strike ``action`` out (with ``reason``) and rebuild the game without it.

    Raises:
        Conflict: the game changed since the preview (``token``).
    """
    reason = reason.strip()
    if not reason:
        return Outcome(False, "invalid_argument", "Donnez la raison de la correction.")
    try:
        with _written(game.pk):
            row = _locked(game.pk)
            if row.version != token:
                raise Conflict()
            target = Action.objects.select_for_update().get(pk=action.pk, game=row)
            if target.struck:
                return Outcome(False, "not_allowed", "Cette action est déjà rayée.")
            with corrections.collector_paused():  # (the lock is held: not while waiting)
                base = load(row)
                t = clocks.game_now(row)
                until = max(t, base.state.clock or t)
                diff, rebuilt = corrections.strike_rebuild(row, base, target, until)
                try:
                    target.struck = True
                    target.save(update_fields=["struck"])
                    rows = corrections.write_generation(row, base, rebuilt, t)
                    Strike.objects.create(
                        game=row,
                        action=target,
                        reason=reason,
                        by=eventstore.user_or_none(user),
                        at=t,
                        generation=row.generation,
                    )
                    _seats(row, (), rebuilt.eng)
                    _commit(row, rebuilt.eng, rows, actions=rebuilt.actions)
                except BaseException:
                    eventstore.drop(row.pk)
                    raise
                return Outcome(True, preview=diff)
    except IntegrityError:
        raise Conflict() from None


def standing_actions(game: Game) -> list[Action]:
    """The actions recorded in ``game`` and not struck out (what a page read again must
    not record twice: the forum bridge)."""
    return list(Action.objects.filter(game=game, struck=False))


def constraint_verdicts(game: Game) -> dict[tuple[str, int], Action]:
    """The constraint verdicts recorded and applied (not struck, not refused), by
    (player, day): the latest of each. The one reading of them: the console's to-do
    list and constraint list, the forum's helpers (each verdict's value is
    :func:`verdict_met`)."""
    out: dict[tuple[str, int], Action] = {}
    rows = Action.objects.filter(
        game=game, action="record_constraint", struck=False, outcome="applied"
    ).select_related("recorded_by")
    for a in rows.order_by("at", "pk"):
        try:
            out[(str(a.args.get("player")), int(a.args.get("day")))] = a
        except (TypeError, ValueError):
            continue
    return out


def verdict_met(action: Action) -> bool:
    """Whether a recorded ``record_constraint`` found the constraint met, read as the
    engine reads it (``met`` left out means met, A1; ``"non"``, ``"false"`` … mean not)."""
    try:
        return Command(action.action, action.by, action.at, dict(action.args)).flag("met", True)
    except RuleViolation:
        return True  # (never applied: the engine refused it)
