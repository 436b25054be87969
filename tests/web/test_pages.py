"""Every page and form, as each kind of viewer (Django test client)."""

from __future__ import annotations

import html
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from ronde.web.games import service, vocabulary
from ronde.web.games.models import Action, Event, Request

from .conftest import World, gm_client

pytestmark = pytest.mark.django_db


def text(r: Any) -> str:
    """The page's HTML with entities decoded."""
    return html.unescape(r.content.decode())


def post_action(client: Client, world: World, action: str, **data: Any) -> Any:
    url = reverse("gm_action", args=[world.game.slug, action])
    if vocabulary.BY_NAME[action].forum and "at" not in data:
        data["at"] = service.now().isoformat()  # a forum post's time is required
    return client.post(url, {k: v for k, v in data.items() if v is not None})


def counts(world: World) -> tuple[int, int]:
    return Event.objects.filter(game=world.game).count(), Action.objects.filter(
        game=world.game
    ).count()


def open_and_complain(client: Client, world: World, clock: Any, n: int = 4) -> None:
    """Ana (Alice) accuses Bob as Woody on J2; ``n`` players complain."""
    clock("J2 10:00")
    r = post_action(client, world, "open_trial", by="Ana", against="Bob", **{"as": "woody"})
    assert r.status_code == 302, text(r)
    for i, who in enumerate(["Hal", "Gus", "Fay", "Eve"][:n]):
        clock(f"J2 11:0{i}")
        r = post_action(client, world, "complain", by=who, trial=1)
        assert r.status_code == 302, (who, text(r))


# -- access ------------------------------------------------------------------------------


def test_public_board_needs_no_login(client: Client, world: World) -> None:
    r = client.get(reverse("public", args=[world.game.slug]))
    assert r.status_code == 200
    assert "Partie de test" in text(r)


def test_home_lists_games(client: Client, world: World) -> None:
    r = client.get(reverse("home"))
    assert r.status_code == 200 and "Partie de test" in text(r)
    client.force_login(world.users["Ana"])
    assert reverse("player", args=[world.game.slug]) in text(client.get(reverse("home")))


def test_player_page_needs_login(client: Client, world: World) -> None:
    url = reverse("player", args=[world.game.slug])
    r = client.get(url)
    assert r.status_code == 302 and reverse("login") in r["Location"]


def test_gm_pages_refuse_players_and_strangers(client: Client, world: World) -> None:
    client.force_login(world.users["Ana"])
    for name in ("gm_dashboard", "gm_actions", "gm_journal", "gm_scores", "gm_players"):
        assert client.get(reverse(name, args=[world.game.slug])).status_code == 404, name


def test_player_pages_refuse_game_masters(client: Client, world: World) -> None:
    gm_client(client, world)
    assert client.get(reverse("player", args=[world.game.slug])).status_code == 404


def test_login_with_password(client: Client, world: World) -> None:
    r = client.post(reverse("login"), {"username": "Ana", "password": "motdepasse-joueur"})
    assert r.status_code == 302
    assert client.get(reverse("player", args=[world.game.slug])).status_code == 200


# -- game masters ------------------------------------------------------------------------


def test_every_gm_page_renders(client: Client, world: World, clock: Any) -> None:
    gm_client(client, world)
    open_and_complain(client, world, clock, n=2)
    headings = {
        "gm_dashboard": "<h1>Partie de test — tableau de bord</h1>",
        "gm_actions": "<h1>Enregistrer une action</h1>",
        "gm_journal": "<h1>Journal — J",  # (the journal opens on today)
        "gm_scores": "<h1>Classement en direct</h1>",
        "gm_players": "<h1>Joueurs et invitations</h1>",
    }
    for name, heading in headings.items():
        r = client.get(reverse(name, args=[world.game.slug]))
        assert r.status_code == 200, name
        assert heading in text(r), name
    r = client.get(reverse("gm_dashboard", args=[world.game.slug]), HTTP_HX_REQUEST="true")
    assert r.status_code == 200 and "<html" not in text(r)
    for spec in ("open_trial", "complain", "record_constraint", "award", "end_game"):
        r = client.get(reverse("gm_action", args=[world.game.slug, spec]))
        assert r.status_code == 200, spec


