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
sleeping day if the sleeper stayed masked all that day (R9.9); while a verdict against
the sleeper concluded by then waits for its announcement, that is judged at the
announcement on the real outcome and paid then (A77 clarification 2).

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
from ..state import GameState, Player, Trial
from ..trials import player_seat, running
from ..unmasking import settles, verdicts_awaited
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
        if fact.kind == "chorus_sleep_waits":
            g.flags.setdefault("chorus_sleep_waits", []).append(dict(fact.data))
            return
        if fact.kind == "chorus_sleep_settled":
            key = (fact.data["target"], fact.data["day"])
            waits = g.flags.get("chorus_sleep_waits", [])
            g.flags["chorus_sleep_waits"] = [w for w in waits if (w["target"], w["day"]) != key]
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
        """+40 to each member if the chorus's sleeper stayed masked all that day (R9.9);
        while a verdict against him concluded by then waits for its announcement, judged
        at the announcement on the real outcome (A77 clarification 2)."""
        g = ctx.g
        for d, target, members in g.flags.get("chorus_sleeps", []):
            if d == day:
                self._sleep_paid(ctx, day, target, members)

    def _sleep_paid(self, ctx: Context, day: int, target: str, members: tuple[str, ...]) -> None:
        g = ctx.g
        start, end = g.day_start(day), g.day_start(day + 1)
        waiting = [
            t.number
            for t in verdicts_awaited(g, target)
            if t.ended_at is not None and t.ended_at < end
        ]
        if waiting:
            # his fall that day, or not, is the verdict's outcome: the +40 would tell it
            # (A70 ``own_score``, ``public``)
            data = {"target": target, "day": day, "members": list(members), "trials": waiting}
            self.fact(ctx, target, "chorus_sleep_waits", data)
            return
        p = g.players[target]
        fell = p.unmasked_at
        if fell is not None and fell <= end and (not p.masked or fell >= start):
            return  # (unmasked by the end of that day, its last instant included)
        for seat in members:
            ctx.award(seat, 40, f"Chœur : {p.pseudo} endormi et resté masqué le J{day}", "R9.9")

    def after_announcement(self, ctx: Context, trial: Trial) -> None:
        """A chorus's sleep whose day ended while a verdict against the sleeper waited
        (A77): once those are announced, +40 if he had really stayed masked all that day
        (a verdict's fall dates from its conclusion), paid now."""
        g = ctx.g
        for w in list(g.flags.get("chorus_sleep_waits", [])):
            if not settles(g, trial, w["trials"]):
                continue
            target, day = str(w["target"]), int(w["day"])
            self.fact(ctx, target, "chorus_sleep_settled", {"target": target, "day": day})
            self._sleep_paid(ctx, day, target, tuple(str(m) for m in w["members"]))

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
