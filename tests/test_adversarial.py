"""Adversarial tests: a mischievous player, a careless game master, odd house rules.

Each test asserts something that could fail. Real bugs are kept as strict xfails
(``reason="BUG: ..."``) so that they turn into failures the day they are fixed;
everything else is a passing regression test. Scenario-shaped regressions live in
``tests/scenarios/adversarial/``.
"""

from __future__ import annotations

import json
import os
import random
from collections.abc import Iterator
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

import django
import pytest
from typer.testing import CliRunner

from ronde import store
from ronde.catalog import default_catalog
from ronde.cli import app
from ronde.engine.clock import PARIS, format_time, parse_time
from ronde.engine.commands import Command
from ronde.engine.errors import CODES, RuleViolation
from ronde.engine.game import Game, all_actions
from ronde.engine.names import RONDE_IDS
from ronde.engine.options import HOUSE_RULES, validate_options
from ronde.engine.views import public_identities, view
from ronde.setup import draw
from ronde.sim import play_cast

from .conftest import SMALL_CAST, SMALL_RONDE

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ronde.web.settings")  # the store (ronde act)
django.setup()

runner = CliRunner()

START = date(2026, 12, 1)
RONDE = list(SMALL_RONDE)
CAST = dict(SMALL_CAST)  # the shared small test game (tests/conftest.py)
DECO_RONDE = ["alice", "woody", "pierrot", "halus", "decorators", "polichinelle", "guignol"]
DECO_RONDE += ["revenant"]
DECO_CAST = {k: v for k, v in CAST.items() if k != "Eve"} | {
    "Deb": "decorators",
    "Dex": "decorators",
}
PIANO_RONDE = [c if c != "little_mermaid" else "pianist" for c in RONDE]
PIANO_CAST = {k: v for k, v in CAST.items() if k != "Eve"} | {"Pia": "pianist"}


# -- helpers ---------------------------------------------------------------------------
def at(text: str, start: date = START) -> datetime:
    return parse_time(text, start)


def iso(text: str) -> datetime:
    """An ISO timestamp with its own offset, as a command's time (Europe/Paris)."""
    return datetime.fromisoformat(text).astimezone(PARIS)


def new_game(
    cast: dict[str, str] | None = None,
    ronde: list[str] | None = None,
    options: dict[str, Any] | None = None,
    start: date = START,
    players: list[str] | None = None,
    game_masters: list[str] | None = None,
) -> Game:
    cast = cast or CAST
    return Game.create(
        start=start,
        cast=cast,
        ronde=ronde or RONDE,
        catalog=default_catalog(),
        seed=0,
        players=players or list(cast),
        game_masters=game_masters or ["Mj"],
        options=options or {},
    )


def do(game: Game, verb: str, by: str, when: datetime | str, **args: Any) -> None:
    moment = at(when) if isinstance(when, str) else when
    game.execute(Command(verb, by, moment, args))


def refused(game: Game, verb: str, by: str, when: datetime | str, **args: Any) -> RuleViolation:
    """Run a command that must be refused; check it changed nothing; return the refusal."""
    moment = at(when) if isinstance(when, str) else when
    game.advance(moment)  # timers due before the command are facts, not the command's
    before_log = len(game.log)
    before = json.dumps(view(game.state, "game_master"), default=str, sort_keys=True)
    with pytest.raises(RuleViolation) as info:
        game.execute(Command(verb, by, moment, args))
    assert len(game.log) == before_log, "a refused command recorded events"
    after = json.dumps(view(game.state, "game_master"), default=str, sort_keys=True)
    assert after == before, "a refused command changed the state"
    rv = info.value
    assert rv.code in CODES
    assert rv.message and rv.message.strip()
    return rv


def flat(text: str) -> str:
    return " ".join(text.split())


def invoke(*args: str) -> Any:
    return runner.invoke(app, list(args))


def no_traceback(result: Any) -> None:
    exc = result.exception
    assert exc is None or isinstance(exc, SystemExit), f"{type(exc).__name__}: {exc}"


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.fixture
def game_file(here: Path) -> Path:
    """A small game on disk with one open trial (Ida accuses Bob of being Woody on J2)."""
    game = new_game()
    do(game, "open_trial", "Ida", "J2 10:00", against="Bob", **{"as": "woody"})
    path = here / "g.jsonl"
    store.write_events(path, game.log)
    return path


def edit_event(path: Path, index: int, **changes: Any) -> None:
    lines = path.read_text(encoding="utf-8").splitlines()
    event = json.loads(lines[index])
    event.update(changes)
    lines[index] = json.dumps(event)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def line_of(path: Path, kind: str) -> int:
    for i, line in enumerate(path.read_text(encoding="utf-8").splitlines()):
        if json.loads(line)["type"] == kind:
            return i
    raise AssertionError(kind)


# =====================================================================================
# Pseudos: duplicates, accents, reserved names (R0.4, R1.2, R1.4)
# =====================================================================================
def test_pseudos_differing_by_accents_are_two_players() -> None:
    """Accents are significant in pseudos (issue Forum bridge: NFC, case folded,
    invisible characters removed): « Eva » and « Éva » are two citizens, each reachable."""
    cast = {k: v for k, v in CAST.items() if k not in ("Max", "Ned")} | {
        "Eva": "extra",
        "Éva": "extra",
    }
    game = new_game(cast=cast)
    do(game, "rehearse", "Eva", "J2 10:00")
    do(game, "rehearse", "éva", "J2 10:01")
    assert game.state.players["Eva"].rehearsal_days == {2}
    assert game.state.players["Éva"].rehearsal_days == {2}


def test_pseudos_differing_only_by_an_invisible_character_are_refused_at_setup() -> None:
    cast = {k: v for k, v in CAST.items() if k != "Ned"} | {"Ida\u200b": "extra"}
    with pytest.raises(RuleViolation):
        new_game(cast=cast)


def test_player_whose_pseudo_folds_to_a_game_master_cannot_act_as_one() -> None:
    cast = {k: v for k, v in CAST.items() if k != "Ned"} | {"Mj!": "extra"}
    try:
        game = new_game(cast=cast)
    except RuleViolation:
        return  # refusing such a roster is a fine answer too
    rv = refused(game, "end_game", "Mj!", "J3 10:00")
    assert rv.code == "not_game_master"
    assert not game.state.game_ended


def test_player_named_chorus_is_an_ordinary_opener() -> None:
    cast = {k: v for k, v in CAST.items() if k != "Ned"} | {"chorus": "extra"}
    try:
        game = new_game(cast=cast)
    except RuleViolation:
        return  # a reserved pseudo may be refused at setup instead
    do(game, "open_trial", "chorus", "J2 10:00", against="Ana", **{"as": "alice"})
    for who in ("Ida", "Jo", "Kim", "Lou"):
        do(game, "complain", who, "J2 11:00", trial=1)
    do(game, "announce", "Mj", "J2 12:00", trial=1)
    assert game.state.players["chorus"].points == 380
    assert "ouvert par chorus" in view(game.state, "public")["announcements"][0]["text"]


def test_pseudo_lookup_ignores_case_width_and_invisible_characters() -> None:
    game = new_game()
    rv = refused(game, "rehearse", "Ída", "J2 09:00")  # an accent is another name
    assert rv.code == "unknown_player" and rv.suggestion == "Ida"
    do(game, "open_trial", "IDA", "J2 10:00", against="ｂｏｂ", **{"as": "WOODY"})
    do(game, "complain", "ana\u200b", "J2 10:05", trial=1)
    t = game.state.trials[0]
    assert t.opener == "Ida" and t.accused == ("Bob",)
    assert [c.author for c in t.complaints] == ["Ana"]


