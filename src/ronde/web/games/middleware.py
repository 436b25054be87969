"""French first: the language is French whatever the browser says.

Django's ``LocaleMiddleware`` follows the browser's ``Accept-Language``; the game
is played on a French forum and French is today the only language of
``settings.LANGUAGES``, so only a language cookie naming another language of that
list (none yet) would switch.
"""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.middleware.csrf import get_token
from django.middleware.locale import LocaleMiddleware
from django.utils import translation


class FrenchFirstLocaleMiddleware(LocaleMiddleware):
    def process_request(self, request: HttpRequest) -> None:
        language = request.COOKIES.get(settings.LANGUAGE_COOKIE_NAME, "")
        if language not in dict(settings.LANGUAGES):
            language = settings.LANGUAGE_CODE
        translation.activate(language)
        request.LANGUAGE_CODE = translation.get_language()


class CsrfSlotMiddleware:
    """Fills the CSRF slots of cached fragments (``{% csrf_slot %}``) with this request's
    token, so forms may live in fragments cached across requests and sessions."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        from .templatetags.ronde import CSRF_SLOT

        response = self.get_response(request)
        slot = CSRF_SLOT.encode()
        if (
            not getattr(response, "streaming", False)
            and response.get("Content-Type", "").startswith("text/html")
            and slot in response.content
        ):
            response.content = response.content.replace(slot, get_token(request).encode())
        return response
