"""In a real browser (Playwright driving Debian's Chromium, /usr/bin/chromium):
a game master sets up a game, a player opens a trial, three others complain, a
fourth complaint concludes it, and the verdict appears on the public board.

Screenshots are saved in ``out/playwright/`` (test artefacts). Skipped when
Chromium is not installed (CI installs it; never ``playwright install``).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from ronde.web.games import service

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
ARTEFACTS = Path(os.environ.get("RONDE_ARTEFACTS", "out/playwright"))
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-default-apps",
    "--disable-extensions",
    "--mute-audio",
]

pytestmark = pytest.mark.skipif(
    not (Path(CHROMIUM).exists() or shutil.which(CHROMIUM)),
    reason=f"Chromium not found at {CHROMIUM} (apt-get install chromium; CI installs it)",
)

CAST = """Ana: alice
Bob: woody
Cid: pierrot
Dan: halus
Eve: little_mermaid
Fay: polichinelle
Gus: guignol
Hal: revenant
Ida: extra
Jo: extra"""
RONDE = "alice\nwoody\npierrot\nhalus\nlittle_mermaid\npolichinelle\nguignol\nrevenant"


def shot(page: Any, name: str) -> None:
    ARTEFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTEFACTS / f"{name}.png"), full_page=True)


def login(page: Any, base: str, username: str, password: str) -> None:
    page.goto(f"{base}/connexion/")
    page.fill("#id_username", username)
    page.fill("#id_password", password)
    page.click("main button[type=submit]")


@pytest.fixture
def gm_account(transactional_db: Any) -> None:
    """The game master's account, made before Playwright starts (its event loop would
    give the test body a database connection of its own, never closed)."""
    from django.contrib.auth import get_user_model

    from ronde.web.games.accounts import organise_permission

    service.clear_cache()
    user = get_user_model().objects.create_user("Mj", password="motdepasse-mj-42")
    user.user_permissions.add(organise_permission())


@pytest.mark.django_db(transaction=True)
def test_game_master_sets_up_and_a_trial_reaches_its_verdict(
    gm_account: None, live_server: Any, browser: Any, clock: Any
) -> None:
    base = live_server.url
    clock("J1 09:00")

    # -- the game master sets the game up --------------------------------------------------
    gm = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
    login(gm, base, "Mj", "motdepasse-mj-42")
    gm.goto(f"{base}/mj/")
    gm.fill("#id_name", "Ronde du navigateur")
    gm.fill("#id_start", "2026-12-01")
    gm.click("main button[type=submit]")
    gm.wait_for_url("**/preparation/")
    gm.click("text=…ou les saisir")
    gm.fill("#cast", CAST)
    gm.fill("#ronde", RONDE)
    gm.click("text=Enregistrer la distribution")
    gm.wait_for_selector("text=Distribution enregistrée.")
    shot(gm, "01-preparation")
    gm.click("text=Lancer la partie et créer les invitations")
    gm.wait_for_url("**/joueurs/")
    shot(gm, "02-invitations")
    links = {
        row.locator("td").first.inner_text(): row.locator("input.invitation-link").input_value()
        for row in gm.locator("tr[id^=member-]").all()
    }
    assert len(links) == 10

    # -- players accept their invitations ---------------------------------------------------
    clock("J2 09:00")
    players = {}
    for name in ("Ana", "Dan"):
        page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
        page.goto(links[name])
        page.fill("#id_password1", f"secret-{name}-2026")
        page.fill("#id_password2", f"secret-{name}-2026")
        page.click("main button[type=submit]")
        page.wait_for_url("**/moi/")
        players[name] = page
    ana = players["Ana"]
    assert "Alice" in ana.inner_text("main")
    shot(ana, "03-player-ana")

    # -- Ana opens a trial: her request, accepted by the game master ---------------------------
    clock("J2 10:00")
    ana.click("#power-open_trial summary")
    ana.select_option("#open_trial-against", "Bob")
    ana.select_option("#open_trial-as", "woody")
    ana.fill("#open_trial-arguments", "Il pose trop de questions.")
    ana.click("#power-open_trial button[type=submit]")
    ana.wait_for_selector("text=Demande envoyée aux MJ.")
    clock("J2 10:05")
    gm.goto(f"{base}/mj/ronde-du-navigateur/")
    gm.click("tr[id^=req-] button:has-text('Accepter')")
    gm.wait_for_selector("text=Enregistré : Ouvrir un Procès")
    shot(gm, "04-trial-opened")

    # -- three complaints: two posted on the forum (recorded by the MJ), one anonymous -------
    for minute, who in ((10, "Hal"), (20, "Gus")):
        clock(f"J2 11:{minute}")
        gm.goto(f"{base}/mj/ronde-du-navigateur/action/complain/?trial=1")
        gm.select_option("#complain-by", who)
        gm.fill("#complain-at", f"J2 11:{minute}")  # the post's forum time
        gm.click("main form button[type=submit]")
        gm.wait_for_selector("text=Enregistré : Porter plainte")
    clock("J2 11:30")
    dan = players["Dan"]
    dan.reload()
    # the portal sends only an anonymous complaint (a public one is a forum post, R5.1)
    assert "Porter plainte anonymement" in dan.locator("#power-complain summary").inner_text()
    dan.click("#power-complain summary")
    dan.select_option("#complain-trial", "1")
    dan.click("#power-complain button[type=submit]")
    dan.wait_for_selector("text=Demande envoyée aux MJ.")
    clock("J2 11:35")
    gm.goto(f"{base}/mj/ronde-du-navigateur/")
    row = gm.locator("#gm-trial-1")
    assert row.locator("td").nth(4).inner_text() == "2"
    gm.click("tr[id^=req-] button:has-text('Accepter')")
    gm.wait_for_selector("text=Enregistré : Porter plainte")
    assert gm.locator("#gm-trial-1 td").nth(4).inner_text() == "3"
    assert gm.locator("#gm-trial-1 td").nth(6).inner_text() == "1"  # one anonymous
    shot(gm, "05-three-complaints")

    # -- the fourth complaint concludes the trial; the MJ announces the verdict ---------------
    clock("J2 12:00")
    gm.goto(f"{base}/mj/ronde-du-navigateur/action/complain/?trial=1")
    gm.select_option("#complain-by", "Fay")
    gm.fill("#complain-at", "12:00")
    gm.click("main form button[type=submit]")
    gm.wait_for_selector("text=Enregistré : Porter plainte")
    assert "juste" in gm.locator("#gm-trial-1").inner_text()
    gm.click("#gm-trial-1 button:has-text('Annoncer')")
    gm.wait_for_selector("text=Enregistré : Annoncer un verdict")
    shot(gm, "06-announced")

    # -- the public board ---------------------------------------------------------------------
    public = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
    public.goto(f"{base}/partie/ronde-du-navigateur/")
    trial = public.locator("#trial-1").inner_text()
    assert "juste" in trial and "Bob" in trial and "Woody" in trial
    assert "Dan" not in trial  # the anonymous author
    assert "1 plainte anonyme" in trial
    board = public.inner_text("main")
    assert "Démasqués" in board and "Bob" in board
    shot(public, "07-public-board")
