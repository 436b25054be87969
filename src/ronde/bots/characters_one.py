"""Bot behaviours for the characters of the Characters I issue."""

from __future__ import annotations

import random
from collections.abc import Callable
from datetime import datetime

from ..engine.game import Game
from . import Act, Behaviour

#: character id -> behaviour (see :mod:`ronde.bots`)
POWERS: dict[str, Behaviour] = {}
#: game-master behaviours (relaying rulings these powers need)
GAME_MASTER: list[Callable[[Game, datetime, random.Random, Act], None]] = []
