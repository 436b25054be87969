"""Commands: what someone asks the engine to do (imperative), in the scenario vocabulary.

A command is an action name (``open_trial``, ``complain`` ... see FORMAT.md), who
does it (a player's pseudo or a game master), when (timezone-aware), and its
arguments as a mapping (the same keys as in scenario steps).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from .errors import RuleViolation


@dataclass(frozen=True, slots=True)
class Command:
    """``by`` does ``action`` at ``at`` with ``args``."""

    action: str
    by: str
    at: datetime
    args: Mapping[str, Any] = field(default_factory=dict)

    def get(self, key: str, default: Any = None) -> Any:
        return self.args.get(key, default)

    def require(self, key: str) -> Any:
        """The argument ``key``.

        Raises:
            RuleViolation: ``invalid_argument`` if it is missing.
        """
        if key not in self.args or self.args[key] is None:
            # the argument as quoted here is put in French by the pages (its form label)
            raise RuleViolation("invalid_argument", f"Argument manquant : « {key} ».")
        return self.args[key]

    def flag(self, key: str, default: bool = False) -> bool:
        """A boolean argument (``true``/``false``, ``oui``/``non``, 1/0).

        Raises:
            RuleViolation: ``invalid_argument`` if it is not a boolean.
        """
        value = self.args.get(key, default)
        if isinstance(value, bool):
            return value
        text = str(value).strip().casefold()
        if text in {"true", "1", "yes", "oui", "vrai"}:
            return True
        if text in {"false", "0", "no", "non", "faux"}:
            return False
        raise RuleViolation(
            "invalid_argument", f"« {key} » doit valoir true ou false, pas « {value} »."
        )

    def integer(self, key: str) -> int:
        """A whole-number argument.

        Raises:
            RuleViolation: ``invalid_argument`` if missing or not a whole number.
        """
        value = self.require(key)
        if isinstance(value, int) and not isinstance(value, bool):
            number = value
        elif isinstance(value, str) and value.strip().lstrip("+-").isdigit():
            number = int(value.strip())
        else:
            raise RuleViolation(
                "invalid_argument", f"« {key} » doit être un nombre entier, pas « {value} »."
            )
        if abs(number) > 1_000_000:
            raise RuleViolation("invalid_argument", f"« {key} » : nombre hors limites ({number}).")
        return number
