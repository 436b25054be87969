"""Polichinelle (``polichinelle``), R7.19.

Glossary: Polichinelle → ``polichinelle``; secret de Polichinelle → ``reveal_secret``
(his own) and ``spread_secret`` (the chorus's); plainte anonyme offerte → ``grant_anonymous``.

Power (secrets): on J4, J8 and J12 he MAY designate a masked player other than himself
(``reveal_secret`` with ``player``); he and five participants drawn at random among
all the other players, masked or unmasked, except the designated one (A58), learn by
MP the Character of that player (R7.19.2). The draw is recorded in the event. A
recipient whose channel is public (the Diva) has it published (R7.14.1).

Power (gift): on J2, J4, J6, J8, J10 and J12 he MAY designate a masked player other
than himself (``grant_anonymous`` with ``player``, A46), who receives one anonymous
complaint valid for 24 hours from the MJs' notice (recorded at the grant), usable
instead of a public complaint: within his quota and against his own legal targets, and
it may open a trial (R7.19.3, R5.8). The beneficiary's own anonymous rights are used
first; the gift is spent by the complaint or opening that uses it (its ``kind`` is
``polichinelle_gift``). A gift already granted stands if Polichinelle falls (A62
``notified_stand``), or ends with his mask (``all_lapse``; as players know it: a
verdict's fall, at its announcement, A77).
One secret and one gift a day at most (``daily_limit``).

Constraint: every day a reply to another player's post boasting that he knows more or
could do better (R7.19.4); judged by an MJ, presumed met (A1).

Jokers: none (R7.19.1).

Failure: a failed constraint recorded by an MJ (R6.2).

Inheritance: once Polichinelle (or the Revenant holding his role, R7.22.4) is
unmasked, the chorus may vote ``spread_secret`` with ``player`` and ``as`` (a masked
player, a masked Ronde Character other than Extra): at J*n+1* 00:00 six masked players
drawn at random, other than the named one (A58), receive "according to the Unmasked,
P is C", with a remark when it is false; every member at the decision (A64) gains 50
points if it is true, 10 if it is false, when it is sent (R7.19.5, R8.9, R9.10,
R9.11). The gift is not inherited.

Rule ids: R7.19.1, R7.19.2, R7.19.3, R7.19.4, R7.19.5, R8.9, R9.10, R9.11, A46, A58.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any, ClassVar

from ..character import ActionHandler, Character, ChorusExecutor, ChorusValidator
from ..clock import TRIAL_WINDOW, elapsed
from ..commands import Command
from ..context import Context
from ..errors import RuleViolation
from ..events import CharacterFact, IdentityLearned
from ..names import french_name, resolve_character
from ..ronde import slot_live
from ..sentences import people, rows
from ..state import Complaint, GameState, Player, Trial
from ..trials import player_seat, running
from ..work import Todo

SECRET_DAYS = (4, 8, 12)
GIFT_DAYS = (2, 4, 6, 8, 10, 12)
RECIPIENTS = 5
CHORUS_RECIPIENTS = 6
GIFT = "polichinelle_gift"


class Polichinelle(Character):
    """Polichinelle: secrets on J4, J8, J12; an anonymous complaint to give on even days."""

    id: ClassVar[str] = "polichinelle"
    constraint_fr: ClassVar[str] = (
        "répondre chaque jour au message d'un autre joueur en se vantant d'en savoir plus "
        "ou de mieux faire que lui"
    )
    power_fr: ClassVar[str] = (
        "secret de Polichinelle les J4, J8, J12 ; plainte anonyme à offrir les jours pairs"
    )

    def actions(self) -> Mapping[str, ActionHandler]:
        return {"reveal_secret": self.reveal_secret, "grant_anonymous": self.grant_anonymous}

    def _actor(self, g: GameState, actor: str) -> Player:
        p = g.players[actor]
        if not p.masked or p.unofficial is not None:
            raise RuleViolation("actor_unmasked", f"{p.pseudo} est démasqué.")
        if not self.holds(g, p):
            raise RuleViolation("not_allowed", f"{p.pseudo} n'a pas le pouvoir de Polichinelle.")
        return p

    def _designated(self, g: GameState, cmd: Command, actor: str) -> str:
        seat = player_seat(g, cmd.require("player"))
        if seat == actor:
            raise RuleViolation("not_allowed", "Polichinelle se désigne lui-même.")
        if not g.players[seat].masked:
            raise RuleViolation("not_allowed", f"{g.pseudo(seat)} est démasqué.")
        return seat

    # -- secrets (R7.19.2, A58) ---------------------------------------------------------
    def reveal_secret(self, ctx: Context, cmd: Command, actor: str) -> None:
        """``reveal_secret``: ``player`` — he and five drawn participants learn his Character.

        Raises:
            RuleViolation: ``actor_unmasked``, ``not_allowed`` (not Polichinelle,
                himself, an unmasked player), ``out_of_window`` (not J4, J8 or J12),
                ``daily_limit`` (a second secret that day), ``unknown_player``.
        """

        g = ctx.g
        running(g)
        p = self._actor(g, actor)
        day = g.action_day(ctx.now)
        if day not in SECRET_DAYS:
            raise RuleViolation("out_of_window", "Les secrets de Polichinelle : J4, J8 et J12.")
        if day in p.data.get("secret_days", []):
            raise RuleViolation("daily_limit", "Un seul secret ce jour-là.")
        seat = self._designated(g, cmd, actor)
        pool = sorted(s for s in g.players if s not in (actor, seat))
        drawn = sorted(ctx.rng("polichinelle-secret").sample(pool, min(RECIPIENTS, len(pool))))
        character = g.players[seat].character or "extra"
        self.fact(ctx, actor, "secret", {"day": day, "player": seat, "recipients": drawn})
        text = f"Secret de Polichinelle : {g.pseudo(seat)} est {french_name(character)}."
        for r in [actor, *drawn]:
            ctx.emit(
                IdentityLearned(
                    at=ctx.now, player=r, other=seat, character=character, source="polichinelle"
                )
            )
        ctx.tell([actor, *drawn], "secret", text, player=seat, character=character)

    # -- the gift (R7.19.3, A46) --------------------------------------------------------
    def grant_anonymous(self, ctx: Context, cmd: Command, actor: str) -> None:
        """``grant_anonymous``: ``player`` receives an anonymous complaint for 24 hours.

        Raises:
            RuleViolation: ``actor_unmasked``, ``not_allowed``, ``out_of_window`` (an
                odd day, or J13), ``daily_limit`` (a second gift that day),
                ``unknown_player``.
        """

        g = ctx.g
        running(g)
        p = self._actor(g, actor)
        day = g.action_day(ctx.now)
        if day not in GIFT_DAYS:
            raise RuleViolation(
                "out_of_window", "Polichinelle offre sa plainte anonyme les jours pairs, J2 à J12."
            )
        if day in p.data.get("gift_days", []):
            raise RuleViolation("daily_limit", "Une seule plainte anonyme offerte par jour.")
        seat = self._designated(g, cmd, actor)
        until = elapsed(ctx.now, TRIAL_WINDOW)
        self.fact(ctx, actor, "gift", {"day": day, "player": seat, "until": until.isoformat()})
        ctx.tell(
            [seat],
            "gift",
            "Vous recevez une plainte anonyme, valable 24 heures, à utiliser à la place "
            "d'une plainte publique (dans votre quota, contre vos cibles ; elle peut ouvrir "
            "un Procès).",
            until=until.isoformat(),
        )

    def _live_gift(self, g: GameState, seat: str) -> dict[str, Any] | None:
        """The beneficiary's earliest unused gift still valid now."""
        if g.clock is None:
            return None
        lapse = g.opt("A62") == "all_lapse"
        for gift in g.flags.get("polichinelle_gifts", []):
            live = gift["at"] <= g.clock < datetime.fromisoformat(gift["until"])
            if gift["player"] == seat and not gift["used"] and live:
                if lapse and not g.players[gift["by"]].masked:
                    continue  # A62 ``all_lapse``: it ends with its giver's mask
                return dict(gift)
        return None

    def grants_anonymous(self, g: GameState, p: Player, *, opening: bool) -> str | None:
        return GIFT if self._live_gift(g, p.seat) is not None else None

    def after_complaint(self, ctx: Context, trial: Trial, complaint: Complaint) -> None:
        if complaint.anonymous and complaint.kind == GIFT:
            self._spend(ctx, complaint.author, trial.number)

    def after_trial_opened(self, ctx: Context, trial: Trial) -> None:
        if trial.anonymous and trial.flags.get("right") == GIFT:
            self._spend(ctx, trial.opener, trial.number)

    def _spend(self, ctx: Context, seat: str, trial: int) -> None:
        gift = self._live_gift(ctx.g, seat)
        if gift is None:
            return
        self.fact(ctx, seat, "gift_used", {"index": gift["index"], "trial": trial})

    # -- inheritance: the chorus's secrets (R7.19.5, R8.9, A58) -------------------------
    def on_unmasked(self, ctx: Context, p: Player) -> None:
        self.unlock_chorus(ctx, p.seat)

    def unlock_chorus(self, ctx: Context, seat: str) -> None:
        """The chorus may spread a Polichinelle secret (R8.6.3)."""
        if "spread_secret" in ctx.g.flags.get("chorus_actions", set()):
            return
        ctx.emit(CharacterFact(at=ctx.now, character=self.id, player=seat, kind="chorus_unlocked"))

    def chorus_actions(self) -> Mapping[str, tuple[ChorusValidator, ChorusExecutor]]:
        return {"spread_secret": (self._chorus_claim, self._chorus_spread)}

    def _chorus_claim(self, g: GameState, cmd: Command) -> dict[str, Any]:
        """``player`` + ``as``: a masked player, a masked Ronde Character, not Extra (R8.9).

        Raises:
            RuleViolation: ``unknown_player``, ``unknown_character``, ``not_allowed``,
                ``not_your_target``.
        """

        seat = player_seat(g, cmd.require("player"))
        character = resolve_character(str(cmd.require("as")))
        if character == "extra" or character not in g.ronde or not slot_live(g, character):
            raise RuleViolation(
                "not_your_target",
                "Le secret du chœur nomme un Personnage masqué de la Ronde (pas Figurant).",
            )
        if not g.players[seat].masked:
            raise RuleViolation("not_allowed", f"{g.pseudo(seat)} est déjà démasqué.")
        return {"player": seat, "as": character}

    def _chorus_spread(
        self, ctx: Context, args: dict[str, Any], members: tuple[str, ...], day: int
    ) -> None:
        """Sent at J*n+1* 00:00 to six masked players drawn at random (R8.9, R8.17)."""
        g = ctx.g
        seat, character = str(args["player"]), str(args["as"])
        target = g.players[seat]
        true = target.masked and target.character == character
        pool = sorted(s for s, q in g.players.items() if q.masked and s != seat)
        drawn = sorted(ctx.rng("chorus-secret").sample(pool, min(CHORUS_RECIPIENTS, len(pool))))
        self.fact(
            ctx,
            seat,
            "chorus_secret",
            {
                "day": day,
                "player": seat,
                "as": character,
                "true": true,
                "recipients": drawn,
                "members": list(members),
            },
        )
        text = f"Selon les Démasqués, {target.pseudo} est {french_name(character)}."
        if not true:
            text += " (Remarque des MJ : les Démasqués se sont trompés.)"
        ctx.tell(drawn, "chorus_secret", text, player=seat, character=character, true=true)
        if true:
            for r in drawn:
                ctx.emit(
                    IdentityLearned(
                        at=ctx.now, player=r, other=seat, character=character, source="chorus"
                    )
                )
        points, rule = (50, "R9.11") if true else (10, "R9.10")
        label = "vrai" if true else "faux"
        for m in members:
            ctx.award(m, points, f"Chœur : secret de Polichinelle {label} diffusé (J{day})", rule)

    def apply_fact(self, g: GameState, p: Player, fact: CharacterFact) -> None:
        if fact.kind == "secret":
            p.data.setdefault("secret_days", []).append(int(fact.data["day"]))
            p.data.setdefault("secrets", []).append(dict(fact.data))
        elif fact.kind == "gift":
            p.data.setdefault("gift_days", []).append(int(fact.data["day"]))
            gifts = g.flags.setdefault("polichinelle_gifts", [])
            gifts.append(
                {
                    "index": len(gifts),
                    "by": p.seat,
                    "player": str(fact.data["player"]),
                    "at": fact.at,
                    "until": str(fact.data["until"]),
                    "used": False,
                }
            )
        elif fact.kind == "gift_used":
            g.flags["polichinelle_gifts"][int(fact.data["index"])]["used"] = True
        elif fact.kind == "chorus_unlocked":
            g.flags.setdefault("chorus_actions", set()).add("spread_secret")
        elif fact.kind == "chorus_secret":
            g.flags.setdefault("chorus_secrets", []).append(dict(fact.data))

    # -- views --------------------------------------------------------------------------
    def private_view(self, g: GameState, p: Player) -> dict[str, object]:
        gifts = [x for x in g.flags.get("polichinelle_gifts", []) if x["by"] == p.seat]
        return {
            "secrets": [
                {
                    "day": s["day"],
                    "player": g.pseudo(str(s["player"])),
                    "recipients": [g.pseudo(r) for r in s["recipients"]],
                }
                for s in p.data.get("secrets", [])
            ],
            "gifts": [
                {"player": g.pseudo(str(x["player"])), "used": bool(x["used"])} for x in gifts
            ],
        }

    def game_master_todo(self, g: GameState, p: Player, day: int) -> list[Todo]:
        out = super().game_master_todo(g, p, day)
        for s in p.data.get("secrets", []):
            if s["day"] == day:
                names = ", ".join(g.pseudo(r) for r in s["recipients"])
                out.append(
                    Todo(
                        f"Secret de Polichinelle sur {g.pseudo(str(s['player']))} : envoyé à "
                        f"lui-même et à {names}.",
                        "note",
                        p.seat,
                    )
                )
        for x in g.flags.get("polichinelle_gifts", []):
            if x["by"] == p.seat and g.day(x["at"]) == day:
                out.append(
                    Todo(
                        f"Plainte anonyme offerte à {g.pseudo(str(x['player']))}, valable "
                        f"jusqu'à {x['until']}.",
                        "note",
                        p.seat,
                    )
                )
        return out

    def describe_private(self, g: GameState, p: Player, data: dict[str, object]) -> list[str]:
        out = [
            f"J{s.get('day')} : secret de {s.get('player')} révélé à "
            f"{people(s.get('recipients') or [])}."
            for s in rows(data, "secrets")
        ]
        if not out:
            out.append("Vous n'avez encore révélé aucun secret.")
        out += [
            f"Plainte anonyme offerte à {x.get('player')} : "
            f"{'utilisée' if x.get('used') else 'pas encore utilisée'}."
            for x in rows(data, "gifts")
        ]
        return out
