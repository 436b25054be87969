"""Woody (woody), R7.12.

Glossary: Woody → ``woody``.

Power: not yet implemented (arrives with the issue Characters II); standard visibility (R2.7).

Constraint: judged by an MJ, presumed met until recorded failed (R6.20, A1).

Jokers: at most two; one item of item_tekel, item_lock, item_big_pgun_empty,
item_big_pgun, item_pilegun_up_empty, item_pilegun_up, item_watergun_opt_empty,
item_watergun_opt_1, item_watergun_opt_2, item_watergun_opt_3, item_watergun_opt_4,
item_watergun_opt_5, item_jerrygun, item_jerrygun_off, item_gun, item_machine_gun (data,
R6.10–R6.12).

Failure: a failed constraint recorded by an MJ (R6.2, R6.21); the rest of R7.12
arrives with the issue Characters II.

Inheritance: none yet.

Rule ids: R7.12.1 (visibility).
"""

from __future__ import annotations

from typing import ClassVar

from .base import ListedJokers


class Woody(ListedJokers):
    """The Woody: standard visibility; the rest of R7.12 is still to come."""

    id: ClassVar[str] = "woody"
    has_jokers: ClassVar[bool] = True
    joker_items: ClassVar[frozenset[str]] = frozenset(
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
            "item_gun",
            "item_machine_gun",
        }
    )
