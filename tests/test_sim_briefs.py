"""The bots' briefs, kept and shared, read as briefs built afresh (issue 14).

Property: at every read of a brief during whole simulated games (each player's, and the
game masters'), the brief handed to the bot (kept from an earlier read at the same
state, its entries shared through the game's memos, its trials' rows kept from earlier
boards) equals one built afresh, every memo bypassed, on the state as it is then. And
the briefs kept in a game (each holds its state) are dropped with the game: a simulated
game is freed once its result is dropped, without the cycle collector.
"""

from __future__ import annotations

import gc
import random
import weakref
from collections.abc import Callable
from typing import Any
from unittest import mock

import pytest

from ronde import sim
from ronde.bots import characters_one, characters_two
from ronde.engine import unmasking, views
from ronde.engine.state import GameState
from ronde.engine.trials import anonymous_right


def _fresh(build: Callable[[], views.LazyView]) -> dict[str, Any]:
    """``build()`` with every memo of the game bypassed, read whole."""

    def direct(self: GameState, key: str, compute: Callable[[], Any]) -> Any:
        return compute()

    with (
        mock.patch.object(GameState, "memoized", direct),
        mock.patch.object(GameState, "memoized_board", direct),
        mock.patch.object(GameState, "constant", direct),
    ):
        return dict(build())


@pytest.mark.parametrize(("seed", "posts"), [(8, 0.0), (9, 0.65)])
def test_every_brief_read_equals_one_built_afresh(seed: int, posts: float) -> None:
    reads: list[tuple[str, bool]] = []
    player_brief, game_master_brief = views.player_brief, views.game_master_brief

    def checked_player(g: GameState, seat: str) -> views.View:
        brief = player_brief(g, seat)
        assert isinstance(brief, views.LazyView) and brief.fresh()
        assert dict(brief) == _fresh(lambda: views._player_brief(g, seat))
        reads.append((seat, any(t["mine"] for t in brief["open_trials"])))
        return brief

    def checked_game_master(g: GameState) -> views.View:
        brief = game_master_brief(g)
        assert dict(brief) == _fresh(lambda: views._game_master_brief(g))
        reads.append(("game_master", False))
        return brief

    with (
        mock.patch.object(sim, "player_brief", checked_player),
        mock.patch.object(characters_one, "player_brief", checked_player),
        mock.patch.object(characters_two, "player_brief", checked_player),
        mock.patch.object(sim, "game_master_brief", checked_game_master),
    ):
        res = sim.play(28, random.Random(seed), posts=posts)
    assert len(res.game.log) > 500  # a whole game
    assert len({seat for seat, _mine in reads}) == 29  # every player and the game masters
    assert sum(mine for _seat, mine in reads) > 50  # trials of his own among them


def test_a_simulated_game_is_freed_once_dropped() -> None:
    enabled = gc.isenabled()
    gc.collect()
    gc.disable()  # (freed by reference counts alone: no cycle keeps it)
    try:
        res = sim.play(28, random.Random(4))
        game = weakref.ref(res.game)
        assert res.game.state.memo_cache  # (its memos, kept while it lasts)
        del res
        assert game() is None
        # nothing of it left for the cycle collector (a game kept by a cycle: thousands)
        assert gc.collect() < 100
    finally:
        if enabled:
            gc.enable()


@pytest.mark.parametrize(("seed", "posts"), [(0, 0.0), (5, 0.65)])
def test_a_brief_read_while_a_verdict_waits_is_the_game_as_players_know_it(
    seed: int, posts: float
) -> None:
    """A77: what a bot reads of his brief while a verdict waits for its announcement is
    what his :func:`~ronde.engine.views.player_view` shows (never the verdict's effects)."""
    compared: list[str] = []
    player_brief = views.player_brief

    def checked(g: GameState, seat: str) -> views.View:
        brief = player_brief(g, seat)
        if unmasking.pending_now(g):
            view = views.player_view(g, seat)
            me = view["me"]
            assert brief["masked"] == me["masked"]
            # what he was told: his private messages but those a waiting verdict holds
            assert brief["told"] == {
                kind
                for _at, to, kind, _text, data, public in g.messages
                if not public and seat in to and not views._held(g, data)
            }
            assert brief["known"] == view["known"]
            if brief["masked"]:
                if not brief["new_extra"]:  # (a new Extra's targets: his anonymous ones)
                    assert brief["targets"] == view["targets"]
                if not me["asleep_today"]:
                    assert brief["can_act"] == view["quota"]["can_act"]
            with unmasking.reading(), unmasking.before_verdicts(g):  # (the game as known)
                masked = sorted(q.pseudo for q in g.players.values() if q.masked)
                right = anonymous_right(g, g.players[seat], opening=False)
            assert brief["masked_players"] == masked
            if brief["masked"]:
                assert brief["anonymous_right"] == right
            shown = {t["number"]: t["status"] == "open" for t in view["trials"]}
            for t in brief["open_trials"]:
                assert t["open"] == shown[t["number"]]
            compared.append(seat)
        return brief

    with (
        mock.patch.object(sim, "player_brief", checked),
        mock.patch.object(characters_one, "player_brief", checked),
        mock.patch.object(characters_two, "player_brief", checked),
    ):
        sim.play(28, random.Random(seed), posts=posts)
    assert len(compared) > 30  # read while verdicts waited
