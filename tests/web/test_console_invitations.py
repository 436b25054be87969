"""The invitations page: each open seat's private message with its absolute link, a copy
button each, one "copy all"; used, expired or revoked links show their state."""

from __future__ import annotations

import html
import re
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from django.test import Client, override_settings
from django.urls import reverse

from ronde.web.games import accounts
from ronde.web.games.models import Invitation

from .conftest import World, gm_client

pytestmark = pytest.mark.django_db


def _other_game() -> Any:
    from ronde.web.games.models import Game

    from .conftest import START

    return Game.objects.create(slug="autre-partie", name="Autre", start=START)


def _page(client: Any, world: World, **extra: Any) -> str:
    r = client.get(reverse("gm_invitations", args=[world.game.slug]), **extra)
    assert r.status_code == 200
    return html.unescape(r.content.decode())


def _all_text(page: str) -> str:
    m = re.search(r'<textarea id="invitations-all"[^>]*>(.*?)</textarea>', page, re.S)
    assert m is not None
    return m.group(1)


def test_every_open_link_is_in_its_message_and_in_copy_all(client: Any, world: World) -> None:
    ana = accounts.add_player(world.game, "Noé")
    bea = accounts.add_player(world.game, "Béa")
    gm3 = accounts.add_game_master(world.game, "Mj3")
    other = _other_game()
    accounts.add_player(other, "Zoé")
    page = _page(gm_client(client, world), world)
    everything = _all_text(page)
    open_ = accounts.open_invitations(world.game)
    assert {("player", ana.pk), ("player", bea.pk), ("gm", gm3.pk)} <= set(open_)
    for inv in open_.values():
        link = f"http://testserver/invitation/{inv.token}/"
        assert link in everything
        assert page.count(link) == 2  # its own message, and the "copy all" text
    assert "MP à Béa" in everything and "MP à Mj3 (MJ)" in everything
    assert "Bonjour Noé" in page and "Copier le message pour Noé" in page
    assert "Copier les 3 messages prêts" in page
    # no link of another game
    for inv in Invitation.objects.filter(game=other):
        assert inv.token not in page
    # seats already taken (the fixture's players) carry no link and say so
    assert "lien utilisé : compte « Ana »" in page
    assert page.count("lien utilisé : compte") == len(world.users) + len(world.gms)


def test_used_expired_and_revoked_links_show_their_state(client: Any, world: World) -> None:
    c = gm_client(client, world)
    ana = accounts.add_player(world.game, "Noé")
    old = accounts.open_invitations(world.game)[("player", ana.pk)]
    Invitation.objects.filter(pk=old.pk).update(expires_at=old.created_at - timedelta(days=1))
    page = _page(c, world)
    assert old.token not in page
    assert "lien expiré le" in page
    assert "Aucun lien à envoyer" in page
    # "Nouveau lien" issues a fresh, open, seat-bound link
    r = c.post(
        reverse("gm_invitations", args=[world.game.slug]), {"op": "invite", "member": ana.pk}
    )
    assert r.status_code == 302
    fresh = accounts.open_invitations(world.game)[("player", ana.pk)]
    assert fresh.membership_id == ana.pk and fresh.pk != old.pk
    page = _page(c, world)
    assert fresh.token in _all_text(page)
    # a revoked seat: its link is gone, no new link offered
    accounts.revoke(ana, "test")
    page = _page(c, world)
    assert fresh.token not in page and "place retirée" in page


def test_a_game_master_cannot_renew_his_own_link_nor_one_of_another_game(
    client: Any, world: World
) -> None:
    c = gm_client(client, world)
    zoe = accounts.add_player(_other_game(), "Zoé")
    before = set(Invitation.objects.filter(membership=zoe).values_list("pk", flat=True))
    r = c.post(
        reverse("gm_invitations", args=[world.game.slug]), {"op": "invite", "member": zoe.pk}
    )
    assert r.status_code == 404
    assert set(Invitation.objects.filter(membership=zoe).values_list("pk", flat=True)) == before


def test_links_read_https_behind_the_proxy(world: World) -> None:
    accounts.add_player(world.game, "Noé")
    with override_settings(
        SECURE_PROXY_SSL_HEADER=("HTTP_X_FORWARDED_PROTO", "https"),
        ALLOWED_HOSTS=["ronde.example.org"],
    ):
        c = Client(HTTP_HOST="ronde.example.org", HTTP_X_FORWARDED_PROTO="https")
        c.force_login(world.gms["Mj"])
        page = _page(c, world)
    assert "https://ronde.example.org/invitation/" in _all_text(page)
    assert "http://ronde" not in page


def test_players_page_links_to_the_invitations(client: Any, world: World) -> None:
    page = gm_client(client, world).get(reverse("gm_players", args=[world.game.slug]))
    assert reverse("gm_invitations", args=[world.game.slug]) in page.content.decode()


def test_a_player_cannot_read_the_invitations(client: Any, world: World) -> None:
    client.force_login(world.users[next(iter(world.users))])
    r = client.get(reverse("gm_invitations", args=[world.game.slug]))
    assert r.status_code in (403, 404)


# -- in Chromium ----------------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_copy_all_in_chromium(clock: Any, live_server: Any) -> None:
    from playwright.sync_api import sync_playwright

    from ronde.web.games import service

    from .conftest import make_world
    from .test_browser import ARGS, CHROMIUM, shot

    if not Path(CHROMIUM).exists():
        pytest.skip("no Chromium")
    service.clear_cache()
    world = make_world(slug="invitations")
    for pseudo in ("Noé", "Béa", "Zed"):
        accounts.add_player(world.game, pseudo)
    world.gms["Mj"].set_password("motdepasse-mj-42")
    world.gms["Mj"].save()
    base = live_server.url
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        for width in (390, 1280):
            ctx = b.new_context(viewport={"width": width, "height": 900})
            ctx.grant_permissions(["clipboard-read", "clipboard-write"], origin=base)
            page = ctx.new_page()
            page.goto(f"{base}/connexion/")
            page.fill("#id_username", "Mj")
            page.fill("#id_password", "motdepasse-mj-42")
            page.click("main button[type=submit]")
            page.wait_for_url(lambda url: "/connexion/" not in url)  # (logged in, then on)
            page.goto(f"{base}/mj/invitations/invitations/")
            assert page.evaluate("document.documentElement.scrollWidth") <= width
            shot(page, f"console_invitations_{width}")
            page.click("button.copy-all")
            page.wait_for_selector("button.copy-all:has-text('Copié')")
            copied = page.evaluate("navigator.clipboard.readText()")
            for inv in accounts.open_invitations(world.game).values():
                assert f"/invitation/{inv.token}/" in copied
            if width == 1280:
                # a seat already taken asks before issuing a link that would give it away
                asked: list[str] = []

                def dismiss(dialog: Any, asked: list[str] = asked) -> None:
                    asked.append(dialog.message)
                    dialog.dismiss()

                page.once("dialog", dismiss)
                page.click(f"#seat-player-{world.member('Ana').pk} button")
                assert asked and "déjà un compte" in asked[0]
                ana = ("player", world.member("Ana").pk)
                assert ana not in accounts.open_invitations(world.game)
            ctx.close()
        b.close()
