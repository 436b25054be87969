"""What a player may and must do today: a read-only view for his page's "Aujourd'hui".

Plain data (French texts where a text is shown), computed from the rules
(:mod:`ronde.engine.trials`, :mod:`ronde.engine.constraints`) for the player's
own seat only: his constraint of the day and its verdict once the game masters
recorded one, what his quota still allows, the anonymous right he holds now,
whether he may open a trial, his Jokers, the trials where he may still
complain (from the public facts and his own legal targets), and the chorus's
actions available today when he is one of the Unmasked.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from .character import character_of
from .chorus import available
from .clock import LAST_DAY, format_time
from .constraints import constraint_range, covered, jokers_left
from .errors import RuleViolation
from .ronde import revived
from .state import GameState
from .trials import anonymous_right, legal_targets, quota_refusal
from .unmasking import awaiting_verdict, before_verdicts, held_by, hidden_unmaskings, reading

View = dict[str, Any]


def today_view(g: GameState, seat: str) -> View:
    """The "today" summary of the player at ``seat``.

    Keys: ``day``; ``constraint`` (``None`` without a constraint today, else
    ``text``, ``covered`` (why it is not checked today, or ``None``) and
    ``verdict`` (``True``/``False`` once recorded, else ``None``)); ``asleep``;
    ``active`` (may take part in trials); ``can_act``, ``used``; ``may_open``
    (and ``open_refusal``, French, when he may not); ``anonymous`` (he holds an
    anonymous right now); ``jokers_left`` (``None``: no Jokers); ``complain_in``:
    the open trials where he may still complain (number, accused, supposed,
    deadline); ``chorus_actions``: the chorus's actions available today (members
    only); ``last_breath_until``: the last day of a power his character leaves him
    after his fall (the Diva's last breath), or ``None``.

    Read as the player knows the game while verdicts wait for their announcement (A77,
    as :func:`ronde.engine.views.player_view`): nothing in it depends on their outcome,
    and under ``frozen`` the accused may not take part in trials meanwhile.
    """
    with reading():
        awaiting = g.opt("A77") == "frozen" and awaiting_verdict(g, seat) is not None
        with before_verdicts(g):
            return _today_view(g, seat, awaiting=awaiting)


def _today_view(g: GameState, seat: str, *, awaiting: bool) -> View:
    p = g.players[seat]
    day = g.day()
    module = character_of(g, p)
    out: View = {"day": day, "asleep": seat in g.asleep.get(day, set())}
    # a power his character leaves him after his fall (the Diva's last breath)
    fallen = g.characters.get(p.original)
    out["last_breath_until"] = fallen.last_breath_until(g, p) if fallen is not None else None
    span = constraint_range(g, p) if g.days_closed >= 1 else None
    if span is not None and span[0] <= day <= span[1] and module.constraint_fr:
        verdicts: dict[tuple[str, int], tuple[bool, Any]] = g.flags.get("verdicts", {})
        verdict = verdicts.get((seat, day))
        out["constraint"] = {
            "text": module.constraint_fr,
            "covered": covered(g, seat, day),
            "verdict": None if verdict is None else bool(verdict[0]),
        }
    else:
        out["constraint"] = None
    active = p.masked and p.unofficial is None and not out["asleep"] and g.days_closed >= 1
    active = active and not g.game_ended and not awaiting
    out["active"] = active
    out["used"] = len(p.actions.get(g.action_day(g.clock) if g.clock else 0, []))
    out["can_act"] = active and quota_refusal(g, p, opening=False, anonymous=p.new_extra) is None
    refusal: str | None = None
    if not active:
        refusal = "Vous ne pouvez pas ouvrir de Procès aujourd'hui."
    else:
        try:
            module.check_open(g, p, anonymous=False)
        except RuleViolation as rv:
            refusal = rv.message
        if refusal is None:
            refusal = quota_refusal(g, p, opening=True, anonymous=p.new_extra)
    out["may_open"] = refusal is None
    out["open_refusal"] = refusal
    out["anonymous"] = bool(
        active
        and anonymous_right(g, p, opening=False)
        and quota_refusal(g, p, opening=False, anonymous=True) is None
    )
    if p.masked and module.jokers_allowed(g, p):
        out["jokers_left"] = jokers_left(p)
    else:
        out["jokers_left"] = None
    complain_in: list[View] = []
    if out["can_act"]:
        with revived(g, hidden_unmaskings(g).values()):
            targets = legal_targets(g, p, anonymous=False)
        for t in g.trials:
            if t.status != "open" and held_by(g, t) is None:  # shown open until announced
                continue
            if seat in t.accused or t.opener == seat:
                continue
            if any(c.author == seat for c in t.complaints):
                continue
            if t.supposed not in targets:
                continue
            complain_in.append(
                {
                    "number": t.number,
                    "accused": [g.pseudo(s) for s in t.accused],
                    "supposed": t.supposed,
                    "deadline": format_time(g.start, t.deadline),
                }
            )
    out["complain_in"] = complain_in
    out["chorus_actions"] = (
        sorted(available(g)) if not p.masked and p.alive and day < LAST_DAY else []
    )
    return out


def deadlines(g: GameState, seat: str) -> list[datetime]:
    """When the obligations of ``seat``'s character due today end (his constraint of the
    day, the duties watched or ruled on), as he knows the game (A77: the same while a
    verdict against him awaits its announcement): the reminders of his notifications."""
    with reading(), before_verdicts(g):
        p = g.players[seat]
        if not p.masked or g.game_ended:
            return []
        items = character_of(g, p).game_master_todo(g, p, g.day())
        return sorted(
            {t.deadline for t in items if t.deadline is not None and t.kind in ("ruling", "watch")}
        )


# -- what a player's forms offer (the portal's item lists) ---------------------------------
def items_requested(g: GameState, seat: str) -> frozenset[str]:
    """The items ``seat``'s character asks him to send the game masters (a delivery of
    them is not reported, A73)."""
    with reading(), before_verdicts(g):  # as he knows the game (A77)
        p = g.players[seat]
        return frozenset(character_of(g, p).items_requested(g, p))


def jokers_allowed(g: GameState, seat: str) -> bool:
    """Whether ``seat`` may use a Joker now: masked, and his character has Jokers (R6.10)."""
    with reading(), before_verdicts(g):  # as he knows the game (A77)
        p = g.players[seat]
        return p.masked and character_of(g, p).jokers_allowed(g, p)


def joker_refusal(g: GameState, seat: str, items: list[str]) -> str | None:
    """Why ``items`` would not make ``seat``'s Joker (``None``: they would), as his
    character's rules say."""
    with reading(), before_verdicts(g):  # as he knows the game (A77)
        p = g.players[seat]
        return character_of(g, p).joker_refusal(g, p, items)
