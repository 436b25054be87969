"""Guignol (guignol), R7.5.

Glossary: Guignol → ``guignol``.

Power: not yet implemented (arrives with the issue Characters I); standard visibility (R2.7).

Constraint: judged by an MJ, presumed met until recorded failed (R6.20, A1).

Jokers: none (R6.10).

Failure: a failed constraint recorded by an MJ (R6.2, R6.21); the rest of R7.5
arrives with the issue Characters I.

Inheritance: none yet.

Rule ids: R7.5.1 (visibility).
"""

from __future__ import annotations

from typing import ClassVar

from .base import Character


class Guignol(Character):
    """The Guignol: standard visibility; the rest of R7.5 is still to come."""

    id: ClassVar[str] = "guignol"
    #: his secret constraint applies until J7: from J8 he is immune (R7.5.3)
    constraint_days: ClassVar[tuple[int, int] | None] = (2, 7)
