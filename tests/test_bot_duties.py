"""The simulator's bots never miss a duty they could have met (issue 29).

Over seeded games, every unmasking of a bot for a duty or constraint whose meeting is
in his own hands is checked against the game as it was at each of the bots' times of
the days concerned: the game's accepted commands are replayed up to that time and
commands that would have met the duty are tried (refusals change nothing). If one is
accepted, the bot missed a duty he could have met: the test fails.

Checked: the Decorators' daily item (R7.6.3), the Prompter's sentence (R7.2.6),
Destiny's schedule and daily trial (R7.16.1, R7.16.2), the Tragic Hero's declaration
(R7.17.8), a monstrous Character's daily trial (R7.17.3), the Devil's Advocate's
defences (R7.3.2), and the attempts of the Devil's Advocate and Chucky in W1 and W2
(R7.3.4, R7.7.5: a window without an attempt) and Pinocchio's participations (R7.21.3:
a period with fewer than two). Not checked, since others or chance decide them: the
Decorators' contest, the Prompter's mistakes, Chucky's and the Advocate's attempts
that fail, the Straw Man's trials, the Tragic Hero's hunt; constraints the MJ bot
records as failed at random (R6.2).
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from datetime import datetime
from typing import Any
from unittest import mock

import pytest

from ronde.catalog import default_catalog
from ronde.engine.clock import at_clock
from ronde.engine.commands import Command
from ronde.engine.errors import RuleViolation
from ronde.engine.events import GameCreated, PlayerUnmasked, UnofficiallyUnmasked
from ronde.engine.game import Game
from ronde.engine.names import RONDE_IDS
from ronde.sim import SLOTS, play

CATALOG = default_catalog()
#: (rule, the window's first day from the failed day): the duties checked
DAILY = {"R7.6.3", "R7.2.6", "R7.16.1", "R7.16.2", "R7.17.8", "R7.17.3"}
WINDOWED = {"R7.3.2", "R7.3.4", "R7.7.5", "R7.21.3"}


def _played(seed: int) -> tuple[GameCreated, list[Command], Game]:
    accepted: list[Command] = []
    execute = Game.execute

    def recording(self: Game, cmd: Command) -> Any:
        out = execute(self, cmd)
        accepted.append(cmd)
        return out

    with mock.patch.object(Game, "execute", recording):
        res = play(28, random.Random(seed))
    created = res.game.log[0]
    assert isinstance(created, GameCreated)
    return created, accepted, res.game


def _window(rule: str, day: int) -> tuple[int, int]:
    if rule == "R7.3.2":
        return (day - 1, day)
    if rule in ("R7.3.4", "R7.7.5"):
        return (2, 7) if day <= 7 else (8, 13)
    if rule == "R7.21.3":
        return next((a, b) for a, b in ((2, 4), (5, 7), (8, 10), (11, 13)) if a <= day <= b)
    return (day, day)


def _game_at(created: GameCreated, accepted: list[Command], at: datetime) -> Game:
    game = Game(created, CATALOG)
    for cmd in accepted:
        if cmd.at >= at:
            break
        game.execute(cmd)
    game.advance(at)
    return game


def _candidates(game: Game, seat: str, rule: str, at: datetime) -> Iterator[list[Command]]:
    """Commands (one, or two in a row) that would meet ``rule``'s duty at ``at``."""
    g = game.state
    me = g.pseudo(seat)
    others = [g.pseudo(s) for s, q in g.players.items() if q.masked and s != seat]
    open_trials = [t for t in g.trials if t.status == "open"]

    def c(action: str, **args: Any) -> Command:
        return Command(action, me, at, args)

    if rule == "R7.6.3":
        yield [c("send_items", to="Mj", items=["item_chair_basic"])]
    elif rule == "R7.2.6":
        yield [c("choose_phrase", text="un deux trois quatre cinq six sept huit neuf")]
    elif rule == "R7.16.1":
        yield [c("declare_destiny", list=["diva"] * 12)]
    elif rule == "R7.17.8":
        for p in others:
            yield [c("declare_not", player=p)]
    elif rule == "R7.3.2":
        for t in open_trials:
            for a in t.accused:
                yield [c("post", trial=t.number, defends=g.pseudo(a))]
    elif rule == "R7.3.4":
        for t in open_trials:
            yield [c("post", trial=t.number), c("cancel_trial", trial=t.number)]
    elif rule == "R7.7.5":
        for t in open_trials:
            yield [c("post", trial=t.number), c("shorten_trial", trial=t.number)]
    else:  # a trial to open or join: R7.16.2, R7.17.3, R7.21.3
        for t in open_trials:
            yield [c("complain", trial=t.number)]
        for character in RONDE_IDS:
            if character == "decorators":
                continue
            for p in others:
                yield [c("open_trial", against=p, arguments="x", **{"as": character})]