def test_homoglyph_pseudo_is_an_unknown_player_with_a_suggestion() -> None:
    game = new_game()
    rv = refused(game, "rehearse", "\u0410na", "J2 10:00")  # Cyrillic А
    assert rv.code == "unknown_player"
    assert rv.suggestion == "Ana"
    assert "inconnu" in rv.message


@pytest.mark.parametrize(
    ("players", "code"),
    [
        (["Ana", "ana"], "invalid_argument"),
        (["Mj", "Bob"], "invalid_argument"),
    ],
)
def test_duplicate_pseudos_by_case_and_game_master_collisions_are_refused(
    players: list[str], code: str
) -> None:
    cast = {p: ("alice" if i == 0 else "extra") for i, p in enumerate(players)}
    cast.update({"Zed": "woody"})
    with pytest.raises(RuleViolation) as info:
        Game.create(
            start=START,
            cast=cast,
            ronde=["alice", "woody"],
            catalog=default_catalog(),
            seed=0,
            players=[*players, "Zed"],
            game_masters=["Mj"],
        )
    assert info.value.code == code


@pytest.mark.parametrize(
    ("cast", "ronde", "code"),
    [
        ({"Ana": "alice", "Bob": "zorro"}, ["alice", "zorro"], "unknown_character"),
        ({"Ana": "alice", "Bob": "woody"}, ["alice"], "invalid_argument"),
        ({"Ana": "alice", "Bob": "woody"}, ["alice", "woody", "pierrot"], "invalid_argument"),
        ({"Ana": "alice", "Deb": "decorators"}, ["alice", "decorators"], "invalid_argument"),
        (
            {"Ana": "decorators", "Bob": "decorators", "Cid": "decorators"},
            ["decorators"],
            "invalid_argument",
        ),
        ({"Ana": "alice", "Bob": "alice"}, ["alice"], "invalid_argument"),
        ({"Ana": "alice", "Bob": "extra"}, ["alice", "extra"], "invalid_argument"),
        ({"Ana": "alice", "Bob": "woody"}, ["alice", "woody", "alice"], "invalid_argument"),
    ],
    ids=[
        "unknown-character",
        "ronde-missing-a-cast-character",
        "ronde-character-nobody-holds",
        "one-decorator",
        "three-decorators",
        "alice-twice",
        "extra-in-ronde",
        "slot-twice",
    ],
)
def test_bad_casts_are_refused_with_a_code(
    cast: dict[str, str], ronde: list[str], code: str
) -> None:
    with pytest.raises(RuleViolation) as info:
        new_game(cast=cast, ronde=ronde)
    assert info.value.code == code
    assert info.value.message


# =====================================================================================
# House-rule values (Appendix A)
# =====================================================================================
def test_placeholder_option_values_are_refused() -> None:
    for rid, value in (("A9", "grace_N"), ("A27", "cap_N")):
        with pytest.raises(RuleViolation):
            validate_options({rid: value})


def test_absurd_grace_is_refused() -> None:
    with pytest.raises(RuleViolation) as info:
        new_game(options={"A9": "grace_10000000000"})
    assert info.value.code == "invalid_argument"


def test_option_ids_and_values_are_checked() -> None:
    assert validate_options({"a7": "standard_only"}) == {"A7": "standard_only"}
    assert validate_options({"A9": "grace_15", "A27": "cap_3"}) == {
        "A9": "grace_15",
        "A27": "cap_3",
    }
    for bad in ({"A999": "x"}, {"A7": "strict"}, {"A9": "grace_-5"}, {"A13": True}):
        with pytest.raises(RuleViolation) as info:
            validate_options(bad)
        assert info.value.code == "invalid_argument"


def _combos() -> list[dict[str, str]]:
    """Option sets that, together, give every non-default value of Appendix A once."""
    width = max(len(others) for _, others in HOUSE_RULES.values())
    out = []
    for i in range(width):
        opts = {}
        for rid, (_default, others) in HOUSE_RULES.items():
            value = others[i % len(others)]
            opts[rid] = value.replace("_N", "_20") if value.endswith("_N") else value
        out.append(opts)
    return out


def _full_cast(seed: int, n: int = 28) -> tuple[dict[str, str], list[str]]:
    cast, ronde = draw([f"P{i:02d}" for i in range(n)], random.Random(seed))  # type: ignore[arg-type]
    return cast, ronde


@pytest.mark.parametrize("n", [28, 9])
@pytest.mark.parametrize("i", range(len(_combos())))
def test_every_house_rule_value_plays_a_whole_game(i: int, n: int) -> None:
    cast, ronde = _full_cast(i, n)
    res = play_cast(cast, ronde, random.Random(100 + i), options=_combos()[i])
    g = res.game.state
    assert g.game_ended
    assert any(m[2] == "final_reveal" for m in g.messages)
    # the log replays into the same state
    replayed = Game.replay(res.game.log, default_catalog())
    assert view(replayed.state, "game_master") == view(g, "game_master")


@pytest.mark.parametrize(
    ("cast", "ronde"),
    [
        ({"A": "extra", "B": "extra", "C": "extra"}, []),
        ({"A": "alice", "B": "extra"}, ["alice"]),
        ({"A": "decorators", "B": "decorators"}, ["decorators"]),
        ({"A": "tragic_hero"}, ["tragic_hero"]),
        (
            {"A": "revenant", "B": "tragic_hero", "C": "destiny"},
            ["revenant", "tragic_hero", "destiny"],
        ),
        ({"A": "pianist", "B": "prompter", "C": "extra"}, ["pianist", "prompter"]),
    ],
    ids=["no-ronde", "one-slot", "only-decorators", "lonely-hero", "odd-trio", "pianist-prompter"],
)
def test_degenerate_casts_play_to_the_end(cast: dict[str, str], ronde: list[str]) -> None:
    for seed in range(2):
        res = play_cast(cast, ronde, random.Random(seed))
        assert res.game.state.game_ended


