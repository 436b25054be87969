"""Pages built once per write: what a viewer's page shows of the engine, cached by
(game, generation, version, viewer, language, page and its parameters).

A game's ``version`` changes with every write, so an entry never outlives the state
it was built from; the viewer is part of the key (the caller gives the viewer it
checked: a player's own pseudo, ``"game_master"`` or ``"public"``), so one viewer's
page is never served to another. An entry also records when the engine's next timer
fires: from then on it is built again (which applies and stores the timers first, as
:func:`ronde.web.games.service.current` does).

Only a miss reads the engine (and takes its read lock while a view is built); a hit
costs a dictionary look-up. Entries live in this process's memory, bounded in number
(least recently used first out).
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any, TypeVar

import orjson
from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.template.loader import render_to_string
from django.utils import translation
from django.utils.safestring import SafeString

from . import clocks, service
from .eventstore import User
from .middleware import CSRF_SLOT_VALUE
from .models import Game

if TYPE_CHECKING:  # a type only: the game comes from the service
    from ronde.engine.game import Game as EngineGame

T = TypeVar("T")

#: entries kept (a player page is a few tens of kilobytes)
MAX_ENTRIES = 512


@dataclass(frozen=True)
class Entry:
    value: Any
    #: when the engine's next timer fires (``None``: no timer, or past the game's end)
    due: datetime | None


_lock = threading.Lock()
_entries: OrderedDict[tuple[Hashable, ...], Entry] = OrderedDict()


def _key(game: Game, viewer: str, parts: tuple[Hashable, ...]) -> tuple[Hashable, ...]:
    return (game.pk, game.generation, game.version, viewer, translation.get_language(), parts)


def shown_row(game: Game) -> tuple[Hashable, ...]:
    """What a whole page shows of the game's row besides its version (its name, J1, its
    clock): part of a whole page's key, as they change without a write to the game."""
    return (game.slug, game.name, game.start, game.clock, game.clock_at, game.started_at)


def whole_page(
    request: HttpRequest,
    game: Game,
    viewer: str,
    parts: tuple[Hashable, ...],
    template: str,
    context: Callable[[], dict[str, Any]],
) -> HttpResponse:
    """``render(request, template, context())``, the whole page built once per version
    of the game, viewer, user and ``parts`` (what else it shows: rows of other tables as
    stored ...), and served from memory until then.

    It is rendered without the request: its CSRF token is a slot that
    :class:`~ronde.web.games.middleware.CsrfSlotMiddleware` fills in with this response's
    own, and the one-time form tokens are added to every response anyway. A page with
    notes to show (``django.contrib.messages``) is rendered for this request alone (the
    notes are used up)."""
    if len(messages.get_messages(request)):
        return render(request, template, context())
    user = request.user
    key = ("page", template, shown_row(game), user.pk, user.get_username(), *parts)

    def build(_eng: EngineGame) -> bytes:
        extra = {"csrf_token": CSRF_SLOT_VALUE, "user": user, "messages": ()}
        return render_to_string(template, {**context(), **extra}).encode()

    content = cached(game, viewer, key, build, user)
    return HttpResponse(content)


def clear() -> None:
    """Forget every entry (tests)."""
    with _lock:
        _entries.clear()
        _fragments.clear()


def cached(
    game: Game,
    viewer: str,
    parts: tuple[Hashable, ...],
    build: Callable[[EngineGame], T],
    user: User | None = None,
    *,
    fresh: bool = True,
) -> T:
    """``build(engine game now)`` for ``viewer``, built only once per version.

    ``game`` must have been read from the database by this request (``fresh``): its
    version is the key. ``parts`` names the page and whatever else its content depends
    on (a page number, the instant of the last visit ...).
    """
    key = _key(game, viewer, parts)
    with _lock:
        hit = _entries.get(key)
        if hit is not None:
            _entries.move_to_end(key)
    if hit is not None and (hit.due is None or clocks.game_now(game) < hit.due):
        value: T = hit.value
        return value
    eng = service.current(game, user, fresh=fresh)  # may store due timers: a new version
    value = build(eng)
    due = service.next_timer(eng)
    if due is not None and due > clocks.bounds(eng)[1]:
        due = None  # never fires (past the latest instant accepted)
    with _lock:
        _entries[_key(game, viewer, parts)] = Entry(value, due)
        while len(_entries) > MAX_ENTRIES:
            _entries.popitem(last=False)
    return value


#: fragments rendered from what they show alone (see :func:`rendered`)
_fragments: OrderedDict[tuple[str, str, bytes], Any] = OrderedDict()


def once(content: Any, build: Callable[[], T]) -> T:
    """``build()``, built once per ``content`` and language: the key is a digest of the
    content itself (as JSON), so what is built must depend on nothing else. Two viewers
    share an entry only when they would be shown exactly the same thing; a write that
    changes nothing of what a viewer is shown (another player's points) costs him no
    rendering."""
    data = orjson.dumps(
        content, option=orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS, default=repr
    )
    key = ("once", translation.get_language() or "", hashlib.sha256(data).digest())
    with _lock:
        hit = _fragments.get(key)
        if hit is not None:
            _fragments.move_to_end(key)
            value: T = hit
            return value
    value = build()
    with _lock:
        _fragments[key] = value
        while len(_fragments) > MAX_ENTRIES:
            _fragments.popitem(last=False)
    return value


def rendered(template: str, content: dict[str, Any]) -> SafeString:
    """``render_to_string(template, content)``, rendered once per content and language
    (:func:`once`): two viewers share a fragment only when they would be shown exactly
    the same thing (e.g. the cards of the trials ended, the same for most players); the
    template must depend on nothing else."""
    return once(
        {"template": template, "content": content}, lambda: render_to_string(template, content)
    )
