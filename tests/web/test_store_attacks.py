"""Attacks on the held games' actions (``Held.actions``) and the corrections that read
them instead of the rows: several workers interleaving writes at now, corrections early
in a busy day, strikes, timers, batches, replacements; failed transactions.

After each burst: the stored log (each row's event and action) is the one executing
every action not struck out again gives, each worker's held actions are the stored
rows', its log the stored one (``tests/web/storecheck.py``).

SQLite, and PostgreSQL when ``DATABASE_URL`` is set.
"""

from __future__ import annotations

import os
import random
import uuid
from datetime import timedelta
from typing import Any

import pytest

from ronde.engine.clock import at_clock
from ronde.engine.commands import Command
from ronde.web.games import demo, service
from ronde.web.games.models import Action, Generation, Request
from tests.web.conftest import START
from tests.web.storecheck import Worker, check_held, check_store
from tests.web.test_corrections import keys as keys  # (the fixture: each command's draw key)

pytestmark = pytest.mark.django_db

_played: dict[tuple[int, int], demo.Played] = {}


def _played_game(seed: int, day: int, hour: int) -> demo.Played:
    key = (seed, day * 100 + hour)
    if key not in _played:
        _played[key] = demo.play_until(
            at_clock(START, day, hour, 0), start=START, seed=seed, players=28
        )
    return _played[key]


def _later_commands(seed: int) -> tuple[demo.Played, list[Command]]:
    """The bots' game (28 players) to J2 09:00, and the commands they play after it, to J4
    20:00."""
    first = _played_game(seed, 2, 9)
    longer = _played_game(seed, 4, 20)
    n = len(first.game.commands)
    return first, [c for c, _f, _e in longer.game.commands[n:]]


def _fuzz(seed: int, clock: Any) -> None:
    """The bots' commands after J2 09:00 recorded by three workers of their own in turn
    (each holding its games: they catch up with the others' writes), some held back and
    recorded later at their instant (corrections, confirmed if they change the past),
    strikes, batches (``record_many``), game masters' identical awards, replacements,
    workers restarted or no longer knowing their held game's actions, timers; every
    worker's held game checked every 25 steps, the store at the end."""
    rng = random.Random(seed)
    first, commands = _later_commands(seed % 3 + 1)
    service.clear_cache()
    clock("J2 12:00")
    game = demo.store(first, slug=f"f-{uuid.uuid4().hex[:8]}", name="Fuzz")
    workers = [Worker() for _ in range(3)]
    deferred: list[Command] = []
    i = 0
    step = 0
    while i < len(commands):
        step += 1
        w = rng.choice(workers)
        with w:
            roll = rng.random()
            cmd = commands[i]
            if roll < 0.08:  # held back: recorded later, at its instant (a correction)
                deferred.append(cmd)
                i += 1
                continue
            if roll < 0.16 and deferred:
                late = deferred.pop(rng.randrange(len(deferred)))
                service.set_clock(max(cmd.at, late.at))
                out = service.record(game, None, late.action, late.by, dict(late.args), at=late.at)
                if not out.ok and out.preview is not None:
                    out = service.record(
                        game, None, late.action, late.by, dict(late.args), at=late.at,
                        confirm=out.token,
                    )  # fmt: skip
                continue
            if roll < 0.2:  # strike an action
                actions = list(Action.objects.filter(game=game, struck=False).order_by("pk"))
                if actions:
                    target = rng.choice(actions[-30:] if rng.random() < 0.7 else actions)
                    service.set_clock(max(cmd.at, service.load(game).state.clock or cmd.at))
                    game.refresh_from_db()
                    service.strike(game, target, "essai", None, game.version)
                continue
            if roll < 0.26:  # a batch: the commands of this instant
                batch = []
                while i < len(commands) and commands[i].at == cmd.at and len(batch) < 8:
                    batch.append(commands[i])
                    i += 1
                service.set_clock(cmd.at)
                service.record_many(game, None, [(c.action, c.by, dict(c.args)) for c in batch])
                continue
            if roll < 0.31:  # an award at now (sometimes the same as the last one)
                service.set_clock(cmd.at)
                who = rng.choice(["Joueur01", "Joueur02"])
                args = {"player": who, "points": 1, "reason": rng.choice(["a", "b"])}
                service.record(game, None, "award", rng.choice(["Mj", "Mj2"]), args)
                continue
            if roll < 0.33:  # a player replaced (a strike may give the seat back)
                service.set_clock(cmd.at)
                seats = service.load(game).state.players
                old = seats[rng.choice(sorted(seats))].pseudo
                args = {"player": old, "new": f"Remplaçant{step}"}
                service.record(game, None, "replace_player", "Mj", args)
                continue
            if roll < 0.36:
                w.forget()
            elif roll < 0.39 and game.pk in w.held:  # (it reads the rows until it replays)
                w.held[game.pk].actions = None
            elif roll < 0.43:
                service.set_clock(cmd.at + timedelta(minutes=rng.choice([1, 30, 300])))
                service.tick(game)
            service.set_clock(cmd.at)
            service.record(game, None, cmd.action, cmd.by, dict(cmd.args))
            i += 1
        if step % 25 == 0:
            for other in workers:
                with other:
                    check_held(game)
    for other in workers:
        with other:
            check_held(game)
    check_store(game)


