"""Accounts you can trust (issue 9): tried as an attacker would.

An organiser cannot take an existing account through a roster, a game-master list, a
replacement or "Nouveau lien"; invitations are single-use (8 simultaneous accepts: one
wins), expire and are revoked; failed logins are throttled; a pseudo logs in whatever
its case; a re-submitted form records once; user text is never altered on screen.
"""

from __future__ import annotations

import html
import re
import threading
from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.test import Client
from django.urls import reverse

from ronde.web.games import accounts, service
from ronde.web.games.models import Action, Game, GameMaster, Invitation, Membership

from .conftest import World, gm_client, make_world

TOKEN = re.compile(r'name="form_token" value="([^"]+)"')


def text(r: Any) -> str:
    return html.unescape(r.content.decode())


def links(page: str) -> list[str]:
    return re.findall(r"/invitation/([A-Za-z0-9_-]+)/", page)


# -- the attacker: an organiser names existing accounts ---------------------------------


@pytest.mark.django_db
def test_no_roster_gm_list_or_replacement_gives_an_existing_account(
    world: World, clock: Any
) -> None:
    User = get_user_model()
    root = User.objects.create_superuser("root", password="racine-secrete-42")
    victims = {"root": "racine-secrete-42", "Mj": "motdepasse-mj", "Mj2": "motdepasse-mj"}
    victims |= {p: "motdepasse-joueur" for p in ("Ana", "Bob", "Cid", "Dan")}
    hashes = {name: User.objects.get(username=name).password for name in victims}
    mallory = User.objects.create_user("Mallory", password="mallory-secret-42")
    mallory.user_permissions.add(accounts.organise_permission())
    attacker = Client()
    attacker.force_login(mallory)

    r = attacker.post(reverse("gm_home"), {"name": "Piège", "start": "2026-12-01"})
    assert r.status_code == 302
    game = Game.objects.get(name="Piège")
    setup = reverse("gm_setup", args=[game.slug])
    # the roster, the game-master list and the replacement name existing accounts
    roster = "root\nANA\nmj2\nEve\nFay\nGus\nHal\nIda\nJo\nKim"
    attacker.post(setup, {"op": "roster", "roster": roster})
    for name in ("Mj", "bob", "Cid"):
        attacker.post(setup, {"op": "add_gm", "name": name})
    attacker.post(setup, {"op": "draw"})
    r = attacker.post(setup, {"op": "start"})
    assert r.status_code == 302, text(r)
    clock("J2 09:00")
    r = attacker.post(
        reverse("gm_action", args=[game.slug, "replace_player"]), {"player": "Eve", "new": "Dan"}
    )
    assert r.status_code == 302, text(r)
    players = reverse("gm_players", args=[game.slug])
    for m in game.memberships.filter(revoked_at__isnull=True):
        attacker.post(players, {"op": "invite", "member": m.pk})
    for gm in GameMaster.objects.filter(game=game).exclude(user=mallory):
        attacker.post(players, {"op": "invite_gm", "gm": gm.pk})

    # every link the attacker can read: none of them is tied to an existing account
    page = text(attacker.get(players))
    tokens = links(page)
    assert len(tokens) == game.memberships.filter(revoked_at__isnull=True).count() + 3
    for token in tokens:
        visitor = Client()
        form = text(visitor.get(reverse("invitation", args=[token])))
        assert "Créez votre compte" in form
        for name in victims:
            for variant in (name, name.upper(), name.lower()):
                r = visitor.post(
                    reverse("invitation", args=[token]),
                    {
                        "username": variant,
                        "password1": "pris-en-otage-42",
                        "password2": "pris-en-otage-42",
                    },
                )
                assert r.status_code == 200  # "this user name exists": nothing happens
    # no seat of the attacker's game is tied to a victim, no password changed
    victim_ids = set(User.objects.filter(username__in=victims).values_list("pk", flat=True))
    assert not Membership.objects.filter(game=game, user_id__in=victim_ids).exists()
    assert not GameMaster.objects.filter(game=game, user_id__in=victim_ids).exists()
    for name, password in victims.items():
        user = User.objects.get(username=name)
        assert user.password == hashes[name]
        assert Client().login(username=name, password=password), name
    assert Client().login(username="root", password="racine-secrete-42")
    assert root.is_superuser


