"""The game masters' day in the console: the work list (to-do items as data, taken or
ticked off), one verdict per constraint, preparations before J1, game time and the
journal's day tabs."""

from __future__ import annotations

import html
from typing import Any

from django.test import Client
from django.urls import reverse

from ronde.web.games import service
from ronde.web.games.models import Action, Game, TodoMark

from .conftest import World, at, gm_client


def _page(r: Any) -> str:
    return html.unescape(r.content.decode())


def test_work_items_are_data_sorted_by_deadline(client: Client, world: World, clock: Any) -> None:
    clock("J2 10:00")
    v = service.view_for(world.game, "game_master")
    work = v["work"]
    assert work and [w["text"] for w in work] == v["todo"]
    deadlines = [w["deadline_at"] for w in work if w["deadline_at"]]
    assert deadlines == sorted(deadlines)
    theme = next(w for w in work if w["action"] == "set_theme")
    assert theme["args"] == {"day": 2} and theme["deadline"] == "J3 00:00"
    ruling = next(w for w in work if w["action"] == "record_constraint")
    assert ruling["kind"] == "ruling" and ruling["args"]["day"] == 2
    assert ruling["player"] == ruling["args"]["player"]
    assert "réputée respectée" in ruling["consequence"]
    gm_client(client, world)
    page = _page(client.get(reverse("gm_dashboard", args=[world.game.slug])))
    assert "Donner le thème du J2 aux Figurants." in page
    assert "fin du J2" in page
    assert 'id="set_theme-w' in page  # its form, prefilled, on the dashboard
    assert "Cette nuit" in page and "À minuit" in page
    # the header shows the game's time, the full date on hover
    assert 'title="mercredi 2 décembre 2026, 10:00">J2 10:00</time></span>' in page


def test_a_game_master_takes_an_item_and_the_others_see_it(
    client: Client, world: World, clock: Any
) -> None:
    clock("J2 10:00")
    gm_client(client, world, "Mj2")
    url = reverse("gm_dashboard", args=[world.game.slug])
    page = _page(client.get(url))
    assert "Je m'en occupe" in page
    v = service.view_for(world.game, "game_master")
    from ronde.web.games.views_gm import item_key

    key = item_key(2, next(w for w in v["work"] if w["action"] == "set_theme"))
    r = client.post(reverse("gm_todo", args=[world.game.slug]), {"key": key, "op": "take"})
    assert r.status_code == 302
    other = Client()
    other.force_login(world.gms["Mj"])
    assert "pris par Mj2" in _page(other.get(url))
    other.post(reverse("gm_todo", args=[world.game.slug]), {"key": key, "op": "done"})
    mark = TodoMark.objects.get(game=world.game, key=key)
    assert mark.done_by == world.gms["Mj"] and mark.taken_by == world.gms["Mj2"]
    assert "fait par Mj" in _page(client.get(url))


def test_one_verdict_per_constraint(client: Client, world: World, clock: Any) -> None:
    gm_client(client, world)
    clock("J2 10:00")
    service.current(world.game)
    url = reverse("gm_action", args=[world.game.slug, "record_constraint"])
    back = reverse("gm_dashboard", args=[world.game.slug])
    r = client.post(url, {"player": "Bob", "day": "2", "next": back})
    assert r.status_code == 302
    first = Action.objects.get(game=world.game, action="record_constraint")
    assert first.args["met"] is False
    page = _page(client.get(back))
    judged = page[page.index('id="contraintes"') :]
    bob = judged[judged.index("<strong>Bob</strong>") :].split("</tr>")[0]
    assert "jugée non respectée" in bob and "Corriger" in bob
    # the same verdict again records nothing
    clock("J2 10:05")
    r = client.post(url, {"player": "Bob", "day": "2", "next": back}, follow=True)
    assert "déjà jugée non respectée" in _page(r)
    assert Action.objects.filter(game=world.game, action="record_constraint").count() == 1
    # the opposite asks for confirmation and a reason ...
    r = client.post(url, {"player": "Bob", "day": "2", "met": "on", "next": back})
    assert r.status_code == 200 and "Contrainte déjà jugée" in _page(r)
    assert Action.objects.filter(game=world.game, action="record_constraint").count() == 1
    token = r.context["token"]
    data = {"player": "Bob", "day": "2", "met": "on", "next": back, "correct": str(first.pk)}
    r = client.post(url, {**data, "strike_token": token, "reason": ""})
    assert r.status_code == 400 and "Donnez la raison" in _page(r)
    # ... and then strikes the first: never two verdicts
    r = client.post(url, {**data, "strike_token": token, "reason": "preuve reçue"})
    assert r.status_code == 302, _page(r)[-1500:]
    first.refresh_from_db()
    assert first.struck and first.strikes.get().reason == "preuve reçue"
    live = Action.objects.filter(game=world.game, action="record_constraint", struck=False)
    assert [a.args["met"] for a in live] == [True]
    v = service.view_for(world.game, "game_master")
    judged = _page(client.get(back))
    bob = judged[judged.index("<strong>Bob</strong>", judged.index('id="contraintes"')) :]
    assert "jugée respectée" in bob.split("</tr>")[0]
    assert v["day"] == 2


