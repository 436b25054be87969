"""Every scenario file passes (FORMAT.md examples and ours); see test_rule_coverage for
the meta-test on rule ids."""

from __future__ import annotations

from pathlib import Path

import pytest

from ronde.scenario import collect, load, run

from .conftest import ROOT, SHARED

OURS = ROOT / "tests" / "scenarios"
EXAMPLES = SHARED / "scenarios" / "examples"
FILES = collect([EXAMPLES, OURS])


#: Scenarios that need character rules still to be built, by file name, with the issue.
#: They run as strict xfails, so they turn into failures the day they pass.
PENDING: dict[str, str] = {}


def _param(path: Path) -> object:
    reason = PENDING.get(path.name)
    marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
    return pytest.param(path, marks=marks, id=str(path.relative_to(path.parents[2])))


@pytest.mark.parametrize("path", [_param(p) for p in FILES])
def test_scenario_passes(path: Path) -> None:
    outcome = run(load(path))
    assert outcome.passed, outcome.line()
