"""The ``ronde`` command line (Typer): one store named by slug (new, act, log, strike,
show, scores, games, advance, export, import), files read-only (show, scores), check;
exit statuses 0 (done), 1 (refused action or failed scenario), 2 (unreadable input)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import django
import pytest
import yaml
from typer.testing import CliRunner

from ronde import store
from ronde.cli import app
from ronde.engine.names import RONDE_IDS

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ronde.web.settings")
django.setup()

runner = CliRunner()

RONDE = ["alice", "woody", "pierrot", "halus", "little_mermaid", "polichinelle", "guignol"]
RONDE += ["revenant"]
CAST = {
    "Ana": "alice",
    "Bob": "Woody",
    "Cid": "Pierrot lunaire",
    "Dan": "halus",
    "Eve": "petite sirène",
    "Fay": "polichinelle",
    "Gus": "guignol",
    "Hal": "revenant",
    "Ida": "extra",
    "Jon": "Figurant",
}


def invoke(*args: str) -> Any:
    return runner.invoke(app, list(args))


def flat(text: str) -> str:
    """Output with Rich's line wrapping undone."""
    return " ".join(text.split())


def lines_of(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def keys_of(obj: Any) -> set[str]:
    if isinstance(obj, dict):
        return {str(k) for k in obj} | {k for v in obj.values() for k in keys_of(v)}
    if isinstance(obj, list):
        return {k for x in obj for k in keys_of(x)}
    return set()


def events(slug: str) -> list[dict[str, Any]]:
    """The stored events of a game's current log."""
    from ronde.web.games import service
    from ronde.web.games.models import Game

    return [r.data for r in service.log_rows(Game.objects.get(slug=slug))]


def row_count() -> int:
    """Every row the store holds (games, actions, events, generations, strikes, accounts)."""
    from django.apps import apps

    models = [*apps.get_app_config("games").get_models(), *apps.get_app_config("auth").get_models()]
    return sum(m._default_manager.count() for m in models)


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, db: Any) -> Path:
    """Work in ``tmp_path`` (short relative file names) with an empty store."""
    from ronde.web.games import service

    service.clear_cache()
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.fixture
def game(here: Path) -> str:
    """A stored game of the 8-slot Ronde above, created with --cast, on a manual clock."""
    Path("roster.txt").write_text("\n".join(CAST) + "\n", encoding="utf-8")
    Path("cast.yaml").write_text(
        yaml.safe_dump({"ronde": RONDE, "cast": CAST}, allow_unicode=True), encoding="utf-8"
    )
    result = invoke(
        "new", "g", "--roster", "roster.txt", "--start", "2026-12-01",
        "--cast", "cast.yaml", "--clock", "manual",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    return "g"


def act(game: str, at: str, by: str, action: str, *pairs: str) -> Any:
    return invoke("act", game, action, "--at", at, "--by", by, *pairs)


def show_json(game: str, *extra: str) -> dict[str, Any]:
    result = invoke("show", game, "--json", *extra)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def game_file(slug: str, name: str = "game.jsonl") -> Path:
    """A stored game's log written as a JSON Lines file (the file format, read-only)."""
    from ronde.web.games import service
    from ronde.web.games.models import Game

    path = Path(name)
    store.write_events(path, service.stored_events(Game.objects.get(slug=slug)))
    return path


# -- new ----------------------------------------------------------------------------------
def test_new_draws_a_full_cast_for_28_players(here: Path) -> None:
    pseudos = [f"Joueur{i:02d}" for i in range(28)]
    Path("roster.txt").write_text(
        "# the players\n" + "\n".join(f"- {p}" for p in pseudos) + "\n\n", encoding="utf-8"
    )
    result = invoke("new", "big", "--roster", "roster.txt", "--start", "2026-12-01")
    assert result.exit_code == 0, result.output
    assert "28 joueurs" in flat(result.output)
    assert "horloge réelle" in flat(result.output)
    assert "Invitation du MJ Mj (site web) : /invitation/" in flat(result.output)
    (created,) = events("big")
    assert created["type"] == "game_created"
    assert created["players"] == pseudos
    assert created["start"] == "2026-12-01"
    assert sorted(created["ronde"]) == sorted(RONDE_IDS)
    cast = created["cast"]
    assert set(cast) == set(pseudos)
    assert sum(1 for c in cast.values() if c == "extra") == 6
    assert sum(1 for c in cast.values() if c == "decorators") == 2
    assert {c for c in cast.values() if c != "extra"} == set(RONDE_IDS)
    assert created["game_masters"] == ["Mj"]
    listing = invoke("games")
    assert listing.exit_code == 0, listing.output
    assert "big" in flat(listing.output) and "horloge réelle" in flat(listing.output)


def test_new_with_a_cast_file_keeps_the_given_ronde_and_resolves_names(game: str) -> None:
    (created,) = events(game)
    assert created["ronde"] == RONDE
    assert created["cast"]["Bob"] == "woody"
    assert created["cast"]["Cid"] == "pierrot"
    assert created["cast"]["Eve"] == "little_mermaid"
    assert created["cast"]["Jon"] == "extra"
    assert created["players"] == list(CAST)
    assert "horloge manuelle" in flat(invoke("games").output)


def test_new_refuses_a_taken_or_invalid_name(game: str) -> None:
    before = row_count()
    result = invoke(
        "new", game, "--roster", "roster.txt", "--start", "2026-12-01", "--cast", "cast.yaml"
    )
    assert result.exit_code == 2
    assert "existe déjà" in flat(result.output)
    result = invoke("new", "a b/c", "--roster", "roster.txt", "--start", "2026-12-01")
    assert result.exit_code == 2
    assert "nom de partie invalide" in flat(result.output)
    assert row_count() == before


def test_new_refuses_an_invalid_cast(here: Path) -> None:
    Path("roster.txt").write_text("Ana\nBob\nCid\n", encoding="utf-8")
    Path("cast.yaml").write_text(
        "ronde: [alice, woody]\ncast: {Ana: alice, Bob: woody, Cid: sheriff}\n", encoding="utf-8"
    )
    result = invoke(
        "new", "g", "--roster", "roster.txt", "--start", "2026-12-01", "--cast", "cast.yaml"
    )
    assert result.exit_code == 2
    assert "unknown_character" in flat(result.output)
    assert "g" not in flat(invoke("games").output).split()


# -- act -----------------------------------------------------------------------------------
def test_act_records_a_valid_trial(game: str) -> None:
    size = len(events(game))
    result = act(game, "J2 10:00", "Ida", "open_trial", "against=Bob", "as=woody")
    assert result.exit_code == 0, result.output
    assert "Enregistré : open_trial n°" in flat(result.output)
    log = events(game)
    assert len(log) > size
    opened = [e for e in log if e["type"] == "trial_opened"]
    assert len(opened) == 1
    assert opened[0]["accused"] == ["Bob"] and opened[0]["supposed"] == "woody"
    assert opened[0]["opener"] == "Ida"
    # the timers due before J2 10:00 (end of J1) were recorded too
    assert any(e["type"] == "day_closed" and e["day"] == 1 for e in log)
    board = show_json(game, "--as", "public")
    assert [t["number"] for t in board["trials"]] == [1]


def test_act_a_just_trial_unmasks_and_scores(game: str) -> None:
    assert act(game, "J2 10:00", "Ida", "open_trial", "against=Bob", "as=woody").exit_code == 0
    for i, who in enumerate(["Ana", "Jon", "Fay", "Gus"]):
        result = act(game, f"J2 1{i + 1}:00", who, "complain", "trial=1")
        assert result.exit_code == 0, result.output
    result = act(game, "J2 16:00", "Mj", "announce", "trial=1")
    assert result.exit_code == 0, result.output
    gm = show_json(game)
    assert gm["trials"][0]["status"] == "just"
    bob = next(p for p in gm["players"] if p["pseudo"] == "Bob")
    assert bob["masked"] is False
    result = invoke("scores", game)
    assert result.exit_code == 0, result.output
    out = flat(result.output)
    for pseudo in CAST:
        assert pseudo in out
    assert "-300" in out


def test_act_refusal_prints_the_code_exits_1_and_changes_nothing(game: str) -> None:
    assert act(game, "J2 10:00", "Ida", "open_trial", "against=Bob", "as=woody").exit_code == 0
    before = row_count()
    result = act(game, "J2 11:00", "Ida", "complain", "trial=1")
    assert result.exit_code == 1
    assert "own_trial" in flat(result.output)
    assert row_count() == before


def test_a_refused_act_records_no_timer_either(game: str) -> None:
    """The issue's case: a refusal at J3 used to write the timers of J1 and J2."""
    before, log = row_count(), events(game)
    result = act(game, "J3 09:00", "Cid", "open_trial", "against=Zorro", "as=woody")
    assert result.exit_code == 1
    assert "unknown_player" in flat(result.output)
    assert row_count() == before
    assert events(game) == log
    # and J2 is still open to actions
    assert act(game, "J2 10:00", "Ida", "rehearse").exit_code == 0


def test_act_unknown_character_suggests_the_nearest_name(game: str) -> None:
    result = act(game, "J2 10:00", "Ida", "open_trial", "against=Bob", "as=wody")
    assert result.exit_code == 1
    out = flat(result.output)
    assert "unknown_character" in out
    assert "« Woody »" in out  # "Vouliez-vous dire « Woody » ?"
    assert not [e for e in events(game) if e["type"] == "trial_opened"]


@pytest.mark.parametrize(
    ("by", "pairs"),
    [("Zoe", ["against=Bob", "as=woody"]), ("Ida", ["against=Zoe", "as=woody"])],
    ids=["actor", "accused"],
)
def test_act_unknown_player_is_refused(game: str, by: str, pairs: list[str]) -> None:
    result = act(game, "J2 10:00", by, "open_trial", *pairs)
    assert result.exit_code == 1
    assert "unknown_player" in flat(result.output)
    assert not [e for e in events(game) if e["type"] == "trial_opened"]


def test_act_bad_arguments_times_and_games_exit_2(game: str) -> None:
    result = act(game, "J2 10:00", "Ida", "open_trial", "against")
    assert result.exit_code == 2
    assert "clé=valeur" in flat(result.output)
    result = act(game, "demain midi", "Ida", "rehearse")
    assert result.exit_code == 2
    assert "demain midi" in flat(result.output)
    result = act("absente", "J2 10:00", "Ida", "rehearse")
    assert result.exit_code == 2
    assert "partie inconnue" in flat(result.output)


def test_act_game_master_only_action(game: str) -> None:
    result = act(game, "J2 10:00", "Ana", "end_game")
    assert result.exit_code == 1
    assert "not_game_master" in flat(result.output)
    result = act(game, "J2 10:00", "Mj", "end_game")
    assert result.exit_code == 0, result.output
    assert events(game)[-1]["type"] in ("message_sent", "game_ended")
    result = act(game, "J2 11:00", "Ida", "rehearse")
    assert result.exit_code == 1
    assert "game_not_running" in flat(result.output)


# -- clocks ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("when", "code", "says"),
    [("9999-12-31T23:59:59+00:00", 2, "date hors limites"), ("J13 23:00", 1, "invalid_argument")],
)
def test_a_time_far_after_the_end_or_in_the_future_is_refused(
    here: Path, when: str, code: int, says: str
) -> None:
    """A wall-clock game refuses a time later than now; any game refuses a time more
    than 3 days after the end of play; a year no game is played in (the year-9999
    typo) is not even read (issue 23: dates between 2000 and 2100)."""
    Path("roster.txt").write_text("\n".join(CAST) + "\n", encoding="utf-8")
    Path("cast.yaml").write_text(
        yaml.safe_dump({"ronde": RONDE, "cast": CAST}, allow_unicode=True), encoding="utf-8"
    )
    from ronde.web.games import service

    for slug, clock in (("mur", "wall"), ("main", "manual")):
        result = invoke(
            "new", slug, "--roster", "roster.txt", "--start", "2026-12-01",
            "--cast", "cast.yaml", "--clock", clock,
        )  # fmt: skip
        assert result.exit_code == 0, result.output
    service.set_clock(service.now().replace(year=2026, month=12, day=3))
    try:
        before = row_count()
        result = act("mur", when, "Ida", "rehearse")
        assert result.exit_code == code, result.output
        assert says in flat(result.output)
        assert "Traceback" not in result.output
        assert row_count() == before
        result = act("main", "2027-12-31T23:59:59+00:00", "Ida", "rehearse")
        assert result.exit_code == 1
        assert "plus de 3 jours après la fin du jeu" in flat(result.output)
        assert row_count() == before
        assert invoke("show", "mur").exit_code == 0  # still readable
    finally:
        service.set_clock(None)


