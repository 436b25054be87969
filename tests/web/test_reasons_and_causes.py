"""Why a trial ended and why a mask fell, as the game masters and the forum read them.

A trial's end carries its reason (quorum, fewer than 4 complaints in 24 hours, made moot
by another unmasking: R4.6, R4.13, A17) and an unmasking its cause (a just trial, a failed
constraint, a death: R4.10, R6.2, A4). The game masters' timeline (``describe``) and the
forum's announcement of an unmasking print them; these tests read both, so a wrong reason
or cause cannot pass unseen.
"""

from __future__ import annotations

from typing import Any

from ronde.engine import events as ev
from ronde.engine.commands import Command
from ronde.engine.game import Game
from ronde.forum.render import ForumContext, forum_messages, render_message
from ronde.web.games.describe import describe
from tests.conftest import at, small_game


def _play() -> Game:
    g = small_game(options={"A4": "death_unmasks"})

    def do(t: str, by: str, action: str, **args: Any) -> None:
        g.execute(Command(action, by, at(t), args))

    do("J2 10:00", "Ana", "open_trial", against="Bob", **{"as": "woody"})  # 1: just
    for i, p in enumerate(["Ida", "Jo", "Kim", "Lou"]):
        do(f"J2 10:1{i}", p, "complain", trial=1)
    do("J2 10:30", "Cid", "open_trial", against="Ana", **{"as": "alice"})  # 2: lapses
    do("J2 11:00", "Dan", "open_trial", against="Gus", **{"as": "alice"})  # 3: moot
    do("J2 12:00", "Mj", "announce", trial=1)
    do("J3 09:00", "Eve", "open_trial", against="Gus", **{"as": "guignol"})  # 4: just
    for i, p in enumerate(["Ida", "Jo", "Kim", "Max"]):
        do(f"J3 09:1{i}", p, "complain", trial=4)
    do("J3 09:30", "Mj", "announce", trial=4)
    do("J3 12:30", "Mj", "record_constraint", player="Fay", day=3, met=False)
    do("J3 12:31", "Mj", "record_death", player="Hal")
    g.advance(at("J4 12:00"))
    return g


def _ends(g: Game) -> dict[int, ev.TrialEnded]:
    return {e.trial: e for e in g.log if isinstance(e, ev.TrialEnded)}


def _unmaskings(g: Game) -> dict[str, ev.PlayerUnmasked]:
    return {e.player: e for e in g.log if isinstance(e, ev.PlayerUnmasked)}


def test_r4_6_r4_13_a17_each_trial_ends_with_its_own_reason() -> None:
    g = _play()
    ends = _ends(g)
    assert {n: e.status for n, e in ends.items()} == {
        1: "just",
        2: "lapsed",
        3: "void",
        4: "just",
    }
    assert ends[1].reason == ends[4].reason == "quorum"
    assert ends[2].reason == "moins de 4 plaintes valides en 24 heures"
    assert ends[3].reason not in ("", "quorum", ends[2].reason)
    # the game masters' timeline says each
    told = {n: describe(e) for n, e in ends.items()}
    assert "quorum" in told[1]
    assert "moins de 4 plaintes valides en 24 heures" in told[2]
    assert "A17" in told[3] or "sans objet" in told[3]
    assert len(set(told.values())) == 4


def test_r4_10_r6_2_a4_each_unmasking_names_its_cause() -> None:
    g = _play()
    fell = _unmaskings(g)
    assert {p: e.cause for p, e in fell.items()} == {
        "Bob": "trial",
        "Gus": "trial",
        "Fay": "constraint",
        "Hal": "death",
    }
    assert "Procès juste" in describe(fell["Bob"])
    assert "contrainte non respectée" in describe(fell["Fay"])
    assert "mort du citoyen" in describe(fell["Hal"])
    # the forum's announcement of each unmasking gives its cause in French
    ctx = ForumContext.from_game(g)
    announced = {
        str(m["data"]["pseudo"]): render_message(m, context=ctx)
        for m in forum_messages(g)
        if m["kind"] == "unmasking"
    }
    assert set(announced) == {"Bob", "Gus", "Fay", "Hal"}
    for pseudo, cause in (
        ("Bob", "Procès juste"),
        ("Fay", "contrainte non respectée"),
        ("Hal", "mort du citoyen"),
    ):
        assert f"Cause : {cause}" in announced[pseudo], announced[pseudo]
