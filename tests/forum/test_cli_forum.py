"""``ronde forum parse`` and ``ronde announce`` on real files."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from ronde import store
from ronde.cli import app
from ronde.engine.views import view

from .conftest import FIXTURES, new_game

runner = CliRunner()


def _game_file(tmp_path: Path) -> Path:
    path = tmp_path / "partie.jsonl"
    store.write_events(path, new_game().log)
    return path


def test_parse_prints_steps_and_records_nothing(tmp_path: Path) -> None:
    path = _game_file(tmp_path)
    before = path.read_text(encoding="utf-8")
    res = runner.invoke(
        app, ["forum", "parse", "--game", str(path), str(FIXTURES / "trial_woody.txt")]
    )
    assert res.exit_code == 0, res.output
    assert "steps:" in res.output
    assert "by: Tartine, do: complain, trial: 1}" in res.output
    assert "#? - {at: '2025-11-07T13:10:00+01:00', by: Fanfan, do: complain" in res.output
    assert "doute : accusé « Grododou » lu comme « Grodoudou »" in res.output
    # the comment lines are French: no engine key, no "text"/"html"
    assert "Grodoudou accusé(s) d'être Woody" in res.output
    assert "message(s), copie du navigateur" in res.output
    assert path.read_text(encoding="utf-8") == before


def test_parse_apply_records_sure_steps_and_confirmed_ones(db: Any) -> None:
    """--apply records through the store's service (a file is read-only)."""
    from ronde.web.games import service, transfer

    service.clear_cache()
    game = transfer.create("forum", new_game(), clock="manual")
    res = runner.invoke(
        app,
        [
            "forum",
            "parse",
            "--game",
            "forum",
            str(FIXTURES / "trial_woody.txt"),
            "--apply",
            "--confirm",
            "10",
        ],
    )
    assert res.exit_code == 0, res.output
    g = service.current(game).state
    trial = view(g, "game_master")["trials"][0]
    assert trial["accused"] == ["Grodoudou"] and trial["supposed"] == "woody"
    authors = [c["author"] for c in trial["complaints"]]
    # Tartine, Zorro, Elodie are sure; Fanfan's was confirmed (doubtful accused name)
    assert authors == ["Tartine", "Zorro", "Elodie", "Fanfan"]


def test_parse_apply_refuses_a_file(tmp_path: Path) -> None:
    path = _game_file(tmp_path)
    before = path.read_text(encoding="utf-8")
    args = ["forum", "parse", "--game", str(path), str(FIXTURES / "trial_woody.txt"), "--apply"]
    res = runner.invoke(app, args)
    assert res.exit_code == 2
    assert "lecture seule" in " ".join(res.output.split())
    assert path.read_text(encoding="utf-8") == before


def test_parse_reports_unreadable_input_without_crashing(tmp_path: Path) -> None:
    path = _game_file(tmp_path)
    junk = tmp_path / "junk.txt"
    junk.write_bytes(b"\x00\x01<div class='forum-post'><<<")
    res = runner.invoke(app, ["forum", "parse", "--game", str(path), str(junk)])
    assert res.exit_code == 0
    assert "aucun message trouvé" in res.output


def test_announce_prints_forum_markup(tmp_path: Path) -> None:
    import random

    from ronde.sim import play

    path = tmp_path / "sim.jsonl"
    store.write_events(path, play(28, random.Random(11)).game.log)
    res = runner.invoke(app, ["announce", str(path), "--public", "--day", "13"])
    assert res.exit_code == 0, res.output
    assert "[b]⏰ J13 : dernier jour ![/b]" in res.output
    res = runner.invoke(app, ["announce", str(path), "--to", "Joueur03"])
    assert res.exit_code == 0, res.output
    assert "— MP à Joueur03 — rôle\n" in res.output and "[collapse=Vos règles]" in res.output
    tpl = tmp_path / "modeles"
    tpl.mkdir()
    (tpl / "unmasking.txt").write_text("MASQUE TOMBÉ : {{ pseudo(data.player) }}", "utf-8")
    res = runner.invoke(app, ["announce", str(path), "--public", "--templates", str(tpl)])
    assert res.exit_code == 0, res.output
    assert "MASQUE TOMBÉ : Joueur" in res.output
