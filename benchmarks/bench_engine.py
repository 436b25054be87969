"""Benchmarks of the engine (not tests): ``make bench``.

- replay speed of a full simulated 28-player game log, in events per second,
  from events in memory and from JSON Lines text;
- complete simulated 13-day, 28-player games per second on one core;
- the memory held by one game's state after replay.

Targets (issue #2, 2-core machines): replay >= 100,000 events/s, simulator
>= 10 games/s, a game's state under 5 MB.
"""

from __future__ import annotations

import random
import time
import tracemalloc

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
    width = max(len(r[0]) for r in rows)
    for label, value in rows:
        print(f"{label:<{width}}  {value}")


if __name__ == "__main__":
    main()
