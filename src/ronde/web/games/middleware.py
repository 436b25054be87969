"""Middlewares: French first, CSRF inputs of cached fragments, one-time form tokens.

French first: the language is French whatever the browser says.

Django's ``LocaleMiddleware`` follows the browser's ``Accept-Language``; the game
is played on a French forum and French is today the only language of
``settings.LANGUAGES``, so only a language cookie naming another language of that
list (none yet) would switch.
"""

from __future__ import annotations

import hashlib
import re
import secrets
import time
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from django.contrib import messages
from django.contrib.messages.storage.base import BaseStorage
from django.db import IntegrityError, transaction
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.middleware.csrf import get_token
from django.middleware.locale import LocaleMiddleware
from django.shortcuts import render
from django.utils import translation
from django.utils.translation import gettext as _

from . import busy, eternaltwin


class EternaltwinFormActionMiddleware:
    """« Se connecter avec Eternaltwin » is a form posted here that answers with a
    redirect to Eternaltwin's authorization page; a browser checks the page's
    ``form-action`` against every hop of that redirect, so when Eternaltwin is set its
    origin (and it alone) is added to the directive. Placed after ``CSPMiddleware``: it
    marks the response before that middleware writes the header."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        config = eternaltwin.config()
        if config is not None:
            origin = _origin(config.url)
            if origin:
                update = dict(getattr(response, "_csp_update", None) or {})
                update["form-action"] = [*update.get("form-action", []), origin]
                response._csp_update = update  # type: ignore[attr-defined]
        return response


def _origin(url: str) -> str:
    """``scheme://host[:port]`` of ``url``, or "" if it has none."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        return ""
    return f"{parts.scheme}://{parts.netloc}"


class FrenchFirstLocaleMiddleware(LocaleMiddleware):
    def process_request(self, request: HttpRequest) -> None:
        language = request.COOKIES.get(settings.LANGUAGE_COOKIE_NAME, "")
        if language not in dict(settings.LANGUAGES):
            language = settings.LANGUAGE_CODE
        translation.activate(language)
        request.LANGUAGE_CODE = translation.get_language()


