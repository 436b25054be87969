"""Notifications by e-mail and Web Push: what each account is told, the outbox, sending.

**What is told.** A notification says that something waits on the page and links to
it; it never carries a secret. A player is told what his *own view* shows that is new
to him (:func:`player_facts`: a private message he may read, a trial against him), so a
message held for a verdict not yet announced (RULES.md A77) is told when his view shows
it, after the announcement, and never before; his request answered; an obligation of
his character ending within 3 hours and J13 13:13 approaching, read from the game as he
knows it (:func:`ronde.engine.today.deadlines`). A game master is told of a player's
request and of private messages now due by MP. Every fact told is remembered
(``NotifyChoice.known``): nothing is told twice, whatever is submitted again.

**The outbox.** :func:`written` runs inside the service's locked write (the same
transaction as the events): it writes :class:`~.models.Notification` rows, nothing
else. They are sent after the commit by :func:`send_due`, from the server's worker
thread (:func:`start_worker`, woken at each commit) or from ``ronde tick``; never from
inside a game's lock. A sender takes a row with a conditional update (a lease), so two
senders never send it both; a failure is retried with a growing delay, then shown to the
game masters (never dropped silently), and a row's ``key`` is unique (the same cause
writes it once).
"""

from __future__ import annotations

import hashlib
import logging
import threading
from collections.abc import Iterable
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.core import signing
from django.core.mail import EmailMessage
from django.db import close_old_connections, transaction
from django.db.models import Q
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from ronde.engine.clock import LAST_DAY, cutoff_1313, format_time
from ronde.engine.today import deadlines
from ronde.engine.views import view

from . import clocks, delivery, push
from .models import Game, Notification, NotifyAddress, NotifyChoice, PushSubscription, Request

if TYPE_CHECKING:
    from ronde.engine.game import Game as EngineGame

log = logging.getLogger("ronde.notify")

#: how long before a deadline a player is reminded of it
REMIND = timedelta(hours=3)
#: tries before a notification is shown as failed (each later than the last: :func:`backoff`)
MAX_ATTEMPTS = 8
#: how long a sender holds a row it took
LEASE = timedelta(minutes=2)
#: e-mail confirmation links stay valid this long
CONFIRM_DAYS = 3
_SALT = "ronde-notify-email"


def backoff(attempts: int) -> timedelta:
    """The delay before try ``attempts + 1``: 30 s, 1 min, 2 min ... at most one hour."""
    return timedelta(seconds=min(30 * 2 ** max(attempts - 1, 0), 3600))


def email_enabled() -> bool:
    return bool(getattr(settings, "EMAIL_ENABLED", False))


def _digest(*parts: object) -> str:
    return hashlib.sha256("\x1f".join(str(p) for p in parts).encode()).hexdigest()[:48]


# -- facts: what a recipient may know that is worth telling -------------------------------------
def player_facts(eng: EngineGame, pseudo: str) -> dict[str, str]:
    """What the player's own view shows that a notification tells of, by fact key: each
    private message he may read (``message``), each trial against him (``trial``)."""
    g = eng.state
    seat = g.seat_of(pseudo)
    if seat is None:
        return {}
    v = view(g, pseudo)
    out: dict[str, str] = {}
    for m in v["messages"]:
        if not m["public"]:
            key = delivery.fingerprint(seat, m["time"], m["kind"], m["text"])
            out[f"m:{key}"] = "message"
    for t in v["trials"]:
        if pseudo in t["accused"]:
            out[f"t:{t['number']}"] = "trial"
    return out


def due_facts(eng: EngineGame, pseudo: str, now: datetime) -> dict[str, str]:
    """The reminders due at ``now`` for the player, as he knows the game: an obligation of
    his character ending within :data:`REMIND` (``due``), J13 13:13 within it (``j13``)."""
    g = eng.state
    seat = g.seat_of(pseudo)
    if seat is None or g.game_ended:
        return {}
    out: dict[str, str] = {}
    for d in deadlines(g, seat):
        if now < d <= now + REMIND:
            out[f"d:{d.isoformat()}"] = "due"
    cutoff = cutoff_1313(g.start)
    if cutoff - REMIND <= now < cutoff:
        out["j13"] = "j13"
    return out


