"""A server you can put on the internet (issue 9): behind an HTTPS proxy, a data folder
that does not depend on the current folder, a secret key only its owner reads,
``ronde manage``, ``ronde tick`` on a missing database, backups taken while writes go on.

The commands run as the installed ``ronde`` script in a subprocess, each on its own
throwaway data folder (SQLite), whatever database the other web tests use.
"""

from __future__ import annotations

import http.client
import os
import re
import socket
import sqlite3
import stat
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.db import connection
from django.test import Client, override_settings
from django.urls import reverse

from ronde.web.games import accounts, service

from .conftest import make_world

RONDE = Path(sys.executable).parent / "ronde"
HOST = "ronde.example.org"
ORIGIN = f"https://{HOST}"


def env_for(data: Path, **extra: str) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("RONDE_", "DJANGO_")) and k != "DATABASE_URL"
    }
    env["RONDE_DATA_DIR"] = str(data)
    env.update(extra)
    return env


def ronde(
    *args: str, env: dict[str, str], cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(RONDE), *args], env=env, cwd=cwd, capture_output=True, text=True, timeout=300
    )


PROXY = {
    "RONDE_HTTPS_PROXY": "1",
    "RONDE_ALLOWED_HOSTS": HOST,
    "RONDE_CSRF_TRUSTED_ORIGINS": ORIGIN,
}


# -- configuration ------------------------------------------------------------------------


def test_check_deploy_behind_an_https_proxy_prints_no_warning(tmp_path: Path) -> None:
    out = ronde(
        "manage", "check", "--deploy", "--fail-level", "WARNING", env=env_for(tmp_path, **PROXY)
    )
    assert out.returncode == 0, out.stdout + out.stderr
    assert "WARNING" not in out.stdout + out.stderr and "no issues" in out.stdout
    # without the proxy settings Django warns (so the check above means something)
    bare = ronde("manage", "check", "--deploy", env=env_for(tmp_path))
    assert "security.W008" in bare.stdout + bare.stderr


