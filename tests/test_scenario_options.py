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


KNOWN = """name: not known
rules: [R4.10]
game:
  start: 2026-12-01
  ronde: [alice, woody, pierrot, halus, little_mermaid, polichinelle, guignol, revenant]
  cast:
    {Ana: alice, Bob: woody, Cid: pierrot, Dan: halus, Eve: little_mermaid,
     Fay: polichinelle, Gus: guignol, Hal: revenant}
steps:
  - at: J2 09:00
    expect: {public: {Bob: WANT}, learned: {Ana: {Bob: WANT}}}
  - {at: J2 10:00, by: Ana, do: open_trial, against: Bob, as: woody}
  - {at: J2 10:10, by: Dan, do: complain, trial: 1}
  - {at: J2 10:20, by: Eve, do: complain, trial: 1}
  - {at: J2 10:30, by: Fay, do: complain, trial: 1}
  - {at: J2 10:40, by: Gus, do: complain, trial: 1}
  - {at: J2 11:00, by: Mj, do: announce, trial: 1}
  - at: J2 11:05
    expect: {public: {Bob: AFTER}}
"""


@pytest.mark.parametrize("word", ["none", "nothing", "unknown", "null"])
def test_not_known_may_be_written_none_nothing_or_null(tmp_path: Path, word: str) -> None:
    """``public`` and ``learned`` checks say "not known" as the ``characters`` check says
    "unmasked" (``none``), or ``nothing``, or YAML's null; once known, they fail."""
    from ronde.scenario import run

    path = tmp_path / "known.yaml"
    path.write_text(KNOWN.replace("WANT", word).replace("AFTER", "woody"), encoding="utf-8")
    out = run(load(path))
    assert out.passed, out.message
    path.write_text(KNOWN.replace("WANT", word).replace("AFTER", word), encoding="utf-8")
    out = run(load(path))
    assert not out.passed and "publicly known as" in out.message
