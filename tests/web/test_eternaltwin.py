"""Sign in with Eternaltwin, against a local Eternaltwin over real HTTP
(``etwin_provider.py``: the three documented endpoints, Basic authentication on the
token endpoint, the ``self`` answer's shape). Ronde's side runs through Django's test
client; its server-to-server requests (token, self) really go to the provider.

The attackers: a forged ``state``, a replayed callback or code, another browser's
callback (login CSRF), a display name imitating a linked pseudo, a pseudo held by an
account without Eternaltwin, a provider that refuses, errs, answers nonsense or
nothing, an open redirect through ``next``. Every refusal is a French page and
changes no row.
"""

from __future__ import annotations

import base64
import re
import uuid
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import pytest
import requests
from django.apps import apps
from django.contrib.auth import get_user_model
from django.contrib.sessions.models import Session
from django.test import Client
from django.urls import reverse

from ronde.web.games import accounts, eternaltwin
from ronde.web.games.models import (
    EternaltwinLink,
    FormSubmission,
    Invitation,
    Membership,
    SeatClaim,
)

from .conftest import World, make_world
from .etwin_provider import AUTHORIZE_PARAMS, LocalEternaltwin

pytestmark = pytest.mark.django_db

User = get_user_model()


# -- helpers -------------------------------------------------------------------------------


def rows() -> dict[str, list[Any]]:
    """Every row of the app's tables and the accounts (what "nothing changed" compares)."""
    out: dict[str, list[Any]] = {}
    for model in apps.get_app_config("games").get_models():
        if model is not FormSubmission:
            out[model.__name__] = list(model.objects.order_by("pk").values_list())
    out["User"] = list(
        User.objects.order_by("pk").values_list("pk", "username", "password", "is_active")
    )
    return out


def free(world: World, *pseudos: str) -> None:
    """These seats wait for their players (no account yet, an open invitation each)."""
    for p in pseudos:
        m = world.member(p)
        m.user = None
        m.save(update_fields=["user"])
        accounts.invite(world.game, m)


def begin(client: Client, purpose: str = "login", **data: str) -> str:
    """The button: Ronde's 302 to Eternaltwin's authorization URL."""
    r = client.post(reverse("etwin_start"), {"purpose": purpose, **data})
    assert r.status_code == 302, r.content[:500]
    return str(r["Location"])


def consent(provider: LocalEternaltwin, auth_url: str, uid: str, decision: str = "allow") -> str:
    """The player at Eternaltwin (signed in as ``uid``): the consent page, then its
    button; the callback URL Eternaltwin sends him back to (path and query)."""
    cookie = {"Cookie": f"sid={uid}"}
    page = requests.get(auth_url, headers=cookie, timeout=5)
    assert page.status_code == 200, page.text
    params = dict(parse_qsl(urlsplit(auth_url).query, keep_blank_values=True))
    answer = requests.post(
        f"{provider.url}/oauth/authorize",
        data={**{k: params.get(k, "") for k in AUTHORIZE_PARAMS}, "decision": decision},
        headers=cookie,
        allow_redirects=False,
        timeout=5,
    )
    assert answer.status_code == 302
    back = str(answer.headers["Location"])
    assert back.startswith(provider.callback)
    parts = urlsplit(back)
    return f"{parts.path}?{parts.query}"


def sign_in(
    client: Client, provider: LocalEternaltwin, uid: str, purpose: str = "login", **data: str
) -> Any:
    return client.get(consent(provider, begin(client, purpose, **data), uid))


def french_refusal(r: Any, status: int, *words: str, says_nothing_changed: bool = True) -> str:
    assert r.status_code == status, (r.status_code, r.content[:800])
    page = r.content.decode()
    assert 'role="alert"' in page and '<html lang="fr">' in page
    assert "Rien n" in page or not says_nothing_changed
    for w in words:
        assert w in page, (w, page)
    return page


def logged_in(client: Client) -> bool:
    return "_auth_user_id" in client.session


def second_game(slug: str, *pseudos: str) -> World:
    """Another started game whose roster has ``pseudos`` too (their seats free)."""
    from tests.conftest import SMALL_CAST

    for p in pseudos:  # make_world makes an account per pseudo: move the old ones aside
        User.objects.filter(username=p).update(username=f"{p}-autre-partie")
    cast = {(p if p in pseudos else f"Zo{p}"): c for p, c in SMALL_CAST.items()}
    other = make_world(slug=slug, cast=cast)
    free(other, *pseudos)
    return other


