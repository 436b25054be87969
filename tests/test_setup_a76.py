"""A76: 29 to 32 players seat 1 to 4 more Extras; more than 32 is refused (setup and engine)."""

from __future__ import annotations

import random
from collections import Counter
from datetime import date

import pytest

from ronde.catalog import default_catalog
from ronde.engine.errors import RuleViolation
from ronde.engine.game import Game
from ronde.engine.names import RONDE_IDS
from ronde.setup import draw


def names(n: int) -> list[str]:
    return [f"Joueur{i:02d}" for i in range(1, n + 1)]


@pytest.mark.parametrize("n", [28, 29, 30, 31, 32])
def test_full_cast_plus_k_extras(n: int) -> None:
    cast, ronde = draw(names(n), random.Random(n))  # type: ignore[arg-type]
    counts = Counter(cast.values())
    assert counts["extra"] == 6 + (n - 28)
    assert sorted(ronde) == sorted(RONDE_IDS)
    game = Game.create(
        start=date(2026, 12, 1), cast=cast, ronde=ronde, catalog=default_catalog(), seed=1
    )
    assert game.state.n_extras == 6 + (n - 28)


def test_more_than_32_is_refused_with_a_french_message() -> None:
    with pytest.raises(ValueError, match="32 joueurs au maximum"):
        draw(names(33))
    cast, ronde = draw(names(32), random.Random(1))  # type: ignore[arg-type]
    cast["Joueur33"] = "extra"
    with pytest.raises(RuleViolation) as refused:
        Game.create(
            start=date(2026, 12, 1), cast=cast, ronde=ronde, catalog=default_catalog(), seed=1
        )
    assert refused.value.code == "invalid_argument" and "32" in refused.value.message


def test_extras_beyond_6_plus_k_are_refused() -> None:
    cast, ronde = draw(names(29), random.Random(2))  # type: ignore[arg-type]
    ronde_player = next(p for p, c in cast.items() if c == "revenant")
    cast[ronde_player] = "extra"  # 8 Extras for 29 players, and no Revenant
    ronde.remove("revenant")
    with pytest.raises(RuleViolation, match="au plus 7"):
        Game.create(
            start=date(2026, 12, 1), cast=cast, ronde=ronde, catalog=default_catalog(), seed=1
        )