@pytest.mark.django_db
def test_only_organisers_create_games(client: Client, world: World) -> None:
    user = get_user_model().objects.create_user("Curieux", password="curieux-secret-42")
    client.force_login(user)
    page = text(client.get(reverse("gm_home")))
    assert "Nouvelle partie" not in page and "droit d'organiser" in page
    r = client.post(reverse("gm_home"), {"name": "Intrus", "start": "2026-12-01"})
    assert r.status_code == 403
    assert not Game.objects.filter(name="Intrus").exists()


@pytest.mark.django_db
def test_a_logged_in_user_accepts_onto_his_own_account(client: Client, world: World) -> None:
    User = get_user_model()
    user = User.objects.create_user("Vieux", password="vieux-secret-42")
    before = user.password
    seat = accounts.add_player(world.game, "Nouveau")
    inv = seat.invitations.get()
    client.force_login(user)
    page = text(client.get(reverse("invitation", args=[inv.token])))
    assert "Rejoindre la partie avec ce compte" in page and "id_password1" not in page
    r = client.post(reverse("invitation", args=[inv.token]))
    assert r.status_code == 302 and r["Location"] == reverse("player", args=[world.game.slug])
    seat.refresh_from_db()
    user.refresh_from_db()
    assert seat.user == user and user.password == before


@pytest.mark.django_db
def test_a_player_cannot_take_a_second_seat(client: Client, world: World) -> None:
    inv = accounts.add_player(world.game, "Nouveau").invitations.get()
    client.force_login(world.users["Ana"])
    r = client.post(reverse("invitation", args=[inv.token]))
    assert r.status_code == 409 and "déjà une place" in text(r)
    inv.refresh_from_db()
    assert inv.used_at is None


# -- invitations: single use, expiry, revocation ----------------------------------------


@pytest.mark.django_db(transaction=True)
def test_eight_simultaneous_accepts_one_wins(clock: Any) -> None:
    service.clear_cache()
    world = make_world(slug="huit")
    seat = accounts.add_player(world.game, "Convoité")
    inv = seat.invitations.get()
    url = reverse("invitation", args=[inv.token])
    User = get_user_model()
    clients = []
    for i in range(8):
        c = Client()
        if i % 2:  # half of them logged in with an account of their own
            c.force_login(User.objects.create_user(f"Compte{i}", password="compte-secret-42"))
        clients.append(c)
    users_before = User.objects.count()
    barrier = threading.Barrier(8)
    statuses = [0] * 8
    errors: list[BaseException] = []

    def worker(i: int) -> None:
        try:
            data = {}
            if not i % 2:
                data = {
                    "username": f"Visiteur{i}",
                    "password1": "un-secret-42!",
                    "password2": "un-secret-42!",
                }
            barrier.wait(timeout=30)
            statuses[i] = clients[i].post(url, data).status_code
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not errors, errors
    assert sorted(statuses) == [302] + [410] * 7, statuses
    seat.refresh_from_db()
    inv.refresh_from_db()
    assert seat.user is not None and inv.accepted_by == seat.user and inv.used_at is not None
    winner = statuses.index(302)
    # a losing visitor leaves no account behind
    assert User.objects.count() == users_before + (0 if winner % 2 else 1)
    assert Membership.objects.filter(game=world.game, user=seat.user).count() == 1


@pytest.mark.django_db
def test_expired_revoked_and_unknown_invitations_answer_in_french(
    client: Client, world: World, clock: Any
) -> None:
    seat = accounts.add_player(world.game, "Nouveau")
    first = seat.invitations.get()
    second = accounts.invite(world.game, seat)  # a new link revokes the first
    r = client.get(reverse("invitation", args=[first.token]))
    assert r.status_code == 410 and "Invitation annulée" in text(r) and "plus valable" in text(r)
    assert client.get(reverse("invitation", args=[second.token])).status_code == 200
    clock("J1 09:00")
    service.set_clock(second.expires_at + timedelta(minutes=1))
    r = client.get(reverse("invitation", args=[second.token]))
    assert r.status_code == 410 and "Invitation expirée" in text(r) and "14 jours" in text(r)
    r = client.post(
        reverse("invitation", args=[second.token]),
        {"username": "Tardif", "password1": "un-secret-42!", "password2": "un-secret-42!"},
    )
    assert r.status_code == 410 and not get_user_model().objects.filter(username="Tardif").exists()
    r = client.get(reverse("invitation", args=["nimporte-quoi-123"]))
    assert r.status_code == 404 and "Lien d'invitation inconnu" in text(r)