@pytest.fixture
def game(world: World) -> World:
    free(world, "Ana", "Bob", "Cid")
    return world


def confirm_all(world: World, gm: str = "Mj") -> Any:
    """What the MJ does: open the players page, click « Confirmer les … liaisons »."""
    c = Client()
    c.force_login(world.gms[gm])
    page = c.get(reverse("gm_players", args=[world.game.slug])).content.decode()
    checked = re.findall(r'name="claim" value="(\d+)" checked', page)
    return c.post(reverse("gm_etwin", args=[world.game.slug]), {"op": "confirm", "claim": checked})


# -- the documented protocol -------------------------------------------------------------------


def test_without_configuration_there_is_no_button(client: Client, settings: Any) -> None:
    settings.ETERNALTWIN_URL = settings.ETERNALTWIN_CLIENT_ID = ""
    settings.ETERNALTWIN_CLIENT_SECRET = ""
    assert not eternaltwin.enabled()
    page = client.get(reverse("login")).content.decode()
    assert "Eternaltwin" not in page
    assert client.post(reverse("etwin_start")).status_code == 404
    assert client.get(reverse("etwin_callback") + "?code=x&state=y").status_code == 404
    settings.ETERNALTWIN_URL = "http://127.0.0.1:9"
    settings.ETERNALTWIN_CLIENT_ID = "ronde@clients"
    assert not eternaltwin.enabled()  # no secret: still no button


def test_the_button_posts_and_the_authorize_url_is_the_documented_one(
    client: Client, eternaltwin: LocalEternaltwin
) -> None:
    page = client.get(reverse("login")).content.decode()
    assert "Se connecter avec Eternaltwin" in page
    form = re.search(
        r'<form method="post" action="/oauth/eternaltwin/"[^>]*>(.*?)</form>', page, re.S
    )
    assert form is not None and "csrfmiddlewaretoken" in form.group(1)
    # a single button and no text field (Eternaltwin's guidelines)
    assert all('type="hidden"' in i for i in re.findall(r"<input\b[^>]*>", form.group(1)))
    assert form.group(1).count("<button") == 1
    assert client.get(reverse("etwin_start")).status_code == 405  # a POST form only
    url = begin(client)
    parts = urlsplit(url)
    assert f"{parts.scheme}://{parts.netloc}{parts.path}" == f"{eternaltwin.url}/oauth/authorize"
    params = dict(parse_qsl(parts.query, keep_blank_values=True))
    assert params["access_type"] == "offline"
    assert params["response_type"] == "code"
    assert params["client_id"] == "ronde@clients"
    assert params["redirect_uri"] == "http://testserver/oauth/callback/"
    assert params["scope"] in ("", "base")
    assert len(params["state"]) >= 32
    assert set(params) <= {*AUTHORIZE_PARAMS}, "nothing undocumented (no PKCE, no nonce)"
    assert eternaltwin.check_authorize(params) is None
    # another start, another state
    assert dict(parse_qsl(urlsplit(begin(client)).query))["state"] != params["state"]


