"""The replay's and the commands' fast paths of issue 14 change no game and no view.

Property: a simulated game played with each of them replaced by what it stands for
(every trial scanned instead of those from ``GameState.unsettled_trials``; each day
counted afresh instead of ``GameState.day_cache``; every verdict snapshot a full copy
instead of sharing with the last one; the verdicts' instants looked at on every event
instead of at the ``due`` time; the changes of a verdict during its instant found at
each what-if instead of once per event count; no fast path for "no verdict waits")
is the same game, event for event, and every view read during it (each player's, the
public's, the game masters'), on the game as played and as its log replays it, is the
same.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from datetime import datetime
from typing import Any
from unittest import mock

import pytest

from ronde import sim
from ronde.catalog import default_catalog
from ronde.engine import evolve, unmasking
from ronde.engine import game as game_module
from ronde.engine.clock import counting_day
from ronde.engine.game import Game
from ronde.engine.state import GameState
from ronde.engine.views import GAME_MASTER, PUBLIC, view
from ronde.store import dumps

from .state_dump import canonical


class _NoVerdictNow(dict[str, tuple[int, Any]]):
    """A game's memo that keeps no ``verdict_now`` entry (found again at each what-if)."""

    def __setitem__(self, key: str, value: tuple[int, Any]) -> None:
        if not key.startswith("verdict_now:"):
            super().__setitem__(key, value)


@contextmanager
def _without_fast_paths() -> Iterator[None]:
    def day(self: GameState, t: datetime | None = None) -> int:
        when = t if t is not None else self.clock
        return 0 if when is None else counting_day(self.start, when, self.options)

    def new_state(*args: Any, **kwargs: Any) -> GameState:
        g = evolve.new_state(*args, **kwargs)
        g.memo_cache = _NoVerdictNow(g.memo_cache)
        return g

    def due(g: GameState) -> datetime | None:
        return evolve._NOW if g.verdict_flags else None

    with ExitStack() as stack:
        for target, name, value in [
            (GameState, "unsettled_trials", lambda self: self.trials),
            (GameState, "day", day),
            (evolve, "_flags_snapshot", lambda g: evolve._snapshot(g.flags)),
            (evolve, "_verdict_due", due),
            (unmasking, "pending_now", lambda g: True),
            (game_module, "new_state", new_state),
        ]:
            stack.enter_context(mock.patch.object(target, name, value))
        yield


def _views(game: Game) -> list[Any]:
    g = game.state
    viewers = [PUBLIC, GAME_MASTER, *(p.pseudo for p in g.players.values())]
    return [sorted(unmasking.pending_verdicts(g)), *[view(g, v) for v in viewers]]


def _played(seed: int, posts: float) -> tuple[str, list[tuple[int, list[Any]]]]:
    read: list[tuple[int, list[Any]]] = []
    turn = sim._game_master_turn

    def reading(game: Game, day: int, at: datetime, *args: Any, **kwargs: Any) -> None:
        if random.Random(f"{seed}|{at}").random() < 0.5:
            # (the game as played, then as a replay of its log rebuilds it: one loop)
            replayed = Game.replay(game.log, default_catalog())
            assert canonical(replayed.state) == canonical(game.state)
            read.append((len(game.log), [*_views(game), *_views(replayed)]))
        turn(game, day, at, *args, **kwargs)

    with mock.patch.object(sim, "_game_master_turn", reading):
        res = sim.play(28, random.Random(seed), posts=posts)
    return dumps(res.game.log), read


@pytest.mark.parametrize(("seed", "posts"), [(3, 0.0), (4, 0.65), (6, 0.0), (7, 0.65)])
def test_the_fast_paths_change_no_game_and_no_view(seed: int, posts: float) -> None:
    fast = _played(seed, posts)
    with _without_fast_paths():
        plain = _played(seed, posts)
    assert fast[0].count("\n") > 500  # a whole game
    assert any(readings[0] for _n, readings in fast[1])  # read while verdicts waited
    assert fast[0] == plain[0]
    assert fast[1] == plain[1]