# =====================================================================================
# Bad input to commands: every refusal is a RuleViolation and changes nothing
# =====================================================================================
BAD_COMMANDS: list[tuple[str, str, dict[str, Any], str]] = [
    ("complain", "Ana", {"trial": "abc"}, "unknown_trial"),
    ("complain", "Ana", {"trial": [1]}, "unknown_trial"),
    ("complain", "Ana", {"trial": -1}, "unknown_trial"),
    ("complain", "Ana", {"trial": 0}, "unknown_trial"),
    ("complain", "Ana", {"trial": 10**9}, "unknown_trial"),
    ("complain", "Ana", {}, "unknown_trial"),
    ("complain", "Ana", {"trial": 1, "anonymous": "maybe"}, "invalid_argument"),
    ("complain", "Ana", {"trial": 1, "anonymous": []}, "invalid_argument"),
    ("complain", "Zed", {"trial": 1}, "unknown_player"),
    ("complain", "", {"trial": 1}, "unknown_player"),
    ("complain", "Mj", {"trial": 1}, "not_allowed"),
    ("open_trial", "Jo", {"against": [], "as": "woody"}, "invalid_argument"),
    ("open_trial", "Jo", {"against": "Cid", "as": 123}, "unknown_character"),
    ("open_trial", "Jo", {"against": "Cid", "as": ""}, "unknown_character"),
    ("open_trial", "Jo", {"against": "Cid"}, "invalid_argument"),
    ("open_trial", "Jo", {"as": "pierrot"}, "invalid_argument"),
    ("open_trial", "Jo", {"against": None, "as": "pierrot"}, "invalid_argument"),
    ("open_trial", "Jo", {"against": "Cid", "as": "extra"}, "not_your_target"),
    ("open_trial", "Jo", {"against": "Mj", "as": "pierrot"}, "unknown_player"),
    ("open_trial", "Jo", {"against": "Jo", "as": "pierrot"}, "not_allowed"),
    ("open_trial", "Jo", {"against": ["Cid", "Dan"], "as": "pierrot"}, "invalid_argument"),
    ("open_trial", "Jo", {"against": "Cid", "as": "pierrot", "anonymous": 2}, "invalid_argument"),
    ("open_trial", "Jo", {"against": "Cid", "as": "pierrot", "anonymous": True}, "not_allowed"),
    ("record_constraint", "Mj", {"player": "Ana", "day": 0, "met": False}, "invalid_argument"),
    ("record_constraint", "Mj", {"player": "Ana", "day": 14, "met": False}, "invalid_argument"),
    ("record_constraint", "Mj", {"player": "Ana", "day": -1, "met": False}, "invalid_argument"),
    ("record_constraint", "Mj", {"player": "Ana", "day": "1e9", "met": False}, "invalid_argument"),
    ("record_constraint", "Mj", {"player": "Ana", "day": [2], "met": False}, "invalid_argument"),
    ("record_constraint", "Mj", {"player": "Ana", "day": 2, "met": "maybe"}, "invalid_argument"),
    ("record_constraint", "Mj", {"player": "Ana", "day": 5, "met": False}, "out_of_window"),
    ("record_constraint", "Ana", {"player": "Ana", "day": 2, "met": True}, "not_game_master"),
    ("award", "Mj", {"player": "Ana", "points": "1e9"}, "invalid_argument"),
    ("award", "Mj", {"player": "Ana", "points": "abc"}, "invalid_argument"),
    ("award", "Mj", {"player": "Ana", "points": True}, "invalid_argument"),
    ("award", "Mj", {"player": "Zed", "points": 5}, "unknown_player"),
    ("send_items", "Ana", {"to": "Mj", "items": []}, "invalid_argument"),
    ("send_items", "Ana", {"to": "Zed", "items": ["item_tekel"]}, "invalid_argument"),
    ("send_items", "Ana", {"to": "Mj", "items": ["zzz"]}, "invalid_argument"),
    ("use_joker", "Ana", {"items": []}, "invalid_argument"),
    ("use_joker", "Ana", {"items": ["item_table"]}, "invalid_argument"),
    ("use_joker", "Fay", {"items": ["item_cards"]}, "not_allowed"),
    ("guess_ronde", "Ana", {"order": "alice"}, "invalid_argument"),
    ("guess_ronde", "Ana", {"order": []}, "invalid_argument"),
    ("guess_ronde", "Ana", {"order": ["alice"] * 8}, "invalid_argument"),
    ("set_theme", "Mj", {"day": 2, "theme": ""}, "invalid_argument"),
    ("set_theme", "Mj", {"day": "x", "theme": "noix"}, "invalid_argument"),
    ("set_theme", "Mj", {"day": 14, "theme": "noix"}, "invalid_argument"),
    ("exempt", "Mj", {"player": "Ana", "days": [0, 99]}, "invalid_argument"),
    ("exempt", "Mj", {"player": "Ana", "days": ["abc"]}, "invalid_argument"),
    ("exempt", "Mj", {"player": "Ana", "days": []}, "invalid_argument"),
    ("replace_player", "Mj", {"player": "Ana", "new": ""}, "invalid_argument"),
    ("replace_player", "Mj", {"player": "Ana", "new": "MJ"}, "invalid_argument"),
    ("replace_player", "Mj", {"player": "Ana", "new": "BOB\u200b"}, "invalid_argument"),
    ("transfigure", "Mj", {"player": "Ana"}, "not_allowed"),
    ("appoint_secretary", "Mj", {"player": "Ana"}, "not_allowed"),
    ("announce", "Mj", {"trial": 1}, "not_allowed"),
    ("announce", "Mj", {"trial": 7}, "unknown_trial"),
    ("put_to_sleep", "Cid", {"player": "Cid"}, "not_allowed"),
    ("put_to_sleep", "Cid", {"player": "Mj"}, "unknown_player"),
    ("put_to_sleep", "Ana", {"player": "Bob"}, "not_allowed"),
    ("order", "Eve", {"player": "Ana", "kind": "fly"}, "invalid_argument"),
    ("order", "Eve", {"player": "Ana", "kind": "go_to", "cell": ["x", "y"]}, "invalid_argument"),
    ("order", "Eve", {"player": "Ana", "kind": "go_to"}, "invalid_argument"),
    ("order", "Eve", {"player": "Eve", "kind": "take_item", "item": "item_pc"}, "not_allowed"),
    ("ask", "Bob", {"player": "Ana", "as": "zorro"}, "unknown_character"),
    ("reveal_secret", "Fay", {"player": "Ana"}, "out_of_window"),
    ("give_revenant_role", "Mj", {"character": "revenant"}, "not_allowed"),
    ("post", "Ana", {"trial": 1, "defends": "Zed"}, "unknown_player"),
    ("post", "Ana", {"trial": 1, "defends": "Cid"}, "invalid_argument"),
    ("end_game", "Ana", {}, "not_game_master"),
    ("bogus", "Ana", {}, "invalid_argument"),
]


@pytest.mark.parametrize(
    ("verb", "by", "args", "code"),
    BAD_COMMANDS,
    ids=[f"{v}-{i}" for i, (v, *_rest) in enumerate(BAD_COMMANDS)],
)
def test_bad_commands_are_refused_with_their_code_and_change_nothing(
    verb: str, by: str, args: dict[str, Any], code: str
) -> None:
    game = new_game()
    do(game, "open_trial", "Ida", "J2 10:00", against="Bob", **{"as": "woody"})
    rv = refused(game, verb, by, "J2 11:00", **args)
    assert rv.code == code, rv.message


def test_every_action_refuses_junk_without_crashing() -> None:
    """Every action of the vocabulary, with nonsense arguments, by a player and a GM."""
    junk = {
        "trial": {"x": 1},
        "player": ["a", "b"],
        "as": None,
        "day": "soon",
        "items": 7,
        "order": {"a": 1},
        "kind": 3.5,
        "cell": "nowhere",
        "character": [],
        "list": "alice",
        "text": None,
        "against": {"x": 1},
        "action": 12,
        "points": "many",
        "days": None,
        "new": None,
    }
    for verb in sorted(all_actions()):
        for by in ("Ana", "Mj", "Ida"):
            game = new_game()
            do(game, "open_trial", "Ida", "J4 09:00", against="Bob", **{"as": "woody"})
            try:
                do(game, verb, by, "J4 10:00", **junk)
            except RuleViolation as rv:
                assert rv.code in CODES


