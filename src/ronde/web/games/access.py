"""Who may see what: every page goes through one of these gates.

A game master of a game sees its game-master view; a player (an active
membership whose pseudo the engine still knows) sees his own view; everyone
sees the public board.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import update_wrapper
from typing import Any, Concatenate, ParamSpec

from django.contrib.auth.views import redirect_to_login
from django.db import DEFAULT_DB_ALIAS, connections
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404
from django.urls import reverse
from django.utils.cache import add_never_cache_headers, patch_cache_control
from django.utils.translation import gettext as _

from .models import Game, GameMaster, Membership
from .rawrows import Columns, fetch

P = ParamSpec("P")

_NUMBER = re.compile(r"[0-9]{1,18}")


def number(value: object) -> int | None:
    """A whole number typed in a request (a day, a row's key): ASCII digits only, at
    most 18 of them (``None`` otherwise). ``str.isdigit`` lets « ² » and
    thousand-digit numbers through, which ``int()`` or the database then refuse with
    an error page."""
    text = str(value).strip()
    return int(text) if _NUMBER.fullmatch(text) else None


#: what a player's page reads of his membership and its game: the game's page comes
#: from the engine, not from the set-up's lists
_MEMBER = Columns(Membership, "m")
_GAME = Columns(Game, "g", exclude=("options", "roster", "cast", "ronde"))
_SEAT = Columns(GameMaster, "s")
_WHOLE_GAME = Columns(Game, "g")

_SQL: dict[tuple[str, str], str] = {}


def _seat_and_game(
    seat: Columns, game: Columns, slug: str, user_pk: Any, tail: Callable[[Any], str] | None
) -> Any:
    """The user's row of ``seat``'s table in the game ``slug`` with its game (``None``
    if none): one hand-written query (:mod:`.rawrows`), as it runs on every page.
    ``tail(quote_name)`` adds conditions and an order to the query."""
    conn = connections[DEFAULT_DB_ALIAS]
    key = (seat.alias, conn.vendor)
    sql = _SQL.get(key)
    if sql is None:
        qn = conn.ops.quote_name
        s, g = qn(seat.alias), qn(game.alias)
        sql = _SQL[key] = (
            f"SELECT {seat.sql(conn)}, {game.sql(conn)} "
            f"FROM {qn(seat.model._meta.db_table)} {s} "
            f"INNER JOIN {qn(Game._meta.db_table)} {g} ON {g}.{qn('id')} = {s}.{qn('game_id')} "
            f"WHERE {g}.{qn('slug')} = %s AND {s}.{qn('user_id')} = %s"
            + (tail(qn) if tail is not None else "")
        )
    rows = fetch(sql, [slug, user_pk])
    if not rows:
        return None
    n = len(seat)
    row = seat.build(conn, rows[0][:n])
    row.game = game.build(conn, rows[0][n:])
    return row


def _latest_active(qn: Any) -> str:
    m = qn("m")
    return (
        f" AND {m}.{qn('revoked_at')} IS NULL "
        f"ORDER BY {m}.{qn('created_at')} DESC, {m}.{qn('id')} DESC LIMIT 1"
    )


def active_membership(slug: str, user_pk: Any) -> Membership | None:
    """The user's active membership in the game ``slug`` (the latest), its game with
    it (the game without its set-up's lists)."""
    member: Membership | None = _seat_and_game(_MEMBER, _GAME, slug, user_pk, _latest_active)
    return member


def game_master_seat(slug: str, user_pk: Any) -> GameMaster | None:
    """The user's game-master seat in the game ``slug``, its whole game with it."""
    gm: GameMaster | None = _seat_and_game(_SEAT, _WHOLE_GAME, slug, user_pk, None)
    return gm


def private(response: HttpResponse) -> HttpResponse:
    """A page of one person's (a player's secrets, the game masters' console): never
    kept by a browser's or a proxy's cache (``Cache-Control: private, no-store``)."""
    add_never_cache_headers(response)
    patch_cache_control(response, private=True)
    return response


def _to_login(request: HttpRequest, page: str, slug: str) -> HttpResponse:
    """The login page, then back: to the page asked (a GET), or to the game's page
    ``page`` for a form sent while logged out (its address answers a POST only: the
    login's return to it would be an empty « 405 » page)."""
    if request.method in ("GET", "HEAD"):
        return redirect_to_login(request.get_full_path())
    return redirect_to_login(reverse(page, args=[slug]))


def gm_page(
    view: Callable[Concatenate[HttpRequest, Game, GameMaster, P], HttpResponse],
) -> Callable[..., HttpResponse]:
    """A page for the game masters of the game ``slug`` (404 for anyone else)."""

    def wrapper(request: HttpRequest, slug: str, *args: P.args, **kwargs: P.kwargs) -> HttpResponse:
        if not request.user.is_authenticated:
            return _to_login(request, "gm_dashboard", slug)
        # the seat and its game in one query (as for a player's page)
        gm = game_master_seat(slug, request.user.pk)
        if gm is None:
            get_object_or_404(Game, slug=slug)  # no such game: the usual 404
            raise Http404(_("Vous n'êtes pas MJ de cette partie."))
        return private(view(request, gm.game, gm, *args, **kwargs))

    update_wrapper(wrapper, view)
    return wrapper


def player_page(
    view: Callable[Concatenate[HttpRequest, Game, Membership, P], HttpResponse],
) -> Callable[..., HttpResponse]:
    """A page for a player of the game ``slug`` (404 for anyone else)."""

    def wrapper(request: HttpRequest, slug: str, *args: P.args, **kwargs: P.kwargs) -> HttpResponse:
        if not request.user.is_authenticated:
            return _to_login(request, "player", slug)
        # the game and the membership in one query (the game row is read once per page)
        member = active_membership(slug, request.user.pk)
        if member is None or not member.game.started:
            raise Http404(_("Vous ne jouez pas dans cette partie."))
        return private(view(request, member.game, member, *args, **kwargs))

    update_wrapper(wrapper, view)
    return wrapper


_BULLET = re.compile(r"^\s*(?:[-*•·>]+|\d+\s*[.)\]-]|\[\*\])\s*")
_TAIL = re.compile(r"\s+[-–—(:].*$")


def parse_roster(text: str) -> list[str]:
    """Pseudos from one-a-line text or a pasted forum post: bullets, numbers, ``@`` and
    trailing comments (`` - ...``, `` (...)``) are dropped; one line with commas is a list;
    duplicates (case ignored) are kept once."""
    lines = [ln for ln in text.splitlines() if ln.strip()]
    if len(lines) == 1 and "," in lines[0]:
        lines = lines[0].split(",")
    out: list[str] = []
    seen: set[str] = set()
    for line in lines:
        if line.strip().startswith("#") or line.rstrip().endswith(":"):
            continue  # comments and headings ("Inscrits :")
        name = _BULLET.sub("", line).strip()
        name = _TAIL.sub("", name).strip().lstrip("@").strip().strip("*_[]")
        if not name or (" " in name and len(name.split()) > 2):
            continue
        key = name.casefold()
        if key not in seen:
            seen.add(key)
            out.append(name)
    return out
