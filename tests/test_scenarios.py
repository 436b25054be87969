"""Every scenario file passes (FORMAT.md examples and ours), and every rule id of
the engine-core sections is named by at least one scenario."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from ronde.scenario import collect, load, rule_ids, run

from .conftest import ROOT, SHARED

OURS = ROOT / "tests" / "scenarios"
EXAMPLES = SHARED / "scenarios" / "examples"
FILES = collect([EXAMPLES, OURS])


#: Scenarios that need character rules still to be built, by file name, with the issue.
#: They run as strict xfails, so they turn into failures the day they pass.
PENDING: dict[str, str] = {
    "anonymous-complaints.yaml": "Polichinelle's gift (grant_anonymous): Characters II",
    "anonymous-public-only-option.yaml": "Polichinelle's gift (grant_anonymous): Characters II",
    "anonymous-opening.yaml": "Halus's anonymous complaints: Characters II",
    "decorators-slot-dies-first-option.yaml": "the Decorators' daily items: Characters I",
    "decorators-slot-live-while-one-masked.yaml": "the Decorators' daily items: Characters I",
    "compelled-complaints.yaml": "the Little Mermaid's order: Characters II",
    "daily-quota.yaml": "Woody's question (ask): Characters II",
    "null-complaint-free-option.yaml": "the Prompter's choose_phrase: Characters I",
    "null-complaint-prompter.yaml": "the Prompter's choose_phrase: Characters I",
}


def _param(path: Path) -> object:
    reason = PENDING.get(path.name)
    marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
    return pytest.param(path, marks=marks, id=str(path.relative_to(path.parents[2])))


@pytest.mark.parametrize("path", [_param(p) for p in FILES])
def test_scenario_passes(path: Path) -> None:
    outcome = run(load(path))
    assert outcome.passed, outcome.line()


def _rule_ids_in_rules_md(sections: set[str]) -> set[str]:
    text = (SHARED / "RULES.md").read_text(encoding="utf-8")
    ids = set(re.findall(r"\*\*(R\d+(?:\.\d+)+)\*\*", text))
    return {r for r in ids if r[1:].split(".")[0] in sections}


#: Rule ids of the core sections that no scenario names yet, each with its reason.
#: The meta-test below fails when this list is out of date in either direction.
NOT_YET_COVERED: dict[str, str] = {}

CORE_SECTIONS = {"0", "1", "2", "3", "4", "5", "6", "8", "9", "10"}


def test_every_core_rule_has_a_scenario() -> None:
    named = set(rule_ids([EXAMPLES, OURS]))
    missing = _rule_ids_in_rules_md(CORE_SECTIONS) - named
    assert missing == set(NOT_YET_COVERED), (
        "rule ids without a scenario: "
        + ", ".join(sorted(missing - set(NOT_YET_COVERED)))
        + " | listed as uncovered but now covered: "
        + ", ".join(sorted(set(NOT_YET_COVERED) - missing))
    )
