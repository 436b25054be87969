"""Game masters' forum templates cannot take the server down (BoundedSandbox).

Any account may create a game and edit its templates, and one server renders every
game's: a template that would make a huge text or spin for ever is refused when it is
compiled, or stopped while it renders, and the message falls back to the engine's text.
"""

from __future__ import annotations

import resource
import tracemalloc
from importlib import resources
from typing import Any

import pytest

from ronde.forum.render import (
    MAX_OUTPUT,
    MAX_TURNS,
    MAX_WORK,
    MAX_WORK_TOTAL,
    BoundedSandbox,
    check_template,
    load_templates,
    render,
)

#: an asleep notice (private), with a long player text to loop over
MESSAGE = {
    "kind": "asleep",
    "public": False,
    "to": ["S1"],
    "text": "Vous dormez.",
    "data": {"day": 3, "names": ["Ana", "Bob", "Cid"], "long": "x" * 5_000},
}

COSTLY = {
    "text times a large number": '{{ "a" * 100000000 }}',
    "power": "{{ 10 ** 10 ** 10 }}",
    "concatenation": "{% set a = data.long ~ data.long %}{{ a }}",
    "string formatting": '{{ "%100000000d" % 1 }}',
    "range": "{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}",
    "padding filter": '{{ "x"|center(900000) }}',
    "padding through map": '{{ data.names|map("center", 900000)|join }}',
    "padding method": '{{ "x".ljust(900000) }}',
    "a separator made of the data": "{{ data.long|list|join(data.long)|list|join(data.long) }}",
    "a huge number": "{{ data.long|truncate(100000000000) }}",
    "a macro": "{% macro m() %}{{ m() }}{% endmacro %}{{ m() }}",
    "an include": '{% include "asleep.txt" %}',
    "a captured block": "{% set b %}{{ text }}{% endset %}{{ b }}",
    "a recursive loop": "{% for x in data.names recursive %}{{ loop(data.names) }}{% endfor %}",
}


@pytest.mark.parametrize("name", sorted(COSTLY))
def test_a_costly_construction_is_refused_when_saved_and_falls_back(name: str) -> None:
    text = COSTLY[name]
    assert check_template(text), name  # (the console warns when it is saved)
    r = render(MESSAGE, load_templates(overrides={"asleep.txt": text}))
    assert r.text == "Vous dormez." and "TemplateSyntaxError" in r.problem


def test_loops_nested_over_a_long_text_stop_at_the_budget() -> None:
    text = "{% for a in data.long %}{% for b in data.long %}{% endfor %}{% endfor %}OK"
    assert check_template(text) == ""  # (allowed: only its turns are too many)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_utime
    r = render(MESSAGE, load_templates(overrides={"asleep.txt": text}))
    assert r.text == "Vous dormez." and f"{MAX_TURNS}" in r.problem
    # (25 million turns would take many seconds; the budget stops it in a fraction)
    assert resource.getrusage(resource.RUSAGE_SELF).ru_utime - before < 5


def test_a_long_text_stops_at_the_output_limit() -> None:
    text = (
        "{% for a in data.long %}{% for n in data.names %}{{ data.long }}{% endfor %}{% endfor %}"
    )
    r = render(MESSAGE, load_templates(overrides={"asleep.txt": text}))
    assert r.text == "Vous dormez." and f"{MAX_OUTPUT}" in r.problem


def test_an_ordinary_template_renders() -> None:
    text = (
        "{% set n = data.names|length %}[b]J{{ data.day }}[/b] "
        "{% for who in data.names|sort %}{{ who|plain }}{{ ', ' if not loop.last }}{% endfor %}"
        " ({{ n }}) {{ to|join_fr }} {{ perso('woody') }} {{ data.get('day') }}"
    )
    assert check_template(text) == ""
    r = render(MESSAGE, load_templates(overrides={"asleep.txt": text}))
    assert r.problem == ""
    assert r.text.startswith("[b]J3[/b] Ana, Bob, Cid (3)") and "Woody" in r.text


def test_every_default_template_keeps_to_the_allowed_constructions() -> None:
    folder = resources.files("ronde.forum").joinpath("templates")
    names = [f.name for f in folder.iterdir() if f.name.endswith(".txt")]
    assert len(names) > 10
    for name in names:
        assert check_template(folder.joinpath(name).read_text("utf-8")) == "", name


