"""Pages without a game role: home, the public board."""

from __future__ import annotations

from django.contrib.auth.views import redirect_to_login
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.utils.translation import gettext as _

from ronde.engine.views import view

from . import viewcache
from .models import Game, GameMaster, Membership


def health(request: HttpRequest) -> HttpResponse:
    """A bare view (no database): for monitoring, and the benchmark's baseline."""
    return HttpResponse("ok", content_type="text/plain")


def bench_constant(request: HttpRequest) -> HttpResponse:
    """A constant page behind the login (the web benchmark's baseline: the same session,
    user and middleware as a player's page). Routed only when ``RONDE_BENCH_VIEWS=1``."""
    if not request.user.is_authenticated:
        return redirect_to_login(request.get_full_path())
    return HttpResponse("ok", content_type="text/plain")


def home(request: HttpRequest) -> HttpResponse:
    """The list of games: public boards, and the user's own games."""
    games = Game.objects.all()
    mine_gm = []
    mine_player = []
    if request.user.is_authenticated:
        mine_gm = [gm.game for gm in GameMaster.objects.filter(user_id=request.user.pk)]
        mine_player = list(
            Membership.objects.filter(user_id=request.user.pk, revoked_at__isnull=True)
            .select_related("game")
            .order_by("game__name")
        )
    return render(
        request,
        "games/home.html",
        {
            "games": [g for g in games if g.started],
            "mine_gm": mine_gm,
            "mine_player": mine_player,
        },
    )


def public_board(request: HttpRequest, slug: str) -> HttpResponse:
    """Trials, public complaints, verdicts, the unmasked, announcements (no login)."""
    game = get_object_or_404(Game, slug=slug)
    if not game.started:
        raise Http404(_("Cette partie n'a pas commencé."))
    # the public view, built once per version of the game
    v = viewcache.cached(
        game, "public", ("public",), lambda e: view(e.state, "public"), request.user
    )
    open_trials = [t for t in v["trials"][::-1] if t["status"] == "open"]
    ended_trials = [t for t in v["trials"][::-1] if t["status"] != "open"]
    days: dict[str, list[dict[str, str]]] = {}
    for a in v["announcements"]:
        days.setdefault(a["time"].split(" ")[0], []).append(a)
    return render(
        request,
        "games/public.html",
        {
            "game": game,
            "v": v,
            "announcement_days": list(days.items())[::-1],
            "is_player": request.user.is_authenticated
            and Membership.objects.filter(
                game=game, user_id=request.user.pk, revoked_at__isnull=True
            ).exists(),
            "is_gm": request.user.is_authenticated
            and GameMaster.objects.filter(game=game, user_id=request.user.pk).exists(),
            "open_trials": open_trials,
            "ended_trials": ended_trials,
            "open_cards": viewcache.rendered("games/_trial_cards.html", {"trials": open_trials}),
            "ended_cards": viewcache.rendered("games/_trial_cards.html", {"trials": ended_trials}),
        },
    )
