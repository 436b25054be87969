"""Concurrent writers: 50 threads record complaints in one trial at once.

Exactly one verdict; every accepted complaint is recorded once (one action, one
event); the log's sequence numbers have no gap and no duplicate. Runs on the real
database (committed transactions), SQLite or PostgreSQL.
"""

from __future__ import annotations

import threading
from datetime import date
from typing import Any

import pytest
from django.db import close_old_connections, connection
from django.test import Client
from django.urls import reverse

from ronde.engine.clock import parse_time
from ronde.web.games import demo, service
from ronde.web.games.models import Action, Event, GameMaster

START = date(2026, 12, 1)
THREADS = 50


@pytest.mark.django_db(transaction=True)
def test_fifty_threads_complain_in_one_trial(clock: Any) -> None:
    service.clear_cache()
    until = parse_time("J2 09:30", START)
    played = demo.play_until(until, start=START, seed=5, players=28)
    clock("J2 09:30")
    game = demo.store(played, slug="concurrence", name="Concurrence", gm_password="mj-secret-1")
    gm_view = service.view_for(game, "game_master")
    masked = [p for p in gm_view["players"] if p["masked"]]
    # the character most players may accuse, and someone to accuse of it
    counts: dict[str, int] = {}
    for p in masked:
        for c in p["targets"]:
            counts[c] = counts.get(c, 0) + 1
    supposed = max((c for c in counts if c not in ("decorators", "extra")), key=counts.__getitem__)
    accusers = [p["pseudo"] for p in masked if supposed in p["targets"]]
    accused = next(p["pseudo"] for p in masked if p["pseudo"] not in accusers)
    opener = accusers[0]
    clock("J2 10:00")
    out = service.record(
        game, None, "open_trial", opener, {"against": accused, "as": supposed, "anonymous": False}
    )
    assert out.ok, out.message
    trial = max(t["number"] for t in service.view_for(game, "game_master")["trials"])
    clock("J2 10:30")

    gms = list(GameMaster.objects.filter(game=game).select_related("user"))
    clients = []
    for i in range(THREADS):
        c = Client()
        c.force_login(gms[i % len(gms)].user)
        clients.append(c)
    everyone = [p["pseudo"] for p in gm_view["players"]]
    authors = [everyone[i % len(everyone)] for i in range(THREADS)]  # many twice
    url = reverse("gm_action", args=[game.slug, "complain"])
    barrier = threading.Barrier(THREADS)
    statuses: list[int] = [0] * THREADS
    errors: list[BaseException] = []

    def worker(i: int) -> None:
        try:
            barrier.wait(timeout=30)
            data = {"by": authors[i], "trial": str(trial), "at": service.now().isoformat()}
            r = clients[i].post(url, data)
            statuses[i] = r.status_code
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    close_old_connections()
    assert not errors, errors
    assert set(statuses) <= {302, 400}, statuses

    game.refresh_from_db()
    events = list(Event.objects.filter(game=game).order_by("seq"))
    assert [e.seq for e in events] == list(range(1, len(events) + 1))
    ended = [e for e in events if e.type == "trial_ended" and e.data["trial"] == trial]
    assert len(ended) == 1, ended
    assert ended[0].data["concluded"]
    filed = [e for e in events if e.type == "complaint_filed" and e.data["trial"] == trial]
    assert len({e.data["author"] for e in filed}) == len(filed)
    accepted = Action.objects.filter(game=game, action="complain")
    assert accepted.count() == len(filed) >= 4
    for a in accepted:
        assert Event.objects.filter(action=a, type="complaint_filed").count() == 1
    print(f"accepted {accepted.count()} of {THREADS}, refused {statuses.count(400)}")
    assert statuses.count(302) == accepted.count()
    v = service.view_for(game, "game_master")
    assert v["trials"][trial - 1]["status"] in ("just", "unjust")


@pytest.mark.django_db(transaction=True)
def test_a_writer_that_did_not_see_the_last_event_gets_a_conflict(clock: Any) -> None:
    """If another writer appended without the lock, ``(game, seq)`` stops the second."""
    from django.contrib.auth import get_user_model

    from .conftest import make_world

    service.clear_cache()
    world = make_world()
    clock("J2 10:00")
    service.current(world.game)
    world.game.refresh_from_db()
    before = world.game.last_seq
    # someone else's event, appended behind our back (the row still says ``before``)
    Event.objects.create(
        game=world.game,
        seq=before + 1,
        generation=world.game.generation,
        type="rehearsed",
        at=parse_time("J2 09:59", START),
        data={
            "type": "rehearsed",
            "v": 1,
            "at": "2026-12-02T09:59:00+01:00",
            "player": "Ana",
            "day": 2,
        },
        recorded_at=parse_time("J2 09:59", START),
    )
    with pytest.raises(service.Conflict):
        service.record(world.game, None, "rehearse", "Bob", {})
    assert not Action.objects.filter(game=world.game).exists()
    assert Event.objects.filter(game=world.game).count() == before + 1
    client = Client()
    client.force_login(get_user_model().objects.get(username="Mj"))
    r = client.post(
        reverse("gm_action", args=[world.game.slug, "rehearse"]),
        {"by": "Bob", "at": service.now().isoformat()},
        follow=True,
    )
    assert "Quelqu&#x27;un a enregistré avant vous" in r.content.decode()
