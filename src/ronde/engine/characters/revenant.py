"""Revenant (``revenant``), R7.22.

Glossary: Revenant → ``revenant``; a given role → ``give_revenant_role`` (a
game-master action: ``character``, the role of an unmasked Character — "extra"
once an Extra has fallen).

Power: none of his own; standard visibility, no constraint, no Jokers (R7.22.1).
The MJs give him, one at a time, the roles of two unmasked Characters
(``p.data["given_roles"]``: role -> day given). From each assignment he has that
role's advantages and constraints (R7.22.2), under A61: (1) its counters start
afresh (each module keeps its own data under its id); (2) its daily constraints
from the day after the assignment (``role_since``), its windowed duties only for
windows starting after it (the modules of this issue check it); (3) a role's
visibility (Seer, Knight, Mime) is added to his own standard set, computed from
his own slot (``Character.slot``); (4) Jokers: the role's items, at most 2 for him
as a player (A24); (5) with the Extra role he may accuse any Character and has the
Extras' constraint, but he is not one of the six Extras: immune to the Prompter's
and the chorus's candle, never drawn under A50 (R7.22.5).

Powers of a role are dispatched here first (``game._power``) and delegated to the
role's module, whose handlers check ``holds``; the per-player hooks (targets,
openings, complaints, anonymous rights, nullity, scoring, protection, duties,
views) combine his own behaviour with his roles'. A trial against him is JUST only
if it accuses him of being the Revenant (R7.22.3, R4.9.2).

Constraint: those of his roles (``constraint_span``), judged like theirs.

Jokers: those of his roles (R6.10, A24).

Failure: as his roles; a JUST trial only as "Revenant" (R7.22.3).

Inheritance: when he is unmasked, the roles of Woody, Pierrot, Polichinelle,
Destiny and the Prompter still hand their powers to the chorus (their
``unlock_chorus``; Destiny's: his own schedule, R7.22.4).

House choices: the Diva's publicity does not pass with her role (it starts at
J2 00:00 and concerns the Diva); the Decorators' role gives the one-item daily
constraint without a contest.

Rule ids: R7.22.1, R7.22.2, R7.22.3, R7.22.4, R7.22.5, A24, A61.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import ClassVar

from ..character import ActionHandler, Character
from ..commands import Command
from ..context import Context
from ..errors import RuleViolation
from ..events import CharacterFact
from ..names import french_name, resolve_character
from ..ronde import slot_live
from ..sentences import name, table
from ..state import Complaint, GameState, Player, Trial
from ..visibility import notify_new_targets
from ..work import Todo

MAX_ROLES = 2


class Revenant(Character):
    """The Revenant: the roles of two unmasked Characters.

    ``registry`` gives the characters whose roles he may be given: the registry he is
    listed in (:mod:`ronde.engine.registry`), read when first asked (it lists him too).
    """

    def __init__(self, registry: Callable[[], Mapping[str, Character]]) -> None:
        self._registry = registry

    id: ClassVar[str] = "revenant"
    constraint_days: ClassVar[tuple[int, int] | None] = None
    power_fr: ClassVar[str] = "reçoit des MJ les rôles de deux Personnages démasqués"

    def roles(self, p: Player) -> list[str]:
        return [str(r) for r in p.data.get("given_roles", {})]

    def modules(self, p: Player) -> list[Character]:
        registry = self._registry()
        return [registry[r] for r in self.roles(p)]

    # -- the assignment (R7.22.2) -----------------------------------------------------
    def gm_actions(self) -> Mapping[str, ActionHandler]:
        return {"give_revenant_role": self.give_revenant_role}

    def give_revenant_role(self, ctx: Context, cmd: Command, actor: str) -> None:
        """``give_revenant_role`` (game master): ``character``, an unmasked Character's role.

        Raises:
            RuleViolation: ``not_allowed`` (no masked Revenant, a masked Character, his
                own, one already given), ``power_exhausted`` (two roles given),
                ``unknown_character``.
        """
        g = ctx.g
        if g.play_ended:
            raise RuleViolation("game_not_running", "La partie est terminée.")
        holders = g.masked_holders(self.id)
        if not holders:
            raise RuleViolation("not_allowed", "Aucun Revenant masqué.")
        p = g.players[holders[0]]
        role = resolve_character(str(cmd.require("character")))
        if role == self.id or role in self.roles(p):
            raise RuleViolation("not_allowed", f"Le Revenant a déjà le rôle {french_name(role)}.")
        if len(self.roles(p)) >= MAX_ROLES:
            raise RuleViolation("power_exhausted", "Le Revenant a déjà reçu deux rôles.")
        fallen = (
            g.extra_unmaskings > 0
            if role == "extra"
            else role in g.ronde and not slot_live(g, role)
        )
        if not fallen:
            raise RuleViolation(
                "not_allowed", f"{french_name(role)} n'est pas un Personnage démasqué."
            )
        day = g.day(ctx.now)
        self.fact(ctx, p.seat, "role_given", {"role": role, "day": day})
        ctx.tell(
            [p.seat],
            "revenant_role",
            f"Vous recevez le rôle : {french_name(role)} (ses contraintes dès le J{day + 1}).",
            role=role,
        )

        notify_new_targets(ctx)

    def apply_fact(self, g: GameState, p: Player, fact: CharacterFact) -> None:
        if fact.kind == "role_given":
            p.data.setdefault("given_roles", {})[str(fact.data["role"])] = int(fact.data["day"])

    # -- powers: delegated to the role's module --------------------------------------------
    def actions(self) -> Mapping[str, ActionHandler]:
        names = {
            name
            for cid, module in self._registry().items()
            if cid != self.id
            for name in module.actions()
        }
        return {name: self._delegate(name) for name in sorted(names)}

    def _delegate(self, name: str) -> ActionHandler:
        def handler(ctx: Context, cmd: Command, actor: str) -> None:
            p = ctx.g.players[actor]
            for module in self.modules(p):
                own = module.actions().get(name)
                if own is not None:
                    own(ctx, cmd, actor)
                    return
            owner = next(
                m for cid, m in self._registry().items() if cid != self.id and name in m.actions()
            )
            owner.actions()[name](ctx, cmd, actor)

        return handler

    # -- visibility and trial hooks: his own, extended by his roles ------------------------
    def visible_set(self, g: GameState, p: Player) -> list[str]:
        out = super().visible_set(g, p)
        for module in self.modules(p):
            out += [c for c in module.visible_set(g, p) if c not in out]
        return out

    def legal_targets(self, g: GameState, p: Player, *, anonymous: bool) -> set[str]:
        out = set(super().visible_set(g, p))
        for module in self.modules(p):
            out |= module.legal_targets(g, p, anonymous=anonymous)
        return out - {self.id}

    def check_open(self, g: GameState, p: Player, *, anonymous: bool) -> None:
        for module in self.modules(p):
            module.check_open(g, p, anonymous=anonymous)

    def check_complaint(self, g: GameState, p: Player, trial: Trial, *, anonymous: bool) -> None:
        for module in self.modules(p):
            module.check_complaint(g, p, trial, anonymous=anonymous)

    def anonymous_right(self, g: GameState, p: Player, *, opening: bool) -> str | None:
        for module in self.modules(p):
            right = module.anonymous_right(g, p, opening=opening)
            if right is not None:
                return right
        return None

    def extra_actions(self, g: GameState, p: Player, *, anonymous: bool) -> int:
        return sum(m.extra_actions(g, p, anonymous=anonymous) for m in self.modules(p))

    def null_as_author(self, g: GameState, p: Player, trial: Trial) -> bool:
        return any(m.null_as_author(g, p, trial) for m in self.modules(p))

    def null_against(self, g: GameState, accused: Player, author: Player, trial: Trial) -> bool:
        return any(m.null_against(g, accused, author, trial) for m in self.modules(accused))

    def scores_in_trials(
        self, g: GameState, p: Player, trial: Trial, complaint: Complaint | None
    ) -> bool:
        return all(m.scores_in_trials(g, p, trial, complaint) for m in self.modules(p))

    def accusation_true(self, g: GameState, accused: Player, trial: Trial) -> bool | None:
        """Only "Revenant" is true; a role he was given is not (R7.22.3)."""
        return trial.supposed == self.id

    def escapes_unmasking(
        self, g: GameState, p: Player, cause: str, trial: Trial | None, cause_day: int
    ) -> bool:
        return any(m.escapes_unmasking(g, p, cause, trial, cause_day) for m in self.modules(p))

    # -- constraints and duties of his roles (A61) ------------------------------------------
    def constraint_span(self, g: GameState, p: Player) -> tuple[int, int] | None:
        spans = []
        for module in self.modules(p):
            span = module.constraint_span(g, p)
            since = module.role_since(g, p)
            if span is not None and since is not None and max(span[0], since) <= span[1]:
                spans.append((max(span[0], since), span[1]))
        if not spans:
            return None
        return (min(a for a, _ in spans), max(b for _, b in spans))

    def on_day_closed(self, ctx: Context, p: Player, day: int) -> None:
        for module in self.modules(p):
            since = module.role_since(ctx.g, p)
            if since is not None and day >= since and p.masked:
                module.on_day_closed(ctx, p, day)

    def on_cutoff(self, ctx: Context, p: Player) -> None:
        for module in self.modules(p):
            if p.masked and module.role_since(ctx.g, p) is not None:
                module.on_cutoff(ctx, p)

    def on_unmasked(self, ctx: Context, p: Player) -> None:
        for module in self.modules(p):
            module.unlock_chorus(ctx, p.seat)

    # -- Jokers (A24) ----------------------------------------------------------------------
    def jokers_allowed(self, g: GameState, p: Player) -> bool:
        return any(m.jokers_allowed(g, p) for m in self.modules(p))

    def joker_refusal(self, g: GameState, p: Player, items: list[str]) -> str | None:
        reasons = [m.joker_refusal(g, p, items) for m in self.modules(p) if m.jokers_allowed(g, p)]
        if any(r is None for r in reasons):
            return None
        return reasons[0] if reasons else "Le Revenant n'a pas de Joker."

    # -- views -----------------------------------------------------------------------------
    def private_view(self, g: GameState, p: Player) -> dict[str, object]:
        out: dict[str, object] = {}
        for module in self.modules(p):
            out.update(module.private_view(g, p))
        out["given_roles"] = {r: int(d) for r, d in p.data.get("given_roles", {}).items()}
        return out

    def game_master_todo(self, g: GameState, p: Player, day: int) -> list[Todo]:
        out = []
        for role, module in zip(self.roles(p), self.modules(p), strict=True):
            since = module.role_since(g, p) or 99
            if day >= since - 1:
                out += [
                    replace(x, text=f"(rôle {french_name(role)}) {x.text}")
                    for x in module.game_master_todo(g, p, day)
                ]
        fallen = g.extra_unmaskings > 0 or any(not slot_live(g, c) for c in g.ronde)
        if len(self.roles(p)) < MAX_ROLES and fallen:
            out.append(
                Todo(
                    "lui donner un rôle de Personnage démasqué quand les MJ le décident",
                    "setup",
                    p.seat,
                    action="give_revenant_role",
                )
            )
        return out

    def describe_private(self, g: GameState, p: Player, data: dict[str, object]) -> list[str]:
        given = table(data, "given_roles")
        if not given:
            return ["Les MJ ne vous ont encore donné aucun rôle."]
        roles = ", ".join(f"{name(r)} (J{d})" for r, d in given.items())
        out = [f"Rôles reçus : {roles}."]
        for module in self.modules(p):
            out += [x for x in module.describe_private(g, p, data) if x not in out]
        return out
