"""Notifications with real parts (issue 24): a local SMTP server receives the e-mails, a
local push service receives the pushes and the test decrypts them with the browser's
keys; the outbox is written with the events, sent after the commit, once; a failure is
retried and shown to the game masters; a notification says only that something waits."""

from __future__ import annotations

import html
import re
from datetime import timedelta
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from ronde.web.games import notify, push, service
from ronde.web.games.models import Notification, NotifyChoice, PushSubscription

from .conftest import World, gm_client
from .notify_parts import BrowserKeys, push_service, smtp_server, vapid_signed_by

EXTRAS = ["Ida", "Jo", "Kim", "Lou", "Max", "Ned"]


@pytest.fixture
def parts(settings: Any) -> Any:
    """An SMTP server and a push service on 127.0.0.1, the settings pointing at them."""
    with smtp_server() as smtp, push_service() as pushes:
        settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
        settings.EMAIL_HOST = "127.0.0.1"
        settings.EMAIL_PORT = smtp.port
        settings.EMAIL_ENABLED = True
        settings.EMAIL_TIMEOUT = 5
        settings.PUSH_HOSTS = ["127.0.0.1"]
        settings.SITE_URL = "http://ronde.test"
        yield smtp, pushes


def _hidden(page: str) -> dict[str, str]:
    return {
        k: html.unescape(v)
        for k, v in re.findall(r'type="hidden" name="([^"]+)" value="([^"]*)"', page)
        if k != "csrfmiddlewaretoken"
    }


def turn_on(world: World, pseudo: str, smtp: Any, pushes: Any) -> tuple[Client, BrowserKeys]:
    """``pseudo`` asks to be told by e-mail and push (his address confirmed by the link
    mailed to him, this browser subscribed)."""
    c = Client()
    user = world.users.get(pseudo) or world.gms[pseudo]
    c.force_login(user)
    url = reverse("notify_settings", args=[world.game.slug])
    page = c.get(url).content.decode()
    address = f"{pseudo.lower()}@example.org"
    r = c.post(url, {**_hidden(page), "email_address": address, "email": "on", "push": "on"})
    assert r.status_code == 302
    before = len(smtp.mails)
    notify.send_due()
    assert len(smtp.mails) == before + 1, "the confirmation e-mail"
    link = re.search(r"http://ronde\.test(/\S+)", smtp.mails[-1].text)
    assert link is not None and smtp.mails[-1].to == [address]
    assert "confirmée" in c.get(link.group(1)).content.decode()
    keys = BrowserKeys()
    r = c.post(
        reverse("notify_push"),
        keys.subscription(pushes.url(pseudo)),
        content_type="application/json",
    )
    assert r.status_code == 200, r.content
    return c, keys


def _theme_by_form(world: World, day: str = "2", theme: str = "la pluie") -> tuple[Client, dict]:
    mj = gm_client(Client(), world)
    url = reverse("gm_action", args=[world.game.slug, "set_theme"])
    form = {**_hidden(mj.get(url).content.decode()), "day": day, "theme": theme}
    r = mj.post(url, form)
    assert r.status_code == 302
    return mj, form


def test_a_player_is_told_once_by_email_and_push_and_the_push_decrypts(
    world: World, clock: Any, parts: Any
) -> None:
    smtp, pushes = parts
    clock("J2 09:00")
    _c, keys = turn_on(world, "Ida", smtp, pushes)
    mails = len(smtp.mails)
    clock("J2 10:00")
    mj, form = _theme_by_form(world)
    # written with the events, not sent yet
    waiting = Notification.objects.filter(user=world.users["Ida"], state=Notification.PENDING)
    assert sorted(waiting.values_list("channel", flat=True)) == ["email", "push"]
    assert notify.send_due() == 2
    assert len(smtp.mails) == mails + 1 and len(pushes.pushes) == 1
    mail = smtp.mails[-1]
    assert mail.to == ["ida@example.org"]
    assert "Un nouveau message vous attend sur votre page." in mail.text
    assert "http://ronde.test/partie/ronde-test/moi/" in mail.text
    data = keys.decrypt(pushes.pushes[0].body)  # as the browser reads it
    assert data == {
        "title": "Ronde — Partie de test",
        "body": "Un nouveau message vous attend sur votre page.",
        "url": "/partie/ronde-test/moi/",
    }
    assert vapid_signed_by(pushes.pushes[0], push.public_key())
    # no secret: not the theme, not "Extra", nobody else's name
    for text in (mail.subject, mail.text, str(data)):
        for secret in ("pluie", "Thème", "Figurant", "Jo", "Kim", "Lou"):
            assert secret not in text.replace("Joueur", ""), (secret, text)
    # the same form submitted again records nothing, sends nothing
    mj.post(reverse("gm_action", args=[world.game.slug, "set_theme"]), form)
    notify.send_due()
    assert len(smtp.mails) == mails + 1 and len(pushes.pushes) == 1
    # nobody else was told (nobody else asked)
    assert Notification.objects.exclude(user=world.users["Ida"]).count() == 0


