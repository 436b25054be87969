"""What the web app stores: games, their append-only event log, the actions that
produced it, strikes, players' requests, accounts and invitations.

Nothing is ever deleted. A game's log is the events of its current
``generation``; correcting the game (striking a recorded action, or inserting
one in the past) rebuilds it from ``GameCreated`` and the recorded actions and
appends the rebuilt log as a new generation, keeping the old one.
"""

from __future__ import annotations

import secrets
from typing import Any

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _


def new_token() -> str:
    return secrets.token_urlsafe(24)


class Game(models.Model):
    """A game. Before it starts it is a draft (roster, cast, Ronde, options)."""

    slug = models.SlugField(max_length=60, unique=True)
    name = models.CharField(max_length=120)
    start = models.DateField(help_text="J1")
    options = models.JSONField(default=dict, blank=True)
    roster = models.JSONField(default=list, blank=True)
    cast = models.JSONField(default=dict, blank=True)
    ronde = models.JSONField(default=list, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    #: the organiser who created it in the console (none from the command line)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    started_at = models.DateTimeField(null=True, blank=True)
    generation = models.PositiveIntegerField(default=0)
    last_seq = models.PositiveIntegerField(default=0)
    #: changes on every write: the key of the in-process cache of replayed games
    version = models.CharField(max_length=32, default="", blank=True)
    #: whose "now" the game lives in: the wall clock, or its own (rehearsals, demos, tests)
    WALL, MANUAL = "wall", "manual"
    CLOCKS = ((WALL, _("horloge réelle")), (MANUAL, _("horloge manuelle")))
    clock = models.CharField(max_length=6, choices=CLOCKS, default=WALL)
    #: a ``manual`` game's now (moved by ``ronde advance`` or an action recorded later)
    clock_at = models.DateTimeField(null=True, blank=True)
    #: Sign in with Eternaltwin (``etwin_links``): a seat proposed by a display name is
    #: linked at once, without the game masters' confirmation
    etwin_auto = models.BooleanField(default=False)
    #: players' invitations are accepted only by accounts linked to Eternaltwin
    etwin_only = models.BooleanField(default=False)
    #: how private messages reach their recipients (a setting of the game, not a house
    #: rule): the portal only; the portal, then an MP for whoever has not seen his message
    #: ``delivery_delay`` hours after it; or an MP for each, as on the forum alone
    PORTAL, PORTAL_THEN_MP, MP = "portal", "portal_mp", "mp"
    DELIVERIES = (
        (PORTAL, _("par le portail seulement")),
        (PORTAL_THEN_MP, _("par le portail, puis par MP s'il n'a pas été lu à temps")),
        (MP, _("par MP, comme sur le forum seul")),
    )
    delivery = models.CharField(max_length=10, choices=DELIVERIES, default=PORTAL_THEN_MP)
    delivery_delay = models.PositiveSmallIntegerField(default=6, help_text="heures")

    class Meta:
        ordering = ("-created_at",)
        # ``games.organise``: may create games (the superuser has it and grants it)
        permissions = (("organise", "Peut créer des parties"),)

    def __str__(self) -> str:
        return self.name

    @property
    def started(self) -> bool:
        return self.started_at is not None


class GameMaster(models.Model):
    """A staff seat of one game; ``name`` is the game master's name in the engine.
    ``user`` is empty until someone accepts the seat's invitation."""

    game = models.ForeignKey(Game, on_delete=models.PROTECT, related_name="game_masters")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    name = models.CharField(max_length=60)

    class Meta:
        constraints = (
            models.UniqueConstraint(fields=["game", "user"], name="gm_once_per_game"),
            models.UniqueConstraint(fields=["game", "name"], name="gm_name_once_per_game"),
        )

    def __str__(self) -> str:
        return f"{self.name} ({self.game})"


class Membership(models.Model):
    """A player's account in one game: the pseudo the engine knows him by.

    ``user`` is empty until someone accepts the seat's invitation (an account is never
    matched by name). ``replace_player`` revokes the old membership (``revoked_at``)
    and creates one for the new pseudo; the seat keeps its character, points and history.
    """

    game = models.ForeignKey(Game, on_delete=models.PROTECT, related_name="memberships")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    pseudo = models.CharField(max_length=60)
    created_at = models.DateTimeField(auto_now_add=True)
    revoked_at = models.DateTimeField(null=True, blank=True)
    revoked_reason = models.CharField(max_length=200, blank=True)
    #: the player's last look at his page, and the visit before it (what is "new")
    last_visit = models.DateTimeField(null=True, blank=True)
    visit_before = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ("pseudo",)

    def __str__(self) -> str:
        return f"{self.pseudo} ({self.game})"

    @property
    def active(self) -> bool:
        return self.revoked_at is None


class Invitation(models.Model):
    """A link to one seat of a game (a player's ``membership`` or a ``game_master``).

    Whoever accepts it first takes the seat: a visitor creates an account there, a
    logged-in user accepts it onto his own account. It never sets the password of an
    existing account. Single use (``used_at`` is set by one conditional UPDATE), it
    expires (``expires_at``) and is revoked when a newer one is issued for the seat or
    the seat is replaced.
    """

    token = models.CharField(max_length=64, unique=True, default=new_token)
    game = models.ForeignKey(Game, on_delete=models.PROTECT, related_name="invitations")
    membership = models.ForeignKey(
        Membership, null=True, blank=True, on_delete=models.PROTECT, related_name="invitations"
    )
    game_master = models.ForeignKey(
        GameMaster, null=True, blank=True, on_delete=models.PROTECT, related_name="invitations"
    )
    #: the service's now (``clocks.now``), set by ``accounts._issue``: the expiry reads it too
    created_at = models.DateTimeField(default=timezone.now)
    expires_at = models.DateTimeField()
    used_at = models.DateTimeField(null=True, blank=True)
    accepted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = (
            models.CheckConstraint(
                condition=models.Q(membership__isnull=False, game_master__isnull=True)
                | models.Q(membership__isnull=True, game_master__isnull=False),
                name="invitation_one_seat",
            ),
        )


class FormSubmission(models.Model):
    """A one-time form submission already posted (``token``: a digest of the form's
    token, path and fields), and where its first answer sent the user (the same
    submission again records nothing and goes there)."""

    token = models.CharField(max_length=64, unique=True)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    path = models.CharField(max_length=300)
    created_at = models.DateTimeField(auto_now_add=True)
    done = models.BooleanField(default=False)
    target = models.CharField(max_length=500, blank=True)


class Request(models.Model):
    """A player's request to the game masters (a power, an anonymous complaint ...).

    A game master accepts it (the command is executed as the player at
    ``created_at``: the time the game masters received it) or refuses it.
    """

    PENDING, ACCEPTED, REFUSED, WITHDRAWN = "pending", "accepted", "refused", "withdrawn"
    STATUSES = (
        (PENDING, _("en attente")),
        (ACCEPTED, _("acceptée")),
        (REFUSED, _("refusée")),
        (WITHDRAWN, _("retirée")),
    )

    game = models.ForeignKey(Game, on_delete=models.PROTECT, related_name="requests")
    membership = models.ForeignKey(Membership, on_delete=models.PROTECT, related_name="requests")
    action = models.CharField(max_length=40)
    args = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField()
    status = models.CharField(max_length=10, choices=STATUSES, default=PENDING)
    message = models.TextField(blank=True)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    decided_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ("-created_at",)


class Action(models.Model):
    """A command recorded by a game master (or accepted from a player's request).

    ``outcome`` is its fate in the current generation: ``applied`` or ``refused``
    (a later correction made it impossible; ``message`` says why).
    """

    #: (no index of its own: ``(game, at)`` below leads with it)
    game = models.ForeignKey(Game, on_delete=models.PROTECT, related_name="actions", db_index=False)
    action = models.CharField(max_length=40)
    by = models.CharField(max_length=60)
    at = models.DateTimeField()
    args = models.JSONField(default=dict, blank=True)
    note = models.TextField(blank=True, help_text="note des MJ (jamais montrée aux joueurs)")
    recorded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    recorded_at = models.DateTimeField()
    request = models.ForeignKey(
        Request, null=True, blank=True, on_delete=models.PROTECT, related_name="actions"
    )
    struck = models.BooleanField(default=False)
    outcome = models.CharField(max_length=10, default="applied")
    message = models.TextField(blank=True)

    class Meta:
        ordering = ("at", "id")
        indexes = (
            # a correction reads the actions at or after its instant (a day, not the game)
            models.Index(fields=["game", "at"], name="action_by_game_at"),
            # the constraint verdicts (the dashboard's to-do list and constraint list) are
            # read by name in time order: a few rows a day, not the game's every award
            models.Index(fields=["game", "action", "at"], name="action_by_game_name"),
        )

    def command_args(self) -> dict[str, Any]:
        return dict(self.args)


class Strike(models.Model):
    """A recorded action struck out by a game master, with the reason (never deleted)."""

    game = models.ForeignKey(Game, on_delete=models.PROTECT, related_name="strikes")
    action = models.ForeignKey(Action, on_delete=models.PROTECT, related_name="strikes")
    reason = models.TextField()
    #: the game master's account (none for a strike from the command line or an import)
    by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    at = models.DateTimeField()
    generation = models.PositiveIntegerField(help_text="the generation it created")


class Event(models.Model):
    """One engine event (``ronde.engine.events.to_json``), append-only.

    ``(game, seq)`` is unique: two writers that read the same last ``seq`` cannot
    both append. ``action`` is the recorded action that produced it, or ``None``
    for the game's creation and the engine's timers (deadlines, ends of days).
    """

    #: (no index of its own: the unique ``(game, seq)`` leads with it, and every index
    #: costs each of a correction's copied rows)
    game = models.ForeignKey(Game, on_delete=models.PROTECT, related_name="events", db_index=False)
    seq = models.PositiveIntegerField()
    generation = models.PositiveIntegerField()
    type = models.CharField(max_length=40)
    at = models.DateTimeField()
    data = models.JSONField()
    action = models.ForeignKey(
        Action, null=True, blank=True, on_delete=models.PROTECT, related_name="events"
    )
    recorded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    recorded_at = models.DateTimeField()

    class Meta:
        ordering = ("seq",)
        constraints = (
            models.UniqueConstraint(fields=["game", "seq"], name="one_event_per_game_seq"),
        )
        indexes = (models.Index(fields=["game", "generation", "seq"]),)


class Generation(models.Model):
    """A rebuilt log: its first ``shared`` events are those of the previous generation,
    the rest are its own ``Event`` rows (so a correction near the end writes little)."""

    game = models.ForeignKey(Game, on_delete=models.PROTECT, related_name="generations")
    number = models.PositiveIntegerField()
    shared = models.PositiveIntegerField()
    created_at = models.DateTimeField()

    class Meta:
        constraints = (
            models.UniqueConstraint(fields=["game", "number"], name="one_generation_number"),
        )


class Posting(models.Model):
    """A message of "À poster" marked posted on the forum or sent by MP: by whom, when.

    ``key`` identifies the message (its time, kind, recipients and text), so a
    correction that changes a message makes it a new one to post."""

    game = models.ForeignKey(Game, on_delete=models.PROTECT, related_name="postings")
    key = models.CharField(max_length=64)
    label = models.CharField(max_length=200, blank=True)
    posted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    posted_at = models.DateTimeField()

    class Meta:
        ordering = ("posted_at",)
        constraints = (
            models.UniqueConstraint(fields=["game", "key"], name="one_posting_per_message"),
        )


class ForumTemplate(models.Model):
    """A game's own version of a forum template (``<kind>.txt``); the latest row of a
    name wins, an empty text goes back to the default. Rows are never deleted."""

    game = models.ForeignKey(Game, on_delete=models.PROTECT, related_name="forum_templates")
    name = models.CharField(max_length=60)
    text = models.TextField(blank=True)
    saved_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    saved_at = models.DateTimeField()

    class Meta:
        ordering = ("name", "saved_at", "id")


class TodoMark(models.Model):
    """A game master took a to-do item of the dashboard, or ticked it off; the others
    see it. ``key`` names the item (day, kind, player, action and its arguments)."""

    game = models.ForeignKey(Game, on_delete=models.PROTECT, related_name="todo_marks")
    key = models.CharField(max_length=64)
    day = models.PositiveSmallIntegerField()
    text = models.CharField(max_length=300, blank=True)
    taken_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    taken_at = models.DateTimeField(null=True, blank=True)
    done_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    done_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = (models.UniqueConstraint(fields=["game", "key"], name="one_mark_per_item"),)


class ConstraintHint(models.Model):
    """What a forum helper suggested for one player's constraint on one day, read from
    pasted pages (the dashboard's list of the day's constraints shows the latest):
    ``met`` (``None``: the pages cannot settle it, to check), its text and evidence.
    A suggestion, never a verdict: the game masters judge."""

    game = models.ForeignKey(Game, on_delete=models.PROTECT, related_name="constraint_hints")
    player = models.CharField(max_length=60)
    day = models.PositiveSmallIntegerField()
    met = models.BooleanField(null=True, blank=True)
    text = models.TextField(blank=True)
    evidence = models.JSONField(default=list, blank=True)
    read_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    read_at = models.DateTimeField()

    class Meta:
        ordering = ("read_at", "id")
        indexes = (models.Index(fields=["game", "day"], name="hint_by_game_day"),)


class EternaltwinLink(models.Model):
    """A Ronde account's Eternaltwin account: its user id (a uuid, which never changes),
    never its display name alone (names change and can be imitated).

    One link per account and per Eternaltwin id at a time; unlinking sets
    ``unlinked_at`` (the row is kept), after which either may be linked again.
    ``display_name`` is the name Eternaltwin gave at the last sign-in (shown to the MJs).
    """

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="eternaltwin_links"
    )
    etwin_id = models.UUIDField()
    display_name = models.CharField(max_length=100)
    linked_at = models.DateTimeField()
    seen_at = models.DateTimeField()
    unlinked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = (
            models.UniqueConstraint(
                fields=["etwin_id"],
                condition=models.Q(unlinked_at__isnull=True),
                name="etwin_id_linked_once",
            ),
            models.UniqueConstraint(
                fields=["user"],
                condition=models.Q(unlinked_at__isnull=True),
                name="etwin_one_link_per_account",
            ),
        )


