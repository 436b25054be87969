"""The forum's reads of a game advanced in place (the web's held games) walk only the
events logged since their last read, and give what a read afresh gives (issue 23)."""

from __future__ import annotations

import random
from typing import Any

import pytest

from ronde.engine.commands import Command
from ronde.engine.events import Event, MessageSent, TrialAnnounced
from ronde.engine.game import Game
from ronde.forum.render import ForumContext, forum_messages, held_messages
from ronde.sim import play


@pytest.fixture(scope="module")
def games() -> list[Game]:
    # (seed 8: a verdict's consequences wait for its announcement, A77)
    return [play(28, random.Random(seed)).game for seed in (1, 8)]


class Counting(list[Event]):
    """A log that counts the events read from it (by index, slice or iteration)."""

    read = 0

    def __getitem__(self, i: Any) -> Any:
        got = list.__getitem__(self, i)
        self.read += len(got) if isinstance(i, slice) else 1
        return got

    def __iter__(self) -> Any:
        for e in list.__iter__(self):
            self.read += 1
            yield e


def _cuts(log: list[Event]) -> list[int]:
    """Places to stop a game at: after an announcement, in the middle of a burst of
    messages, after each tenth of the log, and the end."""
    cuts = {len(log) * k // 10 for k in range(1, 10)}
    cuts |= {i + 1 for i, e in enumerate(log) if isinstance(e, TrialAnnounced)}
    held = [i for i, e in enumerate(log) if isinstance(e, MessageSent) and e.data.get("held")]
    cuts |= {i + 1 for i in held[:3]} | {i for i in held[:3]}
    return [*sorted(c for c in cuts if 1 <= c < len(log)), len(log)]


def _afresh(game: Game, n: int) -> Game:
    return Game.replay(game.log[:n], game.catalog, game.characters)


def _held_as_before(game: Game, trial: int) -> list[dict[str, Any]]:
    """What a verdict's post waited for, read the way it was before issue 23's change."""
    from ronde.forum.render import message_dict

    return [
        message_dict(e)
        for e in game.log
        if isinstance(e, MessageSent) and e.data.get("held") == trial
    ]


def test_reads_of_a_game_advanced_in_place_are_those_of_a_game_read_afresh(
    games: list[Game],
) -> None:
    for full in games:
        cuts = _cuts(full.log)
        held = _afresh(full, cuts[0])
        done = cuts[0]
        for cut in cuts:
            held.replay_more(full.log[done:cut])  # (the same object, later)
            done = cut
            fresh = _afresh(full, cut)
            assert forum_messages(held) == forum_messages(fresh), cut
            assert ForumContext.from_game(held) == ForumContext.from_game(fresh), cut
            for t in held.state.trials:
                if t.concluded and not t.announced:
                    assert held_messages(held, t.number) == _held_as_before(fresh, t.number)
    assert any(_held_as_before(g, t.number) for g in games for t in g.state.trials)


def test_a_read_after_new_events_walks_only_them(games: list[Game]) -> None:
    full = games[1]
    half = len(full.log) // 2
    held = _afresh(full, half)
    log = Counting(held.log)
    held.log = log
    forum_messages(held)
    ForumContext.from_game(held)
    assert log.read >= half  # (the first read walks the whole log)
    for step in (0, 1, 40):
        held.replay_more(full.log[len(log) : len(log) + step])
        log.read = 0
        messages = forum_messages(held)
        context = ForumContext.from_game(held)
        assert log.read <= 2 * step + 6, (step, log.read)  # (each new event once a read)
        fresh = _afresh(full, len(log))
        assert messages == forum_messages(fresh)
        assert context == ForumContext.from_game(fresh)


def test_a_read_gives_each_caller_its_own_messages(games: list[Game]) -> None:
    held = _afresh(games[0], len(games[0].log))
    first = forum_messages(held)
    expected = forum_messages(_afresh(games[0], len(games[0].log)))
    for m in first:
        m["kind"] = "changé"
        if isinstance(m.get("to"), list):
            m["to"].append("changé")
        if m is first[-1]:
            first.clear()
            break
    assert forum_messages(held) == expected


def test_a_fork_run_forward_reads_its_base_and_its_own_events(games: list[Game]) -> None:
    """A verdict's post is previewed on a fork of the held game, the announcement
    executed: its context is its base's facts and those of the events it added."""
    full = games[1]
    for cut in _cuts(full.log):
        base = _afresh(full, cut)
        waiting = [t for t in base.state.trials if t.concluded and not t.announced]
        if not waiting:
            continue
        ForumContext.from_game(base)
        copy = base.fork()
        g = copy.state
        at = g.clock or base.log[-1].at
        copy.execute(Command("announce", g.game_masters[0], at, {"trial": waiting[0].number}))
        assert len(copy.log) > len(base.log)
        assert ForumContext.from_game(copy, base=base) == ForumContext.from_game(copy)
        other = _afresh(full, cut)  # (not its base: read as the game itself)
        assert ForumContext.from_game(copy, base=other) == ForumContext.from_game(copy)
        return
    pytest.fail("no verdict waits for its announcement in this game")
