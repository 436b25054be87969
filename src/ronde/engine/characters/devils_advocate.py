"""Devil's Advocate (Avocat du Diable, ``devils_advocate``), R7.3.

Glossary: Avocat du Diable → ``devils_advocate``; prendre la défense → ``defends``;
annuler un Procès → ``cancel_trial``; annulé pour vice de procédure → ``cancelled``.

Power: twice in the game, once in W1 (J2–J7) and once in W2 (J8–J13 before 13:13),
he designates to the MJs a trial to cancel (``cancel_trial`` with ``trial``): an
open trial without its outcome yet, in which he is not the accused and has posted at
least once — the opening post or a public complaint count, an anonymous complaint
does not (R7.3.3, A37). One attempt per window, never withdrawn (A36). If that
trial reaches quorum while he is still masked (A62: a designation not yet
triggered lapses with his mask), it is not concluded: it ends "cancelled for
procedural defect" at that instant (through the ``intercept_quorum`` hook), scored
as a trial that did not conclude (A38, by the trial code), and announced with its
anonymous complaints, without naming him (R7.3.5). If it ends otherwise (lapse,
void, Chucky's shortening under A43 ``shorten_wins``), the attempt failed. The
cancellation is not a trial action and is possible while asleep (R5.16.11, R6.8).

Constraint (defence): in each window J2–J3, J4–J5, J6–J7, J8–J9, J10–J11, J12–J13
(before 13:13) at least one post in a trial topic that an MJ records as a defence of
a participant of that trial (``post`` with ``defends``, R6.20); the defended player
must change each time: a defence of the player he defended last (A35
``differ_from_previous``; ``all_distinct``: of any player he defended before) is
recorded but does not count. Checked at the end of the window (J*n+1* 00:00, and J13
13:13 for the last one). A sleep day in the window reduces the requirement of one
defence to none (A23 ``reduce``/``waive``; ``full``: no reduction); an exemption day
likewise (R6.3).

Jokers: none (R7.3.1).

Failure: a window without a counted defence (R7.3.2, R6.2); no cancellation after his
two attempts (R7.3.4, A36 ``one_success``: a window without an attempt is a failed
attempt, the sanction falls as soon as both have failed, at the latest at J13 13:13
unless his W2 trial is still open; ``strict``: each window without an attempt
unmasks at its end).

Inheritance: none. The Revenant given his role (R7.22.2) has these duties for the
windows that start after the assignment (A61).

Rule ids: R7.3.1, R7.3.2, R7.3.3, R7.3.4, R7.3.5, R3.8, A23, A35, A36, A37, A38, A43, A62.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from ..character import ActionHandler, Character
from ..clock import DUTY_WINDOW_DAYS as DUTY_WINDOWS
from ..clock import LAST_DAY
from ..commands import Command
from ..constraints import covered
from ..context import Context
from ..duties import judge_windows, window_attempt
from ..events import CharacterFact
from ..sentences import attempt, rows, table, values, window
from ..state import GameState, Player, Trial
from ..verdicts import end_trial, unmask
from ..work import Todo, day_end

#: the defence windows (R7.3.2)
DEFENCE_WINDOWS: tuple[tuple[int, int], ...] = ((2, 3), (4, 5), (6, 7), (8, 9), (10, 11), (12, 13))
FAILED = ("failed", "missing")


class DevilsAdvocate(Character):
    """The Devil's Advocate: defences every two days, a cancellation in W1 and in W2."""

    id: ClassVar[str] = "devils_advocate"
    #: no MJ-judged daily constraint: his defences and attempts are engine-judged (R6.20)
    constraint_days: ClassVar[tuple[int, int] | None] = None
    constraint_fr: ClassVar[str] = (
        "défendre dans un Procès un participant, au moins une fois tous les deux jours "
        "(J2–J3, J4–J5 ...), un joueur différent à chaque fois"
    )
    power_fr: ClassVar[str] = (
        "faire annuler pour vice de procédure un Procès où il a posté : une tentative "
        "entre J2 et J7, une entre J8 et J13"
    )

    def actions(self) -> Mapping[str, ActionHandler]:
        return {"cancel_trial": self.cancel_trial}

    # -- the cancellation (R7.3.3) ------------------------------------------------------
    def cancel_trial(self, ctx: Context, cmd: Command, actor: str) -> None:
        """``cancel_trial``: ``trial`` — his attempt of the current window (R7.3.3).

        Raises:
            RuleViolation: ``unknown_trial``, ``actor_unmasked``, ``not_allowed`` (not
                the Devil's Advocate; the accused; no post of his in the trial),
                ``out_of_window`` (J1, J13 from 13:13), ``power_exhausted`` (the window's
                attempt made), ``trial_closed`` (the trial ended or its outcome is known).
        """
        t, _p, day, w = window_attempt(
            ctx,
            cmd,
            actor,
            self,
            not_holder="n'est pas l'Avocat du Diable.",
            out_of_window="Les annulations : une entre J2 et J7, une entre J8 et J13 13h13.",
            attempts="da_attempts",
            exhausted="Tentative d'annulation de W{w} déjà faite.",
            accused="L'Avocat n'annule pas un Procès où il est accusé.",
        )
        self.fact(ctx, actor, "cancel_attempt", {"window": w, "trial": t.number, "day": day})
        ctx.tell(
            [],
            "cancel_requested",
            f"L'Avocat du Diable demande l'annulation du Procès n°{t.number} s'il atteint "
            "4 plaintes.",
            trial=t.number,
        )

    def _pending(self, g: GameState, t: Trial) -> list[tuple[str, str]]:
        """(seat, window) of attempts still pending on ``t``."""
        # (attempts change by character facts only, which move ``board_count``)
        index = g.memoized_board("da_pending", lambda: _pending_by_trial(g))
        return list(index.get(t.number, ()))

    def intercept_quorum(self, ctx: Context, trial: Trial) -> bool:
        """The designated trial reaches quorum: cancelled for procedural defect (R7.3.3)."""

        g = ctx.g
        for seat, w in self._pending(g, trial):
            p = g.players[seat]
            if not (p.active and self.holds(g, p)):
                continue  # a designation not yet triggered lapses with his mask (A62)
            self._result(ctx, seat, w, "success")
            end_trial(ctx, trial, "cancelled", reason="vice de procédure (Avocat du Diable)")
            return True
        return False

    def after_trial_ended(self, ctx: Context, trial: Trial) -> None:
        for seat, w in self._pending(ctx.g, trial):
            self._result(ctx, seat, w, "failed")
            self._judge(ctx, ctx.g.players[seat])

    def _result(self, ctx: Context, seat: str, window: str, status: str) -> None:
        self.fact(ctx, seat, "cancel_result", {"window": int(window), "status": status})

    def _required(self, g: GameState, p: Player) -> list[str]:
        """The duty windows that bind him (the Revenant: those starting after his role, A61)."""
        since = self.role_since(g, p) or 1
        return [str(w) for w, (first, _l) in DUTY_WINDOWS.items() if first >= since]

    def _judge(self, ctx: Context, p: Player) -> None:
        """No cancellation after both attempts: unmasked at once (R7.3.4, A36)."""

        g = ctx.g
        if not p.masked or p.unofficial is not None or not self.holds(g, p):
            return  # unofficially unmasked: his fall is already due (R4.15)
        attempts: dict[str, Any] = p.data.get("da_attempts", {})
        if any(a["status"] == "success" for a in attempts.values()):
            return
        required = self._required(g, p)
        if required and all(attempts.get(w, {}).get("status") in FAILED for w in required):
            unmask(ctx, p.seat, "duty", "R7.3.4", detail="aucune annulation obtenue")

    def _window_closed(self, ctx: Context, p: Player, w: int) -> None:
        """End of W1 (J8 00:00) or W2 (J13 13:13): a missing attempt (A36)."""

        g = ctx.g
        if str(w) not in self._required(g, p):
            return
        if str(w) not in p.data.get("da_attempts", {}):
            self._result(ctx, p.seat, str(w), "missing")
            if g.opt("A36") == "strict":
                unmask(ctx, p.seat, "duty", "R7.3.4", detail=f"aucune tentative en W{w}")
                return
        self._judge(ctx, p)

    # -- the defence (R7.3.2, A35) ------------------------------------------------------
    def after_post(self, ctx: Context, trial: Trial, seat: str, defends: str | None) -> None:
        g = ctx.g
        p = g.players[seat]
        if defends is None or not self.holds(g, p):
            return
        counted = [d["player"] for d in p.data.get("da_defences", []) if d["counted"]]
        if g.opt("A35") == "all_distinct":
            ok = defends not in counted
        else:
            ok = not counted or counted[-1] != defends
        day = g.action_day(ctx.now)
        self.fact(
            ctx,
            seat,
            "defence",
            {"day": day, "trial": trial.number, "player": defends, "counted": ok},
        )
        if not ok:
            ctx.tell(
                [],
                "defence_not_counted",
                f"Défense de {g.pseudo(defends)} par l'Avocat du Diable : même joueur que la "
                "fois précédente, elle ne compte pas (A35).",
                player=seat,
            )

    def _defences_due(self, ctx: Context, p: Player, day: int) -> None:
        """End of a defence window: at least one counted defence, unless waived (A23)."""
        g = ctx.g

        def missed(first: int, last: int) -> str | None:
            if p.unofficial is not None:
                return None
            defences = p.data.get("da_defences", [])
            if any(first <= d["day"] <= last and d["counted"] for d in defences):
                return None
            off = sum(1 for d in (first, last) if covered(g, p.seat, d))
            if off and g.opt("A23") in ("reduce", "waive"):
                return None  # one defence required, reduced by the sleep or exemption days
            return f"défense J{first}–J{last}"

        since = self.role_since(g, p) or 1
        judge_windows(
            ctx,
            p,
            day,
            DEFENCE_WINDOWS,
            since=since,
            missed=missed,
            cause="constraint",
            rule="R7.3.2",
        )

    # -- timers -------------------------------------------------------------------------
    def on_day_closed(self, ctx: Context, p: Player, day: int) -> None:
        if not self.holds(ctx.g, p):
            return
        if day < LAST_DAY:
            self._defences_due(ctx, p, day)
        if day == DUTY_WINDOWS[1][1] and p.masked:
            self._window_closed(ctx, p, 1)

    def on_cutoff(self, ctx: Context, p: Player) -> None:
        if not self.holds(ctx.g, p):
            return
        self._defences_due(ctx, p, LAST_DAY)
        if p.masked:
            self._window_closed(ctx, p, 2)

    def apply_fact(self, g: GameState, p: Player, fact: CharacterFact) -> None:
        data = dict(fact.data)
        if fact.kind == "defence":
            p.data.setdefault("da_defences", []).append(data)
        elif fact.kind == "cancel_attempt":
            attempts = p.data.setdefault("da_attempts", {})
            attempts[str(data["window"])] = {
                "trial": data["trial"],
                "day": data["day"],
                "status": "pending",
            }
        elif fact.kind == "cancel_result":
            attempts = p.data.setdefault("da_attempts", {})
            entry = attempts.setdefault(str(data["window"]), {"trial": None, "day": None})
            entry["status"] = data["status"]

    # -- views --------------------------------------------------------------------------
    def private_view(self, g: GameState, p: Player) -> dict[str, object]:
        attempts = p.data.get("da_attempts", {})
        return {
            "defences": [
                {"day": d["day"], "player": g.pseudo(d["player"]), "counted": d["counted"]}
                for d in p.data.get("da_defences", [])
            ],
            "cancellations": {
                f"W{w}": {"trial": a.get("trial"), "status": a["status"]}
                for w, a in sorted(attempts.items())
            },
            "posted_in": sorted(t.number for t in g.trials if p.seat in t.posters),
        }

    def game_master_todo(self, g: GameState, p: Player, day: int) -> list[Todo]:
        out: list[Todo] = []
        for first, last in DEFENCE_WINDOWS:
            if first <= day <= last:
                done = any(
                    first <= d["day"] <= last and d["counted"]
                    for d in p.data.get("da_defences", [])
                )
                if not done:
                    out.append(
                        Todo(
                            f"Relever ses défenses (message de défense dans un Procès) : "
                            f"aucune comptée pour J{first}–J{last}.",
                            "watch",
                            p.seat,
                            day_end(g.start, last),
                            "démasqué (contrainte manquée), sauf sommeil ou exemption",
                            action="post",
                            by=p.pseudo,
                        )
                    )
        for w, a in sorted(p.data.get("da_attempts", {}).items()):
            if a["status"] == "pending":
                out.append(
                    Todo(f"Annulation demandée (W{w}) : Procès n°{a['trial']}.", "note", p.seat)
                )
        return out

    def describe_private(self, g: GameState, p: Player, data: dict[str, object]) -> list[str]:
        out = [
            f"J{d.get('day')} : défense de {d.get('player')} "
            f"({'comptée' if d.get('counted') else 'non comptée'})."
            for d in rows(data, "defences")
        ]
        if not out:
            out.append("Aucune défense relevée pour l'instant.")
        out += [
            f"Annulation, {window(w)} : {attempt(a)}."
            for w, a in table(data, "cancellations").items()
        ]
        posted = values(data, "posted_in")
        if posted:
            out.append(f"Procès où vous avez écrit : {', '.join(f'n°{n}' for n in posted)}.")
        return out


def _pending_by_trial(g: GameState) -> dict[Any, list[tuple[str, str]]]:
    """Trial number -> (seat, window) of the attempts pending on it, in the players' order."""
    out: dict[Any, list[tuple[str, str]]] = {}
    for seat, p in g.players.items():
        attempts = p.data.get("da_attempts")
        if attempts:
            for w, a in attempts.items():
                if a["status"] == "pending":
                    out.setdefault(a["trial"], []).append((seat, w))
    return out