def test_dashboard_shows_open_trial_counts(client: Client, world: World, clock: Any) -> None:
    gm_client(client, world)
    open_and_complain(client, world, clock, n=2)
    html = text(client.get(reverse("gm_dashboard", args=[world.game.slug])))
    assert 'id="gm-trial-1"' in html
    row = html.split('id="gm-trial-1"')[1].split("</tr>")[0]
    assert "<td>2</td>" in row  # two valid complaints
    assert "J3 10:00" in row  # the deadline


def test_trial_to_verdict_and_announcement(client: Client, world: World, clock: Any) -> None:
    gm_client(client, world)
    open_and_complain(client, world, clock, n=4)
    v = service.view_for(world.game, "game_master")
    assert v["trials"][0]["status"] == "just"
    before = _trial_card(Client().get(reverse("public", args=[world.game.slug])), 1)
    assert "juste" not in before.lower() and "JUSTE" not in before  # not announced yet
    clock("J2 12:00")
    r = post_action(client, world, "announce", trial=1)
    assert r.status_code == 302
    page = Client().get(reverse("public", args=[world.game.slug]))
    card = _trial_card(page, 1)
    assert '<span class="pill just">juste</span>' in card, card
    assert "<td>Bob</td><td>Woody</td>" in text(page)  # among the unmasked
    assert "J2 12:00 — Procès n°1 : JUSTE." in text(page)


def _trial_card(r: Any, number: int) -> str:
    """The public board's section of trial ``number``."""
    page = text(r)
    start = page.index(f'id="trial-{number}"')
    return page[start : page.index("</section>", start)]


def test_a_verdict_waiting_for_its_announcement_is_shown_in_french(
    client: Client, world: World, clock: Any
) -> None:
    gm_client(client, world)
    open_and_complain(client, world, clock, n=4)
    card = _trial_card(Client().get(reverse("public", args=[world.game.slug])), 1)
    assert ">concluded<" not in card, card


def test_events_are_recorded_with_the_game_master(client: Client, world: World, clock: Any) -> None:
    gm_client(client, world, "Mj2")
    clock("J2 10:00")
    post_action(client, world, "open_trial", by="Ana", against="Bob", **{"as": "woody"})
    a = Action.objects.get(game=world.game, action="open_trial")
    assert a.recorded_by == world.gms["Mj2"] and a.by == "Ana"
    assert Event.objects.filter(action=a, type="trial_opened").count() == 1
    html = text(client.get(reverse("gm_journal", args=[world.game.slug])))
    assert "Mj2" in html and "Procès n°1 ouvert par Ana" in html


def test_refused_action_shows_engine_message_and_changes_nothing(
    client: Client, world: World, clock: Any
) -> None:
    gm_client(client, world)
    clock("J1 10:00")
    service.current(world.game)  # nothing due
    before = counts(world)
    r = post_action(client, world, "open_trial", by="Ana", against="Bob", **{"as": "woody"})
    assert r.status_code == 400
    html = text(r)
    assert "Les Procès commencent au J2." in html  # the engine's French message
    assert "out_of_window" not in html  # (its code is for the log, not for people)
    assert counts(world) == before


