"""A canonical, comparable dump of a game state (for replay and refusal tests)."""

from __future__ import annotations

import dataclasses
from typing import Any

from ronde.engine.state import GameState


def _plain(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in sorted(value.items(), key=lambda kv: str(kv[0]))}
    if isinstance(value, set | frozenset):
        return sorted((_plain(v) for v in value), key=repr)
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


def canonical(g: GameState) -> dict[str, Any]:
    """Every field of ``g`` but the item catalogue and caches, as plain sorted data."""
    data = {
        f.name: _plain(getattr(g, f.name))
        for f in dataclasses.fields(g)
        if f.name not in ("catalog", "live_cache", "memo_cache", "day_cache", "snapshot_cache")
    }
    return data
