"""Notifications in a real browser (Playwright driving Debian's Chromium): on a phone
(390 px), a player turns notifications on; the page registers the service worker (on
http://127.0.0.1 a secure context), links the web app's manifest, and the worker shows a
pushed message (delivered through Chromium's DevTools, as a push service would) that
opens his page. The screenshot of docs/notifications.md is taken here.

Skipped when Chromium is absent."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.test import Client

from ronde.web.games import service
from ronde.web.games.models import NotifyAddress, NotifyChoice

from .conftest import make_world
from .test_browser import ARGS, ARTEFACTS, CHROMIUM

pytestmark = pytest.mark.skipif(
    not (Path(CHROMIUM).exists() or shutil.which(CHROMIUM)),
    reason=f"Chromium not found at {CHROMIUM} (apt-get install chromium; CI installs it)",
)

DOCS = Path(__file__).resolve().parents[2] / "docs"


@pytest.fixture
def ida(transactional_db: Any, clock: Any, settings: Any) -> Iterator[tuple[Any, str]]:
    """The test game and Ida's session cookie, made before Playwright starts."""
    settings.EMAIL_ENABLED = True
    service.clear_cache()
    world = make_world()
    c = Client()
    c.force_login(world.users["Ida"])
    yield world, c.cookies[settings.SESSION_COOKIE_NAME].value
    service.set_clock(None)


def test_a_player_turns_notifications_on_from_a_phone(ida: Any, live_server: Any) -> None:
    from playwright.sync_api import sync_playwright

    world, cookie = ida
    base = live_server.url
    url = f"{base}/partie/{world.game.slug}/notifications/"
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        ctx = browser.new_context(viewport={"width": 390, "height": 844}, locale="fr-FR")
        ctx.add_cookies([{"name": settings.SESSION_COOKIE_NAME, "value": cookie, "url": base}])
        ctx.grant_permissions(["notifications"], origin=base)
        page = ctx.new_page()
        page.goto(url)
        # the page registered the service worker, for the whole site
        page.wait_for_selector('#push-device[data-registered="1"]', timeout=15_000)
        scope = page.evaluate(
            "navigator.serviceWorker.getRegistration().then(r => r.scope + ' ' + "
            "(r.active || r.waiting || r.installing).scriptURL)"
        )
        assert scope == f"{base}/ {base}/sw.js"
        manifest = page.evaluate("document.querySelector('link[rel=manifest]').href")
        data = json.loads(page.request.get(manifest).text())
        assert data["lang"] == "fr" and data["display"] == "standalone"
        assert page.evaluate("window.isSecureContext") is True
        # nothing wider than the phone
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        page.fill("#id_email_address", "ida@example.org")
        page.check("#id_email")
        page.check("#id_push")
        page.get_by_role("button", name="Enregistrer").click()
        page.wait_for_selector("text=Préférences enregistrées.")
        page.wait_for_selector('#push-device[data-registered="1"]', timeout=15_000)
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        ARTEFACTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(ARTEFACTS / "notifications-telephone.png"), full_page=True)
        doc_shot = DOCS / "notifications-telephone.png"
        if not doc_shot.exists() or os.environ.get("RONDE_UPDATE_DOCS") == "1":
            # docs/notifications.md's picture (taken again with RONDE_UPDATE_DOCS=1)
            DOCS.mkdir(exist_ok=True)
            page.screenshot(path=str(doc_shot), full_page=True)
        # a push as the push service delivers it: the worker shows it, no secret in it
        cdp = ctx.new_cdp_session(page)
        registrations: list[str] = []
        cdp.on(
            "ServiceWorker.workerRegistrationUpdated",
            lambda e: registrations.extend(r["registrationId"] for r in e["registrations"]),
        )
        cdp.send("ServiceWorker.enable")
        page.wait_for_timeout(300)
        assert registrations
        payload = {
            "title": "Ronde — Partie de test",
            "body": "Un nouveau message vous attend sur votre page.",
            "url": f"/partie/{world.game.slug}/moi/",
        }
        cdp.send(
            "ServiceWorker.deliverPushMessage",
            {"origin": base, "registrationId": registrations[-1], "data": json.dumps(payload)},
        )
        script = (
            "navigator.serviceWorker.ready.then(r => r.getNotifications())"
            ".then(ns => ns.map(n => n.title + ' | ' + n.body + ' | ' + n.data.url).join('\\n'))"
        )
        shown = ""
        for _try in range(100):  # (up to 10 s: the worker shows it asynchronously)
            shown = page.evaluate(script)
            if shown:
                break
            page.wait_for_timeout(100)
        assert shown == " | ".join(payload.values())
        browser.close()
    choice = NotifyChoice.objects.get(user=world.users["Ida"])
    assert choice.push and choice.email
    # e-mails go once the address is confirmed (the link mailed to it)
    assert NotifyAddress.objects.get(user=world.users["Ida"]).confirmed_at is None
