"""Web Push: the server's VAPID keys and sending one encrypted message (pywebpush).

The keys are made on first use in the data folder (``vapid_private.pem``, mode 0600,
never readable by others, whatever the umask); the public key is what a browser
subscribes with (``applicationServerKey``). A payload is encrypted to the browser's
own keys (RFC 8291, ``aes128gcm``): the push service carries it without reading it.

A subscription's endpoint is an address the server will post to: only the browsers'
push services are accepted (https, their hosts), and the hosts the host names in
``RONDE_PUSH_HOSTS`` (a loopback one may use http: tests).
"""

from __future__ import annotations

import base64
import ipaddress
import json
import os
import re
import threading
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings

#: the browsers' push services (Chrome and Chromium's FCM, Firefox, Edge, Safari)
PUSH_SERVICES = (
    "fcm.googleapis.com",
    "android.googleapis.com",
    ".push.services.mozilla.com",
    ".notify.windows.com",
    ".push.apple.com",
)

_lock = threading.Lock()

#: the devices an account keeps (its newest subscriptions): each notification is a row
#: and a post per device, written inside the game's write
MAX_DEVICES = 10


class Gone(Exception):
    """The push service says the subscription no longer exists (404, 410)."""


def key_path() -> Path:
    return Path(settings.DATA_DIR) / "vapid_private.pem"


def _vapid() -> Any:
    from py_vapid import Vapid

    path = key_path()
    with _lock:
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            v = Vapid()
            v.generate_keys()
            try:
                fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            except FileExistsError:  # another process made it first: use its keys
                pass
            else:
                with os.fdopen(fd, "wb") as f:
                    f.write(v.private_pem())
        os.chmod(path, 0o600)  # whatever the umask, or an older copy
        return Vapid.from_file(str(path))


def public_key() -> str:
    """The server's public key, base64url (what ``pushManager.subscribe`` takes)."""
    from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

    raw = _vapid().public_key.public_bytes(Encoding.X962, PublicFormat.UncompressedPoint)
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def enabled() -> bool:
    return bool(getattr(settings, "PUSH_ENABLED", True))


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


#: what a push service's host name is made of (nothing a second URL parser could read
#: differently: no backslash, space, percent sign or non-ASCII letter)
_HOST = re.compile(r"[a-z0-9.:-]+")


def _host_seen_by_sender(endpoint: str) -> str | None:
    """The host the HTTP client (requests, urllib3) would connect to (``None``: none)."""
    from urllib3.util import parse_url

    try:
        host = parse_url(endpoint).host
    except ValueError:  # (urllib3's LocationParseError is one)
        return None
    return host.strip("[]").lower() if host else None


def endpoint_refusal(endpoint: str) -> str | None:
    """Why the server will not post to ``endpoint`` (``None``: it will).

    The host is checked as the HTTP client that posts will read it: an address that
    Python's ``urlsplit`` and urllib3 read differently (``https://intranet\\.push.apple.com``
    is ``intranet`` for the latter) is refused, and a browser's push service is reached
    on its HTTPS port only."""
    if len(endpoint) > 1000:
        return "adresse trop longue"
    if not endpoint.isascii() or any(ord(c) <= 32 or ord(c) == 127 or c == "\\" for c in endpoint):
        return "adresse invalide"
    parts = urlsplit(endpoint)
    host = (parts.hostname or "").lower()
    if not host or parts.username or parts.password or not _HOST.fullmatch(host):
        return "adresse invalide"
    try:
        port = parts.port
    except ValueError:
        return "adresse invalide"
    if _host_seen_by_sender(endpoint) != host:
        return "adresse invalide"
    extra = [h.lower() for h in getattr(settings, "PUSH_HOSTS", [])]
    if host in extra and (parts.scheme == "https" or (parts.scheme == "http" and _loopback(host))):
        return None
    if parts.scheme != "https":
        return "adresse non chiffrée"
    if port not in (None, 443):
        return "service de notification inconnu"
    if any(host == s or (s.startswith(".") and host.endswith(s)) for s in PUSH_SERVICES):
        return None
    return "service de notification inconnu"


def keys_refusal(p256dh: str, auth: str) -> str | None:
    """Why a browser's keys are not ones a browser makes (``None``: they are): its public
    key a point of P-256 (65 bytes, base64url), its secret 16 bytes (RFC 8291). Others
    would fail at every notification."""
    from cryptography.hazmat.primitives.asymmetric import ec

    try:
        raw = base64.urlsafe_b64decode(p256dh + "=" * (-len(p256dh) % 4))
        secret = base64.urlsafe_b64decode(auth + "=" * (-len(auth) % 4))
        if len(raw) != 65 or len(secret) != 16 or len(p256dh) > 100 or len(auth) > 30:
            return "clés"
        ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), raw)
    except (ValueError, TypeError):
        return "clés"
    return None


def send(endpoint: str, p256dh: str, auth: str, payload: dict[str, str]) -> None:
    """Encrypt ``payload`` (JSON) to the subscription and post it to its push service.

    Raises:
        Gone: the subscription no longer exists.
        Exception: any other failure (the outbox retries).
    """
    from pywebpush import WebPushException, webpush

    why = endpoint_refusal(endpoint)
    if why is not None:
        raise Gone(why)
    subject = settings.VAPID_SUBJECT or _subject()
    try:
        with _no_redirects() as session:
            webpush(
                subscription_info={
                    "endpoint": endpoint,
                    "keys": {"p256dh": p256dh, "auth": auth},
                },
                data=json.dumps(payload, ensure_ascii=False),
                vapid_private_key=_vapid(),
                vapid_claims={"sub": subject},
                timeout=15,
                ttl=24 * 3600,
                requests_session=session,
            )
    except WebPushException as exc:
        if exc.status_code in (404, 410):
            raise Gone(f"HTTP {exc.status_code}") from None
        raise RuntimeError(f"service de notification : HTTP {exc.status_code}") from None


def _no_redirects() -> Any:
    """An HTTP session that never follows a redirect: the server posts to the address it
    checked, never to one a push service (or an address posing as one) names in reply (a
    redirect is a failure, retried and then shown to the game masters)."""
    import requests

    class NoRedirects(requests.Session):
        def request(self, *args: Any, **kwargs: Any) -> Any:
            kwargs["allow_redirects"] = False
            return super().request(*args, **kwargs)

    return NoRedirects()


def _subject() -> str:
    sender = str(settings.DEFAULT_FROM_EMAIL)
    address = sender.split("<")[-1].rstrip(">").strip()
    if "@" in address:
        return f"mailto:{address}"
    return settings.SITE_URL or "mailto:ronde@localhost"
