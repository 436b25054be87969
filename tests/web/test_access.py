"""The gates of ``ronde.web.games.access``, called directly (a view wrapped here, in the
test, so that a mutation of the gate is what the test runs), and the roster parser."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import AnonymousUser
from django.http import Http404, HttpResponse
from django.test import RequestFactory

from ronde.web.games import access, service
from ronde.web.games.models import Game, GameMaster, Membership

from .conftest import World

pytestmark = pytest.mark.django_db


def _request(user: Any, path: str = "/x/") -> Any:
    r = RequestFactory().get(path)
    r.user = user if user is not None else AnonymousUser()
    return r


def _gm_view() -> Any:
    seen: list[tuple[Game, GameMaster, tuple[Any, ...]]] = []

    def view(request: Any, game: Game, gm: GameMaster, *args: Any, **kw: Any) -> HttpResponse:
        assert request.path == "/x/"  # the request itself is passed on
        seen.append((game, gm, (*args, *kw.values())))
        return HttpResponse("ok")

    return access.gm_page(view), seen


def _player_view() -> Any:
    seen: list[tuple[Game, Membership, tuple[Any, ...]]] = []

    def view(request: Any, game: Game, member: Membership, *args: Any, **kw: Any) -> HttpResponse:
        assert request.path == "/x/"
        seen.append((game, member, (*args, *kw.values())))
        return HttpResponse("ok")

    return access.player_page(view), seen


def test_gm_page_lets_the_games_masters_in_with_their_row(world: World) -> None:
    wrapped, seen = _gm_view()
    r = wrapped(_request(world.gms["Mj2"]), world.game.slug, 7, pk=8)
    assert r.status_code == 200
    [(game, gm, args)] = seen
    assert game == world.game and gm.name == "Mj2" and gm.user == world.gms["Mj2"]
    assert args == (7, 8)
    assert wrapped.__name__ == "view"  # the wrapper keeps the view's name (URL reversing)


def test_gm_page_sends_the_anonymous_to_the_login_page(world: World) -> None:
    wrapped, seen = _gm_view()
    r = wrapped(_request(None, "/mj/ronde-test/?a=1"), world.game.slug)
    assert r.status_code == 302 and r["Location"].startswith("/connexion/")
    assert "next=/mj/ronde-test/%3Fa%3D1" in r["Location"]
    assert not seen


def test_gm_page_refuses_players_and_unknown_games(world: World) -> None:
    wrapped, seen = _gm_view()
    with pytest.raises(Http404) as info:
        wrapped(_request(world.users["Ana"]), world.game.slug)
    assert str(info.value) == "Vous n'êtes pas MJ de cette partie."
    with pytest.raises(Http404):
        wrapped(_request(world.gms["Mj"]), "no-such-game")
    assert not seen


def test_player_page_gives_the_players_own_membership(world: World) -> None:
    wrapped, seen = _player_view()
    r = wrapped(_request(world.users["Bob"]), world.game.slug, "x", pk=3)
    assert r.status_code == 200
    [(game, member, args)] = seen
    assert game == world.game and member.pseudo == "Bob" and args == ("x", 3)


def test_personal_pages_are_kept_by_no_browser_or_proxy_cache(world: World) -> None:
    """A player's page holds his secrets, the console everyone's: ``private, no-store``."""
    for wrapped, user in (
        (_player_view()[0], world.users["Bob"]),
        (_gm_view()[0], world.gms["Mj2"]),
    ):
        r = wrapped(_request(user), world.game.slug)
        control = {x.strip() for x in r["Cache-Control"].split(",")}
        assert {"private", "no-store", "no-cache"} <= control, control


def test_player_page_refuses_anonymous_game_masters_and_unknown_games(world: World) -> None:
    wrapped, seen = _player_view()
    r = wrapped(_request(None, "/partie/ronde-test/moi/"), world.game.slug)
    assert r.status_code == 302
    assert r["Location"] == "/connexion/?next=/partie/ronde-test/moi/", r["Location"]
    with pytest.raises(Http404) as info:
        wrapped(_request(world.gms["Mj"]), world.game.slug)
    assert str(info.value) == "Vous ne jouez pas dans cette partie."
    with pytest.raises(Http404):
        wrapped(_request(world.users["Ana"]), "no-such-game")
    assert not seen


def test_a_revoked_membership_gives_no_access(world: World) -> None:
    """The game masters withdraw Ana's access (her pseudo still plays): she is refused."""
    m = world.member("Ana")
    m.revoked_at = service.now()
    m.save(update_fields=["revoked_at"])
    assert access.active_membership(world.game.slug, world.users["Ana"].pk) is None
    wrapped, seen = _player_view()
    with pytest.raises(Http404):
        wrapped(_request(world.users["Ana"]), world.game.slug)
    assert not seen
    assert access.active_membership(world.game.slug, world.users["Bob"].pk) == world.member("Bob")


def test_a_player_of_a_game_not_started_is_refused(world: World) -> None:
    world.game.started_at = None
    world.game.save(update_fields=["started_at"])
    wrapped, seen = _player_view()
    with pytest.raises(Http404):
        wrapped(_request(world.users["Ana"]), world.game.slug)
    assert not seen


def test_membership_and_game_master_of_the_anonymous_are_none(world: World) -> None:
    assert access.active_membership(world.game.slug, None) is None
    assert access.game_master_seat(world.game.slug, None) is None
    assert access.game_master_seat(world.game.slug, world.users["Ana"].pk) is None
    seat = access.game_master_seat(world.game.slug, world.gms["Mj2"].pk)
    assert seat is not None and seat.name == "Mj2" and seat.game == world.game


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Ana\nBob\n\nCid\n", ["Ana", "Bob", "Cid"]),
        ("Ana, Bob,Cid", ["Ana", "Bob", "Cid"]),
        ("Inscrits :\n# a comment\n- Ana\n* Bob (en retard)\n2. Cid - absent\n", None),
        ("@Ana\n[*]Bob\n3) Cid\n", None),
        ("Ana\nana\nBob\nCid", None),
        ("Ana\nune phrase de trop ici\nBob\nCid", None),
        ("Jean Paul\nBob\nCid", ["Jean Paul", "Bob", "Cid"]),
        ("Inscrits : \n**Ana**\n[Bob]\n_Cid_\n", None),
        ("Ana Bob\nCid", ["Ana Bob", "Cid"]),
    ],
)
def test_parse_roster(text: str, expected: list[str] | None) -> None:
    got = access.parse_roster(text)
    if expected is None:
        expected = ["Ana", "Bob", "Cid"]
    assert got == expected


def test_parse_roster_keeps_a_pseudo_with_a_hash_inside_and_a_colon_line_out() -> None:
    assert access.parse_roster("A#na\nBob:\nCid") == ["A#na", "Cid"]
    assert access.parse_roster("Ana Bob Cid") == []  # three words: a sentence, not a pseudo


def test_parse_roster_comment_lines_and_emphasis_around_pseudos() -> None:
    assert access.parse_roster("# Zed\n**Xena**\nBob\n") == ["Xena", "Bob"]
