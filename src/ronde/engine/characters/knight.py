"""Knight of the Round Table (Chevalier de la table ronde, ``knight``), R7.18.

Glossary: Chevalier de la table ronde → ``knight``.

Power: none; he knows, and must unmask, the 6 Characters that precede him:
Backward(s, k) (R7.18.1), 7 with the boost (A7).

Constraint: every day, a periphrasis naming one Character of his visible set
(R7.18.2); judged by an MJ, presumed met (A1).

Jokers: at most two; one of item_chair_basic, item_machine_2, item_machine_3,
item_pc, item_machine_1, item_table (R7.18.3).

Failure: a failed constraint recorded by an MJ (R6.2).

Inheritance: none.

Rule ids: R7.18.1, R7.18.2, R7.18.3, A7.
"""

from __future__ import annotations

from typing import ClassVar

from ..character import ListedJokers
from ..ronde import backward, window
from ..state import GameState, Player


class Knight(ListedJokers):
    """The Knight: Backward(s, k)."""

    id: ClassVar[str] = "knight"
    joker_items: ClassVar[frozenset[str]] = frozenset(
        {
            "item_chair_basic",
            "item_machine_2",
            "item_machine_3",
            "item_pc",
            "item_machine_1",
            "item_table",
        }
    )
    constraint_fr: ClassVar[str] = (
        "désigner chaque jour par une périphrase un Personnage à démasquer"
    )

    def visible_set(self, g: GameState, p: Player) -> list[str]:
        return backward(g, self.slot(g, p), window(g, 6, standard=False))
