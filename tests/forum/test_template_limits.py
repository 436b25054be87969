"""Game masters' forum templates cannot take the server down (BoundedSandbox).

Any account may create a game and edit its templates, and one server renders every
game's: a template that would make a huge text or spin for ever is refused when it is
compiled, or stopped while it renders, and the message falls back to the engine's text.
"""

from __future__ import annotations

import resource
from importlib import resources

import pytest

from ronde.forum.render import (
    MAX_OUTPUT,
    MAX_TURNS,
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
