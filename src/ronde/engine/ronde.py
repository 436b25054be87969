"""The Ronde: a secret circle of slots, walked forward and backward (R2).

A slot is named by its Character id (the two Decorators share ``decorators``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager

from .options import option
from .state import GameState


def live_slots(g: GameState) -> frozenset[str]:
    """The live slots now, cached per board count (every event that may change a mask,
    a Character or a holder moves it; ``evolve`` carries the cache over the others that
    move it, those that change only the trials)."""
    count, cached = g.live_cache
    if count == g.board_count:
        return cached
    first_dies = option(g.options, "A5") == "first"
    live: set[str] = set()
    players, holding = g.players, g.holders
    for character in g.ronde:
        holders = holding.get(character, ())
        masked = 0
        for s in holders:
            p = players[s]
            if p.masked and p.character == character:
                masked += 1
        if character == "decorators" and first_dies:
            if holders and masked == len(holders):
                live.add(character)
        elif masked:
            live.add(character)
    result = frozenset(live)
    if result == cached:
        result = cached  # the same object (its hash is computed once)
    g.live_cache = (g.board_count, result)
    return result


@contextmanager
def revived(g: GameState, characters: Iterable[str]) -> Iterator[None]:
    """Within the block, treat ``characters``' slots as live (a read-only what-if used
    to check late complaints against the targets before the verdict, R4.8)."""
    live = live_slots(g)
    extra = frozenset(characters)
    if extra <= live:  # nothing to revive: the live slots (and their walks) as they are
        yield
        return
    g.live_cache = (g.board_count, live | extra)
    try:
        yield
    finally:
        g.live_cache = (-1, frozenset())


def slot_live(g: GameState, character: str) -> bool:
    """Whether a slot is live: one of its Characters still masked (R2.5, A5)."""
    return character in live_slots(g)


def _walk(g: GameState, slot: str, k: int, step: int) -> list[str]:
    return list(walk_shared(g, slot, k, step))


def walk_shared(g: GameState, slot: str, k: int, step: int) -> list[str]:
    """The walk :func:`forward` (``step`` 1) or :func:`backward` (-1) gives, shared with
    the cache of walks: read it, never change it."""
    live, walks = _walks(g)
    key = (live, slot, k, step)
    out = walks.get(key)
    if out is None:
        out = walks[key] = _walk_live(g.ronde, live, slot, k, step)
    return out


def forwards(g: GameState, k: int) -> Callable[[str], list[str]]:
    """Forward(s, k) of this state for any slot s (:func:`walk_shared`'s lists, read-only),
    the live slots and the walks' cache looked up once: for a loop over the players."""
    live, walks = _walks(g)
    ronde = g.ronde

    def forward_of(slot: str) -> list[str]:
        key = (live, slot, k, 1)
        out = walks.get(key)
        if out is None:
            out = walks[key] = _walk_live(ronde, live, slot, k, 1)
        return out

    return forward_of


_Walks = dict[tuple[frozenset[str], str, int, int], list[str]]


def _walks(g: GameState) -> tuple[frozenset[str], _Walks]:
    """The live slots now and the cache of walks."""
    count, live = g.live_cache  # (``live_slots``, its cache read here: a walk per view)
    if count != g.board_count:
        live = live_slots(g)
    # a walk depends only on the Ronde and the live slots: kept by their value, across
    # events and what-ifs (see ``GameState.times``)
    hit = g.memo_cache.get("walks")
    walks: _Walks = hit[1] if hit is not None and len(hit[1]) <= 4096 else g.times("walks")
    return live, walks


def _walk_live(
    ronde: tuple[str, ...], live: frozenset[str], slot: str, k: int, step: int
) -> list[str]:
    n = len(ronde)
    if slot not in ronde or k <= 0:
        return []
    i = ronde.index(slot)
    out: list[str] = []
    for d in range(1, n):
        c = ronde[(i + step * d) % n]
        if c in live:
            out.append(c)
            if len(out) == k:
                break
    return out


def forward(g: GameState, slot: str, k: int) -> list[str]:
    """Forward(s, k): the first k live slots after ``slot``, one turn at most (R2.6)."""
    return _walk(g, slot, k, 1)


def backward(g: GameState, slot: str, k: int) -> list[str]:
    """Backward(s, k): the same walk the other way (R2.6)."""
    return _walk(g, slot, k, -1)


def boost_on(g: GameState) -> bool:
    """More than half of the Extras unmasked (R2.8, A6)."""
    if g.n_extras == 0:
        return False
    count = (
        g.original_extra_unmaskings
        if option(g.options, "A6") == "original"
        else (g.extra_unmaskings)
    )
    return 2 * count > g.n_extras


def window(g: GameState, base: int = 6, *, standard: bool = True) -> int:
    """The window size k: ``base``, plus one with the boost (R2.8; A7 for other windows)."""
    if not boost_on(g):
        return base
    if standard or option(g.options, "A7") == "all_windows":
        return base + 1
    return base


def masked_ronde_characters(g: GameState) -> list[str]:
    """Every Ronde Character still masked (live slots), in no meaningful order."""
    return sorted(live_slots(g))


def unrestricted_targets(g: GameState) -> list[str]:
    """What a player whose legal targets are unrestricted may name (Extras, Pinocchio in
    public): the masked Ronde Characters (R2.12), or with A75 ``any_unmasked`` every
    Ronde Character, unmasked ones included (such a trial is UNJUST)."""
    if option(g.options, "A75") == "any_unmasked":
        return sorted(g.ronde)
    return masked_ronde_characters(g)
