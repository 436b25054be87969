"""The player page built once per version: few queries, never another viewer's page,
messages by day. (Correctness guards only: no timing is asserted.)"""

from __future__ import annotations

import html
import re
from typing import Any

from django.db import connection
from django.test import Client
from django.urls import reverse

from ronde.web.games import service, viewcache
from ronde.web.games.models import Request

from .conftest import World, gm_client

#: what differs between two answers of the same page: per-response tokens
_TOKENS = re.compile(
    r'name="(?:form_token|csrfmiddlewaretoken)" value="[^"]*"|"X-CSRFToken": "[^"]*"'
)


def _page(client: Client, url: str) -> str:
    r = client.get(url)
    assert r.status_code == 200
    return _TOKENS.sub("TOKEN", r.content.decode())


def _player(world: World, pseudo: str) -> Client:
    c = Client()
    c.force_login(world.users[pseudo])
    return c


class _Queries:
    """Every SQL statement run inside the block (``connection.execute_wrapper``: the
    debug log drops some)."""

    def __init__(self) -> None:
        self.sqls: list[str] = []

    def __call__(self, execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
        self.sqls.append(sql)
        return execute(sql, params, many, context)

    def __enter__(self) -> _Queries:
        self._cm = connection.execute_wrapper(self)
        self._cm.__enter__()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._cm.__exit__(*exc)


def test_player_page_in_at_most_five_queries(world: World, clock: Any) -> None:
    url = reverse("player", args=[world.game.slug])
    ana = _player(world, "Ida")  # an Extra: told the theme of the day
    clock("J2 10:00")
    service.current(world.game)  # the timers due by now are stored (not the page's work)
    with _Queries() as first:  # first visit: the visit is recorded
        assert ana.get(url).status_code == 200
    with _Queries() as again:  # a reload, from the cache
        assert ana.get(url).status_code == 200
    gm_client(Client(), world).post(
        reverse("gm_action", args=[world.game.slug, "set_theme"]), {"day": "2", "theme": "lune"}
    )
    with _Queries() as after:  # the game changed: built again
        page = ana.get(url).content.decode()
    assert "lune" in html.unescape(page)
    for q in (first, again, after):
        assert not any("django_session" in s for s in q.sqls), q.sqls  # sessions from memory
    # the user, his membership with its game, the visit, the receipts of the private
    # messages his page shows him for the first time (issue 24: the portal delivers them),
    # his requests
    assert len(first.sqls) == 5 and "UPDATE" in first.sqls[2], first.sqls
    assert "INSERT" in first.sqls[3] and "games_receipt" in first.sqls[3], first.sqls
    # a reload: the user, his membership with its game, his requests as stored
    assert len(again.sqls) == 3, again.sqls
    # the game changed (a new message, the theme): its receipt too
    assert len(after.sqls) == 4 and "games_receipt" in after.sqls[2], after.sqls


def test_cached_pages_are_each_viewers_own(world: World, clock: Any) -> None:
    """Players reading the same version one after the other get each his own page,
    identical to one built without the cache."""
    url = reverse("player", args=[world.game.slug])
    clock("J2 10:00")
    gm_client(Client(), world).post(
        reverse("gm_action", args=[world.game.slug, "set_theme"]), {"day": "2", "theme": "lune"}
    )
    clients = {p: _player(world, p) for p in ("Ana", "Bob", "Ida", "Jo")}
    for c in clients.values():
        c.get(url)  # the first visit is recorded: later ones are reloads
    cached = {}
    for _round in range(2):
        for pseudo, c in clients.items():
            cached[pseudo] = _page(c, url)
    for pseudo, c in clients.items():
        viewcache.clear()
        service.clear_cache()
        built = _page(c, url)
        assert built == cached[pseudo]
        assert f"<h1>{pseudo} " in built
        others = [p for p in clients if p != pseudo]
        assert not any(f"<h1>{o} " in built for o in others)
    assert len({cached[p] for p in clients}) == len(clients)


def test_a_write_is_seen_at_once(world: World, clock: Any) -> None:
    url = reverse("player", args=[world.game.slug])
    bob = _player(world, "Jo")
    clock("J2 10:00")
    before = html.unescape(bob.get(url).content.decode())
    assert "soleil" not in before
    gm_client(Client(), world).post(
        reverse("gm_action", args=[world.game.slug, "set_theme"]), {"day": "2", "theme": "soleil"}
    )
    assert "soleil" in html.unescape(bob.get(url).content.decode())


def test_messages_are_shown_day_by_day_today_first(world: World, clock: Any) -> None:
    url = reverse("player", args=[world.game.slug])
    gm = gm_client(Client(), world)
    clock("J1 10:00")
    gm.post(
        reverse("gm_action", args=[world.game.slug, "set_theme"]), {"day": "1", "theme": "lune"}
    )
    clock("J2 10:00")
    gm.post(
        reverse("gm_action", args=[world.game.slug, "set_theme"]), {"day": "2", "theme": "soleil"}
    )
    ida = _player(world, "Ida")  # an Extra: told the theme of the day
    page = html.unescape(ida.get(url).content.decode())
    private = page[page.index('id="messages-prives"') :]
    private = private[: private.index("</details>")]
    assert "<h3>J2</h3>" in private
    assert "soleil" in private and "lune" not in private
    assert 'href="?jour=1#messages-prives"' in private
    page = html.unescape(ida.get(url, {"jour": "1"}).content.decode())
    private = page[page.index('id="messages-prives"') :]
    private = private[: private.index("</details>")]
    assert "<h3>J1</h3>" in private
    assert "lune" in private and "soleil" not in private
    # a day that is not a number is today's page
    assert ida.get(url, {"jour": "x' or 1"}).status_code == 200


def _tokens(page: str) -> tuple[set[str], set[str], list[str]]:
    csrf_inputs = set(re.findall(r'name="csrfmiddlewaretoken" value="([^"]*)"', page))
    csrf_headers = set(re.findall(r'"X-CSRFToken": "([^"]*)"', page))
    form_tokens = re.findall(r'name="form_token" value="([^"]*)"', page)
    return csrf_inputs, csrf_headers, form_tokens


def test_a_cached_page_carries_this_requests_tokens(world: World, clock: Any) -> None:
    """The page served from the cache gets each response its own CSRF token (valid for
    this session only) and its own one-time form tokens: never another's."""
    from django.middleware.csrf import _unmask_cipher_token

    url = reverse("player", args=[world.game.slug])
    clock("J2 10:00")
    ana, bob = Client(enforce_csrf_checks=True), Client(enforce_csrf_checks=True)
    ana.force_login(world.users["Ana"])
    bob.force_login(world.users["Bob"])
    seen: dict[str, list[str]] = {}
    for name, c in (("Ana", ana), ("Bob", bob), ("Ana", ana), ("Bob", bob)):
        page = c.get(url).content.decode()
        assert "__RONDE_CSRF_SLOT__" not in page
        inputs, headers, forms = _tokens(page)
        assert inputs and headers and forms  # every slot filled
        secret = c.cookies["csrftoken"].value
        assert {_unmask_cipher_token(t) for t in inputs | headers} == {secret}
        seen.setdefault(name, []).extend(forms)
    every = seen["Ana"] + seen["Bob"]
    assert len(set(every)) == len(every)  # one-time tokens: new in every response
    assert ana.cookies["csrftoken"].value != bob.cookies["csrftoken"].value


def test_csrf_is_still_enforced_on_the_cached_players_forms(world: World, clock: Any) -> None:
    """A form of a page served from the cache posts with its own session's token only."""
    url = reverse("player", args=[world.game.slug])
    post = reverse("player_request", args=[world.game.slug, "open_trial"])
    clock("J2 10:00")
    ana, bob = Client(enforce_csrf_checks=True), Client(enforce_csrf_checks=True)
    ana.force_login(world.users["Ana"])
    bob.force_login(world.users["Bob"])
    ana.get(url)
    bob_token = sorted(_tokens(bob.get(url).content.decode())[0])[0]
    ana_token = sorted(_tokens(ana.get(url).content.decode())[0])[0]
    data = {"against": "Cid", "as": "woody", "arguments": "essai"}
    assert ana.post(post, data).status_code == 403  # no token
    assert ana.post(post, {**data, "csrfmiddlewaretoken": bob_token}).status_code == 403
    assert not Request.objects.exists()
    r = ana.post(post, {**data, "csrfmiddlewaretoken": ana_token})
    assert r.status_code == 302
    assert Request.objects.filter(membership__pseudo="Ana").count() == 1


def test_requests_and_notes_are_seen_at_once(world: World, clock: Any) -> None:
    """The game's version does not change when a request is sent, withdrawn or refused:
    the page still shows each change at once, and a note once."""
    url = reverse("player", args=[world.game.slug])
    slug = world.game.slug
    clock("J2 10:00")
    ana = _player(world, "Ana")
    assert "Aucune demande." in html.unescape(ana.get(url).content.decode())
    ana.post(
        reverse("player_request", args=[slug, "open_trial"]),
        {"against": "Cid", "as": "woody", "arguments": "essai"},
    )
    page = html.unescape(ana.get(url).content.decode())
    assert "Demande envoyée aux MJ." in page and "Aucune demande." not in page
    assert "en attente" in page
    page = html.unescape(ana.get(url).content.decode())
    assert "Demande envoyée aux MJ." not in page  # shown once
    assert "en attente" in page
    req = Request.objects.get(membership__pseudo="Ana")
    gm_client(Client(), world).post(
        reverse("gm_request", args=[slug, req.pk, "refuse"]), {"reason": "pas maintenant"}
    )
    page = html.unescape(ana.get(url).content.decode())
    assert "pas maintenant" in page and "refusée" in page
    # Bob's page never shows Ana's request
    assert "pas maintenant" not in html.unescape(_player(world, "Bob").get(url).content.decode())


def test_a_revoked_membership_sees_no_cached_page(world: World, clock: Any) -> None:
    url = reverse("player", args=[world.game.slug])
    clock("J2 10:00")
    ana = _player(world, "Ana")
    assert ana.get(url).status_code == 200
    world.member("Ana").__class__.objects.filter(pk=world.member("Ana").pk).update(
        revoked_at=service.now()
    )
    assert ana.get(url).status_code == 404


def test_the_dashboard_is_each_game_masters_own_and_fresh(world: World, clock: Any) -> None:
    """The dashboard served from the cache: each game master's own page (name, CSRF
    token of his session), a player's new request shown at once (no version change)."""
    from django.middleware.csrf import _unmask_cipher_token

    url = reverse("gm_dashboard", args=[world.game.slug])
    clock("J2 10:00")
    mj, mj2 = Client(enforce_csrf_checks=True), Client(enforce_csrf_checks=True)
    mj.force_login(world.gms["Mj"])
    mj2.force_login(world.gms["Mj2"])
    for _round in range(2):
        for name, c in (("Mj", mj), ("Mj2", mj2)):
            page = html.unescape(c.get(url).content.decode())
            assert f"MJ : {name}." in page
            assert "__RONDE_CSRF_SLOT__" not in page
            inputs, headers, forms = _tokens(page)
            assert inputs and headers and forms
            secret = c.cookies["csrftoken"].value
            assert {_unmask_cipher_token(t) for t in inputs | headers} == {secret}
    assert "Aucune demande en attente." in html.unescape(mj.get(url).content.decode())
    _player(world, "Ana").post(
        reverse("player_request", args=[world.game.slug, "open_trial"]),
        {"against": "Cid", "as": "woody", "arguments": "essai"},
    )
    page = html.unescape(mj.get(url).content.decode())
    assert "Aucune demande en attente." not in page and "Accepter la demande de Ana" in page


def test_a_cached_page_names_who_is_logged_in(world: World, clock: Any) -> None:
    """The header's account link (the user's name) is on every player's and game
    master's page, built or served from the cache."""
    clock("J2 10:00")
    for who, c, url in (
        (world.users["Ana"], _player(world, "Ana"), reverse("player", args=[world.game.slug])),
        (
            world.gms["Mj"],
            gm_client(Client(), world),
            reverse("gm_dashboard", args=[world.game.slug]),
        ),
    ):
        for _visit in range(3):  # built, then served from memory
            page = _page(c, url)
            assert f'title="Mon compte">{html.escape(who.get_username())}</a>' in page


def test_a_reload_of_the_same_version_renders_nothing(world: World, clock: Any) -> None:
    """Served from memory: a reload with nothing new renders no template (the player's
    page and the game masters' dashboard), and a write renders the page again."""
    clock("J2 10:00")
    player = _player(world, "Ana")
    gm = gm_client(Client(), world)
    pages = (
        (player, reverse("player", args=[world.game.slug]), "games/player.html"),
        (gm, reverse("gm_dashboard", args=[world.game.slug]), "games/gm_dashboard.html"),
    )
    for c, url, template in pages:
        assert template in [t.name for t in c.get(url).templates]
        assert c.get(url).templates == []
        assert c.get(url).templates == []
    gm.post(
        reverse("gm_action", args=[world.game.slug, "set_theme"]), {"day": "2", "theme": "lune"}
    )
    for c, url, template in pages:
        assert template in [t.name for t in c.get(url).templates]


def test_a_write_that_leaves_the_trials_alone_renders_no_trial_card_again(
    world: World, clock: Any
) -> None:
    """The trial cards are built once per content: a write that changes the page but not
    its trials (a theme set) renders the page again, not the cards; a trial that
    lapses renders them again."""
    from ronde.engine.clock import parse_time

    viewcache.clear()  # (another test may have built the same cards)
    clock("J2 10:00")
    opened = service.record(
        world.game,
        None,
        "open_trial",
        "Ana",
        {"against": "Bob", "as": "woody"},
        at=parse_time("J2 10:00", world.game.start),
    )
    assert opened.ok, opened.message
    public = Client()
    url = reverse("public", args=[world.game.slug])

    def templates() -> list[str]:
        return [t.name for t in public.get(url).templates if t.name is not None]

    assert "games/_trial_cards.html" in templates()
    theme = service.record(world.game, None, "set_theme", "Mj", {"day": 2, "theme": "lune"})
    assert theme.ok, theme.message
    again = templates()
    assert "games/public.html" in again and "games/_trial_cards.html" not in again
    clock("J3 10:30")  # the trial's deadline (J3 10:00) passed: it lapsed
    assert "games/_trial_cards.html" in templates()