class CsrfSlotMiddleware:
    """Fills the CSRF slots of cached pages and fragments with this request's token, so
    forms may live in fragments, and pages in caches, shared across requests and
    sessions: the hidden input of ``{% csrf_slot %}`` (or of ``{% csrf_token %}``
    rendered with the slot as token) and the ``hx-headers`` attribute of the page's
    ``<body>`` rendered so.

    Only these whole tags are replaced: text that users typed is escaped by the
    templates (``<``, ``"`` and ``'`` become entities), so it can never hold one and is
    never altered, whatever it says."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if getattr(response, "streaming", False) or not response.get("Content-Type", "").startswith(
            "text/html"
        ):
            return response
        content = response.content
        if CSRF_SLOT_VALUE.encode() not in content:
            return response
        token = get_token(request).encode()
        for slot in CSRF_SLOTS:
            if slot in content:
                content = content.replace(slot, slot.replace(CSRF_SLOT_VALUE.encode(), token))
        response.content = content
        return response


CSRF_SLOT_VALUE = "__RONDE_CSRF_SLOT__"
#: the tags holding a CSRF slot that are filled in (each written by templates alone)
CSRF_SLOTS = (
    f'<input type="hidden" name="csrfmiddlewaretoken" value="{CSRF_SLOT_VALUE}">'.encode(),
    f"""hx-headers='{{"X-CSRFToken": "{CSRF_SLOT_VALUE}"}}'""".encode(),
)

#: the opening tag of a form that posts (templates write them; user text is escaped)
_POST_FORM = re.compile(rb"<form\b[^<>]*\bmethod=[\"']?post\b[^<>]*>", re.IGNORECASE)
FORM_TOKEN = "form_token"
#: posts that change no game: a retry simply does it again
UNTRACKED = frozenset({"login", "logout", "set_language", "etwin_start"})
_TOKEN_SHAPE = re.compile(r"^[A-Za-z0-9_-]{16,64}$")


class OneTimeFormMiddleware:
    """Nothing recorded twice: every form that posts carries its own one-time token.

    Each ``<form method="post">`` of an HTML page gets a hidden ``form_token`` (a new
    random one per form and per page). The first POST of a token with given contents
    claims it (a unique row keyed by a digest of the token, the path and the posted
    fields); when its answer is a redirect (every page that records something answers
    so), the row keeps where it went. The same POST again (a browser retrying after a
    network error, a double click) records nothing and goes to the same place, with a
    note; while the first is still running it waits for it. Other contents with an old
    token (a page brought back by the browser's back button, filled anew) are a new
    submission. An answer that is not a redirect (a refusal shown on the form, a
    confirmation page) or a redirect that reports only a refusal (an error note, no
    success note) recorded nothing: its token is released and may be posted again.
    Only logged-in users' posts are tracked (visitors record nothing in a game, and an
    invitation serves once anyway); logging in and out and choosing the language are not.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        return self.add_tokens(response)

    @staticmethod
    def add_tokens(response: HttpResponse) -> HttpResponse:
        if (
            getattr(response, "streaming", False)
            or not response.get("Content-Type", "").startswith("text/html")
            or b"<form" not in response.content
        ):
            return response

        def add(match: re.Match[bytes]) -> bytes:
            token = secrets.token_urlsafe(18)
            hidden = f'<input type="hidden" name="{FORM_TOKEN}" value="{token}">'
            return match.group(0) + hidden.encode()

        response.content = _POST_FORM.sub(add, response.content)
        return response

    def process_view(
        self, request: HttpRequest, view: Callable[..., Any], args: Any, kwargs: Any
    ) -> HttpResponse | None:
        if request.method != "POST" or not request.user.is_authenticated:
            return None  # visitors record nothing in a game (an invitation serves once)
        match = getattr(request, "resolver_match", None)
        if match is not None and match.url_name in UNTRACKED:
            return None
        # the first one is ours (a page that echoes posted fields may repeat an old one)
        tokens = request.POST.getlist(FORM_TOKEN)
        if not tokens or not _TOKEN_SHAPE.match(tokens[0]):
            return None  # a client that posts without our forms (tests, scripts)
        token = self.digest(request, tokens[0])
        from .models import FormSubmission

        user = request.user
        try:
            with transaction.atomic():
                FormSubmission.objects.create(token=token, user=user, path=request.path[:300])
        except IntegrityError:
            return self._again(request, token)
        try:
            response: HttpResponse = view(request, *args, **kwargs)
            if hasattr(response, "render") and callable(response.render):
                response = response.render()
        except BaseException:
            FormSubmission.objects.filter(token=token).delete()
            raise
        if response.status_code in (301, 302, 303, 307, 308) and not self.refused(request):
            FormSubmission.objects.filter(token=token).update(
                done=True, target=str(response.get("Location", ""))[:500]
            )
        else:
            FormSubmission.objects.filter(token=token).delete()
        return response

    @staticmethod
    def refused(request: HttpRequest) -> bool:
        """Whether the answer reports a refusal and nothing done (an error note and no
        success note): the same form posted again is then a new try, refused or not,
        never "already sent"."""
        storage = messages.get_messages(request)
        levels = {m.level for m in storage}
        if isinstance(storage, BaseStorage):
            storage.used = False  # (read, not shown: the next page shows them)
        return messages.ERROR in levels and messages.SUCCESS not in levels

    @staticmethod
    def digest(request: HttpRequest, token: str) -> str:
        """What identifies one submission: the token, the path and the posted fields."""
        h = hashlib.sha256()
        h.update(f"{request.user.pk}\0{token}".encode())
        h.update(b"\0" + request.path.encode())
        for key in sorted(request.POST):
            if key in (FORM_TOKEN, "csrfmiddlewaretoken"):
                continue
            for value in request.POST.getlist(key):
                h.update(b"\0" + key.encode() + b"=" + value.encode())
        return h.hexdigest()

    @staticmethod
    def _again(request: HttpRequest, token: str) -> HttpResponse:
        from .models import FormSubmission

        first = None
        for _attempt in range(50):  # the first submission may still be running
            first = FormSubmission.objects.filter(token=token).first()
            if first is None or first.done:
                break
            time.sleep(0.1)
        target = first.target if first is not None and first.done else ""
        if not target.startswith("/") or target.startswith("//"):
            target = request.path
        messages.info(
            request,
            _("Ce formulaire avait déjà été envoyé : rien de plus n'a été enregistré."),
        )
        return HttpResponseRedirect(target)


class MethodNotAllowedMiddleware:
    """An address that takes a form only (``require_POST``), opened as a page: a French
    page that says so, with a way back (Django's answer is an empty page)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if response.status_code != 405 or response.content:
            return response
        page = render(request, "405.html", status=405)
        if response.has_header("Allow"):
            page["Allow"] = response["Allow"]
        return page


class BusyMiddleware:
    """A write that waited more than :data:`.busy.WAIT_SECONDS` for its game's lock (a
    long correction, a stuck writer): a French "busy, retry" page (HTTP 503 with
    ``Retry-After``), never the server's error page. A game whose dates cannot be
    converted (stored before they were bounded): a French page that says so."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exc: Exception) -> HttpResponse | None:
        if isinstance(exc, OverflowError):  # (a game stored before dates were bounded)
            unreadable = {"title": _("Partie illisible"), "message": busy.OUT_OF_BOUNDS}
            return render(request, "busy.html", unreadable, status=500)
        if not busy.is_busy(exc):
            return None
        context: dict[str, object] = {
            "title": _("Partie occupée"),
            "message": busy.MESSAGE,
            "retry": True,
        }
        response = render(request, "busy.html", context, status=503)
        response["Retry-After"] = "10"
        return response
