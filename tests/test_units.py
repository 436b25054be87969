"""Unit tests of the engine's building blocks, named after the rules they check."""

from __future__ import annotations

import ast
from datetime import date, datetime, timedelta
from typing import Any

import pytest

from ronde.catalog import default_catalog
from ronde.engine.clock import PARIS, day_of, day_start, elapsed, parse_time
from ronde.engine.errors import RuleViolation
from ronde.engine.events import EVENT_TYPES, TrialOpened, from_json, to_json
from ronde.engine.game import Game
from ronde.engine.names import RONDE_IDS, normalize, resolve_character
from ronde.engine.options import validate_options
from ronde.engine.ronde import backward, boost_on, forward, window
from ronde.engine.views import view
from ronde.setup import draw

from .conftest import ROOT, SMALL_CAST, SMALL_RONDE, START, at, small_game


# -- R0.5, R3.1, R3.6: days and elapsed time in Europe/Paris ---------------------------
def test_r3_1_day_boundaries_are_paris_midnight() -> None:
    assert day_start(START, 1) == datetime(2026, 12, 1, tzinfo=PARIS)
    assert day_of(START, parse_time("2026-11-30T23:59:59+00:00", START)) == 1  # 00:59 Paris
    assert day_of(START, parse_time("2026-11-30T22:59:59+00:00", START)) == 0


def test_r3_6_twenty_four_hours_across_dst_is_elapsed_time() -> None:
    start = date(2027, 3, 20)  # the clocks go forward on Sunday 2027-03-28 (J9)
    t0 = parse_time("J8 10:00", start)
    end = elapsed(t0, timedelta(hours=24))
    assert end.astimezone(PARIS).strftime("%H:%M") == "11:00"
    assert day_of(start, end) == 9
    # Python's own aware arithmetic is wall-clock: the pitfall elapsed() avoids
    assert (t0.astimezone(PARIS) + timedelta(hours=24)).strftime("%H:%M") == "10:00"


def test_parse_time_forms() -> None:
    assert parse_time("J13 24:00", START) == day_start(START, 14)
    assert parse_time("j2 9h05", START).astimezone(PARIS).strftime("%H:%M") == "09:05"
    with pytest.raises(ValueError):
        parse_time("demain", START)


# -- R0.4: names in French or English, case and accents ignored ------------------------
@pytest.mark.parametrize(
    ("text", "cid"),
    [
        ("Petite Sirène", "little_mermaid"),
        ("la petite sirene", "little_mermaid"),
        ("l'Avocat du Diable", "devils_advocate"),
        ("CHEVALIER", "knight"),
        ("Décorateur", "decorators"),
        ("figurant", "extra"),
        ("straw_man", "straw_man"),
    ],
)
def test_r0_4_character_names(text: str, cid: str) -> None:
    assert resolve_character(text) == cid


def test_unknown_character_suggests_nearest() -> None:
    with pytest.raises(RuleViolation) as exc:
        resolve_character("wody")
    assert exc.value.code == "unknown_character"
    assert exc.value.suggestion == "woody"
    assert "Woody" in exc.value.message


def test_normalize_folds() -> None:
    assert normalize("  Héros  Tragique ") == "heros_tragique"


# -- Appendix A: house rules --------------------------------------------------------
def test_options_defaults_and_errors() -> None:
    assert validate_options({"a7": "standard_only", "A27": "cap_3"}) == {
        "A7": "standard_only",
        "A27": "cap_3",
    }
    with pytest.raises(RuleViolation) as exc:
        validate_options({"A7": "strict"})
    assert exc.value.code == "invalid_argument"
    with pytest.raises(RuleViolation):
        validate_options({"A99": "x"})


# -- R2.6, R2.8, R2.13: the walk, dead slots and the boost ----------------------------
def _full_game() -> Game:
    players = [f"P{i:02d}" for i in range(28)]
    cast: dict[str, str] = {}
    seats = ["extra"] * 6 + [c for c in RONDE_IDS for _ in range(2 if c == "decorators" else 1)]
    cast = dict(zip(players, seats, strict=True))
    return Game.create(
        start=START,
        cast=cast,
        ronde=list(RONDE_IDS),
        catalog=default_catalog(),
        seed=1,
        players=players,
    )


def _kill(game: Game, character: str) -> None:
    g = game.state
    for seat in g.holders[character]:
        g.players[seat].masked = False
        g.players[seat].character = None
    g.event_count += 1  # (as an event that changes masks would: the board moves)
    g.board_count = g.event_count