def test_first_sign_in_proposes_the_seat_and_one_click_confirms(
    client: Client, game: World, eternaltwin: LocalEternaltwin
) -> None:
    ana = eternaltwin.add_user("Ana")
    r = sign_in(client, eternaltwin, ana)
    assert r.status_code == 302 and r["Location"] == reverse("account")
    assert logged_in(client)
    # the token request: Basic with the key and the secret as they are, code and grant
    (req,) = eternaltwin.token_requests
    assert req["authorization"] == "Basic " + base64.b64encode(b"ronde@clients:dev_secret").decode()
    assert req["fields"]["grant_type"] == "authorization_code" and req["fields"]["code"]
    # the token read the user once, and is kept nowhere
    (token,) = eternaltwin.self_requests
    for s in Session.objects.all():
        assert token not in str(s.get_decoded())
    assert all(token not in repr(v) for v in rows().values())
    # the player sees, in French, that the MJs will confirm; his page is not open yet
    page = client.get(reverse("account")).content.decode()
    assert "les MJ de la partie vont confirmer que c'est bien vous" in page
    assert client.get(reverse("player", args=[game.game.slug])).status_code == 404
    link = EternaltwinLink.objects.get()
    assert link.etwin_id == uuid.UUID(ana) and link.display_name == "Ana"
    assert not link.user.has_usable_password()
    assert game.member("Ana").user is None
    (claim,) = SeatClaim.objects.all()
    assert claim.status == SeatClaim.PENDING and claim.membership == game.member("Ana")

    # Bob too; one click on the players page confirms both
    bob = eternaltwin.add_user("bob")  # case aside, as pseudos are compared
    sign_in(Client(), eternaltwin, bob)
    assert SeatClaim.objects.filter(status=SeatClaim.PENDING).count() == 2
    r = confirm_all(game)
    assert r.status_code == 302
    assert game.member("Ana").user == link.user
    assert game.member("Bob").user is not None
    assert not SeatClaim.objects.filter(status=SeatClaim.PENDING).exists()
    assert client.get(reverse("player", args=[game.game.slug])).status_code == 200
    # the seat's invitation link is of no use any more
    assert not Invitation.objects.filter(
        membership=game.member("Ana"), used_at__isnull=True, revoked_at__isnull=True
    ).exists()

    # next time: straight to his page
    again = Client()
    r = sign_in(again, eternaltwin, ana)
    assert r.status_code == 302 and r["Location"] == reverse("player", args=[game.game.slug])
    assert EternaltwinLink.objects.count() == 2 and User.objects.filter(pk=link.user.pk).exists()


def test_a_token_answer_without_the_fields_ronde_does_not_need(
    client: Client, game: World, eternaltwin: LocalEternaltwin
) -> None:
    eternaltwin.token_mode = "minimal"  # access_token alone
    r = sign_in(client, eternaltwin, eternaltwin.add_user("Ana"))
    assert r.status_code == 302 and logged_in(client)


def test_a_game_that_links_at_once(
    client: Client, game: World, eternaltwin: LocalEternaltwin
) -> None:
    game.game.etwin_auto = True
    game.game.save()
    r = sign_in(client, eternaltwin, eternaltwin.add_user("Cid"))
    assert r.status_code == 302 and r["Location"] == reverse("player", args=[game.game.slug])
    assert client.get(r["Location"]).status_code == 200


def test_a_player_in_two_games_each_confirmed_by_its_own_mjs(
    client: Client, game: World, eternaltwin: LocalEternaltwin
) -> None:
    other = second_game("autre-ronde", "Ana")
    ana = eternaltwin.add_user("ANA")
    sign_in(client, eternaltwin, ana)
    assert SeatClaim.objects.filter(status=SeatClaim.PENDING).count() == 2
    confirm_all(game)
    assert game.member("Ana").user is not None and other.member("Ana").user is None
    assert client.get(reverse("player", args=[game.game.slug])).status_code == 200
    assert client.get(reverse("player", args=[other.game.slug])).status_code == 404
    confirm_all(other)
    assert other.member("Ana").user == game.member("Ana").user


def test_a_player_with_his_invitation_confirms_it_himself(
    client: Client, game: World, eternaltwin: LocalEternaltwin
) -> None:
    sign_in(client, eternaltwin, eternaltwin.add_user("Ana"))
    inv = Invitation.objects.get(membership=game.member("Ana"), used_at__isnull=True)
    url = reverse("invitation", args=[inv.token])
    assert "Rejoindre la partie avec ce compte" in client.get(url).content.decode()
    assert client.post(url).status_code == 302
    assert SeatClaim.objects.get().status == SeatClaim.CONFIRMED
    assert client.get(reverse("player", args=[game.game.slug])).status_code == 200


def test_an_invitation_taken_with_eternaltwin(
    client: Client, game: World, eternaltwin: LocalEternaltwin
) -> None:
    inv = Invitation.objects.get(membership=game.member("Bob"), used_at__isnull=True)
    page = client.get(reverse("invitation", args=[inv.token])).content.decode()
    assert "Rejoindre avec Eternaltwin" in page
    uid = eternaltwin.add_user("Robert")  # the invitation proves the seat, whatever the name
    r = sign_in(client, eternaltwin, uid, "invite", invitation=inv.token)
    assert r.status_code == 302 and r["Location"] == reverse("player", args=[game.game.slug])
    assert game.member("Bob").user == EternaltwinLink.objects.get(etwin_id=uid).user
    # used once: another Eternaltwin account with the same link is refused, nothing changed
    before = rows()
    r = Client().post(reverse("etwin_start"), {"purpose": "invite", "invitation": inv.token})
    french_refusal(r, 410, "déjà servi", says_nothing_changed=False)
    assert rows() == before


