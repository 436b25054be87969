"""The ``ronde`` command line (Typer): new, act, show, scores, check; exit statuses
0 (done), 1 (refused action or failed scenario), 2 (unreadable file)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from typer.testing import CliRunner

from ronde.cli import app
from ronde.engine.names import RONDE_IDS

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


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Work in ``tmp_path`` with short relative file names (messages stay on one line)."""
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.fixture
def game(here: Path) -> Path:
    """A game of the 8-slot Ronde above, created with --cast."""
    Path("roster.txt").write_text("\n".join(CAST) + "\n", encoding="utf-8")
    Path("cast.yaml").write_text(
        yaml.safe_dump({"ronde": RONDE, "cast": CAST}, allow_unicode=True), encoding="utf-8"
    )
    result = invoke(
        "new", "game.jsonl", "--roster", "roster.txt", "--start", "2026-12-01",
        "--cast", "cast.yaml",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    return Path("game.jsonl")


def act(game: Path, at: str, by: str, action: str, *pairs: str) -> Any:
    return invoke("act", str(game), action, "--at", at, "--by", by, *pairs)


def show_json(game: Path, *extra: str) -> dict[str, Any]:
    result = invoke("show", str(game), "--json", *extra)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


# -- new ----------------------------------------------------------------------------------
def test_new_draws_a_full_cast_for_28_players(here: Path) -> None:
    pseudos = [f"Joueur{i:02d}" for i in range(28)]
    Path("roster.txt").write_text(
        "# the players\n" + "\n".join(f"- {p}" for p in pseudos) + "\n\n", encoding="utf-8"
    )
    result = invoke("new", "big.jsonl", "--roster", "roster.txt", "--start", "2026-12-01")
    assert result.exit_code == 0, result.output
    assert "28 joueurs" in flat(result.output)
    (created,) = lines_of(Path("big.jsonl"))
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


def test_new_with_a_cast_file_keeps_the_given_ronde_and_resolves_names(game: Path) -> None:
    (created,) = lines_of(game)
    assert created["ronde"] == RONDE
    assert created["cast"]["Bob"] == "woody"
    assert created["cast"]["Cid"] == "pierrot"
    assert created["cast"]["Eve"] == "little_mermaid"
    assert created["cast"]["Jon"] == "extra"
    assert created["players"] == list(CAST)


def test_new_refuses_to_overwrite_a_game(game: Path) -> None:
    before = game.read_text(encoding="utf-8")
    result = invoke(
        "new", str(game), "--roster", "roster.txt", "--start", "2026-12-01", "--cast", "cast.yaml"
    )
    assert result.exit_code == 2
    assert "--force" in flat(result.output)
    assert game.read_text(encoding="utf-8") == before


def test_new_refuses_an_invalid_cast(here: Path) -> None:
    Path("roster.txt").write_text("Ana\nBob\nCid\n", encoding="utf-8")
    Path("cast.yaml").write_text(
        "ronde: [alice, woody]\ncast: {Ana: alice, Bob: woody, Cid: sheriff}\n", encoding="utf-8"
    )
    result = invoke(
        "new", "g.jsonl", "--roster", "roster.txt", "--start", "2026-12-01", "--cast", "cast.yaml"
    )
    assert result.exit_code == 2
    assert "unknown_character" in flat(result.output)
    assert not Path("g.jsonl").exists()


# -- act -----------------------------------------------------------------------------------
def test_act_records_a_valid_trial_and_the_file_grows(game: Path) -> None:
    size = len(lines_of(game))
    result = act(game, "J2 10:00", "Ida", "open_trial", "against=Bob", "as=woody")
    assert result.exit_code == 0, result.output
    assert "Enregistré : open_trial" in flat(result.output)
    events = lines_of(game)  # every line is a JSON object
    assert len(events) > size
    opened = [e for e in events if e["type"] == "trial_opened"]
    assert len(opened) == 1
    assert opened[0]["accused"] == ["Bob"] and opened[0]["supposed"] == "woody"
    assert opened[0]["opener"] == "Ida"
    # the timers due before J2 10:00 (end of J1) were recorded too
    assert any(e["type"] == "day_closed" and e["day"] == 1 for e in events)
    # the public board shows it
    board = show_json(game, "--as", "public")
    assert [t["number"] for t in board["trials"]] == [1]


def test_act_a_just_trial_unmasks_and_scores(game: Path) -> None:
    assert act(game, "J2 10:00", "Ida", "open_trial", "against=Bob", "as=woody").exit_code == 0
    for i, who in enumerate(["Ana", "Jon", "Fay", "Gus"]):
        result = act(game, f"J2 1{i + 1}:00", who, "complain", "trial=1")
        assert result.exit_code == 0, result.output
    gm = show_json(game)
    assert gm["trials"][0]["status"] == "just"
    bob = next(p for p in gm["players"] if p["pseudo"] == "Bob")
    assert bob["masked"] is False
    result = invoke("scores", str(game))
    assert result.exit_code == 0, result.output
    out = flat(result.output)
    for pseudo in CAST:
        assert pseudo in out
    assert "-300" in out


def test_act_refusal_prints_the_code_and_exits_1(game: Path) -> None:
    assert act(game, "J2 10:00", "Ida", "open_trial", "against=Bob", "as=woody").exit_code == 0
    before = lines_of(game)
    result = act(game, "J2 11:00", "Ida", "complain", "trial=1")
    assert result.exit_code == 1
    assert "own_trial" in flat(result.output)
    assert lines_of(game) == before  # nothing recorded (no timer was due either)


def test_act_refusal_keeps_the_timers_that_fired(game: Path) -> None:
    before = lines_of(game)
    result = act(game, "J3 10:00", "Ida", "complain", "trial=1")
    assert result.exit_code == 1
    assert "unknown_trial" in flat(result.output)
    after = lines_of(game)
    assert after[: len(before)] == before
    new = after[len(before) :]
    assert {e["type"] for e in new} >= {"day_closed"}
    assert not [e for e in new if e["type"] in ("trial_opened", "complaint_filed")]


def test_act_unknown_character_suggests_the_nearest_name(game: Path) -> None:
    result = act(game, "J2 10:00", "Ida", "open_trial", "against=Bob", "as=wody")
    assert result.exit_code == 1
    out = flat(result.output)
    assert "unknown_character" in out
    assert "« Woody »" in out  # "Vouliez-vous dire « Woody » ?"
    assert not [e for e in lines_of(game) if e["type"] == "trial_opened"]


@pytest.mark.parametrize(
    ("by", "pairs"),
    [("Zoe", ["against=Bob", "as=woody"]), ("Ida", ["against=Zoe", "as=woody"])],
    ids=["actor", "accused"],
)
def test_act_unknown_player_is_refused(game: Path, by: str, pairs: list[str]) -> None:
    result = act(game, "J2 10:00", by, "open_trial", *pairs)
    assert result.exit_code == 1
    assert "unknown_player" in flat(result.output)
    assert not [e for e in lines_of(game) if e["type"] == "trial_opened"]


def test_act_bad_arguments_and_times_exit_2(game: Path) -> None:
    result = act(game, "J2 10:00", "Ida", "open_trial", "against")
    assert result.exit_code == 2
    assert "clé=valeur" in flat(result.output)
    result = act(game, "demain midi", "Ida", "rehearse")
    assert result.exit_code == 2
    assert "demain midi" in flat(result.output)


def test_act_game_master_only_action(game: Path) -> None:
    result = act(game, "J2 10:00", "Ana", "end_game")
    assert result.exit_code == 1
    assert "not_game_master" in flat(result.output)
    result = act(game, "J2 10:00", "Mj", "end_game")
    assert result.exit_code == 0, result.output
    assert lines_of(game)[-1]["type"] in ("message_sent", "game_ended")
    result = act(game, "J2 11:00", "Ida", "rehearse")
    assert result.exit_code == 1
    assert "game_not_running" in flat(result.output)


# -- show -----------------------------------------------------------------------------------
def test_show_game_master_player_and_public(game: Path) -> None:
    assert act(game, "J2 10:00", "Ida", "open_trial", "against=Bob", "as=woody").exit_code == 0
    gm = invoke("show", str(game))
    assert gm.exit_code == 0, gm.output
    assert "Ronde :" in flat(gm.output)
    player = invoke("show", str(game), "--as", "Ana")
    assert player.exit_code == 0, player.output
    out = flat(player.output)
    assert "Ana" in out and "Alice" in out
    assert "Ronde :" not in out
    public = invoke("show", str(game), "--as", "public")
    assert public.exit_code == 0, public.output
    assert "Ronde :" not in flat(public.output)
    unknown = invoke("show", str(game), "--as", "Zoe")
    assert unknown.exit_code == 2
    assert "Zoe" in flat(unknown.output)


def test_show_json_views(game: Path) -> None:
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


def test_show_at_advances_time_without_recording(game: Path) -> None:
    assert act(game, "J2 10:00", "Ida", "open_trial", "against=Bob", "as=woody").exit_code == 0
    before = game.read_text(encoding="utf-8")
    later = show_json(game, "--at", "J3 10:01")
    assert later["trials"][0]["status"] == "lapsed"
    assert game.read_text(encoding="utf-8") == before
    assert show_json(game)["trials"][0]["status"] == "open"


# -- scores -------------------------------------------------------------------------------
def test_scores_lists_every_player(game: Path) -> None:
    result = invoke("scores", str(game))
    assert result.exit_code == 0, result.output
    out = flat(result.output)
    for pseudo in CAST:
        assert pseudo in out


# -- bad game files ---------------------------------------------------------------------
def test_malformed_game_file_exits_2_naming_file_and_line(game: Path) -> None:
    with game.open("a", encoding="utf-8") as fh:
        fh.write('{"type": "rehearsed", "at": \n')
    for args in (["show", str(game)], ["scores", str(game)]):
        result = invoke(*args)
        assert result.exit_code == 2, result.output
        assert "game.jsonl:2" in flat(result.output)
    result = act(game, "J2 10:00", "Ida", "rehearse")
    assert result.exit_code == 2
    assert "game.jsonl:2" in flat(result.output)


def test_unknown_event_and_missing_file_exit_2(game: Path) -> None:
    with game.open("a", encoding="utf-8") as fh:
        fh.write('{"type": "trial_won", "v": 1, "at": "2026-12-02T10:00:00+01:00"}\n')
    result = invoke("show", str(game))
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
