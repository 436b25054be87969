"""The JSON Lines event log of a game: one event per line, append-only.

A malformed file raises :class:`LogError` naming the file, the line and the problem.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import orjson

from .catalog import default_catalog
from .engine.events import Event, EventFormatError, from_json, to_json
from .engine.game import Game


class LogError(Exception):
    """A game file that cannot be read (file, line, problem)."""

    def __init__(self, path: Path, line: int | None, problem: str) -> None:
        where = f"{path}:{line}" if line else str(path)
        super().__init__(f"{where}: {problem}")
        self.path, self.line, self.problem = path, line, problem


def read_events(path: Path) -> list[Event]:
    """Every event of the log at ``path``.

    Raises:
        LogError: missing file, invalid JSON, unknown or malformed event.
    """
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise LogError(path, None, f"fichier illisible : {exc}") from None
    events: list[Event] = []
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            data = orjson.loads(line)
        except orjson.JSONDecodeError as exc:
            raise LogError(path, n, f"JSON invalide : {exc}") from None
        if not isinstance(data, dict):
            raise LogError(path, n, "chaque ligne est un objet JSON")
        try:
            events.append(from_json(data))
        except EventFormatError as exc:
            raise LogError(path, n, str(exc)) from None
    if not events:
        raise LogError(path, None, "journal vide")
    return events


def load_game(path: Path) -> Game:
    """Replay the game stored at ``path``.

    Raises:
        LogError: as :func:`read_events`, or a log that does not start with a new game.
    """
    events = read_events(path)
    try:
        return Game.replay(events, default_catalog())
    except (ValueError, KeyError, IndexError) as exc:
        raise LogError(path, None, f"journal incohérent : {exc}") from None


def dumps(events: Iterable[Event]) -> str:
    """Events as JSON Lines text (keys sorted, UTF-8)."""
    option = orjson.OPT_SORT_KEYS | orjson.OPT_APPEND_NEWLINE
    return b"".join(orjson.dumps(to_json(e), option=option) for e in events).decode("utf-8")


def write_events(path: Path, events: Iterable[Event]) -> None:
    """Write a whole log (a new game file)."""
    path.write_text(dumps(events), encoding="utf-8")


def append_events(path: Path, events: Iterable[Event]) -> None:
    """Append events to an existing log."""
    text = dumps(events)
    if text:
        with path.open("a", encoding="utf-8") as fh:
            fh.write(text)
