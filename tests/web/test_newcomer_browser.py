"""A newcomer's phone (390 px, Chromium via Playwright): the header's links and the
checkboxes are tap targets of at least 24 px, a request form's checkbox sits on its own
line, a player's request on the game masters' dashboard is a card whose refusal field
stays on the screen, and a to-do button brings the game master back to its item
instead of the top of the list. Screenshots in ``out/playwright/newcomer-*.png``."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from django.conf import settings as django_settings
from django.test import Client

from ronde.web.games import service
from ronde.web.games.models import Request

from .conftest import World, at, make_world
from .test_browser import ARGS, CHROMIUM, pytestmark, shot  # noqa: F401  (skip without Chromium)

PHONE = {"width": 390, "height": 844}


@pytest.fixture
def phone_world(transactional_db: Any, clock: Any) -> Iterator[tuple[World, dict[str, str]]]:
    """A started game with a pending request that carries arguments, and the session
    cookies of a game master and a player, made before Playwright starts."""
    service.clear_cache()
    clock("J2 10:00")
    world = make_world(slug="telephone")
    Request.objects.create(
        game=world.game,
        membership=world.member("Ana"),
        action="open_trial",
        args={"against": ["Bob"], "as": "woody", "arguments": "Il pose trop de questions."},
        created_at=at("J2 09:30"),
    )
    cookies = {}
    for who, user in (("Mj", world.gms["Mj"]), ("Ana", world.users["Ana"])):
        c = Client()
        c.force_login(user)
        cookies[who] = c.cookies[django_settings.SESSION_COOKIE_NAME].value
    yield world, cookies
    service.set_clock(None)


def _page(browser: Any, base: str, cookie: str) -> Any:
    ctx = browser.new_context(viewport=PHONE)
    ctx.add_cookies([{"name": django_settings.SESSION_COOKIE_NAME, "value": cookie, "url": base}])
    return ctx.new_page()


SMALL_TARGETS = """() => [...document.querySelectorAll(
  'header nav a, header button, input[type=checkbox], input[type=radio], summary')]
  .filter(e => { const r = e.getBoundingClientRect();
    return r.width > 0 && r.height > 0 && (r.height < 24 || r.width < 24); })
  .map(e => e.tagName + ' ' + (e.innerText || e.name) + ' '
    + Math.round(e.getBoundingClientRect().width) + 'x'
    + Math.round(e.getBoundingClientRect().height))"""


@pytest.mark.django_db(transaction=True)
def test_a_newcomers_phone(
    phone_world: tuple[World, dict[str, str]], live_server: Any, chromium: Any
) -> None:
    world, cookies = phone_world
    base, slug = live_server.url, world.game.slug
    # the player: tap targets, and the anonymous box under the character's select
    page = _page(chromium, base, cookies["Ana"])
    page.goto(f"{base}/partie/{slug}/moi/")
    page.click("#power-open_trial summary")
    assert page.evaluate(SMALL_TARGETS) == []
    select = page.locator("#open_trial-as").bounding_box()
    box = page.locator("#power-open_trial input[name=anonymous]").bounding_box()
    assert box["y"] >= select["y"] + select["height"]
    assert page.evaluate("document.scrollingElement.scrollWidth") <= PHONE["width"]
    shot(page, "newcomer-player-390")
    # the game master: the request as a card, its arguments readable, nothing cut off
    page = _page(chromium, base, cookies["Mj"])
    page.goto(f"{base}/mj/{slug}/")
    row = page.locator("table.requests tr").first
    assert "Il pose trop de questions." in row.inner_text()
    for field in ("input[name=reason]", "button:has-text('Refuser')"):
        r = row.locator(field).bounding_box()
        assert r["x"] + r["width"] <= PHONE["width"], field
    assert page.evaluate(SMALL_TARGETS) == []
    shot(page, "newcomer-dashboard-390")
    # a to-do button far down the list comes back to its item
    items = page.locator("ol.work > li")
    assert items.count() >= 4
    last = items.nth(items.count() - 1)
    ident = last.get_attribute("id")
    last.locator("button[value=take]").click()
    page.wait_for_load_state()
    assert page.url.endswith(f"#{ident}")
    assert page.evaluate("scrollY") > 0
    top = page.locator(f"#{ident}").bounding_box()
    assert -2 <= top["y"] < PHONE["height"]  # at the top of the screen (to a subpixel)
    assert "pris par Mj" in page.locator(f"#{ident}").inner_text()
