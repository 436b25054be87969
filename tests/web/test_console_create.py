"""Creating a game in the console: the clock kind (wall by default, manual for
rehearsals and tutorials), as the command line's ``--clock manual``."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from ronde.web.games.accounts import organise_permission
from ronde.web.games.models import Game

pytestmark = pytest.mark.django_db


@pytest.fixture
def organiser(client: Any, clock: Any) -> Any:
    user = get_user_model().objects.create_user("Orga", password="motdepasse-orga")
    user.user_permissions.add(organise_permission())
    client.force_login(user)
    return client


def test_the_form_offers_both_clocks_wall_by_default(organiser: Any) -> None:
    page = organiser.get(reverse("gm_home")).content.decode()
    assert "Horloge réelle" in page and "Horloge manuelle" in page
    assert 'value="wall" id="id_clock_0" checked' in page
    assert 'value="manual" id="id_clock_1">' in page
    organiser.post(reverse("gm_home"), {"name": "Vraie", "start": "2026-12-01"})
    assert Game.objects.get(name="Vraie").clock == Game.WALL


def test_a_rehearsal_gets_the_manual_clock_and_the_console_says_so(organiser: Any) -> None:
    r = organiser.post(
        reverse("gm_home"), {"name": "Répétition", "start": "2026-12-01", "clock": "manual"}
    )
    assert r.status_code == 302
    game = Game.objects.get(name="Répétition")
    assert game.clock == Game.MANUAL
    page = organiser.get(reverse("gm_setup", args=[game.slug])).content.decode()
    assert "horloge manuelle" in page


def test_an_unknown_clock_is_refused_and_creates_nothing(organiser: Any) -> None:
    r = organiser.post(
        reverse("gm_home"), {"name": "Bizarre", "start": "2026-12-01", "clock": "sundial"}
    )
    assert r.status_code == 200
    assert not Game.objects.filter(name="Bizarre").exists()
    assert "sundial" in r.content.decode()  # Django's "choose a valid option" names it


@pytest.mark.django_db(transaction=True)
def test_create_form_and_error_pages_in_chromium(clock: Any, live_server: Any) -> None:
    from pathlib import Path

    from django.core.exceptions import PermissionDenied
    from django.test import RequestFactory
    from django.views import defaults
    from playwright.sync_api import sync_playwright

    from .test_browser import ARGS, CHROMIUM, shot

    if not Path(CHROMIUM).exists():
        pytest.skip("no Chromium")
    user = get_user_model().objects.create_user("Orga", password="motdepasse-orga-42")
    user.user_permissions.add(organise_permission())
    request = RequestFactory().get("/mj/")
    request.user = user
    forbidden = defaults.permission_denied(request, PermissionDenied()).content.decode()
    base = live_server.url
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        for width in (390, 1280):
            page = b.new_context(viewport={"width": width, "height": 900}).new_page()
            page.goto(f"{base}/connexion/")
            page.fill("#id_username", "Orga")
            page.fill("#id_password", "motdepasse-orga-42")
            page.click("main button[type=submit]")
            page.goto(f"{base}/mj/")
            assert page.locator("#id_clock_0").is_checked()
            shot(page, f"console_new_game_{width}")
            page.fill("#id_name", f"Répétition {width}")
            page.fill("#id_start", "2026-12-01")
            page.check("#id_clock_1")
            page.click("main button[type=submit]")
            assert "horloge manuelle" in page.inner_text("main")
            shot(page, f"console_new_game_manual_{width}")
            r = page.goto(f"{base}/nulle-part/")
            assert r is not None and r.status == 404
            assert "Page introuvable" in page.inner_text("h1")
            assert page.evaluate("document.documentElement.scrollWidth") <= width
            shot(page, f"error_404_{width}")
            page.set_content(forbidden)
            assert page.evaluate("document.documentElement.scrollWidth") <= width
            shot(page, f"error_403_{width}")
        b.close()
    assert Game.objects.filter(clock=Game.MANUAL).count() == 2


def test_a_started_game_keeps_the_ronde_set_up_in_its_order(organiser: Any) -> None:
    """The Ronde typed on the setup page is the started game's, in its order: the game
    masters' dashboard shows it."""
    import html
    import re

    organiser.post(reverse("gm_home"), {"name": "Ronde", "start": "2026-12-01", "gm_name": "Mj"})
    game = Game.objects.get(name="Ronde")
    setup = reverse("gm_setup", args=[game.slug])
    seats = {"Ana": "alice", "Bob": "woody", "Gus": "guignol", "Mo": "mime", "Ida": "extra"}
    cast = "\n".join(f"{p}: {c}" for p, c in seats.items())
    organiser.post(setup, {"op": "cast", "cast": cast, "ronde": "mime\nalice\nguignol\nwoody"})
    assert organiser.post(setup, {"op": "start"}).status_code == 302
    page = html.unescape(organiser.get(reverse("gm_dashboard", args=[game.slug])).content.decode())
    shown = " ".join(re.sub(r"<[^>]+>", " ", page).split())
    assert "Ronde : Mime → Alice → Guignol → Woody" in shown


def test_a_game_not_started_refuses_every_write_and_says_why(organiser: Any) -> None:
    """Before its start, a game refuses an action, recorded alone or in a day's batch,
    with a French sentence; nothing is written."""
    from ronde.web.games import service

    organiser.post(reverse("gm_home"), {"name": "Pas encore", "start": "2026-12-01"})
    game = Game.objects.get(name="Pas encore")
    args = {"player": "Ana", "points": 1, "reason": "x"}
    alone = service.record(game, None, "award", "Mj", args)
    batch = service.record_many(game, None, [("award", "Mj", args), ("award", "Mj", args)])
    for out in [alone, *batch]:
        assert (out.ok, out.code, out.message) == (
            False,
            "game_not_running",
            "La partie n'a pas commencé.",
        )
    assert len(batch) == 2
    assert Game.objects.get(pk=game.pk).last_seq == game.last_seq
