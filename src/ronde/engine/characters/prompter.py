"""Prompter (Souffleur, ``prompter``), R7.2.

Glossary: Souffleur → ``prompter``; souffler (find an Extra) → ``prompt``; his
sentence → ``choose_phrase``; blow out an Extra's candle (the chorus) → ``prompt``
(chorus vote).

Power: from J3 (A3 ``from_j2``; J2 under ``from_j1``) to the end of play, at most
once a day, he names a player (``prompt``: ``player``, ``theme_found`` = the MJs'
ruling on his excerpt of that player's previous-day Rehearsals post, R0.2). The
submission is right when the named player is a masked Extra — never the Revenant
holding the Extra role, who is not one of the six Extras (R7.22.5, A61) — whose
Extra rules applied on the previous day (a new Extra's start the day after his
transfiguration, A67), and the excerpt alludes to that day's theme (R7.2.2,
R7.2.3). Then that Extra is unmasked (cause ``power``) and he gains 155 (R9.22).
Once the Pianist is unmasked (``g.flags["double_complaints"]``) A50 applies: by
default the named Extra plus one other masked Extra drawn with ``ctx.rng``, 155
each; the draw is recorded in the ``submission`` fact. His standard visible set
(R7.2.1).

Voice: until the last Extra is unmasked (A32: six Extra unmaskings counted as
events by default) every complaint he files is null and he may not open trials
(R7.2.5, R5.12, A33); once the Pianist is unmasked, his second complaint of the
day is a normal one (R7.15.3).

Constraint: on J2 he tells the MJs a sentence of at least 8 words
(``choose_phrase``; engine-judged, R6.20: none by the end of J2 is a failed duty
at J3 00:00); from J2, every day, one of his FV posts contains it, one word
changed at most from the original (A34 ``from_original``) — judged by an MJ,
presumed met (A1).

Jokers: none (R7.2.7).

Failure: a failed constraint or duty; "completely wrong" 3 days in a row or 6
times in all (R7.2.4), counted at once when the MJs rule: A30 ``both_wrong``
(a half-right submission is no mistake and breaks a run), A31
``optional_breaks_run`` (a day without submission breaks the run).

Inheritance: when he is unmasked the chorus gains "blow out an Extra's candle"
(chorus ``prompt``: ``player``, ``theme_found``), carried out the next day with
the same test, +155 to every member per Extra unmasked (A50 too, unless
``prompter_only``), nothing for a wrong candle (R7.2.8, R8.10, R9.12). Also when
the Revenant holding his role falls (R7.22.4).

A found Extra whose verdict waits for its announcement (A77): his fall now would tell
its outcome, so his unmasking waits for it (``unmask``: unofficial, as R4.15), and the
155 with it (``find_waits`` on the Extra): at the announcement it is judged on the real
outcome — UNJUST, he is unmasked then and the 155 paid then (to the Prompter, or the
chorus's members, even if they fell meanwhile: the find was made, A62 voids pending
powers, not a find already judged); JUST, the verdict unmasked him at its conclusion,
before the find, which unmasks no one and pays nothing (R8.3). Alike under A77
``outcome_applies``, which frees the accused's own actions only: the views are those of
``frozen``, and nothing shown (score lines, A70) depends on the verdict before then.

Rule ids: R7.2.1, R7.2.2, R7.2.3, R7.2.4, R7.2.5, R7.2.6, R7.2.7, R7.2.8, R8.10,
R9.12, R9.22, A3, A30, A31, A32, A33, A34, A50, A62, A77.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, ClassVar

from .. import chorus
from ..character import ActionHandler, Character, ChorusExecutor, ChorusValidator
from ..commands import Command
from ..constraints import covered
from ..context import Context
from ..errors import RuleViolation
from ..events import CharacterFact
from ..sentences import number, rows
from ..state import GameState, Player, Trial
from ..trials import player_seat, running
from ..unmasking import settles, verdicts_awaited
from ..verdicts import unmask
from ..work import Todo, day_end

PHRASE_MIN_WORDS = 8
RUN_LIMIT = 3
TOTAL_LIMIT = 6
FIND_POINTS = 155
_WORD = re.compile(r"\w+(?:['’-]\w+)*")


def voice_restored(g: GameState) -> bool:
    """Whether the last Extra has been unmasked (R7.2.5, A32)."""
    mode = g.opt("A32")
    if mode == "original":
        return g.n_extras > 0 and g.original_extra_unmaskings >= g.n_extras
    if mode == "none_left":
        return not any(p.masked and p.character == "extra" for p in g.players.values())
    return g.n_extras > 0 and g.extra_unmaskings >= g.n_extras


def second_complaint(g: GameState, p: Player) -> bool:
    """Whether a complaint he files now is his Pianist second complaint of the day (R7.15.3)."""
    if not g.flags.get("double_complaints") or g.clock is None:
        return False
    return len(p.actions.get(g.action_day(g.clock), [])) >= 1


def was_extra_on(g: GameState, seat: str, day: int) -> bool:
    """A masked Extra now whose Extra rules applied on ``day`` (R7.2.3, A67); never the
    Revenant, whose character stays ``revenant`` (R7.22.5)."""
    p = g.players[seat]
    if not p.masked or p.character != "extra":
        return False
    return p.transfigured_day is None or p.transfigured_day < day


def found_extras(ctx: Context, named: str, *, by_prompter: bool) -> tuple[list[str], bool]:
    """The Extras a right submission unmasks, and whether each scores (A50).

    Without the Pianist's fall: the named one. After it: the named one plus one other
    masked Extra drawn at random (``named_plus_random_*``), or two drawn among all
    masked Extras (``two_random_each``); ``prompter_only`` doubles the Prompter's
    finds only. Draws use ``ctx.rng`` (recorded by the caller's event)."""
    g = ctx.g
    mode = g.opt("A50")
    each = mode != "named_plus_random_once"
    if not g.flags.get("double_complaints") or (mode == "prompter_only" and not by_prompter):
        return [named], True
    pool = sorted(s for s, p in g.players.items() if p.masked and p.character == "extra")
    rng = ctx.rng("prompt")
    if mode == "two_random_each":
        return rng.sample(pool, min(2, len(pool))), True
    others = [s for s in pool if s != named]
    return [named, *rng.sample(others, min(1, len(others)))], each


class Prompter(Character):
    """The Prompter: his sentence, his daily submission, his muted voice."""

    id: ClassVar[str] = "prompter"
    constraint_fr: ClassVar[str] = "placer chaque jour sa phrase du J2 dans un message du FV"
    power_fr: ClassVar[str] = (
        "chaque jour (dès le J3), souffler aux MJ le pseudo d'un Figurant et un extrait "
        "de sa Répétition de la veille contenant le thème"
    )

    # -- voice (R7.2.5) -----------------------------------------------------------
    def check_open(self, g: GameState, p: Player, *, anonymous: bool) -> None:
        if not voice_restored(g) and g.opt("A33") == "forbidden":
            raise RuleViolation(
                "not_allowed", "Le Souffleur n'ouvre pas de Procès avant le dernier Figurant (A33)."
            )

    def null_as_author(self, g: GameState, p: Player, trial: Trial) -> bool:
        return not voice_restored(g) and not second_complaint(g, p)

    # -- powers -------------------------------------------------------------------
    def actions(self) -> Mapping[str, ActionHandler]:
        return {"choose_phrase": self.choose_phrase, "prompt": self.prompt}

    def phrase_day(self, g: GameState, p: Player) -> int:
        """The day by whose end his sentence is due: J2, or for the Revenant the day
        after he was given the role (A61)."""
        return max(2, self.role_since(g, p) or 2)

    def _actor(self, g: GameState, actor: str) -> Player:
        p = g.players[actor]
        if not p.masked or p.unofficial is not None:
            raise RuleViolation("actor_unmasked", f"{p.pseudo} est démasqué.")
        if not self.holds(g, p):
            raise RuleViolation("not_allowed", f"{p.pseudo} n'est pas le Souffleur.")
        return p

    def choose_phrase(self, ctx: Context, cmd: Command, actor: str) -> None:
        """``choose_phrase``: ``text``, his sentence of at least 8 words, told on J2 (R7.2.6).

        Raises:
            RuleViolation: ``not_allowed`` (not the Prompter), ``out_of_window`` (not
                J2), ``power_exhausted`` (already chosen), ``invalid_argument`` (fewer
                than 8 words).
        """

        g = ctx.g
        running(g)
        p = self._actor(g, actor)
        day = g.action_day(ctx.now)
        due = self.phrase_day(g, p)
        if day > due or day < 2:
            raise RuleViolation("out_of_window", f"La phrase du Souffleur se donne au J{due}.")
        if "phrase" in p.data.get(self.id, {}):
            raise RuleViolation("power_exhausted", "La phrase est déjà choisie.")
        text = " ".join(str(cmd.require("text")).split())
        words = _WORD.findall(text)
        if len(words) < PHRASE_MIN_WORDS:
            raise RuleViolation(
                "invalid_argument",
                f"La phrase doit compter au moins {PHRASE_MIN_WORDS} mots ({len(words)}).",
            )
        self.fact(ctx, actor, "phrase", {"text": text, "day": day})
        ctx.tell([actor], "phrase", f"Phrase enregistrée : « {text} ».", phrase=text)

    def prompt(self, ctx: Context, cmd: Command, actor: str) -> None:
        """``prompt``: ``player``, ``theme_found`` (the MJs' ruling on the excerpt) —
        one submission a day from J3 (R7.2.2–R7.2.4, A3, A30, A31, A50).

        Raises:
            RuleViolation: ``not_allowed``, ``out_of_window`` (J2 or before under A3
                ``from_j2``), ``daily_limit`` (second of the day), ``unknown_player``.
        """

        g = ctx.g
        running(g)
        p = self._actor(g, actor)
        day = g.action_day(ctx.now)
        first = 2 if g.opt("A3") == "from_j1" else 3
        if day < first:
            raise RuleViolation(
                "out_of_window",
                f"Première soumission au J{first} : il faut des Répétitions la veille (A3).",
            )
        mine = p.data.get(self.id, {})
        if any(int(s["day"]) == day for s in mine.get("submissions", [])):
            raise RuleViolation("daily_limit", "Une seule soumission par jour.")
        named = player_seat(g, cmd.require("player"))
        theme = cmd.flag("theme_found")
        player_right = was_extra_on(g, named, day - 1)
        right = player_right and theme
        mode = g.opt("A30")
        if mode == "wrong_player":
            mistake = not player_right
        elif mode == "any_failure":
            mistake = not right
        else:
            mistake = not player_right and not theme
        drawn: list[str] = []
        each = True
        if right:
            drawn, each = found_extras(ctx, named, by_prompter=True)
        self.fact(
            ctx,
            actor,
            "submission",
            {
                "day": day,
                "player": named,
                "theme_found": theme,
                "player_right": player_right,
                "right": right,
                "mistake": mistake,
                "found": drawn,
            },
        )
        if right:
            ctx.tell([actor], "prompt_result", "Soumission juste : le Figurant est démasqué.")
            self.unmask_found(ctx, drawn, (actor,), each)
        else:
            verdict = "complètement fausse" if mistake else "fausse (à moitié juste)"
            ctx.tell([actor], "prompt_result", f"Soumission {verdict}.", mistake=mistake)
        if mistake:
            run, total = self.mistakes(g, p)
            if run >= RUN_LIMIT or total >= TOTAL_LIMIT:
                why = f"{run} erreurs de suite" if run >= RUN_LIMIT else f"{total} erreurs"
                unmask(ctx, actor, "duty", "R7.2.4", detail=why, cause_day=day)

    # -- a find and its 155 (R7.2.3, R9.22, R9.12; A77) ---------------------------------
    def unmask_found(
        self, ctx: Context, seats: list[str], payees: tuple[str, ...], each: bool
    ) -> None:
        """Unmask the found Extras (cause ``power``) and pay 155 per Extra (or once, A50).

        An Extra whose verdict waits for its announcement is only marked (``unmask``:
        unofficially, A77): his 155 waits with him (``find_waits``), paid at the
        announcement if the find unmasks him then (``after_announcement``)."""
        g = ctx.g
        found: list[str] = []
        waiting: list[str] = []
        for s in seats:
            before = g.players[s].unofficial
            if unmask(ctx, s, "power", "R7.2.3", detail="bougie soufflée"):
                found.append(s)
            elif before is None and g.players[s].unofficial == "power":
                waiting.append(s)  # (this find marked him: his fall waits for a verdict)
        times = len(found) if each else min(1, len(found))
        for _ in range(times):
            self._pay(ctx, payees)
        if found and not each:
            return  # (paid once already: the others add nothing)
        for s in waiting:
            trials = [t.number for t in verdicts_awaited(g, s)]
            group = [] if each else waiting
            self.fact(
                ctx, s, "find_waits", {"payees": list(payees), "trials": trials, "once": group}
            )

    @staticmethod
    def _pay(ctx: Context, payees: tuple[str, ...]) -> None:
        for s in payees:
            ctx.award(s, FIND_POINTS, "Figurant trouvé par le Souffleur", "R9.22")

    def after_announcement(self, ctx: Context, trial: Trial) -> None:
        """A find whose Extra waited for verdicts (A77): once all are announced, judged on
        the real outcome (the game masters' command reads the game as it is). A verdict
        that unmasked him did so at its conclusion, before the find: nothing is paid
        (R8.3). Else the announcement unmasked him for the find (``settle_unofficial``):
        the 155 is paid now; a later verdict against him still waiting makes it wait
        for that one too."""
        g = ctx.g
        for seat, p in g.players.items():
            wait = p.data.get(self.id, {}).get("find_waits")
            if wait is None or not settles(g, trial, wait["trials"]):
                continue
            self.fact(ctx, seat, "find_settled")
            numbers = [int(n) for n in wait["trials"]]
            if any(seat in g.trials[n - 1].flags.get("unmasked", ()) for n in numbers):
                continue
            payees = tuple(str(s) for s in wait["payees"])
            if p.masked:
                later = [t.number for t in verdicts_awaited(g, seat)]
                if later and p.unofficial == "power":
                    data = {"payees": list(payees), "trials": later, "once": wait["once"]}
                    self.fact(ctx, seat, "find_waits", data)
                continue
            if p.unmasked_at != ctx.now:
                continue  # (a later verdict unmasked him first)
            self._pay(ctx, payees)
            for other in wait["once"]:  # (A50 ``named_plus_random_once``: paid once)
                if other != seat and "find_waits" in g.players[other].data.get(self.id, {}):
                    self.fact(ctx, str(other), "find_settled")

    def mistakes(self, g: GameState, p: Player) -> tuple[int, int]:
        """(current run, total) of "completely wrong" submissions (R7.2.4, A30, A31)."""
        subs = sorted(p.data.get(self.id, {}).get("submissions", []), key=lambda s: s["day"])
        total = sum(1 for s in subs if s["mistake"])
        neutral = g.opt("A31") == "optional_neutral"
        # a day without submission since the last one breaks the run (A31)
        today = g.action_day(g.clock) if g.clock is not None else 0
        if not neutral and subs and int(subs[-1]["day"]) < today - 1:
            return 0, total
        run = 0
        expected: int | None = None
        for s in reversed(subs):
            consecutive = neutral or expected is None or int(s["day"]) == expected
            if not s["mistake"] or not consecutive:
                break
            run += 1
            expected = int(s["day"]) - 1
        return run, total

    # -- duties -------------------------------------------------------------------
    def on_day_closed(self, ctx: Context, p: Player, day: int) -> None:
        """The sentence is due by the end of J2 (R7.2.6, R6.20): else a failed duty."""

        g = ctx.g
        if day != self.phrase_day(g, p) or "phrase" in p.data.get(self.id, {}):
            return
        if covered(g, p.seat, day):
            return
        unmask(ctx, p.seat, "duty", "R7.2.6", detail=f"phrase non donnée au J{day}", cause_day=day)

    def on_unmasked(self, ctx: Context, p: Player) -> None:
        self.unlock_chorus(ctx, p.seat)

    def unlock_chorus(self, ctx: Context, seat: str) -> None:
        """The chorus gains the candle (R7.2.8, R8.10), also from the Revenant (R7.22.4)."""
        if "prompt" not in ctx.g.flags.get("chorus_actions", set()):
            ctx.emit(CharacterFact(at=ctx.now, character=self.id, player=seat, kind="inherited"))

    def apply_fact(self, g: GameState, p: Player, fact: CharacterFact) -> None:
        if fact.kind == "inherited":
            g.flags["chorus_actions"] = set(g.flags.get("chorus_actions", ())) | {"prompt"}
            return
        if fact.kind == "candle":
            g.flags.setdefault("candles", []).append(dict(fact.data))
            return
        mine = p.data.setdefault(self.id, {})
        if fact.kind == "find_waits":
            mine["find_waits"] = dict(fact.data)
        elif fact.kind == "find_settled":
            mine.pop("find_waits", None)
        elif fact.kind == "phrase":
            mine["phrase"] = str(fact.data["text"])
        elif fact.kind == "submission":
            entry = dict(fact.data)
            entry["found"] = list(entry.get("found", []))
            mine.setdefault("submissions", []).append(entry)

    # -- the chorus's candle (R8.10) ------------------------------------------------
    def chorus_actions(self) -> Mapping[str, tuple[ChorusValidator, ChorusExecutor]]:
        return {"prompt": (self._candle_args, self._blow_candle)}

    @staticmethod
    def _candle_args(g: GameState, cmd: Command) -> dict[str, Any]:
        seat = player_seat(g, cmd.require("player"))
        return {"player": seat, "theme_found": cmd.flag("theme_found")}

    def _blow_candle(
        self, ctx: Context, args: dict[str, Any], members: tuple[str, ...], day: int
    ) -> None:
        """Carried out at J*n+1* 00:00 (R8.17): the test of R7.2.3 on J*n*'s Rehearsals."""
        g = ctx.g
        told = chorus.told(g)
        named = str(args["player"])
        right = bool(args.get("theme_found")) and was_extra_on(g, named, day - 1)
        drawn: list[str] = []
        each = True
        if right:
            drawn, each = found_extras(ctx, named, by_prompter=False)
        self.fact(
            ctx, named, "candle", {"day": day, "player": named, "right": right, "found": drawn}
        )
        if right:
            self.unmask_found(ctx, drawn, members, each)
        ctx.tell(
            told,
            "candle_result",
            "Bougie soufflée : le Figurant est démasqué."
            if right
            else "Bougie soufflée en vain : rien ne se passe.",
        )

    # -- views --------------------------------------------------------------------
    def private_view(self, g: GameState, p: Player) -> dict[str, object]:
        mine = p.data.get(self.id, {})
        run, total = self.mistakes(g, p)
        return {
            "phrase": mine.get("phrase"),
            "submissions": [
                {
                    "day": s["day"],
                    "player": g.pseudo(s["player"]),
                    "right": s["right"],
                    "mistake": s["mistake"],
                }
                for s in mine.get("submissions", [])
            ],
            "mistakes_in_a_row": run,
            "mistakes_total": total,
            "voice_restored": voice_restored(g),
        }

    def game_master_todo(self, g: GameState, p: Player, day: int) -> list[Todo]:
        out = []
        mine = p.data.get(self.id, {})
        if "phrase" not in mine and day <= self.phrase_day(g, p):
            out.append(
                Todo(
                    "recevoir sa phrase d'au moins 8 mots avant la fin du J2",
                    "watch",
                    p.seat,
                    day_end(g.start, self.phrase_day(g, p)),
                    "démasqué (devoir manqué, R7.2.6)",
                    action="choose_phrase",
                    by=p.pseudo,
                )
            )
        elif "phrase" in mine and 2 <= day <= 13:
            text = (
                f"vérifier que sa phrase « {mine['phrase']} » (un mot changé au plus) "
                "figure dans un de ses messages du FV"
            )
            out.append(self.constraint_todo(g, p, day, text))
        return out

    def describe_private(self, g: GameState, p: Player, data: dict[str, object]) -> list[str]:
        phrase = data.get("phrase")
        out = [
            f"Votre phrase : « {phrase} »."
            if phrase
            else "Vous n'avez pas encore choisi votre phrase (avant la fin du J2)."
        ]
        for s in rows(data, "submissions"):
            verdict = "juste" if s.get("right") else "fausse"
            if s.get("mistake"):
                verdict += " (erreur complète)"
            out.append(f"J{s.get('day')} : soufflé à {s.get('player')} — {verdict}.")
        run, total = number(data, "mistakes_in_a_row"), number(data, "mistakes_total")
        if total:
            out.append(f"Erreurs complètes : {total} (dont {run} à la suite).")
        if data.get("voice_restored"):
            out.append("Votre voix est rendue : le dernier Figurant est démasqué.")
        return out
