"""Attackers in the suite: every URL of the web app, as someone who may not use it.

The list of URLs comes from Django's URL resolver: every named pattern must be in
``ROUTES`` below (how to fill its arguments from a real game, who owns it, what a
legitimate POST sends), so a new view fails ``test_every_url_pattern_is_covered``
until someone says who may use it.

For each URL that shows or changes something, four attackers (an anonymous visitor,
another player of the same game, a player of another game, a game master of another
game) are refused (redirect to the login page, 403 or 404) and change nothing (every
row of every table is compared before and after). Every view that accepts a POST
refuses one without a CSRF token and one carrying a token from another session.
Parameters and ids naming another player, request or chorus never change what a
player is shown.

These tests look only at status codes, pages and rows, not at how access is checked.
"""

from __future__ import annotations

import html
import logging
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import timedelta
from typing import Any
from urllib.parse import urlencode

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver, reverse

from ronde.web.games import service
from ronde.web.games.models import (
    Action,
    EternaltwinLink,
    Event,
    Game,
    GameMaster,
    Generation,
    Invitation,
    Membership,
    Notification,
    NotifyAddress,
    NotifyChoice,
    PushSubscription,
    Receipt,
    Request,
    SeatClaim,
    Strike,
)

from .conftest import START, World, make_world

pytestmark = pytest.mark.django_db

# -- the scene: game A (the victim's), game B (the attackers'), a draft of A's masters ---


@dataclass
class Scene:
    a: World
    b: World
    draft: Game
    victim_request: Request  # Ana's pending request in game A
    victim_action: Action  # an action recorded in game A
    b_request: Request  # a pending request of game B
    b_action: Action  # an action recorded in game B
    invitation: Invitation  # an unused invitation of game A
    gm_b: Any  # a game master of B only


def _b_cast() -> dict[str, str]:
    from tests.conftest import SMALL_CAST

    return {f"Zo{p}": c for p, c in SMALL_CAST.items()}


def _gm_post(c: Client, slug: str, action: str, data: dict[str, Any]) -> None:
    # the time of the action, now (a forum post's time may be required)
    data = {**data, "at": service.now().isoformat()}
    r = c.post(reverse("gm_action", args=[slug, action]), data)
    assert r.status_code == 302, (action, r.status_code, r.content[:2000])


def _an_invitation(game: Game, member: Membership) -> Invitation:
    """An unused invitation of ``game`` (made for ``member`` if the game has none: the
    invitation model differs between branches, so only its common fields are used)."""
    found = Invitation.objects.filter(game=game, used_at__isnull=True).order_by("-pk").first()
    if found is not None:
        return found
    fields = {f.name for f in Invitation._meta.get_fields()}
    extra: dict[str, Any] = {"membership": member} if "membership" in fields else {}
    if "user" in fields:
        extra["user"] = member.user
    if "expires_at" in fields:
        extra["expires_at"] = service.now() + timedelta(days=7)
    return Invitation.objects.create(game=game, **extra)


@pytest.fixture
def scene(db: Any, clock: Any) -> Scene:
    service.clear_cache()
    a = make_world()
    b = make_world(cast=_b_cast(), slug="ronde-b")
    User = get_user_model()
    gm_b = User.objects.create_user(username="MjB", password="motdepasse-mj")
    GameMaster.objects.create(game=b.game, user=gm_b, name="MjB")
    draft = Game.objects.create(
        slug="brouillon-a", name="Brouillon", start=START, created_by=a.gms["Mj"]
    )
    GameMaster.objects.create(game=draft, user=a.gms["Mj"], name="Mj")
    # Mj may create games wherever that takes a permission (organisers, on some branches)
    for perm in Permission.objects.filter(codename__in=["organise", "add_game"]):
        a.gms["Mj"].user_permissions.add(perm)

    # game A: Ana opens a trial against Bob (Woody) on J2, four complaints: Bob is
    # unmasked and in the chorus once the verdict is announced
    mj = Client()
    mj.force_login(a.gms["Mj"])
    clock("J2 10:00")
    _gm_post(mj, a.game.slug, "open_trial", {"by": "Ana", "against": "Bob", "as": "woody"})
    for i, who in enumerate(["Hal", "Gus", "Fay", "Eve"]):
        clock(f"J2 11:0{i}")
        _gm_post(mj, a.game.slug, "complain", {"by": who, "trial": 1})
    clock("J2 12:00")
    _gm_post(mj, a.game.slug, "announce", {"trial": 1})
    _gm_post(mj, b.game.slug, "award", {"player": "ZoAna", "points": 1, "reason": "B"})
    clock("J2 13:00")
    service.current(a.game)  # nothing left due: a page read writes nothing
    service.current(b.game)
    now = service.now()
    victim_request = Request.objects.create(
        game=a.game,
        membership=a.member("Ana"),
        action="guess_ronde",
        args={"order": ["alice", "woody"]},
        created_at=now,
    )
    b_request = Request.objects.create(
        game=b.game,
        membership=b.member("ZoAna"),
        action="guess_ronde",
        args={"order": ["alice", "woody"]},
        created_at=now,
    )
    invitation = _an_invitation(a.game, a.member("Cid"))
    return Scene(
        a=a,
        b=b,
        draft=draft,
        victim_request=victim_request,
        victim_action=Action.objects.filter(game=a.game, action="open_trial").get(),
        b_request=b_request,
        b_action=Action.objects.filter(game=b.game, action="award").get(),
        invitation=invitation,
        gm_b=gm_b,
    )


