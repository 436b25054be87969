"""More than one server on one database (issue 28): migrations are a step of their own,
taken under a lock; two servers share sessions through the database and the secret key.

The servers are the installed ``ronde`` script in subprocesses. The two-servers test
needs PostgreSQL (CI's web run sets ``DATABASE_URL``); it makes a database of its own on
that server and drops it at the end. The SQLite tests run everywhere.
"""

from __future__ import annotations

import http.client
import os
import re
import socket
import subprocess
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from .test_hosting import RONDE, env_for, ronde

PG_URL = os.environ.get("DATABASE_URL", "")
ON_POSTGRES = PG_URL.startswith(("postgres://", "postgresql://"))


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _get(port: int, path: str, cookie: str = "") -> Any:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    conn.request("GET", path, headers={"Cookie": cookie} if cookie else {})
    r = conn.getresponse()
    r.body = r.read().decode()
    conn.close()
    return r


def _login(port: int, username: str, password: str) -> str:
    """Log in through the login form; the session cookie."""
    r = _get(port, "/connexion/")
    csrf = re.search(r"csrftoken=([^;]+)", r.getheader("Set-Cookie") or "")
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', r.body)
    assert csrf and token, r.body[:500]
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    conn.request(
        "POST",
        "/connexion/",
        body=f"csrfmiddlewaretoken={token.group(1)}&username={username}&password={password}",
        headers={
            "Cookie": f"csrftoken={csrf.group(1)}",
            "Content-Type": "application/x-www-form-urlencoded",
            "Origin": f"http://127.0.0.1:{port}",
            "Referer": f"http://127.0.0.1:{port}/connexion/",
        },
    )
    r = conn.getresponse()
    r.read()
    conn.close()
    assert r.status == 302, r.status
    session = re.search(r"sessionid=([^;]+)", r.getheader("Set-Cookie") or "")
    assert session
    return f"sessionid={session.group(1)}"


def _start(env: dict[str, str], *args: str, log: Path) -> tuple[subprocess.Popen[bytes], int]:
    port = _free_port()
    out = log.open("wb")
    proc = subprocess.Popen(
        [str(RONDE), "serve", "--port", str(port), *args],
        env=env,
        stdout=out,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    for _ in range(600):
        if proc.poll() is not None:
            break
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            break
        except OSError:
            time.sleep(0.1)
    assert proc.poll() is None, log.read_text()
    return proc, port


def _stop(proc: subprocess.Popen[bytes]) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=30)


# -- SQLite: serve and tick refuse an unmigrated database; migrate takes a lock ------------


def test_serve_and_tick_refuse_a_database_that_is_not_migrated(tmp_path: Path) -> None:
    env = env_for(tmp_path)
    out = ronde("serve", "--port", str(_free_port()), env=env)
    assert out.returncode == 2
    assert "ronde manage migrate" in out.stderr and "Traceback" not in out.stderr
    assert not (tmp_path / "ronde.sqlite3").exists()  # nothing made by a refused start
    # a database whose last migrations are missing: refused too, by both
    assert ronde("manage", "migrate", "games", "0001", "-v", "0", env=env).returncode == 0
    for args in (("serve", "--port", str(_free_port())), ("tick",)):
        out = ronde(*args, env=env)
        assert out.returncode == 2, out.stdout + out.stderr
        assert "n'est pas à jour" in out.stderr and "ronde manage migrate" in out.stderr
        assert len(out.stderr.strip().splitlines()) == 1, out.stderr
    assert ronde("manage", "migrate", "-v", "0", env=env).returncode == 0
    out = ronde("tick", env=env)
    assert out.returncode == 0, out.stderr


def test_two_migrations_at_once_both_succeed(tmp_path: Path) -> None:
    env = env_for(tmp_path)
    runs = [
        subprocess.Popen(
            [str(RONDE), "manage", "migrate", "-v", "0"],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(2)
    ]
    results = [(p.wait(timeout=300), p.stderr.read() if p.stderr else "") for p in runs]
    assert [code for code, _ in results] == [0, 0], results
    assert (tmp_path / "ronde.sqlite3.migration-lock").exists()


def test_serve_on_a_busy_port_says_so_in_one_french_line(tmp_path: Path) -> None:
    env = env_for(tmp_path)
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        out = ronde("serve", "--port", str(port), env=env)
    assert out.returncode == 2
    assert out.stderr.strip().count("\n") == 0 and "déjà utilisé" in out.stderr, out.stderr


# -- PostgreSQL: two servers, one database ---------------------------------------------------


@pytest.fixture
def pg_database() -> Iterator[str]:
    """A fresh database on the PostgreSQL server of DATABASE_URL (dropped at the end)."""
    if not ON_POSTGRES:
        pytest.skip("PostgreSQL seulement (DATABASE_URL=postgres://..., make test-web en CI)")
    import psycopg

    name = f"ronde_servers_{uuid.uuid4().hex[:8]}"
    admin = re.sub(r"/[^/?]*(\?|$)", r"/postgres\1", PG_URL, count=1)
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    try:
        yield re.sub(r"/[^/?]*(\?|$)", rf"/{name}\1", PG_URL, count=1)
    finally:
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def test_two_servers_on_one_postgresql_database_share_a_login(
    pg_database: str, tmp_path: Path
) -> None:
    key = "une-clé-secrète-partagée-par-les-deux-serveurs-" + uuid.uuid4().hex
    common = {"DATABASE_URL": pg_database, "RONDE_SECRET_KEY": key, "RONDE_CONN_MAX_AGE": "0"}
    first = env_for(tmp_path / "a", **common)
    second = env_for(tmp_path / "b", **common)
    # unmigrated: both servers refuse to start (no race on the schema), in French
    for env in (first, second):
        out = ronde("serve", "--port", str(_free_port()), env=env)
        assert out.returncode == 2 and "ronde manage migrate" in out.stderr, out.stderr
    # two migrations at once (one per machine, say): the advisory lock makes them take turns
    runs = [
        subprocess.Popen(
            [str(RONDE), "manage", "migrate", "-v", "0"],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for env in (first, second)
    ]
    results = [(p.wait(timeout=300), p.stderr.read() if p.stderr else "") for p in runs]
    assert [code for code, _ in results] == [0, 0], results
    made = ronde(
        "manage",
        "createsuperuser",
        "--noinput",
        "--username",
        "Hote",
        "--email",
        "hote@example.org",
        env={**first, "DJANGO_SUPERUSER_PASSWORD": "mot-de-passe-hote-42"},
    )
    assert made.returncode == 0, made.stderr
    a, port_a = _start(first, log=tmp_path / "a.log")
    b = None
    try:
        b, port_b = _start(second, "--workers", "2", "--threads", "2", log=tmp_path / "b.log")
        anonymous = _get(port_b, "/mj/")
        assert anonymous.status == 302 and "/connexion/" in (anonymous.getheader("Location") or "")
        cookie = _login(port_a, "Hote", "mot-de-passe-hote-42")
        # the session made by the first server is read by the second (both of its workers)
        for _ in range(4):
            r = _get(port_b, "/mj/", cookie)
            assert r.status == 200, (r.status, r.getheader("Location"))
            assert "Hote" in r.body
    finally:
        _stop(a)
        if b is not None:
            _stop(b)
    # each server wrote its access log
    assert re.search(r"ronde\.access .* GET /mj/ 200 ", (tmp_path / "b.log").read_text())
