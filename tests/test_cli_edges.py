"""The command line at the edges (issue 23): dates out of bounds, YAML values JSON cannot
keep, names longer than the store keeps, the seats of a replaced player, damaged
exports, a busy game, a game ``ronde tick`` cannot read. Every refusal is French, exits
with a status, records nothing and prints no traceback (SQLite, and PostgreSQL when
``DATABASE_URL`` is set)."""

from __future__ import annotations

import io
import json
import random
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.test_cli import CAST, RONDE, act, events, flat, game, here, invoke, row_count

__all__ = ["game", "here"]  # (the fixtures, shared with test_cli)


def _no_traceback(result: Any) -> None:
    assert "Traceback" not in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception


def _new(slug: str, *extra: str, roster: list[str] | None = None, start: str = "2026-12-01") -> Any:
    Path("roster.txt").write_text("\n".join(roster or CAST) + "\n", encoding="utf-8")
    Path("cast.yaml").write_text(
        yaml.safe_dump({"ronde": RONDE, "cast": CAST}, allow_unicode=True), encoding="utf-8"
    )
    return invoke(
        "new", slug, "--roster", "roster.txt", "--start", start, "--cast", "cast.yaml", *extra
    )


# -- dates --------------------------------------------------------------------------------
@pytest.mark.parametrize("start", ["9999-12-31", "0001-01-01", "1999-12-31", "2101-01-01"])
def test_a_start_out_of_bounds_is_refused(here: Path, start: str) -> None:
    before = row_count()
    result = _new("loin", start=start)
    assert result.exit_code == 2, result.output
    assert "hors limites" in flat(result.output) and "2000" in flat(result.output)
    _no_traceback(result)
    assert row_count() == before


@pytest.mark.parametrize(
    "when", ["0001-01-01T00:00:00", "9999-12-31T23:59:59+00:00", "0001-01-01T00:00+01:00"]
)
def test_an_action_time_at_the_calendars_edges_is_refused(game: str, when: str) -> None:
    before = row_count()
    result = act(game, when, "Ida", "rehearse")
    assert result.exit_code == 2, result.output
    assert "hors limites" in flat(result.output)
    _no_traceback(result)
    assert row_count() == before


def test_a_scenario_step_at_year_one_is_a_scenario_error(here: Path) -> None:
    Path("s.yaml").write_text(
        yaml.safe_dump(
            {
                "name": "an 1",
                "rules": ["R0.5"],
                "game": {"start": "2026-12-01", "ronde": RONDE, "cast": CAST},
                "steps": [{"at": "0001-01-01", "by": "Ida", "do": "rehearse"}],
            }
        ),
        encoding="utf-8",
    )
    result = invoke("check", "s.yaml")
    assert result.exit_code != 0
    assert "hors limites" in flat(result.output)
    _no_traceback(result)
    Path("t.yaml").write_text(
        Path("s.yaml").read_text(encoding="utf-8").replace("2026-12-01", "0001-01-01"),
        encoding="utf-8",
    )
    result = invoke("check", "t.yaml")
    assert result.exit_code != 0 and "hors limites" in flat(result.output)
    _no_traceback(result)


# -- YAML values ----------------------------------------------------------------------------
@pytest.mark.parametrize(
    "pair",
    [
        "reason=.inf",
        "reason=-.inf",
        "reason=.nan",
        "reason=!!binary aGVsbG8=",
        "reason=2026-12-01",
        "reason=2026-12-01 10:00:00",
        "player=123456789012345678901234",
        "reason={1: x}",
        "reason=[1, .inf]",
    ],
)
def test_a_value_json_cannot_keep_exactly_is_refused(game: str, pair: str) -> None:
    before = row_count()
    result = act(game, "J2 10:00", "Mj", "award", "player=Ana", "points=1", pair)
    assert result.exit_code == 1, result.output
    assert "impossible à enregistrer telle quelle" in flat(result.output)
    _no_traceback(result)
    assert row_count() == before