# -- the routes --------------------------------------------------------------------------

# who may use a route:
#   open    anyone (nothing private shown, nothing of a game changed)
#   login   any logged-in account (e.g. create a game)
#   token   whoever holds the link's token
#   self    a player of the game, about himself (his page, his chorus, his requests)
#   player  the player who owns the object named in the URL
#   gm      the game masters of the game


@dataclass(frozen=True)
class Route:
    owner: str
    kwargs: Callable[[Scene], dict[str, Any]]
    get: bool = True
    post: Callable[[Scene], dict[str, Any]] | None = None
    #: the legitimate user (a key of ``users``) for the positive controls
    legit: str = "anonymous"
    #: whether the legitimate POST must get through (off where its data is a guess)
    control: bool = True


def _slug(s: Scene) -> dict[str, Any]:
    return {"slug": s.a.game.slug}


ROUTES: dict[str, Route] = {
    "home": Route("open", lambda s: {}),
    "health": Route("open", lambda s: {}),
    "login": Route(
        "open",
        lambda s: {},
        post=lambda s: {"username": "Ana", "password": "motdepasse-joueur"},
    ),
    "logout": Route("open", lambda s: {}, get=False, post=lambda s: {}, legit="Ana"),
    "invitation": Route(
        "token",
        lambda s: {"token": s.invitation.token},
        post=lambda s: {
            "username": "NouveauCompte",
            "password1": "Un-mot-de-passe-42",
            "password2": "Un-mot-de-passe-42",
        },
    ),
    # Sign in with Eternaltwin (not configured here: the button's POST and the callback
    # answer 404; tests/web/test_eternaltwin.py runs them against a local Eternaltwin)
    "etwin_start": Route("open", lambda s: {}, get=False, post=lambda s: {"purpose": "login"}),
    "etwin_callback": Route("open", lambda s: {}),
    "account": Route("login", lambda s: {}, post=lambda s: {"op": "unlink"}, legit="Ana"),
    "gm_etwin": Route(
        "gm", _slug, get=False, post=lambda s: {"op": "settings", "etwin_auto": "on"}, legit="Mj"
    ),
    "public": Route("open", _slug),
    "player": Route("self", _slug, legit="Ana"),
    "chorus": Route("self", _slug, legit="Bob"),
    "player_request": Route(
        "self",
        lambda s: {"slug": s.a.game.slug, "action": "guess_ronde"},
        get=False,
        post=lambda s: {"order": "alice, woody"},
        legit="Ana",
    ),
    "player_withdraw": Route(
        "player",
        lambda s: {"slug": s.a.game.slug, "pk": s.victim_request.pk},
        get=False,
        post=lambda s: {},
        legit="Ana",
    ),
    "gm_home": Route(
        "login", lambda s: {}, post=lambda s: {"name": "Pirate", "start": START}, legit="Mj"
    ),
    "gm_dashboard": Route("gm", _slug, legit="Mj"),
    "gm_setup": Route(
        "gm",
        lambda s: {"slug": s.draft.slug},
        post=lambda s: {"op": "info", "name": "Piratée", "start": START, "opt_A70": "own_score"},
        legit="Mj",
    ),
    "gm_actions": Route("gm", _slug, legit="Mj"),
    "gm_action": Route(
        "gm",
        lambda s: {"slug": s.a.game.slug, "name": "award"},
        post=lambda s: {"player": "Bob", "points": 5, "reason": "pirate"},
        legit="Mj",
    ),
    "gm_journal": Route("gm", _slug, legit="Mj"),
    "gm_strike": Route(
        "gm",
        lambda s: {"slug": s.a.game.slug, "pk": s.victim_action.pk},
        post=lambda s: {"reason": "pirate"},
        legit="Mj",
    ),
    "gm_scores": Route("gm", _slug, legit="Mj"),
    "gm_ronde": Route("gm", _slug, legit="Mj"),
    "gm_constraints": Route(
        "gm",
        _slug,
        get=False,
        post=lambda s: {"day": "2", "player": "Bob", "failed": "Bob"},
        legit="Mj",
        control=False,
    ),
    "gm_clock": Route(
        "gm", _slug, get=False, post=lambda s: {"to": "next"}, legit="Mj", control=False
    ),
    "gm_players": Route(
        "gm",
        _slug,
        post=lambda s: {"op": "revoke", "member": s.a.member("Ana").pk, "reason": "pirate"},
        legit="Mj",
    ),
    "gm_request": Route(
        "gm",
        lambda s: {"slug": s.a.game.slug, "pk": s.victim_request.pk, "decision": "refuse"},
        get=False,
        post=lambda s: {"reason": "pirate"},
        legit="Mj",
    ),
    # the portal as the private channel, notifications (issue 24)
    "gm_delivery": Route(
        "gm",
        _slug,
        post=lambda s: {"op": "setting", "delivery": "mp", "delivery_delay": "6"},
        legit="Mj",
    ),
    "notify_settings": Route("self", _slug, post=lambda s: {"push": "on"}, legit="Ana"),
    "notify_push": Route(
        "login",
        lambda s: {},
        get=False,
        post=lambda s: {"endpoint": "https://fcm.googleapis.com/x"},
        legit="Ana",
    ),
    "notify_unpush": Route(
        "login", lambda s: {}, get=False, post=lambda s: {"endpoint": "x"}, legit="Ana"
    ),
    "notify_confirm": Route("open", lambda s: {"token": "pas-un-jeton"}),
    "service_worker": Route("open", lambda s: {}),
    "manifest": Route("open", lambda s: {}),
}


