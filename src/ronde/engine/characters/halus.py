"""Halus (``halus``), R7.11.

Glossary: Halus → ``halus``; plainte anonyme → ``anonymous``.

Power: three anonymous complaints in the game, at most one in each of her periods
J2–J5, J6–J9 and J10–J13 (R7.11.4). Each replaces her public complaint: it uses her
daily quota (R5.16.4) and names one of her legal targets; like any anonymous
complaint it may open a trial (R5.8). The complaint or opening records the right it
used (``kind`` ``halus``); an unused one is lost at the end of its period. A second
one in a period is refused with ``power_exhausted`` unless another right (a
Polichinelle gift) covers it.

Constraint: every day two posts at least 6 hours apart from a zone with x > 0
(R7.11.2); judged by an MJ, presumed met (A1).

Jokers: at most two; one of item_lamp_on, item_lamp, item_maglite_2, item_maglite_1,
item_maglite_off, item_firework_box (R7.11.3).

Failure: a failed constraint recorded by an MJ (R6.2).

Inheritance: none.

Rule ids: R7.11.1, R7.11.2, R7.11.3, R7.11.4, R5.16.
"""

from __future__ import annotations

from typing import ClassVar

from ..character import ListedJokers
from ..clock import period_index
from ..context import Context
from ..errors import RuleViolation
from ..events import CharacterFact
from ..sentences import period, rows
from ..state import Complaint, GameState, Player, Trial
from ..trials import anonymous_right
from ..work import Todo

#: Halus's periods (R3.8, R7.11.4)
PERIODS: tuple[tuple[int, int], ...] = ((2, 5), (6, 9), (10, 13))
RIGHT = "halus"


def period_of(day: int) -> int | None:
    """Index of the period that contains ``day``, or ``None`` (J1)."""
    return period_index(day, PERIODS)


class Halus(ListedJokers):
    """Halus: one anonymous complaint in each of three periods."""

    id: ClassVar[str] = "halus"
    has_jokers: ClassVar[bool] = True
    joker_items: ClassVar[frozenset[str]] = frozenset(
        {
            "item_lamp_on",
            "item_lamp",
            "item_maglite_2",
            "item_maglite_1",
            "item_maglite_off",
            "item_firework_box",
        }
    )
    constraint_fr: ClassVar[str] = (
        "deux messages à au moins 6 heures d'écart, depuis une case à l'est (x > 0), chaque jour"
    )
    power_fr: ClassVar[str] = (
        "trois plaintes anonymes dans la partie : une entre J2 et J5, une entre J6 et J9, "
        "une entre J10 et J13 (à la place d'une plainte publique)"
    )

    def _period(self, g: GameState) -> int | None:
        return period_of(g.action_day(g.clock)) if g.clock is not None else None

    def _available(self, g: GameState, p: Player) -> bool:
        period = self._period(g)
        if period is None or not self.holds(g, p):
            return False
        return period not in p.data.get("halus_used", [])

    def anonymous_right(self, g: GameState, p: Player, *, opening: bool) -> str | None:
        return RIGHT if self._available(g, p) else None

    def _check_spent(self, g: GameState, p: Player, *, opening: bool) -> None:
        if self._available(g, p) or anonymous_right(g, p, opening=opening) is not None:
            return
        raise RuleViolation(
            "power_exhausted", "Halus a déjà utilisé sa plainte anonyme de cette période."
        )

    def check_open(self, g: GameState, p: Player, *, anonymous: bool) -> None:
        if anonymous:
            self._check_spent(g, p, opening=True)

    def check_complaint(self, g: GameState, p: Player, trial: Trial, *, anonymous: bool) -> None:
        if anonymous:
            self._check_spent(g, p, opening=False)

    def after_complaint(self, ctx: Context, trial: Trial, complaint: Complaint) -> None:
        if complaint.anonymous and complaint.kind == RIGHT:
            self._use(ctx, complaint.author, trial.number)

    def after_trial_opened(self, ctx: Context, trial: Trial) -> None:
        if trial.anonymous and trial.flags.get("right") == RIGHT:
            self._use(ctx, trial.opener, trial.number)

    def _use(self, ctx: Context, seat: str, trial: int) -> None:
        period = self._period(ctx.g)
        self.fact(ctx, seat, "anonymous_used", {"period": period, "trial": trial})

    def apply_fact(self, g: GameState, p: Player, fact: CharacterFact) -> None:
        if fact.kind == "anonymous_used":
            p.data.setdefault("halus_used", []).append(fact.data["period"])
            p.data.setdefault("halus_trials", []).append(int(fact.data["trial"]))

    def private_view(self, g: GameState, p: Player) -> dict[str, object]:
        used = p.data.get("halus_used", [])
        return {
            "anonymous_complaints": [
                {"period": f"J{a}–J{b}", "used": i in used} for i, (a, b) in enumerate(PERIODS)
            ],
            "anonymous_now": self._available(g, p),
        }

    def game_master_todo(self, g: GameState, p: Player, day: int) -> list[Todo]:
        out = super().game_master_todo(g, p, day)
        period = period_of(day)
        if period is not None and period not in p.data.get("halus_used", []):
            first, last = PERIODS[period]
            out.append(
                Todo(
                    f"Plainte anonyme possible (période J{first}–J{last}) : la publier pour "
                    "elle si elle l'envoie.",
                    "note",
                    p.seat,
                )
            )
        return out

    def describe_private(self, g: GameState, p: Player, data: dict[str, object]) -> list[str]:
        out = [
            f"Plainte anonyme {period(x.get('period'))} : "
            f"{'utilisée' if x.get('used') else 'pas encore utilisée'}."
            for x in rows(data, "anonymous_complaints")
        ]
        if data.get("anonymous_now"):
            out.append("Votre plainte anonyme de cette période est encore disponible.")
        return out
