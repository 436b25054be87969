"""Duties a careful player never forgets: run for each masked holder at every time of the
day (not only on his random turns), before anyone else plays in that time.

Each behaviour reads only its holder's own view (``player_brief``, ``private_brief``)
and acts when its duty of the day or of the window is not met yet and a legal way to meet
it shows in that view:

- the Decorators send decoration items every day (R7.6.3), more than one so that a tie is
  rarer (R7.6.4);
- the Prompter gives his sentence on J2 (R7.2.6) and stops guessing once two mistakes in a
  row, or five in all, put his mask at risk (R7.2.4, A31: a day without a guess breaks a
  run);
- Destiny gives her schedule on J2 (R7.16.1) and opens or joins a trial against the
  Character of the day every day (R7.16.2);
- the Devil's Advocate defends someone in each two-day window (R7.3.2) and designates a
  trial for cancellation in each of W1 and W2 (R7.3.3), a trial he posted in that has
  the most complaints, at the latest on the window's last day;
- Chucky shortens a trial in each of W1 and W2 (R7.7.4), the one with the most public
  complaints (the likeliest to be JUST), at the latest on the window's last day;
- Pinocchio takes part in an unjust trial every day until his period has its two
  (R7.21.3), accusing players of Characters he knows they are not when he can;
- the Tragic Hero declares a player he is not every day (R7.17.8), chooses a new target
  when one is due (A56) and, on his deadline's day, accuses his best guess rather than
  lose his mask for nothing (R7.17.6, R7.17.7);
- a monstrous Character opens a trial every day (R7.17.3), or sends his one Joker when
  he cannot.

A bot's day is the day his action counts for (``brief["day"]``: with the grace of A9,
an action just after midnight still counts for the day before).

What they do not model: forum talk (their trials are guesses, not deductions from
posts), bluffing and alliances, and the Straw Man's duty (getting himself accused is
table talk: no action of his meets it).
"""

from __future__ import annotations

import random
import weakref
from datetime import datetime
from typing import Any

from ..engine.clock import PARIS
from ..engine.game import Game
from ..engine.names import RONDE_IDS
from ..engine.views import player_brief, private_brief
from . import Act, Behaviour

DECORATIONS = ("item_chair_basic", "item_cards", "item_angryc", "item_trestle", "item_lamp")
PHRASE = "le petit chat de la voisine chante faux tous les soirs de pluie"
#: the Joker of a monstrous Character (an item worth at least 5, R7.17.3)
MONSTROUS_JOKER = "item_pet_cat"
#: (first, last) days of W1 and W2 (R7.3.3, R7.7.4)
WINDOWS = ((2, 7), (8, 13))
#: the last time of day the simulator plays (21:30): a duty left to it is a last chance
LAST_HOUR = 21

#: what each bot remembers having done, per game: (seat, duty) -> the day he did it
_DONE: weakref.WeakKeyDictionary[Game, dict[tuple[str, str], int]] = weakref.WeakKeyDictionary()


def _done_today(game: Game, seat: str, duty: str, day: int) -> bool:
    memory = _DONE.get(game)
    return memory is not None and memory.get((seat, duty)) == day


def _remember(game: Game, seat: str, duty: str, day: int) -> None:
    memory = _DONE.get(game)
    if memory is None:
        memory = _DONE[game] = {}
    memory[(seat, duty)] = day


def _last_time(at: datetime) -> bool:
    return at.astimezone(PARIS).hour >= LAST_HOUR


def _suspects(brief: Any) -> list[str]:
    me, known = brief["pseudo"], brief["known"]
    return [p for p in brief["masked_players"] if p != me and p not in known]


def _window(day: int) -> tuple[str, int, int] | None:
    for w, (first, last) in enumerate(WINDOWS, 1):
        if first <= day <= last:
            return f"W{w}", first, last
    return None


def _open_against(
    brief: Any, at: datetime, rng: random.Random, act: Act, character: str, *, why: str
) -> bool:
    """Open a trial against a suspect (two for the Decorators) as ``character``."""
    suspects = _suspects(brief)
    if character == "decorators":
        if len(suspects) < 2:
            return False
        against: Any = rng.sample(suspects, 2)
    elif suspects:
        against = rng.choice(suspects)
    else:
        return False
    return act(
        "open_trial", brief["pseudo"], at, against=against, arguments=why, **{"as": character}
    )