class SeatClaim(models.Model):
    """A player's seat proposed to an Eternaltwin account whose display name is the seat's
    pseudo: it waits for the game masters (``pending``), who confirm or refuse it; it is
    ``confirmed`` at once in a game that links without confirmation, or when the same
    account accepts the seat's invitation; ``void`` when the seat went to someone else or
    the account was unlinked. At most one pending claim per seat."""

    PENDING, CONFIRMED, REFUSED, VOID = "pending", "confirmed", "refused", "void"
    STATUSES = (
        (PENDING, _("en attente des MJ")),
        (CONFIRMED, _("confirmée")),
        (REFUSED, _("refusée par les MJ")),
        (VOID, _("annulée")),
    )

    game = models.ForeignKey(Game, on_delete=models.PROTECT, related_name="seat_claims")
    membership = models.ForeignKey(Membership, on_delete=models.PROTECT, related_name="claims")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    etwin_id = models.UUIDField()
    display_name = models.CharField(max_length=100)
    created_at = models.DateTimeField()
    status = models.CharField(max_length=10, choices=STATUSES, default=PENDING)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    decided_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ("created_at", "id")
        constraints = (
            models.UniqueConstraint(
                fields=["membership"],
                condition=models.Q(status="pending"),
                name="one_pending_claim_per_seat",
            ),
        )


