"""Prompter (Souffleur, ``prompter``), R7.2 — his muted voice (the rest is to come).

Glossary: Souffleur → ``prompter``; souffler → ``prompt``; phrase → ``choose_phrase``.

Power: not yet implemented (``prompt``, ``choose_phrase``: the Characters I issue).

Voice: until the last Extra is unmasked (A32: six Extra unmaskings counted as
events by default) every complaint he files is null and he may not open trials
(R7.2.5, R5.12, A33); once the Pianist is unmasked, his second complaint of the
day is a normal one (R7.15.3).

Constraint: the J2 sentence in a post every day (R7.2.6); judged by an MJ.

Jokers: none (R7.2.7).

Failure: a failed constraint recorded by an MJ (R6.2); mistakes arrive with the
Characters I issue.

Inheritance: the chorus's candle (R7.2.8) arrives with the chorus actions.

Rule ids: R7.2.1, R7.2.5, R7.2.7, A32, A33.
"""

from __future__ import annotations

from typing import ClassVar

from ..errors import RuleViolation
from ..state import GameState, Player, Trial
from .base import Character


def voice_restored(g: GameState) -> bool:
    """Whether the last Extra has been unmasked (R7.2.5, A32)."""
    mode = g.opt("A32")
    if mode == "original":
        return g.n_extras > 0 and g.original_extra_unmaskings >= g.n_extras
    if mode == "none_left":
        return not any(p.masked and p.character == "extra" for p in g.players.values())
    return g.n_extras > 0 and g.extra_unmaskings >= g.n_extras


def second_complaint(g: GameState, p: Player) -> bool:
    """Whether a complaint he files now is his Pianist second complaint of the day (R7.15.3)."""
    if not g.flags.get("double_complaints") or g.clock is None:
        return False
    return len(p.actions.get(g.action_day(g.clock), [])) >= 1


class Prompter(Character):
    """The Prompter: null complaints and no openings until the last Extra falls."""

    id: ClassVar[str] = "prompter"
    constraint_fr: ClassVar[str] = "placer chaque jour sa phrase du J2 dans un message du FV"

    def check_open(self, g: GameState, p: Player, *, anonymous: bool) -> None:
        if not voice_restored(g) and g.opt("A33") == "forbidden":
            raise RuleViolation(
                "not_allowed", "Le Souffleur n'ouvre pas de Procès avant le dernier Figurant (A33)."
            )

    def null_as_author(self, g: GameState, p: Player, trial: Trial) -> bool:
        return not voice_restored(g) and not second_complaint(g, p)
