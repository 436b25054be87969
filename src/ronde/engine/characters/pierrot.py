"""Pierrot lunaire (pierrot), R7.13.

Glossary: Pierrot lunaire → ``pierrot``.

Power: not yet implemented (arrives with the issue Characters II); standard visibility (R2.7).

Constraint: judged by an MJ, presumed met until recorded failed (R6.20, A1).

Jokers: at most two; one item of item_chair_basic, item_bed, item_chair (data, R6.10–R6.12).

Failure: a failed constraint recorded by an MJ (R6.2, R6.21); the rest of R7.13
arrives with the issue Characters II.

Inheritance: none yet.

Rule ids: R7.13.1 (visibility).
"""

from __future__ import annotations

from typing import ClassVar

from .base import ListedJokers


class Pierrot(ListedJokers):
    """The Pierrot lunaire: standard visibility; the rest of R7.13 is still to come."""

    id: ClassVar[str] = "pierrot"
    has_jokers: ClassVar[bool] = True
    joker_items: ClassVar[frozenset[str]] = frozenset(
        {"item_chair_basic", "item_bed", "item_chair"}
    )
