"""Accounts of a game: seats, invitations, replacements, logins, organisers.

A seat (a player's :class:`Membership`, a :class:`GameMaster`) is linked to an account
when someone accepts its invitation: a visitor creates his account there, a
logged-in user accepts it onto his own. No account is ever matched by name, and no
invitation, roster, game-master list or replacement ever sets the password of an
existing account. (With Eternaltwin, a display name may *propose* a free seat to an
account linked to an Eternaltwin id; the game masters confirm it: ``etwin_links``.)
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from datetime import datetime, timedelta
from typing import Any

from axes.backends import AxesStandaloneBackend
from django.conf import settings
from django.contrib.auth.backends import ModelBackend
from django.contrib.auth.models import Permission, User
from django.db import transaction
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _

from ronde.engine.errors import RuleViolation
from ronde.engine.names import fold_name

from .models import Game, GameMaster, Invitation, Membership

REPLACED = "remplacé"
ORGANISE = "games.organise"


def _now() -> datetime:
    from . import service

    return service.now()


# -- user names ---------------------------------------------------------------------------


def username_for(pseudo: str) -> str:
    """A Django username for a forum pseudo (letters, digits and @.+-_ only)."""
    name = re.sub(r"[^\w.@+-]", "_", pseudo.strip())[:150]
    return name or "joueur"


def fold_username(name: str) -> str:
    """A user name as a login compares it: case, accents and invisible characters ignored."""
    decomposed = unicodedata.normalize("NFKD", fold_name(name))
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def look_alike(name: str) -> str | None:
    """An existing user name that logs in like ``name`` (case, accents and invisible
    characters aside), or ``None``: two such accounts could not be told apart."""
    key = fold_username(name)
    for other in User.objects.values_list("username", flat=True):
        if fold_username(other) == key:
            return str(other)
    return None


def propose_username(pseudo: str) -> str:
    """A free user name for a pseudo (``Ana``, else ``Ana2``, ``Ana3`` ...)."""
    base = username_for(pseudo)[:140]
    name, n = base, 1
    while look_alike(name) is not None:
        n += 1
        name = f"{base}{n}"
    return name


def find_user(name: str) -> User | None:
    """The account a login name designates: exactly, else whatever its case when only one
    account matches, else without accents when only one account matches."""
    name = name.strip()
    if not name:
        return None
    exact = User.objects.filter(username=name).first()
    if exact is not None:
        return exact
    same_case = list(User.objects.filter(username__iexact=name)[:2])
    if len(same_case) == 1:
        return same_case[0]
    if same_case:
        return None  # "ana" when "Ana" and "ANA" exist: ambiguous
    key = fold_username(name)
    candidates = [
        pk
        for pk, username in User.objects.values_list("pk", "username")
        if fold_username(username) == key
    ]
    if len(candidates) == 1:
        return User.objects.get(pk=candidates[0])
    return None


class PseudoBackend(ModelBackend):
    """Django's password check, for a pseudo typed whatever its case (and without its
    accents when that designates one account only)."""

    def authenticate(
        self,
        request: HttpRequest | None,
        username: str | None = None,
        password: str | None = None,
        **kwargs: Any,
    ) -> User | None:
        if username is None or password is None:
            return None
        user = find_user(username)
        if user is None:
            User().set_password(password)  # same time as a wrong password (no enumeration)
            return None
        if user.check_password(password) and self.user_can_authenticate(user):
            return user
        return None


class ThrottleBackend(AxesStandaloneBackend):  # type: ignore[misc]
    """django-axes' lockout check (10 failures for one pseudo in 15 minutes). Logins
    without a request (Django's test client ``login()``) are not throttled: every page
    of the site logs in through a request."""

    def authenticate(
        self,
        request: HttpRequest | None,
        username: str | None = None,
        password: str | None = None,
        **kwargs: Any,
    ) -> None:
        if request is None:
            return None
        super().authenticate(request, username, password, **kwargs)
        return None


def throttle_key(request: HttpRequest | None, credentials: dict[str, Any] | None) -> str | None:
    """What django-axes counts failures by: the pseudo folded as a login compares it
    (``Ana``, ``ANA`` and ``ána`` are one pseudo to throttle)."""
    name = (credentials or {}).get("username")
    if name is None and request is not None:
        name = request.POST.get("username")
    if not name:
        return None
    return fold_username(str(name))[:255]


def retry_at(key: str | None) -> datetime:
    """When a locked-out pseudo may log in again."""
    from axes.models import AccessAttempt

    cool_off: timedelta = settings.AXES_COOLOFF_TIME
    last = (
        AccessAttempt.objects.filter(username=key).order_by("-attempt_time").first()
        if key
        else None
    )
    base = last.attempt_time if last is not None else timezone.now()
    return base + cool_off


def locked_out(
    request: HttpRequest, response: HttpResponse | None = None, credentials: Any = None
) -> HttpResponse:
    """django-axes' answer to a locked-out pseudo: the login page, in French, with when
    to retry (429)."""
    from .views_accounts import LoginForm

    if not isinstance(credentials, dict):
        credentials = None
    when = timezone.localtime(retry_at(throttle_key(request, credentials)))
    minutes = max(1, round((when - timezone.now()).total_seconds() / 60))
    form = LoginForm(request, initial={"username": request.POST.get("username", "")})
    return render(
        request,
        "games/login.html",
        {
            "form": form,
            "next": request.POST.get("next", ""),
            "locked": _(
                "Trop d'essais de mot de passe pour ce pseudo. Réessayez à %(time)s "
                "(heure de Paris), dans %(minutes)d minute(s)."
            )
            % {"time": when.strftime("%H:%M"), "minutes": minutes},
        },
        status=429,
    )


def landing(user: Any) -> str:
    """Where a user lands after logging in: his game's page (the most recent one he plays
    or runs), else the home page."""
    member = (
        Membership.objects.filter(
            user_id=user.pk, revoked_at__isnull=True, game__started_at__isnull=False
        )
        .select_related("game")
        .order_by("-game__started_at")
        .first()
    )
    if member is not None:
        return reverse("player", args=[member.game.slug])
    gm = (
        GameMaster.objects.filter(user_id=user.pk)
        .select_related("game")
        .order_by("-game__created_at")
        .first()
    )
    if gm is not None:
        return reverse("gm_dashboard", args=[gm.game.slug])
    from .etwin_links import has_pending

    if has_pending(user):  # a seat proposed by Eternaltwin, waiting for the MJs
        return reverse("account")
    return reverse("home")


# -- organisers -----------------------------------------------------------------------------


def can_organise(user: Any) -> bool:
    """May create games: the permission ``games.organise`` (the superuser has them all)."""
    return bool(user.is_authenticated and user.has_perm(ORGANISE))


def organise_permission() -> Permission:
    return Permission.objects.get(content_type__app_label="games", codename="organise")


# -- seats and invitations -----------------------------------------------------------------


def invitation_days() -> int:
    return int(getattr(settings, "INVITATION_DAYS", 14))


def _issue(
    game: Game, *, membership: Membership | None = None, gm: GameMaster | None = None
) -> Invitation:
    """A fresh invitation for a seat; the seat's older open invitations are revoked."""
    now = _now()
    with transaction.atomic():
        if membership is not None:
            Membership.objects.select_for_update().filter(pk=membership.pk).first()
            older = Invitation.objects.filter(membership=membership)
        else:
            assert gm is not None
            GameMaster.objects.select_for_update().filter(pk=gm.pk).first()
            older = Invitation.objects.filter(game_master=gm)
        older.filter(used_at__isnull=True, revoked_at__isnull=True).update(revoked_at=now)
        return Invitation.objects.create(
            game=game,
            membership=membership,
            game_master=gm,
            created_at=now,
            expires_at=now + timedelta(days=invitation_days()),
        )


