"""Woody (``woody``), R7.12.

Glossary: Woody → ``woody``; question → ``ask``; enquêter → ``investigate``.

Power: twice in the game Woody MAY ask the MJs "is player P Character C?" (``ask``
with ``player`` and ``as``), never twice on the same day; the MJs answer truthfully,
yes or no, privately (R7.12.4). C may be any Character, Extra included, but not one
already unmasked (R2.12); for the Revenant the true answer is "Revenant", never a
role he was given. A "yes" is recorded as learned (R1.12). Questions are not trial
actions: outside the quota, and possible while asleep (R5.16.11).

Constraint: every day two posts at least 6 hours apart from a zone with x < 0
(R7.12.2); judged by an MJ, presumed met (A1).

Jokers: at most two; one of the Teckel or the chain (each only if the receiving MJ
has none, A25), the Devastator, the Lance-pile, the Aqua-Splash and the Jerrycan pump
(empty or loaded), the Revolver, the Fusil d'assaut (R7.12.3). The seed's icon name
``item_pet_dog2`` is accepted for the Teckel (Appendix D).

Failure: a failed constraint recorded by an MJ (R6.2).

Inheritance: once Woody (or the Revenant holding his role, R7.22.4) is unmasked, the
chorus may investigate every day besides one other action (R7.12.5, R8.6): the game
flag ``chorus_double``.

Rule ids: R7.12.1, R7.12.2, R7.12.3, R7.12.4, R7.12.5, R2.12, A25.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

from ..character import ActionHandler, ListedJokers
from ..commands import Command
from ..context import Context
from ..errors import RuleViolation
from ..events import CharacterFact, IdentityLearned
from ..names import french_name, resolve_character
from ..ronde import slot_live, unrestricted_targets
from ..sentences import name, number, rows
from ..state import GameState, Player
from ..trials import player_seat, running
from ..work import Todo, day_end

QUESTIONS = 2


class Woody(ListedJokers):
    """Woody: two yes/no questions; his fall doubles the chorus's investigations."""

    id: ClassVar[str] = "woody"
    has_jokers: ClassVar[bool] = True
    joker_items: ClassVar[frozenset[str]] = frozenset(
        {
            "item_tekel",
            "item_lock",
            "item_big_pgun_empty",
            "item_big_pgun",
            "item_pilegun_up_empty",
            "item_pilegun_up",
            "item_watergun_opt_empty",
            "item_watergun_opt_1",
            "item_watergun_opt_2",
            "item_watergun_opt_3",
            "item_watergun_opt_4",
            "item_watergun_opt_5",
            "item_jerrygun",
            "item_jerrygun_off",
            "item_gun",
            "item_machine_gun",
        }
    )
    constraint_fr: ClassVar[str] = (
        "deux messages à au moins 6 heures d'écart, depuis une case à l'ouest (x < 0), chaque jour"
    )
    power_fr: ClassVar[str] = (
        "deux questions dans la partie, jamais deux le même jour : « X est-il tel Personnage ? »"
    )

    def actions(self) -> Mapping[str, ActionHandler]:
        return {"ask": self.ask}

    def ask(self, ctx: Context, cmd: Command, actor: str) -> None:
        """``ask``: ``player``, ``as`` — answered privately at once (R7.12.4).

        Raises:
            RuleViolation: ``actor_unmasked``, ``not_allowed`` (not Woody; about
                himself or an unmasked player), ``out_of_window`` (J1),
                ``power_exhausted`` (two questions asked), ``daily_limit`` (a question
                already asked today), ``not_your_target`` (an unmasked Character),
                ``unknown_player``, ``unknown_character``.
        """

        g = ctx.g
        running(g)
        p = g.players[actor]
        self._check_actor(g, p)
        day = g.action_day(ctx.now)
        if day < 2:
            raise RuleViolation("out_of_window", "Woody pose ses questions à partir du J2.")
        asked: list[dict[str, object]] = p.data.get("woody_questions", [])
        if len(asked) >= QUESTIONS:
            raise RuleViolation("power_exhausted", "Woody a déjà posé ses deux questions.")
        if any(q["day"] == day for q in asked):
            raise RuleViolation("daily_limit", "Woody ne pose pas deux questions le même jour.")
        seat = player_seat(g, cmd.require("player"))
        character = resolve_character(str(cmd.require("as")))
        if seat == actor:
            raise RuleViolation("not_allowed", "Woody ne s'interroge pas sur lui-même.")
        target = g.players[seat]
        if not target.masked:
            raise RuleViolation("not_allowed", f"{target.pseudo} est déjà démasqué.")
        # A75 ``any_unmasked``: an unmasked Character may be named, and the answer is no
        if character != "extra" and character not in unrestricted_targets(g):
            raise RuleViolation(
                "not_your_target", f"{french_name(character)} n'est pas un Personnage masqué."
            )
        yes = target.character == character and (character == "extra" or slot_live(g, character))
        self.fact(ctx, actor, "asked", {"day": day, "player": seat, "as": character, "answer": yes})
        word = "oui" if yes else "non"
        ctx.tell(
            [actor],
            "answer",
            f"{target.pseudo} est-il {french_name(character)} ? Réponse des MJ : {word}.",
            answer="yes" if yes else "no",
            player=seat,
            character=character,
        )
        if yes:
            ctx.emit(
                IdentityLearned(
                    at=ctx.now, player=actor, other=seat, character=character, source="woody"
                )
            )

    def _check_actor(self, g: GameState, p: Player) -> None:
        if not p.masked or p.unofficial is not None:
            raise RuleViolation("actor_unmasked", f"{p.pseudo} est démasqué.")
        if not self.holds(g, p):
            raise RuleViolation("not_allowed", f"{p.pseudo} n'a pas le pouvoir de Woody.")

    # -- inheritance (R7.12.5, R7.22.4) -------------------------------------------------
    def on_unmasked(self, ctx: Context, p: Player) -> None:
        self.unlock_chorus(ctx, p.seat)

    def unlock_chorus(self, ctx: Context, seat: str) -> None:
        """The chorus may investigate every day besides another action (R8.6)."""
        if ctx.g.flags.get("chorus_double"):
            return
        ctx.emit(CharacterFact(at=ctx.now, character=self.id, player=seat, kind="chorus_double"))

    def apply_fact(self, g: GameState, p: Player, fact: CharacterFact) -> None:
        if fact.kind == "asked":
            p.data.setdefault("woody_questions", []).append(dict(fact.data))
        elif fact.kind == "chorus_double":
            g.flags["chorus_double"] = True

    # -- views --------------------------------------------------------------------------
    def private_view(self, g: GameState, p: Player) -> dict[str, object]:
        asked = p.data.get("woody_questions", [])
        return {
            "questions": [
                {
                    "day": q["day"],
                    "player": g.pseudo(str(q["player"])),
                    "character": q["as"],
                    "answer": "oui" if q["answer"] else "non",
                }
                for q in asked
            ],
            "questions_left": QUESTIONS - len(asked),
        }

    def game_master_todo(self, g: GameState, p: Player, day: int) -> list[Todo]:
        out = super().game_master_todo(g, p, day)
        for q in p.data.get("woody_questions", []):
            if q["day"] == day:
                answer = "oui" if q["answer"] else "non"
                out.append(
                    Todo(
                        f"Répondre en MP à sa question : {g.pseudo(str(q['player']))} est-il "
                        f"{french_name(str(q['as']))} ? ({answer}, réponse déjà envoyée par "
                        "le moteur)",
                        "send",
                        p.seat,
                        day_end(g.start, day),
                    )
                )
        return out

    def describe_private(self, g: GameState, p: Player, data: dict[str, object]) -> list[str]:
        out = [
            f"J{q.get('day')} : {q.get('player')} est-il {name(str(q.get('character')))} ? "
            f"Réponse : {q.get('answer')}."
            for q in rows(data, "questions")
        ]
        left = number(data, "questions_left")
        out.append(f"Questions restantes : {left}.")
        return out
