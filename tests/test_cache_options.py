"""Issue 14's caches under the house rules that change what they cache (review).

Simulated games under options the other properties do not play (A1 ``require_proof``,
A5 ``first``, A75 ``any_unmasked``, A9 ``grace_N``, A64 ``at_end``, A52 ``standard``,
A74 ``not_counted`` ...). Properties, at every call or at sampled instants of each game:

- the constraint failures at a day's end are those every masked player's records give
  (``constraints.failures_due`` before it looked only at seats with a failure);
- the Little Mermaid's orders to a player are those a fresh walk through every player
  finds (her index is dated by ``GameState.flags_count``);
- the players told of new targets, and what they are told, are those each one's own
  ``visible_set`` gives (``notify_new_targets`` reads Forward(s, k) from the walks'
  cache), and no cached walk was changed by a reader;
- the verdicts' due time ``evolve`` keeps is the one found again;
- every view (each player's, the public's, the game masters') on the game as played,
  its caches warm, is the view on its log replayed from nothing, and on a copy that, as
  the web service holds one, was replayed once and then caught up event by event
  (``evolve``) with views read on it in between.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from datetime import datetime
from typing import Any
from unittest import mock

import pytest

from ronde import sim
from ronde.catalog import default_catalog
from ronde.engine import constraints, evolve, ronde, verdicts
from ronde.engine.character import character_of
from ronde.engine.characters import little_mermaid, mime, revenant
from ronde.engine.constraints import constraint_range, covered, effect_instant
from ronde.engine.context import Context
from ronde.engine.events import Event, MessageSent
from ronde.engine.game import Game
from ronde.engine.state import GameState
from ronde.engine.unmasking import before_verdicts, pending_verdicts
from ronde.engine.views import GAME_MASTER, PUBLIC, view
from ronde.setup import draw

from .state_dump import canonical


def _failures_every_seat(g: GameState, day: int) -> list[str]:
    """``constraints.failures_due`` as it was before issue 14: every masked seat."""
    records: dict[tuple[str, int], tuple[bool, datetime]] = g.flags.get("verdicts", {})
    deadline = effect_instant(g, day)
    out: list[str] = []
    for seat, p in g.players.items():
        if not p.masked:
            continue
        span = constraint_range(g, p)
        if span is None or not span[0] <= day <= span[1] or covered(g, seat, day):
            continue
        record = records.get((seat, day))
        if record is not None:
            if not record[0] and record[1] < deadline:
                out.append(seat)
        elif g.opt("A1") == "require_proof":
            out.append(seat)
    return out


def _news_each_own(g: GameState) -> list[tuple[str, list[str]]]:
    """What ``notify_new_targets`` tells, each player's ``visible_set`` asked (before)."""
    if g.days_closed < 1:
        return []
    out = []
    with before_verdicts(g):
        for seat, p in g.players.items():
            if p.masked:
                new = [c for c in character_of(g, p).visible_set(g, p) if c not in p.told_targets]
                if new:
                    out.append((seat, sorted(new)))
    return out