def test_non_whole_numbers_are_invalid_arguments() -> None:
    game = new_game()
    rv = refused(game, "record_constraint", "Mj", "J3 10:00", player="Ana", day=2.7, met=False)
    assert rv.code == "invalid_argument"
    rv = refused(game, "award", "Mj", "J3 10:00", player="Ana", points=2.5)
    assert rv.code == "invalid_argument"


def test_fractional_trial_number_is_refused() -> None:
    game = new_game()
    do(game, "open_trial", "Ida", "J2 10:00", against="Bob", **{"as": "woody"})
    refused(game, "complain", "Ana", "J2 11:00", trial=1.5)


def test_misspelt_argument_is_refused_not_ignored() -> None:
    game = new_game()
    do(game, "open_trial", "Ida", "J2 10:00", against="Bob", **{"as": "woody"})
    rv = refused(game, "complain", "Ana", "J2 11:00", trial=1, anonymus=True)
    assert rv.code == "invalid_argument"


def test_joker_day_out_of_range_is_invalid_argument() -> None:
    game = new_game(options={"A24": "named_day"})
    rv = refused(game, "use_joker", "Ana", "J2 10:00", items=["item_cards"], day=99)
    assert rv.code == "invalid_argument"


def test_refusals_speak_french() -> None:
    game = new_game()
    do(game, "open_trial", "Ida", "J2 10:00", against="Bob", **{"as": "woody"})
    messages = [
        refused(game, "complain", "Ida", "J2 11:00", trial=1).message,
        refused(game, "complain", "Ana", "J2 11:00", trial=9).message,
        refused(game, "open_trial", "Jo", "J2 11:00", against="Zed", **{"as": "woody"}).message,
        refused(game, "record_constraint", "Mj", "J2 11:00", player="Ana", day=0).message,
    ]
    assert all(m.endswith((".", "?", ")")) for m in messages)
    assert any("Procès" in m for m in messages)
    assert not any("Traceback" in m or "Error" in m for m in messages)


def test_random_command_storm_never_crashes_and_refusals_change_nothing() -> None:
    """A fuzzer: random actions, actors and arguments at increasing times."""
    rng = random.Random(7)
    verbs = sorted(a for a in all_actions() if a != "end_game")
    gms = {n for n, (who, _) in all_actions().items() if who == "game_master"}
    items = ["item_cards", "item_tekel", "item_chair_basic", "item_table", "item_home_box"]
    for seed in range(2):
        rng.seed(seed)
        game = new_game(cast=DECO_CAST, ronde=DECO_RONDE)
        names = [*DECO_CAST, "Zed", "mj"]
        t = at("J1 20:00")
        for _ in range(250):
            t += timedelta(minutes=rng.choice([0, 1, 7, 30, 90]))
            verb = rng.choice([*verbs, "open_trial", "complain", "complain", "announce"])
            by = "Mj" if verb in gms else rng.choice(names)
            args: dict[str, Any] = {
                "against": rng.choice(names) if rng.random() < 0.8 else rng.sample(names, 2),
                "as": rng.choice([*RONDE_IDS, "extra", "zorro"]),
                "trial": rng.randint(0, len(game.state.trials) + 1),
                "anonymous": rng.random() < 0.2,
                "player": rng.choice(names),
                "day": rng.randint(0, 14),
                "met": rng.random() < 0.8,
                "items": rng.sample(items, 1),
                "to": "Mj",
                "kind": rng.choice(["complain", "go_to", "take_item"]),
                "cell": [rng.randint(-7, 7), rng.randint(-7, 7)],
                "character": rng.choice(list(RONDE_IDS)),
                "order": rng.sample(DECO_RONDE, len(DECO_RONDE)),
                "points": rng.randint(-9, 9),
                "theme": "noix",
                "text": "un deux trois quatre cinq six sept huit",
                "action": "investigate",
                "new": "Nouveau",
                "days": [rng.randint(2, 13)],
            }
            game.advance(t)
            before = len(game.log)
            try:
                game.execute(Command(verb, by, t, args))
            except RuleViolation as rv:
                assert rv.code in CODES
                assert len(game.log) == before
        replayed = Game.replay(game.log, default_catalog())
        assert view(replayed.state, "public") == view(game.state, "public")


# =====================================================================================
# Time: bounds, time zones, going backwards, daylight saving (R0.5, R3.1, R3.6)
# =====================================================================================
@pytest.mark.parametrize("text", ["J0 10:00", "J15 10:00", "J2 25:00", "J2 10:61", "J2 24:01", ""])
def test_impossible_game_times_are_refused(text: str) -> None:
    with pytest.raises(ValueError, match="heure"):
        parse_time(text, START)


def test_iso_times_in_other_time_zones_are_the_same_instant() -> None:
    assert parse_time("2026-12-02T09:00:00Z", START) == at("J2 10:00")
    assert parse_time("2026-12-02T18:00:00+09:00", START) == at("J2 10:00")
    assert parse_time("2026-12-02T10:00", START) == at("J2 10:00")  # naive = Paris
    assert format_time(START, parse_time("2026-12-02T04:00-05:00", START)) == "J2 10:00"


def test_time_never_goes_backwards() -> None:
    game = new_game()
    do(game, "rehearse", "Ida", "J3 10:00")
    rv = refused(game, "rehearse", "Jo", "J3 09:59")
    assert rv.code == "invalid_argument"
    rv = refused(game, "rehearse", "Jo", parse_time("2026-12-03T08:59:00Z", START))
    assert rv.code == "invalid_argument"


def test_actions_before_j2_and_after_the_end() -> None:
    game = new_game()
    assert refused(
        game, "open_trial", "Ida", "J1 23:59", against="Bob", **{"as": "woody"}
    ).code == ("out_of_window")
    assert refused(game, "rehearse", "Ida", "J1 12:00").code == "out_of_window"
    game.advance(at("J14 00:00"))
    assert refused(game, "rehearse", "Ida", "J14 00:00").code == "game_not_running"


AUTUMN = date(2026, 10, 20)  # J6 = 2026-10-25: 03:00 CEST -> 02:00 CET
SPRING = date(2027, 3, 20)  # J9 = 2027-03-28: 02:00 CET -> 03:00 CEST


def test_dst_autumn_complaint_after_24_elapsed_hours_is_refused() -> None:
    game = new_game(start=AUTUMN)
    do(
        game,
        "open_trial",
        "Ida",
        iso("2026-10-24T02:30:00+02:00"),
        against="Bob",
        **{"as": "woody"},
    )
    rv = refused(game, "complain", "Ana", iso("2026-10-25T02:15:00+01:00"), trial=1)
    assert rv.code == "trial_closed"
    assert game.state.trials[0].status == "lapsed"


def test_dst_autumn_later_instant_in_repeated_hour_is_accepted() -> None:
    """02:10 CET comes 20 minutes after 02:50 CEST (the repeated hour): both count for J6."""
    game = new_game(start=AUTUMN)
    do(game, "rehearse", "Ida", iso("2026-10-25T02:50:00+02:00"))
    do(game, "rehearse", "Jo", iso("2026-10-25T02:10:00+01:00"))
    assert game.state.players["Ida"].rehearsal_days == {6}
    assert game.state.players["Jo"].rehearsal_days == {6}


def test_dst_autumn_earlier_instant_in_repeated_hour_is_refused() -> None:
    game = new_game(start=AUTUMN)
    do(game, "rehearse", "Ida", iso("2026-10-25T02:10:00+01:00"))
    rv = refused(game, "rehearse", "Jo", iso("2026-10-25T02:50:00+02:00"))
    assert rv.code == "invalid_argument"


