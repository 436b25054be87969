"""Benchmarks of the engine (not tests): ``make bench``.

Each measure is printed with a baseline measured in the same run and their ratio
(figures vary with the machine's load; ratios much less), as one Markdown table
(the README's engine table is this output):

- replay from JSON Lines text of a full game (13 days, 28 players, ~3,000 events:
  the bots also post in the trials' topics; the first game from seed 2026 on with at
  least 2,900 events) by the store's
  :func:`ronde.store.replay_text` (every line decoded into its event, the state
  rebuilt), against ``orjson.loads`` plus one dict update per line, both from the
  bytes of the log's file (what the store reads: UTF-8, not yet decoded);
- replay of the same game from its events in memory, against one dict update per
  event;
- one simulated 13-day 28-player game, against replaying that game's own log;
- the memory of a replayed game, its events included, against its JSON text;
- the store (issue #10): loading a game after another worker's write, at ~3,000
  and ~50,000 events, against the cold load of the small game and against each
  other (flat in the log's length: ~1).

A second table says where a simulated game's time goes: the engine's commands by
action, its timers and the rest (the bots' decisions), each part against replaying the
events it recorded and what it adds to the simulated game's ratio.

Speed is never asserted (this is not a test).
"""

from __future__ import annotations

import gc
import os
import random
import statistics
import tempfile
import threading
import time
import tracemalloc
from collections.abc import Callable
from datetime import date, datetime, timedelta
from pathlib import Path

import orjson

from ronde.catalog import default_catalog
from ronde.engine.commands import Command
from ronde.engine.events import Event
from ronde.engine.game import Game
from ronde.sim import play
from ronde.store import dumps, replay_text

#: the bots' chance to post in each open trial at each time of day: ~3,000 events
POSTS = 0.65
#: the full game: the first simulated game from seed 2026 on with at least this many
#: events (games with posts run from ~1,800 to ~3,300 events, as their trials go)
FULL_GAME = 2_900


def _full_game() -> list[Event]:
    seed = 2026
    while len(log := play(28, random.Random(seed), posts=POSTS).game.log) < FULL_GAME:
        seed += 1
    return log


Row = tuple[str, str, str, str, str]


def _best(fn: Callable[[], object], repeat: int = 7) -> float:
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def _pair(
    fn: Callable[[], object], base: Callable[[], object], rounds: int = 41
) -> tuple[float, float]:
    """Best times of ``fn`` and ``base``, run in turn, one run each at a time (the
    machine's drift hits both; this shared machine slows down in bursts of seconds,
    so many short turns, each a few milliseconds)."""
    a = b = float("inf")
    for _ in range(rounds):
        a = min(a, _best(fn, 1))
        b = min(b, _best(base, 1))
    return a, b


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


def store_figures() -> list[Row]:
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
    at = f"{small[2]:,} / {big[2]:,} events"
    return [
        (f"store: cold load, full replay from the database, {at} (ms)",
         f"{small[0] * 1e3:.0f} / {big[0] * 1e3:.0f}", "", "", ""),
        (f"store: load after another worker's write, {at} (ms)",
         f"{small[1] * 1e3:.2f} / {big[1] * 1e3:.2f}",
         f"cold load of the small game: {small[0] * 1e3:.0f}",
         f"{small[1] / small[0]:.3f} / {big[1] / small[0]:.3f}", ""),
        ("store: load after a write, 50,000-event / 3,000-event game",
         f"{big[1] * 1e3:.2f} ms", f"{small[1] * 1e3:.2f} ms", f"{big[1] / small[1]:.2f}",
         "~1 (flat in the log's length)"),
    ]  # fmt: skip


def engine_figures() -> list[Row]:
    catalog = default_catalog()
    full = _full_game()
    text = dumps(full).encode()  # (the bytes of its file, as the store reads them)
    lines = text.splitlines()
    n = len(full)

    def from_text() -> None:  # what the store does with a log file's bytes
        replay_text(text, catalog)

    def parse_only() -> None:  # the baseline: parse each line, one dict update
        state: dict[str, object] = {}
        for line in lines:
            state.update(orjson.loads(line))

    text_s, parse_s = _pair(from_text, parse_only)

    def from_memory() -> None:
        Game.replay(full, catalog)

    def update_only() -> None:  # the baseline: one dict update per event
        state: dict[type, object] = {}
        for e in full:
            state[type(e)] = e

    memory_s, update_s = _pair(from_memory, update_only)

    # one simulated game (no posts) against replaying its own log, game by game
    sims, replays = [], []
    for seed in range(12):
        t0 = time.perf_counter()
        res = play(28, random.Random(seed))
        sims.append(time.perf_counter() - t0)
        replays.append(_best(lambda log=res.game.log: Game.replay(log, catalog), 5))  # type: ignore[misc]
    sim_s, replay_s = statistics.median(sims), statistics.median(replays)
    ratio = statistics.median(a / b for a, b in zip(sims, replays, strict=True))

    # the memory of a replayed game, its events included (read from its text)
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.take_snapshot()
    game = replay_text(text, catalog)
    after = tracemalloc.take_snapshot()
    tracemalloc.stop()
    held = sum(s.size_diff for s in after.compare_to(before, "filename"))
    text_bytes = sum(len(line) + 1 for line in lines)
    del game

    return [
        (f"replay from JSON Lines text, {n:,}-event game (events/s)",
         f"{n / text_s:,.0f}", f"`orjson.loads` + one dict update per line: {n / parse_s:,.0f}",
         f"{parse_s / text_s:.3f}", "≥ 0.5"),
        ("replay from events in memory, same game (events/s)",
         f"{n / memory_s:,.0f}", f"one dict update per event: {n / update_s:,.0f}",
         f"{update_s / memory_s:.3f}", "keep ≥ 500,000 events/s"),
        ("one simulated 13-day 28-player game (ms, median of 12)",
         f"{sim_s * 1e3:.1f} ({1 / sim_s:.1f} games/s)",
         f"replaying the same game's log: {replay_s * 1e3:.2f}", f"{ratio:.1f}×", "≤ 10×"),
        (f"memory of the replayed {n:,}-event game, its events included (MB)",
         f"{held / 1e6:.2f}", f"its JSON Lines text: {text_bytes / 1e6:.2f}",
         f"{held / text_bytes:.2f}", "< 5 MB"),
    ]  # fmt: skip


