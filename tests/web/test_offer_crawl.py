"""Forms offer only what can be done now (issue 25): a crawl of the demo game (its J5
evening, as ``ronde serve --demo`` plays it) submits, for each player and each option
each of his portal forms offers, the engine's own check of that command on a copy of
the game (nothing recorded), and finds no option the rules refuse him.

What is left, by design, are refusals of a pair of choices that each form offers apart
(an open trial identical to one already open, A14; the Little Mermaid ordering a player
to complain in his own trial): the page cannot know which pair the player will choose;
and the Characters a Tragic Hero's monster may never be (his module's rule, in no view).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from ronde.engine.commands import Command
from ronde.engine.errors import RuleViolation
from ronde.web.games import demo, service, views_player
from ronde.web.games.models import Game

from .conftest import START, at

pytestmark = pytest.mark.django_db

#: refusals of a pair of choices, each offered on its own (see the module docstring);
#: and the Characters a Hero's monster may never be (R7.17): a rule of his character's
#: module that no view tells the web yet (left to the engine's views)
PAIRS = (
    "Un Procès identique est déjà ouvert",
    "On n'ordonne pas de porter plainte contre soi",
    "ne peut pas être monstrueux",
)
#: free text a form asks for (the crawl fills it as a player would)
TEXT = {"cell": [1, 1], "text": "le petit chat de la voisine chante faux tous les soirs"}


def _variants(form: dict[str, Any]) -> list[dict[str, Any]]:
    """The form's first choices, then each other option of each field in turn."""
    base: dict[str, Any] = {name: True for name, _v in form.get("hidden", [])}
    fields = form["fields"]
    for f in fields:
        if f.get("choices"):
            base[f["arg"].name] = f["choices"][0][0]
    out = [dict(base)]
    for f in fields:
        for value, _label in (f.get("choices") or [])[1:]:
            out.append({**base, f["arg"].name: value})
    return out


def _command_args(
    spec: Any, args: dict[str, Any], masked: list[str], pairs: bool
) -> dict[str, Any] | None:
    a = dict(args)
    for arg in spec.args:
        if arg.kind == "items" and isinstance(a.get(arg.name), str):
            a[arg.name] = a[arg.name].split(",")
        if arg.name in TEXT and arg.name not in a and (arg.required or a.get("kind") == "go_to"):
            a[arg.name] = TEXT[arg.name]
    if spec.name == "open_trial" and a.get("as") == "decorators" and pairs:
        # both Decorators masked, as everyone knows: the form's second accused
        second = next((p for p in masked if p != a["against"]), None)
        a["against"] = [a["against"], second]
    if any(arg.required and arg.name not in a for arg in spec.args):
        return None  # a list typed by the player (the Ronde, a destiny): not a choice
    return a


def test_no_form_offers_what_the_rules_refuse_the_player(clock: Any) -> None:
    t = at("J5 21:00")
    service.set_clock(t)
    played = demo.play_until(t, start=START, seed=2026)
    game = demo.store(played, slug="crawl", name="Ronde de démonstration", clock=Game.MANUAL)
    eng = service.current(game)
    tried = 0
    refused: Counter[str] = Counter()
    examples: dict[str, str] = {}
    for member in game.memberships.all():
        seen = views_player._seen(eng, member)
        masked = [p.pseudo for p in eng.state.players.values() if p.masked]
        pairs = not views_player.publicly_fallen(seen).get("decorators")
        for chorus in (False, True):
            for form in views_player.power_forms(game, seen, chorus=chorus):
                spec = form["spec"]
                copy = service.replayed(eng)
                for variant in _variants(form):
                    args = _command_args(spec, variant, masked, pairs)
                    if args is None:
                        continue
                    tried += 1
                    try:
                        copy.execute(Command(spec.name, member.pseudo, t, args))
                    except RuleViolation as rv:
                        if not any(p in rv.message for p in PAIRS):
                            key = f"{spec.name}: {rv.code}"
                            refused[key] += 1
                            examples.setdefault(key, f"{member.pseudo} {args} : {rv.message}")
                        continue  # (a refused command changed nothing: the copy serves on)
                    copy = service.replayed(eng)
    assert tried > 1000
    assert not refused, examples
