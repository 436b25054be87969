"""Corrections that rebuild only from the corrected instant, and draw keys that a replay
and a rebuild compute alike (issue 23).

- a correction keeps the recorded events before its instant (never decided again by
  today's code) and executes again only the actions at or after it;
- the key of a command's draws (its ``command_key`` and how many identical commands
  were accepted before it that day) is the same whether the game was played live by
  one worker, loaded cold, caught up from another worker's writes, or rebuilt by a
  correction, for every command of generated games;
- the Tragic Hero's two identical designations in one day (A4 ``death_unmasks``): an
  unrelated award inserted earlier that day re-draws nothing;
- the autumn's repeated hour: actions are ordered by their UTC instant;
- complaints typed to the minute of the last event are not corrections.

SQLite, and PostgreSQL when ``DATABASE_URL`` is set (``.ci/run``).
"""

from __future__ import annotations

import threading
import uuid
from collections.abc import Iterator
from datetime import UTC, date, datetime, timedelta
from typing import Any

import pytest
from django.db import close_old_connections, connection
from django.test import Client
from django.urls import reverse
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ronde.catalog import default_catalog
from ronde.engine import game as game_module
from ronde.engine.clock import PARIS
from ronde.engine.commands import Command
from ronde.engine.errors import RuleViolation
from ronde.engine.events import CharacterFact
from ronde.engine.game import Game as EngineGame
from ronde.engine.game import _draw_key
from ronde.web.games import corrections, demo, eventstore, service, transfer
from ronde.web.games.models import Action, Event, GameMaster, Generation
from tests.web import storecheck
from tests.web.conftest import CAST, GMS, RONDE, START, at, make_world

pytestmark = pytest.mark.django_db

Key = tuple[str, str, datetime, str]


@pytest.fixture
def keys(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[Key]]:
    """Every accepted command's draw key, as ``Game.execute`` would make it if the
    command drew: (action, author, UTC instant, key), in the order executed."""
    made: list[Key] = []
    original = EngineGame.execute

    def execute(self: EngineGame, cmd: Command) -> list[Any]:
        when = cmd.at.astimezone(UTC)
        day = self.state.day(when)
        seen = list(self._counted(self._seen)) if self._seen_day == day else []
        mine = Command(cmd.action, cmd.by, when, cmd.args)
        key = _draw_key(seen, (mine, []), day)
        out = original(self, cmd)  # (refused: nothing noted)
        made.append((cmd.action, cmd.by, when, key))
        return out

    monkeypatch.setattr(EngineGame, "execute", execute)
    yield made


def _rebuilt_keys(game: Any, keys: list[Key]) -> list[Key]:
    """The keys of a whole rebuild: ``GameCreated`` and every applied action executed
    again from the start, in the order recorded."""
    created = service.stored_events(game)[0]
    eng = EngineGame.replay([created], default_catalog())
    start = len(keys)
    for a in Action.objects.filter(game=game, struck=False, outcome="applied").order_by("at", "pk"):
        eng.execute(Command(a.action, a.by, a.at.astimezone(PARIS), dict(a.args)))
    return keys[start:]


# -- the Tragic Hero's two identical designations (A4 death_unmasks) --------------------
TH_RONDE = ["alice", "woody", "pierrot", "halus", "little_mermaid", "polichinelle", "guignol"]
TH_RONDE += ["tragic_hero"]
TH_CAST = {
    "Ana": "alice",
    "Bob": "woody",
    "Cid": "pierrot",
    "Dan": "halus",
    "Eve": "little_mermaid",
    "Fay": "polichinelle",
    "Gus": "guignol",
    "Tom": "tragic_hero",
    "Ida": "extra",
    "Jo": "extra",
    "Kim": "extra",
    "Lou": "extra",
    "Max": "extra",
    "Ned": "extra",
}


def _monsters(game: Any) -> list[str]:
    eng = service.load(game)
    return [
        str(e.data["monster"])
        for e in eng.log
        if isinstance(e, CharacterFact) and e.kind == "monster_designated"
    ]