def sim_breakdown(games: int = 12) -> list[Row]:
    """Where a simulated game's time goes: the engine's commands by action, its timers
    (ends of days, trials' expiries) and the rest (the bots' decisions, their briefs and
    the simulator's loop), each against replaying the game's log. Timed by a wrapper
    around ``Game.execute`` and ``Game.advance`` (a microsecond or so per call, counted
    in), so the shares add up to the instrumented game, a little slower than the row
    of the main table."""
    catalog = default_catalog()
    spent: dict[str, float] = {}
    calls: dict[str, int] = {}
    recorded: dict[str, int] = {}
    fired_time, fired_events = [0.0], [0]  # of the timers fired so far
    execute, advance = Game.execute, Game.advance

    def note(part: str, took: float, events: int) -> None:
        spent[part] = spent.get(part, 0.0) + took
        calls[part] = calls.get(part, 0) + 1
        recorded[part] = recorded.get(part, 0) + events

    def timed_advance(self: Game, t: datetime) -> list[Event]:
        t0, n = time.perf_counter(), len(self.log)
        try:
            return advance(self, t)
        finally:
            took, events = time.perf_counter() - t0, len(self.log) - n
            fired_time[0] += took
            fired_events[0] += events
            note("timers", took, events)

    def timed_execute(self: Game, cmd: Command) -> list[Event]:
        t0, n, i0, e0 = time.perf_counter(), len(self.log), fired_time[0], fired_events[0]
        try:
            return execute(self, cmd)
        finally:  # (the timers it fired first are the timers')
            took = time.perf_counter() - t0 - (fired_time[0] - i0)
            note(cmd.action, took, len(self.log) - n - (fired_events[0] - e0))

    whole = replayed = 0.0
    events = 0
    Game.execute, Game.advance = timed_execute, timed_advance  # type: ignore[method-assign]
    try:
        for seed in range(games):
            t0 = time.perf_counter()
            res = play(28, random.Random(seed))
            whole += time.perf_counter() - t0
            Game.execute, Game.advance = execute, advance  # type: ignore[method-assign]
            log = res.game.log
            replayed += _best(lambda log=log: Game.replay(log, catalog), 5)  # type: ignore[misc]
            events += len(log)
            Game.execute, Game.advance = timed_execute, timed_advance  # type: ignore[method-assign]
    finally:
        Game.execute, Game.advance = execute, advance  # type: ignore[method-assign]
    per_event = replayed / events
    engine = sum(spent.values())
    parts = sorted(spent, key=lambda k: -spent[k])
    top = [k for k in parts if k != "timers"][:8]
    rest = [k for k in parts if k != "timers" and k not in top]
    spent["other commands"] = sum(spent[k] for k in rest)
    calls["other commands"] = sum(calls[k] for k in rest)
    recorded["other commands"] = sum(recorded[k] for k in rest)

    def row(label: str, part: str) -> Row:
        took, n, ev = spent[part], calls[part], recorded[part]
        return (
            label,
            f"{n / games:.0f} × {took / n * 1e6:.0f} µs, {ev / n:.1f} events each",
            f"{took / games * 1e3:.2f} ms ({took / whole:.0%})",
            f"{took / (ev * per_event):.0f}×" if ev else "—",
            f"{took / replayed:.1f}×",
        )

    bots = whole - engine
    return [
        *[row(f"command `{k}`", k) for k in top],
        row(f"{len(rest)} other commands", "other commands"),
        row("timers: ends of days, expiries, cut-off", "timers"),
        ("the bots' decisions, briefs and the simulator's loop", "—",
         f"{bots / games * 1e3:.2f} ms ({bots / whole:.0%})", "—",
         f"{bots / replayed:.1f}×"),
        ("the whole simulated game (instrumented)",
         f"{events / games:.0f} events", f"{whole / games * 1e3:.2f} ms",
         f"{whole / replayed:.0f}×", f"{whole / replayed:.1f}×"),
    ]  # fmt: skip


def main() -> None:
    rows = engine_figures() + store_figures()
    print("| measure | Ronde | baseline (same run) | ratio | goal |")
    print("| --- | --- | --- | --- | --- |")
    for row in rows:
        print("| " + " | ".join(cell or "—" for cell in row) + " |")
    print()
    print("Where a simulated game's time goes (12 games, medians not taken: totals):")
    print()
    print("| part | per game | time per game | vs replaying its events | adds to the ratio |")
    print("| --- | --- | --- | --- | --- |")
    for row in sim_breakdown():
        print("| " + " | ".join(row) + " |")


if __name__ == "__main__":
    main()
