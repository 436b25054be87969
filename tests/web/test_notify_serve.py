"""Issue 24's "done when", measured on ``ronde serve --demo`` as a browser would (HTTP,
the server in its own process with its notification worker):

- after each player has opened his page once, "À poster" lists no private message still
  due by hand under the default setting; under "by MP" it lists them as before; the
  game masters' delivery page says who has read what, and when;
- a player who asked to be told receives, within 5 s of the game master's answer to his
  request, one e-mail on the local SMTP server and one push on the local push service
  (decrypted with his browser's keys); the same answer submitted twice sends nothing more.
"""

from __future__ import annotations

import html
import os
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests

from ronde.web.cli import DEMO_GM_PASSWORD, DEMO_PLAYER_PASSWORD

from .notify_parts import BrowserKeys, free_port, push_service, smtp_server, wait_for

RONDE = Path(sys.executable).with_name("ronde")


@pytest.fixture
def server() -> Iterator[tuple[str, Any, Any]]:
    """``ronde serve --demo`` in a data folder of its own, its e-mail and push pointed at
    local servers; yields its address and the two servers."""
    with smtp_server() as smtp, push_service() as pushes, tempfile.TemporaryDirectory() as d:
        port = free_port()
        env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL",)}
        env.update(
            RONDE_DATA_DIR=d,
            RONDE_EMAIL_HOST="127.0.0.1",
            RONDE_EMAIL_PORT=str(smtp.port),
            RONDE_PUSH_HOSTS="127.0.0.1",
            RONDE_SITE_URL=f"http://127.0.0.1:{port}",
            RONDE_STATIC_ROOT=str(Path(d) / "static"),
        )
        log = open(Path(d) / "serve.log", "w+")  # noqa: SIM115
        proc = subprocess.Popen(
            [str(RONDE), "serve", "--demo", "--port", str(port)],
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
        )
        base = f"http://127.0.0.1:{port}"
        try:
            up = wait_for(lambda: _up(base), bound=180, step=0.5)
            assert up, Path(d, "serve.log").read_text()
            yield base, smtp, pushes
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
            log.close()


def _up(base: str) -> bool:
    try:
        return requests.get(f"{base}/sante/", timeout=2).status_code == 200
    except requests.RequestException:
        return False


def _hidden(page: str) -> dict[str, str]:
    return {
        k: html.unescape(v)
        for k, v in re.findall(r'type="hidden" name="([^"]+)" value="([^"]*)"', page)
    }


def login(base: str, username: str, password: str) -> requests.Session:
    s = requests.Session()
    page = s.get(f"{base}/connexion/").text
    r = s.post(
        f"{base}/connexion/",
        {**_hidden(page), "username": username, "password": password},
        allow_redirects=False,
    )
    assert r.status_code == 302, (username, r.status_code)
    return s


def post_form(s: requests.Session, url: str, data: dict[str, str], page_url: str = "") -> Any:
    """Post ``data`` with the hidden fields of the form of ``page_url`` whose action is
    ``url`` (its CSRF and one-time tokens), as a browser would."""
    page = s.get(page_url or url).text
    path = url.split("://", 1)[-1].split("/", 1)[-1]
    forms = re.findall(
        r'<form[^>]*action="/?' + re.escape(path) + r'"[^>]*>(.*?)</form>', page, re.S
    )
    hidden = _hidden(forms[0] if forms else page)
    return s.post(url, {**hidden, **data}, allow_redirects=False), {**hidden, **data}


def _private(page: str) -> str:
    """The MPs still to send ("À poster", every day: ``?jour=tous``), one card each
    (``>MP à `` heads a card)."""
    part = html.unescape(page).split('id="mp-h"')[1].split("</section>")[0]
    return re.sub(r'<h3 id="gh-[0-9a-f]+">(?:J\d+ — )?MP à ', "<span>MP à ", part)


def test_done_when_on_the_demo(server: tuple[str, Any, Any]) -> None:
    base, smtp, pushes = server
    mj = login(base, "Mj", DEMO_GM_PASSWORD)
    # before anyone has looked: private messages of the past days are due by MP
    before = _private(mj.get(f"{base}/mj/demo/a-poster/?jour=tous").text)
    assert "<span>MP à " in before
    players = [f"Joueur{i:02d}" for i in range(1, 29)]
    for name in players:
        s = login(base, name, DEMO_PLAYER_PASSWORD)
        assert s.get(f"{base}/partie/demo/moi/").status_code == 200
    after = _private(mj.get(f"{base}/mj/demo/a-poster/?jour=tous").text)
    assert "Aucun MP à envoyer." in after and "<span>MP à " not in after
    seen = html.unescape(mj.get(f"{base}/mj/demo/remise/").text)
    assert "lu le J" in seen and "non lu" not in seen.split("Qui a lu quoi")[1]
    # by MP, as before: every private message again (one per recipient)
    r, _ = post_form(
        mj, f"{base}/mj/demo/remise/", {"op": "setting", "delivery": "mp", "delivery_delay": "6"}
    )
    assert r.status_code == 302
    by_mp = _private(mj.get(f"{base}/mj/demo/a-poster/?jour=tous").text)
    assert by_mp.count("<span>MP à ") >= before.count("<span>MP à ") > 0

    # a player asks to be told (e-mail confirmed, this browser subscribed)
    ana = login(base, "Joueur01", DEMO_PLAYER_PASSWORD)
    settings_url = f"{base}/partie/demo/notifications/"
    r, _ = post_form(
        ana,
        settings_url,
        {"email_address": "joueur01@example.org", "email": "on", "push": "on"},
    )
    assert r.status_code == 302
    assert wait_for(lambda: len(smtp.mails) == 1), "the confirmation e-mail"
    link = re.search(r"http://127\.0\.0\.1:\d+(/\S+)", smtp.mails[0].text)
    assert link is not None
    assert "Adresse confirmée" in html.unescape(ana.get(base + link.group(1)).text)
    keys = BrowserKeys()
    r = ana.post(
        f"{base}/notifications/appareil/",
        json=keys.subscription(pushes.url("joueur01")),
        headers={"X-CSRFToken": ana.cookies["csrftoken"]},
    )
    assert r.status_code == 200, r.text
    # he sends a request; the game master answers it
    r, _ = post_form(
        ana,
        f"{base}/partie/demo/demande/guess_ronde/",
        {"order": "alice, woody"},
        page_url=f"{base}/partie/demo/moi/",
    )
    assert r.status_code == 302
    dashboard = mj.get(f"{base}/mj/demo/").text
    refuse = re.findall(r'action="(/mj/demo/demande/\d+/refuse/)"', dashboard)
    assert refuse
    mails, pushed = len(smtp.mails), len(pushes.pushes)
    r, form = post_form(mj, base + refuse[-1], {"reason": "non"}, page_url=f"{base}/mj/demo/")
    assert r.status_code == 302
    # within 5 s: one e-mail, one push (the server's worker sent them after the commit)
    assert wait_for(lambda: len(smtp.mails) > mails and len(pushes.pushes) > pushed, bound=5)
    assert len(smtp.mails) == mails + 1 and len(pushes.pushes) == pushed + 1
    assert smtp.mails[-1].to == ["joueur01@example.org"]
    assert "Les MJ ont répondu à votre demande." in smtp.mails[-1].text
    assert keys.decrypt(pushes.pushes[-1].body)["body"] == "Les MJ ont répondu à votre demande."
    # the same answer submitted again: nothing more
    mj.post(base + refuse[-1], form, allow_redirects=False)
    time.sleep(3)
    assert len(smtp.mails) == mails + 1 and len(pushes.pushes) == pushed + 1
