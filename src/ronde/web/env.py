"""Settings read from the environment, each checked (environs) and refused with a French
message that names the variable: ``RONDE_INVITATION_DAYS=14j`` stops the start with
« RONDE_INVITATION_DAYS : « 14j » n'est pas un nombre entier », not a traceback.

Read before Django starts (by :mod:`ronde.web.settings`): nothing here imports Django's
settings.
"""

from __future__ import annotations

import math
import os

from django.core.exceptions import ImproperlyConfigured
from environs import Env, EnvError

_env = Env(eager=True, expand_vars=False)

TRUE = ("1", "true", "yes", "oui", "on")
FALSE = ("", "0", "false", "no", "non", "off")
LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")


class ConfigError(ImproperlyConfigured):
    """An environment value Ronde cannot use; its message is French and names the variable."""


def raw(name: str) -> str:
    return os.environ.get(name, "").strip()


def flag(name: str, default: bool = False) -> bool:
    """``1``/``oui``/``true``/``yes``/``on`` or ``0``/``non``/``false``/``no``/``off``;
    ``default`` when unset or empty."""
    value = raw(name).lower()
    if not value:
        return default
    if value in TRUE:
        return True
    if value in FALSE:
        return False
    raise ConfigError(
        f"{name} : « {raw(name)} » n'est ni oui ni non (1, oui, true ou 0, non, false)."
    )


def integer(name: str, default: int, *, minimum: int | None = None) -> int:
    """A whole number (``default`` when unset or empty), at least ``minimum``."""
    if not raw(name):
        return default
    try:
        value = int(_env.int(name))
    except EnvError:
        raise ConfigError(f"{name} : « {raw(name)} » n'est pas un nombre entier.") from None
    if minimum is not None and value < minimum:
        raise ConfigError(f"{name} : {value} est trop petit (au moins {minimum}).")
    return value


def number(name: str, default: float) -> float:
    """A number of seconds (``2.5``; ``default`` when unset or empty), finite and above 0."""
    if not raw(name):
        return default
    try:
        value = float(_env.float(name))
    except EnvError:
        raise ConfigError(f"{name} : « {raw(name)} » n'est pas un nombre.") from None
    if not math.isfinite(value) or value <= 0:
        raise ConfigError(f"{name} : « {raw(name)} » doit être un nombre plus grand que 0.")
    return value


def text(name: str, default: str = "") -> str:
    return raw(name) or default


def items(name: str) -> list[str]:
    """A comma-separated list."""
    return [item.strip() for item in os.environ.get(name, "").split(",") if item.strip()]


def choice(name: str, default: str, allowed: tuple[str, ...]) -> str:
    value = raw(name).upper() or default
    if value not in allowed:
        raise ConfigError(f"{name} : « {raw(name)} » n'est pas l'un de {', '.join(allowed)}.")
    return value


def url(name: str, schemes: tuple[str, ...]) -> str:
    """A URL whose scheme is one of ``schemes`` (empty when unset)."""
    value = raw(name)
    if not value:
        return ""
    scheme = value.split("://", 1)[0].lower() if "://" in value else ""
    if scheme not in schemes:
        raise ConfigError(
            f"{name} : une adresse de la forme {' ou '.join(s + '://…' for s in schemes)} "
            f"est attendue (reçu : « {scheme or value[:20]} »)."
        )
    return value
