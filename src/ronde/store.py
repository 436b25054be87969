"""Game files, read-only: a JSON Lines event log (one event per line) or an export
of the store (``ronde export``). Games are written through the store
(:mod:`ronde.web.games.service`); ``ronde show``, ``scores`` and ``announce`` still
read a file.

A malformed file raises :class:`LogError` naming the file, the line and the problem.
"""

from __future__ import annotations

import gc
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import cast

import orjson

from .catalog import default_catalog
from .engine.errors import RuleViolation
from .engine.events import (
    Event,
    EventFormatError,
    GameCreated,
    MessageSent,
    TrialAnnounced,
    TrialEnded,
    TrialOpened,
    decode_lines,
    decode_text,
    from_json,
    to_json,
)
from .engine.evolve import evolve
from .engine.game import Game, validate_setup
from .engine.items import ItemCatalog
from .engine.state import CHORUS, GameState

#: the "file" a log's text is named by when it comes from no file
_TEXT = Path("<texte>")


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
    return parse_log(_text(path), path)[1]


@contextmanager
def _whole_log() -> Iterator[None]:
    """While a whole log is read: Python's cyclic garbage collector paused (the tens of
    thousands of objects made then all live as long as the game: it would only walk
    them again and again, ~5 % of the time), then resumed if it ran before. (Two reads
    at once, in two threads, leave it running: the one that paused it resumes it.)"""
    running = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if running:
            gc.enable()


def replay_text(text: str | bytes, catalog: ItemCatalog | None = None) -> Game:
    """The game a JSON Lines log rebuilds (:func:`parse_log`, then
    :meth:`Game.replay <ronde.engine.game.Game.replay>`): a whole log read at once.

    Raises:
        LogError: as :func:`parse_log`.
        ValueError: the log does not start with ``game_created``.
    """
    with _whole_log():
        return Game.replay(parse_log(text)[1], catalog or default_catalog())


def _text(path: Path) -> bytes:
    """The bytes of the file at ``path`` (:func:`parse_log` reads them as UTF-8)."""
    try:
        return path.read_bytes()
    except OSError as exc:
        raise LogError(path, None, f"fichier illisible : {exc}") from None


def parse_log(text: str | bytes, path: Path = _TEXT) -> tuple[list[int], list[Event]]:
    """The events of a JSON Lines log (or of an export of the store) and their line
    numbers, from its bytes (UTF-8) or its text. A log as Ronde writes it is read by
    msgspec's decoder from its bytes, line by line, in one loop
    (:func:`~ronde.engine.events.decode_text`); any other is read from its text: each
    line as Ronde writes it by the decoder (:func:`~ronde.engine.events.decode_lines`),
    any other line parsed and checked by :func:`~ronde.engine.events.from_json`, which
    upcasts it or says what is wrong.

    Raises:
        LogError: invalid JSON, unknown or malformed event, no event (named by
            ``path`` and the line).
    """
    whole = decode_text(text)  # (what Ronde writes: every line at once)
    if whole is not None:
        return list(range(1, len(whole) + 1)), whole
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise LogError(path, None, f"fichier illisible : {exc}") from None
    lines = text.split("\n")  # (not splitlines: a text may hold U+2028, NEL ...)
    if not lines[-1]:
        lines.pop()  # the end of the last line
    decoded, missed = decode_lines(lines)
    if decoded and not missed:  # every line as Ronde writes it
        return list(range(1, len(lines) + 1)), cast(list[Event], decoded)
    exported = False
    read: set[int] = set()  # the lines read here, not by decode_lines
    for i in missed:
        n, line = i + 1, lines[i]
        if not line.strip():
            continue
        try:
            data = orjson.loads(line)
        except orjson.JSONDecodeError as exc:
            raise LogError(path, n, f"JSON invalide : {exc}") from None
        if not isinstance(data, dict):
            raise LogError(path, n, "chaque ligne est un objet JSON")
        if n == 1 and "ronde_export" in data:
            exported = True
            continue
        if exported:  # an export (``ronde export``): its event lines, read-only
            if "event" not in data:
                continue
            data = data["event"]
            if not isinstance(data, dict):
                raise LogError(path, n, "« event » doit être un objet")
        try:
            decoded[i] = from_json(data)
        except EventFormatError as exc:
            raise LogError(path, n, str(exc)) from None
        read.add(i)
    keep = range(len(lines)) if not exported else sorted(read)  # (an export's own lines)
    numbers = [i + 1 for i in keep if decoded[i] is not None]
    events = [e for i in keep if (e := decoded[i]) is not None]
    if not events:
        raise LogError(path, None, "journal vide")
    return numbers, events


