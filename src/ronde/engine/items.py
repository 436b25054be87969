"""Items sent to the game masters (R6.15–R6.19, Appendix D).

The catalogue (item id -> decoration points) is data given to the engine by its
caller (see :mod:`ronde.catalog`); the engine never reads files itself.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Final

#: Items that are decoration items by the page's definition although worth 0 (R6.15).
SPECIAL_DECORATIONS: Final[frozenset[str]] = frozenset(
    {
        "item_tekel",
        "item_lock",
        "item_big_pgun_empty",
        "item_big_pgun",
        "item_pilegun_up_empty",
        "item_pilegun_up",
        "item_watergun_opt_empty",
        "item_watergun_opt_1",
        "item_watergun_opt_2",
        "item_watergun_opt_3",
        "item_watergun_opt_4",
        "item_watergun_opt_5",
        "item_jerrygun",
        "item_jerrygun_off",
        "item_cards",
    }
)

#: Items accepted only if the receiving game master does not already hold one (A25).
ONE_PER_GAME_MASTER: Final[frozenset[str]] = frozenset({"item_tekel", "item_lock"})

#: The seed's icon names that differ from catalogue ids (Appendix D).
ALIASES: Final[dict[str, str]] = {
    "item_pet_dog2": "item_tekel",
    "item_chudol_hordes": "item_chudol",
    "item_wire_hordes": "item_wire",
}

BOX_POINTS: Final[dict[str, int]] = {"item_home_box": 7, "item_home_box_xl": 13}


@dataclass(frozen=True, slots=True)
class ItemCatalog:
    """Decoration points per item id (R6.16); French names for messages."""

    deco: Mapping[str, int] = field(default_factory=dict)
    names_fr: Mapping[str, str] = field(default_factory=dict)

    def canonical(self, item: str) -> str | None:
        """The catalogue id of ``item`` (aliases resolved), or ``None`` if unknown."""
        key = ALIASES.get(item.strip(), item.strip())
        return key if key in self.deco else None

    def points(self, item: str) -> int:
        """Decoration points of a known item id."""
        return self.deco.get(item, 0)

    def is_decoration(self, item: str, *, definition: str = "everywhere") -> bool:
        """Whether ``item`` is a decoration item (R6.15; A73 picks ``definition``)."""
        if self.deco.get(item, 0) > 0:
            return True
        return definition == "everywhere" and item in SPECIAL_DECORATIONS

    def name(self, item: str) -> str:
        """French name of an item (its id when unknown)."""
        return self.names_fr.get(item, item)