@pytest.mark.django_db
def test_invitation_days_is_a_setting(world: World, settings: Any) -> None:
    settings.INVITATION_DAYS = 3
    inv = accounts.add_player(world.game, "Nouveau").invitations.get()
    assert inv.expires_at - service.now() == timedelta(days=3)


@pytest.mark.django_db
def test_replacing_a_seat_revokes_its_invitation(client: Client, world: World, clock: Any) -> None:
    seat = accounts.add_player(world.game, "Nouveau")
    inv = seat.invitations.get()
    accounts.replaced(world.game, "Nouveau", "Remplaçant")
    r = client.get(reverse("invitation", args=[inv.token]))
    assert r.status_code == 410 and "Invitation annulée" in text(r)
    assert Invitation.objects.get(pk=inv.pk).revoked_at is not None


# -- logins ------------------------------------------------------------------------------


def login(client: Client, username: str, password: str, **extra: Any) -> Any:
    return client.post(reverse("login"), {"username": username, "password": password}, **extra)


@pytest.mark.django_db
def test_login_is_throttled_per_pseudo(world: World) -> None:
    from axes.utils import reset

    for i in range(10):
        name = ("ana", "ANA", "Ana", "aNa")[i % 4]  # its case does not reset the count
        r = login(Client(), name, f"mauvais-{i}")
        assert r.status_code == (200 if i < 9 else 429)  # the 10th failure locks
    r = login(Client(), "Ana", "motdepasse-joueur")  # the right password, too late
    assert r.status_code == 429
    page = text(r)
    assert "Trop d'essais" in page and re.search(r"Réessayez à \d\d:\d\d", page)
    # another pseudo is not locked
    assert login(Client(), "Bob", "motdepasse-joueur").status_code == 302
    reset(username=accounts.fold_username("Ana"))
    assert login(Client(), "Ana", "motdepasse-joueur").status_code == 302


@pytest.mark.django_db
def test_nine_failures_then_the_right_password(world: World) -> None:
    for i in range(9):
        login(Client(), "Ana", f"mauvais-{i}")
    assert login(Client(), "Ana", "motdepasse-joueur").status_code == 302


@pytest.mark.django_db
def test_login_ignores_case_and_lands_on_the_game(world: World) -> None:
    for name in ("ana", "ANA", " Ana "):
        r = login(Client(), name.strip(), "motdepasse-joueur")
        assert r.status_code == 302 and r["Location"] == reverse("player", args=[world.game.slug])
    r = login(Client(), "mj", "motdepasse-mj")
    assert r["Location"] == reverse("gm_dashboard", args=[world.game.slug])
    r = login(Client(), "ana", "MOTDEPASSE-JOUEUR")
    assert r.status_code == 200 and "incorrect" in text(r)


@pytest.mark.django_db
def test_login_without_accents_when_unambiguous(world: World) -> None:
    User = get_user_model()
    User.objects.create_user("Élodie", password="elodie-secret-42")
    assert login(Client(), "elodie", "elodie-secret-42").status_code == 302
    assert login(Client(), "ÉLODIE", "elodie-secret-42").status_code == 302
    User.objects.create_user("Elodie", password="autre-secret-42")
    # two accounts fold alike: only the exact (case-insensitive) one
    assert login(Client(), "elodie", "elodie-secret-42").status_code == 200
    assert login(Client(), "elodie", "autre-secret-42").status_code == 302


# -- one-time form tokens -----------------------------------------------------------------


def _forms(page: str) -> list[str]:
    return re.findall(r"<form\b[^>]*method=\"post\"[^>]*>.*?</form>", page, re.S | re.I)


