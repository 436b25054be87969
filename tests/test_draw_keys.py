"""The key of a command's draws (``Context.rng``): its ``command_key`` and how many
identical commands were accepted before it on its counting day. Made only when the
command draws (issue 14: most draw nothing), it must be what it was when made for every
command."""

from __future__ import annotations

import random
from typing import Any

import pytest

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
