"""Accounts linked to Eternaltwin, and the seats their display names propose.

A Ronde account is linked to an Eternaltwin user id (a uuid), never to a display name:
names change and can be imitated. A display name only *proposes* seats: the active
seats of started games whose pseudo is that name (compared as everywhere in Ronde:
:func:`ronde.engine.names.fold_name`, case ignored, accents kept) and that nobody
holds. Each proposal is a :class:`SeatClaim` that the game masters confirm (one click
confirms them all), unless the game links at once (``Game.etwin_auto``), or the
account accepts the seat's invitation itself.

A first sign-in (an Eternaltwin id linked to no account) creates an account only for a
name that proposes at least one seat and collides with nobody: a seat with that pseudo
held, or waiting for, another Eternaltwin id, or held by an account without
Eternaltwin, refuses the sign-in and changes nothing. An account known by its id
always signs in; such collisions are then only reported.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils.translation import gettext as _

from ronde.engine.names import fold_name

from . import accounts
from .eternaltwin import Identity
from .models import EternaltwinLink, Game, GameMaster, Invitation, Membership, SeatClaim


class LinkRefused(Exception):
    """A sign-in or a link refused, with its French page's title and text (nothing was
    changed)."""

    def __init__(self, code: str, title: str, message: str, status: int = 409) -> None:
        super().__init__(message)
        self.code, self.title, self.message, self.status = code, title, message, status


@dataclass
class Outcome:
    """What a sign-in (or a new link) did: the account, whether it is new, the seats it
    proposed (pending or linked at once) and the seats with that pseudo held by others."""

    user: User
    created: bool = False
    proposed: list[SeatClaim] = field(default_factory=list)
    collisions: list[Membership] = field(default_factory=list)


def active_link(user: Any) -> EternaltwinLink | None:
    if user is None or not getattr(user, "is_authenticated", False):
        return None
    return EternaltwinLink.objects.filter(user_id=user.pk, unlinked_at__isnull=True).first()


def _link_of_id(identity: Identity, *, lock: bool = False) -> EternaltwinLink | None:
    rows = EternaltwinLink.objects.filter(etwin_id=identity.id, unlinked_at__isnull=True)
    if lock:
        rows = rows.select_for_update()
    return rows.select_related("user").first()


# -- the seats a display name proposes ------------------------------------------------------


@dataclass
class _Seats:
    free: list[Membership] = field(default_factory=list)
    #: held or claimed by another Eternaltwin id
    other_id: list[Membership] = field(default_factory=list)
    #: held by an account without Eternaltwin (created with an invitation)
    unlinked: list[Membership] = field(default_factory=list)


def _seats_named(name: str) -> list[Membership]:
    key = fold_name(name)
    rows = Membership.objects.filter(
        revoked_at__isnull=True, game__started_at__isnull=False
    ).select_related("game")
    return [m for m in rows if fold_name(m.pseudo) == key]


def _sort(identity: Identity, user: User | None) -> _Seats:
    """The seats whose pseudo is ``identity``'s display name, by who holds them (a few
    queries whatever the number of seats: not one per seat)."""
    out = _Seats()
    seats = [
        m
        for m in _seats_named(identity.display_name)
        if user is None or m.user_id != user.pk  # (his own)
    ]
    held = {m.user_id for m in seats if m.user_id is not None}
    # (an account linked to this id is ``user``: a seat held by a linked account is
    # someone else's)
    linked = (
        set(
            EternaltwinLink.objects.filter(user_id__in=held, unlinked_at__isnull=True)
            .values_list("user_id", flat=True)
            .distinct()
        )
        if held
        else set()
    )
    free = [m.pk for m in seats if m.user_id is None]
    claimed_by_other: set[int] = set()  # a pending claim of another Eternaltwin id
    claimed_by_him: set[int] = set()  # proposed to him already, or refused by the MJs
    if free:
        claims = SeatClaim.objects.filter(
            membership_id__in=free, status__in=(SeatClaim.PENDING, SeatClaim.REFUSED)
        ).values_list("membership_id", "etwin_id", "status")
        for membership_id, etwin_id, status in claims:
            if etwin_id == identity.id:
                claimed_by_him.add(membership_id)
            elif status == SeatClaim.PENDING:
                claimed_by_other.add(membership_id)
    playing = _games_of(user) if user is not None and free else set()
    for m in seats:
        if m.user_id is not None:
            (out.other_id if m.user_id in linked else out.unlinked).append(m)
        elif m.pk in claimed_by_other:
            out.other_id.append(m)
        elif m.pk in claimed_by_him or m.game_id in playing:
            continue  # already proposed to him (or refused); he plays or runs that game
        else:
            out.free.append(m)
    return out


def _games_of(user: Any) -> set[int]:
    """The games ``user`` runs or plays (a seat not withdrawn)."""
    runs = GameMaster.objects.filter(user_id=user.pk).values_list("game_id", flat=True)
    plays = Membership.objects.filter(user_id=user.pk, revoked_at__isnull=True).values_list(
        "game_id", flat=True
    )
    return set(runs) | set(plays)


def _collision(seats: _Seats) -> LinkRefused:
    if seats.other_id:
        m = seats.other_id[0]
        return LinkRefused(
            "name_taken",
            _("Pseudo déjà lié à un autre compte"),
            _(
                "Le pseudo «\u00a0%(pseudo)s\u00a0» de la partie «\u00a0%(game)s\u00a0» est "
                "déjà lié (ou proposé) à un autre compte Eternaltwin que le vôtre. Rien n'a "
                "changé. Si ce pseudo est bien le vôtre, prévenez les MJ de la partie : ils "
                "peuvent vous envoyer votre lien d'invitation."
            )
            % {"pseudo": m.pseudo, "game": m.game.name},
        )
    m = seats.unlinked[0]
    return LinkRefused(
        "name_has_account",
        _("Ce pseudo a déjà un compte Ronde"),
        _(
            "Le pseudo «\u00a0%(pseudo)s\u00a0» de la partie «\u00a0%(game)s\u00a0» a déjà "
            "un compte Ronde, créé avec un lien d'invitation, qui n'est pas lié à "
            "Eternaltwin. Rien n'a changé. Si c'est le vôtre, connectez-vous avec votre mot "
            "de passe, puis liez-le à Eternaltwin depuis «\u00a0Mon compte\u00a0»."
        )
        % {"pseudo": m.pseudo, "game": m.game.name},
    )


def _no_seat(identity: Identity) -> LinkRefused:
    return LinkRefused(
        "no_seat",
        _("Aucune partie ne vous attend"),
        _(
            "Aucune partie en cours n'a de joueur nommé «\u00a0%(name)s\u00a0» (votre nom "
            "sur Eternaltwin) sans compte. Rien n'a été créé. Si vous êtes inscrit sous un "
            "autre pseudo, demandez aux MJ votre lien d'invitation."
        )
        % {"name": identity.display_name},
        403,
    )


# -- proposing and confirming seats ---------------------------------------------------------


def _propose(m: Membership, user: User, identity: Identity) -> SeatClaim:
    claim = SeatClaim.objects.create(
        game_id=m.game_id,
        membership=m,
        user=user,
        etwin_id=identity.id,
        display_name=identity.display_name,
        created_at=accounts._now(),
    )
    if m.game.etwin_auto:
        _take(claim, None)
    return claim


def _take(claim: SeatClaim, by: Any) -> bool:
    """Give ``claim``'s seat to its account (if the seat is still free and the account
    still linked to that id and outside the game): ``confirmed``, else ``void``."""
    now = accounts._now()
    linked = EternaltwinLink.objects.filter(
        user_id=claim.user_id, etwin_id=claim.etwin_id, unlinked_at__isnull=True
    ).exists()
    taken = 0
    if linked and claim.game_id not in _games_of(claim.user):
        taken = Membership.objects.filter(
            pk=claim.membership_id, user__isnull=True, revoked_at__isnull=True
        ).update(user=claim.user)
    claim.status = SeatClaim.CONFIRMED if taken == 1 else SeatClaim.VOID
    claim.decided_by = by
    claim.decided_at = now
    claim.save(update_fields=["status", "decided_by", "decided_at"])
    if taken == 1:
        # the seat's invitation link is of no use now (the MJs may send a new one)
        Invitation.objects.filter(
            membership_id=claim.membership_id, used_at__isnull=True, revoked_at__isnull=True
        ).update(revoked_at=now)
    return taken == 1


def seat_taken(membership_id: int, user: Any) -> None:
    """A seat's invitation was accepted by ``user``: his pending claim on it is
    confirmed (he confirmed it himself), any other is void."""
    now = accounts._now()
    pending = SeatClaim.objects.filter(membership_id=membership_id, status=SeatClaim.PENDING)
    pending.filter(user_id=user.pk).update(status=SeatClaim.CONFIRMED, decided_at=now)
    pending.exclude(user_id=user.pk).update(status=SeatClaim.VOID, decided_at=now)


def seat_withdrawn(membership_id: int) -> None:
    """A seat was revoked (replaced, access withdrawn): its pending claim is void."""
    SeatClaim.objects.filter(membership_id=membership_id, status=SeatClaim.PENDING).update(
        status=SeatClaim.VOID, decided_at=accounts._now()
    )


def _retrying(fn: Any) -> Any:
    """Runs ``fn`` in a transaction; once more if a simultaneous sign-in of the same id or
    a claim on the same seat won a unique constraint (it then sees the winner)."""
    try:
        with transaction.atomic():
            return fn()
    except IntegrityError:
        with transaction.atomic():
            return fn()


def _active(user: User) -> User:
    """``user``, unless the game masters or an organiser deactivated it.

    Raises:
        LinkRefused: ``inactive`` (403).
    """
    if not user.is_active:
        raise LinkRefused(
            "inactive",
            _("Compte désactivé"),
            _("Ce compte Ronde est désactivé. Rien n'a changé : demandez aux MJ."),
            403,
        )
    return user


def sign_in(identity: Identity) -> Outcome:
    """The account of an Eternaltwin user, and the seats his display name proposes.
    Raises :class:`LinkRefused` (nothing changed) for an unknown id whose name proposes
    no seat, or collides with someone else's seat."""

    def run() -> Outcome:
        link = _link_of_id(identity, lock=True)
        user = _active(link.user) if link is not None else None
        seats = _sort(identity, user)
        created = link is None
        if link is None:
            if seats.other_id or seats.unlinked:
                raise _collision(seats)
            if not seats.free:
                raise _no_seat(identity)
            user = User(username=accounts.propose_username(identity.display_name))
            user.set_unusable_password()
            user.save()
            link = _new_link(user, identity)
        else:
            assert user is not None
            _seen(link, identity)
        out = Outcome(user, created=created)
        out.proposed = [_propose(m, user, identity) for m in seats.free]
        out.collisions = seats.other_id + seats.unlinked
        return out

    result: Outcome = _retrying(run)
    return result