def _texts(game: Game, kinds: list[str], facts: dict[str, str]) -> tuple[str, str]:
    """The notification's title and body: what waits, never what it says."""
    title = _("Ronde — %(game)s") % {"game": game.name}
    lines = []
    n_messages = sum(1 for k in facts.values() if k == "message")
    if "trial" in kinds:
        lines.append(_("Un Procès est ouvert contre vous."))
    if n_messages:
        lines.append(
            ngettext(
                "Un nouveau message vous attend sur votre page.",
                "%(n)d nouveaux messages vous attendent sur votre page.",
                n_messages,
            )
            % {"n": n_messages}
        )
    if "request" in kinds:
        lines.append(_("Les MJ ont répondu à votre demande."))
    if "due" in kinds:
        ends = sorted(k[2:] for k, v in facts.items() if v == "due")
        when = format_time(game.start, datetime.fromisoformat(ends[0])) if ends else ""
        lines.append(
            _("Une obligation de votre personnage prend fin à %(when)s : voyez votre page.")
            % {"when": when}
        )
    if "j13" in kinds:
        lines.append(
            _("La partie s'arrête le J%(d)d à 13h13 : moins de 3 heures.") % {"d": LAST_DAY}
        )
    if "gm_request" in kinds:
        n = sum(1 for k in facts.values() if k == "gm_request")
        lines.append(
            ngettext(
                "Une demande de joueur attend les MJ.",
                "%(n)d demandes de joueurs attendent les MJ.",
                n,
            )
            % {"n": n}
        )
    if "gm_mp" in kinds:
        lines.append(_("Des messages privés non lus sont à envoyer par MP."))
    return title, " ".join(lines)


def _page(choice: NotifyChoice, kinds: list[str]) -> str:
    slug = choice.game.slug
    if choice.game_master_id is not None:
        if "gm_mp" in kinds and "gm_request" not in kinds:
            return reverse("gm_to_post", args=[slug])
        return reverse("gm_dashboard", args=[slug])
    if "request" in kinds and len(set(kinds)) == 1:
        return reverse("player", args=[slug]) + "#demandes"
    return reverse("player", args=[slug])


# -- the outbox ------------------------------------------------------------------------------
def _tell(choice: NotifyChoice, facts: dict[str, str], now: datetime) -> int:
    """Write one notification a channel for the ``facts`` new to ``choice`` (and remember
    them); returns the rows written. Runs inside the caller's transaction."""
    known = set(choice.known or ())
    new = {k: v for k, v in facts.items() if k not in known}
    if not new:
        return 0
    choice.known = sorted(known | set(new))
    NotifyChoice.objects.filter(pk=choice.pk).update(known=choice.known)
    kinds = sorted(set(new.values()))
    title, body = _texts(choice.game, kinds, new)
    url = _page(choice, kinds)
    cause = _digest(choice.pk, *sorted(new))
    rows = []
    if choice.email and email_enabled():
        address = NotifyAddress.objects.filter(
            user_id=choice.user_id, confirmed_at__isnull=False
        ).first()
        if address is not None:
            rows.append(
                Notification(
                    key=_digest(cause, "email"),
                    game=choice.game,
                    user_id=choice.user_id,
                    channel=Notification.EMAIL,
                    email=address.email,
                    kind=kinds[0],
                    title=title,
                    body=body,
                    url=url,
                    created_at=now,
                    next_try_at=now,
                )
            )
    if choice.push and push.enabled():
        for sub in PushSubscription.objects.filter(user_id=choice.user_id, gone_at__isnull=True):
            rows.append(
                Notification(
                    key=_digest(cause, "push", sub.pk),
                    game=choice.game,
                    user_id=choice.user_id,
                    channel=Notification.PUSH,
                    subscription=sub,
                    kind=kinds[0],
                    title=title,
                    body=body,
                    url=url,
                    created_at=now,
                    next_try_at=now,
                )
            )
    if rows:
        Notification.objects.bulk_create(rows, ignore_conflicts=True)
        transaction.on_commit(wake)
    return len(rows)


def _choices(game: Game, *, players: bool, lock: bool = True) -> list[NotifyChoice]:
    """The choices of ``game``'s players (or game masters) who asked to be told; ``lock``:
    their rows locked until the transaction ends (what each was told is read and grown
    by one writer at a time)."""
    qs = NotifyChoice.objects.filter(game=game).filter(Q(email=True) | Q(push=True))
    if lock:
        qs = qs.select_for_update(of=("self",))
    if players:
        qs = qs.filter(membership__isnull=False, membership__revoked_at__isnull=True)
    else:
        qs = qs.filter(game_master__isnull=False)
    return list(qs.select_related("game", "membership"))


def written(game: Game, eng: EngineGame) -> None:
    """The service's locked write just appended events: write what each player who asked
    to be told may now learn from his own view (same transaction; nothing is sent here).

    A failure here never stops the game's write: it is logged, and what it would have
    told is told at the next write or reminder pass (facts are remembered, not events).
    """
    try:
        with transaction.atomic():  # (a savepoint: a failure undoes only this)
            choices = _choices(game, players=True)
            if not choices:
                return
            now = clocks.now()
            for c in choices:
                assert c.membership is not None
                _tell(c, player_facts(eng, c.membership.pseudo), now)
    except Exception:
        log.exception("notifications of %s not written", game.slug)


