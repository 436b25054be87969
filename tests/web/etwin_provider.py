"""A small Eternaltwin for the tests: an OAuth 2.0 provider over real HTTP (a thread
running ``http.server``) that follows Eternaltwin's documentation of its three
endpoints, and nothing more (``docs/app/etwin-oauth.md``, ``docs/api/v1/auth/self.md``):

``GET /oauth/authorize``
    ``access_type=offline``, ``response_type=code``, ``client_id`` (the key),
    ``redirect_uri`` (exactly the registered callback), ``scope`` (empty or ``base``),
    ``state``: a consent page with « Autoriser » and « Refuser » buttons (the signed-in
    user is the browser's ``sid`` cookie, set by ``GET /login?user=<id>``, as a player
    is already signed in to Eternaltwin when he plays MyHordes). Its POST sends the
    browser back to the callback with ``code`` and ``state``, or ``error`` and ``state``.
``POST /oauth/token``
    HTTP Basic authentication (login: the key, password: the secret, as they are), a
    JSON or form body with ``code`` and ``grant_type=authorization_code``; a code serves
    once. Answers ``{access_token, refresh_token, expires_in, token_type: "Bearer"}``.
``GET /api/v1/auth/self``
    ``Authorization: Bearer <access_token>``: the ``AccessToken`` answer with the
    user's id (a uuid) and display name.

``token_mode`` and ``self_mode`` make an endpoint misbehave: ``error`` (an OAuth error
answer), ``server_error`` (500), ``garbage`` (not JSON), ``hang`` (no answer until the
provider stops or ``release()``), ``minimal`` (token: ``access_token`` alone),
``guest`` (self: the Guest answer).
"""

from __future__ import annotations

import base64
import html
import json
import secrets
import threading
import uuid
from http.cookies import SimpleCookie
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit

AUTHORIZE_PARAMS = ("access_type", "response_type", "client_id", "redirect_uri", "scope", "state")


class LocalEternaltwin:
    def __init__(self, key: str = "ronde@clients", secret: str = "dev_secret") -> None:
        self.key, self.secret = key, secret
        #: the registered ``callback_uri``
        self.callback = "http://testserver/oauth/callback/"
        self.users: dict[str, str] = {}
        self.codes: dict[str, dict[str, Any]] = {}
        self.tokens: dict[str, str] = {}
        self.authorize_requests: list[dict[str, str]] = []
        self.token_requests: list[dict[str, Any]] = []
        self.self_requests: list[str] = []
        self.token_mode = "ok"
        self.self_mode = "ok"
        self._lock = threading.Lock()
        self._release = threading.Event()
        self._server: ThreadingHTTPServer | None = None

    # -- the test's side ---------------------------------------------------------------------

    def add_user(self, display_name: str, user_id: str | None = None) -> str:
        uid = user_id or str(uuid.uuid4())
        self.users[uid] = display_name
        return uid

    @property
    def url(self) -> str:
        assert self._server is not None
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def start(self) -> LocalEternaltwin:
        provider = self

        class Handler(_Handler):
            owner = provider

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def release(self) -> None:
        self._release.set()

    def stop(self) -> None:
        self._release.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()

    # -- the endpoints ------------------------------------------------------------------------

    def check_authorize(self, params: dict[str, str]) -> str | None:
        """Why an authorization request is wrong, or ``None``."""
        if params.get("access_type") != "offline":
            return "access_type must be offline"
        if params.get("response_type") != "code":
            return "response_type must be code"
        if params.get("client_id") != self.key:
            return "unknown client_id"
        if params.get("redirect_uri") != self.callback:
            return "redirect_uri is not the registered callback_uri"
        if params.get("scope") not in ("", "base"):
            return "scope must be empty or base"
        if not params.get("state"):
            return "state missing"
        return None

    def new_code(self, user_id: str) -> str:
        code = secrets.token_urlsafe(24)
        with self._lock:
            self.codes[code] = {"user": user_id, "used": False}
        return code

    def token(self, headers: Any, body: bytes) -> tuple[int, Any]:
        ctype = headers.get("Content-Type", "").split(";")[0].strip()
        if ctype == "application/json":
            try:
                fields = json.loads(body or b"{}")
            except ValueError:
                fields = {}
        elif ctype == "application/x-www-form-urlencoded":
            fields = dict(parse_qsl(body.decode()))
        else:
            fields = {}
        record = {"authorization": headers.get("Authorization", ""), "fields": fields}
        with self._lock:
            self.token_requests.append(record)
        scheme, _sp, value = headers.get("Authorization", "").partition(" ")
        try:
            login, _c, password = base64.b64decode(value).decode().partition(":")
        except ValueError:
            login = password = ""
        if scheme != "Basic" or login != self.key or password != self.secret:
            return 401, {"error": "invalid_client"}
        if not isinstance(fields, dict) or fields.get("grant_type") != "authorization_code":
            return 400, {"error": "unsupported_grant_type"}
        if self.token_mode == "error":
            return 400, {"error": "invalid_request", "error_description": "nope"}
        if self.token_mode == "server_error":
            return 500, "<h1>500</h1>"
        if self.token_mode == "garbage":
            return 200, "<html>maintenance</html>"
        if self.token_mode == "hang":
            self._release.wait(60)
            return 504, "<h1>late</h1>"
        with self._lock:
            grant = self.codes.get(str(fields.get("code", "")))
            if grant is None or grant["used"]:
                return 400, {"error": "invalid_grant"}
            grant["used"] = True
            access = secrets.token_urlsafe(24)
            self.tokens[access] = grant["user"]
        if self.token_mode == "minimal":
            return 200, {"access_token": access}
        return 200, {
            "access_token": access,
            "refresh_token": secrets.token_urlsafe(24),
            "expires_in": 7200,
            "token_type": "Bearer",
        }

    def who(self, headers: Any) -> tuple[int, Any]:
        scheme, _sp, token = headers.get("Authorization", "").partition(" ")
        with self._lock:
            self.self_requests.append(token)
        if self.self_mode == "server_error":
            return 500, "<h1>500</h1>"
        if self.self_mode == "garbage":
            return 200, "pas du json"
        if self.self_mode == "hang":
            self._release.wait(60)
            return 504, "late"
        if scheme != "Bearer" or self.self_mode == "guest":
            return 200, {"type": "Guest", "scope": "Default"}
        uid = self.tokens.get(token)
        if uid is None:
            return 401, {"error": "Unauthorized"}
        return 200, {
            "type": "AccessToken",
            "scope": "Default",
            "client": {
                "type": "OauthClient",
                "id": "d19e61a3-83d3-410f-84ec-49aaab841559",
                "key": self.key,
                "display_name": "Ronde",
            },
            "user": {
                "type": "User",
                "id": uid,
                "display_name": {"current": {"value": self.users[uid]}},
            },
        }