def _could(
    created: GameCreated, accepted: list[Command], seat: str, rule: str, at: datetime
) -> bool:
    game = _game_at(created, accepted, at)
    for commands in _candidates(game, seat, rule, at):
        try:
            for k, cmd in enumerate(commands):
                game.execute(cmd)
                if k == len(commands) - 1:
                    return True
        except RuleViolation:
            if k:  # (the first command was accepted: the game changed)
                game = _game_at(created, accepted, at)
    return False


def _attempted(accepted: list[Command], name: str, rule: str, first: int, last: int, g: Any) -> int:
    verbs = {"R7.3.4": {"cancel_trial"}, "R7.7.5": {"shorten_trial"}}.get(rule)
    if verbs is None:  # Pinocchio: trials opened or joined
        verbs = {"open_trial", "complain"}
    return sum(
        1
        for cmd in accepted
        if cmd.by == name
        and cmd.action in verbs
        and first <= g.day(cmd.at) <= last
        and not (cmd.action == "complain" and cmd.args.get("anonymous"))
    )


@pytest.mark.parametrize("seed", range(4))
def test_no_bot_misses_a_duty_it_could_meet(seed: int) -> None:
    created, accepted, game = _played(seed)
    g = game.state
    unofficial = {e.player for e in game.log if isinstance(e, UnofficiallyUnmasked)}
    for e in game.log:
        if not isinstance(e, PlayerUnmasked) or e.rule not in DAILY | WINDOWED:
            continue
        if e.cause not in ("duty", "constraint") or e.player in unofficial:
            continue
        day = g.day(e.at) - 1 if g.day(e.at) > 1 else 1  # (judged at the day's close)
        if e.rule in ("R7.3.4", "R7.7.5", "R7.21.3") and g.day(e.at) == 13:
            day = 13  # (judged at J13 13:13)
        first, last = _window(e.rule, day)
        name = g.pseudo(e.player)
        if e.rule in ("R7.3.4", "R7.7.5") and _attempted(accepted, name, e.rule, first, last, g):
            continue  # an attempt that failed: not his to decide
        if e.rule == "R7.21.3" and _attempted(accepted, name, e.rule, first, last, g) >= 2:
            continue  # his lies happened to be true: chance
        times = [
            at_clock(g.start, d, h, m) for d in range(max(first, 2), last + 1) for h, m in SLOTS
        ]
        times = [t for t in times if t < e.at]
        missed = [t for t in times if _could(created, accepted, e.player, e.rule, t)]
        assert not missed, (
            f"seed {seed}: {name} ({e.character}) unmasked for {e.rule} on J{day} "
            f"but could have met it at {missed[0]}"
        )
    # (few are left to check: one in seeds 0-3 when this was written, against about six
    # unmaskings a game for these rules before the duty bots; that the check bites:
    # test_the_check_finds_a_missed_duty)


def test_the_check_finds_a_missed_duty() -> None:
    """With the Decorators' duty switched off, their unmaskings are found missed."""
    from ronde.bots import duties

    with mock.patch.dict(duties.DUTIES, {"decorators": lambda *a: None}):
        created, accepted, game = _played(0)
    g = game.state
    failed = [e for e in game.log if isinstance(e, PlayerUnmasked) and e.rule == "R7.6.3"]
    assert failed
    e = failed[0]
    day = g.day(e.at) - 1
    assert _could(created, accepted, e.player, "R7.6.3", at_clock(g.start, day, 9, 0))
