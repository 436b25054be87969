"""The setup in view all game long: the Ronde drawn as a circle (each slot, its
players, masked or unmasked, who follows whom), the cast and the house rules; and,
for a ``manual`` game (a rehearsal, the demo), its clock moved from the console.

The figure is an SVG computed here (:func:`ronde_figure`): no script, no inline
style (the colours are in ``static/ronde/console.css``)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_POST

from ronde.engine.clock import day_of, day_start
from ronde.engine.errors import RuleViolation
from ronde.engine.names import french_name
from ronde.engine.views import View

from . import clocks, house_rules, service, vocabulary
from .access import gm_page
from .describe import describe
from .models import Game, GameMaster

#: names too long for the figure (the list below it gives the whole name)
SHORT = {"knight": "Chevalier", "devils_advocate": "Avocat du Diable"}


@dataclass
class Holder:
    pseudo: str
    masked: bool
    alive: bool


@dataclass
class Slot:
    """One slot of the Ronde as the figure draws it."""

    n: int
    character: str
    name: str
    short: str
    holders: list[Holder] = field(default_factory=list)
    #: coordinates as the SVG writes them (never localised: « 1,5 » is two numbers)
    x: str = "0"
    y: str = "0"
    lx: str = "0"
    anchor: str = "middle"
    #: the arrow to the next slot (a path) and its head (a polygon)
    arrow: str = ""
    head: str = ""
    lines: list[tuple[str, str, str]] = field(default_factory=list)

    @property
    def live(self) -> bool:
        return any(h.masked for h in self.holders)

    @property
    def players(self) -> str:
        return ", ".join(h.pseudo for h in self.holders)


def slots(v: View) -> list[Slot]:
    """The Ronde's slots in order, each with its players (the game masters' view: who
    holds it, masked or not)."""
    out = []
    for i, character in enumerate(v["ronde"], 1):
        holders = [
            Holder(str(p["pseudo"]), bool(p["masked"]), bool(p.get("alive", True)))
            for p in v["players"]
            if p.get("original") == character or p.get("character") == character
        ]
        name = french_name(character)
        out.append(Slot(i, character, name, SHORT.get(character, name), holders))
    return out


#: the figure's geometry (SVG user units; the figure scales to its width)
RADIUS = 190.0
LABEL_GAP = 16.0
LINE = 15.0
HALF_WIDTH = 330.0
HALF_HEIGHT = 235.0


def ronde_figure(v: View) -> dict[str, Any]:
    """The Ronde as a circle: each slot on it (clockwise from the top, in the Ronde's
    order), its label outside (its players, then the Character: one line near the top
    and the bottom, where the slots sit side by side; two on the sides), an arrow to
    the slot that follows it."""
    rows = slots(v)
    n = max(len(rows), 1)
    step = 2 * math.pi / n
    for i, s in enumerate(rows):
        a = -math.pi / 2 + i * step
        c, si = math.cos(a), math.sin(a)
        s.x, s.y = _n(RADIUS * c), _n(RADIUS * si)
        lx, ly = (RADIUS + LABEL_GAP) * c, (RADIUS + LABEL_GAP) * si
        s.lx = _n(lx)
        s.anchor = "middle" if abs(c) < 0.05 else ("start" if c > 0 else "end")
        who = [(h.pseudo, "who" if h.masked else "who out") for h in s.holders] or [("—", "who")]
        if abs(c) < 0.6:  # side by side: one line each
            texts: list[tuple[str, str]] = [*who[:-1], (f"{who[-1][0]} · {s.short}", who[-1][1])]
        else:
            texts = [*who, (s.short, "role")]
        height = LINE * len(texts)
        if s.anchor == "middle":
            top = ly - height + 10 if si < 0 else ly + LINE - 2
        else:
            top = ly - height / 2 + LINE - 4
        s.lines = [(_n(top + k * LINE), t, cls) for k, (t, cls) in enumerate(texts)]
    for i, s in enumerate(rows):
        s.arrow, s.head = _arrow(i * step, (i + 1) * step)
    return {
        "slots": rows,
        "radius": _n(RADIUS),
        "box": f"{-HALF_WIDTH:.0f} {-HALF_HEIGHT:.0f} {2 * HALF_WIDTH:.0f} {2 * HALF_HEIGHT:.0f}",
        "dead": sum(1 for s in rows if not s.live),
    }


def _n(value: float) -> str:
    return f"{value:.1f}"


def _arrow(a0: float, a1: float) -> tuple[str, str]:
    """An arc along the circle from one slot to the next (clockwise), and its head."""
    gap = 0.1  # radians kept clear around each slot's dot
    start, end = a0 + gap - math.pi / 2, a1 - gap - math.pi / 2
    r = RADIUS
    x0, y0 = r * math.cos(start), r * math.sin(start)
    x1, y1 = r * math.cos(end), r * math.sin(end)
    path = f"M {x0:.1f} {y0:.1f} A {r:.0f} {r:.0f} 0 0 1 {x1:.1f} {y1:.1f}"
    # the head: a small triangle pointing along the circle at the arc's end
    tx, ty = -math.sin(end), math.cos(end)
    nx, ny = math.cos(end), math.sin(end)
    size = 6.0
    p1 = (x1 + tx * size, y1 + ty * size)
    p2 = (x1 - tx * 1 + nx * size * 0.6, y1 - ty * 1 + ny * size * 0.6)
    p3 = (x1 - tx * 1 - nx * size * 0.6, y1 - ty * 1 - ny * size * 0.6)
    head = " ".join(f"{px:.1f},{py:.1f}" for px, py in (p1, p2, p3))
    return path, head


def cast_rows(v: View) -> list[dict[str, Any]]:
    """Every player: his Character at the start and now, masked or not, alive or not."""
    rows = []
    for p in sorted(v["players"], key=lambda p: str(p["pseudo"]).casefold()):
        original = p.get("original") or p.get("character") or "extra"
        now = p.get("character")
        rows.append(
            {
                "pseudo": p["pseudo"],
                "original": french_name(str(original)),
                "now": french_name(str(now)) if now and now != original else "",
                "masked": bool(p["masked"]),
                "alive": bool(p.get("alive", True)),
                "points": p.get("points", 0),
            }
        )
    return rows


@gm_page
def ronde(request: HttpRequest, game: Game, gm: GameMaster) -> HttpResponse:
    """The Ronde, the cast and the house rules; the clock of a ``manual`` game."""
    if not game.started:
        return redirect("gm_setup", slug=game.slug)
    eng = service.current(game, request.user)
    v = service.view_for(game, "game_master", request.user)
    game.refresh_from_db()
    t = service.game_now(game)
    due = service.next_timer(eng)
    last = clocks.bounds(eng)[1]
    rules = house_rules.rows(game.options)
    return render(
        request,
        "games/gm_ronde.html",
        {
            "game": game,
            "gm": gm,
            "v": v,
            "figure": ronde_figure(v),
            "cast": cast_rows(v),
            "rules": rules,
            "changed": [r for r in rules if r["changed"]],
            "gms": list(GameMaster.objects.filter(game=game).values_list("name", flat=True)),
            "manual": clocks.is_manual(game),
            "now_label": vocabulary.game_time_label(game.start, t),
            "next_label": vocabulary.game_time_label(game.start, due) if due else "",
            "midnight_label": _midnight_label(game, t, last),
            "clock_back": reverse("gm_ronde", args=[game.slug]) + "#horloge",
        },
    )


def _next_midnight(game: Game, t: datetime) -> datetime:
    day = day_of(game.start, t)
    return day_start(game.start, max(day, 0) + 1)


def _midnight_label(game: Game, t: datetime, last: datetime) -> str:
    m = _next_midnight(game, t)
    return vocabulary.game_time_label(game.start, m) if m <= last else ""


@require_POST
@gm_page
def clock(request: HttpRequest, game: Game, gm: GameMaster) -> HttpResponse:
    """Move a ``manual`` game's clock (``to``: ``next`` the engine's next deadline,
    ``midnight`` the end of the day, or a time typed as every console form reads it)
    and apply the deadlines due by then (as ``ronde advance`` does)."""
    back = str(request.POST.get("next", ""))
    if not back.startswith("/") or back.startswith("//"):
        back = reverse("gm_ronde", args=[game.slug]) + "#horloge"
    if not game.started:
        return redirect("gm_setup", slug=game.slug)
    eng = service.current(game, request.user)
    game.refresh_from_db()
    t = service.game_now(game)
    asked = str(request.POST.get("to", "")).strip()
    when: datetime | None
    if asked == "next":
        when = service.next_timer(eng)
        if when is None:
            messages.error(request, _("Plus aucune échéance : la partie est finie."))
            return redirect(back)
    elif asked == "midnight":
        when = _next_midnight(game, t)
    else:
        try:
            when = vocabulary.read_game_time(asked, game.start, t)
        except ValueError as exc:
            messages.error(request, _("Heure : %(e)s") % {"e": exc})
            return redirect(back)
    try:
        fired = service.advance_clock(game, when)
    except RuleViolation as rv:
        messages.error(request, rv.message)
        return redirect(back)
    label = vocabulary.game_time_label(game.start, when)
    messages.success(
        request,
        ngettext(
            "Horloge avancée à %(t)s : %(n)d événement d'échéance.",
            "Horloge avancée à %(t)s : %(n)d événements d'échéance.",
            len(fired),
        )
        % {"t": label, "n": len(fired)},
    )
    shown = [describe(e) for e in fired if e.TYPE != "message_sent"][:12]
    for text in shown:
        messages.info(request, text)
    return redirect(back)