def test_values_json_keeps_are_recorded_as_typed(game: str) -> None:
    result = act(game, "J2 10:00", "Mj", "award", "player=Ana", "points=-3", "reason=1.5")
    assert result.exit_code == 0, result.output
    scored = [e for e in events(game) if e["type"] == "points_awarded"]
    assert scored[-1]["points"] == -3 and scored[-1]["reason"].startswith("1.5")


# -- lengths the store keeps ------------------------------------------------------------------
def test_a_61_character_pseudo_or_game_master_is_refused_before_anything(here: Path) -> None:
    long = "P" * 61
    before = row_count()
    result = _new("longue", roster=[*list(CAST)[:-1], long])
    assert result.exit_code == 2, result.output
    _no_traceback(result)
    result = _new("longue", "--gm", "M" * 61)
    assert result.exit_code == 2, result.output
    assert "trop long" in flat(result.output)
    _no_traceback(result)
    assert row_count() == before
    assert _new("juste", "--gm", "M" * 60).exit_code == 0


def test_replace_player_from_the_command_line_keeps_the_seats_as_the_console(game: str) -> None:
    from ronde.web.games.models import Game, Membership

    stored = Game.objects.get(slug=game)
    before = row_count()
    result = act(game, "J2 10:00", "Mj", "replace_player", "player=Ana", f"new={'N' * 61}")
    assert result.exit_code == 1 and "trop long" in flat(result.output)
    assert row_count() == before
    result = act(game, "J2 10:00", "Mj", "replace_player", "player=Ana", "new=Zoé")
    assert result.exit_code == 0, result.output
    seats = {m.pseudo: m.revoked_at is None for m in Membership.objects.filter(game=stored)}
    assert seats["Zoé"] is True and seats["Ana"] is False
    # struck: the old seat plays again, the new one no longer (as the console does)
    from ronde.web.games.models import Action

    number = str(Action.objects.get(game=stored, action="replace_player", outcome="applied").pk)
    assert invoke("strike", game, number, "--reason", "erreur", "--yes").exit_code == 0
    seats = {m.pseudo: m.revoked_at is None for m in Membership.objects.filter(game=stored)}
    assert seats["Zoé"] is False and seats["Ana"] is True


# -- exports that prove their content ------------------------------------------------------------
def _exported(game: str) -> list[str]:
    assert act(game, "J2 10:00", "Ida", "open_trial", "against=Bob", "as=woody").exit_code == 0
    assert act(game, "J2 11:00", "Ana", "complain", "trial=1").exit_code == 0
    assert (
        act(game, "J2 11:30", "Mj", "award", "player=Cid", "points=100", "reason=x").exit_code == 0
    )
    assert invoke("advance", game, "--to", "J4 12:00").exit_code == 0
    assert invoke("export", game, "-o", "g.jsonl").exit_code == 0
    return Path("g.jsonl").read_text(encoding="utf-8").splitlines()


