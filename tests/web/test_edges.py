"""The console at the edges (issue 23): dates out of bounds, names longer than the store
keeps, a formset asked for 100,000 rows, a busy game, a game stored with dates out of
bounds. Never a 500 page, nothing recorded, a French answer (SQLite, and PostgreSQL
when ``DATABASE_URL`` is set: it refuses a 61st character where SQLite keeps it)."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.db import OperationalError
from django.urls import reverse

from ronde.web.games import service
from ronde.web.games.accounts import organise_permission
from ronde.web.games.models import Action, Event, Game, GameMaster, Membership
from tests.web.conftest import at, gm_client

pytestmark = pytest.mark.django_db


@pytest.fixture
def organiser(client: Any, clock: Any) -> Any:
    user = get_user_model().objects.create_user("Orga", password="motdepasse-orga")
    user.user_permissions.add(organise_permission())
    client.force_login(user)
    return client


def _counts() -> tuple[int, ...]:
    return tuple(m.objects.count() for m in (Game, GameMaster, Membership, Action, Event))


# -- dates -----------------------------------------------------------------------------------
@pytest.mark.parametrize("start", ["9999-12-31", "0001-01-01", "2101-01-01"])
def test_a_game_starting_out_of_bounds_is_refused_by_the_form(organiser: Any, start: str) -> None:
    r = organiser.post(reverse("gm_home"), {"name": "Loin", "start": start})
    assert r.status_code == 200
    assert "hors limites" in r.content.decode()
    assert not Game.objects.filter(name="Loin").exists()


def test_the_setup_page_refuses_a_start_out_of_bounds(organiser: Any) -> None:
    organiser.post(reverse("gm_home"), {"name": "Proche", "start": "2026-12-01"})
    game = Game.objects.get(name="Proche")
    r = organiser.post(
        reverse("gm_setup", args=[game.slug]),
        {"op": "info", "name": "Proche", "start": "9999-12-31"},
    )
    assert r.status_code == 400 and "hors limites" in r.content.decode()
    game.refresh_from_db()
    assert game.start.year == 2026


@pytest.mark.parametrize("when", ["31/12/9999 23:59", "01/01/0001 00:00", "0001-01-01T00:00"])
def test_a_form_time_at_the_calendars_edges_is_refused(world: Any, client: Any, when: str) -> None:
    c = gm_client(client, world)
    before = _counts()
    form = {"player": "Ana", "points": "1", "reason": "x", "at": when}
    r = c.post(reverse("gm_action", args=[world.game.slug, "award"]), form)
    assert r.status_code == 400, r.status_code
    page = r.content.decode()
    # (« 0001 » in a French date is read as 2001, as « 26 » is 2026: before the game)
    assert "hors limites" in page or "antérieure à la création" in page
    assert _counts() == before


def test_a_game_stored_with_dates_out_of_bounds_shows_a_french_page(
    world: Any, client: Any
) -> None:
    """A game stored before dates were bounded: its pages say so, never the error page."""
    created = Event.objects.get(game=world.game, seq=1)
    created.data = {**created.data, "start": "9999-12-31"}
    created.save(update_fields=["data"])
    Game.objects.filter(pk=world.game.pk).update(version="ancienne")
    service.clear_cache()
    c = gm_client(client, world)
    r = c.get(reverse("gm_dashboard", args=[world.game.slug]))
    assert r.status_code == 500
    page = r.content.decode()
    assert "<h1>Partie illisible</h1>" in page and "hors limites" in page
    # a page of the site like the others: it names who is logged in
    assert 'title="Mon compte">Mj</a>' in page


# -- lengths the store keeps -------------------------------------------------------------------
def test_a_61_character_game_master_is_refused_on_the_setup_page(organiser: Any) -> None:
    organiser.post(reverse("gm_home"), {"name": "Noms", "start": "2026-12-01"})
    game = Game.objects.get(name="Noms")
    before = _counts()
    r = organiser.post(reverse("gm_setup", args=[game.slug]), {"op": "add_gm", "name": "M" * 61})
    assert r.status_code == 400 and "trop long" in r.content.decode()
    assert _counts() == before


def test_a_61_character_pseudo_is_refused_at_the_start(organiser: Any) -> None:
    organiser.post(reverse("gm_home"), {"name": "Pseudos", "start": "2026-12-01"})
    game = Game.objects.get(name="Pseudos")
    url = reverse("gm_setup", args=[game.slug])
    roster = "\n".join(["Ana", "Bob", "Cid", "Dan", "Eve", "Fay", "Gus", "Hal", "P" * 61])
    organiser.post(url, {"op": "roster", "roster": roster})
    organiser.post(url, {"op": "draw"})
    before = _counts()
    r = organiser.post(url, {"op": "start"})
    assert r.status_code == 400 and "trop long" in r.content.decode()
    assert _counts() == before
    game.refresh_from_db()
    assert not game.started


def test_replace_player_with_a_61_character_pseudo_records_nothing(world: Any, client: Any) -> None:
    c = gm_client(client, world)
    before = _counts()
    form = {"player": "Ana", "new": "N" * 61}
    r = c.post(reverse("gm_action", args=[world.game.slug, "replace_player"]), form)
    assert r.status_code == 400 and "trop long" in r.content.decode()
    assert _counts() == before
    assert world.member("Ana").revoked_at is None


def test_the_batch_of_complaints_builds_at_most_40_rows(world: Any, client: Any) -> None:
    c = gm_client(client, world)
    service.record(
        world.game, None, "open_trial", "Ana", {"against": "Bob", "as": "woody"}, at=at("J1 09:00")
    )
    data = {
        "trial": "1",
        "form-TOTAL_FORMS": "100000",
        "form-INITIAL_FORMS": "0",
        "form-MIN_NUM_FORMS": "0",
        "form-MAX_NUM_FORMS": "40",
    }
    before = Action.objects.count()
    url = reverse("gm_complaints", args=[world.game.slug])
    r = c.post(url, data)
    assert r.status_code in (200, 400)
    assert len(r.context["rows"].forms) <= 40
    assert "au plus 40" in r.content.decode()
    assert Action.objects.count() == before


# -- a busy game ---------------------------------------------------------------------------------
@pytest.mark.parametrize("error", ["database is locked", "canceling statement due to lock timeout"])
def test_a_write_that_waited_too_long_gets_the_busy_page(
    world: Any, client: Any, monkeypatch: pytest.MonkeyPatch, error: str
) -> None:
    def locked(*args: Any, **kwargs: Any) -> Any:
        raise OperationalError(error)

    monkeypatch.setattr(service, "record", locked)
    c = gm_client(client, world)
    form = {"player": "Ana", "points": "1", "reason": "x"}
    r = c.post(reverse("gm_action", args=[world.game.slug, "award"]), form)
    assert r.status_code == 503
    assert r["Retry-After"]
    page = r.content.decode()
    assert "Partie occupée" in page and "réessayez" in page