@pytest.mark.django_db
def test_every_post_form_carries_its_own_token(client: Client, world: World, clock: Any) -> None:
    clock("J2 10:00")
    slug = world.game.slug
    gm = gm_client(Client(), world)
    player = Client()
    player.force_login(world.users["Ana"])
    pages = [
        (gm, reverse("gm_dashboard", args=[slug])),
        (gm, reverse("gm_actions", args=[slug])),
        (gm, reverse("gm_action", args=[slug, "complain"])),
        (gm, reverse("gm_players", args=[slug])),
        (gm, reverse("gm_journal", args=[slug])),
        (gm, reverse("gm_home")),
        (player, reverse("player", args=[slug])),
        (player, reverse("home")),
        (Client(), reverse("login")),
        (Client(), reverse("public", args=[slug])),
    ]
    seen: set[str] = set()
    total = 0
    for c, url in pages:
        page = c.get(url).content.decode()
        forms = _forms(page)
        for form in forms:
            tokens = TOKEN.findall(form)
            assert len(tokens) == 1, (url, form[:200])
            assert tokens[0] not in seen
            seen.add(tokens[0])
        total += len(forms)
    assert total > 20


def _token(c: Client, url: str) -> str:
    page = c.get(url).content.decode()
    return TOKEN.findall(page)[0]


@pytest.mark.django_db
def test_a_resubmitted_form_records_once(world: World, clock: Any) -> None:
    clock("J2 10:00")
    slug = world.game.slug
    gm = gm_client(Client(), world)
    url = reverse("gm_action", args=[slug, "open_trial"])
    token = _token(gm, url)
    data = {
        "by": "Ana",
        "against": "Bob",
        "as": "woody",
        "at": service.now().isoformat(),
        "form_token": token,
    }
    first = gm.post(url, data)
    assert first.status_code == 302
    again = gm.post(url, data)  # the network failed; the browser posts it again
    assert again.status_code == 302 and again["Location"] == first["Location"]
    assert Action.objects.filter(game=world.game, action="open_trial").count() == 1
    follow = text(gm.get(again["Location"]))
    assert "Ce formulaire avait déjà été envoyé : rien de plus n'a été enregistré." in follow
    # a new form (new token) records again
    clock("J2 11:00")
    data = {
        "by": "Hal",
        "trial": "1",
        "at": service.now().isoformat(),
        "form_token": _token(gm, url),
    }
    assert gm.post(reverse("gm_action", args=[slug, "complain"]), data).status_code == 302
    assert gm.post(reverse("gm_action", args=[slug, "complain"]), data).status_code == 302
    assert Action.objects.filter(game=world.game, action="complain").count() == 1
    # the same page brought back by the back button and filled anew is a new submission
    data["by"] = "Gus"
    assert gm.post(reverse("gm_action", args=[slug, "complain"]), data).status_code == 302
    assert Action.objects.filter(game=world.game, action="complain").count() == 2


@pytest.mark.django_db
def test_logging_in_again_is_not_a_duplicate(world: World) -> None:
    c = Client()
    data = {
        "username": "Ana",
        "password": "motdepasse-joueur",
        "form_token": _token(c, reverse("login")),
    }
    assert c.post(reverse("login"), data).status_code == 302
    c.post(reverse("logout"))
    assert c.post(reverse("login"), data).status_code == 302
    assert c.get(reverse("player", args=[world.game.slug])).status_code == 200


WRITES = [
    (
        "player_request",
        "player",
        lambda s: reverse("player_request", args=[s, "complain"]),
        {"trial": "1"},
    ),
    (
        "gm_players",
        "gm",
        lambda s: reverse("gm_players", args=[s]),
        {"op": "invite", "member": "SEAT"},
    ),
    (
        "gm_action",
        "gm",
        lambda s: reverse("gm_action", args=[s, "award"]),
        {"player": "Cid", "points": "1", "reason": "x"},
    ),
]


