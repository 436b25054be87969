"""Accounts of a game: game masters and players, invitations, replacements."""

from __future__ import annotations

import re

from django.contrib.auth.models import User
from django.db import transaction

from ronde.engine.names import fold_name

from . import service
from .models import Game, Invitation, Membership

REPLACED = "remplacé"


def username_for(pseudo: str) -> str:
    """A Django username for a forum pseudo (letters, digits and @.+-_ only)."""
    name = re.sub(r"[^\w.@+-]", "_", pseudo.strip())[:150]
    return name or "joueur"


def account(name: str) -> tuple[User, bool]:
    """The user called ``name`` (case ignored), created without a password if new."""
    username = username_for(name)
    user = User.objects.filter(username__iexact=username).first()
    if user is not None:
        return user, False
    user = User.objects.create_user(username=username)
    user.set_unusable_password()
    user.save()
    return user, True


def invite(game: Game, user: User) -> Invitation:
    """A fresh invitation link for ``user`` (older unused ones stay valid)."""
    return Invitation.objects.create(game=game, user=user)


def add_player(game: Game, pseudo: str) -> Membership:
    user, _new = account(pseudo)
    member = Membership.objects.create(game=game, user=user, pseudo=pseudo)
    invite(game, user)
    return member


def find_membership(game: Game, pseudo: str) -> Membership | None:
    key = fold_name(pseudo)
    for m in game.memberships.filter(revoked_at__isnull=True):
        if fold_name(m.pseudo) == key:
            return m
    return None


@transaction.atomic
def replaced(game: Game, old: str, new: str) -> Membership:
    """``replace_player`` was recorded: the old account loses access, the new pseudo gets
    an account and an invitation (the seat keeps character, points and history)."""
    previous = find_membership(game, old)
    if previous is not None:
        previous.revoked_at = service.now()
        previous.revoked_reason = REPLACED
        previous.save(update_fields=["revoked_at", "revoked_reason"])
    return add_player(game, new)


def reconcile(game: Game) -> None:
    """After a correction: an account plays iff the engine knows its pseudo (a struck
    ``replace_player`` gives the old account back its access)."""
    v = service.view_for(game, "game_master")
    current = {fold_name(p["pseudo"]) for p in v["players"]}
    for m in game.memberships.all():
        known = fold_name(m.pseudo) in current
        if m.revoked_at is None and not known:
            m.revoked_at = service.now()
            m.revoked_reason = REPLACED
            m.save(update_fields=["revoked_at", "revoked_reason"])
        elif m.revoked_at is not None and m.revoked_reason == REPLACED and known:
            m.revoked_at = None
            m.revoked_reason = ""
            m.save(update_fields=["revoked_at", "revoked_reason"])
