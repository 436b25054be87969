"""Straw Man (Homme de paille, ``straw_man``), R7.20.

Glossary: Homme de paille → ``straw_man``.

Power (reward): at the end of the first trial against him that "aboutit" — A59
``split``: concluded by quorum or shortened by Chucky (status ``just``/``unjust``),
not cancelled for procedural defect (``cancelled_counts``: a cancelled one too) —
he is told at once which Characters filed the valid complaints in it (Characters
only, never players; "Extra" included) and the Ronde Characters among them join
his legal targets while masked (R7.20.3, R2.10). Standard visibility (R7.20.1).

Constraint (engine-judged, R6.20): once in W1 (J2–J7) and once in W2 (J8–J13
before 13:13) a trial against him gathers 4 valid complaints, the period being
that of the 4th valid complaint (R7.20.2). A59 ``split``: a quorate trial then
cancelled for procedural defect still counts (``cancelled_not_counted``: it does
not). A period that ends without one unmasks him at its end (J7 → J8 00:00; W2 →
J13 13:13). Sleep does not suspend it (R6.8). If such a trial accuses him of
being the Straw Man, it is JUST and unmasks him.

Jokers: none (R7.20.1).

Failure: an empty period (R7.20.2).

Inheritance: none.

Rule ids: R7.20.1, R7.20.2, R7.20.3, A59.
"""

from __future__ import annotations

from typing import ClassVar

from ..character import Character
from ..clock import DUTY_WINDOWS, LAST_DAY
from ..context import Context
from ..duties import judge_windows
from ..events import CharacterFact
from ..names import french_name
from ..ronde import slot_live
from ..sentences import names, period, table, values
from ..state import CHORUS, GameState, Player, Trial
from ..unmasking import before_verdicts
from ..work import Todo, day_end

PERIODS = DUTY_WINDOWS  # W1 and W2 (R3.8)
QUORUM = 4


class StrawMan(Character):
    """The Straw Man: wants to be accused, learns who accused him."""

    id: ClassVar[str] = "straw_man"
    constraint_days: ClassVar[tuple[int, int] | None] = None
    constraint_fr: ClassVar[str] = (
        "se faire accuser dans un Procès qui recueille 4 plaintes valides, une fois du J2 au "
        "J7 et une fois du J8 au J13 (13h13)"
    )
    power_fr: ClassVar[str] = (
        "apprend les Personnages qui ont porté plainte contre lui lors de son premier Procès abouti"
    )

    def learned(self, p: Player) -> list[str]:
        return list(p.data.get(self.id, {}).get("learned", []))

    def legal_targets(self, g: GameState, p: Player, *, anonymous: bool) -> set[str]:
        extra = {
            c
            for c in self.learned(p)
            if c != "extra" and c != p.character and c in g.ronde and slot_live(g, c)
        }
        return set(self.visible_set(g, p)) | extra

    # -- the constraint (R7.20.2, A59) -------------------------------------------------
    def gathered(self, g: GameState, seat: str, first: int, last: int) -> bool:
        """Whether a trial against ``seat`` got its 4th valid complaint in J``first``–J``last``."""
        for t in g.trials:
            if seat not in t.accused:
                continue
            valid = t.valid()
            if len(valid) < QUORUM:
                continue
            if t.status == "cancelled" and g.opt("A59") == "cancelled_not_counted":
                continue
            if first <= g.action_day(valid[QUORUM - 1].at) <= last:
                return True
        return False

    def _check(self, ctx: Context, p: Player, day: int) -> None:
        """End of W1 and W2: a trial against him got its 4th valid complaint (R7.20.2)."""
        g = ctx.g

        def missed(first: int, last: int) -> str | None:
            if self.gathered(g, p.seat, first, last):
                return None
            return f"aucun Procès à 4 plaintes contre lui du J{first} au J{last}"

        # (the Revenant: only periods that start after the assignment, A61)
        since = self.role_since(g, p)
        judge_windows(
            ctx, p, day, PERIODS, since=since, missed=missed, cause="duty", rule="R7.20.2"
        )

    def on_day_closed(self, ctx: Context, p: Player, day: int) -> None:
        if day < LAST_DAY:
            self._check(ctx, p, day)

    def on_cutoff(self, ctx: Context, p: Player) -> None:
        self._check(ctx, p, LAST_DAY)

    # -- the reward (R7.20.3, A59) ----------------------------------------------------
    def after_trial_ended(self, ctx: Context, trial: Trial) -> None:
        g = ctx.g
        ends = trial.status in ("just", "unjust") or (
            trial.status == "cancelled" and g.opt("A59") == "cancelled_counts"
        )
        if not ends:
            return

        # the accused this verdict unmasked learns them too while it is not announced:
        # what he is told may not depend on the outcome (A77)
        with before_verdicts(g):
            holders = [s for s in trial.accused if self.holds(g, g.players[s])]
        for seat in holders:
            p = g.players[seat]
            if "reward_trial" in p.data.get(self.id, {}):
                continue
            characters: list[str] = []
            for c in trial.valid():
                if c.author == CHORUS:
                    continue
                q = g.players[c.author]
                character = (q.character if q.masked else q.original) or "extra"
                if character not in characters:
                    characters.append(character)
            self.fact(
                ctx, seat, "reward", {"trial": trial.number, "characters": sorted(characters)}
            )
            names = ", ".join(french_name(c) for c in sorted(characters)) or "aucun"
            ctx.tell(
                [seat],
                "straw_man_reward",
                f"Procès n°{trial.number} : ont porté plainte contre vous : {names}.",
                characters=sorted(characters),
            )

    def apply_fact(self, g: GameState, p: Player, fact: CharacterFact) -> None:
        if fact.kind == "reward":
            mine = p.data.setdefault(self.id, {})
            mine["reward_trial"] = int(fact.data["trial"])
            mine["learned"] = [str(c) for c in fact.data["characters"]]

    # -- views --------------------------------------------------------------------
    def private_view(self, g: GameState, p: Player) -> dict[str, object]:
        return {
            "learned_complainers": self.learned(p),
            "periods_met": {f"J{a}-J{b}": self.gathered(g, p.seat, a, b) for a, b in PERIODS},
        }

    def game_master_todo(self, g: GameState, p: Player, day: int) -> list[Todo]:
        for first, last in PERIODS:
            if first <= day <= last and not self.gathered(g, p.seat, first, last):
                text = f"pas encore de Procès à 4 plaintes contre lui (J{first}–J{last})"
                end = day_end(g.start, last)
                return [Todo(text, "watch", p.seat, end, "démasqué à la fin de la période")]
        return []

    def describe_private(self, g: GameState, p: Player, data: dict[str, object]) -> list[str]:
        learned = values(data, "learned_complainers")
        out = [f"Personnages de vos plaignants, appris des MJ : {names(learned)}."]
        out += [
            f"Procès à 4 plaintes contre vous {period(k)} : {'obtenu' if ok else 'pas encore'}."
            for k, ok in table(data, "periods_met").items()
        ]
        return out
