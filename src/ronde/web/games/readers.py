"""Read-only helpers for what the engine's game-master view does not carry yet.

The game-master view gives the scoreboard (rank, player, points) but not each
line of a score; until it does, :func:`score_lines` reads them (game masters only).
"""

from __future__ import annotations

from typing import Any

from ronde.engine.clock import format_time
from ronde.engine.state import GameState


def score_lines(g: GameState) -> dict[str, list[dict[str, Any]]]:
    """Pseudo -> the lines of his score (points, reason, rule id, when)."""
    return {
        p.pseudo: [
            {
                "points": line.points,
                "reason": line.reason,
                "rule": line.rule,
                "time": format_time(g.start, line.at),
                "trial": line.trial,
            }
            for line in p.lines
        ]
        for p in g.players.values()
    }
