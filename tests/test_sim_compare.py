"""``ronde simulate --compare`` (issue 29): paired games, the same CSV whatever
``--jobs``, options checked against the registry, partial reports on Ctrl-C, the paired
differences and their sentences."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ronde import simcompare, simreport
from ronde.cli import app
from ronde.simreport import DEFAULT, Run, csv_text, paired_diff, read_csv

runner = CliRunner()


def test_same_seed_same_csv_whatever_the_jobs(tmp_path: Path) -> None:
    args = ["simulate", "--compare", "A9=grace_60", "A17=continue", "--games", "3",
            "--seed", "7", "--players", "12"]  # fmt: skip
    one = runner.invoke(app, [*args, "--jobs", "1", "--report", str(tmp_path / "a")])
    assert one.exit_code == 0, one.output
    two = runner.invoke(app, [*args, "--jobs", "2", "--report", str(tmp_path / "b")])
    assert two.exit_code == 0, two.output
    a = (tmp_path / "a" / "parties.csv").read_text(encoding="utf-8")
    b = (tmp_path / "b" / "parties.csv").read_text(encoding="utf-8")
    assert a == b
    lines = a.splitlines()
    assert len(lines) == 1 + 3 * 3  # the header, then 3 games under 3 rules
    assert [ln.split(",")[0] for ln in lines[1:]] == [DEFAULT] * 3 + ["A9=grace_60"] * 3 + [
        "A17=continue"
    ] * 3
    html = (tmp_path / "a" / "rapport.html").read_text(encoding="utf-8")
    assert "<svg" in html and "A17=continue" in html and "<script" not in html
    assert "contre les règles par défaut" in one.output


def test_a_variant_changes_only_what_its_rule_changes() -> None:
    """Paired games: the same cast and the same draws; a rule that no game reaches (A4,
    no citizen dies in a simulated game) gives the very same figures."""
    variants = simcompare.variants(["A4=death_unmasks"])
    run = simcompare.run(seed=3, games=2, players=10, variants=variants)
    assert run.rows[DEFAULT] == run.rows["A4=death_unmasks"]
    other = simcompare.run(seed=4, games=2, players=10, variants=variants)
    assert other.rows[DEFAULT] != run.rows[DEFAULT]  # (another seed, other games)


def test_options_are_checked_against_the_registry() -> None:
    bad = runner.invoke(app, ["simulate", "--compare", "A9=graze_60", "--games", "2"])
    assert bad.exit_code == 2
    assert "valeurs permises : midnight, grace_N" in " ".join(bad.output.split())
    unknown = runner.invoke(app, ["simulate", "--compare", "A999=x"])
    assert unknown.exit_code == 2 and "Règle maison inconnue" in unknown.output
    default = runner.invoke(app, ["simulate", "--compare", "A17=void"])
    assert default.exit_code == 2 and "valeurs par défaut" in default.output
    alone = runner.invoke(app, ["simulate", "A9=grace_60"])
    assert alone.exit_code == 2 and "--compare" in alone.output
    assert "Traceback" not in bad.output + unknown.output + default.output


def test_ctrl_c_keeps_the_games_done(tmp_path: Path) -> None:
    done: list[int] = []

    def advance(n: int) -> None:
        done.append(n)
        if len(done) == 2:
            raise KeyboardInterrupt

    variants = simcompare.variants(["A17=continue"])
    run = simcompare.run(seed=1, games=5, players=8, variants=variants, advance=advance)
    assert run.interrupted and run.paired() == [0, 1]
    paths = simreport.write_report(run, tmp_path)
    assert "interrompue" in paths[1].read_text(encoding="utf-8")
    assert len(paths[0].read_text(encoding="utf-8").splitlines()) == 1 + 2 * 2


def test_paired_difference_and_its_sentence() -> None:
    m = simreport.BY_KEY["fall_decorators"]
    base = [5.0, 6.0, 7.0, 6.0] * 5
    later = [b + 1.4 + (0.1 if i % 2 else -0.1) for i, b in enumerate(base)]
    d = paired_diff(m, base, later)
    assert math.isclose(d.diff, 1.4) and d.clear
    assert math.isclose(
        d.half, 1.96 * math.sqrt(sum(0.01 for _ in base) * 20 / 19 / 20) / math.sqrt(20)
    )
    said = simreport.sentence("A9=grace_60", d)
    assert said == "avec A9=grace_60, les Décorateurs tombent 1,4 jour plus tard en moyenne (± 0,0)"
    noisy = paired_diff(m, base, [b + (3 if i % 2 else -3) for i, b in enumerate(base)])
    assert not noisy.clear and simreport.sentence("A9=grace_60", noisy) is None


def test_a_csv_read_back_gives_the_same_report(tmp_path: Path) -> None:
    variants = simcompare.variants(["A17=lapse"])
    run = simcompare.run(seed=2, games=2, players=8, variants=variants)
    text = csv_text(run)
    again = read_csv(text)
    assert csv_text(again) == text
    assert again.variants == [DEFAULT, "A17=lapse"]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "vide"),
        ("a,b\n", "colonnes"),
        ("variante,partie,graine,events\n<script>,0,1,3\n", "variante illisible"),
        ("variante,partie,graine,events\nA9=bad,0,1,3\n", "valeurs permises"),
        ("variante,partie,graine,evil\n", "Colonne inconnue"),
        ("variante,partie,graine,events\ndéfaut,0,1,nan\n", "hors limites"),
        ("variante,partie,graine,events\ndéfaut,0,1,1e308\n", "hors limites"),
        ("variante,partie,graine,events\ndéfaut,0,1,-2e9\n", "hors limites"),
        ("variante,partie,graine,events\nA9=grace_60,0,1,3\n", "défaut"),
    ],
)
def test_a_bad_csv_is_refused(text: str, message: str) -> None:
    with pytest.raises(simreport.ReportError, match=message):
        read_csv(text)


def test_the_html_escapes_what_it_shows() -> None:
    run = Run(seed=1, games=1, players=8, variants=[DEFAULT, "A17=lapse"])
    run.rows = {DEFAULT: {0: {"events": 1.0}}, "A17=lapse": {0: {"events": 2.0}}}
    page = simreport.html_page(run)
    assert "<script" not in page and "A17=lapse" in page