def test_manual_clock_advances_with_later_actions_and_by_command(game: str) -> None:
    assert act(game, "J2 10:00", "Ida", "rehearse").exit_code == 0
    out = flat(invoke("show", game).output)
    assert "horloge manuelle" in out and "maintenant : J2 10:00" in out
    result = invoke("advance", game, "--to", "J4 00:30")
    assert result.exit_code == 0, result.output
    assert [e["day"] for e in events(game) if e["type"] == "day_closed"] == [1, 2, 3]
    result = invoke("advance", game, "--to", "J3 00:00")
    assert result.exit_code == 1
    assert "ne recule pas" in flat(result.output)


def test_an_earlier_time_inserts_by_replay_and_strike_undoes_it(game: str) -> None:
    assert act(game, "J2 10:00", "Ida", "open_trial", "against=Bob", "as=woody").exit_code == 0
    assert act(game, "J2 12:00", "Ana", "complain", "trial=1").exit_code == 0
    original = events(game)
    result = act(game, "J2 11:00", "Mj", "award", "player=Cid", "points=5", "reason=oubli")
    assert result.exit_code == 0, result.output
    assert "rien de ce qui était enregistré ne change" in flat(result.output)
    log = invoke("log", game)
    assert log.exit_code == 0
    number = next(line.split("│")[1].strip() for line in log.output.splitlines() if "award" in line)
    refused = invoke("strike", game, number, "--reason", "erreur")
    assert refused.exit_code == 1
    assert "--yes" in flat(refused.output)
    result = invoke("strike", game, number, "--reason", "erreur", "--yes")
    assert result.exit_code == 0, result.output
    assert events(game) == original
    assert "rayée" in flat(invoke("log", game).output)


