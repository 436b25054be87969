"""Meta-tests on the character modules (STYLE.md): each has the fixed docstring
sections, and names every rule id of its RULES.md subsection."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

from ronde.engine.registry import REGISTRY

from .conftest import SHARED

SECTIONS = ("Glossary", "Power", "Constraint", "Jokers", "Failure", "Inheritance", "Rule ids")
SUBSECTION = {
    "extra": "7.1",
    "prompter": "7.2",
    "devils_advocate": "7.3",
    "alice": "7.4",
    "guignol": "7.5",
    "decorators": "7.6",
    "chucky": "7.7",
    "seer": "7.8",
    "mime": "7.9",
    "little_mermaid": "7.10",
    "halus": "7.11",
    "woody": "7.12",
    "pierrot": "7.13",
    "diva": "7.14",
    "pianist": "7.15",
    "destiny": "7.16",
    "tragic_hero": "7.17",
    "knight": "7.18",
    "polichinelle": "7.19",
    "straw_man": "7.20",
    "pinocchio": "7.21",
    "revenant": "7.22",
}
RULES = (SHARED / "RULES.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("character", sorted(REGISTRY))
def test_docstring_has_the_fixed_sections(character: str) -> None:
    module = importlib.import_module(type(REGISTRY[character]).__module__)
    doc = module.__doc__ or ""
    for section in SECTIONS:
        assert re.search(rf"^{section}\b[^:\n]*:", doc, re.M), f"{character}: no {section}"


@pytest.mark.parametrize("character", sorted(REGISTRY))
def test_module_names_every_rule_of_its_subsection(character: str) -> None:
    module = importlib.import_module(type(REGISTRY[character]).__module__)
    source = Path(module.__file__ or "").read_text(encoding="utf-8")
    ids = set(re.findall(rf"\*\*(R{re.escape(SUBSECTION[character])}\.\d+)\*\*", RULES))
    assert ids, character
    assert not sorted(i for i in ids if i not in source)


def test_every_character_has_a_subsection() -> None:
    assert set(SUBSECTION) == set(REGISTRY)