_SEAT_FIELDS = ("player", "opener", "author", "other")
_SEAT_LISTS = ("accused", "members")


def check_references(g: GameState, e: Event) -> None:
    """An event of a hand-edited log must name seats and trials that exist."""
    for name in _SEAT_FIELDS:
        value = getattr(e, name, None)
        if isinstance(value, str) and value not in g.players and value != CHORUS:
            raise ValueError(f"joueur inconnu : {value}")
    for name in _SEAT_LISTS:
        for value in getattr(e, name, ()) or ():
            if value not in g.players:
                raise ValueError(f"joueur inconnu : {value}")
    if isinstance(e, MessageSent):
        for value in e.to:
            if value not in g.players:
                raise ValueError(f"destinataire inconnu : {value}")
    trial = getattr(e, "trial", None)
    if isinstance(e, TrialOpened):
        if trial != len(g.trials) + 1:
            raise ValueError(f"numéro de Procès inattendu : {trial!r}")
    elif trial is not None and not (isinstance(trial, int) and 1 <= trial <= len(g.trials)):
        raise ValueError(f"Procès inconnu : {trial!r}")
    # (a trial ends once and its verdict is announced once: the engine reads them so)
    if isinstance(e, TrialEnded) and (g.trials[e.trial - 1].status != "open" or e.status == "open"):
        raise ValueError(f"Procès n°{e.trial} déjà terminé")
    if isinstance(e, TrialAnnounced):
        t = g.trials[e.trial - 1]
        if not t.concluded or t.announced:
            raise ValueError(f"Procès n°{e.trial} sans verdict à annoncer")
    data = getattr(e, "data", None)
    if data is not None and not isinstance(data, dict):
        raise ValueError("« data » doit être un objet")


def load_game(path: Path) -> Game:
    """Replay the game stored at ``path``.

    Raises:
        LogError: as :func:`read_events`, or an event that does not fit the game
            so far (a hand-edited log), named by its line.
    """
    with _whole_log():
        return _load(path)


def _load(path: Path) -> Game:
    numbers, events = parse_log(_text(path), path)
    first_line, first = numbers[0], events[0]
    if not isinstance(first, GameCreated):
        raise LogError(path, first_line, "un journal de partie commence par game_created")
    try:
        validate_setup(list(first.players), first.cast, list(first.ronde), list(first.game_masters))
        game = Game(first, default_catalog())
    except Exception as exc:  # a hand-edited first line
        message = exc.message if isinstance(exc, RuleViolation) else repr(exc)
        raise LogError(path, first_line, f"partie illisible : {message}") from None
    for n, e in zip(numbers[1:], events[1:], strict=True):
        try:
            check_references(game.state, e)
            evolve(game.state, e)
        except Exception as exc:  # an event that does not fit the game so far
            raise LogError(path, n, f"événement incohérent avec la partie : {exc!r}") from None
        game.log.append(e)
    return game


def dumps(events: Iterable[Event]) -> str:
    """Events as JSON Lines text (UTF-8): on each line ``"type"`` and ``"v"`` first (what
    msgspec reads first to know the event's type), then the fields, keys sorted at every
    level (the same events always give the same text)."""
    option = orjson.OPT_SORT_KEYS | orjson.OPT_APPEND_NEWLINE
    lines = []
    for e in events:
        fields = to_json(e)
        head = orjson.dumps({"type": fields.pop("type"), "v": fields.pop("v")})
        lines.append(head[:-1] + b"," + orjson.dumps(fields, option=option)[1:])
    return b"".join(lines).decode("utf-8")


def write_events(path: Path, events: Iterable[Event]) -> None:
    """Write a whole log to a file (``ronde simulate --log``; tests)."""
    path.write_text(dumps(events), encoding="utf-8")
