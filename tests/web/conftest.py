"""Fixtures of the web tests: a started game on a small cast, accounts, a frozen clock."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

import django
import pytest

from tests.conftest import SMALL_CAST, SMALL_RONDE

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ronde.web.settings")
# Playwright's sync API keeps an event loop running in the test thread
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
# no persistent connections in tests: threads' connections close with their requests
os.environ.setdefault("RONDE_CONN_MAX_AGE", "0")
# the tests' secret key and files never touch the user's data folder
os.environ.setdefault("RONDE_DATA_DIR", tempfile.mkdtemp(prefix="ronde-tests-"))
os.makedirs(os.path.join(os.environ["RONDE_DATA_DIR"], "static"), exist_ok=True)
django.setup()

START = date(2026, 12, 1)

RONDE = list(SMALL_RONDE)
CAST = dict(SMALL_CAST)  # the shared small test game (tests/conftest.py)
GMS = ["Mj", "Mj2"]


def at(text: str) -> datetime:
    from ronde.engine.clock import parse_time

    return parse_time(text, START)


@pytest.fixture(autouse=True)
def _fast_passwords(settings: Any) -> None:
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def clock() -> Iterator[Any]:
    """Freeze the web clock: ``clock("J2 10:00")``."""
    from ronde.web.games import service

    def set_to(text: str) -> datetime:
        t = at(text)
        service.set_clock(t)
        return t

    set_to("J1 09:00")
    yield set_to
    service.set_clock(None)


@dataclass
class World:
    game: Any
    gms: dict[str, Any]
    users: dict[str, Any]

    def member(self, pseudo: str) -> Any:
        return self.game.memberships.get(pseudo=pseudo, revoked_at__isnull=True)


def make_world(
    cast: dict[str, str] | None = None,
    ronde: list[str] | None = None,
    options: dict[str, str] | None = None,
    slug: str = "ronde-test",
    start: date = START,
) -> World:
    from django.contrib.auth import get_user_model

    from ronde.catalog import default_catalog
    from ronde.engine.game import Game as EngineGame
    from ronde.web.games import accounts, service
    from ronde.web.games.models import Game, GameMaster

    cast = cast or CAST
    User = get_user_model()
    gm_users = {}
    for name in GMS:
        u = User.objects.filter(username=name).first() or User.objects.create_user(
            username=name, password="motdepasse-mj"
        )
        gm_users[name] = u
    game = Game.objects.create(
        slug=slug,
        name="Partie de test",
        start=start,
        created_by=gm_users["Mj"],
        roster=list(cast),
        cast=cast,
        ronde=ronde or RONDE,
        options=options or {},
    )
    for name, u in gm_users.items():
        GameMaster.objects.create(game=game, user=u, name=name)
    eng = EngineGame.create(
        start=start,
        cast=cast,
        ronde=ronde or RONDE,
        catalog=default_catalog(),
        seed=7,
        players=list(cast),
        game_masters=GMS,
        options=options,
    )
    service.start(game, eng, gm_users["Mj"])
    users = {}
    for pseudo in cast:
        user = User.objects.create_user(username=pseudo, password="motdepasse-joueur")
        accounts.add_player(game, pseudo, user=user)  # as if each had accepted his invitation
        users[pseudo] = user
    return World(game, gm_users, users)


@pytest.fixture
def world(db: Any, clock: Any) -> World:
    from ronde.web.games import service

    service.clear_cache()
    return make_world()


def gm_client(client: Any, world: World, name: str = "Mj") -> Any:
    client.force_login(world.gms[name])
    return client


@pytest.fixture
def browser() -> Iterator[Any]:
    """Debian's Chromium, headless, driven by Playwright (``CHROMIUM`` and ``ARGS``: see
    ``test_browser``, whose ``pytestmark`` skips the browser tests without it)."""
    from playwright.sync_api import sync_playwright

    from .test_browser import ARGS, CHROMIUM

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        yield b
        b.close()


@pytest.fixture
def chromium(browser: Any) -> Any:
    """:func:`browser` under the name some tests use."""
    return browser


@pytest.fixture
def eternaltwin(settings: Any) -> Iterator[Any]:
    """A local Eternaltwin over HTTP (``tests/web/etwin_provider.py``), configured as
    Ronde's (its callback registered as ``http://testserver/oauth/callback/``: set
    ``callback`` for a live server). Answers wait at most 2 s in the tests."""
    from .etwin_provider import LocalEternaltwin

    provider = LocalEternaltwin().start()
    settings.ETERNALTWIN_URL = provider.url
    settings.ETERNALTWIN_CLIENT_ID = provider.key
    settings.ETERNALTWIN_CLIENT_SECRET = provider.secret
    settings.ETERNALTWIN_TIMEOUT = 2
    yield provider
    provider.stop()
