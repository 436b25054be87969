"""The game masters' dashboard after a write reads what the write added, not the whole
log (issue 23: its cost flat in the log's length), and shows what a page built afresh
shows."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from ronde.engine.events import Event
from ronde.engine.game import Game as EngineGame
from ronde.web.games import eventstore, service, viewcache

from .conftest import World, gm_client


class Counting(list[Event]):
    """A held game's log that counts the events read from it (by index, slice or
    iteration), but for a fork's copy of the list (a copy of pointers, made in C)."""

    read = 0
    paused = False

    def __getitem__(self, i: Any) -> Any:
        got = list.__getitem__(self, i)
        if not self.paused:
            self.read += len(got) if isinstance(i, slice) else 1
        return got

    def __iter__(self) -> Any:
        for e in list.__iter__(self):
            if not self.paused:
                self.read += 1
            yield e


def _award(world: World, i: int) -> None:
    seat = world.game.roster[i % len(world.game.roster)]
    done = service.record(world.game, None, "award", "Mj", {"player": seat, "points": 1})
    assert done.ok, done.message


def _shown(content: bytes) -> str:
    """The page without its one-time tokens."""
    return re.sub(r"[A-Za-z0-9_:-]{20,}", "…", content.decode())


def test_the_dashboard_after_a_write_reads_only_what_the_write_added(
    client: Client, world: World, clock: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    clock("J2 10:00")
    gm_client(client, world)
    url = reverse("gm_dashboard", args=[world.game.slug])
    for i in range(300):  # (a log several times longer than what a page may read)
        _award(world, i)
    assert client.get(url).status_code == 200
    _award(world, 300)
    held = eventstore._held()[world.game.pk]
    log = Counting(held.eng.log)
    held.eng.log = log
    assert len(log) > 300
    fork = EngineGame.fork

    def forked(self: EngineGame) -> EngineGame:
        log.paused = True
        try:
            return fork(self)
        finally:
            log.paused = False

    monkeypatch.setattr(EngineGame, "fork", forked)
    page = client.get(url)
    assert page.status_code == 200
    assert "Cette nuit" in page.content.decode() and "À minuit" in page.content.decode()
    assert log.read < 100, log.read  # (the new events, a few bisections, the last ones)
    monkeypatch.undo()
    service.clear_cache()  # (every held game and page forgotten: built afresh)
    viewcache.clear()
    assert _shown(client.get(url).content) == _shown(page.content)


def test_the_constraint_verdicts_are_read_by_name_not_among_every_action(
    world: World, clock: Any
) -> None:
    """The dashboard reads the constraint verdicts twice a build: by the index of the
    actions by game and name (a few a day), not among every award of the game."""
    if connection.vendor != "sqlite":
        pytest.skip("the plan of PostgreSQL's planner depends on its statistics")
    with CaptureQueriesContext(connection) as queries:
        service.constraint_verdicts(world.game)
    (query,) = [q["sql"] for q in queries.captured_queries if "games_action" in q["sql"]]
    with connection.cursor() as cursor:
        cursor.execute(f"EXPLAIN QUERY PLAN {query}")
        plan = " ".join(str(row) for row in cursor.fetchall())
    assert "action_by_game_name" in plan, plan