def invite(game: Game, seat: Membership | GameMaster) -> Invitation:
    """A new invitation link for a seat (a player's or a game master's)."""
    if isinstance(seat, Membership):
        return _issue(game, membership=seat)
    return _issue(game, gm=seat)


def add_player(game: Game, pseudo: str, user: User | None = None) -> Membership:
    """A player's seat; without ``user`` (trusted callers only: the demo, tests) it waits
    for someone to accept its invitation."""
    member = Membership.objects.create(game=game, user=user, pseudo=pseudo)
    if user is None:
        invite(game, member)
    return member


def add_game_master(game: Game, name: str) -> GameMaster:
    """A game master's seat, taken by whoever accepts its invitation.

    Raises:
        RuleViolation: a name longer than the store keeps (nothing is written).
    """
    limit = GameMaster._meta.get_field("name").max_length or 60
    if len(name) > limit:
        raise RuleViolation(
            "invalid_argument",
            f"Nom de MJ trop long : « {name[:limit]}… » ({len(name)} caractères, {limit} au plus).",
        )
    gm = GameMaster.objects.create(game=game, user=None, name=name)
    invite(game, gm)
    return gm


def open_invitations(game: Game) -> dict[tuple[str, int], Invitation]:
    """The valid invitation of each seat: ``("player", membership id)`` or ``("gm", id)``."""
    out: dict[tuple[str, int], Invitation] = {}
    rows = Invitation.objects.filter(
        game=game, used_at__isnull=True, revoked_at__isnull=True, expires_at__gt=_now()
    ).order_by("created_at", "pk")
    for inv in rows:
        if inv.membership_id is not None:
            out[("player", inv.membership_id)] = inv
        elif inv.game_master_id is not None:
            out[("gm", inv.game_master_id)] = inv
    return out


