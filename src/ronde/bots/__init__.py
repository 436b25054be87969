"""Bot behaviours for ``ronde simulate``, one function per character power.

Each behaviour gets the game, the acting seat, the instant, a seeded random
generator and an ``act(verb, by, at, **args) -> bool`` callback that records the
action (refusals are counted, never raised). It must decide only from the
player's own view (:func:`ronde.engine.views.player_brief` /
:func:`ronde.engine.views.player_view`), and read what it uses of a brief before it
acts (or fetch a new one after): a brief read after a change of the game raises.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from datetime import datetime
from typing import Any, Protocol

from ..engine.game import Game


class Act(Protocol):
    def __call__(self, verb: str, by: str, at: datetime, **args: Any) -> bool: ...


#: (game, seat, at, rng, act) -> None
Behaviour = Callable[[Game, str, datetime, random.Random, Act], None]


def _collect() -> tuple[
    dict[str, Behaviour], list[Callable[[Game, datetime, random.Random, Act], None]]
]:
    from . import characters_one, characters_two

    powers: dict[str, Behaviour] = {**characters_one.POWERS, **characters_two.POWERS}
    gm = [*characters_one.GAME_MASTER, *characters_two.GAME_MASTER]
    return powers, gm


#: character id -> behaviour of a masked holder, tried once per bot turn;
#: game-master behaviours run once per slot (relaying rulings a power needs)
POWERS, GAME_MASTER = _collect()


def _chorus() -> list[Behaviour]:
    from . import characters_one, characters_two

    return [*getattr(characters_one, "CHORUS", []), *getattr(characters_two, "CHORUS", [])]


#: behaviours of a member of the chorus, tried once per bot turn after his investigation
#: vote (the actions the chorus inherits from fallen characters, R8.6)
CHORUS: list[Behaviour] = _chorus()