def test_a_deactivated_account_takes_no_seat_with_an_invitation(
    client: Client, game: World, eternaltwin: LocalEternaltwin
) -> None:
    """An Eternaltwin account already linked to a deactivated Ronde account: signing in
    is refused (403), and so is an invitation taken with it; nothing changes."""
    uid = eternaltwin.add_user("Robert")
    inv = Invitation.objects.get(membership=game.member("Bob"), used_at__isnull=True)
    assert sign_in(client, eternaltwin, uid, "invite", invitation=inv.token).status_code == 302
    linked = EternaltwinLink.objects.get(etwin_id=uid).user
    type(linked).objects.filter(pk=linked.pk).update(is_active=False)
    other = Invitation.objects.get(membership=game.member("Cid"), used_at__isnull=True)
    before = rows()
    fresh = Client()
    r = sign_in(fresh, eternaltwin, uid, "invite", invitation=other.token)
    french_refusal(r, 403, "désactivé")
    assert rows() == before and not logged_in(fresh)


def test_eternaltwin_only_games_refuse_passwords_on_player_invitations(
    client: Client, game: World, eternaltwin: LocalEternaltwin
) -> None:
    game.game.etwin_only = True
    game.game.save()
    inv = Invitation.objects.get(membership=game.member("Cid"), used_at__isnull=True)
    url = reverse("invitation", args=[inv.token])
    page = client.get(url).content.decode()
    assert "Rejoindre avec Eternaltwin" in page and "password1" not in page
    before = rows()
    r = client.post(
        url, {"username": "Cid", "password1": "Un-mot-2-passe", "password2": "Un-mot-2-passe"}
    )
    french_refusal(r, 403, "Eternaltwin seulement")
    # a logged-in account without Eternaltwin neither
    c = Client()
    c.force_login(game.users["Cid"])
    french_refusal(c.post(url), 403, "Eternaltwin seulement")
    assert rows() == before
    r = sign_in(client, eternaltwin, eternaltwin.add_user("Cid"), "invite", invitation=inv.token)
    assert r.status_code == 302 and game.member("Cid").user is not None


# -- attackers -----------------------------------------------------------------------------


def test_an_imitated_display_name_never_gets_the_seat(
    client: Client, game: World, eternaltwin: LocalEternaltwin
) -> None:
    sign_in(client, eternaltwin, eternaltwin.add_user("Ana"))
    # while Ana's link waits for the MJs, and after they confirmed it
    for _round in ("pending", "confirmed"):
        for name in ("Ana", "ana", " ANA "):
            before = rows()
            c = Client()
            r = sign_in(c, eternaltwin, eternaltwin.add_user(name))
            french_refusal(r, 409, "autre compte Eternaltwin", "Ana")
            assert rows() == before and not logged_in(c)
        confirm_all(game)
    assert game.member("Ana").user == EternaltwinLink.objects.get().user


def test_the_pseudo_of_an_account_without_eternaltwin_is_refused(
    client: Client, game: World, eternaltwin: LocalEternaltwin
) -> None:
    """Dan accepted his invitation with a password: someone named Dan on Eternaltwin does
    not get his account, nor his seat."""
    before = rows()
    r = sign_in(client, eternaltwin, eternaltwin.add_user("Dan"))
    french_refusal(r, 409, "Dan", "mot de passe")
    assert rows() == before and not logged_in(client)


def test_a_name_in_no_roster_creates_nothing(
    client: Client, game: World, eternaltwin: LocalEternaltwin
) -> None:
    before = rows()
    r = sign_in(client, eternaltwin, eternaltwin.add_user("Zoé"))
    french_refusal(r, 403, "Zoé")
    assert rows() == before and not logged_in(client)


