# ruff: noqa: RUF012  (Django's migration API)
"""Accounts you can trust (issue 9): seats linked to an account only by accepting their
invitation; invitations bound to a seat, single-use, expiring, revocable; the
``games.organise`` permission; one-time form tokens.

Invitations of the old kind (a password for an account matched by name) are bound to
the seat of their account and expire 14 days after their creation.
"""

from datetime import timedelta

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


def bind_old_invitations(apps, schema_editor):  # type: ignore[no-untyped-def]
    Invitation = apps.get_model("games", "Invitation")
    Membership = apps.get_model("games", "Membership")
    GameMaster = apps.get_model("games", "GameMaster")
    for inv in Invitation.objects.all():
        inv.expires_at = inv.created_at + timedelta(days=14)
        member = (
            Membership.objects.filter(game_id=inv.game_id, user_id=inv.user_id)
            .order_by("-created_at")
            .first()
        )
        if member is not None:
            inv.membership_id = member.pk
        else:
            gm = GameMaster.objects.filter(game_id=inv.game_id, user_id=inv.user_id).first()
            if gm is None:
                inv.delete()  # a link to no seat: nothing it could give
                continue
            inv.game_master_id = gm.pk
        if inv.used_at is not None:
            inv.accepted_by_id = inv.user_id
        inv.save()


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0004_gmforms"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AlterModelOptions(
            name="game",
            options={
                "ordering": ("-created_at",),
                "permissions": (("organise", "Peut créer des parties"),),
            },
        ),
        migrations.AlterField(
            model_name="gamemaster",
            name="user",
            field=models.ForeignKey(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="+",
                to=settings.AUTH_USER_MODEL,
            ),
        ),
        migrations.AlterField(
            model_name="membership",
            name="user",
            field=models.ForeignKey(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="+",
                to=settings.AUTH_USER_MODEL,
            ),
        ),
        migrations.AddField(
            model_name="invitation",
            name="membership",
            field=models.ForeignKey(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="invitations",
                to="games.membership",
            ),
        ),
        migrations.AddField(
            model_name="invitation",
            name="game_master",
            field=models.ForeignKey(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="invitations",
                to="games.gamemaster",
            ),
        ),
        migrations.AddField(
            model_name="invitation",
            name="expires_at",
            field=models.DateTimeField(null=True),
        ),
        migrations.AddField(
            model_name="invitation",
            name="accepted_by",
            field=models.ForeignKey(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="+",
                to=settings.AUTH_USER_MODEL,
            ),
        ),
        migrations.AddField(
            model_name="invitation",
            name="revoked_at",
            field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.RunPython(bind_old_invitations, migrations.RunPython.noop),
        migrations.AlterField(
            model_name="invitation",
            name="expires_at",
            field=models.DateTimeField(),
        ),
        migrations.RemoveField(model_name="invitation", name="user"),
        migrations.AddConstraint(
            model_name="invitation",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    models.Q(("game_master__isnull", True), ("membership__isnull", False)),
                    models.Q(("game_master__isnull", False), ("membership__isnull", True)),
                    _connector="OR",
                ),
                name="invitation_one_seat",
            ),
        ),
        migrations.CreateModel(
            name="FormSubmission",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("token", models.CharField(max_length=64, unique=True)),
                ("path", models.CharField(max_length=300)),
                ("created_at", models.DateTimeField(auto_now_add=True)),
                ("done", models.BooleanField(default=False)),
                ("target", models.CharField(blank=True, max_length=500)),
                (
                    "user",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
            ],
        ),
    ]
