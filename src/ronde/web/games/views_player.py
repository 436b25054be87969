"""The player's pages: his character, what he knows, his requests; the chorus."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from ronde.engine.errors import RuleViolation
from ronde.engine.views import View

from . import service, vocabulary
from .access import player_page
from .models import Game, GameMaster, Membership, Request
from .vocabulary import Spec


def _player_view(request: HttpRequest, game: Game, member: Membership) -> View:
    try:
        return service.view_for(game, member.pseudo, request.user)
    except KeyError:
        # replaced (replace_player): this account no longer plays
        raise Http404(_("Ce compte ne joue plus dans cette partie.")) from None


def power_forms(game: Game, v: View, *, chorus: bool) -> list[dict[str, Any]]:
    """The request forms a player may send, with the choices each field offers.

    Built only from the player's own view and public facts (pseudos of the game,
    every character's name in alphabetical order, the game masters' names).
    """
    me = v["me"]
    character = me.get("character") if me.get("masked") else None
    specs = vocabulary.player_powers(character, chorus=chorus)
    active = game.memberships.filter(revoked_at__isnull=True).values_list("pseudo", flat=True)
    pseudos = sorted(set(active) - {v["viewer"]}, key=str.casefold)
    trials = [
        (t["number"], f"n°{t['number']} — {', '.join(t['accused'])}")
        for t in v["trials"]
        if t["status"] == "open"
    ]
    gms = list(GameMaster.objects.filter(game=game).values_list("name", flat=True))
    return [
        {
            "spec": s,
            "fields": field_choices(
                s,
                players=pseudos,
                trials=trials,
                targets=[(c, n) for c, n in zip(v["targets"], _names(v["targets"]), strict=True)],
                gms=gms,
            ),
        }
        for s in specs
    ]


def _names(ids: list[str]) -> list[str]:
    from ronde.engine.names import french_name

    return [french_name(c) for c in ids]


def field_choices(
    spec: Spec,
    *,
    players: list[str],
    trials: list[tuple[int, str]],
    targets: list[tuple[str, str]] | None,
    gms: list[str],
) -> list[dict[str, Any]]:
    """Each argument of ``spec`` with the options of its ``<select>`` (if any)."""
    out = []
    for arg in spec.args:
        choices: list[tuple[Any, Any]] | None = None
        if arg.kind in ("player", "accused"):
            choices = [(p, p) for p in players]
        elif arg.kind == "trial":
            choices = list(trials)
        elif arg.kind == "target":
            choices = list(targets) if targets is not None else vocabulary.character_choices()
        elif arg.kind == "character":
            choices = vocabulary.character_choices()
        elif arg.kind == "character_or_extra":
            choices = vocabulary.character_choices(extra=True)
        elif arg.kind == "gm":
            choices = [(g, g) for g in gms]
        elif arg.kind == "choice":
            choices = list(arg.choices)
        out.append({"arg": arg, "choices": choices})
    return out


@player_page
def player(request: HttpRequest, game: Game, member: Membership) -> HttpResponse:
    """His character and its rules, his targets, what he was told, his quota and powers."""
    v = _player_view(request, game, member)
    requests = member.requests.all()[:50]
    private = {
        k: val
        for k, val in v["me"].items()
        if k
        not in {
            "pseudo",
            "masked",
            "alive",
            "unofficially_unmasked",
            "asleep_today",
            "character",
            "character_fr",
            "new_extra",
            "constraint",
            "power",
            "jokers_used",
        }
    }
    return render(
        request,
        "games/player.html",
        {
            "game": game,
            "member": member,
            "v": v,
            "private": private,
            "powers": power_forms(game, v, chorus=False),
            "requests": requests,
            "now": service.game_now(game),
        },
    )


@player_page
def chorus(request: HttpRequest, game: Game, member: Membership) -> HttpResponse:
    """The chorus of the Unmasked: members, Secretary, today's votes, the vote form."""
    v = _player_view(request, game, member)
    if "chorus" not in v:
        raise Http404(_("Seuls les Démasqués vivants forment le chœur."))
    return render(
        request,
        "games/chorus.html",
        {
            "game": game,
            "member": member,
            "v": v,
            "c": v["chorus"],
            "powers": power_forms(game, v, chorus=True),
            "requests": member.requests.filter(action="chorus_vote")[:20],
        },
    )


@require_POST
@player_page
def send_request(request: HttpRequest, game: Game, member: Membership, action: str) -> HttpResponse:
    """A request to the game masters; the time that counts is now (MP receipt)."""
    spec = vocabulary.BY_NAME.get(action)
    if spec is None or not spec.requestable:
        raise Http404(action)
    v = _player_view(request, game, member)
    character = v["me"].get("character") if v["me"].get("masked") else None
    allowed = {s.name for s in vocabulary.player_powers(character, chorus=False)}
    if "chorus" in v:
        allowed |= {s.name for s in vocabulary.player_powers(None, chorus=True)}
    back = "chorus" if spec.chorus else "player"
    if action not in allowed:
        messages.error(request, _("Cette action n'est pas à votre portée."))
        return redirect(back, slug=game.slug)
    try:
        args = vocabulary.parse_args(spec, request.POST)
    except RuleViolation as rv:
        messages.error(request, rv.message)
        return redirect(back, slug=game.slug)
    Request.objects.create(
        game=game, membership=member, action=action, args=args, created_at=service.game_now(game)
    )
    messages.success(request, _("Demande envoyée aux MJ."))
    return redirect(back, slug=game.slug)


@require_POST
@player_page
def withdraw_request(request: HttpRequest, game: Game, member: Membership, pk: int) -> HttpResponse:
    req = get_object_or_404(Request, pk=pk, membership=member, status=Request.PENDING)
    req.status = Request.WITHDRAWN
    req.decided_at = service.now()
    req.save(update_fields=["status", "decided_at"])
    messages.success(request, _("Demande retirée."))
    return redirect("player", slug=game.slug)
