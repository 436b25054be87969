"""Real processes on one database, each holding its own games: two servers (gunicorn with
two workers, waitress with one process), game masters' browsers on both, ``ronde act``,
``ronde strike`` and ``ronde advance`` at once; a server killed (``kill -9``) in the
middle of its corrections. Afterwards, and after each server corrected the game again
(with what it holds), the stored log is the one executing every action not struck out
again gives, each event with its action (``tests/web/storecheck.py``).

SQLite (a file), and PostgreSQL when ``DATABASE_URL`` is set.
"""

from __future__ import annotations

import contextlib
import http.client
import os
import random
import re
import signal
import subprocess
import threading
import time
import uuid
from pathlib import Path
from typing import Any
from urllib.parse import urlencode, urlparse

import pytest
from django.db import close_old_connections, connection

from ronde.engine.clock import at_clock
from ronde.web.games import demo, service
from ronde.web.games.models import Action, Game, Generation
from tests.conftest import real_clock
from tests.web.conftest import START
from tests.web.storecheck import check_store
from tests.web.test_hosting import env_for, ronde
from tests.web.test_servers import _start

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

PASSWORD = "mj-secret-1"


class Browser:
    """A game master's browser on one server: its cookies, the forms' CSRF token."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.cookies: dict[str, str] = {}

    def _send(self, method: str, path: str, body: str = "") -> tuple[int, str, str]:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=120)
        headers = {"Cookie": "; ".join(f"{k}={v}" for k, v in self.cookies.items())}
        if method == "POST":
            headers["Content-Type"] = "application/x-www-form-urlencoded"
            headers["Origin"] = f"http://127.0.0.1:{self.port}"
            headers["Referer"] = f"http://127.0.0.1:{self.port}{path}"
        conn.request(method, path, body=body or None, headers=headers)
        r = conn.getresponse()
        text = r.read().decode()
        for value in r.msg.get_all("Set-Cookie") or []:
            name, _sep, rest = value.partition("=")
            self.cookies[name.strip()] = rest.split(";")[0]
        conn.close()
        return r.status, text, r.getheader("Location") or ""

    def get(self, path: str) -> tuple[int, str]:
        status, text, _loc = self._send("GET", path)
        return status, text

    def post(self, path: str, form: dict[str, str], page: str | None = None) -> int:
        """Post ``form`` to ``path`` with the CSRF token of ``page`` (default: ``path``)."""
        _status, text = self.get(page or path)
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', text)
        data = dict(form)
        if token:
            data["csrfmiddlewaretoken"] = token.group(1)
        status, _text, _loc = self._send("POST", path, urlencode(data))
        return status

    def login(self, username: str) -> None:
        status = self.post("/connexion/", {"username": username, "password": PASSWORD})
        assert status == 302, status


def _env(tmp_path: Path, name: str) -> dict[str, str]:
    key = "une-clé-partagée-par-les-serveurs-de-l-attaque-" + "x" * 10
    extra = {"RONDE_SECRET_KEY": key, "RONDE_CONN_MAX_AGE": "0"}
    db = connection.settings_dict["NAME"]
    if connection.vendor == "postgresql":
        url = urlparse(os.environ["DATABASE_URL"])
        extra["DATABASE_URL"] = url._replace(path="/" + db).geturl()
    else:
        extra["RONDE_SQLITE_PATH"] = str(db)
    (tmp_path / name).mkdir(exist_ok=True)
    # the servers and commands keep the real clock, as the browser does (the game's is its
    # stored manual clock): Debian's libfaketime 0.9.10 breaks ``time.sleep`` in every
    # process it is loaded in (tests/conftest.py mends only this one), and gunicorn's
    # arbiter sleeps between the workers it starts
    return real_clock(env_for(tmp_path / name, **extra))


def _manual_game(prefix: str, name: str) -> tuple[Any, str, list[str]]:
    """The bots' 28-player game to J2 12:00 on a manual clock (the servers' clock is its
    stored one): the game, its slug, its players' pseudos."""
    service.clear_cache()
    service.set_clock(at_clock(START, 2, 12, 0))
    played = demo.play_until(at_clock(START, 2, 12, 0), start=START, seed=5, players=28)
    slug = f"{prefix}-{uuid.uuid4().hex[:6]}"
    game = demo.store(played, slug=slug, name=name, gm_password=PASSWORD, clock=Game.MANUAL)
    service.set_clock(None)
    return game, slug, [p.pseudo for p in played.game.state.players.values()]