#: Pages that only some branches serve: the console pages of console2 (merged on main
#: after this branch started; their POST data is a guess, so only the refusals and the
#: CSRF check run for their POSTs) and the language form (gone on main). They join
#: ROUTES when the resolver serves them.
ROUTES_ELSEWHERE: dict[str, Route] = {
    "set_language": Route("open", lambda s: {}, get=False, post=lambda s: {"language": "en"}),
    "gm_complaints": Route("gm", _slug, post=lambda s: {"op": "none"}, legit="Mj", control=False),
    "gm_todo": Route(
        "gm",
        _slug,
        get=False,
        post=lambda s: {"op": "done", "key": "x"},
        legit="Mj",
        control=False,
    ),
    "gm_preview": Route("gm", _slug, legit="Mj"),
    "gm_invitations": Route("gm", _slug, post=lambda s: {"op": "none"}, legit="Mj", control=False),
    "gm_forum": Route(
        "gm", _slug, post=lambda s: {"op": "read", "text": ""}, legit="Mj", control=False
    ),
    "gm_to_post": Route("gm", _slug, post=lambda s: {"op": "none"}, legit="Mj", control=False),
    "gm_post_templates": Route(
        "gm", _slug, post=lambda s: {"op": "none"}, legit="Mj", control=False
    ),
    # (a POST without a file changes nothing: the report's upload is in test_simulations)
    "gm_simulations": Route("gm", _slug, post=lambda s: {}, legit="Mj", control=False),
}


def _patterns(
    patterns: list[URLPattern | URLResolver], prefix: str = ""
) -> Iterator[tuple[str, URLPattern]]:
    for p in patterns:
        if isinstance(p, URLResolver):
            yield from _patterns(p.url_patterns, prefix + str(p.pattern))
        else:
            yield prefix + str(p.pattern), p


def url_patterns() -> list[tuple[str, str | None]]:
    """Every (route, name) the resolver serves."""
    return [(route, p.name) for route, p in _patterns(get_resolver().url_patterns)]


