"""The read caches kept across what-ifs change nothing anyone reads (issue 14, A77).

A what-if (``unmasking.before_verdicts`` for views, ``as_known`` for commands and
timers) sets the game's read caches aside and puts its own in their place; both are
kept for the next time. Property: while verdicts wait for their announcement, every
view (each player's, the public's, the game masters') and what the rules read of the
game (``hidden_unmaskings``, the live slots) is the same on the played game, its
caches warm from many what-ifs, as on the same game rebuilt from its log with no cache
at all; and reading views leaves the game itself as it was.
"""

from __future__ import annotations

import random
from datetime import datetime
from typing import Any

import pytest

from ronde import sim
from ronde.catalog import default_catalog
from ronde.engine.evolve import evolve_all
from ronde.engine.game import Game
from ronde.engine.ronde import live_slots
from ronde.engine.state import GameState
from ronde.engine.unmasking import before_verdicts, hidden_unmaskings, pending_verdicts
from ronde.engine.views import GAME_MASTER, PUBLIC, view

from .state_dump import canonical


def _readings(g: GameState) -> list[Any]:
    viewers = [PUBLIC, GAME_MASTER, *(p.pseudo for p in g.players.values())]
    return [
        sorted(hidden_unmaskings(g).items()),
        sorted(live_slots(g)),
        *[view(g, v) for v in viewers],
    ]


def _check(game: Game, checked: list[int]) -> None:
    g = game.state
    if not pending_verdicts(g) or g.clock != game.log[-1].at:
        return
    before = canonical(g)
    warm = _readings(g)
    assert canonical(g) == before  # reading through the what-ifs changed nothing
    cold = Game.replay(game.log, default_catalog()).state
    assert _readings(cold) == warm
    assert _readings(g) == warm  # and again, from the caches the first reading left
    checked.append(len(game.log))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_views_on_warm_caches_are_the_views_without_caches(seed: int) -> None:
    checked: list[int] = []
    turn = sim._game_master_turn

    def checking(game: Game, day: int, at: datetime, *args: Any, **kwargs: Any) -> None:
        if day >= 3 and random.Random(f"{seed}|{at}").random() < 0.3:
            _check(game, checked)
        turn(game, day, at, *args, **kwargs)

    sim._game_master_turn = checking  # type: ignore[assignment]
    try:
        sim.play(28, random.Random(seed))
    finally:
        sim._game_master_turn = turn
    assert checked  # verdicts were waiting at some of the sampled times


def _fresh_live(g: GameState) -> frozenset[str]:
    kept = g.live_cache
    g.live_cache = (-1, frozenset())
    try:
        return live_slots(g)
    finally:
        g.live_cache = kept


def test_the_live_slots_kept_over_events_are_the_live_slots() -> None:
    """The live slots are cached by board count, carried over by ``evolve`` across the
    events that change no mask, and kept in each what-if's caches: after every event of
    simulated games, on the game and read as players know it, they are what a fresh
    reading finds."""
    known = 0
    for seed in range(4):
        log = sim.play(28, random.Random(seed)).game.log
        g = Game.replay(log[:1], default_catalog()).state
        for e in log[1:]:
            evolve_all(g, (e,))
            assert live_slots(g) == _fresh_live(g), e
            if pending_verdicts(g):
                with before_verdicts(g):
                    assert live_slots(g) == _fresh_live(g), e
                known += 1
    assert known > 100