def test_malformed_input_is_refused_in_french(client: Client, world: World, clock: Any) -> None:
    gm_client(client, world)
    clock("J2 10:00")
    service.current(world.game)
    before = counts(world)
    r = post_action(client, world, "record_constraint", player="Bob", day="trois", met="on")
    assert r.status_code == 400
    assert "n'est pas un nombre entier" in text(r)
    r = post_action(client, world, "complain", by="Hal", trial=42)
    assert r.status_code == 400 and "Procès inconnu : 42." in text(r)
    r = post_action(client, world, "complain", trial=1)
    assert r.status_code == 400 and "Choisissez un joueur" in text(r)
    r = post_action(client, world, "award", player="Bob", points=10, reason="x", at="J9 10:00")
    assert r.status_code == 400 and "futur" in text(r)
    assert counts(world) == before


def test_unknown_action_is_404(client: Client, world: World) -> None:
    gm_client(client, world)
    assert client.get(reverse("gm_action", args=[world.game.slug, "fly"])).status_code == 404


def test_scoreboard_explains_each_line(client: Client, world: World, clock: Any) -> None:
    gm_client(client, world)
    open_and_complain(client, world, clock, n=4)
    html = text(client.get(reverse("gm_scores", args=[world.game.slug])))
    row = html[html.index("<td>Ana</td>") : html.index("</tr>", html.index("<td>Ana</td>"))]
    # Ana opened a true accusation that became JUST: +100 for the opening (R9.1), ...
    assert "<td>380</td>" in row, row
    assert "+100 — Procès n°1 : ouverture, accusation vraie" in row, row
    assert "[R9.1]" in row, row


# -- timers ------------------------------------------------------------------------------


def test_deadline_applied_when_a_page_is_read(client: Client, world: World, clock: Any) -> None:
    gm_client(client, world)
    open_and_complain(client, world, clock, n=2)
    assert not Event.objects.filter(game=world.game, type="trial_ended").exists()
    clock("J3 10:05")
    Client().get(reverse("public", args=[world.game.slug]))
    ended = Event.objects.get(game=world.game, type="trial_ended")
    assert ended.data["status"] == "lapsed" and ended.recorded_by is None


def test_tick_command_applies_due_timers(world: World, clock: Any) -> None:
    from django.core.management import call_command

    clock("J3 00:30")
    call_command("ronde_tick")
    closed = Event.objects.filter(game=world.game, type="day_closed").values_list(
        "data__day", flat=True
    )
    assert sorted(closed) == [1, 2]


# -- players -----------------------------------------------------------------------------


def test_player_sees_his_character_after_j1(client: Client, world: World, clock: Any) -> None:
    client.force_login(world.users["Bob"])
    url = reverse("player", args=[world.game.slug])
    html = text(client.get(url))
    assert "Les rôles sont révélés à la fin du J1" in html
    clock("J2 09:00")
    html = text(client.get(url))
    assert "Woody" in html
    assert "Poser une question (Woody)" in html  # his power
    assert "Endormir" not in html  # Pierrot's


def test_player_request_accepted_at_request_time(client: Client, world: World, clock: Any) -> None:
    gm = Client()
    gm_client(gm, world)
    open_and_complain(gm, world, clock, n=1)
    clock("J2 12:00")
    client.force_login(world.users["Dan"])
    r = client.post(
        reverse("player_request", args=[world.game.slug, "complain"]),
        {"trial": "1", "anonymous": "on"},
    )
    assert r.status_code == 302
    req = Request.objects.get(membership__pseudo="Dan")
    assert req.status == "pending" and req.args == {"trial": 1, "anonymous": True}
    html = text(gm.get(reverse("gm_dashboard", args=[world.game.slug])))
    assert f'id="req-{req.pk}"' in html
    clock("J2 15:00")
    r = gm.post(reverse("gm_request", args=[world.game.slug, req.pk, "accept"]))
    assert r.status_code == 302
    req.refresh_from_db()
    assert req.status == "accepted"
    a = Action.objects.get(request=req)
    assert a.at == req.created_at and a.by == "Dan" and a.recorded_by == world.gms["Mj"]
    html = text(client.get(reverse("player", args=[world.game.slug])))
    assert "acceptée" in html
    # others do not see who complained anonymously
    other = Client()
    other.force_login(world.users["Jo"])
    trial = text(other.get(reverse("player", args=[world.game.slug])))
    assert "Dan" not in trial.split('id="trial-1"')[1].split("</section>")[0]


