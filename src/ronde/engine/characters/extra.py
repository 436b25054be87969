"""Extras (Figurants), R7.1 — the base rules of the engine core.

Glossary: Extra (``extra``, Figurant); new Extra (``new_extra``, given an Extra
mask by transfiguration, R8.16).

Power: an original Extra may open trials and file public complaints against any
masked Ronde Character (R7.1.6). A new Extra takes part only anonymously,
through the MJs, and never on two consecutive days (R7.1.8, A29); the quota
code applies the day rule.

Rehearsals: a daily topic every player is invited to post in (R7.1.2, ``rehearse``);
the theme of the day is given privately to the Extras (``set_theme``, R7.1.3): it is
in each Extra's view, and the MJs' to-do list asks for it while it is missing.

Constraint: a daily Rehearsals post alluding to the theme of the day, J2–J12
(R7.1.4, A3; a new Extra from the day after his transfiguration, A67); judged by
an MJ, presumed met (A1).

Jokers: original Extras only, at most two; one decoration item worth at most 2
decoration points (R7.1.5, A28).

Failure: a failed constraint; the Prompter's or the chorus's candle; the Tragic
Hero if monstrous (R7.1.9). Every Extra unmasking counts for the boost (R2.8, A6).

Inheritance: none. Outside the Ronde: no visible set (R2.11).

Rule ids: R7.1.1, R7.1.2, R7.1.3, R7.1.4, R7.1.5, R7.1.6, R7.1.7, R7.1.8, R7.1.9, R7.1.10,
R2.11, A3, A28, A29, A67.
"""

from __future__ import annotations

from typing import ClassVar

from ..character import Character
from ..errors import RuleViolation
from ..ronde import unrestricted_targets
from ..sentences import table
from ..state import GameState, Player, Trial
from ..work import Todo


class Extra(Character):
    """An Extra, original or new."""

    id: ClassVar[str] = "extra"
    in_ronde: ClassVar[bool] = False
    has_jokers: ClassVar[bool] = True
    constraint_days: ClassVar[tuple[int, int] | None] = (2, 12)
    constraint_fr: ClassVar[str] = (
        "poster chaque jour dans les Répétitions un texte qui fait allusion au thème du jour"
    )
    power_fr: ClassVar[str] = "accuser n'importe quel Personnage masqué de la Ronde"

    def visible_set(self, g: GameState, p: Player) -> list[str]:
        return []

    def legal_targets(self, g: GameState, p: Player, *, anonymous: bool) -> set[str]:
        return set(unrestricted_targets(g))

    def check_open(self, g: GameState, p: Player, *, anonymous: bool) -> None:
        if p.new_extra and not anonymous:
            raise RuleViolation(
                "not_allowed",
                "Un nouveau Figurant ne participe aux Procès qu'anonymement, par les MJ.",
            )

    def check_complaint(self, g: GameState, p: Player, trial: Trial, *, anonymous: bool) -> None:
        self.check_open(g, p, anonymous=anonymous)

    def anonymous_right(self, g: GameState, p: Player, *, opening: bool) -> str | None:
        return "new_extra" if p.new_extra else None

    def jokers_allowed(self, g: GameState, p: Player) -> bool:
        return not p.new_extra  # new Extras have no Jokers (R7.1.8)

    def joker_refusal(self, g: GameState, p: Player, items: list[str]) -> str | None:
        if len(items) != 1:
            return "Le Joker d'un Figurant est un seul objet."
        item = items[0]
        points = g.catalog.points(item)
        if points > 2:
            return f"{g.catalog.name(item)} vaut {points} points de décoration (2 au plus)."
        definition = g.opt("A73")
        if g.opt("A28") == "decoration_items" and not g.catalog.is_decoration(
            item, definition=definition
        ):
            return f"{g.catalog.name(item)} n'est pas un objet de décoration."
        return None

    def private_view(self, g: GameState, p: Player) -> dict[str, object]:
        first = self.constraint_start(g, p)
        return {"themes": {d: t for d, t in sorted(g.themes.items()) if d >= first}}

    def game_master_todo(self, g: GameState, p: Player, day: int) -> list[Todo]:
        first = self.constraint_start(g, p)
        if not first <= day <= 12:
            return []
        theme = g.themes.get(day)
        about = f"au thème « {theme} »" if theme else "au thème du jour"
        text = f"vérifier son post des Répétitions du J{day} et son allusion {about}"
        return [self.constraint_todo(g, p, day, text)]

    def constraint_first(self, g: GameState, p: Player, first: int) -> int:
        return self.constraint_start(g, p)

    def constraint_start(self, g: GameState, p: Player) -> int:
        """First day of his constraint: J2 (A3), or the day after his transfiguration (A67)."""
        first = 1 if g.opt("A3") == "from_j1" else 2
        if p.transfigured_day is not None:
            first = max(first, p.transfigured_day + 1)
        return first

    def describe_private(self, g: GameState, p: Player, data: dict[str, object]) -> list[str]:
        themes = table(data, "themes")
        if not themes:
            return ["Les MJ n'ont pas encore donné de thème."]
        return [f"Thème du J{d} : « {t} »." for d, t in themes.items()]