def _new_link(user: User, identity: Identity) -> EternaltwinLink:
    now = accounts._now()
    return EternaltwinLink.objects.create(
        user=user,
        etwin_id=identity.id,
        display_name=identity.display_name,
        linked_at=now,
        seen_at=now,
    )


def _seen(link: EternaltwinLink, identity: Identity) -> None:
    link.display_name = identity.display_name
    link.seen_at = accounts._now()
    link.save(update_fields=["display_name", "seen_at"])


def link(user: User, identity: Identity) -> Outcome:
    """Link a logged-in account to an Eternaltwin id (and propose the seats its name
    proposes). Refused if the account has another link, or the id another account."""

    def run() -> Outcome:
        User.objects.select_for_update().filter(pk=user.pk).first()
        mine = active_link(user)
        theirs = _link_of_id(identity, lock=True)
        if theirs is not None and theirs.user_id != user.pk:
            raise LinkRefused(
                "id_taken",
                _("Compte Eternaltwin déjà lié"),
                _(
                    "Ce compte Eternaltwin est déjà lié à un autre compte Ronde. Rien n'a "
                    "changé. Connectez-vous avec Eternaltwin pour l'utiliser, ou déliez-le "
                    "depuis cet autre compte."
                ),
            )
        if mine is not None and mine.etwin_id != identity.id:
            raise LinkRefused(
                "already_linked",
                _("Compte déjà lié"),
                _(
                    "Votre compte Ronde est déjà lié à un autre compte Eternaltwin "
                    "(«\u00a0%(name)s\u00a0»). Rien n'a changé : déliez-le d'abord."
                )
                % {"name": mine.display_name},
            )
        if mine is None:
            _new_link(user, identity)
        else:
            _seen(mine, identity)
        seats = _sort(identity, user)
        return Outcome(
            user,
            proposed=[_propose(m, user, identity) for m in seats.free],
            collisions=seats.other_id + seats.unlinked,
        )

    result: Outcome = _retrying(run)
    return result


