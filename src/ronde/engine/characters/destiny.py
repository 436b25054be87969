"""Destiny (Destinée, ``destiny``), R7.16.

Glossary: Destinée → ``destiny``; her schedule (sa liste) → ``destiny_schedule``,
told with ``declare_destiny`` (``list``: the Characters for J2…J13); the shift of
R7.16.5 (option a) → ``shift_destiny`` (``append``: the Character put on J13, an
addition of this module: the page gives the choice no name); cut the thread of
fate (the chorus) → ``cut_thread``.

Power: immunity: a trial accusing her can succeed only if, on the day before its
opening, she opened a trial that gathered no (valid) complaint; otherwise it is
UNJUST, scored and announced as such (R7.16.4). A53 ``at_opening``: judged when
the trial against her opens (stored in ``trial.flags["destiny_criterion"]`` by an
``immunity`` fact); ``at_end`` and ``final_count`` judge it when that trial ends,
on the complaints recorded so far in her previous-day trial (the engine cannot
wait for a later count, so both read the same).

Visibility: blind — no visible set (R7.16.1); A52 ``standard`` gives her the
standard one. Legal targets: only the Character scheduled for the day, while it
is masked (R7.16.3); once the Pianist is unmasked and after her first trial
action of the day, also the later entries of her schedule (A52 ``schedule``) or
her standard set (A52 ``standard``).

Constraint (duty, engine-judged, R6.20): on J2, before her first trial action and
by the end of J2, she gives 12 entries (A51: masked Ronde Characters other than
herself, the Decorators as one entry, never "Extra"; repeats allowed, or not under
``distinct``). Every day J2–J13 she opens a trial against the day's Character or
complains in an open trial naming it (R7.16.2); missing it unmasks her at the end
of that day (J13: at 13:13, R3.3); sleep or an exemption waives the day (R6.8,
R3.10), and so does a verdict against her awaiting its announcement at the end of the
day (A77 ``frozen``: her trial actions are refused, as for a monstrous Character). A
day whose Character a verdict not yet announced names is judged at its announcement
on the real outcome (A77 clarification 2). A day whose Character is already
unmasked (even on that day, before she acted, A54) is a rest day; she may instead
use ``shift_destiny``: every later entry moves one day earlier and the appended
Character goes to J13, and the day's new Character is then due as usual (R7.16.5,
A54).

Jokers: none (R7.16.6).

Failure: a missed daily duty or schedule (R6.2).

Inheritance: when she is unmasked the chorus is told her schedule as it stands
(with shifts, A66) and gains ``cut_thread`` (``player``): at J*n+1* 00:00 a trial
is opened in the chorus's name accusing that player of the Character scheduled on
J*n+1*, or the chorus complains in the identical open trial; outside any quota;
every member scores as opener or complainant (R7.16.7, R8.11, R9.13). Unavailable
when that Character is already unmasked (A66). Also when the Revenant holding her
role falls: his own schedule then replaces hers (house choice).

Rule ids: R7.16.1, R7.16.2, R7.16.3, R7.16.4, R7.16.5, R7.16.6, R7.16.7, R8.11,
R9.13, A51, A52, A53, A54, A66.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from .. import chorus
from ..accusations import emit_opening, file_complaint
from ..character import ActionHandler, Character, ChorusExecutor, ChorusValidator
from ..clock import LAST_DAY
from ..commands import Command
from ..constraints import covered
from ..context import Context
from ..errors import RuleViolation
from ..events import CharacterFact
from ..names import french_name, resolve_character
from ..ronde import forward, slot_live, window
from ..sentences import name, rows
from ..state import GameState, Player, Trial
from ..trials import frozen_by, player_seat, running
from ..unmasking import (
    awaiting_verdict,
    hidden_unmaskings,
    settles,
    truly,
    verdicts_naming,
)
from ..verdicts import unmask
from ..work import Todo, day_end


def _entry(schedule: Mapping[str, Any], day: int) -> str | None:
    entries = list(schedule.get("entries", []))
    i = day - int(schedule.get("first_day", 2))
    return str(entries[i]) if 0 <= i < len(entries) else None


def criterion_met(g: GameState, seat: str, opened_day: int) -> bool:
    """Whether she opened, on the day before ``opened_day``, a trial that has gathered no
    valid complaint so far (R7.16.4, A53)."""
    for t in g.trials:
        if t.opener == seat and g.action_day(t.opened_at) == opened_day - 1 and not t.valid():
            return True
    return False


class Destiny(Character):
    """Destiny: her schedule, her daily trial, her immunity."""

    id: ClassVar[str] = "destiny"
    #: her duties are engine-judged (R6.20): no MJ-judged daily constraint
    constraint_days: ClassVar[tuple[int, int] | None] = None
    power_fr: ClassVar[str] = (
        "immunisée contre les Procès sauf si son Procès de la veille n'a recueilli aucune plainte"
    )
    constraint_fr: ClassVar[str] = (
        "donner au J2 sa liste de 12 Personnages, puis chaque jour ouvrir (ou rejoindre) "
        "un Procès contre le Personnage du jour"
    )

    # -- the schedule ------------------------------------------------------------------
    def schedule(self, p: Player) -> dict[str, Any]:
        return dict(p.data.get(self.id, {}).get("schedule", {}))

    def first_day(self, g: GameState, p: Player) -> int:
        """Her first scheduled day: J2, or the day after the Revenant got the role (A61)."""
        return max(2, self.role_since(g, p) or 2)

    def entry(self, g: GameState, p: Player, day: int) -> str | None:
        return _entry(self.schedule(p), day)

    def _check_entry(self, g: GameState, p: Player, character: str) -> None:
        if (
            character in ("extra", self.id, p.character or "")
            or character not in g.ronde
            or not slot_live(g, character)
        ):
            raise RuleViolation(
                "not_your_target",
                f"{french_name(character)} ne peut pas figurer dans la liste (A51) : "
                "Personnages masqués de la Ronde, sauf elle-même et les Figurants.",
            )

    # -- visibility and targets ------------------------------------------------------------
    def visible_set(self, g: GameState, p: Player) -> list[str]:
        if g.opt("A52") == "standard":
            return forward(g, self.slot(g, p), window(g))
        return []

    def legal_targets(self, g: GameState, p: Player, *, anonymous: bool) -> set[str]:
        if g.clock is None:
            return set()
        day = g.action_day(g.clock)
        out: set[str] = set()
        today = self.entry(g, p, day)
        if today is not None and slot_live(g, today):
            out.add(today)
        if g.flags.get("double_complaints") and p.actions.get(day):
            if g.opt("A52") == "standard":
                out |= set(forward(g, self.slot(g, p), window(g)))
            else:
                out |= {
                    c
                    for d in range(day + 1, LAST_DAY + 1)
                    if (c := self.entry(g, p, d)) is not None and slot_live(g, c)
                }
        return out

    # -- powers ------------------------------------------------------------------------
    def actions(self) -> Mapping[str, ActionHandler]:
        return {"declare_destiny": self.declare_destiny, "shift_destiny": self.shift_destiny}

    def _actor(self, g: GameState, actor: str) -> Player:
        p = g.players[actor]
        if not p.masked or p.unofficial is not None:
            raise RuleViolation("actor_unmasked", f"{p.pseudo} est démasqué.")
        if not self.holds(g, p):
            raise RuleViolation("not_allowed", f"{p.pseudo} n'est pas la Destinée.")
        return p

    def declare_destiny(self, ctx: Context, cmd: Command, actor: str) -> None:
        """``declare_destiny``: ``list``, one Character per day J2…J13 (R7.16.1, A51).

        Raises:
            RuleViolation: ``out_of_window`` (not J2), ``power_exhausted`` (already
                given), ``invalid_argument`` (not 12 entries, a repeat under A51
                ``distinct``), ``not_your_target`` (an unmasked Character, herself,
                Extra), ``unknown_character``.
        """

        g = ctx.g
        running(g)
        p = self._actor(g, actor)
        day = g.action_day(ctx.now)
        first = self.first_day(g, p)
        if not 2 <= day <= first:
            raise RuleViolation("out_of_window", f"La liste de la Destinée se donne au J{first}.")
        if self.schedule(p):
            raise RuleViolation("power_exhausted", "La liste est déjà donnée.")
        raw = cmd.require("list")
        items = raw if isinstance(raw, list | tuple) else [raw]
        entries = [resolve_character(str(c)) for c in items]
        wanted = LAST_DAY - first + 1
        if len(entries) != wanted:
            raise RuleViolation(
                "invalid_argument",
                f"La liste compte un Personnage par jour du J{first} au J13 : {wanted}.",
            )
        for c in entries:
            self._check_entry(g, p, c)
        if g.opt("A51") == "distinct" and len(set(entries)) != len(entries):
            raise RuleViolation("invalid_argument", "Chaque Personnage une seule fois (A51).")
        self.fact(ctx, actor, "schedule", {"first_day": first, "entries": entries})
        listing = ", ".join(f"J{first + i} {french_name(c)}" for i, c in enumerate(entries))
        ctx.tell([actor], "destiny_schedule", f"Liste enregistrée : {listing}.")

    def shift_destiny(self, ctx: Context, cmd: Command, actor: str) -> None:
        """``shift_destiny``: ``append`` — today's Character is already unmasked: later
        entries move one day earlier, ``append`` goes to J13 (R7.16.5 a, A54).

        Raises:
            RuleViolation: ``not_allowed`` (no schedule, or today's Character is still
                masked), ``not_your_target`` (the appended Character, as in A51).
        """

        g = ctx.g
        running(g)
        p = self._actor(g, actor)
        day = g.action_day(ctx.now)
        today = self.entry(g, p, day)
        if today is None or slot_live(g, today):
            raise RuleViolation(
                "not_allowed",
                "Le décalage n'est possible que si le Personnage du jour est démasqué.",
            )
        append = resolve_character(str(cmd.require("append")))
        self._check_entry(g, p, append)
        sched = self.schedule(p)
        entries = list(sched["entries"])
        i = day - int(sched["first_day"])
        shifted = entries[:i] + entries[i + 1 :] + [append]
        if g.opt("A51") == "distinct" and len(set(shifted)) != len(shifted):
            raise RuleViolation("invalid_argument", "Chaque Personnage une seule fois (A51).")
        self.fact(
            ctx,
            actor,
            "schedule",
            {"first_day": sched["first_day"], "entries": shifted, "shift_day": day},
        )
        ctx.tell(
            [actor],
            "destiny_schedule",
            f"Liste décalée : aujourd'hui {french_name(shifted[i])}, {french_name(append)} au J13.",
        )

    # -- duties ------------------------------------------------------------------------
    def _duty(self, ctx: Context, p: Player, day: int) -> None:
        g = ctx.g
        first = self.first_day(g, p)
        if day < first or covered(g, p.seat, day):
            return
        if not self.schedule(p):
            unmask(
                ctx, p.seat, "duty", "R7.16.1", detail=f"liste non donnée au J{day}", cause_day=day
            )
            return
        today = self.entry(g, p, day)
        if today is None or not slot_live(g, today):
            return  # a rest day (R7.16.5 b, A54), as players know the game
        if frozen_by(g, p.seat) is not None:
            return  # she awaits a verdict: no trial action of hers is accepted (A77)
        for _kind, number, _anon in p.actions.get(day, []):
            t = g.trial(number)
            if t is not None and t.supposed == today:
                return
        waiting = verdicts_naming(g, {today})
        if waiting:
            # a verdict not yet announced names the day's Character: whether it fell (a
            # rest day, A54) depends on its outcome, so the day is judged at the
            # announcement on the real outcome, found now (A77 clarification 2)
            with truly(g):
                fell = not slot_live(g, today)
            self.fact(
                ctx,
                p.seat,
                "duty_waits",
                {
                    "day": day,
                    "trials": [t.number for t in waiting],
                    "character": today,
                    "fell": fell,
                },
            )
            return
        self._fail(ctx, p, day, today)

    def _fail(self, ctx: Context, p: Player, day: int, today: str) -> None:
        unmask(
            ctx,
            p.seat,
            "duty",
            "R7.16.2",
            detail=f"J{day} : aucun Procès contre {french_name(today)}",
            cause_day=day,
        )

    def on_day_closed(self, ctx: Context, p: Player, day: int) -> None:
        if day < LAST_DAY:
            self._duty(ctx, p, day)

    def after_announcement(self, ctx: Context, trial: Trial) -> None:
        """A day that waited for the verdicts naming its Character (A77): once all are
        announced, a rest day if its Character had really fallen by the end of the day
        (a verdict's unmasking dates from its conclusion), else missed, now."""
        g = ctx.g
        for seat, p in g.players.items():
            for wait in list(p.data.get("duty_waits", [])):
                numbers = [int(n) for n in wait.get("trials", [wait.get("trial")])]
                if not settles(g, trial, numbers):
                    continue
                self.fact(ctx, seat, "duty_settled", {"day": wait["day"]})
                fell = wait.get("fell")
                if fell is None:  # (a wait recorded before the real outcome was kept)
                    holders = set(g.holders.get(wait["character"], ()))
                    fell = bool(holders & set(trial.flags.get("unmasked", ())))
                if not fell and p.masked and self.holds(g, p):
                    self._fail(ctx, p, int(wait["day"]), str(wait["character"]))

    def on_cutoff(self, ctx: Context, p: Player) -> None:
        self._duty(ctx, p, LAST_DAY)

    # -- immunity (R7.16.4, A53) ------------------------------------------------------------
    def after_trial_opened(self, ctx: Context, trial: Trial) -> None:
        g = ctx.g
        for seat in trial.accused:
            if g.players[seat].character == self.id and g.players[seat].masked:
                met = criterion_met(g, seat, g.action_day(trial.opened_at))
                self.fact(ctx, seat, "immunity", {"trial": trial.number, "met": met})

    def accusation_true(self, g: GameState, accused: Player, trial: Trial) -> bool | None:
        if g.opt("A53") == "at_opening":
            met = bool(trial.flags.get("destiny_criterion"))
        else:
            met = criterion_met(g, accused.seat, g.action_day(trial.opened_at))
        return None if met else False

    # -- inheritance (R7.16.7, R8.11) ---------------------------------------------------------
    def on_unmasked(self, ctx: Context, p: Player) -> None:
        self.unlock_chorus(ctx, p.seat)

    def unlock_chorus(self, ctx: Context, seat: str) -> None:
        """The chorus learns the schedule of ``seat`` (Destiny, or the Revenant given her
        role, R7.22.4) and gains ``cut_thread`` (R7.16.7)."""
        p = ctx.g.players[seat]
        sched = self.schedule(p)
        if not sched:
            return
        self.fact(
            ctx,
            p.seat,
            "inherited",
            {"first_day": sched["first_day"], "entries": list(sched["entries"])},
        )
        self._tell_schedule(ctx, ctx.g.chorus())

    def _tell_schedule(self, ctx: Context, seats: list[str]) -> None:
        known = ctx.g.flags.get("destiny_schedule")
        if not known or not seats:
            return
        listing = ", ".join(
            f"J{int(known['first_day']) + i} {french_name(c)}"
            for i, c in enumerate(known["entries"])
        )
        ctx.tell(
            seats,
            "destiny_schedule",
            f"Liste de la Destinée : {listing}.",
            entries=known["entries"],
        )

    def after_unmasking(self, ctx: Context, seat: str, character: str, cause: str) -> None:
        g = ctx.g
        known = g.flags.get("destiny_schedule")
        if known and known.get("from") != seat and not g.players[seat].masked:
            # the chorus learned it from a verdict not yet announced: the news waits (A77)
            source = str(known.get("from"))
            pending = awaiting_verdict(g, source) if source in hidden_unmaskings(g) else None
            with ctx.holding(pending.number if pending is not None else None):
                self._tell_schedule(ctx, [seat])

    def chorus_actions(self) -> Mapping[str, tuple[ChorusValidator, ChorusExecutor]]:
        return {"cut_thread": (self._thread_args, self._cut_thread)}

    @staticmethod
    def _thread_args(g: GameState, cmd: Command) -> dict[str, Any]:
        known = g.flags.get("destiny_schedule") or {}
        target = _entry(known, g.day() + 1)
        if target is None or not slot_live(g, target):
            raise RuleViolation(
                "not_allowed", "Le Personnage prévu demain est déjà démasqué (A66)."
            )
        raw = cmd.require("player")
        names = [str(x) for x in raw] if isinstance(raw, list | tuple) else [str(raw)]
        seats = [player_seat(g, n) for n in names]
        for s in seats:
            if not g.players[s].masked:
                raise RuleViolation("not_allowed", f"{g.pseudo(s)} est déjà démasqué.")
        needed = max(1, len(g.masked_holders("decorators"))) if target == "decorators" else 1
        if len(set(seats)) != needed:
            raise RuleViolation("invalid_argument", f"Il faut nommer {needed} joueur(s).")
        return {"player": seats[0] if needed == 1 else sorted(seats)}

    def _cut_thread(
        self, ctx: Context, args: dict[str, Any], members: tuple[str, ...], day: int
    ) -> None:
        """At J*n+1* 00:00: the chorus's trial, or its complaint in the identical open one
        (R8.11, A14)."""

        g = ctx.g
        known = g.flags.get("destiny_schedule") or {}
        target = _entry(known, day)
        raw = args["player"]
        accused = tuple(raw) if isinstance(raw, list | tuple) else (str(raw),)
        if (
            target is None
            or not slot_live(g, target)
            or not all(g.players[s].active for s in accused)
        ):
            told = chorus.told(g)
            ctx.tell(told, "cut_thread_void", "Le fil du destin ne peut pas être tranché.")
            return
        for t in g.open_trials():
            if set(t.accused) == set(accused) and t.supposed == target and ctx.now < t.deadline:
                file_complaint(ctx, t, "chorus", anonymous=False, quota=False, members=members)
                return
        emit_opening(
            ctx,
            opener="chorus",
            accused=accused,
            supposed=target,
            anonymous=False,
            arguments="Le chœur des Démasqués tranche le fil du destin.",
            members=members,
            by="chorus",
            kind="cut_thread",
        )

    def apply_fact(self, g: GameState, p: Player, fact: CharacterFact) -> None:
        if fact.kind == "duty_waits":
            p.data.setdefault("duty_waits", []).append(dict(fact.data))
            return
        if fact.kind == "duty_settled":
            waits = p.data.get("duty_waits", [])
            p.data["duty_waits"] = [w for w in waits if w["day"] != fact.data["day"]]
            return
        if fact.kind == "immunity":
            number = int(fact.data["trial"])
            g.trials[number - 1].flags["destiny_criterion"] = bool(fact.data["met"])
            return
        data = {"first_day": int(fact.data["first_day"]), "entries": list(fact.data["entries"])}
        if fact.kind == "schedule":
            p.data.setdefault(self.id, {})["schedule"] = data
        elif fact.kind == "inherited":
            g.flags["destiny_schedule"] = {**data, "from": p.seat}
            g.flags["chorus_actions"] = set(g.flags.get("chorus_actions", ())) | {"cut_thread"}

    # -- views ------------------------------------------------------------------------------
    def private_view(self, g: GameState, p: Player) -> dict[str, object]:
        sched = self.schedule(p)
        day = g.action_day(g.clock) if g.clock else 0
        return {
            "schedule": [
                {"day": int(sched["first_day"]) + i, "character": c}
                for i, c in enumerate(sched.get("entries", []))
            ]
            if sched
            else None,
            "today": self.entry(g, p, day),
        }

    def game_master_todo(self, g: GameState, p: Player, day: int) -> list[Todo]:
        if not self.schedule(p):
            if day <= self.first_day(g, p):
                return [
                    Todo(
                        f"recevoir sa liste de Personnages avant la fin du J{self.first_day(g, p)}",
                        "watch",
                        p.seat,
                        day_end(g.start, self.first_day(g, p)),
                        "démasquée (devoir manqué, R7.16.1)",
                        action="declare_destiny",
                        by=p.pseudo,
                    )
                ]
            return []
        today = self.entry(g, p, day)
        if today is None:
            return []
        return [
            Todo(
                f"Procès du jour contre {french_name(today)} (vérifié par le moteur)",
                "watch",
                p.seat,
                day_end(g.start, day),
            )
        ]

    def describe_private(self, g: GameState, p: Player, data: dict[str, object]) -> list[str]:
        schedule = rows(data, "schedule")
        if not schedule:
            return ["Vous n'avez pas encore déclaré votre destinée aux MJ."]
        days = ", ".join(f"J{e.get('day')} {name(e.get('character'))}" for e in schedule)
        out = [f"Votre liste : {days}."]
        today = data.get("today")
        if today:
            out.append(f"Aujourd'hui, votre destinée : un Procès contre {name(today)}.")
        return out