def test_nonexistent_spring_time_is_normalised() -> None:
    """J9 02:30 does not exist in Paris (02:00 -> 03:00 on 2027-03-28): it is read as the
    instant one hour after J9 01:30 (PEP 495 fold=0) and shown as J9 03:30."""
    t = parse_time("J9 02:30", SPRING)
    assert t.astimezone(UTC) == datetime(2027, 3, 28, 1, 30, tzinfo=UTC)
    assert format_time(SPRING, t) == "J9 03:30"
    assert t - parse_time("J9 01:30", SPRING) == timedelta(hours=1)


def test_dst_spring_trial_window_is_24_elapsed_hours() -> None:
    game = new_game(start=SPRING, cast=PIANO_CAST, ronde=PIANO_RONDE)
    do(game, "open_trial", "Ida", parse_time("J8 10:00", SPRING), against="Bob", **{"as": "woody"})
    # J9 10:30 CEST is only 23 h 30 min after t0 (J8 10:00 CET)
    do(game, "complain", "Ana", parse_time("J9 10:30", SPRING), trial=1)
    rv = refused(game, "complain", "Dan", iso("2027-03-28T11:00:00+02:00"), trial=1)
    assert rv.code == "trial_closed"


# =====================================================================================
# A9 grace_N with sleep and the Decorators (odd house-rule combinations)
# =====================================================================================
def test_grace_item_after_midnight_saves_the_decorator() -> None:
    game = new_game(cast=DECO_CAST, ronde=DECO_RONDE, options={"A9": "grace_30"})
    do(game, "send_items", "Deb", "J2 10:00", to="Mj", items=["item_cards"])
    do(game, "send_items", "Dex", "J3 00:10", to="Mj", items=["item_cards"])
    game.advance(at("J3 01:00"))
    assert game.state.players["Dex"].masked


def test_grace_sleep_follows_the_action_day() -> None:
    game = new_game(options={"A9": "grace_30"})
    do(game, "put_to_sleep", "Cid", "J2 09:00", player="Ana")
    do(game, "open_trial", "Ida", "J2 10:00", against="Bob", **{"as": "woody"})
    do(game, "complain", "Ana", "J3 00:10", trial=1)  # counts for J2: not asleep then
    do(game, "open_trial", "Jo", "J3 10:00", against="Cid", **{"as": "pierrot"})
    rv = refused(game, "complain", "Ana", "J4 00:10", trial=2)  # counts for J3: asleep
    assert rv.code == "asleep"


def test_grace_counts_the_first_minutes_for_the_day_before() -> None:
    game = new_game(options={"A9": "grace_15"})
    do(game, "open_trial", "Ida", "J2 10:00", against="Bob", **{"as": "woody"})
    do(game, "complain", "Ana", "J2 23:00", trial=1)
    rv = refused(game, "open_trial", "Ana", "J3 00:05", against="Cid", **{"as": "pierrot"})
    assert rv.code == "daily_limit"
    do(game, "open_trial", "Ana", "J3 00:20", against="Cid", **{"as": "pierrot"})


# =====================================================================================
# Trials: unofficial unmasking, several trials, pending verdicts, the Pianist
# =====================================================================================
def _accused_fails(game: Game) -> None:
    do(game, "open_trial", "Ida", "J2 10:00", against="Ana", **{"as": "alice"})
    do(game, "record_constraint", "Mj", "J2 12:00", player="Ana", day=2, met=False)
    game.advance(at("J3 00:30"))
    assert game.state.players["Ana"].unofficial == "constraint"


def test_trial_against_an_unofficially_unmasked_player_does_not_leak() -> None:
    """Ana's failure is secret while her trial runs (R4.15): a new trial against her is
    accepted like any other, and neither the public nor the opener learns anything."""
    game = new_game()
    _accused_fails(game)
    do(game, "open_trial", "Kim", "J3 02:00", against="Ana", **{"as": "woody"})
    g = game.state
    for viewer in ("public", "Kim", "Ida"):
        v = view(g, viewer)
        assert "Ana" not in v["known"], viewer
        assert [t["status"] for t in v["trials"]] == ["open", "open"], viewer
        assert "constraint" not in json.dumps(v["trials"], ensure_ascii=False), viewer


def test_unofficial_unmasking_changes_nobody_elses_view() -> None:
    def run(fail: bool) -> Game:
        game = new_game()
        do(game, "open_trial", "Ida", "J2 10:00", against="Ana", **{"as": "alice"})
        do(game, "rehearse", "Jo", "J2 11:00")
        if fail:
            do(game, "record_constraint", "Mj", "J2 12:00", player="Ana", day=2, met=False)
        game.advance(at("J3 08:00"))
        return game

    quiet, failed = run(False), run(True)
    assert failed.state.players["Ana"].unofficial is not None
    for who in ["public", *[p for p in CAST if p != "Ana"]]:
        assert view(quiet.state, who) == view(failed.state, who), who
    me = view(failed.state, "Ana")
    assert me["me"]["unofficially_unmasked"] is True
    assert refused(failed, "complain", "Ana", "J3 09:00", trial=1).code == "actor_unmasked"


def test_pending_verdict_is_not_revealed_by_voiding_another_trial() -> None:
    game = new_game()
    do(game, "open_trial", "Ida", "J2 10:00", against="Bob", **{"as": "woody"})
    do(game, "open_trial", "Jo", "J2 10:05", against="Bob", **{"as": "pierrot"})
    for who in ("Kim", "Lou", "Max", "Ned"):
        do(game, "complain", who, "J2 11:00", trial=1)
    board = view(game.state, "public")
    assert [t["status"] for t in board["trials"]] == ["concluded", "open"]
    assert not any("sans objet" in a["text"] for a in board["announcements"])


def test_pending_verdict_is_hidden_from_public_and_players() -> None:
    game = new_game()
    do(game, "open_trial", "Ida", "J2 10:00", against="Bob", **{"as": "woody"})
    for who in ("Kim", "Lou", "Max", "Ned"):
        do(game, "complain", who, "J2 11:00", trial=1)
    board = view(game.state, "public")
    assert board["trials"][0]["status"] == "concluded"
    assert board["known"] == {}
    assert "woody" in view(game.state, "Ana")["targets"]
    # a late complaint is still possible until the announcement (R4.8)
    do(game, "complain", "Ana", "J2 11:30", trial=1)
    do(game, "announce", "Mj", "J2 12:00", trial=1)
    assert view(game.state, "public")["known"] == {"Bob": "woody"}
    assert refused(game, "complain", "Dan", "J2 12:30", trial=1).code == "trial_closed"
    assert refused(game, "announce", "Mj", "J2 12:31", trial=1).code == "not_allowed"
    # 4 + 1 late complaints: 100 + 5 x 20 + 200 (R9.30)
    assert game.state.players["Ida"].points == 400


