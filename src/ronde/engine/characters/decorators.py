"""The Decorators (Décorateurs, ``decorators``; each holder a ``decorator``), R7.6.

Glossary: Décorateurs → ``decorators``; objet de décoration → ``decoration_item``
(the page's own definition, R6.15: for the Decorators it always includes the
special 0-point items, whatever A73 says elsewhere).

Power: none. Both sit in one slot and share one visible set (R7.6.1, R2.7). A
trial against the Decorators names both players while both are masked, and is
JUST only if both are the Decorators; it then unmasks both; once one is unmasked
it names the remaining one (R7.6.2, A5) — enforced by the trial code.

Constraint (engine-judged, R6.20, from ``g.items_log``): every day J2–J13 (J13
before 13:13) each Decorator sends the MJs at least one decoration item (R7.6.3);
none unmasks him at the end of the day (cause ``constraint``).

Contest (R7.6.4): each day while both are masked, the one who sent more
decoration items beats the other, equal numbers tie. Beaten 3 days in a row or 6
times in all: the beaten one is unmasked; 2 ties in a row or 4 in all: both. A
day of the other kind breaks a run. A41 ``no_result``: a day on which one of them
sleeps (or is exempted) has no result and breaks nothing, and the sleeper need
not send; ``counts``: it counts as usual. Each result is told to both at the start
of the next day (R7.6.5). Constraint failures of the day are applied before the
contest's sanctions.

The survivor (R7.6.6): once one is unmasked, the other sends at least one
decoration item every two days instead: A10 ``fixed`` — two-day windows from the
day after his partner's fall (a window reaching past J13 is not judged);
``sliding`` — never two days in a row without one. A23 lowers or waives a window
with a sleep day.

A verdict not yet announced that names the Decorators decides whether the pair still
stands: the days that end while it waits (items, contest, survivor) are settled at its
announcement, in order, on the real outcome (A77 clarification 2).

A40 ``unknown``: they are not told each other; ``known``: each learns the other
at the role reveal.

Jokers: none (R7.6.1).

Failure: a day (or, for the survivor, a window) without an item; the contest.

Inheritance: none.

Rule ids: R7.6.1, R7.6.2, R7.6.3, R7.6.4, R7.6.5, R7.6.6, A5, A10, A23, A40, A41, A73.
"""

from __future__ import annotations

from datetime import datetime
from typing import ClassVar

from ..character import Character
from ..clock import LAST_DAY, cutoff_1313
from ..constraints import covered
from ..context import Context
from ..events import CharacterFact, IdentityLearned
from ..sentences import number, people, plural, table, values
from ..state import GameState, Player, Trial
from ..unmasking import all_announced, verdicts_naming
from ..verdicts import unmask
from ..work import Todo, day_end

WIN_RUN, WIN_TOTAL = 3, 6
TIE_RUN, TIE_TOTAL = 2, 4


def items_sent(g: GameState, seat: str, day: int) -> int:
    """Decoration items ``seat`` sent the MJs during ``day`` (J13: before 13:13)."""
    limit = cutoff_1313(g.start) if day == LAST_DAY else None
    n = 0
    for at, sender, _to, items in g.items_log:
        if sender != seat or g.action_day(at) != day or (limit is not None and at >= limit):
            continue
        n += sum(1 for i in items if g.catalog.is_decoration(i, definition="everywhere"))
    return n


def fall_day(g: GameState, seat: str) -> int:
    """The day of ``seat``'s unmasking: the day its instant falls in (R3.2: a fall at the
    end of a day, at 00:00, is on the next day; as the Tragic Hero's next choice, A56)."""
    at = g.players[seat].unmasked_at
    assert at is not None
    return g.day(at)