def test_a_forged_state_is_refused_before_any_token_request(
    client: Client, game: World, eternaltwin: LocalEternaltwin
) -> None:
    callback = consent(eternaltwin, begin(client), eternaltwin.add_user("Ana"))
    params = dict(parse_qsl(urlsplit(callback).query))
    state = params["state"]
    forged = [
        state[:-2] + ("AA" if not state.endswith("AA") else "BB"),
        "x" + state,
        "",
        "eyJhbGciOiJIUzI1NiJ9.e30.abc",
    ]
    before = rows()
    for s in forged:
        r = client.get(reverse("etwin_callback"), {"code": params["code"], "state": s})
        french_refusal(r, 400, "Connexion Eternaltwin interrompue")
    assert eternaltwin.token_requests == []
    assert rows() == before and not logged_in(client)
    # the genuine one still works once
    assert client.get(callback).status_code == 302 and logged_in(client)


def test_a_replayed_callback_or_code_is_refused(
    client: Client, game: World, eternaltwin: LocalEternaltwin
) -> None:
    ana = eternaltwin.add_user("Ana")
    callback = consent(eternaltwin, begin(client), ana)
    assert client.get(callback).status_code == 302
    before = rows()
    # the same callback again: its state served once
    french_refusal(client.get(callback), 400, "interrompue")
    assert len(eternaltwin.token_requests) == 1
    # the old code with a fresh state of this session: Eternaltwin refuses the code
    fresh = dict(parse_qsl(urlsplit(begin(client)).query))["state"]
    code = dict(parse_qsl(urlsplit(callback).query))["code"]
    r = client.get(reverse("etwin_callback"), {"code": code, "state": fresh})
    french_refusal(r, 502, "refusé ce code")
    assert rows() == before


def test_login_csrf_another_browsers_callback_is_refused(
    game: World, eternaltwin: LocalEternaltwin
) -> None:
    """The attacker gets a callback URL for his own Eternaltwin account and makes the
    victim's browser open it: the victim's session started no such sign-in."""
    attacker, victim = Client(), Client()
    sign_in(attacker, eternaltwin, eternaltwin.add_user("Ana"))  # his own account exists
    trap = consent(eternaltwin, begin(attacker), next(iter(eternaltwin.users)))
    victim.get(reverse("login"))
    before = rows()
    french_refusal(victim.get(trap), 400, "interrompue")
    assert not logged_in(victim) and rows() == before
    # and the button itself needs the page's CSRF token
    strict = Client(enforce_csrf_checks=True)
    assert strict.post(reverse("etwin_start"), {"purpose": "login"}).status_code == 403


@pytest.mark.parametrize(
    ("endpoint", "mode", "status"),
    [
        ("token", "error", 502),
        ("token", "server_error", 502),
        ("token", "garbage", 502),
        ("token", "hang", 502),
        ("self", "server_error", 502),
        ("self", "garbage", 502),
        ("self", "hang", 502),
        ("self", "guest", 502),
    ],
)
def test_a_provider_that_errs_or_answers_nothing(
    client: Client,
    game: World,
    eternaltwin: LocalEternaltwin,
    endpoint: str,
    mode: str,
    status: int,
) -> None:
    callback = consent(eternaltwin, begin(client), eternaltwin.add_user("Ana"))
    setattr(eternaltwin, f"{endpoint}_mode", mode)
    before = rows()
    r = client.get(callback)
    assert r.status_code == status
    assert "Eternaltwin" in r.content.decode() and "Rien n" in r.content.decode()
    eternaltwin.release()
    assert rows() == before and not logged_in(client)
    # the state was used, even though the answer was an error (5xx: Django saves no
    # session by itself): the same callback, Eternaltwin well again, is refused
    setattr(eternaltwin, f"{endpoint}_mode", "ok")
    asked = len(eternaltwin.token_requests)
    french_refusal(client.get(callback), 400, "interrompue")
    assert len(eternaltwin.token_requests) == asked
    assert rows() == before and not logged_in(client)


def test_a_provider_that_is_down(
    client: Client, game: World, eternaltwin: LocalEternaltwin
) -> None:
    callback = consent(eternaltwin, begin(client), eternaltwin.add_user("Ana"))
    eternaltwin.stop()
    before = rows()
    french_refusal(client.get(callback), 502, "ne répond pas")
    assert rows() == before and not logged_in(client)


def test_a_refusal_at_eternaltwin(
    client: Client, game: World, eternaltwin: LocalEternaltwin
) -> None:
    before = rows()
    r = client.get(consent(eternaltwin, begin(client), eternaltwin.add_user("Ana"), "deny"))
    french_refusal(r, 403, "annulée")
    assert eternaltwin.token_requests == [] and rows() == before


