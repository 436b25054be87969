"""Local times across daylight-saving changes (FORMAT.md, R0.5): a local time that does
not exist (the hour skipped when clocks go forward) is an error of the file naming its
line; one that occurs twice (when clocks go back) is its first occurrence. The same
reading wherever a game time is typed (``parse_time``: scenarios, the command line, the
console's forms)."""

from __future__ import annotations

from datetime import UTC, date, datetime
from pathlib import Path

import pytest

from ronde.engine.clock import PARIS, format_time, parse_time
from ronde.scenario import ScenarioError, load, run

SPRING = date(2027, 3, 20)  # J9 = Sunday 28 March 2027: 02:00 CET -> 03:00 CEST
AUTUMN = date(2026, 10, 20)  # J6 = Sunday 25 October 2026: 03:00 CEST -> 02:00 CET


def test_a_skipped_local_time_is_refused() -> None:
    with pytest.raises(ValueError, match="inexistante"):
        parse_time("J9 02:30", SPRING)
    with pytest.raises(ValueError, match="inexistante"):
        parse_time("2027-03-28T02:00:00", SPRING)
    # just before and just after the gap exist
    assert parse_time("J9 01:59", SPRING) == datetime(2027, 3, 28, 0, 59, tzinfo=UTC)
    assert parse_time("J9 03:00", SPRING) == datetime(2027, 3, 28, 1, 0, tzinfo=UTC)
    # an explicit offset is an instant: never refused
    assert parse_time("2027-03-28T02:30:00+01:00", SPRING) == datetime(
        2027, 3, 28, 1, 30, tzinfo=UTC
    )


def test_a_repeated_local_time_is_its_first_occurrence() -> None:
    first = parse_time("J6 02:30", AUTUMN)
    assert first == datetime(2026, 10, 25, 0, 30, tzinfo=UTC)  # 02:30 CEST
    assert first.astimezone(PARIS).utcoffset().total_seconds() == 7200  # type: ignore[union-attr]
    assert parse_time("2026-10-25T02:30:00", AUTUMN) == first
    second = parse_time("2026-10-25T02:30:00+01:00", AUTUMN)
    assert second > first and format_time(AUTUMN, second) == "J6 02:30"


def _write(tmp_path: Path, start: str, at: str) -> Path:
    path = tmp_path / "times.yaml"
    path.write_text(
        "name: times\n"
        "game:\n"
        f"  start: {start}\n"
        "  ronde: [alice, woody, pierrot]\n"
        "  cast: {Ana: alice, Bob: woody, Cid: pierrot, Ida: extra}\n"
        "steps:\n"
        "  - {at: J2 10:00, by: Ida, do: rehearse}\n"
        f"  - {{at: {at}, by: Ana, do: rehearse}}\n",
        encoding="utf-8",
    )
    return path


def test_a_scenario_naming_a_skipped_time_is_an_error_of_its_line(tmp_path: Path) -> None:
    with pytest.raises(ScenarioError) as raised:
        load(_write(tmp_path, "2027-03-20", "J9 02:30"))
    assert raised.value.line == 8
    assert "inexistante" in raised.value.problem
    # the same hour given as a naive ISO time (YAML reads it as a datetime)
    with pytest.raises(ScenarioError) as raised:
        load(_write(tmp_path, "2027-03-20", "2027-03-28 02:15:00"))
    assert raised.value.line == 8


def test_a_scenario_naming_a_repeated_time_takes_the_first(tmp_path: Path) -> None:
    s = load(_write(tmp_path, "2026-10-20", "J6 02:30"))
    assert s.steps[-1].at == datetime(2026, 10, 25, 0, 30, tzinfo=UTC)
    assert run(s).passed


def test_ronde_check_names_the_file_and_line_of_a_skipped_time(tmp_path: Path) -> None:
    """``ronde check`` on a folder holding a file with a local time that does not exist:
    exit status 2, one line naming the file, its line and the problem in French (no
    traceback); the other files still run, and a repeated time passes (FORMAT.md)."""
    from typer.testing import CliRunner

    from ronde.cli import app

    spring = tmp_path / "spring"
    spring.mkdir()
    skipped = _write(spring, "2027-03-20", "J9 02:30")
    repeated = _write(tmp_path, "2026-10-20", "J6 02:30").rename(spring / "autumn.yaml")
    result = CliRunner().invoke(app, ["check", str(spring)])
    assert result.exit_code == 2, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert "Traceback" not in result.output
    error = next(line for line in result.output.splitlines() if str(skipped) in line)
    assert f"{skipped}:8:" in error and "heure inexistante à Paris" in error, error
    assert f"PASS {repeated}" in result.output
    assert result.stdout.strip().splitlines()[-1] == "1 passed, 0 failed"