def test_request_refused_by_the_rules(client: Client, world: World, clock: Any) -> None:
    gm = Client()
    gm_client(gm, world)
    clock("J2 12:00")
    client.force_login(world.users["Bob"])
    # the portal no longer offers it (Woody asks about others) …
    client.post(
        reverse("player_request", args=[world.game.slug, "ask"]), {"player": "Bob", "as": "alice"}
    )
    assert not Request.objects.filter(membership__pseudo="Bob").exists()
    # … but a request sent before the game changed is still judged by the rules
    req = Request.objects.create(
        game=world.game,
        membership=world.member("Bob"),
        action="ask",
        args={"player": "Bob", "as": "alice"},
        created_at=service.now(),
    )
    gm.post(reverse("gm_request", args=[world.game.slug, req.pk, "accept"]))
    req.refresh_from_db()
    assert req.status == "refused" and req.message
    assert not Action.objects.filter(game=world.game).exists()


def test_request_refused_by_a_game_master(client: Client, world: World, clock: Any) -> None:
    gm = Client()
    gm_client(gm, world)
    clock("J2 12:00")
    client.force_login(world.users["Cid"])
    client.post(
        reverse("player_request", args=[world.game.slug, "put_to_sleep"]), {"player": "Bob"}
    )
    req = Request.objects.get(membership__pseudo="Cid")
    gm.post(
        reverse("gm_request", args=[world.game.slug, req.pk, "refuse"]), {"reason": "trop tard"}
    )
    req.refresh_from_db()
    assert (req.status, req.message) == ("refused", "trop tard")
    assert "trop tard" in text(client.get(reverse("player", args=[world.game.slug])))


def test_player_cannot_request_another_characters_power(
    client: Client, world: World, clock: Any
) -> None:
    clock("J2 12:00")
    client.force_login(world.users["Ana"])
    client.post(
        reverse("player_request", args=[world.game.slug, "put_to_sleep"]), {"player": "Bob"}
    )
    assert not Request.objects.exists()


def test_withdraw_request(client: Client, world: World, clock: Any) -> None:
    clock("J2 12:00")
    client.force_login(world.users["Cid"])
    client.post(
        reverse("player_request", args=[world.game.slug, "put_to_sleep"]), {"player": "Bob"}
    )
    req = Request.objects.get()
    client.post(reverse("player_withdraw", args=[world.game.slug, req.pk]))
    req.refresh_from_db()
    assert req.status == "withdrawn"


def test_own_score_only_with_house_rule(client: Client, db: Any, clock: Any) -> None:
    from .conftest import make_world

    service.clear_cache()
    w = make_world(options={"A70": "own_score"})
    clock("J2 09:00")
    client.force_login(w.users["Ana"])
    assert "Mes points" in text(client.get(reverse("player", args=[w.game.slug])))


def test_no_score_by_default(client: Client, world: World, clock: Any) -> None:
    clock("J2 09:00")
    client.force_login(world.users["Ana"])
    assert "Mes points" not in text(client.get(reverse("player", args=[world.game.slug])))


def test_chorus_page(client: Client, world: World, clock: Any) -> None:
    gm = Client()
    gm_client(gm, world)
    open_and_complain(gm, world, clock, n=4)  # Bob is unmasked
    client.force_login(world.users["Bob"])
    # not before the verdict is announced (A77 frozen)
    assert client.get(reverse("chorus", args=[world.game.slug])).status_code == 404
    clock("J2 12:00")
    assert post_action(gm, world, "announce", trial=1).status_code == 302
    r = client.get(reverse("chorus", args=[world.game.slug]))
    assert r.status_code == 200
    html = text(r)
    assert "Chœur des Démasqués" in html and "Voter" in html
    other = Client()
    other.force_login(world.users["Ana"])
    assert other.get(reverse("chorus", args=[world.game.slug])).status_code == 404


