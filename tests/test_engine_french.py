"""The engine's messages are French: no identifier of its vocabulary in a refusal."""

from __future__ import annotations

import re

import pytest

from ronde.engine.errors import RuleViolation
from ronde.engine.game import Game
from ronde.engine.views import view

from .conftest import at, small_game

ID = re.compile(r"\b[a-z]+_[a-z_]+\b")


def _unmask_woody(g: Game) -> str:
    """Bob (Woody) is unmasked by a just trial on J2; returns a member of the chorus."""
    players = view(g.state, "game_master")["players"]
    accusers = [p["pseudo"] for p in players if "woody" in p["targets"] and p["pseudo"] != "Bob"]
    g.act("open_trial", accusers[0], at("J2 09:00"), against="Bob", **{"as": "woody"})
    for i, who in enumerate(accusers[1:5]):
        g.act("complain", who, at(f"J2 09:1{i}"), trial=1)
    g.act("announce", "Mj", at("J2 09:30"), trial=1)
    assert not g.state.players["Bob"].masked
    return "Bob"


def test_a_chorus_action_not_yet_available_is_named_in_french() -> None:
    g = small_game()
    member = _unmask_woody(g)
    with pytest.raises(RuleViolation) as refused:
        g.act("chorus_vote", member, at("J2 10:00"), action="put_to_sleep", player="Cid")
    assert refused.value.code == "not_allowed"
    assert "« Endormir »" in refused.value.message
    assert not ID.search(refused.value.message), refused.value.message


def test_an_unknown_order_of_the_mermaid_lists_the_orders_in_french() -> None:
    g = small_game()
    with pytest.raises(RuleViolation) as refused:
        g.act("order", "Eve", at("J2 10:00"), player="Cid", kind="dance")
    assert refused.value.code == "invalid_argument"
    assert "porter plainte, aller à une case ou prendre un objet" in refused.value.message
    assert not ID.search(refused.value.message), refused.value.message


def test_a_missing_argument_names_no_action_id() -> None:
    g = small_game()
    with pytest.raises(RuleViolation) as refused:
        g.act("open_trial", "Ana", at("J2 10:00"), **{"as": "woody"})
    assert refused.value.message == "Argument manquant : « against »."
    assert "open_trial" not in refused.value.message
