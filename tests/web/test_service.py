"""The store behind the pages: replay, rebuild from recorded actions, generations."""

from __future__ import annotations

from datetime import date
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