#: more seeds for a longer run: RONDE_FUZZ_SEEDS=150 RONDE_FUZZ_FIRST=1000
SEEDS = [
    s + int(os.environ.get("RONDE_FUZZ_FIRST", "0"))
    for s in range(int(os.environ.get("RONDE_FUZZ_SEEDS", "2")))
]


@pytest.mark.parametrize("seed", SEEDS)
def test_workers_interleaving_every_kind_of_write_keep_each_event_with_its_action(
    clock: Any, seed: int
) -> None:
    """The fuzz (:func:`_fuzz`): the held games' actions, the stored rows and executing
    the actions again agree after any interleaving."""
    _fuzz(seed, clock)


# -- a write whose transaction fails after the game was rebuilt or advanced ---------------
def _small_game(slug: str, clock: Any) -> Any:
    """The small test game with awards at J2 09:00, 10:00, 11:00 (the clock at 12:00)."""
    from tests.web.test_corrections import _stored_game

    service.clear_cache()
    game = _stored_game(slug)
    for when in ("J2 09:00", "J2 10:00", "J2 11:00"):
        clock(when)
        args = {"player": "Ana", "points": 1, "reason": when}
        assert service.record(game, None, "award", "Mj", args).ok
    clock("J2 12:00")
    return game


class Boom(Exception):
    pass


@pytest.mark.parametrize("where", ["notify", "after_adopt", "seats", "copy"])
@pytest.mark.parametrize("write", ["earlier", "strike", "now", "batch", "tick"])
def test_a_write_that_fails_late_leaves_the_worker_in_step(
    clock: Any, monkeypatch: pytest.MonkeyPatch, where: str, write: str
) -> None:
    """A write (a correction, a strike, a write at now, a batch, timers) whose transaction
    fails after the game was rebuilt or advanced (the outbox, once the game is held at the
    new version, the seats, the copy of the unchanged rows): nothing is written, and the
    same worker's next writes, corrections included, keep each event with its action."""
    from ronde.web.games import eventstore, notify

    if (write, where) == ("tick", "seats"):
        pytest.skip("timers change no seat")
    game = _small_game(f"echec-{where}-{write}", clock)
    check_store(game)
    armed = [True]

    def once(original: Any) -> Any:
        def failing(*args: Any, **kwargs: Any) -> Any:
            if where == "after_adopt":
                original(*args, **kwargs)
            if armed[0]:
                armed[0] = False
                raise Boom()
            return original(*args, **kwargs)

        return failing

    if where == "notify":
        monkeypatch.setattr(notify, "written", once(notify.written))
    elif where == "after_adopt":
        monkeypatch.setattr(eventstore, "adopt", once(eventstore.adopt))
    elif where == "seats":
        monkeypatch.setattr(service, "_seats", once(service._seats))
    else:
        monkeypatch.setattr(eventstore, "copy_rows", once(eventstore.copy_rows))
        monkeypatch.setattr(eventstore, "append", once(eventstore.append))
    version = game.version
    args = {"player": "Bob", "points": 2, "reason": "oubli"}
    with pytest.raises(Boom):
        if write == "earlier":
            service.record(game, None, "award", "Mj", args, at=at_clock(START, 2, 9, 30))
        elif write == "strike":
            target = Action.objects.filter(game=game).order_by("pk").first()
            assert target is not None
            service.strike(game, target, "essai", None, game.version)
        elif write == "now":
            service.record(game, None, "award", "Mj", args)
        elif write == "batch":
            service.record_many(game, None, [("award", "Mj", args), ("rehearse", "Bob", {})])
        else:
            clock("J3 01:00")
            service.tick(game)
        raise Boom()  # (a write that did not fail where it was told to: nothing to test)
    game.refresh_from_db()
    assert game.version == version
    check_store(game)
    clock("J3 02:00")
    assert service.record(game, None, "award", "Mj", args).ok
    assert service.record(game, None, "award", "Mj", args, at=at_clock(START, 2, 9, 45)).ok
    target = Action.objects.filter(game=game, struck=False).order_by("pk")[1]
    game.refresh_from_db()
    assert service.strike(game, target, "essai", None, game.version).ok
    check_store(game)


