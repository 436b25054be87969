"""The store's invariants, checked after a burst of writes, and workers of their own.

- the stored log (each row's event and action) is the one executing every recorded
  action not struck out again from the creation gives;
- the held game's actions (``eventstore.actions_of``) are the stored rows' whenever
  they are known, and its log is the one a cold load reads;
- :class:`Worker`: a process of its own in this process (its held games, its pool, its
  kept day starts), to interleave workers without threads.
"""

from __future__ import annotations

from typing import Any

from ronde.catalog import default_catalog
from ronde.engine.clock import PARIS
from ronde.engine.commands import Command
from ronde.engine.errors import RuleViolation
from ronde.engine.game import Game as EngineGame
from ronde.web.games import corrections, eventstore, service
from ronde.web.games.models import Action


def from_actions(game: Any) -> list[tuple[bytes, int | None]]:
    """The log as executing every recorded action not struck out again from the creation
    gives it: (event, the action that made it; ``None`` for the creation and timers), up
    to the stored log's last instant."""
    stored = service.stored_events(game)
    eng = EngineGame.replay(stored[:1], default_catalog())
    out: list[tuple[bytes, int | None]] = [(eventstore.canonical(stored[0]), None)]
    actions = Action.objects.filter(game=game, struck=False)
    for a in sorted(actions, key=lambda a: (a.at, a.pk)):
        out += [(eventstore.canonical(e), None) for e in eng.advance(a.at)]
        try:
            made = eng.execute(Command(a.action, a.by, a.at.astimezone(PARIS), dict(a.args)))
        except RuleViolation:
            continue
        out += [(eventstore.canonical(e), a.pk) for e in made]
    out += [(eventstore.canonical(e), None) for e in eng.advance(stored[-1].at)]
    return out


def stored_rows(game: Any) -> list[tuple[bytes, int | None]]:
    """(event, action id) of each row of the stored log."""
    game.refresh_from_db()
    return [
        (eventstore.canonical(eventstore.from_json(d)), a)
        for _pk, _seq, a, d in eventstore.log_data(game)
    ]


def check_held(game: Any) -> None:
    """This worker's held game: its actions (when known) are the stored rows', its log is
    the stored one."""
    game.refresh_from_db()
    rows = eventstore.log_data(game)
    eng = service.load(game)
    held = eventstore.actions_of(game.pk, eng)
    stored = [a for _pk, _seq, a, _d in rows]
    assert held is None or held == stored, _first_difference(held or [], stored)
    if held is not None:  # (the rows a correction shares or copies: found by position)
        by_position = eventstore.rows_between(game, 0, len(rows), held)
        read = [(seq, a) for _pk, seq, a, _d in rows]
        assert by_position == read, _first_difference(by_position, read)
    log = [eventstore.canonical(e) for e in eng.log]
    want = [eventstore.canonical(eventstore.from_json(d)) for _pk, _seq, _a, d in rows]
    assert log == want, _first_difference(log, want)


def check_store(game: Any) -> None:
    """The stored log is the one executing the actions again gives; this worker's held
    game agrees with it; a cold load reads it."""
    rows = stored_rows(game)
    again = from_actions(game)
    assert rows == again, _first_difference(rows, again)
    check_held(game)
    seqs = [seq for _pk, seq, _a, _d in eventstore.log_data(game)]
    assert len(seqs) == len(set(seqs))


def _first_difference(a: list[Any], b: list[Any]) -> str:
    n = next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))
    return (
        f"lengths {len(a)} / {len(b)}, first difference at {n}: {a[n : n + 2]!r} / {b[n : n + 2]!r}"
    )


class Worker:
    """A worker process of its own, simulated in this thread: its held games, its pool
    of games, its corrections' kept day starts (``with worker:`` makes it the current
    one)."""

    def __init__(self) -> None:
        self.held: dict[int, Any] = {}
        self.pool: dict[int, Any] = {}
        self.day_starts: dict[int, Any] = {}
        self._saved: tuple[Any, Any, Any] | None = None

    def __enter__(self) -> Worker:
        self._saved = (eventstore._held(), eventstore._pool, corrections._day_starts)
        eventstore._local.held = self.held
        eventstore._pool = self.pool
        corrections._day_starts = self.day_starts
        return self

    def __exit__(self, *exc: object) -> None:
        assert self._saved is not None
        eventstore._local.held, eventstore._pool, corrections._day_starts = self._saved
        self._saved = None

    def forget(self) -> None:
        """A restarted process: nothing held."""
        self.held.clear()
        self.pool.clear()
        self.day_starts.clear()