class Receipt(models.Model):
    """A private message seen by its recipient: he opened his page while it showed it.

    ``key`` identifies the message as his view shows it (:func:`.delivery.fingerprint`:
    his seat, its time, kind and text); ``seen_at`` is the game's now then (game time),
    ``recorded_at`` the wall clock. The first look is kept."""

    game = models.ForeignKey(Game, on_delete=models.PROTECT, related_name="receipts")
    membership = models.ForeignKey(Membership, on_delete=models.PROTECT, related_name="receipts")
    key = models.CharField(max_length=40)
    seen_at = models.DateTimeField()
    recorded_at = models.DateTimeField()

    class Meta:
        constraints = (
            models.UniqueConstraint(fields=["membership", "key"], name="one_receipt_per_message"),
        )
        indexes = (models.Index(fields=["game", "key"]),)


class NotifyChoice(models.Model):
    """One account asking to be told of what concerns it in one game (a player's seat or
    a game master's), by e-mail and/or Web Push.

    ``known``: what the account was already told or shown (fact keys of
    :mod:`.notify`): a notification is made only for what is new to it."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    game = models.ForeignKey(Game, on_delete=models.PROTECT, related_name="notify_choices")
    membership = models.ForeignKey(
        Membership, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    game_master = models.ForeignKey(
        GameMaster, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    email = models.BooleanField(default=False)
    push = models.BooleanField(default=False)
    known = models.JSONField(default=list, blank=True)
    updated_at = models.DateTimeField()

    class Meta:
        constraints = (
            models.UniqueConstraint(fields=["user", "game"], name="one_notify_choice_per_game"),
        )


class NotifyAddress(models.Model):
    """An account's e-mail address for notifications, used once confirmed (a link sent
    to it): nobody makes the server write to someone else's address."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="notify_address"
    )
    email = models.EmailField()
    confirmed_at = models.DateTimeField(null=True, blank=True)
    updated_at = models.DateTimeField()


