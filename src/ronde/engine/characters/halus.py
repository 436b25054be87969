"""Halus (halus), R7.11.

Glossary: Halus → ``halus``.

Power: not yet implemented (arrives with the issue Characters II); standard visibility (R2.7).

Constraint: judged by an MJ, presumed met until recorded failed (R6.20, A1).

Jokers: at most two; one item of item_lamp_on, item_lamp, item_maglite_2,
item_maglite_1, item_maglite_off, item_firework_box (data, R6.10–R6.12).

Failure: a failed constraint recorded by an MJ (R6.2, R6.21); the rest of R7.11
arrives with the issue Characters II.

Inheritance: none yet.

Rule ids: R7.11.1 (visibility).
"""

from __future__ import annotations

from typing import ClassVar

from .base import ListedJokers


class Halus(ListedJokers):
    """The Halus: standard visibility; the rest of R7.11 is still to come."""

    id: ClassVar[str] = "halus"
    has_jokers: ClassVar[bool] = True
    joker_items: ClassVar[frozenset[str]] = frozenset(
        {
            "item_lamp_on",
            "item_lamp",
            "item_maglite_2",
            "item_maglite_1",
            "item_maglite_off",
            "item_firework_box",
        }
    )
