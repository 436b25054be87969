"""Fixtures of the forum-bridge tests: a small game whose pseudos exercise the
name rules (Élodie and Elodie are two players), and the fixture pages."""

from __future__ import annotations

import os
from datetime import date
from pathlib import Path
from typing import Any

import django
import pytest

from ronde.catalog import default_catalog
from ronde.engine.game import Game
from ronde.engine.views import view

# the forum's --apply records through the store: Django once for every forum test module
# (run alone too), with the settings the web tests use
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ronde.web.settings")
os.environ.setdefault("RONDE_CONN_MAX_AGE", "0")
django.setup()

FIXTURES = Path(__file__).resolve().parent / "fixtures"
START = date(2025, 11, 3)  # J5 is 7 nov. 2025, the day of the fixture threads
TODAY = date(2025, 11, 8)

RONDE = [
    "seer",
    "alice",
    "devils_advocate",
    "little_mermaid",
    "halus",
    "woody",
    "pierrot",
    "chucky",
    "prompter",
    "mime",
    "knight",
    "decorators",
]
CAST = {
    "KaktusJoe": "seer",
    "Mirabelle": "alice",
    "Pouet_42": "devils_advocate",
    "Grodoudou": "woody",
    "Élodie": "little_mermaid",
    "Fanfan": "halus",
    "LunaTic": "pierrot",
    "Chuck": "chucky",
    "Sirius": "prompter",
    "Pantalon": "mime",
    "Bidule": "knight",
    "Deco1": "decorators",
    "Deco2": "decorators",
    "Tartine": "extra",
    "Zorro": "extra",
    "Loulou": "extra",
    "Petitpois": "extra",
    "Brindille": "extra",
    "Elodie": "extra",
}
GMS = ["Mj_Rose"]


def new_game() -> Game:
    return Game.create(
        start=START, cast=CAST, ronde=RONDE, catalog=default_catalog(), seed=7, game_masters=GMS
    )


@pytest.fixture
def game() -> Game:
    return new_game()


@pytest.fixture
def gm_view(game: Game) -> dict[str, Any]:
    return view(game.state, "game_master")


def page(*names: str) -> str:
    """The fixture pages ``names`` pasted one after the other."""
    return "".join((FIXTURES / n).read_text(encoding="utf-8") for n in names)