def _served_names() -> set[str]:
    return {name for _r, name in url_patterns() if name}


ROUTES.update({n: r for n, r in ROUTES_ELSEWHERE.items() if n in _served_names()})


def test_every_url_pattern_is_covered() -> None:
    """A new URL pattern fails here until ROUTES says who may use it and how to fill it."""
    patterns = url_patterns()
    unnamed = [route for route, name in patterns if name is None]
    assert not unnamed, f"URL patterns without a name cannot be checked: {unnamed}"
    missing = sorted({name for _r, name in patterns if name} - set(ROUTES))
    assert not missing, (
        f"new URL pattern(s) {missing}: add them to ROUTES in {__file__} "
        "(who may use them, their arguments, a legitimate POST)"
    )
    stale = sorted(set(ROUTES) - {name for _r, name in patterns})
    assert not stale, f"ROUTES names patterns that no longer exist: {stale}"


def test_every_route_reverses_with_a_real_game(scene: Scene) -> None:
    for name, route in ROUTES.items():
        assert reverse(name, kwargs=route.kwargs(scene))


# -- helpers -----------------------------------------------------------------------------


def snapshot() -> dict[str, list[tuple[Any, ...]]]:
    """Every row of every table the app writes (users without their last login)."""
    User = get_user_model()
    out: dict[str, list[tuple[Any, ...]]] = {}
    for model in (
        Game,
        GameMaster,
        Membership,
        Invitation,
        Request,
        Action,
        Strike,
        Event,
        Generation,
        EternaltwinLink,
        SeatClaim,
        NotifyChoice,
        NotifyAddress,
        PushSubscription,
        Notification,
        Receipt,
    ):
        out[model.__name__] = list(model.objects.order_by("pk").values_list())
    out["User"] = list(
        User.objects.order_by("pk").values_list("pk", "username", "password", "is_active")
    )
    return out


def assert_unchanged(before: dict[str, list[tuple[Any, ...]]], what: str) -> None:
    after = snapshot()
    for table, rows in before.items():
        assert after[table] == rows, f"{what} changed {table}"


def hidden_fields(c: Client, url: str) -> dict[str, str]:
    """The hidden fields of the page at ``url`` (one-time form tokens ...), as a browser
    would send them back; none if the page cannot be read."""
    r = c.get(url)
    if r.status_code != 200:
        return {}
    page = r.content.decode()
    return {k: html.unescape(v) for k, v in _HIDDEN.findall(page) if k != "csrfmiddlewaretoken"}


def refused(r: Any) -> bool:
    if r.status_code in (403, 404):
        return True
    return r.status_code == 302 and r["Location"].startswith(reverse("login"))


def users(scene: Scene) -> dict[str, Any]:
    return {
        "anonymous": None,
        "Ana": scene.a.users["Ana"],
        "Bob": scene.a.users["Bob"],
        "Mj": scene.a.gms["Mj"],
    }


def client_as(user: Any, **kw: Any) -> Client:
    c = Client(**kw)
    if user is not None:
        c.force_login(user)
    return c


def attackers(scene: Scene, route: Route) -> dict[str, Any]:
    """Who must be refused on ``route`` (the others may use it)."""
    out: dict[str, Any] = {"anonymous": None}
    if route.owner in ("login", "open", "token"):
        return out if route.owner == "login" else {}
    if route.owner != "self":
        # another player of the same game: Cid (not Ana, not a game master)
        out["same-game player"] = scene.a.users["Cid"]
    out["other-game player"] = scene.b.users["ZoAna"]
    out["other-game game master"] = scene.gm_b
    return out


GUARDED = sorted(n for n, r in ROUTES.items() if r.owner not in ("open", "token"))
POSTABLE = sorted(n for n, r in ROUTES.items() if r.post is not None)


def test_the_attacks_cover_every_guarded_route() -> None:
    assert set(GUARDED) >= {
        "player",
        "chorus",
        "player_request",
        "player_withdraw",
        "gm_dashboard",
        "gm_action",
        "gm_request",
        "gm_strike",
    }
    assert "gm_action" in POSTABLE and "player_withdraw" in POSTABLE