def test_a_correction_that_changes_the_past_needs_yes(game: str) -> None:
    assert act(game, "J2 10:00", "Ida", "open_trial", "against=Bob", "as=woody").exit_code == 0
    assert act(game, "J2 12:00", "Ana", "complain", "trial=1").exit_code == 0
    before = row_count()
    # Ana replaced at J2 11:00: her complaint at 12:00 is now refused
    result = act(game, "J2 11:00", "Mj", "replace_player", "player=Ana", "new=Ava")
    assert result.exit_code == 1, result.output
    assert "--yes" in flat(result.output) and "refusée" in flat(result.output)
    assert row_count() == before
    result = act(game, "J2 11:00", "Mj", "replace_player", "player=Ana", "new=Ava", "--yes")
    assert result.exit_code == 0, result.output
    assert not [e for e in events(game) if e["type"] == "complaint_filed"]


def test_a_time_before_the_game_is_refused(game: str) -> None:
    before = row_count()
    result = act(game, "2026-11-20T10:00:00+01:00", "Ida", "rehearse")
    assert result.exit_code == 1
    assert "antérieure à la création de la partie" in flat(result.output)
    assert row_count() == before


def test_announce_and_forum_name_a_stored_game(game: str) -> None:
    assert act(game, "J2 10:00", "Ida", "open_trial", "against=Bob", "as=woody").exit_code == 0
    result = invoke("announce", game, "--public")
    assert result.exit_code == 0, result.output
    assert "Bob" in result.output
    result = invoke("announce", "absente", "--public")
    assert result.exit_code == 2 and "partie inconnue" in flat(result.output)


