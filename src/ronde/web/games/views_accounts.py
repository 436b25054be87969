"""Logging in, and invitations: a seat of a game for whoever accepts the link."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib.auth import login
from django.contrib.auth import views as auth_views
from django.contrib.auth.forms import AuthenticationForm, UserCreationForm
from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from . import accounts
from .eternaltwin import enabled as etwin_enabled
from .etwin_links import active_link
from .models import Invitation


class LoginForm(AuthenticationForm):
    username = forms.CharField(
        label=gettext_lazy("Identifiant (d'ordinaire votre pseudo)"),
        max_length=150,
        widget=forms.TextInput(attrs={"autofocus": True, "autocapitalize": "none"}),
    )
    password = forms.CharField(
        label=gettext_lazy("Mot de passe"),
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "current-password"}),
    )
    error_messages = {  # noqa: RUF012  (Django's form API)
        "invalid_login": gettext_lazy(
            "Identifiant ou mot de passe incorrect (les majuscules du mot de passe comptent)."
        ),
        "inactive": gettext_lazy("Ce compte est désactivé."),
    }


class LoginView(auth_views.LoginView):
    """Django's login, then the user's game (unless the link he followed asked for a page)."""

    template_name = "games/login.html"
    form_class = LoginForm

    def get_default_redirect_url(self) -> str:
        return accounts.landing(self.request.user)


class AccountForm(UserCreationForm):  # type: ignore[type-arg]
    """A new account from an invitation: a user name (proposed from the pseudo) and a
    password (Django's rules)."""

    class Meta(UserCreationForm.Meta):  # type: ignore[name-defined,misc]
        model = User
        fields = ("username",)
        labels = {"username": gettext_lazy("Identifiant (pour vous connecter)")}  # noqa: RUF012
        help_texts = {  # noqa: RUF012
            "username": gettext_lazy(
                "Proposé d'après votre pseudo ; lettres, chiffres et @ . + - _ seulement."
            )
        }

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["password1"].label = _("Mot de passe")
        self.fields["password2"].label = _("Le même, encore une fois")
        self.fields["password2"].help_text = ""

    def clean_username(self) -> str:
        name = str(super().clean_username())
        other = accounts.look_alike(name)
        if other is not None:
            raise forms.ValidationError(
                _("Le compte « %(other)s » existe déjà et se confond avec ce nom.")
                % {"other": other}
            )
        return name


def refused_status(refusal: accounts.InvitationRefused) -> int:
    """The HTTP status of a refused invitation (the invitation page and Eternaltwin's)."""
    codes = {"unknown": 404, "already_gm": 409, "already_player": 409, "etwin_only": 403}
    return codes.get(refusal.code, 410)


def _refused(
    request: HttpRequest, inv: Invitation | None, refusal: accounts.InvitationRefused
) -> HttpResponse:
    status = refused_status(refusal)
    return render(
        request,
        "games/invitation_refused.html",
        {"inv": inv, "refusal": refusal},
        status=status,
    )


def _etwin_only() -> accounts.InvitationRefused:
    return accounts.InvitationRefused(
        "etwin_only",
        _("Partie réservée à Eternaltwin"),
        _(
            "Les MJ de cette partie ont choisi Eternaltwin seulement : cette place se prend "
            "avec un compte Eternaltwin (bouton «\u00a0Rejoindre avec Eternaltwin\u00a0» de "
            "ce lien), pas avec un mot de passe. Rien n'a changé."
        ),
    )


def invitation(request: HttpRequest, token: str) -> HttpResponse:
    """An invitation link: a visitor creates his account and takes the seat; a logged-in
    user takes it with his own account."""
    inv = (
        Invitation.objects.select_related("game", "membership", "game_master")
        .filter(token=token)
        .first()
    )
    if inv is None:
        return _refused(
            request,
            None,
            accounts.InvitationRefused(
                "unknown",
                _("Lien d'invitation inconnu"),
                _("Ce lien ne correspond à aucune invitation. Vérifiez-le, ou demandez-le aux MJ."),
            ),
        )
    try:
        accounts.check(inv)
        if request.user.is_authenticated:
            accounts.check_user(inv, request.user)
    except accounts.InvitationRefused as refusal:
        return _refused(request, inv, refusal)
    # a game played with Eternaltwin only: its players' seats go to linked accounts (on
    # a site with Eternaltwin: without it, the choice would leave them no way in)
    etwin_only = inv.game.etwin_only and inv.membership_id is not None and etwin_enabled()
    ctx: dict[str, Any] = {
        "inv": inv,
        "seat": accounts.seat_label(inv),
        "expires": timezone.localtime(inv.expires_at),
        "etwin_only": etwin_only,
    }
    if etwin_only and active_link(request.user) is None:
        if request.method == "POST":
            return _refused(request, inv, _etwin_only())
        return render(request, "games/invitation.html", {**ctx, "join": False})
    if request.user.is_authenticated:
        user = request.user
        assert isinstance(user, User)
        if request.method == "POST":
            try:
                accounts.accept(inv, user)
            except accounts.InvitationRefused as refusal:
                return _refused(request, inv, refusal)
            return redirect(accounts.seat_url(inv))
        return render(request, "games/invitation.html", {**ctx, "join": True})
    form = AccountForm(
        request.POST or None,
        initial={"username": accounts.propose_username(accounts.seat_pseudo(inv))},
    )
    if request.method == "POST" and form.is_valid():
        try:
            with transaction.atomic():
                user = form.save()
                accounts.accept(inv, user)
        except accounts.InvitationRefused as refusal:
            return _refused(request, inv, refusal)
        except IntegrityError:
            form.add_error(
                "username", _("Cet identifiant vient d'être pris ; choisissez-en un autre.")
            )
        else:
            login(request, user, backend="ronde.web.games.accounts.PseudoBackend")
            return redirect(accounts.seat_url(inv))
    return render(request, "games/invitation.html", {**ctx, "form": form, "join": False})
