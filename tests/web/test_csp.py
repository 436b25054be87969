"""The Content-Security-Policy (django-csp) and what lets it be strict: no template holds
an inline script, style or event handler (issue 28). A template that adds one fails here
before a browser refuses it."""

from __future__ import annotations

import logging
import re
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.test import Client
from django.urls import reverse

TEMPLATES = Path(__file__).resolve().parents[2] / "src" / "ronde" / "web"

INLINE = {
    "inline script": re.compile(r"<script(?![^>]*\bsrc=)[^>]*>", re.I),
    "style element": re.compile(r"<style\b", re.I),
    "style attribute": re.compile(r"\sstyle\s*=", re.I),
    "event handler": re.compile(r"\son[a-z]+\s*=\s*[\"']", re.I),
    "javascript: link": re.compile(r"javascript:", re.I),
    "htmx code": re.compile(r"\bhx-on|hx-(?:vals|headers)=[\"']\s*js:|hx-trigger=\"[^\"]*\[", re.I),
}


def test_no_template_holds_inline_code_or_style() -> None:
    found = []
    for path in sorted(TEMPLATES.rglob("templates/**/*.html")):
        text = path.read_text(encoding="utf-8")
        for what, pattern in INLINE.items():
            for match in pattern.finditer(text):
                line = text.count("\n", 0, match.start()) + 1
                found.append(f"{path.relative_to(TEMPLATES)}:{line}: {what}")
    assert not found, "\n".join(found)


@pytest.mark.django_db
def test_pages_send_a_strict_policy(client: Client) -> None:
    r = client.get(reverse("login"))
    policy = r.headers.get("Content-Security-Policy", "")
    directives = dict(
        (part.split()[0], part.split()[1:]) for part in policy.split(";") if part.strip()
    )
    assert directives["script-src"] == ["'self'"] and directives["style-src"] == ["'self'"]
    assert directives["object-src"] == ["'none'"] and directives["frame-ancestors"] == ["'none'"]
    assert "unsafe-inline" not in policy and "unsafe-eval" not in policy
    page = r.content.decode()
    assert "ronde/ronde.css" in page and "ronde/ronde.js" in page
    # htmx evaluates nothing (no eval under the policy) and adds no style of its own
    assert '"allowEval": false' in page and '"includeIndicatorStyles": false' in page


def _directives(policy: str) -> dict[str, list[str]]:
    return {part.split()[0]: part.split()[1:] for part in policy.split(";") if part.strip()}


@pytest.mark.django_db
def test_forms_may_go_to_eternaltwin_only_when_it_is_set(client: Client, settings: Any) -> None:
    """« Se connecter avec Eternaltwin » posts here and is redirected to Eternaltwin: the
    browser checks ``form-action`` against that hop, so its origin (its path and query
    left out, and nothing else) is admitted when Eternaltwin is set, and only then."""
    settings.ETERNALTWIN_URL = ""
    settings.ETERNALTWIN_CLIENT_ID = settings.ETERNALTWIN_CLIENT_SECRET = ""
    off = _directives(client.get(reverse("login")).headers["Content-Security-Policy"])
    assert off["form-action"] == ["'self'"]
    settings.ETERNALTWIN_URL = "https://eternaltwin.example:8443/chemin/?x=1"
    settings.ETERNALTWIN_CLIENT_ID = "ronde@clients"
    settings.ETERNALTWIN_CLIENT_SECRET = "secret"
    on = _directives(client.get(reverse("login")).headers["Content-Security-Policy"])
    assert on["form-action"] == ["'self'", "https://eternaltwin.example:8443"]
    assert on["script-src"] == ["'self'"] and on["connect-src"] == ["'self'"]


@pytest.mark.django_db
def test_every_request_has_one_access_log_line(client: Client, caplog: Any) -> None:
    with caplog.at_level(logging.INFO, logger="ronde.access"):
        client.get(reverse("health") + "?jeton=secret")
    lines = [r.getMessage() for r in caplog.records if r.name == "ronde.access"]
    assert len(lines) == 1 and re.search(r" GET /sante/ 200 \d+ms user=-$", lines[0]), lines
    assert "secret" not in lines[0]  # never the query string (invitation tokens travel there)
    assert settings.LOGGING["loggers"]["waitress.queue"]["level"] in ("ERROR", "DEBUG")


@pytest.mark.django_db
def test_an_eternaltwin_over_http_is_admitted_and_a_url_without_origin_adds_nothing(
    client: Client, settings: Any
) -> None:
    """A local Eternaltwin (a test server, a LAN) answers over plain HTTP; a URL with no
    scheme has no origin to admit."""
    settings.ETERNALTWIN_CLIENT_ID = "ronde@clients"
    settings.ETERNALTWIN_CLIENT_SECRET = "secret"
    settings.ETERNALTWIN_URL = "http://127.0.0.1:50320/"
    on = _directives(client.get(reverse("login")).headers["Content-Security-Policy"])
    assert on["form-action"] == ["'self'", "http://127.0.0.1:50320"]
    settings.ETERNALTWIN_URL = "eternaltwin.example"
    off = _directives(client.get(reverse("login")).headers["Content-Security-Policy"])
    assert off["form-action"] == ["'self'"]


@pytest.mark.django_db
def test_the_access_log_names_the_account_the_address_and_a_bounded_path(
    client: Client, caplog: Any
) -> None:
    from django.contrib.auth import get_user_model

    user = get_user_model().objects.create_user("Lecteur", password="lecteur-secret-42")
    client.force_login(user)
    long_path = "/" + "a" * 400
    with caplog.at_level(logging.INFO, logger="ronde.access"):
        client.get(reverse("home"), REMOTE_ADDR="203.0.113.7")
        client.get(long_path)
        # a bot naming another host: refused before any account is read, logged all the same
        assert Client().get(reverse("home"), HTTP_HOST="ailleurs.example").status_code == 400
    lines = [r.getMessage() for r in caplog.records if r.name == "ronde.access"]
    assert len(lines) == 3, lines
    assert re.fullmatch(rf"203\.0\.113\.7 GET / 200 \d+ms user={user.pk}", lines[0]), lines
    assert lines[1].split()[2] == long_path[:300]
    assert re.fullmatch(r"127\.0\.0\.1 GET / 400 \d+ms user=-", lines[2]), lines
