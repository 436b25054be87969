"""Sign in with Eternaltwin: the OAuth 2.0 client (Authlib's Django client) and the one
question Ronde asks Eternaltwin, "who is this?" (``GET /api/v1/auth/self``).

The protocol is Eternaltwin's documentation (``docs/app/etwin-oauth.md`` and
``docs/api/v1/auth/self.md`` of its repository), nothing more:

1. a POST form on Ronde (CSRF-protected) answers 302 to ``<origin>/oauth/authorize``
   with ``access_type=offline``, ``response_type=code``, ``client_id`` (the client's
   key), ``redirect_uri`` (the one registered callback, ``<site>/oauth/callback/``),
   ``scope=base`` and ``state``;
2. Eternaltwin sends the browser back with ``code`` and ``state`` (or ``error`` and
   ``state``);
3. Ronde posts ``grant_type=authorization_code`` and ``code`` to ``<origin>/oauth/token``
   with HTTP Basic authentication (the key and the secret);
4. Ronde reads ``<origin>/api/v1/auth/self`` with ``Authorization: Bearer <token>`` once:
   the Eternaltwin user's id (a uuid) and current display name. The token is then
   dropped: it is never stored.

The ``state`` is unguessable and signed (Django's signing, with a time limit), and
bound to the browser's session twice: Authlib keeps it in the session, and so does
Ronde, with what the sign-in is for (log in, link an account, accept an invitation);
both are used once. Nothing here touches the database: the caller writes, after
every HTTP exchange is over (nothing is sent from inside a lock).
"""

from __future__ import annotations

import secrets
import time
import uuid
from dataclasses import dataclass
from typing import Any

import requests
from authlib.common.errors import AuthlibBaseError
from authlib.integrations.base_client.errors import MismatchingStateError
from authlib.integrations.django_client import OAuth, OAuthError
from django.conf import settings
from django.core import signing
from django.http import HttpRequest, HttpResponse
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _

#: the session key of the sign-ins started in this browser: ``{state: what it is for}``
SESSION_KEY = "ronde_eternaltwin"
_SALT = "ronde.eternaltwin.state"
#: how long a sign-in may take at Eternaltwin (seconds) before its state is refused
STATE_AGE = 15 * 60
#: sign-ins kept per session (several tabs); the oldest are forgotten
_KEPT = 4
_NAME_MAX = 100


@dataclass(frozen=True)
class Config:
    url: str
    client_id: str
    client_secret: str
    timeout: float


def config() -> Config | None:
    """Eternaltwin's settings, or ``None`` (no button) unless the origin, the key and the
    secret are all set (read from the environment, checked, by :mod:`ronde.web.settings`)."""
    url = getattr(settings, "ETERNALTWIN_URL", "")
    key = getattr(settings, "ETERNALTWIN_CLIENT_ID", "")
    secret = getattr(settings, "ETERNALTWIN_CLIENT_SECRET", "")
    if not (url and key and secret):
        return None
    timeout = float(getattr(settings, "ETERNALTWIN_TIMEOUT", 10) or 10)
    return Config(str(url).rstrip("/"), str(key), str(secret), timeout)


def enabled() -> bool:
    return config() is not None


@dataclass(frozen=True)
class Identity:
    """An Eternaltwin user: the id that never changes, the display name that may."""

    id: uuid.UUID
    display_name: str


