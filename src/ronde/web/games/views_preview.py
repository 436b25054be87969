"""The console's preview: the game at a later time if nothing else is recorded
(read-only, like ``ronde show SLUG --at TIME``): the deadlines that will fire by
then (who is unmasked at the next midnight, which trials lapse) and the trials."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render

from ronde.engine.errors import RuleViolation
from ronde.engine.views import view
from ronde.render import STATUS_FR

from . import service, vocabulary
from .access import gm_page
from .describe import describe
from .models import Game, GameMaster


@gm_page
def preview(request: HttpRequest, game: Game, gm: GameMaster) -> HttpResponse:
    """GET ``?at=J6 00:00``: what will have happened by then (nothing is recorded)."""
    if not game.started:
        return redirect("gm_setup", slug=game.slug)
    eng = service.current(game, request.user)
    now = service.game_now(game)
    text = str(request.GET.get("at", "")).strip()
    ctx: dict[str, object] = {
        "game": game,
        "gm": gm,
        "at": text,
        "now": vocabulary.game_time_label(game.start, now),
        "clock": game.get_clock_display(),
    }
    if text:
        try:
            try:
                t = vocabulary.read_game_time(text, game.start, now)
            except (ValueError, OverflowError) as exc:
                raise RuleViolation("invalid_argument", str(exc)) from None
            later = service.preview(game, t)
        except RuleViolation as rv:
            ctx["error"] = rv.message
            return render(request, "games/gm_preview.html", ctx, status=400)
        fired = later.log[len(eng.log) :]
        ctx["events"] = [
            {"time": vocabulary.game_time_label(game.start, e.at), "text": describe(e)}
            for e in fired
        ]
        v = view(later.state, "game_master")
        ctx["v"] = v
        ctx["trials"] = [
            {
                "number": t["number"],
                "accused": ", ".join(t["accused"]),
                "status": STATUS_FR.get(t["status"], t["status"]),
            }
            for t in v["trials"]
        ]
    return render(request, "games/gm_preview.html", ctx)
