"""Hosting middlewares: the access log, and control characters kept out of every form.

``AccessLogMiddleware`` writes one line per request on the ``ronde.access`` logger (INFO):
method, path (never the query string: invitation and reset tokens travel there), status,
milliseconds, the account's id or ``-``. ``RONDE_LOG_LEVEL=WARNING`` silences it.

``CleanInputMiddleware`` removes control characters (C0 and C1 but tab and newline) from
every value and name of the query string and of a posted form before any view reads
them: the one place every form, request and pasted forum page goes through
(:mod:`ronde.text`).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from django.http import HttpRequest, HttpResponse, QueryDict

from ronde.text import CONTROL, clean

access = logging.getLogger("ronde.access")


class AccessLogMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        started = time.perf_counter()
        response = self.get_response(request)
        if access.isEnabledFor(logging.INFO):
            user = getattr(request, "user", None)
            who = str(user.pk) if user is not None and user.is_authenticated else "-"
            address = request.META.get("REMOTE_ADDR", "-")
            access.info(
                "%s %s %s %d %.0fms user=%s",
                address,
                request.method,
                clean(request.path)[:300],
                response.status_code,
                (time.perf_counter() - started) * 1000,
                who,
            )
        return response


def _cleaned(query: QueryDict) -> QueryDict | None:
    """A copy of ``query`` without control characters, or None if it holds none."""
    if not any(
        CONTROL.search(key) or any(CONTROL.search(v) for v in values)
        for key, values in query.lists()
    ):
        return None
    copy = QueryDict(mutable=True, encoding=query.encoding)
    for key, values in query.lists():
        copy.setlist(clean(key), [clean(v) for v in values])
    copy._mutable = False
    return copy


class CleanInputMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        get = _cleaned(request.GET)
        if get is not None:
            request.GET = get  # type: ignore[assignment]
        if request.method == "POST":
            post = _cleaned(request.POST)
            if post is not None:
                request.POST = post  # type: ignore[assignment]
        return self.get_response(request)