def _import(lines: list[str], *extra: str) -> Any:
    Path("x.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return invoke("import", "x.jsonl", "--slug", "copie", *extra)


def test_a_changed_score_digit_is_refused_naming_its_line(game: str) -> None:
    lines = _exported(game)
    n = next(i for i, ln in enumerate(lines) if '"points":100' in ln and '"event"' in ln)
    damaged = [*lines[:n], lines[n].replace('"points":100', '"points":900'), *lines[n + 1 :]]
    before = row_count()
    result = _import(damaged)
    assert result.exit_code == 2, result.output
    assert f"ligne {n + 1}" in flat(result.output)
    assert row_count() == before
    # an export written before the fingerprints: the events its actions give
    old = [_unsigned(ln) for ln in damaged]
    result = _import(old)
    assert result.exit_code == 2, result.output
    assert f"ligne {n + 1}" in flat(result.output)
    assert row_count() == before
    assert _import([_unsigned(ln) for ln in lines]).exit_code == 0


def _unsigned(line: str) -> str:
    data = json.loads(line)
    data.pop("h", None)
    data.pop("prints", None)
    return json.dumps(data, ensure_ascii=False)


def test_damaged_copies_are_all_refused(game: str) -> None:
    """35 copies, each with one character changed where the JSON stays valid (a digit
    for another): none is imported."""
    lines = _exported(game)
    rng = random.Random(23)
    spots = [(i, j) for i, ln in enumerate(lines) for j, ch in enumerate(ln) if ch.isdigit()]
    before = row_count()
    for i, j in rng.sample(spots, 35):
        ln = lines[i]
        digit = str((int(ln[j]) + rng.randint(1, 9)) % 10)
        copy = [*lines[:i], ln[:j] + digit + ln[j + 1 :], *lines[i + 1 :]]
        result = _import(copy)
        assert result.exit_code == 2, (i, j, result.output)
        _no_traceback(result)
        assert row_count() == before


def test_drop_incomplete_never_keeps_a_duplicated_timer_line(game: str) -> None:
    lines = _exported(game)
    n = next(i for i, ln in enumerate(lines) if '"day_closed"' in ln)
    unsigned = [_unsigned(ln) for ln in lines]  # (an export written before the fingerprints)
    for slug, copy in (
        ("signee", [*lines[: n + 1], lines[n], *lines[n + 1 :]]),
        ("ancienne", [*unsigned[: n + 1], unsigned[n], *unsigned[n + 1 :]]),
    ):
        Path("x.jsonl").write_text("\n".join(copy) + "\n", encoding="utf-8")
        result = invoke("import", "x.jsonl", "--slug", slug)
        assert result.exit_code == 2 and f"ligne {n + 2}" in flat(result.output), result.output
        result = invoke("import", "x.jsonl", "--slug", slug, "--drop-incomplete")
        assert result.exit_code == 0, result.output
        closed = [e["day"] for e in events(slug) if e["type"] == "day_closed"]
        assert len(closed) == len(set(closed)) == 1, closed  # (J1's, once; what follows dropped)


# -- a busy game ------------------------------------------------------------------------------
def test_a_busy_game_is_one_french_line(game: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from django.db import OperationalError

    from ronde.web.games import service

    def locked(*args: Any, **kwargs: Any) -> Any:
        raise OperationalError("database is locked")

    monkeypatch.setattr(service, "record", locked)
    result = act(game, "J2 10:00", "Ida", "rehearse")
    assert result.exit_code == 1
    assert "occupée" in flat(result.output) and "réessayez" in flat(result.output)
    _no_traceback(result)
    assert len(result.output.strip().splitlines()) <= 3  # (one line, wrapped by Rich)


# -- ronde tick goes on --------------------------------------------------------------------------
def test_tick_goes_on_with_the_other_games_and_names_the_one_that_failed(here: Path) -> None:
    from django.core.management import call_command
    from django.core.management.base import CommandError

    from ronde.engine.clock import parse_time
    from ronde.web.games import service
    from ronde.web.games.models import Event, Game

    assert _new("cassee", "--clock", "manual").exit_code == 0
    assert _new("bonne", "--clock", "manual").exit_code == 0
    # a game stored before dates were bounded: its calendar cannot be computed
    created = Event.objects.get(game__slug="cassee", seq=1)
    created.data = {**created.data, "start": "9999-12-31"}
    created.save(update_fields=["data"])
    # both clocks moved to J3 00:30, their timers not applied yet
    later = parse_time("J3 00:30", Game.objects.get(slug="bonne").start)
    Game.objects.filter(slug__in=["cassee", "bonne"]).update(clock_at=later)
    service.clear_cache()
    out, err = io.StringIO(), io.StringIO()
    with pytest.raises(CommandError, match="cassee"):
        call_command("ronde_tick", stdout=out, stderr=err)
    assert "cassee : échec" in err.getvalue()
    assert "bonne" in out.getvalue()  # (ticked after the game that failed)
    assert [e["day"] for e in events("bonne") if e["type"] == "day_closed"] == [1, 2]
    # the command line says it in French, exit 1, no traceback
    result = invoke("tick")
    _no_traceback(result)
    assert result.exit_code == 1 and "cassee" in flat(result.output)
