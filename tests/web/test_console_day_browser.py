"""The game masters' day in Chromium (Playwright, /usr/bin/chromium), on the demo game's
J5 evening as ``ronde serve --demo`` plays it, at a desktop's width and a phone's:

- "À poster": every J5 post and MP marked in at most 10 clicks, and the game master
  never scrolls back (each mark swaps the list in place: the next card is where he is);
- the day's constraints judged in at most 3 clicks;
- the Ronde drawn as an SVG circle naming every player;
- a manual-clock game's night played from the console.

Clicks are counted by the test itself (every ``click`` goes through :func:`Clicks.on`);
the counts are printed (``pytest -s``) and asserted. Screenshots go to
``out/playwright/`` (and to ``$RONDE_DOC_SHOTS`` when set: the pictures of
``docs/mj-day.md``)."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ronde.web.games import demo, posting, service
from ronde.web.games.models import Action, Game

from .conftest import START, at
from .test_browser import ARGS, CHROMIUM, pytestmark, shot  # noqa: F401  (skip without Chromium)

WIDTHS = (1280, 390)
PASSWORD = "demo-mj-ronde"


@pytest.fixture
def demo_game(transactional_db: Any, settings: Any) -> Iterator[Game]:
    """The demo's game (28 players, seed 2026) played by the bots up to J5 21:00, with its
    own (manual) clock, made before Playwright starts."""
    settings.RONDE_DASHBOARD_REFRESH = 3600  # (no refresh in the middle of a count)
    service.clear_cache()
    t = at("J5 21:00")
    service.set_clock(t)
    played = demo.play_until(t, start=START, seed=2026)
    game = demo.store(
        played, slug="demo", name="Ronde de démonstration", gm_password=PASSWORD, clock=Game.MANUAL
    )
    yield game
    service.set_clock(None)


class Clicks:
    """Every click of a test, counted."""

    def __init__(self, page: Any) -> None:
        self.page = page
        self.n = 0

    def on(self, locator: Any) -> None:
        self.n += 1
        locator.click()


def _login(page: Any, base: str) -> None:
    page.goto(f"{base}/connexion/")
    page.fill("#id_username", "Mj")
    page.fill("#id_password", PASSWORD)
    page.click("main button[type=submit]")
    page.wait_for_load_state()


def _doc_shot(page: Any, name: str) -> None:
    shot(page, name)
    folder = os.environ.get("RONDE_DOC_SHOTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(folder) / f"{name}.png"))


def _no_overflow(page: Any, width: int) -> None:
    assert page.evaluate("document.documentElement.scrollWidth") <= width


def _settled(page: Any) -> None:
    # a selector, not a predicate: the page's CSP forbids the eval of a string predicate
    page.locator("#work-list[aria-busy]").wait_for(state="detached")


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("mode", [Game.PORTAL_THEN_MP, Game.MP])
def test_the_days_posts_are_marked_in_ten_clicks_without_scrolling_back(
    demo_game: Game, live_server: Any, chromium: Any, width: int, mode: str
) -> None:
    """Under the default delivery (the portal, then an MP for what is not read within 6
    hours: nobody opened his page in the demo) and by MP as on the forum alone (every
    private message by hand: the most work)."""
    Game.objects.filter(pk=demo_game.pk).update(delivery=mode)
    demo_game.refresh_from_db()
    base = live_server.url
    today = [m for m in posting.to_post(demo_game, day=5) if m.pending]
    assert len(today) >= 8  # the demo's J5: posts and MPs
    page = chromium.new_context(viewport={"width": width, "height": 900}).new_page()
    _login(page, base)
    page.goto(f"{base}/mj/demo/")
    clicks = Clicks(page)
    clicks.on(page.locator("header nav a", has_text="À poster"))
    page.wait_for_selector("#work-list")
    _no_overflow(page, width)
    if mode == Game.MP:
        _doc_shot(page, f"mj-day-a-poster-{width}")
    copies = 0
    while True:
        # the next card still to mark: the first on the page, from the top
        card = page.locator("#work-list article.post-group").first
        if not card.count():
            break
        box = card.bounding_box()
        assert box is not None and box["y"] > -1, "the next card is above: scrolled back"
        copies += card.locator("[data-copy]").count()
        if "post-verdict" in (card.get_attribute("class") or ""):
            # a verdict: its post's time is the announcement's (left empty: now)
            button = card.locator("form.verdict-form button[type=submit]")
        else:
            section = card.locator("xpath=ancestor::section[1]")
            batch = section.locator("form[data-swap] > button", has_text="Tout marquer")
            button = batch if batch.count() else card.locator("form[data-swap] button").first
        button.scroll_into_view_if_needed()
        before = page.evaluate("window.scrollY")
        clicks.on(button)
        _settled(page)
        after = page.evaluate("window.scrollY")
        assert after >= before - 2, (before, after)  # never back to the top
        assert clicks.n <= 12
    said = f"{len(today)} messages, {clicks.n} clics ({copies} copies)"
    print(f"\n« À poster » ({mode}), J5, {width} px : {said}")
    assert clicks.n <= 10
    left = [m for m in posting.to_post(demo_game, day=5) if m.pending]
    assert not left
    assert Action.objects.filter(game=demo_game, action="announce").exists()  # the verdict
    assert page.locator("#to-post-left").inner_text().startswith("0")
    shot(page, f"mj-day-a-poster-done-{mode}-{width}")


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("width", WIDTHS)
def test_the_days_constraints_are_judged_in_three_clicks(
    demo_game: Game, live_server: Any, chromium: Any, width: int
) -> None:
    base = live_server.url
    page = chromium.new_context(viewport={"width": width, "height": 900}).new_page()
    _login(page, base)
    page.goto(f"{base}/mj/demo/")
    clicks = Clicks(page)
    form = page.locator("#judge-form")
    rows = form.locator('input[type="checkbox"][name="failed"]')
    n = rows.count()
    assert n >= 10
    _no_overflow(page, width)
    page.locator("#judge-h").scroll_into_view_if_needed()
    page.evaluate("document.getElementById('judge-h').scrollIntoView()")
    _doc_shot(page, f"mj-day-contraintes-{width}")
    failed = rows.nth(2).get_attribute("value")
    clicks.on(rows.nth(2))  # one not respected
    clicks.on(form.locator("button[type=submit]"))
    page.wait_for_load_state()
    print(f"\nContraintes du J5, {width} px : {n} contraintes, {clicks.n} clics")
    assert clicks.n <= 3
    verdicts = {
        p: service.verdict_met(a) for (p, d), a in service.constraint_verdicts(demo_game).items()
    }
    assert len([p for (p, d) in service.constraint_verdicts(demo_game) if d == 5]) == n
    assert verdicts[str(failed)] is False and sum(not m for m in verdicts.values()) >= 1
    assert "verdicts du J5 enregistrés" in page.locator("main").inner_text()


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("width", WIDTHS)
def test_the_ronde_is_drawn_as_a_circle_naming_every_player(
    demo_game: Game, live_server: Any, chromium: Any, width: int
) -> None:
    base = live_server.url
    page = chromium.new_context(viewport={"width": width, "height": 900}).new_page()
    _login(page, base)
    page.goto(f"{base}/mj/demo/")
    page.locator("header nav a", has_text="Ronde").click()
    svg = page.locator("figure.ronde-figure svg")
    svg.wait_for()
    assert svg.locator("circle.ring").count() == 1
    text = " ".join(svg.locator("text").all_text_contents())
    v = service.view_for(demo_game, "game_master")
    ronde_players = [
        p["pseudo"] for p in v["players"] if (p.get("original") or p.get("character")) in v["ronde"]
    ]
    for pseudo in ronde_players:
        assert pseudo in text, pseudo
    assert svg.locator("g.slot").count() == len(v["ronde"])
    _no_overflow(page, width)
    # readable: the players' names at 11 px at least, at either width
    size = page.evaluate(
        "() => Math.min(...[...document.querySelectorAll('svg text.who')]"
        ".map(t => t.getBoundingClientRect().height))"
    )
    assert size >= 11, size
    page.evaluate("document.getElementById('ronde-h').scrollIntoView()")
    _doc_shot(page, f"mj-day-ronde-{width}")


@pytest.mark.django_db(transaction=True)
def test_a_manual_games_night_is_played_from_the_console(
    demo_game: Game, live_server: Any, chromium: Any
) -> None:
    base = live_server.url
    page = chromium.new_context(viewport={"width": 390, "height": 900}).new_page()
    _login(page, base)
    page.goto(f"{base}/mj/demo/")
    page.get_by_role("button", name="Jouer la nuit : avancer jusqu'à J6 00:00").click()
    page.wait_for_load_state()
    main = page.locator("main").inner_text()
    assert "Horloge avancée à J6 00:00" in main
    assert "Cette nuit (début du J6)" in main
    demo_game.refresh_from_db()
    assert demo_game.clock_at == at("J6 00:00")
    _doc_shot(page, "mj-day-nuit-390")
    # and the next morning's posts are today's list
    page.locator("header nav a", has_text="À poster").click()
    assert "À poster — J6 (aujourd'hui)" in page.locator("h1").inner_text()


def test_chromium_is_debians() -> None:
    assert Path(CHROMIUM).exists() or shutil.which(CHROMIUM)
