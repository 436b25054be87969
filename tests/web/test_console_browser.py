"""The console in Chromium (Playwright, /usr/bin/chromium): the dashboard's periodic
refresh never wipes a half-typed refusal reason, and the console's pages at phone and
desktop widths (screenshots in ``out/playwright/``)."""

from __future__ import annotations

from typing import Any

import pytest

from ronde.web.games import service
from ronde.web.games.models import Request

from .conftest import World, at, make_world
from .test_browser import ARGS, CHROMIUM, pytestmark, shot  # noqa: F401  (skip without Chromium)


@pytest.fixture
def console_world(transactional_db: Any, clock: Any, settings: Any) -> World:
    """A started game with one pending request, made before Playwright starts."""
    settings.RONDE_DASHBOARD_REFRESH = 1
    service.clear_cache()
    clock("J2 10:00")
    world = make_world(slug="console")
    Request.objects.create(
        game=world.game,
        membership=world.member("Ana"),
        action="complain",
        args={"trial": 1},
        created_at=at("J2 09:30"),
    )
    world.gms["Mj"].set_password("motdepasse-mj-42")
    world.gms["Mj"].save()
    return world


def _login(page: Any, base: str) -> None:
    page.goto(f"{base}/connexion/")
    page.fill("#id_username", "Mj")
    page.fill("#id_password", "motdepasse-mj-42")
    page.click("main button[type=submit]")
    page.wait_for_url(lambda url: "/connexion/" not in url)  # (logged in before going on)


@pytest.mark.django_db(transaction=True)
def test_refresh_keeps_a_half_typed_reason(
    console_world: World, live_server: Any, chromium: Any
) -> None:
    base = live_server.url
    page = chromium.new_context(viewport={"width": 1280, "height": 900}).new_page()
    _login(page, base)
    page.goto(f"{base}/mj/console/")
    reason = page.locator("#dashboard input[name=reason]").first
    reason.click()
    reason.type("Vous n'avez pas enc")
    # several refresh periods pass while the field has the focus ...
    page.wait_for_timeout(3500)
    assert page.locator("#dashboard input[name=reason]").first.input_value() == (
        "Vous n'avez pas enc"
    )
    # ... and after it lost the focus, with its text still unsent
    page.locator("h1").click()
    page.wait_for_timeout(3500)
    assert page.locator("#dashboard input[name=reason]").first.input_value() == (
        "Vous n'avez pas enc"
    )
    shot(page, "console_refresh_kept")
    # with nothing typed, the refresh does bring what another game master recorded
    assert "Donner le thème du J2" in page.locator("#dashboard").inner_text()
    page.locator("#dashboard input[name=reason]").first.fill("")
    page.locator("h1").click()
    out = service.record(
        console_world.game, None, "set_theme", "Mj2", {"day": 2, "theme": "les corbeaux"}
    )
    assert out.ok
    page.wait_for_function(
        "() => !document.querySelector('#dashboard').innerText.includes('Donner le thème du J2')",
        timeout=15000,
    )


@pytest.mark.django_db(transaction=True)
def test_console_pages_fit_a_phone_and_a_desktop(
    console_world: World, live_server: Any, chromium: Any
) -> None:
    base = live_server.url
    slug = console_world.game.slug
    pages = ["", "actions/", "action/complain/", "plaintes/?trial=1", "journal/", "points/"]
    for width in (390, 1280):
        page = chromium.new_context(viewport={"width": width, "height": 900}).new_page()
        _login(page, base)
        for path in pages:
            page.goto(f"{base}/mj/{slug}/{path}")
            assert page.locator("h1").count() == 1, path
            overflow = page.evaluate("document.documentElement.scrollWidth")
            assert overflow <= width, (path, width, overflow)
            name = path.split("/")[0] or "dashboard"
            shot(page, f"console_{name}_{width}")