class Decorators(Character):
    """The Decorators: daily items and their contest."""

    id: ClassVar[str] = "decorators"
    constraint_days: ClassVar[tuple[int, int] | None] = None
    constraint_fr: ClassVar[str] = (
        "envoyer chaque jour aux MJ au moins un objet de décoration (concours avec l'autre "
        "Décorateur)"
    )

    # -- the contest ------------------------------------------------------------------
    @staticmethod
    def results(g: GameState) -> list[tuple[int, str]]:
        """(day, winner seat | ``tie`` | ``none``) for each contest day so far."""
        return [(int(d), str(r)) for d, r in g.flags.get("decorators_contest", [])]

    @staticmethod
    def tally(results: list[tuple[int, str]], kind: str) -> tuple[int, int]:
        """(current run, total) of results equal to ``kind`` (``none`` days skipped)."""
        kept = [r for _, r in results if r != "none"]
        total = sum(1 for r in kept if r == kind)
        run = 0
        for r in reversed(kept):
            if r != kind:
                break
            run += 1
        return run, total

    def _settle(self, ctx: Context, day: int, *, settling: bool = False) -> None:
        """The end of ``day`` for the pair: items, contest, survivor (once per day);
        ``settling``: a day that waited for a verdict naming them, settled now (A77)."""

        g = ctx.g
        if day < 2 or day in g.flags.get("decorators_settled", []):
            return
        holders = sorted(g.holders.get(self.id, []))
        masked = [s for s in holders if g.players[s].masked and g.players[s].character == self.id]
        if not masked:
            return
        waiting = [] if settling else verdicts_naming(g, {self.id})
        if waiting or (not settling and g.flags.get("decorators_waits")):
            # a verdict not yet announced names the Decorators: whether the pair still
            # stands (contest, survivor) depends on its outcome: the day is settled at
            # its announcement, with the days after it (A77 clarification 2)
            trials = [t.number for t in waiting]
            self.fact(ctx, holders[0], "settle_waits", {"day": day, "trials": trials})
            return
        if len(masked) == 2:
            a, b = masked
            off = [s for s in masked if covered(g, s, day)]
            counts = {s: items_sent(g, s, day) for s in masked}
            if off and g.opt("A41") == "no_result":
                result = "none"
            elif counts[a] == counts[b]:
                result = "tie"
            else:
                result = a if counts[a] > counts[b] else b
            self.fact(ctx, a, "contest", {"day": day, "result": result})
            for s in masked:
                other = b if s == a else a
                text = {
                    "none": "pas de résultat (sommeil)",
                    "tie": "égalité avec l'autre Décorateur",
                    s: "vous avez battu l'autre Décorateur",
                    other: "vous avez été battu par l'autre Décorateur",
                }[result]
                ctx.tell([s], "decorators_contest", f"Concours du J{day} : {text}.", day=day)
            for s in masked:
                if s not in off and counts[s] == 0:
                    unmask(ctx, s, "constraint", "R7.6.3", detail=f"J{day}", cause_day=day)
            self._sanction(ctx, masked, day)
            return
        self.fact(ctx, masked[0], "contest", {"day": day, "result": None})
        self._survivor(ctx, masked[0], holders, day)

    def _sanction(self, ctx: Context, pair: list[str], day: int) -> None:
        g = ctx.g
        results = self.results(g)
        run, total = self.tally(results, "tie")
        if run >= TIE_RUN or total >= TIE_TOTAL:
            for s in pair:
                unmask(ctx, s, "duty", "R7.6.4", detail="égalités au concours", cause_day=day)
            return
        for winner in pair:
            loser = pair[1] if winner == pair[0] else pair[0]
            run, total = self.tally(results, winner)
            if run >= WIN_RUN or total >= WIN_TOTAL:
                unmask(ctx, loser, "duty", "R7.6.4", detail="battu au concours", cause_day=day)

    def _survivor(self, ctx: Context, seat: str, holders: list[str], day: int) -> None:
        """Every two days once his partner is unmasked (R7.6.6, A10, A23)."""

        g = ctx.g
        partners = [s for s in holders if s != seat and not g.players[s].masked]
        if not partners:
            return
        start = fall_day(g, partners[0]) + 1
        if g.opt("A10") == "sliding" or (day - start) % 2 == 1:
            window = [day - 1, day]
        else:
            return
        if window[0] < start:
            return
        off = sum(1 for d in window if covered(g, seat, d))
        mode = g.opt("A23")
        needed = 1 if mode == "full" or not off else 0
        if sum(items_sent(g, seat, d) for d in window) < needed:
            unmask(
                ctx,
                seat,
                "constraint",
                "R7.6.6",
                detail=f"aucun objet du J{window[0]} au J{window[1]}",
                cause_day=day,
            )

    def after_announcement(self, ctx: Context, trial: Trial) -> None:
        """The days that waited for verdicts naming the Decorators, in order, once those
        are announced (A77): settled now, on the game as it is."""
        g = ctx.g
        while True:
            waits = g.flags.get("decorators_waits", [])
            if not waits:
                return
            first = waits[0]
            if not all_announced(g, first["trials"]):
                return
            holders = sorted(g.holders.get(self.id, []))
            self.fact(ctx, holders[0], "settle_done", {"day": first["day"]})
            self._settle(ctx, int(first["day"]), settling=True)

    # -- timers -------------------------------------------------------------------------
    def after_day_closed(self, ctx: Context, day: int) -> None:
        if day < LAST_DAY:
            self._settle(ctx, day)

    def on_cutoff(self, ctx: Context, p: Player) -> None:
        if p.character == self.id:
            self._settle(ctx, LAST_DAY)
        else:
            self._given_role(ctx, p, LAST_DAY)

    def on_day_closed(self, ctx: Context, p: Player, day: int) -> None:
        g = ctx.g
        if day == 1 and p.character == self.id and g.opt("A40") == "known":
            for other in g.holders.get(self.id, []):
                if other != p.seat:
                    ctx.emit(
                        IdentityLearned(
                            at=ctx.now,
                            player=p.seat,
                            other=other,
                            character=self.id,
                            source="decorators",
                        )
                    )
        if p.character != self.id and day < LAST_DAY:
            self._given_role(ctx, p, day)

    def _given_role(self, ctx: Context, p: Player, day: int) -> None:
        """The Revenant given this role: one decoration item a day, no contest (A61)."""

        since = self.role_since(ctx.g, p)
        if since is None or day < since or covered(ctx.g, p.seat, day):
            return
        if items_sent(ctx.g, p.seat, day) == 0:
            unmask(ctx, p.seat, "constraint", "R7.6.3", detail=f"J{day}", cause_day=day)

    def apply_fact(self, g: GameState, p: Player, fact: CharacterFact) -> None:
        if fact.kind == "settle_waits":
            wait = {"day": int(fact.data["day"]), "trials": list(fact.data["trials"])}
            g.flags["decorators_waits"] = [*g.flags.get("decorators_waits", []), wait]
            return
        if fact.kind == "settle_done":
            waits = g.flags.get("decorators_waits", [])
            g.flags["decorators_waits"] = [w for w in waits if w["day"] != fact.data["day"]]
            return
        if fact.kind == "contest":
            day = int(fact.data["day"])
            g.flags["decorators_settled"] = [*g.flags.get("decorators_settled", []), day]
            if fact.data.get("result") is not None:
                g.flags["decorators_contest"] = [
                    *g.flags.get("decorators_contest", []),
                    (day, str(fact.data["result"])),
                ]

    # -- views --------------------------------------------------------------------------
    def private_view(self, g: GameState, p: Player) -> dict[str, object]:
        results = self.results(g)
        others = [s for s in g.holders.get(self.id, []) if s != p.seat]
        mine = {
            "won": sum(1 for _, r in results if r == p.seat),
            "lost": sum(1 for _, r in results if r not in (p.seat, "tie", "none")),
            "ties": sum(1 for _, r in results if r == "tie"),
        }
        day = g.action_day(g.clock) if isinstance(g.clock, datetime) else 0
        return {
            "contest": mine,
            "items_today": items_sent(g, p.seat, day),
            "partner": [g.pseudo(s) for s in others if s in p.learned],
        }

    def game_master_todo(self, g: GameState, p: Player, day: int) -> list[Todo]:
        if 2 <= day <= LAST_DAY:
            text = f"objets de décoration reçus aujourd'hui : {items_sent(g, p.seat, day)}"
            return [Todo(text, "watch", p.seat, day_end(g.start, day))]
        return []

    def describe_private(self, g: GameState, p: Player, data: dict[str, object]) -> list[str]:
        c = table(data, "contest")
        out = [
            "Concours des Décorateurs : "
            f"{plural(int(c.get('won', 0)), 'jour gagné', 'jours gagnés')}, "
            f"{plural(int(c.get('lost', 0)), 'perdu', 'perdus')}, "
            f"{plural(int(c.get('ties', 0)), 'à égalité', 'à égalité')}."
        ]
        n = number(data, "items_today")
        out.append(
            f"Objets de décoration envoyés aux MJ aujourd'hui : {plural(n, 'objet', 'objets')}."
        )
        partner = values(data, "partner")
        if partner:
            out.append(f"Votre partenaire Décorateur : {people(partner)}.")
        return out
