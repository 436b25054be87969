"""Being told, and who has read what: a player's (or a game master's) notification
settings, this browser's Web Push subscription, the e-mail confirmation link, the
service worker and the web app's manifest; the game masters' page of the private
messages delivered by the portal (who saw what, and when) and of the notifications
that could not be sent.

No page here holds an inline script or style (static files only: a Content-Security-
Policy is coming)."""

from __future__ import annotations

import json
from datetime import datetime
from importlib import resources
from typing import Any

from django import forms
from django.contrib import messages
from django.contrib.auth.views import redirect_to_login
from django.db import transaction
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse, RawPostDataException
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy as _lazy
from django.views.decorators.cache import cache_control
from django.views.decorators.http import require_GET, require_POST

from ronde.engine.clock import day_of, format_time
from ronde.forum.render import KINDS_FR

from . import clocks, delivery, notify, push, service
from .access import active_membership, game_master_seat, gm_page, number, private
from .models import (
    Game,
    GameMaster,
    Membership,
    Notification,
    NotifyAddress,
    NotifyChoice,
    PushSubscription,
)


# -- the app: service worker, manifest --------------------------------------------------------
def _static(name: str) -> str:
    return resources.files("ronde.web.games").joinpath(f"static/ronde/{name}").read_text("utf-8")


@require_GET
@cache_control(max_age=0, no_cache=True)
def service_worker(request: HttpRequest) -> HttpResponse:
    """The service worker, from the site's root so that it serves every page (its scope)."""
    return HttpResponse(_static("sw.js"), content_type="text/javascript; charset=utf-8")


@require_GET
@cache_control(max_age=3600)
def manifest(request: HttpRequest) -> HttpResponse:
    """The installable web app's manifest (French name, the player's home)."""
    return HttpResponse(
        _static("manifest.webmanifest"), content_type="application/manifest+json; charset=utf-8"
    )


# -- a seat's notification settings -----------------------------------------------------------
class ChoiceForm(forms.Form):
    email_address = forms.EmailField(label=_lazy("Adresse e-mail"), required=False, max_length=254)
    email = forms.BooleanField(label=_lazy("Me prévenir par e-mail"), required=False)
    push = forms.BooleanField(
        label=_lazy("Me prévenir par notification (sur les appareils activés)"), required=False
    )

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if data.get("email") and not data.get("email_address"):
            self.add_error("email_address", _("Donnez l'adresse où vous prévenir."))
        return data


def _seat(request: HttpRequest, slug: str) -> tuple[Game, Membership | None, GameMaster | None]:
    member = active_membership(slug, request.user.pk)
    if member is not None and member.game.started:
        return member.game, member, None
    gm = game_master_seat(slug, request.user.pk)
    if gm is not None:
        return gm.game, None, gm
    raise Http404(_("Vous ne jouez pas dans cette partie."))


def settings_page(request: HttpRequest, slug: str) -> HttpResponse:
    """Ask to be told (e-mail, Web Push) of what concerns you in this game."""
    if not request.user.is_authenticated:
        return redirect_to_login(request.get_full_path())
    game, member, gm = _seat(request, slug)
    user: Any = request.user
    choice = NotifyChoice.objects.filter(user=user, game=game).first()
    address = NotifyAddress.objects.filter(user=user).first()
    if request.method == "POST":
        form = ChoiceForm(request.POST)
        if form.is_valid():
            _save(request, game, member, gm, choice, address, form.cleaned_data)
            return private(redirect("notify_settings", slug=game.slug))
    else:
        form = ChoiceForm(
            initial={
                "email_address": address.email if address else (user.email or ""),
                "email": bool(choice and choice.email),
                "push": bool(choice and choice.push),
            }
        )
    devices = PushSubscription.objects.filter(user=user, gone_at__isnull=True).count()
    return private(
        render(
            request,
            "games/notify_settings.html",
            {
                "game": game,
                "member": member,
                "gm": gm,
                "form": form,
                "address": address,
                "email_enabled": notify.email_enabled(),
                "push_enabled": push.enabled(),
                "vapid_key": push.public_key() if push.enabled() else "",
                "devices": devices,
                "back": reverse("player", args=[game.slug])
                if member is not None
                else reverse("gm_dashboard", args=[game.slug]),
            },
        )
    )


