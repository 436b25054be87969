"""Benchmarks of the engine (not tests): ``make bench``.

- replay speed of a full simulated 28-player game log, in events per second,
  from events in memory and from JSON Lines text;
- complete simulated 13-day, 28-player games per second on one core;
- the memory held by one game's state after replay;
- the store (issue #10): loading a game after another worker's write, at ~3,000
  and ~50,000 events, against a baseline measured in the same run (the cold load
  of the small game, which replays its whole log from the database).

Targets (issue #2, 2-core machines): replay >= 100,000 events/s, simulator
>= 10 games/s, a game's state under 5 MB.
"""

from __future__ import annotations

import os
import random
import statistics
import tempfile
import threading
import time
import tracemalloc
from datetime import date, timedelta
from pathlib import Path

import orjson

from ronde.catalog import default_catalog
from ronde.engine.events import from_json
from ronde.engine.game import Game
from ronde.sim import play
from ronde.store import dumps


def _best(fn, repeat: int = 5) -> float:  # type: ignore[no-untyped-def]
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def _store_game(events: int, slug: str):  # type: ignore[no-untyped-def]
    """A game of about ``events`` events in the store: bots to J5, then awards."""
    from ronde.engine.clock import at_clock
    from ronde.web.games import demo

    start = date(2026, 12, 1)
    played = demo.play_until(at_clock(start, 5, 9, 0), start=start, seed=3)
    g = played.game
    seats = list(g.state.players)
    t0 = at_clock(start, 5, 9, 0)
    k = 0
    while len(g.log) < events:
        who = g.state.pseudo(seats[k % len(seats)])
        g.act("award", "Mj", t0 + timedelta(milliseconds=50 * k), player=who, points=1, reason="x")
        k += 1
    return demo.store(played, slug=slug, name=slug)


def store_figures() -> list[tuple[str, str]]:
    """Milliseconds to load a game after another thread wrote to it (median of 15)."""
    folder = Path(tempfile.mkdtemp(prefix="ronde-bench-"))
    os.environ["RONDE_SQLITE_PATH"] = str(folder / "bench.sqlite3")
    os.environ["RONDE_DATA_DIR"] = str(folder)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ronde.web.settings")
    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connection

    from ronde.engine.clock import at_clock
    from ronde.web.games import service

    call_command("migrate", verbosity=0)
    service.set_clock(at_clock(date(2026, 12, 1), 5, 12, 0))

    import queue

    jobs: queue.Queue = queue.Queue()  # type: ignore[type-arg]
    done: queue.Queue = queue.Queue()  # type: ignore[type-arg]

    def writer() -> None:  # another worker: it keeps its own copy of the game
        while (game := jobs.get()) is not None:
            who = service.load(game).state.pseudo(next(iter(service.load(game).state.players)))
            service.record(game, None, "award", "Mj", {"player": who, "points": 1, "reason": "b"})
            done.put(True)
        connection.close()

    worker = threading.Thread(target=writer)
    worker.start()

    def write(game, n: int) -> None:  # type: ignore[no-untyped-def]
        jobs.put(game)
        done.get()

    out: dict[int, tuple[float, float, int]] = {}
    for size in (3_000, 50_000):
        game = _store_game(size, f"bench-{size}")
        service.clear_cache()
        t0 = time.perf_counter()
        service.load(game)
        cold = time.perf_counter() - t0
        times = []
        for i in range(15):
            write(game, i)
            t0 = time.perf_counter()
            service.load(game)
            times.append(time.perf_counter() - t0)
        out[size] = (cold, statistics.median(times), game.last_seq)
    jobs.put(None)
    worker.join()
    small, big = out[3_000], out[50_000]
    base = small[0]
    return [
        ("store: cold load, full replay from the database (ms)",
         f"{small[0] * 1e3:.1f} at {small[2]:,} events, {big[0] * 1e3:.1f} at {big[2]:,}"),
        ("store: load after another worker's write (ms)",
         f"{small[1] * 1e3:.2f} at {small[2]:,} events, {big[1] * 1e3:.2f} at {big[2]:,}"),
        ("store: load after a write / cold load of the small game (baseline)",
         f"{small[1] / base:.3f} at {small[2]:,}, {big[1] / base:.3f} at {big[2]:,}"),
        ("store: load after a write, 50,000 / 3,000 events (target ~1)",
         f"{big[1] / small[1]:.2f}"),
    ]  # fmt: skip


def main() -> None:
    catalog = default_catalog()
    rng = random.Random(2026)
    res = play(28, rng)
    log = res.game.log
    text = dumps(log)
    n = len(log)

    replay_s = _best(lambda: Game.replay(log, catalog))

    def from_text() -> None:
        events = [from_json(orjson.loads(line)) for line in text.splitlines()]
        Game.replay(events, catalog)

    text_s = _best(from_text)

    games = 30
    sim_rng = random.Random(7)
    t0 = time.perf_counter()
    for _ in range(games):
        play(28, sim_rng)
    sim_s = time.perf_counter() - t0

    tracemalloc.start()
    before = tracemalloc.take_snapshot()
    game = Game.replay(log, catalog)
    after = tracemalloc.take_snapshot()
    tracemalloc.stop()
    state_bytes = sum(s.size_diff for s in after.compare_to(before, "filename"))
    del game

    rows = [
        ("events in the log of one simulated game", f"{n}"),
        ("replay from memory (events/s)", f"{n / replay_s:,.0f}"),
        ("replay from JSON Lines (events/s)", f"{n / text_s:,.0f}"),
        ("simulated 28-player games per second (one core)", f"{games / sim_s:.1f}"),
        ("memory of one replayed game (state + log, MB)", f"{state_bytes / 1e6:.2f}"),
    ]
    rows += store_figures()
    width = max(len(r[0]) for r in rows)
    for label, value in rows:
        print(f"{label:<{width}}  {value}")


if __name__ == "__main__":
    main()
