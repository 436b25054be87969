"""Real parts for the notification tests: a local SMTP server (aiosmtpd) that keeps the
mail it receives, a local push service (an HTTP endpoint) that keeps what is posted to
it, and a browser's push keys that decrypt it as the browser would (RFC 8291 with
``http_ece``). Everything listens on 127.0.0.1 only, and stops with its ``with`` block."""

from __future__ import annotations

import base64
import email
import email.policy
import json
import os
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import http_ece
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def wait_for(check: Callable[[], Any], bound: float = 5.0, step: float = 0.05) -> Any:
    """``check()`` once it is true, waiting up to ``bound`` seconds (then its last value)."""
    end = time.monotonic() + bound
    value = check()
    while not value and time.monotonic() < end:
        time.sleep(step)
        value = check()
    return value


# -- SMTP ---------------------------------------------------------------------------------------
@dataclass
class Mail:
    sender: str
    to: list[str]
    subject: str
    text: str


@dataclass
class SmtpSink:
    port: int
    mails: list[Mail] = field(default_factory=list)

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        msg = email.message_from_bytes(envelope.content, policy=email.policy.default)
        body = msg.get_body(preferencelist=("plain",))
        text = body.get_content() if body is not None else ""
        self.mails.append(
            Mail(envelope.mail_from, list(envelope.rcpt_tos), str(msg["Subject"]), text)
        )
        return "250 OK"


@contextmanager
def smtp_server() -> Iterator[SmtpSink]:
    from aiosmtpd.controller import Controller

    sink = SmtpSink(free_port())
    controller = Controller(sink, hostname="127.0.0.1", port=sink.port)
    controller.start()
    try:
        yield sink
    finally:
        controller.stop()


# -- a push service and a browser's keys -----------------------------------------------------------
@dataclass
class Push:
    path: str
    headers: dict[str, str]
    body: bytes


@dataclass
class PushSink:
    port: int
    pushes: list[Push] = field(default_factory=list)
    #: the HTTP status answered to each push (201 as a push service accepts it)
    status: int = 201

    def url(self, name: str) -> str:
        return f"http://127.0.0.1:{self.port}/push/{name}"


@contextmanager
def push_service() -> Iterator[PushSink]:
    sink = PushSink(free_port())

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            size = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(size)
            sink.pushes.append(Push(self.path, dict(self.headers.items()), body))
            self.send_response(sink.status)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", sink.port), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield sink
    finally:
        server.shutdown()
        server.server_close()


class BrowserKeys:
    """A browser's side of a push subscription: its ECDH key pair and auth secret."""

    def __init__(self) -> None:
        self.private = ec.generate_private_key(ec.SECP256R1())
        self.auth = os.urandom(16)

    def subscription(self, endpoint: str) -> dict[str, Any]:
        raw = self.private.public_key().public_bytes(Encoding.X962, PublicFormat.UncompressedPoint)
        return {"endpoint": endpoint, "keys": {"p256dh": b64(raw), "auth": b64(self.auth)}}

    def decrypt(self, body: bytes) -> dict[str, Any]:
        """The payload as the browser reads it (aes128gcm)."""
        plain = http_ece.decrypt(
            body, private_key=self.private, auth_secret=self.auth, version="aes128gcm"
        )
        data: dict[str, Any] = json.loads(plain.decode("utf-8"))
        return data


def vapid_signed_by(push: Push, public_key_b64: str) -> bool:
    """Whether the push carries a VAPID JWT signed with the server's key (RFC 8292)."""
    from cryptography.exceptions import InvalidSignature
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature

    auth = push.headers.get("Authorization") or push.headers.get("authorization") or ""
    # "vapid t=<jwt>, k=<key>" (RFC 8292), or "WebPush <jwt>" (draft 01)
    token = ""
    for part in auth.replace("vapid ", "").replace("WebPush ", "").split(","):
        part = part.strip()
        if part.startswith("t="):
            token = part[2:]
        elif part.count(".") == 2:
            token = part
    if not token:
        return False
    head, claims, sig = token.split(".")
    raw = unb64(sig)
    der = encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big"))
    key = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), unb64(public_key_b64))
    try:
        key.verify(der, f"{head}.{claims}".encode(), ec.ECDSA(hashes.SHA256()))
    except InvalidSignature:
        return False
    return True
