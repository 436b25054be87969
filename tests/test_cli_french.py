"""Every help line of ``ronde`` in French, Click's and Typer's own words included; an
unexpected error is one French line, never a traceback nor a local variable (issue 28)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from ronde.cli import app

runner = CliRunner()
RONDE = Path(sys.executable).parent / "ronde"

#: Click's and Typer's English words, as they appear in help pages and errors
ENGLISH = re.compile(
    r"Show this message|Show the version|Usage:|\bCommands\b|\[default:|\[required\]|"
    r"\bMissing (argument|option|parameter)|No such (option|command)|Got unexpected|"
    r"Invalid value|Try '|for help|\bError\b|<str>|<int>|<bool>|<path>"
)


def _paths(command: Any, prefix: list[str]) -> list[list[str]]:
    found = [prefix]
    if isinstance(getattr(command, "commands", None), dict):
        for name, sub in command.commands.items():
            found += _paths(sub, [*prefix, name])
    return found


def test_every_help_page_is_french() -> None:
    paths = _paths(typer.main.get_command(app), [])
    assert len(paths) > 20
    for path in paths:
        if path == ["manage"]:  # Django's own manage.py (its help is Django's)
            continue
        out = runner.invoke(app, [*path, "--help"], terminal_width=200)
        assert out.exit_code == 0, (path, out.output)
        assert "Utilisation" in out.output and "Affiche cette aide" in out.output, path
        assert not ENGLISH.search(out.output), (path, ENGLISH.search(out.output))


def test_usage_errors_are_french() -> None:
    for args in (["show"], ["games", "--frob"], ["frob"], ["simulate", "--players", "x"]):
        out = runner.invoke(app, args, terminal_width=200)
        assert out.exit_code == 2, (args, out.output)
        assert not ENGLISH.search(out.output), (args, out.output)
        assert "Erreur" in out.output and "Aide" in out.output


def test_version_and_python_m() -> None:
    from ronde import __version__

    out = runner.invoke(app, ["--version"])
    assert out.exit_code == 0 and out.output.strip() == f"ronde {__version__}"
    module = subprocess.run(
        [sys.executable, "-m", "ronde", "-V"], capture_output=True, text=True, timeout=120
    )
    assert module.returncode == 0 and module.stdout.strip() == f"ronde {__version__}"


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("RONDE_", "DJANGO_"))}
    env.pop("DATABASE_URL", None)
    env.update(extra)
    return env


def test_a_bad_environment_value_names_its_variable(tmp_path: Path) -> None:
    out = subprocess.run(
        [str(RONDE), "games"],
        env=_env(RONDE_DATA_DIR=str(tmp_path), RONDE_INVITATION_DAYS="14j"),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 2
    assert out.stderr.strip() == (
        "Erreur : RONDE_INVITATION_DAYS : « 14j » n'est pas un nombre entier."
    ), out.stderr


@pytest.mark.parametrize(
    ("name", "value", "told"),
    [
        ("RONDE_ETERNALTWIN_TIMEOUT", "dix", "« dix » n'est pas un nombre."),
        ("RONDE_ETERNALTWIN_TIMEOUT", "-1", "« -1 » doit être un nombre plus grand que 0."),
        ("RONDE_PUSH", "peut-être", "« peut-être » n'est ni oui ni non (1, oui, true ou 0, non"),
    ],
)
def test_a_bad_timeout_or_push_switch_is_one_french_line(
    tmp_path: Path, name: str, value: str, told: str
) -> None:
    """They were read without the checked readers: a traceback at startup (a timeout
    that is not a number), or any word but four taken as "on" (push)."""
    out = subprocess.run(
        [str(RONDE), "games"],
        env=_env(RONDE_DATA_DIR=str(tmp_path), **{name: value}),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 2, out.stdout + out.stderr
    assert len(out.stderr.strip().splitlines()) == 1, out.stderr
    assert out.stderr.startswith(f"Erreur : {name} : {told}"), out.stderr


def test_an_unreachable_database_is_one_line_without_its_password(tmp_path: Path) -> None:
    secret = "mot-de-passe-très-secret"
    out = subprocess.run(
        [str(RONDE), "games"],
        env=_env(
            RONDE_DATA_DIR=str(tmp_path),
            DATABASE_URL=f"postgres://ronde:{secret}@127.0.0.1:9/ronde",
        ),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 2, out.stdout + out.stderr
    assert len(out.stderr.strip().splitlines()) == 1, out.stderr
    assert "base de données injoignable" in out.stderr and "Traceback" not in out.stderr
    assert secret not in out.stdout + out.stderr
