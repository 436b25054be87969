"""Bot behaviours for the characters of the Characters II issue.

Each behaviour decides from the player's own view (``player_brief`` first, the fuller
``player_view`` only when a power may be used), never from the state itself. The
game-master behaviours relay what these powers need from the MJs: Alice's excerpts and
the rulings on the Little Mermaid's orders.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from datetime import datetime
from typing import Any

from ..engine.character import ListedJokers
from ..engine.game import Game
from ..engine.names import RONDE_IDS
from ..engine.registry import REGISTRY
from ..engine.views import chorus_available, player_brief, private_brief
from . import Act, Behaviour

SECRET_DAYS = (4, 8, 12)
MUSIC = ("item_cdphil", "item_radio_on", "item_cdbrit")


def _me(game: Game, seat: str) -> dict[str, Any]:
    return private_brief(game.state, seat)


def _others(brief: dict[str, Any]) -> list[str]:
    return [p for p in brief["masked_players"] if p != brief["pseudo"]]


def _joker(game: Game, seat: str, at: datetime, rng: random.Random, act: Act) -> None:
    """Now and then, a Joker from the character's list (R6.9–R6.12)."""
    if rng.random() >= 0.03:
        return
    brief = player_brief(game.state, seat)
    module = REGISTRY.get(brief["character"] or "")
    if isinstance(module, ListedJokers):
        act("use_joker", brief["pseudo"], at, items=[rng.choice(sorted(module.joker_items))])


def _with_common(behaviour: Behaviour) -> Behaviour:
    def run(game: Game, seat: str, at: datetime, rng: random.Random, act: Act) -> None:
        behaviour(game, seat, at, rng, act)
        _joker(game, seat, at, rng, act)

    return run


def _nothing(game: Game, seat: str, at: datetime, rng: random.Random, act: Act) -> None:
    """No power of his own to use at random (his duties: :mod:`ronde.bots.duties`)."""


# -- Woody (R7.12) ----------------------------------------------------------------------
def woody(game: Game, seat: str, at: datetime, rng: random.Random, act: Act) -> None:
    if rng.random() > 0.08:
        return
    brief = player_brief(game.state, seat)
    suspects = [p for p in _others(brief) if p not in brief["known"]]
    if suspects and brief["targets"]:
        act(
            "ask",
            brief["pseudo"],
            at,
            player=rng.choice(suspects),
            **{"as": rng.choice(brief["targets"])},
        )


# -- Pierrot (R7.13) --------------------------------------------------------------------
def pierrot(game: Game, seat: str, at: datetime, rng: random.Random, act: Act) -> None:
    if rng.random() > 0.2:
        return
    brief = player_brief(game.state, seat)
    if brief["day"] >= 13:
        return
    slept = {s["player"] for s in _me(game, seat)["sleepers"]}
    choices = [p for p in _others(brief) if p not in slept]
    if choices:
        act("put_to_sleep", brief["pseudo"], at, player=rng.choice(choices))


# -- Polichinelle (R7.19) ---------------------------------------------------------------
def polichinelle(game: Game, seat: str, at: datetime, rng: random.Random, act: Act) -> None:
    brief = player_brief(game.state, seat)
    day = brief["day"]
    others = _others(brief)
    if not others or day % 2 or day > 12:
        return
    if day in SECRET_DAYS and rng.random() < 0.5:
        act("reveal_secret", brief["pseudo"], at, player=rng.choice(others))
    if rng.random() < 0.5:
        act("grant_anonymous", brief["pseudo"], at, player=rng.choice(others))


# -- Little Mermaid (R7.10) -------------------------------------------------------------
def little_mermaid(game: Game, seat: str, at: datetime, rng: random.Random, act: Act) -> None:
    if rng.random() > 0.3:
        return
    brief = player_brief(game.state, seat)
    me = _me(game, seat)
    if me["ordered_today"]:
        return
    ordered = {o["player"] for o in me["orders"]}
    choices = [p for p in _others(brief) if p not in ordered]
    if not choices:
        return
    target = rng.choice(choices)
    kind = rng.choice(["complain", "go_to", "take_item"])
    trials = [t for t in brief["open_trials"] if t["open"] and target not in t["accused"]]
    if kind == "complain" and trials:
        act(
            "order",
            brief["pseudo"],
            at,
            player=target,
            kind="complain",
            trial=rng.choice(trials)["number"],
        )
    elif kind == "go_to":
        act(
            "order",
            brief["pseudo"],
            at,
            player=target,
            kind="go_to",
            cell=[rng.randint(-3, 3), rng.randint(-3, -1)],
        )
    else:
        act("order", brief["pseudo"], at, player=target, kind="take_item", item="item_bed")