@pytest.mark.parametrize("name", GUARDED)
def test_attackers_are_refused_and_change_nothing(scene: Scene, name: str) -> None:
    route = ROUTES[name]
    url = reverse(name, kwargs=route.kwargs(scene))
    for who, user in attackers(scene, route).items():
        c = client_as(user)
        if route.get:
            before = snapshot()
            r = c.get(url)
            assert refused(r), (name, who, "GET", r.status_code)
            assert_unchanged(before, f"GET {name} as {who}")
        if route.post is not None:
            before = snapshot()
            r = c.post(url, route.post(scene))
            assert refused(r), (name, who, "POST", r.status_code)
            assert_unchanged(before, f"POST {name} as {who}")
    # the positive control: the owner gets through (so the URL names a real object)
    legit = client_as(users(scene)[route.legit])
    if route.get:
        r = legit.get(url)
        assert r.status_code == 200, (name, route.legit, r.status_code)
    if route.post is not None and route.control:
        form = hidden_fields(legit, url) if route.get else {}
        r = legit.post(url, {**form, **route.post(scene)})
        assert not refused(r), (name, route.legit, r.status_code)


def test_wrong_invitation_token_is_404_and_changes_nothing(scene: Scene) -> None:
    for token in (scene.invitation.token[:-1] + "x", "x" * 32, scene.invitation.token.upper()):
        if token == scene.invitation.token:
            continue
        url = reverse("invitation", kwargs={"token": token})
        before = snapshot()
        assert Client().get(url).status_code == 404
        r = Client().post(url, ROUTES["invitation"].post(scene))  # type: ignore[misc]
        assert r.status_code == 404
        assert_unchanged(before, f"invitation {token}")


# -- ids of another game or another player -----------------------------------------------


def test_game_masters_cannot_reach_another_games_objects_through_their_own(
    scene: Scene,
) -> None:
    """A's game master, on A's console, naming B's request or B's action: 404."""
    mj = client_as(scene.a.gms["Mj"])
    slug = scene.a.game.slug
    before = snapshot()
    for decision in ("accept", "refuse"):
        url = reverse("gm_request", args=[slug, scene.b_request.pk, decision])
        assert mj.post(url, {}).status_code == 404
    url = reverse("gm_strike", args=[slug, scene.b_action.pk])
    assert mj.get(url).status_code == 404
    assert mj.post(url, {"reason": "x"}).status_code == 404
    r = mj.post(
        reverse("gm_players", args=[slug]),
        {"op": "revoke", "member": scene.b.member("ZoAna").pk},
    )
    assert r.status_code == 404
    assert_unchanged(before, "A's game master on B's objects")


def test_a_player_cannot_withdraw_another_players_request(scene: Scene) -> None:
    before = snapshot()
    for user in (scene.a.users["Bob"], scene.a.users["Cid"], scene.b.users["ZoAna"]):
        c = client_as(user)
        r = c.post(reverse("player_withdraw", args=[scene.a.game.slug, scene.victim_request.pk]))
        assert r.status_code == 404
    # nor B's request through A's pages
    c = client_as(scene.a.users["Ana"])
    r = c.post(reverse("player_withdraw", args=[scene.a.game.slug, scene.b_request.pk]))
    assert r.status_code == 404
    assert_unchanged(before, "withdrawing someone else's request")


_TOKEN = re.compile(r'(csrfmiddlewaretoken" value=|"X-CSRFToken": )"[^"]*"')
#: a random token in a hidden field (one-time form tokens): 20+ URL-safe characters,
#: longer than any pseudo, so a hidden field naming a player is still compared
_RANDOM = re.compile(r'value="[A-Za-z0-9_-]{20,}"')
_HIDDEN = re.compile(r'<input type="hidden" name="([^"]+)" value="([^"]*)"')
_NEXT = re.compile(r'name="next" type="hidden" value="[^"]*"')


def _normalised(r: Any) -> str:
    text = html.unescape(r.content.decode())
    return _RANDOM.sub("random", _NEXT.sub("next", _TOKEN.sub("token", text)))


_PARAM_NAMES = (
    "joueur",
    "player",
    "pseudo",
    "as",
    "by",
    "viewer",
    "qui",
    "who",
    "user",
    "user_id",
    "membre",
    "member",
    "membership",
    "id",
    "pk",
    "slug",
    "voir",
    "vue",
    "view",
)


def _attacks_on(scene: Scene, victim: str) -> list[str]:
    """Query strings naming ``victim`` by pseudo, membership id and user id."""
    m = scene.a.member(victim)
    return [
        "?" + urlencode(dict.fromkeys(_PARAM_NAMES, value))
        for value in (victim, victim.lower(), str(m.pk), str(m.user_id), "game_master")
    ]


