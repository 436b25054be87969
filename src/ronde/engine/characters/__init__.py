"""The character registry: one module per Character, listed here explicitly.

The trial and scoring code asks :func:`character_of` / :data:`REGISTRY`; adding
a character means adding its module and one line below.
"""

from __future__ import annotations

from typing import Final

from ..state import Player
from .alice import Alice
from .base import Character
from .chucky import Chucky
from .decorators import Decorators
from .destiny import Destiny
from .devils_advocate import DevilsAdvocate
from .diva import Diva
from .extra import Extra
from .guignol import Guignol
from .halus import Halus
from .knight import Knight
from .little_mermaid import LittleMermaid
from .mime import Mime
from .pianist import Pianist
from .pierrot import Pierrot
from .pinocchio import Pinocchio
from .polichinelle import Polichinelle
from .prompter import Prompter
from .revenant import Revenant
from .seer import Seer
from .straw_man import StrawMan
from .tragic_hero import TragicHero
from .woody import Woody

REGISTRY: Final[dict[str, Character]] = {
    c.id: c
    for c in (
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
        Revenant(),
    )
}

NO_CHARACTER: Final[Character] = Character()


def character_of(p: Player) -> Character:
    """The module of the Character ``p`` incarnates now (a no-op base when unmasked)."""
    if p.character is None:
        return NO_CHARACTER
    return REGISTRY[p.character]


__all__ = ["NO_CHARACTER", "REGISTRY", "Character", "Extra", "character_of"]
