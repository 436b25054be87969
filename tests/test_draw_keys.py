"""The key of a command's draws (``Context.rng``): its ``command_key`` and how many
identical commands were accepted before it on its counting day. Made only when the
command draws (issue 14: most draw nothing), it must be what it was when made for every
command."""

from __future__ import annotations

import random
from datetime import timedelta
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ronde.engine.commands import Command
from ronde.engine.context import Context
from ronde.engine.errors import RuleViolation
from ronde.engine.game import Game, command_key

from .conftest import at, small_game


def _game_that_draws() -> tuple[Game, list[tuple[str, float]]]:
    """A game with a pretend player action ``draw`` that records its key and a draw
    (refused at a quarter past, drawing nothing on the hour)."""
    game = small_game()
    drawn: list[tuple[str, float]] = []

    def handler(ctx: Context, cmd: Command, seat: str) -> None:
        if ctx.now.minute == 15:
            raise RuleViolation("not_allowed", "Refusé.")  # (at a quarter past)
        if ctx.now.minute == 0:
            return  # (on the hour: accepted, draws nothing; its instant is not in its key)
        value = ctx.rng("x").random()
        assert isinstance(ctx.key, str)
        drawn.append((ctx.key, value))

    game._actions = {"draw": ("player", handler)}  # (the actions table, replaced)
    return game, drawn


def _expected(by: str, day: int, args: dict[str, Any], before: int) -> str:
    return f"{command_key(Command('draw', by, at(f'J{day} 10:00'), args), day)}#{before}"


def test_identical_commands_of_a_day_draw_apart_by_their_order() -> None:
    game, drawn = _game_that_draws()
    ana = next(iter(game.state.players))
    game.act("draw", ana, at("J2 10:01"), n=1)
    game.act("draw", ana, at("J2 10:05"), n=2)
    game.act("draw", ana, at("J2 10:10"), n=1)  # identical to the first
    with pytest.raises(RuleViolation):  # (identical to the second, refused: not counted)
        game.act("draw", ana, at("J2 10:15"), n=2)
    game.act("draw", ana, at("J2 10:20"), n=2)  # identical to the second, drawn
    game.act("draw", ana, at("J3 10:01"), n=2)  # another day: counted afresh
    keys = [k for k, _ in drawn]
    assert keys == [
        _expected(ana, 2, {"n": 1}, 0),
        _expected(ana, 2, {"n": 2}, 0),
        _expected(ana, 2, {"n": 1}, 1),
        _expected(ana, 2, {"n": 2}, 1),
        _expected(ana, 3, {"n": 2}, 0),
    ]
    seed = game.state.seed
    assert [v for _, v in drawn] == [random.Random(f"{seed}|{k}|x|0").random() for k in keys]


def test_a_command_that_does_not_draw_is_counted_among_identical_ones() -> None:
    """Two identical commands on the hour draw nothing (their keys are never made on
    their own): they count for the identical one after them, which draws."""
    game, drawn = _game_that_draws()
    ana = next(iter(game.state.players))
    game.act("draw", ana, at("J2 10:00"), n=7)
    game.act("draw", ana, at("J2 11:00"), n=7)
    game.act("draw", ana, at("J2 11:30"), n=7)
    game.act("draw", ana, at("J2 12:00"), n=7)
    game.act("draw", ana, at("J2 12:30"), n=7)
    assert [k for k, _ in drawn] == [
        _expected(ana, 2, {"n": 7}, 2),
        _expected(ana, 2, {"n": 7}, 4),
    ]