# -- replacement, invitations ------------------------------------------------------------


def test_replace_player_keeps_seat_and_revokes_old_account(
    client: Client, world: World, clock: Any
) -> None:
    from django.contrib.auth import get_user_model

    gm_client(client, world)
    clock("J2 09:00")
    r = post_action(client, world, "replace_player", player="Bob", new="Zed")
    assert r.status_code == 302
    old = Client()
    old.force_login(world.users["Bob"])
    assert old.get(reverse("player", args=[world.game.slug])).status_code == 404
    zed = world.member("Zed")
    assert zed.user is None  # the seat waits for whoever accepts its invitation
    inv = zed.invitations.get()
    new = Client()
    r = new.post(
        reverse("invitation", args=[inv.token]),
        {"username": "Zed", "password1": "un-long-secret-42", "password2": "un-long-secret-42"},
    )
    assert r.status_code == 302
    zed.refresh_from_db()
    assert zed.user == get_user_model().objects.get(username="Zed")
    html = text(new.get(reverse("player", args=[world.game.slug])))
    assert "Woody" in html and "Zed" in html


def test_invitation_creates_an_account(client: Client, world: World) -> None:
    from ronde.web.games import accounts

    seat = accounts.add_player(world.game, "Nouveau")
    inv = seat.invitations.get()
    url = reverse("invitation", args=[inv.token])
    page = client.get(url)
    assert page.status_code == 200 and 'value="Nouveau"' in text(page)
    r = client.post(
        url,
        {"username": "Nouveau", "password1": "un-long-secret-42", "password2": "un-long-secret-42"},
    )
    assert r.status_code == 302 and r["Location"] == reverse("player", args=[world.game.slug])
    assert client.get(url).status_code == 410
    assert Client().login(username="nouveau", password="un-long-secret-42")


def test_invitation_refuses_different_passwords(client: Client, world: World) -> None:
    from ronde.web.games import accounts

    inv = accounts.add_player(world.game, "Nouveau").invitations.get()
    r = client.post(
        reverse("invitation", args=[inv.token]),
        {"username": "Nouveau", "password1": "un-long-secret-42", "password2": "autre-chose-42"},
    )
    assert r.status_code == 200
    inv.refresh_from_db()
    assert inv.used_at is None


# -- corrections -------------------------------------------------------------------------


def test_strike_rebuilds_without_the_action(client: Client, world: World, clock: Any) -> None:
    gm_client(client, world)
    open_and_complain(client, world, clock, n=4)
    clock("J2 13:00")
    fourth = Action.objects.get(game=world.game, action="complain", by="Eve")
    url = reverse("gm_strike", args=[world.game.slug, fourth.pk])
    r = client.get(url)
    html = text(r)
    assert r.status_code == 200
    assert "Procès n°1 : just" in html  # the verdict disappears
    before = Event.objects.filter(game=world.game).count()
    world.game.refresh_from_db()
    r = client.post(url, {"reason": "plainte postée hors délai", "token": world.game.version})
    assert r.status_code == 302
    world.game.refresh_from_db()
    assert world.game.generation == 2
    assert Event.objects.filter(game=world.game).count() >= before  # nothing deleted
    assert Event.objects.filter(action=fourth, type="complaint_filed").exists()
    assert len(service.stored_events(world.game)) < before
    fourth.refresh_from_db()
    assert fourth.struck and fourth.strikes.get().reason == "plainte postée hors délai"
    v = service.view_for(world.game, "game_master")
    assert v["trials"][0]["status"] == "open"
    assert [c["author"] for c in v["trials"][0]["complaints"]] == ["Hal", "Gus", "Fay"]
    html = text(client.get(reverse("gm_journal", args=[world.game.slug])))
    assert "plainte postée hors délai" in html


