"""A find of an Extra whose verdict waits for its announcement (RULES.md A77, R7.2.3,
R9.22, R8.10, R9.12): the Extra's fall and the finder's 155 wait for it, and nothing a
player sees (views, score lines under A70 ``own_score`` / ``public``, messages) depends
on the verdict before then; at the announcement the 155 is paid if it was UNJUST, not if
it was JUST (the verdict's fall came first, R8.3). The two worlds are the game and the
same commands with the verdict flipped (``tests/test_verdict_secret.py``)."""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest

from ronde.engine.clock import parse_time
from ronde.engine.commands import Command
from ronde.engine.game import Game
from ronde.engine.views import view
from tests.test_draws import CATALOG
from tests.test_verdict_secret import differences, flipped, views

START = date(2026, 12, 1)
RONDE = ["alice", "woody", "pierrot", "halus", "little_mermaid", "polichinelle"]
RONDE += ["guignol", "prompter", "pianist"]
CAST = {
    "Ana": "alice",
    "Bob": "halus",
    "Cid": "pierrot",
    "Dan": "woody",
    "Eve": "little_mermaid",
    "Fay": "polichinelle",
    "Gus": "guignol",
    "Pip": "prompter",
    "Pia": "pianist",
    "Ida": "extra",
    "Jon": "extra",
    "Kim": "extra",
    "Lou": "extra",
    "Max": "extra",
    "Ned": "extra",
}


def cmd(at: str, by: str, action: str, **args: Any) -> Command:
    return Command(action, by, parse_time(at, START), args)


def verdict_against_ida(day: int) -> list[Command]:
    """'Ida is Woody' (Ida is an Extra: UNJUST) concluded on J``day`` at 19:40."""
    return [
        cmd(f"J{day} 19:00", "Jon", "open_trial", against="Ida", **{"as": "woody"}),
        *(
            cmd(f"J{day} 19:{10 * (i + 1)}", who, "complain", trial=1)
            for i, who in enumerate(["Kim", "Lou", "Max", "Eve"])
        ),
    ]


def play(commands: list[Command], options: dict[str, str], *, flip: bool) -> Game:
    game = Game.create(
        start=START, cast=CAST, ronde=RONDE, catalog=CATALOG, seed=7, options=options
    )
    if flip:
        with flipped(1):
            for c in commands:
                game.execute(c)
    else:
        for c in commands:
            game.execute(c)
    return game


def points(game: Game, pseudo: str) -> int:
    g = game.state
    return g.players[g.seat_of(pseudo)].points  # type: ignore[index]


@pytest.mark.parametrize("a70", ["own_score", "public"])
@pytest.mark.parametrize("a77", ["frozen", "outcome_applies"])
def test_a_find_waiting_for_a_verdict_tells_nothing_and_is_paid_at_its_announcement(
    a70: str, a77: str
) -> None:
    options = {"A70": a70, "A77": a77}
    phrase = "le petit chat de la voisine chante faux tous les soirs"
    commands = [
        cmd("J2 08:00", "Pip", "choose_phrase", text=phrase),
        *verdict_against_ida(3),
        cmd("J3 20:00", "Pip", "prompt", player="Ida", theme_found=True),
    ]
    for n in range(len(commands) - 1, len(commands) + 1):
        # right after the conclusion, then after the find: every view alike
        real = play(commands[:n], options, flip=False)
        other = play(commands[:n], options, flip=True)
        assert real.state.trial(1).status == "unjust"  # type: ignore[union-attr]
        assert other.state.trial(1).status == "just"  # type: ignore[union-attr]
        diff = differences(views(real), views(other))
        assert not diff, "\n".join(diff[:20])
    for game in (real, other):
        game.advance(parse_time("J4 09:00", START))  # (the day's end, the timers)
        assert view(game.state, "Pip")["points"] == 0
    assert not differences(views(real), views(other))
    announced = cmd("J4 10:00", "Mj", "announce", trial=1)
    real.execute(announced)
    with flipped(1):
        other.execute(announced)
    # UNJUST: the find unmasks Ida now and pays now; JUST: she fell at 19:40, before it
    assert points(real, "Pip") == 155 and view(real.state, "Pip")["points"] == 155
    assert points(other, "Pip") == 0
    assert not real.state.players["Ida"].masked and not other.state.players["Ida"].masked
    lines = [line for line in real.state.players["Pip"].lines if line.rule == "R9.22"]
    assert [line.at for line in lines] == [announced.at]


@pytest.mark.parametrize("a50", ["named_plus_random_each", "named_plus_random_once"])
def test_two_extras_found_one_waiting(a50: str) -> None:
    """Once the Pianist fell (A50): the named Extra falls now, the one drawn whose verdict
    waits falls at its announcement; ``each``: 155 now and 155 then; ``once``: 155 now only."""
    options = {"A50": a50}
    fall_of_the_pianist = [
        cmd("J2 09:00", "Jon", "open_trial", against="Pia", **{"as": "pianist"}),
        *(
            cmd(f"J2 09:{10 * (i + 1)}", who, "complain", trial=1)
            for i, who in enumerate(["Kim", "Lou", "Max", "Ned"])
        ),
        cmd("J2 09:45", "Mj", "announce", trial=1),
    ]
    trial_two = [
        cmd("J3 19:00", "Jon", "open_trial", against="Ida", **{"as": "woody"}),
        *(
            cmd(f"J3 19:{10 * (i + 1)}", who, "complain", trial=2)
            for i, who in enumerate(["Kim", "Lou", "Max", "Eve"])
        ),
    ]
    game = Game.create(
        start=START, cast=CAST, ronde=RONDE, catalog=CATALOG, seed=7, options=options
    )
    phrase = "le petit chat de la voisine chante faux tous les soirs"
    for c in [cmd("J2 08:00", "Pip", "choose_phrase", text=phrase), *fall_of_the_pianist]:
        game.execute(c)
    for c in trial_two:
        game.execute(c)
    # every masked Extra but Ida and Ned falls first, so that the draw can only be Ida
    g = game.state
    for who in ["Jon", "Kim", "Lou", "Max"]:
        game.execute(cmd("J3 20:00", "Mj", "record_constraint", player=who, day=3, met=False))
    game.advance(parse_time("J4 00:00", START))
    assert {s for s, p in g.players.items() if p.masked and p.character == "extra"} == {
        "Ida",
        "Ned",
    }
    game.execute(cmd("J4 09:00", "Pip", "prompt", player="Ned", theme_found=True))
    assert not g.players["Ned"].masked and g.players["Ida"].masked
    assert points(game, "Pip") == 155
    game.execute(cmd("J4 10:00", "Mj", "announce", trial=2))
    assert not g.players["Ida"].masked
    assert points(game, "Pip") == (310 if a50 == "named_plus_random_each" else 155)