_BEHAVIOURS = ("draw", "quiet", "refuse", "draw_refuse", "draw_twice")


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    grace=st.sampled_from(["midnight", "grace_30"]),
    steps=st.lists(
        st.tuples(
            st.sampled_from([1, 7, 25, 40, 300, 710]),  # minutes after the previous one
            st.sampled_from(["Ana", "ana", "Bob", "Mj"]),  # (a pseudo in any case: one key)
            st.integers(1, 2),  # the argument (identical commands when equal)
            st.sampled_from(_BEHAVIOURS),
        ),
        min_size=1,
        max_size=14,
    ),
)
def test_the_keys_are_those_counted_at_each_command(grace: str, steps: list[Any]) -> None:
    """Property (the keys as they were made before issue 14, eagerly): whatever the order
    of commands that draw, draw nothing, are refused before or after drawing, by players
    or a game master, across days (A9 ``grace_N``: a command just after midnight counts
    for the day before), each draw's key is ``command_key`` and the number of identical
    commands accepted before it on its counting day, counted when it was executed."""
    game = small_game({"A9": grace})
    assert {"Ana", "Bob"} <= set(game.state.players)
    plan: list[str] = []
    drawn: list[tuple[str, float]] = []

    def handler(ctx: Context, cmd: Command, actor: str) -> None:
        behaviour = plan.pop()
        if behaviour == "refuse":
            raise RuleViolation("not_allowed", "Refusé.")
        if behaviour == "quiet":
            return
        for _ in range(2 if behaviour == "draw_twice" else 1):
            value = ctx.rng("x").random()
            assert isinstance(ctx.key, str)
            drawn.append((ctx.key, value))
        if behaviour == "draw_refuse":
            raise RuleViolation("not_allowed", "Refusé après le tirage.")

    game._actions = {"draw": ("player", handler), "gm_draw": ("game_master", handler)}
    # the keys as counted before (``Game.execute`` of 8781e50): a count per key and day
    seen_day: int | None = None
    seen: dict[str, int] = {}
    expected: list[tuple[str, int]] = []
    when = at("J2 10:00")
    for gap, by, n, behaviour in steps:
        when += timedelta(minutes=gap)
        action = "gm_draw" if by == "Mj" else "draw"
        cmd = Command(action, by, when, {"n": n})
        day = game.state.day(when)
        if seen_day != day:
            seen_day, seen = day, {}
        key = command_key(cmd, day)
        occurrence = seen.get(key, 0)
        plan.append(behaviour)
        try:
            game.execute(cmd)
        except RuleViolation:
            pass
        else:
            seen[key] = occurrence + 1
        if behaviour in ("draw", "draw_refuse"):
            expected.append((f"{key}#{occurrence}", 0))
        elif behaviour == "draw_twice":
            expected += [(f"{key}#{occurrence}", 0), (f"{key}#{occurrence}", 1)]
    seed = game.state.seed
    assert [k for k, _ in drawn] == [k for k, _ in expected]
    assert [v for _, v in drawn] == [
        random.Random(f"{seed}|{k}|x|{i}").random() for k, i in expected
    ]


def test_an_argument_name_that_is_not_text_is_refused_and_spoils_no_later_draw() -> None:
    """Before issue 14 every command's key was made first: arguments named by a number
    and a text together (their names cannot be ordered) stopped the command before
    anything was recorded. Now that a key is made only when a command draws, such a
    command must still be refused at once (``invalid_argument``, nothing recorded), not
    accepted to make every identical-day count of the commands after it fail."""
    game, drawn = _game_that_draws()
    ana = next(iter(game.state.players))
    game.advance(at("J2 09:00"))  # (the timers due before it)
    start = len(game.log)
    with pytest.raises(RuleViolation) as refused:
        game.execute(Command("draw", ana, at("J2 10:00"), {1: "x", "n": 1}))
    assert refused.value.code == "invalid_argument"
    assert len(game.log) == start
    game.act("draw", ana, at("J2 10:01"), n=1)  # (draws: counts the commands before it)
    assert [k for k, _ in drawn] == [_expected(ana, 2, {"n": 1}, 0)]


def test_a_fork_draws_as_its_game_and_shares_the_commands_counted_that_day() -> None:
    """``Game.fork`` (the dashboard's forecast, a correction's copy) does not copy the
    day's counted commands one by one (thousands on a busy day, issue 23): it shares
    them, keys made included, and draws what the game forked from draws."""
    game, drawn = _game_that_draws()
    ana = next(iter(game.state.players))
    for minute in range(1, 13):
        game.act("draw", ana, at(f"J2 09:{minute:02d}"), n=1 + minute % 2)
    counted = list(game._seen)
    fork = game.fork()
    fork._actions = game._actions  # (the pretend action, as the game has it)
    assert len(fork._seen) == len(counted) and all(
        a is b for a, b in zip(fork._seen, counted, strict=True)
    )
    drawn.clear()
    fork.act("draw", ana, at("J2 10:01"), n=1)
    assert game._seen == counted  # (the fork's own command is its own)
    game.act("draw", ana, at("J2 10:01"), n=1)
    again = game.fork()
    again._actions = game._actions
    again.act("draw", ana, at("J2 10:02"), n=1)
    game.act("draw", ana, at("J2 10:02"), n=1)
    assert drawn[0] == drawn[1] == (_expected(ana, 2, {"n": 1}, 6), drawn[0][1])
    assert drawn[2] == drawn[3] == (_expected(ana, 2, {"n": 1}, 7), drawn[2][1])
