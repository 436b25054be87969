"""Guignol (``guignol``), R7.5.

Glossary: Guignol → ``guignol``.

Power: immunity: from J8 00:00 he can no longer be unmasked, for any cause; an
unmasking whose cause occurred before J8 still applies (R7.5.3). A JUST trial
against him from J8 scores as just but unmasks nobody (A39 ``just_no_unmask``),
or counts as UNJUST (A39 ``unjust``). Standard visibility (R7.5.1).

Constraint: secret, given by the MJs as text; concerns his posts on the FV; judged
by an MJ, presumed met (R7.5.2, A1); it no longer applies from J8. The MJs record
it with ``set_guignol_constraint`` (a game-master action, ``text``: an addition of
this module, the page's MJs give it by MP); it is told to him with his role at the
end of J1 (R1.8), or at once if given later, and shown in his view and in the
MJs' to-do list until J7.

Jokers: none (R7.5.1).

Failure: a failed constraint before J8 (R6.2); a JUST trial concluded before J8.

Inheritance: none.

Rule ids: R7.5.1, R7.5.2, R7.5.3, A39.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

from ..character import ActionHandler, Character
from ..commands import Command
from ..context import Context
from ..errors import RuleViolation
from ..events import CharacterFact
from ..state import GameState, Player, Trial
from ..work import Todo, day_end

IMMUNE_FROM = 8


class Guignol(Character):
    """Guignol: immune from J8."""

    id: ClassVar[str] = "guignol"
    #: his secret constraint applies until J7: from J8 he is immune (R7.5.3)
    constraint_days: ClassVar[tuple[int, int] | None] = (2, 7)
    constraint_fr: ClassVar[str] = "sa contrainte secrète (donnée par les MJ), jusqu'au J7"
    power_fr: ClassVar[str] = "ne peut plus être démasqué à partir du J8"

    def escapes_unmasking(
        self, g: GameState, p: Player, cause: str, trial: Trial | None, cause_day: int
    ) -> bool:
        return cause_day >= IMMUNE_FROM

    def keeps_mask_if_just(self, g: GameState, accused: Player, trial: Trial) -> bool:
        # reached from J8: a JUST verdict leaves him masked (R7.5.3, A39)
        return trial.ended_at is not None and g.day(trial.ended_at) >= IMMUNE_FROM

    def accusation_true(self, g: GameState, accused: Player, trial: Trial) -> bool | None:
        if g.opt("A39") == "unjust" and g.clock is not None and g.day(g.clock) >= IMMUNE_FROM:
            return False
        return None

    # -- the secret constraint (R7.5.2) ----------------------------------------------
    def gm_actions(self) -> Mapping[str, ActionHandler]:
        return {"set_guignol_constraint": self.set_guignol_constraint}

    def set_guignol_constraint(self, ctx: Context, cmd: Command, actor: str) -> None:
        """``set_guignol_constraint`` (game master): ``text``, his secret constraint.

        Raises:
            RuleViolation: ``not_allowed`` (no masked Guignol), ``out_of_window`` (from
                J8 he has no constraint), ``invalid_argument`` (empty text).
        """
        g = ctx.g
        holders = g.masked_holders(self.id)
        if not holders:
            raise RuleViolation("not_allowed", "Aucun Guignol masqué.")
        if g.day(ctx.now) >= IMMUNE_FROM:
            raise RuleViolation("out_of_window", "Guignol n'a plus de contrainte à partir du J8.")
        text = " ".join(str(cmd.require("text")).split())
        if not text:
            raise RuleViolation("invalid_argument", "Contrainte vide.")
        self.fact(ctx, holders[0], "secret_constraint", {"text": text})
        if g.days_closed >= 1:
            self._tell(ctx, g.players[holders[0]])

    def _tell(self, ctx: Context, p: Player) -> None:
        text = self.secret(p)
        if text:
            ctx.tell([p.seat], "guignol_constraint", f"Votre contrainte secrète : {text}")

    @staticmethod
    def secret(p: Player) -> str | None:
        value = p.data.get("guignol", {}).get("secret")
        return str(value) if value else None

    def on_day_closed(self, ctx: Context, p: Player, day: int) -> None:
        if day == 1:
            self._tell(ctx, p)  # with the role reveal (R1.8)

    def apply_fact(self, g: GameState, p: Player, fact: CharacterFact) -> None:
        if fact.kind == "secret_constraint":
            p.data.setdefault(self.id, {})["secret"] = str(fact.data["text"])

    def private_view(self, g: GameState, p: Player) -> dict[str, object]:
        return {"secret_constraint": self.secret(p), "immune": g.day() >= IMMUNE_FROM}

    def game_master_todo(self, g: GameState, p: Player, day: int) -> list[Todo]:
        text = self.secret(p)
        if day >= IMMUNE_FROM:
            return []
        if text is None:
            return [
                Todo(
                    "lui donner sa contrainte secrète",
                    "setup",
                    p.seat,
                    day_end(g.start, max(day, 1)),
                    "il n'a aucune contrainte à respecter",
                    "set_guignol_constraint",
                )
            ]
        if day < 2:
            return []
        return [self.constraint_todo(g, p, day, f"vérifier sa contrainte secrète : {text}")]

    def describe_private(self, g: GameState, p: Player, data: dict[str, object]) -> list[str]:
        secret = data.get("secret_constraint")
        out = [
            f"Votre contrainte secrète : {secret}."
            if secret
            else "Les MJ ne vous ont pas encore donné votre contrainte secrète."
        ]
        if data.get("immune"):
            out.append(f"Depuis le J{IMMUNE_FROM}, votre contrainte secrète ne vous lie plus.")
        return out