# -- threads of one process (their held games pooled) through the console ----------------
def _pooled_games(game: Any) -> list[Any]:
    from ronde.web.games import eventstore

    with eventstore._pool_lock:
        return list(eventstore._pool.get(game.pk, []))


@pytest.mark.django_db(transaction=True)
def test_console_threads_interleave_writes_corrections_strikes_and_batches(clock: Any) -> None:
    """Four game masters' browsers at once (threads of one process whose held games go
    back to one pool after each request): awards at now and earlier that day, strikes,
    the batch complaints form, players' actions, while the clock moves (timers fire on the
    pages read). Then every pooled game and a cold load agree with the stored rows, and
    the stored rows with executing the actions again."""
    import threading

    from django.db import close_old_connections, connection
    from django.test import Client
    from django.urls import reverse

    from ronde.web.games import eventstore
    from ronde.web.games.models import GameMaster
    from tests.web.burst import game_with_a_trial

    game, trial, pseudos = game_with_a_trial(clock, "fils")
    clock("J2 12:00")
    requests = [  # players' requests received that morning, accepted by the game masters
        Request.objects.create(
            game=game,
            membership=game.memberships.get(pseudo=who, revoked_at__isnull=True),
            action="rehearse",
            args={},
            created_at=at_clock(START, 2, 10, 20 + k),
        ).pk
        for k, who in enumerate(pseudos[:12])
    ]
    gms = list(GameMaster.objects.filter(game=game).select_related("user").order_by("pk"))
    errors: list[BaseException] = []
    statuses: list[int] = []
    lock = threading.Lock()

    def browse(i: int) -> None:
        rng = random.Random(i)
        c = Client()
        c.force_login(gms[i % len(gms)].user)
        award = reverse("gm_action", args=[game.slug, "award"])
        try:
            for k in range(14):
                roll = rng.random()
                who = rng.choice(pseudos)
                if roll < 0.35:
                    form = {"player": who, "points": "1", "reason": f"t{i}-{k}"}
                    r = c.post(award, form)
                elif roll < 0.55:
                    hour = rng.choice(["09:40", "10:05", "10:30", "11:15"])
                    form = {"player": who, "points": "2", "reason": f"e{i}-{k}"}
                    r = c.post(award, {**form, "at": f"J2 {hour}"})
                elif roll < 0.7:
                    mine = list(Action.objects.filter(game=game, struck=False).order_by("-pk")[:12])
                    target = rng.choice(mine)
                    url = reverse("gm_strike", args=[game.slug, target.pk])
                    for _again in range(4):  # (another wrote since the token was read)
                        version = type(game).objects.get(pk=game.pk).version
                        r = c.post(url, {"reason": "essai", "token": version})
                        if Action.objects.filter(pk=target.pk, struck=True).exists():
                            break
                elif roll < 0.78 and requests:
                    with lock:
                        pk = requests.pop(rng.randrange(len(requests)))
                    url = reverse("gm_request", args=[game.slug, pk, "accept"])
                    r = c.post(url, {})
                    if b"/confirmer" in r.content or r.status_code == 200:
                        token = type(game).objects.get(pk=game.pk).version
                        r = c.post(url, {"confirm": token})
                elif roll < 0.85:
                    url = reverse("gm_complaints", args=[game.slug])
                    data = {
                        "trial": str(trial),
                        "form-TOTAL_FORMS": "3",
                        "form-INITIAL_FORMS": "0",
                        "form-MIN_NUM_FORMS": "0",
                        "form-MAX_NUM_FORMS": "40",
                    }
                    for j in range(3):
                        data[f"form-{j}-by"] = rng.choice(pseudos)
                        data[f"form-{j}-at"] = f"J2 1{rng.randrange(0, 2)}:{rng.randrange(60):02d}"
                    r = c.post(url, data)
                else:
                    url = reverse("gm_action", args=[game.slug, "rehearse"])
                    r = c.post(url, {"by": who})
                with lock:
                    statuses.append(r.status_code)
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=browse, args=(i,)) for i in range(4)]
    for th in threads:
        th.start()
    for minute in range(5, 60, 5):  # the clock moves meanwhile
        if not any(th.is_alive() for th in threads):
            break
        clock(f"J2 12:{minute:02d}")
        threading.Event().wait(0.3)
    for th in threads:
        th.join(timeout=600)
    close_old_connections()
    assert not errors, errors
    assert set(statuses) <= {200, 302, 400}, statuses
    game.refresh_from_db()
    for h in _pooled_games(game):  # every game the threads gave back, made this thread's
        eventstore._held()[game.pk] = h
        check_held(game)
    eventstore.drop(game.pk)
    check_store(game)
    assert Action.objects.filter(game=game, struck=True).exists()
    assert Generation.objects.filter(game=game).count() > 5
    assert Request.objects.filter(game=game, status=Request.ACCEPTED).exists()


