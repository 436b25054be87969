"""No secret leaks into a page: for simulated games at several moments, every page is
rendered as every player and as the public, and the HTML (attributes included) is
searched for what that viewer may not know:

- another player's character that the viewer's own view does not give him,
- the author of an anonymous complaint or opening (in that trial's section),
- the Ronde order (five characters in a row, either way),
- a game masters' note, a private message to someone else, another player's request.
"""

from __future__ import annotations

import functools
import html
import re
from datetime import date
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from ronde.engine.clock import parse_time
from ronde.engine.names import BY_ID
from ronde.engine.views import view
from ronde.web.games import demo, service
from ronde.web.games.models import Action, Request

pytestmark = pytest.mark.django_db

START = date(2026, 12, 1)
STATES = [(11, "J2 13:00"), (12, "J5 22:00"), (13, "J9 18:00"), (14, "J12 23:00")]

_BLOCK = re.compile(
    r"<(?:li|tr|p|option|dd|dt|h[1-6]|blockquote|section|summary|label|td)\b", re.IGNORECASE
)


def _names(character: str) -> list[str]:
    row = BY_ID[character]
    return [row.fr, row.en, character]


@functools.lru_cache(maxsize=4096)
def _word(word: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![\w-]){re.escape(word)}(?![\w-])")


def _mentions(block: str, word: str) -> bool:
    return word in block and _word(word).search(block) is not None


def _ronde_runs(ronde: list[str], length: int = 5) -> list[re.Pattern[str]]:
    """Patterns of ``length`` consecutive Ronde slots (names or ids), either direction,
    separated only by tags, spaces and punctuation."""
    sep = r"(?:\s|<[^>]*>|[,;:→>\-–|/.()])*"
    out = []
    n = len(ronde)
    for order in (ronde, ronde[::-1]):
        for i in range(n):
            run = [order[(i + k) % n] for k in range(length)]
            for pick in (0, 2):  # French names, ids
                words = [re.escape(_names(c)[pick]) for c in run]
                out.append(re.compile(sep.join(words)))
    return out


def _sections(page: str) -> dict[int, str]:
    out = {}
    for m in re.finditer(r'<section class="card" id="trial-(\d+)"(.*?)</section>', page, re.S):
        out[int(m.group(1))] = m.group(2)
    return out


def _check_page(
    page: str,
    *,
    viewer: str | None,
    gm: dict[str, Any],
    allowed: set[tuple[str, str]],
    secrets: list[str],
    runs: list[re.Pattern[str]],
    where: str,
) -> None:
    text = html.unescape(page)
    # 1. characters the viewer may not know
    blocks = _BLOCK.split(text)
    for p in gm["players"]:
        q, c = p["pseudo"], p["character"]
        if q == viewer or not p["masked"] or c is None or (q, c) in allowed:
            continue
        for block in blocks:
            if q in block and _mentions(block, q):
                for name in _names(c):
                    assert not _mentions(block, name), f"{where}: {q} is {c} in {block[:300]!r}"
    # 2. anonymous authors, in their trial's section
    sections = _sections(text)
    for t in gm["trials"]:
        section = sections.get(t["number"])
        if section is None:
            continue
        visible = {c["author"] for c in t["complaints"] if not c["anonymous"]} | set(t["accused"])
        if not t["anonymous"]:
            visible.add(t["opener"])
        hidden = {c["author"] for c in t["complaints"] if c["anonymous"]}
        if t["anonymous"]:
            hidden.add(t["opener"])
        # the Diva's "anonymous" actions are announced as hers on the FV (R7.14.1)
        visible |= {
            q
            for m in gm.get("messages", ())
            if m["public"] and m["kind"] == "diva_anonymous"
            for q in hidden
            if f"({q})" in m["text"] and re.search(rf"n°{t['number']}\b", m["text"])
        }
        for author in hidden - visible - {viewer}:
            assert not _mentions(section, author), f"{where}: trial {t['number']} names {author}"
    # 3. the Ronde order
    for pattern in runs:
        assert not pattern.search(page), f"{where}: the Ronde order ({pattern.pattern[:80]})"
    # 4. notes, others' private messages and requests
    for secret in secrets:
        assert secret not in text, f"{where}: {secret[:80]!r}"


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in [*_strings(k), *_strings(v)]]
    if isinstance(value, list | tuple | set):
        return [s for v in value for s in _strings(v)]
    return []


def _words(words: list[str]) -> re.Pattern[str]:
    alternatives = "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))
    return re.compile(rf"(?<![\w-])({alternatives})(?![\w-])")


def _pairs(value: Any, out: set[tuple[str, str]]) -> None:
    """Structured pairs of the view: ``{"player": q, "character" or "as": c}``."""
    if isinstance(value, dict):
        q = value.get("player")
        c = value.get("character", value.get("as"))
        if isinstance(q, str) and isinstance(c, str):
            out.add((q, c))
        for v in value.values():
            _pairs(v, out)
    elif isinstance(value, list | tuple):
        for v in value:
            _pairs(v, out)