def test_what_he_could_already_see_is_not_news(world: World, clock: Any, parts: Any) -> None:
    smtp, pushes = parts
    clock("J2 10:00")
    _theme_by_form(world)
    turn_on(world, "Ida", smtp, pushes)
    clock("J2 11:00")
    service.record(world.game, world.gms["Mj"], "award", "Mj", {"player": "Ida", "points": 1})
    assert not Notification.objects.filter(kind="message").exists()


def test_a_refused_command_writes_no_notification(world: World, clock: Any, parts: Any) -> None:
    smtp, pushes = parts
    turn_on(world, "Ida", smtp, pushes)
    clock("J2 10:00")
    out = service.record(world.game, None, "set_theme", "Mj", {"day": 99, "theme": "x"})
    assert not out.ok
    assert not Notification.objects.exclude(kind="confirm").exists()


def test_request_answers_and_requests_reach_the_right_people(
    world: World, clock: Any, parts: Any
) -> None:
    smtp, pushes = parts
    clock("J2 09:00")
    ana, keys = turn_on(world, "Ana", smtp, pushes)
    _mj_c, mj_keys = turn_on(world, "Mj", smtp, pushes)
    r = ana.post(
        reverse("player_request", args=[world.game.slug, "guess_ronde"]),
        {"order": "alice, woody"},
    )
    assert r.status_code == 302
    notify.send_due()
    told = [p for p in pushes.pushes if p.path.endswith("/Mj")]
    assert len(told) == 1
    assert mj_keys.decrypt(told[0].body)["body"] == "Une demande de joueur attend les MJ."
    req = world.member("Ana").requests.get()
    mj = gm_client(Client(), world)
    url = reverse("gm_request", args=[world.game.slug, req.pk, "refuse"])
    mj.post(url, {"reason": "non"})
    mj.post(url, {"reason": "non"})  # twice: "déjà traitée", nothing more
    notify.send_due()
    ana_pushes = [p for p in pushes.pushes if p.path.endswith("/Ana")]
    assert len(ana_pushes) == 1
    data = keys.decrypt(ana_pushes[0].body)
    assert data["body"] == "Les MJ ont répondu à votre demande."
    assert data["url"].endswith("/moi/#demandes")
    assert "non" not in data["body"]  # the reason is on his page, not in the notification


def test_a_failed_send_is_retried_with_backoff_then_shown_to_the_gms(
    world: World, clock: Any, parts: Any, settings: Any
) -> None:
    smtp, pushes = parts
    clock("J2 09:00")
    turn_on(world, "Ida", smtp, pushes)
    settings.EMAIL_PORT = 1  # nothing listens there
    pushes.status = 500
    clock("J2 10:00")
    _theme_by_form(world)
    assert notify.send_due() == 0
    rows = list(Notification.objects.filter(kind="message"))
    assert {n.attempts for n in rows} == {1}
    assert all(n.state == Notification.PENDING and n.last_error for n in rows)
    assert notify.send_due() == 0  # not due again before its delay
    assert {n.attempts for n in Notification.objects.filter(kind="message")} == {1}
    t = service.now()
    for _i in range(notify.MAX_ATTEMPTS - 1):
        t += timedelta(hours=2)
        service.set_clock(t)
        notify.send_due()
    assert set(Notification.objects.filter(kind="message").values_list("state", flat=True)) == {
        Notification.FAILED
    }
    page = gm_client(Client(), world).get(reverse("gm_delivery", args=[world.game.slug]))
    text = html.unescape(page.content.decode())
    assert "Réessayer les notifications en échec" in text and "échec" in text
    # the servers are back: the game masters try again, each is sent once
    settings.EMAIL_PORT = smtp.port
    pushes.status = 201
    mails = len(smtp.mails)
    mj = gm_client(Client(), world)
    ids = list(Notification.objects.filter(kind="message").values_list("pk", flat=True))
    mj.post(
        reverse("gm_delivery", args=[world.game.slug]), {"op": "retry", "pk": [str(i) for i in ids]}
    )
    assert notify.send_due() == 2
    assert len(smtp.mails) == mails + 1
    assert notify.send_due() == 0


def test_a_subscription_the_push_service_forgot_is_dropped(
    world: World, clock: Any, parts: Any
) -> None:
    smtp, pushes = parts
    clock("J2 09:00")
    turn_on(world, "Ida", smtp, pushes)
    pushes.status = 410
    clock("J2 10:00")
    _theme_by_form(world)
    notify.send_due()
    n = Notification.objects.get(kind="message", channel="push")
    assert n.state == Notification.DROPPED
    assert PushSubscription.objects.get().gone_at is not None