def _save(
    request: HttpRequest,
    game: Game,
    member: Membership | None,
    gm: GameMaster | None,
    choice: NotifyChoice | None,
    address: NotifyAddress | None,
    data: dict[str, Any],
) -> None:
    user: Any = request.user
    now = clocks.now()
    email = str(data.get("email_address") or "").strip()
    wants_email = bool(data.get("email")) and notify.email_enabled()
    eng = service.current(game, user) if member is not None else None
    with transaction.atomic():
        changed = email and (address is None or address.email.casefold() != email.casefold())
        # the same address, still unconfirmed, asked for again: its link expired or never
        # came (the link's page says to save the address again): a new link
        again = (
            wants_email
            and not changed
            and address is not None
            and address.confirmed_at is None
            and address.email.casefold() == email.casefold()
        )
        if changed or again:
            if address is None:
                address = NotifyAddress(user=user)
            address.email, address.confirmed_at, address.updated_at = email, None, now
            address.save()
            if notify.email_enabled() and notify.may_ask_confirmation(user):
                notify.ask_confirmation(user, email)
                messages.info(
                    request,
                    _(
                        "Un lien de confirmation est envoyé à %(e)s : ouvrez-le pour "
                        "recevoir les e-mails."
                    )
                    % {"e": email},
                )
            elif notify.email_enabled():
                messages.warning(
                    request,
                    _("Trop de liens de confirmation aujourd'hui : réessayez demain."),
                )
        if choice is None:
            choice = NotifyChoice(user=user, game=game, membership=member, game_master=gm)
        was_on = choice.pk is not None and (choice.email or choice.push)
        choice.email = wants_email
        choice.push = bool(data.get("push")) and push.enabled()
        choice.membership, choice.game_master = member, gm
        choice.updated_at = now
        if not was_on and (choice.email or choice.push):
            notify.start_choice(choice, eng)  # what he can already see is not news
        choice.save()
    messages.success(request, _("Préférences enregistrées."))


@require_POST
def push_subscribe(request: HttpRequest) -> HttpResponse:
    """This browser's push subscription (JSON ``{endpoint, keys: {p256dh, auth}}``), for
    the account logged in."""
    if not request.user.is_authenticated:
        return JsonResponse({"ok": False, "message": _("Connectez-vous d'abord.")}, status=403)
    if not push.enabled():
        return JsonResponse(
            {"ok": False, "message": _("Notifications désactivées ici.")}, status=400
        )
    try:
        if request.content_type == "application/json":
            data = json.loads(request.body.decode("utf-8"))
        else:  # (a form: its fields flat)
            data = {"endpoint": request.POST["endpoint"], "keys": request.POST}
        endpoint = str(data["endpoint"])
        keys = data["keys"]
        p256dh, auth = str(keys["p256dh"]), str(keys["auth"])
    except (ValueError, KeyError, TypeError, UnicodeDecodeError, RawPostDataException):
        return JsonResponse({"ok": False, "message": _("Abonnement illisible.")}, status=400)
    why = push.endpoint_refusal(endpoint) or push.keys_refusal(p256dh, auth)
    if why is not None:
        return JsonResponse(
            {"ok": False, "message": _("Abonnement refusé : %(w)s.") % {"w": why}},
            status=400,
        )
    now = clocks.now()
    with transaction.atomic():
        PushSubscription.objects.update_or_create(
            endpoint=endpoint,
            defaults={
                "user": request.user,
                "p256dh": p256dh,
                "auth": auth,
                "created_at": now,
                "gone_at": None,
            },
        )
        # the account's newest devices only: the oldest are retired
        live = PushSubscription.objects.filter(user_id=request.user.pk, gone_at__isnull=True)
        kept = list(live.order_by("-created_at", "-pk").values_list("pk", flat=True))
        if len(kept) > push.MAX_DEVICES:
            live.filter(pk__in=kept[push.MAX_DEVICES :]).update(gone_at=now)
    # (this browser's subscriptions, retired when its account logs out: ``retire_on_logout``)
    mine = [e for e in request.session.get(SESSION_ENDPOINTS, []) if e != endpoint]
    request.session[SESSION_ENDPOINTS] = [*mine[-(push.MAX_DEVICES - 1) :], endpoint]
    return private(JsonResponse({"ok": True, "message": _("Cet appareil est prévenu.")}))


#: the session's key listing the push endpoints this browser subscribed while logged in
SESSION_ENDPOINTS = "ronde_push_endpoints"


def retire_on_logout(sender: Any, request: HttpRequest | None, user: Any, **kwargs: Any) -> None:
    """``user_logged_out``: the push subscriptions made from this browser during the
    session stop. On a shared phone or computer, the next person to log in there would
    otherwise receive the previous account's notifications (its games, its deadlines).
    Subscribing again after logging in is one click on the notifications page."""
    if request is None or user is None or not getattr(user, "pk", None):
        return
    endpoints = [str(e) for e in request.session.get(SESSION_ENDPOINTS, [])]
    if endpoints:
        PushSubscription.objects.filter(
            user_id=user.pk, endpoint__in=endpoints, gone_at__isnull=True
        ).update(gone_at=clocks.now())


