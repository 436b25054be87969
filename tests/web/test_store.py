"""One store: corrections that change nothing else, writes in order, two processes.

- property (hypothesis, simulated games, through the service): an additive action
  inserted at a random past time is previewed as additive and changes no other
  event; striking it brings the log back to the original;
- 50 simultaneous complaints in one trial while the clock runs: one verdict, no
  correction page, no new generation, no duplicate event (SQLite, and PostgreSQL
  when ``DATABASE_URL`` is set);
- two ``ronde act`` processes at once on one game: the same.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import uuid
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from django.db import connection
from django.test import Client
from django.urls import reverse
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ronde.engine.clock import at_clock, parse_time
from ronde.web.games import clocks, demo, service
from ronde.web.games.eventstore import canonical
from ronde.web.games.models import Action, Event
from tests.web.burst import assert_one_verdict, complain_at_once, game_with_a_trial

START = date(2026, 12, 1)

_played: dict[int, demo.Played] = {}


def _played_game(seed: int) -> demo.Played:
    if seed not in _played:
        _played[seed] = demo.play_until(at_clock(START, 4, 12, 0), start=START, seed=seed)
    return _played[seed]


@pytest.mark.django_db
@settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    seed=st.sampled_from([3, 11]),
    when=st.floats(min_value=0.0, max_value=1.0),
    who=st.integers(min_value=0, max_value=27),
    points=st.integers(min_value=-50, max_value=50).filter(bool),
)
def test_an_additive_insertion_changes_nothing_else_and_its_strike_restores_the_log(
    clock: Any, seed: int, when: float, who: int, points: int
) -> None:
    played = _played_game(seed)
    lo, hi = at_clock(START, 2, 0, 1), played.until - timedelta(minutes=1)
    t = (lo + (hi - lo) * when).replace(microsecond=0)
    clock("J4 12:00")
    service.clear_cache()
    game = demo.store(played, slug=f"p-{uuid.uuid4().hex[:10]}", name="Propriété")
    original = [canonical(e) for e in service.stored_events(game)]
    pseudo = played.game.state.pseudo(list(played.game.state.players)[who])
    args = {"player": pseudo, "points": points, "reason": "oubli"}
    last = service.load(game).state.clock
    assert last is not None
    out = service.record(game, None, "award", "Mj", args, at=t)
    assert out.ok, out.message
    if t < last:  # inserted by replay: previewed as additive
        assert out.preview is not None and not out.preview.destructive
        assert not out.preview.removed and not out.preview.newly_refused
        assert [canonical(e) for e in out.preview.added] == [canonical(e) for e in out.events]
    else:  # after the last event: a plain append
        assert out.preview is None
    game.refresh_from_db()
    after = [canonical(e) for e in service.stored_events(game)]
    assert sorted(after) == sorted(original + [canonical(e) for e in out.events])
    assert out.action is not None
    pv = service.preview_strike(game, out.action)
    assert pv.preview is not None and not pv.preview.newly_refused
    done = service.strike(game, out.action, "essai", game.created_by, pv.token)
    assert done.ok, done.message
    game.refresh_from_db()
    assert [canonical(e) for e in service.stored_events(game)] == original


@pytest.mark.django_db(transaction=True)
def test_fifty_complaints_while_the_clock_runs_are_never_corrections(
    clock: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ "Now" is read once the game is locked: with a clock that moves at every read,
    a complaint recorded at now never lands before the last event."""
    game, trial, everyone = game_with_a_trial(clock, "horloge")
    generation = game.generation

    ticks = [parse_time("J2 10:30", START)]
    lock = threading.Lock()

    def running() -> datetime:
        with lock:
            ticks[0] += timedelta(milliseconds=7)
            return ticks[0].astimezone(clocks.PARIS)

    monkeypatch.setattr(clocks, "now", running)
    # the forum time is required: every complaint at the same minute, none before the
    # last recorded event, so none is an insertion in the past
    statuses = complain_at_once(
        game,
        50,
        lambda i: {"by": everyone[i % len(everyone)], "trial": str(trial), "at": "J2 10:30"},
    )
    assert set(statuses) <= {302, 400}, statuses  # 200 would be a correction page
    assert_one_verdict(game, trial)
    assert game.generation == generation  # nothing was rebuilt


RONDE = ["alice", "woody", "pierrot", "halus", "little_mermaid", "polichinelle", "guignol"]
RONDE += ["revenant"]
CAST = {
    "Ana": "alice",
    "Bob": "woody",
    "Cid": "pierrot",
    "Dan": "halus",
    "Eve": "little_mermaid",
    "Fay": "polichinelle",
    "Gus": "guignol",
    "Hal": "revenant",
    "Ida": "extra",
    "Jon": "extra",
}