def test_pianist_fall_mid_day_gives_a_second_complaint_from_that_instant() -> None:
    game = new_game(cast=PIANO_CAST, ronde=PIANO_RONDE)
    do(game, "open_trial", "Ida", "J3 08:00", against="Pia", **{"as": "pianist"})
    do(game, "open_trial", "Jo", "J3 08:30", against="Bob", **{"as": "woody"})
    for who in ("Kim", "Lou", "Max"):
        do(game, "complain", who, "J3 09:00", trial=1)
    assert refused(game, "complain", "Kim", "J3 09:30", trial=2).code == "daily_limit"
    do(game, "complain", "Ned", "J3 10:00", trial=1)
    assert game.state.flags.get("double_complaints")
    assert refused(game, "complain", "Kim", "J3 10:30", trial=1).code == "already_complained"
    # (players read the fall once the verdict is announced, A77)
    assert refused(game, "complain", "Kim", "J3 10:30", trial=2).code == "daily_limit"
    do(game, "announce", "Mj", "J3 10:30", trial=1)
    do(game, "complain", "Kim", "J3 10:31", trial=2)
    assert refused(
        game, "open_trial", "Kim", "J3 10:32", against="Cid", **{"as": "pierrot"}
    ).code == ("daily_limit")


def test_decorators_trial_with_a_wrong_second_name_is_unjust() -> None:
    game = new_game(cast=DECO_CAST, ronde=DECO_RONDE)
    do(game, "open_trial", "Ida", "J2 10:00", against=["Deb", "Ana"], **{"as": "decorators"})
    for who in ("Jo", "Kim", "Lou", "Max"):
        do(game, "complain", who, "J2 11:00", trial=1)
    do(game, "announce", "Mj", "J2 12:00", trial=1)
    assert game.state.trials[0].status == "unjust"
    assert game.state.players["Deb"].masked and game.state.players["Ana"].masked
    assert game.state.players["Ida"].points == 30  # -50 + 4 x 20


def test_decorators_trial_names_the_survivor_alone_once_one_is_unmasked() -> None:
    game = new_game(cast=DECO_CAST, ronde=DECO_RONDE)
    do(game, "send_items", "Deb", "J2 10:00", to="Mj", items=["item_cards"])
    game.advance(at("J3 00:01"))  # Dex sent nothing on J2 (R7.6.3)
    assert not game.state.players["Dex"].masked
    rv = refused(
        game, "open_trial", "Ida", "J3 10:00", against=["Deb", "Dex"], **{"as": "decorators"}
    )
    assert rv.code in ("not_allowed", "invalid_argument")
    do(game, "open_trial", "Ida", "J3 10:01", against="Deb", **{"as": "decorators"})
    assert game.state.trials[0].accused == ("Deb",)


def test_end_game_twice_and_anything_after_it_is_refused() -> None:
    game = new_game()
    do(game, "open_trial", "Ida", "J5 10:00", against="Bob", **{"as": "woody"})
    do(game, "end_game", "Mj", "J5 11:00")
    assert game.state.trials[0].status == "void"
    gms = {n for n, (who, _) in all_actions().items() if who == "game_master"}
    for verb in sorted(all_actions()):
        by = "Mj" if verb in gms else "Jo"
        rv = refused(game, verb, by, "J5 12:00", trial=1, player="Ana", day=5, met=False)
        assert rv.code == "game_not_running", verb
    assert game.advance(at("J14 12:00")) == []


# =====================================================================================
# Secrets (R1.12, R2.4, R5.9, A67, A70)
# =====================================================================================
def test_transfiguration_does_not_change_the_public_board() -> None:
    game = new_game()
    do(game, "open_trial", "Ida", "J2 10:00", against="Bob", **{"as": "woody"})
    for who in ("Jo", "Kim", "Lou", "Max"):
        do(game, "complain", who, "J2 11:00", trial=1)
    do(game, "announce", "Mj", "J2 12:00", trial=1)
    do(game, "record_constraint", "Mj", "J3 12:00", player="Ned", day=2, met=False)
    before = view(game.state, "public")
    do(game, "transfigure", "Mj", "J3 12:00", player="Bob")  # Bob is also the Secretary
    assert view(game.state, "public") == before


def _render_reveal(tmp: Path, ronde: list[str]) -> str:
    game = new_game(ronde=ronde)
    game.advance(at("J2 00:01"))
    path = tmp / f"reveal-{'-'.join(ronde)}.jsonl"
    store.write_events(path, game.log)
    result = invoke("announce", str(path), "--to", "Ana")
    assert result.exit_code == 0, result.output
    return str(result.output)


def test_role_reveal_message_does_not_give_the_ronde_order(tmp_path: Path) -> None:
    # Ana (Alice) sees the same six Characters in both Rondes, in a different order
    one = _render_reveal(tmp_path, RONDE)
    two = ["alice", "guignol", "polichinelle", "little_mermaid", "halus", "pierrot", "woody"]
    other = _render_reveal(tmp_path, [*two, "revenant"])
    assert one == other


def test_engine_role_reveal_text_is_alphabetical() -> None:
    game = new_game()
    game.advance(at("J2 00:01"))
    texts = [m[3] for m in game.state.messages if m[2] == "role_reveal" and m[1] == ("Ana",)]
    assert texts == [
        "Vous incarnez : Alice. Personnages à démasquer : Guignol, Halus, Petite Sirène, "
        "Pierrot lunaire, Polichinelle, Woody."
    ]


def _mid_game_states() -> Iterator[tuple[Game, dict[str, str]]]:
    from ronde.engine.events import DayClosed

    for seed in range(2):
        cast, ronde = _full_cast(seed)
        res = play_cast(cast, ronde, random.Random(seed))
        for day in (3, 9):
            cut = next(
                i for i, e in enumerate(res.game.log) if isinstance(e, DayClosed) and e.day == day
            )
            yield Game.replay(res.game.log[: cut + 1], default_catalog()), cast


def _keys(obj: Any) -> set[str]:
    if isinstance(obj, dict):
        return {str(k) for k in obj} | {k for v in obj.values() for k in _keys(v)}
    if isinstance(obj, list):
        return {k for x in obj for k in _keys(x)}
    return set()


def test_player_and_public_views_keep_the_secrets() -> None:
    for game, _cast in _mid_game_states():
        g = game.state
        public = public_identities(g)
        for seat, p in g.players.items():
            v = json.loads(json.dumps(view(g, p.pseudo), default=str))
            keys = _keys(v)
            assert not {"ronde", "todo", "window", "original", "truth", "unofficial"} & keys
            allowed = {g.pseudo(s): c for s, c in public.items()}
            allowed |= {g.pseudo(o): c for o, c in p.learned.items()}
            assert v["known"] == allowed
            assert "points" not in v and "scoreboard" not in v  # A70 mj_only
            for t, trial in zip(v["trials"], g.trials, strict=True):
                for c in t["complaints"]:
                    if c["anonymous"]:
                        assert c["author"] == p.pseudo
                if trial.anonymous and trial.opener != seat:
                    assert t["opener"] is None
            if p.masked:
                assert v["me"]["character"] == p.character
            # only public messages and his own MPs: no game-master notes, nobody else's MPs
            mine = [m for m in g.messages if m[5] or seat in m[1]]
            assert [m["text"] for m in v["messages"]] == [m[3] for m in mine]
        board = json.loads(json.dumps(view(g, "public"), default=str))
        assert board["known"] == {g.pseudo(s): c for s, c in public.items()}
        assert not {"ronde", "todo", "truth", "points"} & _keys(board)
        assert [a["text"] for a in board["announcements"]] == [m[3] for m in g.messages if m[5]]
        for t in board["trials"]:
            assert all(not c["anonymous"] for c in t["complaints"])
            if t["anonymous"]:
                assert t["opener"] is None