@require_POST
def push_unsubscribe(request: HttpRequest) -> HttpResponse:
    """Stop pushing to one of the account's browsers (``endpoint``), or to all of them."""
    if not request.user.is_authenticated:
        return JsonResponse({"ok": False}, status=403)
    subs = PushSubscription.objects.filter(user=request.user, gone_at__isnull=True)
    endpoint = str(request.POST.get("endpoint", ""))
    if endpoint:
        subs = subs.filter(endpoint=endpoint)
    n = subs.update(gone_at=clocks.now())
    back = str(request.POST.get("back", ""))
    if back.startswith("/") and not back.startswith("//"):
        messages.success(request, _("%(n)d appareil(s) ne seront plus prévenus.") % {"n": n})
        return redirect(back)
    return JsonResponse({"ok": True})


@require_GET
def confirm_email(request: HttpRequest, token: str) -> HttpResponse:
    """The link of the confirmation e-mail: the address is the account's from now on."""
    found = notify.confirmed(token)
    ok = False
    if found is not None:
        user_id, email = found
        ok = (
            bool(
                NotifyAddress.objects.filter(
                    user_id=user_id, email=email, confirmed_at__isnull=True
                ).update(confirmed_at=clocks.now())
            )
            or NotifyAddress.objects.filter(
                user_id=user_id, email=email, confirmed_at__isnull=False
            ).exists()
        )
    return render(request, "games/notify_confirmed.html", {"ok": ok})


# -- the game masters: who has read what -------------------------------------------------------
@gm_page
def gm_delivery(request: HttpRequest, game: Game, gm: GameMaster) -> HttpResponse:
    """How private messages reach the players (the setting), who saw which one and when,
    and the notifications that could not be sent."""
    if not game.started:
        return redirect("gm_setup", slug=game.slug)
    if request.method == "POST":
        return _gm_post(request, game)
    listed = delivery.to_post(game, request.user)
    eng = service.current(game, request.user)
    everything = delivery.with_receipts(
        game,
        delivery.by_recipient(game, eng, _all_private(game, request.user), request.user),
    )
    now = clocks.game_now(game)
    delivery.due_by_mp(game, everything, now)
    today = max(day_of(game.start, now), 0)
    asked = str(request.GET.get("jour", ""))
    asked_day = number(asked) if len(asked) <= 2 else None
    day = asked_day if asked_day is not None else today
    rows = [
        {"d": d, "kind": KINDS_FR.get(d.item.kind, _("message"))}
        for d in everything
        if _day(game, d.sent_at) == day
    ]
    rows.reverse()  # newest first
    members = {m.pseudo: m for m in Membership.objects.filter(game=game, revoked_at__isnull=True)}
    per_player: dict[str, dict[str, Any]] = {}
    for d in everything:
        for r in d.recipients:
            p = per_player.setdefault(r.pseudo, {"pseudo": r.pseudo, "got": 0, "seen": 0})
            p["got"] += 1
            p["seen"] += r.seen_at is not None
    for p in per_player.values():
        m = members.get(p["pseudo"])
        last = m.last_visit if m is not None else None
        p["last_visit"] = format_time(game.start, last) if last is not None else ""
        p["unseen"] = p["got"] - p["seen"]
    days = sorted({_day(game, d.sent_at) for d in everything} | {today})
    return render(
        request,
        "games/gm_delivery.html",
        {
            "game": game,
            "gm": gm,
            "mode": delivery.mode_label(game),
            "deliveries": Game.DELIVERIES,
            "rows": rows,
            "day": day,
            "days": days,
            "players": sorted(per_player.values(), key=lambda p: str(p["pseudo"]).casefold()),
            "n_due": sum(1 for m in listed.items if not m.public and m.posting is None),
            "problems": [_problem_row(game, n) for n in notify.problems(game)],
            "n_sent": Notification.objects.filter(game=game, state=Notification.SENT).count(),
        },
    )


def _all_private(game: Game, user: Any) -> list[Any]:
    from . import forum_console as fc

    return [m for m in fc.to_post(game, user) if not m.public and m.seats]


def _day(game: Game, t: datetime | None) -> int:
    return max(day_of(game.start, t), 0) if t is not None else 0


def _problem_row(game: Game, n: Notification) -> dict[str, Any]:
    return {
        "pk": n.pk,
        "when": format_time(game.start, n.created_at),
        "channel": n.get_channel_display(),
        "state": n.get_state_display(),
        "attempts": n.attempts,
        "error": n.last_error,
        "failed": n.state == Notification.FAILED,
    }


def _gm_post(request: HttpRequest, game: Game) -> HttpResponse:
    op = request.POST.get("op")
    if op == "setting":
        setting = delivery.read_setting(request.POST)
        if setting is None:
            messages.error(request, _("Réglage invalide (délai : de 1 à 72 heures)."))
        else:
            Game.objects.filter(pk=game.pk).update(delivery=setting[0], delivery_delay=setting[1])
            messages.success(request, _("Réglage enregistré."))
    elif op == "retry":
        ids = [n for n in map(number, request.POST.getlist("pk")) if n is not None]
        n = notify.retry(game, ids)
        notify.wake()
        messages.success(request, _("%(n)d notification(s) de nouveau à envoyer.") % {"n": n})
    return redirect("gm_delivery", slug=game.slug)
