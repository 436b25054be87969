"""What the rules still give an unmasked player on his page (R8.4): the Diva's last
breath (R7.14.6, A48: once, by the end of the day after her unmasking) and the guess of
the Ronde (R10.3, A71); never the last breath while she is masked."""

from __future__ import annotations

from typing import Any

import pytest
from django.urls import reverse

from ronde.web.games import service
from ronde.web.games.models import Request

from .conftest import World, at, make_world
from .test_console_forms import CAST, RONDE

pytestmark = pytest.mark.django_db


@pytest.fixture
def diva_world(clock: Any) -> World:
    service.clear_cache()
    return make_world(cast=CAST, ronde=RONDE, slug="diva")


def _just_trial(world: World, day: int, number: int) -> None:
    gm = service.view_for(world.game, "game_master")
    accusers = [
        p["pseudo"]
        for p in gm["players"]
        if p["masked"] and "diva" in p["targets"] and CAST[p["pseudo"]] not in ("diva", "extra")
    ]
    out = service.record(
        world.game,
        None,
        "open_trial",
        accusers[0],
        {"against": "Div", "as": "diva"},
        at=at(f"J{day} 09:00"),
    )
    assert out.ok, out.message
    for i, who in enumerate(accusers[1:6]):
        out = service.record(
            world.game, None, "complain", who, {"trial": number}, at=at(f"J{day} 09:1{i}")
        )
        assert out.ok, out.message
    out = service.record(
        world.game, None, "announce", "Mj", {"trial": number}, at=at(f"J{day} 12:00")
    )
    assert out.ok, out.message


def _powers(client: Any, world: World) -> str:
    client.force_login(world.users["Div"])
    r = client.get(reverse("player", args=[world.game.slug]))
    assert r.status_code == 200
    return r.content.decode()


def test_the_masked_diva_is_not_offered_her_last_breath(
    client: Any, diva_world: World, clock: Any
) -> None:
    clock("J2 10:00")
    page = _powers(client, diva_world)
    assert 'id="power-designate"' in page
    assert 'id="power-last_breath"' not in page


def test_the_unmasked_diva_is_offered_her_last_breath_until_the_next_day(
    client: Any, diva_world: World, clock: Any
) -> None:
    clock("J2 13:00")
    _just_trial(diva_world, 2, 1)  # her first just trial does not unmask her (R7.14.4)
    clock("J3 13:00")
    _just_trial(diva_world, 3, 2)
    assert not service.view_for(diva_world.game, "Div")["me"]["masked"]
    page = _powers(client, diva_world)
    assert 'id="power-last_breath"' in page
    assert "jusqu'à la fin du J4" in page.replace("&#x27;", "'")
    assert 'id="power-guess_ronde"' in page  # any player may guess (A71)
    assert 'id="power-designate"' not in page and 'id="power-open_trial"' not in page
    # the request goes to the game masters
    r = client.post(
        reverse("player_request", args=[diva_world.game.slug, "last_breath"]),
        {"character": "woody"},
    )
    assert r.status_code == 302
    req = Request.objects.get(membership__pseudo="Div", action="last_breath")
    assert req.args == {"character": "woody"}
    # the day after the next, the window is closed
    clock("J5 10:00")
    page = _powers(client, diva_world)
    assert 'id="power-last_breath"' not in page
    r = client.post(
        reverse("player_request", args=[diva_world.game.slug, "last_breath"]),
        {"character": "alice"},
    )
    assert Request.objects.filter(membership__pseudo="Div", action="last_breath").count() == 1


@pytest.mark.django_db(transaction=True)
def test_the_unmasked_divas_page_in_chromium(clock: Any, live_server: Any) -> None:
    from pathlib import Path

    from playwright.sync_api import sync_playwright

    from .test_browser import ARGS, CHROMIUM, shot

    if not Path(CHROMIUM).exists():
        pytest.skip("no Chromium")
    service.clear_cache()
    world = make_world(cast=CAST, ronde=RONDE, slug="diva-chromium")
    clock("J2 13:00")
    _just_trial(world, 2, 1)
    clock("J3 13:00")
    _just_trial(world, 3, 2)
    world.users["Div"].set_password("motdepasse-diva-42")
    world.users["Div"].save()
    base = live_server.url
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        for width in (390, 1280):
            page = b.new_context(viewport={"width": width, "height": 900}).new_page()
            page.goto(f"{base}/connexion/")
            page.fill("#id_username", "Div")
            page.fill("#id_password", "motdepasse-diva-42")
            page.click("main button[type=submit]")
            page.goto(f"{base}/partie/diva-chromium/moi/")
            page.click("#power-last_breath summary")
            assert page.locator("#power-last_breath select").is_visible()
            assert page.evaluate("document.documentElement.scrollWidth") <= width
            shot(page, f"portal_unmasked_diva_{width}")
        b.close()