def test_player_view_never_lists_characters_in_ronde_order() -> None:
    for game, _cast in _mid_game_states():
        g = game.state
        for p in g.players.values():
            v = view(g, p.pseudo)
            assert v["targets"] == sorted(v["targets"])


# =====================================================================================
# The command line: bad files, bad arguments (exit 1 refused, 2 unreadable, no traceback)
# =====================================================================================
@pytest.fixture
def stored_game(here: Path, db: Any) -> str:
    """The same game in the store (``ronde act`` writes only there), on a manual clock."""
    from ronde.web.games import service, transfer

    service.clear_cache()
    stored = transfer.create("g", new_game(), clock="manual")
    out = service.record(
        stored, None, "open_trial", "Ida", {"against": "Bob", "as": "woody"}, at=at("J2 10:00")
    )
    assert out.ok, out.message
    return "g"


def store_rows() -> int:
    from django.apps import apps

    models = [*apps.get_app_config("games").get_models(), *apps.get_app_config("auth").get_models()]
    return sum(m._default_manager.count() for m in models)


def test_cli_refusal_exits_1_and_records_nothing(stored_game: str) -> None:
    before = store_rows()
    result = invoke("act", stored_game, "complain", "--at", "J2 11:00", "--by", "Ida", "trial=1")
    no_traceback(result)
    assert result.exit_code == 1
    assert "own_trial" in result.output
    assert store_rows() == before


@pytest.mark.parametrize(
    "args",
    [
        ["complain", "--at", "J2 11:00", "--by", "Ana", "trial=abc"],
        ["complain", "--at", "J2 11:00", "--by", "Ana", "trial=1", "anonymous=maybe"],
        ["open_trial", "--at", "J2 11:00", "--by", "Jo", "against=[]", "as=woody"],
        ["open_trial", "--at", "J2 11:00", "--by", "Jo", "against={x: 1}", "as=pierrot"],
        ["record_constraint", "--at", "J2 11:00", "--by", "Mj", "player=Ana", "day=14"],
        ["award", "--at", "J2 11:00", "--by", "Mj", "player=Ana", "points=.nan"],
        ["guess_ronde", "--at", "J2 11:00", "--by", "Ana", "order=[{a: 1}]"],
        ["bogus", "--at", "J2 11:00", "--by", "Ana"],
        ["end_game", "--at", "J2 11:00", "--by", "Ana"],
    ],
)
def test_cli_bad_arguments_are_refusals_not_crashes(stored_game: str, args: list[str]) -> None:
    before = store_rows()
    result = invoke("act", stored_game, *args)
    no_traceback(result)
    assert result.exit_code == 1
    assert "Refusé" in result.output
    assert store_rows() == before


@pytest.mark.parametrize("when", ["J0 10:00", "J15 10:00", "J2 25:00", "demain", ""])
def test_cli_unreadable_time_is_an_error_not_a_crash(stored_game: str, when: str) -> None:
    before = store_rows()
    result = invoke("act", stored_game, "complain", "--at", when, "--by", "Ana", "trial=1")
    no_traceback(result)
    assert result.exit_code != 0
    assert "heure" in flat(result.output)
    assert store_rows() == before


def test_cli_huge_points_are_refused(stored_game: str) -> None:
    before = store_rows()
    result = invoke(
        "act", stored_game, "award", "--at", "J2 11:00", "--by", "Mj",
        "player=Ana", "points=99999999999999999999999999999",
    )  # fmt: skip
    no_traceback(result)
    assert result.exit_code == 1
    assert store_rows() == before


@pytest.mark.parametrize(
    ("name", "content"),
    [
        ("empty.jsonl", b""),
        ("blank.jsonl", b"\n\n  \n"),
        ("binary.jsonl", bytes(range(256))),
        ("latin1.jsonl", "é".encode("latin-1")),
        ("list.jsonl", b"[1, 2]\n"),
        (
            "no-created.jsonl",
            b'{"type": "day_closed", "at": "2026-12-02T00:00:00+01:00", "day": 1, "v": 1}\n',
        ),
    ],
)
@pytest.mark.parametrize("command", ["show", "scores"])
def test_cli_unreadable_game_files_exit_2(
    here: Path, name: str, content: bytes, command: str
) -> None:
    path = here / name
    path.write_bytes(content)
    result = invoke(command, str(path))
    no_traceback(result)
    assert result.exit_code == 2
    assert name in flat(result.output)


def test_cli_truncated_game_file_names_its_line(game_file: Path, db: Any) -> None:
    # ``ronde act`` looks the name up in the store first: the database, whatever else runs
    text = game_file.read_text(encoding="utf-8")
    game_file.write_text(text[:-40], encoding="utf-8")
    n = len(text.splitlines())
    for command in (["show", str(game_file)], ["scores", str(game_file)]):
        result = invoke(*command)
        no_traceback(result)
        assert result.exit_code == 2
        assert f"g.jsonl:{n}" in flat(result.output)
    result = invoke("act", str(game_file), "rehearse", "--at", "J3 10:00", "--by", "Ana")
    assert result.exit_code == 2
    assert game_file.read_text(encoding="utf-8") == text[:-40]


@pytest.mark.parametrize(
    ("kind", "changes"),
    [
        ("trial_opened", {"at": "hier"}),
        ("trial_opened", {"type": "bogus"}),
        ("trial_opened", {"v": 2}),
        ("trial_opened", {"zzz": 1}),
        ("game_created", {"ronde": None}),
    ],
)
def test_cli_malformed_event_names_file_and_line(
    game_file: Path, kind: str, changes: dict[str, Any]
) -> None:
    index = line_of(game_file, kind)
    edit_event(game_file, index, **changes)
    result = invoke("show", str(game_file))
    no_traceback(result)
    assert result.exit_code == 2
    assert f"g.jsonl:{index + 1}" in flat(result.output)


HAND_EDITS = [
    ("trial_opened", {"accused": ["Zed"]}),
    ("trial_opened", {"opener": "Zed"}),
    ("trial_opened", {"trial": "x"}),
    ("trial_opened", {"trial": 99}),
    ("message_sent", {"data": [1]}),
    ("game_created", {"cast": {**CAST, "Ana": "zorro"}}),
]


@pytest.mark.parametrize(("kind", "changes"), HAND_EDITS, ids=[str(c) for _, c in HAND_EDITS])
def test_cli_hand_edited_game_file_is_exit_2_with_its_line(
    game_file: Path, kind: str, changes: dict[str, Any]
) -> None:
    index = line_of(game_file, kind)
    edit_event(game_file, index, **changes)
    for args in (
        ["show", str(game_file), "--as", "Ana", "--json"],
        ["act", str(game_file), "complain", "--at", "J2 11:00", "--by", "Ana", "trial=1"],
        ["act", str(game_file), "complain", "--at", "J2 11:01", "--by", "Cid", "trial=1"],
        ["act", str(game_file), "complain", "--at", "J2 11:02", "--by", "Jo", "trial=1"],
        ["act", str(game_file), "complain", "--at", "J2 11:03", "--by", "Kim", "trial=1"],
    ):
        result = invoke(*args)
        no_traceback(result)
        assert result.exit_code in (0, 1, 2)
        if result.exit_code == 2:
            assert f"g.jsonl:{index + 1}" in flat(result.output)
            return
    pytest.fail("a hand-edited log was never reported")