@contextmanager
def _checked(counts: dict[str, int]) -> Iterator[None]:
    """Each fast path checked against what it stands for, at each call."""
    failures_due = constraints.failures_due
    orders_to = little_mermaid.LittleMermaid._orders_to
    notify = verdicts.notify_new_targets

    def failures(g: GameState, day: int) -> list[str]:
        out = failures_due(g, day)
        assert out == _failures_every_seat(g, day), (day, g.options)
        counts["failures"] += bool(out)
        return out

    def orders(self: Any, g: GameState, seat: str) -> list[tuple[str, dict[str, Any]]]:
        out = orders_to(self, g, seat)
        fresh = little_mermaid._orders_by_target(g)
        assert out == fresh.get(seat, [])
        assert g.memo_cache["mermaid_orders"][1] == fresh  # (the whole index: anyone's)
        counts["orders"] += bool(out)
        return out

    def notify_checked(ctx: Context) -> None:
        expected = _news_each_own(ctx.g)
        told: list[tuple[str, list[str]]] = []
        emit = ctx.emit

        def capture(e: Event) -> None:
            if isinstance(e, MessageSent) and e.kind == "target_added":
                told.extend((seat, list(e.data["characters"])) for seat in e.to)
            emit(e)

        ctx.emit = capture
        try:
            notify(ctx)
        finally:
            ctx.emit = emit
        assert told == expected
        counts["told"] += len(told)

    patches: list[tuple[Any, str, Callable[..., Any]]] = [
        (constraints, "failures_due", failures),
        (little_mermaid.LittleMermaid, "_orders_to", orders),
        *[(m, "notify_new_targets", notify_checked) for m in (verdicts, mime, revenant)],
    ]
    with ExitStack() as stack:
        for target, name, value in patches:
            stack.enter_context(mock.patch.object(target, name, value))
        yield


def _views(g: GameState) -> list[Any]:
    viewers = [PUBLIC, GAME_MASTER, *(p.pseudo for p in g.players.values())]
    return [sorted(pending_verdicts(g)), *[dict(view(g, v)) for v in viewers]]


def _walks_untouched(g: GameState) -> None:
    hit = g.memo_cache.get("walks")
    for (live, slot, k, step), walk in (hit[1] if hit else {}).items():
        assert walk == ronde._walk_live(g.ronde, live, slot, k, step)


OPTIONS: list[tuple[int, dict[str, str]]] = [
    (1, {"A1": "require_proof", "A9": "grace_45"}),
    (2, {"A5": "first", "A75": "any_unmasked"}),
    (3, {"A64": "at_end", "A6": "original", "A7": "standard_only"}),
    (4, {"A52": "standard", "A50": "two_random_each", "A67": "include_just_unmasked"}),
    (5, {"A45": "no_sanction", "A74": "not_counted", "A17": "continue", "A9": "grace_90"}),
    (6, {"A1": "require_proof", "A5": "first", "A75": "any_unmasked", "A64": "at_end"}),
]


@pytest.mark.parametrize(("seed", "options"), OPTIONS)
def test_the_caches_under_the_options_read_what_they_stand_for(
    seed: int, options: dict[str, str]
) -> None:
    rng = random.Random(seed)
    names = [f"Joueur{i:02d}" for i in range(1, 25 + seed)]
    cast, slots = draw(names, random.Random(rng.random()))  # type: ignore[arg-type]
    counts = {"failures": 0, "orders": 0, "told": 0, "read": 0, "pending": 0}
    copy: list[Game] = []
    pick = random.Random(f"{seed}|read")
    turn = sim._game_master_turn

    def reading(game: Game, day: int, at: datetime, *args: Any, **kwargs: Any) -> None:
        if day >= 2 and (pick.random() < 0.3 or pending_verdicts(game.state)):
            g = game.state
            assert g.verdict_due == evolve._verdict_due(g)
            warm = _views(g)
            _walks_untouched(g)
            cold = Game.replay(game.log, default_catalog())
            assert _views(cold.state) == warm
            if not copy:
                copy.append(Game.replay(game.log, default_catalog()))
            held = copy[0]
            for e in game.log[len(held.log) :]:  # (the web's catch-up: event by event)
                evolve.evolve(held.state, e)
                held.log.append(e)
            assert canonical(held.state) == canonical(g)
            assert _views(held.state) == warm
            counts["read"] += 1
            counts["pending"] += bool(warm[0])
        turn(game, day, at, *args, **kwargs)

    with _checked(counts), mock.patch.object(sim, "_game_master_turn", reading):
        res = sim.play_cast(cast, slots, rng, options=options, posts=0.3 if seed % 2 else 0.0)
    assert res.game.state.game_ended
    assert counts["read"] > 5 and counts["pending"] > 0 and counts["told"] > 0, counts