def request_answered(req: Request) -> None:
    """The game masters answered ``req``: tell its player (call inside the transaction that
    records the answer)."""
    c = (
        NotifyChoice.objects.filter(game_id=req.game_id, membership_id=req.membership_id)
        .filter(Q(email=True) | Q(push=True))
        .select_for_update(of=("self",))
        .select_related("game")
        .first()
    )
    if c is not None:
        _tell(c, {f"r:{req.pk}": "request"}, clocks.now())


#: a player's requests are told to the game masters once in each such period (their
#: dashboard lists them all): sent, withdrawn and sent again, they would ring the game
#: masters' phones each time
REQUESTS_TOLD_EVERY = timedelta(minutes=15)


def request_received(req: Request) -> None:
    """A player sent ``req``: tell the game masters who asked to be (same transaction),
    once per player and :data:`REQUESTS_TOLD_EVERY`."""
    now = clocks.now()
    period = int(now.timestamp() // REQUESTS_TOLD_EVERY.total_seconds())
    for c in _choices(req.game, players=False):
        _tell(c, {f"q:{req.membership_id}:{period}": "gm_request"}, now)


def start_choice(choice: NotifyChoice, eng: EngineGame | None) -> None:
    """An account turns notifications on: what it can already see is known, not new."""
    if choice.membership is not None and eng is not None:
        facts = player_facts(eng, choice.membership.pseudo)
        choice.known = sorted(set(choice.known or ()) | set(facts))


# -- reminders (the worker and ronde tick) -------------------------------------------------------
def remind(now: datetime | None = None) -> int:
    """Write the reminders due in every game where someone asked to be told: obligations
    ending within 3 hours, J13 13:13 approaching (players), messages due by MP (game
    masters). Each game in its own transaction; returns the rows written."""
    from . import service

    total = 0
    games = Game.objects.filter(started_at__isnull=False, notify_choices__isnull=False).distinct()
    for game in games:
        try:
            eng = service.current(game)  # (applies the timers due: their news is told too)
            game.refresh_from_db()
            t = now or clocks.game_now(game)
            gms = _choices(game, players=False, lock=False)
            due: dict[str, str] = {}
            if gms and game.delivery != Game.PORTAL:
                due = {
                    f"p:{m.key}": "gm_mp"
                    for m in delivery.to_post(game).items
                    if not m.public and m.posting is None
                }
            with transaction.atomic():
                for c in _choices(game, players=True):
                    assert c.membership is not None
                    total += _tell(c, due_facts(eng, c.membership.pseudo, t), clocks.now())
                for c in _choices(game, players=False):
                    total += _tell(c, due, clocks.now())
        except Exception:
            log.exception("reminders of %s not written", game.slug)
    return total


# -- e-mail addresses ---------------------------------------------------------------------------
def confirm_token(user_id: int, email: str) -> str:
    return signing.dumps({"u": user_id, "e": email}, salt=_SALT)


def confirmed(token: str) -> tuple[int, str] | None:
    """The account and address a confirmation link names (``None``: invalid or expired)."""
    try:
        data = signing.loads(token, salt=_SALT, max_age=CONFIRM_DAYS * 24 * 3600)
    except signing.BadSignature:
        return None
    try:
        return int(data["u"]), str(data["e"])
    except (KeyError, TypeError, ValueError):
        return None


#: confirmation e-mails an account may have sent a day (nobody uses the server to write
#: again and again to someone else's address)
CONFIRMATIONS_A_DAY = 3


def may_ask_confirmation(user: Any) -> bool:
    since = clocks.now() - timedelta(days=1)
    sent = Notification.objects.filter(user=user, kind="confirm", created_at__gte=since)
    return sent.count() < CONFIRMATIONS_A_DAY


def ask_confirmation(user: Any, email: str) -> None:
    """Write the e-mail that asks ``user`` to confirm ``email`` (sent by the worker)."""
    now = clocks.now()
    url = reverse("notify_confirm", args=[confirm_token(user.pk, email)])
    earlier = Notification.objects.filter(user=user, kind="confirm").count()  # (a new link)
    Notification.objects.create(
        key=_digest("confirm", user.pk, email, now.isoformat(), earlier),
        user=user,
        channel=Notification.EMAIL,
        email=email,
        kind="confirm",
        title=_("Ronde — confirmez votre adresse"),
        body=_(
            "Pour recevoir les notifications de Ronde à cette adresse, ouvrez ce lien "
            "(valable %(n)d jours). Si vous n'avez rien demandé, ignorez ce message."
        )
        % {"n": CONFIRM_DAYS},
        url=url,
        created_at=now,
        next_try_at=now,
    )
    transaction.on_commit(wake)


# -- sending ------------------------------------------------------------------------------------
def site_url() -> str:
    return str(getattr(settings, "SITE_URL", "") or "http://127.0.0.1:8000")


def _send_one(n: Notification) -> None:
    if n.channel == Notification.EMAIL:
        link = site_url() + n.url
        text = f"{n.body}\n\n{link}\n"
        if n.kind != "confirm":
            text += "\n" + _("Pour ne plus être prévenu : %(url)s") % {
                "url": site_url() + reverse("notify_settings", args=[n.game.slug])
                if n.game is not None
                else site_url()
            }
        EmailMessage(n.title, text, settings.DEFAULT_FROM_EMAIL, [n.email]).send()
        return
    sub = n.subscription
    if sub is None or sub.gone_at is not None:
        raise push.Gone("abonnement retiré")
    push.send(sub.endpoint, sub.p256dh, sub.auth, {"title": n.title, "body": n.body, "url": n.url})


def send_due(limit: int = 100) -> int:
    """Send the notifications due now (each taken by one sender only); returns how many
    were sent. Never call it inside a game's lock."""
    now = clocks.now()
    ids = list(
        Notification.objects.filter(state=Notification.PENDING, next_try_at__lte=now)
        .filter(Q(lease_until__isnull=True) | Q(lease_until__lt=now))
        .order_by("next_try_at", "id")
        .values_list("pk", flat=True)[:limit]
    )
    sent = 0
    for pk in ids:
        taken = (
            Notification.objects.filter(pk=pk, state=Notification.PENDING)
            .filter(Q(lease_until__isnull=True) | Q(lease_until__lt=now))
            .update(lease_until=now + LEASE)
        )
        if not taken:
            continue  # another sender has it
        n = Notification.objects.select_related("subscription", "game").get(pk=pk)
        try:
            _send_one(n)
        except push.Gone as exc:
            if n.subscription_id is not None:
                PushSubscription.objects.filter(pk=n.subscription_id, gone_at__isnull=True).update(
                    gone_at=clocks.now()
                )
            Notification.objects.filter(pk=pk).update(
                state=Notification.DROPPED,
                attempts=n.attempts + 1,
                last_error=_("abonnement expiré (%(why)s)") % {"why": exc},
                lease_until=None,
            )
        except Exception as exc:
            attempts = n.attempts + 1
            failed = attempts >= MAX_ATTEMPTS
            Notification.objects.filter(pk=pk).update(
                state=Notification.FAILED if failed else Notification.PENDING,
                attempts=attempts,
                next_try_at=clocks.now() + backoff(attempts),
                last_error=f"{exc.__class__.__name__} : {exc}"[:500],
                lease_until=None,
            )
            log.warning("notification %s not sent (try %d): %s", pk, attempts, exc)
        else:
            Notification.objects.filter(pk=pk).update(
                state=Notification.SENT,
                attempts=n.attempts + 1,
                sent_at=clocks.now(),
                last_error="",
                lease_until=None,
            )
            sent += 1
    return sent


def retry(game: Game, ids: Iterable[int]) -> int:
    """The game masters ask to try failed notifications of ``game`` again."""
    return Notification.objects.filter(
        game=game, pk__in=list(ids), state=Notification.FAILED
    ).update(state=Notification.PENDING, attempts=0, next_try_at=clocks.now(), lease_until=None)


def problems(game: Game) -> list[Notification]:
    """The game's notifications that failed, or still wait after a failure (newest first)."""
    return list(
        Notification.objects.filter(game=game)
        .filter(
            Q(state__in=(Notification.FAILED, Notification.DROPPED))
            | Q(state=Notification.PENDING, attempts__gt=0)
        )
        .order_by("-created_at", "-id")[:200]
    )


# -- the worker ---------------------------------------------------------------------------------
_wake = threading.Event()
_worker: threading.Thread | None = None
_stop = threading.Event()
#: seconds between two passes without a wake-up, and between two reminder passes
POLL = 1.0
REMIND_EVERY = 60.0


def wake() -> None:
    """A notification was committed: the worker sends it now rather than at its next pass."""
    _wake.set()


def _run() -> None:
    last_remind = 0.0
    import time

    while not _stop.is_set():
        _wake.wait(POLL)
        _wake.clear()
        try:
            if time.monotonic() - last_remind >= REMIND_EVERY:
                last_remind = time.monotonic()
                remind()
            send_due()
        except Exception:
            log.exception("notification worker")
        finally:
            close_old_connections()


def start_worker() -> threading.Thread:
    """Start the server's notification worker (a daemon thread; once per process)."""
    global _worker
    if _worker is None or not _worker.is_alive():
        _stop.clear()
        _worker = threading.Thread(target=_run, name="ronde-notify", daemon=True)
        _worker.start()
    return _worker


def stop_worker() -> None:
    global _worker
    _stop.set()
    _wake.set()
    if _worker is not None:
        _worker.join(timeout=10)
    _worker = None