def _kill_tree(proc: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)


def test_servers_workers_and_commands_at_once_keep_each_event_with_its_action(
    tmp_path: Path, settings: Any
) -> None:
    settings.PASSWORD_HASHERS = [
        "django.contrib.auth.hashers.PBKDF2PasswordHasher"
    ]  # (the servers')
    game, slug, pseudos = _manual_game("serveurs", "Serveurs")
    gms = ["mj", "mj2", "mj3", "mj4"]
    close_old_connections()
    env_a, env_b, env_c = (_env(tmp_path, n) for n in ("a", "b", "c"))
    a, port_a = _start(env_a, "--workers", "2", "--threads", "3", log=tmp_path / "a.log")
    b, port_b = _start(env_b, "--threads", "3", log=tmp_path / "b.log")
    errors: list[BaseException] = []
    statuses: list[int] = []
    lock = threading.Lock()
    stop = threading.Event()

    def browse(i: int, port: int, rounds: int) -> None:
        rng = random.Random(i)
        try:
            br = Browser(port)
            br.login(gms[i % len(gms)])
            award = f"/mj/{slug}/action/award/"
            for k in range(rounds):
                if stop.is_set():
                    return
                roll = rng.random()
                who = rng.choice(pseudos)
                if roll < 0.4:
                    form = {"player": who, "points": "1", "reason": f"t{i}-{k}"}
                    status = br.post(award, form)
                elif roll < 0.7:
                    hour = rng.choice(["09:40", "10:05", "10:30", "11:15", "11:50"])
                    form = {"player": who, "points": "2", "reason": f"e{i}-{k}", "at": f"J2 {hour}"}
                    status = br.post(award, form)
                elif roll < 0.85:
                    ids = list(
                        Action.objects.filter(game=game, struck=False)
                        .order_by("-pk")
                        .values_list("pk", flat=True)[:15]
                    )
                    pk = rng.choice(ids)
                    page = f"/mj/{slug}/rayer/{pk}/"
                    _s, text = br.get(page)
                    token = re.search(r'name="token" value="([^"]+)"', text)
                    form = {"reason": "essai", "token": token.group(1) if token else ""}
                    status = br.post(page, form)
                else:
                    status = br.post(f"/mj/{slug}/action/rehearse/", {"by": who})
                with lock:
                    statuses.append(status)
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)
        finally:
            connection.close()

    def commands(i: int) -> None:
        rng = random.Random(100 + i)
        try:
            for k in range(4):
                roll = rng.random()
                if roll < 0.5:
                    hour = rng.choice(["09:50", "10:40", "11:30"])
                    ronde(
                        "act", slug, "award", "--by", "Mj", "--at", f"J2 {hour}",
                        f"player={rng.choice(pseudos)}", "points=3", f"reason=c{i}-{k}",
                        env=env_c,
                    )  # fmt: skip
                elif roll < 0.8:
                    ids = list(
                        Action.objects.filter(game=game, struck=False)
                        .order_by("-pk")
                        .values_list("pk", flat=True)[:15]
                    )
                    ronde("strike", slug, str(rng.choice(ids)), "--reason", "x", "--yes", env=env_c)
                else:
                    ronde("act", slug, "rehearse", "--by", rng.choice(pseudos), env=env_c)
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)
        finally:
            connection.close()

    try:
        threads = [threading.Thread(target=browse, args=(i, port_a, 10)) for i in range(3)]
        threads += [threading.Thread(target=browse, args=(10 + i, port_b, 10)) for i in range(2)]
        threads += [threading.Thread(target=commands, args=(i,)) for i in range(2)]
        for th in threads:
            th.start()
        # the clock moves meanwhile (timers fire), and server b is killed mid-way
        for minute in (10, 20, 30):
            time.sleep(1.5)
            ronde("advance", slug, "--to", f"J2 12:{minute}", env=env_c)
        _kill_tree(b)
        b, port_b = _start(env_b, "--threads", "3", log=tmp_path / "b2.log")
        for th in threads:
            th.join(timeout=600)
        assert not errors, errors
        close_old_connections()
        service.clear_cache()
        check_store(game)
        # each server corrects again with what it holds
        for port, gm in ((port_a, "mj"), (port_a, "mj2"), (port_b, "mj3")):
            br = Browser(port)
            br.login(gm)
            for hour in ("10:10", "11:05"):
                form = {"player": pseudos[0], "points": "5", "reason": "fin", "at": f"J2 {hour}"}
                assert br.post(f"/mj/{slug}/action/award/", form) == 302
        close_old_connections()
        service.clear_cache()
        check_store(game)
        print(  # (what the burst did)
            {s: statuses.count(s) for s in set(statuses)},
            Generation.objects.filter(game=game).count(),
            Action.objects.filter(game=game, struck=True).count(),
        )
    finally:
        stop.set()
        _kill_tree(a)
        _kill_tree(b)