def test_cli_inconsistent_log_names_the_line(game_file: Path) -> None:
    bad = {
        "anonymous": False,
        "at": "2026-12-02T11:00:00+01:00",
        "author": "Ana",
        "compelled": False,
        "kind": "",
        "members": [],
        "null": False,
        "quota": True,
        "scores": True,
        "trial": 7,
        "type": "complaint_filed",
        "v": 1,
    }
    with game_file.open("a", encoding="utf-8") as fh:
        fh.write(json.dumps(bad) + "\n")
    n = len(game_file.read_text(encoding="utf-8").splitlines())
    result = invoke("show", str(game_file))
    no_traceback(result)
    assert result.exit_code == 2
    assert f"g.jsonl:{n}" in flat(result.output)


@pytest.fixture
def in_store(here: Path, db: Any) -> Path:
    """``here`` with an empty game store (the command line's games live in it)."""
    from ronde.web.games import service

    service.clear_cache()
    return here


def stored(slug: str) -> bool:
    from ronde.web.games.models import Game

    return Game.objects.filter(slug=slug).exists()


def _roster(here: Path, names: list[str]) -> Path:
    path = here / "roster.txt"
    path.write_text("\n".join(names) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("n", [0, 1, 2, 33])  # 29 to 32 seat more Extras (A76)
def test_cli_new_refuses_impossible_player_counts(in_store: Path, n: int) -> None:
    roster = _roster(in_store, [f"P{i}" for i in range(n)])
    result = invoke("new", "g", "--roster", str(roster), "--start", "2026-12-01")
    no_traceback(result)
    assert result.exit_code == 2
    assert not stored("g")


def test_cli_new_refuses_bad_dates_options_and_casts(in_store: Path) -> None:
    roster = _roster(in_store, ["Ana", "Bob", "Cid"])
    (in_store / "opts.yaml").write_text("A7: strict\n", encoding="utf-8")
    (in_store / "cast.yaml").write_text(
        "ronde: [alice, woody]\ncast: {Ana: alice, Bob: woody, Cid: zorro}\n", encoding="utf-8"
    )
    (in_store / "deco.yaml").write_text(
        "ronde: [alice, decorators]\ncast: {Ana: alice, Bob: decorators, Cid: extra}\n",
        encoding="utf-8",
    )
    for extra in (
        ["--start", "2026-02-30"],
        ["--start", "J1"],
        ["--start", "2026-12-01", "--options", "opts.yaml"],
        ["--start", "2026-12-01", "--cast", "cast.yaml"],
        ["--start", "2026-12-01", "--cast", "deco.yaml"],
        ["--start", "2026-12-01", "--cast", "missing.yaml"],
    ):
        result = invoke("new", "g", "--roster", str(roster), *extra)
        no_traceback(result)
        assert result.exit_code == 2, extra
        assert not stored("g")


def test_cli_new_cast_of_the_wrong_shape_is_exit_2(in_store: Path) -> None:
    roster = _roster(in_store, ["Ana", "Bob", "Cid"])
    (in_store / "cast.yaml").write_text("ronde: alice\ncast: [Ana, Bob]\n", encoding="utf-8")
    result = invoke(
        "new", "g", "--roster", str(roster), "--start", "2026-12-01", "--cast", "cast.yaml"
    )
    no_traceback(result)
    assert result.exit_code == 2


def test_cli_new_a_game_name_with_a_slash_is_exit_2(in_store: Path) -> None:
    roster = _roster(in_store, ["Ana", "Bob", "Cid"])
    result = invoke("new", "nowhere/g.jsonl", "--roster", str(roster), "--start", "2026-12-01")
    no_traceback(result)
    assert result.exit_code == 2


def test_cli_new_duplicate_roster_names_say_so(in_store: Path) -> None:
    roster = _roster(in_store, ["Ana", "Bob", "Ana", "Dan", "Eve"])
    for _ in range(12):  # the draw is random: the message must not depend on it
        result = invoke("new", "g", "--roster", str(roster), "--start", "2026-12-01")
        no_traceback(result)
        assert result.exit_code == 2
        # the message names the duplicate pseudo, as any refusal of indistinguishable
        # pseudos does ("Pseudos indiscernables : « Ana » et « Ana »", or "en double")
        text = flat(result.output)
        assert "Ana" in text and ("double" in text or "indiscernables" in text), text
    assert not stored("g")


def test_cli_new_refuses_pseudos_equal_up_to_accents(in_store: Path) -> None:
    roster = _roster(in_store, ["Ana", "Bob", "ANA\u200b", "Dan", "Eve"])
    result = invoke("new", "g", "--roster", str(roster), "--start", "2026-12-01")
    no_traceback(result)
    assert result.exit_code == 2
    assert "indiscernables" in flat(result.output)
    assert not stored("g")


def test_cli_show_as_unknown_or_odd_viewer(game_file: Path) -> None:
    result = invoke("show", str(game_file), "--as", "Zed")
    no_traceback(result)
    assert result.exit_code == 2
    for who in ("ANA", "public", "mj"):
        result = invoke("show", str(game_file), "--as", who, "--json")
        no_traceback(result)
        assert result.exit_code == 0, who
        json.loads(result.output)
    result = invoke("show", str(game_file), "--at", "J1 00:00")  # earlier: nothing happens
    assert result.exit_code == 0
    result = invoke("show", str(game_file), "--at", "J99")
    no_traceback(result)
    assert result.exit_code == 2


def test_cli_show_as_player_hides_the_ronde_and_other_masks(game_file: Path) -> None:
    result = invoke("show", str(game_file), "--as", "Ida", "--json", "--at", "J3 12:00")
    assert result.exit_code == 0
    v = json.loads(result.output)
    assert "ronde" not in _keys(v)
    assert v["known"] == {}
    assert v["me"]["character"] == "extra"
    assert game_file.read_text(encoding="utf-8").count("\n") == len(
        store.read_events(game_file)
    )  # --at records nothing


def test_cli_check_malformed_expectation_is_exit_2(here: Path) -> None:
    (here / "bad.yaml").write_text(
        "name: x\nrules: [R4.6]\ngame:\n  start: 2026-12-01\n  ronde: [alice]\n"
        "  cast: {Ana: alice}\nsteps:\n  - {at: J2 10:00, by: Ana, do: rehearse}\n"
        "  - at: J3 10:00\n    expect: {points: {Ana: abc}}\n",
        encoding="utf-8",
    )
    result = invoke("check", "bad.yaml")
    no_traceback(result)
    assert result.exit_code == 2
    # file, line (of the step) and problem (FORMAT.md)
    assert "bad.yaml:9" in flat(result.output), result.output
    assert "points" in result.output and "abc" in result.output


def test_cli_check_unreadable_scenarios_exit_2(here: Path) -> None:
    (here / "bin.yaml").write_bytes(bytes(range(256)))
    (here / "trunc.yaml").write_text("name: x\ngame: {start: 2026-12-01\n", encoding="utf-8")
    (here / "back.yaml").write_text(
        "name: x\nrules: [R4.6]\ngame:\n  start: 2026-12-01\n  ronde: [alice]\n"
        "  cast: {Ana: alice}\nsteps:\n  - {at: J3 10:00, by: Ana, do: rehearse}\n"
        "  - {at: J2 10:00, by: Ana, do: rehearse}\n",
        encoding="utf-8",
    )
    for name in ("bin.yaml", "trunc.yaml", "back.yaml"):
        result = invoke("check", name)
        no_traceback(result)
        assert result.exit_code == 2, name
        assert name in flat(result.output)