def test_data_folder_does_not_depend_on_the_current_folder(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    env = env_for(tmp_path / "unused")
    del env["RONDE_DATA_DIR"]
    env.update(HOME=str(home), XDG_DATA_HOME=str(home / ".local" / "share"))
    code = (
        "from django.conf import settings; import django; django.setup(); "
        "print(settings.DATABASES['default']['NAME']); print(settings.DATA_DIR)"
    )
    env["DJANGO_SETTINGS_MODULE"] = "ronde.web.settings"
    seen = set()
    for cwd in (tmp_path, home, Path("/")):
        out = subprocess.run(
            [sys.executable, "-c", code],
            env=env,
            cwd=cwd,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert out.returncode == 0, out.stderr
        seen.add(out.stdout)
    assert len(seen) == 1
    db, folder = seen.pop().split()
    assert Path(db) == Path(folder) / "ronde.sqlite3"
    assert Path(folder).is_relative_to(home) and not Path(folder).is_relative_to(tmp_path / "x")
    key = Path(folder) / "secret_key"
    assert stat.S_IMODE(key.stat().st_mode) == 0o600


def test_secret_key_is_created_private_whatever_the_umask(tmp_path: Path) -> None:
    from ronde.web.settings import read_or_create_secret

    old = os.umask(0)
    try:
        key = read_or_create_secret(tmp_path / "dossier" / "secret_key")
    finally:
        os.umask(old)
    path = tmp_path / "dossier" / "secret_key"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600 and len(key) > 40
    assert read_or_create_secret(path) == key


def test_database_url_keeps_its_options() -> None:
    from ronde.web.settings import database_from_url

    db = database_from_url("postgres://ronde:s%40cret@db.example.org:5433/ronde?sslmode=require")
    assert db["ENGINE"] == "django.db.backends.postgresql"
    assert (db["HOST"], db["PORT"], db["NAME"], db["PASSWORD"]) == (
        "db.example.org",
        5433,
        "ronde",
        "s@cret",
    )
    assert db["OPTIONS"]["sslmode"] == "require"


def test_tick_refuses_a_missing_database(tmp_path: Path) -> None:
    out = ronde("tick", env=env_for(tmp_path / "vide"), cwd=tmp_path)
    assert out.returncode == 2 and "Base introuvable" in out.stderr
    assert not (tmp_path / "vide" / "ronde.sqlite3").exists()


# -- behind an HTTPS reverse proxy (the real server: waitress) ----------------------------


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def proxied_server(tmp_path: Path) -> Iterator[tuple[int, Path]]:
    env = env_for(tmp_path, **PROXY, DJANGO_SUPERUSER_PASSWORD="mot-de-passe-admin-42")
    made = ronde("manage", "migrate", "-v", "0", env=env)
    assert made.returncode == 0, made.stderr
    made = ronde(
        "manage",
        "createsuperuser",
        "--noinput",
        "--username",
        "Admin",
        "--email",
        "admin@example.org",
        env=env,
    )
    assert made.returncode == 0, made.stderr
    port = _free_port()
    log = (tmp_path / "serveur.log").open("w")
    proc = subprocess.Popen(
        [str(RONDE), "serve", "--port", str(port)], env=env, stdout=log, stderr=subprocess.STDOUT
    )
    try:
        for _ in range(600):
            if proc.poll() is not None:
                break
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.1)
        assert proc.poll() is None, (tmp_path / "serveur.log").read_text()
        yield port, tmp_path
    finally:
        proc.terminate()
        proc.wait(timeout=30)
        log.close()


def _request(port: int, method: str, path: str, headers: dict[str, str], body: str = "") -> Any:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    conn.request(method, path, body=body.encode(), headers=headers)
    r = conn.getresponse()
    r.body = r.read().decode()
    conn.close()
    return r


def test_login_through_an_https_proxy(proxied_server: tuple[int, Path]) -> None:
    port, _data = proxied_server
    proxy = {"Host": HOST, "X-Forwarded-Proto": "https", "X-Forwarded-For": "203.0.113.9"}
    # plain http is sent to https
    r = _request(port, "GET", "/connexion/", {"Host": HOST})
    assert r.status in (301, 302) and r.getheader("Location") == f"{ORIGIN}/connexion/"
    r = _request(port, "GET", "/connexion/", proxy)
    assert r.status == 200
    assert "max-age=" in (r.getheader("Strict-Transport-Security") or "")
    cookie = r.getheader("Set-Cookie") or ""
    assert "csrftoken=" in cookie and "Secure" in cookie
    csrf = re.search(r"csrftoken=([^;]+)", cookie)
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', r.body)
    assert csrf and token
    body = f"csrfmiddlewaretoken={token.group(1)}&username=admin&password=mot-de-passe-admin-42"
    r = _request(
        port,
        "POST",
        "/connexion/",
        {
            **proxy,
            "Origin": ORIGIN,
            "Referer": f"{ORIGIN}/connexion/",
            "Cookie": f"csrftoken={csrf.group(1)}",
            "Content-Type": "application/x-www-form-urlencoded",
        },
        body,
    )
    assert r.status == 302, r.body[:2000]
    assert "sessionid=" in (r.getheader("Set-Cookie") or "")
    assert "Secure" in (r.getheader("Set-Cookie") or "")
    # collected static files are served (WhiteNoise)
    r = _request(port, "GET", "/static/django_htmx/htmx-2.min.js", proxy)
    assert r.status == 200


@pytest.mark.django_db
def test_invitation_links_read_https_behind_the_proxy(world: Any) -> None:
    settings = {
        "SECURE_PROXY_SSL_HEADER": ("HTTP_X_FORWARDED_PROTO", "https"),
        "ALLOWED_HOSTS": [HOST],
        "CSRF_TRUSTED_ORIGINS": [ORIGIN],
        "SESSION_COOKIE_SECURE": True,
        "CSRF_COOKIE_SECURE": True,
    }
    with override_settings(**settings):
        accounts.add_player(world.game, "Nouveau")
        c = Client(enforce_csrf_checks=True, HTTP_HOST=HOST, HTTP_X_FORWARDED_PROTO="https")
        c.force_login(world.gms["Mj"])
        page = c.get(reverse("gm_players", args=[world.game.slug])).content.decode()
        assert f"{ORIGIN}/invitation/" in page and "http://" not in page


# -- backups --------------------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_backup_while_writing_restores_to_a_game_that_replays(clock: Any, tmp_path: Path) -> None:
    from ronde.web import backup
    from ronde.web.games.models import Event, Game

    service.clear_cache()
    world = make_world(slug="sauvegarde")
    if connection.vendor != "sqlite":
        with pytest.raises(backup.BackupError, match="pg_dump"):
            backup.backup(tmp_path / "copie.sqlite3")
        return
    clock("J2 10:00")
    stop = threading.Event()
    errors: list[BaseException] = []
    written = [0]
    players = list(world.users)

    def writer(k: int) -> None:
        try:
            i = 0
            while not stop.is_set() and i < 400:
                who = players[(k * 7 + i) % len(players)]
                out = service.record(world.game, None, "rehearse", who, {})
                if out.ok:
                    written[0] += 1
                i += 1
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=writer, args=(k,)) for k in range(3)]
    for t in threads:
        t.start()
    copies = []
    try:
        while written[0] < 5 and not errors:
            time.sleep(0.05)
        for n in range(3):
            copies.append(backup.backup(tmp_path / f"copie-{n}.sqlite3"))
            time.sleep(0.2)
    finally:
        stop.set()
        for t in threads:
            t.join(timeout=120)
    assert not errors, errors
    assert written[0] > 5
    total = Event.objects.filter(game=world.game).count()
    sizes = []
    for copy in copies:
        assert stat.S_IMODE(copy.stat().st_mode) == 0o600
        db = sqlite3.connect(copy)
        (last_seq,) = db.execute(
            "SELECT last_seq FROM games_game WHERE slug='sauvegarde'"
        ).fetchone()
        seqs = [
            row[0]
            for row in db.execute(
                "SELECT seq FROM games_event e JOIN games_game g ON e.game_id = g.id "
                "WHERE g.slug='sauvegarde' ORDER BY seq"
            )
        ]
        db.close()
        # a consistent copy: the game row and its events agree, no gap
        assert seqs == list(range(1, last_seq + 1))
        sizes.append(last_seq)
    assert sizes[0] <= sizes[-1] <= total

    # restore the last copy into a fresh data folder: the game replays there
    data = tmp_path / "restauree"
    env = env_for(data)
    out = ronde("restore", "--yes", str(copies[-1]), env=env)
    assert out.returncode == 0, out.stdout + out.stderr
    code = (
        "from ronde.web.games import service; from ronde.web.games.models import Game; "
        "g = Game.objects.get(slug='sauvegarde'); e = service.load(g); "
        "print(len(e.log), g.last_seq)"
    )
    out = ronde("manage", "shell", "--no-imports", "-c", code, env=env)
    assert out.returncode == 0, out.stderr
    replayed, last_seq = map(int, out.stdout.split()[-2:])
    assert replayed == last_seq == sizes[-1]
    Game.objects.filter(slug="sauvegarde")  # the live database is untouched
    assert Event.objects.filter(game=world.game).count() == total


