"""Mime (``mime``), R7.9.

Glossary: Mime → ``mime``; his model (le joueur qu'il mime) → ``mime_target``,
designated by the MJs with ``assign_mime_target`` (a game-master action:
``player``, and ``mime`` to name the Revenant holding the role).

Power: none. Visibility: his standard set plus the 2 Characters that follow his
model's Character, Forward(slot of the model, 2) without his own slot, which he
may accuse too; the addition follows the current model (R7.9.3) and stays 2 with
the boost (A7). A44: no addition while the model is outside the Ronde (an Extra,
a new Extra) or unmasked.

Model: the MJs designate it on J1, told to him at the role reveal (R1.8), and a
new one when the model is unmasked or too thin (R7.9.1): when his model falls, he
and the MJs are told at once, and the MJs' to-do list asks for a new model while
he has none usable.

Constraint: every day his Registre holds 7 distinct entries identical to entries
of his model's Registre of the day before (completed from the day before that),
a GP constraint shown by screenshots (R7.9.2, R6.7); judged by an MJ, presumed
met (A1).

Jokers: at most two; each is two identical decoration items sent in one MP to
one MJ (R7.9.4, R6.12; A73 picks the definition; a Teckel or a chain cannot be
sent twice to one MJ, R6.15).

Failure: a failed constraint recorded by an MJ (R6.2).

Inheritance: none.

Rule ids: R7.9.1, R7.9.2, R7.9.3, R7.9.4, A7, A44.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

from ..character import ActionHandler, Character
from ..commands import Command
from ..context import Context
from ..errors import RuleViolation
from ..events import CharacterFact
from ..items import ONE_PER_GAME_MASTER
from ..ronde import forward, window
from ..sentences import names, values
from ..state import GameState, Player
from ..trials import player_seat
from ..visibility import notify_new_targets
from ..work import Todo, day_end

ADDED = 2


class Mime(Character):
    """The Mime: imitates a model, sees what follows it."""

    id: ClassVar[str] = "mime"
    has_jokers: ClassVar[bool] = True
    constraint_fr: ClassVar[str] = (
        "7 entrées de son Registre du jour identiques à celles du Registre de son modèle la veille"
    )
    power_fr: ClassVar[str] = "connaît aussi les 2 Personnages qui suivent celui de son modèle"

    def model(self, p: Player) -> str | None:
        model = p.data.get(self.id, {}).get("model")
        return str(model) if model is not None else None

    def model_slot(self, g: GameState, p: Player) -> str | None:
        """The slot of his model's Character, if the model is a masked Ronde player (A44)."""
        seat = self.model(p)
        if seat is None:
            return None
        q = g.players[seat]
        if q.masked and q.character in g.ronde:
            return q.character
        return None

    def added(self, g: GameState, p: Player) -> list[str]:
        """Forward(slot of the model, 2) without his own slot (R7.9.3)."""
        slot = self.model_slot(g, p)
        if slot is None:
            return []
        own = self.slot(g, p)
        return [c for c in forward(g, slot, ADDED) if c != own]

    def visible_set(self, g: GameState, p: Player) -> list[str]:
        out = forward(g, self.slot(g, p), window(g))
        return out + [c for c in self.added(g, p) if c not in out]

    # -- Jokers (R7.9.4) ------------------------------------------------------------------
    def joker_refusal(self, g: GameState, p: Player, items: list[str]) -> str | None:
        if len(items) != 2 or items[0] != items[1]:
            return "Le Joker du Mime : deux objets de décoration identiques dans un même MP."
        item = items[0]
        if not g.catalog.is_decoration(item, definition=g.opt("A73")):
            return f"{g.catalog.name(item)} n'est pas un objet de décoration."
        if item in ONE_PER_GAME_MASTER:
            return f"Un MJ n'accepte qu'un seul {g.catalog.name(item)} (R6.15)."
        return None

    # -- the model (R7.9.1) -------------------------------------------------------------------
    def gm_actions(self) -> Mapping[str, ActionHandler]:
        return {"assign_mime_target": self.assign_mime_target}

    def assign_mime_target(self, ctx: Context, cmd: Command, actor: str) -> None:
        """``assign_mime_target`` (game master): ``player``, the Mime's model; ``mime``
        names the Mime when the Revenant holds the role (R7.9.1).

        Raises:
            RuleViolation: ``not_allowed`` (no masked Mime, the Mime himself, an
                unmasked model), ``unknown_player``.
        """

        g = ctx.g
        if g.play_ended:
            raise RuleViolation("game_not_running", "La partie est terminée.")
        if cmd.get("mime") is not None:
            mime = player_seat(g, cmd.get("mime"))
            if not self.holds(g, g.players[mime]):
                raise RuleViolation("not_allowed", f"{g.pseudo(mime)} n'est pas le Mime.")
        else:
            holders = g.masked_holders(self.id)
            if not holders:
                raise RuleViolation("not_allowed", "Aucun Mime masqué.")
            mime = holders[0]
        model = player_seat(g, cmd.require("player"))
        if model == mime:
            raise RuleViolation("not_allowed", "Le Mime ne s'imite pas lui-même.")
        if not g.players[model].masked:
            raise RuleViolation("not_allowed", f"{g.pseudo(model)} est démasqué.")
        ctx.emit(
            CharacterFact(
                at=ctx.now,
                character=self.id,
                player=mime,
                kind="model",
                # a model designated before J1 (the console's preparation) is his J1
                # model (R7.9.1): never a day before the game's first
                data={"model": model, "day": max(g.day(ctx.now), 1)},
            )
        )
        if g.days_closed >= 1:
            self._tell_model(ctx, g.players[mime])

            notify_new_targets(ctx)

    def _tell_model(self, ctx: Context, p: Player) -> None:
        model = self.model(p)
        if model is not None:
            ctx.tell([p.seat], "mime_target", f"Votre modèle : {ctx.g.pseudo(model)}.", model=model)

    def on_day_closed(self, ctx: Context, p: Player, day: int) -> None:
        if day == 1:
            self._tell_model(ctx, p)  # with the role reveal (R1.8)

    def after_unmasking(self, ctx: Context, seat: str, character: str, cause: str) -> None:
        g = ctx.g
        for s, p in g.players.items():
            if self.holds(g, p) and self.model(p) == seat:
                ctx.tell(
                    [s],
                    "mime_target_fallen",
                    "Votre modèle est démasqué : les MJ vont vous en désigner un autre.",
                )
                ctx.tell(
                    [],
                    "mime_target_fallen",
                    f"Le modèle du Mime ({g.pseudo(seat)}) est démasqué : "
                    "désigner un autre modèle.",
                    mime=s,
                )

    def apply_fact(self, g: GameState, p: Player, fact: CharacterFact) -> None:
        if fact.kind == "model":
            mine = p.data.setdefault(self.id, {})
            mine["model"] = str(fact.data["model"])
            day = max(int(fact.data["day"]), 1)  # logs stored before the fix said J-1
            mine.setdefault("history", []).append([day, str(fact.data["model"])])

    # -- views --------------------------------------------------------------------------
    def private_view(self, g: GameState, p: Player) -> dict[str, object]:
        model = self.model(p)
        return {
            "model": g.pseudo(model) if model else None,
            "model_characters": self.added(g, p),
        }

    def game_master_todo(self, g: GameState, p: Player, day: int) -> list[Todo]:
        model = self.model(p)
        if model is None:
            return [
                Todo(
                    "lui désigner son modèle",
                    "setup",
                    p.seat,
                    day_end(g.start, max(day, 1)),
                    action="assign_mime_target",
                )
            ]
        out = []
        if self.model_slot(g, p) is None:
            out.append(
                Todo(
                    f"son modèle {g.pseudo(model)} est démasqué ou hors de la Ronde : "
                    "désigner un autre modèle",
                    "setup",
                    p.seat,
                    day_end(g.start, day),
                    action="assign_mime_target",
                )
            )
        if 2 <= day <= 13:
            text = (
                f"vérifier 7 entrées de son Registre copiées de celui de {g.pseudo(model)} "
                f"au J{day - 1} (complétées par le J{day - 2})"
            )
            out.append(self.constraint_todo(g, p, day, text))
        return out

    def describe_private(self, g: GameState, p: Player, data: dict[str, object]) -> list[str]:
        model = data.get("model")
        if not model:
            return ["Les MJ ne vous ont pas encore désigné de modèle."]
        out = [f"Votre modèle : {model}."]
        added = values(data, "model_characters")
        if added:
            out.append(f"Personnages ajoutés à vos cibles par votre modèle : {names(added)}.")
        return out


__all__ = ["Mime"]