@pytest.mark.django_db
@pytest.mark.parametrize(("name", "who", "url", "data"), WRITES, ids=[w[0] for w in WRITES])
def test_every_kind_of_write_records_once(
    world: World, clock: Any, name: str, who: str, url: Any, data: dict[str, str]
) -> None:
    from ronde.web.games.models import Event, Request

    clock("J2 10:00")
    slug = world.game.slug
    gm = gm_client(Client(), world)
    assert (
        gm.post(
            reverse("gm_action", args=[slug, "open_trial"]),
            {"by": "Ana", "against": "Bob", "as": "woody", "at": service.now().isoformat()},
        ).status_code
        == 302
    )
    clock("J2 11:00")
    c = gm
    if who == "player":
        c = Client()
        c.force_login(world.users["Dan"])  # (Halus: an anonymous complaint, R5.6)
    seat = accounts.add_player(world.game, "Nouveau")
    data = {k: (str(seat.pk) if v == "SEAT" else v) for k, v in data.items()}
    target = url(slug)
    data["form_token"] = "jeton-unique-de-test-0001"

    def state() -> tuple[int, int, int, int]:
        return (
            Event.objects.filter(game=world.game).count(),
            Action.objects.filter(game=world.game).count(),
            Request.objects.filter(game=world.game).count(),
            Invitation.objects.filter(game=world.game).count(),
        )

    before = state()
    first = c.post(target, data)
    assert first.status_code == 302, text(first)
    after = state()
    assert after != before
    again = c.post(target, data)
    assert again.status_code == 302 and again["Location"] == first["Location"]
    assert state() == after


@pytest.mark.django_db
def test_a_refused_form_may_be_posted_again(world: World, clock: Any) -> None:
    clock("J2 10:00")
    gm = gm_client(Client(), world)
    url = reverse("gm_action", args=[world.game.slug, "complain"])
    data = {"by": "Hal", "trial": "9", "form_token": "jeton-refuse-0000001"}
    assert gm.post(url, data).status_code == 400
    assert gm.post(url, data).status_code == 400  # refused again, not "already sent"


@pytest.mark.django_db
def test_a_request_refused_then_sent_again_is_refused_again_not_already_sent(
    world: World, clock: Any
) -> None:
    """A refusal answered by a redirect (an error note) recorded nothing: the same form
    posted again is a new try, refused again, never "already sent"; a request sent
    and posted again is "already sent" and recorded once."""
    from ronde.web.games.models import Request

    clock("J2 10:00")
    hal = Client()
    hal.force_login(world.users["Dan"])  # (Halus: an anonymous complaint, R5.6)
    url = reverse("player_request", args=[world.game.slug, "complain"])
    refused = {"trial": "99", "form_token": "jeton-demande-refusee1"}
    for _ in range(2):
        page = hal.post(url, refused, follow=True).content.decode()
        assert "déjà été envoyé" not in page
        assert '<li class="error">' in page  # the refusal, shown again
    assert not Request.objects.filter(game=world.game).exists()
    gm = gm_client(Client(), world)
    gm.post(
        reverse("gm_action", args=[world.game.slug, "open_trial"]),
        {"by": "Ana", "against": "Bob", "as": "woody", "at": service.now().isoformat()},
    )
    sent = {"trial": "1", "form_token": "jeton-demande-envoyee1"}
    assert "Demande envoyée" in hal.post(url, sent, follow=True).content.decode()
    assert "déjà été envoyé" in hal.post(url, sent, follow=True).content.decode()
    assert Request.objects.filter(game=world.game).count() == 1


# -- user text is never altered ------------------------------------------------------------


@pytest.mark.django_db
def test_csrf_placeholder_in_user_text_is_shown_as_typed(world: World, clock: Any) -> None:
    clock("J2 10:00")
    typed = (
        "__RONDE_CSRF_SLOT__ "
        '<input type="hidden" name="csrfmiddlewaretoken" value="__RONDE_CSRF_SLOT__">'
        """ hx-headers='{"X-CSRFToken": "__RONDE_CSRF_SLOT__"}'"""
    )
    out = service.record(
        world.game,
        None,
        "open_trial",
        "Ana",
        {"against": "Bob", "as": "woody", "anonymous": False, "arguments": typed},
    )
    assert out.ok, out.message
    player = Client()
    player.force_login(world.users["Hal"])
    for c, url in (
        (Client(), reverse("public", args=[world.game.slug])),
        (player, reverse("player", args=[world.game.slug])),
    ):
        r = c.get(url)
        assert typed in text(r), url  # as typed: neither slot was filled with a token
        raw = r.content.decode()
        assert "&lt;input type=&quot;hidden&quot; name=&quot;csrfmiddlewaretoken&quot;" in raw
    # the page's own forms still get the request's token
    page = player.get(reverse("player", args=[world.game.slug])).content.decode()
    assert 'name="csrfmiddlewaretoken" value="__RONDE_CSRF_SLOT__"' not in page


