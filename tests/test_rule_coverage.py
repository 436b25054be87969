"""Meta-test: every rule id of RULES.md is named by at least one scenario, except
those listed (with a reason) in ``tests/uncovered/*.txt`` — one file per issue.

The lists must stay exact: an id that gains a scenario must leave its list.
"""

from __future__ import annotations

import re

from ronde.scenario import rule_ids

from .conftest import ROOT, SHARED

UNCOVERED = ROOT / "tests" / "uncovered"
SCENARIOS = [SHARED / "scenarios" / "examples", ROOT / "tests" / "scenarios"]


def all_rule_ids() -> set[str]:
    text = (SHARED / "RULES.md").read_text(encoding="utf-8")
    return set(re.findall(r"\*\*(R\d+(?:\.\d+)+)\*\*", text))


def listed() -> dict[str, str]:
    out: dict[str, str] = {}
    for path in sorted(UNCOVERED.glob("*.txt")):
        for line in path.read_text(encoding="utf-8").splitlines():
            line = line.strip()
            if line and not line.startswith("#"):
                rid, _, reason = line.partition(" ")
                out[rid] = f"{path.name}: {reason.strip()}"
    return out


def test_rule_ids_without_scenario_are_exactly_the_listed_ones() -> None:
    named = set(rule_ids(SCENARIOS))
    missing = all_rule_ids() - named
    allow = listed()
    unexpected = sorted(missing - set(allow))
    stale = sorted(set(allow) - missing)
    assert not unexpected, "rule ids without a scenario: " + ", ".join(unexpected)
    assert not stale, "listed as uncovered but a scenario names them now: " + ", ".join(stale)
