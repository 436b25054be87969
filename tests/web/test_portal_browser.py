"""The portal on a phone, in a real browser (Playwright driving Debian's Chromium):
at 390 px no page of a simulated J7 overflows horizontally, for every viewer (each
character once, a chorus member, a game master, the public), and the player's
"Aujourd'hui" is within the first screen; an accessibility scan of each kind of page
with axe-core (npm package, injected by Playwright) finds no serious or critical
violation.

Skipped when Chromium is absent; the axe-core scan is skipped when npm cannot provide
axe-core (it is installed once in ``out/npm`` with ``npm install --prefix out/npm``).
Screenshots go to ``out/playwright/portal-*.png``.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.test import Client

from ronde.web.games import service

from .test_browser import ARTEFACTS, CHROMIUM
from .test_portal import Crawl, crawl_game, crawl_urls

pytestmark = pytest.mark.skipif(
    not (Path(CHROMIUM).exists() or shutil.which(CHROMIUM)),
    reason=f"Chromium not found at {CHROMIUM} (apt-get install chromium; CI installs it)",
)

PHONE = {"width": 390, "height": 844}
NPM_PREFIX = Path("out/npm")
AXE = NPM_PREFIX / "node_modules" / "axe-core" / "axe.min.js"


def axe_script() -> str | None:
    """axe-core's browser script, installed with npm when missing (``None``: no npm)."""
    if not AXE.exists():
        npm = shutil.which("npm")
        if npm is None:
            return None
        NPM_PREFIX.mkdir(parents=True, exist_ok=True)
        done = subprocess.run(
            [npm, "install", "--prefix", str(NPM_PREFIX), "--no-audit", "--no-fund", "axe-core"],
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        if done.returncode != 0 or not AXE.exists():
            return None
    return AXE.read_text(encoding="utf-8")


@pytest.fixture
def crawled(transactional_db: Any) -> Iterator[tuple[Crawl, dict[str, str]]]:
    """The simulated game and one session cookie per viewer, made before Playwright
    starts (its event loop would give the test body a database connection of its own)."""
    crawl = crawl_game(slug="ronde-telephone")
    cookies = {}
    for who, user in crawl.viewers:
        if user is None:
            continue
        client = Client()
        client.force_login(user)
        cookies[who] = client.cookies[settings.SESSION_COOKIE_NAME].value
    yield crawl, cookies
    service.set_clock(None)


def _context(
    browser: Any, base: str, cookie: str | None, width: int = 390, *, bypass_csp: bool = False
) -> Any:
    # bypass_csp: the test injects axe-core as an inline script, which the site's
    # Content-Security-Policy (rightly) refuses
    ctx = browser.new_context(viewport={**PHONE, "width": width}, bypass_csp=bypass_csp)
    if cookie is not None:
        ctx.add_cookies([{"name": settings.SESSION_COOKIE_NAME, "value": cookie, "url": base}])
    return ctx


def _shot(page: Any, name: str, *, full: bool = False) -> None:
    ARTEFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTEFACTS / f"portal-{name}.png"), full_page=full)


def test_every_page_fits_a_phone_and_today_comes_first(
    crawled: tuple[Crawl, dict[str, str]], live_server: Any, browser: Any
) -> None:
    crawl, cookies = crawled
    base = live_server.url
    wide: list[str] = []
    checked = 0
    shot_kinds: set[str] = set()
    for who, _user in crawl.viewers:
        ctx = _context(browser, base, cookies.get(who))
        page = ctx.new_page()
        for url in crawl_urls(crawl, who):
            page.goto(base + url)
            width = page.evaluate("document.documentElement.scrollWidth")
            if width > PHONE["width"]:
                culprit = page.evaluate(
                    """() => [...document.querySelectorAll('body *')]
                    .filter(e => e.getBoundingClientRect().right > 391)
                    .slice(0, 3).map(e => e.tagName + '.' + e.className + ' '
                    + (e.id || '') + ' ' + Math.round(e.getBoundingClientRect().right))"""
                )
                wide.append(f"{who} {url}: {width} px {culprit}")
            checked += 1
            if url.endswith("/moi/"):
                box = page.locator("#today-h").bounding_box()
                assert box is not None, (who, url)
                assert box["y"] + box["height"] <= PHONE["height"], (who, box)
                first = page.locator("#aujourdhui li").first.bounding_box()
                assert first is not None and first["y"] < PHONE["height"], (who, first)
                if checked < 12:
                    _shot(page, f"390-{who}")
            kind = url.strip("/").replace("/", "-") or "accueil"
            if kind not in shot_kinds and "action" not in kind and "journal" not in kind:
                shot_kinds.add(kind)
                _shot(page, f"390-full-{kind}", full=True)
        ctx.close()
    assert not wide, "\n".join(wide)
    assert checked >= 60


def test_accessibility_scan_with_axe_core(
    crawled: tuple[Crawl, dict[str, str]], live_server: Any, browser: Any
) -> None:
    script = axe_script()
    if script is None:
        pytest.skip("npm is unavailable: axe-core cannot be installed (CI has node and npm)")
    crawl, cookies = crawled
    base = live_server.url
    # each kind of page once, for a few viewers: players (one with the chorus), game master
    players = [who for who, user in crawl.viewers if who not in ("Mj", "public")]
    scans: list[tuple[str, str]] = []
    seen_kinds: set[str] = set()
    for who in [*players[:3], *[p for p in players if "/choeur/" in str(crawl_urls(crawl, p))][:1]]:
        scans += [(who, u) for u in crawl_urls(crawl, who)]
    for who in ("Mj", "public"):
        for u in crawl_urls(crawl, who):
            kind = u.split("/action/")[0] + ("/action/" if "/action/" in u else "")
            if kind not in seen_kinds or "/action/" not in u:
                seen_kinds.add(kind)
                scans.append((who, u))
    serious: list[str] = []
    for width in (390, 1280):
        for who, url in scans:
            if width == 1280 and who != "Mj":
                continue  # the console's density at 1280 px; the players' pages at 390 px
            ctx = _context(browser, base, cookies.get(who), width, bypass_csp=True)
            page = ctx.new_page()
            page.goto(base + url)
            page.add_script_tag(content=script)
            result = page.evaluate(
                "async () => { const r = await axe.run(document, "
                "{resultTypes: ['violations']}); return r.violations.map(v => "
                "({id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.slice(0, 3)"
                ".map(n => n.target.join(' '))})); }"
            )
            for v in result:
                if v["impact"] in ("serious", "critical"):
                    serious.append(f"{width}px {who} {url}: {json.dumps(v, ensure_ascii=False)}")
            if width == 1280 and url == f"/mj/{crawl.game.slug}/":
                _shot(page, "1280-console")
            ctx.close()
    assert not serious, "\n".join(serious[:30])
