"""A scenario with an unknown house-rule id or value names its file and line (FORMAT.md)."""

from __future__ import annotations

from pathlib import Path

import pytest

from ronde.scenario import ScenarioError, load

HEAD = """name: options
rules: [A9]
game:
  start: 2026-12-01
  ronde: [alice, woody]
  cast: {Ana: alice, Bob: woody}
"""


@pytest.mark.parametrize(
    ("options", "line", "words"),
    [
        ("  options:\n    A7: standard_only\n    A9: grace_forever\n", 9, ["A9", "grace_N"]),
        ("  options: {A7: standard_only, A999: x}\n", 7, ["A999"]),
        ("  options:\n    A9: grace_N\n", 8, ["A9", "nombre"]),
        ("  options:\n\n    a64: sometimes\n", 9, ["A64", "at_end"]),
        ("  options: [A9]\n", 7, ["dictionnaire"]),
    ],
)
def test_a_bad_option_names_its_line(
    tmp_path: Path, options: str, line: int, words: list[str]
) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(HEAD + options + "steps: []\n", encoding="utf-8")
    with pytest.raises(ScenarioError) as err:
        load(path)
    assert err.value.line == line
    assert str(err.value).startswith(f"{path}:{line}: ")
    for word in words:
        assert word in err.value.problem


def test_good_options_are_kept(tmp_path: Path) -> None:
    path = tmp_path / "good.yaml"
    path.write_text(HEAD + "  options: {A9: grace_15, A27: cap_3}\nsteps: []\n", encoding="utf-8")
    assert load(path).options == {"A9": "grace_15", "A27": "cap_3"}
