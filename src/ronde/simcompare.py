"""``ronde simulate --compare``: the default rules and house-rule variants played on the
same games, over processes.

Game ``i`` of a run with seed ``S`` is played by :func:`play_one` from
``Streams(S, i)`` under each variant's options: the same cast, Ronde and engine seed,
and each bot's draws keyed by (seat, day), so a variant changes only what its rule
changes (paired games). A game is the same whichever process plays it and whatever
``--jobs``: the figures are gathered by game index, and the CSV is written in that order.

Workers are started with ``spawn`` (safe on every platform, nothing inherited but the
arguments) and ignore Ctrl-C: the parent stops handing out games, keeps those done
and writes the partial report.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .simreport import DEFAULT, Run, figures, print_report, variant_options, write_report

#: games per task handed to a worker: few enough to share the work evenly at the end,
#: enough that a task's round trip is small against its ~0.2 s per game
CHUNK = 2


@dataclass(frozen=True)
class Variant:
    label: str
    options: dict[str, str]


def variants(texts: Sequence[str]) -> list[Variant]:
    """The default rules, then each ``OPTION=VALUE`` (checked: :class:`ReportError`)."""
    out = [Variant(DEFAULT, {})]
    for text in texts:
        label, options = variant_options(text)
        if all(v.label != label for v in out):
            out.append(Variant(label, options))
    return out


def play_one(seed: int, index: int, players: int, options: dict[str, str]) -> dict[str, float]:
    """The figures of game ``index`` of the run ``seed`` under ``options``."""
    # (lazy: a worker imports the simulator once, at its first game)
    from .sim import LATE, Streams, play

    return figures(play(players, Streams(seed, index), options=options or None, late=LATE))


def play_games(
    seed: int, indexes: Sequence[int], players: int, variants: Sequence[Variant]
) -> list[tuple[int, str, dict[str, float], float]]:
    """A worker's task: each game of ``indexes`` under each variant, with its CPU time."""
    out = []
    for i in indexes:
        for v in variants:
            t0 = time.process_time()
            row = play_one(seed, i, players, v.options)
            out.append((i, v.label, row, time.process_time() - t0))
    return out


def _quiet_worker() -> None:
    """A worker leaves Ctrl-C to its parent (which stops the run and keeps what is done)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _chunks(games: int, size: int) -> Iterator[list[int]]:
    for start in range(0, games, size):
        yield list(range(start, min(games, start + size)))


@dataclass
class Timing:
    wall: float = 0.0
    #: CPU seconds spent in the games, all processes together
    cpu: float = 0.0
    games: int = 0


def run(
    *,
    seed: int,
    games: int,
    players: int,
    variants: Sequence[Variant],
    jobs: int = 1,
    advance: Callable[[int], None] | None = None,
    timing: Timing | None = None,
) -> Run:
    """Play ``games`` paired games under each variant on ``jobs`` processes (1: here).
    ``advance(n)`` is told of each ``n`` games done (every variant of them). Ctrl-C
    (KeyboardInterrupt) stops it: the run returned has the games done, marked
    ``interrupted``."""
    result = Run(seed=seed, games=games, players=players, variants=[v.label for v in variants])
    for v in variants:
        result.rows[v.label] = {}
    timing = timing if timing is not None else Timing()
    began = time.perf_counter()

    def take(rows: list[tuple[int, str, dict[str, float], float]]) -> None:
        for i, label, row, cpu in rows:
            result.rows[label][i] = row
            timing.cpu += cpu
        timing.games += len(rows)
        if advance is not None:
            advance(len({i for i, *_ in rows}))

    try:
        if jobs <= 1:
            for chunk in _chunks(games, 1):
                take(play_games(seed, chunk, players, variants))
        else:
            _run_pool(seed, games, players, variants, jobs, take)
    except KeyboardInterrupt:
        result.interrupted = True
    timing.wall = time.perf_counter() - began
    return result


def _run_pool(
    seed: int,
    games: int,
    players: int,
    variants: Sequence[Variant],
    jobs: int,
    take: Callable[[list[tuple[int, str, dict[str, float], float]]], None],
) -> None:
    context = multiprocessing.get_context("spawn")
    pool = ProcessPoolExecutor(max_workers=jobs, mp_context=context, initializer=_quiet_worker)
    todo = _chunks(games, CHUNK)
    running: set[Future[list[tuple[int, str, dict[str, float], float]]]] = set()
    try:
        # a few tasks ahead per worker: none waits, none is handed out long before it runs
        for chunk in todo:
            running.add(pool.submit(play_games, seed, chunk, players, list(variants)))
            if len(running) >= 2 * jobs:
                break
        while running:
            done, running = wait(running, return_when=FIRST_COMPLETED)
            for f in done:
                take(f.result())
                more = next(todo, None)
                if more is not None:
                    running.add(pool.submit(play_games, seed, more, players, list(variants)))
    except KeyboardInterrupt:
        for f in running:
            f.cancel()
        # the tasks under way end within a second or two: their games are kept
        pool.shutdown(wait=True, cancel_futures=True)
        for f in running:
            if f.done() and not f.cancelled() and f.exception() is None:
                take(f.result())
        raise
    pool.shutdown(wait=True)


def run_cli(
    console: Any,
    *,
    compare: Sequence[str],
    games: int,
    players: int,
    seed: int | None,
    jobs: int,
    report: Path | None,
) -> int:
    """The body of ``ronde simulate --compare``; returns the exit status."""
    # (lazy: the progress bar is for the terminal only)
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeRemainingColumn,
    )

    chosen = variants(compare)
    if seed is None:
        seed = int.from_bytes(os.urandom(4), "big")
    timing = Timing()
    with Progress(
        TextColumn("[progress.description]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        console=console,
        transient=True,
    ) as progress:
        task = progress.add_task(f"Parties ({len(chosen)} règles chacune)", total=games)
        result = run(
            seed=seed,
            games=games,
            players=players,
            variants=chosen,
            jobs=jobs,
            advance=lambda n: progress.advance(task, n),
            timing=timing,
        )
    done = len(result.paired())
    if result.interrupted:
        console.print(f"[bold]Interrompu[/bold] : {done} parties sur {games} gardées.")
    print_report(console, result)
    rate = timing.games / timing.wall if timing.wall else 0.0
    console.print(
        f"{timing.games} parties jouées en {timing.wall:.1f} s ({rate:.1f} parties/s, "
        f"{jobs} processus), graine {seed}."
    )
    if report is not None:
        paths = write_report(result, report)
        console.print("Rapport : " + ", ".join(str(p) for p in paths), highlight=False)
    return 130 if result.interrupted else 0