# -- a write whose commit fails: the game it held is not the stored one -------------------
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("write", ["earlier", "now"])
def test_a_write_whose_commit_fails_is_not_held_as_stored(
    clock: Any, monkeypatch: pytest.MonkeyPatch, write: str
) -> None:
    """A worker's correction (or write at now) whose COMMIT fails (a full disk, a lost
    connection): nothing is stored. Another worker then records the same kind of write
    for another player, which takes the same row numbers (SQLite gives back the numbers
    of rolled-back rows). The first worker's next read must show the stored game, not
    the one it wrote and failed to commit."""
    from django.db import OperationalError, connection

    game = _small_game(f"commit-{write}", clock)
    a, b = Worker(), Worker()
    with a:
        service.load(game)
        check_held(game)
    failing = [True]
    commit = connection.commit

    def commit_once() -> None:
        if failing[0]:
            failing[0] = False
            raise OperationalError("disk I/O error")
        commit()

    when = at_clock(START, 2, 9, 30) if write == "earlier" else None
    with a:
        monkeypatch.setattr(connection, "commit", commit_once)
        args = {"player": "Ana", "points": 5, "reason": "x"}
        with pytest.raises(OperationalError):
            service.record(game, None, "award", "Mj", args, at=when)
        monkeypatch.undo()
    with b:
        args = {"player": "Bob", "points": 5, "reason": "x"}
        assert service.record(game, None, "award", "Mj", args, at=when).ok
        check_held(game)
    with a:
        check_held(game)
    check_store(game)


@pytest.mark.parametrize("seed", SEEDS if os.environ.get("RONDE_FUZZ_SEEDS") else SEEDS[:1])
def test_a_fuzzed_game_exported_imported_and_corrected_keeps_each_event_with_its_action(
    clock: Any, seed: int
) -> None:
    """A fuzzed game exported and imported: the copy's log is the one its actions give,
    and stays so through corrections and strikes of the copy."""
    from ronde.web.games import transfer
    from ronde.web.games.models import Game

    for s in [seed]:
        _fuzz(s, clock)
        game = Game.objects.order_by("-pk").first()
        text = b"".join(transfer.export_lines(game)).decode()
        copy = transfer.import_game(transfer.parse(text), f"copie-{s}")
        check_store(copy)
        rng = random.Random(s)
        for k in range(6):
            if k % 2:
                args = {"player": "Joueur03", "points": 1, "reason": f"i{k}"}
                when = at_clock(START, rng.choice([2, 3, 4]), rng.randrange(9, 15), 0)
                out = service.record(copy, None, "award", "Mj", args, at=when)
                assert out.ok or out.preview is not None or out.code == "unknown_player"
                if not out.ok and out.preview is not None:
                    assert service.record(
                        copy, None, "award", "Mj", args, at=when, confirm=out.token
                    ).ok
            else:
                standing = list(Action.objects.filter(game=copy, struck=False).order_by("pk"))
                target = rng.choice(standing)
                copy.refresh_from_db()
                assert service.strike(copy, target, "essai", None, copy.version).ok
            check_held(copy)
        check_store(copy)


