"""Refusals of the rules engine.

Every refusal is a :class:`RuleViolation` carrying one of the stable codes of
``scenarios/FORMAT.md`` and a French message for users. A refused command
changes nothing (R0.1).
"""

from __future__ import annotations

from typing import Final

CODES: Final[frozenset[str]] = frozenset(
    {
        "unknown_player",
        "unknown_character",
        "unknown_trial",
        "not_game_master",
        "actor_unmasked",
        "not_your_target",
        "daily_limit",
        "own_trial",
        "already_complained",
        "trial_closed",
        "asleep",
        "not_allowed",
        "out_of_window",
        "power_exhausted",
        "game_not_running",
        "invalid_argument",
    }
)


class RuleViolation(Exception):
    """A command refused by the rules.

    Attributes:
        code: one of :data:`CODES` (the codes of FORMAT.md).
        message: a clear French sentence for the person who acted.
        suggestion: for an unknown name, the nearest known one (or ``None``).
    """

    def __init__(self, code: str, message: str, *, suggestion: str | None = None) -> None:
        if code not in CODES:
            raise ValueError(f"unknown refusal code {code!r}")
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.suggestion = suggestion


def refuse(code: str, message: str, *, suggestion: str | None = None) -> RuleViolation:
    """Build a :class:`RuleViolation` (to be raised by the caller)."""
    return RuleViolation(code, message, suggestion=suggestion)
