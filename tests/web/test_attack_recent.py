"""Holes found by attacking the surfaces that landed last (notifications, Eternaltwin,
the console's batch forms and clock, the simulations page), each with the test that
failed before its fix."""

from __future__ import annotations

import html
import json
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from ronde.web.games import push

from .conftest import World, gm_client
from .notify_parts import BrowserKeys, free_port

pytestmark = pytest.mark.django_db


def _hidden(page: str) -> dict[str, str]:
    return {
        k: html.unescape(v)
        for k, v in re.findall(r'type="hidden" name="([^"]+)" value="([^"]*)"', page)
        if k != "csrfmiddlewaretoken"
    }


# -- Web Push: the server posts only where it checked -------------------------------------------
@pytest.mark.parametrize(
    "endpoint",
    [
        # urllib3 (what requests posts with) reads the host up to the backslash:
        # ``intranet.example``, while urlsplit reads a push service's host
        "https://intranet.example\\.push.apple.com/x",
        "https://10.0.0.1\\.notify.windows.com/x",
        "https://169.254.169.254\\@fcm.googleapis.com/x",
        # a browser's push service on another port than HTTPS's
        "https://fcm.googleapis.com:25/fcm/send/x",
        "https://fcm.googleapis.com:0/x",
        # nothing that a second parser could read otherwise
        "https://fcm.googleapis.com\t.evil.example/x",
        "https://fcm.googleapis.com%2f.evil.example/x",
        "https://fcm.googleapis.com./x",
    ],
)
def test_a_push_endpoint_is_checked_as_the_sender_reads_it(
    world: World, settings: Any, endpoint: str
) -> None:
    settings.PUSH_HOSTS = []
    c = Client()
    c.force_login(world.users["Ida"])
    r = c.post(
        reverse("notify_push"),
        BrowserKeys().subscription(endpoint),
        content_type="application/json",
    )
    assert r.status_code == 400, endpoint
    assert push.endpoint_refusal(endpoint) is not None


def test_the_browsers_push_services_are_still_accepted(settings: Any) -> None:
    settings.PUSH_HOSTS = []
    for endpoint in (
        "https://fcm.googleapis.com/fcm/send/dGVzdA:APA91bH-x_y",
        "https://fcm.googleapis.com:443/fcm/send/abc",
        "https://updates.push.services.mozilla.com/wpush/v2/gAAAAABl-x_y=",
        "https://web.push.apple.com/QGx-y_z",
        "https://wns2-par02p.notify.windows.com/w/?token=BQYAAA%3d%3d",
    ):
        assert push.endpoint_refusal(endpoint) is None, endpoint


@dataclass
class _Sink:
    port: int
    seen: list[str] = field(default_factory=list)


@contextmanager
def _server(status: int, location: str = "") -> Iterator[_Sink]:
    """An HTTP server on 127.0.0.1 that answers every request ``status`` (and
    ``location``), and keeps the paths asked."""
    sink = _Sink(free_port())
    seen, port = sink.seen, sink.port

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            seen.append(self.path)
            self.send_response(status)
            if location:
                self.send_header("Location", location)
            self.send_header("Content-Length", "0")
            self.end_headers()

        do_GET = do_POST

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield sink
    finally:
        server.shutdown()
        server.server_close()


def test_a_push_service_cannot_redirect_the_server_elsewhere(settings: Any) -> None:
    """An accepted push service answers 307 to another address (an intranet one): the
    server does not follow it (the push fails and is retried, shown to the MJs)."""
    with _server(201) as inside:
        target = f"http://localhost:{inside.port}/admin"
        with _server(307, target) as service:
            settings.PUSH_HOSTS = ["127.0.0.1"]
            keys = BrowserKeys().subscription(f"http://127.0.0.1:{service.port}/push/x")["keys"]
            with pytest.raises(RuntimeError, match="307"):
                push.send(
                    f"http://127.0.0.1:{service.port}/push/x",
                    keys["p256dh"],
                    keys["auth"],
                    {"title": "t", "body": "b", "url": "/"},
                )
            assert service.seen == ["/push/x"]
            assert inside.seen == [], "the redirect was followed"


# -- numbers typed in a request: « ² » is a digit for str.isdigit, not for int() -----------------
_NOT_NUMBERS = ["²", "٣", "9" * 30, "9" * 5000]


