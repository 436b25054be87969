"""Small helpers for the ``describe_private`` hooks: French lists of characters, days,
windows and statuses, so that no identifier reaches a player's page."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .clock import DUTY_WINDOWS
from .names import BY_ID

#: a duty window's attempt (Chucky, the Devil's Advocate)
ATTEMPT_FR = {
    "pending": "en attente du verdict",
    "success": "réussi",
    "failed": "échoué",
    "missing": "manqué (aucune tentative à temps)",
}


def name(cid: object) -> str:
    """A character's French name (never its id)."""
    row = BY_ID.get(str(cid))
    return row.fr if row is not None else "personnage inconnu"


def names(ids: Iterable[object]) -> str:
    out = [name(c) for c in ids]
    return ", ".join(out) if out else "aucun"


def people(pseudos: Iterable[object]) -> str:
    out = [str(p) for p in pseudos]
    return ", ".join(out) if out else "personne"


def period(text: object) -> str:
    """``J2-J5`` or ``J2–J5`` -> ``du J2 au J5``."""
    first, _sep, last = str(text).replace("–", "-").partition("-")
    return f"du {first} au {last}" if last else str(text)


def window(key: object) -> str:
    """``W1`` -> ``1re période (J2–J7)``."""
    try:
        n = int(str(key).lstrip("W"))
        first, last = DUTY_WINDOWS[n - 1]
    except (ValueError, IndexError):
        return "période"
    return f"{'1re' if n == 1 else f'{n}e'} période (J{first}–J{last})"


def attempt(a: Any) -> str:
    """A duty window's attempt: its trial and its fate."""
    status = ATTEMPT_FR.get(str(a.get("status")), "inconnu")
    trial = a.get("trial")
    return f"Procès n°{trial} — {status}" if trial else status


def plural(n: int, one: str, many: str) -> str:
    return f"{n} {one if n in (0, 1) else many}"


# -- typed access to a ``private_view`` (plain data) ------------------------------------
def rows(data: dict[str, object], key: str) -> list[dict[str, Any]]:
    """``data[key]`` as a list of dicts (missing: empty)."""
    value = data.get(key)
    return [x for x in value if isinstance(x, dict)] if isinstance(value, list | tuple) else []


def values(data: dict[str, object], key: str) -> list[Any]:
    value = data.get(key)
    return list(value) if isinstance(value, list | tuple | set) else []


def table(data: dict[str, object], key: str) -> dict[Any, Any]:
    value = data.get(key)
    return dict(value) if isinstance(value, dict) else {}


def number(data: dict[str, object], key: str) -> int:
    value = data.get(key)
    return int(value) if isinstance(value, int | float | str) and str(value).isdigit() else 0


def quoted(text: object) -> str:
    """``« text »`` unless the text already carries its guillemets."""
    t = str(text or "").strip()
    return t if t.startswith("«") else f"« {t} »"