@pytest.mark.parametrize(
    "target",
    ["https://evil.example/", "//evil.example/x", "http://testserver.evil/", "javascript:alert(1)"],
)
def test_next_never_leaves_the_site(
    client: Client, game: World, eternaltwin: LocalEternaltwin, target: str
) -> None:
    ana = eternaltwin.add_user("Ana")
    sign_in(Client(), eternaltwin, ana)
    confirm_all(game)
    r = sign_in(client, eternaltwin, ana, next=target)
    assert r.status_code == 302 and r["Location"] == reverse("player", args=[game.game.slug])
    # a page of the site is followed
    r = sign_in(Client(), eternaltwin, ana, next="/partie/ronde-test/")
    assert r["Location"] == "/partie/ronde-test/"


def test_mjs_refuse_a_link_and_it_is_not_proposed_again(
    client: Client, game: World, eternaltwin: LocalEternaltwin
) -> None:
    ana = eternaltwin.add_user("Ana")
    sign_in(client, eternaltwin, ana)
    claim = SeatClaim.objects.get()
    mj = Client()
    mj.force_login(game.gms["Mj"])
    r = mj.post(reverse("gm_etwin", args=[game.game.slug]), {"refuse": claim.pk})
    assert r.status_code == 302
    claim.refresh_from_db()
    assert claim.status == SeatClaim.REFUSED and game.member("Ana").user is None
    sign_in(Client(), eternaltwin, ana)
    assert SeatClaim.objects.count() == 1
    assert "refusée par les MJ" in client.get(reverse("account")).content.decode()


# -- an account: password and Eternaltwin, link and unlink --------------------------------


def test_link_unlink_and_the_last_way_in(
    client: Client, game: World, eternaltwin: LocalEternaltwin
) -> None:
    # Dan (a password account) links his Eternaltwin account from « Mon compte »
    client.force_login(game.users["Dan"])
    dan = eternaltwin.add_user("Dan")
    r = sign_in(client, eternaltwin, dan, "link")
    assert r.status_code == 302
    assert EternaltwinLink.objects.get(etwin_id=dan).user == game.users["Dan"]
    # now « Se connecter avec Eternaltwin » is his account, password kept
    other = Client()
    r = sign_in(other, eternaltwin, dan)
    assert r["Location"] == reverse("player", args=[game.game.slug])
    assert other.session["_auth_user_id"] == str(game.users["Dan"].pk)
    assert User.objects.get(pk=game.users["Dan"].pk).check_password("motdepasse-joueur")
    # the same Eternaltwin account cannot be linked to a second Ronde account
    eve = Client()
    eve.force_login(game.users["Eve"])
    before = rows()
    french_refusal(sign_in(eve, eternaltwin, dan, "link"), 409, "déjà lié")
    assert rows() == before
    # Dan unlinks (he has a password)
    assert client.post(reverse("account"), {"op": "unlink"}).status_code == 302
    assert not EternaltwinLink.objects.filter(unlinked_at__isnull=True).exists()
    # an unlinked account is no longer reachable with Eternaltwin
    before = rows()
    french_refusal(sign_in(Client(), eternaltwin, dan), 409, "mot de passe")
    assert rows() == before


def test_an_eternaltwin_account_without_password_cannot_unlink_until_it_has_one(
    client: Client, game: World, eternaltwin: LocalEternaltwin
) -> None:
    game.game.etwin_auto = True
    game.game.save()
    sign_in(client, eternaltwin, eternaltwin.add_user("Ana"))
    before = rows()
    r = client.post(reverse("account"), {"op": "unlink"}, follow=True)
    assert (
        "Choisissez d'abord un mot de passe" in r.content.decode()
        or "mot de passe" in r.content.decode()
    )
    assert rows() == before
    r = client.post(
        reverse("account"),
        {
            "op": "password",
            "new_password1": "Un-long-secret-42",
            "new_password2": "Un-long-secret-42",
        },
    )
    assert r.status_code == 302
    assert client.post(reverse("account"), {"op": "unlink"}).status_code == 302
    user = game.member("Ana").user
    assert user is not None and user.check_password("Un-long-secret-42")
    assert not EternaltwinLink.objects.filter(unlinked_at__isnull=True).exists()
    # he logs in with his password, and his seat is still his
    c = Client()
    assert c.login(username=user.username, password="Un-long-secret-42")
    assert c.get(reverse("player", args=[game.game.slug])).status_code == 200