def test_a_players_page_with_an_odd_day_is_his_page(world: World) -> None:
    c = Client()
    c.force_login(world.users["Ana"])
    for jour in _NOT_NUMBERS:
        r = c.get(reverse("player", args=[world.game.slug]), {"jour": jour})
        assert r.status_code == 200, (jour, r.status_code)


def test_the_delivery_page_reads_only_plain_numbers(world: World) -> None:
    mj = gm_client(Client(), world)
    url = reverse("gm_delivery", args=[world.game.slug])
    for jour in _NOT_NUMBERS:
        assert mj.get(url, {"jour": jour}).status_code == 200, jour
    for pk in _NOT_NUMBERS:
        r = mj.post(url, {"op": "retry", "pk": pk})
        assert r.status_code == 302, (pk, r.status_code)


def test_the_eternaltwin_confirmations_read_only_plain_numbers(world: World) -> None:
    mj = gm_client(Client(), world)
    url = reverse("gm_etwin", args=[world.game.slug])
    for pk in _NOT_NUMBERS:
        r = mj.post(url, {"op": "confirm", "claim": pk})
        assert r.status_code == 302, (pk, r.status_code)
        r = mj.post(url, {"refuse": pk})
        assert r.status_code == 404, (pk, r.status_code)


def test_a_forum_step_with_an_odd_trial_number_is_refused_by_the_rules(world: World) -> None:
    from ronde.web.games import forum_console as fc

    for trial in _NOT_NUMBERS:
        data = {
            "count": "1",
            "s0-meta": json.dumps({"action": "complain", "new_trial": trial}),
            "s0-by": "Ana",
            "s0-trial": trial,
        }
        (step,) = fc.steps_from_post(data)
        assert step.args()["trial"] == trial  # (the engine names an unknown trial)


# -- Web Push: an account's devices are few, their keys real ------------------------------------
def test_an_account_cannot_multiply_its_devices(world: World, settings: Any, clock: Any) -> None:
    """A hostile player subscribes hundreds of made-up endpoints: each notification for
    him would be a row and a post for every one, written inside the game's locked write.
    An account keeps its last few devices; the oldest are retired."""
    from ronde.web.games.models import Notification, NotifyChoice, PushSubscription

    settings.PUSH_HOSTS = []
    c = Client()
    c.force_login(world.users["Ida"])
    keys = BrowserKeys()
    for i in range(push.MAX_DEVICES + 15):
        r = c.post(
            reverse("notify_push"),
            keys.subscription(f"https://fcm.googleapis.com/fcm/send/x{i}"),
            content_type="application/json",
        )
        assert r.status_code == 200
    live = PushSubscription.objects.filter(user=world.users["Ida"], gone_at__isnull=True)
    assert live.count() == push.MAX_DEVICES
    # the newest are kept (the device just activated is told)
    assert live.filter(endpoint=f"https://fcm.googleapis.com/fcm/send/x{push.MAX_DEVICES + 14}")
    # one notification: one row per device kept, no more
    url = reverse("notify_settings", args=[world.game.slug])
    page = c.get(url).content.decode()
    assert c.post(url, {**_hidden(page), "push": "on"}).status_code == 302
    assert NotifyChoice.objects.get(user=world.users["Ida"]).push
    from ronde.web.games import notify

    choice = NotifyChoice.objects.get(user=world.users["Ida"])
    notify._tell(choice, {"m:test": "message"}, notify.clocks.now())
    assert Notification.objects.filter(channel=Notification.PUSH).count() == push.MAX_DEVICES


@pytest.mark.parametrize(
    "keys",
    [
        {"p256dh": "pas-une-clé", "auth": "AAAAAAAAAAAAAAAAAAAAAA"},
        {"p256dh": "BAAA", "auth": "AAAAAAAAAAAAAAAAAAAAAA"},
        {"p256dh": "", "auth": ""},
    ],
)
def test_a_subscription_with_made_up_keys_is_refused(
    world: World, settings: Any, keys: dict[str, str]
) -> None:
    """Keys no browser makes would fail at every notification (eight tries each, shown
    to the MJs as failures): refused at once."""
    settings.PUSH_HOSTS = []
    c = Client()
    c.force_login(world.users["Ida"])
    r = c.post(
        reverse("notify_push"),
        {"endpoint": "https://fcm.googleapis.com/fcm/send/abc", "keys": keys},
        content_type="application/json",
    )
    assert r.status_code == 400