def test_r2_13_worked_example() -> None:
    game = _full_game()
    g = game.state
    s = list(g.ronde)
    _kill(game, s[4])
    _kill(game, s[7])
    assert forward(g, s[3], 6) == [s[5], s[6], s[8], s[9], s[10], s[11]]
    assert backward(g, s[3], 6) == [s[2], s[1], s[0], s[20], s[19], s[18]]
    _kill(game, s[6])
    assert forward(g, s[3], 6) == [s[5], s[8], s[9], s[10], s[11], s[12]]
    g.extra_unmaskings = 4  # more than half of the 6 Extras: the boost (R2.8, A6)
    g.event_count += 1
    g.board_count = g.event_count
    assert boost_on(g) and window(g) == 7
    assert forward(g, s[3], window(g)) == [s[5], s[8], s[9], s[10], s[11], s[12], s[13]]
    for c in s[6:]:
        if c not in (s[7],):
            _kill(game, c)
    live = [c for c in s if g.players[g.holders[c][0]].masked]
    assert len(live) == 5  # S0, S1, S2, S3, S5
    assert sorted(forward(g, s[3], 7)) == sorted(c for c in live if c != s[3])


# -- R1.7, R2.3: the draw -----------------------------------------------------------
def test_r1_7_full_draw_fills_every_seat() -> None:
    players = [f"J{i}" for i in range(28)]
    cast, ronde = draw(players)
    assert sorted(ronde) == sorted(RONDE_IDS)
    values = list(cast.values())
    assert values.count("extra") == 6 and values.count("decorators") == 2
    assert len(set(values)) == 22


def test_a2_smaller_game_draw_is_valid() -> None:
    """12 players (A2): a quarter are Extras, every other seat holds a Ronde Character of
    the Ronde drawn, each once (the Decorators twice), and the engine accepts the game."""
    players = [f"J{i}" for i in range(12)]
    cast, ronde = draw(players)
    assert sorted(cast) == sorted(players)
    values = list(cast.values())
    assert values.count("extra") == 3
    assert set(ronde) == set(values) - {"extra"}
    assert all(values.count(c) == (2 if c == "decorators" else 1) for c in ronde)
    game = Game.create(
        start=START, cast=cast, ronde=ronde, catalog=default_catalog(), seed=0, players=players
    )
    assert game.state.n_extras == 3 and tuple(game.state.ronde) == tuple(ronde)


# -- events: versioned JSON -------------------------------------------------------------
def test_event_json_round_trip() -> None:
    e = TrialOpened(at=at("J2 10:00"), trial=1, opener="Ana", accused=("Bob",), supposed="woody")
    data = to_json(e)
    assert data["type"] == "trial_opened" and data["v"] == 1
    assert from_json(data) == e


def test_every_event_of_simulated_games_round_trips_through_json() -> None:
    """Events of bot-played games (most types) come back equal from their JSON form,
    under their registered type name."""
    import random

    from ronde.sim import play_cast

    cast = dict(SMALL_CAST)
    seen: set[str] = set()
    for seed in range(3):
        game = play_cast(cast, list(SMALL_RONDE), random.Random(seed)).game
        for e in game.log:
            data = to_json(e)
            assert EVENT_TYPES[data["type"]] is type(e)
            assert from_json(data) == e, data["type"]
            seen.add(data["type"])
    assert len(seen) >= 15, sorted(seen)


# -- refusals change nothing ------------------------------------------------------------
def test_refused_command_changes_nothing() -> None:
    game = small_game()
    game.advance(at("J2 10:00"))
    before = len(game.log)
    with pytest.raises(RuleViolation) as exc:
        game.act("open_trial", "Ana", at("J2 10:00"), against="Bob", **{"as": "knight"})
    assert exc.value.code == "unknown_character" or exc.value.code == "not_your_target"
    assert len(game.log) == before


def test_time_never_goes_backwards() -> None:
    game = small_game()
    game.act("rehearse", "Ana", at("J3 10:00"))
    with pytest.raises(RuleViolation) as exc:
        game.act("rehearse", "Bob", at("J2 10:00"))
    assert exc.value.code == "invalid_argument"


# -- the engine is pure (DESIGN.md) ------------------------------------------------------
FORBIDDEN_IMPORTS = {
    "django",
    "os",
    "io",
    "socket",
    "subprocess",
    "pathlib",
    "time",
    "secrets",
    "requests",
    "sqlite3",
    "urllib",
    "importlib",
}


