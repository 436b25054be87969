"""Benchmark of ``ronde simulate --compare --jobs`` (not a test): ``make bench``.

The same games (default rules, 28 players, seed 2029) are played with 1 job (in this
process) and with 2 jobs (two spawned worker processes), side by side in one run, in
turns (1, 2, 1, 2: the machine's drift hits both); each is timed by the wall clock
(workers' start included) and by the CPU time its games used. Printed: games per
second for each, their ratio (the goal: at least 1.7 on two cores), the CPU seconds per
game for each (equal if splitting the work costs nothing), the same ratio from CPU
time (what two idle cores would give: games per CPU second per job, from the games'
own CPU time and from the whole run's, the workers' start included), and the load
average before and after: on a shared machine whose other users keep the cores busy,
the wall-clock ratio falls with their load, while the CPU-time ratios do not (the
cores' shared caches still slow both a little).

Also checked on the way: both give the same CSV (the same games whatever ``--jobs``).
"""

from __future__ import annotations

import os
import resource
import sys
import time

from ronde.simcompare import Timing, run, variants
from ronde.simreport import csv_text

GAMES = int(os.environ.get("RONDE_BENCH_SIM_GAMES", "60"))
ROUNDS = 2


def measure(jobs: int) -> tuple[Timing, float, str]:
    """The run's timing, and the CPU seconds of the whole run: this process's for 1 job,
    the workers' (their start, imports and messages included; reaped at the pool's end)
    for 2 jobs."""
    timing = Timing()
    own, children = time.process_time(), resource.getrusage(resource.RUSAGE_CHILDREN)
    result = run(
        seed=2029, games=GAMES, players=28, variants=variants([]), jobs=jobs, timing=timing
    )
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if jobs == 1:
        cpu = time.process_time() - own
    else:
        cpu = (after.ru_utime + after.ru_stime) - (children.ru_utime + children.ru_stime)
    return timing, cpu, csv_text(result)


def main() -> None:
    load_before = os.getloadavg()
    best: dict[int, Timing] = {}
    whole: dict[int, float] = {}
    texts: dict[int, str] = {}
    for _ in range(ROUNDS):
        for jobs in (1, 2):
            timing, cpu, text = measure(jobs)
            texts[jobs] = text
            if jobs not in best or timing.wall < best[jobs].wall:
                best[jobs] = timing
            whole[jobs] = min(whole.get(jobs, cpu), cpu)
    load_after = os.getloadavg()
    one, two = best[1], best[2]
    rate1, rate2 = one.games / one.wall, two.games / two.wall
    cpu1, cpu2 = one.cpu / one.games, two.cpu / two.games
    print(f"\n### Simulator over processes ({GAMES} games of 28 players, best of {ROUNDS})\n")
    print("| measure | 1 job | 2 jobs | ratio | goal |")
    print("| --- | --- | --- | --- | --- |")
    print(
        f"| games per second (wall clock, workers' start included) | {rate1:.2f} | "
        f"{rate2:.2f} | {rate2 / rate1:.2f} | ≥ 1.7 |"
    )
    print(f"| CPU seconds per game | {cpu1:.3f} | {cpu2:.3f} | {cpu1 / cpu2:.2f} | ~1 |")
    print(
        f"| games per second if each job had a core of its own (the games' CPU time) | "
        f"{1 / cpu1:.2f} | {2 / cpu2:.2f} | {2 * cpu1 / cpu2:.2f} | ≥ 1.7 |"
    )
    print(
        f"| the same, the whole run's CPU time (workers' start, imports, messages) | "
        f"{GAMES / whole[1]:.2f} | {2 * GAMES / whole[2]:.2f} | "
        f"{2 * whole[1] / whole[2]:.2f} | ≥ 1.7 |"
    )
    print(
        f"\nLoad average (1 min) before / after: {load_before[0]:.1f} / {load_after[0]:.1f} "
        f"on {os.cpu_count()} cores: above ~0.5 the wall-clock ratio measures the other users "
        "as much as the simulator."
    )
    same = texts[1] == texts[2]
    print(f"Same CSV with 1 and 2 jobs: {'yes' if same else 'NO'}.")
    if not same:
        sys.exit(1)


if __name__ == "__main__":
    main()
