"""Little Mermaid (Petite Sirène, ``little_mermaid``), R7.10.

Glossary: Petite Sirène → ``little_mermaid``; chant envoûtant, ordre → ``order``.

Power (enchanting song): each day J2–J13 she MAY give one order, relayed by the MJs
naming the Little Mermaid but not her player, to a player other than herself whom she
never ordered before (masked or unmasked; the complaint order only to a masked one)
(R7.10.4, A45). ``order`` with ``player`` and ``kind``:

- ``complain`` + ``trial``: file a complaint in that open trial, whose accused is
  another player. The compelled complaint is allowed even if it would otherwise be
  illegal (target, opener, duplicate, quota: the ``compels_complaint`` hook), counts
  in his quota, scores nothing (R7.10.5, R5.16.5, R9.26), and counts for the quorum
  and the opener's +20 unless null under R5.12 (A74 ``counts``; ``not_counted``: it
  is recorded null, through the ``complaint_null`` hook). It is due before the trial
  ends and by the end of the day after the order.
- ``go_to`` + ``cell`` [x, y]: post twice, at least 6 hours apart, from that zone, at
  most 6 AP from the town (|x| + |y| ≤ 6, not the town itself; "reasonably accessible
  alone" is the MJs' judgement), by the end of the day after the order.
- ``take_item`` + ``item``: take that item from the bank by the end of the day after
  the order, and never put it back.

Disobedience (A45 ``mj_judged``): an order is an obligation of the target judged by an
MJ, presumed obeyed. Addition to the scenario vocabulary: the game-master action
``record_order`` with ``player`` (the target) and ``obeyed`` (bool) records the
ruling; a masked target ruled disobedient is unmasked as for a failed constraint at
the end of the order's period (J*n+1* 00:00 after an order of J*n−1*, J13 13:13 for
an order of J12), or at once if the ruling comes later; an order of J13 has no
deadline within the game. An unmasked target suffers nothing; an order made
impossible through no fault of the target (trial ended, sleep, item gone) lapses: the
MJs then record nothing, or ``obeyed: true``. A complaint order lapses only if the
trial ended before the target could complain in it after the order was relayed (the
engine knows when he slept through it: a disobedience ruled then has no effect);
otherwise not complaining is disobedience, taking effect at the end of the day after
the order (A45 (2), (3)). ``no_sanction``: rulings have no effect.
A compelled complaint filed marks the order obeyed by itself. Orders already relayed
stand when she is unmasked (A62 ``notified_stand``); under ``all_lapse`` an order not
yet due ends with her mask: it compels nothing more and a disobedience ruled for it
has no effect. Whether she fell before the due is read as players know it while a
verdict waits for its announcement (A77): a due (or a later ruling) that falls while a
verdict naming the Little Mermaid waits is judged at its announcement on the real
outcome (A77 clarification 2: a verdict's fall dates from its conclusion), the sanction
dating from then. A Joker never waives an order (R6.13).

Constraint: every day two posts at least 6 hours apart from a zone with y < 0
(R7.10.2); judged by an MJ, presumed met (A1).

Jokers: at most two; one of item_chair_basic, item_pet_cat, item_angryc,
item_chudol, item_table, item_trestle (R7.10.3).

Failure: a failed constraint recorded by an MJ (R6.2).

Inheritance: none.

Rule ids: R7.10.1, R7.10.2, R7.10.3, R7.10.4, R7.10.5, R5.16, R6.13, A45, A46, A62, A74.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any, ClassVar

from ..character import ActionHandler, ListedJokers
from ..clock import LAST_DAY, cutoff_1313
from ..commands import Command
from ..context import Context
from ..errors import RuleViolation
from ..events import CharacterFact
from ..sentences import rows
from ..state import Complaint, GameState, Player, Trial
from ..trials import player_seat, running, trial_of
from ..unmasking import hidden_now, settles, verdicts_naming
from ..verdicts import unmask
from ..work import Todo, day_end

KINDS = ("complain", "go_to", "take_item")
MAX_AP = 6


def deadline(g: GameState, order_day: int) -> datetime | None:
    """The end of the day after the order (J13: 13:13, R3.3); ``None`` after the game."""
    due = order_day + 1
    if due > LAST_DAY:
        return None
    if due == LAST_DAY:
        return cutoff_1313(g.start)
    return g.day_start(due + 1)


class LittleMermaid(ListedJokers):
    """The Little Mermaid: one order a day, each player once."""

    id: ClassVar[str] = "little_mermaid"
    has_jokers: ClassVar[bool] = True
    joker_items: ClassVar[frozenset[str]] = frozenset(
        {
            "item_chair_basic",
            "item_pet_cat",
            "item_angryc",
            "item_chudol",
            "item_table",
            "item_trestle",
        }
    )
    constraint_fr: ClassVar[str] = (
        "deux messages à au moins 6 heures d'écart, depuis une case au sud (y < 0), chaque jour"
    )
    power_fr: ClassVar[str] = (
        "donner chaque jour un ordre (plainte, déplacement, objet) à un joueur jamais "
        "ordonné auparavant"
    )

    def actions(self) -> Mapping[str, ActionHandler]:
        return {"order": self.order}

    def gm_actions(self) -> Mapping[str, ActionHandler]:
        return {"record_order": self.record_order}

    # -- the order (R7.10.4, A45) -------------------------------------------------------
    def order(self, ctx: Context, cmd: Command, actor: str) -> None:
        """``order``: ``player``, ``kind`` and its argument (``trial``, ``cell``, ``item``).

        Raises:
            RuleViolation: ``actor_unmasked``, ``not_allowed`` (not the Little Mermaid;
                herself; a player already ordered; a complaint order to an unmasked
                player or to the accused), ``out_of_window`` (J1), ``daily_limit`` (a
                second order today), ``invalid_argument`` (unknown kind, bad cell, unknown
                item), ``unknown_player``, ``unknown_trial``, ``trial_closed``.
        """

        g = ctx.g
        running(g)
        p = g.players[actor]
        if not p.masked or p.unofficial is not None:
            raise RuleViolation("actor_unmasked", f"{p.pseudo} est démasquée.")
        if not self.holds(g, p):
            raise RuleViolation("not_allowed", f"{p.pseudo} n'est pas la Petite Sirène.")
        day = g.action_day(ctx.now)
        if day < 2:
            raise RuleViolation("out_of_window", "Le chant de la Petite Sirène commence au J2.")
        orders: dict[str, dict[str, Any]] = p.data.get("orders", {})
        if any(o["day"] == day for o in orders.values()):
            raise RuleViolation("daily_limit", "Un seul ordre par jour.")
        target = player_seat(g, cmd.require("player"))
        if target == actor:
            raise RuleViolation("not_allowed", "La Petite Sirène ne se donne pas d'ordre.")
        if target in orders:
            raise RuleViolation(
                "not_allowed", f"{g.pseudo(target)} a déjà reçu un ordre de la Petite Sirène."
            )
        kind = str(cmd.require("kind"))
        data: dict[str, Any] = {"target": target, "kind": kind, "day": day}
        if kind == "complain":
            t = trial_of(g, cmd)
            if not g.players[target].masked:
                raise RuleViolation(
                    "not_allowed", f"{g.pseudo(target)} est démasqué : il ne porte plus plainte."
                )
            if t.status != "open" or ctx.now >= t.deadline:
                raise RuleViolation("trial_closed", f"Le Procès n°{t.number} est terminé.")
            if target in t.accused:
                raise RuleViolation("not_allowed", "On n'ordonne pas de porter plainte contre soi.")
            data["trial"] = t.number
        elif kind == "go_to":
            data["cell"] = self._cell(cmd.require("cell"))
        elif kind == "take_item":
            item = g.catalog.canonical(str(cmd.require("item")))
            if item is None:
                raise RuleViolation("invalid_argument", f"Objet inconnu : {cmd.get('item')}.")
            data["item"] = item
        else:
            raise RuleViolation(
                "invalid_argument",
                f"Ordre inconnu : « {kind} » (porter plainte, aller à une case ou "
                "prendre un objet).",
            )
        self.fact(ctx, actor, "order", data)
        text = f"Chant de la Petite Sirène : {self._describe(g, data)}"
        ctx.tell([target], "order", text, order=data)

    @staticmethod
    def _cell(raw: object) -> list[int]:
        try:
            x, y = (int(v) for v in raw)  # type: ignore[attr-defined]
        except (TypeError, ValueError):
            raise RuleViolation("invalid_argument", f"Case illisible : {raw} ([x, y]).") from None
        if (x, y) == (0, 0) or abs(x) + abs(y) > MAX_AP:
            raise RuleViolation(
                "invalid_argument", f"Case [{x}, {y}] : hors de la ville, à 6 PA au plus."
            )
        return [x, y]

    def _describe(self, g: GameState, o: dict[str, Any]) -> str:
        if o["kind"] == "complain":
            t = g.trials[int(o["trial"]) - 1]
            names = " et ".join(g.pseudo(s) for s in t.accused)
            return f"portez plainte contre {names} dans le Procès n°{t.number}."
        if o["kind"] == "go_to":
            x, y = o["cell"]
            return f"allez en [{x}, {y}] et postez deux messages depuis cette case, à 6 h d'écart."
        return f"prenez {g.catalog.name(str(o['item']))} à la banque et ne le rendez jamais."

    def _orders_to(self, g: GameState, seat: str) -> list[tuple[str, dict[str, Any]]]:
        """(Mermaid seat, order) of every order given to ``seat``."""
        # (orders change by the Little Mermaid's facts only, which move ``flags_count``:
        # one index of them all, kept until the next, not a walk through every player at
        # each complaint)
        hit = g.memo_cache.get("mermaid_orders")
        if hit is None or hit[0] != g.flags_count:
            hit = g.memo_cache["mermaid_orders"] = (g.flags_count, _orders_by_target(g))
        index: dict[str, list[tuple[str, dict[str, Any]]]] = hit[1]
        return list(index.get(seat, ()))

    # -- the compelled complaint (R5.16.5, R7.10.5, A74) --------------------------------
    def compels_complaint(self, g: GameState, p: Player, trial: Trial) -> bool:
        if g.clock is None:
            return False
        for holder, o in self._orders_to(g, p.seat):
            if o["kind"] != "complain" or o["trial"] != trial.number or o["status"] != "pending":
                continue
            if _lapsed(g, holder, o):
                continue
            due = deadline(g, int(o["day"]))
            if due is None or g.clock < due:
                return True
        return False

    def complaint_null(self, g: GameState, author: Player, trial: Trial) -> bool:
        return g.opt("A74") == "not_counted" and self.compels_complaint(g, author, trial)

    def after_complaint(self, ctx: Context, trial: Trial, complaint: Complaint) -> None:
        if not complaint.compelled:
            return
        for holder, o in self._orders_to(ctx.g, complaint.author):
            if o["kind"] == "complain" and o["trial"] == trial.number and o["status"] == "pending":
                self._status(ctx, holder, complaint.author, "obeyed")

    def _status(self, ctx: Context, holder: str, target: str, status: str) -> None:
        self.fact(ctx, holder, "order_status", {"target": target, "status": status})

    # -- the MJs' ruling (A45) ----------------------------------------------------------
    def record_order(self, ctx: Context, cmd: Command, actor: str) -> None:
        """``record_order`` (game master): ``player`` (the target), ``obeyed`` (A45).

        Raises:
            RuleViolation: ``unknown_player``, ``not_allowed`` (no order given to him, or
                already ruled disobedient), ``invalid_argument`` (``obeyed`` missing).
        """

        g = ctx.g
        target = player_seat(g, cmd.require("player"))
        cmd.require("obeyed")
        obeyed = cmd.flag("obeyed")
        given = self._orders_to(g, target)
        if not given:
            raise RuleViolation("not_allowed", f"{g.pseudo(target)} n'a reçu aucun ordre.")
        holder, o = given[-1]
        if o["status"] == "disobeyed":
            raise RuleViolation("not_allowed", "Désobéissance déjà enregistrée.")
        self._status(ctx, holder, target, "obeyed" if obeyed else "disobeyed")
        if obeyed:
            return
        due = deadline(g, int(o["day"]))
        lapsed = _lapsed(g, holder, o) or _impossible(g, target, o)
        if g.opt("A45") == "no_sanction" or due is None or lapsed or not g.players[target].masked:
            # (the game masters' eyes only: the real outcome, whatever waits)
            ctx.tell(
                [],
                "verdict_ignored",
                f"Désobéissance de {g.pseudo(target)} à la Petite Sirène : sans effet.",
                player=target,
            )
            return
        if ctx.now >= due:
            self._sanction_or_wait(ctx, holder, target, o)

    def _sanction_or_wait(self, ctx: Context, holder: str, target: str, o: dict[str, Any]) -> None:
        """A disobedience due now: sanctioned, or (A62 ``all_lapse``) judged at the
        announcement of the verdicts naming the Little Mermaid that wait (A77
        clarification 2): her fall before the due would void the order, and a fall or
        not now would tell their outcome. The result is found then, on the real outcome."""
        waiting = _waiting(ctx.g, holder)
        if waiting:
            self.fact(ctx, holder, "order_waits", {"target": target, "trials": waiting})
            return
        self._sanction(ctx, target, int(o["day"]))

    def _sanction(self, ctx: Context, target: str, order_day: int) -> None:
        unmask(
            ctx,
            target,
            "constraint",
            "A45",
            detail="ordre de la Petite Sirène non exécuté",
            cause_day=min(order_day + 1, LAST_DAY),
        )

    def _due_now(self, ctx: Context) -> None:
        g = ctx.g
        if g.opt("A45") == "no_sanction":
            return
        for p in list(g.players.values()):
            for target, o in p.data.get("orders", {}).items():
                if deadline(g, int(o["day"])) == ctx.now and _sanctioned(g, p.seat, target, o):
                    self._sanction_or_wait(ctx, p.seat, target, o)

    def after_announcement(self, ctx: Context, trial: Trial) -> None:
        """A disobedience that waited for the verdicts naming the Little Mermaid (A77
        clarification 2): once all are announced, judged on the real outcome (the order
        lapsed if she had fallen before its due, A62 ``all_lapse``; a verdict's fall dates
        from its conclusion), its sanction dating from now."""
        g = ctx.g
        for p in list(g.players.values()):
            for target, o in list(p.data.get("orders", {}).items()):
                numbers = o.get("waits")
                if not numbers or not settles(g, trial, numbers):
                    continue
                self.fact(ctx, p.seat, "order_settled", {"target": target})
                if _sanctioned(g, p.seat, target, o):
                    self._sanction_or_wait(ctx, p.seat, target, o)

    def after_day_closed(self, ctx: Context, day: int) -> None:
        self._due_now(ctx)

    def after_cutoff(self, ctx: Context) -> None:
        self._due_now(ctx)

    def apply_fact(self, g: GameState, p: Player, fact: CharacterFact) -> None:
        data = dict(fact.data)
        if fact.kind == "order":
            data["status"] = "pending"
            data["at"] = fact.at  # (when it was relayed: A45 (3))
            p.data.setdefault("orders", {})[str(data["target"])] = data
        elif fact.kind == "order_status":
            p.data["orders"][str(data["target"])]["status"] = data["status"]
        elif fact.kind == "order_waits":
            p.data["orders"][str(data["target"])]["waits"] = [int(n) for n in data["trials"]]
        elif fact.kind == "order_settled":
            p.data["orders"][str(data["target"])].pop("waits", None)

    # -- views --------------------------------------------------------------------------
    def private_view(self, g: GameState, p: Player) -> dict[str, object]:
        return {
            "orders": [
                {
                    "day": o["day"],
                    "player": g.pseudo(target),
                    "kind": o["kind"],
                    "status": o["status"],
                    **{k: o[k] for k in ("trial", "cell", "item") if k in o},
                }
                for target, o in p.data.get("orders", {}).items()
            ],
            "ordered_today": any(o["day"] == g.day() for o in p.data.get("orders", {}).values()),
        }

    def game_master_todo(self, g: GameState, p: Player, day: int) -> list[Todo]:
        out = super().game_master_todo(g, p, day)
        for target, o in p.data.get("orders", {}).items():
            if o["status"] != "pending":
                continue
            if o["day"] == day:
                out.append(
                    Todo(
                        f"Relayer l'ordre à {g.pseudo(target)} : {self._describe(g, o)}",
                        "send",
                        p.seat,
                        day_end(g.start, day),
                    )
                )
            if o["day"] in (day, day - 1) and o["kind"] != "complain":
                out.append(
                    Todo(
                        f"Juger l'ordre donné à {g.pseudo(target)} (J{o['day']}, échéance fin "
                        f"du J{o['day'] + 1}).",
                        "ruling",
                        p.seat,
                        day_end(g.start, o["day"] + 1),
                        action="record_order",
                        args={"player": g.pseudo(target)},
                    )
                )
        return out

    def describe_private(self, g: GameState, p: Player, data: dict[str, object]) -> list[str]:
        status = {
            "pending": "en attente",
            "obeyed": "obéi",
            "disobeyed": "désobéi",
        }
        out = []
        for o in rows(data, "orders"):
            kind = o.get("kind")
            if kind == "complain":
                what = f"porter plainte dans le Procès n°{o.get('trial')}"
            elif kind == "go_to":
                what = "aller à la case " + ",".join(str(v) for v in o.get("cell") or [])
            elif kind == "take_item":
                what = f"prendre l'objet {g.catalog.name(str(o.get('item')))}"
            else:
                what = "un ordre"
            fate = status.get(str(o.get("status")), "sans suite")
            out.append(f"J{o.get('day')} : ordre à {o.get('player')} de {what} — {fate}.")
        if not out:
            out.append("Vous n'avez encore donné aucun ordre.")
        if data.get("ordered_today"):
            out.append("Vous avez déjà donné un ordre aujourd'hui.")
        return out


def _lapsed(g: GameState, holder: str, o: dict[str, Any]) -> bool:
    """A62 ``all_lapse``: an order relayed ends with its giver's mask, if she falls
    before it is due. Read on the game as the caller reads it: as players know her in a
    player's command or a timer (a verdict's fall not yet announced does not count; a
    due reached meanwhile waits for it, :func:`_waiting`), as it is for the game masters
    and at an announcement (a verdict's fall dates from its conclusion)."""
    if g.opt("A62") != "all_lapse":
        return False
    p = g.players[holder]
    if p.masked or p.unmasked_at is None:
        return False
    due = deadline(g, int(o["day"]))
    return due is None or p.unmasked_at < due


def _sanctioned(g: GameState, holder: str, target: str, o: dict[str, Any]) -> bool:
    """Whether ``target``'s disobedience of ``holder``'s order ``o`` is sanctioned once
    due (A45): not ``no_sanction``, its target still masked, the order neither lapsed
    (A62) nor impossible (A45 (3))."""
    return (
        o["status"] == "disobeyed"
        and g.opt("A45") != "no_sanction"
        and g.players[target].masked
        and not _lapsed(g, holder, o)
        and not _impossible(g, target, o)
    )


def _waiting(g: GameState, holder: str) -> list[int]:
    """Under A62 ``all_lapse``, the verdicts not yet announced that name the Little
    Mermaid while ``holder`` is masked as players know her (A77 clarification 2): an
    order's due that falls meanwhile is judged at their announcement. Their public
    content decides, never who holds the Character (waiting only when she is the accused
    would itself tell the outcome)."""
    if g.opt("A62") != "all_lapse":
        return []
    if not g.players[holder].masked and holder not in hidden_now(g):
        return []  # (her fall is known: the orders lapsed or not, whatever waits)
    return [t.number for t in verdicts_naming(g, {LittleMermaid.id})]


def _impossible(g: GameState, target: str, o: dict[str, Any]) -> bool:
    """Whether a complaint order lapsed through no fault of its target (A45 (3)): the
    designated trial ended before he could complain in it after the order was relayed
    (asleep from the order to its end, R7.13.5). Otherwise not complaining is
    disobedience."""
    if o["kind"] != "complain" or "at" not in o:
        return False
    t = g.trials[int(o["trial"]) - 1]
    relayed: datetime = o["at"]
    if t.ended_at is None:
        return False  # (still open: he may still complain in it)
    if t.ended_at <= relayed:
        return True
    first, last = g.action_day(relayed), g.action_day(t.ended_at)
    return all(target in g.asleep.get(d, ()) for d in range(first, last + 1))


def _orders_by_target(g: GameState) -> dict[str, list[tuple[str, dict[str, Any]]]]:
    """Seat -> (Mermaid seat, order) of the orders given to him, in the players' order."""
    out: dict[str, list[tuple[str, dict[str, Any]]]] = {}
    for holder, p in g.players.items():
        orders = p.data.get("orders")
        if orders:
            for target, o in orders.items():
                out.setdefault(target, []).append((holder, o))
    return out
