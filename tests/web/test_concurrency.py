"""Concurrent writers: 50 threads record complaints in one trial at once.

Exactly one verdict; every accepted complaint is recorded once (one action, one
event); the log's sequence numbers have no gap and no duplicate. Runs on the real
database (committed transactions), SQLite or PostgreSQL.
"""

from __future__ import annotations

from typing import Any

import pytest

from ronde.web.games import service
from tests.web.burst import assert_one_verdict, complain_at_once, game_with_a_trial

THREADS = 50


@pytest.mark.django_db(transaction=True)
def test_fifty_threads_complain_in_one_trial(clock: Any) -> None:
    game, trial, everyone = game_with_a_trial(clock, "concurrence")
    clock("J2 10:30")
    authors = [everyone[i % len(everyone)] for i in range(THREADS)]  # many twice
    statuses = complain_at_once(
        game,
        THREADS,
        lambda i: {"by": authors[i], "trial": str(trial), "at": service.now().isoformat()},
    )
    assert set(statuses) <= {302, 400}, statuses
    assert_one_verdict(game, trial)
