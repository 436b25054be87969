"""Pierrot (Pierrot lunaire, ``pierrot``), R7.13.

Glossary: Pierrot lunaire → ``pierrot``; plonger dans le sommeil → ``put_to_sleep``;
endormir un masqué (chœur) → ``put_to_sleep`` (chorus vote).

Power: each day J2–J12 he MAY put another masked player to sleep (``put_to_sleep``,
by MP to the MJs); a different player each time, never the same twice (R7.13.4,
A35, A47). Not on J13: the sleep covers the next day and there is none. The sleeper
is told privately at the start of the next day, without the author; that whole day
he can neither open nor complain and is exempt from his constraints (R7.13.5, R6.8).
Being put to sleep for the same day by Pierrot and by the chorus has no additional
effect (A47). A sleep chosen but not yet notified lapses if Pierrot is unmasked (or
unofficially unmasked, R4.15) first; one under way stands (A62 ``notified_stand``)
or ends too (``all_lapse``).

Constraint: every day two posts at least 6 hours apart from a zone with y > 0
(R7.13.2); judged by an MJ, presumed met (A1).

Jokers: at most two; one of item_chair_basic, item_bed, item_chair (R7.13.3).

Failure: a failed constraint recorded by an MJ (R6.2).

Inheritance: once Pierrot (or the Revenant holding his role, R7.22.4) is unmasked,
the chorus may vote ``put_to_sleep`` with ``player`` (R7.13.6, R8.8): decided on J*n*,
the sleep covers J*n+1* (R8.17); a masked player, never one the chorus already put
to sleep (A65 ``distinct``, its own history apart from Pierrot's; ``repeats``
allows it). Every member at the decision (A64) gains 40 points at the end of the
sleeping day if the sleeper stayed masked all that day (R9.9).

Rule ids: R7.13.1, R7.13.2, R7.13.3, R7.13.4, R7.13.5, R7.13.6, R8.8, R9.9, A35, A47,
A62, A65.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from ..character import ActionHandler, ChorusExecutor, ChorusValidator, ListedJokers
from ..clock import LAST_DAY
from ..commands import Command
from ..context import Context
from ..errors import RuleViolation
from ..events import CharacterFact
from ..sentences import rows
from ..state import GameState, Player
from ..trials import player_seat, running
from ..work import Todo


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

        g = ctx.g
        running(g)
        p = g.players[actor]
        if not p.masked or p.unofficial is not None:
            raise RuleViolation("actor_unmasked", f"{p.pseudo} est démasqué.")
        if not self.holds(g, p):
            raise RuleViolation("not_allowed", f"{p.pseudo} n'a pas le pouvoir d'endormir.")
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
        self.fact(ctx, actor, "sleep_chosen", {"target": target, "day": day})

    def on_day_closed(self, ctx: Context, p: Player, day: int) -> None:
        if p.unofficial is not None:
            return  # unofficially unmasked: his powers are lost, the sleep lapses (R4.15)
        for target, chosen in p.data.get("pending", []):
            if chosen == day and ctx.g.players[target].masked:
                self.fact(ctx, p.seat, "sleep_starts", {"target": target, "day": day + 1})
                ctx.tell(
                    [target], "asleep", f"Vous êtes endormi pour tout le J{day + 1}.", day=day + 1
                )

    def on_unmasked(self, ctx: Context, p: Player) -> None:
        """The chorus inherits the sleep (R7.13.6)."""
        self.unlock_chorus(ctx, p.seat)

    def after_unmasking(self, ctx: Context, seat: str, character: str, cause: str) -> None:
        """A62 ``all_lapse``: even a sleep already notified ends with his unmasking (when
        it is told: a verdict's, at its announcement, A77)."""
        g = ctx.g
        p = g.players[seat]
        if g.opt("A62") != "all_lapse" or not p.data.get("pending"):
            return
        today = g.day(ctx.now)
        for target, chosen in p.data.get("pending", []):
            if chosen + 1 >= today and target in g.asleep.get(chosen + 1, set()):
                self.fact(ctx, seat, "sleep_ends", {"target": target, "day": chosen + 1})

    def apply_fact(self, g: GameState, p: Player, fact: CharacterFact) -> None:
        if fact.kind == "chorus_unlocked":
            g.flags.setdefault("chorus_actions", set()).add("put_to_sleep")
            return
        target = str(fact.data["target"])
        day = int(fact.data["day"])
        if fact.kind == "sleep_chosen":
            p.data.setdefault("sleepers", []).append(target)
            p.data.setdefault("sleep_days", []).append(day)
            p.data.setdefault("pending", []).append((target, day))
        elif fact.kind == "sleep_starts":
            g.asleep.setdefault(day, set()).add(target)
        elif fact.kind == "sleep_ends":
            if (day, target) not in {(d, t) for d, t, _ in g.flags.get("chorus_sleeps", [])}:
                g.asleep.get(day, set()).discard(target)
        elif fact.kind == "chorus_sleep":
            g.asleep.setdefault(day, set()).add(target)
            members = tuple(str(m) for m in fact.data["members"])
            g.flags.setdefault("chorus_sleeps", []).append((day, target, members))

    # -- the chorus's sleep (R7.13.6, R8.8, R9.9, A65) ----------------------------------
    def unlock_chorus(self, ctx: Context, seat: str) -> None:
        """The chorus may put a masked player to sleep (R8.6.2)."""
        if "put_to_sleep" in ctx.g.flags.get("chorus_actions", set()):
            return
        ctx.emit(CharacterFact(at=ctx.now, character=self.id, player=seat, kind="chorus_unlocked"))

    def chorus_actions(self) -> Mapping[str, tuple[ChorusValidator, ChorusExecutor]]:
        return {"put_to_sleep": (self._chorus_target, self._chorus_sleep)}

    def _chorus_target(self, g: GameState, cmd: Command) -> dict[str, Any]:
        """``player``: a masked player the chorus never put to sleep (A47, A65).

        Raises:
            RuleViolation: ``unknown_player``, ``not_allowed``.
        """

        seat = player_seat(g, cmd.require("player"))
        if not g.players[seat].masked:
            raise RuleViolation("not_allowed", f"{g.pseudo(seat)} est démasqué : pas de sommeil.")
        slept = {t for _d, t, _m in g.flags.get("chorus_sleeps", [])}
        if g.opt("A65") == "distinct" and seat in slept:
            raise RuleViolation("not_allowed", f"Le chœur a déjà endormi {g.pseudo(seat)} (A65).")
        return {"player": seat}

    def _chorus_sleep(
        self, ctx: Context, args: dict[str, Any], members: tuple[str, ...], day: int
    ) -> None:
        """At J*n+1* 00:00 the sleeper is asleep for the whole day (R8.8, R8.17)."""
        target = str(args["player"])
        if not ctx.g.players[target].masked:
            return
        self.fact(
            ctx, target, "chorus_sleep", {"target": target, "day": day, "members": list(members)}
        )
        ctx.tell([target], "asleep", f"Vous êtes endormi pour tout le J{day}.", day=day)

    def after_day_closed(self, ctx: Context, day: int) -> None:
        """+40 to each member if the chorus's sleeper stayed masked all that day (R9.9)."""
        g = ctx.g
        start = g.day_start(day)
        for d, target, members in g.flags.get("chorus_sleeps", []):
            if d != day:
                continue
            p = g.players[target]
            if not p.masked or (p.unmasked_at is not None and p.unmasked_at >= start):
                continue
            for seat in members:
                ctx.award(seat, 40, f"Chœur : {p.pseudo} endormi et resté masqué le J{day}", "R9.9")

    # -- views --------------------------------------------------------------------------
    def private_view(self, g: GameState, p: Player) -> dict[str, object]:
        return {
            "sleepers": [
                {"player": g.pseudo(t), "day": d + 1} for t, d in p.data.get("pending", [])
            ],
        }

    def game_master_todo(self, g: GameState, p: Player, day: int) -> list[Todo]:
        out = super().game_master_todo(g, p, day)
        for target, chosen in p.data.get("pending", []):
            if chosen == day:
                out.append(
                    Todo(
                        f"Sommeil demandé : {g.pseudo(target)} dormira le J{day + 1} "
                        "(prévenu par le moteur au début du jour).",
                        "note",
                        p.seat,
                    )
                )
        return out

    def describe_private(self, g: GameState, p: Player, data: dict[str, object]) -> list[str]:
        sleepers = [f"{s.get('player')} (J{s.get('day')})" for s in rows(data, "sleepers")]
        if not sleepers:
            return ["Vous n'avez encore endormi personne."]
        return [f"Vous avez déjà endormi : {', '.join(sleepers)}."]
