"""A parser never crashes: arbitrary text, mangled pages and random HTML give a
result with diagnostics, never an exception."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ronde.engine.views import view
from ronde.forum.proposals import parse_thread
from ronde.forum.thread import read_thread

from .conftest import GMS, new_game, page

GM_VIEW: dict[str, Any] = view(new_game().state, "game_master")
PAGE = page("trial_woody.txt")
HTML = page("trial_anonymous.html")

FORUMISH = st.sampled_from(
    [
        "7 nov. 2025, 09:40",
        "Hier à 12:00",
        "Aujourd'hui à 08:15",
        "[ Lien ] [ Copier ] [ Citer ] [ ! ]",
        "Dernière édition : ",
        "  [-2, 3]",
        "  en ville ou aux portes",
        "Moi, Tartine, pose une plainte contre Grodoudou pour avoir trop cabotiné",
        " dans son rôle de ",
        "Woody",
        "> Procès : ",
        "Grodoudou",
        "\n",
        "<div class='forum-post'>",
        "<blockquote>",
        "</div>",
        "\u200b",
        "?",
    ]
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(max_size=400))
def test_arbitrary_text_never_crashes(text: str) -> None:
    result = parse_thread(text, GM_VIEW, game_masters=GMS)
    assert result.thread.posts is not None
    if not result.thread.posts:
        assert any(d.level == "error" for d in result.diagnostics)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.one_of(FORUMISH, st.text(max_size=30)), max_size=40))
def test_forum_shaped_noise_never_crashes(parts: list[str]) -> None:
    parse_thread("".join(parts), GM_VIEW, game_masters=GMS)
    parse_thread("\n".join(parts), None)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(min_value=0, max_value=len(PAGE)), st.integers(min_value=0, max_value=400))
def test_a_cut_page_never_crashes(start: int, length: int) -> None:
    parse_thread(PAGE[start : start + length], GM_VIEW, game_masters=GMS)
    cut = HTML[start % len(HTML) : start % len(HTML) + length * 10]
    read_thread(cut)


PAGER = st.sampled_from(["Page", " 1", " 2", " 3", "/3", "Page 2/3", "Jour 5", "Jour 0"])


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(st.lists(st.one_of(FORUMISH, PAGER, st.text(max_size=20)), max_size=25), max_size=4)
)
def test_pages_given_apart_never_crash(pages: list[list[str]]) -> None:
    from datetime import date

    from ronde.forum.proposals import parse_pages

    result = parse_pages(
        ["\n".join(p) for p in pages], GM_VIEW, game_masters=GMS, start=date(2025, 11, 3)
    )
    assert [p.index for p in result.thread.posts] == list(range(1, len(result.thread.posts) + 1))