#: templates nested deeper than Jinja's parser or Python's compiler can go: before, a
#: ``RecursionError`` or ``IndentationError`` escaped render() and the console's save
TOO_DEEP = {
    "parentheses": "{{ " + "(" * 100 + "1" + ")" * 100 + " }}",
    "filters": "{{ 1" + "|abs" * 2000 + " }}",
    "attributes": "{{ data" + ".x" * 3000 + " }}",
    "negations": "{{ " + "not " * 2000 + "1 }}",
    "a list": "{{ " + "[" * 2000 + "]" * 2000 + " }}",
    "blocks": "{% if 1 %}" * 100 + "x" + "{% endif %}" * 100,
}


@pytest.mark.parametrize("name", sorted(TOO_DEEP))
def test_a_template_nested_too_deep_is_refused_and_falls_back(name: str) -> None:
    text = TOO_DEEP[name]
    assert "trop imbriqué" in check_template(text)
    r = render(MESSAGE, load_templates(overrides={"asleep.txt": text}))
    assert r.text == "Vous dormez." and "trop imbriqué" in r.problem


def test_a_broken_template_is_parsed_once_not_once_a_message(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    parsed: list[str] = []
    parse = BoundedSandbox._parse

    def counting(self: BoundedSandbox, source: str, name: str | None, filename: str | None):  # type: ignore[no-untyped-def]
        parsed.append(source)
        return parse(self, source, name, filename)

    monkeypatch.setattr(BoundedSandbox, "_parse", counting)
    tpl = load_templates(overrides={"asleep.txt": TOO_DEEP["filters"]})
    for _ in range(5):
        assert "trop imbriqué" in render(MESSAGE, tpl).problem
    assert len(parsed) <= 1  # (none: an earlier page of this thread already parsed it)


_TEN = "[{0},{0},{0},{0},{0},{0},{0},{0},{0},{0}]"
#: a list holding the same list 10 times, 10 times over: 10 000 × 5 000 items, no memory
_REFS = (
    "{% set l = data.long|list %}"
    f"{{% set m = {_TEN.format('l')} %}}{{% set n = {_TEN.format('m')} %}}"
    f"{{% set o = {_TEN.format('n')} %}}"
)
#: allowed constructions that made a huge value or spun in a single expression, before
#: the output limit or the loop budget could see it (gigabytes, minutes or exponential)
COSTLY_AT_RENDER = {
    "a join of a join": '{{ "abcdefgh"' + '|join(",")' * 40 + "|length }}",
    "a long separator": '{{ data.long|join("' + "y" * 9000 + '")|length }}',
    "a join inside map": '{{ data.long|list|map("join", "' + "z" * 5000 + '")|list|length }}',
    "references made a text": _REFS + "{{ o|string|length }}",
    "references written": _REFS + f"{{% set p = {_TEN.format('o')} %}}{{{{ p }}}}",
    "references through a function": _REFS + "{{ pseudo(o)|length }}",
    "references compared": _REFS + "{{ o == o|list }}",
    "references summed": _REFS + "{{ n|sum(start=[])|length }}",
    "lists summed": '{{ data.long|list|map("list")|sum(start=[])|length }}',
    "a huge rounding": "{{ 999999|round(-999999) }}",
    "each item against a long text": '{{ data.long|list|select("in", data.long)|list|length }}',
    "comparisons in loops": (
        "{% set l = data.long|list %}{% set k = data.long|list %}"
        "{% for a in data.long %}{% for b in data.names %}{% if l == k %}{% endif %}"
        "{% endfor %}{% endfor %}"
    ),
    "a long loop body": (
        "{% for a in data.long %}{% for b in data.names %}"
        + "{% if a %}{% endif %}" * 500
        + "{% endfor %}{% endfor %}"
    ),
    "set differences in loops": (
        "{% set d = {"
        + ",".join(f'"{i}": 0' for i in range(1500))
        + "} %}{% set k = d.keys() %}{% for a in data.long %}{% for b in data.names %}"
        "{% set z = k - k %}{% endfor %}{% endfor %}"
    ),
    "slices in loops": (
        "{% for a in data.long %}{% for b in data.names %}{% set s = data.long[::-1] %}"
        "{% endfor %}{% endfor %}"
    ),
}


@pytest.mark.parametrize("name", sorted(COSTLY_AT_RENDER))
def test_a_construction_costly_when_rendered_stops_early(name: str) -> None:
    text = COSTLY_AT_RENDER[name]
    assert check_template(text) == ""  # (allowed: only what it makes is too much)
    templates = load_templates(overrides={"asleep.txt": text})
    tracemalloc.start()
    try:
        r = render(MESSAGE, templates)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert r.text == "Vous dormez." and "TemplateTooCostly" in r.problem, r.problem
    assert peak < 20_000_000  # (stopped before the value is made: not hundreds of MB)


def test_ordinary_filters_still_work_within_the_budget() -> None:
    text = (
        '{{ nothing|default("rien") }} {{ data.names|map("upper")|join(", ") }} '
        "{{ 3.14159|round(2) }} {{ [1, 2]|sum }} {{ data.names|select('ne', 'Bob')|join_fr }}"
        " {% if 'Ana' in data.names %}A{% endif %}{% if data.day is number %}N{% endif %}"
        " {{ data.long[:3] }} {{ data.names|sort(reverse=true)|first }}"
        " {{ data.names|map('lower') }}"
    )
    assert check_template(text) == ""
    r = render(MESSAGE, load_templates(overrides={"asleep.txt": text}))
    assert r.problem == ""
    assert r.text == "rien ANA, BOB, CID 3.14 3 Ana et Cid AN xxx Cid ['ana', 'bob', 'cid']"


def test_a_page_of_messages_each_just_under_the_budget_stops_too() -> None:
    # each rendering costs about half of its own budget (50 turns, each reading the long
    # text 4 times): alone it renders, but not 30 times over with the same templates
    body = "{% if a == data.long %}{% endif %}" * 4
    text = "{% for a in data.long[:50] %}" + body + "{% endfor %}OK"
    templates = load_templates(overrides={"asleep.txt": text})
    results = [render(MESSAGE, templates) for _ in range(30)]
    assert results[0].problem == "" and results[0].text == "OK"
    stopped = [r for r in results if r.problem]
    assert stopped and f"{MAX_WORK_TOTAL}" in stopped[0].problem
    assert len(results) - len(stopped) <= MAX_WORK_TOTAL // (MAX_WORK // 4)


def test_a_very_long_template_is_refused_before_it_is_parsed() -> None:
    text = "{{ " + "(" * 50_000  # (the parser would recurse 50 000 deep)
    assert "trop long" in check_template(text)
    r = render(MESSAGE, load_templates(overrides={"asleep.txt": text}))
    assert r.text == "Vous dormez." and "trop long" in r.problem


def test_a_whole_game_with_the_default_templates_stays_far_below_the_budgets() -> None:
    import random

    from ronde.forum.render import ForumContext, forum_messages
    from ronde.sim import play

    game = play(30, random.Random(11)).game
    templates, ctx = load_templates(), ForumContext.from_game(game)
    messages = forum_messages(game)
    assert len(messages) > 100
    assert all(render(m, templates, ctx).problem == "" for m in messages)
    spent = templates.env.spent  # type: ignore[attr-defined]
    assert 0 < spent < MAX_WORK_TOTAL // 20


def test_pages_reuse_compiled_templates_with_a_budget_each(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A page loads the game's templates: the next page (same templates) compiles
    nothing again and has its whole budget; a template edited in the console is used
    at once; a thread of its own compiles for itself (an environment is never shared
    between two pages at once)."""
    import threading

    compiled: list[str | None] = []
    original = BoundedSandbox.compile

    def counted(self: BoundedSandbox, source: Any, name: Any = None, *a: Any, **k: Any) -> Any:
        compiled.append(name)
        return original(self, source, name, *a, **k)

    monkeypatch.setattr(BoundedSandbox, "compile", counted)
    body = "{% for a in data.long[:50] %}" + "{% if a == data.long %}{% endif %}" * 4
    edited = {"asleep.txt": body + "{% endfor %}OK, gardé"}
    first = load_templates(overrides=edited)
    results = [render(MESSAGE, first) for _ in range(30)]
    assert any(r.problem for r in results)  # (the page's budget spent)
    assert compiled.count("asleep.txt") == 1
    second = load_templates(overrides=edited)
    assert render(MESSAGE, second).problem == ""  # a budget of its own
    assert compiled.count("asleep.txt") == 1  # nothing compiled again
    changed = load_templates(overrides={"asleep.txt": "Autre texte."})
    assert render(MESSAGE, changed).text == "Autre texte."
    elsewhere: list[str] = []
    worker = threading.Thread(
        target=lambda: elsewhere.append(render(MESSAGE, load_templates(overrides=edited)).text)
    )
    worker.start()
    worker.join()
    assert elsewhere == ["OK, gardé"]
    assert compiled.count("asleep.txt") == 3  # (the edit, and the other thread's own)