def test_restore_refuses_a_file_that_is_not_a_backup(tmp_path: Path) -> None:
    junk = tmp_path / "pas-une-sauvegarde.sqlite3"
    junk.write_text("bonjour")
    out = ronde("restore", "--yes", str(junk), env=env_for(tmp_path / "donnees"))
    assert out.returncode == 1 and "sauvegarde de Ronde" in out.stderr


def test_manage_passes_through_to_django(tmp_path: Path) -> None:
    out = ronde("manage", "help", env=env_for(tmp_path))
    assert out.returncode == 0 and "collectstatic" in out.stdout and "createsuperuser" in out.stdout


def test_organiser_command_grants_the_permission(tmp_path: Path) -> None:
    env = env_for(tmp_path)
    assert ronde("manage", "migrate", "-v", "0", env=env).returncode == 0
    code = (
        "from django.contrib.auth.models import User; "
        "User.objects.create_user('Orga', password='x')"
    )
    assert ronde("manage", "shell", "--no-imports", "-c", code, env=env).returncode == 0
    out = ronde("organiser", "add", "orga", env=env)
    assert out.returncode == 0 and "Orga peut créer des parties" in out.stdout
    listed = ronde("organiser", "list", env=env)
    assert "Orga" in listed.stdout
    check = (
        "from django.contrib.auth.models import User; "
        "print(User.objects.get(username='Orga').has_perm('games.organise'))"
    )
    assert ronde("manage", "shell", "--no-imports", "-c", check, env=env).stdout.strip() == "True"


@pytest.mark.django_db
def test_a_form_without_its_csrf_token_is_refused_in_french(world: Any) -> None:
    c = Client(enforce_csrf_checks=True)
    c.force_login(world.gms["Mj"])
    r = c.post(reverse("gm_action", args=[world.game.slug, "award"]), {"player": "Ana"})
    assert r.status_code == 403
    page = r.content.decode()
    assert "Formulaire refusé" in page and "Rien n'a été enregistré" in page
    assert "Forbidden" not in page
