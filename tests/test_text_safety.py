"""Text from players and game masters is printed as text and kept without control codes;
backups are private from their first byte (issue 28).

Attacks, each of which once worked: a request holding ``[/quote]`` made ``ronde log``
exit 1 for every game master; a game named ``Partie [/b]test`` broke ``ronde games``;
escape sequences in an action's arguments (window title, clipboard) were printed raw by
``ronde scores`` and ``ronde announce``; ``ronde backup`` wrote its copy 0644 and
narrowed it only at the end.
"""

from __future__ import annotations

import os
import sqlite3
import stat
import subprocess
from pathlib import Path
from typing import Any

import pytest
from django.test import RequestFactory

from ronde.text import CONTROL, clean, printable
from ronde.web.middleware import CleanInputMiddleware

from .test_cli import act, flat, game, here, invoke  # noqa: F401  (fixtures)


@pytest.fixture(autouse=True)
def wide_console(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tables wide enough that no cell is wrapped or cut (the text is read whole)."""
    from ronde import cli

    monkeypatch.setattr(cli.console, "width", 400)


ESCAPES = "\x1b]0;titre volé\x07\x1b]52;c;Y29waWU=\x07\x1b[2J\x9b31m\x00\x08\r"


# -- what the command line prints -----------------------------------------------------------


def test_a_reason_holding_markup_is_printed_by_log_and_scores(game: str) -> None:  # noqa: F811
    reason = "[/quote] [bold]gras[/bold] [link=http://x]lien[/link]"
    out = act(game, "J2 10:00", "Mj", "award", "player=Ana", "points=1", f"reason={reason}")
    assert out.exit_code == 0, out.output
    log = invoke("log", game)
    assert log.exit_code == 0, log.output
    assert "[/quote]" in flat(log.output)
    scores = invoke("scores", game)
    assert scores.exit_code == 0, scores.output
    assert "[/quote] [bold]gras[/bold]" in flat(scores.output)


def test_a_game_named_with_markup_is_listed(here: Path) -> None:  # noqa: F811
    Path("roster.txt").write_text("Ana\nBob\nCid\nDan\n", encoding="utf-8")
    out = invoke(
        "new", "g2", "--roster", "roster.txt", "--start", "2026-12-01",
        "--clock", "manual", "--name", "Partie [/b]test",
    )  # fmt: skip
    assert out.exit_code == 0, out.output
    listed = invoke("games")
    assert listed.exit_code == 0, listed.output
    assert "Partie" in listed.output and "[/b]test" in flat(listed.output)


def test_escape_sequences_never_reach_the_store_nor_the_terminal(game: str) -> None:  # noqa: F811
    from ronde.web.games.models import Action

    out = act(game, "J2 10:00", "Mj", "award", "player=Ana", "points=1", f"reason=a{ESCAPES}b")
    assert out.exit_code == 0, out.output
    stored = Action.objects.get(action="award")
    assert not CONTROL.search(str(stored.args)), stored.args
    assert stored.args["reason"].startswith("a]0;titre volé")
    for command in (("scores", game), ("log", game), ("announce", game), ("show", game)):
        printed = invoke(*command)
        assert printed.exit_code == 0, (command, printed.output)
        assert not CONTROL.search(printed.output.replace("\x1b[", "")), command
        assert "\x07" not in printed.output and "\x9b" not in printed.output


def test_text_stored_before_the_rule_is_still_printed_clean(game: str) -> None:  # noqa: F811
    """A database written before control characters were removed at the door: what the
    command line prints of it is cleaned again."""
    from ronde.web.games.models import Action

    out = act(game, "J2 10:00", "Mj", "award", "player=Ana", "points=1", "reason=propre")
    assert out.exit_code == 0
    Action.objects.filter(action="award").update(args={"reason": f"x{ESCAPES}[/quote]"})
    log = invoke("log", game)
    assert log.exit_code == 0, log.output
    assert "\x07" not in log.output and "]52;" in log.output and "[/quote]" in flat(log.output)


def test_printable_and_clean() -> None:
    assert printable("[/b]") == "\\[/b]"
    assert clean("a\tb\nc\r\nd\x1b[31m\x85e\x7f") == "a\tb\nc\nd[31me"
    assert clean("plain") == "plain"


# -- what the web receives ------------------------------------------------------------------


def test_the_web_removes_control_characters_from_every_form_and_query() -> None:
    from django.conf import settings

    seen: dict[str, Any] = {}

    def view(request: Any) -> Any:
        seen["post"] = request.POST.dict()
        seen["get"] = request.GET.dict()
        seen["list"] = request.POST.getlist("t")
        return None

    factory = RequestFactory()
    request = factory.post(
        "/x/?q=a%1b%5d0%3bt%07b",
        {"reason": f"du{ESCAPES}texte", f"k{ESCAPES}": "v", "t": ["1\x1b", "2\x9b"]},
    )
    CleanInputMiddleware(view)(request)
    assert seen["get"] == {"q": "a]0;tb"}
    assert seen["post"]["reason"] == "du]0;titre volé]52;c;Y29waWU=[2J31m\ntexte"
    assert any(k.startswith("k]0;titre volé]52;") for k in seen["post"])
    assert not any(CONTROL.search(k) for k in seen["post"])
    assert seen["list"] == ["1", "2"]
    # before any view and before the CSRF check reads the form
    chain = settings.MIDDLEWARE
    assert chain.index("ronde.web.middleware.CleanInputMiddleware") < chain.index(
        "django.middleware.csrf.CsrfViewMiddleware"
    )


# -- backups ----------------------------------------------------------------------------------


@pytest.fixture
def sqlite_db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    from ronde.web import backup

    path = tmp_path / "ronde.sqlite3"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE games_game (secret text)")
    conn.execute("INSERT INTO games_game VALUES ('hash de mot de passe')")
    conn.commit()
    conn.close()
    monkeypatch.setattr(backup, "_database", lambda: ("sqlite", path))
    return path


def test_a_backup_is_private_from_its_first_byte(
    sqlite_db: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from ronde.web import backup

    modes: list[tuple[str, int]] = []
    real_connect = sqlite3.connect

    def spying_connect(target: Any, *args: Any, **kwargs: Any) -> sqlite3.Connection:
        name = str(target)
        if name.endswith(".partiel") or "avant-restauration" in name:
            # the file SQLite is about to write the whole database into
            modes.append((name, stat.S_IMODE(os.stat(name).st_mode)))
        return real_connect(target, *args, **kwargs)

    monkeypatch.setattr(backup.sqlite3, "connect", spying_connect)
    old = os.umask(0)  # the most permissive umask: the modes below owe it nothing
    try:
        dest = backup.backup(tmp_path / "sauvegardes" / "copie.sqlite3")
        folder_copy = backup.backup(tmp_path / "sauvegardes")  # a folder: a dated name in it
    finally:
        os.umask(old)
    assert modes and all(mode == 0o600 for _name, mode in modes), modes
    assert stat.S_IMODE(dest.stat().st_mode) == 0o600
    assert folder_copy.parent == tmp_path / "sauvegardes" and folder_copy.name.startswith("ronde-")
    assert stat.S_IMODE(folder_copy.stat().st_mode) == 0o600
    assert stat.S_IMODE((tmp_path / "sauvegardes").stat().st_mode) == 0o700


def test_a_restore_keeps_its_safety_copy_and_the_database_private(
    sqlite_db: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from ronde.web import backup

    source = backup.backup(tmp_path / "copie.sqlite3")
    monkeypatch.setattr(backup, "_check_backup", lambda path: None)
    sqlite_db.unlink()
    (tmp_path / "ronde.sqlite3").write_bytes(b"")  # an empty database file to replace
    os.chmod(tmp_path / "ronde.sqlite3", 0o644)
    old = os.umask(0)
    try:
        saved = backup.restore(source, tmp_path / "sauvegardes")
    finally:
        os.umask(old)
    assert saved is not None and stat.S_IMODE(saved.stat().st_mode) == 0o600
    assert stat.S_IMODE((tmp_path / "sauvegardes").stat().st_mode) == 0o700


def test_backup_into_a_missing_place_is_a_french_line(sqlite_db: Path, tmp_path: Path) -> None:
    from ronde.web import backup

    blocker = tmp_path / "fichier"
    blocker.write_text("x")
    with pytest.raises(backup.BackupError, match="écriture impossible"):
        backup.backup(blocker / "dessous" / "copie.sqlite3")


def test_the_data_folder_is_made_private(tmp_path: Path) -> None:
    from .web.test_hosting import RONDE, env_for

    data = tmp_path / "donnees"
    out = subprocess.run(
        ["sh", "-c", f"umask 022 && exec '{RONDE}' manage migrate -v 0"],
        env=env_for(data),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr
    assert stat.S_IMODE(data.stat().st_mode) == 0o700
    out = subprocess.run(
        [str(RONDE), "backup"], env=env_for(data), capture_output=True, text=True, timeout=300
    )
    assert out.returncode == 0, out.stderr
    assert stat.S_IMODE((data / "sauvegardes").stat().st_mode) == 0o700
    (copy,) = (data / "sauvegardes").iterdir()
    assert stat.S_IMODE(copy.stat().st_mode) == 0o600
