"""A game master's day in Chromium (Playwright, Debian's /usr/bin/chromium): paste a
trial page, confirm its doubtful opening, record the complaints at their forum
times, announce the verdict, copy the announcement from "À poster" and mark it
posted, judge a constraint with a helper's suggestion. Pages are checked at
1280 px and 390 px; screenshots in ``out/playwright/``."""

from __future__ import annotations

from typing import Any

import pytest

from tests.forum.fixtures.build_fixtures import P, ThreadSpec, page_text

from .conftest import World, at, make_world
from .test_browser import ARGS, CHROMIUM, login, pytestmark, shot  # noqa: F401

FORMULA = "pose une plainte contre Bob pour avoir trop cabotiné dans son rôle de Woody."
TRIAL = ThreadSpec(
    name="t",
    title="Procès : Bobb est Woody",
    posts=[
        P("Ana", "2 déc. 2026, 10:00", "town", [("text", "J'accuse Bobb d'être Woody !", "")]),
        *[
            P(who, f"2 déc. 2026, 1{k}:15", "town", [("text", f"Moi, {who}, {FORMULA}", "")])
            for k, who in enumerate(["Hal", "Gus", "Fay", "Jo"])
        ],
        P("Bob", "2 déc. 2026, 15:00", "[-2, 1]", [("text", "Je suis innocent !", "")]),
    ],
)
QUESTIONS = ThreadSpec(
    name="q",
    title="Discussion du J2",
    posts=[P("Ana", "2 déc. 2026, 16:00", "town", [("text", "Qui ment ? Et pourquoi ?", "")])],
)


@pytest.fixture
def forum_world(transactional_db: Any, clock: Any) -> World:
    """The game, made before Playwright starts (see test_browser.gm_account)."""
    from ronde.web.games import service

    service.clear_cache()
    return make_world(slug="forum-jour")


def fits(page: Any) -> bool:
    """Nothing wider than the window (no sideways scrolling)."""
    return bool(page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1"))


@pytest.mark.django_db(transaction=True)
def test_a_game_masters_forum_day(
    forum_world: World, live_server: Any, browser: Any, clock: Any
) -> None:
    from ronde.web.games.models import Action, Posting

    base = live_server.url
    slug = forum_world.game.slug
    clock("J2 18:00")
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=base)
    gm = context.new_page()
    login(gm, base, "Mj", "motdepasse-mj")
    gm.goto(f"{base}/mj/{slug}/forum/")
    gm.fill("#page", page_text(TRIAL, 1, 1))
    gm.click("text=Lire la page")
    gm.wait_for_selector("text=Actions proposées")
    opening = gm.locator("#step-0")
    assert "douteux" in opening.inner_text() and "Bobb" in opening.inner_text()
    assert not gm.is_checked("input[name=s0-ok]")
    assert gm.is_checked("input[name=s1-ok]")
    assert fits(gm)
    shot(gm, "forum-01-proposals-1280")

    # the game master corrects the accused's name and confirms the opening
    gm.fill("input[name=s0-against]", "Bob")
    gm.check("input[name=s0-ok]")
    gm.click("text=Enregistrer les actions cochées")
    # the opening, four complaints and the accused's post in his trial
    gm.wait_for_selector("text=Enregistré : 6 action(s) du forum")
    times = {a.by: a.at for a in Action.objects.filter(game=forum_world.game)}
    assert times["Ana"] == at("J2 10:00") and times["Jo"] == at("J2 13:15")
    shot(gm, "forum-02-recorded")

    # the verdict (4 complaints: just) is announced from the dashboard
    gm.goto(f"{base}/mj/{slug}/")
    gm.click("#gm-trial-1 button:has-text('Annoncer')")
    gm.wait_for_selector("text=Enregistré : Annoncer un verdict")

    # "À poster": the verdict's announcement, copied then marked posted
    gm.goto(f"{base}/mj/{slug}/a-poster/")
    assert fits(gm)
    shot(gm, "forum-03-to-post-1280")
    # (the topic's posts of the day, its opening and its verdict, are one post)
    card = gm.locator("article.post-group", has_text="Sujet du Procès n°1")
    text = card.locator("textarea").input_value()
    assert "Bob" in text
    card.locator("button:has-text('Copier')").click()
    gm.wait_for_selector("button:has-text('Copié')")
    assert gm.evaluate("navigator.clipboard.readText()") == text
    keys = {k.input_value() for k in card.locator("input[name=key]").all()}
    card.locator("button:has-text('Marquer posté')").click()
    gm.wait_for_selector("#swap-note:has-text('marqué')")
    assert Posting.objects.filter(game=forum_world.game, key__in=keys).count() == len(keys)
    assert gm.locator("article.post-group", has_text="Sujet du Procès n°1").count() == 0
    assert "marqué par Mj" in gm.inner_text("main")

    # a constraint judged beside the helper's suggestion (Alice's two questions)
    gm.goto(f"{base}/mj/{slug}/forum/")
    gm.fill("#page", page_text(QUESTIONS, 1, 1))
    gm.click("text=Lire la page")
    helper = gm.locator(".helper", has_text="Ana")
    assert "suggéré : respectée" in helper.inner_text()
    shot(gm, "forum-04-helper")
    helper.get_by_role("button", name="Respectée ✓", exact=True).click()
    gm.wait_for_selector("text=Enregistré : Juger une contrainte")
    judged = Action.objects.get(game=forum_world.game, action="record_constraint")
    assert judged.args["player"] == "Ana" and judged.args["met"] is True

    # the same pages on a phone
    phone = browser.new_context(viewport={"width": 390, "height": 844}).new_page()
    login(phone, base, "Mj", "motdepasse-mj")
    phone.goto(f"{base}/mj/{slug}/forum/")
    phone.fill("#page", page_text(TRIAL, 1, 1))
    phone.click("text=Lire la page")
    phone.wait_for_selector("text=Actions proposées")
    assert "déjà enregistré" in phone.inner_text("main")
    assert fits(phone)
    shot(phone, "forum-05-proposals-390")
    phone.goto(f"{base}/mj/{slug}/a-poster/")
    assert fits(phone)
    shot(phone, "forum-06-to-post-390")
