"""Benchmarks of the store's corrections and of the dashboard (not tests): ``make bench``.

Games of about 3,000 and 50,000 events stored in a fresh SQLite file (or the database
of ``DATABASE_URL``), of two shapes:

- *spread*: the bots play from J1 to the evening of J12, game masters' awards spread
  over every time of every day (~250 or ~4,000 events a day);
- *last day*: the bots play to J5 09:00, then awards fill J5 (the shape of the games
  of ``bench_engine.py``'s store figures, in which most events are the last day's).

Measured, each against a baseline of the same run:

- a correction on the last day: an award inserted early that day (J12 00:30, J5
  10:00) through the service (the game locked, rebuilt from that instant, the new
  generation written), against re-executing that day's recorded actions in memory
  from a snapshot at the day's start, as a process replays it (nothing stored, the
  collector on). Goal: at most 2. Printed for reference: the engine's share alone
  (the same with the collector paused, as a correction pauses it: the part of a
  correction no store can save), and re-executing the whole game from its creation
  (what a correction cost before issue 23, in memory only);
- the game masters' dashboard after a write (every write changes the game's version:
  the page, its night and midnight reads are built again), the 50,000-event game
  against the 3,000-event one, the median of 15 pages of each, measured in turn.
  Goal: ~1 (flat in the log's length).

Speed is never asserted (this is not a test).
"""

from __future__ import annotations

import contextlib
import gc
import os
import statistics
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import Any

START = date(2026, 12, 1)
Row = tuple[str, str, str, str, str]


@dataclass(frozen=True)
class Shape:
    name: str
    until: tuple[int, int, int]  # (day, hour, minute) the bots stop at
    correction: tuple[int, int, int]  # when the correction is inserted
    day: int  # the last day (the correction's)
    spread: bool


SPREAD = Shape("spread over J1–J12", (12, 23, 0), (12, 0, 30), 12, True)
LAST = Shape("mostly on the last day, J5", (5, 9, 0), (5, 9, 0), 5, False)