def find_membership(game: Game, pseudo: str) -> Membership | None:
    key = fold_name(pseudo)
    for m in game.memberships.filter(revoked_at__isnull=True):
        if fold_name(m.pseudo) == key:
            return m
    return None


def _revoke_seat(member: Membership, reason: str) -> None:
    from .etwin_links import seat_withdrawn

    member.revoked_at = _now()
    member.revoked_reason = reason
    member.save(update_fields=["revoked_at", "revoked_reason"])
    Invitation.objects.filter(
        membership=member, used_at__isnull=True, revoked_at__isnull=True
    ).update(revoked_at=member.revoked_at)
    seat_withdrawn(member.pk)


def revoke(member: Membership, reason: str) -> None:
    """The game masters withdraw a player's access (and his seat's open invitations)."""
    _revoke_seat(member, reason)


@transaction.atomic
def replaced(game: Game, old: str, new: str) -> Membership:
    """``replace_player`` was recorded (the service calls it in that write's
    transaction): the old account loses access and the old seat's invitations are
    revoked; the new pseudo gets a seat with its own invitation (the seat keeps
    character, points and history). No account is looked up by name."""
    previous = find_membership(game, old)
    if previous is not None:
        _revoke_seat(previous, REPLACED)
    return add_player(game, new)


def reconcile(game: Game, pseudos: Iterable[str]) -> None:
    """After a correction: an account plays iff the engine knows its pseudo (``pseudos``:
    the players' pseudos in the game rebuilt; a struck ``replace_player`` gives the old
    account back its access). The service calls it in the correction's transaction."""
    current = {fold_name(p) for p in pseudos}
    for m in game.memberships.all():
        known = fold_name(m.pseudo) in current
        if m.revoked_at is None and not known:
            _revoke_seat(m, REPLACED)
        elif m.revoked_at is not None and m.revoked_reason == REPLACED and known:
            m.revoked_at = None
            m.revoked_reason = ""
            m.save(update_fields=["revoked_at", "revoked_reason"])


class InvitationRefused(Exception):
    """An invitation that cannot be accepted, with its French page's title and text."""

    def __init__(self, code: str, title: str, message: str) -> None:
        super().__init__(message)
        self.code, self.title, self.message = code, title, message


def _used() -> InvitationRefused:
    return InvitationRefused(
        "used",
        _("Invitation déjà utilisée"),
        _(
            "Ce lien a déjà servi. Si c'était vous, connectez-vous ; sinon demandez un "
            "nouveau lien aux MJ."
        ),
    )