# -- an import keeps the order of the actions recorded at one instant ---------------------
def test_an_import_keeps_the_order_of_actions_recorded_at_one_instant(clock: Any) -> None:
    """At J2 11:00 a complaint was recorded before the trial it names was opened (its
    first opening struck, opened again by a correction at that instant): executed in the
    order recorded, the complaint is refused. Exported and imported, the actions keep
    that order: the imported log is the one executing them again gives (the complaint,
    which made no event, is not moved after the opening, where it would be accepted by
    the next correction)."""
    from ronde.web.games import transfer
    from tests.web.test_corrections import _stored_game

    service.clear_cache()
    game = _stored_game("ordre")
    clock("J2 12:00")
    opening = {"against": "Bob", "as": "woody", "anonymous": False}
    assert service.record(game, None, "open_trial", "Ida", opening, at=at_clock(START, 2, 10, 0)).ok
    complaint = service.record(
        game, None, "complain", "Ana", {"trial": 1}, at=at_clock(START, 2, 11, 0)
    )
    assert complaint.ok, complaint.message
    first = Action.objects.get(game=game, action="open_trial")
    game.refresh_from_db()
    assert service.strike(game, first, "erreur", None, game.version).ok
    out = service.record(game, None, "open_trial", "Ida", opening, at=at_clock(START, 2, 11, 0))
    assert out.ok, out.message
    assert Action.objects.get(pk=complaint.action.pk).outcome == "refused"  # (before it)
    check_store(game)
    text = b"".join(transfer.export_lines(game)).decode()
    copy = transfer.import_game(transfer.parse(text), "ordre-copie")
    check_store(copy)


# -- the day's actions read later, by a worker that did not know them ----------------------
@pytest.mark.parametrize("known", [True, False])
def test_a_draw_after_a_correction_counts_the_days_actions_as_a_whole_rebuild(
    clock: Any,
    known: bool,
    keys: list[Any],
) -> None:
    """The Hero designates an Extra at J1 10:00, that Extra's citizen dies at 11:00; a
    worker corrects the day at 10:30 (knowing its held game's actions, or not: then the
    day's actions are read from the rows only when a draw needs them); another worker
    writes at 12:00 (the first catches up), then the first records the Hero's second
    designation at 12:30: it is the day's second (#1), as executing every action again
    from the creation keys it, and the stored log is that one."""
    from ronde.web.games import eventstore
    from tests.web.conftest import make_world
    from tests.web.test_corrections import TH_CAST, TH_RONDE, _monsters

    service.clear_cache()
    game = make_world(TH_CAST, TH_RONDE, {"A4": "death_unmasks"}, slug="heros-tard").game
    a, b = Worker(), Worker()
    with a:
        clock("J1 10:00")
        assert service.record(game, None, "designate_monster", "Tom", {"character": "extra"}).ok
        clock("J1 11:00")
        pseudo = service.load(game).state.pseudo(_monsters(game)[0])
        assert service.record(game, None, "record_death", "Mj", {"player": pseudo}).ok
        clock("J1 11:45")
        if not known:
            a.held[game.pk].actions = None
        args = {"player": "Ana", "points": 5, "reason": "oubli"}
        out = service.record(game, None, "award", "Mj", args, at=at_clock(START, 1, 10, 30))
        assert out.ok, out.message
        assert (eventstore.actions_of(game.pk, service.load(game)) is None) is not known
    with b:
        clock("J1 12:00")
        args = {"player": "Bob", "points": 1, "reason": "ailleurs"}
        assert service.record(game, None, "award", "Mj2", args).ok
    with a:
        clock("J1 12:30")
        keys.clear()
        assert service.record(game, None, "designate_monster", "Tom", {"character": "extra"}).ok
        assert [k[3][-2:] for k in keys] == ["#1"]
        check_held(game)
    check_store(game)
