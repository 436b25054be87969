"""Héros tragique (tragic_hero), R7.17.

Glossary: Héros tragique → ``tragic_hero``.

Power: not yet implemented (arrives with the issue Characters II); standard visibility (R2.7).

Constraint: no MJ-judged daily constraint; its engine-judged duties (R6.20), if any,
arrive with the character issues.

Jokers: none (R6.10).

Failure: a failed constraint recorded by an MJ (R6.2, R6.21); the rest of R7.17
arrives with the issue Characters II.

Inheritance: none yet.

Rule ids: R7.17.1 (visibility).
"""

from __future__ import annotations

from typing import ClassVar

from .base import Character


class TragicHero(Character):
    """The Héros tragique: standard visibility; the rest of R7.17 is still to come."""

    id: ClassVar[str] = "tragic_hero"
    #: no MJ-judged daily constraint (engine-judged duties, or none)
    constraint_days: ClassVar[tuple[int, int] | None] = None
