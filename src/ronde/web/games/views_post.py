""" "À poster": the day's forum posts and MPs as a work list (see :mod:`.posting`).

Today first (``?jour=N`` for another day), one card per destination with its combined
text, a copy button and one mark for all; a verdict's post is marked with the time
it was posted on the forum (its announcement, R4.8). Every mark answers a redirect
back to the next card (``#g-…``); the page's small script (``static/ronde/console.js``)
posts the forms itself and swaps the list in place, so the game master keeps his place
without a reload."""

from __future__ import annotations

import re

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from . import posting, service, vocabulary
from .access import gm_page
from .models import Game, GameMaster, Posting
from .views_gm import _diff_rows, _int

_ANCHOR = re.compile(r"^[a-z0-9-]{1,48}$")
#: ``?jour=tous``: every day's list at once
ALL = -1


def _jour(day: int) -> str:
    return "tous" if day == ALL else str(day)


def _back(game: Game, day: int, anchor: str) -> HttpResponse:
    url = reverse("gm_to_post", args=[game.slug]) + f"?jour={_jour(day)}"
    if _ANCHOR.match(anchor):
        url += f"#{anchor}"
    return redirect(url)


@gm_page
def to_post(request: HttpRequest, game: Game, gm: GameMaster) -> HttpResponse:
    """GET: the day's list (today by default; ``?jour=tous``: every day, each day's
    messages of a destination apart). POST ``op=mark`` (``key``, one or more): marked
    posted; ``op=verdict`` (``trial``, ``at``): the verdict's post, recorded as its
    announcement; ``op=unmark`` (``key``): back in the list."""
    if not game.started:
        return redirect("gm_setup", slug=game.slug)
    now_day = posting.today(game)
    jour = str(request.GET.get("jour") or request.POST.get("jour") or "")
    asked = _int(jour)
    day = now_day if asked is None or not 0 <= asked <= now_day else asked
    if jour == "tous":
        day = ALL
    if request.method == "POST":
        return _post(request, game, gm, day)
    listed = posting.listing(game, request.user)
    every = posting.to_post(game, user=request.user)
    counts = posting.day_counts(every)
    items = [m for m in every if day in (ALL, m.day) or (m.trial is not None and day == now_day)]
    groups = posting.groups(items, by_day=day == ALL)
    _who(game, items)
    days = sorted({m.day for m in every} | {now_day}, reverse=True)
    public = [g for g in groups if g.public]
    private = [g for g in groups if not g.public]
    for i, g in enumerate(groups):
        later = [h for h in groups[i + 1 :] if not h.done]
        g.next = later[0].id if later else ""  # type: ignore[attr-defined]
    pending_private = [m for g in private for m in g.pending]
    keys = listed.keys
    # posted, then changed or undone by a correction: the forum may need a correction too
    gone = [p for p in Posting.objects.filter(game=game).order_by("posted_at") if p.key not in keys]
    return render(
        request,
        "games/gm_post.html",
        {
            "game": game,
            "gm": gm,
            "day": day,
            "jour": _jour(day),
            "all_days": day == ALL,
            "n_all": sum(counts.values()),
            "today": now_day,
            "days": [{"day": d, "left": counts.get(d, 0), "today": d == now_day} for d in days],
            "public": public,
            "private": private,
            "pending_private": pending_private,
            "n_left": sum(len(g.pending) for g in groups),
            "n_public": sum(1 for g in public if not g.done),
            "n_private": sum(1 for g in private if not g.done),
            "now_label": vocabulary.game_time_label(game.start, service.game_now(game)),
            "gone": gone,
            "waiting": listed.waiting,
            "n_seen": sum(1 for d in listed.waiting if d.seen),
        },
    )


def _who(game: Game, items: list[posting.Item]) -> None:
    """Each posted item's marker and time, as the page says them."""
    names = dict(GameMaster.objects.filter(game=game).values_list("user_id", "name"))
    for m in items:
        p = m.posting
        if p is not None:
            p.who = names.get(p.posted_by_id or 0) or "?"  # type: ignore[attr-defined]
            p.when = vocabulary.game_time_label(game.start, p.posted_at)  # type: ignore[attr-defined]


def _post(request: HttpRequest, game: Game, gm: GameMaster, day: int) -> HttpResponse:
    op = request.POST.get("op")
    anchor = str(request.POST.get("anchor", ""))
    if op == "unmark":
        if posting.unmark(game, str(request.POST.get("key", ""))):
            messages.info(request, _("Remis dans la liste « À poster »."))
        return _back(game, day, anchor)
    if op == "verdict":
        return _verdict(request, game, gm, day, anchor)
    wanted = set(request.POST.getlist("key"))
    items = [m for m in posting.to_post(game, user=request.user) if m.key in wanted]
    if not items:
        messages.error(request, _("Message introuvable (la partie a changé ?)."))
        return _back(game, day, anchor)
    n = posting.mark(game, items, request.user)
    if n:
        messages.success(
            request,
            ngettext("%(n)d message marqué posté.", "%(n)d messages marqués postés.", n) % {"n": n},
        )
    else:
        messages.info(request, _("Déjà marqué par un autre MJ."))
    return _back(game, day, anchor)


def _verdict(
    request: HttpRequest, game: Game, gm: GameMaster, day: int, anchor: str
) -> HttpResponse:
    trial = _int(request.POST.get("trial"))
    text = str(request.POST.get("at", "")).strip()
    if trial is None:
        messages.error(request, _("Procès inconnu."))
        return _back(game, day, anchor)
    when = None
    if text:
        try:
            when = vocabulary.read_game_time(text, game.start, service.game_now(game))
        except ValueError as exc:
            messages.error(request, _("Heure du message : %(e)s") % {"e": exc})
            return _back(game, day, anchor)
    confirm = str(request.POST["confirm"]) if request.POST.get("confirm") else None
    try:
        out = posting.announce(game, request.user, gm.name, trial, when, confirm)
    except service.Conflict:
        messages.warning(request, service.Conflict.message)
        return _back(game, day, anchor)
    if out.preview is not None and not out.ok:
        game.refresh_from_db()
        return render(
            request,
            "games/gm_confirm.html",
            {
                "game": game,
                "gm": gm,
                "title": _("Verdict posté avant le dernier événement enregistré"),
                "diff": _diff_rows(game, out.preview),
                "token": out.token,
                "post": [
                    (k, v) for k, v in request.POST.items() if k not in ("csrfmiddlewaretoken",)
                ],
                "target": reverse("gm_to_post", args=[game.slug]),
            },
        )
    if not out.ok:
        messages.error(request, _("Refusé par les règles : %(m)s") % {"m": out.message})
        return _back(game, day, anchor)
    at = next((e.at for e in out.events), when)
    label = vocabulary.game_time_label(game.start, at) if at is not None else ""
    messages.success(
        request,
        _("Verdict du Procès n°%(n)d posté et annoncé (%(t)s).") % {"n": trial, "t": label},
    )
    return _back(game, day, anchor)
