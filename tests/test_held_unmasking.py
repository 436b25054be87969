"""A fall that a verdict's consequences caused waits for the verdict's announcement, as
the verdict's own unmaskings do (A77): found by the simulator's duty bots (issue 29).

In the game of seed 8, Chucky shortens trial 29, the one the Devil's Advocate designated
in W2: his second attempt fails with it (A43) and he is unmasked at that instant
(R7.3.4), his unmasking's message held for trial 29's announcement. Until then, no view
may show him unmasked (it would tell that trial 29 ended)."""

from __future__ import annotations

import random

from ronde.engine.events import MessageSent, TrialAnnounced
from ronde.engine.game import Game
from ronde.engine.views import view
from ronde.sim import play


def test_a_duty_failed_by_a_verdict_stays_hidden_until_its_announcement() -> None:
    game = play(28, random.Random(8)).game
    log = game.log
    found = [
        (i, e)
        for i, e in enumerate(log)
        if isinstance(e, MessageSent)
        and e.kind == "unmasking"
        and isinstance(e.data.get("held"), int)
        and e.data.get("cause") == "duty"
    ]
    assert found, "the case is gone from seed 8: find another seed (see /tmp/held.py)"
    i, e = found[0]
    held, seat = e.data["held"], e.data["player"]
    end = next(k for k in range(i, len(log)) if log[k].at > e.at)
    announced = next(
        k for k, a in enumerate(log) if isinstance(a, TrialAnnounced) and a.trial == held
    )
    before = Game.replay(log[:end], game.catalog, game.characters).state
    pseudo = before.pseudo(seat)
    assert pseudo not in view(before, "public")["known"]
    other = next(p.pseudo for s, p in before.players.items() if s != seat and p.masked)
    assert pseudo not in view(before, other)["known"]
    after = Game.replay(log[: announced + 1], game.catalog, game.characters).state
    assert pseudo in view(after, "public")["known"]
