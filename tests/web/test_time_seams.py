"""Time at the seams of the store: a page read across a deadline with no write between,
and a write that races a game master moving a manual game's clock.

- A cached page records when the engine's next timer fires; read after it, the page is
  built again (the timers applied and stored first). Without that, a trial that lapsed
  at its deadline would still show as open to every reader until someone wrote.
- ``service.record`` takes "now" from the game row it locked, never from the row the
  caller read before: a game master advancing a manual clock while another records an
  action must not get that action dated before the clock he moved.
"""

from __future__ import annotations

import html
import re
from typing import Any

from django.test import Client
from django.urls import reverse

from ronde.engine.clock import PARIS
from ronde.web.games import service, viewcache
from ronde.web.games.models import Action, Game

from .conftest import World, at, gm_client, make_world

#: per-response tokens: two answers of the same page differ only there
_TOKENS = re.compile(
    r'name="(?:form_token|csrfmiddlewaretoken)" value="[^"]*"|"X-CSRFToken": "[^"]*"'
)


def _page(client: Client, url: str) -> str:
    r = client.get(url)
    assert r.status_code == 200
    return _TOKENS.sub("TOKEN", html.unescape(r.content.decode()))


def _open_trial(world: World) -> None:
    out = service.record(
        world.game, None, "open_trial", "Ana", {"against": "Bob", "as": "woody"}, at=at("J2 10:00")
    )
    assert out.ok, out.message


def _status(world: World, trial: int) -> str:
    trials = service.view_for(world.game, "game_master")["trials"]
    return str(next(t["status"] for t in trials if t["number"] == trial))


def test_pages_read_across_a_deadline_without_a_write_show_the_deadline(
    world: World, clock: Any
) -> None:
    clock("J2 10:00")
    _open_trial(world)
    clock("J2 18:00")
    readers = {"public": Client(), "player": Client(), "gm": gm_client(Client(), world)}
    readers["player"].force_login(world.users["Jo"])
    urls = {
        "public": reverse("public", args=[world.game.slug]),
        "player": reverse("player", args=[world.game.slug]),
        "gm": reverse("gm_dashboard", args=[world.game.slug]),
    }
    for who, c in readers.items():
        c.get(urls[who])  # a player's first visit is recorded: what follows are reloads
    before = {who: _page(c, urls[who]) for who, c in readers.items()}
    seq = Game.objects.get(pk=world.game.pk).last_seq
    clock("J3 10:30")  # the trial's deadline (J3 10:00) passed; nobody wrote
    assert Game.objects.get(pk=world.game.pk).last_seq == seq
    after = {who: _page(c, urls[who]) for who, c in readers.items()}
    assert _status(world, 1) == "lapsed"
    for who, c in readers.items():
        assert after[who] != before[who], who
        viewcache.clear()
        service.clear_cache()
        assert _page(c, urls[who]) == after[who], who  # as built afresh
    # reading stored the timers: the lapse is in the log, once
    assert Game.objects.get(pk=world.game.pk).last_seq > seq


def test_a_write_takes_the_clock_from_the_locked_row(db: Any, clock: Any) -> None:
    """A game master records with the game row he read before another moved the clock."""
    service.clear_cache()
    world = make_world(slug="horloge-course")
    Game.objects.filter(pk=world.game.pk).update(clock=Game.MANUAL, clock_at=at("J2 10:00"))
    stale = Game.objects.get(pk=world.game.pk)  # read by the first game master's request
    service.advance_clock(Game.objects.get(pk=world.game.pk), at("J2 15:00"))  # the second
    out = service.record(stale, None, "set_theme", "Mj", {"day": 2, "theme": "lune"})
    assert out.ok, out.message
    recorded = Action.objects.get(game=world.game, action="set_theme")
    assert recorded.at.astimezone(PARIS) == at("J2 15:00")
    # and the log stays in time order: nothing was inserted before the clock moved
    assert not Action.objects.filter(game=world.game, outcome="refused").exists()


def _the_next_write_stores_the_lapse_first(world: World, seq: int) -> None:
    """After a write that stored nothing past ``seq`` once trial 1's deadline passed: an
    award stores the lapse, then itself, and the log read afresh is the same (nothing
    was left to store)."""
    from ronde.web.games.models import Event

    def types(**since: int) -> list[str]:
        rows = Event.objects.filter(game=world.game, **since).order_by("seq")
        return list(rows.values_list("type", flat=True))

    out = service.record(
        world.game, None, "award", "Mj", {"player": "Cid", "points": 1, "reason": "x"}
    )
    assert out.ok, out.message
    new = types(seq__gt=seq)
    assert len(new) >= 2 and new[-1] != new[0], new  # the lapse first, then the award
    assert _status(world, 1) == "lapsed"
    stored = types()
    viewcache.clear()
    service.clear_cache()
    assert _status(world, 1) == "lapsed"
    assert types() == stored


def test_a_refused_write_after_a_deadline_leaves_the_lapse_to_be_stored_first(
    world: World, clock: Any
) -> None:
    """A write refused after a deadline fired the timers in memory only: the next write
    stores them, before its own action (the log, read afresh, is the same)."""

    clock("J2 10:00")
    _open_trial(world)
    seq = Game.objects.get(pk=world.game.pk).last_seq
    clock("J3 10:30")  # the trial's deadline (J3 10:00) passed; nobody read or wrote
    refused = service.record(world.game, None, "award", "Mj", {"player": "Personne", "points": 1})
    assert not refused.ok
    assert Game.objects.get(pk=world.game.pk).last_seq == seq  # a refusal writes nothing
    _the_next_write_stores_the_lapse_first(world, seq)


def test_a_write_that_breaks_after_a_deadline_leaves_the_lapse_to_be_stored_first(
    world: World, clock: Any, monkeypatch: Any
) -> None:
    """A bug of the engine while it executes a write (not a refusal) after a deadline:
    the write fails, and the timers it fired in memory are forgotten, so the next write
    stores the lapse before its own action (the log, read afresh, is the same)."""
    import pytest

    from ronde.engine.game import Game as EngineGame

    clock("J2 10:00")
    _open_trial(world)
    seq = Game.objects.get(pk=world.game.pk).last_seq
    clock("J3 10:30")  # the trial's deadline (J3 10:00) passed; nobody read or wrote

    def broken(self: EngineGame, command: Any) -> Any:
        raise RuntimeError("bogue")

    with monkeypatch.context() as m:
        m.setattr(EngineGame, "execute", broken)
        with pytest.raises(RuntimeError):
            service.record(
                world.game, None, "award", "Mj", {"player": "Cid", "points": 1, "reason": "x"}
            )
    assert Game.objects.get(pk=world.game.pk).last_seq == seq  # nothing written
    _the_next_write_stores_the_lapse_first(world, seq)