# -- show -----------------------------------------------------------------------------------
def test_show_game_master_player_and_public(game: str) -> None:
    assert act(game, "J2 10:00", "Ida", "open_trial", "against=Bob", "as=woody").exit_code == 0
    gm = invoke("show", game)
    assert gm.exit_code == 0, gm.output
    assert "Ronde :" in flat(gm.output)
    player = invoke("show", game, "--as", "Ana")
    assert player.exit_code == 0, player.output
    out = flat(player.output)
    assert "Ana" in out and "Alice" in out
    assert "Ronde :" not in out
    public = invoke("show", game, "--as", "public")
    assert public.exit_code == 0, public.output
    assert "Ronde :" not in flat(public.output)
    unknown = invoke("show", game, "--as", "Zoe")
    assert unknown.exit_code == 2
    assert "Zoe" in flat(unknown.output)


def test_show_json_views(game: str) -> None:
    assert act(game, "J2 10:00", "Ida", "open_trial", "against=Bob", "as=woody").exit_code == 0
    gm = show_json(game)
    assert gm["kind"] == "game_master"
    assert gm["ronde"] == RONDE
    for pseudo, character in CAST.items():
        me = show_json(game, "--as", pseudo)
        assert me["kind"] == "player"
        assert me["viewer"] == pseudo
        assert "ronde" not in keys_of(me), pseudo
        if character in ("extra", "Figurant"):
            assert me["me"]["character"] == "extra"
    ana = show_json(game, "--as", "Ana")
    assert ana["me"]["character"] == "alice"
    assert "Bob" not in ana["known"]  # Bob's mask is still on
    assert ana["trials"][0]["accused"] == ["Bob"]
    public = show_json(game, "--as", "public")
    assert public["kind"] == "public"
    assert "ronde" not in keys_of(public)
    assert public["known"] == {}


