"""What a newcomer met on a first day with the console and the portal: pages before
J1 that spoke of « J-7 » or an ISO timestamp, clumsy « événement(s) », a time typed
wrong answered in the engine's jargon, to-do buttons that sent the game master back to
the top of a long list, overdue deadlines shown like the others, a request accepted
then struck out still shown as « acceptée », the arguments of a request hidden from the
game masters, empty score details, a Joker form that did not say what it does."""

from __future__ import annotations

import html
import re
from pathlib import Path
from typing import Any

from django.test import Client
from django.urls import reverse

from ronde.web.games import service
from ronde.web.games.models import Action, Request

from .conftest import World, at, gm_client


def _page(r: Any) -> str:
    return html.unescape(r.content.decode())


def _visible(page: str) -> str:
    """The page's text without its tags (what a reader sees, roughly)."""
    return re.sub(r"<[^>]+>", " ", re.sub(r"<(script|style)[^>]*>.*?</\1>", " ", page, flags=re.S))


def test_pages_before_j1_speak_of_the_start_not_of_a_negative_day(
    client: Client, db: Any, clock: Any
) -> None:
    from django.contrib.auth import get_user_model

    from ronde.web.games import accounts
    from ronde.web.games.models import Game

    service.clear_cache()
    users = get_user_model().objects
    mj = users.create_user("Mj", password="motdepasse-mj")
    mj.user_permissions.add(accounts.organise_permission())
    gm = Client()
    gm.force_login(mj)
    # a week before J1 (J1 is 2026-12-01), as the console creates it
    service.set_clock(at("J1 10:00").replace(day=24, month=11))
    r = gm.post(reverse("gm_home"), {"name": "Avant", "start": "2026-12-01", "gm_name": "Mj"})
    assert r.status_code == 302
    game = Game.objects.get(name="Avant")
    setup = reverse("gm_setup", args=[game.slug])
    seats = {"Ana": "alice", "Bob": "woody", "Gus": "guignol", "Mo": "mime", "Ida": "extra"}
    cast = "\n".join(f"{p}: {c}" for p, c in {**seats, "Jo": "extra"}.items())
    gm.post(setup, {"op": "cast", "cast": cast, "ronde": "alice\nwoody\nguignol\nmime"})
    assert gm.post(setup, {"op": "start"}).status_code == 302
    ana = users.create_user("Ana", password="motdepasse-joueur")
    accounts.accept(accounts.invite(game, game.memberships.get(pseudo="Ana")), ana)
    client.force_login(ana)
    page = _page(client.get(reverse("player", args=[game.slug])))
    today = _visible(page[page.index('id="aujourdhui"') : page.index("</section>")])
    assert "Avant le J1" in today
    assert "La partie commence le mardi 1 décembre 2026 (J1 00:00)" in today
    assert "J-" not in _visible(page)
    # nothing to ask before the roles are revealed (a guess of the Ronde made no sense)
    assert 'id="power-guess_ronde"' not in page and "Vous pouvez demander" not in today
    board = _visible(_page(Client().get(reverse("public", args=[game.slug]))))
    assert "J-" not in board and "La partie commence le mardi 1 décembre 2026 (J1)." in board
    preview = _visible(_page(gm.get(reverse("gm_preview", args=[game.slug]))))
    assert "Maintenant : 24/11/2026 10:00" in preview
    assert "2026-11-24T" not in preview
    # the preview reads times as every console form does
    r = gm.get(reverse("gm_preview", args=[game.slug]), {"at": "01/12 00:30"})
    assert r.status_code == 200 and "D'ici 01/12 00:30" in _page(r)
    service.set_clock(None)


def test_recorded_summary_and_time_errors_in_plain_french(
    client: Client, world: World, clock: Any
) -> None:
    clock("J2 10:00")
    gm = gm_client(client, world)
    url = reverse("gm_action", args=[world.game.slug, "rehearse"])
    r = gm.post(url, {"by": "Ana", "at": "J2 09:00"}, follow=True)
    text = _page(r)
    assert "Enregistré : Message aux Répétitions (1 événement)." in text
    assert "événement(s)" not in text
    r = gm.post(url, {"by": "Bob", "at": "demain"})
    text = _page(r)
    assert r.status_code == 400
    assert "heure illisible : « demain ». Écrivez « J3 10:00 »" in text
    assert "ISO 8601" not in text and "'demain'" not in text
    r = gm.post(url, {"by": "Bob", "at": "J30 10:00"})
    assert "heure invalide : « J30 10:00 »." in _page(r)


