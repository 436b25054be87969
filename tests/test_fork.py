"""``Game.fork``: a private copy to run forward (the dashboard's forecast of the next
midnight, issue 23) gives what a copy replayed from the same events gives, and leaves
the game it was forked from as it was (SQLite and PostgreSQL alike: no store here)."""

from __future__ import annotations

import random

import pytest

from ronde.catalog import default_catalog
from ronde.engine.clock import LAST_DAY
from ronde.engine.events import to_json
from ronde.engine.game import Game
from ronde.engine.views import view
from ronde.sim import play


def _views(g: Game) -> list[object]:
    return [view(g.state, who) for who in ("game_master", "public", *list(g.state.players)[:4])]


@pytest.mark.parametrize("seed", [1, 7])
def test_a_fork_run_to_the_next_midnight_is_the_replayed_copy_and_touches_nothing(
    seed: int,
) -> None:
    log = play(20, random.Random(seed), posts=0.3).game.log
    rng = random.Random(seed)
    for k in [*sorted(rng.sample(range(2, len(log)), 12)), len(log)]:
        game = Game.replay(log[:k], default_catalog())
        g = game.state
        day = max(g.day(), 1)
        if day > LAST_DAY:
            continue
        midnight = g.day_start(day + 1)
        before = _views(game)
        fork = game.fork()
        fired = fork.advance(midnight)
        assert _views(game) == before  # (the game forked from is untouched)
        assert len(game.log) == k
        copy = Game.replay(log[:k], default_catalog())
        assert [to_json(e) for e in fired] == [to_json(e) for e in copy.advance(midnight)]
        assert _views(fork) == _views(copy)
        # the game forked from still goes on as the copy does
        assert [to_json(e) for e in game.advance(midnight)] == [to_json(e) for e in fired]
