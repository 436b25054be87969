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
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    started_at = models.DateTimeField(null=True, blank=True)
    generation = models.PositiveIntegerField(default=0)
    last_seq = models.PositiveIntegerField(default=0)
    #: changes on every write: the key of the in-process cache of replayed games
    version = models.CharField(max_length=32, default="", blank=True)

    class Meta:
        ordering = ("-created_at",)

    def __str__(self) -> str:
        return self.name

    @property
    def started(self) -> bool:
        return self.started_at is not None


class GameMaster(models.Model):
    """A staff account of one game; ``name`` is the game master's name in the engine."""

    game = models.ForeignKey(Game, on_delete=models.PROTECT, related_name="game_masters")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
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

    ``replace_player`` revokes the old membership (``revoked_at``) and creates one
    for the new pseudo; the seat keeps its character, points and history.
    """

    game = models.ForeignKey(Game, on_delete=models.PROTECT, related_name="memberships")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
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
    """A one-use link that sets an account's password."""

    token = models.CharField(max_length=64, unique=True, default=new_token)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    game = models.ForeignKey(Game, on_delete=models.PROTECT, related_name="invitations")
    created_at = models.DateTimeField(auto_now_add=True)
    used_at = models.DateTimeField(null=True, blank=True)


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

    game = models.ForeignKey(Game, on_delete=models.PROTECT, related_name="actions")
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

    def command_args(self) -> dict[str, Any]:
        return dict(self.args)


class Strike(models.Model):
    """A recorded action struck out by a game master, with the reason (never deleted)."""

    game = models.ForeignKey(Game, on_delete=models.PROTECT, related_name="strikes")
    action = models.ForeignKey(Action, on_delete=models.PROTECT, related_name="strikes")
    reason = models.TextField()
    by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    at = models.DateTimeField()
    generation = models.PositiveIntegerField(help_text="the generation it created")


class Event(models.Model):
    """One engine event (``ronde.engine.events.to_json``), append-only.

    ``(game, seq)`` is unique: two writers that read the same last ``seq`` cannot
    both append. ``action`` is the recorded action that produced it, or ``None``
    for the game's creation and the engine's timers (deadlines, ends of days).
    """

    game = models.ForeignKey(Game, on_delete=models.PROTECT, related_name="events")
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