def test_two_identical_designations_then_an_earlier_award_redraw_nothing(
    clock: Any, keys: list[Key]
) -> None:
    """The Hero designates an Extra, that Extra's citizen dies (A4: unmasked), the Hero
    designates an Extra again the same day, from a cold worker (``ronde act``): the
    second designation is the second identical command of the day (#1) whatever worker
    records it, so an award inserted earlier that day rebuilds the same monster."""
    service.clear_cache()
    world = make_world(TH_CAST, TH_RONDE, {"A4": "death_unmasks"}, slug="heros")
    game = world.game
    clock("J1 10:00")
    out = service.record(game, None, "designate_monster", "Tom", {"character": "extra"})
    assert out.ok, out.message
    first = _monsters(game)[0]
    clock("J1 11:00")
    pseudo = service.load(game).state.pseudo(first)
    out = service.record(game, None, "record_death", "Mj", {"player": pseudo})
    assert out.ok, out.message
    service.clear_cache()  # a cold worker records the second designation
    clock("J1 12:00")
    out = service.record(game, None, "designate_monster", "Tom", {"character": "extra"})
    assert out.ok, out.message
    designations = [k for k in keys if k[0] == "designate_monster"]
    assert [k[3][-2:] for k in designations] == ["#0", "#1"]
    live = _monsters(game)
    assert len(live) == 2
    # an unrelated award inserted earlier that day: nothing else changes
    clock("J1 13:00")
    out = service.record(
        game,
        None,
        "award",
        "Mj",
        {"player": "Ana", "points": 5, "reason": "oubli"},
        at=at("J1 09:30"),
    )
    assert out.ok, out.message
    assert out.preview is not None and not out.preview.destructive
    assert _monsters(game) == live
    service.clear_cache()
    assert _monsters(game) == live
    rebuilt = [k for k in _rebuilt_keys(game, keys) if k[0] == "designate_monster"]
    assert [k[3] for k in rebuilt] == [k[3] for k in designations]


# -- every command of generated games ----------------------------------------------------
def _stored_game(slug: str, options: dict[str, str] | None = None) -> Any:
    """The small test game, stored from the command line's way (no accounts needed)."""
    eng = EngineGame.create(
        start=START,
        cast=CAST,
        ronde=RONDE,
        catalog=default_catalog(),
        seed=7,
        players=list(CAST),
        game_masters=GMS,
        options=options,
    )
    return transfer.create(slug, eng)


_STEPS = st.lists(
    st.tuples(
        st.sampled_from([0, 1, 3, 20, 200, 900]),  # minutes after the previous step
        st.sampled_from(["award", "award2", "rehearse", "post"]),
        st.sampled_from(["Ana", "Bob", "Cid"]),
        st.sampled_from(["same", "cold", "other_worker"]),  # who records it
    ),
    min_size=4,
    max_size=24,
)


def _command(kind: str, who: str, trial: int | None) -> tuple[str, str, dict[str, Any]]:
    if kind == "award":
        return "award", "Mj", {"player": who, "points": 1, "reason": "x"}
    if kind == "award2":
        return "award", "Mj2", {"player": "Ana", "points": 1, "reason": "x"}
    if kind == "post" and trial is not None:
        return "post", who, {"trial": trial}
    return "rehearse", who, {}