@pytest.mark.django_db
def test_accepting_a_request_and_striking_record_once(world: World, clock: Any) -> None:
    from ronde.web.games.models import Request, Strike

    clock("J2 10:00")
    slug = world.game.slug
    gm = gm_client(Client(), world)
    gm.post(
        reverse("gm_action", args=[slug, "open_trial"]),
        {"by": "Ana", "against": "Bob", "as": "woody", "at": service.now().isoformat()},
    )
    clock("J2 11:00")
    hal = Client()
    hal.force_login(world.users["Dan"])  # (Halus: an anonymous complaint, R5.6)
    hal.post(reverse("player_request", args=[slug, "complain"]), {"trial": "1"})
    req = Request.objects.get(game=world.game)
    url = reverse("gm_request", args=[slug, req.pk, "accept"])
    data = {"form_token": "jeton-accepter-000001"}
    assert gm.post(url, data).status_code == 302
    assert gm.post(url, data).status_code == 302
    assert Action.objects.filter(game=world.game, action="complain").count() == 1
    # striking: the form carries the preview's token; posted twice, struck once
    action = Action.objects.get(game=world.game, action="complain")
    strike_url = reverse("gm_strike", args=[slug, action.pk])
    page = gm.get(strike_url).content.decode()
    preview = re.search(r'name="token" value="([^"]+)"', page)
    assert preview is not None
    form = next(f for f in _forms(page) if 'name="reason"' in f)
    data = {"reason": "erreur", "token": preview.group(1), "form_token": TOKEN.findall(form)[0]}
    first = gm.post(strike_url, data)
    again = gm.post(strike_url, data)
    assert first.status_code == again.status_code == 302
    assert again["Location"] == first["Location"]
    assert Strike.objects.filter(game=world.game).count() == 1


@pytest.mark.django_db
def test_an_account_name_that_logs_in_like_another_is_refused(world: World) -> None:
    """« Jöueur » would share « joueur »'s logins (case and accents aside): refused."""
    existing = next(iter(world.users.values())).get_username()
    seat = accounts.add_player(world.game, "Nouveau")
    inv = seat.invitations.get()
    alike = existing.upper()[0] + "\u0308" + existing[1:]  # an accent on its first letter
    r = Client().post(
        reverse("invitation", args=[inv.token]),
        {"username": alike, "password1": "un-long-secret-42", "password2": "un-long-secret-42"},
    )
    assert r.status_code == 200 and "se confond avec ce nom" in html.unescape(r.content.decode())
    seat.refresh_from_db()
    assert seat.user is None
    assert accounts.propose_username(existing.upper()) != existing.upper()


# -- what the pages of accounts say (issue 31: mutants of accounts.py) --------------------

USED = (
    "Invitation déjà utilisée",
    "Ce lien a déjà servi. Si c'était vous, connectez-vous ; sinon demandez un nouveau "
    "lien aux MJ.",
)
REVOKED = (
    "Invitation annulée",
    "Ce lien n'est plus valable : les MJ en ont créé un plus récent, ou la place a été "
    "attribuée à quelqu'un d'autre. Demandez-leur le bon lien.",
)
EXPIRED = (
    "Invitation expirée",
    "Ce lien a expiré (il était valable 14 jours). Demandez un nouveau lien aux MJ.",
)
ALREADY_GM = (
    "Vous êtes déjà MJ de cette partie",
    "Ce compte mène déjà cette partie : il ne peut pas y prendre une autre place. "
    "Déconnectez-vous pour créer un autre compte avec ce lien.",
)
ALREADY_PLAYER = (
    "Vous jouez déjà dans cette partie",
    "Ce compte a déjà une place dans cette partie : il ne peut pas en prendre une autre. "
    "Déconnectez-vous pour créer un autre compte avec ce lien.",
)


def refusal(r: Any) -> tuple[int, str, str]:
    """A refused invitation's status, title and message, as its page shows them."""
    page = text(r)
    title = re.search(r"<h1>(.*?)</h1>", page, re.S)
    message = re.search(r'<p class="refusal" role="alert">(.*?)</p>', page, re.S)
    assert title is not None and message is not None, page
    return r.status_code, title.group(1), " ".join(message.group(1).split())


