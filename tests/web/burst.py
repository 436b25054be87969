"""A burst of simultaneous complaints in one trial, through the game masters' form:
the harness shared by the concurrency tests (one verdict, every accepted complaint
recorded once, no gap in the log)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from django.db import close_old_connections, connection
from django.test import Client
from django.urls import reverse

from ronde.web.games import demo, service
from ronde.web.games.models import Action, Event, GameMaster
from tests.web.conftest import START


def game_with_a_trial(clock: Any, slug: str) -> tuple[Any, int, list[str]]:
    """A 28-player game stored at J2 09:30 with a trial opened at 10:00 against a
    player most others may accuse: (game, trial number, every pseudo)."""
    service.clear_cache()
    played = demo.play_until(clock("J2 09:30"), start=START, seed=5, players=28)
    game = demo.store(played, slug=slug, name=slug.title(), gm_password="mj-secret-1")
    gm_view = service.view_for(game, "game_master")
    masked = [p for p in gm_view["players"] if p["masked"]]
    counts: dict[str, int] = {}
    for p in masked:
        for c in p["targets"]:
            counts[c] = counts.get(c, 0) + 1
    supposed = max((c for c in counts if c not in ("decorators", "extra")), key=counts.__getitem__)
    accusers = [p["pseudo"] for p in masked if supposed in p["targets"]]
    accused = next(p["pseudo"] for p in masked if p["pseudo"] not in accusers)
    clock("J2 10:00")
    args = {"against": accused, "as": supposed, "anonymous": False}
    out = service.record(game, None, "open_trial", accusers[0], args)
    assert out.ok, out.message
    trial = max(t["number"] for t in service.view_for(game, "game_master")["trials"])
    return game, trial, [p["pseudo"] for p in gm_view["players"]]


def complain_at_once(game: Any, n: int, form: Callable[[int], dict[str, str]]) -> list[int]:
    """``n`` game masters' clients post the complaint form ``form(i)`` at the same
    moment; the status of each answer."""
    gms = list(GameMaster.objects.filter(game=game).select_related("user"))
    clients = []
    for i in range(n):
        c = Client()
        c.force_login(gms[i % len(gms)].user)
        clients.append(c)
    url = reverse("gm_action", args=[game.slug, "complain"])
    barrier = threading.Barrier(n)
    statuses = [0] * n
    errors: list[BaseException] = []

    def worker(i: int) -> None:
        try:
            barrier.wait(timeout=30)
            statuses[i] = clients[i].post(url, form(i)).status_code
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(n)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(timeout=180)
    close_old_connections()
    assert not errors, errors
    return statuses


def assert_one_verdict(game: Any, trial: int) -> None:
    """One verdict for ``trial``; every complaint filed once and recorded as one
    action; the log's sequence numbers without gap or duplicate."""
    game.refresh_from_db()
    rows = list(Event.objects.filter(game=game).order_by("seq"))
    assert [e.seq for e in rows] == list(range(1, len(rows) + 1))
    ended = [e for e in rows if e.type == "trial_ended" and e.data["trial"] == trial]
    assert len(ended) == 1, ended
    assert ended[0].data["concluded"]
    filed = [e for e in rows if e.type == "complaint_filed" and e.data["trial"] == trial]
    assert len({e.data["author"] for e in filed}) == len(filed)
    assert Action.objects.filter(game=game, action="complain").count() == len(filed) >= 4