# -- a player's requests: no flood of notifications to the MJs ----------------------------------
def test_sending_and_withdrawing_a_request_again_and_again_does_not_flood_the_mjs(
    world: World, clock: Any
) -> None:
    """Each request sent tells the MJs who asked to be told (e-mail, phone). Sent,
    withdrawn, sent again a hundred times, it would ring their phones a hundred times:
    a player's requests are told once per quarter of an hour, the MJs' dashboard
    lists them all."""
    from ronde.web.games import notify
    from ronde.web.games.models import GameMaster, Notification, NotifyChoice, PushSubscription

    mj = world.gms["Mj"]
    NotifyChoice.objects.create(
        user=mj,
        game=world.game,
        game_master=GameMaster.objects.get(game=world.game, user=mj),
        push=True,
        updated_at=notify.clocks.now(),
    )
    PushSubscription.objects.create(
        user=mj,
        endpoint="https://fcm.googleapis.com/fcm/send/mj",
        p256dh="x",
        auth="y",
        created_at=notify.clocks.now(),
    )
    clock("J2 09:00")
    ana = Client()
    ana.force_login(world.users["Ana"])

    def cycle() -> None:
        r = ana.post(
            reverse("player_request", args=[world.game.slug, "guess_ronde"]),
            {"order": "alice, woody"},
        )
        assert r.status_code == 302
        req = world.member("Ana").requests.filter(status="pending").get()
        r = ana.post(reverse("player_withdraw", args=[world.game.slug, req.pk]))
        assert r.status_code == 302

    for _i in range(20):
        cycle()
    told = Notification.objects.filter(kind="gm_request")
    assert told.count() == 1
    clock("J2 09:20")  # a quarter of an hour later: told again
    cycle()
    assert told.count() == 2


# -- a form sent after the session ended: back to the page after logging in ---------------------
def _after_login(c: Client, r: Any, user: Any) -> int:
    """Where the login page sends the user back once logged in (its status)."""
    from urllib.parse import parse_qs, urlsplit

    assert r.status_code == 302 and r["Location"].startswith(reverse("login")), r
    target = parse_qs(urlsplit(r["Location"]).query)["next"][0]
    c.force_login(user)
    return int(c.get(target).status_code)


def test_a_players_form_sent_logged_out_leads_back_to_his_page(world: World, clock: Any) -> None:
    """His session ended (two weeks, a logout in another tab): he sends a request, logs in
    again, and is on his page, not on an empty « 405 » page."""
    clock("J2 09:00")
    c = Client()
    r = c.post(
        reverse("player_request", args=[world.game.slug, "guess_ronde"]),
        {"order": "alice, woody"},
    )
    assert _after_login(c, r, world.users["Ana"]) == 200


@pytest.mark.parametrize(
    ("name", "data"),
    [("gm_clock", {"to": "next"}), ("gm_constraints", {"day": "2", "player": "Ana"})],
)
def test_an_mjs_form_sent_logged_out_leads_back_to_the_console(
    world: World, clock: Any, name: str, data: dict[str, str]
) -> None:
    clock("J2 09:00")
    c = Client()
    r = c.post(reverse(name, args=[world.game.slug]), data)
    assert _after_login(c, r, world.gms["Mj"]) == 200


def test_a_forms_address_opened_as_a_page_is_a_french_page(world: World) -> None:
    """A form's address opened as a page (a bookmark, a link pasted): a French page with
    a way back, not an empty one."""
    mj = gm_client(Client(), world)
    r = mj.get(reverse("gm_clock", args=[world.game.slug]))
    assert r.status_code == 405 and r["Allow"] == "POST"
    body = r.content.decode()
    assert '<html lang="fr">' in body and "formulaire" in body and 'href="/"' in body
    r = Client().get(reverse("etwin_start"))
    assert r.status_code == 405 and '<html lang="fr">' in r.content.decode()