class EternaltwinError(Exception):
    """A sign-in that did not go through, with its French page's title and text and
    the HTTP status of that page. Nothing was changed."""

    def __init__(self, code: str, title: str, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.code, self.title, self.message, self.status = code, title, message, status


def _interrupted() -> EternaltwinError:
    return EternaltwinError(
        "bad_state",
        _("Connexion Eternaltwin interrompue"),
        _(
            "Ce retour d'Eternaltwin ne correspond à aucune connexion commencée dans ce "
            "navigateur (lien trop ancien, déjà utilisé, ou ouvert dans un autre "
            "navigateur). Rien n'a changé : recommencez depuis la page de connexion."
        ),
    )


def _unreachable() -> EternaltwinError:
    return EternaltwinError(
        "unreachable",
        _("Eternaltwin ne répond pas"),
        _(
            "Eternaltwin ne répond pas pour le moment, ou pas comme prévu. Rien n'a "
            "changé : réessayez dans quelques minutes, ou connectez-vous avec votre mot "
            "de passe si vous en avez un."
        ),
        502,
    )


def _refused_code() -> EternaltwinError:
    return EternaltwinError(
        "token_refused",
        _("Connexion Eternaltwin refusée"),
        _(
            "Eternaltwin a refusé ce code de connexion (déjà utilisé, expiré, ou Ronde "
            "n'y est pas reconnu). Rien n'a changé : recommencez depuis la page de "
            "connexion."
        ),
        502,
    )


def callback_url(request: HttpRequest) -> str:
    """The callback registered with Eternaltwin: ``<site>/oauth/callback/``."""
    return request.build_absolute_uri(reverse("etwin_callback"))


def _client(cfg: Config) -> Any:
    oauth = OAuth()
    return oauth.register(
        "eternaltwin",
        client_id=cfg.client_id,
        client_secret=cfg.client_secret,
        authorize_url=f"{cfg.url}/oauth/authorize",
        authorize_params={"access_type": "offline"},
        access_token_url=f"{cfg.url}/oauth/token",
        api_base_url=f"{cfg.url}/",
        client_kwargs={
            "scope": "base",
            # the documented authentication: Basic, the key and the secret as they are
            "token_endpoint_auth_method": "client_secret_basic",
            "default_timeout": cfg.timeout,
        },
    )


def safe_next(request: HttpRequest, target: str) -> str:
    """``target`` if it is a page of this site, else ``""`` (no open redirect)."""
    if target and url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return target
    return ""


def start(request: HttpRequest, purpose: str, **data: Any) -> HttpResponse:
    """The 302 to Eternaltwin's authorization page, for ``purpose`` (``login``,
    ``link`` or ``invite``) with ``data`` (kept in the session, never sent)."""
    cfg = config()
    assert cfg is not None
    state = signing.dumps(secrets.token_urlsafe(24), salt=_SALT)
    pending = dict(request.session.get(SESSION_KEY) or {})
    pending[state] = {
        "purpose": purpose,
        "user": request.user.pk if request.user.is_authenticated else None,
        "at": time.time(),
        **data,
    }
    for old in sorted(pending, key=lambda s: pending[s].get("at", 0))[:-_KEPT]:
        del pending[old]
    request.session[SESSION_KEY] = pending
    response: HttpResponse = _client(cfg).authorize_redirect(
        request, callback_url(request), state=state
    )
    return response


def finish(request: HttpRequest) -> tuple[dict[str, Any], Identity]:
    """The callback: what the sign-in was for, and who signed in. Raises
    :class:`EternaltwinError` (nothing changed) on a forged, replayed or foreign
    ``state``, a refusal at Eternaltwin, or Eternaltwin not answering as documented."""
    cfg = config()
    assert cfg is not None
    state = str(request.GET.get("state", ""))
    try:
        signing.loads(state, salt=_SALT, max_age=STATE_AGE)
    except signing.BadSignature:  # forged, altered or too old (SignatureExpired)
        raise _interrupted() from None
    pending = dict(request.session.get(SESSION_KEY) or {})
    entry = pending.pop(state, None)
    if not isinstance(entry, dict):
        raise _interrupted()  # not started in this session, or already used
    request.session[SESSION_KEY] = pending  # used once, whatever follows:
    request.session.save()  # (saved now: Django saves no session on a 5xx answer)
    client = _client(cfg)
    if request.GET.get("error") or not request.GET.get("code"):
        client.framework.clear_state_data(request.session, state)
        raise EternaltwinError(
            "denied",
            _("Connexion Eternaltwin annulée"),
            _(
                "Eternaltwin n'a pas autorisé la connexion (refusée ou annulée). Rien n'a "
                "changé : vous pouvez recommencer depuis la page de connexion."
            ),
            403,
        )
    try:
        token = client.authorize_access_token(request)
    except MismatchingStateError:  # Authlib's own copy of the state: not this session's
        raise _interrupted() from None
    except (OAuthError, AuthlibBaseError):  # an error answer of the token endpoint
        raise _refused_code() from None
    except requests.HTTPError as exc:
        status = exc.response.status_code if exc.response is not None else 0
        raise (_refused_code() if 400 <= status < 500 else _unreachable()) from None
    except (requests.RequestException, ValueError):
        raise _unreachable() from None
    access = token.get("access_token") if isinstance(token, dict) else None
    del token  # never kept
    if not isinstance(access, str) or not access:
        raise _unreachable()
    return entry, _who(client, cfg, access)


def _who(client: Any, cfg: Config, access: str) -> Identity:
    """``GET /api/v1/auth/self`` with the token, once: the user's id and display name."""
    try:
        resp = client.get(
            "api/v1/auth/self",
            token={"access_token": access, "token_type": "Bearer"},
            timeout=cfg.timeout,
        )
        data = resp.json() if resp.status_code == 200 else None
    except (requests.RequestException, ValueError, AuthlibBaseError):
        raise _unreachable() from None
    identity = parse_self(data)
    if identity is None:
        raise _unreachable()
    return identity


def parse_self(data: Any) -> Identity | None:
    """The user of an ``AccessToken`` answer of ``/api/v1/auth/self``, or ``None``."""
    if not isinstance(data, dict) or data.get("type", "AccessToken") != "AccessToken":
        return None
    user = data.get("user")
    if not isinstance(user, dict) or user.get("type", "User") != "User":
        return None
    try:
        uid = uuid.UUID(str(user.get("id", "")))
    except ValueError:
        return None
    name: Any = user.get("display_name")
    for key in ("current", "value"):  # {"current": {"value": "<name>"}}
        name = name.get(key) if isinstance(name, dict) else None
    if not isinstance(name, str):
        return None
    name = " ".join(name.split())[:_NAME_MAX]
    if not name:
        return None
    return Identity(uid, name)