def test_todo_buttons_come_back_to_their_item_and_overdue_is_marked(
    client: Client, world: World, clock: Any
) -> None:
    from ronde.web.games.views_gm import item_key

    clock("J2 10:00")
    gm = gm_client(client, world)
    dash = reverse("gm_dashboard", args=[world.game.slug])
    v = service.view_for(world.game, "game_master")
    ruling = next(w for w in v["work"] if w["action"] == "record_constraint")
    item = next(w for w in v["work"] if w["action"] == "set_theme")
    key = item_key(2, item)
    page = _page(gm.get(dash))
    assert f'id="todo-{key}"' in page
    assert "J2 10:00</strong>." in page and "jour J2" not in page  # said once
    r = gm.post(reverse("gm_todo", args=[world.game.slug]), {"key": key, "op": "take"})
    assert r.status_code == 302 and r["Location"] == f"{dash}#todo-{key}"
    # the day's constraints are one list: its submit comes back to it
    assert 'id="contraintes"' in page and f'value="{ruling["args"]["player"]}"' in page
    r = gm.post(
        reverse("gm_constraints", args=[world.game.slug]),
        {"day": "2", "player": ruling["args"]["player"]},
    )
    assert r.status_code == 302 and r["Location"] == f"{dash}#contraintes"
    # a key that is not ours goes to the list's heading
    r = gm.post(reverse("gm_todo", args=[world.game.slug]), {"key": "x'><b", "op": "take"})
    assert r["Location"] == f"{dash}#todo-h"
    # an item whose deadline has passed says so; the others do not
    assert "(dépassée)" not in _page(gm.get(dash))
    from ronde.web.games import views_gm

    choices = views_gm._choices(world.game, v)
    now = views_gm._work(Any, world.game, v, choices, now=at("J2 10:00"))
    assert not any(w["late"] for w in now)
    later = views_gm._work(Any, world.game, v, choices, now=at("J3 01:00"))
    assert [w["late"] for w in later if w["deadline_at"]] and all(
        w["late"] for w in later if w["deadline_at"]
    )


def test_a_struck_request_is_no_longer_shown_as_accepted(
    client: Client, world: World, clock: Any
) -> None:
    clock("J2 10:00")
    client.force_login(world.users["Ana"])
    r = client.post(
        reverse("player_request", args=[world.game.slug, "open_trial"]),
        {"against": "Bob", "as": "woody", "arguments": "Il pose trop de questions."},
    )
    assert r.status_code == 302
    req = Request.objects.get(game=world.game, action="open_trial")
    gm = gm_client(Client(), world)
    dash = _page(gm.get(reverse("gm_dashboard", args=[world.game.slug])))
    # the game masters read the arguments they may have to post
    assert "Il pose trop de questions." in dash
    r = gm.post(reverse("gm_request", args=[world.game.slug, req.pk, "accept"]))
    assert r.status_code == 302
    page = _page(client.get(reverse("player", args=[world.game.slug])))
    mine = page[page.index('id="demandes"') :]
    assert "acceptée" in mine and "annulée par les MJ" not in mine
    action = Action.objects.get(game=world.game, request=req)
    preview = service.preview_strike(world.game, action)
    reason = "Bob est Woody, erreur"
    out = service.strike(world.game, action, reason, world.gms["Mj"], preview.token)
    assert out.ok
    page = _page(client.get(reverse("player", args=[world.game.slug])))
    mine = _visible(page[page.index('id="demandes"') :])
    assert "acceptée, puis annulée par les MJ (action rayée)" in mine
    assert "Bob est Woody" not in page  # the reason is the game masters' note


def test_empty_score_details_and_the_joker_form_explained(
    client: Client, world: World, clock: Any
) -> None:
    clock("J2 10:00")
    gm = gm_client(client, world)
    page = _page(gm.get(reverse("gm_scores", args=[world.game.slug])))
    assert "0 lignes" not in page and "aucune ligne" in page
    player = Client()
    player.force_login(world.users["Ana"])  # Alice has Jokers
    page = _page(player.get(reverse("player", args=[world.game.slug])))
    joker = page[page.index('id="power-use_joker"') :]
    joker = joker[: joker.index("</details>")]
    assert "Un Joker vous dispense de votre contrainte pour un jour." in joker
    assert "Jokers restants : 2." in joker


def test_invitation_keeps_the_pseudo_inside_its_quotes(db: Any, world: World) -> None:
    from ronde.web.games import accounts

    inv = accounts.invite(world.game, world.member("Ana"))
    page = _page(Client().get(reverse("invitation", args=[inv.token])))
    assert "la place de joueur «\u00a0Ana\u00a0»" in page
    assert "«\u00a0Partie de test\u00a0»" in page
    gm = gm_client(Client(), world)
    page = _page(gm.get(reverse("gm_invitations", args=[world.game.slug])))
    assert "«\u00a0Nouveau lien\u00a0»" in page and "« Nouveau lien »" not in page


