"""Diva (``diva``), R7.14.

Glossary: Diva → ``diva``; inquiétée / fait appel → ``diva_worried``; désigner →
``designate``; dernier souffle → ``last_breath``.

Power: each day (J2 to the end of play, once a day) she MAY designate a Ronde
Character (``designate``: ``character``; never "Extra", repeats allowed, A48):
every masked player who incarnates it and ever filed a complaint against her —
public or anonymous, valid or null, in any trial where she was accused, up to
now (A48) — is publicly named (``g.flags["public_identities"]``) and keeps his
mask (R7.14.5); "the Decorators" names whichever Decorator(s) complained.
Last breath: once unmasked, by the end of the day after her unmasking (A48), she
MAY designate one Character she never designated (``last_breath``); the masked
players incarnating it who complained against her are unmasked at once (cause
``power``, R7.14.6).

Protection: a complaint by an Extra (original or new) in a trial where she is
accused is null (R7.14.3, R5.12); an Extra may still open such a trial (A48).
Her first JUST trial (by quorum or shortened) only worries her: she appeals and
keeps her mask; it scores as just without the +200 (A48 ``no_bonus``; ``bonus``
pays the +200 to its opener and scoring complainants); the second unmasks her
(R7.14.4).

Visibility: standard, published (R7.14.2). Publicity: at J2 00:00, without any MJ
action, her identity becomes public and her visible set is published; from then
every message the MJs send her goes to the FV (``g.flags["public_channel"]``), and
her anonymous complaints or openings are announced as hers (R7.14.1, R7.14.7,
R1.13).

Constraint: her publicity; it cannot be failed (R7.14.1). No MJ-judged constraint.

Jokers: none (R6.10).

Failure: only her second JUST trial, or another player's power (R8.2).

Inheritance: none.

Rule ids: R7.14.1, R7.14.2, R7.14.3, R7.14.4, R7.14.5, R7.14.6, R7.14.7, A48.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from ..character import ActionHandler, Character
from ..commands import Command
from ..context import Context
from ..errors import RuleViolation
from ..events import CharacterFact
from ..names import french_name, resolve_character
from ..ronde import slot_live
from ..sentences import names, values
from ..state import CHORUS, Complaint, GameState, Player, Trial
from ..trials import opener_scores, running
from ..verdicts import unmask
from ..work import Todo

UNMASK_BONUS = 200


def complainers(g: GameState, diva: str, character: str) -> list[str]:
    """Seats now incarnating ``character`` that ever complained in a trial where ``diva``
    was accused (A48: every recorded complaint, public or anonymous, valid or null)."""
    out: list[str] = []
    for t in g.trials:
        if diva not in t.accused:
            continue
        for c in t.complaints:
            if c.author == CHORUS or c.author in out:
                continue
            q = g.players[c.author]
            if q.masked and q.character == character:
                out.append(c.author)
    return sorted(out)


class Diva(Character):
    """The Diva: public, protected from Extras, worried once, designating."""

    id: ClassVar[str] = "diva"
    constraint_days: ClassVar[tuple[int, int] | None] = None
    constraint_fr: ClassVar[str] = "sa publicité : tout échange avec les MJ a lieu sur le FV"
    power_fr: ClassVar[str] = (
        "désigner chaque jour un Personnage : s'il a porté plainte contre elle, son joueur "
        "est nommé publiquement ; dernier souffle à son démasquage"
    )

    # -- publicity (R7.14.1, R7.14.7) ------------------------------------------------------
    def on_day_closed(self, ctx: Context, p: Player, day: int) -> None:
        if day != 1 or p.character != self.id:
            return
        ctx.emit(CharacterFact(at=ctx.now, character=self.id, player=p.seat, kind="public"))
        names = ", ".join(french_name(c) for c in sorted(self.visible_set(ctx.g, p))) or "aucun"
        ctx.announce(
            "diva_public",
            f"{p.pseudo} est la Diva. Personnages qu'elle doit démasquer : {names}.",
            player=p.seat,
        )

    def after_complaint(self, ctx: Context, trial: Trial, complaint: Complaint) -> None:
        if complaint.anonymous and complaint.author in ctx.g.flags.get("public_channel", ()):
            ctx.announce(
                "diva_anonymous",
                f"Plainte « anonyme » de la Diva ({ctx.g.pseudo(complaint.author)}) "
                f"dans le Procès n°{trial.number}.",
                trial=trial.number,
            )

    def after_trial_opened(self, ctx: Context, trial: Trial) -> None:
        if trial.anonymous and trial.opener in ctx.g.flags.get("public_channel", ()):
            ctx.announce(
                "diva_anonymous",
                f"Le Procès n°{trial.number} a été ouvert par la Diva "
                f"({ctx.g.pseudo(trial.opener)}).",
                trial=trial.number,
            )

    # -- protection (R7.14.3, R7.14.4) ---------------------------------------------------
    def null_against(self, g: GameState, accused: Player, author: Player, trial: Trial) -> bool:
        return author.character == "extra"

    def escapes_unmasking(
        self, g: GameState, p: Player, cause: str, trial: Trial | None, cause_day: int
    ) -> bool:
        return cause == "trial" and "worried" not in p.data.get(self.id, {})

    def after_trial_ended(self, ctx: Context, trial: Trial) -> None:
        g = ctx.g
        if trial.status != "just":
            return
        for seat in trial.accused:
            q = g.players[seat]
            if not self.holds(g, q) or "worried" in q.data.get(self.id, {}):
                continue
            self.fact(ctx, seat, "worried", {"trial": trial.number})
            ctx.announce(
                "diva_worried",
                f"Procès n°{trial.number} : la Diva est seulement inquiétée et fait appel.",
                trial=trial.number,
            )
            if g.opt("A48") == "bonus":
                self._bonus(ctx, trial)

    @staticmethod
    def _bonus(ctx: Context, trial: Trial) -> None:
        """A48 ``bonus``: the +200 of R9.7 although nobody was unmasked."""

        g = ctx.g
        label = f"Procès n°{trial.number} : Diva inquiétée (A48)"
        if opener_scores(g, trial):
            for s in trial.members if trial.opener == CHORUS else (trial.opener,):
                ctx.award(s, UNMASK_BONUS, label, "R9.7", trial.number)
        for c in trial.valid():
            if c.scores:
                for s in c.members if c.author == CHORUS else (c.author,):
                    ctx.award(s, UNMASK_BONUS, label, "R9.7", trial.number)

    # -- powers ------------------------------------------------------------------------
    def actions(self) -> Mapping[str, ActionHandler]:
        return {"designate": self.designate, "last_breath": self.last_breath}

    @staticmethod
    def _character(g: GameState, cmd: Command) -> str:
        character = resolve_character(str(cmd.require("character")))
        if character == "extra" or character not in g.ronde or not slot_live(g, character):
            raise RuleViolation(
                "not_your_target",
                f"{french_name(character)} : la Diva désigne un Personnage masqué de la Ronde.",
            )
        return character

    def designate(self, ctx: Context, cmd: Command, actor: str) -> None:
        """``designate``: ``character`` — once a day (R7.14.5, A48).

        Raises:
            RuleViolation: ``not_allowed`` (not the Diva, herself), ``actor_unmasked``,
                ``daily_limit`` (second of the day), ``not_your_target`` (Extra, an
                unmasked or unknown Character), ``out_of_window`` (J1).
        """

        g = ctx.g
        running(g)
        p = g.players[actor]
        if not p.masked or p.unofficial is not None:
            raise RuleViolation("actor_unmasked", f"{p.pseudo} est démasqué.")
        if not self.holds(g, p):
            raise RuleViolation("not_allowed", f"{p.pseudo} n'est pas la Diva.")
        day = g.action_day(ctx.now)
        if day < 2:
            raise RuleViolation("out_of_window", "La Diva désigne à partir du J2.")
        mine = p.data.get(self.id, {})
        if day in mine.get("days", []):
            raise RuleViolation("daily_limit", "Une désignation par jour.")
        character = self._character(g, cmd)
        if character == p.character:
            raise RuleViolation("not_allowed", "La Diva ne se désigne pas elle-même.")
        found = complainers(g, actor, character)
        self.fact(ctx, actor, "designated", {"character": character, "day": day, "revealed": found})
        if found:
            names = " et ".join(g.pseudo(s) for s in found)
            ctx.announce(
                "diva_designation",
                f"La Diva désigne {french_name(character)} : {names} a porté plainte contre elle "
                f"et incarne {french_name(character)} (il reste masqué).",
                character=character,
                players=found,
            )
        else:
            ctx.announce(
                "diva_designation",
                f"La Diva désigne {french_name(character)} : ce Personnage n'a jamais porté "
                "plainte contre elle.",
                character=character,
                players=[],
            )

    @staticmethod
    def _breath_deadline(mine: Mapping[str, Any]) -> int:
        """By the end of the day after her fall (A48)."""
        return int(mine["fallen_day"]) + 1

    def last_breath_until(self, g: GameState, p: Player) -> int | None:
        """The last day of her last breath while she may still give it (R7.14.6, A48)."""
        mine = p.data.get(self.id, {})
        if p.masked or "fallen_day" not in mine or "last_breath" in mine:
            return None
        until = self._breath_deadline(mine)
        return until if g.day() <= until else None

    def last_breath(self, ctx: Context, cmd: Command, actor: str) -> None:
        """``last_breath``: ``character`` — once, after her unmasking, by the end of the
        next day, a Character never designated (R7.14.6, A48).

        Raises:
            RuleViolation: ``not_allowed`` (not the unmasked Diva, a Character already
                designated), ``power_exhausted`` (already used), ``out_of_window`` (too
                late), ``not_your_target``.
        """

        g = ctx.g
        running(g)
        p = g.players[actor]
        mine = p.data.get(self.id, {})
        if p.masked or "fallen_day" not in mine:
            raise RuleViolation("not_allowed", "Le dernier souffle suit le démasquage de la Diva.")
        if "last_breath" in mine:
            raise RuleViolation("power_exhausted", "Le dernier souffle est déjà donné.")
        if g.action_day(ctx.now) > self._breath_deadline(mine):
            raise RuleViolation(
                "out_of_window", "Le dernier souffle se donne au plus tard le lendemain (A48)."
            )
        character = self._character(g, cmd)
        if character in mine.get("designated", []):
            raise RuleViolation("not_allowed", f"{french_name(character)} a déjà été désigné.")
        found = complainers(g, actor, character)
        self.fact(ctx, actor, "last_breath", {"character": character, "found": found})
        ctx.announce(
            "diva_last_breath",
            f"Dernier souffle de la Diva : {french_name(character)}.",
            character=character,
        )
        for seat in found:
            unmask(ctx, seat, "power", "R7.14.6", detail="dernier souffle de la Diva")

    def on_unmasked(self, ctx: Context, p: Player) -> None:
        self.fact(ctx, p.seat, "fallen", {"day": ctx.g.day(ctx.now)})

    def apply_fact(self, g: GameState, p: Player, fact: CharacterFact) -> None:
        if fact.kind == "public":
            g.flags.setdefault("public_identities", {})[p.seat] = self.id
            channel = list(g.flags.get("public_channel", ()))
            g.flags["public_channel"] = sorted({*channel, p.seat})
            return
        mine = p.data.setdefault(self.id, {})
        if fact.kind == "worried":
            mine["worried"] = int(fact.data["trial"])
        elif fact.kind == "designated":
            character = str(fact.data["character"])
            mine.setdefault("designated", []).append(character)
            mine.setdefault("days", []).append(int(fact.data["day"]))
            for seat in fact.data.get("revealed", []):
                g.flags.setdefault("public_identities", {})[str(seat)] = character
        elif fact.kind == "fallen":
            mine["fallen_day"] = int(fact.data["day"])
        elif fact.kind == "last_breath":
            mine["last_breath"] = str(fact.data["character"])

    # -- views -------------------------------------------------------------------------
    def private_view(self, g: GameState, p: Player) -> dict[str, object]:
        mine = p.data.get(self.id, {})
        # (she learns it with the verdict's announcement, not before: A77)
        worrying = g.trial(mine["worried"]) if "worried" in mine else None
        return {
            "public": p.seat in g.flags.get("public_channel", ()),
            "worried": worrying is not None and worrying.announced,
            "designated": list(mine.get("designated", [])),
        }

    def game_master_todo(self, g: GameState, p: Player, day: int) -> list[Todo]:
        if day >= 2:
            return [Todo("tout message pour elle est publié sur le FV (R7.14.1)", "note", p.seat)]
        return []

    def describe_private(self, g: GameState, p: Player, data: dict[str, object]) -> list[str]:
        out = []
        if data.get("public"):
            out.append("Tout message des MJ pour vous est publié sur le forum.")
        if data.get("worried"):
            out.append("Vous avez déjà été inquiétée une fois (appel utilisé).")
        else:
            out.append("Vous n'avez pas encore été inquiétée.")
        designated = values(data, "designated")
        if designated:
            out.append(f"Personnages déjà désignés : {names(designated)}.")
        return out
