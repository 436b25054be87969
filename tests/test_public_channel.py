"""The Diva's channel is the town forum (R7.14.1, R5.5, R1.13): what she is told is
public knowledge, and her "anonymous" complaints and openings are shown as hers."""

from __future__ import annotations

from datetime import date

from ronde.catalog import default_catalog
from ronde.engine.clock import parse_time
from ronde.engine.game import Game
from ronde.engine.views import view

START = date(2026, 12, 1)
RONDE = ["alice", "woody", "pierrot", "halus", "little_mermaid", "polichinelle", "diva"]
RONDE += ["revenant"]
CAST = {
    "Ana": "alice",
    "Bob": "woody",
    "Cid": "pierrot",
    "Dan": "halus",
    "Eve": "little_mermaid",
    "Fay": "polichinelle",
    "Viv": "diva",
    "Hal": "revenant",
    "Ida": "extra",
    "Jon": "extra",
}


def _game(seed: int = 3) -> Game:
    return Game.create(
        start=START,
        cast=CAST,
        ronde=RONDE,
        catalog=default_catalog(),
        seed=seed,
        players=list(CAST),
        game_masters=["Mj"],
    )


def _act(game: Game, by: str, when: str, verb: str, **args: object) -> None:
    game.act(verb, by, parse_time(when, START), **args)


def test_the_divas_gift_complaint_is_shown_as_hers_not_as_anonymous() -> None:
    game = _game()
    _act(game, "Fay", "J2 11:00", "grant_anonymous", player="Viv")
    _act(game, "Jon", "J2 12:00", "open_trial", against="Bob", **{"as": "woody"})
    _act(game, "Viv", "J2 13:00", "complain", trial=1, anonymous=True)
    for viewer in ("public", "Ana"):
        trial = view(game.state, viewer)["trials"][0]
        assert {"author": "Viv", "anonymous": False} in [
            {k: c[k] for k in ("author", "anonymous")} for c in trial["complaints"]
        ]
    for by, when in (("Ana", "J2 13:30"), ("Dan", "J2 14:00"), ("Eve", "J2 14:30")):
        _act(game, by, when, "complain", trial=1)
    _act(game, "Mj", "J2 15:00", "announce", trial=1)
    trial = view(game.state, "public")["trials"][0]
    assert trial["status"] == "just"
    assert trial["anonymous_published"] == 0
    ended = [m for m in view(game.state, "public")["announcements"] if m["kind"] == "trial_ended"]
    assert ended and "anonyme" not in ended[-1]["text"]
    # the game masters still see how it was filed
    gm = view(game.state, "game_master")["trials"][0]
    assert any(c["author"] == "Viv" and c["anonymous"] for c in gm["complaints"])


def test_another_players_anonymous_complaint_stays_anonymous() -> None:
    game = _game()
    _act(game, "Fay", "J2 11:00", "grant_anonymous", player="Ana")
    _act(game, "Jon", "J2 12:00", "open_trial", against="Bob", **{"as": "woody"})
    _act(game, "Ana", "J2 13:00", "complain", trial=1, anonymous=True)
    trial = view(game.state, "public")["trials"][0]
    assert trial["complaints"] == []
    assert view(game.state, "Ana")["trials"][0]["complaints"][0]["anonymous"] is True


def test_the_divas_anonymous_opening_names_her() -> None:
    game = _game()
    _act(game, "Fay", "J2 11:00", "grant_anonymous", player="Viv")
    _act(game, "Viv", "J2 12:00", "open_trial", against="Bob", anonymous=True, **{"as": "woody"})
    for viewer in ("public", "Ana"):
        trial = view(game.state, viewer)["trials"][0]
        assert trial["opener"] == "Viv"
        assert trial["anonymous"] is False


def test_a_secret_told_to_the_diva_is_public_and_one_told_to_others_is_not() -> None:
    seen = set()
    for seed in range(12):  # five of the eight others are drawn: with and without her
        game = _game(seed)
        _act(game, "Fay", "J4 09:10", "reveal_secret", player="Ana")
        told_her = "Ana" in game.state.players["Viv"].learned
        known = view(game.state, "public")["known"]
        assert known.get("Ana") == ("alice" if told_her else None)
        assert known.get("Viv") == "diva"
        seen.add(told_her)
    assert seen == {True, False}


def test_the_diva_given_a_new_extra_mask_has_a_private_channel_again() -> None:
    game = _game()
    _act(game, "Ana", "J2 10:00", "open_trial", against="Viv", **{"as": "diva"})
    for i, by in enumerate(("Bob", "Cid", "Dan", "Eve")):
        _act(game, by, f"J2 1{i + 1}:00", "complain", trial=1)
    _act(game, "Mj", "J3 08:00", "record_constraint", player="Ida", day=2, met=False)
    _act(game, "Fay", "J3 10:00", "open_trial", against="Viv", **{"as": "diva"})
    for i, by in enumerate(("Bob", "Cid", "Dan", "Eve")):
        _act(game, by, f"J3 1{i + 1}:00", "complain", trial=2)
    assert not game.state.players["Viv"].masked
    _act(game, "Mj", "J3 15:00", "announce", trial=1)
    _act(game, "Mj", "J3 15:01", "announce", trial=2)
    _act(game, "Mj", "J3 16:00", "transfigure", player="Viv")
    _act(game, "Jon", "J4 10:00", "open_trial", against="Bob", **{"as": "woody"})
    _act(game, "Viv", "J4 11:00", "complain", trial=3, anonymous=True)
    since = parse_time("J3 16:00", START)
    assert not any(
        at >= since and public and "Viv" in text
        for at, _to, _k, text, _d, public in game.state.messages
    )
    for viewer in ("public", "Ana"):
        trial = view(game.state, viewer)["trials"][2]
        assert trial["complaints"] == []
        assert view(game.state, viewer)["known"].get("Viv") != "extra"
    assert view(game.state, "Viv")["trials"][2]["complaints"][0]["anonymous"] is True