def test_strike_with_stale_token_is_a_conflict(client: Client, world: World, clock: Any) -> None:
    gm_client(client, world)
    open_and_complain(client, world, clock, n=2)
    first = Action.objects.get(game=world.game, action="complain", by="Hal")
    world.game.refresh_from_db()
    token = world.game.version
    post_action(client, world, "complain", by="Fay", trial=1)
    r = client.post(
        reverse("gm_strike", args=[world.game.slug, first.pk]),
        {"reason": "erreur", "token": token},
        follow=True,
    )
    assert "Quelqu'un a enregistré avant vous" in text(r)
    first.refresh_from_db()
    assert not first.struck


def test_backdated_additive_action_is_inserted(client: Client, world: World, clock: Any) -> None:
    gm_client(client, world)
    open_and_complain(client, world, clock, n=2)
    clock("J2 14:00")
    r = post_action(client, world, "complain", by="Fay", trial=1, at="J2 10:30")
    assert r.status_code == 302
    v = service.view_for(world.game, "game_master")
    assert [c["author"] for c in v["trials"][0]["complaints"]] == ["Fay", "Hal", "Gus"]


def test_backdated_action_that_changes_a_verdict_needs_confirmation(
    client: Client, world: World, clock: Any
) -> None:
    gm_client(client, world)
    open_and_complain(client, world, clock, n=3)
    clock("J3 11:00")
    service.current(world.game)  # the trial lapsed at J3 10:00
    r = post_action(client, world, "complain", by="Eve", trial=1, at="J2 18:00")
    assert r.status_code == 200
    html = text(r)
    assert "Procès n°1 : annulé faute de plaintes" in html and "Confirmer" in html
    world.game.refresh_from_db()
    r = post_action(
        client, world, "complain", by="Eve", trial=1, at="J2 18:00", confirm=world.game.version
    )
    assert r.status_code == 302
    v = service.view_for(world.game, "game_master")
    assert v["trials"][0]["status"] == "just"


# -- setting a game up -------------------------------------------------------------------


def test_setup_flow(client: Client, db: Any, clock: Any) -> None:
    from django.contrib.auth import get_user_model

    from ronde.web.games.accounts import organise_permission
    from ronde.web.games.models import Game, Invitation

    user = get_user_model().objects.create_user("Organisatrice", password="motdepasse-mj")
    user.user_permissions.add(organise_permission())
    client.force_login(user)
    r = client.post(reverse("gm_home"), {"name": "Ronde de Noël", "start": "2026-12-01"})
    assert r.status_code == 302
    game = Game.objects.get(name="Ronde de Noël")
    url = reverse("gm_setup", args=[game.slug])
    assert client.get(url).status_code == 200
    post = (
        "Inscrits :\n1. Ana\n2. @Bob\n- Cid (de retour)\n* Dan\nEve\nFay\nGus\nHal\nIda\nJo\nJo\n"
    )
    client.post(url, {"op": "roster", "roster": post})
    game.refresh_from_db()
    assert game.roster[:4] == ["Ana", "Bob", "Cid", "Dan"] and game.roster.count("Jo") == 1
    client.post(url, {"op": "add_gm", "name": "Second"})
    client.post(
        url, {"op": "info", "name": "Ronde de Noël", "start": "2026-12-01", "opt_A70": "public"}
    )
    game.refresh_from_db()
    assert game.options == {"A70": "public"}
    client.post(url, {"op": "draw"})
    game.refresh_from_db()
    assert len(game.cast) == len(game.roster) and game.ronde
    r = client.post(url, {"op": "start"})
    assert r.status_code == 302
    game.refresh_from_db()
    assert game.started and game.memberships.count() == len(game.roster)
    assert Invitation.objects.filter(game=game).count() == len(game.roster) + 1  # + the 2nd GM
    assert Event.objects.get(game=game, seq=1).type == "game_created"
    assert client.get(reverse("gm_dashboard", args=[game.slug])).status_code == 200
    assert client.get(url).status_code == 302  # started: no more setup


