"""The house rules (RULES.md, Appendix A) as the setup page shows them: each with its
question in French and the meaning of each value, the default marked. The French
text lives in one data file, ``data/house_rules.fr.yaml``."""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import cache
from importlib import resources
from typing import Any

import yaml

from ronde.engine.options import HOUSE_RULES, NUMBER_LIMITS

_NUMBERED = re.compile(r"^(grace|cap)_(\d+)$")


@cache
def texts() -> dict[str, dict[str, Any]]:
    """The French questions and meanings, by house-rule id."""
    raw = (
        resources.files("ronde.web.games")
        .joinpath("data/house_rules.fr.yaml")
        .read_text(encoding="utf-8")
    )
    data = yaml.safe_load(raw)
    assert isinstance(data, dict)
    return {str(k): v for k, v in data.items()}


def rows(options: Mapping[str, str]) -> list[dict[str, Any]]:
    """Every house rule with its question, its values (meaning, default, chosen) and,
    for a value that carries a number (``grace_N``, ``cap_N``), the number chosen."""
    fr = texts()
    out = []
    for rid, (default, others) in HOUSE_RULES.items():
        entry = fr.get(rid, {})
        chosen = options.get(rid, default)
        m = _NUMBERED.match(chosen)
        chosen_key = f"{m.group(1)}_N" if m else chosen
        values = []
        for value in (default, *others):
            meaning = str(entry.get("values", {}).get(value, ""))
            numbered = value.endswith("_N")
            values.append(
                {
                    "value": value,
                    "meaning": meaning,
                    "default": value == default,
                    "chosen": value == chosen_key,
                    "numbered": numbered,
                    "number": int(m.group(2)) if (m and numbered and chosen_key == value) else "",
                    "limit": NUMBER_LIMITS.get(value.split("_")[0], 0) if numbered else 0,
                }
            )
        out.append(
            {
                "id": rid,
                "question": str(entry.get("question", rid)),
                "values": values,
                "changed": chosen != default,
            }
        )
    return out


def read(post: Mapping[str, Any]) -> dict[str, str]:
    """The options chosen on the setup form (only those that differ from the default);
    a numbered value takes its number from ``opt_<id>_n``."""
    options: dict[str, str] = {}
    for rid, (default, _others) in HOUSE_RULES.items():
        value = str(post.get(f"opt_{rid}") or "").strip()
        if not value or value == default:
            continue
        if value.endswith("_N"):
            number = str(post.get(f"opt_{rid}_n") or "").strip()
            value = value[:-1] + number if number else value
        options[rid] = value
    return options
