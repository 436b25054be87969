"""Alice (``alice``), R7.4.

Glossary: Alice → ``alice``; extrait (de MP) → ``excerpt``.

Power: every day the MJs give Alice one or more excerpts of their MP correspondence
with other participants (about anonymous complaints, hidden powers ...); the MJs
choose them (R7.4.2). Addition to the scenario vocabulary: the game-master action
``send_excerpt`` with ``player`` (Alice) and ``text`` records one excerpt as a
private message to her (kind ``excerpt``); it is the only way the engine lets the
MJs disclose an anonymous author (R5.9), so the text is theirs to choose. Excerpts
are sent from J2 (roles are revealed at the end of J1) to the end of play.

Constraint: every day a post containing two questions (R7.4.3); judged by an MJ,
presumed met (A1).

Jokers: at most two; one of item_cards, item_angryc, item_pet_cat (R7.4.4).

Failure: a failed constraint recorded by an MJ (R6.2).

Inheritance: none.

Rule ids: R7.4.1, R7.4.2, R7.4.3, R7.4.4, R5.9.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

from ..character import ActionHandler, ListedJokers
from ..commands import Command
from ..context import Context
from ..errors import RuleViolation
from ..events import CharacterFact
from ..sentences import quoted as _quoted
from ..sentences import rows
from ..state import GameState, Player
from ..trials import player_seat, running
from ..work import Todo, day_end


class Alice(ListedJokers):
    """Alice: the MJs' daily excerpts."""

    id: ClassVar[str] = "alice"
    has_jokers: ClassVar[bool] = True
    joker_items: ClassVar[frozenset[str]] = frozenset({"item_cards", "item_angryc", "item_pet_cat"})
    constraint_fr: ClassVar[str] = "poster chaque jour un message contenant deux questions"
    power_fr: ClassVar[str] = (
        "reçoit chaque jour des MJ des extraits de leurs MP avec d'autres participants"
    )

    def gm_actions(self) -> Mapping[str, ActionHandler]:
        return {"send_excerpt": self.send_excerpt}

    def send_excerpt(self, ctx: Context, cmd: Command, actor: str) -> None:
        """``send_excerpt`` (game master): ``player`` (Alice), ``text`` (R7.4.2).

        Raises:
            RuleViolation: ``unknown_player``, ``not_allowed`` (the player is not a
                masked Alice), ``out_of_window`` (J1), ``invalid_argument`` (empty text),
                ``game_not_running``.
        """

        g = ctx.g
        running(g)
        seat = player_seat(g, cmd.require("player"))
        p = g.players[seat]
        if not self.holds(g, p):
            raise RuleViolation("not_allowed", f"{p.pseudo} n'est pas Alice (masquée).")
        day = g.action_day(ctx.now)
        if day < 2:
            raise RuleViolation("out_of_window", "Les extraits d'Alice commencent au J2.")
        text = str(cmd.require("text")).strip()
        if not text:
            raise RuleViolation("invalid_argument", "Extrait vide.")
        self.fact(ctx, seat, "excerpt", {"day": day, "by": cmd.by})
        ctx.tell([seat], "excerpt", f"Extrait des MP des MJ : « {text} »", day=day, excerpt=text)

    def apply_fact(self, g: GameState, p: Player, fact: CharacterFact) -> None:
        if fact.kind == "excerpt":
            p.data.setdefault("excerpt_days", []).append(int(fact.data["day"]))

    def private_view(self, g: GameState, p: Player) -> dict[str, object]:
        excerpts = [
            {"day": data.get("day"), "text": data.get("excerpt")}
            for _at, to, kind, _text, data, _public in g.messages
            if kind == "excerpt" and p.seat in to
        ]
        return {"excerpts": excerpts}

    def game_master_todo(self, g: GameState, p: Player, day: int) -> list[Todo]:
        out = super().game_master_todo(g, p, day)
        if day >= 2 and day not in p.data.get("excerpt_days", []):
            out.append(
                Todo(
                    "Lui envoyer ses extraits de MP du jour.",
                    "send",
                    p.seat,
                    day_end(g.start, day),
                    action="send_excerpt",
                    args={"player": p.pseudo},
                )
            )
        return out

    def describe_private(self, g: GameState, p: Player, data: dict[str, object]) -> list[str]:
        excerpts = rows(data, "excerpts")
        if not excerpts:
            return ["Aucun extrait de MP reçu pour l'instant."]
        return [f"Extrait reçu (J{x.get('day')}) : {_quoted(x.get('text'))}" for x in excerpts]