def _allowed(v: dict[str, Any], viewer: str | None, gm: dict[str, Any]) -> set[tuple[str, str]]:
    """The (player, character) pairs the viewer's own view gives him: identities he
    knows, accusations, and any sentence of his view naming both (a public message)."""
    allowed = set(v.get("known", {}).items())
    for t in v["trials"]:
        for accused in t["accused"]:
            allowed.add((accused, t["supposed"]))
    if viewer is not None and v["me"].get("character"):
        allowed.add((viewer, v["me"]["character"]))
    _pairs(v, allowed)
    pseudos = [p["pseudo"] for p in gm["players"]]
    by_name = {n: c for c in BY_ID for n in _names(c)}
    pseudo_re = _words(pseudos)
    name_re = _words(list(by_name))
    for s in _strings(v):
        qs = set(pseudo_re.findall(s))
        if qs:
            for n in name_re.findall(s):
                allowed.update((q, by_name[n]) for q in qs)
    return allowed


@pytest.mark.parametrize(("seed", "until"), STATES, ids=[s[1] for s in STATES])
def test_no_page_leaks_a_secret(seed: int, until: str, clock: Any) -> None:
    service.clear_cache()
    t = parse_time(until, START)
    played = demo.play_until(t, start=START, seed=seed)
    clock(until)
    game = demo.store(played, slug=f"leak-{seed}", name="Fuite")
    actions = list(Action.objects.filter(game=game))
    for a in actions:
        a.note = f"NOTE-MJ-{a.pk}-confidentielle"
    Action.objects.bulk_update(actions, ["note"])
    notes = [a.note for a in actions]
    members = list(game.memberships.select_related("user"))
    for m in members:
        Request.objects.create(
            game=game,
            membership=m,
            action="choose_phrase",
            args={"text": f"DEMANDE-{m.pseudo}-privée"},
            created_at=t,
        )
    eng = service.current(game)
    gm = view(eng.state, "game_master")
    ronde = gm["ronde"]
    runs = _ronde_runs(ronde)
    todo = list(gm["todo"])
    public_page = Client().get(reverse("public", args=[game.slug])).content.decode()
    pv = service.view_for(game, "public")
    _check_page(
        public_page,
        viewer=None,
        gm=gm,
        allowed=_allowed({**pv, "me": {}}, None, gm),
        secrets=notes
        + todo
        + [
            m["text"]
            for m in gm["messages"]
            if not m["public"] and m["text"] not in "\n".join(_strings(pv))
        ]
        + [f"DEMANDE-{m.pseudo}-privée" for m in members],
        runs=runs,
        where="public",
    )
    checked = 0
    for m in members:
        v = service.view_for(game, m.pseudo)
        mine = "\n".join(_strings(v))
        others = [
            x["text"]
            for x in gm["messages"]
            if not x["public"] and m.pseudo not in x["to"] and x["text"] not in mine
        ]
        secrets = (
            notes + todo + others + [f"DEMANDE-{o.pseudo}-privée" for o in members if o.pk != m.pk]
        )
        client = Client()
        client.force_login(m.user)
        pages = [reverse("player", args=[game.slug]), reverse("public", args=[game.slug])]
        if "chorus" in v:
            pages.append(reverse("chorus", args=[game.slug]))
        for url in pages:
            r = client.get(url)
            assert r.status_code == 200, url
            page = r.content.decode()
            _check_page(
                page,
                viewer=m.pseudo,
                gm=gm,
                allowed=_allowed(v, m.pseudo, gm),
                secrets=secrets,
                runs=runs,
                where=f"{m.pseudo} {url}",
            )
            checked += 1
        assert f"DEMANDE-{m.pseudo}-privée" in html.unescape(
            client.get(reverse("player", args=[game.slug])).content.decode()
        )
    assert checked >= 2 * len(members)


def test_the_checks_catch_a_leak() -> None:
    """The checker itself: a page naming a secret character, an anonymous author or the
    Ronde order fails."""
    gm = {
        "players": [
            {"pseudo": "Bob", "character": "woody", "masked": True},
            {"pseudo": "Ana", "character": "alice", "masked": True},
        ],
        "trials": [
            {
                "number": 1,
                "accused": ["Bob"],
                "opener": "Ana",
                "anonymous": True,
                "complaints": [],
            }
        ],
    }
    ronde = ["alice", "woody", "pierrot", "halus", "little_mermaid", "polichinelle"]
    kwargs: dict[str, Any] = {
        "viewer": None,
        "gm": gm,
        "allowed": set(),
        "secrets": ["NOTE"],
        "runs": _ronde_runs(ronde),
        "where": "t",
    }
    _check_page("<p>rien</p>", **kwargs)
    for page in (
        "<ul><li>Bob : Woody</li></ul>",
        '<option value="Bob" data-c="woody">',
        '<section class="card" id="trial-1"><p>Ana</p></section>',
        "<li>Alice</li><li>Woody</li><li>Pierrot lunaire</li><li>Halus</li><li>Petite Sirène</li>",
        "<p>NOTE</p>",
    ):
        with pytest.raises(AssertionError):
            _check_page(page, **kwargs)
