"""The memos of the engine and the bots' lazy briefs change no game (issue 14).

Property: a simulated game played with every memo bypassed (state memos, tables of
instants and walks, the next timer, the bots' briefs built afresh and computed at
once) is the same game, event for event, as the one played with them. Plus the
pieces: a command's draw key is ``json.dumps``'s text, and a lazy brief never reads a
state it was not made on.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any
from unittest import mock

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ronde import sim
from ronde.engine import views
from ronde.engine.game import Game, canonical_args
from ronde.engine.state import GameState
from ronde.store import dumps


@contextmanager
def _no_memos() -> Iterator[None]:
    """Every memo bypassed: computed again at each read."""

    def direct(self: GameState, key: str, compute: Callable[[], Any]) -> Any:
        return compute()

    def fresh_table(self: GameState, key: str) -> dict[Any, Any]:
        return {}

    def eager(build: Callable[..., views.LazyView]) -> Callable[..., views.LazyView]:
        return lambda *args: build(*args).settle()

    with (
        mock.patch.object(GameState, "memoized", direct),
        mock.patch.object(GameState, "memoized_board", direct),
        mock.patch.object(GameState, "constant", direct),
        mock.patch.object(GameState, "times", fresh_table),
        mock.patch.object(Game, "_next_timer", Game._compute_next_timer),
        mock.patch.object(views, "_cached_brief", lambda g, key: None),
        mock.patch.object(views, "_player_brief", eager(views._player_brief)),
        mock.patch.object(views, "_game_master_brief", eager(views._game_master_brief)),
    ):
        yield


def _played(seed: int, posts: float) -> tuple[str, int, int]:
    res = sim.play(28, random.Random(seed), posts=posts)
    return dumps(res.game.log), res.refused, res.actions


@pytest.mark.parametrize(("seed", "posts"), [(0, 0.0), (1, 0.0), (2, 0.65), (5, 0.65)])
def test_memos_change_no_simulated_game(seed: int, posts: float) -> None:
    memoized = _played(seed, posts)
    with _no_memos():
        bare = _played(seed, posts)
    assert memoized[0].count("\n") > 500  # a whole game
    assert memoized == bare


_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text() | st.floats(allow_nan=False),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner, max_size=3),
    max_leaves=6,
)


@given(st.dictionaries(st.text(), _VALUES, max_size=5))
def test_a_commands_draw_key_is_the_canonical_json(args: dict[str, Any]) -> None:
    assert canonical_args(args) == json.dumps(
        dict(args), sort_keys=True, ensure_ascii=False, default=str
    )


def test_a_lazy_brief_reads_only_the_state_it_was_made_on() -> None:
    game = sim.play(28, random.Random(3)).game
    g = game.state
    seat, other, third = [s for s, p in g.players.items() if p.masked][:3]
    brief = views.player_brief(g, seat)
    assert isinstance(brief, views.LazyView)
    assert views.player_brief(g, seat) is brief  # kept while the state stays
    whole = dict(brief)  # reading it whole computes every entry
    assert {"targets", "can_act", "open_trials", "known", "anonymous_right"} <= set(whole)
    assert brief == whole and brief.get("day") == whole["day"]

    partial = views.player_brief(g, other)
    views.settle_briefs(g, g.pseudo(other))  # what a bot does before acting
    settled = dict.copy(partial)
    stale = views.player_brief(g, third)
    g.event_count += 1  # (as an event would)
    assert "open_trials" in settled
    assert partial["open_trials"] == settled["open_trials"]  # settled: read as it was
    with pytest.raises(RuntimeError):
        stale["open_trials"]  # never computed on another state than its own
    assert views.player_brief(g, seat) is not brief  # a new state, a new brief
