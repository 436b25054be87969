"""Chance that corrections don't touch (issue 10, item 4).

Every draw is keyed by the command or timer that makes it (``Context.rng``), never by
its position in the log: rebuilding a simulated game from its recorded commands with
one additive action inserted in the past leaves every other event as it was, data
and draws included; rebuilding it without that action gives back the original log.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ronde.catalog import default_catalog
from ronde.engine.commands import Command
from ronde.engine.events import CharacterFact, Event, GameCreated, to_json
from ronde.engine.game import Game
from ronde.sim import play

CATALOG = default_catalog()
#: the character facts that record a draw (recipients, a monster, the found Extras)
DRAWN_KINDS = {"secret", "chorus_secret", "monster_designated", "candle", "submission"}


@contextmanager
def recording() -> Iterator[list[Command]]:
    """Record every command a game accepts (the simulator's bots keep none)."""
    accepted: list[Command] = []
    original = Game.execute

    def execute(self: Game, cmd: Command) -> list[Event]:
        out = original(self, cmd)
        accepted.append(Command(cmd.action, cmd.by, cmd.at, dict(cmd.args)))
        return out

    Game.execute = execute  # type: ignore[method-assign]
    try:
        yield accepted
    finally:
        Game.execute = original  # type: ignore[method-assign]


_GAMES: dict[int, tuple[list[Event], list[Command]]] = {}


def simulated(seed: int) -> tuple[list[Event], list[Command]]:
    """A simulated 28-player game: its log and the commands it accepted (cached)."""
    if seed not in _GAMES:
        with recording() as commands:
            res = play(28, random.Random(seed))
        _GAMES[seed] = (list(res.game.log), list(commands))
    return _GAMES[seed]


def rebuild(created: Event, commands: list[Command]) -> tuple[Game, dict[int, list[Event]]]:
    """The game rebuilt from its first event and its commands in time order (timers
    firing in between, as a correction by replay does); the events of each command."""
    assert isinstance(created, GameCreated)
    game = Game(created, CATALOG)
    caused: dict[int, list[Event]] = {}
    for i, cmd in enumerate(commands):
        caused[i] = game.execute(cmd)
    return game, caused


def dumped(events: list[Event]) -> list[Any]:
    return [to_json(e) for e in events]


def test_rebuilding_from_commands_gives_the_same_log() -> None:
    log, commands = simulated(1)
    game, _ = rebuild(log[0], commands)
    assert dumped(game.log) == dumped(log)
    drawn = [e for e in log if isinstance(e, CharacterFact) and e.kind in DRAWN_KINDS]
    assert drawn, "the simulated game makes no draw: the property below would test nothing"


@settings(
    max_examples=20,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(
    seed=st.integers(0, 30),
    where=st.floats(0, 1, exclude_max=True),
    minutes=st.integers(0, 24 * 60),
    player=st.integers(0, 27),
    points=st.integers(-50, 50),
)
def test_an_additive_action_in_the_past_changes_no_other_event(
    seed: int, where: float, minutes: int, player: int, points: int
) -> None:
    log, commands = simulated(seed)
    assert isinstance(log[0], GameCreated)
    # an instant between two recorded commands (after the first one, on J2 or later)
    i = 1 + int(where * (len(commands) - 2))
    at = min(commands[i - 1].at + timedelta(minutes=minutes), commands[i].at)
    award = Command(
        "award",
        log[0].game_masters[0],
        at,
        {"player": log[0].players[player], "points": points, "reason": "correction"},
    )
    inserted = [*commands[:i], award, *commands[i:]]
    game, caused = rebuild(log[0], inserted)
    mine = {id(e) for e in caused[i]}
    assert mine, "the award recorded nothing"
    rest = [e for e in game.log if id(e) not in mine]
    assert dumped(rest) == dumped(log)
    # struck again: the original log, exactly
    again, _ = rebuild(log[0], commands)
    assert dumped(again.log) == dumped(log)