def test_setup_refuses_a_bad_cast(client: Client, db: Any) -> None:
    from django.contrib.auth import get_user_model

    from ronde.web.games.models import Game

    user = get_user_model().objects.create_user("Orga", password="x")
    user.is_superuser = True  # the superuser may organise
    user.save()
    client.force_login(user)
    client.post(reverse("gm_home"), {"name": "Ronde", "start": "2026-12-01"})
    game = Game.objects.get()
    url = reverse("gm_setup", args=[game.slug])
    r = client.post(url, {"op": "cast", "cast": "Ana: alice\nBob: woody", "ronde": "alice"})
    r = client.post(url, {"op": "start"})
    assert r.status_code == 400
    assert "absent de la Ronde" in text(r)
    r = client.post(url, {"op": "cast", "cast": "Ana: licorne", "ronde": "alice"})
    assert r.status_code == 400 and "Personnage inconnu" in text(r)
    game.refresh_from_db()
    assert not game.started


# -- languages ---------------------------------------------------------------------------


def test_french_by_default_even_for_an_english_browser(client: Client, world: World) -> None:
    r = client.get(reverse("public", args=[world.game.slug]), HTTP_ACCEPT_LANGUAGE="en-US")
    assert "Tableau public" in text(r) and 'lang="fr"' in text(r)


def test_french_only_no_language_form(client: Client, world: World) -> None:
    page = text(client.get(reverse("public", args=[world.game.slug]), HTTP_ACCEPT_LANGUAGE="en"))
    assert 'lang="fr"' in page and 'name="language"' not in page


def test_health_is_a_bare_view(client: Client, db: Any) -> None:
    r = client.get(reverse("health"))
    assert r.status_code == 200 and r.content == b"ok"


def test_cached_fragments_carry_each_sessions_csrf_token(world: World, clock: Any) -> None:
    import re

    first = Client()
    gm_client(first, world, "Mj")
    open_and_complain(first, world, clock, n=4)
    clock("J2 12:00")
    url = reverse("gm_dashboard", args=[world.game.slug])
    first.get(url)  # fills the cache of this version
    second = Client(enforce_csrf_checks=True)
    second.force_login(world.gms["Mj2"])
    page = text(second.get(url))
    assert "__RONDE_CSRF_SLOT__" not in page
    form = page.split('id="gm-trial-1"')[1].split("</form>")[0]
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', form)
    assert token
    r = second.post(
        reverse("gm_action", args=[world.game.slug, "announce"]),
        {"trial": "1", "csrfmiddlewaretoken": token.group(1)},
    )
    assert r.status_code == 302


def test_a_correction_near_the_end_writes_only_what_changed(
    client: Client, world: World, clock: Any
) -> None:
    from ronde.web.games.models import Generation

    gm_client(client, world)
    open_and_complain(client, world, clock, n=2)
    clock("J2 14:00")
    before = service.stored_events(world.game)
    n_rows = Event.objects.filter(game=world.game).count()
    post_action(client, world, "complain", by="Fay", trial=1, at="J2 10:30")
    world.game.refresh_from_db()
    fork = Generation.objects.get(game=world.game, number=world.game.generation)
    assert fork.shared == len(before) - 2  # everything before Hal's complaint (J2 11:00)
    assert Event.objects.filter(game=world.game).count() == n_rows + 3  # Fay, Hal, Gus
    after = service.stored_events(world.game)
    assert [getattr(e, "author", "") for e in after[-3:]] == ["Fay", "Hal", "Gus"]
    html = text(client.get(reverse("gm_journal", args=[world.game.slug])))
    assert html.index("Plainte de Fay") < html.index("Plainte de Gus")
