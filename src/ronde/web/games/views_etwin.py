"""Sign in with Eternaltwin: the button's POST, the callback, the account page (link,
unlink, a password), and the game masters' confirmations on the players page."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth import login, update_session_auth_hash
from django.contrib.auth.decorators import login_required
from django.contrib.auth.forms import PasswordChangeForm, SetPasswordForm
from django.contrib.auth.models import User
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from . import accounts, eternaltwin, etwin_links
from .access import gm_page, number, private
from .models import Game, GameMaster, Invitation, Membership, SeatClaim
from .views_accounts import refused_status

BACKEND = "ronde.web.games.accounts.PseudoBackend"


def _refusal(request: HttpRequest, error: Any) -> HttpResponse:
    """A refused sign-in: its French page (nothing was changed)."""
    status = getattr(error, "status", 400)
    if isinstance(error, accounts.InvitationRefused):  # as the invitation page answers
        status = refused_status(error)
    return private(render(request, "games/etwin_refused.html", {"refusal": error}, status=status))


@require_POST
def start(request: HttpRequest) -> HttpResponse:
    """« Se connecter avec Eternaltwin » (a POST form, CSRF-protected): 302 to Eternaltwin.

    ``purpose``: ``login`` (the login page), ``link`` (the account page: link this
    account), ``invite`` (an invitation page: take its seat with Eternaltwin)."""
    if not eternaltwin.enabled():
        raise Http404(_("La connexion avec Eternaltwin n'est pas configurée sur ce site."))
    purpose = str(request.POST.get("purpose", "login"))
    next_url = eternaltwin.safe_next(request, str(request.POST.get("next", "")))
    if purpose == "link":
        if not request.user.is_authenticated:
            return redirect(f"{reverse('login')}?next={reverse('account')}")
        return eternaltwin.start(request, "link", next=next_url)
    if purpose == "invite":
        token = str(request.POST.get("invitation", ""))
        inv = Invitation.objects.filter(token=token).select_related("game", "membership").first()
        if inv is None:
            raise Http404(_("Ce lien ne correspond à aucune invitation."))
        try:
            accounts.check(inv)
        except accounts.InvitationRefused as refusal:
            return _refusal(request, refusal)
        return eternaltwin.start(request, "invite", invitation=token)
    return eternaltwin.start(request, "login", next=next_url)


@require_GET
def callback(request: HttpRequest) -> HttpResponse:
    """``/oauth/callback/``: Eternaltwin sends the browser back here."""
    if not eternaltwin.enabled():
        raise Http404(_("La connexion avec Eternaltwin n'est pas configurée sur ce site."))
    try:
        entry, identity = eternaltwin.finish(request)
    except eternaltwin.EternaltwinError as error:
        return _refusal(request, error)
    purpose = entry.get("purpose")
    try:
        if purpose == "link":
            return _linked(request, entry, identity)
        if purpose == "invite":
            return _joined(request, entry, identity)
        outcome = etwin_links.sign_in(identity)
    except (etwin_links.LinkRefused, accounts.InvitationRefused) as refusal:
        return _refusal(request, refusal)
    login(request, outcome.user, backend=BACKEND)
    _tell(request, outcome)
    target = eternaltwin.safe_next(request, str(entry.get("next") or ""))
    if any(c.status == SeatClaim.PENDING for c in outcome.proposed):
        return redirect("account")  # what happens next: the MJs confirm
    return redirect(target or accounts.landing(outcome.user))


def _linked(request: HttpRequest, entry: dict[str, Any], identity: Any) -> HttpResponse:
    user = request.user
    if not user.is_authenticated or user.pk != entry.get("user"):
        raise etwin_links.LinkRefused(
            "session_changed",
            _("Session changée"),
            _(
                "Vous n'êtes plus connecté avec le compte qui a demandé ce lien. Rien n'a "
                "changé : reconnectez-vous, puis recommencez depuis «\u00a0Mon compte\u00a0»."
            ),
            403,
        )
    assert isinstance(user, User)
    outcome = etwin_links.link(user, identity)
    messages.success(
        request,
        _("Votre compte est lié au compte Eternaltwin «\u00a0%(name)s\u00a0».")
        % {"name": identity.display_name},
    )
    _tell(request, outcome)
    target = eternaltwin.safe_next(request, str(entry.get("next") or ""))
    return redirect(target or "account")


def _joined(request: HttpRequest, entry: dict[str, Any], identity: Any) -> HttpResponse:
    inv = (
        Invitation.objects.select_related("game", "membership", "game_master")
        .filter(token=str(entry.get("invitation", "")))
        .first()
    )
    if inv is None:
        raise accounts.InvitationRefused(
            "unknown",
            _("Lien d'invitation inconnu"),
            _("Ce lien ne correspond à aucune invitation. Demandez-le aux MJ."),
        )
    user = etwin_links.join_with_invitation(inv, identity)
    login(request, user, backend=BACKEND)
    return redirect(accounts.seat_url(inv))


def _tell(request: HttpRequest, outcome: etwin_links.Outcome) -> None:
    """French notes on the seats a sign-in proposed, linked, or found held by others."""
    for claim in outcome.proposed:
        names = {"pseudo": claim.membership.pseudo, "game": claim.membership.game.name}
        if claim.status == SeatClaim.CONFIRMED:
            messages.success(
                request,
                _(
                    "Votre place «\u00a0%(pseudo)s\u00a0» dans «\u00a0%(game)s\u00a0» est liée "
                    "à ce compte."
                )
                % names,
            )
        else:
            messages.info(
                request,
                _(
                    "Votre pseudo «\u00a0%(pseudo)s\u00a0» est inscrit dans "
                    "«\u00a0%(game)s\u00a0» : les MJ vont confirmer que c'est bien vous, puis "
                    "vous aurez accès à votre page."
                )
                % names,
            )
    for m in outcome.collisions:
        messages.warning(
            request,
            _(
                "Le pseudo «\u00a0%(pseudo)s\u00a0» de «\u00a0%(game)s\u00a0» est lié à un autre "
                "compte : s'il est à vous, prévenez les MJ."
            )
            % {"pseudo": m.pseudo, "game": m.game.name},
        )


# -- the account page -----------------------------------------------------------------------


def _password_form(user: User, data: Any = None) -> SetPasswordForm[User] | PasswordChangeForm:
    if user.has_usable_password():
        return PasswordChangeForm(user, data)
    return SetPasswordForm(user, data)


@login_required
def account(request: HttpRequest) -> HttpResponse:
    """« Mon compte »: the Eternaltwin link (link, unlink), a password, the seats."""
    user = request.user
    assert isinstance(user, User)
    form = _password_form(user)
    if request.method == "POST":
        op = request.POST.get("op")
        if op == "unlink":
            try:
                etwin_links.unlink(user)
            except etwin_links.LinkRefused as refusal:
                messages.error(request, refusal.message)
            else:
                messages.success(request, _("Votre compte n'est plus lié à Eternaltwin."))
            return redirect("account")
        if op == "password":
            form = _password_form(user, request.POST)
            if form.is_valid():
                form.save()
                update_session_auth_hash(request, form.user)
                messages.success(request, _("Mot de passe enregistré."))
                return redirect("account")
    seats = [
        {"game": m.game, "pseudo": m.pseudo, "started": m.game.started}
        for m in Membership.objects.filter(user_id=user.pk, revoked_at__isnull=True)
        .select_related("game")
        .order_by("-game__created_at")
    ]
    gms = GameMaster.objects.filter(user_id=user.pk).select_related("game")
    return private(
        render(
            request,
            "games/account.html",
            {
                "link": etwin_links.active_link(user),
                "claims": etwin_links.claims_of(user),
                "seats": seats,
                "gm_seats": list(gms),
                "has_password": user.has_usable_password(),
                "form": form,
                "etwin": eternaltwin.enabled(),
            },
            status=400 if request.method == "POST" else 200,
        )
    )


# -- the game masters -----------------------------------------------------------------------


@gm_page
@require_POST
def gm_links(request: HttpRequest, game: Game, gm: GameMaster) -> HttpResponse:
    """The players page's Eternaltwin form: confirm the checked pending links (all of
    them, checked by default: one click), refuse one, or the game's two choices."""
    op = request.POST.get("op")
    refuse = request.POST.get("refuse")
    if refuse:
        pk = number(refuse)
        claim = etwin_links.refuse(game, pk, request.user) if pk is not None else None
        if claim is None:
            raise Http404(_("Aucune liaison en attente ne porte ce numéro."))
        messages.success(
            request,
            _("Liaison refusée : «\u00a0%(pseudo)s\u00a0» garde sa place libre.")
            % {"pseudo": claim.membership.pseudo},
        )
    elif op == "confirm":
        ids = [n for n in map(number, request.POST.getlist("claim")) if n is not None]
        done, void = etwin_links.confirm(game, ids, request.user)
        if done:
            messages.success(request, _("%(n)d liaison(s) confirmée(s).") % {"n": done})
        if void:
            messages.warning(
                request,
                _("%(n)d liaison(s) annulée(s) : la place était déjà prise.") % {"n": void},
            )
        if not done and not void:
            messages.error(request, _("Aucune liaison cochée n'était en attente."))
    elif op == "settings" and not eternaltwin.enabled():
        messages.error(
            request, _("La connexion avec Eternaltwin n'est pas configurée sur ce site.")
        )
    elif op == "settings":
        game.etwin_auto = request.POST.get("etwin_auto") == "on"
        game.etwin_only = request.POST.get("etwin_only") == "on"
        Game.objects.filter(pk=game.pk).update(
            etwin_auto=game.etwin_auto, etwin_only=game.etwin_only
        )
        messages.success(request, _("Choix Eternaltwin enregistrés."))
    else:
        messages.error(request, _("Demande incomprise."))
    anchor = "#eternaltwin" if op == "settings" else ""
    return redirect(reverse("gm_players", args=[game.slug]) + anchor)