def test_engine_imports_no_io_clock_or_framework() -> None:
    engine = ROOT / "src" / "ronde" / "engine"
    for path in engine.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [a.name.split(".")[0] for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module.split(".")[0]]
            assert not set(names) & FORBIDDEN_IMPORTS, f"{path.name} imports {names}"
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in {"now", "today", "utcnow"}
                and isinstance(node.func.value, ast.Name)
                and node.func.value.id in {"datetime", "date"}
            ):
                pytest.fail(f"{path.name} reads the clock ({node.func.attr})")
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                value = node.func.value
                if (
                    isinstance(value, ast.Name)
                    and value.id == "random"
                    and node.func.attr != "Random"
                ):
                    pytest.fail(f"{path.name} uses global randomness (random.{node.func.attr})")


def test_character_modules_do_not_import_each_other() -> None:
    folder = ROOT / "src" / "ronde" / "engine" / "characters"
    modules = {p.stem for p in folder.glob("*.py")} - {"__init__", "base"}
    for path in folder.glob("*.py"):
        if path.stem in ("__init__", "base"):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.level == 1 and node.module in modules:
                pytest.fail(f"{path.name} imports the character module {node.module}")


def test_a_duty_unmasking_publishes_no_secret_detail() -> None:
    """Destiny falls for a missed day: the forum learns the cause, not her schedule (R7.16.1,
    R8.1); the game masters get the detail."""
    ronde = ["alice", "woody", "pierrot", "halus", "destiny", "seer", "knight", "mime"]
    cast = {
        "Ana": "alice",
        "Bob": "woody",
        "Cid": "pierrot",
        "Dan": "halus",
        "Des": "destiny",
        "Sue": "seer",
        "Kit": "knight",
        "Mim": "mime",
        "Ida": "extra",
    }
    game = small_game(cast=cast, ronde=ronde)
    schedule = ["halus"] * 12
    game.act("declare_destiny", "Des", at("J2 08:00"), list=schedule)
    game.advance(at("J3 00:00"))
    g = game.state
    assert not g.players["Des"].masked
    public = [text for _at, _to, kind, text, _d, pub in g.messages if pub and kind == "unmasking"]
    assert public and all("Halus" not in text for text in public)
    notes = [text for _at, to, kind, text, _d, pub in g.messages if kind == "unmasking_detail"]
    assert notes and not any(pub for *_r, pub in g.messages if "unmasking_detail" in _r)


def _trial_with_a_null_complaint(options: dict[str, str] | None) -> dict[str, Any]:
    """The Prompter's muted complaint is null (R7.2.5); four valid ones make it JUST."""
    cast = {"Pat": "prompter", "Ana": "alice", "Bob": "woody", "Cid": "pierrot"}
    cast |= {"Dan": "halus", "Eve": "little_mermaid", "Fay": "polichinelle", "Gus": "guignol"}
    cast |= {"Ida": "extra", "Jo": "extra"}
    ronde = ["prompter", "alice", "woody", "pierrot", "halus", "little_mermaid"]
    ronde += ["polichinelle", "guignol"]
    g = small_game(options=options, cast=cast, ronde=ronde)
    g.act("open_trial", "Ana", at("J2 10:00"), against="Bob", **{"as": "woody"})
    for i, who in enumerate(["Pat", "Gus", "Fay", "Eve", "Dan"]):
        g.act("complain", who, at(f"J2 11:0{i}"), trial=1)
    g.act("announce", "Mj", at("J2 12:00"), trial=1)
    trial = view(g.state, "public")["trials"][0]
    assert trial["status"] == "just", trial
    return trial


def test_null_notice_gives_the_number_of_null_complaints_by_default() -> None:
    """A19 default (`count`): the notice says how many complaints were null, never whose."""
    assert _trial_with_a_null_complaint(None)["null_notice"] == 1


def test_null_notice_only_says_there_was_one_under_generic() -> None:
    """A19 `generic`: the notice only says that at least one complaint was null."""
    assert _trial_with_a_null_complaint({"A19": "generic"})["null_notice"] is True


def test_walks_from_a_slot_outside_the_ronde_or_of_no_length_are_empty() -> None:
    g = small_game().state
    assert forward(g, "extra", 6) == [] and backward(g, "extra", 6) == []
    assert forward(g, "alice", 0) == [] and backward(g, "alice", -1) == []
    assert forward(g, "alice", 1) == ["woody"] and backward(g, "alice", 1) == ["revenant"]