def test_the_account_page_is_french_and_private(client: Client, game: World) -> None:
    assert client.get(reverse("account")).status_code == 302  # to the login page
    client.force_login(game.users["Eve"])
    r = client.get(reverse("account"))
    assert r.status_code == 200 and "no-store" in r["Cache-Control"]
    page = r.content.decode()
    assert "Mon compte" in page and "Changer de mot de passe" in page


def test_membership_rows_are_untouched_by_an_unknown_claim_id(
    game: World, eternaltwin: LocalEternaltwin
) -> None:
    sign_in(Client(), eternaltwin, eternaltwin.add_user("Ana"))
    other = make_world(slug="ronde-c", cast={f"Zo{p}": c for p, c in game.game.cast.items()})
    claim = SeatClaim.objects.get()
    mj = Client()
    mj.force_login(other.gms["Mj"])
    before = rows()
    # B's masters naming A's claim on B's page: nothing
    assert mj.post(reverse("gm_etwin", args=["ronde-c"]), {"refuse": claim.pk}).status_code in (
        404,
    )
    mj.post(reverse("gm_etwin", args=["ronde-c"]), {"op": "confirm", "claim": [claim.pk]})
    assert SeatClaim.objects.get().status == SeatClaim.PENDING
    assert Membership.objects.get(pk=claim.membership_id).user is None
    assert rows()["SeatClaim"] == before["SeatClaim"]


# -- the seats a display name proposes: a few queries, not one per seat -------------------------


def test_the_seats_a_name_proposes_are_sorted_in_the_same_queries_whatever_their_number(
    world: World,
) -> None:
    """Ana's seats in five games, each in another state: sorting them costs what sorting
    two does (it once ran a query or more per seat)."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from ronde.web.games import etwin_links, service
    from tests.conftest import SMALL_CAST

    def another(slug: str) -> World:
        """Another started game with a free seat « Ana » (other seats named anew)."""
        User.objects.filter(username="Ana").update(username=f"Ana-avant-{slug}")
        cast = {(p if p == "Ana" else f"{p}-{slug}"): c for p, c in SMALL_CAST.items()}
        other = make_world(slug=slug, cast=cast)
        free(other, "Ana")
        return other

    identity = eternaltwin.Identity(uuid.uuid4(), "Ana")
    user = User.objects.create_user("quelqu-un")
    now = service.now()

    def sort() -> tuple[int, dict[str, list[str]]]:
        with CaptureQueriesContext(connection) as queries:
            seats = etwin_links._sort(identity, user)
        named = {
            kind: sorted(m.game.slug for m in getattr(seats, kind))
            for kind in ("free", "other_id", "unlinked")
        }
        return len(queries), named

    another("libre")  # (the world's Ana keeps her account, without Eternaltwin)
    few, named = sort()
    assert named == {"free": ["libre"], "other_id": [], "unlinked": ["ronde-test"]}
    claimed = another("reclamee")
    SeatClaim.objects.create(
        game=claimed.game,
        membership=claimed.member("Ana"),
        user=User.objects.create_user("autre"),
        etwin_id=uuid.uuid4(),
        display_name="Ana",
        created_at=now,
    )
    linked = another("liee")
    holder = User.objects.create_user("tenante")
    Membership.objects.filter(pk=linked.member("Ana").pk).update(user=holder)
    EternaltwinLink.objects.create(
        user=holder, etwin_id=uuid.uuid4(), display_name="Ana", linked_at=now, seen_at=now
    )
    refused = another("refusee")
    SeatClaim.objects.create(
        game=refused.game,
        membership=refused.member("Ana"),
        user=user,
        etwin_id=identity.id,
        display_name="Ana",
        created_at=now,
        status=SeatClaim.REFUSED,
    )
    playing = another("jouee")
    Membership.objects.filter(pk=playing.member("Bob-jouee").pk).update(user=user)
    another("libre-aussi")
    many, named = sort()
    assert named == {
        "free": ["libre", "libre-aussi"],
        "other_id": ["liee", "reclamee"],
        "unlinked": ["ronde-test"],
    }
    assert many == few