@pytest.mark.django_db(transaction=True)
def test_two_senders_never_send_the_same_notification(world: World, clock: Any, parts: Any) -> None:
    import threading

    smtp, pushes = parts
    clock("J2 09:00")
    turn_on(world, "Ida", smtp, pushes)
    clock("J2 10:00")
    _theme_by_form(world)
    results: list[int] = []
    threads = [threading.Thread(target=lambda: results.append(notify.send_due())) for _ in "ab"]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert sum(results) == 2 and len(pushes.pushes) == 1


def test_deadline_and_j13_reminders_from_the_game_as_he_knows_it(
    world: World, clock: Any, parts: Any
) -> None:
    smtp, pushes = parts
    clock("J2 09:00")
    _c, keys = turn_on(world, "Ida", smtp, pushes)
    clock("J2 20:00")
    notify.remind()
    assert not Notification.objects.filter(kind="due").exists()  # four hours before: not yet
    clock("J2 21:30")
    notify.remind()
    notify.remind()  # twice: once
    notify.send_due()
    due = [keys.decrypt(p.body)["body"] for p in pushes.pushes]
    assert due == ["Une obligation de votre personnage prend fin à J3 00:00 : voyez votre page."]
    clock("J13 10:30")
    notify.remind()
    notify.send_due()
    last = keys.decrypt(pushes.pushes[-1].body)["body"]
    assert "La partie s'arrête le J13 à 13h13" in last


def test_turning_off_stops_the_notifications(world: World, clock: Any, parts: Any) -> None:
    smtp, pushes = parts
    c, _keys = turn_on(world, "Ida", smtp, pushes)
    url = reverse("notify_settings", args=[world.game.slug])
    c.post(url, {**_hidden(c.get(url).content.decode()), "email_address": "ida@example.org"})
    choice = NotifyChoice.objects.get(user=world.users["Ida"])
    assert not choice.email and not choice.push
    clock("J2 10:00")
    _theme_by_form(world)
    assert not Notification.objects.exclude(kind="confirm").exists()


def test_an_unknown_push_service_is_refused(world: World, settings: Any) -> None:
    """The server posts to an endpoint: only the browsers' push services (no SSRF)."""
    settings.PUSH_HOSTS = []
    c = Client()
    c.force_login(world.users["Ida"])
    keys = BrowserKeys()
    for endpoint in (
        "http://127.0.0.1:8000/x",
        "https://intranet.example.org/push",
        "http://fcm.googleapis.com/fcm/send/x",
        "https://user:pw@fcm.googleapis.com/x",
    ):
        r = c.post(
            reverse("notify_push"), keys.subscription(endpoint), content_type="application/json"
        )
        assert r.status_code == 400, endpoint
    r = c.post(
        reverse("notify_push"),
        keys.subscription("https://fcm.googleapis.com/fcm/send/abc"),
        content_type="application/json",
    )
    assert r.status_code == 200
    assert Client().post(reverse("notify_push"), {}).status_code == 403


def test_an_email_confirmation_link_is_bound_to_its_address(world: World) -> None:
    token = notify.confirm_token(world.users["Ida"].pk, "ida@example.org")
    assert notify.confirmed(token) == (world.users["Ida"].pk, "ida@example.org")
    assert notify.confirmed(token[:-2] + "xx") is None
    assert notify.confirmed("pas-un-jeton") is None


def test_nobody_makes_the_server_write_again_and_again_to_an_address(
    world: World, parts: Any
) -> None:
    c = Client()
    c.force_login(world.users["Ida"])
    url = reverse("notify_settings", args=[world.game.slug])
    for i in range(6):
        page = c.get(url).content.decode()
        c.post(url, {**_hidden(page), "email_address": f"victime{i}@example.org", "email": "on"})
    assert Notification.objects.filter(kind="confirm").count() == notify.CONFIRMATIONS_A_DAY


def test_ronde_tick_writes_the_reminders_and_sends_the_outbox(
    world: World, clock: Any, parts: Any
) -> None:
    from io import StringIO

    from django.core.management import call_command

    smtp, pushes = parts
    clock("J2 09:00")
    turn_on(world, "Ida", smtp, pushes)
    clock("J2 21:30")
    out = StringIO()
    call_command("ronde_tick", stdout=out)
    assert "notification(s) écrite(s), 2 envoyée(s)" in out.getvalue()
    assert len(pushes.pushes) == 1 and "prend fin à J3 00:00" in smtp.mails[-1].text
    call_command("ronde_tick", stdout=StringIO())  # again: nothing more
    assert len(pushes.pushes) == 1