class PushSubscription(models.Model):
    """A browser's Web Push subscription (its push service's ``endpoint`` and the keys
    the payload is encrypted to). ``gone_at``: the push service said it no longer exists."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    endpoint = models.CharField(max_length=1000, unique=True)
    p256dh = models.CharField(max_length=200)
    auth = models.CharField(max_length=100)
    created_at = models.DateTimeField()
    gone_at = models.DateTimeField(null=True, blank=True)


class Notification(models.Model):
    """The outbox: one message to send to one account by one channel, written in the same
    transaction as what causes it and sent after the commit by the server's worker or
    ``ronde tick`` (:mod:`.notify`). ``key`` makes it once: the same cause writes nothing
    the second time. Never deleted: a failure stays visible to the game masters."""

    PENDING, SENT, FAILED, DROPPED = "pending", "sent", "failed", "dropped"
    STATES = (
        (PENDING, _("à envoyer")),
        (SENT, _("envoyée")),
        (FAILED, _("échec")),
        (DROPPED, _("abandonnée")),
    )
    EMAIL, PUSH = "email", "push"
    CHANNELS = ((EMAIL, _("e-mail")), (PUSH, _("notification")))

    key = models.CharField(max_length=64, unique=True)
    game = models.ForeignKey(
        Game, null=True, blank=True, on_delete=models.PROTECT, related_name="notifications"
    )
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    channel = models.CharField(max_length=5, choices=CHANNELS)
    subscription = models.ForeignKey(
        PushSubscription, null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    email = models.CharField(max_length=254, blank=True)
    #: what it is about (``message``, ``trial``, ``request``, ``due``, ``j13``, ...)
    kind = models.CharField(max_length=20)
    title = models.CharField(max_length=200)
    body = models.TextField()
    #: the page it links to (a path of this site)
    url = models.CharField(max_length=300)
    created_at = models.DateTimeField()
    state = models.CharField(max_length=8, choices=STATES, default=PENDING)
    attempts = models.PositiveSmallIntegerField(default=0)
    next_try_at = models.DateTimeField()
    #: a sender holds it until then (two senders never send it both)
    lease_until = models.DateTimeField(null=True, blank=True)
    sent_at = models.DateTimeField(null=True, blank=True)
    last_error = models.TextField(blank=True)

    class Meta:
        ordering = ("created_at", "id")
        indexes = (models.Index(fields=["state", "next_try_at"]),)