def test_preparations_before_j1(client: Client, db: Any, clock: Any) -> None:
    from django.contrib.auth import get_user_model

    service.clear_cache()
    clock("J1 09:00")
    from ronde.web.games.accounts import organise_permission

    user = get_user_model().objects.create_user("Mj", password="motdepasse-mj")
    user.user_permissions.add(organise_permission())  # creating games needs it (issue 9)
    client.force_login(user)
    # two days before J1 (J1 is 2026-12-01)
    service.set_clock(at("J1 10:00").replace(day=28, month=11))
    r = client.post(reverse("gm_home"), {"name": "Avant", "start": "2026-12-01", "gm_name": "Mj"})
    assert r.status_code == 302
    game = Game.objects.get(name="Avant")
    setup = reverse("gm_setup", args=[game.slug])
    cast = "\n".join(
        f"{p}: {c}"
        for p, c in [
            ("Ana", "alice"),
            ("Bob", "woody"),
            ("Gus", "guignol"),
            ("Mo", "mime"),
            ("Ida", "extra"),
            ("Jo", "extra"),
        ]
    )
    client.post(setup, {"op": "cast", "cast": cast, "ronde": "alice\nwoody\nguignol\nmime"})
    r = client.post(setup, {"op": "start"})
    assert r.status_code == 302
    page = _page(client.get(reverse("gm_dashboard", args=[game.slug])))
    assert "La partie commence le mardi 1 décembre 2026" in page
    assert "Donner le thème du J1 aux Figurants." in page
    assert "lui donner sa contrainte secrète" in page and "lui désigner son modèle" in page
    for name, data in (
        ("set_theme", {"day": "1", "theme": "la brume"}),
        ("assign_mime_target", {"player": "Ana"}),
        ("set_guignol_constraint", {"text": "parler en alexandrins"}),
    ):
        r = client.post(reverse("gm_action", args=[game.slug, name]), data)
        assert r.status_code == 302, _page(r)[-1500:]
    page = _page(client.get(reverse("gm_dashboard", args=[game.slug])))
    assert "Donner le thème du J1" not in page
    assert "lui donner sa contrainte secrète" not in page


def test_journal_opens_on_today_with_day_tabs(client: Client, world: World, clock: Any) -> None:
    gm_client(client, world)
    clock("J2 10:00")
    out = service.record(world.game, None, "rehearse", "Ana", {}, at=at("J2 09:00"))
    assert out.ok
    clock("J3 10:00")
    out = service.record(world.game, None, "rehearse", "Bob", {}, at=at("J3 09:00"))
    assert out.ok
    url = reverse("gm_journal", args=[world.game.slug])
    page = _page(client.get(url))
    assert "Bob aux Répétitions" in page and "Ana aux Répétitions" not in page
    assert 'aria-current="page">J3 (aujourd\'hui)' in page
    assert ">J3 09:00</time>" in page and 'title="jeudi 3 décembre 2026, 09:00"' in page
    page = _page(client.get(url + "?jour=2"))
    assert "Ana aux Répétitions" in page and "Bob aux Répétitions" not in page
    page = _page(client.get(url + "?jour=tous"))
    assert "Ana aux Répétitions" in page and "Bob aux Répétitions" in page


def test_midnight_forecast_is_read_only(client: Client, world: World, clock: Any) -> None:
    from ronde.web.games import nights
    from ronde.web.games.models import Event

    clock("J2 09:00")
    out = service.record(world.game, None, "open_trial", "Ana", {"against": "Bob", "as": "woody"})
    assert out.ok
    clock("J3 08:00")
    eng = service.current(world.game)
    stored = Event.objects.filter(game=world.game).count()
    day, lines = nights.next_midnight(eng)
    assert day == 3
    assert any(
        x.kind == "trial" and "Procès n°1 : annulé faute de plaintes" in x.text for x in lines
    )
    assert Event.objects.filter(game=world.game).count() == stored
    assert service.view_for(world.game, "game_master")["trials"][0]["status"] == "open"
    gm_client(client, world)
    page = _page(client.get(reverse("gm_dashboard", args=[world.game.slug])))
    assert "J3 09:00" in page and "Procès n°1 : annulé faute de plaintes" in page