def test_seats_in_french_order_and_unmasked_characters_kept(
    client: Client, world: World, clock: Any
) -> None:
    from ronde.web.games import accounts
    from ronde.web.games.views_gm import _by_pseudo

    clock("J2 10:00")
    accounts.add_player(world.game, "Élodie")
    accounts.add_player(world.game, "dédé")
    names = [m.pseudo for m in _by_pseudo(world.game.memberships.all())]
    assert names.index("dédé") < names.index("Élodie") < names.index("Fay")
    gm = gm_client(client, world)
    page = _page(gm.get(reverse("gm_players", args=[world.game.slug])))
    assert page.index("dédé") < page.index("Élodie") < page.index("Fay")
    # an unmasked player keeps his character in « Tous les joueurs »
    out = service.record(
        world.game, None, "record_constraint", "Mj", {"player": "Bob", "day": 2, "met": False}
    )
    assert out.ok
    clock("J3 10:00")
    v = service.view_for(world.game, "game_master")
    unmasked = [p for p in v["players"] if not p["masked"] and p["original"]]
    assert unmasked
    page = _page(gm.get(reverse("gm_dashboard", args=[world.game.slug])))
    every = page[page.index("Tous les joueurs") :]
    from ronde.web.games.templatetags.ronde import character

    for p in unmasked:
        assert f"{character(p['original'])} (démasqué)" in every
    # the Jokers' column says so when none was used
    duties = page[page.index('id="duties-h"') : page.index("Tous les joueurs")]
    assert "Jokers utilisés" in duties and ">aucun</span>" in duties


def test_the_chorus_page_speaks_of_votes(client: Client, world: World, clock: Any) -> None:
    clock("J2 10:00")
    out = service.record(
        world.game, None, "record_constraint", "Mj", {"player": "Bob", "day": 2, "met": False}
    )
    assert out.ok
    clock("J3 10:00")
    assert not service.view_for(world.game, "Bob")["me"]["masked"]
    client.force_login(world.users["Bob"])
    r = client.get(reverse("chorus", args=[world.game.slug]))
    assert r.status_code == 200
    page = _page(r)
    assert "Aucun vote envoyé." in page and "Aucune demande." not in page


def test_the_players_day_tabs_show_the_day_read_and_the_guess_is_explained(
    client: Client, world: World, clock: Any
) -> None:
    clock("J3 10:00")
    client.force_login(world.users["Ana"])
    page = _page(client.get(reverse("player", args=[world.game.slug]), {"jour": "2"}))
    tabs = re.findall(r'<nav class="tabs"[^>]*>(.*?)</nav>', page, flags=re.S)
    assert tabs and any('href="?jour=2#' in t and 'aria-current="page"' in t for t in tabs)
    # the style that shows it is the players' too, not only the console's
    # (the stylesheet the page links: no inline style under the Content-Security-Policy)
    assert "ronde/ronde.css" in page
    from django.contrib.staticfiles import finders

    sheet = finders.find("ronde/ronde.css")
    assert sheet is not None
    style = Path(str(sheet)).read_text(encoding="utf-8")
    assert ".tabs a[aria-current]" in style
    guess = page[page.index('id="power-guess_ronde"') :]
    assert "Chaque case de la Ronde une fois" in guess[: guess.index("</details>")]


def test_no_second_joker_offered_once_today_is_covered(
    client: Client, world: World, clock: Any
) -> None:
    clock("J2 10:00")
    client.force_login(world.users["Ana"])
    page = _page(client.get(reverse("player", args=[world.game.slug])))
    assert 'id="power-use_joker"' in page
    out = service.record(world.game, None, "use_joker", "Ana", {"items": ["item_cards"]})
    assert out.ok, out.message
    page = _page(client.get(reverse("player", args=[world.game.slug])))
    today = _visible(page[page.index('id="aujourdhui"') : page.index("</section>")])
    assert "Elle ne compte pas aujourd'hui" in today and "Joker restant : 1." in today
    assert 'id="power-use_joker"' not in page and "Utiliser un Joker" not in today


def test_the_cast_is_entered_and_shown_by_french_names(client: Client, db: Any) -> None:
    from django.contrib.auth import get_user_model

    from ronde.web.games import accounts
    from ronde.web.games.models import Game

    service.clear_cache()
    mj = get_user_model().objects.create_user("Mj", password="motdepasse-mj")
    mj.user_permissions.add(accounts.organise_permission())
    client.force_login(mj)
    r = client.post(reverse("gm_home"), {"name": "Noms", "start": "2026-12-20", "gm_name": "Mj"})
    assert r.status_code == 302
    game = Game.objects.get(name="Noms")
    setup = reverse("gm_setup", args=[game.slug])
    cast = "Ana: Alice\nBob: Woody\nCid: petite sirene\nDan: Décorateurs\nEve: Figurant"
    client.post(setup, {"op": "cast", "cast": cast, "ronde": "Alice\nWoody\nPetite Sirène"})
    game.refresh_from_db()
    assert game.cast["Cid"] == "little_mermaid" and game.ronde[2] == "little_mermaid"
    page = _page(client.get(setup))
    assert "Cid: Petite Sirène" in page and "Dan: Décorateurs" in page
    assert "little_mermaid" not in _visible(page) and "alice (Alice)" not in page
    assert "Avocat du Diable" in page
