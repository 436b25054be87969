"""Rendering announcements and private messages in forum markup (and the leak test)."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import pytest

from ronde.engine.events import TrialOpened
from ronde.engine.game import Game
from ronde.forum.render import (
    ZWSP,
    ForumContext,
    forum_messages,
    load_templates,
    render,
    render_message,
)
from ronde.sim import play

TEMPLATES = load_templates()


@pytest.fixture(scope="module")
def games() -> list[Game]:
    return [play(28, random.Random(seed)).game for seed in (1, 2, 3)]


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _strings(v)
    elif isinstance(value, list | tuple):
        for v in value:
            yield from _strings(v)


def test_every_message_of_a_simulated_game_renders(games: list[Game]) -> None:
    for game in games:
        ctx = ForumContext.from_game(game)
        kinds = set()
        for m in forum_messages(game):
            r = render(m, TEMPLATES, ctx)
            assert not r.problem, (m["kind"], r.problem)
            assert r.text.strip()
            kinds.add(m["kind"])
        assert {"role_reveal", "trial_opened", "trial_ended", "day_summary"} <= kinds
        assert "reminder_j13" in kinds


def test_private_messages_leak_nothing(games: list[Game]) -> None:
    """A message rendered for player P uses only that message (which the engine
    addressed to P) and the pseudos: it names no other player unless the message is
    about him by rule (he is in its data or its text), and public facts change
    nothing in it."""
    for game in games:
        ctx = ForumContext.from_game(game)
        bare = ForumContext(pseudos=ctx.pseudos, start=ctx.start)
        checked = 0
        for m in forum_messages(game):
            if m["public"] or not m["to"]:
                continue
            text = render_message(m, TEMPLATES, ctx)
            assert text == render_message(m, TEMPLATES, bare)
            about = set(_strings(m["data"])) | set(m["to"])
            for seat, pseudo in ctx.pseudos.items():
                # the engine's own text was addressed to P: a template adds no one else
                if seat not in about and pseudo not in m["text"]:
                    assert pseudo not in text, (m["kind"], pseudo)
            checked += 1
        assert checked > 28


def test_anonymous_openers_stay_secret(games: list[Game]) -> None:
    for game in games:
        ctx = ForumContext.from_game(game)
        openers = {e.trial: e.opener for e in game.log if isinstance(e, TrialOpened)}
        anonymous = {e.trial for e in game.log if isinstance(e, TrialOpened) and e.anonymous}
        for m in forum_messages(game):
            if m["public"] and m["kind"] in ("trial_opened", "trial_ended"):
                n = m["data"]["trial"]
                if n in anonymous and openers[n] != "chorus":
                    text = render_message(m, TEMPLATES, ctx)
                    assert ctx.pseudo(openers[n]) not in text


def test_templates_use_the_forum_markup() -> None:
    msg = {
        "kind": "role_reveal",
        "at": "2026-12-02T00:00:00+01:00",
        "to": ["Ana"],
        "public": False,
        "text": "Vous incarnez : Alice.",
        "data": {"character": "alice", "characters": ["woody", "pierrot"]},
    }
    text = render_message(msg, TEMPLATES)
    assert "[rp=Les Metteurs en scène]" in text and "[collapse=Vos règles]" in text
    assert "[b]Alice[/b]" in text and "Woody et Pierrot lunaire" in text
    assert "deux questions" in text


def test_player_text_cannot_close_a_tag() -> None:
    ctx = ForumContext(pseudos={"Ana": "Ana", "Bob": "Bob"})
    ctx.trials[1] = {
        "number": 1,
        "accused": ["Bob"],
        "supposed": "woody",
        "supposed_fr": "Woody",
        "anonymous": False,
        "opener": "Ana",
        "arguments": "Il ment [/quote][b]gras",
        "opened": "J2 10:00",
        "deadline": "J3 10:00",
    }
    msg = {"kind": "trial_opened", "public": True, "to": [], "text": "", "data": {"trial": 1}}
    text = render_message(msg, TEMPLATES, ctx)
    assert "[/quote][b]gras" not in text
    assert f"[{ZWSP}/quote]" in text
    assert text.startswith(ZWSP)  # the editor removes the first U+200B


def test_a_broken_template_falls_back_to_the_engine_text(tmp_path: Any) -> None:
    (tmp_path / "asleep.txt").write_text("{{ data.nope.nope }}", encoding="utf-8")
    tpl = load_templates(tmp_path)
    msg = {"kind": "asleep", "public": False, "to": ["A"], "text": "Dodo.", "data": {"day": 3}}
    r = render(msg, tpl)
    assert r.text == "Dodo." and "asleep.txt" in r.problem


def test_unknown_kinds_use_the_default_template() -> None:
    msg = {"kind": "brand_new", "public": False, "to": ["A"], "text": "Bonjour.", "data": {}}
    assert render_message(msg) == "[rp=Les Metteurs en scène]Bonjour.[/rp]"


def test_a_template_with_a_syntax_error_falls_back_to_the_engine_text(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from ronde.forum.render import load_templates, render

    (tmp_path / "trial_opened.txt").write_text("BROKEN {% if %}", encoding="utf-8")
    templates = load_templates(tmp_path)
    message = {"kind": "trial_opened", "text": "Procès n°1 ouvert.", "data": {}, "public": True}
    r = render(message, templates)
    assert r.text == "Procès n°1 ouvert." and "TemplateSyntaxError" in r.problem


def test_end_of_day_summaries_follow_a_game_advanced_in_place(
    games: list[Game], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The web's store advances its game in place: the messages read after new events
    (a day closed since) are those of the whole game read afresh, and a read with
    nothing new replays no day again."""
    from ronde.engine.events import DayClosed
    from ronde.forum import render as render_module

    full = games[0]
    closes = [i for i, e in enumerate(full.log) if isinstance(e, DayClosed)]
    cut = closes[len(closes) // 2] + 1
    held = Game.replay(full.log[:cut], full.catalog, full.characters)
    early = forum_messages(held)
    assert early == forum_messages(Game.replay(full.log[:cut], full.catalog, full.characters))
    held.replay_more(full.log[cut:])  # (the same object, later)
    assert forum_messages(held) == forum_messages(
        Game.replay(full.log, full.catalog, full.characters)
    )
    replays: list[int] = []
    original = render_module.Game.replay

    def counted(*args: Any, **kwargs: Any) -> Game:
        replays.append(1)
        return original(*args, **kwargs)

    monkeypatch.setattr(render_module.Game, "replay", counted)
    again = forum_messages(held)
    assert replays == [] and again == forum_messages(held)
    summary = [m for m in again if m["kind"] == "day_summary"][-1]
    summary["data"]["open_trials"].append("changé")  # (a caller's change reaches no later read)
    assert all(
        "changé" not in m["data"]["open_trials"]
        for m in forum_messages(held)
        if m["kind"] in ("day_summary", "reminder_j13")
    )
