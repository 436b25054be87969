"""The store behind the pages: replay, rebuild from recorded actions, generations."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

import pytest

from ronde.engine.clock import parse_time
from ronde.engine.views import view
from ronde.web.games import demo, service
from ronde.web.games.models import Action

pytestmark = pytest.mark.django_db
START = date(2026, 12, 1)


def test_a_simulated_game_rebuilt_from_its_actions_is_the_same(clock: Any) -> None:
    service.clear_cache()
    t = parse_time("J6 18:00", START)
    game = demo.store(demo.play_until(t, start=START, seed=8), slug="rebuild", name="R")
    clock("J6 18:00")
    stored = service.stored_events(game)
    assert [e.TYPE for e in stored] == [e.TYPE for e in service.load(game).log]
    rehearsal = Action.objects.filter(game=game, action="rehearse").order_by("at").last()
    assert rehearsal is not None
    out = service.preview_strike(game, rehearsal)
    assert out.preview is not None
    assert [e.TYPE for e in out.preview.removed] == ["rehearsed"]
    assert out.preview.added == [] and out.preview.newly_refused == []
    before = view(service.load(game).state, "game_master")
    gm = game.game_masters.first()
    assert gm is not None
    done = service.strike(game, rehearsal, "posté dans le mauvais sujet", gm.user, out.token)
    assert done.ok
    service.clear_cache()
    after = view(service.current(game).state, "game_master")
    assert len(service.stored_events(game)) == len(stored) - 1
    assert after["trials"] == before["trials"] and after["scoreboard"] == before["scoreboard"]


# -- what game masters read after a write (issue 31: mutants of service.py) ---------------


def _page(r: Any) -> str:
    import html

    return html.unescape(r.content.decode())


@pytest.mark.django_db
def test_a_game_master_is_told_what_was_recorded_while_he_filled_his_form(
    world: Any, clock: Any
) -> None:
    import re

    from django.test import Client
    from django.urls import reverse

    from .conftest import gm_client

    clock("J2 10:00")
    slug = world.game.slug
    url = reverse("gm_action", args=[slug, "open_trial"])
    mj = gm_client(Client(), world, "Mj")
    form = re.search(r'name="seen" value="(\d+)"', _page(mj.get(url)))
    assert form is not None
    # meanwhile the other game master awards a point
    mj2 = gm_client(Client(), world, "Mj2")
    award = {"player": "Cid", "points": "1", "reason": "bon mot"}
    assert mj2.post(reverse("gm_action", args=[slug, "award"]), award).status_code == 302
    data = {"by": "Ana", "against": "Bob", "as": "woody", "at": service.now().isoformat()}
    page = _page(mj.post(url, {**data, "seen": form.group(1)}, follow=True))
    assert re.search(r"\b1 événement enregistré entre-temps \(un autre MJ, une échéance\)", page)
    assert Action.objects.filter(game=world.game, action="open_trial").count() == 1


@pytest.mark.django_db
def test_the_journal_names_who_struck_an_action(world: Any, clock: Any) -> None:
    import re

    from django.test import Client
    from django.urls import reverse

    from .conftest import gm_client

    clock("J2 10:00")
    slug = world.game.slug
    mj = gm_client(Client(), world, "Mj2")
    award = {"player": "Cid", "points": "1", "reason": "bon mot"}
    assert mj.post(reverse("gm_action", args=[slug, "award"]), award).status_code == 302
    action = Action.objects.get(game=world.game, action="award")
    url = reverse("gm_strike", args=[slug, action.pk])
    token = re.search(r'name="token" value="([^"]+)"', _page(mj.get(url)))
    assert token is not None
    r = mj.post(url, {"reason": "mauvais joueur", "token": token.group(1)})
    assert r.status_code == 302
    journal = _page(mj.get(reverse("gm_journal", args=[slug])))
    assert re.search(r"rayée par Mj2 \([^)]*\) : mauvais joueur", journal), journal


@pytest.mark.django_db
def test_an_instant_outside_the_game_is_refused_with_its_code(world: Any, clock: Any) -> None:
    """The forum page shows a refused step's code (« refusé (code) : … »): an instant
    before the game's creation, or after its end, is ``invalid_argument``."""
    from ronde.web.games.models import Game

    clock("J2 10:00")
    seq = Game.objects.get(pk=world.game.pk).last_seq
    args = {"player": "Cid", "points": 1, "reason": "bon mot"}
    early = service.record(
        world.game, None, "award", "Mj", args, at=parse_time("J1 09:00", START) - timedelta(30)
    )
    assert (early.ok, early.code) == (False, "invalid_argument")
    assert early.message.startswith("Heure antérieure à la création de la partie")
    late = service.record(
        world.game, None, "award", "Mj", args, at=parse_time("J1 09:00", START) + timedelta(90)
    )
    assert (late.ok, late.code) == (False, "invalid_argument")
    assert late.message.startswith("Heure trop tardive")
    assert Game.objects.get(pk=world.game.pk).last_seq == seq
