"""Seer (Voyante, ``seer``), R7.8.

Glossary: Voyante → ``seer``.

Power: none; she knows, and must unmask, the 9 Characters that follow her:
Forward(s, 9), 10 with the boost under A7's default (R7.8.1, A7).

Constraint: a post with at least three verbs in a future tense, every day
(R7.8.2); judged by an MJ, presumed met (A1).

Jokers: at most two; one of item_money, item_door_carpet, item_carpet (R7.8.3).

Failure: a failed constraint recorded by an MJ (R6.2).

Inheritance: none.

Rule ids: R7.8.1, R7.8.2, R7.8.3, A7.
"""

from __future__ import annotations

from typing import ClassVar

from ..character import ListedJokers
from ..ronde import forward, window
from ..state import GameState, Player


class Seer(ListedJokers):
    """The Seer: Forward(s, 9)."""

    id: ClassVar[str] = "seer"
    joker_items: ClassVar[frozenset[str]] = frozenset(
        {"item_money", "item_door_carpet", "item_carpet"}
    )
    constraint_fr: ClassVar[str] = "un message avec au moins trois verbes au futur, chaque jour"

    def visible_set(self, g: GameState, p: Player) -> list[str]:
        return forward(g, self.slot(g, p), window(g, 9, standard=False))