@pytest.mark.parametrize(
    ("page", "viewer", "victim"),
    [("player", "Ana", "Bob"), ("player", "Bob", "Ana"), ("chorus", "Bob", "Ana")],
)
def test_parameters_naming_another_player_change_nothing_shown(
    scene: Scene, page: str, viewer: str, victim: str
) -> None:
    c = client_as(scene.a.users[viewer])
    url = reverse(page, args=[scene.a.game.slug])
    plain = c.get(url)
    assert plain.status_code == 200
    own = _normalised(plain)
    for query in _attacks_on(scene, victim):
        r = c.get(url + query)
        assert r.status_code in (200, 400, 404), (query, r.status_code)
        if r.status_code == 200:
            assert _normalised(r) == own, f"{page}{query} shows something else"
    # the victim's own page is indeed different (the comparison can fail)
    other = client_as(scene.a.users[victim]).get(reverse("player", args=[scene.a.game.slug]))
    assert _normalised(other) != own


def test_a_request_names_its_sender_whatever_the_form_says(scene: Scene) -> None:
    """Cid sends a request with fields naming Ana: it is Cid's, and Ana's rows are untouched."""
    ana_before = list(Request.objects.filter(membership=scene.a.member("Ana")).values_list())
    c = client_as(scene.a.users["Cid"])
    url = reverse("player_request", args=[scene.a.game.slug, "guess_ronde"])
    data = {"order": "alice, woody", **dict.fromkeys(_PARAM_NAMES, "Ana")}
    r = c.post(url + _attacks_on(scene, "Ana")[0], data)
    assert r.status_code == 302
    new = Request.objects.filter(game=scene.a.game).order_by("-pk").first()
    assert new is not None and new.membership == scene.a.member("Cid")
    ana_after = list(Request.objects.filter(membership=scene.a.member("Ana")).values_list())
    assert ana_after == ana_before


# -- CSRF --------------------------------------------------------------------------------


class CsrfWatch:
    """Whether Django's CSRF check refused the last request: a 403 and a record of the
    ``django.security.csrf`` logger (whatever the refusal page looks like)."""

    def __init__(self, caplog: Any) -> None:
        self.caplog = caplog
        caplog.set_level(logging.WARNING, logger="django.security.csrf")

    def post(self, c: Client, url: str, data: dict[str, Any], **extra: Any) -> tuple[Any, bool]:
        self.caplog.clear()
        r = c.post(url, data, **extra)
        logged = any(rec.name == "django.security.csrf" for rec in self.caplog.records)
        return r, r.status_code == 403 and logged


def _token_of(c: Client) -> str:
    """The CSRF token this client's session holds (its cookie, set by a page with a form)."""
    c.get(reverse("login"))
    return str(c.cookies["csrftoken"].value)


@pytest.mark.parametrize("name", POSTABLE)
def test_posts_without_a_csrf_token_or_with_anothers_are_refused(
    scene: Scene, name: str, caplog: Any
) -> None:
    route = ROUTES[name]
    assert route.post is not None
    url = reverse(name, kwargs=route.kwargs(scene))
    c = client_as(users(scene)[route.legit], enforce_csrf_checks=True)
    own = _token_of(c)
    other = client_as(scene.a.users["Eve"], enforce_csrf_checks=True)
    stolen = _token_of(other)
    assert stolen != own
    data = route.post(scene)
    watch = CsrfWatch(caplog)

    before = snapshot()
    r, csrf = watch.post(c, url, data)
    assert csrf, (name, "no token", r.status_code)
    assert_unchanged(before, f"POST {name} without a CSRF token")

    r, csrf = watch.post(c, url, {**data, "csrfmiddlewaretoken": stolen})
    assert csrf, (name, "another session's token", r.status_code)
    r, csrf = watch.post(c, url, data, HTTP_X_CSRFTOKEN=stolen)
    assert csrf, (name, "another session's token in the header", r.status_code)
    assert_unchanged(before, f"POST {name} with another session's CSRF token")

    # the positive control: with its own token the same POST passes the CSRF check
    form = hidden_fields(c, url) if route.get else {}
    r, csrf = watch.post(c, url, {**form, **data, "csrfmiddlewaretoken": own})
    assert not csrf, (name, "own token", r.status_code)
