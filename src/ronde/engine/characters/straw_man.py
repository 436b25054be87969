"""Homme de paille (straw_man), R7.20.

Glossary: Homme de paille → ``straw_man``.

Power: not yet implemented (arrives with the issue Characters I); standard visibility (R2.7).

Constraint: no MJ-judged daily constraint; its engine-judged duties (R6.20), if any,
arrive with the character issues.

Jokers: none (R6.10).

Failure: a failed constraint recorded by an MJ (R6.2, R6.21); the rest of R7.20
arrives with the issue Characters I.

Inheritance: none yet.

Rule ids: R7.20.1 (visibility).
"""

from __future__ import annotations

from typing import ClassVar

from .base import Character


class StrawMan(Character):
    """The Homme de paille: standard visibility; the rest of R7.20 is still to come."""

    id: ClassVar[str] = "straw_man"
    #: no MJ-judged daily constraint (engine-judged duties, or none)
    constraint_days: ClassVar[tuple[int, int] | None] = None
