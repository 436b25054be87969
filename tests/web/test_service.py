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


# -- the seats follow a replacement in the write that records it --------------------------


@pytest.mark.django_db
def test_a_replacement_in_a_batch_gives_the_new_pseudo_a_seat_and_retires_the_old(
    world: Any, clock: Any
) -> None:
    """``record_many`` (a day's verdicts) once left the seats as they were: the replaced
    player kept playing, his replacement had no seat and no invitation."""
    from ronde.web.games import accounts

    clock("J2 09:00")
    outs = service.record_many(
        world.game, world.gms["Mj"], [("replace_player", "Mj", {"player": "Bob", "new": "Zed"})]
    )
    assert [o.ok for o in outs] == [True]
    zed = world.member("Zed")
    assert zed.user is None and zed.invitations.filter(revoked_at__isnull=True).count() == 1
    bob = world.game.memberships.get(pseudo="Bob")
    assert bob.revoked_at is not None and bob.revoked_reason == accounts.REPLACED


@pytest.mark.django_db
def test_a_replacement_recorded_in_the_past_gives_the_seat_in_the_same_write(
    world: Any, clock: Any
) -> None:
    clock("J2 11:00")
    later = {"against": "Dan", "as": "woody"}
    assert service.record(world.game, None, "open_trial", "Ana", later).ok
    out = service.record(
        world.game,
        world.gms["Mj"],
        "replace_player",
        "Mj",
        {"player": "Bob", "new": "Zed"},
        at=parse_time("J2 09:00", world.game.start),
    )
    assert out.ok and out.preview is not None, out.message  # (inserted in the past)
    assert world.member("Zed").user is None
    assert world.game.memberships.get(pseudo="Bob").revoked_at is not None


@pytest.mark.django_db
def test_a_failure_after_a_replacement_leaves_neither_the_action_nor_the_seats(
    world: Any, clock: Any, monkeypatch: Any
) -> None:
    """The seats change in the write's transaction: if giving the new seat its invitation
    fails, the replacement is not recorded either (and the old seat stays)."""
    from ronde.web.games import accounts

    clock("J2 09:00")

    def broken(*_a: Any, **_k: Any) -> Any:
        raise RuntimeError("invitation impossible")

    monkeypatch.setattr(accounts, "invite", broken)
    for write in (
        lambda: service.record(
            world.game, world.gms["Mj"], "replace_player", "Mj", {"player": "Bob", "new": "Zed"}
        ),
        lambda: service.record_many(
            world.game,
            world.gms["Mj"],
            [("replace_player", "Mj", {"player": "Bob", "new": "Zed"})],
        ),
    ):
        with pytest.raises(RuntimeError):
            write()
        assert not Action.objects.filter(game=world.game, action="replace_player").exists()
        assert not world.game.memberships.filter(pseudo="Zed").exists()
        assert world.member("Bob").revoked_at is None
        assert "player_replaced" not in [e.TYPE for e in service.load(world.game).log]


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