class _Handler(BaseHTTPRequestHandler):
    owner: LocalEternaltwin

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass

    def _send(self, status: int, body: Any, headers: dict[str, str] | None = None) -> None:
        if isinstance(body, (dict, list)):
            data = json.dumps(body).encode()
            ctype = "application/json"
        else:
            data = str(body).encode()
            ctype = "text/html; charset=utf-8"
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)

    def _user(self) -> str | None:
        cookie = SimpleCookie(self.headers.get("Cookie", ""))
        sid = cookie.get("sid")
        return sid.value if sid is not None and sid.value in self.owner.users else None

    def do_GET(self) -> None:
        parts = urlsplit(self.path)
        params = dict(parse_qsl(parts.query, keep_blank_values=True))
        p = self.owner
        if parts.path == "/login":
            uid = params.get("user", "")
            self._send(
                200,
                f"<p>Connecté à Eternaltwin : {html.escape(p.users.get(uid, '?'))}</p>",
                {"Set-Cookie": f"sid={uid}; Path=/; HttpOnly"},
            )
        elif parts.path == "/oauth/authorize":
            p.authorize_requests.append(params)
            problem = p.check_authorize(params)
            if problem:
                self._send(400, f"<h1>Requête invalide</h1><p>{html.escape(problem)}</p>")
                return
            uid = self._user()
            if uid is None:
                self._send(401, "<h1>Connectez-vous à Eternaltwin</h1>")
                return
            hidden = "".join(
                f'<input type="hidden" name="{k}" value="{html.escape(params.get(k, ""))}">'
                for k in AUTHORIZE_PARAMS
            )
            self._send(
                200,
                '<!doctype html><html lang="fr"><head><meta charset="utf-8">'
                "<title>Eternaltwin</title></head><body>"
                f"<h1>Autoriser Ronde ?</h1><p>Vous êtes {html.escape(p.users[uid])}.</p>"
                f'<form method="post" action="/oauth/authorize">{hidden}'
                '<button name="decision" value="allow">Autoriser</button> '
                '<button name="decision" value="deny">Refuser</button></form></body></html>',
            )
        elif parts.path == "/api/v1/auth/self":
            status, body = p.who(self.headers)
            self._send(status, body)
        else:
            self._send(404, "<h1>404</h1>")

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        parts = urlsplit(self.path)
        p = self.owner
        if parts.path == "/oauth/token":
            status, answer = p.token(self.headers, body)
            self._send(status, answer)
        elif parts.path == "/oauth/authorize":
            form = dict(parse_qsl(body.decode(), keep_blank_values=True))
            params = {k: form.get(k, "") for k in AUTHORIZE_PARAMS}
            uid = self._user()
            if p.check_authorize(params) or uid is None:
                self._send(400, "<h1>Requête invalide</h1>")
                return
            if form.get("decision") == "allow":
                query = {"code": p.new_code(uid), "state": params["state"]}
            else:
                query = {"error": "access_denied", "state": params["state"]}
            self._send(302, "", {"Location": f"{params['redirect_uri']}?{urlencode(query)}"})
        else:
            self._send(404, "<h1>404</h1>")
