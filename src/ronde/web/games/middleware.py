"""French first: the language is French unless the user chose another one.

Django's ``LocaleMiddleware`` follows the browser's ``Accept-Language``; the game
is played on a French forum, so only the language cookie (set by the language
form at the bottom of every page) switches to English.
"""

from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest
from django.middleware.locale import LocaleMiddleware
from django.utils import translation


class FrenchFirstLocaleMiddleware(LocaleMiddleware):
    def process_request(self, request: HttpRequest) -> None:
        language = request.COOKIES.get(settings.LANGUAGE_COOKIE_NAME, "")
        if language not in dict(settings.LANGUAGES):
            language = settings.LANGUAGE_CODE
        translation.activate(language)
        request.LANGUAGE_CODE = translation.get_language()