@settings(
    max_examples=15,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(steps=_STEPS, strike_at=st.floats(0.0, 1.0))
def test_draw_keys_are_the_same_live_cold_caught_up_and_rebuilt(
    clock: Any, keys: list[Key], steps: list[Any], strike_at: float
) -> None:
    """Generated games with many identical commands a day, recorded by one worker, by a
    cold one (a fresh process: ``ronde act``) or by another worker whose game then
    catches up: every command's key is the key a whole rebuild gives it, and the key a
    correction (a strike, rebuilt from its instant) gives it again."""
    keys.clear()
    service.clear_cache()
    game = _stored_game(f"cles-{uuid.uuid4().hex[:8]}")
    t = at("J2 09:00")
    clock("J2 09:00")
    out = service.record(
        game, None, "open_trial", "Ana", {"against": "Bob", "as": "woody", "anonymous": False}
    )
    trial = 1 if out.ok else None
    workers: list[dict[int, Any]] = [{}, {}]
    me = 0
    for gap, kind, who, how in steps:
        t += timedelta(minutes=gap)
        clock_at = t.astimezone(PARIS)
        service.set_clock(clock_at)
        if how == "cold":
            service.clear_cache()
        elif how == "other_worker":  # (each worker holds its own game: swap them)
            workers[me] = dict(eventstore._held())
            me = 1 - me
            eventstore._held().clear()
            eventstore._held().update(workers[me])
        action, by, args = _command(kind, who, trial)
        service.record(game, None, action, by, args)
    live = list(keys)
    assert _rebuilt_keys(game, keys) == live
    # a correction rebuilt from an instant: the commands executed again key as a whole
    # rebuild (without the struck action) keys them, and those before it are kept
    actions = list(Action.objects.filter(game=game, outcome="applied").order_by("pk"))
    target = actions[min(len(actions) - 1, int(strike_at * len(actions)))]
    keys.clear()
    pv = service.preview_strike(game, target)
    keys.clear()
    done = service.strike(game, target, "essai", None, pv.token)
    assert done.ok, done.message
    again = list(keys)
    whole = _rebuilt_keys(game, keys)
    assert whole[len(whole) - len(again) :] == again
    kept = [k for k in live if k[2] < target.at.astimezone(UTC)]
    assert whole[: len(kept)] == kept
    assert len(kept) + len(again) == len(whole)
    game.refresh_from_db()
    assert Generation.objects.get(game=game, number=game.generation).shared >= _events_before(
        game, target.at
    )


def _events_before(game: Any, t: datetime) -> int:
    """How many events of the log come before ``t`` (all kept by a correction at ``t``)."""
    return sum(1 for e in service.stored_events(game) if e.at < t)


# -- a correction executes only what follows its instant ---------------------------------
def test_a_correction_keeps_the_events_before_its_instant_and_executes_only_what_follows(
    clock: Any, keys: list[Key], monkeypatch: pytest.MonkeyPatch
) -> None:
    """An award inserted at J2 10:30 keeps every event before 10:30 as recorded, even if
    today's code would decide them otherwise (here: it refuses every award), and
    executes again only the actions from 10:30 on."""
    service.clear_cache()
    game = _stored_game("apres")
    for when in ("J2 10:00", "J2 10:10", "J2 11:00", "J2 11:10"):
        clock(when)
        out = service.record(
            game, None, "award", "Mj", {"player": "Ana", "points": 3, "reason": when}
        )
        assert out.ok, out.message
    clock("J2 12:00")
    before = [e for e in service.stored_events(game) if e.at < at("J2 10:30")]

    def refuses(ctx: Any, cmd: Command, actor: str) -> None:
        raise RuleViolation("not_allowed", "Refusé par le code d'aujourd'hui.")

    monkeypatch.setitem(game_module.CORE_ACTIONS, "award", ("game_master", refuses))
    keys.clear()
    out = service.record(game, None, "rehearse", "Bob", {}, at=at("J2 10:30"))
    assert out.ok is False and out.preview is not None  # the later awards are refused now
    assert {a.args["reason"] for a, _m in out.preview.newly_refused} == {"J2 11:00", "J2 11:10"}
    assert [k[2] for k in keys] == [at("J2 10:30")]  # (the awards after it: refused)
    out = service.record(game, None, "rehearse", "Bob", {}, at=at("J2 10:30"), confirm=out.token)
    assert out.ok, out.message
    game.refresh_from_db()
    after = service.stored_events(game)
    assert [eventstore.canonical(e) for e in after[: len(before)]] == [
        eventstore.canonical(e) for e in before
    ]
    applied = dict(Action.objects.filter(game=game, action="award").values_list("at", "outcome"))
    assert applied[at("J2 10:00")] == applied[at("J2 10:10")] == "applied"
    assert applied[at("J2 11:00")] == applied[at("J2 11:10")] == "refused"
    shared = Generation.objects.get(game=game, number=game.generation).shared
    assert shared >= len(before)


def test_a_correction_executes_the_actions_after_its_instant_once_each(
    clock: Any, keys: list[Key]
) -> None:
    """Striking an action executes again only the actions recorded after it (counted),
    not the game from its creation."""
    service.clear_cache()
    game = _stored_game("compte")
    times = [f"J{d} {h:02d}:00" for d in (2, 3, 4) for h in (9, 12, 15, 18)]
    for when in times:
        clock(when)
        out = service.record(
            game, None, "award", "Mj", {"player": "Cid", "points": 1, "reason": when}
        )
        assert out.ok, out.message
    clock("J4 20:00")
    target = Action.objects.get(game=game, args__reason="J4 09:00")
    keys.clear()
    pv = service.preview_strike(game, target)
    assert [k[2] for k in keys] == [at(t) for t in ("J4 12:00", "J4 15:00", "J4 18:00")]
    keys.clear()
    done = service.strike(game, target, "doublon", None, pv.token)
    assert done.ok, done.message
    assert [k[2] for k in keys] == [at(t) for t in ("J4 12:00", "J4 15:00", "J4 18:00")]


# -- the autumn's repeated hour ----------------------------------------------------------
def test_the_repeated_autumn_hour_is_ordered_by_its_utc_instant(clock: Any) -> None:
    """25 October 2026: 02:30 CEST (00:30 UTC), then 02:10 CET (01:10 UTC, later in real
    time although earlier on the wall). An award inserted before both rebuilds them in
    their UTC order: nothing is refused, nothing changes."""
    service.clear_cache()
    start = date(2026, 10, 20)
    eng = EngineGame.create(
        start=start,
        cast=CAST,
        ronde=RONDE,
        catalog=default_catalog(),
        seed=7,
        players=list(CAST),
        game_masters=GMS,
    )
    game = transfer.create("automne", eng)
    service.set_clock(datetime(2026, 10, 25, 4, 0, tzinfo=PARIS))
    summer = datetime(2026, 10, 25, 2, 30, tzinfo=PARIS)  # fold 0: CEST
    winter = datetime(2026, 10, 25, 2, 10, tzinfo=PARIS, fold=1)  # CET
    assert summer.astimezone(UTC) < winter.astimezone(UTC)
    for when in (summer, winter):
        out = service.record(
            game, None, "award", "Mj", {"player": "Ana", "points": 2, "reason": "x"}, at=when
        )
        assert out.ok, out.message
        assert out.preview is None  # each after the last event
    early = datetime(2026, 10, 25, 1, 0, tzinfo=PARIS)
    out = service.record(
        game, None, "award", "Mj", {"player": "Bob", "points": 1, "reason": "y"}, at=early
    )
    assert out.ok, out.message
    assert out.preview is not None and not out.preview.destructive
    assert not Action.objects.filter(game=game, outcome="refused").exists()
    ats = [e.at for e in service.stored_events(game) if e.TYPE == "points_awarded"]
    assert ats == sorted(ats)


# -- a burst typed to the minute of the last event -----------------------------------------
def test_an_action_typed_to_the_minute_of_the_last_event_is_not_a_correction(
    clock: Any,
) -> None:
    """The last event at 10:30:20 (the real clock's seconds), a complaint typed « J2
    10:30 » (the forum's minute): appended after it, never inserted before it."""
    service.clear_cache()
    game = _stored_game("minute")
    service.set_clock(at("J2 10:30") + timedelta(seconds=20))
    out = service.record(game, None, "award", "Mj", {"player": "Ana", "points": 1, "reason": "a"})
    assert out.ok, out.message
    service.set_clock(at("J2 10:31") + timedelta(seconds=5))
    generation = Generation.objects.filter(game=game).count()
    out = service.record(
        game, None, "award", "Mj", {"player": "Bob", "points": 1, "reason": "b"}, at=at("J2 10:30")
    )
    assert out.ok, out.message
    assert out.preview is None  # not an insertion in the past
    assert Generation.objects.filter(game=game).count() == generation
    assert out.action is not None and out.action.at == at("J2 10:30") + timedelta(seconds=20)
    # a minute earlier is a correction, as before
    out = service.record(
        game, None, "award", "Mj", {"player": "Cid", "points": 1, "reason": "c"}, at=at("J2 10:29")
    )
    assert out.ok and out.preview is not None


def test_positions_are_found_in_the_current_log_after_corrections_in_any_order(
    clock: Any,
) -> None:
    """The rows at positions of the current log (a correction's snapshot reads the day's
    actions by position) are those of the whole log read row by row, whatever the
    generations: corrections later and earlier than the previous one, a strike that
    shortens the log."""
    service.clear_cache()
    game = _stored_game("positions")
    for when in ("J2 09:00", "J2 10:00", "J2 11:00", "J3 09:00", "J3 10:00"):
        clock(when)
        assert service.record(game, None, "rehearse", "Ana", {}).ok
    clock("J3 12:00")
    for when in ("J3 09:30", "J2 09:30", "J3 11:00", "J2 10:30"):
        out = service.record(
            game, None, "award", "Mj", {"player": "Bob", "points": 1, "reason": when}, at=at(when)
        )
        assert out.ok, out.message
    last = Action.objects.filter(game=game).order_by("at").last()
    assert last is not None
    pv = service.preview_strike(game, last)
    assert service.strike(game, last, "essai", None, pv.token).ok
    game.refresh_from_db()
    whole = [(seq, a) for _pk, seq, a, _d in eventstore.log_data(game)]
    assert eventstore.rows_between(game, 0, len(whole)) == whole
    for lo, hi in ((0, 3), (2, len(whole) - 1), (len(whole) // 2, len(whole))):
        assert eventstore.rows_between(game, lo, hi) == whole[lo:hi]


# -- the new generation's rows: the unchanged end copied, each event with its action ------
_from_actions = storecheck.from_actions
_stored_rows = storecheck.stored_rows


def test_each_stored_event_keeps_its_action_through_corrections_and_strikes(
    clock: Any,
) -> None:
    """After corrections early in a busy day (whose unchanged end the new generation
    copies from the rows before it) and strikes, the stored log is the one executing
    every action again gives, each event with the action that made it: of two identical
    awards at one instant, striking the first leaves the event to the second."""
    service.clear_cache()
    clock("J4 12:30")
    played = demo.play_until(at("J4 12:00"), start=START, seed=11)
    game = demo.store(played, slug="sources", name="sources", gm_password="mj-secret-1")
    seat = service.load(game).state.pseudo(sorted(played.game.state.players)[0])
    for when, reason in [
        ("J4 09:30", "a"),
        ("J4 08:15", "b"),
        ("J4 08:15", "b"),
        ("J3 22:00", "c"),
    ]:
        args = {"player": seat, "points": 2, "reason": reason}
        out = service.record(game, None, "award", "Mj", args, at=at(when))
        if not out.ok and out.preview is not None:
            out = service.record(game, None, "award", "Mj", args, at=at(when), confirm=out.token)
        assert out.ok, out.message
        assert _stored_rows(game) == _from_actions(game)
    first, second = Action.objects.filter(game=game, args__reason="b").order_by("pk")
    pv = service.preview_strike(game, first)
    assert service.strike(game, first, "doublon", None, pv.token).ok
    rows = _stored_rows(game)
    assert rows == _from_actions(game)
    sources = {a for _e, a in rows}
    assert second.pk in sources and first.pk not in sources
    # the corrections wrote their own rows and copied the rest: a cold load reads it all
    service.clear_cache()
    assert [eventstore.canonical(e) for e in service.load(game).log] == [e for e, _a in rows]


# -- the held game's actions: kept in step with the stored rows --------------------------
_WRITES = st.lists(
    st.tuples(
        st.sampled_from([0, 1, 20, 200, 900]),  # minutes after the previous write
        st.sampled_from(["now", "now", "earlier", "strike"]),
        st.sampled_from(["same", "cold", "other_worker", "unknown"]),  # the worker's state
    ),
    min_size=3,
    max_size=14,
)


def _stored_actions(game: Any) -> list[int | None]:
    game.refresh_from_db()
    return [a for _pk, _seq, a, _d in eventstore.log_data(game)]


@settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(writes=_WRITES)
def test_the_held_games_actions_are_the_stored_rows_actions_after_any_write(
    clock: Any, writes: list[Any]
) -> None:
    """The recorded action of each event that a held game keeps (a correction reads them
    instead of the rows) is the stored rows' after writes at now, corrections, strikes
    and timers, by this worker, a cold one, another worker whose game catches up, or a
    worker that no longer knows them (it then reads the rows): the stored log stays the
    one executing every action again gives."""
    service.clear_cache()
    game = _stored_game(f"actions-{uuid.uuid4().hex[:8]}")
    t = at("J2 09:00")
    workers: list[dict[int, Any]] = [{}, {}]
    me = 0
    forgot = False  # (a worker was made to forget them: it reads the rows until it replays)
    for i, (gap, kind, how) in enumerate(writes):
        t += timedelta(minutes=gap)
        service.set_clock(t.astimezone(PARIS))
        if how == "cold":
            service.clear_cache()
            forgot = False
        elif how == "other_worker":  # (each worker holds its own game: swap them)
            workers[me] = dict(eventstore._held())
            me = 1 - me
            eventstore._held().clear()
            eventstore._held().update(workers[me])
        elif how == "unknown" and game.pk in eventstore._held():
            eventstore._held()[game.pk].actions = None
            forgot = True
        args = {"player": ["Ana", "Bob", "Cid"][i % 3], "points": 1, "reason": f"w{i}"}
        if kind == "strike":
            target = Action.objects.filter(game=game, struck=False).order_by("-pk").first()
            if target is not None:
                assert service.strike(game, target, "essai", None, game.version).ok
        else:
            when = t - timedelta(minutes=90) if kind == "earlier" else None
            out = service.record(game, None, "award", "Mj", args, at=when)
            if not out.ok and out.preview is not None:
                out = service.record(game, None, "award", "Mj", args, at=when, confirm=out.token)
            assert out.ok, out.message
        held = eventstore.actions_of(game.pk, service.load(game))
        assert held is not None or forgot
        assert held is None or held == _stored_actions(game)
    assert _stored_rows(game) == _from_actions(game)


def test_a_correction_of_a_held_game_reads_no_event_row(clock: Any) -> None:
    """A correction of the game this worker holds takes each event's action from it: no
    query reads the events' actions (a busy day's thousands of rows)."""
    from django.test.utils import CaptureQueriesContext

    service.clear_cache()
    game = _stored_game("actions-read")
    for when in ("J2 09:00", "J2 10:00", "J2 11:00"):
        clock(when)
        assert service.record(game, None, "rehearse", "Ana", {}).ok
    args = {"player": "Bob", "points": 1, "reason": "oubli"}
    service.load(game)
    with CaptureQueriesContext(connection) as seen:
        out = service.record(game, None, "award", "Mj", args, at=at("J2 09:30"))
    assert out.ok, out.message
    reads = [
        q["sql"] for q in seen.captured_queries if '"action_id" FROM "games_event"' in q["sql"]
    ]
    assert reads == []
    assert _stored_rows(game) == _from_actions(game)


def test_a_rebuilt_game_does_not_keep_the_game_it_was_rebuilt_from(clock: Any) -> None:
    """A correction's rebuilt game keeps what its draws may read of the day's actions,
    never the game it was rebuilt from: held from one correction to the next, each
    would keep the one before it (a whole engine per correction, to the day's end),
    whether the held game knew its events' actions or not."""
    import gc
    import weakref

    service.clear_cache()
    game = _stored_game("not-kept")
    for when in ("J2 09:00", "J2 10:00", "J2 11:00"):
        clock(when)
        assert service.record(game, None, "rehearse", "Ana", {}).ok
    for i, forget in enumerate((False, True)):
        base = service.load(game)
        if forget:
            eventstore._held()[game.pk].actions = None
        gone = weakref.ref(base)
        del base
        args = {"player": "Bob", "points": 1, "reason": f"oubli {i}"}
        assert service.record(game, None, "award", "Mj", args, at=at(f"J2 09:{10 + i}")).ok
        gc.collect()
        assert gone() is None, gc.get_referrers(gone())


# -- several corrections of one day: the days before it replayed once ----------------------
def _corrected_twin(slug: str, monkeypatch: pytest.MonkeyPatch, keep: int) -> tuple[Any, int]:
    """The bots' game to J4 12:00, stored, then six corrections on J4 and J3 (awards,
    a strike) with ``corrections.DAY_STARTS = keep``; how many times the days before a
    correction were replayed."""
    monkeypatch.setattr(corrections, "DAY_STARTS", keep)
    service.clear_cache()
    played = demo.play_until(at("J4 12:00"), start=START, seed=11)
    game = demo.store(played, slug=slug, name=slug, gm_password="mj-secret-1")
    seat = service.load(game).state.pseudo(sorted(played.game.state.players)[0])
    replays = 0
    original = corrections.replay

    def counted(events: Any, commands: Any = ()) -> EngineGame:
        nonlocal replays
        replays += 1
        return original(events, commands)

    monkeypatch.setattr(corrections, "replay", counted)
    for when in ("J4 09:30", "J4 08:15", "J4 11:00", "J3 22:00", "J4 10:10"):
        args = {"player": seat, "points": 2, "reason": when}
        out = service.record(game, None, "award", "Mj", args, at=at(when))
        if not out.ok and out.preview is not None:
            out = service.record(game, None, "award", "Mj", args, at=at(when), confirm=out.token)
        assert out.ok, out.message
    target = Action.objects.filter(game=game, args__reason="J4 08:15").get()
    pv = service.preview_strike(game, target)
    assert service.strike(game, target, "doublon", None, pv.token).ok
    monkeypatch.setattr(corrections, "replay", original)
    return game, replays


def test_corrections_of_one_day_replay_the_days_before_it_once_and_change_nothing(
    clock: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The game at the start of a correction's day is replayed once and kept: the next
    corrections of that day start from a copy of it. Whatever is kept, the stored log
    and every action's fate are those of corrections that replay from the creation."""
    clock("J4 12:30")
    kept, replays = _corrected_twin("garde", monkeypatch, 8)
    fresh, every = _corrected_twin("sans", monkeypatch, 0)
    assert replays <= every - 2  # (J4's corrections after the first: the kept replay)

    def stored(game: Any) -> tuple[list[str], list[tuple[str, str, str]]]:
        game.refresh_from_db()
        events = [eventstore.canonical(e) for e in service.stored_events(game)]
        fates = Action.objects.filter(game=game).order_by("at", "pk")
        return events, [(a.action, a.outcome, str(a.struck)) for a in fates]

    assert stored(kept) == stored(fresh)


# -- a correction on the last day of a 50,000-event game while six writers arrive ----------
def _big_game(slug: str) -> Any:
    """The bots' game to J5 09:00, then game masters' awards fill J5 up to ~50,000
    events (the shape of the issue's games), stored with four game masters."""
    played = demo.play_until(at("J5 09:00"), start=START, seed=3)
    g = played.game
    seats = list(g.state.players)
    t0 = at("J5 09:00")
    k = 0
    while len(g.log) < 50_000:
        who = g.state.pseudo(seats[k % len(seats)])
        g.act("award", "Mj", t0 + timedelta(milliseconds=250 * k), player=who, points=1, reason="b")
        k += 1
    played.until = g.state.clock
    return demo.store(played, slug=slug, name="Grande", gm_password="mj-secret-1")


@pytest.mark.django_db(transaction=True)
def test_six_writers_behind_a_correction_of_a_50000_event_game_wait_and_succeed(
    clock: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A correction on the last day (an award inserted in J5's last hour) holds the
    game's lock while six game masters post an award each through the console: every
    writer waits for the lock and is recorded (HTTP 302, never a 500 nor the busy page),
    after the correction; the correction executes again only the actions after its
    instant. (Its speed against the day's is measured by ``make bench``.)"""
    service.clear_cache()
    game = _big_game("grande")
    last = service.load(game).state.clock
    assert last is not None and game.last_seq >= 50_000
    service.set_clock(last + timedelta(minutes=20))
    insert_at = (last - timedelta(minutes=30)).replace(second=0, microsecond=0)
    after = Action.objects.filter(game=game, at__gte=insert_at).count()
    started = threading.Event()
    rebuild = corrections.rebuild

    def announced(*args: Any, **kwargs: Any) -> Any:
        started.set()
        return rebuild(*args, **kwargs)

    monkeypatch.setattr(corrections, "rebuild", announced)
    executed: list[datetime] = []
    execute = EngineGame.execute

    def counted(self: EngineGame, cmd: Command) -> list[Any]:
        executed.append(cmd.at.astimezone(UTC))
        return execute(self, cmd)

    monkeypatch.setattr(EngineGame, "execute", counted)
    gms = list(GameMaster.objects.filter(game=game).select_related("user").order_by("pk"))
    clients = []
    for i in range(6):
        c = Client()
        c.force_login(gms[i % len(gms)].user)
        clients.append(c)
    url = reverse("gm_action", args=[game.slug, "award"])
    statuses: list[int] = []
    errors: list[BaseException] = []
    outcome: list[Any] = []

    def correct() -> None:
        try:
            args = {"player": "Joueur01", "points": 7, "reason": "oubli"}
            outcome.append(service.record(game, None, "award", "Mj", args, at=insert_at))
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)
        finally:
            started.set()
            connection.close()

    def write(i: int) -> None:
        try:
            started.wait(timeout=120)
            form = {"player": "Joueur02", "points": "1", "reason": f"écriture {i}"}
            statuses.append(clients[i].post(url, form).status_code)
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=correct)]
    threads += [threading.Thread(target=write, args=(i,)) for i in range(6)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(timeout=600)
    close_old_connections()
    assert not errors, errors
    assert statuses == [302] * 6
    assert outcome and outcome[0].ok, outcome
    assert outcome[0].preview is not None and not outcome[0].preview.destructive
    game.refresh_from_db()
    writes = Action.objects.filter(game=game, args__reason__startswith="écriture")
    assert writes.count() == 6
    # the correction executed again only the actions from its instant on (and its own),
    # then each writer its own
    assert all(t >= insert_at.astimezone(UTC) for t in executed)
    assert len(executed) == after + 1 + 6
    seqs = list(Event.objects.filter(game=game).order_by("seq").values_list("seq", flat=True))
    assert seqs == list(range(1, len(seqs) + 1))


def test_the_collector_is_paused_during_corrections_and_runs_again_after_the_last(
    clock: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A correction pauses Python's cyclic collector (its rebuild would make it walk the
    whole process again and again) and gives it back as it found it once the last
    correction under way ends, even one that fails."""
    import gc

    assert gc.isenabled()
    with corrections.collector_paused():
        assert not gc.isenabled()
        with corrections.collector_paused():  # (two corrections at once)
            assert not gc.isenabled()
        assert not gc.isenabled()  # (the other is still under way)
    assert gc.isenabled()
    with pytest.raises(RuntimeError), corrections.collector_paused():
        raise RuntimeError("échec")
    assert gc.isenabled()
    gc.disable()  # (someone else's choice is kept)
    try:
        with corrections.collector_paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()
    service.clear_cache()
    game = _stored_game("collecteur")
    for when in ("J2 10:00", "J2 11:00"):
        clock(when)
        assert service.record(game, None, "rehearse", "Ana", {}).ok
    seen: list[bool] = []
    original = corrections.rebuild

    def watched(*args: Any, **kwargs: Any) -> Any:
        seen.append(gc.isenabled())
        return original(*args, **kwargs)

    monkeypatch.setattr(corrections, "rebuild", watched)
    args = {"player": "Bob", "points": 1, "reason": "x"}
    out = service.record(game, None, "award", "Mj", args, at=at("J2 10:30"))
    assert out.ok, out.message
    assert seen == [False] and gc.isenabled()