# -- Halus (R7.11) ----------------------------------------------------------------------
def halus(game: Game, seat: str, at: datetime, rng: random.Random, act: Act) -> None:
    brief = player_brief(game.state, seat)
    if not brief["can_act"] or rng.random() > 0.3:
        return
    if not _me(game, seat)["anonymous_now"]:
        return
    joinable = [
        t
        for t in brief["open_trials"]
        if t["open"]
        and not t["mine"]
        and t["supposed"] in brief["targets"]
        and brief["pseudo"] not in t["accused"]
    ]
    if joinable:
        act("complain", brief["pseudo"], at, trial=rng.choice(joinable)["number"], anonymous=True)


# -- Pianist (R7.15) --------------------------------------------------------------------
def pianist(game: Game, seat: str, at: datetime, rng: random.Random, act: Act) -> None:
    if rng.random() < 0.2:
        brief = player_brief(game.state, seat)
        act("send_items", brief["pseudo"], at, to="Mj", items=[rng.choice(MUSIC)])


# -- the chorus's inherited actions (R8.8, R8.9) ----------------------------------------
def chorus(game: Game, seat: str, at: datetime, rng: random.Random, act: Act) -> None:
    """A member of the chorus votes now and then for the sleep or a secret."""
    if rng.random() > 0.3:
        return
    brief = player_brief(game.state, seat)
    available = set(chorus_available(game.state)) & {"put_to_sleep", "spread_secret"}
    if not available or brief["day"] >= 13:
        return
    suspects = [p for p in brief["masked_players"] if p not in brief["known"]]
    if not suspects:
        return
    action = rng.choice(sorted(available))
    if action == "put_to_sleep":
        act("chorus_vote", brief["pseudo"], at, action=action, player=rng.choice(suspects))
    else:
        act(
            "chorus_vote",
            brief["pseudo"],
            at,
            action=action,
            player=rng.choice(suspects),
            **{"as": rng.choice(RONDE_IDS)},
        )


# -- game masters -----------------------------------------------------------------------
def relay_excerpts(game: Game, at: datetime, rng: random.Random, act: Act) -> None:
    """The MJs send Alice her daily excerpt (R7.4.2)."""
    g = game.state
    day = g.day(at)
    if day < 2:
        return
    gm = g.game_masters[0]
    for p in g.players.values():
        if p.masked and p.character == "alice" and day not in p.data.get("excerpt_days", []):
            act("send_excerpt", gm, at, player=p.pseudo, text="« j'ai porté plainte anonymement »")


def rule_orders(game: Game, at: datetime, rng: random.Random, act: Act) -> None:
    """The MJs rule on the Little Mermaid's orders of the day before (A45)."""
    g = game.state
    day = g.day(at)
    gm = g.game_masters[0]
    for p in g.players.values():
        orders = p.data.get("orders")
        if not orders:
            continue
        for target, o in orders.items():
            if o["status"] == "pending" and o["day"] == day - 1 and o["kind"] != "complain":
                act("record_order", gm, at, player=g.pseudo(target), obeyed=rng.random() > 0.1)


#: character id -> behaviour (see :mod:`ronde.bots`)
#: (the Devil's Advocate's, Chucky's and the Tragic Hero's other behaviours are their
#: duties, :mod:`ronde.bots.duties`)
POWERS: dict[str, Behaviour] = {
    "devils_advocate": _with_common(_nothing),
    "chucky": _with_common(_nothing),
    "woody": _with_common(woody),
    "pierrot": _with_common(pierrot),
    "polichinelle": _with_common(polichinelle),
    "little_mermaid": _with_common(little_mermaid),
    "halus": _with_common(halus),
    "tragic_hero": _with_common(_nothing),
    "pianist": _with_common(pianist),
    "alice": _with_common(_nothing),
}
#: game-master behaviours (relaying rulings these powers need)
GAME_MASTER: list[Callable[[Game, datetime, random.Random, Act], None]] = [
    relay_excerpts,
    rule_orders,
]
#: behaviours of a member of the chorus (inherited actions)
CHORUS: list[Behaviour] = [chorus]
