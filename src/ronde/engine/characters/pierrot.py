"""Pierrot (Pierrot lunaire, ``pierrot``), R7.13.

Glossary: Pierrot lunaire → ``pierrot``; plonger dans le sommeil → ``put_to_sleep``.

Power: each day J2–J12 he MAY put another masked player to sleep (``put_to_sleep``,
by MP to the MJs); a different player each time, never the same twice (R7.13.4,
A35, A47). The sleeper is told privately at the start of the next day, without
the author; that whole day he can neither open nor complain and is exempt from
his constraints (R7.13.5, R6.8). A sleep chosen but not yet notified lapses if
Pierrot is unmasked first (A62).

Constraint: every day two posts at least 6 hours apart from a zone with y > 0
(R7.13.2); judged by an MJ, presumed met (A1).

Jokers: at most two; one of item_chair_basic, item_bed, item_chair (R7.13.3).

Failure: a failed constraint recorded by an MJ (R6.2).

Inheritance: the chorus's "put a masked player to sleep" (R7.13.6, R8.8) arrives
with the chorus actions of the Characters II issue.

Rule ids: R7.13.1, R7.13.3, R7.13.4, R7.13.5, A47, A62.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

from ..clock import LAST_DAY
from ..commands import Command
from ..context import Context
from ..errors import RuleViolation
from ..events import CharacterFact
from ..state import GameState, Player
from .base import ActionHandler, ListedJokers


class Pierrot(ListedJokers):
    """Pierrot: the sleep power."""

    id: ClassVar[str] = "pierrot"
    joker_items: ClassVar[frozenset[str]] = frozenset(
        {"item_chair_basic", "item_bed", "item_chair"}
    )
    constraint_fr: ClassVar[str] = (
        "deux messages à au moins 6 heures d'écart, depuis une case au nord (y > 0), chaque jour"
    )
    power_fr: ClassVar[str] = (
        "endormir chaque jour un autre joueur masqué (jamais deux fois le même)"
    )

    def actions(self) -> Mapping[str, ActionHandler]:
        return {"put_to_sleep": self.put_to_sleep}

    def put_to_sleep(self, ctx: Context, cmd: Command, actor: str) -> None:
        """``put_to_sleep``: ``player`` sleeps all of tomorrow (R7.13.4, R7.13.5, A47).

        Raises:
            RuleViolation: ``not_allowed`` (not Pierrot, himself, an unmasked player, a
                player already put to sleep), ``daily_limit`` (second sleep of the day),
                ``out_of_window`` (J1, or J13: there is no next day).
        """
        from ..trials import player_seat, running

        g = ctx.g
        running(g)
        p = g.players[actor]
        if p.masked and p.unofficial is None and p.character != self.id:
            raise RuleViolation("not_allowed", f"{p.pseudo} n'a pas le pouvoir d'endormir.")
        if not p.masked or p.unofficial is not None:
            raise RuleViolation("actor_unmasked", f"{p.pseudo} est démasqué.")
        day = g.action_day(ctx.now)
        if not 2 <= day < LAST_DAY:
            raise RuleViolation(
                "out_of_window", "Pierrot endort du J2 au J12 (effet le lendemain)."
            )
        target = player_seat(g, cmd.require("player"))
        if target == actor:
            raise RuleViolation("not_allowed", "Pierrot n'endort pas lui-même (A47).")
        if not g.players[target].masked:
            raise RuleViolation(
                "not_allowed", f"{g.pseudo(target)} est démasqué : pas de sommeil (A47)."
            )
        if target in p.data.get("sleepers", []):
            raise RuleViolation(
                "not_allowed", f"{g.pseudo(target)} a déjà été endormi par Pierrot."
            )
        if day in p.data.get("sleep_days", []):
            raise RuleViolation("daily_limit", "Un seul sommeil par jour.")
        ctx.emit(
            CharacterFact(
                at=ctx.now,
                character=self.id,
                player=actor,
                kind="sleep_chosen",
                data={"target": target, "day": day},
            )
        )

    def on_day_closed(self, ctx: Context, p: Player, day: int) -> None:
        for target, chosen in p.data.get("pending", []):
            if chosen == day and ctx.g.players[target].masked:
                ctx.emit(
                    CharacterFact(
                        at=ctx.now,
                        character=self.id,
                        player=p.seat,
                        kind="sleep_starts",
                        data={"target": target, "day": day + 1},
                    )
                )
                ctx.tell(
                    [target], "asleep", f"Vous êtes endormi pour tout le J{day + 1}.", day=day + 1
                )

    def on_unmasked(self, ctx: Context, p: Player) -> None:
        """A62 ``all_lapse``: even a sleep already notified ends with his unmasking."""
        if ctx.g.opt("A62") != "all_lapse":
            return
        today = ctx.g.day(ctx.now)
        for target, chosen in p.data.get("pending", []):
            if chosen + 1 >= today and target in ctx.g.asleep.get(chosen + 1, set()):
                ctx.emit(
                    CharacterFact(
                        at=ctx.now,
                        character=self.id,
                        player=p.seat,
                        kind="sleep_ends",
                        data={"target": target, "day": chosen + 1},
                    )
                )

    def apply_fact(self, g: GameState, p: Player, fact: CharacterFact) -> None:
        target = str(fact.data["target"])
        day = int(fact.data["day"])
        if fact.kind == "sleep_chosen":
            p.data.setdefault("sleepers", []).append(target)
            p.data.setdefault("sleep_days", []).append(day)
            p.data.setdefault("pending", []).append((target, day))
        elif fact.kind == "sleep_starts":
            g.asleep.setdefault(day, set()).add(target)
        elif fact.kind == "sleep_ends":
            g.asleep.get(day, set()).discard(target)
