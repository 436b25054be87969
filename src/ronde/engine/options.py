"""House rules: game options keyed by ambiguity id (RULES.md Appendix A).

An absent id means the default value. Values of the form ``grace_N`` (A9) and
``cap_N`` (A27) carry a number.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Final

from .errors import RuleViolation

#: id -> (default, other allowed values)
HOUSE_RULES: Final[dict[str, tuple[str, tuple[str, ...]]]] = {
    "A1": ("presume_met", ("require_proof",)),
    "A3": ("from_j2", ("from_j1",)),
    "A4": ("no_special_rule", ("death_unmasks",)),
    "A5": ("both", ("first",)),
    "A6": ("events", ("original",)),
    "A7": ("all_windows", ("standard_only",)),
    "A9": ("midnight", ("grace_N",)),
    "A10": ("fixed", ("sliding",)),
    "A11": ("next_day", ("same_deadline",)),
    "A12": ("midnight_void", ("midnight_lapse", "1313_void", "1313_lapse", "full_window")),
    "A13": ("forbidden", ("allowed",)),
    "A14": ("no_identical", ("allow_all",)),
    "A15": ("count", ("public_only",)),
    "A16": ("scored", ("ignored",)),
    "A17": ("void", ("continue", "lapse")),
    "A19": ("count", ("generic",)),
    "A20": ("consumes", ("free",)),
    "A21": ("one_opening", ("complaints_only", "any")),
    "A22": ("extra", ("within",)),
    "A23": ("reduce", ("full", "waive")),
    "A24": ("receipt_day", ("named_day",)),
    "A25": ("each", ("group",)),
    "A27": ("unlimited", ("cap_N",)),
    "A28": ("decoration_items", ("any_item",)),
    "A29": ("no_consecutive", ("parity",)),
    "A30": ("both_wrong", ("wrong_player", "any_failure")),
    "A31": ("optional_breaks_run", ("optional_neutral",)),
    "A32": ("events", ("original", "none_left")),
    "A33": ("forbidden", ("allowed",)),
    "A34": ("from_original", ("from_previous",)),
    "A35": ("differ_from_previous", ("all_distinct",)),
    "A36": ("one_success", ("strict",)),
    "A38": ("not_concluded", ("no_points", "correctness_only")),
    "A39": ("just_no_unmask", ("unjust",)),
    "A40": ("unknown", ("known",)),
    "A41": ("no_result", ("counts",)),
    "A42": ("concluded", ("not_concluded",)),
    "A43": ("shorten_wins", ("cancel_wins",)),
    "A45": ("mj_judged", ("no_sanction",)),
    "A48": ("no_bonus", ("bonus",)),
    "A50": (
        "named_plus_random_each",
        ("named_plus_random_once", "two_random_each", "prompter_only"),
    ),
    "A51": ("repeats_allowed", ("distinct",)),
    "A52": ("schedule", ("standard",)),
    "A53": ("at_opening", ("at_end", "final_count")),
    "A56": ("next_day_or_unmask", ("no_deadline",)),
    "A57": ("fm_distinct", ("fv_distinct", "fm_repeats")),
    "A59": ("split", ("cancelled_counts", "cancelled_not_counted")),
    "A60": ("truth", ("outcome",)),
    "A62": ("notified_stand", ("all_lapse",)),
    "A63": ("plurality", ("absolute_majority",)),
    "A64": ("at_decision", ("at_execution", "at_end")),
    "A65": ("distinct", ("repeats",)),
    "A67": ("exclude_just_unmasked", ("include_just_unmasked",)),
    "A68": ("j2_to_j13", ("j1_to_j13",)),
    "A69": ("days", ("posts",)),
    "A70": ("mj_only", ("own_score", "public")),
    "A71": ("rotation_only", ("exact_start", "rotation_or_reverse")),
    "A73": ("everywhere", ("decorators_only",)),
    "A74": ("counts", ("not_counted",)),
    "A75": ("r2_12", ("any_unmasked",)),
    "A77": ("frozen", ("outcome_applies",)),
}

_NUMBERED = re.compile(r"^(grace|cap)_(\d{1,6})$")
#: the largest N of ``grace_N`` (minutes after midnight) and ``cap_N`` (boxes)
NUMBER_LIMITS: Final[dict[str, int]] = {"grace": 180, "cap": 10_000}


def validate_options(raw: Mapping[str, object] | None) -> dict[str, str]:
    """Check a game's ``options`` and return them as ``{id: value}`` strings.

    Raises:
        RuleViolation: ``invalid_argument`` for an unknown id or value (French message
            listing the allowed values).
    """
    out: dict[str, str] = {}
    for key, value in (raw or {}).items():
        rid = str(key).strip().upper()
        if rid not in HOUSE_RULES:
            raise RuleViolation(
                "invalid_argument",
                f"Règle maison inconnue : {key} ; identifiants connus : "
                + ", ".join(HOUSE_RULES)
                + " (annexe A de RULES.md).",
            )
        default, others = HOUSE_RULES[rid]
        text = str(value).strip()
        m = _NUMBERED.match(text)
        allowed = (default, *others)
        if m and f"{m.group(1)}_N" in allowed:
            limit = NUMBER_LIMITS[m.group(1)]
            if not 0 <= int(m.group(2)) <= limit:
                raise RuleViolation("invalid_argument", f"{rid} : {text} — N va de 0 à {limit}.")
            out[rid] = text
            continue
        if text.endswith("_N"):
            raise RuleViolation(
                "invalid_argument",
                f"{rid} : remplacez N par un nombre (par exemple {text[:-1]}15).",
            )
        if text not in allowed:
            raise RuleViolation(
                "invalid_argument",
                f"Valeur « {text} » impossible pour {rid} ; valeurs permises : "
                + ", ".join(allowed),
            )
        out[rid] = text
    return out


def option(options: Mapping[str, str], rid: str) -> str:
    """The value of house rule ``rid`` in ``options`` (its default when absent)."""
    value = options.get(rid)
    return value if value is not None else HOUSE_RULES[rid][0]


def numbered(value: str) -> int | None:
    """The N of a ``grace_N`` / ``cap_N`` value, else ``None``."""
    m = _NUMBERED.match(value)
    return int(m.group(2)) if m else None