def _setup() -> None:
    folder = Path(tempfile.mkdtemp(prefix="ronde-bench-store-"))
    os.environ.setdefault("RONDE_SQLITE_PATH", str(folder / "bench.sqlite3"))
    os.environ.setdefault("RONDE_DATA_DIR", str(folder))
    (Path(os.environ["RONDE_DATA_DIR"]) / "static").mkdir(parents=True, exist_ok=True)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ronde.web.settings")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def _played(events: int, shape: Shape) -> Any:
    """The bots' game with game masters' awards (see the module's docstring)."""
    from ronde.engine.clock import at_clock
    from ronde.web.games import demo

    until = at_clock(START, *shape.until)
    if shape.spread:
        slots = shape.day * 4
        per_slot = max(0, (events - 1_000) // slots)

        def awards(game: Any, t: datetime) -> None:
            clock = game.state.clock or t
            seats = list(game.state.players)
            step = (t - clock) / (per_slot + 1)
            for k in range(per_slot):
                who = game.state.pseudo(seats[k % len(seats)])
                game.act("award", "Mj", clock + step * (k + 1), player=who, points=1, reason="b")

        return demo.play_until(until, start=START, seed=3, between=awards, game_masters=("Mj",))
    played = demo.play_until(until, start=START, seed=3, game_masters=("Mj",))
    g = played.game
    seats = list(g.state.players)
    t0 = until
    k = 0
    while len(g.log) < events:
        who = g.state.pseudo(seats[k % len(seats)])
        g.act("award", "Mj", t0 + timedelta(milliseconds=200 * k), player=who, points=1, reason="b")
        k += 1
    played.until = g.state.clock
    return played


def _baselines(played: Any, shape: Shape) -> dict[str, float]:
    """Seconds to re-execute the last day's commands from a snapshot at its start (as a
    process replays it, the collector on; and the engine's share alone, the collector
    paused as a correction pauses it), and every command from the creation (best of 3
    each, in memory, after a collection)."""
    from ronde.catalog import default_catalog
    from ronde.engine.clock import day_start
    from ronde.engine.game import Game
    from ronde.web.games.corrections import collector_paused

    eng = played.game
    begin = day_start(START, shape.day)
    first = next(i for i, e in enumerate(eng.log) if e.at >= begin)
    day = [c for c, _a, _b in eng.commands if c.at >= begin]

    def timed(commands: list[Any], log: list[Any], *, paused: bool) -> float:
        g = Game.replay(log, default_catalog())
        gc.collect()
        with collector_paused() if paused else contextlib.nullcontext():
            t0 = time.perf_counter()
            for c in commands:
                g.execute(c)
            g.advance(played.until)
            took = time.perf_counter() - t0
        return took

    everything = [c for c, _a, _b in eng.commands]
    return {
        "day": min(timed(day, eng.log[:first], paused=False) for _ in range(3)),
        "engine": min(timed(day, eng.log[:first], paused=True) for _ in range(3)),
        "whole": min(timed(everything, eng.log[:1], paused=False) for _ in range(3)),
    }


def _median(fn: Callable[[int], float], n: int) -> float:
    return statistics.median(fn(i) for i in range(n))


def _measure(size: int, shape: Shape, *, dashboard: bool) -> dict[str, Any]:
    from django.db import connection
    from django.test import Client
    from django.urls import reverse

    from ronde.engine.clock import at_clock
    from ronde.web.games import demo, service

    played = _played(size, shape)
    service.set_clock(played.until + timedelta(minutes=30))
    base = _baselines(played, shape)
    slug = f"banc-{size}-{shape.day}"
    game = demo.store(played, slug=slug, name="Banc", gm_password="banc-mj-1")
    service.clear_cache()
    seat = service.load(game).state.pseudo(next(iter(played.game.state.players)))

    def correct(i: int) -> float:
        when = at_clock(START, *shape.correction) + timedelta(seconds=i)
        args = {"player": seat, "points": 1, "reason": f"correction {i}"}
        t0 = time.perf_counter()
        done = service.record(game, None, "award", "Mj", args, at=when)
        took = time.perf_counter() - t0
        assert done.ok and done.preview is not None, done.message
        return took

    out: dict[str, Any] = {"events": float(game.last_seq), **base}
    out["correction"] = _median(correct, 5)
    if dashboard:
        client = Client(HTTP_HOST="localhost")
        gm = game.game_masters.select_related("user").first()
        assert gm is not None and gm.user is not None
        user = gm.user
        url = reverse("gm_dashboard", args=[game.slug])

        def page(i: int) -> float:
            if i == 0:  # (logged in again: the next game stored may reset his password)
                user.refresh_from_db()
                client.force_login(user)
                if connection.vendor == "postgresql":
                    # the statistics of tables just filled in bulk, as autovacuum would
                    # make them (a game filled day by day is analysed as it grows)
                    with connection.cursor() as cursor:
                        cursor.execute("ANALYZE")
                client.get(url)
            args = {"player": seat, "points": 1, "reason": f"écriture {i}"}
            service.record(game, None, "award", "Mj", args)  # (a new version: rebuilt)
            t0 = time.perf_counter()
            response = client.get(url)
            took = time.perf_counter() - t0
            assert response.status_code == 200, response.status_code
            return took

        out["page"] = page
    return out


#: dashboards measured for each game, one game's and the other's in turn (a load that
#: comes and goes on the machine weighs on both alike)
PAGES = 15


def _dashboards(small: Callable[[int], float], big: Callable[[int], float]) -> tuple[float, float]:
    """The median seconds of the dashboard after a write, of either game."""
    times: tuple[list[float], list[float]] = ([], [])
    for i in range(PAGES):
        times[0].append(small(i))
        times[1].append(big(i))
    return statistics.median(times[0]), statistics.median(times[1])


def figures() -> list[Row]:
    _setup()
    rows: list[Row] = []
    dashboards: list[dict[str, Any]] = []
    for shape in (SPREAD, LAST):
        if shape is LAST:  # (both spread games stored: their dashboards in turn)
            small, big = dashboards
            small["dashboard"], big["dashboard"] = _dashboards(small["page"], big["page"])
        for size in (3_000, 50_000):
            f = _measure(size, shape, dashboard=shape is SPREAD)
            if shape is SPREAD:
                dashboards.append(f)
            rows.append(
                (
                    f"correction on the last day, {f['events']:,.0f}-event game, {shape.name} (ms)",
                    f"{f['correction'] * 1e3:.0f}",
                    f"re-executing that day in memory: {f['day'] * 1e3:.0f} "
                    f"(the engine's share, the collector paused: {f['engine'] * 1e3:.0f}; "
                    f"the whole game, as before issue 23: {f['whole'] * 1e3:.0f})",
                    f"{f['correction'] / f['day']:.2f}",
                    "≤ 2",
                )
            )
    small, big = dashboards
    rows.append(
        (
            f"dashboard after a write, {small['events']:,.0f} / {big['events']:,.0f} events (ms)",
            f"{small['dashboard'] * 1e3:.1f} / {big['dashboard'] * 1e3:.1f}",
            "the small game's",
            f"{big['dashboard'] / small['dashboard']:.2f}",
            "~1 (flat in the log's length)",
        )
    )
    return rows


def main() -> None:
    rows = figures()
    print("| measure | Ronde | baseline (same run) | ratio | goal |")
    print("| --- | --- | --- | --- | --- |")
    for row in rows:
        print("| " + " | ".join(cell or "—" for cell in row) + " |")


if __name__ == "__main__":
    main()
