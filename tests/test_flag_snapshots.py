"""The flags kept for a verdict awaiting its announcement (A77, ``evolve``): each
snapshot is what the flags were when it was taken, whatever the rules change later,
and what has not changed since the last one is shared with it, not copied again."""

from __future__ import annotations

import copy
import random
from datetime import UTC, date, datetime
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from ronde.catalog import default_catalog
from ronde.engine.events import GameCreated
from ronde.engine.evolve import _flags_snapshot, _verdict_due, evolve_all, new_state
from ronde.engine.registry import REGISTRY
from ronde.engine.state import GameState
from ronde.sim import play

_LEAF = (
    st.none()
    | st.booleans()
    | st.integers(-5, 5)
    | st.text(max_size=3)
    | st.just(datetime(2026, 12, 2, 9, tzinfo=UTC))
)
_VALUE: Any = st.recursive(
    _LEAF,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.text(max_size=2), inner, max_size=3)
        | st.tuples(inner, inner)
        | st.sets(st.integers(0, 4), max_size=3)
    ),
    max_leaves=6,
)
_FLAGS = st.dictionaries(st.sampled_from(["a", "b", "c", "d"]), _VALUE, max_size=4)


def _state(flags: dict[str, Any]) -> GameState:
    g = GameState(
        start=date(2026, 12, 1),
        game_masters=("Mj",),
        options={},
        seed=0,
        ronde=(),
        players={},
        catalog=None,  # type: ignore[arg-type]
    )
    g.flags = flags
    return g


def _mutate(flags: dict[str, Any], data: st.DataObject) -> None:
    """What rules do to the flags: add a key, replace a value, change one in place."""
    for _ in range(data.draw(st.integers(0, 3))):
        key = data.draw(st.sampled_from(["a", "b", "c", "d"]))
        value = flags.get(key)
        if isinstance(value, list) and data.draw(st.booleans()):
            value.append(data.draw(_VALUE))
        elif isinstance(value, dict) and data.draw(st.booleans()):
            value[data.draw(st.text(max_size=2))] = data.draw(_VALUE)
        elif isinstance(value, set) and data.draw(st.booleans()):
            value.add(data.draw(st.integers(0, 9)))
        else:
            flags[key] = data.draw(_VALUE)


@settings(max_examples=200, deadline=None)
@given(flags=_FLAGS, data=st.data())
def test_each_snapshot_keeps_the_flags_as_they_were(flags: dict[str, Any], data: Any) -> None:
    g = _state(flags)
    taken: list[tuple[dict[str, Any], dict[str, Any]]] = []
    for _ in range(4):
        snapshot = _flags_snapshot(g)
        taken.append((snapshot, copy.deepcopy(g.flags)))
        for earlier, then in taken:  # (later changes reach no earlier snapshot)
            assert earlier == then
            assert all(type(earlier[k]) is type(then[k]) for k in then)
        _mutate(g.flags, data)
    for earlier, then in taken:
        assert earlier == then


def test_what_did_not_change_is_shared_and_what_changed_is_copied() -> None:
    g = _state({"same": [1, 2, {"x": [3]}], "grows": [1], "set": {1}})
    first = _flags_snapshot(g)
    assert first == g.flags and first["same"] is not g.flags["same"]
    g.flags["grows"].append(2)
    second = _flags_snapshot(g)
    assert second["same"] is first["same"]  # (equal since: shared)
    assert second["grows"] == [1, 2] and first["grows"] == [1]
    g.flags["set"].add(2)
    g.flags["same"][2]["x"].append(4)
    third = _flags_snapshot(g)
    assert third["same"] == [1, 2, {"x": [3, 4]}] and first["same"] == [1, 2, {"x": [3]}]
    assert third["set"] == {1, 2} and second["set"] == {1}


def test_an_event_that_leaves_the_flags_count_leaves_the_flags() -> None:
    """``GameState.flags_count`` moves at every event that changes the flags (what a
    verdict's comparisons during its instant are dated by, ``unmasking._hide``): over
    simulated games (with posts, Characters' facts, chorus votes ...), every event that
    leaves it leaves the flags equal to what they were. (And the verdicts' ``due`` time
    ``evolve`` keeps in the state is what it finds again.)"""
    kept = moved = 0
    for seed in range(6):
        log = play(28, random.Random(seed), posts=0.3 if seed % 2 else 0.0).game.log
        first = log[0]
        assert isinstance(first, GameCreated)
        g = new_state(first, default_catalog(), REGISTRY)
        for e in log[1:]:
            flags, count = copy.deepcopy(g.flags), g.flags_count
            evolve_all(g, (e,))
            assert g.verdict_due == _verdict_due(g), e  # (kept by evolve, not recomputed)
            if g.flags_count == count:
                assert g.flags == flags, e
                kept += 1
            else:
                moved += 1
    assert kept > 1000 and moved > 50  # (both kinds seen)