def unlink(user: User) -> None:
    """Remove the account's Eternaltwin link (its pending claims are void). Refused when
    the account has no password: it could no longer sign in."""
    with transaction.atomic():
        User.objects.select_for_update().filter(pk=user.pk).first()
        mine = active_link(user)
        if mine is None:
            raise LinkRefused(
                "not_linked",
                _("Aucun lien Eternaltwin"),
                _("Ce compte n'est lié à aucun compte Eternaltwin : rien à délier."),
            )
        fresh = User.objects.get(pk=user.pk)
        if not fresh.has_usable_password():
            raise LinkRefused(
                "last_way_in",
                _("Choisissez d'abord un mot de passe"),
                _(
                    "Sans Eternaltwin ni mot de passe, vous ne pourriez plus vous connecter. "
                    "Rien n'a changé : choisissez d'abord un mot de passe, puis déliez."
                ),
            )
        now = accounts._now()
        mine.unlinked_at = now
        mine.save(update_fields=["unlinked_at"])
        SeatClaim.objects.filter(user_id=user.pk, status=SeatClaim.PENDING).update(
            status=SeatClaim.VOID, decided_at=now
        )


def join_with_invitation(inv: Invitation, identity: Identity) -> User:
    """An invitation accepted with Eternaltwin: the account of that id (created if new,
    whatever its display name: the link proves the seat) takes the seat. Raises
    :class:`accounts.InvitationRefused` (nothing created) as the invitation page does."""

    def run() -> User:
        found = _link_of_id(identity, lock=True)
        if found is not None:
            user = _active(found.user)  # (a deactivated account takes no seat)
            _seen(found, identity)
        else:
            user = User(username=accounts.propose_username(identity.display_name))
            user.set_unusable_password()
            user.save()
            _new_link(user, identity)
        accounts.check(inv)
        accounts.check_user(inv, user)
        accounts.accept(inv, user)
        return user

    result: User = _retrying(run)
    return result