def test_show_at_previews_without_recording(game: str) -> None:
    assert act(game, "J2 10:00", "Ida", "open_trial", "against=Bob", "as=woody").exit_code == 0
    before = row_count()
    later = show_json(game, "--at", "J3 10:01")
    assert later["trials"][0]["status"] == "lapsed"
    assert row_count() == before
    assert show_json(game)["trials"][0]["status"] == "open"
    result = invoke("show", game, "--at", "J1 10:00")
    assert result.exit_code == 1  # a preview shows the future


def test_show_and_scores_still_read_a_file(game: str) -> None:
    assert act(game, "J2 10:00", "Ida", "open_trial", "against=Bob", "as=woody").exit_code == 0
    path = game_file(game)
    text = path.read_text(encoding="utf-8")
    assert show_json(str(path)) == show_json(game)
    later = show_json(str(path), "--at", "J3 10:01")
    assert later["trials"][0]["status"] == "lapsed"
    assert path.read_text(encoding="utf-8") == text
    result = invoke("scores", str(path))
    assert result.exit_code == 0, result.output
    for pseudo in CAST:
        assert pseudo in flat(result.output)


# -- export and import ------------------------------------------------------------------------
def _views(slug: str) -> dict[str, Any]:
    return {v: show_json(slug, "--as", v) for v in [*CAST, "public"]} | {"mj": show_json(slug)}


def test_export_then_import_gives_the_same_views(game: str) -> None:
    assert act(game, "J2 10:00", "Ida", "open_trial", "against=Bob", "as=woody").exit_code == 0
    for i, who in enumerate(["Ana", "Jon", "Fay"]):
        assert act(game, f"J2 1{i + 1}:00", who, "complain", "trial=1").exit_code == 0
    assert act(game, "J2 10:30", "Mj", "award", "player=Cid", "points=5", "reason=x").exit_code == 0
    Path("g.jsonl").write_text("", encoding="utf-8")
    Path("g.jsonl").chmod(0o644)  # (an existing file, readable by all: made private)
    result = invoke("export", game, "-o", "g.jsonl")
    assert result.exit_code == 0, result.output
    # every secret of the game: readable by its owner only, as the database
    assert Path("g.jsonl").stat().st_mode & 0o777 == 0o600
    result = invoke("import", "g.jsonl", "--slug", "copie")
    assert result.exit_code == 0, result.output
    assert _views("copie") == _views(game)
    assert events("copie") == events(game)
    # corrections still possible in the copy
    log = invoke("log", "copie").output
    award = next(line for line in log.splitlines() if "award" in line)
    assert award.split("│")[-2].strip() == "Mj"  # who recorded it, kept
    number = award.split("│")[1].strip()
    assert invoke("strike", "copie", number, "--reason", "test", "--yes").exit_code == 0
    # an export is also readable as a file
    assert show_json("g.jsonl") == show_json(game)
    # the same name twice is refused
    again = invoke("import", "g.jsonl", "--slug", "copie")
    assert again.exit_code == 2 and "existe déjà" in flat(again.output)


