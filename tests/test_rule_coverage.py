"""Meta-test: every rule id of RULES.md is named by at least one scenario, except
those listed (with a reason) in ``tests/uncovered/*.txt`` — one file per issue.

The lists must stay exact: an id that gains a scenario must leave its list.
"""

from __future__ import annotations

import dataclasses
import re

from ronde.engine.options import HOUSE_RULES
from ronde.scenario import Scenario, collect, load, rule_ids, run

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


# -- a rule id counts when the scenario naming it does what the rule is about --------------

#: Rules about one action: a scenario naming the rule counts only if it also runs one of
#: these actions (naming R1.11 in a ``rules:`` line without a death covers nothing).
RULE_ACTIONS: dict[str, set[str]] = {
    "R1.11": {"record_death"},
    "A4": {"record_death"},
    "R3.10": {"exempt"},
    "R4.8": {"announce"},
    "A72": {"end_game"},
}

#: House rules whose non-default value no scenario can tell apart, with the reason and the
#: test that checks the difference instead. Keep it short.
NOT_BY_SCENARIO: dict[str, str] = {
    # what the views show: no scenario check reads a view
    "A19": "the views' null notice (tests/test_units.py::test_null_notice_*)",
    "A70": "who sees the scores (tests/web/test_pages.py::test_own_score_only_with_house_rule)",
    # the engine does not act on them: the game masters judge the proof / the sentence
    "A11": "proof timing is the game masters' judgement (record_constraint)",
    "A34": "the Prompter's sentence is judged by the game masters",
}


def scenarios() -> list[Scenario]:
    return [load(p) for p in collect(SCENARIOS)]


def house_rule_ids() -> set[str]:
    """The ids of Appendix A whose default is an option value (`...`)."""
    text = (SHARED / "RULES.md").read_text(encoding="utf-8")
    return set(re.findall(r"^\| (A\d+) \| [^|]+\| `", text, re.MULTILINE))


def test_a_rule_about_an_action_is_covered_only_by_scenarios_running_it() -> None:
    loaded = scenarios()
    for rid, actions in RULE_ACTIONS.items():
        naming = [s for s in loaded if rid in s.rules]
        doing = [s for s in naming if any(step.action in actions for step in s.steps)]
        assert doing, f"{rid} is named by {[s.path.name for s in naming]}, none runs {actions}"


def _with_default(s: Scenario, rid: str) -> Scenario:
    return dataclasses.replace(s, options={k: v for k, v in s.options.items() if k != rid})


def test_every_house_rule_has_a_scenario_whose_outcome_depends_on_it() -> None:
    """Each house rule is named by a scenario that sets it to a non-default value and
    fails when the option is put back to its default (so its checks see the difference)."""
    loaded = scenarios()
    ids = house_rule_ids() | set(HOUSE_RULES)
    assert len(ids) >= 50
    missing = {}
    for rid in sorted(ids - set(NOT_BY_SCENARIO), key=lambda r: int(r[1:])):
        default = HOUSE_RULES[rid][0]
        setting = [
            s
            for s in loaded
            if rid in s.rules and rid in s.options and str(s.options[rid]) != default
        ]
        if not setting:
            missing[rid] = "no scenario names it with a non-default value"
        elif all(run(_with_default(s, rid)).passed for s in setting):
            missing[rid] = f"{[s.path.name for s in setting]} pass under the default too"
    assert not missing, missing


def test_the_exception_lists_stay_exact() -> None:
    loaded = scenarios()
    for rid in NOT_BY_SCENARIO:
        assert rid in HOUSE_RULES, rid
        default = HOUSE_RULES[rid][0]
        setting = [s for s in loaded if rid in s.options and str(s.options[rid]) != default]
        differs = [s for s in setting if rid in s.rules and not run(_with_default(s, rid)).passed]
        assert not differs, f"{rid} has a scenario now: remove it from NOT_BY_SCENARIO"