@pytest.mark.django_db
def test_each_refused_invitation_says_why_in_full(client: Client, world: World, clock: Any) -> None:
    slug = world.game.slug
    seat = accounts.add_player(world.game, "Nouveau")
    first = seat.invitations.get()
    second = accounts.invite(world.game, seat)
    assert refusal(client.get(reverse("invitation", args=[first.token]))) == (410, *REVOKED)
    # a game master of the game, logged in, opens a player's link
    mj = Client()
    mj.force_login(world.gms["Mj"])
    assert refusal(mj.get(reverse("invitation", args=[second.token]))) == (409, *ALREADY_GM)
    ana = Client()
    ana.force_login(world.users["Ana"])
    assert refusal(ana.get(reverse("invitation", args=[second.token]))) == (409, *ALREADY_PLAYER)
    # accepted once, the link is spent
    r = Client().post(
        reverse("invitation", args=[second.token]),
        {"username": "Nouveau", "password1": "un-secret-42!", "password2": "un-secret-42!"},
    )
    assert r.status_code == 302 and r["Location"] == reverse("player", args=[slug])
    assert refusal(client.get(reverse("invitation", args=[second.token]))) == (410, *USED)
    late = accounts.add_player(world.game, "Tardif").invitations.get()
    service.set_clock(late.expires_at)
    assert refusal(client.get(reverse("invitation", args=[late.token]))) == (410, *EXPIRED)


@pytest.mark.django_db
def test_a_game_master_invitation_opens_the_console(world: World, clock: Any) -> None:
    seat = accounts.add_game_master(world.game, "Coanimatrice")
    inv = seat.invitations.get()
    url = reverse("invitation", args=[inv.token])
    visitor = Client()
    assert "MJ «\u00a0Coanimatrice\u00a0»" in text(visitor.get(url))
    r = visitor.post(
        url,
        {"username": "Coanimatrice", "password1": "un-secret-42!", "password2": "un-secret-42!"},
    )
    assert r.status_code == 302 and r["Location"] == reverse("gm_dashboard", args=[world.game.slug])
    assert visitor.get(r["Location"]).status_code == 200
    seat.refresh_from_db()
    assert seat.user is not None and seat.user.get_username() == "Coanimatrice"


@pytest.mark.django_db
def test_the_invitation_proposes_the_next_free_user_name(world: World) -> None:
    inv = accounts.add_player(world.game, "Zoé").invitations.get()
    url = reverse("invitation", args=[inv.token])

    def proposed() -> str:
        field = re.search(r'<input[^>]*name="username"[^>]*>', text(Client().get(url)))
        assert field is not None
        value = re.search(r'value="([^"]*)"', field.group(0))
        return value.group(1) if value else ""

    assert proposed() == "Zoé"
    get_user_model().objects.create_user("zoe", password="un-secret-42!")
    assert proposed() == "Zoé2"  # « Zoé » would log in like « zoe »
    get_user_model().objects.create_user("Zoé2", password="un-secret-42!")
    assert proposed() == "Zoé3"


@pytest.mark.django_db
def test_a_locked_out_pseudo_is_told_when_to_retry_and_keeps_the_form(world: World) -> None:
    from axes.models import AccessAttempt
    from django.utils import timezone

    for i in range(10):
        login(Client(), "Ana", f"mauvais-{i}")
    # the last failure was 14 min 20 s ago: the lock lasts 15 minutes from it
    last = timezone.now() - timedelta(minutes=14, seconds=20)
    AccessAttempt.objects.filter(username=accounts.fold_username("Ana")).update(attempt_time=last)
    nxt = reverse("player", args=[world.game.slug])
    r = Client().post(
        reverse("login"), {"username": "Ana", "password": "motdepasse-joueur", "next": nxt}
    )
    assert r.status_code == 429
    page = text(r)
    when = timezone.localtime(last + timedelta(minutes=15)).strftime("%H:%M")
    assert f"Réessayez à {when} (heure de Paris), dans 1 minute(s)." in page
    field = re.search(r'<input[^>]*name="username"[^>]*>', page)
    assert field is not None and 'value="Ana"' in field.group(0)
    assert 'name="password"' in page and f'name="next" value="{nxt}"' in page


