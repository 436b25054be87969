"""Shared fixtures and helpers for Ronde's tests."""

from __future__ import annotations

import os
import tempfile
from datetime import date, datetime
from pathlib import Path
from typing import Any

import pytest

from ronde.catalog import default_catalog
from ronde.engine.clock import parse_time
from ronde.engine.game import Game


# The suite passes on any date: CI runs it again a year ahead under libfaketime
# (``faketime --exclude-monotonic -f +400d``, .ci/run). Debian's libfaketime 0.9.10 then
# breaks Python 3.11's ``time.sleep`` (clock_nanosleep on the monotonic clock with an
# absolute deadline: EINVAL, wolfcw/libfaketime#426): sleep on a timed wait instead,
# which the real monotonic clock serves.
# Its own pthread_cond_timedwait also makes every wait for Python's GIL return at once:
# threads fight for it (50 writers at once: 90 s a request instead of 0.1 s, past the
# lock's 70 s wait). libfaketime reads FAKETIME_FORCE_MONOTONIC_FIX on each call: 0 lets
# the real timed wait through.
def real_clock(env: dict[str, str]) -> dict[str, str]:
    """``env`` without libfaketime: a process that keeps the real clock (the browser, or
    servers whose game runs on its stored manual clock)."""
    if "faketime" in env.get("LD_PRELOAD", ""):
        for key in ("LD_PRELOAD", "FAKETIME", "DONT_FAKE_MONOTONIC"):
            env.pop(key, None)
        env.pop("FAKETIME_DONT_FAKE_MONOTONIC", None)
        env.pop("FAKETIME_FORCE_MONOTONIC_FIX", None)
    return env


if "faketime" in os.environ.get("LD_PRELOAD", ""):
    import threading
    import time

    os.environ["FAKETIME_FORCE_MONOTONIC_FIX"] = "0"

    _nap = threading.Event()

    def _sleep(seconds: float) -> None:
        if seconds > 0:
            _nap.wait(seconds)

    time.sleep = _sleep

    # the browser (Playwright's driver and Chromium) keeps the real clock: it only shows
    # what the server (this process, a year ahead) sends, and Chromium's own timers
    # stall under libfaketime
    try:
        from playwright._impl import transport as _playwright_transport
    except ImportError:  # pragma: no cover - Playwright is a dev dependency
        pass
    else:
        _driver_env = _playwright_transport.get_driver_env

        def _real_clock_env() -> dict[str, str]:
            return real_clock(_driver_env())

        _playwright_transport.get_driver_env = _real_clock_env

# every test that reaches Django (the web, the command line's store, the forum's --apply)
# uses a throwaway data folder, never the user's: set before any of them imports settings
os.environ.setdefault("RONDE_DATA_DIR", tempfile.mkdtemp(prefix="ronde-tests-"))
os.makedirs(os.path.join(os.environ["RONDE_DATA_DIR"], "static"), exist_ok=True)

ROOT = Path(__file__).resolve().parent.parent
#: ../shared beside the project (``RONDE_SHARED`` when the tests run from a copy: make mutation)
SHARED = Path(os.environ.get("RONDE_SHARED") or ROOT.parent / "shared")
START = date(2026, 12, 1)

SMALL_RONDE = [
    "alice",
    "woody",
    "pierrot",
    "halus",
    "little_mermaid",
    "polichinelle",
    "guignol",
    "revenant",
]
SMALL_CAST = {
    "Ana": "alice",
    "Bob": "woody",
    "Cid": "pierrot",
    "Dan": "halus",
    "Eve": "little_mermaid",
    "Fay": "polichinelle",
    "Gus": "guignol",
    "Hal": "revenant",
    "Ida": "extra",
    "Jo": "extra",
    "Kim": "extra",
    "Lou": "extra",
    "Max": "extra",
    "Ned": "extra",
}


def at(text: str) -> datetime:
    """``"J2 10:00"`` in the test game's calendar."""
    return parse_time(text, START)


def small_game(
    options: dict[str, Any] | None = None,
    cast: dict[str, str] | None = None,
    ronde: list[str] | None = None,
) -> Game:
    """A game of the 8-slot Ronde above with 6 Extras."""
    cast = cast or SMALL_CAST
    return Game.create(
        start=START,
        cast=cast,
        ronde=ronde or SMALL_RONDE,
        catalog=default_catalog(),
        seed=7,
        players=list(cast),
        game_masters=["Mj"],
        options=options,
    )


@pytest.fixture
def game() -> Game:
    return small_game()
