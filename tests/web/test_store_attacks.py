"""Attacks on the held games' actions (``Held.actions``) and the corrections that read
them instead of the rows: several workers interleaving writes at now, corrections early
in a busy day, strikes, timers, batches, replacements; failed transactions.

After each burst: the stored log (each row's event and action) is the one executing
every action not struck out again gives, each worker's held actions are the stored
rows', its log the stored one (``tests/web/storecheck.py``).

SQLite, and PostgreSQL when ``DATABASE_URL`` is set.
"""

from __future__ import annotations

import os
import random
import uuid
from datetime import timedelta
from typing import Any

import pytest

from ronde.engine.clock import at_clock
from ronde.engine.commands import Command
from ronde.web.games import demo, service
from ronde.web.games.models import Action
from tests.web.conftest import START
from tests.web.storecheck import Worker, check_held, check_store

pytestmark = pytest.mark.django_db

_played: dict[tuple[int, int], demo.Played] = {}


def _played_game(seed: int, day: int, hour: int) -> demo.Played:
    key = (seed, day * 100 + hour)
    if key not in _played:
        _played[key] = demo.play_until(
            at_clock(START, day, hour, 0), start=START, seed=seed, players=28
        )
    return _played[key]


def _later_commands(seed: int) -> tuple[demo.Played, list[Command]]:
    """The bots' game stored at J2 12:00, and the commands they play after it, to J3 18:00."""
    first = _played_game(seed, 2, 9)
    longer = _played_game(seed, 4, 20)
    n = len(first.game.commands)
    return first, [c for c, _f, _e in longer.game.commands[n:]]


def _fuzz(seed: int, clock: Any) -> None:
    rng = random.Random(seed)
    first, commands = _later_commands(seed % 3 + 1)
    service.clear_cache()
    clock("J2 12:00")
    game = demo.store(first, slug=f"f-{uuid.uuid4().hex[:8]}", name="Fuzz")
    workers = [Worker() for _ in range(3)]
    deferred: list[Command] = []
    i = 0
    step = 0
    while i < len(commands):
        step += 1
        w = rng.choice(workers)
        with w:
            roll = rng.random()
            cmd = commands[i]
            if roll < 0.08:  # held back: recorded later, at its instant (a correction)
                deferred.append(cmd)
                i += 1
                continue
            if roll < 0.16 and deferred:
                late = deferred.pop(rng.randrange(len(deferred)))
                service.set_clock(max(cmd.at, late.at))
                out = service.record(game, None, late.action, late.by, dict(late.args), at=late.at)
                if not out.ok and out.preview is not None:
                    out = service.record(
                        game, None, late.action, late.by, dict(late.args), at=late.at,
                        confirm=out.token,
                    )  # fmt: skip
                continue
            if roll < 0.2:  # strike an action
                actions = list(Action.objects.filter(game=game, struck=False).order_by("pk"))
                if actions:
                    target = rng.choice(actions[-30:])
                    service.set_clock(max(cmd.at, service.load(game).state.clock or cmd.at))
                    game.refresh_from_db()
                    service.strike(game, target, "essai", None, game.version)
                continue
            if roll < 0.3:  # a batch: the commands of this instant
                batch = []
                while i < len(commands) and commands[i].at == cmd.at and len(batch) < 8:
                    batch.append(commands[i])
                    i += 1
                service.set_clock(cmd.at)
                service.record_many(game, None, [(c.action, c.by, dict(c.args)) for c in batch])
                continue
            if roll < 0.26:  # an award at now (sometimes the same as the last one)
                service.set_clock(cmd.at)
                who = rng.choice(["Joueur01", "Joueur02"])
                args = {"player": who, "points": 1, "reason": rng.choice(["a", "b"])}
                service.record(game, None, "award", rng.choice(["Mj", "Mj2"]), args)
                continue
            if roll < 0.33:
                w.forget()
            elif roll < 0.36:
                service.set_clock(cmd.at + timedelta(minutes=rng.choice([1, 30, 300])))
                service.tick(game)
            service.set_clock(cmd.at)
            service.record(game, None, cmd.action, cmd.by, dict(cmd.args))
            i += 1
        if step % 25 == 0:
            for other in workers:
                with other:
                    check_held(game)
    for other in workers:
        with other:
            check_held(game)
    check_store(game)


@pytest.mark.parametrize("seed", range(int(os.environ.get("RONDE_FUZZ_SEEDS", "1"))))
def test_fuzz_workers(clock: Any, seed: int) -> None:
    _fuzz(seed + int(os.environ.get("RONDE_FUZZ_FIRST", "0")), clock)


def test_fuzz_stats(clock: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    from ronde.web.games import eventstore

    calls = {"held": 0, "rows": 0, "gen": 0}
    original = eventstore.rows_between

    def counted(game: Any, lo: int, hi: int, actions: Any = None) -> Any:
        calls["held" if actions is not None else "rows"] += 1
        return original(game, lo, hi, actions)

    monkeypatch.setattr(eventstore, "rows_between", counted)
    for s in range(4):
        _fuzz(s, clock)
    from ronde.web.games.models import Generation

    calls["gen"] = Generation.objects.count()
    print(calls)