# -- « Eternaltwin seulement » on a site without Eternaltwin ------------------------------------
def test_eternaltwin_only_is_neither_offered_nor_binding_without_eternaltwin(
    world: World, settings: Any
) -> None:
    """Without Eternaltwin on the site, « Eternaltwin seulement » would leave every
    player's invitation without a way in: it is not offered, and a game that chose it
    (Eternaltwin removed since) takes passwords again."""
    from ronde.web.games import accounts
    from ronde.web.games.models import Game, Invitation

    settings.ETERNALTWIN_URL = settings.ETERNALTWIN_CLIENT_ID = ""
    settings.ETERNALTWIN_CLIENT_SECRET = ""
    mj = gm_client(Client(), world)
    page = mj.get(reverse("gm_players", args=[world.game.slug])).content.decode()
    assert 'name="etwin_only"' not in page
    mj.post(reverse("gm_etwin", args=[world.game.slug]), {"op": "settings", "etwin_only": "on"})
    assert not Game.objects.get(pk=world.game.pk).etwin_only
    # chosen while Eternaltwin was configured, then removed from the site
    Game.objects.filter(pk=world.game.pk).update(etwin_only=True)
    m = world.member("Cid")
    m.user = None
    m.save(update_fields=["user"])
    accounts.invite(world.game, m)
    inv = Invitation.objects.get(membership=m, used_at__isnull=True)
    c = Client()
    url = reverse("invitation", args=[inv.token])
    assert "password1" in c.get(url).content.decode()
    r = c.post(
        url, {"username": "Cid2", "password1": "Un-mot-2-passe", "password2": "Un-mot-2-passe"}
    )
    assert r.status_code == 302, r.content[:800]
    assert world.member("Cid").user is not None


# -- an e-mail confirmation link expired or lost: a new one ------------------------------------
def test_an_expired_confirmation_link_can_be_sent_again(world: World, settings: Any) -> None:
    """The link's page says « enregistrez de nouveau votre adresse pour en recevoir un
    autre »: saving the same address, still unconfirmed, sends a new link."""
    from ronde.web.games.models import Notification, NotifyAddress

    settings.EMAIL_ENABLED = True
    c = Client()
    c.force_login(world.users["Ida"])
    url = reverse("notify_settings", args=[world.game.slug])
    form = {**_hidden(c.get(url).content.decode()), "email_address": "ida@example.org"}
    form["email"] = "on"
    assert c.post(url, form).status_code == 302
    first = Notification.objects.get(kind="confirm")
    assert first.url  # (expired after three days, or lost: the mail never came)
    form = {**_hidden(c.get(url).content.decode()), "email_address": "ida@example.org"}
    form["email"] = "on"
    assert c.post(url, form).status_code == 302
    links = Notification.objects.filter(kind="confirm").order_by("pk")
    assert links.count() == 2
    assert "Adresse confirmée" in c.get(links.last().url).content.decode()  # type: ignore[union-attr]
    assert NotifyAddress.objects.get(user=world.users["Ida"]).confirmed_at is not None
    # confirmed: saving again sends nothing more
    form = {**_hidden(c.get(url).content.decode()), "email_address": "ida@example.org"}
    form["email"] = "on"
    c.post(url, form)
    assert Notification.objects.filter(kind="confirm").count() == 2


# -- Web Push: a shared phone's next user is not told the previous account's news -------------
def test_logging_out_stops_the_pushes_of_this_browser_only(world: World, settings: Any) -> None:
    """Ida turns notifications on from a shared phone and from her own computer, then
    logs out of the phone: the phone is no longer pushed her games' news (the next
    person to log in there would read them); her computer still is."""
    from ronde.web.games.models import PushSubscription

    settings.PUSH_HOSTS = []
    keys = BrowserKeys()
    phone, computer = Client(), Client()
    for c, endpoint in ((phone, "telephone"), (computer, "ordinateur")):
        c.force_login(world.users["Ida"])
        r = c.post(
            reverse("notify_push"),
            keys.subscription(f"https://fcm.googleapis.com/fcm/send/{endpoint}"),
            content_type="application/json",
        )
        assert r.status_code == 200
    live = PushSubscription.objects.filter(user=world.users["Ida"], gone_at__isnull=True)
    assert live.count() == 2
    assert phone.post(reverse("logout")).status_code == 302
    assert [s.endpoint.rsplit("/", 1)[1] for s in live] == ["ordinateur"]
    # the next person on the phone: nothing of Ida's reaches it
    phone.force_login(world.users["Jo"])
    assert not PushSubscription.objects.filter(
        endpoint__endswith="/telephone", gone_at__isnull=True
    ).exists()
