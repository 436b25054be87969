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
