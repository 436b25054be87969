"""Chucky (``chucky``), R7.7.

Glossary: Chucky → ``chucky``; écourter un Procès → ``shorten_trial``.

Power and duty (shortening): twice in the game, once in W1 (J2–J7) and once in W2
(J8–J13 before 13:13), he designates to the MJs an open trial in which he has posted
at least once (the opening post or a public complaint count, an anonymous complaint
does not, A37): ``shorten_trial`` with ``trial`` (R7.7.4). The trial ends at that
instant, even without 4 complaints; its outcome is fixed then (JUST or UNJUST, R4.9):
if JUST the accused is unmasked unless protected. It is a concluded trial (A42
``concluded``: no "did not conclude" penalty; ``not_concluded`` adds the −80 to the
opener, each scoring complainant and Chucky). Chucky scores the complaint rows as if
he had filed a valid complaint, once: not if he already has a scoring complaint in it
or opened it, and his fictitious complaint does not count for the opener's +20 (R9.27,
A42). Shortening a trial the Devil's Advocate designated ends it with its outcome and
the Advocate's attempt fails (A43 ``shorten_wins``); with ``cancel_wins`` it is
cancelled for procedural defect instead and Chucky's attempt fails. One attempt per
window; not a trial action, possible while asleep (R5.16.11, R6.8). The trial gets
the flag ``shortened_by`` (for other characters' rules: the Diva, the Straw Man).
Announcement: the outcome, as for a concluded trial, without naming him (R7.7.6).

Constraint: every day clear an orange or red zone of the mini-map of its zombies,
with screenshots before and after (R7.7.2); judged by an MJ, presumed met (A1).

Jokers: at most two; the Figurine de Chuck (``item_chudol``, icon
``item_chudol_hordes``) (R7.7.3). A Joker never waives the shortening duty (R6.13).

Failure: a failed constraint (R6.2); no JUST trial shortened after his two attempts
(R7.7.5, A36 ``one_success``: an UNJUST shortening or a window without an attempt is
a failed attempt, the sanction falls as soon as both have failed — a missing W2
attempt at J13 13:13; ``strict``: each window without an attempt unmasks at its end).
A shortened trial's outcome is told with its verdict (A77): his attempt stays "en
attente du verdict" until the game masters announce it, then succeeds or fails, and
R7.7.5 is judged then (A77 clarification 2: what it causes dates from the
announcement).

Inheritance: none. The Revenant given his role has the duty for the windows that
start after the assignment (A61).

Rule ids: R7.7.1, R7.7.2, R7.7.3, R7.7.4, R7.7.5, R7.7.6, R9.27, A36, A37, A42, A43.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from ..character import ActionHandler, ListedJokers, answering
from ..clock import DUTY_WINDOW_DAYS as DUTY_WINDOWS
from ..clock import cutoff_1313, duty_window
from ..commands import Command
from ..context import Context
from ..duties import window_attempt
from ..events import CharacterFact
from ..sentences import attempt, table, values, window
from ..state import GameState, Player, Trial
from ..trials import _score_complaint, accusation_truth, opener_scores
from ..unmasking import held_by
from ..verdicts import end_trial, unmask
from ..work import Todo, day_end

FAILED = ("failed", "missing")


class Chucky(ListedJokers):
    """Chucky: shortens a trial in W1 and in W2."""

    id: ClassVar[str] = "chucky"
    has_jokers: ClassVar[bool] = True
    joker_items: ClassVar[frozenset[str]] = frozenset({"item_chudol"})
    constraint_fr: ClassVar[str] = (
        "nettoyer chaque jour une case orange ou rouge de ses zombies (captures de la "
        "mini-carte avant et après)"
    )
    power_fr: ClassVar[str] = (
        "écourter un Procès où il a posté : une fois entre J2 et J7, une fois entre J8 et J13 "
        "(il faut en écourter un JUSTE)"
    )

    def actions(self) -> Mapping[str, ActionHandler]:
        return {"shorten_trial": self.shorten_trial}

    def shorten_trial(self, ctx: Context, cmd: Command, actor: str) -> None:
        """``shorten_trial``: ``trial`` — ended at once with its outcome (R7.7.4).

        Raises:
            RuleViolation: ``unknown_trial``, ``actor_unmasked``, ``not_allowed`` (not
                Chucky; no post of his in the trial), ``out_of_window`` (J1, J13 from
                13:13), ``power_exhausted`` (the window's attempt made),
                ``trial_closed`` (the trial already ended).
        """
        g = ctx.g
        t, p, day, w = window_attempt(
            ctx,
            cmd,
            actor,
            self,
            not_holder="n'est pas Chucky.",
            out_of_window="Chucky écourte un Procès entre J2 et J7, puis entre J8 et J13 13h13.",
            attempts="chucky_attempts",
            exhausted="Chucky a déjà écourté un Procès en W{w}.",
        )
        self.fact(ctx, actor, "shorten", {"window": w, "trial": t.number, "day": day})
        if g.opt("A43") == "cancel_wins" and any(
            m.intercept_quorum(ctx, t) for m in answering(g, "intercept_quorum") if m is not self
        ):
            self._result(ctx, actor, w, "failed", t.number)
            self._judge(ctx, p)
            return
        truth = accusation_truth(g, t)
        end_trial(
            ctx,
            t,
            "just" if truth else "unjust",
            truth=truth,
            concluded=True,
            reason="écourté (R7.7.4)",
        )
        self._score(ctx, actor, t.number, truth)
        # its outcome is told with its verdict (A77): the attempt waits for the
        # announcement to succeed or fail (``after_announcement``), and so does his fate

    def _score(self, ctx: Context, actor: str, number: int, truth: bool) -> None:
        """Chucky's fictitious complaint (R9.27, A42) and A42 ``not_concluded``."""

        g = ctx.g
        t = g.trials[number - 1]
        unmasked = t.status == "just" and bool(t.flags.get("unmasked"))
        penalty = g.opt("A42") == "not_concluded"
        label = f"Procès n°{number}"
        if penalty:
            scorers: list[str] = []
            if opener_scores(g, t):
                scorers.extend(t.members if t.opener == "chorus" else (t.opener,))
            for c in t.valid():
                if c.scores:
                    scorers.extend(c.members if c.author == "chorus" else (c.author,))
            for s in scorers:
                ctx.award(s, -80, f"{label} : écourté, n'a pas abouti (A42)", "R9.6", number)
        already = t.opener == actor or any(
            c.author == actor and c.scores and not c.null for c in t.complaints
        )
        if not already:
            _score_complaint(ctx, t, actor, truth, did_not_conclude=penalty, unmasked=unmasked)

    def _result(self, ctx: Context, seat: str, window: int, status: str, trial: int | None) -> None:
        self.fact(ctx, seat, "shorten_result", {"window": window, "status": status, "trial": trial})

    def _required(self, g: GameState, p: Player) -> list[str]:
        since = self.role_since(g, p) or 1
        return [str(w) for w, (first, _l) in DUTY_WINDOWS.items() if first >= since]

    def _judge(self, ctx: Context, p: Player) -> None:
        """No JUST trial shortened after both attempts: unmasked at once (R7.7.5, A36)."""

        g = ctx.g
        if not p.masked or p.unofficial is not None or not self.holds(g, p):
            return
        attempts: dict[str, Any] = p.data.get("chucky_attempts", {})
        if any(a["status"] == "success" for a in attempts.values()):
            return
        required = self._required(g, p)
        if required and all(attempts.get(w, {}).get("status") in FAILED for w in required):
            unmask(ctx, p.seat, "duty", "R7.7.5", detail="aucun Procès juste écourté")

    def after_announcement(self, ctx: Context, trial: Trial) -> None:
        """A shortening whose verdict was waiting (A77): its attempt succeeds if the trial
        was JUST, else fails; then R7.7.5 is judged, now."""
        g = ctx.g
        for p in g.players.values():
            for w, a in sorted(p.data.get("chucky_attempts", {}).items()):
                if a.get("trial") == trial.number and a["status"] == "pending":
                    status = "success" if trial.status == "just" else "failed"
                    self._result(ctx, p.seat, int(w), status, trial.number)
                    self._judge(ctx, p)

    def _window_closed(self, ctx: Context, p: Player, w: int) -> None:
        g = ctx.g
        if str(w) not in self._required(g, p) or p.unofficial is not None:
            return
        if str(w) not in p.data.get("chucky_attempts", {}):
            self._result(ctx, p.seat, w, "missing", None)
            if g.opt("A36") == "strict":
                unmask(ctx, p.seat, "duty", "R7.7.5", detail=f"aucune tentative en W{w}")
                return
        self._judge(ctx, p)

    def on_day_closed(self, ctx: Context, p: Player, day: int) -> None:
        if day == DUTY_WINDOWS[1][1] and self.holds(ctx.g, p):
            self._window_closed(ctx, p, 1)

    def on_cutoff(self, ctx: Context, p: Player) -> None:
        if self.holds(ctx.g, p):
            self._window_closed(ctx, p, 2)

    def apply_fact(self, g: GameState, p: Player, fact: CharacterFact) -> None:
        data = dict(fact.data)
        attempts = p.data.setdefault("chucky_attempts", {})
        if fact.kind == "shorten":
            attempts[str(data["window"])] = {"trial": data["trial"], "status": "pending"}
            g.trials[int(data["trial"]) - 1].flags["shortened_by"] = p.seat
        elif fact.kind == "shorten_result":
            entry = attempts.setdefault(str(data["window"]), {"trial": data["trial"]})
            entry["status"] = data["status"]

    def private_view(self, g: GameState, p: Player) -> dict[str, object]:
        attempts = p.data.get("chucky_attempts", {})
        return {
            "shortenings": {
                f"W{w}": {"trial": a.get("trial"), "status": a["status"]}
                for w, a in sorted(attempts.items())
            },
            # (a trial a verdict not yet announced made moot still shows as open, A77)
            "posted_in": sorted(
                t.number
                for t in g.trials
                if p.seat in t.posters and (t.status == "open" or held_by(g, t) is not None)
            ),
        }

    def game_master_todo(self, g: GameState, p: Player, day: int) -> list[Todo]:
        out = super().game_master_todo(g, p, day)
        w = duty_window(day)
        attempts = p.data.get("chucky_attempts", {})
        if w is not None and str(w) not in attempts:
            end = "fin du J7" if w == 1 else "J13 13h13"
            out.append(
                Todo(
                    f"Pas encore de Procès écourté en W{w} (échéance : {end}).",
                    "watch",
                    p.seat,
                    day_end(g.start, 7) if w == 1 else cutoff_1313(g.start),
                    "démasqué à l'échéance",
                    "shorten_trial",
                    by=p.pseudo,
                )
            )
        for w_, a in sorted(attempts.items()):
            ended = g.trials[a["trial"] - 1].ended_at if a.get("trial") else None
            if ended is not None and g.day(ended) == day:
                out.append(
                    Todo(
                        f"Annoncer l'issue du Procès n°{a['trial']} écourté (W{w_}), "
                        "sans nommer Chucky.",
                        "send",
                        p.seat,
                        day_end(g.start, day),
                    )
                )
        return out

    def describe_private(self, g: GameState, p: Player, data: dict[str, object]) -> list[str]:
        out = [
            f"Procès écourté, {window(w)} : {attempt(a)}."
            for w, a in table(data, "shortenings").items()
        ]
        if not out:
            out.append("Vous n'avez encore écourté aucun Procès.")
        posted = values(data, "posted_in")
        if posted:
            where = ", ".join(f"n°{n}" for n in posted)
            out.append(f"Procès ouverts où vous avez écrit : {where}.")
        return out
