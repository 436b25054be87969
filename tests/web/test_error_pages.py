"""Django's own error pages (400, 403, 404, 500) are French, in the site's style, and say
nothing of why (a game masters' page answers 404 to anyone else: it must not tell)."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.exceptions import PermissionDenied
from django.test import RequestFactory
from django.urls import reverse
from django.views import defaults

from .conftest import World

pytestmark = pytest.mark.django_db

ENGLISH = ("Not Found", "Forbidden", "Bad Request", "Server Error", "requested resource")


def _french(body: str) -> None:
    assert '<html lang="fr">' in body
    for word in ENGLISH:
        assert word not in body


def test_an_unknown_address_is_a_french_404(client: Any) -> None:
    r = client.get("/nulle-part/")
    assert r.status_code == 404
    body = r.content.decode()
    _french(body)
    assert "Page introuvable" in body and 'class="brand"' in body


def test_a_game_masters_page_for_a_player_is_the_same_404(client: Any, world: World) -> None:
    client.force_login(world.users["Ana"])
    r = client.get(reverse("gm_invitations", args=[world.game.slug]))
    assert r.status_code == 404
    body = r.content.decode()
    _french(body)
    assert "Page introuvable" in body
    assert "MJ de cette partie" not in body  # the reason is not told


def test_403_is_french_and_names_the_account(world: World) -> None:
    request = RequestFactory().get("/mj/")
    request.user = world.users["Ana"]
    r = defaults.permission_denied(request, PermissionDenied("secret reason"))
    assert r.status_code == 403
    body = r.content.decode()
    _french(body)
    assert "Accès refusé" in body and "«&nbsp;Ana&nbsp;»" in body and "secret reason" not in body


def test_400_and_500_are_french() -> None:
    request = RequestFactory().get("/")
    from django.contrib.auth.models import AnonymousUser

    request.user = AnonymousUser()
    r = defaults.bad_request(request, Exception("bad"))
    assert r.status_code == 400 and "Demande incorrecte" in r.content.decode()
    _french(r.content.decode())
    r = defaults.server_error(request)
    assert r.status_code == 500 and "Erreur du serveur" in r.content.decode()
    _french(r.content.decode())
