"""Bot behaviours for the characters of the Characters I issue.

Player behaviours decide from ``player_brief`` of their own seat (and, rarely, the
holder's private part of ``player_view``). The game-master behaviours play the MJs,
who know everything: they rule on the Prompter's excerpts (``theme_found``),
designate the Mime's model, give Guignol his secret constraint and the Revenant his
roles.
"""

from __future__ import annotations

import random
import weakref
from collections.abc import Callable
from datetime import datetime
from typing import Any

from ..engine.game import Game
from ..engine.ronde import slot_live
from ..engine.views import player_brief, private_brief
from . import Act, Behaviour
from .duties import prompter_may_guess

#: the Prompter's submissions waiting for the MJs' ruling, per game: (prompter, named)
_PENDING: weakref.WeakKeyDictionary[Game, list[tuple[str, str]]] = weakref.WeakKeyDictionary()


def _suspects(brief: dict[str, Any]) -> list[str]:
    return [p for p in brief["masked_players"] if p != brief["pseudo"] and p not in brief["known"]]


def _accuse(
    game: Game,
    brief: dict[str, Any],
    at: datetime,
    rng: random.Random,
    act: Act,
    targets: list[str],
) -> None:
    """Join an open trial on one of ``targets``, or open one against a suspect."""
    me = brief["pseudo"]
    joinable = [
        t
        for t in brief["open_trials"]
        if t["open"] and not t["mine"] and t["supposed"] in targets and me not in t["accused"]
    ]
    if joinable:
        act("complain", me, at, trial=rng.choice(joinable)["number"])
        return
    suspects = _suspects(brief)
    single = [c for c in targets if c != "decorators"]
    if suspects and single:
        act(
            "open_trial",
            me,
            at,
            against=rng.choice(suspects),
            arguments="Le destin l'a voulu.",
            **{"as": rng.choice(single)},
        )


# -- Prompter (R7.2) -----------------------------------------------------------------------
def prompter(game: Game, seat: str, at: datetime, rng: random.Random, act: Act) -> None:
    """His sentence on J2; from J3 one guess a day, ruled on by the MJs' bot."""
    brief = player_brief(game.state, seat)
    # (his sentence is a duty: :mod:`ronde.bots.duties`; he guesses only while a
    # mistake cannot unmask him)
    if brief["day"] >= 3 and rng.random() < 0.5 and prompter_may_guess(game, seat):
        suspects = _suspects(brief)
        if suspects:
            pending = _PENDING.get(game)
            if pending is None:  # (``setdefault`` would make a weak reference each time)
                pending = _PENDING[game] = []
            if all(p != brief["pseudo"] for p, _ in pending):
                pending.append((brief["pseudo"], rng.choice(suspects)))


def relay_prompts(game: Game, at: datetime, rng: random.Random, act: Act) -> None:
    """The MJs rule on each pending excerpt: the theme is found in most real Extras'
    posts and in few others (R0.2)."""
    g = game.state
    for prompter_name, named in _PENDING.pop(game, []):
        seat = g.seat_of(named)
        extra = seat is not None and g.players[seat].character == "extra"
        found = rng.random() < (0.7 if extra else 0.2)
        act("prompt", prompter_name, at, player=named, theme_found=found)


# -- Pinocchio (R7.21) -------------------------------------------------------------------------
def pinocchio(game: Game, seat: str, at: datetime, rng: random.Random, act: Act) -> None:
    """Lies: public accusations of unlikely Characters; an anonymous complaint a day."""
    brief = player_brief(game.state, seat)
    if not brief["can_act"] or rng.random() < 0.4:
        return
    me = brief["pseudo"]
    targets = [c for c in brief["targets"] if c != "decorators"]
    suspects = _suspects(brief)
    # (all he reads of his brief, read before he acts: it is the game before his action)
    joinable = [t for t in brief["open_trials"] if t["open"] and not t["mine"]]
    if suspects and targets:
        act(
            "open_trial",
            me,
            at,
            against=rng.choice(suspects),
            arguments="Je n'ai jamais menti.",
            **{"as": rng.choice(targets)},
        )
    if joinable:
        act("complain", me, at, trial=rng.choice(joinable)["number"], anonymous=True)


# -- Diva (R7.14) -----------------------------------------------------------------------------
def diva(game: Game, seat: str, at: datetime, rng: random.Random, act: Act) -> None:
    """A daily designation among the Characters she knows of."""
    brief = player_brief(game.state, seat)
    if brief["targets"] and rng.random() < 0.3:
        act("designate", brief["pseudo"], at, character=rng.choice(brief["targets"]))


# -- Revenant (R7.22) -------------------------------------------------------------------------
def revenant(game: Game, seat: str, at: datetime, rng: random.Random, act: Act) -> None:
    """The behaviours of the roles he was given."""
    if rng.random() < 0.7:
        return
    from . import POWERS  # (an import statement costs: only on the turns that use it)

    # (what his character tells him: the ``me`` of his ``player_view``, less the rest)
    roles = private_brief(game.state, seat).get("given_roles", {})
    for role in roles:
        behaviour = POWERS.get(role)
        if behaviour is not None and role != "revenant":
            behaviour(game, seat, at, rng, act)


# -- game masters ----------------------------------------------------------------------------
#: the characters whose holders the game masters rule on below
_RULED = frozenset({"guignol", "mime", "revenant"})


def game_masters(game: Game, at: datetime, rng: random.Random, act: Act) -> None:
    """The MJs' rulings and designations for these characters (they know everything)."""
    g = game.state
    gm = g.game_masters[0]
    day = g.day(at)
    relay_prompts(game, at, rng, act)
    for seat, p in g.players.items():
        if not p.masked or p.character not in _RULED:
            continue
        if p.character == "guignol" and day == 1 and "guignol" not in p.data:
            act("set_guignol_constraint", gm, at, text="finir chaque message par une rime")
        if p.character == "mime":
            model = p.data.get("mime", {}).get("model")
            if model is None or not g.players[model].masked or rng.random() < 0.02:
                others = [s for s, q in g.players.items() if q.masked and s != seat]
                if others:
                    act("assign_mime_target", gm, at, player=g.pseudo(rng.choice(others)))
        if p.character == "revenant" and day >= 3 and rng.random() < 0.05:
            fallen = [c for c in g.ronde if c != "revenant" and not slot_live(g, c)]
            if fallen:
                act("give_revenant_role", gm, at, character=rng.choice(fallen))


#: character id -> behaviour (see :mod:`ronde.bots`)
#: (Destiny's and the Decorators' behaviours are their duties, :mod:`ronde.bots.duties`)
POWERS: dict[str, Behaviour] = {
    "prompter": prompter,
    "pinocchio": pinocchio,
    "diva": diva,
    "revenant": revenant,
}
#: game-master behaviours (relaying rulings these powers need)
GAME_MASTER: list[Callable[[Game, datetime, random.Random, Act], None]] = [game_masters]
