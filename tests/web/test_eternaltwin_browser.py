"""In Chromium (Playwright, /usr/bin/chromium), against a local Eternaltwin over HTTP
(``etwin_provider.py``): a player whose Eternaltwin display name is in the game's roster
signs in without an invitation link and without a password, clicking « Se connecter
avec Eternaltwin », then « Autoriser » at Eternaltwin; the MJ confirms every pending
link with one click on the players page; the player reaches his page (third click).
Someone else with the same display name (another Eternaltwin id) never reaches it.
On a phone's width (390 px), nothing overflows."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connections

from ronde.web.games import service
from ronde.web.games.models import EternaltwinLink, SeatClaim

from .conftest import World, make_world
from .etwin_provider import LocalEternaltwin
from .test_browser import login, pytestmark, shot  # noqa: F401  (skipped without Chromium)

PHONE = {"width": 390, "height": 844}


@pytest.fixture
def etwin_world(transactional_db: Any, clock: Any) -> World:
    """A started game whose seats « Ana » and « Bob » wait for their players (made before
    Playwright starts, as in test_browser)."""
    from ronde.web.games import accounts

    service.clear_cache()
    world = make_world()
    for p in ("Ana", "Bob"):
        m = world.member(p)
        m.user = None
        m.save(update_fields=["user"])
        accounts.invite(world.game, m)
    return world


def no_overflow(page: Any) -> None:
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"], f"{page.url}: {width} px wide"


@pytest.mark.django_db(transaction=True)
def test_a_player_signs_in_with_eternaltwin_and_an_imitator_never_gets_in(
    etwin_world: World, eternaltwin: LocalEternaltwin, live_server: Any, browser: Any
) -> None:
    try:
        walk_through(etwin_world, eternaltwin, live_server.url, browser)
    finally:
        # the reads of the test body ran beside Playwright's event loop: their own
        # connection, closed here (else PostgreSQL cannot drop the test database)
        connections.close_all()


def walk_through(
    etwin_world: World, eternaltwin: LocalEternaltwin, base: str, browser: Any
) -> None:
    slug = etwin_world.game.slug
    eternaltwin.callback = f"{base}/oauth/callback/"
    ana = eternaltwin.add_user("Ana")

    # -- Ana, already signed in to Eternaltwin (she plays MyHordes) ---------------------------
    player = browser.new_context(viewport=PHONE).new_page()
    player.goto(f"{eternaltwin.url}/login?user={ana}")
    player.goto(f"{base}/connexion/")
    no_overflow(player)
    clicks = 0
    player.get_by_role("button", name="Se connecter avec Eternaltwin").click()
    clicks += 1
    player.wait_for_url(f"{eternaltwin.url}/oauth/authorize?**")
    shot(player, "etwin-01-consentement")
    player.get_by_role("button", name="Autoriser").click()
    clicks += 1
    player.wait_for_url(f"{base}/compte/")
    main = player.inner_text("main")
    assert "les MJ de la partie vont confirmer que c'est bien vous" in main
    assert "password" not in player.content().lower() or "Choisir un mot de passe" in main
    no_overflow(player)
    shot(player, "etwin-02-en-attente")
    assert SeatClaim.objects.get().status == SeatClaim.PENDING

    # -- the imitator: another Eternaltwin account named « Ana » ------------------------------
    fake = eternaltwin.add_user("Ana")
    imitator = browser.new_context(viewport=PHONE).new_page()
    imitator.goto(f"{eternaltwin.url}/login?user={fake}")
    imitator.goto(f"{base}/connexion/")
    imitator.get_by_role("button", name="Se connecter avec Eternaltwin").click()
    imitator.get_by_role("button", name="Autoriser").click()
    imitator.wait_for_selector("text=Pseudo déjà lié à un autre compte")
    assert "Rien n'a changé" in imitator.inner_text("main")
    shot(imitator, "etwin-03-imitateur")

    # -- the MJ confirms every pending link with one click ------------------------------------
    gm = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
    login(gm, base, "Mj", "motdepasse-mj")
    gm.wait_for_url("**/mj/**")
    gm.goto(f"{base}/mj/{slug}/joueurs/")
    assert "Ana" in gm.inner_text("#eternaltwin-attente ~ form")
    gm.click("text=Confirmer la liaison cochée")
    gm.wait_for_selector("text=1 liaison(s) confirmée(s).")
    shot(gm, "etwin-04-confirmee")
    assert etwin_world.member("Ana").user == EternaltwinLink.objects.get(etwin_id=ana).user

    # -- Ana reaches her page: a third click ---------------------------------------------------
    player.goto(f"{base}/compte/")
    player.click("text=Aller à ma page")
    clicks += 1
    player.wait_for_url(f"{base}/partie/{slug}/moi/")
    assert clicks <= 3
    assert "Ana — Partie de test" in player.inner_text("main")
    no_overflow(player)
    shot(player, "etwin-05-sa-page")

    # next time, two clicks land on her page
    again = browser.new_context(viewport=PHONE).new_page()
    again.goto(f"{eternaltwin.url}/login?user={ana}")
    again.goto(f"{base}/connexion/")
    again.get_by_role("button", name="Se connecter avec Eternaltwin").click()
    again.get_by_role("button", name="Autoriser").click()
    again.wait_for_url(f"{base}/partie/{slug}/moi/")

    # the imitator, once more after the confirmation, and straight to the page: never in
    imitator.goto(f"{base}/connexion/")
    imitator.get_by_role("button", name="Se connecter avec Eternaltwin").click()
    imitator.get_by_role("button", name="Autoriser").click()
    imitator.wait_for_selector("text=Pseudo déjà lié à un autre compte")
    imitator.goto(f"{base}/partie/{slug}/moi/")
    assert "/connexion/" in imitator.url
    assert not EternaltwinLink.objects.filter(etwin_id=fake).exists()