# -- what the pages show ---------------------------------------------------------------------


def pending_claims(game: Game) -> list[SeatClaim]:
    return list(
        SeatClaim.objects.filter(game=game, status=SeatClaim.PENDING)
        .select_related("membership", "user")
        .order_by("membership__pseudo", "created_at")
    )


def console(game: Game) -> dict[str, Any]:
    """The players page's Eternaltwin part: the links waiting for confirmation, the seats
    held by accounts linked to Eternaltwin (pseudo, Eternaltwin name), the game's choices."""
    linked = {
        link.user_id: link
        for link in EternaltwinLink.objects.filter(
            unlinked_at__isnull=True,
            user_id__in=game.memberships.filter(revoked_at__isnull=True, user__isnull=False)
            .values("user_id")
            .distinct(),
        )
    }
    seats = [
        {"pseudo": m.pseudo, "link": linked[m.user_id]}
        for m in game.memberships.filter(revoked_at__isnull=True, user__isnull=False).order_by(
            "pseudo"
        )
        if m.user_id in linked
    ]
    return {"pending": pending_claims(game), "linked": seats, "game": game}


def confirm(game: Game, ids: list[int], by: Any) -> tuple[int, int]:
    """The game masters confirm these pending claims of ``game``: (confirmed, void)."""
    done = void = 0
    with transaction.atomic():
        rows = SeatClaim.objects.select_for_update().filter(
            game=game, status=SeatClaim.PENDING, pk__in=ids
        )
        for claim in rows.select_related("user"):
            if _take(claim, by):
                done += 1
            else:
                void += 1
    return done, void


def refuse(game: Game, claim_id: int, by: Any) -> SeatClaim | None:
    with transaction.atomic():
        claim = (
            SeatClaim.objects.select_for_update()
            .filter(game=game, status=SeatClaim.PENDING, pk=claim_id)
            .select_related("membership")
            .first()
        )
        if claim is None:
            return None
        claim.status = SeatClaim.REFUSED
        claim.decided_by = by
        claim.decided_at = accounts._now()
        claim.save(update_fields=["status", "decided_by", "decided_at"])
        return claim


def claims_of(user: Any) -> list[SeatClaim]:
    return list(
        SeatClaim.objects.filter(user_id=user.pk)
        .filter(~Q(status=SeatClaim.VOID))
        .select_related("game", "membership")
        .order_by("-created_at")
    )


def has_pending(user: Any) -> bool:
    return SeatClaim.objects.filter(user_id=user.pk, status=SeatClaim.PENDING).exists()