def _join_or_open(
    brief: Any, at: datetime, rng: random.Random, act: Act, characters: list[str], *, why: str
) -> bool:
    me = brief["pseudo"]
    joinable = [
        t
        for t in brief["open_trials"]
        if t["open"] and not t["mine"] and t["supposed"] in characters and me not in t["accused"]
    ]
    if joinable and act("complain", me, at, trial=rng.choice(joinable)["number"]):
        return True
    return any(_open_against(brief, at, rng, act, c, why=why) for c in characters)


# -- the Decorators (R7.6.3, R7.6.4) -------------------------------------------------------
def decorators(game: Game, seat: str, at: datetime, rng: random.Random, act: Act) -> None:
    if private_brief(game.state, seat).get("items_today"):
        return
    brief = player_brief(game.state, seat)
    items = [rng.choice(DECORATIONS) for _ in range(rng.randint(2, 6))]
    act("send_items", brief["pseudo"], at, to="Mj", items=items)


# -- the Prompter (R7.2.4, R7.2.6) ---------------------------------------------------------
def prompter(game: Game, seat: str, at: datetime, rng: random.Random, act: Act) -> None:
    brief = player_brief(game.state, seat)
    if brief["day"] >= 2 and private_brief(game.state, seat).get("phrase") is None:
        act("choose_phrase", brief["pseudo"], at, text=PHRASE)


def prompter_may_guess(game: Game, seat: str) -> bool:
    """A careful Prompter guesses only while a mistake cannot unmask him."""
    me = private_brief(game.state, seat)
    return int(me.get("mistakes_in_a_row", 0)) < 2 and int(me.get("mistakes_total", 0)) < 5


# -- Destiny (R7.16.1, R7.16.2) ------------------------------------------------------------
def destiny(game: Game, seat: str, at: datetime, rng: random.Random, act: Act) -> None:
    me = private_brief(game.state, seat)
    brief = player_brief(game.state, seat)
    if brief["day"] < 2:
        return
    if me.get("schedule") is None:
        pool = [c for c in RONDE_IDS if c != "destiny"]
        for _ in range(3):
            if act(
                "declare_destiny", brief["pseudo"], at, list=[rng.choice(pool) for _ in range(12)]
            ):
                break
        return  # (her trial at the next time of the day: her view changed)
    today = me.get("today")
    if today is None or not brief["can_act"]:
        return
    if not _done_today(game, seat, "destiny", brief["day"]) and _join_or_open(
        brief, at, rng, act, [today], why="Le destin l'a voulu."
    ):
        _remember(game, seat, "destiny", brief["day"])


# -- the Devil's Advocate (R7.3.2, R7.3.3) --------------------------------------------------
def devils_advocate(game: Game, seat: str, at: datetime, rng: random.Random, act: Act) -> None:
    brief = player_brief(game.state, seat)
    me = private_brief(game.state, seat)
    day = brief["day"]
    name = brief["pseudo"]
    open_trials = [t for t in brief["open_trials"] if t["open"]]
    first = day if day % 2 == 0 else day - 1  # (J2–J3, J4–J5 ...)
    defended = [d for d in me["defences"] if d["counted"]]
    if open_trials and not any(first <= d["day"] <= first + 1 for d in defended):
        last = defended[-1]["player"] if defended else None
        choices = [(t, a) for t in open_trials for a in t["accused"] if a != last]
        if choices:
            t, who = rng.choice(choices)
            act("post", name, at, trial=t["number"], defends=who)
            return  # (his view changed: the cancellation at the next time of the day)
    window = _window(day)
    if window is None or window[0] in me["cancellations"]:
        return
    candidates = [t for t in open_trials if name not in t["accused"] and t["public_complaints"] < 4]
    if not candidates:
        return
    best = max(candidates, key=lambda t: (t["public_complaints"], rng.random()))
    if best["public_complaints"] < 2 and not (day == window[2] or _last_time(at)):
        return
    if best["number"] not in me["posted_in"]:
        act("post", name, at, trial=best["number"])
        return
    act("cancel_trial", name, at, trial=best["number"])


# -- Chucky (R7.7.4) -----------------------------------------------------------------------
def chucky(game: Game, seat: str, at: datetime, rng: random.Random, act: Act) -> None:
    brief = player_brief(game.state, seat)
    window = _window(brief["day"])
    if window is None:
        return
    me = private_brief(game.state, seat)
    if window[0] in me["shortenings"]:
        return
    open_trials = [t for t in brief["open_trials"] if t["open"]]
    if not open_trials:
        return
    best = max(open_trials, key=lambda t: (t["public_complaints"], rng.random()))
    if best["number"] not in me["posted_in"]:
        act("post", brief["pseudo"], at, trial=best["number"])
        return
    if best["public_complaints"] >= 2 or brief["day"] == window[2]:
        act("shorten_trial", brief["pseudo"], at, trial=best["number"])


