"""The day's constraints judged as one list: every constraint to judge, the forum
helpers' suggestion and its evidence beside it, "toutes respectées sauf celles
cochées", one submit.

The suggestions come from the pages the game masters read on the console's forum
page (:func:`remember` keeps each helper's answer, :class:`.models.ConstraintHint`).
A page proves a constraint met, never that it failed (the rest of the day is on other
pages): such a page says « à vérifier » (``met=None``).

The verdicts of a list are recorded in one locked write (:func:`record`, through
:func:`.service.record_many`); a constraint judged meanwhile by another game master
is left as he judged it (one verdict per constraint: a change is a correction, on the
action's own page).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ronde.engine.names import french_name
from ronde.engine.views import View

from . import service, vocabulary
from .forum_console import HELPED, Helper
from .models import ConstraintHint, Game, GameMaster


@dataclass
class Hint:
    """The suggestion shown for one constraint."""

    met: bool | None
    text: str
    evidence: list[str] = field(default_factory=list)


@dataclass
class Row:
    """One constraint of the list."""

    player: str
    character: str
    text: str
    hint: Hint | None
    #: the verdict already recorded: (met, by whom, when), or None
    verdict: tuple[bool, str, str] | None
    helped: bool

    @property
    def character_fr(self) -> str:
        return french_name(self.character) if self.character else ""


def remember(game: Game, helpers: Iterable[Helper], user: Any) -> int:
    """Keep what the forum helpers suggested from pages just read (the list of the day
    shows it); a helper that found nothing on the page adds nothing."""
    who = user if getattr(user, "is_authenticated", False) else None
    t = service.now()
    rows = [
        ConstraintHint(
            game=game,
            player=h.player,
            day=h.day,
            met=h.met,
            text=h.text[:2000],
            evidence=[str(e)[:500] for e in h.evidence[:12]],
            read_by=who,
            read_at=t,
        )
        for h in helpers
        if h.met is not None or h.evidence
    ]
    ConstraintHint.objects.bulk_create(rows)
    return len(rows)


def hints(game: Game, day: int) -> dict[str, Hint]:
    """The suggestion of each player's constraint of ``day``: the latest that settles
    it (a proof read on any page), else the latest that does not."""
    best: dict[str, tuple[int, Hint]] = {}
    for h in ConstraintHint.objects.filter(game=game, day=day).order_by("read_at", "id"):
        rank = 0 if h.met is None else 1
        evidence = [str(e) for e in h.evidence] if isinstance(h.evidence, list) else []
        if h.player not in best or rank >= best[h.player][0]:
            best[h.player] = (rank, Hint(h.met, h.text, evidence))
    return {p: hint for p, (_rank, hint) in best.items()}


def rows(game: Game, v: View, day: int | None = None) -> list[Row]:
    """The constraints of ``day`` (today by default) the engine asks the game masters
    to judge, in the order of its to-do list, each with its suggestion and verdict."""
    day = int(v["day"]) if day is None else day
    players = {str(p["pseudo"]): p for p in v["players"]}
    found = hints(game, day)
    verdicts = service.constraint_verdicts(game)
    names = dict(GameMaster.objects.filter(game=game).values_list("user_id", "name"))
    out = []
    seen: set[str] = set()
    for w in v["work"]:
        args = w.get("args") or {}
        if w.get("action") != "record_constraint" or int(args.get("day", -1)) != day:
            continue
        pseudo = str(args.get("player"))
        if pseudo in seen:
            continue
        seen.add(pseudo)
        p = players.get(pseudo, {})
        character = str(p.get("character") or "")
        text = str(w.get("text", ""))
        text = text.split(" : ", 1)[1] if text.startswith(f"{pseudo} : ") else text
        text = text.removeprefix("Vérifier la contrainte : ")
        verdict = None
        a = verdicts.get((pseudo, day))
        if a is not None:
            verdict = (
                service.verdict_met(a),
                names.get(a.recorded_by_id or 0, "?"),
                vocabulary.game_time_label(game.start, a.at),
            )
        out.append(Row(pseudo, character, text, found.get(pseudo), verdict, character in HELPED))
    return out


def record(
    game: Game, user: Any, gm_name: str, day: int, players: Sequence[str], failed: set[str]
) -> list[tuple[str, bool, service.Outcome]]:
    """Record a verdict for each of ``players``' constraint of ``day`` (met unless in
    ``failed``) in one locked write; a constraint already judged is left out."""
    wanted = list(dict.fromkeys(p for p in players if p))
    commands = [
        ("record_constraint", gm_name, {"player": p, "day": day, "met": p not in failed})
        for p in wanted
    ]
    judged: dict[tuple[str, int], Any] | None = None
    names: dict[int, str] = {}

    def skip(i: int) -> str:
        nonlocal judged, names
        if judged is None:  # read under the game's lock: what another MJ just recorded
            judged = service.constraint_verdicts(game)
            names = dict(GameMaster.objects.filter(game=game).values_list("user_id", "name"))
        a = judged.get((wanted[i], day))
        if a is None:
            return ""
        how = "respectée" if service.verdict_met(a) else "non respectée"
        who = names.get(a.recorded_by_id or 0, "un autre MJ")
        return f"déjà jugée {how} par {who} : rien de plus"

    outcomes = service.record_many(game, user, commands, skip=skip)
    return [(p, p not in failed, o) for p, o in zip(wanted, outcomes, strict=True)]
