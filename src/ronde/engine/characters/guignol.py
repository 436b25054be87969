"""Guignol (``guignol``), R7.5.

Glossary: Guignol → ``guignol``.

Power: immunity: from J8 00:00 he can no longer be unmasked, for any cause; an
unmasking whose cause occurred before J8 still applies (R7.5.3). A JUST trial
against him from J8 scores as just but unmasks nobody (A39 ``just_no_unmask``),
or counts as UNJUST (A39 ``unjust``). Standard visibility (R7.5.1).

Constraint: secret, given by the MJs as text; concerns his posts on the FV; judged
by an MJ, presumed met (R7.5.2, A1); it no longer applies from J8.

Jokers: none (R7.5.1).

Failure: a failed constraint before J8 (R6.2); a JUST trial concluded before J8.

Inheritance: none.

Rule ids: R7.5.1, R7.5.2, R7.5.3, A39.
"""

from __future__ import annotations

from typing import ClassVar

from ..state import GameState, Player, Trial
from .base import Character

IMMUNE_FROM = 8


class Guignol(Character):
    """Guignol: immune from J8."""

    id: ClassVar[str] = "guignol"
    #: his secret constraint applies until J7: from J8 he is immune (R7.5.3)
    constraint_days: ClassVar[tuple[int, int] | None] = (2, 7)
    constraint_fr: ClassVar[str] = "sa contrainte secrète (donnée par les MJ), jusqu'au J7"
    power_fr: ClassVar[str] = "ne peut plus être démasqué à partir du J8"

    def escapes_unmasking(
        self, g: GameState, p: Player, cause: str, trial: Trial | None, cause_day: int
    ) -> bool:
        return cause_day >= IMMUNE_FROM

    def accusation_true(self, g: GameState, accused: Player, trial: Trial) -> bool | None:
        if g.opt("A39") == "unjust" and g.clock is not None and g.day(g.clock) >= IMMUNE_FROM:
            return False
        return None