_SLOW_CORRECTION = """
import os, sys, time
from pathlib import Path
import django
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ronde.web.settings")
django.setup()
from ronde.engine.clock import parse_time
from ronde.web.games import corrections, service
from ronde.web.games.models import Game

write = corrections.write_generation

def stuck(*args, **kwargs):
    rows = write(*args, **kwargs)  # the new generation's rows written, not committed
    Path(sys.argv[2]).write_text("written")
    time.sleep(600)
    return rows

corrections.write_generation = stuck
game = Game.objects.get(slug=sys.argv[1])
args = {"player": sys.argv[3], "points": 9, "reason": "tué"}
service.record(game, None, "award", "Mj", args, at=parse_time("J2 09:35", game.start))
"""


def test_a_process_killed_in_the_middle_of_a_correction_leaves_the_others_in_step(
    tmp_path: Path, settings: Any
) -> None:
    """A process killed (``kill -9``) once its correction wrote the new generation's rows,
    before its commit, while the workers of a server (holding the game) wait for the lock
    with corrections of their own: nothing of it is stored, the others' are, each event
    with its action."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.PBKDF2PasswordHasher"]
    game, slug, pseudos = _manual_game("tue", "Tué")
    close_old_connections()
    env_a, env_c = _env(tmp_path, "a"), _env(tmp_path, "c")
    a, port_a = _start(env_a, "--workers", "2", "--threads", "3", log=tmp_path / "a.log")
    try:
        browsers = []
        for k, gm in enumerate(["mj", "mj2", "mj3", "mj4"]):
            br = Browser(port_a)
            br.login(gm)
            form = {"player": pseudos[k], "points": "1", "reason": f"avant{k}"}
            assert br.post(f"/mj/{slug}/action/award/", form) == 302  # (the workers hold it)
            browsers.append(br)
        ready = tmp_path / "ready"
        script = tmp_path / "slow.py"
        script.write_text(_SLOW_CORRECTION, encoding="utf-8")
        import sys

        killed = subprocess.Popen(
            [sys.executable, str(script), slug, str(ready), pseudos[5]],
            env={**env_c, "PYTHONPATH": str(Path(__file__).resolve().parents[2])},
            start_new_session=True,
        )
        for _ in range(600):
            if ready.exists() or killed.poll() is not None:
                break
            time.sleep(0.1)
        assert ready.exists(), killed.poll()
        statuses: list[int] = []

        def correct(k: int, br: Browser) -> None:
            hour = ("09:20", "10:15", "11:40", "09:36")[k]
            form = {
                "player": pseudos[k],
                "points": "2",
                "reason": f"pendant{k}",
                "at": f"J2 {hour}",
            }
            statuses.append(br.post(f"/mj/{slug}/action/award/", form))
            connection.close()

        threads = [threading.Thread(target=correct, args=kb) for kb in enumerate(browsers)]
        for th in threads:
            th.start()
        time.sleep(1.0)  # (they wait for the lock)
        _kill_tree(killed)
        for th in threads:
            th.join(timeout=300)
        assert statuses == [302] * 4, statuses
        close_old_connections()
        assert not Action.objects.filter(game=game, args__reason="tué").exists()
        assert Action.objects.filter(game=game, args__reason__startswith="pendant").count() == 4
        service.clear_cache()
        check_store(game)
        for k, br in enumerate(browsers):  # each worker corrects again with what it holds
            form = {"player": pseudos[k], "points": "3", "reason": f"après{k}", "at": "J2 10:50"}
            assert br.post(f"/mj/{slug}/action/award/", form) == 302
        close_old_connections()
        service.clear_cache()
        check_store(game)
    finally:
        _kill_tree(a)
