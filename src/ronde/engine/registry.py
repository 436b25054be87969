"""The registry: every Character of the game, one module each, in one readable list.

It sits at the top of the engine, above the character modules: the game is built with
it (:class:`ronde.engine.game.Game`, ``characters=``) and hands it to the rules through
the state (``g.characters``, read by :func:`ronde.engine.character.character_of`).
Adding a character means adding its module under ``characters/`` and one line below.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from .character import NO_CHARACTER, Character
from .characters.alice import Alice
from .characters.chucky import Chucky
from .characters.decorators import Decorators
from .characters.destiny import Destiny
from .characters.devils_advocate import DevilsAdvocate
from .characters.diva import Diva
from .characters.extra import Extra
from .characters.guignol import Guignol
from .characters.halus import Halus
from .characters.knight import Knight
from .characters.little_mermaid import LittleMermaid
from .characters.mime import Mime
from .characters.pianist import Pianist
from .characters.pierrot import Pierrot
from .characters.pinocchio import Pinocchio
from .characters.polichinelle import Polichinelle
from .characters.prompter import Prompter
from .characters.revenant import Revenant
from .characters.seer import Seer
from .characters.straw_man import StrawMan
from .characters.tragic_hero import TragicHero
from .characters.woody import Woody

#: the characters, in the order their hooks are asked
CHARACTERS: Final[tuple[Character, ...]] = (
    Extra(),
    Prompter(),
    DevilsAdvocate(),
    Alice(),
    Guignol(),
    Decorators(),
    Chucky(),
    Seer(),
    Mime(),
    LittleMermaid(),
    Halus(),
    Woody(),
    Pierrot(),
    Diva(),
    Pianist(),
    Destiny(),
    TragicHero(),
    Knight(),
    Polichinelle(),
    StrawMan(),
    Pinocchio(),
    Revenant(lambda: REGISTRY),  # his roles: the other characters of this list
)

#: character id -> its module
REGISTRY: Final[Mapping[str, Character]] = {c.id: c for c in CHARACTERS}

__all__ = ["CHARACTERS", "NO_CHARACTER", "REGISTRY", "Character"]
