"""Pinocchio (``pinocchio``), R7.21.

Glossary: Pinocchio → ``pinocchio``; a lie = his public participation in an UNJUST
trial; a mistake (a truth) = his public participation in a JUST one.

Power: he may open trials and file public complaints against any masked Ronde
Character but his own, wherever it is (R7.21.2, R2.10; not naming his own
Character is a house choice: every other set excludes its holder's slot). Every
day he also has one anonymous complaint, usable only against his standard visible
set (R7.21.6); it may open a trial (R5.8) and it scores normally. A22 ``extra``:
it comes on top of his daily trial action (``extra_actions``), never in the same
trial (R5.4); ``within``: it uses his quota.

Constraint (engine-judged, R6.20): at least two lies in each period J2–J4, J5–J7,
J8–J10, J11–J13 (before 13:13), checked at the end of the period (R7.21.3). A23
``reduce``: each day of the period on which he sleeps (or is exempted) lowers the
count by one; ``waive`` waives such a period; ``full`` keeps 2.

Points: his public openings and complaints score nothing (R7.21.4, R9.26).

Jokers: none (R6.10).

Failure: a period without its two lies; his third truth, at once, the MJs telling
him each mistake as it occurs (R7.21.5). A60 ``truth``: a participation is a lie
or a truth according to the accusation's truth when he takes part, counted at
once whatever the trial's fate; ``outcome``: only trials concluded UNJUST or JUST
count (in the period of the conclusion). Anonymous complaints count for neither.
A verdict's truth is told with its announcement (A77): a late complaint of his
(``truth``), and under ``outcome`` every participation, is counted when the verdict is
announced; a period whose count depends on such a verdict is judged then (A77
clarification 2), and what it causes dates from then.

Inheritance: none.

Rule ids: R7.21.1, R7.21.2, R7.21.3, R7.21.4, R7.21.5, R7.21.6, A22, A23, A60.
"""

from __future__ import annotations

from typing import ClassVar

from ..character import Character
from ..clock import LAST_DAY
from ..constraints import covered
from ..context import Context
from ..duties import judge_windows
from ..events import CharacterFact
from ..ronde import unrestricted_targets
from ..sentences import number, period, table
from ..state import Complaint, GameState, Player, Trial
from ..trials import accusation_truth
from ..unmasking import settles
from ..verdicts import unmask
from ..work import Todo, day_end

PERIODS = ((2, 4), (5, 7), (8, 10), (11, 13))
LIES_PER_PERIOD = 2
TRUTHS_LIMIT = 3
ANONYMOUS = "pinocchio"