def strike(gm: Client, slug: str, action: Action) -> None:
    """Strike ``action`` from its page, as a game master does."""
    url = reverse("gm_strike", args=[slug, action.pk])
    page = gm.get(url).content.decode()
    preview = re.search(r'name="token" value="([^"]+)"', page)
    assert preview is not None
    form = next(f for f in _forms(page) if 'name="reason"' in f)
    data = {"reason": "erreur", "token": preview.group(1), "form_token": TOKEN.findall(form)[0]}
    assert gm.post(url, data).status_code == 302


@pytest.mark.django_db
def test_striking_a_replacement_gives_the_seat_back_and_no_more(world: World, clock: Any) -> None:
    clock("J2 09:00")
    slug = world.game.slug
    gm = gm_client(Client(), world)
    players = reverse("gm_players", args=[slug])
    cid = world.member("Cid")
    gm.post(players, {"op": "revoke", "member": cid.pk, "reason": "compte prêté"})
    r = gm.post(
        reverse("gm_action", args=[slug, "replace_player"]), {"player": "Bob", "new": "Zed"}
    )
    assert r.status_code == 302, text(r)
    zed = world.member("Zed")
    bob = Client()
    bob.force_login(world.users["Bob"])
    page = reverse("player", args=[slug])
    assert bob.get(page).status_code != 200
    strike(gm, slug, Action.objects.get(game=world.game, action="replace_player"))
    assert bob.get(page).status_code == 200  # Bob plays again
    zed.refresh_from_db()
    assert zed.revoked_at is not None  # Zed's seat is gone, its link with it
    r = Client().get(reverse("invitation", args=[zed.invitations.get().token]))
    assert r.status_code == 410
    # a later correction gives nothing else back: Cid's access stays withdrawn, Zed's seat gone
    clock("J2 10:00")
    gm.post(
        reverse("gm_action", args=[slug, "open_trial"]),
        {"by": "Ana", "against": "Dan", "as": "woody", "at": service.now().isoformat()},
    )
    strike(gm, slug, Action.objects.get(game=world.game, action="open_trial"))
    cid_client = Client()
    cid_client.force_login(world.users["Cid"])
    assert cid_client.get(page).status_code != 200
    assert "retiré (compte prêté)" in text(gm.get(players))
    zed.refresh_from_db()
    assert zed.revoked_at is not None


@pytest.mark.django_db
def test_a_form_brought_back_and_filled_anew_records_again_whatever_field_changed(
    world: World, clock: Any
) -> None:
    """A browser posts the CSRF field beside the others: the fields after it (here the
    replaced player and his replacement) still tell one submission from another."""
    clock("J2 09:00")
    slug = world.game.slug
    gm = gm_client(Client(), world)
    url = reverse("gm_action", args=[slug, "replace_player"])
    data = {
        "csrfmiddlewaretoken": "x" * 64,
        "form_token": _token(gm, url),
        "player": "Bob",
        "new": "Zed",
    }
    assert gm.post(url, data).status_code == 302
    data |= {"player": "Cid", "new": "Yan"}  # the back button, the same form filled anew
    assert gm.post(url, data).status_code == 302
    assert Action.objects.filter(game=world.game, action="replace_player").count() == 2
    assert {m.pseudo for m in world.game.memberships.filter(revoked_at__isnull=True)} >= {
        "Zed",
        "Yan",
    }


@pytest.mark.django_db
def test_logging_out_from_a_page_brought_back_logs_out(world: World) -> None:
    """Logging out is never "already sent": the same page's button, used again after
    logging in again (the back button), logs out again."""
    c = Client()
    c.force_login(world.users["Ana"])
    page = reverse("player", args=[world.game.slug])
    form = next(f for f in _forms(text(c.get(page))) if reverse("logout") in f)
    data = {"form_token": TOKEN.findall(form)[0]}
    assert c.post(reverse("logout"), data).status_code == 302
    c.force_login(world.users["Ana"])
    assert c.get(page).status_code == 200
    c.post(reverse("logout"), data)
    r = c.get(page)
    assert r.status_code == 302 and r["Location"].startswith(reverse("login"))
