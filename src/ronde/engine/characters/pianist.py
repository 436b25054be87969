"""Pianist (Pianiste, ``pianist``), R7.15 — the effects of his unmasking.

Glossary: Pianiste → ``pianist``.

Power: none while masked; standard visibility (R7.15.1).

Effects of his unmasking, from that instant (R7.15.3): every player may take
two trial actions a day in different trials (A21: at most one opening by
default); new Extras once a day instead of every other day; the Prompter,
Destiny and the Tragic Hero may use the second complaint normally. The quota
code reads the game flag ``double_complaints`` set here.

Constraint: lyrics every two days, an item on the other days (R7.15.2, A49):
judged by an MJ — its full rules arrive with the Characters II issue.

Jokers: none (R6.10).

Failure: a failed constraint recorded by an MJ (R6.2).

Inheritance: none (global effects instead).

Rule ids: R7.15.1, R7.15.3, A21.
"""

from __future__ import annotations

from typing import ClassVar

from ..context import Context
from ..events import CharacterFact
from ..state import GameState, Player
from .base import Character


class Pianist(Character):
    """The Pianist: his fall doubles everyone's complaints."""

    id: ClassVar[str] = "pianist"
    constraint_fr: ClassVar[str] = (
        "un extrait d'au moins 5 mots d'une chanson française connue tous les deux jours, "
        "un objet musical les autres jours"
    )

    def on_unmasked(self, ctx: Context, p: Player) -> None:
        ctx.emit(CharacterFact(at=ctx.now, character=self.id, player=p.seat, kind="fallen"))
        ctx.announce(
            "pianist_fallen", "Le Pianiste est tombé : chacun peut porter deux plaintes par jour."
        )

    def apply_fact(self, g: GameState, p: Player, fact: CharacterFact) -> None:
        if fact.kind == "fallen":
            g.flags["double_complaints"] = True