class Pinocchio(Character):
    """Pinocchio: accuses anyone, must lie twice per period, falls at his third truth."""

    id: ClassVar[str] = "pinocchio"
    constraint_days: ClassVar[tuple[int, int] | None] = None
    constraint_fr: ClassVar[str] = (
        "participer (ouverture ou plainte publique) à au moins deux Procès injustes par "
        "période J2–J4, J5–J7, J8–J10, J11–J13"
    )
    power_fr: ClassVar[str] = (
        "accuser publiquement n'importe quel Personnage ; une plainte anonyme par jour "
        "contre ses Personnages à démasquer"
    )

    # -- targets and quota (R7.21.2, R7.21.6, A22) -----------------------------------------
    def legal_targets(self, g: GameState, p: Player, *, anonymous: bool) -> set[str]:
        if anonymous:
            return set(self.visible_set(g, p))
        return set(unrestricted_targets(g)) - {p.character or self.id, self.id}

    def _anonymous_used(self, g: GameState, p: Player) -> bool:
        day = g.action_day(g.clock) if g.clock else 0
        return day in p.data.get(self.id, {}).get("anonymous_days", [])

    def anonymous_right(self, g: GameState, p: Player, *, opening: bool) -> str | None:
        return None if self._anonymous_used(g, p) else ANONYMOUS

    def extra_actions(self, g: GameState, p: Player, *, anonymous: bool) -> int:
        if g.opt("A22") != "extra":
            return 0
        used = self._anonymous_used(g, p)
        return int(not used) if anonymous else int(used)

    def scores_in_trials(
        self, g: GameState, p: Player, trial: Trial, complaint: Complaint | None
    ) -> bool:
        return trial.anonymous if complaint is None else complaint.anonymous

    # -- participations (R7.21.3, R7.21.5, A60) -------------------------------------------
    def _participated(self, ctx: Context, trial: Trial, seat: str, anonymous: bool) -> None:
        g = ctx.g
        p = g.players[seat]
        if not self.holds(g, p):
            return
        day = g.action_day(ctx.now)
        if anonymous:
            if not self._anonymous_used(g, p):
                self.fact(ctx, seat, "anonymous", {"day": day, "trial": trial.number})
            return
        if g.opt("A60") == "outcome":
            self.fact(ctx, seat, "pending", {"trial": trial.number})
            return
        if trial.concluded and not trial.announced:
            # a late complaint: its truth is the verdict's, told with it (A77): counted
            # at the announcement, for the day he took part
            self.fact(ctx, seat, "late", {"trial": trial.number, "day": day})
            return
        self._count(ctx, p, trial.number, day, lie=not accusation_truth(g, trial))

    def after_trial_opened(self, ctx: Context, trial: Trial) -> None:
        if trial.opener in ctx.g.players:
            self._participated(ctx, trial, trial.opener, trial.anonymous)

    def after_complaint(self, ctx: Context, trial: Trial, complaint: Complaint) -> None:
        if complaint.author in ctx.g.players:
            self._participated(ctx, trial, complaint.author, complaint.anonymous)

    def after_announcement(self, ctx: Context, trial: Trial) -> None:
        """A verdict is told (A77): his participations in it are counted now (``truth``:
        late ones, for the day he took part; ``outcome``: every one, for the day of the
        conclusion), then the periods that waited for it are judged."""
        g = ctx.g
        for p in g.players.values():
            if not self.holds(g, p):
                continue
            mine = p.data.get(self.id, {})
            if g.opt("A60") == "outcome":
                if trial.number in mine.get("pending", []) and trial.status in ("just", "unjust"):
                    assert trial.ended_at is not None
                    day = min(g.action_day(trial.ended_at), LAST_DAY)
                    self._count(ctx, p, trial.number, day, lie=trial.status == "unjust")
            else:
                for late in mine.get("late", []):
                    if late["trial"] == trial.number:
                        day = int(late["day"])
                        self._count(ctx, p, trial.number, day, lie=not trial.truth)
            for wait in list(p.data.get(self.id, {}).get("period_waits", [])):
                numbers = [int(n) for n in wait["trials"]]
                if settles(g, trial, numbers):
                    self.fact(ctx, p.seat, "period_settled", {"last": wait["last"]})
                    if p.masked and p.unofficial is None:
                        self._judge_period(ctx, p, int(wait["last"]))

    def _waiting(self, g: GameState, p: Player, first: int, last: int) -> list[int]:
        """The verdicts not yet announced on which the count of the period J``first``–
        J``last`` depends: his late complaints in it (``truth``), or the trials he took
        part in concluded in it (``outcome``)."""
        mine = p.data.get(self.id, {})
        if g.opt("A60") == "outcome":
            trials = [g.trials[int(n) - 1] for n in mine.get("pending", [])]
            return [
                t.number
                for t in trials
                if t.concluded
                and not t.announced
                and t.ended_at is not None
                and first <= g.action_day(t.ended_at) <= last
            ]
        return [
            int(x["trial"])
            for x in mine.get("late", [])
            if first <= int(x["day"]) <= last and not g.trials[int(x["trial"]) - 1].announced
        ]

    def _count(self, ctx: Context, p: Player, trial: int, day: int, *, lie: bool) -> None:
        self.fact(ctx, p.seat, "participation", {"trial": trial, "day": day, "lie": lie})
        if lie:
            return
        truths = len(self._truths(p))
        ctx.tell(
            [p.seat],
            "pinocchio_mistake",
            f"Procès n°{trial} : accusation vraie, erreur n°{truths} sur {TRUTHS_LIMIT}.",
            mistakes=truths,
        )
        if truths >= TRUTHS_LIMIT:
            unmask(ctx, p.seat, "duty", "R7.21.5", detail="trois Procès justes", cause_day=day)

    def _truths(self, p: Player) -> list[dict[str, object]]:
        return [x for x in p.data.get(self.id, {}).get("participations", []) if not x["lie"]]

    def lies(self, p: Player, first: int, last: int) -> int:
        return sum(
            1
            for x in p.data.get(self.id, {}).get("participations", [])
            if x["lie"] and first <= int(str(x["day"])) <= last
        )

    # -- periods ---------------------------------------------------------------------
    def _check_period(self, ctx: Context, p: Player, day: int) -> None:
        """End of a period: two false accusations, fewer with sleep or exemption days
        (A23). A period whose count depends on a verdict not yet announced is judged at
        its announcement (A77 clarification 2)."""
        g = ctx.g
        for first, last in PERIODS:
            if last == day:
                waiting = self._waiting(g, p, first, last)
                if waiting:
                    data = {"first": first, "last": last, "trials": waiting}
                    self.fact(ctx, p.seat, "period_waits", data)
                    return
        self._judge_period(ctx, p, day)

    def _judge_period(self, ctx: Context, p: Player, last: int) -> None:
        """Judge the period that ends on J``last`` (``judge_windows``), now."""
        g = ctx.g

        def missed(first: int, last: int) -> str | None:
            needed = LIES_PER_PERIOD
            off = sum(1 for d in range(first, last + 1) if covered(g, p.seat, d))
            mode = g.opt("A23")
            if off and mode == "waive":
                needed = 0
            elif mode == "reduce":
                needed = max(0, needed - off)
            got = self.lies(p, first, last)
            return f"{got} Procès injuste(s) du J{first} au J{last}" if got < needed else None

        # (the Revenant: only periods that start after the assignment, A61)
        since = self.role_since(g, p)
        judge_windows(
            ctx, p, last, PERIODS, since=since, missed=missed, cause="duty", rule="R7.21.3"
        )

    def on_day_closed(self, ctx: Context, p: Player, day: int) -> None:
        if day < LAST_DAY:
            self._check_period(ctx, p, day)

    def on_cutoff(self, ctx: Context, p: Player) -> None:
        self._check_period(ctx, p, LAST_DAY)

    def apply_fact(self, g: GameState, p: Player, fact: CharacterFact) -> None:
        mine = p.data.setdefault(self.id, {})
        if fact.kind == "anonymous":
            mine.setdefault("anonymous_days", []).append(int(fact.data["day"]))
        elif fact.kind == "pending":
            mine.setdefault("pending", []).append(int(fact.data["trial"]))
        elif fact.kind == "late":
            mine.setdefault("late", []).append(
                {"trial": int(fact.data["trial"]), "day": int(fact.data["day"])}
            )
        elif fact.kind == "period_waits":
            mine.setdefault("period_waits", []).append(dict(fact.data))
        elif fact.kind == "period_settled":
            waits = mine.get("period_waits", [])
            mine["period_waits"] = [w for w in waits if w["last"] != fact.data["last"]]
        elif fact.kind == "participation":
            mine.setdefault("participations", []).append(
                {
                    "trial": int(fact.data["trial"]),
                    "day": int(fact.data["day"]),
                    "lie": bool(fact.data["lie"]),
                }
            )

    # -- views -----------------------------------------------------------------------
    def private_view(self, g: GameState, p: Player) -> dict[str, object]:
        return {
            "lies_by_period": {f"J{a}-J{b}": self.lies(p, a, b) for a, b in PERIODS},
            "mistakes": len(self._truths(p)),
            "anonymous_used_today": self._anonymous_used(g, p),
        }

    def game_master_todo(self, g: GameState, p: Player, day: int) -> list[Todo]:
        for first, last in PERIODS:
            if first <= day <= last:
                got = self.lies(p, first, last)
                text = (
                    f"{got}/{LIES_PER_PERIOD} Procès injustes pour la période J{first}–J{last} "
                    "(vérifié par le moteur)"
                )
                missing = got < LIES_PER_PERIOD
                return [
                    Todo(
                        text,
                        "watch" if missing else "note",
                        p.seat,
                        day_end(g.start, last) if missing else None,
                        "démasqué à la fin de la période" if missing else "",
                    )
                ]
        return []

    def describe_private(self, g: GameState, p: Player, data: dict[str, object]) -> list[str]:
        out = [
            f"Procès injustes {period(k)} : {n} ({LIES_PER_PERIOD} exigés)."
            for k, n in table(data, "lies_by_period").items()
        ]
        n = number(data, "mistakes")
        out.append(f"Vérités commises : {n} (démasqué à la {TRUTHS_LIMIT}e).")
        out.append(
            "Plainte anonyme du jour : déjà utilisée."
            if data.get("anonymous_used_today")
            else "Plainte anonyme du jour : encore disponible."
        )
        return out
