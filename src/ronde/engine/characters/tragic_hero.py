"""Tragic Hero (Héros tragique, ``tragic_hero``), R7.17.

Glossary: Héros tragique → ``tragic_hero``; Personnage monstrueux → ``monstrous``;
désigner / démasquer le monstre → ``designate_monster`` / ``accuse_monster``;
"je ne suis pas…" → ``declare_not``.

Power (designation): on J1 he designates a Character (``designate_monster`` with
``character``), not Destiny, Pinocchio, the Prompter nor himself, which becomes
monstrous; "Extra" makes one masked Extra drawn at random monstrous, and "the
Decorators" one of the masked Decorators drawn the same way (the draw is recorded).
Without a designation by the end of J1 the MJs apply "Extra" (R7.17.2, A55). The
monstrous player is told privately what it obliges him to do, not by whom.

Monstrous Character: from the day after its designation it MUST open a trial every
day (anonymously or not; it uses its quota), or be unmasked at the end of that day
(J13: 13:13); sleep and exemptions cover a day (R6.8). It has one Joker, and only
one, for this duty: one decoration item worth at least 5 decoration points, outside
its own limit of 2 (R7.17.3, A24): ``use_joker`` with ``kind: monstrous`` (an
addition to the scenario vocabulary; without ``kind`` the items are taken as the
monstrous Joker when they do not make a Joker of his own character). The status
belongs to the player: it ends with his mask (an Extra's replacement does not inherit
it, A56) and stays with him if the Hero falls (A62 ``notified_stand``; ``all_lapse``
releases him).

Power (hunt): ``accuse_monster`` with ``player`` (R7.17.5). Right: the monster is unmasked
and the Hero gains 295 points (R9.23); wrong: the Hero is unmasked. Deadlines: the
first target by the end of J6, while it is still his target (R7.17.6); a target
chosen on J*n* by the end of J*n+5* (J13: 13:13; later: none) (R7.17.7). After a
right accusation, or when his target is unmasked by anything else, he MUST choose a
new target (``designate_monster`` again, same exclusions) by the end of the day after
(A56 ``next_day_or_unmask``; ``no_deadline``: no sanction). Not a trial action; sleep
does not suspend the hunt (R6.8).

Constraint: every day J2–J13 (J13 before 13:13) one declaration ``declare_not`` with
``player``: a player masked at that moment, other than himself, never named by him
before (a repeated name is refused with ``not_allowed``, A57 ``fm_distinct`` /
``fv_distinct``; ``fm_repeats`` allows it); one a day. The MJs publish it without his
name in the event's FM topic (FV with ``fv_distinct``) (R7.17.8). Engine-judged
(R6.20): a day without one unmasks him at its end, unless he slept or was exempted.

Trials: he hunts alone: he may not open trials and his complaints are null (they
still use his quota, A20), except his Pianist second complaint of the day, a normal
complaint against his visible set (R7.17.4, R7.15.3).

Jokers: none for himself (R7.17.1).

Failure: wrong accusation (R7.17.5); a missed hunt deadline or new choice (R7.17.6,
R7.17.7, A56); a day without declaration (R7.17.8) — R7.17.9.

Inheritance: none.

Rule ids: R7.17.1, R7.17.2, R7.17.3, R7.17.4, R7.17.5, R7.17.6, R7.17.7, R7.17.8,
R7.17.9, R9.23, A24, A55, A56, A57, A62.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from typing import Any, ClassVar

from ..character import ActionHandler, Character, character_of
from ..clock import LAST_DAY, cutoff_1313
from ..commands import Command
from ..constraints import covered, game_master_name, refuse_duplicates
from ..context import Context
from ..errors import RuleViolation
from ..events import CharacterFact, ItemsSent
from ..names import french_name, resolve_character
from ..ronde import slot_live
from ..sentences import name, names, people, values
from ..state import GameState, Player, Trial
from ..trials import frozen_by, player_seat, running
from ..unmasking import hidden_now, settles, truly, verdicts_naming
from ..verdicts import unmask
from ..work import Todo, day_end

EXCLUDED = frozenset({"destiny", "pinocchio", "prompter", "tragic_hero"})
DRAWN = frozenset({"extra", "decorators"})
FIRST_DEADLINE = 6
HUNT_DAYS = 5
MONSTER_JOKER_POINTS = 5


def _second_complaint(g: GameState, p: Player) -> bool:
    """Whether a complaint he files now is his Pianist second complaint (R7.15.3)."""
    if not g.flags.get("double_complaints") or g.clock is None:
        return False
    return len(p.actions.get(g.action_day(g.clock), [])) >= 1


class TragicHero(Character):
    """The Tragic Hero: designates a monster, hunts it alone, says whom he is not."""

    id: ClassVar[str] = "tragic_hero"
    #: no MJ-judged daily constraint: his declaration is engine-judged (R6.20)
    constraint_days: ClassVar[tuple[int, int] | None] = None
    constraint_fr: ClassVar[str] = (
        "annoncer chaque jour, par les MJ sur le FM, le pseudo d'un joueur masqué qu'il n'est pas"
    )
    power_fr: ClassVar[str] = (
        "désigner un Personnage monstrueux et le démasquer seul (+295) ; "
        "ses plaintes sont nulles et il n'ouvre pas de Procès"
    )

    def actions(self) -> Mapping[str, ActionHandler]:
        return {
            "designate_monster": self.designate_monster,
            "accuse_monster": self.accuse_monster,
            "declare_not": self.declare_not,
        }

    # -- trials (R7.17.4) ---------------------------------------------------------------
    def check_open(self, g: GameState, p: Player, *, anonymous: bool) -> None:
        raise RuleViolation("not_allowed", "Le Héros tragique n'ouvre pas de Procès (R7.17.4).")

    def null_as_author(self, g: GameState, p: Player, trial: Trial) -> bool:
        return not _second_complaint(g, p)

    # -- helpers ------------------------------------------------------------------------
    def _actor(self, g: GameState, actor: str) -> Player:
        p = g.players[actor]
        if not p.masked or p.unofficial is not None:
            raise RuleViolation("actor_unmasked", f"{p.pseudo} est démasqué.")
        if not self.holds(g, p):
            raise RuleViolation("not_allowed", f"{p.pseudo} n'est pas le Héros tragique.")
        return p

    @staticmethod
    def _hunts(g: GameState) -> list[tuple[Player, dict[str, Any]]]:
        return [(p, p.data["hunt"]) for p in g.players.values() if "hunt" in p.data]

    def _candidates(self, g: GameState, character: str, hero: str) -> list[str]:
        """Masked players who would become monstrous for ``character``."""
        return sorted(
            s for s in g.masked_holders(character) if s != hero and g.players[s].unofficial is None
        )

    def _any_candidate(self, g: GameState, hero: str) -> bool:
        return any(
            self._candidates(g, c, hero)
            for c in {*g.ronde, "extra"}
            if c not in EXCLUDED and (c == "extra" or slot_live(g, c))
        )

    def _fact(self, ctx: Context, seat: str, kind: str, **data: Any) -> None:
        self.fact(ctx, seat, kind, data)

    # -- designation (R7.17.2, R7.17.7, A55, A56) ---------------------------------------
    def designate_monster(self, ctx: Context, cmd: Command, actor: str) -> None:
        """``designate_monster``: ``character`` (or ``extra``) becomes monstrous.

        Raises:
            RuleViolation: ``actor_unmasked``, ``not_allowed`` (not the Hero; an
                excluded Character; no masked holder; a target still being hunted),
                ``out_of_window`` (after J1 without a new choice due),
                ``unknown_character``.
        """

        g = ctx.g
        running(g)
        p = self._actor(g, actor)
        day = g.action_day(ctx.now)
        hunt = p.data.get("hunt")
        first = hunt is None
        if hunt is None:
            if day != 1 and (self.role_since(g, p) or 1) <= 1:
                raise RuleViolation("out_of_window", "Le monstre se désigne le J1.")
        elif hunt["monster"] is not None:
            raise RuleViolation(
                "not_allowed", "Le Héros chasse déjà un monstre : pas de nouvelle cible."
            )
        elif not hunt["needed"]:
            raise RuleViolation("out_of_window", "Aucune nouvelle cible à choisir.")
        character = resolve_character(str(cmd.require("character")))
        self._designate(ctx, p, character, day, first=first, auto=False)

    def _designate(
        self, ctx: Context, p: Player, character: str, day: int, *, first: bool, auto: bool
    ) -> None:
        g = ctx.g
        if character in EXCLUDED:
            raise RuleViolation(
                "not_allowed",
                f"{french_name(character)} ne peut pas être monstrueux (ni Destinée, ni Pinocchio, "
                "ni le Souffleur, ni le Héros lui-même).",
            )
        live = character == "extra" or (character in g.ronde and slot_live(g, character))
        candidates = self._candidates(g, character, p.seat) if live else []
        if not candidates:
            raise RuleViolation(
                "not_allowed", f"Aucun joueur masqué n'incarne {french_name(character)}."
            )
        if character in DRAWN and len(candidates) > 1:
            monster = ctx.rng("monster").choice(candidates)
        else:
            monster = candidates[0]
        if first:
            deadline: int | None = FIRST_DEADLINE
        else:
            deadline = day + HUNT_DAYS if day + HUNT_DAYS <= LAST_DAY else None
        self._fact(
            ctx,
            p.seat,
            "monster_designated",
            monster=monster,
            character=character,
            day=day,
            since=day + 1,
            first=first,
            deadline=deadline,
            drawn=character in DRAWN,
            auto=auto,
        )
        ctx.tell(
            [monster],
            "monstrous",
            f"Vous êtes le Personnage monstrueux : à partir du J{day + 1}, ouvrez un Procès "
            "chaque jour, ou vous serez démasqué. Un seul Joker pour ce devoir : un objet de "
            f"décoration valant au moins {MONSTER_JOKER_POINTS} points.",
            since=day + 1,
        )

    # -- the hunt (R7.17.5) -------------------------------------------------------------
    def accuse_monster(self, ctx: Context, cmd: Command, actor: str) -> None:
        """``accuse_monster``: ``player`` — right: +295 and the monster falls; wrong: he falls.

        Raises:
            RuleViolation: ``actor_unmasked``, ``not_allowed`` (not the Hero; no current
                target; himself), ``unknown_player``.
        """

        g = ctx.g
        running(g)
        p = self._actor(g, actor)
        hunt = p.data.get("hunt")
        if hunt is None or hunt["monster"] is None:
            raise RuleViolation("not_allowed", "Le Héros n'a pas de monstre à démasquer.")
        seat = player_seat(g, cmd.require("player"))
        if seat == actor:
            raise RuleViolation("not_allowed", "Le Héros ne s'accuse pas lui-même.")
        right = seat == hunt["monster"]
        self._fact(ctx, actor, "accused", player=seat, right=right, day=g.day(ctx.now))
        if not right:
            unmask(ctx, actor, "hunt", "R7.17.5", detail=f"{g.pseudo(seat)} n'était pas le monstre")
            return
        ctx.award(actor, 295, f"Le Héros tragique démasque le monstre ({g.pseudo(seat)})", "R9.23")
        self._release(ctx, p, "unmasked_by_hero", needed=True)
        unmask(ctx, seat, "power", "R7.17.5", detail="le monstre est démasqué")

    def _release(self, ctx: Context, hero: Player, reason: str, *, needed: bool) -> None:
        g = ctx.g
        day = g.day(ctx.now)
        needed = needed and hero.masked and self._any_candidate(g, hero.seat)
        self._fact(ctx, hero.seat, "monster_released", reason=reason, needed=needed, due=day + 1)
        if needed:
            ctx.tell(
                [hero.seat],
                "choose_monster",
                f"Choisissez une nouvelle cible monstrueuse avant la fin du J{day + 1}.",
                due=day + 1,
            )

    def after_unmasking(self, ctx: Context, seat: str, character: str, cause: str) -> None:
        """His target unmasked by anything else: a new choice is due (R7.17.7, A56). The
        Hero himself unmasked: under A62 ``all_lapse`` his monster is released, when his
        fall is told (a verdict's at its announcement, A77: his own view, his monster's
        duty and Joker read the hunt as players know it until then)."""
        g = ctx.g
        hunt = g.players[seat].data.get("hunt")
        lapse = g.opt("A62") == "all_lapse"
        if character == self.id and hunt and hunt["monster"] is not None and lapse:
            self._release(ctx, g.players[seat], "hero_unmasked", needed=False)
        for hero, hunt in self._hunts(g):
            if hunt["monster"] == seat:
                self._release(ctx, hero, "unmasked_otherwise", needed=self.holds(g, hero))

    # -- the daily declaration (R7.17.8, A57) -------------------------------------------
    def declare_not(self, ctx: Context, cmd: Command, actor: str) -> None:
        """``declare_not``: ``player``, a masked player he is not, published by the MJs.

        Raises:
            RuleViolation: ``actor_unmasked``, ``not_allowed`` (not the Hero; himself; an
                unmasked player; a name already given, A57), ``out_of_window`` (J1),
                ``daily_limit`` (a declaration already made today), ``unknown_player``.
        """

        g = ctx.g
        running(g)
        p = self._actor(g, actor)
        day = g.action_day(ctx.now)
        if day < 2:
            raise RuleViolation("out_of_window", "Les déclarations du Héros commencent au J2.")
        if day in p.data.get("declared_days", []):
            raise RuleViolation("daily_limit", "Une déclaration par jour.")
        seat = player_seat(g, cmd.require("player"))
        if seat == actor:
            raise RuleViolation("not_allowed", "Le Héros ne dit pas qu'il n'est pas lui-même.")
        if not g.players[seat].masked:
            raise RuleViolation("not_allowed", f"{g.pseudo(seat)} n'est pas masqué (A57).")
        mode = g.opt("A57")
        if mode != "fm_repeats" and seat in p.data.get("declared", []):
            raise RuleViolation("not_allowed", f"{g.pseudo(seat)} a déjà été nommé (A57).")
        self._fact(ctx, actor, "declared", player=seat, day=day)
        forum = "FV" if mode == "fv_distinct" else "FM"
        ctx.announce(
            "hero_declaration",
            f"[{forum}] « Moi, le grand héros, je ne suis pas ce manant de {g.pseudo(seat)} ! »",
            player=seat,
            forum=forum,
        )

    # -- the monstrous Joker (R7.17.3, A24) ---------------------------------------------
    def special_joker(self, ctx: Context, cmd: Command, actor: str, items: list[str]) -> bool:
        g = ctx.g
        # (as players know it: a monster the Hero's untold fall released is still one, A77)
        owner = next(
            (hunt for h, hunt in self._hunts(g) if _monster_known(g, h, hunt) == actor), None
        )
        claimed = cmd.get("kind") == "monstrous"
        if owner is None:
            if claimed:
                raise RuleViolation("not_allowed", "Ce joueur n'est pas le Personnage monstrueux.")
            return False
        p = g.players[actor]
        fits = (
            len(items) == 1
            and g.catalog.points(items[0]) >= MONSTER_JOKER_POINTS
            and g.catalog.is_decoration(items[0], definition=g.opt("A73"))
        )
        if not claimed:
            own = character_of(g, p)
            if own.jokers_allowed(g, p) and (not fits or own.joker_refusal(g, p, items) is None):
                return False  # his own Joker, or his own list's refusal (invalid_argument)
            # (without Jokers of his own, the monstrous one is the one he has: a wrong item
            # is refused for what it is, never "no Joker", R7.17.3)
        if actor in owner["jokers"]:
            raise RuleViolation("power_exhausted", "Le Joker monstrueux est déjà utilisé.")
        if not fits:
            raise RuleViolation(
                "invalid_argument",
                f"Le Joker monstrueux est un objet de décoration valant au moins "
                f"{MONSTER_JOKER_POINTS} points.",
            )
        day = g.day(ctx.now)
        if g.opt("A24") == "named_day" and cmd.get("day") is not None:
            day = cmd.integer("day")
            if day < g.day(ctx.now):
                raise RuleViolation("out_of_window", "Un Joker ne couvre pas un jour passé.")
        if day == LAST_DAY and ctx.now >= cutoff_1313(g.start):
            raise RuleViolation("out_of_window", "Au J13, un Joker doit arriver avant 13h13.")
        if not owner["since"] <= day <= LAST_DAY:
            raise RuleViolation("out_of_window", f"Pas de Procès monstrueux dû le J{day}.")
        to = game_master_name(g, cmd)
        refuse_duplicates(g, to, items)
        ctx.emit(ItemsSent(at=ctx.now, player=actor, to=to, items=tuple(items), joker=True))
        hero = next(h for h, hunt in self._hunts(g) if hunt is owner)
        self._fact(ctx, hero.seat, "monster_joker", monster=actor, day=day, items=list(items))
        return True

    # -- timers -------------------------------------------------------------------------
    def _monster_duty(self, ctx: Context, day: int) -> None:
        """A monstrous Character that opened no trial on ``day`` is unmasked (R7.17.3)."""

        g = ctx.g
        lapse = g.opt("A62") == "all_lapse"
        for hero, hunt in self._hunts(g):
            seat = _monster_known(g, hero, hunt)
            if seat is None or day < hunt["since"]:
                continue
            if not hero.masked and lapse:
                continue  # (as players know him: a verdict's fall once announced)
            m = g.players[seat]
            if not m.masked or m.unofficial is not None:
                continue
            if frozen_by(g, seat) is not None:
                continue  # he awaits a verdict: no trial action of his is accepted (A77)
            if day in g.exemptions.get(seat, set()) or seat in g.asleep.get(day, set()):
                continue  # sleep and exemptions cover it (R6.8, R3.10), his own Jokers never
            if day in hunt["joker_days"].get(seat, []):
                continue
            if any(kind == "open" for kind, _n, _a in m.actions.get(day, [])):
                continue
            self._monster_day_missed(ctx, hero, seat, day, lapse=lapse)

    def _monster_day_missed(
        self, ctx: Context, hero: Player, seat: str, day: int, *, lapse: bool = True
    ) -> None:
        """A monstrous Character's ``day`` without a trial: he is unmasked, unless (A62
        ``all_lapse``: the Hero's fall before the end of the day would end the duty) a
        verdict naming the Tragic Hero waits: then it is judged at its announcement on
        the real outcome (A77 clarification 2)."""
        waiting = verdicts_naming(ctx.g, {self.id}) if lapse else []
        if waiting:
            trials = [t.number for t in waiting]
            self._fact(ctx, hero.seat, "monster_duty_waits", monster=seat, day=day, trials=trials)
            return
        unmask(
            ctx,
            seat,
            "duty",
            "R7.17.3",
            detail=f"pas de Procès monstrueux le J{day}",
            cause_day=day,
        )

    def _settle_monster_duties(self, ctx: Context, hero: Player, trial: Trial) -> None:
        """A monstrous Character's day that waited for verdicts naming the Tragic Hero
        (A62 ``all_lapse``, A77 clarification 2): once all are announced, missed unless
        the Hero had really fallen by the end of that day (a verdict's fall dates from its
        conclusion); the monster's fall dates from now."""
        g = ctx.g
        for wait in list(hero.data.get("monster_waits", [])):
            numbers = [int(n) for n in wait["trials"]]
            if not settles(g, trial, numbers):
                continue
            seat, day = str(wait["monster"]), int(wait["day"])
            self._fact(ctx, hero.seat, "monster_duty_settled", monster=seat, day=day)
            end = cutoff_1313(g.start) if day >= LAST_DAY else g.day_start(day + 1)
            fell = hero.unmasked_at is not None and not hero.masked and hero.unmasked_at < end
            m = g.players[seat]
            if fell or not m.masked or m.unofficial is not None:
                continue
            # (another verdict naming him came meanwhile: it waits for it too)
            self._monster_day_missed(ctx, hero, seat, day)

    def _hero_duties(self, ctx: Context, p: Player, day: int) -> None:
        """Declaration, hunt deadline and new choice due at the end of ``day``."""

        g = ctx.g
        if not self.holds(g, p) or p.unofficial is not None:
            return
        if day == 1 and "hunt" not in p.data:
            with contextlib.suppress(RuleViolation):  # no masked Extra: nothing to hunt
                self._designate(ctx, p, "extra", 1, first=True, auto=True)
            return
        since = self.role_since(g, p) or 1
        missing = day >= max(2, since) and day not in p.data.get("declared_days", [])
        if missing and not covered(g, p.seat, day):
            unmask(
                ctx,
                p.seat,
                "constraint",
                "R7.17.8",
                detail=f"aucune déclaration le J{day}",
                cause_day=day,
            )
            return
        hunt = p.data.get("hunt")
        if hunt is None or not p.masked:
            return
        if hunt["monster"] is not None and hunt["deadline"] == day:
            rule = "R7.17.6" if hunt["first"] else "R7.17.7"
            waiting = verdicts_naming(g, {hunt["character"]})
            if waiting:
                # a verdict not yet announced names his monster's Character: whether the
                # monster fell depends on its outcome, so the deadline is judged at the
                # announcement on the real outcome, found now (A77 clarification 2)
                monster = hunt["monster"]
                with truly(g):
                    fell = not g.players[monster].masked
                self._fact(
                    ctx,
                    p.seat,
                    "deadline_waits",
                    day=day,
                    trials=[t.number for t in waiting],
                    rule=rule,
                    monster=monster,
                    fell=fell,
                )
                return
            unmask(ctx, p.seat, "duty", rule, detail="monstre non démasqué à temps", cause_day=day)
        elif (
            hunt["monster"] is None
            and hunt["needed"]
            and hunt["due"] == day
            and g.opt("A56") == "next_day_or_unmask"
        ):
            unmask(
                ctx, p.seat, "duty", "A56", detail="aucune nouvelle cible choisie", cause_day=day
            )

    def on_day_closed(self, ctx: Context, p: Player, day: int) -> None:
        self._hero_duties(ctx, p, day)

    def after_announcement(self, ctx: Context, trial: Trial) -> None:
        """A hunt deadline that waited for the verdicts naming his monster's Character
        (A77): once all are announced, met if the monster had really fallen by then (a
        verdict's unmasking dates from its conclusion), else missed, now."""
        g = ctx.g
        for p in list(g.players.values()):
            if p.data.get("monster_waits"):
                self._settle_monster_duties(ctx, p, trial)
        for seat, p in g.players.items():
            for wait in list(p.data.get("deadline_waits", [])):
                numbers = [int(n) for n in wait.get("trials", [wait.get("trial")])]
                if not settles(g, trial, numbers):
                    continue
                self._fact(ctx, seat, "deadline_settled", day=wait["day"])
                fell = wait.get("fell")
                if fell is None:  # (a wait recorded before the real outcome was kept)
                    fell = wait["monster"] in trial.flags.get("unmasked", ())
                if not fell and p.masked and self.holds(g, p) and p.unofficial is None:
                    detail = "monstre non démasqué à temps"
                    unmask(ctx, seat, "duty", wait["rule"], detail=detail, cause_day=wait["day"])

    def on_cutoff(self, ctx: Context, p: Player) -> None:
        self._hero_duties(ctx, p, LAST_DAY)

    def after_day_closed(self, ctx: Context, day: int) -> None:
        if day < LAST_DAY:
            self._monster_duty(ctx, day)

    def after_cutoff(self, ctx: Context) -> None:
        self._monster_duty(ctx, LAST_DAY)

    def apply_fact(self, g: GameState, p: Player, fact: CharacterFact) -> None:
        d = dict(fact.data)
        if fact.kind == "monster_designated":
            hunt = p.data.setdefault(
                "hunt", {"history": [], "jokers": [], "joker_days": {}, "needed": False}
            )
            hunt.update(
                monster=d["monster"],
                character=d["character"],
                since=d["since"],
                first=d["first"],
                deadline=d["deadline"],
                needed=False,
                due=None,
            )
            hunt["history"].append(
                {"monster": d["monster"], "character": d["character"], "day": d["day"]}
            )
        elif fact.kind == "monster_released":
            hunt = p.data["hunt"]
            hunt["history"][-1]["end"] = d["reason"]
            hunt.update(monster=None, needed=d["needed"], due=d["due"], deadline=None)
        elif fact.kind == "monster_joker":
            hunt = p.data["hunt"]
            hunt["jokers"].append(d["monster"])
            hunt["joker_days"].setdefault(d["monster"], []).append(d["day"])
        elif fact.kind == "declared":
            p.data.setdefault("declared", []).append(d["player"])
            p.data.setdefault("declared_days", []).append(d["day"])
        elif fact.kind == "deadline_waits":
            p.data.setdefault("deadline_waits", []).append(d)
        elif fact.kind == "deadline_settled":
            waits = p.data.get("deadline_waits", [])
            p.data["deadline_waits"] = [w for w in waits if w["day"] != d["day"]]
        elif fact.kind == "monster_duty_waits":
            p.data.setdefault("monster_waits", []).append(d)
        elif fact.kind == "monster_duty_settled":
            p.data["monster_waits"] = [
                w
                for w in p.data.get("monster_waits", [])
                if (w["monster"], w["day"]) != (d["monster"], d["day"])
            ]
        elif fact.kind == "accused":
            p.data.setdefault("accusations", []).append(d)

    # -- views --------------------------------------------------------------------------
    def private_view(self, g: GameState, p: Player) -> dict[str, object]:
        hunt = p.data.get("hunt")
        out: dict[str, object] = {
            "declared": [g.pseudo(s) for s in p.data.get("declared", [])],
            "declared_today": g.day() in p.data.get("declared_days", []),
        }
        if hunt is not None:
            out.update(
                {
                    "monster_character": hunt["character"] if hunt["monster"] else None,
                    "hunt_deadline": hunt["deadline"],
                    "new_target_due": hunt["due"] if hunt["needed"] else None,
                    "hunted": [h["character"] for h in hunt["history"]],
                }
            )
        return out

    def game_master_todo(self, g: GameState, p: Player, day: int) -> list[Todo]:
        out: list[Todo] = []
        end = day_end(g.start, day)
        if day == 1 and "hunt" not in p.data:
            out.append(
                Todo(
                    "Recevoir sa désignation du Personnage monstrueux (sinon : Figurant).",
                    "watch",
                    p.seat,
                    end,
                    "il devient Figurant",
                    "designate_monster",
                    by=p.pseudo,
                )
            )
        if day >= 2:
            if day in p.data.get("declared_days", []):
                name = g.pseudo(p.data["declared"][-1])
                out.append(
                    Todo(
                        f"Publier sur le FM sa déclaration : « je ne suis pas {name} ».",
                        "send",
                        p.seat,
                        end,
                    )
                )
            else:
                out.append(
                    Todo(
                        "Sa déclaration « je ne suis pas … » du jour manque encore.",
                        "watch",
                        p.seat,
                        end,
                        "démasqué à minuit (sauf sommeil ou exemption)",
                        "declare_not",
                        by=p.pseudo,
                    )
                )
        hunt = p.data.get("hunt")
        if hunt is not None:
            if hunt["monster"] is not None:
                m = g.pseudo(hunt["monster"])
                opened = any(
                    k == "open" for k, _n, _a in g.players[hunt["monster"]].actions.get(day, [])
                )
                if day >= hunt["since"]:
                    state = "fait" if opened else "pas encore"
                    text = f"Le monstre {m} doit ouvrir un Procès aujourd'hui ({state})."
                    out.append(Todo(text, "note" if opened else "watch", p.seat, end))
                if hunt["deadline"] is not None:
                    text = f"Échéance de sa chasse : fin du J{hunt['deadline']}."
                    out.append(Todo(text, "watch", p.seat, day_end(g.start, hunt["deadline"])))
            elif hunt["needed"]:
                out.append(
                    Todo(
                        f"Il doit choisir une nouvelle cible avant la fin du J{hunt['due']}.",
                        "watch",
                        p.seat,
                        day_end(g.start, hunt["due"]),
                        action="designate_monster",
                        by=p.pseudo,
                    )
                )
        return out

    def describe_private(self, g: GameState, p: Player, data: dict[str, object]) -> list[str]:
        out = []
        declared = values(data, "declared")
        if declared:
            out.append(f"Vos déclarations « je ne suis pas … » : {people(declared)}.")
        if data.get("declared_today"):
            out.append("Votre déclaration « je ne suis pas … » du jour est faite.")
        else:
            out.append(
                "Vous n'avez pas encore fait votre déclaration « je ne suis pas … » du jour "
                "(à faire avant minuit, sinon vous êtes démasqué)."
            )
        if data.get("monster_character"):
            out.append(f"Votre monstre : {name(str(data['monster_character']))}.")
        if data.get("hunt_deadline"):
            out.append(f"Échéance de votre chasse : fin du J{data['hunt_deadline']}.")
        if data.get("new_target_due"):
            out.append(f"Choisissez une nouvelle cible avant la fin du J{data['new_target_due']}.")
        hunted = values(data, "hunted")
        if hunted:
            out.append(f"Personnages déjà chassés : {names(hunted)}.")
        return out


def _monster_known(g: GameState, hero: Player, hunt: dict[str, Any]) -> str | None:
    """The Hero's monster as players know it: his current one, or the one his fall
    released (A62 ``all_lapse``) while that fall is not yet told (a verdict waiting for
    its announcement, A77). (Since the release waits for the announcement, the second
    case is only that of a game recorded before, its release at the conclusion.)"""
    if hunt["monster"] is not None:
        return str(hunt["monster"])
    history = hunt["history"]
    if not history or history[-1].get("end") != "hero_unmasked" or hero.seat not in hidden_now(g):
        return None
    return str(history[-1]["monster"])