def _ronde(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ronde.cli", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


@pytest.mark.django_db(transaction=True)
def test_two_ronde_act_processes_at_once(tmp_path: Path) -> None:
    """Two command line processes complaining at once: one verdict, no duplicate
    (on a SQLite file, or on PostgreSQL's test database when ``DATABASE_URL`` is set)."""
    from urllib.parse import urlparse

    import yaml

    env = dict(os.environ)
    env["RONDE_SQLITE_PATH"] = str(tmp_path / "ronde.sqlite3")
    env["RONDE_DATA_DIR"] = str(tmp_path)
    env.pop("DJANGO_SETTINGS_MODULE", None)
    if os.environ.get("DATABASE_URL"):
        url = urlparse(os.environ["DATABASE_URL"])
        env["DATABASE_URL"] = url._replace(path="/" + connection.settings_dict["NAME"]).geturl()
    slug = f"duo-{uuid.uuid4().hex[:8]}"
    (tmp_path / "roster.txt").write_text("\n".join(CAST) + "\n", encoding="utf-8")
    (tmp_path / "cast.yaml").write_text(
        yaml.safe_dump({"ronde": RONDE, "cast": CAST}), encoding="utf-8"
    )
    r = _ronde(
        env, "new", slug, "--roster", str(tmp_path / "roster.txt"), "--start", "2026-12-01",
        "--cast", str(tmp_path / "cast.yaml"), "--clock", "manual",
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    steps = [
        ("J2 10:00", "Ida", "open_trial", "against=Bob", "as=woody"),
        ("J2 11:00", "Ana", "complain", "trial=1"),
        ("J2 11:30", "Jon", "complain", "trial=1"),
        ("J2 11:45", "Fay", "complain", "trial=1"),
    ]
    for at, by, action, *pairs in steps:
        r = _ronde(env, "act", slug, action, "--at", at, "--by", by, *pairs)
        assert r.returncode == 0, r.stdout + r.stderr
    cmd = [sys.executable, "-m", "ronde.cli", "act", slug, "complain", "--at", "J2 12:00"]
    procs = [
        subprocess.Popen(
            [*cmd, "--by", by, "trial=1"],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for by in ("Gus", "Hal")
    ]
    outs = [p.communicate(timeout=300) for p in procs]
    codes = [p.returncode for p in procs]
    assert set(codes) <= {0, 1}, outs
    assert 0 in codes, outs
    assert not any("insérée à son heure" in o + e for o, e in outs), outs
    r = _ronde(env, "export", slug)
    assert r.returncode == 0, r.stderr
    import json

    lines = [json.loads(x) for x in r.stdout.splitlines()]
    events = [x["event"] for x in lines if "event" in x]
    ended = [e for e in events if e["type"] == "trial_ended"]
    assert len(ended) == 1, ended
    authors = [e["author"] for e in events if e["type"] == "complaint_filed"]
    assert len(authors) == len(set(authors)) == 3 + codes.count(0)
    keys = [json.dumps(e, sort_keys=True) for e in events]
    assert len(keys) == len(set(keys))


def test_the_console_shows_the_kind_of_clock(world: Any, client: Any) -> None:
    from .conftest import at, gm_client

    c = gm_client(client, world)
    url = reverse("gm_dashboard", args=[world.game.slug])
    assert "horloge réelle" in c.get(url).content.decode()
    world.game.clock, world.game.clock_at = "manual", at("J1 09:00")
    world.game.save(update_fields=["clock", "clock_at"])
    assert "horloge manuelle" in c.get(url).content.decode()


def test_the_console_previews_a_later_time_without_recording(world: Any, client: Any) -> None:
    from .conftest import at, gm_client

    service.set_clock(at("J2 10:00"))
    out = service.record(world.game, None, "open_trial", "Ida", {"against": "Bob", "as": "woody"})
    assert out.ok, out.message
    before = Event.objects.count(), Action.objects.count()
    url = reverse("gm_preview", args=[world.game.slug])
    c = gm_client(client, world)
    page = c.get(url, {"at": "J3 10:01"}).content.decode()
    assert "annulé (plaintes)" in page  # the trial lapses by then
    assert (Event.objects.count(), Action.objects.count()) == before
    assert c.get(url, {"at": "J1 10:00"}).status_code == 400
    assert c.get(url, {"at": "9999-12-31T23:59:59+00:00"}).status_code == 400
    player = Client()
    player.force_login(world.users["Ana"])
    assert player.get(url, {"at": "J3 10:01"}).status_code == 404
