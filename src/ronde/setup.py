"""Drawing a cast and a Ronde (R1.7, R2.3): the only randomness outside the engine.

The draw uses :mod:`secrets`; its outcome is recorded in the game's first event,
so a log never draws again on replay.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence

from .engine.errors import RuleViolation
from .engine.game import check_names, too_many_players
from .engine.names import EXTRAS, FULL_CAST, MAX_PLAYERS, RONDE_IDS


def draw(
    players: Sequence[str], rng: secrets.SystemRandom | None = None
) -> tuple[dict[str, str], list[str]]:
    """Draw characters for ``players`` and a Ronde order; return (cast, ronde).

    The full cast of R1.6 needs 28 players; 29 to 32 players get the full cast and
    1 to 4 more Extras (6 + k Extras, A76). With fewer, a subset is drawn (A2):
    up to 6 Extras (a quarter of the players, at least 1) and Ronde Characters
    drawn at random for the other seats (the Decorators only when two seats remain).

    Raises:
        ValueError: more than 32 players, fewer than 3, or two names alike (French
            message).
    """
    r = rng or secrets.SystemRandom()
    n = len(players)
    try:
        check_names(players)  # (a name twice would lose a seat in the cast drawn)
    except RuleViolation as rv:
        raise ValueError(rv.message) from None
    if n > MAX_PLAYERS:
        raise ValueError(too_many_players(n))
    if n < 3:
        raise ValueError("Il faut au moins 3 joueurs.")
    if n >= FULL_CAST:
        chars = list(RONDE_IDS)
        seats: list[str] = ["extra"] * (EXTRAS + n - FULL_CAST)
        for c in chars:
            seats.extend([c] * (2 if c == "decorators" else 1))
    else:
        n_extras = min(EXTRAS, max(1, n // 4))
        seats = ["extra"] * n_extras
        pool = list(RONDE_IDS)
        r.shuffle(pool)
        chars = []
        for c in pool:
            room = n - len(seats)
            need = 2 if c == "decorators" else 1
            if room >= need:
                chars.append(c)
                seats.extend([c] * need)
            if len(seats) == n:
                break
    shuffled = list(players)
    r.shuffle(shuffled)
    cast = dict(zip(shuffled, seats, strict=True))
    ronde = list(chars)
    r.shuffle(ronde)
    return cast, ronde


def new_seed() -> int:
    """A fresh seed for the engine's in-game draws (recorded in the log)."""
    return secrets.randbits(63)