def test_a_corrupt_import_is_refused_with_its_line(game: str) -> None:
    assert act(game, "J2 10:00", "Ida", "open_trial", "against=Bob", "as=woody").exit_code == 0
    assert act(game, "J2 11:00", "Ana", "complain", "trial=1").exit_code == 0
    assert act(game, "J2 12:00", "Jon", "complain", "trial=1").exit_code == 0
    assert invoke("export", game, "-o", "g.jsonl").exit_code == 0
    lines = Path("g.jsonl").read_text(encoding="utf-8").splitlines()
    # the last complaint's event line, cut in the middle (a full disk)
    last_action = max(i for i, ln in enumerate(lines) if ln.startswith('{"action"'))
    assert json.loads(lines[last_action])["action"]["by"] == "Jon"
    cut = last_action + 1
    Path("bad.jsonl").write_text(
        "\n".join(lines[:cut]) + "\n" + lines[cut][: len(lines[cut]) // 2], encoding="utf-8"
    )
    before = row_count()
    result = invoke("import", "bad.jsonl", "--slug", "abimee")
    assert result.exit_code == 2
    assert f"ligne {cut + 1}" in flat(result.output)
    assert row_count() == before
    result = invoke("import", "bad.jsonl", "--slug", "abimee", "--drop-incomplete")
    assert result.exit_code == 0, result.output
    complaints = [e["author"] for e in events("abimee") if e["type"] == "complaint_filed"]
    assert complaints == ["Ana"]  # Jon's action was incomplete: dropped
    # a file truncated at a line boundary (no end line) is refused too
    Path("short.jsonl").write_text("\n".join(lines[:cut]) + "\n", encoding="utf-8")
    result = invoke("import", "short.jsonl", "--slug", "courte")
    assert result.exit_code == 2
    assert "ligne" in flat(result.output)
    # garbage in the middle
    Path("junk.jsonl").write_text(
        "\n".join([*lines[:3], '{"event": {"type": "trial_won"}}', *lines[3:]]) + "\n",
        encoding="utf-8",
    )
    result = invoke("import", "junk.jsonl", "--slug", "junk")
    assert result.exit_code == 2 and "ligne 4" in flat(result.output)


def _resigned(path: str, change: Any) -> str:
    """The export ``path`` with ``change(lines)`` applied to its lines (objects without
    their fingerprints), signed again as an export is: a file whose content is what
    its author meant (the fingerprints prove a copy, not who wrote it)."""
    from ronde.web.games import transfer

    items = [json.loads(ln) for ln in Path(path).read_text(encoding="utf-8").splitlines()]
    for item in items:
        item.pop("h")
    change(items)
    bodies = (json.dumps(i, ensure_ascii=False).encode() for i in items)
    out = Path(f"re-{path}")
    out.write_bytes(b"".join(transfer._signed(bodies)))
    return str(out)


def test_an_import_keeps_the_games_settings_and_no_control_character(game: str) -> None:
    """The delivery of private messages and the Eternaltwin settings travel with an
    export; text with control characters (an escape sequence in a name, a pseudo, an
    action's reason) enters the store without them, as from any other way in; a header
    the store cannot keep is refused, nothing imported."""
    from ronde.web.games.models import Game

    Game.objects.filter(slug=game).update(
        delivery=Game.PORTAL, delivery_delay=12, etwin_auto=True, etwin_only=True
    )
    reason = "oubli\x1b]0;titre\x07 du J2"
    done = act(game, "J2 10:30", "Mj", "award", "player=Cid", "points=5", f"reason={reason}")
    assert done.exit_code == 0, done.output
    assert "oubli]0;titre du J2" in json.dumps(events(game))  # (the command line cleans)
    assert invoke("export", game, "-o", "g.jsonl").exit_code == 0
    result = invoke("import", "g.jsonl", "--slug", "copie")
    assert result.exit_code == 0, result.output
    copy = Game.objects.get(slug="copie")
    assert (copy.delivery, copy.delivery_delay, copy.etwin_auto, copy.etwin_only) == (
        Game.PORTAL,
        12,
        True,
        True,
    )

    def escape(items: list[dict[str, Any]]) -> None:
        items[0]["name"] = "Ronde\x1b[2J d'hiver"
        for i, item in enumerate(items):  # (the award's action and its event alike)
            text = json.dumps(item).replace("oubli]0;titre du J2", "oubli\\u001b[31m")
            items[i] = json.loads(text)

    result = invoke("import", _resigned("g.jsonl", escape), "--slug", "propre")
    assert result.exit_code == 0, result.output
    clean = Game.objects.get(slug="propre")
    assert clean.name == "Ronde[2J d'hiver"
    assert all("\x1b" not in str(a.args) for a in clean.actions.all())
    assert [e for e in events("propre") if "\x1b" in json.dumps(e)] == []

    for key, value in [("name", "x" * 121), ("delivery", "pigeon"), ("delivery_delay", 0)]:
        before = row_count()
        path = _resigned("g.jsonl", lambda items, k=key, v=value: items[0].update({k: v}))
        result = invoke("import", path, "--slug", "refusee")
        assert result.exit_code == 2 and "ligne 1" in flat(result.output), result.output
        assert row_count() == before


# -- bad game files ---------------------------------------------------------------------
def test_malformed_game_file_exits_2_naming_file_and_line(game: str) -> None:
    path = game_file(game)
    with path.open("a", encoding="utf-8") as fh:
        fh.write('{"type": "rehearsed", "at": \n')
    for args in (["show", str(path)], ["scores", str(path)]):
        result = invoke(*args)
        assert result.exit_code == 2, result.output
        assert "game.jsonl:2" in flat(result.output)


def test_unknown_event_and_missing_file_exit_2(game: str) -> None:
    path = game_file(game)
    with path.open("a", encoding="utf-8") as fh:
        fh.write('{"type": "trial_won", "v": 1, "at": "2026-12-02T10:00:00+01:00"}\n')
    result = invoke("show", str(path))
    assert result.exit_code == 2
    assert "game.jsonl:2" in flat(result.output)
    result = invoke("show", "nowhere.jsonl")
    assert result.exit_code == 2
    assert "nowhere.jsonl" in flat(result.output)


# -- check -----------------------------------------------------------------------------------
def scenario(expect: dict[str, Any]) -> str:
    return yaml.safe_dump(
        {
            "name": "cli",
            "rules": ["R4.2"],
            "game": {"start": "2026-12-01", "ronde": RONDE, "cast": CAST},
            "steps": [
                {
                    "at": "J2 10:00",
                    "by": "Ida",
                    "do": "open_trial",
                    "against": "Bob",
                    "as": "woody",
                },
                {"at": "J2 11:00", "expect": expect},
            ],
        },
        allow_unicode=True,
        sort_keys=False,
    )


@pytest.fixture
def scenarios(here: Path) -> Path:
    folder = Path("scen")
    folder.mkdir()
    (folder / "pass.yaml").write_text(scenario({"trials": {1: "open"}}), encoding="utf-8")
    (folder / "fail.yaml").write_text(scenario({"trials": {1: "just"}}), encoding="utf-8")
    return folder


def test_check_passing_scenario(scenarios: Path) -> None:
    result = invoke("check", str(scenarios / "pass.yaml"))
    assert result.exit_code == 0, result.output
    lines = result.stdout.strip().splitlines()
    assert lines[0].startswith("PASS ") and "pass.yaml" in lines[0]
    assert lines[-1] == "1 passed, 0 failed"


def test_check_failing_scenario_and_folder(scenarios: Path) -> None:
    result = invoke("check", str(scenarios))
    assert result.exit_code == 1, result.output
    lines = result.stdout.strip().splitlines()
    assert lines[-1] == "1 passed, 1 failed"
    (fail,) = [line for line in lines if line.startswith("FAIL ")]
    assert "fail.yaml" in fail and "step 2" in fail
    assert sum(1 for line in lines if line.startswith("PASS ")) == 1


def test_check_malformed_yaml_exits_2_naming_file_and_line(scenarios: Path) -> None:
    bad = scenarios / "bad.yaml"
    bad.write_text("name: broken\ngame:\n  start: 2026-12-01\n  ronde: [alice, woody\n", "utf-8")
    result = invoke("check", str(scenarios))
    assert result.exit_code == 2, result.output
    out = flat(result.output)
    assert "bad.yaml:" in out
    line = out.split("bad.yaml:", 1)[1].split(":", 1)[0]
    assert line.isdigit() and 1 <= int(line) <= 5, out
    assert result.stdout.strip().splitlines()[-1] == "1 passed, 1 failed"


def test_check_invalid_scenario_structure_exits_2(here: Path) -> None:
    Path("s.yaml").write_text("name: x\nsteps: []\n", encoding="utf-8")
    result = invoke("check", "s.yaml")
    assert result.exit_code == 2
    assert "s.yaml" in flat(result.output)
    assert "game" in flat(result.output)


def test_check_missing_path_exits_2(here: Path) -> None:
    result = invoke("check", "absent.yaml")
    assert result.exit_code == 2
    assert "absent.yaml" in flat(result.output)