# -- Pinocchio (R7.21.3) -------------------------------------------------------------------
def pinocchio(game: Game, seat: str, at: datetime, rng: random.Random, act: Act) -> None:
    brief = player_brief(game.state, seat)
    if brief["day"] < 2 or not brief["can_act"]:
        return
    me = private_brief(game.state, seat)
    period = next(
        (k for k in me["lies_by_period"] if _in_period(k, brief["day"])),
        None,
    )
    if period is None or me["lies_by_period"][period] >= 2:
        return
    name = brief["pseudo"]
    known = brief["known"]
    targets = [c for c in brief["targets"] if c != "decorators"]
    # a player whose Character he knows, accused of another: an unjust trial for sure
    sure = [(p, c) for p, c in known.items() if p in brief["masked_players"] and p != name]
    if sure and targets:
        who, theirs = rng.choice(sure)
        wrong = [c for c in targets if c != theirs]
        if wrong and act(
            "open_trial",
            name,
            at,
            against=who,
            arguments="Je n'ai jamais menti.",
            **{"as": rng.choice(wrong)},
        ):
            return
    joinable = [
        t
        for t in brief["open_trials"]
        if t["open"]
        and not t["mine"]
        and name not in t["accused"]
        and any(known.get(a) not in (None, t["supposed"]) for a in t["accused"])
    ]
    if joinable and act("complain", name, at, trial=rng.choice(joinable)["number"]):
        return
    suspects = _suspects(brief)
    if suspects and targets:
        act(
            "open_trial",
            name,
            at,
            against=rng.choice(suspects),
            arguments="Je n'ai jamais menti.",
            **{"as": rng.choice(targets)},
        )


def _in_period(label: str, day: int) -> bool:
    first, last = (int(x) for x in label.replace("J", "").split("-"))
    return first <= day <= last


# -- the Tragic Hero (R7.17.5–R7.17.8, A56) ----------------------------------------------
def tragic_hero(game: Game, seat: str, at: datetime, rng: random.Random, act: Act) -> None:
    brief = player_brief(game.state, seat)
    me = private_brief(game.state, seat)
    name = brief["pseudo"]
    others = [p for p in brief["masked_players"] if p != name]
    known = dict(brief["known"])
    day = brief["day"]
    if day >= 2 and not me["declared_today"]:
        fresh = [p for p in others if p not in me["declared"]]
        if fresh and act("declare_not", name, at, player=rng.choice(fresh)):
            return  # (his view changed)
    if me.get("new_target_due") is not None:
        choices = [c for c in RONDE_IDS if c not in ("destiny", "pinocchio", "prompter")]
        act("designate_monster", name, at, character=rng.choice([*choices, "extra"]))
        return
    monster = me.get("monster_character")
    deadline = me.get("hunt_deadline")
    if not monster:
        return
    suspects = [p for p in others if p not in known or known[p] == monster]
    sure = [p for p in others if known.get(p) == monster]
    urgent = deadline is not None and day >= deadline and _last_time(at)
    if sure:
        act("accuse_monster", name, at, player=rng.choice(sure))
    elif suspects and (urgent or rng.random() < 0.01 * max(0, day - 3)):
        act("accuse_monster", name, at, player=rng.choice(suspects))


# -- a monstrous Character (R7.17.3) -------------------------------------------------------
def monstrous(game: Game, seat: str, at: datetime, rng: random.Random, act: Act) -> None:
    """Every day a trial of his own (any legal target), else his one Joker."""
    brief = player_brief(game.state, seat)
    if "monstrous" not in brief["told"] or brief["day"] < 2:
        return
    day = brief["day"]
    if _done_today(game, seat, "monstrous", day):
        return
    targets = list(brief["targets"]) if brief["can_act"] else []
    rng.shuffle(targets)
    for character in targets:
        if _open_against(brief, at, rng, act, character, why="Un monstre accuse."):
            _remember(game, seat, "monstrous", day)
            return
    if _last_time(at) and act(
        "use_joker", brief["pseudo"], at, items=[MONSTROUS_JOKER], kind="monstrous"
    ):
        _remember(game, seat, "monstrous", day)


#: character id -> its duty behaviour (see the module's docstring)
DUTIES: dict[str, Behaviour] = {
    "decorators": decorators,
    "prompter": prompter,
    "destiny": destiny,
    "devils_advocate": devils_advocate,
    "chucky": chucky,
    "pinocchio": pinocchio,
    "tragic_hero": tragic_hero,
}