def check(inv: Invitation) -> None:
    """Raise :class:`InvitationRefused` unless ``inv`` may still be accepted."""
    if inv.used_at is not None:
        raise _used()
    seat_gone = inv.membership is not None and inv.membership.revoked_at is not None
    if inv.revoked_at is not None or seat_gone:
        raise InvitationRefused(
            "revoked",
            _("Invitation annulée"),
            _(
                "Ce lien n'est plus valable : les MJ en ont créé un plus récent, ou la place "
                "a été attribuée à quelqu'un d'autre. Demandez-leur le bon lien."
            ),
        )
    if inv.expires_at <= _now():
        raise InvitationRefused(
            "expired",
            _("Invitation expirée"),
            _(
                "Ce lien a expiré (il était valable %(days)d jours). Demandez un nouveau "
                "lien aux MJ."
            )
            % {"days": invitation_days()},
        )


def check_user(inv: Invitation, user: Any) -> None:
    """A logged-in user may take a seat only if he holds no other seat of that game."""
    if GameMaster.objects.filter(game_id=inv.game_id, user_id=user.pk).exists():
        raise InvitationRefused(
            "already_gm",
            _("Vous êtes déjà MJ de cette partie"),
            _(
                "Ce compte mène déjà cette partie : il ne peut pas y prendre une autre "
                "place. Déconnectez-vous pour créer un autre compte avec ce lien."
            ),
        )
    if Membership.objects.filter(
        game_id=inv.game_id, user_id=user.pk, revoked_at__isnull=True
    ).exists():
        raise InvitationRefused(
            "already_player",
            _("Vous jouez déjà dans cette partie"),
            _(
                "Ce compte a déjà une place dans cette partie : il ne peut pas en prendre "
                "une autre. Déconnectez-vous pour créer un autre compte avec ce lien."
            ),
        )


def accept(inv: Invitation, user: User) -> None:
    """``user`` takes the invitation's seat. Exactly one of many simultaneous accepts
    succeeds (a conditional UPDATE); the others raise :class:`InvitationRefused`. Call it
    inside the transaction that created ``user`` if it is new, so a lost race leaves
    nothing behind."""
    now = _now()
    with transaction.atomic():
        # one acceptance at a time per account: the "no other seat in this game" check
        # below sees the seat another acceptance of his just took (PostgreSQL)
        User.objects.select_for_update().filter(pk=user.pk).first()
        won = Invitation.objects.filter(
            pk=inv.pk, used_at__isnull=True, revoked_at__isnull=True, expires_at__gt=now
        ).update(used_at=now, accepted_by=user)
        if won != 1:
            inv.refresh_from_db()
            check(inv)
            raise _used()
        check_user(inv, user)
        if inv.membership_id is not None:
            taken = Membership.objects.filter(pk=inv.membership_id, revoked_at__isnull=True).update(
                user=user
            )
        else:
            taken = GameMaster.objects.filter(pk=inv.game_master_id or 0).update(user=user)
        if taken != 1:
            raise _used()  # the seat was replaced meanwhile (rolled back)
        if inv.membership_id is not None:
            from .etwin_links import seat_taken

            # a seat proposed to him by Eternaltwin: he confirmed it himself
            seat_taken(inv.membership_id, user)


def seat_label(inv: Invitation) -> str:
    """The seat an invitation gives, for its page."""
    if inv.membership is not None:
        return _("joueur «\u00a0%(p)s\u00a0»") % {"p": inv.membership.pseudo}
    assert inv.game_master is not None
    return _("MJ «\u00a0%(n)s\u00a0»") % {"n": inv.game_master.name}


def seat_pseudo(inv: Invitation) -> str:
    if inv.membership is not None:
        return inv.membership.pseudo
    assert inv.game_master is not None
    return inv.game_master.name


def seat_url(inv: Invitation) -> str:
    if inv.game_master_id is not None:
        return reverse("gm_dashboard", args=[inv.game.slug])
    return reverse("player", args=[inv.game.slug])
